/*
** SPDX-License-Identifier: MIT
**
** disparity.c -- the monitoring family's group disparity: a classifier's
** rates and AUROC per group, and Fairlearn's summaries of their spread.
** The family's other functions: drift.c, expected.c.
**
** SQL functions (aggregate and window; docs/monitoring.md):
**   group_disparity(y, s, group, threshold), group_disparity_w(y, s, w, group, threshold)
**                                 JSON: per group {"group","n","positives",
**                                 "selection_rate","tpr","fpr","precision",
**                                 "auroc"}, Fairlearn's summaries, "summary_groups"
**   group_disparity(st, group, threshold)   the same over ml_state BLOBs (rule 2)
**
** Rules:
**   1. group_disparity: y 0/1, s any number, group an INTEGER (integral
**      REAL) or TEXT, NULL skipping the row, anything else an error; a row
**      is predicted positive when s >= threshold.  Per group (SQLite's
**      order: integers, then text by bytes) the counts are exact sums of
**      weights; tpr, fpr, precision, auroc null where their denominator
**      (or a class) is empty, and such a group is left out of that metric's
**      summaries ("summary_groups" lists the groups each covers).
**      Differences are max - min, ratios min / max (null when max is 0);
**      equalized odds: the larger difference, the smaller ratio of TPR and
**      FPR.  At most 10000 groups in one result.
**   2. The state form: group_disparity(st, group, threshold), registered at
**      3 arguments beside the rows' 4: each row one group's state
**      (ml_state, or ml_state_w for group_disparity_w's meaning) and its
**      key; an entry's class-y rows join the group as records weighing n_y
**      (n_y w); rows of one key merge; NULL state or group skips; the rows'
**      results bit for bit.  A group over 2^53 rows is an error.
**   3. The twin: a row of weight w counts w times (sums of weights for
**      counts); window frames keep the rows, xInverse removes the row.
**
** Cost: 16 bytes per row and about 100 per group (at most 10000), a result
** sorting each group.  A state costs 16-32 bytes per entry and class,
** whatever its counts.
*/
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

/* ------------------------------------------------------ group disparity */

/*
** group_disparity(y, s, group, threshold) and its twin (rule 1): each
** group's rows in a sample of its own (weighted records: the twin's
** weights, 1 for rows), the groups in an array kept in SQLite's order
** (integers ascending, then text by bytes), found by binary search.
*/
#define DISP_MAX_GROUPS 10000

typedef struct DispGroup {
  int isText;
  ml_i64 i;           /* an INTEGER group */
  char *z;            /* a TEXT group, nz bytes (owned) */
  int nz;
  ml_i64 nRow;        /* rows held (of positive weight) */
  MlSamples smp;      /* key s, aux weight, by label */
} DispGroup;

typedef struct DispAgg {
  DispGroup *g;
  ml_i64 n, cap;
  MlParam thr;
  int failed;
} DispAgg;

static const MlParamSpec psDispThreshold = ML_PARAM_REAL("threshold", -INFINITY, 0, INFINITY, 0, 0, "0.5");

/* The group key of v: ML_ROW_OK (isText, i or z/nz set), ML_ROW_SKIP (NULL), ML_ROW_ERR. */
static int disp_key(sqlite3_context *ctx, const char *fn, sqlite3_value *v, DispGroup *k){
  int t = sqlite3_value_type(v);
  /* only the key's fields are set (disp_group sets the rest of a new group) */
  k->isText = 0; k->z = 0; k->nz = 0;
  if( t==SQLITE_INTEGER ){ k->i = sqlite3_value_int64(v); return ML_ROW_OK; }
  if( t==SQLITE_NULL ) return ML_ROW_SKIP;
  if( t==SQLITE_TEXT ){
    k->isText = 1;
    k->z = (char*)sqlite3_value_text(v);
    k->nz = sqlite3_value_bytes(v);
    if( k->z==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
    return ML_ROW_OK;
  }
  if( (t==SQLITE_INTEGER || t==SQLITE_FLOAT) && ml_value_integer(v, INT64_MIN, INT64_MAX, &k->i) ) return ML_ROW_OK;
  {
    char *zv = ml_describe(v);
    if( zv==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
    ml_error(ctx, fn, "group must be an integer or text, got %s", zv);
    sqlite3_free(zv);
    return ML_ROW_ERR;
  }
}

static int disp_cmp(const DispGroup *a, const DispGroup *b){
  if( a->isText!=b->isText ) return a->isText ? 1 : -1;
  if( !a->isText ) return a->i<b->i ? -1 : a->i>b->i;
  {
    int n = a->nz<b->nz ? a->nz : b->nz, c = memcmp(a->z, b->z, (size_t)n);
    return c ? c : (a->nz>b->nz) - (a->nz<b->nz);
  }
}

/* Where key k is (*found 1) or would go. */
static ml_i64 disp_find(const DispAgg *a, const DispGroup *k, int *found){
  ml_i64 lo = 0, hi = a->n;
  *found = 0;
  while( lo<hi ){
    ml_i64 mid = lo + (hi - lo)/2;
    const DispGroup *g = &a->g[mid];
    int c = !k->isText && !g->isText ? (g->i<k->i ? -1 : g->i>k->i) : disp_cmp(g, k);
    if( c==0 ){ *found = 1; return mid; }
    if( c<0 ) lo = mid + 1; else hi = mid;
  }
  return lo;
}

static void disp_free_group(DispGroup *g){
  ml_samples_clear(&g->smp);
  ml_free(g->z);
}

/* The group of key k: its index, created when new (sign +1); -1 when it
** is absent for a removal; -2 on an error (set). */
static ml_i64 disp_group(sqlite3_context *ctx, const MlFuncDesc *d, DispAgg *a, DispGroup *k, int sign){
  int found;
  ml_i64 at = disp_find(a, k, &found);
  DispGroup *g;
  if( found ) return at;
  if( sign<0 ) return -1;
  if( a->n>=DISP_MAX_GROUPS ){
    ml_error(ctx, d->name, "group: more than %d groups in one result", DISP_MAX_GROUPS);
    return -2;
  }
  if( a->n==a->cap ){
    ml_i64 cap = a->cap ? 2*a->cap : 8;
    DispGroup *ng = ml_realloc(a->g, sizeof(DispGroup) * (uint64_t)cap);
    if( ng==0 ){ sqlite3_result_error_nomem(ctx); return -2; }
    a->g = ng;
    a->cap = cap;
  }
  if( k->isText ){
    char *z = ml_malloc((uint64_t)k->nz + 1);
    if( z==0 ){ sqlite3_result_error_nomem(ctx); return -2; }
    memcpy(z, k->z, (size_t)k->nz);
    z[k->nz] = 0;
    k->z = z;
  }else{
    k->z = 0;
  }
  memmove(&a->g[at+1], &a->g[at], sizeof(DispGroup) * (size_t)(a->n - at));
  g = &a->g[at];
  *g = *k;
  g->nRow = 0;
  ml_samples_init_weighted(&g->smp);
  a->n++;
  return at;
}

/* Drops group at once it holds no row. */
static void disp_drop_empty(DispAgg *a, ml_i64 at){
  if( a->g[at].nRow>0 ) return;
  disp_free_group(&a->g[at]);
  memmove(&a->g[at], &a->g[at+1], sizeof(DispGroup) * (size_t)(a->n - at - 1));
  a->n--;
}

/* The state form's row (st, group, threshold), rule 2: st's entries join
** the group as records weighing their counts (a weighted state's: c w, as
** the one or two records ml_count_weight gives), so that the group's sums
** and sweep are its rows' bit for bit; sign -1 removes them. */
static int disp_state(sqlite3_context *ctx, const MlFuncDesc *d, DispAgg *a, sqlite3_value **argv, int sign){
  MlState st;
  MlReader rd;
  MlEntry e;
  DispGroup k;
  ml_i64 at, rows;
  int rc, weighted;
  rc = ml_state_arg(ctx, d->name, argv[0], "st", d->fam->formKinds, &st);   /* any other kind refused by name */
  if( rc!=ML_ROW_OK ) return rc;
  rc = disp_key(ctx, d->name, argv[1], &k);
  if( rc!=ML_ROW_OK ) return rc;
  at = disp_group(ctx, d, a, &k, sign);
  if( at==-2 ) return ML_ROW_ERR;
  if( at<0 ) return ML_ROW_SKIP;
  rows = st.sec[0].n[0] + st.sec[0].n[1];
  if( sign>0 && a->g[at].nRow > ML_STATE_MAX_ROWS - rows ){
    ml_error(ctx, d->name, "st: counts overflow: a group would hold more than 2^53 rows");
    disp_drop_empty(a, at);
    return ML_ROW_ERR;
  }
  weighted = st.kind==ML_STATE_WEIGHTED;
  ml_reader_init(&rd, &st.sec[0]);
  while( ml_reader_next(&rd, &e) ){
    double s = ml_double_of(e.key) + 0.0, w = weighted ? ml_double_of_zkey(e.zkey) : 1.0, part[2];
    int y, i, np;
    for(y=0; y<2; y++){
      if( e.n[y]==0 ) continue;
      np = ml_count_weight(e.n[y], w, part);
      for(i=0; i<np; i++){
        if( sign<0 ){
          ml_samples_remove(&a->g[at].smp, y, s, part[i]);
        }else if( ml_add_row(ctx, &a->g[at].smp, y, s, part[i]) ){
          return ML_ROW_ERR;
        }
      }
    }
  }
  a->g[at].nRow += sign>0 ? rows : -rows;
  if( sign<0 ) disp_drop_empty(a, at);
  return ML_ROW_OK;
}

static void disp_row(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w, int sign){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  DispAgg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
  DispGroup k;
  double s, t;
  int y, rc;
  ml_i64 at;
  if( a==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( sign>0 && a->failed ) return;
  if( w<0.0 ){ a->failed = 1; return; }
  if( argc!=4 && (argc!=3 || (d->flags & ML_FN_TWIN)) ){ ml_arity_error(ctx, d, argc); a->failed = 1; return; }
  if( sign<0 ){
    ml_param_drop(&a->thr, argv[argc-1]);
  }else if( ml_param_real(ctx, d->name, &psDispThreshold, argv[argc-1], &a->thr, &t)!=ML_ROW_OK ){
    a->failed = 1;
    return;
  }
  if( argc==3 ){
    if( sign<0 && a->failed ) return;
    if( disp_state(ctx, d, a, argv, sign)==ML_ROW_ERR ) a->failed = 1;
    return;
  }
  rc = ml_arg_binary_row(ctx, d->name, argv, 0, &y, &s);
  if( rc==ML_ROW_OK ) rc = disp_key(ctx, d->name, argv[2], &k);
  if( rc==ML_ROW_ERR ){ a->failed = 1; return; }
  if( rc!=ML_ROW_OK || w==0.0 ) return;
  s += 0.0;
  {
    int found;
    at = disp_find(a, &k, &found);          /* the common case inline: a known group */
    if( !found ){
      at = disp_group(ctx, d, a, &k, sign);
      if( at==-2 ){ a->failed = 1; return; }
      if( at<0 ) return;
    }
  }
  if( sign<0 ){
    ml_samples_remove(&a->g[at].smp, y, s, w);
    a->g[at].nRow--;
    disp_drop_empty(a, at);
    return;
  }
  if( ml_add_row(ctx, &a->g[at].smp, y, s, w) ){ a->failed = 1; disp_drop_empty(a, at); return; }
  a->g[at].nRow++;
}

/*
** SQL function: group_disparity(y, s, group, threshold),
** group_disparity_w(y, s, w, group, threshold) -- xStep, xInverse
*/
static void dispStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){ disp_row(ctx, argc, argv, 1.0, 1); }
static void dispInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){ disp_row(ctx, argc, argv, 1.0, -1); }
static void dispStepW(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  disp_row(ctx, argc, argv, w, 1);
}
static void dispInverseW(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  if( w>=0.0 ) disp_row(ctx, argc, argv, w, -1);
}

/* One group's numbers (rule 1); NaN where undefined. */
typedef struct DispStats { double n, pos, sel, tpr, fpr, prec, auroc; } DispStats;

static int disp_stats(DispGroup *g, double t, DispStats *o){
  MlXsum xs[4];    /* negatives, positives, fp, tp */
  double v[4];
  int y, k;
  ml_i64 i;
  for(k=0; k<4; k++) ml_xsum_init(&xs[k]);
  for(y=0; y<2; y++){
    for(i=0; i<g->smp.n[y]; i++){
      double s = ml_double_of(ml_samples_key(&g->smp, y, i)), w = ml_samples_aux(&g->smp, y, i);
      ml_xsum_add(&xs[y], w, 1);
      if( s>=t ) ml_xsum_add(&xs[2 + y], w, 1);
    }
  }
  for(k=0; k<4; k++) v[k] = ml_xsum_round(&xs[k]);
  o->n = v[0] + v[1];
  o->pos = v[1];
  o->sel = (v[2] + v[3]) / o->n;
  o->tpr = v[1]>0.0 ? v[3]/v[1] : NAN;
  o->fpr = v[0]>0.0 ? v[2]/v[0] : NAN;
  o->prec = v[2] + v[3] > 0.0 ? v[3]/(v[2] + v[3]) : NAN;
  o->auroc = NAN;
  if( g->smp.n[0]>0 && g->smp.n[1]>0 ){
    if( ml_samples_sort(&g->smp) ) return ML_NOMEM;
    o->auroc = ml_fold_auroc(&g->smp);
  }
  return ML_OK;
}

static void disp_group_value(MlJson *j, const DispGroup *g){
  if( g->isText ) ml_json_string_n(j, g->z, (size_t)g->nz); else ml_json_int(j, g->i);   /* a NUL as \u0000 */
}

/* max - min and min / max (NaN when max is not > 0) of the field at offset
** off of st[0 .. n), over the groups where it is defined (not NaN). */
static void disp_range(const DispStats *st, ml_i64 n, size_t off, double *pDiff, double *pRatio){
  double lo = NAN, hi = NAN;
  ml_i64 i;
  for(i=0; i<n; i++){
    double v = *(const double*)((const char*)&st[i] + off);
    if( isnan(v) ) continue;
    if( isnan(lo) || v<lo ) lo = v;
    if( isnan(hi) || v>hi ) hi = v;
  }
  *pDiff = hi - lo;
  *pRatio = hi>0.0 ? lo/hi : NAN;
}

static void disp_emit(sqlite3_context *ctx, DispAgg *a, DispStats *st){
  static const struct { const char *name; size_t off; } aSum[] = {
    {"selection_rate", offsetof(DispStats, sel)}, {"tpr", offsetof(DispStats, tpr)},
    {"fpr", offsetof(DispStats, fpr)}, {"auroc", offsetof(DispStats, auroc)},
  };
  double dSel, rSel, dTpr, rTpr, dFpr, rFpr, dAuc, rAuc;
  ml_i64 i;
  size_t k;
  MlJson j;
  disp_range(st, a->n, offsetof(DispStats, sel), &dSel, &rSel);
  disp_range(st, a->n, offsetof(DispStats, tpr), &dTpr, &rTpr);
  disp_range(st, a->n, offsetof(DispStats, fpr), &dFpr, &rFpr);
  disp_range(st, a->n, offsetof(DispStats, auroc), &dAuc, &rAuc);
  if( a->n>0 && !(rSel==rSel) && dSel==0.0 ){
    /* no row at or above the threshold in any group: every ratio is null;
    ** most often a threshold on another scale (20 for 20 %; issue 44) */
    const MlFuncDesc *d = sqlite3_user_data(ctx);
    sqlite3_log(SQLITE_WARNING, "%s(): no row is predicted positive (s >= %g) in any group, so the ratios are"
                " null: is threshold on the scores' scale?", d->name, ml_param_value(&a->thr, 0.5));
  }
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "groups");
  ml_json_begin_array(&j);
  for(i=0; i<a->n; i++){
    ml_json_begin_object(&j);
    ml_json_key(&j, "group");          disp_group_value(&j, &a->g[i]);
    ml_json_key(&j, "n");              ml_json_double(&j, st[i].n);
    ml_json_key(&j, "positives");      ml_json_double(&j, st[i].pos);
    ml_json_key(&j, "selection_rate"); ml_json_double(&j, st[i].sel);
    ml_json_key(&j, "tpr");            ml_json_double(&j, st[i].tpr);
    ml_json_key(&j, "fpr");            ml_json_double(&j, st[i].fpr);
    ml_json_key(&j, "precision");      ml_json_double(&j, st[i].prec);
    ml_json_key(&j, "auroc");          ml_json_double(&j, st[i].auroc);
    ml_json_end_object(&j);
  }
  ml_json_end_array(&j);
  ml_json_key(&j, "demographic_parity_difference"); ml_json_double(&j, dSel);
  ml_json_key(&j, "demographic_parity_ratio");      ml_json_double(&j, rSel);
  ml_json_key(&j, "equalized_odds_difference");
  ml_json_double(&j, isnan(dTpr) || isnan(dFpr) ? NAN : (dTpr>dFpr ? dTpr : dFpr));
  ml_json_key(&j, "equalized_odds_ratio");
  ml_json_double(&j, isnan(rTpr) || isnan(rFpr) ? NAN : (rTpr<rFpr ? rTpr : rFpr));
  ml_json_key(&j, "equal_opportunity_difference");  ml_json_double(&j, dTpr);
  ml_json_key(&j, "auroc_difference");              ml_json_double(&j, dAuc);
  ml_json_key(&j, "summary_groups");
  ml_json_begin_object(&j);
  for(k=0; k<sizeof(aSum)/sizeof(aSum[0]); k++){
    ml_json_key(&j, aSum[k].name);
    ml_json_begin_array(&j);
    for(i=0; i<a->n; i++){
      if( !isnan(*(const double*)((const char*)&st[i] + aSum[k].off)) ) disp_group_value(&j, &a->g[i]);
    }
    ml_json_end_array(&j);
  }
  ml_json_end_object(&j);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

static void disp_result(sqlite3_context *ctx, DispAgg *a, int isFinal){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  DispStats *st;
  ml_i64 i, nRow = 0;
  if( a && a->failed ) return;
  if( a && ml_param_check(ctx, d->name, "threshold", &a->thr)!=ML_ROW_OK ) return;
  if( a==0 || a->n==0 ){ ml_result_null(ctx, d->name, "no rows"); return; }
  for(i=0; i<a->n; i++) nRow += a->g[i].nRow;
  if( ml_compute_begin(ctx, isFinal, nRow) ) return;
  st = ml_malloc(sizeof(DispStats) * (uint64_t)a->n);
  if( st==0 ){
    sqlite3_result_error_nomem(ctx);
  }else{
    double t = ml_param_value(&a->thr, 0.5);
    for(i=0; i<a->n; i++){
      if( disp_stats(&a->g[i], t, &st[i]) ){ sqlite3_result_error_nomem(ctx); break; }
    }
    if( i==a->n && !ml_stop_happened() ) disp_emit(ctx, a, st);
    ml_free(st);
  }
  ml_compute_end(ctx);
}
static void dispValue(sqlite3_context *ctx){ disp_result(ctx, sqlite3_aggregate_context(ctx, 0), 0); }
static void dispFinal(sqlite3_context *ctx){
  DispAgg *a = sqlite3_aggregate_context(ctx, 0);
  ml_i64 i;
  disp_result(ctx, a, 1);
  if( a ){
    for(i=0; i<a->n; i++) disp_free_group(&a->g[i]);
    ml_free(a->g);
    a->g = 0;
    a->n = a->cap = 0;
  }
}

/* ------------------------------------------------------------- records */

static const MlFamily famDisparity = { "monitoring", dispStep, dispFinal, dispValue, dispInverse, 0,
                                       dispStepW, dispInverseW,
                                       (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT) | (1u<<ML_STATE_WEIGHTED) };

const MlFuncDesc ml_disparity_functions[] = {
  { "group_disparity",    "y, s, group, threshold | st, group, threshold", 3, 4, &famDisparity, 0, 0, ML_FN_JSON,
                          ML_PARAMS(&psDispThreshold) },
  { "group_disparity_w",  "y, s, w, group, threshold", 5, 5, &famDisparity, 0, 0, ML_FN_JSON | ML_FN_TWIN,
                          ML_PARAMS(&psDispThreshold) },
  { 0 }
};
