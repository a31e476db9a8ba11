/*
** json.c -- the --json writer of mleval-report: the section structs
** (sections.c) as one JSON object.
** SPDX-License-Identifier: MIT
**
** Keys, in order: generator, mleval_version, table, rows, label, by, prob,
** bins, reps, boot_rows, calibration, curve_points, groups, auroc, pr_auc,
** inverted, ece, curves, reliability, summary, compare (two scores or
** more), operating_points, drift (--drift-ref), svd_cost (--svd).
**
** Rules:
**   1. A number is the double the section read, written with the shortest
**      of %.15g, %.16g, %.17g that reads back as it (json_num), without a
**      locale; not finite is null.
**   2. A function's own JSON (an interval, a curve, an operating point) is
**      written as the function wrote it.
**   3. Strings are escaped (quote, backslash, controls) and ill-formed UTF-8
**      is written as U+FFFD, the rule of the extension's JSON writer.
**
** Cost: O(size of the output).
*/
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "ml_utf8.h"

/* The shortest %.{15,16,17}g text that reads back as d (the program never
** calls setlocale, so '.' is the decimal point); null when not finite. */
static void json_num(sqlite3_str *s, double d){
  char buf[40];
  int p;
  if( !isfinite(d) ){ sqlite3_str_appendall(s, "null"); return; }
  for(p=15; p<=17; p++){
    snprintf(buf, sizeof(buf), "%.*g", p, d);
    if( strtod(buf, 0)==d ) break;
  }
  sqlite3_str_appendall(s, buf);
}

/* A JSON string: quote, backslash and controls escaped, ill-formed UTF-8 as
** U+FFFD (the same rule as the extension's JSON writer, ml_json.c). */
static void json_str(sqlite3_str *s, const char *z){
  sqlite3_str_appendchar(s, 1, '"');
  while( z && *z ){
    unsigned char c = (unsigned char)*z;
    unsigned cp;
    int k;
    if( c=='"' || c=='\\' ){ sqlite3_str_appendf(s, "\\%c", c); z++; continue; }
    if( c<0x20 ){ sqlite3_str_appendf(s, "\\u%04x", c); z++; continue; }
    k = ml_utf8_char(z, &cp);
    if( k<0 ){ sqlite3_str_appendall(s, ML_UTF8_REPLACEMENT); z += -k; }
    else{ sqlite3_str_append(s, z, k); z += k; }
  }
  sqlite3_str_appendchar(s, 1, '"');
}

/* A count (a sum of weights with --weight): an integer as %lld writes it,
** else as json_num. */
static void json_count(sqlite3_str *s, double d){
  if( d==floor(d) && fabs(d)<9007199254740992.0 ) sqlite3_str_appendf(s, "%.0f", d);
  else json_num(s, d);
}

/* A string, or null for NULL. */
static void json_str_or_null(sqlite3_str *s, const char *z){
  if( z ) json_str(s, z); else sqlite3_str_appendall(s, "null");
}

/* ,"key":{"name":{"group":value,...},...} for per-group doubles of columns. */
static void json_table(Report *r, sqlite3_str *j, const char *zKey, int nCol, const char *const *azCol,
                       double *const *a){
  int k, i;
  sqlite3_str_appendf(j, ",\"%s\":{", zKey);
  for(k=0; k<nCol; k++){
    if( k ) sqlite3_str_appendchar(j, 1, ',');
    json_str(j, azCol[k]);
    sqlite3_str_appendall(j, ":{");
    for(i=0; i<r->nGroup; i++){
      if( i ) sqlite3_str_appendchar(j, 1, ',');
      json_str(j, r->aGroup[i].zName);
      sqlite3_str_appendchar(j, 1, ':');
      json_num(j, a[k][i]);
    }
    sqlite3_str_appendall(j, "}");
  }
  sqlite3_str_appendall(j, "}");
}

/* {"group":JSON or null,...} over the groups that have a row. */
static void json_texts(Report *r, sqlite3_str *j, char *const *azText, const unsigned char *aHas){
  int i, first = 1;
  sqlite3_str_appendchar(j, 1, '{');
  for(i=0; i<r->nGroup; i++){
    if( !aHas[i] ) continue;
    if( !first ) sqlite3_str_appendchar(j, 1, ',');
    first = 0;
    json_str(j, r->aGroup[i].zName);
    sqlite3_str_appendf(j, ":%s", azText[i] ? azText[i] : "null");
  }
  sqlite3_str_appendchar(j, 1, '}');
}

static void json_head(Report *r, sqlite3_str *j, const Sections *s){
  int i;
  sqlite3_str_appendall(j, azOurHead[2]);
  sqlite3_str_appendall(j, "\"mleval_version\":");
  json_str(j, s->zVersion);
  sqlite3_str_appendall(j, ",\"table\":");
  json_str(j, r->o.zTable);
  sqlite3_str_appendf(j, ",\"rows\":%lld,\"label\":", r->nRow);
  json_str_or_null(j, r->o.zLabel);
  sqlite3_str_appendall(j, ",\"by\":");
  json_str_or_null(j, r->o.zBy);
  sqlite3_str_appendall(j, ",\"prob\":");
  json_str_or_null(j, r->o.zProb);
  sqlite3_str_appendall(j, ",\"weight\":");
  json_str_or_null(j, r->o.zWeight);
  sqlite3_str_appendf(j, ",\"bins\":%d,\"reps\":%d,\"boot_rows\":%lld,\"calibration\":%s,\"curve_points\":%d,"
                      "\"groups\":[", r->o.bins, r->o.reps, (long long)r->o.bootRows,
                      r->o.zProb ? "\"probability\"" : "null", CURVE_POINTS);
  for(i=0; i<r->nGroup; i++){
    const Group *g = &r->aGroup[i];
    if( i ) sqlite3_str_appendchar(j, 1, ',');
    sqlite3_str_appendall(j, "{\"name\":");
    json_str(j, g->zName);
    sqlite3_str_appendall(j, ",\"rows\":"); json_count(j, g->n);
    sqlite3_str_appendall(j, ",\"positives\":"); json_count(j, g->pos);
    sqlite3_str_appendall(j, ",\"negatives\":"); json_count(j, g->neg);
    sqlite3_str_appendall(j, ",\"prevalence\":");
    json_num(j, g->n ? (double)g->pos / (double)g->n : NAN);
    sqlite3_str_appendall(j, "}");
  }
  sqlite3_str_appendall(j, "]");
}

/* auroc, pr_auc, inverted, ece, curves, reliability. */
static void json_groups(Report *r, sqlite3_str *j, const Sections *s){
  double *aAu[MAX_SCORES], *aAp[MAX_SCORES];
  const char *azCal[1] = {r->o.zProb};
  int k, i, first = 1;
  for(k=0; k<r->o.nScore; k++){ aAu[k] = s->auroc.aScore[k].aValue; aAp[k] = s->pr.aScore[k].aValue; }
  json_table(r, j, "auroc", r->o.nScore, r->o.azScore, aAu);
  json_table(r, j, "pr_auc", r->o.nScore, r->o.azScore, aAp);
  sqlite3_str_appendall(j, ",\"inverted\":[");
  for(k=0; k<r->o.nScore; k++) for(i=0; i<r->nGroup; i++){
    if( isfinite(aAu[k][i]) && aAu[k][i]<0.5 ){
      if( !first ) sqlite3_str_appendchar(j, 1, ',');
      first = 0;
      sqlite3_str_appendall(j, "{\"score\":");
      json_str(j, r->o.azScore[k]);
      sqlite3_str_appendall(j, ",\"group\":");
      json_str(j, r->aGroup[i].zName);
      sqlite3_str_appendall(j, "}");
    }
  }
  sqlite3_str_appendall(j, "]");
  json_table(r, j, "ece", s->cal.on ? 1 : 0, azCal, &s->cal.aEce);
  sqlite3_str_appendall(j, ",\"curves\":{");
  for(k=0; k<r->o.nScore; k++){
    if( k ) sqlite3_str_appendchar(j, 1, ',');
    json_str(j, r->o.azScore[k]);
    sqlite3_str_appendall(j, ":{\"roc_curve\":");
    json_texts(r, j, s->auroc.aScore[k].azCurve, s->auroc.aScore[k].aHas);
    sqlite3_str_appendall(j, ",\"pr_curve\":");
    json_texts(r, j, s->pr.aScore[k].azCurve, s->pr.aScore[k].aHas);
    sqlite3_str_appendall(j, "}");
  }
  sqlite3_str_appendall(j, "},\"reliability\":{");
  if( s->cal.on ){
    json_str(j, r->o.zProb);
    sqlite3_str_appendchar(j, 1, ':');
    json_texts(r, j, s->cal.azRel, s->cal.aHas);
  }
  sqlite3_str_appendall(j, "}");
}

/* "all":{...} then ,"groups":{"g":{...},...} around the rows' objects: the
** opening of row i (zGroup NULL: all rows, always first). */
static void json_row_key(sqlite3_str *j, const char *zGroup, int *pFirst){
  if( zGroup==0 ){ sqlite3_str_appendall(j, "\"all\":"); return; }
  if( *pFirst ) sqlite3_str_appendall(j, ",\"groups\":{");
  else sqlite3_str_appendchar(j, 1, ',');
  *pFirst = 0;
  json_str(j, zGroup);
  sqlite3_str_appendchar(j, 1, ':');
}

static void json_summary(Report *r, sqlite3_str *j, const Summary *s){
  int k, i, first;
  sqlite3_str_appendall(j, ",\"summary\":{\"scores\":{");
  for(k=0; k<r->o.nScore; k++){
    const SumScore *ss = &s->aScore[k];
    if( k ) sqlite3_str_appendchar(j, 1, ',');
    json_str(j, r->o.azScore[k]);
    sqlite3_str_appendall(j, ":{");
    for(i=0, first=1; i<ss->nRow; i++){
      const SumRow *w = &ss->aRow[i];
      json_row_key(j, w->zGroup, &first);
      sqlite3_str_appendall(j, "{\"rows\":"); json_count(j, w->n);
      sqlite3_str_appendall(j, ",\"positives\":"); json_count(j, w->pos);
      sqlite3_str_appendall(j, ",\"prevalence\":");
      json_num(j, w->prev);
      sqlite3_str_appendall(j, ",\"auroc\":"); json_num(j, w->auroc.est);
      sqlite3_str_appendf(j, ",\"auroc_ci\":%s", w->auroc.zJson ? w->auroc.zJson : "null");
      sqlite3_str_appendall(j, ",\"pr_auc\":"); json_num(j, w->prAuc.est);
      sqlite3_str_appendf(j, ",\"pr_auc_ci\":%s}", w->prAuc.zJson ? w->prAuc.zJson : "null");
    }
    if( !first ) sqlite3_str_appendall(j, "}");
    if( r->o.zBy ){
      sqlite3_str_appendf(j, ",\"mean\":{\"auroc\":%s,\"pr_auc\":%s}", ss->meanAuroc.zJson ? ss->meanAuroc.zJson : "null",
                          ss->meanPr.zJson ? ss->meanPr.zJson : "null");
    }
    sqlite3_str_appendall(j, "}");
  }
  sqlite3_str_appendall(j, "}");
  if( r->o.zProb ){
    sqlite3_str_appendall(j, ",\"probability\":{");
    for(i=0, first=1; i<s->nProb; i++){
      const ProbRow *w = &s->aProb[i];
      json_row_key(j, w->zGroup, &first);
      sqlite3_str_appendall(j, "{\"rows\":"); json_count(j, w->n);
      sqlite3_str_appendall(j, ",\"brier\":");
      json_num(j, w->brier);
      sqlite3_str_appendall(j, ",\"no_skill_brier\":"); json_num(j, w->nsBrier);
      sqlite3_str_appendall(j, ",\"log_loss\":"); json_num(j, w->logLoss);
      sqlite3_str_appendall(j, ",\"no_skill_log_loss\":"); json_num(j, w->nsLog);
      sqlite3_str_appendall(j, ",\"oe_ratio\":"); json_num(j, w->oe);
      sqlite3_str_appendall(j, ",\"citl\":"); json_num(j, w->citl);
      sqlite3_str_appendall(j, ",\"slope\":"); json_num(j, w->slope);
      sqlite3_str_appendall(j, ",\"citl_lo\":"); json_num(j, w->citlLo);
      sqlite3_str_appendall(j, ",\"citl_hi\":"); json_num(j, w->citlHi);
      sqlite3_str_appendall(j, ",\"slope_lo\":"); json_num(j, w->slopeLo);
      sqlite3_str_appendall(j, ",\"slope_hi\":"); json_num(j, w->slopeHi);
      sqlite3_str_appendall(j, ",\"ici\":"); json_num(j, w->ici);
      sqlite3_str_appendf(j, ",\"calibration_smooth\":%s", w->zSmooth ? w->zSmooth : "null");
      sqlite3_str_appendf(j, ",\"no_better_than_no_skill\":%s", w->worse ? "true" : "false");
      sqlite3_str_appendf(j, ",\"worse_than_no_skill\":%s}", w->worse==2 ? "true" : "false");
    }
    if( !first ) sqlite3_str_appendall(j, "}");
    sqlite3_str_appendall(j, "}");
  }
  sqlite3_str_appendall(j, "}");
}

static void json_compare(sqlite3_str *j, const CmpSec *s){
  int i;
  if( !s->on ) return;
  sqlite3_str_appendall(j, ",\"compare\":[");
  for(i=0; i<s->nRow; i++){
    const CmpRow *c = &s->aRow[i];
    if( i ) sqlite3_str_appendchar(j, 1, ',');
    sqlite3_str_appendall(j, "{\"a\":"); json_str(j, c->zA);
    sqlite3_str_appendall(j, ",\"b\":"); json_str(j, c->zB);
    sqlite3_str_appendall(j, ",\"group\":");
    json_str_or_null(j, c->zGroup);
    sqlite3_str_appendall(j, ",\"rows\":"); json_count(j, c->n);
    sqlite3_str_appendf(j, ",\"auroc_diff\":%s,\"auroc_p_holm\":", c->auDiff.zJson ? c->auDiff.zJson : "null");
    json_num(j, c->holmAu);
    sqlite3_str_appendf(j, ",\"pr_auc_diff_ci\":%s,\"pr_auc_p_holm\":", c->prDiff.zJson ? c->prDiff.zJson : "null");
    json_num(j, c->holmPr);
    sqlite3_str_appendall(j, "}");
  }
  sqlite3_str_appendall(j, "]");
}

static void json_operating(sqlite3_str *j, const OpSec *s){
  int i;
  sqlite3_str_appendall(j, ",\"operating_points\":[");
  for(i=0; i<s->nRow; i++){
    const OpRow *o = &s->aRow[i];
    if( i ) sqlite3_str_appendchar(j, 1, ',');
    sqlite3_str_appendall(j, "{\"score\":"); json_str(j, o->zScore);
    sqlite3_str_appendall(j, ",\"group\":");
    json_str_or_null(j, o->zGroup);
    sqlite3_str_appendf(j, ",\"point\":%s,\"sensitivity_ci\":%s}", o->zPoint ? o->zPoint : "null",
                        o->sens.zJson ? o->sens.zJson : "null");
  }
  sqlite3_str_appendall(j, "]");
}

/* ,"drift":{"by","drift_ref","reference":[periods],"features":[--feature
** columns],"worst":{col:{"period","psi","flag"}},"bins":10,"columns":{col:
** [{"period","rows","labelled","drift_report"}]}} with --drift-ref ("worst": the
** summary's drift line, flag null, "moderate" or "major"). */
static void json_drift(Report *r, sqlite3_str *j, const DriftSec *s){
  int i;
  const char *zPrev = 0;
  if( !s->on ) return;
  sqlite3_str_appendall(j, ",\"drift\":{\"by\":");
  json_str(j, r->o.zBy);
  sqlite3_str_appendall(j, ",\"drift_ref\":");
  json_str(j, r->o.zDriftRef);
  sqlite3_str_appendall(j, ",\"reference\":[");
  for(i=0; i<s->nRef; i++){
    if( i ) sqlite3_str_appendchar(j, 1, ',');
    json_str(j, s->azRef[i]);
  }
  sqlite3_str_appendall(j, "],\"features\":[");
  for(i=0; i<r->o.nFeature; i++){
    if( i ) sqlite3_str_appendchar(j, 1, ',');
    json_str(j, r->o.azFeature[i]);
  }
  sqlite3_str_appendall(j, "],\"worst\":{");
  for(i=0; i<s->nWorst; i++){
    const DriftWorst *w = &s->aWorst[i];
    if( i ) sqlite3_str_appendchar(j, 1, ',');
    json_str(j, w->zCol);
    sqlite3_str_appendall(j, ":{\"period\":");
    if( w->zPeriod ) json_str(j, w->zPeriod); else sqlite3_str_appendall(j, "null");
    sqlite3_str_appendall(j, ",\"psi\":");
    json_num(j, w->psi);
    sqlite3_str_appendf(j, ",\"flag\":%s}", !(w->psi>=0.1) ? "null" : w->psi>=0.25 ? "\"major\"" : "\"moderate\"");
  }
  sqlite3_str_appendall(j, "},\"bins\":10,\"columns\":{");
  for(i=0; i<s->nRow; i++){
    const DriftRow *d = &s->aRow[i];
    if( zPrev==0 || strcmp(zPrev, d->zCol)!=0 ){
      if( zPrev ) sqlite3_str_appendall(j, "],");
      json_str(j, d->zCol);
      sqlite3_str_appendall(j, ":[");
    }else{
      sqlite3_str_appendchar(j, 1, ',');
    }
    zPrev = d->zCol;
    sqlite3_str_appendall(j, "{\"period\":");
    json_str(j, d->zPeriod);
    sqlite3_str_appendall(j, ",\"rows\":");
    json_count(j, d->n);
    sqlite3_str_appendall(j, ",\"labelled\":");     /* null: a drift-only run */
    if( isfinite(d->nLabelled) ) json_count(j, d->nLabelled); else sqlite3_str_appendall(j, "null");
    sqlite3_str_appendf(j, ",\"drift_report\":%s}", d->zJson ? d->zJson : "null");
  }
  if( zPrev ) sqlite3_str_appendall(j, "]");
  sqlite3_str_appendall(j, "}}");
}

static void json_svd(sqlite3_str *j, const SvdSec *s){
  int i;
  if( !s->on ) return;
  sqlite3_str_appendall(j, ",\"svd_cost\":[");
  for(i=0; i<s->nRow; i++){
    const SvdRow *v = &s->aRow[i];
    if( i ) sqlite3_str_appendchar(j, 1, ',');
    sqlite3_str_appendall(j, "{\"target\":");
    json_str(j, v->zTarget);
    sqlite3_str_appendall(j, ",\"method\":");
    json_str(j, v->zMethod);
    sqlite3_str_appendf(j, ",\"rows\":%d,\"cols\":%d,\"rank\":%d,\"ms_median\":", v->rows, v->cols, v->rank);
    json_num(j, v->ms);
    sqlite3_str_appendall(j, ",\"sv_rel_error\":");
    json_num(j, v->relErr);
    sqlite3_str_appendall(j, ",\"sv_correlation\":");
    json_num(j, v->corr);
    sqlite3_str_appendall(j, "}");
  }
  sqlite3_str_appendall(j, "]");
}

/* ,"survival":{"time","event","horizon","columns":[{"column","c_index_ci",
** "uno_c","surv_auroc_ci" (or "surv_auroc" with --reps 0 or more than
** --boot-rows rows)}],"prob":{"column",
** "surv_summary","surv_brier_ci","surv_calibration","surv_decision_curve"}
** or null,"c_index_diff":{"a","b","result"} or null}: the functions' texts. */
static void json_survival(Report *r, sqlite3_str *j, const SurvSec *s){
  int k;
  if( !s->on ) return;
  sqlite3_str_appendall(j, ",\"survival\":{\"time\":");
  json_str(j, r->o.zTime);
  sqlite3_str_appendall(j, ",\"event\":");
  json_str(j, r->o.zEvent);
  sqlite3_str_appendall(j, ",\"horizon\":");
  json_num(j, r->o.horizon);
  sqlite3_str_appendf(j, ",\"weighted\":%s,\"rows\":%lld,\"bootstrap\":%s,\"columns\":[",
                      r->o.zWeight ? "true" : "false", (long long)s->rows, s->boot ? "true" : "false");
  for(k=0; k<s->nCol; k++){
    const SurvCol *c = &s->aCol[k];
    if( k ) sqlite3_str_appendchar(j, 1, ',');
    sqlite3_str_appendall(j, "{\"column\":");
    json_str(j, c->zCol);
    sqlite3_str_appendf(j, ",\"c_index_ci\":%s,\"uno_c\":", c->c.zJson ? c->c.zJson : "null");
    json_num(j, c->uno);
    if( s->boot ) sqlite3_str_appendf(j, ",\"surv_auroc_ci\":%s}", c->auc.zJson ? c->auc.zJson : "null");
    else{ sqlite3_str_appendall(j, ",\"surv_auroc\":"); json_num(j, c->auc.est); sqlite3_str_appendall(j, "}"); }
  }
  sqlite3_str_appendall(j, "],\"prob\":");
  if( r->o.zProb ){
    sqlite3_str_appendall(j, "{\"column\":");
    json_str(j, r->o.zProb);
    sqlite3_str_appendf(j, ",\"surv_summary\":%s,\"surv_brier_ci\":%s,\"surv_calibration\":%s,"
                        "\"surv_decision_curve\":%s}", s->zSummary ? s->zSummary : "null",
                        s->brier.zJson ? s->brier.zJson : "null", s->zCal ? s->zCal : "null",
                        s->zDc ? s->zDc : "null");
  }else{
    sqlite3_str_appendall(j, "null");
  }
  sqlite3_str_appendall(j, ",\"c_index_diff\":");
  if( r->o.nScore>=2 ){
    sqlite3_str_appendall(j, "{\"a\":");
    json_str(j, r->o.azScore[0]);
    sqlite3_str_appendall(j, ",\"b\":");
    json_str(j, r->o.azScore[1]);
    sqlite3_str_appendf(j, ",\"result\":%s}", s->zDiff ? s->zDiff : "null");
  }else{
    sqlite3_str_appendall(j, "null");
  }
  sqlite3_str_appendall(j, "}");
}

/* The whole --json text (sqlite3_free it). */
char *json_write(Report *r, const Sections *s){
  sqlite3_str *j = sqlite3_str_new(r->db);
  json_head(r, j, s);
  if( r->o.driftOnly ){           /* no --label: the drift alone */
    json_drift(r, j, &s->drift);
    sqlite3_str_appendall(j, "}\n");
    if( sqlite3_str_errcode(j) ) die(1, "out of memory");
    return sqlite3_str_finish(j);
  }
  json_groups(r, j, s);
  json_summary(r, j, &s->sum);
  json_compare(j, &s->cmp);
  json_operating(j, &s->op);
  json_drift(r, j, &s->drift);
  json_svd(j, &s->svd);
  json_survival(r, j, &s->surv);
  sqlite3_str_appendall(j, "}\n");
  if( sqlite3_str_errcode(j) ) die(1, "out of memory");
  return sqlite3_str_finish(j);
}
