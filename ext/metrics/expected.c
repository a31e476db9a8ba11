/*
** SPDX-License-Identifier: MIT
**
** expected.c -- the monitoring family's performance without labels: each
** row a probability p assumed calibrated, the metrics its labels would
** give in expectation.  The family's other functions: drift.c, disparity.c.
**
** SQL functions (aggregate and window; docs/monitoring.md):
**   expected_auroc(p), expected_pr_auc(p)   performance without labels
**   expected_confusion(p, threshold)        JSON {"n","tp","fp","tn","fn",
**                                 "sensitivity","specificity","ppv","npv",
**                                 "f1","accuracy","prevalence","threshold"}
**   expected_auroc(st), expected_pr_auc(st), expected_confusion(st, threshold)
**                                 the same over ml_state BLOBs (rule 2)
**
** Rules:
**   1. Performance without labels (p assumed calibrated; NannyML's CBPE
**      estimand, exact): each row with probability p in [0, 1] is a positive
**      weighing p (when p > 0) and a negative weighing 1 - p (when p < 1),
**      both at score p; expected_auroc and expected_pr_auc are the weighted
**      sweep's auroc_w and pr_auc_w over these halves (ml_fold_auroc,
**      ml_fold_average_precision on the weighted sample), NULL with a reason
**      when every p is 0 or every p is 1.  expected_confusion: tp = sum of p
**      and fp = sum of 1 - p over p >= threshold, fn and tn the same below,
**      each an exact sum; a ratio with a zero denominator is null.
**      threshold is a number in [0, 1], the same in every row.
**   2. The state form: expected_*(st [, threshold]), the family's
**      MlStateHooks (a binary or stratified state; a weighted one is an
**      error: no twin); an entry (p, c rows, both classes summed) is a
**      positive weighing c p and a negative weighing c (1 - p), each as the
**      one or two doubles whose exact sum it is (ml_count_weight), so the
**      weighted sweep's exact tie sums give the rows' bits; O(entries).
**   3. Window frames: the rows (records) are kept; xInverse removes the
**      row, so a frame equals the aggregate over its rows.
**   4. expected_auroc keeps one key a row, not its halves (issue 48 item
**      6): a run of c rows at p is the halves' tie group, weighing c p and
**      c (1 - p) (each one correctly rounded product, as the exact sum of
**      the halves' weights), so one sweep over the sorted p with running
**      sums of p and 1 - p gives ml_wfold_auroc's number over the halves
**      bit for bit (its trapezoids unscaled: ml_pow2_scale's factors cancel
**      exactly; a second, scaled pass only when a term nears underflow).  A state in the group turns the
**      keys into halves (rule 2's path) for the rest of it.
**
** Cost: 16 bytes per half-row (two per row with 0 < p < 1); a result sorts
** (O(n) radix) and sweeps once.  expected_auroc: 8 bytes a row, a sort of
** n keys and one pass over them: 638 Ir a row at 10^5 rows, 1.48x the no-op
** floorn(p) (callgrind; the sort ~75, the sweep ~97 with the FMA
** instruction where the CPU has one -- ~113 through libm's fma --, of which
** the exact sum's two additions ~36; bench/RESULTS.md, "Multiclass at
** scale").  A state costs 16-32 bytes per entry and class, whatever its
** counts.
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

/* ------------------------------------------- performance without labels */

/*
** expected_auroc(p), expected_pr_auc(p), expected_confusion(p, threshold):
** each row a calibrated probability p, split into a positive weighing p and
** a negative weighing 1 - p (rule 1); the weighted sweep's auroc_w and
** pr_auc_w over those halves.  Rows are kept (a weighted sample, 2 records
** per row at most) so that any frame is the aggregate of its rows.
*/
enum { EXP_AUROC = 1, EXP_PR_AUC, EXP_CONFUSION };

typedef struct ExpAgg {
  MlSamples smp;      /* a[1]: (p, weight p), a[0]: (p, weight 1 - p) */
  MlSamples keys;     /* expected_auroc's rows (rule 4): a[0] the keys of p */
  MlParam thr;
  ml_i64 nRow;
  int init, failed;
  int kinit;          /* keys is initialised */
  int halves;         /* expected_auroc holds halves in smp (a state came): keys unused */
} ExpAgg;

static const MlParamSpec psExpThreshold = ML_PARAM_REAL("threshold", 0.0, 0, 1.0, 0, 0, "0.5");

static void exp_row(sqlite3_context *ctx, int argc, sqlite3_value **argv, int sign){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ExpAgg *a;
  double p, t;
  int rc;
  if( ML_STATE_DIVERT(ctx, argc, argv, sqlite3_value_type(argv[0]), sign<0) ) return;
  a = ml_agg_context(ctx, sizeof(*a));
  if( a==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !a->init ){ ml_samples_init_weighted(&a->smp); a->init = 1; }
  if( sign>0 && a->failed ) return;
  if( argc>=2 ){
    if( sign<0 ){
      ml_param_drop(&a->thr, argv[1]);
    }else if( ml_param_real(ctx, d->name, &psExpThreshold, argv[1], &a->thr, &t)!=ML_ROW_OK ){
      a->failed = 1;
      return;
    }
  }
  rc = ml_arg_prob(ctx, d->name, "p", argv[0], &p);
  if( rc==ML_ROW_ERR ){ a->failed = 1; return; }
  if( rc!=ML_ROW_OK ) return;
  p += 0.0;
  if( d->kind==EXP_AUROC && !a->halves ){          /* one key a row (rule 4) */
    if( !a->kinit ){ ml_samples_init(&a->keys, 8); a->kinit = 1; }
    if( sign>0 ){
      if( ml_add_row(ctx, &a->keys, 0, p, 0.0) ){ a->failed = 1; return; }
      a->nRow++;
    }else if( ml_samples_remove(&a->keys, 0, p, 0.0) ){
      a->nRow--;
    }
    return;
  }
  if( sign>0 ){
    if( p>0.0 && ml_add_row(ctx, &a->smp, 1, p, p) ){ a->failed = 1; return; }
    if( p<1.0 && ml_add_row(ctx, &a->smp, 0, p, 1.0 - p) ){ a->failed = 1; return; }
    a->nRow++;
  }else{
    if( p>0.0 ) ml_samples_remove(&a->smp, 1, p, p);
    if( p<1.0 ) ml_samples_remove(&a->smp, 0, p, 1.0 - p);
    a->nRow--;
  }
}

/*
** SQL function: expected_auroc(p), expected_pr_auc(p), expected_confusion(p, threshold)
** -- xStep, xInverse
*/
static void expStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  /* expected_auroc's common row (rule 4): a REAL p in [0, 1] appended to
  ** the unsorted keys; anything else through exp_row, which checks it */
  if( argc==1 && sqlite3_value_type(argv[0])==SQLITE_FLOAT ){
    ExpAgg *a = sqlite3_aggregate_context(ctx, 0);
    if( a && a->kinit && !a->halves && !a->failed ){
      double p = sqlite3_value_double(argv[0]);
      if( p>=0.0 && p<=1.0 && ml_samples_append8(&a->keys, 0, p) ){ a->nRow++; return; }
    }
  }
  exp_row(ctx, argc, argv, 1);
}
static void expInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){ exp_row(ctx, argc, argv, -1); }

/* The halves of c rows at probability p (rule 2): class 1 weighing c p,
** class 0 weighing c (1 - p), each as the one or two records whose exact
** sum it is (ml_count_weight), added (sign +1) or removed. */
static int exp_entry(MlSamples *smp, double p, ml_i64 c, int sign){
  double w[2], part[2];
  int y, k, i;
  w[1] = p;
  w[0] = 1.0 - p;
  for(y=0; y<2; y++){
    if( w[y]<=0.0 ) continue;
    k = ml_count_weight(c, w[y], part);
    for(i=0; i<k; i++){
      if( sign>0 ){
        if( ml_samples_add(smp, y, p, part[i]) ) return ML_NOMEM;
      }else{
        ml_samples_remove(smp, y, p, part[i]);
      }
    }
  }
  return ML_OK;
}

/* The state form (rule 2): n states' entries, both classes summed, as the
** halves of their rows; a weighted state is refused (no weighted twin). */
static int exp_absorb_do(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ExpAgg *a = ml_agg_context(ctx, sizeof(*a));
  ml_i64 held[2];
  int j, rc;
  if( a==0 ) return ML_NOMEM;
  if( !a->init ){ ml_samples_init_weighted(&a->smp); a->init = 1; }
  if( ml_states_weighted(st, n) ){
    sqlite3_snprintf(nErr, zErr, "takes no weighted state (made by ml_state_w): %s has no weighted twin;"
                     " give it a state made by ml_state(y, p)", d->name);
    return ML_ERROR;
  }
  if( (rc = ml_state_probabilities(st, n, zErr, nErr))!=0 ) return rc;
  if( !a->halves ){
    /* expected_auroc's keys become halves, as the rows' (rule 4) */
    ml_i64 i;
    for(i=0; a->kinit && i<a->keys.n[0]; i++){
      if( exp_entry(&a->smp, ml_double_of(ml_samples_key(&a->keys, 0, i)), 1, 1) ) return ML_NOMEM;
    }
    if( a->kinit ) ml_samples_clear(&a->keys);
    a->halves = 1;
  }
  held[0] = sign>0 ? a->nRow : 0;
  held[1] = 0;
  if( (rc = ml_state_rows(st, n, 0, held, zErr, nErr))!=0 ) return rc;
  for(j=0; j<n; j++){
    MlReader rd;
    MlEntry e;
    ml_reader_init(&rd, &st[j].sec[0]);
    while( ml_reader_next(&rd, &e) ){
      if( exp_entry(&a->smp, ml_double_of(e.key) + 0.0, e.n[0] + e.n[1], sign) ) return ML_NOMEM;
    }
  }
  a->nRow = sign>0 ? held[0] + held[1] : a->nRow - (held[0] + held[1]);
  return ML_OK;
}
/* A failed absorb fails the group (its buffer may be partly filled). */
static int exp_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  int rc = exp_absorb_do(ctx, st, n, sign, zErr, nErr);
  ExpAgg *a = rc ? sqlite3_aggregate_context(ctx, 0) : 0;
  if( a ) a->failed = 1;
  return rc;
}
static const MlStateHooks expStates = {
  sizeof(ExpAgg), 1, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT), exp_absorb   /* not weighted: no twin */
};

/* The expected confusion matrix (rule 1): exact sums over the halves. */
static void exp_confusion(sqlite3_context *ctx, const ExpAgg *a, double t){
  MlXsum xs[4];    /* tp, fp, fn, tn */
  double v[4], tp, fp, fn, tn;
  int y, k;
  ml_i64 i;
  MlJson j;
  for(k=0; k<4; k++) ml_xsum_init(&xs[k]);
  for(y=0; y<2; y++){
    for(i=0; i<a->smp.n[y]; i++){
      double p = ml_double_of(ml_samples_key(&a->smp, y, i)), w = ml_samples_aux(&a->smp, y, i);
      ml_xsum_add(&xs[(p>=t ? 0 : 2) + (y ? 0 : 1)], w, 1);
    }
  }
  for(k=0; k<4; k++) v[k] = ml_xsum_round(&xs[k]);
  tp = v[0]; fp = v[1]; fn = v[2]; tn = v[3];
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "n");           ml_json_int(&j, a->nRow);
  ml_json_key(&j, "tp");          ml_json_double(&j, tp);
  ml_json_key(&j, "fp");          ml_json_double(&j, fp);
  ml_json_key(&j, "tn");          ml_json_double(&j, tn);
  ml_json_key(&j, "fn");          ml_json_double(&j, fn);
  ml_json_key(&j, "sensitivity"); ml_json_double(&j, tp + fn > 0.0 ? tp/(tp + fn) : NAN);
  ml_json_key(&j, "specificity"); ml_json_double(&j, tn + fp > 0.0 ? tn/(tn + fp) : NAN);
  ml_json_key(&j, "ppv");         ml_json_double(&j, tp + fp > 0.0 ? tp/(tp + fp) : NAN);
  ml_json_key(&j, "npv");         ml_json_double(&j, tn + fn > 0.0 ? tn/(tn + fn) : NAN);
  ml_json_key(&j, "f1");          ml_json_double(&j, 2.0*tp + fp + fn > 0.0 ? 2.0*tp/(2.0*tp + fp + fn) : NAN);
  ml_json_key(&j, "accuracy");    ml_json_double(&j, (tp + tn)/(double)a->nRow);
  ml_json_key(&j, "prevalence");  ml_json_double(&j, (tp + fn)/(double)a->nRow);
  ml_json_key(&j, "threshold");   ml_json_double(&j, t);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

/* expected_auroc over the sorted keys (rule 4): a run of c rows at p is the
** weighted sweep's tie group of positives weighing c p and negatives
** weighing c (1 - p) -- one product each, correctly rounded as the exact
** sum of the halves' weights is -- so a sweep from the highest p with
** running sums of p and 1 - p (tp, fp; at the end P and N as ml_wsweep.c's
** class_total adds them) gives ml_wfold_auroc's trapezoids over the halves,
** and their bits (rule 4).
** *pP: P (0 when every p is 0; N 0 when every p is 1, the result NaN). */
/* One sweep of exp_auroc_keys from the highest p: the exact sum of the
** trapezoids (twice their area) with tp scaled by sp and fp by sn (1.0, 1.0:
** unscaled, the same bits), *pTp and *pFp the totals unscaled; *pSafe 0
** when an unscaled term could have lost its fma residual below the normal
** range. */
static ML_ALWAYS_INLINE double exp_auroc_sweep(const ml_key *k, ml_i64 n, double sp, double sn,
                                               double *pTp, double *pFp, int *pSafe){
  ml_i64 i, j;
  double tp = 0.0, fp = 0.0, v;
  unsigned g = 0;
  MlXsum a;
  ml_xsum_init(&a);
  for(i=n; i>0; i=j){
    double p = ml_double_of(k[i-1]), c, dtp, dfp;
    for(j=i-1; j>0 && k[j-1]==k[i-1]; j--){}
    c = (double)(i - j);
    dtp = c*p;
    dfp = c*(1.0 - p);
    tp += dtp;
    fp += dfp;
    if( dfp>0.0 ){
      double b = (2.0*tp - dtp)*sp, f = dfp*sn, hi = f*b, lo = fma(f, b, -hi);
      if( hi<0x1p-900 && hi!=0.0 ) *pSafe = 0;       /* hi >= 0 */
      /* hi and lo are finite (hi < 4 n^2 at most): the exact sum's checks
      ** for Inf and NaN skipped, its carry pass due every 1022 terms */
      if( a.nAdd>=1022 ) ml_xsum_add_slow(&a, 0.0, 1);
      ml_xsum_add_finite(&a, hi, 1);
      ml_xsum_add_finite(&a, lo, 1);
    }
    if( (++g & 0xFFFFF)==0 && ml_stop_requested() ) break;
  }
  *pTp = tp;                              /* class_total's sums: the same adds, in the same order */
  *pFp = fp;
  v = ml_xsum_round(&a);
  return v;
}

/* The sweep compiled twice: with the FMA instruction where the CPU has it
** (fma() then costs one instruction, not a call into libm; the product's
** residual is exact either way, so both give the same bits), and plain. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("fma")))
static double exp_auroc_pass_fma(const ml_key *k, ml_i64 n, double sp, double sn,
                                 double *pTp, double *pFp, int *pSafe){
  return exp_auroc_sweep(k, n, sp, sn, pTp, pFp, pSafe);
}
#endif
static double exp_auroc_pass(const ml_key *k, ml_i64 n, double sp, double sn,
                             double *pTp, double *pFp, int *pSafe){
#if defined(__x86_64__) && defined(__GNUC__)
  static int hw = -1;
  if( hw<0 ){ __builtin_cpu_init(); hw = __builtin_cpu_supports("fma") ? 1 : 0; }
  if( hw ) return exp_auroc_pass_fma(k, n, sp, sn, pTp, pFp, pSafe);
#endif
  return exp_auroc_sweep(k, n, sp, sn, pTp, pFp, pSafe);
}

static double exp_auroc_keys(const MlSamples *s, double *pP, double *pN){
  const ml_key *k = (const ml_key*)s->a[0];
  double P, N, sum, sp, sn;
  int safe = 1;
  /* one pass, the trapezoids unscaled: the same bits as the scaled ones
  ** (sp sn times each exact term, the ratio unchanged) unless a term is
  ** so small that its fma residual could fall below the normal range;
  ** then a second pass on the totals' power-of-two scales */
  sum = exp_auroc_pass(k, s->n[0], 1.0, 1.0, &P, &N, &safe);
  *pP = P;
  *pN = N;
  if( P==0.0 || N==0.0 ) return NAN;
  if( safe && P>=0x1p-900 && N>=0x1p-900 ) return sum / (2.0 * P * N);
  sp = ml_pow2_scale(P); sn = ml_pow2_scale(N);
  sum = exp_auroc_pass(k, s->n[0], sp, sn, &P, &N, &safe);
  return sum / (2.0 * (P*sp) * (N*sn));
}

static void exp_result(sqlite3_context *ctx, ExpAgg *a, int isFinal){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  if( a && a->failed ) return;
  if( a && d->kind==EXP_CONFUSION && ml_param_check(ctx, d->name, "threshold", &a->thr)!=ML_ROW_OK ) return;
  if( a==0 || !a->init || a->nRow==0 ){ ml_result_null(ctx, d->name, "no rows"); return; }
  if( d->kind==EXP_CONFUSION ){
    exp_confusion(ctx, a, ml_param_value(&a->thr, 0.5));
    return;
  }
  if( d->kind==EXP_AUROC && !a->halves ){
    double v, P, N;
    if( ml_compute_begin(ctx, isFinal, a->keys.n[0]) ) return;
    if( ml_samples_sort(&a->keys) ){
      sqlite3_result_error_nomem(ctx);
    }else{
      v = exp_auroc_keys(&a->keys, &P, &N);
      if( P==0.0 || N==0.0 ){
        ml_result_null(ctx, d->name, "every p is %s: the expected AUROC needs both classes", P==0.0 ? "0" : "1");
      }else if( !ml_stop_happened() ){
        sqlite3_result_double(ctx, v);
      }
    }
    ml_compute_end(ctx);
    return;
  }
  if( a->smp.n[0]==0 || a->smp.n[1]==0 ){
    ml_result_null(ctx, d->name, "every p is %s: the expected %s needs both classes",
                   a->smp.n[1]==0 ? "0" : "1", d->kind==EXP_AUROC ? "AUROC" : "PR-AUC");
    return;
  }
  if( ml_compute_begin(ctx, isFinal, ml_samples_count(&a->smp)) ) return;
  if( ml_samples_sort(&a->smp) ){
    sqlite3_result_error_nomem(ctx);
  }else{
    double v = d->kind==EXP_AUROC ? ml_fold_auroc(&a->smp) : ml_fold_average_precision(&a->smp, 0);
    if( !ml_stop_happened() ) sqlite3_result_double(ctx, v);
  }
  ml_compute_end(ctx);
}
static void expValue(sqlite3_context *ctx){ exp_result(ctx, sqlite3_aggregate_context(ctx, 0), 0); }
static void expFinal(sqlite3_context *ctx){
  ExpAgg *a = sqlite3_aggregate_context(ctx, 0);
  exp_result(ctx, a, 1);
  if( a && a->init ) ml_samples_clear(&a->smp);
  if( a && a->kinit ) ml_samples_clear(&a->keys);
}

/* ------------------------------------------------------------- records */

static const MlFamily famExpected = { "monitoring", expStep, expFinal, expValue, expInverse, &expStates, 0, 0, 0 };

const MlFuncDesc ml_expected_functions[] = {
  { "expected_auroc",     "p",               1, 1, &famExpected, 0, EXP_AUROC, 0, 0 },
  { "expected_pr_auc",    "p",               1, 1, &famExpected, 0, EXP_PR_AUC, 0, 0 },
  { "expected_confusion", "p, threshold",    2, 2, &famExpected, 0, EXP_CONFUSION, ML_FN_JSON,
                          ML_PARAMS(&psExpThreshold) },
  { 0 }
};
