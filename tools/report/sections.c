/*
** sections.c -- one computation per section of mleval-report: each reads
** the results scan.c left in the temp tables and fills a plain struct
** (report.h) of numbers, the functions' own JSON texts and the plot
** aggregates' SVGs.  Nothing here writes HTML or the report's JSON: the two
** writers read the same struct, so the page and --json cannot disagree.
** SPDX-License-Identifier: MIT
**
** Sections, in the page's order: summary (open), AUROC, PR curves,
** Calibration, Compare models, Operating points, Drift (--drift-ref), SVD
** cost.  A new section is
** one struct in report.h, one computation here and one block per writer.
**
** Rules:
**   1. A group with fewer than 2 rows of a class has no AUROC, PR-AUC or
**      curve (NAN, NULL): "not enough positives/negatives" (too_few).
**   2. Without --by the one group "all" is all rows: the summary and the
**      operating points list all rows once, not twice.
**   3. An interval's bounds are read from its function's JSON (Ci), once.
**   4. Holm's adjustment is sql/p_adjust.sql's, over every p-value of the
**      comparison table of each kind.
**   5. A plot of more than PLOT_MAX_SERIES series is not drawn (the plot
**      aggregates' limit): its query answers TOO_MANY_SERIES, the struct's
**      tooMany flag is set and the page says so.
**
** Cost: a few queries per score and group over the temp tables (small: a
** row per score and group); the plots are the plot aggregates' (O(points)).
** With --svd, svd_bench runs here (seconds).
*/
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* c from an interval's JSON (keys "lo", "hi", "method"), its estimate est. */
static void ci_read(Report *r, Ci *c, double est, const char *zJson){
  c->est = est;
  c->lo = c->hi = NAN;
  c->delta = 0;
  c->zJson = zJson ? xstrdup(zJson) : 0;
  if( zJson ){
    char *zSql = sqlite3_mprintf("SELECT %Q ->> '$.lo', %Q ->> '$.hi', %Q ->> '$.method' GLOB 'delta*'",
                                 zJson, zJson, zJson);
    sqlite3_stmt *st = prep(r, zSql);
    if( sqlite3_step(st)==SQLITE_ROW ){
      c->lo = col_double(st, 0);
      c->hi = col_double(st, 1);
      c->delta = sqlite3_column_int(st, 2);
    }
    sqlite3_finalize(st);
    sqlite3_free(zSql);
  }
}

/* ------------------------------------------------------------- summary */

/* One score's rows of the summary: all rows, then each group (with --by). */
static void summary_score(Report *r, int k, SumScore *ss){
  char *zSql = sqlite3_mprintf(
    "SELECT t.g, t.n, t.pos, t.neg, t.auroc, t.pr_auc, t.auroc_ci, t.pr_auc_ci"
    " FROM " T_RES " t LEFT JOIN " T_GRP " grp USING (g) WHERE t.col = %Q ORDER BY t.g IS NOT NULL, grp.idx",
    r->o.azScore[k]);
  sqlite3_stmt *st = prep(r, zSql);
  int rc, cap = 0;
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    int overall = sqlite3_column_type(st, 0)==SQLITE_NULL;
    SumRow *w;
    double n = sqlite3_column_double(st, 1), pos = sqlite3_column_double(st, 2);
    if( !r->o.zBy && !overall ) continue;      /* one group: it is all rows */
    if( ss->nRow==cap ){ cap = cap ? 2*cap : 8; ss->aRow = xrealloc(ss->aRow, sizeof(SumRow)*cap); }
    w = &ss->aRow[ss->nRow++];
    w->zGroup = overall ? 0 : col_dup(st, 0);
    w->n = n;
    w->pos = pos;
    w->zWhy = too_few(pos, sqlite3_column_double(st, 3));
    w->prev = n ? (double)pos / (double)n : NAN;
    ci_read(r, &w->auroc, w->zWhy ? NAN : col_double(st, 4), w->zWhy ? 0 : col_text(st, 6));
    ci_read(r, &w->prAuc, w->zWhy ? NAN : col_double(st, 5), w->zWhy ? 0 : col_text(st, 7));
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  if( r->o.zBy ){
    /* the mean over the groups with a value (mean_ci) */
    zSql = sqlite3_mprintf(
      "SELECT mean_ci(auroc), mean_ci(pr_auc) FROM (SELECT * FROM " T_RES " WHERE col = %Q AND g IS NOT NULL"
      " AND pos >= 2 AND neg >= 2 AND auroc IS NOT NULL)", r->o.azScore[k]);
    st = prep(r, zSql);
    rc = sqlite3_step(st);
    step_done(r, st, rc);
    {
      char *zA = rc==SQLITE_ROW ? col_dup(st, 0) : 0, *zB = rc==SQLITE_ROW ? col_dup(st, 1) : 0;
      sqlite3_finalize(st);
      ci_read(r, &ss->meanAuroc, zA ? query_double(r, zA, "$.mean") : NAN, zA);
      ci_read(r, &ss->meanPr, zB ? query_double(r, zB, "$.mean") : NAN, zB);
      free(zA); free(zB);
    }
    sqlite3_free(zSql);
  }
}

/* With --prob: Brier and log loss over all rows and per group, next to the
** no-skill model's (the prevalence for every row), calibration_summary's
** O/E, calibration-in-the-large and slope with their Wald intervals, and
** calibration_smooth's ICI: a Brier that looks good next to zero can still
** be no better than no skill (flagged at or above it), or come with a slope
** far from 1. */
static void summary_prob(Report *r, Summary *s){
  sqlite3_stmt *st = prep(r, "SELECT t.g, t.n, t.pos, t.brier, t.log_loss, t.summary ->> 'oe_ratio',"
                             " t.summary ->> 'citl', t.summary ->> 'slope', t.summary ->> 'citl_lo',"
                             " t.summary ->> 'citl_hi', t.summary ->> 'slope_lo', t.summary ->> 'slope_hi',"
                             " t.smooth ->> 'ici', json_remove(t.smooth, '$.curve') FROM " T_CAL " t LEFT JOIN " T_GRP
                             " grp USING (g) ORDER BY t.g IS NOT NULL, grp.idx");
  int rc, cap = 0;
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    int overall = sqlite3_column_type(st, 0)==SQLITE_NULL;
    double n = sqlite3_column_double(st, 1), pos = sqlite3_column_double(st, 2);
    double pi = n ? (double)pos / (double)n : NAN;
    ProbRow *w;
    if( !r->o.zBy && !overall ) continue;
    if( s->nProb==cap ){ cap = cap ? 2*cap : 8; s->aProb = xrealloc(s->aProb, sizeof(ProbRow)*cap); }
    w = &s->aProb[s->nProb++];
    w->zGroup = overall ? 0 : col_dup(st, 0);
    w->n = n;
    w->brier = col_double(st, 3);
    w->nsBrier = pi * (1 - pi);
    w->logLoss = col_double(st, 4);
    w->nsLog = (pi<=0 || pi>=1) ? 0 : -(pi * log(pi) + (1 - pi) * log1p(-pi));
    w->oe = col_double(st, 5);
    w->citl = col_double(st, 6);
    w->slope = col_double(st, 7);
    w->citlLo = col_double(st, 8);
    w->citlHi = col_double(st, 9);
    w->slopeLo = col_double(st, 10);
    w->slopeHi = col_double(st, 11);
    w->ici = col_double(st, 12);
    w->zSmooth = col_dup(st, 13);
    w->worse = w->brier > w->nsBrier ? 2 : w->brier == w->nsBrier ? 1 : 0;
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
}

static void summary_compute(Report *r, Summary *s){
  int k;
  for(k=0; k<r->o.nScore; k++) summary_score(r, k, &s->aScore[k]);
  if( r->o.zProb ) summary_prob(r, s);
}

/* ------------------------------------------------------------- per group */

/* Per group: n, positives, negatives among the rows where the column is not
** NULL, from res or cal; aHas (when given) marks the groups that have a row. */
static Counts *count_rows(Report *r, const char *zTab, const char *zCol){
  Counts *a = xmalloc(sizeof(Counts)*(r->nGroup+1));
  char *zSql = sqlite3_mprintf("SELECT g, n, pos, neg FROM %s WHERE col = %Q AND g IS NOT NULL", zTab, zCol);
  sqlite3_stmt *st = prep(r, zSql);
  memset(a, 0, sizeof(Counts)*(r->nGroup+1));
  while( sqlite3_step(st)==SQLITE_ROW ){
    int i = group_index(r, col_text(st, 0));
    a[i].n = sqlite3_column_double(st, 1);
    a[i].pos = sqlite3_column_double(st, 2);
    a[i].neg = sqlite3_column_double(st, 3);
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  return a;
}

/* The doubles of one result column by group; NaN where NULL, or where the
** group has too few of a class and needBoth is set. */
static double *per_group(Report *r, const char *zTab, const char *zField, const char *zCol, int needBoth){
  double *a = xmalloc(sizeof(double)*(r->nGroup+1));
  char *zSql = sqlite3_mprintf("SELECT g, %s, pos, neg FROM %s WHERE col = %Q AND g IS NOT NULL", zField, zTab, zCol);
  sqlite3_stmt *st = prep(r, zSql);
  int i;
  for(i=0; i<r->nGroup; i++) a[i] = NAN;
  while( sqlite3_step(st)==SQLITE_ROW ){
    i = group_index(r, col_text(st, 0));
    if( sqlite3_column_type(st, 1)!=SQLITE_NULL
     && !(needBoth && too_few(sqlite3_column_double(st, 2), sqlite3_column_double(st, 3))) ){
      a[i] = sqlite3_column_double(st, 1);
    }
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  return a;
}

/* The JSON texts of one result column by group (NULL where NULL, or too few
** of a class with needBoth) into *pazText, and which groups have a row into
** *paHas. */
static void per_group_text(Report *r, const char *zTab, const char *zField, const char *zCol, int needBoth,
                           char ***pazText, unsigned char **paHas){
  char *zSql = sqlite3_mprintf("SELECT t.g, t.%s, t.pos, t.neg FROM %s t JOIN " T_GRP " grp USING (g)"
                               " WHERE t.col = %Q", zField, zTab, zCol);
  sqlite3_stmt *st = prep(r, zSql);
  char **az = xmalloc(sizeof(char*)*(r->nGroup+1));
  unsigned char *aHas = xmalloc(r->nGroup+1);
  int rc;
  memset(az, 0, sizeof(char*)*(r->nGroup+1));
  memset(aHas, 0, r->nGroup+1);
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    int i = group_index(r, col_text(st, 0));
    aHas[i] = 1;
    if( !(needBoth && too_few(sqlite3_column_double(st, 2), sqlite3_column_double(st, 3))) ) az[i] = col_dup(st, 1);
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  *pazText = az;
  *paHas = aHas;
}

/* ------------------------------------------------------------- plots */

/* A series' name in a plot: "fold 3" with --by fold, else "all". */
static char *series_expr(Report *r){
  return r->o.zBy ? sqlite3_mprintf("(%Q || ' ' || g)", r->o.zBy) : sqlite3_mprintf("g");
}

/* The plot aggregates draw at most PLOT_MAX_SERIES series (their colours):
** a plot of more (a --by of many periods) is not drawn, and the page says so.
** A plot query answers this text instead of an SVG then (plot_kept). */
#define TOO_MANY_SERIES "too many series"

/* The SVG z of a plot query, or NULL with *pTooMany set when the query
** answered TOO_MANY_SERIES. */
static char *plot_kept(char *z, int *pTooMany){
  if( z && strcmp(z, TOO_MANY_SERIES)==0 ){ free(z); *pTooMany = 1; return 0; }
  return z;
}

/* A plot of one column's groups (those with enough of both classes for a
** curve), in the groups' order; zExtra, unless NULL, names a column of zTab
** given to zPlot as its fourth argument (plot_reliability's smooth). */
static char *plot_query(Report *r, const char *zPlot, const char *zTab, const char *zField,
                        const char *zCol, int needBoth, const char *zTitle, const char *zExtra, int *pTooMany){
  char *zSeries = series_expr(r);
  char *zSql = sqlite3_mprintf(
    "WITH c AS (SELECT t.g AS g, t.%s AS c, %s AS e FROM %s t JOIN " T_GRP " grp USING (g)"
    " WHERE t.col = %Q AND t.%s IS NOT NULL%s ORDER BY grp.idx)"
    " SELECT iif((SELECT count(*) FROM c) > %d, '" TOO_MANY_SERIES "', (SELECT %s(%s, c, %Q%s) FROM c))",
    zField, zExtra ? zExtra : "NULL", zTab, zCol, zField, needBoth ? " AND t.pos >= 2 AND t.neg >= 2" : "",
    PLOT_MAX_SERIES, zPlot, zSeries, zTitle, zExtra ? ", e" : "");
  char *z = query_text(r, zSql);
  sqlite3_free(zSeries);
  sqlite3_free(zSql);
  return plot_kept(z, pTooMany);
}

/* PR curves as plot_lines: one series per curve of res (zSel gives its
** name, its group and its order: "name, g, idx" over res t LEFT JOIN grp),
** named with its AP, and one no-skill line per distinct prevalence (to 3
** decimals) named "no skill 0.200 (fold 1, fold 2)", so that five folds of
** one prevalence draw one labelled line, not five on top of each other.
** plot_lines cuts a legend entry at 28 bytes, so a name over 17 bytes is cut
** to 14 characters and "..." here, and " (AP 0.812)" (11 bytes) survives. */
static char *pr_lines(Report *r, const char *zTitle, const char *zSel, const char *zWhere, int *pTooMany){
  char *zSql = sqlite3_mprintf(
    "WITH c(name, g, idx, pr, ap, prev) AS (SELECT %s, t.pr, t.pr_auc, printf('%%.3f', 1.0 * t.pos / t.n)"
    "   FROM " T_RES " t LEFT JOIN " T_GRP " grp USING (g)"
    "   WHERE %s AND t.pos >= 2 AND t.neg >= 2 AND t.pr IS NOT NULL),"
    " pts(series, o, k, x, y) AS ("
    "   SELECT iif(length(CAST(c.name AS BLOB)) > 17, substr(c.name, 1, 14) || '...', c.name)"
    "          || ' (AP ' || printf('%%.3f', c.ap) || ')', c.idx, j.key, j.value ->> 'recall', j.value ->> 'precision'"
    "   FROM c, json_each(c.pr) j"
    "   UNION ALL"
    "   SELECT 'no skill ' || prev || ' (' || group_concat(name, ', ') || ')', 1e9 + min(idx), e.x, e.x, prev + 0"
    "   FROM (SELECT * FROM c ORDER BY idx), (SELECT 0 AS x UNION ALL SELECT 1) e GROUP BY prev, e.x)"
    " SELECT iif((SELECT count(DISTINCT series) FROM pts) > %d, '" TOO_MANY_SERIES "',"
    "  (SELECT plot_lines(series, x, y, %Q, 'recall', 'precision') FROM (SELECT * FROM pts ORDER BY o, series, k)))",
    zSel, zWhere, PLOT_MAX_SERIES, zTitle);
  char *z = query_text(r, zSql);
  sqlite3_free(zSql);
  return plot_kept(z, pTooMany);
}

/* ------------------------------------------------------------- AUROC, PR */

/* AUROC (pr 0: auroc, roc_curve, plot_curves) or PR (pr 1: pr_auc,
** pr_curve, pr_lines with no-skill lines) per score and group. */
static void curves_compute(Report *r, CurveSec *s, int pr){
  int k;
  for(k=0; k<r->o.nScore; k++){
    CurveScore *c = &s->aScore[k];
    const char *zCol = r->o.azScore[k];
    char *zTitle = sqlite3_mprintf("%s: %s", pr ? "PR curves" : "ROC curves", zCol);
    c->aCnt = count_rows(r, T_RES, zCol);
    c->aValue = per_group(r, T_RES, pr ? "pr_auc" : "auroc", zCol, 1);
    per_group_text(r, T_RES, pr ? "pr" : "roc", zCol, 1, &c->azCurve, &c->aHas);
    if( pr ){
      char *zSeries = series_expr(r);
      char *zSel = sqlite3_mprintf("%s, t.g, grp.idx", zSeries);
      char *zWhere = sqlite3_mprintf("t.col = %Q AND t.g IS NOT NULL", zCol);
      c->zSvg = pr_lines(r, zTitle, zSel, zWhere, &c->tooMany);
      sqlite3_free(zSeries); sqlite3_free(zSel); sqlite3_free(zWhere);
    }else{
      c->zSvg = plot_query(r, "plot_curves", T_RES, "roc", zCol, 1, zTitle, 0, &c->tooMany);
    }
    sqlite3_free(zTitle);
  }
}

/* ------------------------------------------------------------- calibration */

static void calibration_compute(Report *r, CalSec *s){
  const char *zProb = r->o.zProb;
  char *zSql, *zTitle;
  sqlite3_stmt *st;
  int rc, cap = 0;
  s->on = zProb!=0;
  if( !s->on ) return;
  zSql = sqlite3_mprintf(
    "SELECT coalesce(t.g, ''), t.n, t.ece, t.summary ->> 'oe_ratio', t.summary ->> 'citl', t.summary ->> 'slope',"
    " t.summary ->> 'spiegelhalter_p', t.summary ->> 'scaled_brier', t.g IS NULL"
    " FROM " T_CAL " t LEFT JOIN " T_GRP " grp USING (g) WHERE t.col = %Q"
    " ORDER BY t.g IS NOT NULL, grp.idx", zProb);
  st = prep(r, zSql);
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    CalRow *w;
    if( s->nRow==cap ){ cap = cap ? 2*cap : 8; s->aRow = xrealloc(s->aRow, sizeof(CalRow)*cap); }
    w = &s->aRow[s->nRow++];
    w->zGroup = sqlite3_column_int(st, 8) ? 0 : col_dup(st, 0);
    w->n = sqlite3_column_double(st, 1);
    w->ece = col_double(st, 2); w->oe = col_double(st, 3); w->citl = col_double(st, 4);
    w->slope = col_double(st, 5); w->spiegelP = col_double(st, 6); w->scaledBrier = col_double(st, 7);
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  s->aEce = per_group(r, T_CAL, "ece", zProb, 0);
  per_group_text(r, T_CAL, "rel", zProb, 0, &s->azRel, &s->aHas);
  zTitle = sqlite3_mprintf("Reliability: %s", zProb);
  s->zRelSvg = plot_query(r, "plot_reliability", T_CAL, "rel", zProb, 0, zTitle, "t.smooth", &s->relTooMany);
  sqlite3_free(zTitle);
  /* the decision curve over all rows: the model, treat all, treat none */
  zTitle = sqlite3_mprintf("Decision curve: %s (all rows)", zProb);
  zSql = sqlite3_mprintf(
    "SELECT plot_lines(series, x, y, %Q, 'threshold probability', 'net benefit') FROM ("
    " SELECT %Q AS series, 0 AS o, j.value ->> 'threshold' AS x, j.value ->> 'net_benefit' AS y"
    "  FROM " T_CAL " t, json_each(t.dcurve) j WHERE t.g IS NULL"
    " UNION ALL SELECT 'treat all', 1, j.value ->> 'threshold', j.value ->> 'treat_all'"
    "  FROM " T_CAL " t, json_each(t.dcurve) j WHERE t.g IS NULL AND j.value ->> 'treat_all' >= -0.05"
    " UNION ALL SELECT 'treat none', 2, j.value ->> 'threshold', 0"
    "  FROM " T_CAL " t, json_each(t.dcurve) j WHERE t.g IS NULL ORDER BY o, x)", zTitle, zProb);
  s->zDcSvg = query_text(r, zSql);
  sqlite3_free(zSql);
  sqlite3_free(zTitle);
}

/* ------------------------------------------------------------- compare */

/* Holm's step-down adjustment of a[0..n-1] (NAN: left out of m) into adj,
** exactly as sql/p_adjust.sql computes it: with the m p-values ranked by
** (p, name), holm_(i) = min(1, max over j <= i of (m - j + 1) p_(j)). */
typedef struct PItem { double p; const char *zName; int idx; } PItem;
static int pitem_cmp(const void *a, const void *b){
  const PItem *x = a, *y = b;
  if( x->p < y->p ) return -1;
  if( x->p > y->p ) return 1;
  return strcmp(x->zName, y->zName);
}
static void holm(int n, const double *a, char *const *azName, double *adj){
  PItem *v = xmalloc(sizeof(PItem)*(n+1));
  int m = 0, i;
  double run = 0;
  for(i=0; i<n; i++){
    adj[i] = NAN;
    if( isfinite(a[i]) ){ v[m].p = a[i]; v[m].zName = azName[i]; v[m].idx = i; m++; }
  }
  qsort(v, m, sizeof(PItem), pitem_cmp);
  for(i=0; i<m; i++){
    double t = (double)(m - i) * v[i].p;       /* (m - j + 1) p_(j), j = i + 1 */
    if( t > run ) run = t;
    adj[v[i].idx] = run < 1.0 ? run : 1.0;
  }
  free(v);
}

/* With two or more scores: each pair on the same rows, per group and over
** all rows -- DeLong's paired test of the AUROCs (auroc_diff) and the
** paired PR-AUC difference (pr_auc_diff_ci or _delta) -- with Holm-adjusted
** p-values over the table's tests of each kind, and every score's ROC and
** PR curve over all rows on one pair of axes. */
static void compare_compute(Report *r, CmpSec *s){
  sqlite3_stmt *st;
  int rc, cap = 0, i;
  double *aAu = 0, *aPr = 0, *aAuB = 0, *aPrB = 0, *aHAu, *aHPr;
  char **azName = 0;
  s->on = r->o.nScore>=2;
  if( !s->on ) return;
  st = prep(r, "SELECT c.a, c.b, c.g, c.n, c.auroc_diff, c.pr_diff, c.auroc_diff ->> 'p_value', c.pr_diff ->> 'p_value'"
               " FROM " T_CMP " c LEFT JOIN " T_GRP " grp USING (g) ORDER BY c.rowid IS NULL, c.g IS NOT NULL, grp.idx, c.rowid");
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    CmpRow *w;
    if( s->nRow==cap ){
      cap = cap ? 2*cap : 16;
      s->aRow = xrealloc(s->aRow, sizeof(CmpRow)*cap);
      aAu = xrealloc(aAu, sizeof(double)*cap); aPr = xrealloc(aPr, sizeof(double)*cap);
      aPrB = xrealloc(aPrB, sizeof(double)*cap); aAuB = xrealloc(aAuB, sizeof(double)*cap);
      azName = xrealloc(azName, sizeof(char*)*cap);
    }
    w = &s->aRow[s->nRow];
    w->zA = xstrdup(col_text(st, 0));
    w->zB = xstrdup(col_text(st, 1));
    w->zGroup = col_dup(st, 2);
    w->n = sqlite3_column_double(st, 3);
    ci_read(r, &w->auDiff, col_text(st, 4) ? query_double(r, col_text(st, 4), "$.diff") : NAN, col_text(st, 4));
    ci_read(r, &w->prDiff, col_text(st, 5) ? query_double(r, col_text(st, 5), "$.diff") : NAN, col_text(st, 5));
    w->pAu = aAu[s->nRow] = col_double(st, 6);
    w->pPr = aPr[s->nRow] = col_double(st, 7);
    /* a bootstrap p-value of 0 means p < 1/reps: Holm's bound takes it as
    ** 1/reps (with --weight the AUROC's test is a bootstrap too) */
    w->prBoot = w->prDiff.zJson && !w->prDiff.delta && r->o.reps>0;
    w->auBoot = w->auDiff.zJson && r->o.zWeight && r->o.reps>0;
    aPrB[s->nRow] = w->prBoot && w->pPr==0 ? 1.0 / r->o.reps : w->pPr;
    aAuB[s->nRow] = w->auBoot && w->pAu==0 ? 1.0 / r->o.reps : w->pAu;
    {
      char *z = sqlite3_mprintf("%s vs %s: %s", w->zA, w->zB, w->zGroup ? w->zGroup : "all rows");
      azName[s->nRow] = xstrdup(z);
      sqlite3_free(z);
    }
    s->nRow++;
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
  aHAu = xmalloc(sizeof(double)*(s->nRow+1)); aHPr = xmalloc(sizeof(double)*(s->nRow+1));
  holm(s->nRow, aAu, azName, aHAu);
  holm(s->nRow, aPr, azName, aHPr);
  for(i=0; i<s->nRow; i++){ s->aRow[i].holmAu = aHAu[i]; s->aRow[i].holmPr = aHPr[i]; }
  holm(s->nRow, aPrB, azName, aHPr);
  holm(s->nRow, aAuB, azName, aHAu);
  for(i=0; i<s->nRow; i++){ s->aRow[i].holmPrBound = aHPr[i]; s->aRow[i].holmAuBound = aHAu[i]; free(azName[i]); }
  free(aAu); free(aPr); free(aAuB); free(aPrB); free(aHAu); free(aHPr); free(azName);
  s->zRocSvg = query_text(r, "SELECT plot_curves(col, roc, 'ROC curves, all rows: every score') FROM ("
                             "SELECT col, roc FROM " T_RES " WHERE g IS NULL AND pos >= 2 AND neg >= 2 ORDER BY rowid)");
  s->zPrSvg = pr_lines(r, "PR curves, all rows: every score", "t.col, t.g, t.rowid", "t.g IS NULL", &s->prTooMany);
}

/* ------------------------------------------------------------- operating points */

static void operating_compute(Report *r, OpSec *s){
  sqlite3_stmt *st;
  int rc, cap = 0;
  st = prep(r, "SELECT t.col, t.g, j.value, j.value ->> 'criterion', j.value ->> 'target', j.value ->> 'threshold',"
               " j.value ->> 'tpr', j.value ->> 'specificity', j.value ->> 'precision', j.value ->> 'f1',"
               " j.value ->> 'achieved', t.pos >= 2 AND t.neg >= 2, json_extract(t.opsci, '$[' || j.key || ']')"
               " FROM " T_RES " t LEFT JOIN " T_GRP " grp USING (g), json_each(t.ops) j"
               " ORDER BY (SELECT min(rowid) FROM " T_RES " x WHERE x.col = t.col), t.g IS NOT NULL, grp.idx, j.key");
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    int overall = sqlite3_column_type(st, 1)==SQLITE_NULL;
    OpRow *w;
    if( !r->o.zBy && !overall ) continue;
    if( s->nRow==cap ){ cap = cap ? 2*cap : 16; s->aRow = xrealloc(s->aRow, sizeof(OpRow)*cap); }
    w = &s->aRow[s->nRow++];
    w->zScore = xstrdup(col_text(st, 0));
    w->zGroup = overall ? 0 : col_dup(st, 1);
    w->zPoint = col_dup(st, 2);
    w->zCrit = xstrdup(col_text(st, 3) ? col_text(st, 3) : "");
    w->target = col_double(st, 4);
    w->ok = sqlite3_column_type(st, 2)!=SQLITE_NULL && sqlite3_column_int(st, 11);
    w->threshold = col_double(st, 5);
    w->tpr = col_double(st, 6);
    w->spec = col_double(st, 7);
    w->precision = col_double(st, 8);
    w->f1 = col_double(st, 9);
    w->achieved = sqlite3_column_int(st, 10);
    ci_read(r, &w->sens, w->tpr, w->ok ? col_text(st, 12) : 0);
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
}

/* ------------------------------------------------------------- drift */

/* With --drift-ref: per state column (each score, then --prob) and each
** period not in the reference, in the periods' order, drift_report of the
** reference's state -- its periods' ml_state_dist merged (ml_merge): every
** row, labelled or not (drift_resolve's pass) -- against the period's state (the two-state form: O(entries) a call, no row read), 10
** bins at the reference's deciles; then PSI over the periods as plot_lines,
** one line per column, with flat lines at PSI 0.1 and 0.25.  The x axis is
** the periods' labels (their values as text, plot_lines' text x), in their
** order, the image as wide as they need. */
static void drift_compute(Report *r, DriftSec *s){
  sqlite3_stmt *st;
  char *zSql, *zTitle;
  int k, rc, cap = 0;
  s->on = r->o.zDriftRef!=0;
  if( !s->on ) return;
  st = prep(r, "SELECT g FROM " T_DGRP " WHERE ref ORDER BY idx");
  while( sqlite3_step(st)==SQLITE_ROW ){
    s->azRef = xrealloc(s->azRef, sizeof(char*)*(s->nRef+1));
    s->azRef[s->nRef++] = xstrdup(col_text(st, 0));
  }
  sqlite3_finalize(st);
  exec(r, "CREATE TABLE " T_DRIFT "(k INT, col TEXT, g TEXT, idx INT, n INT, rep TEXT, lab INT)");
  for(k=0; k<n_state_cols(r); k++){
    zSql = sqlite3_mprintf(
      "WITH ref(st) AS (SELECT ml_merge(s.st) FROM " T_DST " s JOIN " T_DGRP " grp USING (g) WHERE s.k = %d AND grp.ref)"
      " INSERT INTO " T_DRIFT " SELECT %d, %Q, s.g, grp.idx, s.n, drift_report(ref.st, s.st), %s"
      " FROM " T_DST " s JOIN " T_DGRP " grp USING (g), ref WHERE s.k = %d AND grp.v IS NOT NULL AND NOT grp.ref"
      " GROUP BY s.rowid ORDER BY grp.idx",
      k, k, state_col(r, k),
      r->o.driftOnly ? "NULL" : "coalesce((SELECT t.n FROM " T_ST " t WHERE t.k = s.k AND t.g = s.g), 0)", k);
    exec_cols(r, zSql, state_opt(r, k), state_col(r, k));
    sqlite3_free(zSql);
  }
  st = prep(r, "SELECT col, g, n, rep, rep ->> 'n_ref', rep ->> 'psi', rep ->> 'ks', rep ->> 'ks_p_value',"
               " rep ->> 'ks_method', rep ->> 'wasserstein', rep ->> 'mean_ref', rep ->> 'mean_cur',"
               " rep ->> 'auroc_period', lab FROM " T_DRIFT " ORDER BY k, idx");
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    DriftRow *w;
    if( s->nRow==cap ){ cap = cap ? 2*cap : 16; s->aRow = xrealloc(s->aRow, sizeof(DriftRow)*cap); }
    w = &s->aRow[s->nRow++];
    w->zCol = xstrdup(col_text(st, 0));
    w->zPeriod = xstrdup(col_text(st, 1));
    w->n = col_double(st, 2);
    w->zJson = col_dup(st, 3);
    w->nRef = col_double(st, 4);
    w->psi = col_double(st, 5);
    w->ks = col_double(st, 6);
    w->ksP = col_double(st, 7);
    w->zKsMethod = col_dup(st, 8);
    w->wass = col_double(st, 9);
    w->meanRef = col_double(st, 10);
    w->meanCur = col_double(st, 11);
    w->aurocPeriod = col_double(st, 12);
    w->nLabelled = col_double(st, 13);
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
  /* the summary's drift line: per column its largest PSI and the first
  ** period that has it */
  s->aWorst = xmalloc(sizeof(DriftWorst)*(n_state_cols(r)+1));
  for(k=0; k<n_state_cols(r); k++){
    DriftWorst *w = &s->aWorst[s->nWorst++];
    int i;
    w->zCol = xstrdup(state_col(r, k));
    w->zPeriod = 0;
    w->psi = NAN;
    for(i=0; i<s->nRow; i++){
      const DriftRow *d = &s->aRow[i];
      if( strcmp(d->zCol, w->zCol)==0 && isfinite(d->psi) && !(d->psi <= w->psi) ){
        w->psi = d->psi;
        w->zPeriod = d->zPeriod;
      }
    }
    if( w->zPeriod ) w->zPeriod = xstrdup(w->zPeriod);
  }
  /* the x axis: the compared periods' values as text, in their order (a
  ** row of NULL y per period places its label first: plot_lines' text x),
  ** the 0.1 and 0.25 lines from the first period to the last */
  zTitle = sqlite3_mprintf("PSI against the reference, per %s", r->o.zBy);
  zSql = sqlite3_mprintf(
    "WITH per(g, idx) AS (SELECT g, idx FROM " T_DGRP " WHERE v IS NOT NULL AND NOT ref),"
    " ends(i, g) AS (SELECT 0, (SELECT g FROM per ORDER BY idx LIMIT 1)"
    "  UNION ALL SELECT 1, (SELECT g FROM per ORDER BY idx DESC LIMIT 1))"
    " SELECT iif((SELECT count(*) FROM per) > %d, NULL,"
    " (SELECT plot_lines(series, x, y, %Q, %Q, 'PSI') FROM ("
    " SELECT NULL AS series, -1 AS o, 0 AS k, idx, g AS x, NULL AS y FROM per"
    " UNION ALL SELECT col, 0, k, idx, g, rep ->> 'psi' FROM " T_DRIFT
    " UNION ALL SELECT 'PSI 0.1: moderate shift', 1, 0, i, g, 0.1 FROM ends"
    " UNION ALL SELECT 'PSI 0.25: major shift', 2, 0, i, g, 0.25 FROM ends"
    " ORDER BY o, k, idx)))",
    PLOT_MAX_XLABELS, zTitle, r->o.zBy);
  s->zSvg = query_text(r, zSql);
  sqlite3_free(zSql);
  sqlite3_free(zTitle);
  st = prep(r, "SELECT count(*) FROM " T_DGRP " WHERE v IS NOT NULL AND NOT ref");
  s->tooMany = sqlite3_step(st)==SQLITE_ROW && sqlite3_column_int64(st, 0) > PLOT_MAX_XLABELS;
  sqlite3_finalize(st);
}

/* ------------------------------------------------------------- SVD cost */

/* svd_bench over the shapes of sql/svd_targets.sql (w, d_model from
** --svd-dims), on the CPU. */
static void svd_compute(Report *r, SvdSec *s){
  char *zSql;
  sqlite3_stmt *st;
  int rc, cap = 0, w = r->o.svdW, d = r->o.svdD;
  s->on = r->o.svd;
  if( !s->on ) return;
  s->warm = r->o.svdIters < 5 ? r->o.svdIters : 5;
  zSql = sqlite3_mprintf(
    "CREATE TABLE " T_SVD_TARGETS "(target TEXT, shape TEXT, rows INT, cols INT);"
    "INSERT INTO " T_SVD_TARGETS " VALUES ('QK^T', '[w, w]', %d, %d), ('WvWo', '[d_model, d_model]', %d, %d),"
    " ('AVWo', '[w, d_model]', %d, %d);"
    "CREATE TABLE " T_SVD_COST " AS SELECT t.target, t.shape, b.method, b.rows, b.cols, b.rank,"
    " b.ms_median, b.sv_rel_error, b.sv_correlation FROM " T_SVD_TARGETS " t,"
    " svd_bench(t.rows, t.cols, min(32, t.rows, t.cols), %d, %d, 'cpu', 'float64', 0, 'decay') b;",
    w, w, d, d, w, d, s->warm, r->o.svdIters);
  exec(r, zSql);
  sqlite3_free(zSql);
  st = prep(r, "SELECT target, shape, method, ms_median, sv_rel_error, sv_correlation, rows, cols, rank"
               " FROM " T_SVD_COST " ORDER BY rowid");
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    SvdRow *v;
    if( s->nRow==cap ){ cap = cap ? 2*cap : 4; s->aRow = xrealloc(s->aRow, sizeof(SvdRow)*cap); }
    v = &s->aRow[s->nRow++];
    v->zTarget = xstrdup(col_text(st, 0));
    v->zShape = xstrdup(col_text(st, 1));
    v->zMethod = xstrdup(col_text(st, 2));
    v->ms = sqlite3_column_double(st, 3);
    v->relErr = col_double(st, 4);
    v->corr = col_double(st, 5);
    v->rows = sqlite3_column_int(st, 6);
    v->cols = sqlite3_column_int(st, 7);
    v->rank = sqlite3_column_int(st, 8);
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
  s->zSvg = query_text(r, "SELECT plot_bars(target, method, ms_median, 'SVD cost per target (median)', 'ms')"
                          " FROM (SELECT * FROM " T_SVD_COST " ORDER BY rowid)");
}

/* ------------------------------------------------------------- all */

void sections_compute(Report *r, Sections *s){
  memset(s, 0, sizeof(*s));
  s->zVersion = query_text(r, "SELECT mleval_version()");
  if( r->o.driftOnly ){           /* no --label: the Drift section alone */
    drift_compute(r, &s->drift);
    return;
  }
  progress(r, "sections: summary");
  summary_compute(r, &s->sum);
  progress(r, "sections: AUROC and PR curves");
  curves_compute(r, &s->auroc, 0);
  curves_compute(r, &s->pr, 1);
  progress(r, "sections: calibration, comparison, operating points");
  calibration_compute(r, &s->cal);
  compare_compute(r, &s->cmp);
  operating_compute(r, &s->op);
  progress(r, "sections: drift");
  drift_compute(r, &s->drift);
  svd_compute(r, &s->svd);
  survival_compute(r, &s->surv);
}

static void curves_free(Report *r, CurveSec *s){
  int k, i;
  for(k=0; k<r->o.nScore; k++){
    CurveScore *c = &s->aScore[k];
    for(i=0; c->azCurve && i<r->nGroup; i++) free(c->azCurve[i]);
    free(c->azCurve); free(c->aHas); free(c->aCnt); free(c->aValue); free(c->zSvg);
  }
}

void sections_free(Report *r, Sections *s){
  int k, i;
  survival_free(&s->surv);
  for(k=0; k<r->o.nScore; k++){          /* a drift-only run's are zero: nothing */
    SumScore *ss = &s->sum.aScore[k];
    for(i=0; i<ss->nRow; i++){ free(ss->aRow[i].zGroup); free(ss->aRow[i].auroc.zJson); free(ss->aRow[i].prAuc.zJson); }
    free(ss->aRow); free(ss->meanAuroc.zJson); free(ss->meanPr.zJson);
  }
  for(i=0; i<s->sum.nProb; i++){ free(s->sum.aProb[i].zGroup); free(s->sum.aProb[i].zSmooth); }
  free(s->sum.aProb);
  curves_free(r, &s->auroc);
  curves_free(r, &s->pr);
  for(i=0; i<s->cal.nRow; i++) free(s->cal.aRow[i].zGroup);
  for(i=0; s->cal.azRel && i<r->nGroup; i++) free(s->cal.azRel[i]);
  free(s->cal.aRow); free(s->cal.aEce); free(s->cal.azRel); free(s->cal.aHas); free(s->cal.zRelSvg); free(s->cal.zDcSvg);
  for(i=0; i<s->cmp.nRow; i++){
    CmpRow *c = &s->cmp.aRow[i];
    free(c->zA); free(c->zB); free(c->zGroup); free(c->auDiff.zJson); free(c->prDiff.zJson);
  }
  free(s->cmp.aRow); free(s->cmp.zRocSvg); free(s->cmp.zPrSvg);
  for(i=0; i<s->op.nRow; i++){
    OpRow *o = &s->op.aRow[i];
    free(o->zScore); free(o->zGroup); free(o->zCrit); free(o->zPoint); free(o->sens.zJson);
  }
  free(s->op.aRow);
  for(i=0; i<s->drift.nRef; i++) free(s->drift.azRef[i]);
  for(i=0; i<s->drift.nRow; i++){
    DriftRow *d = &s->drift.aRow[i];
    free(d->zCol); free(d->zPeriod); free(d->zJson); free(d->zKsMethod);
  }
  for(i=0; i<s->drift.nWorst; i++){ free(s->drift.aWorst[i].zCol); free(s->drift.aWorst[i].zPeriod); }
  free(s->drift.aWorst);
  free(s->drift.azRef); free(s->drift.aRow); free(s->drift.zSvg);
  for(i=0; i<s->svd.nRow; i++){ free(s->svd.aRow[i].zTarget); free(s->svd.aRow[i].zShape); free(s->svd.aRow[i].zMethod); }
  free(s->svd.aRow); free(s->svd.zSvg);
  free(s->zVersion);
}
