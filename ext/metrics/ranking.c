/*
** SPDX-License-Identifier: MIT
**
** ranking.c -- the ranking family: binary labels, real-valued scores.
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
**
** Cost: 8 bytes per row of state (the score key; the label picks the array),
** a radix sort at the first xValue/xFinal, one O(n) sweep per result; an
** auroc window, O(log w) per row and about 8 to 13 bytes per row.  Over
** states: 24 bytes per distinct score (the buffer's counted runs, which a
** group's rows join when its first state arrives), O(entries) to absorb and
** O(distinct scores) per result, whatever rows the states claim.
** confusion, precision_at_prior, mcc, f_beta, confusion_ci and net_benefit
** keep four counters: O(1) state, no buffer.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

/* Which metric a record asks of the family's shared callbacks (MlFuncDesc.kind). */
enum { RK_PR_AUC, RK_AUROC, RK_NAP, RK_YOUDEN, RK_TPR_AT_FPR, RK_SENS_AT_SPEC,
       RK_PARTIAL_AUROC, RK_PR_CURVE, RK_ROC_CURVE, RK_OPERATING_POINT,
       RK_KS, RK_PRECISION_AT_K, RK_RECALL_AT_K, RK_GAINS, RK_DECISION_CURVE,   /* ml_rank */
       RK_CONFUSION, RK_PRECISION_AT_PRIOR,
       RK_MCC, RK_F_BETA, RK_CONFUSION_CI, RK_NET_BENEFIT };                      /* ml_confusion */

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

/* operating_point's criteria, in ML_OP_* order; the last two take no target. */
static const char *const azCriterion[] = {"fpr", "specificity", "sensitivity", "precision",
                                          "max_f1", "youden", 0};
static int criterion_has_target(int c){ return c!=ML_OP_MAX_F1 && c!=ML_OP_YOUDEN; }

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
      if( p->criterion.n[1]>0 && (criterion_has_target(c) ? argc<4 : argc>=4) ){
        return ml_param_choice_check(ctx, d->name, d->aParam[0], &p->criterion);
      }
      if( criterion_has_target(c) ){
        if( argc<4 ){
          ml_error(ctx, d->name, "criterion '%s' needs a target in (0, 1)", azCriterion[c]);
          return ML_ROW_ERR;
        }
        return ml_param_real(ctx, d->name, d->aParam[1], argv[3], &p->target, &t);
      }
      if( argc>=4 ){
        char *z = ml_describe(argv[3]);
        if( z==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
        ml_error(ctx, d->name, "criterion '%s' takes no target, got %s", azCriterion[c], z);
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

/*
** SQL function: pr_auc(y, s), auroc(y, s), nap(y, s), youden_j(y, s),
**   tpr_at_fpr(y, s, target_fpr), sens_at_spec(y, s, target_spec),
**   pr_curve(y, s), roc_curve(y, s), partial_auroc(y, s, max_fpr),
**   operating_point(y, s, criterion [, target]), ks(y, s),
**   precision_at_k(y, s, k), recall_at_k(y, s, k), gains(y, s [, bins]),
**   decision_curve(y, p [, from [, to [, by]]])        -- xStep
*/
static void ml_rank_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  RankAgg *p;
  int y, rc, t0 = sqlite3_value_type(argv[0]);
  double s;
  if( ML_STATE_DIVERT(ctx, argc, argv, t0, 0) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){
    const MlFuncDesc *d = sqlite3_user_data(ctx);
    ml_samples_init(&p->smp, 8);
    p->init = 1;
    p->isProb = d->kind==RK_DECISION_CURVE;
  }
  if( argc>2 ){
    const MlFuncDesc *d = sqlite3_user_data(ctx);
    if( rank_params(ctx, d, argc, argv, p) ){ p->failed = 1; return; }
  }
  /* the function's name is only needed for an error: looked up then */
  rc = ml_arg_binary_row_t(ctx, 0, argv, t0, p->isProb, &y, &s);
  if( rc!=ML_ROW_OK ){
    if( rc==ML_ROW_ERR ) p->failed = 1;
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

/* xInverse: the row was accepted by xStep, so it parses; remove it (and
** its parameter). */
static void ml_rank_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  RankAgg *p;
  int y, t0 = sqlite3_value_type(argv[0]);
  double s;
  if( ML_STATE_DIVERT(ctx, argc, argv, t0, 1) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 || !p->init ) return;
  rank_params_drop(d, argc, argv, p);
  if( ml_arg_binary_row_t(ctx, d->name, argv, t0, 0, &y, &s)!=ML_ROW_OK ) return;
  if( p->live ){
    ml_key k = ml_key_of(s);
    if( ml_rankset_remove(&p->rs[y], k) ) p->u2 -= u2_share(p, y, k);
    return;
  }
  ml_samples_remove(&p->smp, y, s, 1.0);     /* width 8 reads no weight */
}

/*
** The weighted twins' xStep and xInverse (MlFamily.xStepW): the same row and
** parameter checks; a row of weight w > 0 goes into the buffer as (s, w),
** one of weight 0 (or NULL) is dropped, as scikit-learn drops it before
** forming thresholds.  No counted sets: a weighted frame recomputes.
*/
static void rank_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  RankAgg *p = ml_agg_context(ctx, sizeof(*p));
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int y, rc;
  double s;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){
    ml_samples_init_weighted(&p->smp);
    p->init = 1;
    p->isProb = d->kind==RK_DECISION_CURVE;
  }
  if( w<0.0 ){ p->failed = 1; return; }
  if( argc>2 && rank_params(ctx, d, argc, argv, p) ){ p->failed = 1; return; }
  rc = ml_arg_binary_row(ctx, d->name, argv, p->isProb, &y, &s);
  if( rc!=ML_ROW_OK ){
    if( rc==ML_ROW_ERR ) p->failed = 1;
    return;
  }
  if( w==0.0 ) return;
  if( ml_add_row(ctx, &p->smp, y, s, w) ) p->failed = 1;
}
static void rank_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  RankAgg *p = ml_agg_context(ctx, sizeof(*p));
  int y;
  double s;
  if( p==0 || !p->init ) return;
  rank_params_drop(d, argc, argv, p);
  if( ml_arg_binary_row(ctx, d->name, argv, p->isProb, &y, &s)!=ML_ROW_OK || w==0.0 ) return;
  ml_samples_remove(&p->smp, y, s, w);
}

/* The weighted twins' curves: the unweighted writers' points on weight sums. */
static void write_curve(MlJson *j, const MlSamples *smp, int roc);

static void wratio(MlJson *j, const char *k, double num, double den);

/* operating_point's JSON: the chosen point's threshold, counts (or sums of
** weights) and rates; write_operating_point and the weighted twin's. */
static void op_json(MlJson *j, int criterion, double target, const MlWOpPoint *o){
  double tp = o->tp, fp = o->fp, fn = o->P - tp, tn = o->N - fp;
  ml_json_begin_object(j);
  ml_json_key(j, "criterion"); ml_json_string(j, azCriterion[criterion]);
  ml_json_key(j, "target");
  if( criterion_has_target(criterion) ) ml_json_double(j, target); else ml_json_null(j);
  ml_json_key(j, "threshold");
  if( o->allNegative ) ml_json_null(j); else ml_json_double(j, ml_double_of(o->key));
  ml_json_key(j, "tp"); ml_json_double(j, tp);
  ml_json_key(j, "fp"); ml_json_double(j, fp);
  ml_json_key(j, "tn"); ml_json_double(j, tn);
  ml_json_key(j, "fn"); ml_json_double(j, fn);
  wratio(j, "tpr", tp, o->P);
  wratio(j, "fpr", fp, o->N);
  wratio(j, "specificity", tn, o->N);
  wratio(j, "precision", tp, tp+fp);
  wratio(j, "f1", 2*tp, 2*tp+fp+fn);
  ml_json_key(j, "youden_j"); ml_json_double(j, tp/o->P - fp/o->N);
  ml_json_key(j, "achieved"); ml_json_bool(j, o->achieved);
  ml_json_end_object(j);
}

/* Net benefit of treating the rows at or above a threshold pt: TP/n - FP/n
** pt/(1 - pt) (Vickers & Elkin 2006; the dcurves package).  net_benefit
** and every point of decision_curve, its treat-all line included (all rows
** at or above), are this one expression, on counts or (the weighted
** twins) sums of weights. */
double ml_net_benefit(double tp, double fp, double n, double pt){
  return tp/n - fp/n * (pt/(1.0 - pt));
}

/* net_benefit_w's value from its four sums of weights: integral ones
** (integer weights, up to 2^53) as the counts they are, so that they give
** the rows repeated bit for bit; others scaled by one power of two as
** confusion_value_w scales every cell (the same bits for c w as for w).
** net_benefit_ci_w's replicates call it too. */
double ml_net_benefit_w(double tp, double fp, double tn, double fn, double pt){
  double sc;
  if( tp==floor(tp) && fp==floor(fp) && tn==floor(tn) && fn==floor(fn)
   && fmax(fmax(tp, fp), fmax(tn, fn))<=9007199254740992.0 ){
    return ml_net_benefit(tp, fp, (double)((ml_i64)tp + (ml_i64)fp + (ml_i64)tn + (ml_i64)fn), pt);
  }
  sc = ml_pow2_scale(fmax(fmax(tp, fp), fmax(tn, fn)));
  tp *= sc; fp *= sc; tn *= sc; fn *= sc;
  return ml_net_benefit(tp, fp, (tp + fn) + (tn + fp), pt);
}

/* decision_curve_w: write_decision_curve's points on weight sums.  The
** sweep runs down the scores while the grid is walked from its top, the
** points kept (at most ML_CURVE_MAX_POINTS) and written ascending.  ML_OK
** or ML_NOMEM. */
static int write_decision_curve_w(MlJson *j, const MlSamples *smp, const double g[3]){
  ml_i64 T = (ml_i64)ml_grid_points(g), i, m = 0;
  double *v, tp = 0.0, fp = 0.0, n;
  MlWSweep w;
  int have;
  while( m<T && g[0] + (double)m*g[2] < 1.0 ) m++;   /* the grid below 1, as the rows' loop */
  v = ml_malloc(sizeof(double) * 2 * (uint64_t)(m ? m : 1));
  if( v==0 ) return ML_NOMEM;
  ml_wsweep_init(&w, smp);
  n = w.P + w.N;
  have = ml_wsweep_next(&w);
  for(i=m-1; i>=0; i--){
    ml_key kt = ml_key_of(g[0] + (double)i*g[2]);
    while( have && w.key>=kt ){ tp = w.tp; fp = w.fp; have = ml_wsweep_next(&w); }
    v[2*i] = tp; v[2*i+1] = fp;
  }
  ml_json_begin_array(j);
  for(i=0; i<m; i++){
    double t = g[0] + (double)i*g[2];
    ml_json_begin_object(j);
    ml_json_key(j, "threshold");   ml_json_double(j, t);
    ml_json_key(j, "net_benefit"); ml_json_double(j, ml_net_benefit(v[2*i], v[2*i+1], n, t));
    ml_json_key(j, "treat_all");   ml_json_double(j, ml_net_benefit(w.P, w.N, n, t));
    ml_json_key(j, "treat_none");  ml_json_double(j, 0.0);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
  ml_free(v);
  return ML_OK;
}

/* One point of a curve from the counts (or sums of weights) at a threshold. */
static void curve_point(MlJson *j, int roc, ml_key key, double tp, double fp, double P, double N){
  ml_json_begin_object(j);
  ml_json_key(j, "threshold"); ml_json_double(j, ml_double_of(key));
  if( roc ){
    ml_json_key(j, "fpr"); ml_json_double(j, fp/N);
    ml_json_key(j, "tpr"); ml_json_double(j, tp/P);
  }else{
    ml_json_key(j, "precision"); ml_json_double(j, tp/(tp+fp));
    ml_json_key(j, "recall");    ml_json_double(j, tp/P);
  }
  ml_json_end_object(j);
}

/* Writes the PR curve (one point per distinct score, highest first) or the
** ROC curve ((0,0) with a null threshold first), from the rows' counts or,
** for a weighted twin's sample, from sums of weights; counts
** below 2^53 are exact as doubles, so both give the same text. */
static void write_curve(MlJson *j, const MlSamples *smp, int roc){
  ml_json_begin_array(j);
  if( roc ){
    ml_json_begin_object(j);
    ml_json_key(j, "threshold"); ml_json_null(j);
    ml_json_key(j, "fpr"); ml_json_double(j, 0.0);
    ml_json_key(j, "tpr"); ml_json_double(j, 0.0);
    ml_json_end_object(j);
  }
  if( smp->weighted ){
    MlWSweep w;
    ml_wsweep_init(&w, smp);
    while( ml_wsweep_next(&w) ) curve_point(j, roc, w.key, w.tp, w.fp, w.P, w.N);
  }else{
    MlSweep w;
    ml_sweep_init(&w, smp, 0);
    while( ml_sweep_next(&w) ){
      curve_point(j, roc, w.key, (double)w.tp, (double)w.fp, (double)w.P, (double)w.N);
    }
  }
  ml_json_end_array(j);
}

static void ratio(MlJson *j, const char *k, ml_i64 num, ml_i64 den){
  ml_json_key(j, k);
  if( den==0 ) ml_json_null(j); else ml_json_double(j, (double)num/(double)den);
}

/* operating_point's JSON: the chosen point's threshold, counts and rates. */
static void op_json(MlJson *j, int criterion, double target, const MlWOpPoint *o);

static void write_operating_point(MlJson *j, const MlSamples *smp, int criterion, double target){
  MlOpPoint o;
  MlWOpPoint w;
  if( smp->weighted ){
    ml_wfold_operating_point(smp, criterion, target, &w);
    op_json(j, criterion, target, &w);
    return;
  }
  ml_fold_operating_point(smp, criterion, target, &o);
  /* counts below 2^53: exact as doubles, and every ratio is the same double */
  w.tp = (double)o.tp; w.fp = (double)o.fp; w.P = (double)smp->n[1]; w.N = (double)smp->n[0];
  w.key = o.key; w.allNegative = o.allNegative; w.achieved = o.achieved;
  op_json(j, criterion, target, &w);
}


/* gains' parts (ml_fold_gains), one JSON object each: lift is the part's
** positive rate over the group's, cum_lift the same for parts 1..b
** together, cum_positive_rate their share of all positives (the gain).
** n and P are the rows and positives, or (gains_w) their weights, whose
** "n" is then a double: the same text for integer weights. */
typedef struct GainsOut { MlJson *j; double n, P; int weighted; } GainsOut;
static void gains_part(void *arg, ml_i64 b, double nb, double top, double pos, double cum){
  const GainsOut *g = arg;
  double n = g->n, P = g->P;
  ml_json_begin_object(g->j);
  ml_json_key(g->j, "bin");               ml_json_int(g->j, b + 1);
  ml_json_key(g->j, "n");                 if( g->weighted ) ml_json_double(g->j, nb); else ml_json_int(g->j, (ml_i64)nb);
  ml_json_key(g->j, "positives");         ml_json_double(g->j, pos);
  ml_json_key(g->j, "cum_positive_rate"); ml_json_double(g->j, cum/P);
  ml_json_key(g->j, "lift");              ml_json_double(g->j, pos*n/(nb*P));
  ml_json_key(g->j, "cum_lift");          ml_json_double(g->j, cum*n/(top*P));
  ml_json_end_object(g->j);
}

/* gains' JSON array: the B parts of the n rows (or total weight), P of
** them positive. */
static void write_gains(MlJson *j, const MlSamples *smp, ml_i64 B, double n, double P){
  GainsOut g;
  g.j = j; g.n = n; g.P = P; g.weighted = smp->weighted;
  ml_json_begin_array(j);
  ml_fold_gains(smp, B, gains_part, &g);
  ml_json_end_array(j);
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
    write_gains(&j, &p->smp, B, W, w.P);
    ml_result_json(ctx, &j);
  }else{
    double kd = ml_param_value(&p->k, 1.0), k = kd >= W ? W : kd;
    double tp = ml_wfold_top_k(&p->smp, k);
    sqlite3_result_double(ctx, tp / (d->kind==RK_PRECISION_AT_K ? k : w.P));
  }
}

/* decision_curve: one point per threshold of the grid, from one pass over
** the sorted rows (the thresholds ascend, so does each class's cursor). */
static int write_decision_curve(MlJson *j, const MlSamples *smp, const double g[3]){
  ml_i64 n = ml_samples_count(smp), T = (ml_i64)ml_grid_points(g), i, idx[ML_COUNT_CURSOR] = {0, 0, 0}, tp, fp;
  if( smp->weighted ) return write_decision_curve_w(j, smp, g);
  ml_json_begin_array(j);
  for(i=0; i<T; i++){
    double t = g[0] + (double)i*g[2];
    if( t>=1.0 ) break;             /* to's tolerance never reaches 1 but for a rounding */
    ml_count_at_least(smp, idx, ml_key_of(t), &tp, &fp);
    ml_json_begin_object(j);
    ml_json_key(j, "threshold");   ml_json_double(j, t);
    ml_json_key(j, "net_benefit"); ml_json_double(j, ml_net_benefit((double)tp, (double)fp, (double)n, t));
    ml_json_key(j, "treat_all");   ml_json_double(j, ml_net_benefit((double)smp->n[1], (double)smp->n[0], (double)n, t));
    ml_json_key(j, "treat_none");  ml_json_double(j, 0.0);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
  return ML_OK;
}

/* Which functions need both classes (rule 3); the others say themselves
** what they need. */
static int needs_both_classes(int kind){
  return kind!=RK_PRECISION_AT_K && kind!=RK_RECALL_AT_K && kind!=RK_GAINS && kind!=RK_DECISION_CURVE;
}

/* The one compute routine behind xValue and xFinal. */
static void rank_compute(sqlite3_context *ctx, RankAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 P, N;
  if( p==0 || !p->init ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  if( rank_params_check(ctx, d, p) ) return;
  if( p->smp.weighted && ml_samples_count(&p->smp)==0 ){
    ml_result_null(ctx, d->name, "no rows of positive weight");
    return;
  }
  P = p->live ? p->rs[1].n : p->smp.n[1];
  N = p->live ? p->rs[0].n : p->smp.n[0];
  if( P+N==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  if( (P==0 || N==0) && needs_both_classes(d->kind) ){
    ml_result_null(ctx, d->name, "only one class in the group (%lld positives, %lld negatives)",
                   (long long)P, (long long)N);
    return;
  }
  if( P==0 && (d->kind==RK_RECALL_AT_K || d->kind==RK_GAINS) ){
    ml_result_null(ctx, d->name, "no positives in the group (%lld negatives)", (long long)N);
    return;
  }
  if( d->kind==RK_GAINS && !p->smp.weighted && P+N < (ml_i64)ml_param_value(&p->k, 10) ){
    ml_result_null(ctx, d->name, "%lld rows, fewer than bins = %lld", (long long)(P+N),
                   (long long)ml_param_value(&p->k, 10));
    return;
  }
  if( p->live ){        /* auroc over a window frame: the count is up to date */
    sqlite3_result_double(ctx, (double)p->u2 / (2.0 * (double)P * (double)N));
    return;
  }
  if( (d->kind==RK_PRECISION_AT_K || d->kind==RK_RECALL_AT_K) && !p->smp.sorted && !p->smp.run && !p->smp.weighted ){
    /* top k of unsorted rows: select, do not sort (k small against the
    ** rows; a k near the rows sorts, as the heap would cost more) */
    double kd = ml_param_value(&p->k, 1.0);
    ml_i64 k = kd >= (double)(P+N) ? P+N : (ml_i64)kd;
    if( k>=1 && k <= (P+N)/8 ){
      ml_key *heap = ml_malloc(sizeof(ml_key) * (uint64_t)k);
      double tp;
      if( heap==0 ){ sqlite3_result_error_nomem(ctx); return; }
      tp = ml_top_k_select(&p->smp, k, heap);
      ml_free(heap);
      sqlite3_result_double(ctx, tp / (double)(d->kind==RK_PRECISION_AT_K ? k : P));
      return;
    }
  }
  if( ml_samples_sort(&p->smp) ){ sqlite3_result_error_nomem(ctx); return; }
  if( p->smp.weighted && (d->kind==RK_PRECISION_AT_K || d->kind==RK_RECALL_AT_K || d->kind==RK_GAINS) ){
    rank_cut_w(ctx, d, p);
    return;
  }
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
      if( d->kind==RK_PR_CURVE || d->kind==RK_ROC_CURVE ) write_curve(&j, &p->smp, d->kind==RK_ROC_CURVE);
      else if( d->kind==RK_GAINS ){
        write_gains(&j, &p->smp, (ml_i64)ml_param_value(&p->k, 10), (double)(P+N), (double)P);
      }else if( d->kind==RK_DECISION_CURVE ){
        double g[3];
        int i;
        for(i=0; i<3; i++) g[i] = ml_param_value(&p->grid[i], aGridDefault[i]);
        if( write_decision_curve(&j, &p->smp, g) ){
          ml_json_free(&j);
          sqlite3_result_error_nomem(ctx);
          break;
        }
      }else{
        write_operating_point(&j, &p->smp, (int)ml_param_value(&p->criterion, 0),
                              ml_param_value(&p->target, NAN));
      }
      ml_result_json(ctx, &j);
      break;
    }
  }
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

/* ------------------------------------- confusion, precision_at_prior,
** mcc, f_beta, confusion_ci, net_benefit: counts at one threshold */

typedef struct ConfAgg {
  ml_i64 c[2][2];          /* c[y][predicted] */
  MlParam threshold;       /* net_benefit: pt */
  MlParam prior;           /* precision_at_prior */
  MlParam beta;            /* f_beta */
  MlParam level;           /* confusion_ci */
  MlParam method;          /* confusion_ci: CI_* */
  int weighted;            /* a weighted twin, or a weighted state met: the cells are cw's
                           ** sums of weights, plus a weight of 1 for each row c holds
                           ** beyond cr */
  MlXsum *cw;              /* weighted: cw[2 y + predicted], exact; allocated on the first row */
  ml_i64 cr[2][2];         /* weighted: the rows of c whose weights are in cw */
} ConfAgg;

/* confusion_ci's methods, in CI_* order. */
enum { CI_WILSON, CI_CLOPPER_PEARSON };
static const char *const azMethod[] = {"wilson", "clopper-pearson", 0};

/* The parameters after (y, s) of a row, each the same in every row. */
static int confusion_params(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                            ConfAgg *p, double *t){
  double v;
  int c;
  /* the threshold (net_benefit's pt) */
  if( ml_param_real(ctx, d->name, d->aParam[0], argv[2], &p->threshold, t) ) return ML_ROW_ERR;
  switch( d->kind ){
    case RK_PRECISION_AT_PRIOR:
      return ml_param_real(ctx, d->name, d->aParam[1], argv[3], &p->prior, &v);
    case RK_F_BETA:
      return ml_param_real(ctx, d->name, d->aParam[1], argv[3], &p->beta, &v);
    case RK_CONFUSION_CI:
      if( argc>3 && ml_param_real(ctx, d->name, d->aParam[1], argv[3], &p->level, &v) ){
        return ML_ROW_ERR;
      }
      if( argc>4 ) return ml_param_choice(ctx, d->name, d->aParam[2], argv[4], &p->method, &c);
      return ML_ROW_OK;
    default:
      return ML_ROW_OK;
  }
}

/*
** SQL function: confusion(y, s, threshold), precision_at_prior(y, s, threshold, prior),
**   mcc(y, s, threshold), f_beta(y, s, threshold, beta),
**   confusion_ci(y, s, threshold [, level [, method]]), net_benefit(y, p, pt)
** Counts at "positive when s >= threshold" and what is derived from them;
** a ratio whose denominator is zero is null.
*/
static void ml_confusion_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p;
  int y, t0 = sqlite3_value_type(argv[0]);
  double s, t;
  if( ML_STATE_DIVERT(ctx, argc, argv, t0, 0) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( confusion_params(ctx, d, argc, argv, p, &t) ) return;
  if( ml_arg_binary_row_t(ctx, d->name, argv, t0, d->kind==RK_NET_BENEFIT, &y, &s)!=ML_ROW_OK ) return;
  p->c[y][s>=t]++;
}

static void ml_confusion_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p;
  int y, t0 = sqlite3_value_type(argv[0]);
  double s, t;
  if( ML_STATE_DIVERT(ctx, argc, argv, t0, 1) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 ) return;
  ml_param_drop(&p->threshold, argv[2]);
  if( d->kind==RK_PRECISION_AT_PRIOR ) ml_param_drop(&p->prior, argv[3]);
  if( d->kind==RK_F_BETA ) ml_param_drop(&p->beta, argv[3]);
  if( d->kind==RK_CONFUSION_CI ){
    if( argc>3 ) ml_param_drop(&p->level, argv[3]);
    if( argc>4 ) ml_param_choice_drop(&p->method, argv[4], d->aParam[2]);
  }
  t = sqlite3_value_double(argv[2]);       /* the row's own threshold, as xStep used */
  if( ml_arg_binary_row_t(ctx, d->name, argv, t0, 0, &y, &s)!=ML_ROW_OK ) return;
  p->c[y][s>=t]--;
}

/* The weighted twins' xStep and xInverse: a row's weight goes to the exact
** sum of its cell (c[y][predicted] becomes a sum of weights); weight 0 or
** NULL drops the row. */
static void confusion_row_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w, int sign){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p = ml_agg_context(ctx, sizeof(*p));
  int y, i;
  double s, t;
  if( p==0 ){ if( sign>0 ) sqlite3_result_error_nomem(ctx); return; }
  p->weighted = 1;
  if( w<0.0 ) return;                        /* the driver set the error */
  if( sign>0 ){
    if( confusion_params(ctx, d, argc, argv, p, &t) ) return;
  }else{
    ml_param_drop(&p->threshold, argv[2]);
    if( d->kind==RK_PRECISION_AT_PRIOR ) ml_param_drop(&p->prior, argv[3]);
    if( d->kind==RK_F_BETA ) ml_param_drop(&p->beta, argv[3]);
    t = sqlite3_value_double(argv[2]);
  }
  if( ml_arg_binary_row(ctx, d->name, argv, d->kind==RK_NET_BENEFIT, &y, &s)!=ML_ROW_OK || w==0.0 ) return;
  if( p->cw==0 ){
    if( sign<0 || (p->cw = ml_malloc(4*sizeof(MlXsum)))==0 ){ if( sign>0 ) sqlite3_result_error_nomem(ctx); return; }
    for(i=0; i<4; i++) ml_xsum_init(&p->cw[i]);
  }
  ml_xsum_add(&p->cw[2*y + (s>=t)], w, sign);
  p->c[y][s>=t] += sign;                     /* rows, for "no rows" */
  p->cr[y][s>=t] += sign;
}
static void confusion_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  confusion_row_w(ctx, argc, argv, w, +1);
}
static void confusion_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  confusion_row_w(ctx, argc, argv, w, -1);
}

/* Precision at prevalence pi from the rates: tpr pi / (tpr pi + fpr (1 - pi)),
** null when nothing is predicted positive (tpr = fpr = 0). */
static void precision_at(MlJson *j, const char *k, double tpr, double fpr, double pi){
  double den = tpr*pi + fpr*(1.0 - pi);
  ml_json_key(j, k);
  if( den==0.0 ) ml_json_null(j); else ml_json_double(j, tpr*pi/den);
}

/* precision_at_prior's JSON from the rates and the evaluation prevalence
** (counts, or a weighted twin's sums of weights). */
static void prior_json(sqlite3_context *ctx, const ConfAgg *p, double tpr, double fpr, double pe){
  double prior = ml_param_value(&p->prior, NAN);
  MlJson j;
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "tpr");           ml_json_double(&j, tpr);
  ml_json_key(&j, "fpr");           ml_json_double(&j, fpr);
  ml_json_key(&j, "eval_prior");    ml_json_double(&j, pe);
  ml_json_key(&j, "assumed_prior"); ml_json_double(&j, prior);
  precision_at(&j, "precision_at_eval_prior", tpr, fpr, pe);
  precision_at(&j, "precision_at_assumed_prior", tpr, fpr, prior);
  ml_json_key(&j, "threshold");     ml_json_double(&j, ml_param_value(&p->threshold, NAN));
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

/* precision_at_prior: needs both classes (tpr and fpr). */
static void prior_value(sqlite3_context *ctx, const MlFuncDesc *d, const ConfAgg *p){
  ml_i64 P = p->c[1][0] + p->c[1][1], N = p->c[0][0] + p->c[0][1];
  if( P==0 || N==0 ){
    ml_result_null(ctx, d->name, "only one class in the group (%lld positives, %lld negatives)",
                   (long long)P, (long long)N);
    return;
  }
  prior_json(ctx, p, (double)p->c[1][1]/(double)P, (double)p->c[0][1]/(double)N, (double)P/(double)(P+N));
}

/* Exact products of counts (below 2^53 each): the numerators and
** denominators of mcc, kappa and the likelihood ratios are formed in
** integers and rounded once. */
__extension__ typedef __int128 ml_i128;

/* num/den with both rounded once, null when den is zero. */
static void ratio128(MlJson *j, const char *k, ml_i128 num, ml_i128 den){
  ml_json_key(j, k);
  if( den==0 ) ml_json_null(j); else ml_json_double(j, (double)num/(double)den);
}

/* Matthews correlation (tp tn - fp fn) / sqrt((tp+fp)(tp+fn)(tn+fp)(tn+fn));
** NaN when a factor of the denominator is zero. */
static double mcc_of(ml_i64 tp, ml_i64 fp, ml_i64 tn, ml_i64 fn){
  ml_i128 num = (ml_i128)tp*tn - (ml_i128)fp*fn;
  double den;
  if( tp+fp==0 || tp+fn==0 || tn+fp==0 || tn+fn==0 ) return NAN;
  den = sqrt((double)((ml_i128)(tp+fp)*(tp+fn))) * sqrt((double)((ml_i128)(tn+fp)*(tn+fn)));
  return (double)num/den;
}

/* F-beta = (1 + b2) tp / ((1 + b2) tp + b2 fn + fp), b2 = beta^2, written as
** tp / (tp + c fn + a fp) with a = 1/(1 + b2) and c = b2/(1 + b2), each
** formed without cancellation and finite for any finite beta (b2 may
** overflow to Inf: c = 1).  NaN when tp = fn = fp = 0. */
static double f_beta_of(double tp, double fp, double fn, double beta){
  double b2 = beta*beta, a = 1.0/(1.0 + b2), c = isinf(b2) ? 1.0 : b2*a, den;
  if( tp+fp+fn==0.0 ) return NAN;
  den = tp + c*fn + a*fp;
  return den>0.0 ? tp/den : 0.0;      /* den = 0: tp = 0, beta^2 underflowed */
}

/* confusion's JSON: the counts and every ratio at the threshold. */
static void write_confusion(MlJson *j, ml_i64 tp, ml_i64 fp, ml_i64 tn, ml_i64 fn){
  ml_i64 P = tp + fn, N = tn + fp;
  ml_json_begin_object(j);
  ml_json_key(j, "tp"); ml_json_int(j, tp);
  ml_json_key(j, "fp"); ml_json_int(j, fp);
  ml_json_key(j, "tn"); ml_json_int(j, tn);
  ml_json_key(j, "fn"); ml_json_int(j, fn);
  ratio(j, "sensitivity", tp, P);
  ratio(j, "specificity", tn, N);
  ratio(j, "ppv", tp, tp+fp);
  ratio(j, "npv", tn, tn+fn);
  ratio(j, "f1", 2*tp, 2*tp+fp+fn);
  ratio(j, "accuracy", tp+tn, tp+tn+fp+fn);
  ml_json_key(j, "mcc"); ml_json_double(j, mcc_of(tp, fp, tn, fn));      /* NaN writes null */
  ml_json_key(j, "balanced_accuracy");
  if( P==0 || N==0 ) ml_json_null(j);
  else ml_json_double(j, ((double)tp/(double)P + (double)tn/(double)N) / 2.0);
  /* Cohen's kappa: 2 (tp tn - fn fp) / ((tp+fp)(fp+tn) + (tp+fn)(fn+tn)) */
  ratio128(j, "kappa", 2*((ml_i128)tp*tn - (ml_i128)fn*fp),
           (ml_i128)(tp+fp)*(fp+tn) + (ml_i128)(tp+fn)*(fn+tn));
  /* LR+ = sensitivity / (1 - specificity), LR- = (1 - sensitivity) / specificity */
  ratio128(j, "lr_pos", (ml_i128)tp*N, P==0 ? 0 : (ml_i128)fp*P);
  ratio128(j, "lr_neg", (ml_i128)fn*N, P==0 ? 0 : (ml_i128)tn*P);
  ml_json_end_object(j);
}

/* One proportion x/n and its interval at level: Wilson's score interval,
** computed as statsmodels' proportion_confint(method='wilson') writes it,
** or Clopper-Pearson's, the beta quantiles (method='beta').  The bound at
** x = 0 is 0 and at x = n is 1, exactly; null when n = 0. */
static void write_interval(MlJson *j, const char *k, ml_i64 x, ml_i64 n, double level, int method){
  double q, alpha = 1.0 - level, lo, hi, dn = (double)n;
  ml_json_key(j, k);
  if( n==0 ){ ml_json_null(j); return; }
  q = (double)x/dn;
  if( method==CI_WILSON ){
    double crit = -ml_norm_quantile(alpha/2.0), crit2 = crit*crit;
    double denom = 1.0 + crit2/dn, center = (q + crit2/(2.0*dn))/denom;
    double dist = crit*sqrt(q*(1.0 - q)/dn + crit2/(4.0*dn*dn))/denom;
    lo = center - dist;
    hi = center + dist;
    if( lo<0.0 ) lo = 0.0;
    if( hi>1.0 ) hi = 1.0;
  }else{
    lo = x>0 ? ml_beta_quantile(0.5*alpha, (double)x, (double)(n - x + 1)) : 0.0;
    hi = x<n ? ml_beta_isf(0.5*alpha, (double)(x + 1), (double)(n - x)) : 1.0;
  }
  if( x==0 ) lo = 0.0;
  if( x==n ) hi = 1.0;
  ml_json_begin_object(j);
  ml_json_key(j, "estimate"); ml_json_double(j, q);
  ml_json_key(j, "lo");       ml_json_double(j, lo);
  ml_json_key(j, "hi");       ml_json_double(j, hi);
  ml_json_end_object(j);
}

/* confusion_ci's JSON. */
static void write_confusion_ci(MlJson *j, ml_i64 tp, ml_i64 fp, ml_i64 tn, ml_i64 fn,
                               double level, int method){
  ml_json_begin_object(j);
  ml_json_key(j, "level");  ml_json_double(j, level);
  ml_json_key(j, "method"); ml_json_string(j, azMethod[method]);
  ml_json_key(j, "tp"); ml_json_int(j, tp);
  ml_json_key(j, "fp"); ml_json_int(j, fp);
  ml_json_key(j, "tn"); ml_json_int(j, tn);
  ml_json_key(j, "fn"); ml_json_int(j, fn);
  write_interval(j, "sensitivity", tp, tp+fn, level, method);
  write_interval(j, "specificity", tn, tn+fp, level, method);
  write_interval(j, "ppv", tp, tp+fp, level, method);
  write_interval(j, "npv", tn, tn+fn, level, method);
  write_interval(j, "accuracy", tp+tn, tp+tn+fp+fn, level, method);
  ml_json_end_object(j);
}

/* A weighted twin's result from sums of weights that are not all integers:
** the counts' formulas in doubles. */
static void wratio(MlJson *j, const char *k, double num, double den){
  ml_json_key(j, k);
  if( den==0.0 ) ml_json_null(j); else ml_json_double(j, num/den);
}
static double mcc_w(double tp, double fp, double tn, double fn){
  if( tp+fp==0.0 || tp+fn==0.0 || tn+fp==0.0 || tn+fn==0.0 ) return NAN;
  return (tp*tn - fp*fn) / (sqrt((tp+fp)*(tp+fn)) * sqrt((tn+fp)*(tn+fn)));
}
static void confusion_value_w(sqlite3_context *ctx, const MlFuncDesc *d, const ConfAgg *p,
                              double tp, double fp, double tn, double fn){
  /* the cells as given (the JSON's tp, fp, tn, fn), then scaled by one power
  ** of two for every ratio and product: the same bits for c.w as for w, no
  ** product underflowing or overflowing (issue 38; ml_pow2_scale) */
  const double cell[4] = {tp, fp, tn, fn};
  double mx = fmax(fmax(tp, fp), fmax(tn, fn)), sc = ml_pow2_scale(mx);
  double P, N, n, v;
  MlJson j;
  tp *= sc; fp *= sc; tn *= sc; fn *= sc;
  P = tp + fn; N = tn + fp; n = P + N;
  switch( d->kind ){
    case RK_MCC:
      v = mcc_w(tp, fp, tn, fn);
      if( isnan(v) ) ml_result_null(ctx, d->name, "undefined: a zero margin");
      else sqlite3_result_double(ctx, v);
      return;
    case RK_F_BETA:
      v = f_beta_of(tp, fp, fn, ml_param_value(&p->beta, 1.0));
      if( isnan(v) ) ml_result_null(ctx, d->name, "undefined: no positives and none predicted");
      else sqlite3_result_double(ctx, v);
      return;
    case RK_PRECISION_AT_PRIOR: {
      if( P==0.0 || N==0.0 ){
        ml_result_null(ctx, d->name, "only one class in the group (positive weight %s, negative weight %s)",
                       P==0.0 ? "0" : "> 0", N==0.0 ? "0" : "> 0");
        return;
      }
      prior_json(ctx, p, tp/P, fp/N, P/n);
      return;
    }
    default:            /* RK_CONFUSION */
      ml_json_init(&j);
      ml_json_begin_object(&j);
      ml_json_key(&j, "tp"); ml_json_double(&j, cell[0]);
      ml_json_key(&j, "fp"); ml_json_double(&j, cell[1]);
      ml_json_key(&j, "tn"); ml_json_double(&j, cell[2]);
      ml_json_key(&j, "fn"); ml_json_double(&j, cell[3]);
      wratio(&j, "sensitivity", tp, P);
      wratio(&j, "specificity", tn, N);
      wratio(&j, "ppv", tp, tp+fp);
      wratio(&j, "npv", tn, tn+fn);
      wratio(&j, "f1", 2*tp, 2*tp+fp+fn);
      wratio(&j, "accuracy", tp+tn, n);
      ml_json_key(&j, "mcc"); ml_json_double(&j, mcc_w(tp, fp, tn, fn));
      ml_json_key(&j, "balanced_accuracy");
      if( P==0.0 || N==0.0 ) ml_json_null(&j); else ml_json_double(&j, (tp/P + tn/N) / 2.0);
      wratio(&j, "kappa", 2.0*(tp*tn - fn*fp), (tp+fp)*(fp+tn) + (tp+fn)*(fn+tn));
      wratio(&j, "lr_pos", tp*N, P==0.0 ? 0.0 : fp*P);
      wratio(&j, "lr_neg", fn*N, P==0.0 ? 0.0 : tn*P);
      ml_json_end_object(&j);
      ml_result_json(ctx, &j);
      return;
  }
}

/* At a result: the rows agree on every parameter. */
static int confusion_params_check(sqlite3_context *ctx, const MlFuncDesc *d, const ConfAgg *p){
  if( ml_param_check(ctx, d->name, d->aParam[0]->name, &p->threshold) ) return ML_ROW_ERR;
  switch( d->kind ){
    case RK_PRECISION_AT_PRIOR: return ml_param_check(ctx, d->name, d->aParam[1]->name, &p->prior);
    case RK_F_BETA:             return ml_param_check(ctx, d->name, d->aParam[1]->name, &p->beta);
    case RK_CONFUSION_CI:
      return ml_param_check(ctx, d->name, d->aParam[1]->name, &p->level)
          || ml_param_choice_check(ctx, d->name, d->aParam[2], &p->method);
    default:                    return ML_ROW_OK;
  }
}

static void ml_confusion_value(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p = sqlite3_aggregate_context(ctx, 0), q;
  ml_i64 tp, fp, tn, fn;
  double v;
  MlJson j;
  if( p && confusion_params_check(ctx, d, p) ) return;
  if( p==0 || p->c[0][0]+p->c[0][1]+p->c[1][0]+p->c[1][1]==0 ){
    ml_result_null(ctx, d->name, p && p->weighted ? "no rows of positive weight" : "no rows");
    return;
  }
  if( p->weighted ){
    /* sums of weights: integral ones (integer weights) take the counts'
    ** exact path below, so they give the rows repeated bit for bit */
    double v[4];
    int i, integral = 1;
    for(i=0; i<4; i++){
      MlXsum a = p->cw[i];         /* rows of a weighted state's group beside it weigh 1 */
      ml_xsum_add_n(&a, 1.0, p->c[i>>1][i&1] - p->cr[i>>1][i&1], +1);
      v[i] = ml_xsum_round(&a);
      integral &= v[i]==floor(v[i]) && v[i]<=9007199254740992.0;
    }
    if( d->kind==RK_NET_BENEFIT ){
      sqlite3_result_double(ctx, ml_net_benefit_w(v[3], v[1], v[0], v[2], ml_param_value(&p->threshold, NAN)));
      return;
    }
    if( !integral ){ confusion_value_w(ctx, d, p, v[3], v[1], v[0], v[2]); return; }
    q = *p;                   /* the sums as counts, in a copy: c counts the frame's rows */
    for(i=0; i<4; i++) q.c[i>>1][i&1] = (ml_i64)v[i];
    p = &q;
  }
  if( d->kind==RK_PRECISION_AT_PRIOR ){ prior_value(ctx, d, p); return; }
  tp = p->c[1][1]; fn = p->c[1][0]; fp = p->c[0][1]; tn = p->c[0][0];
  switch( d->kind ){
    case RK_MCC:
      v = mcc_of(tp, fp, tn, fn);
      if( isnan(v) ){
        ml_result_null(ctx, d->name, "undefined: a zero margin (tp %lld, fp %lld, tn %lld, fn %lld)",
                       (long long)tp, (long long)fp, (long long)tn, (long long)fn);
      }else{
        sqlite3_result_double(ctx, v);
      }
      return;
    case RK_F_BETA:
      v = f_beta_of((double)tp, (double)fp, (double)fn, ml_param_value(&p->beta, 1.0));
      if( isnan(v) ){
        ml_result_null(ctx, d->name, "undefined: no positives and none predicted (%lld true negatives)",
                       (long long)tn);
      }else{
        sqlite3_result_double(ctx, v);
      }
      return;
    case RK_NET_BENEFIT:
      sqlite3_result_double(ctx, ml_net_benefit((double)tp, (double)fp, (double)(tp+fp+tn+fn), ml_param_value(&p->threshold, NAN)));
      return;
    case RK_CONFUSION_CI:
      ml_json_init(&j);
      write_confusion_ci(&j, tp, fp, tn, fn, ml_param_value(&p->level, 0.95),
                         (int)ml_param_value(&p->method, CI_WILSON));
      ml_result_json(ctx, &j);
      return;
    default:
      ml_json_init(&j);
      write_confusion(&j, tp, fp, tn, fn);
      ml_result_json(ctx, &j);
      return;
  }
}

static void ml_confusion_final(sqlite3_context *ctx){
  ConfAgg *p = sqlite3_aggregate_context(ctx, 0);
  ml_confusion_value(ctx);
  if( p ){ ml_free(p->cw); p->cw = 0; }
}

/* States: each entry's counts go to their side of the threshold. */
static int confusion_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p = ml_agg_context(ctx, sizeof(*p));
  ml_i64 held[2];
  int j, rc;
  if( p==0 ) return ML_NOMEM;
  if( p->threshold.n[0]==0 ) return ML_OK;  /* xStep rejected the parameters */
  held[0] = p->c[0][0] + p->c[0][1];
  held[1] = p->c[1][0] + p->c[1][1];
  if( sign>0 && (rc = ml_state_rows(st, n, 0, held, zErr, nErr))!=ML_OK ) return rc;
  /* net_benefit's scores are probabilities, in a state as in a row */
  if( d->kind==RK_NET_BENEFIT && (rc = ml_state_probabilities(st, n, zErr, nErr))!=ML_OK ) return rc;
  if( p->weighted || ml_states_weighted(st, n) ){
    /* rule 12: each entry's c rows of weight w add c w to their cell,
    ** exactly (the product split by fma); the rows held weigh 1 */
    if( p->cw==0 ){
      int i;
      if( sign<0 || (p->cw = ml_malloc(4*sizeof(MlXsum)))==0 ) return ML_NOMEM;
      for(i=0; i<4; i++) ml_xsum_init(&p->cw[i]);
    }
    p->weighted = 1;
    for(j=0; j<n; j++){
      MlReader r;
      MlEntry e;
      int y, w8 = st[j].kind==ML_STATE_WEIGHTED;
      ml_reader_init(&r, &st[j].sec[0]);
      while( ml_reader_next(&r, &e) ){
        int pred = ml_double_of(e.key) >= p->threshold.v[0];
        double w = w8 ? ml_double_of_zkey(e.zkey) : 1.0;
        for(y=0; y<2; y++){
          if( e.n[y]==0 ) continue;
          ml_xsum_add_product(&p->cw[2*y + pred], (double)e.n[y], w, sign);
          p->c[y][pred] += sign * e.n[y];
          p->cr[y][pred] += sign * e.n[y];
        }
      }
    }
    return ML_OK;
  }
  for(j=0; j<n; j++){
    MlReader r;
    MlEntry e;
    ml_reader_init(&r, &st[j].sec[0]);
    while( ml_reader_next(&r, &e) ){
      int pred = ml_double_of(e.key) >= p->threshold.v[0];   /* xStep set the threshold */
      p->c[0][pred] += sign * e.n[0];
      p->c[1][pred] += sign * e.n[1];
    }
  }
  return ML_OK;
}
static const MlStateHooks ml_confusion_states = {
  sizeof(ConfAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT) | (1u<<ML_STATE_WEIGHTED), confusion_absorb
};

/* ------------------------------------------------------------- records */

/* The parameters of the family's functions (ml_sql.h, "parameters are data"). */
static const MlParamSpec psMaxFpr = ML_PARAM_REAL("max_fpr", 0.0, 1, 1.0, 0, 0, "0.5");
static const MlParamSpec psCriterion = ML_PARAM_CHOICE("criterion", azCriterion, 0, "'fpr'");
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
static const MlParamSpec psMethod = ML_PARAM_CHOICE("method", azMethod, "'wilson'", "'clopper-pearson'");

static const MlFamily famRank = { "ranking", ml_rank_step, ml_rank_final, ml_rank_value, ml_rank_inverse,
                                  &ml_rank_states, rank_step_w, rank_inverse_w };
static const MlFamily famConfusion = { "ranking", ml_confusion_step, ml_confusion_final, ml_confusion_value,
                                       ml_confusion_inverse, &ml_confusion_states,
                                       confusion_step_w, confusion_inverse_w };

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
  { "confusion",       "y, s, threshold",          3,  3, &famConfusion, 0, RK_CONFUSION, ML_FN_JSON | W,
                                                             ML_PARAMS(&psThreshold) },
  { "precision_at_prior", "y, s, threshold, prior", 4, 4, &famConfusion, 0, RK_PRECISION_AT_PRIOR, ML_FN_JSON | W,
                                                             ML_PARAMS(&psThreshold, &psPrior) },
  /* threshold and clinical-validation metrics (docs/clinical.md) */
  { "mcc",             "y, s, threshold",          3,  3, &famConfusion, 0, RK_MCC, W, ML_PARAMS(&psThreshold) },
  { "f_beta",          "y, s, threshold, beta",    4,  4, &famConfusion, 0, RK_F_BETA, W,
                                                             ML_PARAMS(&psThreshold, &psBeta) },
  { "confusion_ci",    "y, s, threshold [, level [, method]]", 3, 5, &famConfusion, 0, RK_CONFUSION_CI, ML_FN_JSON,
                                                             ML_PARAMS(&psThreshold, &psLevel, &psMethod) },
  { "net_benefit",     "y, p, pt",                 3,  3, &famConfusion, 0, RK_NET_BENEFIT, W, ML_PARAMS(&ml_ps_pt) },
  { "ks",              "y, s",                     2,  2, &famRank, 0, RK_KS, W, 0 },
  { "precision_at_k",  "y, s, k",                  3,  3, &famRank, 0, RK_PRECISION_AT_K, W, ML_PARAMS(&psK) },
  { "recall_at_k",     "y, s, k",                  3,  3, &famRank, 0, RK_RECALL_AT_K, W, ML_PARAMS(&psK) },
  { "gains",           "y, s [, bins]",            2,  3, &famRank, 0, RK_GAINS, ML_FN_JSON | W, ML_PARAMS(&psGainsBins) },
  { "decision_curve",  "y, p [, from [, to [, by]]]", 2, 5, &famRank, 0, RK_DECISION_CURVE, ML_FN_JSON | W,
                                                             ML_PARAMS(&ml_ps_from, &ml_ps_to, &ml_ps_by) },
  { 0 }
};
#undef W
