/*
** SPDX-License-Identifier: MIT
**
** ranking.c -- the ranking family: binary labels, real-valued scores.  The
** family's records (all of them, in mleval_functions() order) and its
** sorted metrics are here; the counters at one threshold (confusion,
** precision_at_prior, mcc, f_beta, confusion_ci, net_benefit) are
** confusion.c's, the JSON results (curves, operating_point, gains,
** decision_curve) ranking_json.c's (ranking.h).
**
** SQL functions (all aggregate and window functions):
**   pr_auc(y, s)                    average precision, as sklearn
**   auroc(y, s)                     area under the ROC curve
**   nap(y, s)                       (AP - prevalence) / (1 - prevalence)
**   youden_j(y, s)                  max TPR - FPR over thresholds
**   tpr_at_fpr(y, s, target_fpr)    max TPR with FPR <= target_fpr
**   sens_at_spec(y, s, target_spec) max TPR with 1 - FPR >= target_spec
**   partial_auroc(y, s, max_fpr)    McClish-standardised partial AUC up to max_fpr
**   operating_point(y, s, criterion [, target])
**                                   JSON: the threshold a criterion picks, and the
**                                   counts and rates at it
**   pr_curve(y, s)                  JSON [{"threshold","precision","recall"}]
**   roc_curve(y, s)                 JSON [{"threshold","fpr","tpr"}], from (0,0)
**   confusion(y, s, threshold)      JSON counts and ratios at s >= threshold
**   precision_at_prior(y, s, threshold, prior)
**                                   JSON: precision at s >= threshold projected
**                                   to the prevalence prior
**   threshold and clinical-validation metrics (docs/clinical.md):
**   mcc(y, s, threshold)            Matthews correlation at s >= threshold
**   f_beta(y, s, threshold, beta)   F-beta at s >= threshold
**   confusion_ci(y, s, threshold [, level [, method]])
**                                   JSON: sensitivity, specificity, ppv, npv,
**                                   accuracy with Wilson or Clopper-Pearson intervals
**   net_benefit(y, p, pt)           TP/n - FP/n pt/(1 - pt) at p >= pt
**   ks(y, s)                        max over thresholds of |TPR - FPR|
**   precision_at_k(y, s, k), recall_at_k(y, s, k)
**                                   among the k highest scores
**   gains(y, s [, bins])            JSON: cumulative gains and lift per equal-mass part
**   decision_curve(y, p [, from [, to [, by]]])
**                                   JSON: net benefit at each threshold of a grid
**
** Rules:
**   1. A row with a NULL y or s is skipped.  y must be 0 or 1 (INTEGER, or
**      REAL 0.0/1.0), s a number (+-Inf allowed): anything else is an error.
**   2. target_fpr, target_spec, operating_point's target and prior lie in
**      (0, 1), max_fpr in (0, 1]; threshold is any number; criterion is one
**      of 'fpr', 'specificity', 'sensitivity', 'precision' (these need a
**      target), 'max_f1', 'youden' (these take none), in any case.  Each
**      must be the same in every row of a group.
**   3. Every function but confusion needs both classes: with no rows, or one
**      class only, the result is NULL and a SQLITE_WARNING is logged.
**   4. All thresholds are the distinct scores; ties (by ==, so -0.0 == 0.0)
**      form one threshold; no collinear point is dropped.
**   5. Window frames: xInverse removes the row that left; once a frame has
**      been sorted it stays sorted, so a frame sliding by one row costs O(w).
**      auroc does better: at the first xValue its rows move to one counted
**      set per class (ml_rankset.c) and twice the Mann-Whitney count is
**      kept up to date, so a row entering or leaving costs O(log w); the
**      value is the same integer count the aggregate's sweep finds, so
**      frame and aggregate agree exactly.  A frame holding states keeps
**      counted runs instead (rule 11): a state entering or leaving costs
**      its entries, a row O(log runs) plus a memmove when its score is new.
**   6. A curve whose threshold is +-Inf writes null there (JSON has no Inf).
**   7. operating_point: the candidates are every distinct score and the
**      all-negative point (threshold null); among equal optima the highest
**      threshold wins; when no candidate meets the target the all-negative
**      point is reported with "achieved": false.
**   8. Metrics at one threshold (confusion and the rest of the O(1) family)
**      are NULL, or a JSON field null, where a denominator is zero; they
**      are defined on one class otherwise.  mcc, f_beta and confusion's new
**      ratios are computed from exact integer numerators and denominators.
**   9. Cuts at a rank (precision_at_k, recall_at_k, gains): a tie group
**      split by the cut counts with its positive fraction (ml_sweep.c rule
**      7), so the result never depends on the order of the rows.  k above
**      the group's rows takes them all.  gains' parts are SPEC's equal-mass
**      rule on the ranks from the top; NULL when n < bins or no positive.
**      The weighted twins cut the cumulative-weight axis from the top
**      instead (ml_wsweep.c rule 5; docs/weights.md): k and the parts'
**      edges floor(i W/bins) are weights, k above the total weight W takes
**      it all, gains_w is NULL when W < bins; integer weights give the
**      rows repeated, bit for bit.
**  10. net_benefit and decision_curve take probabilities p in [0, 1] (in a
**      state too) and pt, from, to in (0, 1); decision_curve's thresholds
**      are from + i by, i = 0, 1, ... while i <= (to - from)/by + 1e-9, at
**      most 10000 of them, computed by multiplication so that no error
**      accumulates; one sort and one pass serve every threshold.
**  11. States are absorbed as counted runs (score, negatives, positives),
**      never expanded into rows (ml_samples_absorb_counts): every fold of
**      this family reads runs and gives the double the rows would give, so
**      a state claiming 2^40 rows costs its few entries.
**  12. A weighted state (ml_state_w) makes the group weighted: the rows and
**      runs held weigh 1, each (score, weight) entry's class-y rows become
**      records of weight c w (ml_samples_absorb_weighted), and every fold
**      is the weighted twin's: pr_auc(ml_state_w(y, s, w)) is
**      pr_auc_w(y, s, w) over the rows, bit for bit (tie groups' weights
**      are summed exactly).  confusion & co. sum c w exactly the same way.
**  13. One row model: xStep, xInverse and the twins' xStepW, xInverseW are
**      one function (rank_row) compiled four times, the weight and the
**      direction constants; the unweighted instances read no weight
**      (docs/decisions.md, "one source compiled twice").
**
** Cost: 8 bytes per row of state (the score key; the label picks the array),
** a radix sort at the first xValue/xFinal, one O(n) sweep per result; an
** auroc window, O(log w) per row and about 8 to 13 bytes per row.  Over
** states: 24 bytes per distinct score (the buffer's counted runs, which a
** group's rows join when its first state arrives), O(entries) to absorb and
** O(distinct scores) per result, whatever rows the states claim.
** confusion, precision_at_prior, mcc, f_beta, confusion_ci and net_benefit
** keep four counters (confusion.c): O(1) state, no buffer.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "ranking.h"

typedef struct RankAgg {
  MlSamples smp;
  MlParam target;          /* target_fpr / target_spec / max_fpr / operating_point's target */
  MlParam criterion;       /* operating_point: ML_OP_* */
  int init;
  int failed;              /* xStep set an error: xFinal only frees */
  /* auroc over a window frame: once xValue has been called, the rows live in
  ** one counted set per class and u2 (twice the Mann-Whitney count) is kept
  ** up to date row by row; smp is then empty. */
  int live;
  MlRankSet rs[2];
  ml_i64 u2;
  int isProb;              /* decision_curve: the second argument is a probability */
  MlParam k;               /* precision_at_k, recall_at_k: k; gains: bins */
  MlParam grid[3];         /* decision_curve: from, to, by */
  double gridOk[3];        /* the last (from, to, by) found consistent */
} RankAgg;

/* What the row (y, key) adds to u2: 2 per row of the other class it beats,
** 1 per tie.  The other class's set is unchanged by the row's own move. */
static ml_i64 u2_share(const RankAgg *p, int y, ml_key k){
  const MlRankSet *o = &p->rs[!y];
  ml_i64 lt, le;
  ml_rankset_count(o, k, &lt, &le);
  return y ? lt + le : 2*o->n - lt - le;
}

/* Moves an auroc window state from the sample buffer to the counted sets. */
static int go_live(RankAgg *p){
  int y;
  if( ml_samples_sort(&p->smp) ) return ML_NOMEM;
  p->u2 = ml_fold_auroc_u2(&p->smp);
  for(y=0; y<2; y++){
    if( ml_rankset_build(&p->rs[y], (const ml_key*)p->smp.a[y], p->smp.n[y], 1) ){
      ml_rankset_clear(&p->rs[0]);
      return ML_NOMEM;
    }
  }
  ml_samples_clear(&p->smp);
  p->live = 1;
  return ML_OK;
}

/* operating_point's criteria, in ML_OP_* order; the last two take no target
** (ranking.h: ml_criterion_has_target). */
const char *const ml_rank_criteria[] = {"fpr", "specificity", "sensitivity", "precision",
                                        "max_f1", "youden", 0};

/* decision_curve's grid: its parameters, their defaults, its limit. */
static const double aGridDefault[] = {0.01, 0.99, 0.01};
#define ML_GAINS_MAX_BINS 100000

/* Thresholds from + i by for i = 0 .. floor((to - from)/by + 1e-9): the
** tolerance lets a decimal step reach to (0.01 + 98 * 0.01 is
** 0.9900000000000001).  A double: huge for a tiny by.  Also
** decision_curve_ci's (uncertainty.c). */
double ml_grid_points(const double g[3]){
  return floor((g[1] - g[0])/g[2] + 1e-9) + 1.0;
}

/* from <= to and at most ML_CURVE_MAX_POINTS thresholds, else the error
** (fn's).  ML_ROW_OK or ML_ROW_ERR. */
int ml_grid_check(sqlite3_context *ctx, const char *fn, const double g[3]){
  char z1[32], z2[32], z3[32];
  if( !(g[0]<=g[1]) ){
    ml_error(ctx, fn, "from must be at most to, got from = %s and to = %s", ml_num(z1, g[0]), ml_num(z2, g[1]));
    return ML_ROW_ERR;
  }
  if( ml_grid_points(g) > ML_CURVE_MAX_POINTS ){
    ml_error(ctx, fn, "from, to and by give more than %d thresholds, got from = %s, to = %s, by = %s",
             ML_CURVE_MAX_POINTS, ml_num(z1, g[0]), ml_num(z2, g[1]), ml_num(z3, g[2]));
    return ML_ROW_ERR;
  }
  return ML_ROW_OK;
}

/* decision_curve(y, p [, from [, to [, by]]]): each given parameter, then
** (once per new triple) from <= to and the number of thresholds. */
static int grid_params(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                       RankAgg *p){
  double g[3];
  int i;
  memcpy(g, aGridDefault, sizeof(g));
  for(i=0; i<3 && 2+i<argc; i++){
    if( ml_param_real(ctx, d->name, d->aParam[i], argv[2+i], &p->grid[i], &g[i]) ) return ML_ROW_ERR;
  }
  if( g[0]==p->gridOk[0] && g[1]==p->gridOk[1] && g[2]==p->gridOk[2] ) return ML_ROW_OK;
  if( ml_grid_check(ctx, d->name, g) ) return ML_ROW_ERR;
  memcpy(p->gridOk, g, sizeof(g));
  return ML_ROW_OK;
}

/* Reads the parameters after (y, s): tpr_at_fpr's and sens_at_spec's target
** in (0, 1), partial_auroc's max_fpr in (0, 1], operating_point's
** criterion and its target, which only some criteria take.  ML_ROW_*. */
static int rank_params(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                       RankAgg *p){
  double t;
  int c;
  switch( d->kind ){
    case RK_TPR_AT_FPR:
    case RK_SENS_AT_SPEC:
    case RK_PARTIAL_AUROC:
      return ml_param_real(ctx, d->name, d->aParam[0], argv[2], &p->target, &t);
    case RK_OPERATING_POINT:
      if( ml_param_choice(ctx, d->name, d->aParam[0], argv[2], &p->criterion, &c) ){
        return ML_ROW_ERR;
      }
      /* a row that is wrong on its own in a group that already disagrees:
      ** the disagreement is the first error (as in a group's first rows) */
      if( p->criterion.n[1]>0 && (ml_criterion_has_target(c) ? argc<4 : argc>=4) ){
        return ml_param_choice_check(ctx, d->name, d->aParam[0], &p->criterion);
      }
      if( ml_criterion_has_target(c) ){
        if( argc<4 ){
          ml_error(ctx, d->name, "criterion '%s' needs a target in (0, 1)", ml_rank_criteria[c]);
          return ML_ROW_ERR;
        }
        return ml_param_real(ctx, d->name, d->aParam[1], argv[3], &p->target, &t);
      }
      if( argc>=4 ){
        char *z = ml_describe(argv[3]);
        if( z==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
        ml_error(ctx, d->name, "criterion '%s' takes no target, got %s", ml_rank_criteria[c], z);
        sqlite3_free(z);
        return ML_ROW_ERR;
      }
      return ML_ROW_OK;
    case RK_PRECISION_AT_K:
    case RK_RECALL_AT_K: {
      ml_i64 k;
      return ml_param_int(ctx, d->name, d->aParam[0], argv[2], &p->k, &k);
    }
    case RK_GAINS: {
      ml_i64 b;
      return ml_param_int(ctx, d->name, d->aParam[0], argv[2], &p->k, &b);
    }
    case RK_DECISION_CURVE:
      return grid_params(ctx, d, argc, argv, p);
    default:
      return ML_ROW_OK;
  }
}

/* xInverse: the row's parameters (accepted by rank_params) leave. */
static void rank_params_drop(const MlFuncDesc *d, int argc, sqlite3_value **argv, RankAgg *p){
  if( d->kind==RK_OPERATING_POINT ){
    ml_param_choice_drop(&p->criterion, argv[2], d->aParam[0]);
    if( argc>=4 ) ml_param_drop(&p->target, argv[3]);
  }else if( d->kind==RK_DECISION_CURVE ){
    int i;
    for(i=0; i<3 && 2+i<argc; i++) ml_param_drop(&p->grid[i], argv[2+i]);
  }else if( d->kind==RK_PRECISION_AT_K || d->kind==RK_RECALL_AT_K || d->kind==RK_GAINS ){
    if( argc>2 ) ml_param_drop(&p->k, argv[2]);
  }else if( argc>2 ){
    ml_param_drop(&p->target, argv[2]);
  }
}

/* At a result: the frame's rows must agree on every parameter. */
static int rank_params_check(sqlite3_context *ctx, const MlFuncDesc *d, const RankAgg *p){
  if( d->aParam==0 ) return ML_ROW_OK;
  switch( d->kind ){
    case RK_OPERATING_POINT:
      return ml_param_choice_check(ctx, d->name, d->aParam[0], &p->criterion)
          || ml_param_check(ctx, d->name, d->aParam[1]->name, &p->target);
    case RK_DECISION_CURVE: {
      int i;
      for(i=0; i<3; i++){
        if( ml_param_check(ctx, d->name, d->aParam[i]->name, &p->grid[i]) ) return ML_ROW_ERR;
      }
      return ML_ROW_OK;
    }
    case RK_PRECISION_AT_K: case RK_RECALL_AT_K: case RK_GAINS:
      return ml_param_check(ctx, d->name, d->aParam[0]->name, &p->k);
    default:
      return ml_param_check(ctx, d->name, d->aParam[0]->name, &p->target);
  }
}

/* A row leaving a frame (xInverse: xStep accepted it, so it parses); it and
** its parameter are removed.  A weighted buffer ignores the counted sets. */
static ML_ALWAYS_INLINE void rank_remove(sqlite3_context *ctx, int argc, sqlite3_value **argv, RankAgg *p,
                                         int t0, double w, int weighted){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int y;
  double s;
  if( p==0 || !p->init ) return;
  rank_params_drop(d, argc, argv, p);
  if( ml_arg_binary_row_t(ctx, d->name, argv, t0, weighted && p->isProb, &y, &s)!=ML_ROW_OK ) return;
  if( weighted ){
    if( w!=0.0 ) ml_samples_remove(&p->smp, y, s, w);
    return;
  }
  if( p->live ){
    ml_key k = ml_key_of(s);
    if( ml_rankset_remove(&p->rs[y], k) ) p->u2 -= u2_share(p, y, k);
    return;
  }
  ml_samples_remove(&p->smp, y, s, 1.0);     /* width 8 reads no weight */
}

/* One row, written once for famRank's four row callbacks (rule 13): sign
** +1 adds it (xStep), -1 removes it (xInverse); weighted is a constant at
** each call, so the unweighted instances (weighted 0, w the literal 1.0)
** read and test no weight.  A twin's row of weight w > 0 goes into the
** buffer as (s, w), one of weight 0 (or NULL) is dropped, as scikit-learn
** drops it before forming thresholds; w < 0 follows the driver's error.
** No counted sets for a twin: a weighted frame recomputes. */
static ML_ALWAYS_INLINE void rank_row(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                                      double w, int sign, int weighted){
  RankAgg *p;
  int y, rc, t0 = sqlite3_value_type(argv[0]);
  double s;
  if( !weighted && ML_STATE_DIVERT(ctx, argc, argv, t0, sign<0) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( sign<0 ){ rank_remove(ctx, argc, argv, p, t0, w, weighted); return; }
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){
    const MlFuncDesc *d = sqlite3_user_data(ctx);
    if( weighted ) ml_samples_init_weighted(&p->smp); else ml_samples_init(&p->smp, 8);
    p->init = 1;
    p->isProb = d->kind==RK_DECISION_CURVE;
  }
  if( weighted && w<0.0 ){ p->failed = 1; return; }
  if( argc>2 ){
    const MlFuncDesc *d = sqlite3_user_data(ctx);
    if( rank_params(ctx, d, argc, argv, p) ){ p->failed = 1; return; }
  }
  /* unweighted, the function's name is only needed for an error: looked up then */
  rc = ml_arg_binary_row_t(ctx, weighted ? ((const MlFuncDesc*)sqlite3_user_data(ctx))->name : 0,
                           argv, t0, p->isProb, &y, &s);
  if( rc!=ML_ROW_OK ){
    if( rc==ML_ROW_ERR ) p->failed = 1;
    return;
  }
  if( weighted ){
    if( w!=0.0 && ml_add_row(ctx, &p->smp, y, s, w) ) p->failed = 1;
    return;
  }
  if( p->live ){
    ml_key k = ml_key_of(s);
    if( ml_rankset_insert(&p->rs[y], k) ){ p->failed = 1; sqlite3_result_error_nomem(ctx); return; }
    p->u2 += u2_share(p, y, k);
    return;
  }
  /* a buffer that took a weighted state is weighted and kept sorted, so
  ** the append fails and the row goes in as one of weight 1 */
  if( !ml_samples_append8(&p->smp, y, s) && ml_add_row_grow(ctx, &p->smp, y, s, 1.0) ) p->failed = 1;
}

/*
** SQL function: pr_auc(y, s), auroc(y, s), nap(y, s), youden_j(y, s),
**   tpr_at_fpr(y, s, target_fpr), sens_at_spec(y, s, target_spec),
**   pr_curve(y, s), roc_curve(y, s), partial_auroc(y, s, max_fpr),
**   operating_point(y, s, criterion [, target]), ks(y, s),
**   precision_at_k(y, s, k), recall_at_k(y, s, k), gains(y, s [, bins]),
**   decision_curve(y, p [, from [, to [, by]]]): xStep and xInverse, and
**   their weighted twins' (MlFamily.xStepW, xInverseW): rank_row.
*/
static void ml_rank_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  rank_row(ctx, argc, argv, 1.0, +1, 0);
}
static void ml_rank_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  rank_row(ctx, argc, argv, 1.0, -1, 0);
}
static void rank_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  rank_row(ctx, argc, argv, w, +1, 1);
}
static void rank_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  rank_row(ctx, argc, argv, w, -1, 1);
}


/* precision_at_k_w, recall_at_k_w and gains_w on the sorted weighted
** sample: k and the parts' edges lie on the cumulative-weight axis (rule
** 9), W = P + N its length.  k above W takes it all; gains_w is NULL when
** W < bins. */
static void rank_cut_w(sqlite3_context *ctx, const MlFuncDesc *d, RankAgg *p){
  MlWSweep w;
  double W;
  ml_wsweep_init(&w, &p->smp);
  W = w.P + w.N;
  if( d->kind==RK_GAINS ){
    ml_i64 B = (ml_i64)ml_param_value(&p->k, 10);
    MlJson j;
    char buf[32];
    if( W < (double)B ){
      ml_result_null(ctx, d->name, "total weight %s, less than bins = %lld", ml_num(buf, W), (long long)B);
      return;
    }
    ml_json_init(&j);
    ml_rank_write_gains(&j, &p->smp, B, W, w.P);
    ml_result_json(ctx, &j);
  }else{
    double kd = ml_param_value(&p->k, 1.0), k = kd >= W ? W : kd;
    double tp = ml_wfold_top_k(&p->smp, k);
    sqlite3_result_double(ctx, tp / (d->kind==RK_PRECISION_AT_K ? k : w.P));
  }
}


/* Which functions need both classes (rule 3); the others say themselves
** what they need. */
static int needs_both_classes(int kind){
  return kind!=RK_PRECISION_AT_K && kind!=RK_RECALL_AT_K && kind!=RK_GAINS && kind!=RK_DECISION_CURVE;
}

/* The result when the group cannot have one (no rows, one class, too few
** rows for gains, a parameter that disagrees): 1 with it set; else 0 with
** the positives and negatives in *pP, *pN. */
static int rank_undefined(sqlite3_context *ctx, const MlFuncDesc *d, RankAgg *p, ml_i64 *pP, ml_i64 *pN){
  ml_i64 P, N;
  if( p==0 || !p->init ){
    ml_result_null(ctx, d->name, "no rows");
    return 1;
  }
  if( rank_params_check(ctx, d, p) ) return 1;
  if( p->smp.weighted && ml_samples_count(&p->smp)==0 ){
    ml_result_null(ctx, d->name, "no rows of positive weight");
    return 1;
  }
  P = *pP = p->live ? p->rs[1].n : p->smp.n[1];
  N = *pN = p->live ? p->rs[0].n : p->smp.n[0];
  if( P+N==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return 1;
  }
  if( (P==0 || N==0) && needs_both_classes(d->kind) ){
    ml_result_null(ctx, d->name, "only one class in the group (%lld positives, %lld negatives)",
                   (long long)P, (long long)N);
    return 1;
  }
  if( P==0 && (d->kind==RK_RECALL_AT_K || d->kind==RK_GAINS) ){
    ml_result_null(ctx, d->name, "no positives in the group (%lld negatives)", (long long)N);
    return 1;
  }
  if( d->kind==RK_GAINS && !p->smp.weighted && P+N < (ml_i64)ml_param_value(&p->k, 10) ){
    ml_result_null(ctx, d->name, "%lld rows, fewer than bins = %lld", (long long)(P+N),
                   (long long)ml_param_value(&p->k, 10));
    return 1;
  }
  return 0;
}

/* precision_at_k, recall_at_k over unsorted rows: the top k selected, not
** sorted (k small against the rows; a k near the rows sorts, as the heap
** would cost more).  1 when it set the result, 0 to sort instead. */
static int rank_top_k_select(sqlite3_context *ctx, const MlFuncDesc *d, RankAgg *p, ml_i64 P, ml_i64 N){
  double kd = ml_param_value(&p->k, 1.0);
  ml_i64 k = kd >= (double)(P+N) ? P+N : (ml_i64)kd;
  if( k>=1 && k <= (P+N)/8 ){
    ml_key *heap = ml_malloc(sizeof(ml_key) * (uint64_t)k);
    double tp;
    if( heap==0 ){ sqlite3_result_error_nomem(ctx); return 1; }
    tp = ml_top_k_select(&p->smp, k, heap);
    ml_free(heap);
    sqlite3_result_double(ctx, tp / (double)(d->kind==RK_PRECISION_AT_K ? k : P));
    return 1;
  }
  return 0;
}

/* The metric of the sorted sample (rule 4: every distinct score a threshold). */
static void rank_fold(sqlite3_context *ctx, const MlFuncDesc *d, RankAgg *p, ml_i64 P, ml_i64 N){
  switch( d->kind ){
    case RK_PR_AUC:
      sqlite3_result_double(ctx, ml_fold_average_precision(&p->smp, 0));
      break;
    case RK_NAP: {
      double pi = ml_samples_prevalence(&p->smp);     /* counts, or sums of weights */
      sqlite3_result_double(ctx, (ml_fold_average_precision(&p->smp, 0) - pi) / (1.0 - pi));
      break;
    }
    case RK_AUROC:
      sqlite3_result_double(ctx, ml_fold_auroc(&p->smp));
      break;
    case RK_YOUDEN:
      sqlite3_result_double(ctx, ml_fold_youden_j(&p->smp));
      break;
    case RK_TPR_AT_FPR:
    case RK_SENS_AT_SPEC:
      sqlite3_result_double(ctx, ml_fold_tpr_at_fpr(&p->smp, ml_param_value(&p->target, NAN),
                                                       d->kind==RK_SENS_AT_SPEC));
      break;
    case RK_PARTIAL_AUROC:
      /* max_fpr = 1 is auroc itself, as in scikit-learn */
    {
      double maxFpr = ml_param_value(&p->target, 1.0);
      sqlite3_result_double(ctx, maxFpr==1.0 ? ml_fold_auroc(&p->smp)
                                             : ml_fold_partial_auroc(&p->smp, maxFpr));
    }
      break;
    case RK_KS:
      sqlite3_result_double(ctx, ml_fold_ks(&p->smp));
      break;
    case RK_PRECISION_AT_K:
    case RK_RECALL_AT_K: {
      /* k above the rows takes them all (k is exact in the double below 2^53) */
      double kd = ml_param_value(&p->k, 1.0);
      ml_i64 k = kd >= (double)(P+N) ? P+N : (ml_i64)kd;
      double tp = ml_fold_top_k(&p->smp, k);
      sqlite3_result_double(ctx, tp / (double)(d->kind==RK_PRECISION_AT_K ? k : P));
      break;
    }
    default: {
      MlJson j;
      ml_json_init(&j);
      if( d->kind==RK_PR_CURVE || d->kind==RK_ROC_CURVE ) ml_rank_write_curve(&j, &p->smp, d->kind==RK_ROC_CURVE);
      else if( d->kind==RK_GAINS ){
        ml_rank_write_gains(&j, &p->smp, (ml_i64)ml_param_value(&p->k, 10), (double)(P+N), (double)P);
      }else if( d->kind==RK_DECISION_CURVE ){
        double g[3];
        int i;
        for(i=0; i<3; i++) g[i] = ml_param_value(&p->grid[i], aGridDefault[i]);
        if( ml_rank_write_decision_curve(&j, &p->smp, g) ){
          ml_json_free(&j);
          sqlite3_result_error_nomem(ctx);
          break;
        }
      }else{
        ml_rank_write_operating_point(&j, &p->smp, (int)ml_param_value(&p->criterion, 0),
                              ml_param_value(&p->target, NAN));
      }
      ml_result_json(ctx, &j);
      break;
    }
  }
}

/* The one compute routine behind xValue and xFinal. */
static void rank_compute(sqlite3_context *ctx, RankAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 P, N;
  if( rank_undefined(ctx, d, p, &P, &N) ) return;
  if( p->live ){        /* auroc over a window frame: the count is up to date */
    sqlite3_result_double(ctx, (double)p->u2 / (2.0 * (double)P * (double)N));
    return;
  }
  if( (d->kind==RK_PRECISION_AT_K || d->kind==RK_RECALL_AT_K) && !p->smp.sorted && !p->smp.run && !p->smp.weighted
   && rank_top_k_select(ctx, d, p, P, N) ) return;
  if( ml_samples_sort(&p->smp) ){ sqlite3_result_error_nomem(ctx); return; }
  if( p->smp.weighted && (d->kind==RK_PRECISION_AT_K || d->kind==RK_RECALL_AT_K || d->kind==RK_GAINS) ){
    rank_cut_w(ctx, d, p);
    return;
  }
  rank_fold(ctx, d, p, P, N);
}

static void rank_result(sqlite3_context *ctx, RankAgg *p, int isFinal){
  ml_i64 n = 0;
  if( p && p->failed ) return;
  if( p && p->init ) n = p->live ? p->rs[0].n + p->rs[1].n : ml_samples_count(&p->smp);
  /* a live auroc frame's value is O(1): no stop check, no cost warning */
  if( ml_compute_begin(ctx, isFinal, p && p->live && !isFinal ? 0 : n) ) return;
  rank_compute(ctx, p);
  ml_compute_end(ctx);
}

/* xValue is only called for window frames: an auroc frame moves to the
** counted sets here, so that each later row costs O(log w). */
static void ml_rank_value(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  RankAgg *p = sqlite3_aggregate_context(ctx, 0);
  if( p && p->init && !p->failed && !p->live && !p->smp.weighted && !p->smp.run && d->kind==RK_AUROC && go_live(p) ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  rank_result(ctx, p, 0);
}

static void ml_rank_final(sqlite3_context *ctx){
  RankAgg *p = sqlite3_aggregate_context(ctx, 0);
  rank_result(ctx, p, 1);
  if( p && p->init ){
    ml_samples_clear(&p->smp);
    ml_rankset_clear(&p->rs[0]);
    ml_rankset_clear(&p->rs[1]);
  }
}

/* An auroc window frame that meets a state leaves the counted sets: their
** keys go back to the (sorted) sample buffer, which the state then turns
** into counted runs.  O(w). */
static int leave_live(RankAgg *p){
  int y;
  for(y=0; y<2; y++){
    const MlRankSet *r = &p->rs[y];
    ml_key *a = r->n ? ml_malloc(sizeof(ml_key) * (uint64_t)r->n) : 0;
    ml_i64 b, at = 0;
    if( r->n && a==0 ) return ML_NOMEM;
    for(b=0; b<r->nBlk; b++){
      memcpy(a + at, r->b[b].k, sizeof(ml_key) * (size_t)r->b[b].n);
      at += r->b[b].n;
    }
    p->smp.a[y] = (unsigned char*)a;
    p->smp.n[y] = p->smp.cap[y] = r->n;
  }
  p->smp.sorted = 1;
  ml_rankset_clear(&p->rs[0]);
  ml_rankset_clear(&p->rs[1]);
  p->u2 = 0;
  p->live = 0;
  return ML_OK;
}

/* States (ml_state_sql.c): the states' entries merge into the buffer as
** counted runs (ml_absorb_section_counts), never expanded into rows, so a
** state costs its entries whatever rows it claims; every fold reads runs.
** xStep has run first (parameters), so the buffer is set up. */
static int rank_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  RankAgg *p = ml_agg_context(ctx, sizeof(*p));
  int rc;
  if( p==0 ) return ML_NOMEM;
  if( !p->init ){ ml_samples_init(&p->smp, 8); p->init = 1; }
  /* decision_curve's scores are probabilities, in a state as in a row */
  if( d->kind==RK_DECISION_CURVE && (rc = ml_state_probabilities(st, n, zErr, nErr))!=ML_OK ) return rc;
  if( p->live && leave_live(p) ){
    ml_samples_clear(&p->smp);
    return ML_NOMEM;
  }
  if( p->smp.weighted || ml_states_weighted(st, n) ){
    /* A weighted state: the buffer turns weighted (rows and counted runs
    ** held weigh 1) and each state's entries become weighted records, so
    ** the folds are the weighted twins' (rule 12).  Kept sorted: a row
    ** added later then goes in as (s, 1) (ml_rank_step). */
    ml_i64 held[2] = {0, 0};
    if( ml_samples_weigh(&p->smp) ) return ML_NOMEM;
    if( (rc = ml_absorb_weighted(&p->smp, held, st, n, sign, zErr, nErr))!=ML_OK ) return rc;
    return ml_samples_sort(&p->smp) ? ML_NOMEM : ML_OK;
  }
  return ml_absorb_section_counts(&p->smp, st, n, 0, sign, zErr, nErr);
}
static const MlStateHooks ml_rank_states = {
  sizeof(RankAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT) | (1u<<ML_STATE_WEIGHTED), rank_absorb
};

/* ------------------------------------------------------------- records */

/* The parameters of the family's functions (ml_sql.h, "parameters are data"). */
static const MlParamSpec psMaxFpr = ML_PARAM_REAL("max_fpr", 0.0, 1, 1.0, 0, 0, "0.5");
static const MlParamSpec psCriterion = ML_PARAM_CHOICE("criterion", ml_rank_criteria, 0, "'fpr'");
static const MlParamSpec psTarget = ML_PARAM_REAL("target", 0.0, 1, 1.0, 1, 0, "0.1");
static const MlParamSpec psK = ML_PARAM_INT("k", 1, INT64_MAX, 0, "3");
static const MlParamSpec psGainsBins = ML_PARAM_INT("bins", 1, ML_GAINS_MAX_BINS, "10", "2");
const MlParamSpec ml_ps_from = ML_PARAM_REAL("from", 0.0, 1, 1.0, 1, "0.01", "0.1");
const MlParamSpec ml_ps_to = ML_PARAM_REAL("to", 0.0, 1, 1.0, 1, "0.99", "0.9");
const MlParamSpec ml_ps_by = ML_PARAM_REAL("by", 0.0, 1, INFINITY, 1, "0.01", "0.1");
static const MlParamSpec psThreshold = ML_PARAM_REAL("threshold", -INFINITY, 0, INFINITY, 0, 0, "0.5");
static const MlParamSpec psPrior = ML_PARAM_REAL("prior", 0.0, 1, 1.0, 1, 0, "0.1");
static const MlParamSpec psBeta = ML_PARAM_REAL("beta", 0.0, 1, INFINITY, 1, 0, "2");
static const MlParamSpec psLevel = ML_PARAM_REAL("level", 0.0, 1, 1.0, 1, "0.95", "0.9");
static const MlParamSpec psMethod = ML_PARAM_CHOICE("method", ml_ci_methods, "'wilson'", "'clopper-pearson'");

static const MlFamily famRank = { "ranking", ml_rank_step, ml_rank_final, ml_rank_value, ml_rank_inverse,
                                  &ml_rank_states, rank_step_w, rank_inverse_w, 0 };

/* The family's functions: name, signature, argument counts, callbacks,
** kind, flags, parameters (mleval.c registers them).  W: the function has a
** weighted twin NAME_w(y, s, w, ...) (docs/weights.md). */
#define W ML_FN_WEIGHTED
const MlFuncDesc ml_ranking_functions[] = {
  { "pr_auc",          "y, s",                     2,  2, &famRank, 0, RK_PR_AUC, W, 0 },
  { "auroc",           "y, s",                     2,  2, &famRank, 0, RK_AUROC, W, 0 },
  { "nap",             "y, s",                     2,  2, &famRank, 0, RK_NAP, W, 0 },
  { "youden_j",        "y, s",                     2,  2, &famRank, 0, RK_YOUDEN, W, 0 },
  { "tpr_at_fpr",      "y, s, target_fpr",         3,  3, &famRank, 0, RK_TPR_AT_FPR, W, ML_PARAMS(&ml_ps_target_fpr) },
  { "sens_at_spec",    "y, s, target_spec",        3,  3, &famRank, 0, RK_SENS_AT_SPEC, W, ML_PARAMS(&ml_ps_target_spec) },
  { "pr_curve",        "y, s",                     2,  2, &famRank, 0, RK_PR_CURVE, ML_FN_JSON | W, 0 },
  { "roc_curve",       "y, s",                     2,  2, &famRank, 0, RK_ROC_CURVE, ML_FN_JSON | W, 0 },
  { "partial_auroc",   "y, s, max_fpr",            3,  3, &famRank, 0, RK_PARTIAL_AUROC, W, ML_PARAMS(&psMaxFpr) },
  { "operating_point", "y, s, criterion [, target]", 3, 4, &famRank, 0, RK_OPERATING_POINT, ML_FN_JSON | W,
                                                             ML_PARAMS(&psCriterion, &psTarget) },
  { "confusion",       "y, s, threshold",          3,  3, &ml_confusion_family, 0, RK_CONFUSION, ML_FN_JSON | W,
                                                             ML_PARAMS(&psThreshold) },
  { "precision_at_prior", "y, s, threshold, prior", 4, 4, &ml_confusion_family, 0, RK_PRECISION_AT_PRIOR, ML_FN_JSON | W,
                                                             ML_PARAMS(&psThreshold, &psPrior) },
  /* threshold and clinical-validation metrics (docs/clinical.md) */
  { "mcc",             "y, s, threshold",          3,  3, &ml_confusion_family, 0, RK_MCC, W, ML_PARAMS(&psThreshold) },
  { "f_beta",          "y, s, threshold, beta",    4,  4, &ml_confusion_family, 0, RK_F_BETA, W,
                                                             ML_PARAMS(&psThreshold, &psBeta) },
  { "confusion_ci",    "y, s, threshold [, level [, method]]", 3, 5, &ml_confusion_family, 0, RK_CONFUSION_CI, ML_FN_JSON,
                                                             ML_PARAMS(&psThreshold, &psLevel, &psMethod) },
  { "net_benefit",     "y, p, pt",                 3,  3, &ml_confusion_family, 0, RK_NET_BENEFIT, W, ML_PARAMS(&ml_ps_pt) },
  { "ks",              "y, s",                     2,  2, &famRank, 0, RK_KS, W, 0 },
  { "precision_at_k",  "y, s, k",                  3,  3, &famRank, 0, RK_PRECISION_AT_K, W, ML_PARAMS(&psK) },
  { "recall_at_k",     "y, s, k",                  3,  3, &famRank, 0, RK_RECALL_AT_K, W, ML_PARAMS(&psK) },
  { "gains",           "y, s [, bins]",            2,  3, &famRank, 0, RK_GAINS, ML_FN_JSON | W, ML_PARAMS(&psGainsBins) },
  { "decision_curve",  "y, p [, from [, to [, by]]]", 2, 5, &famRank, 0, RK_DECISION_CURVE, ML_FN_JSON | W,
                                                             ML_PARAMS(&ml_ps_from, &ml_ps_to, &ml_ps_by) },
  { 0 }
};
#undef W
