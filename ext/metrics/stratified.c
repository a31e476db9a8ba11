/*
** SPDX-License-Identifier: MIT
**
** stratified.c -- stratified PR-AUC and the gap flag.
**
** SQL functions (all aggregate and window functions):
**   strat_pr_auc(y, s, strat [, ql=0.25, qh=0.75])
**       pr_auc over the rows whose strat lies in [Q(ql), Q(qh)] (inclusive),
**       Q numpy's default quantile; NULL when either class has fewer than
**       10 rows in that window
**   strat_gap(y, s, strat [, ql, qh])
**       pr_auc over all rows minus strat_pr_auc
**   strat_report(y, s, strat [, ql, qh [, gap_threshold=0.05]])
**       JSON {"full","trimmed","gap","gap_flag","stratifier_low",
**       "stratifier_high","q_low","q_high","n","n_trimmed","pos_trimmed",
**       "neg_trimmed","reason"}; gap_flag is gap > gap_threshold (strict);
**       reason says why trimmed is null, else null
**
** Rules:
**   1. A NULL y, s or strat skips the row; y is 0/1, s and strat numbers.
**   2. 0 <= ql < qh <= 1 and gap_threshold any number, the same in every
**      row of a group; else an error.
**   3. The quantiles are numpy.quantile(strat, q) (method 'linear'), over
**      the rows of the group, found by selection: O(n), no second sort.
**   4. The window pr_auc folds over the same sorted sample and sweep as
**      pr_auc, with a filter on the stratifier: no second sort either.
**   5. Fewer than 10 rows of a class in the window gives a NULL trimmed
**      value and a reason, never an error (eval_toolkit raises there; one
**      thin fold must not kill a GROUP BY audit).
**   6. Weighted twins strat_pr_auc_w(y, s, w, strat [, ql, qh]), strat_gap_w,
**      strat_report_w (docs/weights.md): the quantiles are numpy's linear
**      quantile on the cumulative-weight axis of the stratifier
**      (ml_wquantile; each distinct stratifier's weight an exact sum), the
**      pr_auc folds pr_auc_w's weighted sweep, a class "fewer than 10" when
**      its weight in the window is below 10, and n, n_trimmed, pos_trimmed,
**      neg_trimmed are sums of weights.  Integer weights give the rows
**      repeated, bit for bit.
**   7. States: each entry (score, stratifier, count of a class) is one
**      record weighing its count in rule 6's buffer, so a function over
**      states costs O(entries) and folds rule 6's weighted sweep, which with
**      integer weights is the rows' computation bit for bit; rows beside
**      states weigh 1.  Its texts stay the unweighted ones.
**   8. One row model: xStep, xInverse and the twins' xStepW, xInverseW are
**      one function (strat_row_any) compiled four times, the weight and the
**      direction constants; the unweighted instances read no weight
**      (docs/decisions.md, "one source compiled twice").
**
** Cost: 16 bytes per row of state (score key + stratifier), 24 for a
** state's entry (+ its count, rule 7) or
** weighted twin (+ weight); at each result an 8-byte-per-row copy of the
** stratifiers for the selection (16 weighted: the quantile sorts (strat,
** w) pairs), one radix sort (kept sorted in window frames), three O(n)
** passes; a weighted twin also copies the window's rows (16 bytes each,
** in the pairs' room).  strat_gap_w's computation (ml_strat_compute_w)
** allocates nothing itself: uncertainty.c's strat_gap_ci_w runs it on each
** replicate.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

/* Which metric a record asks of the family's shared callbacks (MlFuncDesc.kind). */
enum { ST_PR_AUC, ST_GAP, ST_REPORT };

#define STRAT_MIN_CLASS 10

typedef struct StratAgg {
  MlSamples smp;       /* key s, aux strat */
  MlParam ql, qh, thr;
  int init;
  int failed;          /* xStep set an error: xFinal only frees */
  int counted;         /* states absorbed: smp is width 24, each record (s,
                       ** count, strat), rows weigh 1 (ml_samples_absorb_counted) */
  ml_i64 held[2];      /* counted: the rows of each class the buffer stands for */
} StratAgg;

/* Checks ql, qh (argv[3], argv[4]) and gap_threshold (argv[5]) and counts
** the row under them. */
static int strat_params(sqlite3_context *ctx, const char *fn, int argc, sqlite3_value **argv,
                        StratAgg *p){
  double ql, qh, v;
  if( argc>=5 ){
    if( ml_param_real(ctx, fn, &ml_ps_ql, argv[3], &p->ql, &ql) ) return ML_ROW_ERR;
    if( ml_param_real(ctx, fn, &ml_ps_qh, argv[4], &p->qh, &qh) ) return ML_ROW_ERR;
    if( ql >= qh ){
      char z1[32], z2[32];
      ml_error(ctx, fn, "ql must be less than qh, got ql = %s and qh = %s", ml_num(z1, ql), ml_num(z2, qh));
      return ML_ROW_ERR;
    }
  }
  if( argc>=6 ){
    if( ml_param_real(ctx, fn, &ml_ps_gap_threshold, argv[5], &p->thr, &v) ){
      return ML_ROW_ERR;
    }
  }
  return ML_ROW_OK;
}

/* xInverse: the row's parameters, uncounted. */
static void strat_params_drop(int argc, sqlite3_value **argv, StratAgg *p){
  if( argc>=5 ){ ml_param_drop(&p->ql, argv[3]); ml_param_drop(&p->qh, argv[4]); }
  if( argc>=6 ) ml_param_drop(&p->thr, argv[5]);
}

/* The parameters the rows hold (or the defaults); ML_ROW_ERR when two rows
** of the group disagree. */
static int strat_params_check(sqlite3_context *ctx, const char *fn, const StratAgg *p,
                              double *ql, double *qh, double *thr){
  if( ml_param_check(ctx, fn, "ql", &p->ql) || ml_param_check(ctx, fn, "qh", &p->qh)
   || ml_param_check(ctx, fn, "gap_threshold", &p->thr) ) return ML_ROW_ERR;
  *ql = ml_param_value(&p->ql, 0.25);
  *qh = ml_param_value(&p->qh, 0.75);
  *thr = ml_param_value(&p->thr, 0.05);
  return ML_ROW_OK;
}

static int strat_row(sqlite3_context *ctx, const char *fn, sqlite3_value **argv, int t0,
                     int *y, double *s, double *z){
  int rc;
  if( sqlite3_value_type(argv[2])==SQLITE_NULL ) return ML_ROW_SKIP;
  rc = ml_arg_binary_row_t(ctx, fn, argv, t0, 0, y, s);
  if( rc==ML_ROW_OK ) rc = ml_arg_strat(ctx, fn, argv[2], z);
  return rc;
}

/* One row, written once for famStrat's four row callbacks (rule 8): sign +1
** adds it (xStep), -1 removes it (xInverse, a row xStep accepted); weighted
** is a constant at each call, so the unweighted instances (weighted 0, w
** the literal 1.0) read and test no weight.  An unweighted row goes into
** the width-16 buffer as (s, strat) (beside states, a width-24 record of
** count 1); a twin's row of weight w > 0 into a width-24 buffer as (s, w,
** strat), one of weight 0 (or NULL) dropped after its parameters count,
** w < 0 following the driver's error. */
static ML_ALWAYS_INLINE void strat_row_any(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                                           double w, int sign, int weighted){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  StratAgg *p;
  int y, rc, t0 = sqlite3_value_type(argv[0]);
  double s, z;
  if( !weighted && ML_STATE_DIVERT(ctx, argc, argv, t0, sign<0) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( sign<0 ){
    if( p==0 || !p->init ) return;
    strat_params_drop(argc, argv, p);
    if( strat_row(ctx, d->name, argv, t0, &y, &s, &z)!=ML_ROW_OK ) return;
    if( weighted ){ if( w>0.0 ) ml_samples_remove2(&p->smp, y, s, w, z); }
    else if( !p->counted ) ml_samples_remove(&p->smp, y, s, z);
    else if( ml_samples_remove2(&p->smp, y, s, 1.0, z) ) p->held[y]--;
    return;
  }
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){ ml_samples_init(&p->smp, weighted ? 24 : 16); p->smp.weighted = weighted; p->init = 1; }
  if( argc==4 ){
    /* ql without qh: the window needs both ends (the table accepts 3..6) */
    ml_arity_error(ctx, d, argc + weighted);
    p->failed = 1;
    return;
  }
  if( weighted && w<0.0 ){ p->failed = 1; return; }
  rc = strat_params(ctx, d->name, argc, argv, p);
  if( rc==ML_ROW_OK ) rc = strat_row(ctx, d->name, argv, t0, &y, &s, &z);
  if( rc==ML_ROW_OK && !weighted && !p->counted ){
    if( ml_add_row(ctx, &p->smp, y, s, z) ) rc = ML_ROW_ERR;
  }else if( rc==ML_ROW_OK && (!weighted || w>0.0) ){
    if( ml_samples_add2(&p->smp, y, s, w, z) ){   /* unweighted beside states: a record of count 1 */
      ml_samples_clear(&p->smp);
      sqlite3_result_error_nomem(ctx);
      rc = ML_ROW_ERR;
    }else if( !weighted ){
      p->held[y]++;
    }
  }
  if( rc==ML_ROW_ERR ) p->failed = 1;
}

/*
** SQL function: strat_pr_auc(y, s, strat [, ql, qh]), strat_gap(...),
**   strat_report(y, s, strat [, ql, qh [, gap_threshold]]): xStep and
**   xInverse, and their weighted twins' (strat_pr_auc_w, strat_gap_w,
**   strat_report_w; MlFamily.xStepW, xInverseW): strat_row_any.
*/
static void ml_strat_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  strat_row_any(ctx, argc, argv, 1.0, +1, 0);
}
static void ml_strat_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  strat_row_any(ctx, argc, argv, 1.0, -1, 0);
}
static void strat_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  strat_row_any(ctx, argc, argv, w, +1, 1);
}
static void strat_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  strat_row_any(ctx, argc, argv, w, -1, 1);
}


/* The reason trimmed is NULL, or "" (both classes reach 10 in the window). */
static void strat_thin(MlStratResult *r, int weighted){
  const char *zWhat;
  char z1[32], z2[32];
  int thinP = r->pos<STRAT_MIN_CLASS, thinN = r->neg<STRAT_MIN_CLASS;
  if( !thinP && !thinN ) return;
  if( weighted ){
    zWhat = thinP && thinN ? "positive and negative weights below 10"
          : thinP ? "positive weight below 10" : "negative weight below 10";
  }else{
    zWhat = thinP && thinN ? "fewer than 10 positives and fewer than 10 negatives"
          : thinP ? "fewer than 10 positives" : "fewer than 10 negatives";
  }
  sqlite3_snprintf(sizeof(r->zReason), r->zReason, "%s in the window [%s, %s]",
                   zWhat, ml_num(z1, r->lo), ml_num(z2, r->hi));
}

/* The scratch ml_strat_compute_w needs for smp: the (strat, w) pairs, then
** the larger of their radix sort's and smp's sort's scratch; the window's
** rows reuse the pairs' room. */
uint64_t ml_strat_scratch_w(const MlSamples *smp){
  ml_i64 n = ml_samples_count(smp);
  uint64_t nSort = ml_samples_scratch_size(smp), nQ = 16*(uint64_t)n + ML_RADIX_EXTRA;
  return 16*(uint64_t)(n ? n : 1) + (nSort > nQ ? nSort : nQ);
}

/* strat_compute for a weighted sample (rule 6): smp is width 24 (s, w,
** strat), at least one row, sorted here if it is not; r->ql and r->qh in.
** weightTexts: the thin window's reason speaks of weights (a twin), else of
** counts (states).  Allocates nothing: scratch is ml_strat_scratch_w(smp)
** bytes.  strat_gap_w and each replicate of strat_gap_ci_w (uncertainty.c). */
void ml_strat_compute_w(MlSamples *smp, MlStratResult *r, int weightTexts, void *scratch){
  MlSamples t;
  MlWSweep ws;
  ml_i64 n = ml_samples_count(smp), i, k = 0, ng = 0, at = 0;
  MlRec16 *q = scratch;
  double *g, W = 0.0;
  int y;
  r->full = r->trimmed = r->gap = NAN;
  r->zReason[0] = 0;
  /* the (strat, w) pairs and, after them, the sorts' scratch */
  for(y=0; y<2; y++) for(i=0; i<smp->n[y]; i++, k++){
    q[k].key = ml_key_of(ml_samples_aux2(smp, y, i));
    q[k].aux = ml_samples_aux(smp, y, i);
  }
  ml_radix_sort(q, n, 16, q + n);
  /* the distinct stratifiers in place as (value, below) pairs */
  g = (double*)q;
  for(i=0; i<n; ){
    ml_i64 j = i;
    ml_key key = q[i].key;
    double wsum;
    while( j<n && q[j].key==key ) j++;
    wsum = ml_exact_sum(&q[i].aux, 2, j - i);
    g[2*ng] = ml_double_of(key);
    g[2*ng+1] = W;
    W += wsum;
    ng++;
    i = j;
  }
  r->n = W;
  r->lo = ml_wquantile(g, g + 1, 2, ng, W, r->ql, &at);
  r->hi = ml_wquantile(g, g + 1, 2, ng, W, r->qh, &at);
  ml_samples_sort_using(smp, q + n);
  if( smp->n[0]>0 && smp->n[1]>0 ) r->full = ml_wfold_ap(smp);
  /* the window's rows, in the same (sorted) order, as a weighted sample in
  ** the pairs' room (at most n records of 16 bytes) */
  ml_samples_init_weighted(&t);
  t.a[0] = scratch;
  for(y=0; y<2; y++){
    if( y==1 ) t.a[1] = t.a[0] + 16*(size_t)t.n[0];
    for(i=0; i<smp->n[y]; i++){
      double z = ml_samples_aux2(smp, y, i);
      if( z>=r->lo && z<=r->hi ){
        MlRec16 *o = (MlRec16*)t.a[y] + t.n[y]++;
        o->key = ml_samples_key(smp, y, i);
        o->aux = ml_samples_aux(smp, y, i);
      }
    }
    t.cap[y] = t.n[y];
  }
  t.sorted = 1;
  ml_wsweep_init(&ws, &t);
  r->pos = ws.P;
  r->neg = ws.N;
  strat_thin(r, weightTexts);
  if( !r->zReason[0] ) r->trimmed = ml_wfold_ap(&t);
  r->gap = r->full - r->trimmed;
}

/* The weighted twins' computation in one scratch block.  ML_OK or ML_NOMEM. */
static int strat_compute_w(StratAgg *p, MlStratResult *r){
  void *scratch = ml_malloc(ml_strat_scratch_w(&p->smp));
  if( scratch==0 ) return ML_NOMEM;
  ml_strat_compute_w(&p->smp, r, !p->counted, scratch);
  ml_free(scratch);
  return ML_OK;
}

/* ML_OK or ML_NOMEM. */
static int strat_compute(StratAgg *p, MlStratResult *r){
  MlSamples *smp = &p->smp;
  MlFilter f;
  MlSweep w;
  ml_i64 n = ml_samples_count(smp), i, k = 0;
  uint64_t nScratch = ml_samples_scratch_size(smp);
  int y;
  double *z;
  if( smp->weighted ) return strat_compute_w(p, r);
  r->full = r->trimmed = r->gap = NAN;
  r->n = (double)n;
  /* One scratch allocation serves the stratifier copy for the selection,
  ** then the sort. */
  if( nScratch < sizeof(double)*(uint64_t)n ) nScratch = sizeof(double)*(uint64_t)n;
  z = ml_malloc(nScratch);
  if( z==0 ) return ML_NOMEM;
  for(y=0; y<2; y++) for(i=0; i<smp->n[y]; i++) z[k++] = ml_samples_aux(smp, y, i);
  ml_quantile_pair(z, n, r->ql, r->qh, &r->lo, &r->hi);
  ml_samples_sort_using(smp, z);          /* a no-op when a window frame is kept sorted */
  ml_free(z);
  if( smp->n[0]>0 && smp->n[1]>0 ) r->full = ml_fold_average_precision(smp, 0);
  f.lo = r->lo; f.hi = r->hi;
  ml_sweep_init(&w, smp, &f);
  r->pos = (double)w.P;
  r->neg = (double)w.N;
  strat_thin(r, 0);
  if( !r->zReason[0] ) r->trimmed = ml_fold_ap_sweep(&w);
  r->gap = r->full - r->trimmed;
  return ML_OK;
}

static void strat_answer(sqlite3_context *ctx, StratAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  MlStratResult r;
  memset(&r, 0, sizeof(r));
  if( p && strat_params_check(ctx, d->name, p, &r.ql, &r.qh, &r.thr) ) return;
  if( p==0 || !p->init || ml_samples_count(&p->smp)==0 ){
    ml_result_null(ctx, d->name, p && p->init && p->smp.weighted && !p->counted ? "no rows of positive weight"
                                                                                : "no rows");
    return;
  }
  if( strat_compute(p, &r) ){ sqlite3_result_error_nomem(ctx); return; }
  if( d->kind==ST_REPORT ){
    MlJson j;
    ml_json_init(&j);
    ml_json_begin_object(&j);
    ml_json_key(&j, "full");            ml_json_double(&j, r.full);
    ml_json_key(&j, "trimmed");         ml_json_double(&j, r.trimmed);
    ml_json_key(&j, "gap");             ml_json_double(&j, r.gap);
    ml_json_key(&j, "gap_flag");
    if( isnan(r.gap) ) ml_json_null(&j); else ml_json_bool(&j, r.gap > r.thr);
    ml_json_key(&j, "stratifier_low");  ml_json_double(&j, r.lo);
    ml_json_key(&j, "stratifier_high"); ml_json_double(&j, r.hi);
    ml_json_key(&j, "q_low");           ml_json_double(&j, r.ql);
    ml_json_key(&j, "q_high");          ml_json_double(&j, r.qh);
    if( p->smp.weighted && !p->counted ){
      ml_json_key(&j, "n");               ml_json_double(&j, r.n);
      ml_json_key(&j, "n_trimmed");       ml_json_double(&j, r.pos + r.neg);
      ml_json_key(&j, "pos_trimmed");     ml_json_double(&j, r.pos);
      ml_json_key(&j, "neg_trimmed");     ml_json_double(&j, r.neg);
    }else{
      ml_json_key(&j, "n");               ml_json_int(&j, (ml_i64)r.n);
      ml_json_key(&j, "n_trimmed");       ml_json_int(&j, (ml_i64)(r.pos + r.neg));
      ml_json_key(&j, "pos_trimmed");     ml_json_int(&j, (ml_i64)r.pos);
      ml_json_key(&j, "neg_trimmed");     ml_json_int(&j, (ml_i64)r.neg);
    }
    ml_json_key(&j, "reason");
    ml_json_string(&j, r.zReason[0] ? r.zReason : 0);
    ml_json_end_object(&j);
    ml_result_json(ctx, &j);
    return;
  }
  if( isnan(r.trimmed) ){
    ml_result_null(ctx, d->name, "%s", r.zReason);
  }else if( d->kind==ST_GAP && isnan(r.full) ){
    ml_result_null(ctx, d->name, "only one class in the group");
  }else{
    sqlite3_result_double(ctx, d->kind==ST_GAP ? r.gap : r.trimmed);
  }
}

static void strat_result(sqlite3_context *ctx, StratAgg *p, int isFinal){
  if( p && p->failed ) return;
  if( ml_compute_begin(ctx, isFinal, p && p->init ? ml_samples_count(&p->smp) : 0) ) return;
  strat_answer(ctx, p);
  ml_compute_end(ctx);
}

static void ml_strat_value(sqlite3_context *ctx){
  strat_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}

static void ml_strat_final(sqlite3_context *ctx){
  StratAgg *p = sqlite3_aggregate_context(ctx, 0);
  strat_result(ctx, p, 1);
  if( p && p->init ) ml_samples_clear(&p->smp);
}

/* States: each (score, stratifier) entry is one record weighing its count
** (rule 7), never a row per count; rows held so far weigh 1. */
static int strat_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  StratAgg *p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 ) return ML_NOMEM;
  if( !p->init ){ ml_samples_init(&p->smp, 16); p->init = 1; }
  return ml_absorb_section_counted(&p->smp, &p->counted, p->held, st, n, 0, sign, zErr, nErr);
}
static const MlStateHooks ml_strat_states = { sizeof(StratAgg), 3, 1u<<ML_STATE_STRAT, strat_absorb };

/* ------------------------------------------------------------- records */

static const MlFamily famStrat = { "stratified", ml_strat_step, ml_strat_final, ml_strat_value,
                                   ml_strat_inverse, &ml_strat_states, strat_step_w, strat_inverse_w, 0 };
#define W ML_FN_WEIGHTED

const MlFuncDesc ml_stratified_functions[] = {
  { "strat_pr_auc",    "y, s, strat [, ql, qh]",   3,  5, &famStrat, 0, ST_PR_AUC, W, ML_PARAMS(&ml_ps_ql, &ml_ps_qh) },
  { "strat_gap",       "y, s, strat [, ql, qh]",   3,  5, &famStrat, 0, ST_GAP, W, ML_PARAMS(&ml_ps_ql, &ml_ps_qh) },
  { "strat_report",    "y, s, strat [, ql, qh [, gap_threshold]]", 3, 6, &famStrat, 0, ST_REPORT, ML_FN_JSON | W,
                                                   ML_PARAMS(&ml_ps_ql, &ml_ps_qh, &ml_ps_gap_threshold) },
  { 0 }
};
