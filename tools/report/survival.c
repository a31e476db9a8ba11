/*
** survival.c -- the report's Survival section (--time COL --event COL
** --horizon T): its computation, one room for the
** section (the survival family's part 2, issue 49; docs/survival.md); its
** writers are json.c's json_survival and html_sections.c's html_survival.
** SPDX-License-Identifier: MIT
**
** Rules:
**   1. Over every row of the table (not per --by group): for each --score
**      and --prob column, Harrell's C with its interval (c_index_ci), Uno's
**      C (uno_c), AUC(t) with its bootstrap interval (surv_auroc_ci, --reps
**      replicates, seed 0; over more than --boot-rows rows, or with --reps
**      0, the point value alone: surv_auroc, surv_brier) and Kaplan-Meier
**      curves by tertile of the column (cut at its 1/3 and 2/3 quantiles,
**      ties together; km, plot_km); for
**      --prob also surv_summary (Brier, IPA, O/E at t), surv_brier_ci,
**      surv_calibration (--bins groups) and surv_decision_curve (drawn with
**      treat-all and treat-none by plot_lines); with two --score columns or
**      more, c_index_diff of the first two.  With --weight each is its
**      weighted twin (w after the score).
**   2. Every number is the function's own JSON or value, kept as the
**      function wrote it: the JSON's "survival" object holds those texts,
**      so a test compares them with the same SQL over the same rows.
**   3. Errors, exit 1, naming the option: a negative --time (or any value
**      the functions refuse: their message after the options), a --horizon
**      after every follow-up time.  Without --time the section is absent
**      and nothing else of the report changes.
**
** Cost: each function's own (a sort of the rows per call; the bootstraps
** O(reps n)); the KM curves one quantile selection and one scan per column.
*/
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* The value of one SQL expression over the table's rows: text (malloc'd,
** NULL for NULL), and the double in *pD when pD (NAN for NULL); an error
** names --time and --event (rule 3). */
static char *surv_query_d(Report *r, const char *zSql, double *pD){
  sqlite3_stmt *st = 0;
  char *z = 0;
  int rc;
  if( sqlite3_prepare_v2(r->db, zSql, -1, &st, 0)!=SQLITE_OK ){
    die(1, "%s\n  in: %s", sqlite3_errmsg(r->db), zSql);
  }
  rc = sqlite3_step(st);
  if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
    die(1, "--time %s, --event %s: %s", r->o.zTime, r->o.zEvent, sqlite3_errmsg(r->db));
  }
  if( rc==SQLITE_ROW ) z = col_dup(st, 0);
  if( pD ) *pD = rc==SQLITE_ROW ? col_double(st, 0) : NAN;
  sqlite3_finalize(st);
  return z;
}
static char *surv_query(Report *r, const char *zSql){ return surv_query_d(r, zSql, 0); }

/* f(time, event, col [, w], args) over the table as text (and its double
** in *pD when pD). */
static char *surv_call_d(Report *r, const char *zFunc, const char *zCol, const char *zArgs, double *pD){
  const char *zW = r->o.zWeight;
  char *zSql = sqlite3_mprintf("SELECT %s%s(\"%w\", \"%w\", \"%w\"%s%w%s%s) FROM main.\"%w\"", zFunc, zW ? "_w" : "",
                               r->o.zTime, r->o.zEvent, zCol, zW ? ", \"" : "", zW ? zW : "", zW ? "\"" : "",
                               zArgs, r->o.zTable);
  char *z = surv_query_d(r, zSql, pD);
  sqlite3_free(zSql);
  return z;
}
static char *surv_call(Report *r, const char *zFunc, const char *zCol, const char *zArgs){
  return surv_call_d(r, zFunc, zCol, zArgs, 0);
}

/* An interval from a function's JSON (estimate, lo, hi). */
static void surv_ci(Report *r, Ci *c, char *zJson){
  c->zJson = zJson;
  c->delta = 0;
  c->est = zJson ? query_double(r, zJson, "$.estimate") : NAN;
  c->lo = zJson ? query_double(r, zJson, "$.lo") : NAN;
  c->hi = zJson ? query_double(r, zJson, "$.hi") : NAN;
}

/* Kaplan-Meier curves by tertile of zCol: the rows with s <= Q(1/3), Q(1/3)
** < s <= Q(2/3), s > Q(2/3) (ties stay together), Q numpy's linear quantile
** of the column over the rows with a time and an event (strat_report's
** stratifier window, with the event as its label); the three curves from
** one scan (FILTER), no sort of the rows. */
static char *surv_km_svg(Report *r, const char *zCol){
  const char *zW = r->o.zWeight;
  double q1 = NAN, q2 = NAN;
  char *zSql, *zJ, *z;
  zSql = sqlite3_mprintf("SELECT strat_report(\"%w\" = 1, \"%w\", \"%w\", 1.0/3, 2.0/3) FROM main.\"%w\""
                         " WHERE \"%w\" IS NOT NULL%s%w%s", r->o.zEvent, zCol, zCol, r->o.zTable, r->o.zTime,
                         zW ? " AND \"" : "", zW ? zW : "", zW ? "\" IS NOT NULL" : "");
  zJ = surv_query(r, zSql);
  sqlite3_free(zSql);
  if( zJ ){
    q1 = query_double(r, zJ, "$.stratifier_low");
    q2 = query_double(r, zJ, "$.stratifier_high");
    free(zJ);
  }
  if( !(q1<=q2) ) return 0;
  zSql = sqlite3_mprintf(
    "WITH k AS MATERIALIZED (SELECT"
    " km%s(\"%w\", \"%w\"%s%w%s) FILTER (WHERE \"%w\" <= %.17g) AS c1,"
    " km%s(\"%w\", \"%w\"%s%w%s) FILTER (WHERE \"%w\" > %.17g AND \"%w\" <= %.17g) AS c2,"
    " km%s(\"%w\", \"%w\"%s%w%s) FILTER (WHERE \"%w\" > %.17g) AS c3 FROM main.\"%w\")"
    " SELECT plot_km(n, c, 'Kaplan-Meier by tertile of %q') FROM (SELECT 1 AS o, 'tertile 1' AS n, c1 AS c FROM k"
    " UNION ALL SELECT 2, 'tertile 2', c2 FROM k UNION ALL SELECT 3, 'tertile 3', c3 FROM k ORDER BY o)",
    zW ? "_w" : "", r->o.zTime, r->o.zEvent, zW ? ", \"" : "", zW ? zW : "", zW ? "\"" : "", zCol, q1,
    zW ? "_w" : "", r->o.zTime, r->o.zEvent, zW ? ", \"" : "", zW ? zW : "", zW ? "\"" : "", zCol, q1, zCol, q2,
    zW ? "_w" : "", r->o.zTime, r->o.zEvent, zW ? ", \"" : "", zW ? zW : "", zW ? "\"" : "", zCol, q2,
    r->o.zTable, zCol);
  z = surv_query(r, zSql);
  sqlite3_free(zSql);
  return z;
}

/* The decision curve of the --prob column with treat-all and treat-none,
** net benefits below -0.05 left out (dcurves' default view). */
static char *surv_dc_svg(Report *r, const char *zDc){
  char *zSql = sqlite3_mprintf(
    "SELECT plot_lines(s, x, y, 'Decision curve at t = %g', 'threshold probability', 'net benefit') FROM ("
    "SELECT 1 AS o, %Q AS s, j.value ->> 'threshold' AS x, j.value ->> 'net_benefit' AS y FROM json_each(%Q) AS j"
    " UNION ALL SELECT 2, 'treat all', j.value ->> 'threshold', j.value ->> 'treat_all' FROM json_each(%Q) AS j"
    " UNION ALL SELECT 3, 'treat none', j.value ->> 'threshold', 0 FROM json_each(%Q) AS j)"
    " WHERE y >= -0.05 ORDER BY o, x",
    r->o.horizon, r->o.zProb, zDc, zDc, zDc);
  char *z = surv_query(r, zSql);
  sqlite3_free(zSql);
  return z;
}

/* Observed (1 - Kaplan-Meier in each group) against predicted risk. */
static char *surv_cal_svg(Report *r, const char *zCal){
  char *zSql = sqlite3_mprintf(
    "SELECT plot_lines(s, x, y, 'Calibration at t = %g', 'predicted risk', 'observed risk (1 - KM)') FROM ("
    "SELECT 1 AS o, %Q AS s, j.value ->> 'pred' AS x, j.value ->> 'obs' AS y FROM json_each(%Q, '$.bins') AS j"
    " UNION ALL SELECT 2, 'ideal', 0, 0 UNION ALL SELECT 2, 'ideal', 1, 1) ORDER BY o, x",
    r->o.horizon, r->o.zProb, zCal);
  char *z = surv_query(r, zSql);
  sqlite3_free(zSql);
  return z;
}

void survival_compute(Report *r, SurvSec *s){
  char zArgs[96], *z;
  double tmin, tmax;
  int k, n = r->o.nScore + (r->o.zProb ? 1 : 0);
  memset(s, 0, sizeof(*s));
  if( r->o.zTime==0 ) return;
  s->on = 1;
  progress(r, "survival: checking --time and --event");
  /* rule 3: the follow-up times */
  z = sqlite3_mprintf("SELECT min(\"%w\"), max(\"%w\"), count(*) FROM main.\"%w\" WHERE \"%w\" IS NOT NULL AND \"%w\" IS NOT NULL",
                      r->o.zTime, r->o.zTime, r->o.zTable, r->o.zTime, r->o.zEvent);
  {
    sqlite3_stmt *st = prep(r, z);
    int rc = sqlite3_step(st);
    step_done(r, st, rc);
    tmin = rc==SQLITE_ROW ? col_double(st, 0) : NAN;
    tmax = rc==SQLITE_ROW ? col_double(st, 1) : NAN;
    s->rows = rc==SQLITE_ROW ? sqlite3_column_int64(st, 2) : 0;
    sqlite3_finalize(st);
  }
  sqlite3_free(z);
  if( isnan(tmax) ) die(1, "--time %s, --event %s: no row has both", r->o.zTime, r->o.zEvent);
  if( tmin<0 ) die(1, "--time %s: follow-up times must be >= 0, got %g", r->o.zTime, tmin);
  if( tmax<r->o.horizon ){
    die(1, "--horizon %g is after every follow-up: the last --time %s is %g", r->o.horizon, r->o.zTime, tmax);
  }
  s->boot = r->o.reps>0 && s->rows<=r->o.bootRows;
  s->aCol = xmalloc(sizeof(SurvCol) * (size_t)(n ? n : 1));
  memset(s->aCol, 0, sizeof(SurvCol) * (size_t)(n ? n : 1));
  for(k=0; k<n; k++){
    SurvCol *c = &s->aCol[s->nCol++];
    c->zCol = k<r->o.nScore ? r->o.azScore[k] : r->o.zProb;
    progress(r, "survival: %s", c->zCol);
    surv_ci(r, &c->c, surv_call(r, "c_index_ci", c->zCol, ""));
    c->zUno = surv_call_d(r, "uno_c", c->zCol, "", &c->uno);
    if( s->boot ){
      snprintf(zArgs, sizeof(zArgs), ", %.17g, 0.95, %d, 0", r->o.horizon, r->o.reps);
      surv_ci(r, &c->auc, surv_call(r, "surv_auroc_ci", c->zCol, zArgs));
    }else{
      snprintf(zArgs, sizeof(zArgs), ", %.17g", r->o.horizon);
      c->zAuc = surv_call_d(r, "surv_auroc", c->zCol, zArgs, &c->auc.est);
      c->auc.lo = c->auc.hi = NAN;
    }
    c->zKmSvg = surv_km_svg(r, c->zCol);
  }
  if( r->o.zProb ){
    progress(r, "survival: --prob %s at t", r->o.zProb);
    snprintf(zArgs, sizeof(zArgs), ", %.17g", r->o.horizon);
    s->zSummary = surv_call(r, "surv_summary", r->o.zProb, zArgs);
    if( s->boot ){
      snprintf(zArgs, sizeof(zArgs), ", %.17g, 0.95, %d, 0", r->o.horizon, r->o.reps);
      surv_ci(r, &s->brier, surv_call(r, "surv_brier_ci", r->o.zProb, zArgs));
    }
    snprintf(zArgs, sizeof(zArgs), ", %.17g, %d", r->o.horizon, r->o.bins);
    s->zCal = surv_call(r, "surv_calibration", r->o.zProb, zArgs);
    snprintf(zArgs, sizeof(zArgs), ", %.17g", r->o.horizon);
    s->zDc = surv_call(r, "surv_decision_curve", r->o.zProb, zArgs);
    if( s->zCal ) s->zCalSvg = surv_cal_svg(r, s->zCal);
    if( s->zDc ) s->zDcSvg = surv_dc_svg(r, s->zDc);
  }
  if( r->o.nScore>=2 ){
    char *zB = sqlite3_mprintf("\"%w\"", r->o.azScore[1]);
    char *zSql;
    const char *zW = r->o.zWeight;
    zSql = sqlite3_mprintf("SELECT c_index_diff%s(\"%w\", \"%w\", \"%w\", %s%s%w%s) FROM main.\"%w\"", zW ? "_w" : "",
                           r->o.zTime, r->o.zEvent, r->o.azScore[0], zB, zW ? ", \"" : "", zW ? zW : "",
                           zW ? "\"" : "", r->o.zTable);
    s->zDiff = surv_query(r, zSql);
    sqlite3_free(zSql);
    sqlite3_free(zB);
  }
}

void survival_free(SurvSec *s){
  int k;
  for(k=0; k<s->nCol; k++){
    SurvCol *c = &s->aCol[k];
    free(c->c.zJson); free(c->auc.zJson); free(c->zUno); free(c->zAuc); free(c->zKmSvg);
  }
  free(s->aCol);
  free(s->zSummary); free(s->brier.zJson); free(s->zCal); free(s->zDc); free(s->zCalSvg); free(s->zDcSvg);
  free(s->zDiff);
  memset(s, 0, sizeof(*s));
}

