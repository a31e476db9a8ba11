/*
** uncertainty.c -- intervals and comparisons: the uncertainty family.  Its
** rows, parameters, states and records are here; the results without
** resampling (DeLong, the delta method, mean_ci) are uncertainty_normal.c's,
** the bootstrap's statistics and results uncertainty_boot.c's (uncertainty.h).
** SPDX-License-Identifier: MIT
**
** SQL functions (all aggregate and window functions, JSON results):
**   pr_auc_ci(y, s [, level=0.95, reps=1000, seed=0])     bootstrap of pr_auc
**   nap_ci, brier_ci, log_loss_ci (same arguments)         of nap, brier, log_loss
**   ece_ci(y, p [, bins=10, level, reps, seed])            of ece
**   strat_gap_ci(y, s, strat [, ql, qh, level, reps, seed])  of strat_gap
**   pr_auc_diff_ci(y, s_a, s_b [, level, reps, seed])      paired, AP(s_a) - AP(s_b)
**   ece_diff_ci(y, p_a, p_b [, bins, level, reps, seed])   paired, ece(p_a) - ece(p_b)
**   auroc_ci(y, s [, level])                               DeLong
**   pr_auc_delta_ci(y, s [, level])                        delta method, logit scale
**   pr_auc_delta_ci_w(y, s, w [, level])                   its weighted twin
**   pr_auc_diff_delta(y, s_a, s_b [, level])               paired, by the delta method
**   auroc_diff(y, s_a, s_b [, level])                      paired DeLong test
**   mean_ci(x [, level])                                   Student t
**   tpr_at_fpr_ci(y, s, target_fpr [, level, reps, seed])  bootstrap of tpr_at_fpr
**   sens_at_spec_ci(y, s, target_spec [, level, reps, seed])  of sens_at_spec
**   net_benefit_ci(y, p, pt [, level, reps, seed])         of net_benefit
**   net_benefit_diff_ci(y, p_a, p_b, pt [, level, reps, seed])
**       paired, net_benefit(p_a) - net_benefit(p_b)
**   decision_curve_ci(y, p [, from, to, by [, level, reps, seed]])
**       decision_curve with each point's net_benefit_ci interval
**   decision_curve_ci_w(y, p, w [, from, to, by [, level, reps, seed]])
**   pr_auc_ci_w, nap_ci_w, brier_ci_w, log_loss_ci_w (y, s|p, w [, level, reps, seed]),
**   ece_ci_w(y, p, w [, bins, level, reps, seed]),
**   auroc_ci_w(y, s, w [, level, reps, seed]),
**   strat_gap_ci_w(y, s, w, strat [, ql, qh [, level, reps, seed]]),
**   pr_auc_diff_ci_w(y, s_a, s_b, w [, level, reps, seed]),
**   auroc_diff_w(y, s_a, s_b, w [, level, reps, seed])     the weighted paired
**       bootstrap of auroc_w(s_a) - auroc_w(s_b) (auroc_diff is DeLong's),
**   ece_diff_ci_w(y, p_a, p_b, w [, bins, level, reps, seed])   the weighted bootstrap
**   tpr_at_fpr_ci_w(y, s, w, target_fpr [, level, reps, seed]),
**   sens_at_spec_ci_w(y, s, w, target_spec [, level, reps, seed]),
**   net_benefit_ci_w(y, p, w, pt [, level, reps, seed]),
**   net_benefit_diff_ci_w(y, p_a, p_b, w, pt [, level, reps, seed])
**
** Rules:
**   1. Rows and NULLs as in the metric's own family: a NULL in any data
**      argument skips the row; labels 0/1; scores any number; probabilities
**      in [0, 1].
**   2. level in (0, 1), reps an integer in 10..1000000, seed an integer
**      >= 0, bins/ql/qh as in ece and strat_gap: the same in every row of a
**      group, else an error.
**   3. The estimate is the metric itself, computed by the same folds and
**      per-row terms (ml_sweep.c, calibration.c's terms and bins): pr_auc_ci's
**      "estimate" is pr_auc's value.
**   4. The bootstrap is ml_boot.c's: canonical order, per-replicate seeded
**      streams, weighted sweeps, BCa + percentile (docs/uncertainty.md).
**   5. One class (or, for strat_gap_ci, a window too thin, as strat_gap) gives
**      NULL with a SQLITE_WARNING; so do more than 100 redraws for one
**      replicate.  Calibration CIs are defined with one class.
**   6. DeLong: AUC and structural components by midranks (ml_delong.c); the
**      variance uses ddof 1 within each class, so fewer than 2 rows of a
**      class gives null se, bounds, z and p_value.
**   7. Windows are allowed and equal the aggregate over the frame; each
**      frame re-runs the bootstrap: O(reps * w) per row.
**   8. An interrupted statement (sqlite3_interrupt) stops the bootstrap within
**      about 2^20 rows of work and fails with SQLITE_INTERRUPT.
**   9. Weighted twins (docs/weights.md): rows of weight 0 are dropped before
**      resampling; the n rows of positive weight are drawn as rule 4 draws
**      rows (canonical order by score, label, then weight), and a row drawn
**      k times weighs k w in the replicate, whose metric is the weighted
**      twin's own computation.  The estimate is the point twin's value (pr_auc_w
**      & co.) bit for bit.  auroc_ci_w is this bootstrap too (DeLong has no
**      standard weighted form), so it takes reps and seed, which auroc_ci
**      lacks: a twin record of its own.  No row of positive weight: NULL,
**      "no rows of positive weight".  With three data arguments a row is the
**      width-24 record (s, w, strat) or (s_a, w, s_b), the canonical order
**      (s, label, strat or s_b, w); strat_gap_ci_w's replicate is
**      strat_gap_w's computation (stratified.c's ml_strat_compute_w) and its
**      NULL reason strat_gap_w's; the paired twins score s_a over the
**      canonical order and s_b over the rows ordered by s_b, under the same
**      weights k w.  Their weight follows both scores, (y, s_a, s_b, w):
**      twin records of their own (ML_FN_TWIN_W3), as the driver's twin
**      would put w between the scores.
**  10. pr_auc_delta_ci: the bootstrap's limit without resampling.  se is
**      the square root of the sum over rows of the squared derivative of AP
**      in the row's weight (the infinitesimal jackknife; what the bootstrap
**      standard error tends to), exact in two sweeps of the sorted rows;
**      the interval is the normal one of logit(AP) mapped back, so it stays
**      inside (0, 1); se 0 (AP 1: every positive above every negative)
**      gives lo = hi = AP.  Its twin pr_auc_delta_ci_w reads weights as
**      frequencies: counts become sums of weights (its estimate is
**      pr_auc_w's), a row of weight w is w units each of derivative D, so
**      the variance sums w D^2 and "n" is the weights' exact sum: integer
**      weights give the rows repeated bit for bit (the weight sums scaled
**      by an even power of two, exactly).  Not the limit of pr_auc_ci_w,
**      whose bootstrap draws a row with its weight as one unit.
**  11. pr_auc_diff_delta: the paired counterpart, as auroc_diff is
**      auroc_ci's: se^2 sums over rows (D_a - D_b)^2, each row's two
**      derivatives from its groups under s_a and under s_b (the rows sorted
**      once by each); the normal interval of a - b clipped to [-1, 1], z and
**      the two-sided p (identical scores: se 0, z null, p 1).  No state and
**      no weighted twin (pr_auc_diff_ci_w is the weighted comparison).
**  12. tpr_at_fpr_ci, sens_at_spec_ci, net_benefit_ci, net_benefit_diff_ci:
**      the target (target_fpr, target_spec, pt) is required, right after
**      the data, with the point function's spec (ml_args.c).  A replicate
**      runs ml_fold_tpr_at_fpr_sweep over its weighted sweep (P and N
**      summed first), or counts TP and FP at p >= pt (a byte per row,
**      precomputed) into ml_net_benefit, ranking.c's expression: the
**      estimate is the function's value bit for bit.  Net benefit is
**      defined with one class (rule 5 does not apply).  No states (a state
**      holds no target); the TPR twins' replicate is tpr_at_fpr_w's fold
**      on the drawn rows, the net benefit twins' the exact sums of k w per
**      cell into ml_net_benefit_w (net_benefit_w's own ending).
**  13. decision_curve_ci: ranking.c's grid (ml_grid_points, ml_grid_check;
**      from, to, by all three or none; points t >= 1 dropped as
**      decision_curve drops them), one bootstrap (ml_boot_run_k, K = the
**      thresholds): a row's bucket is the number of t_k <= p, a replicate
**      adds its drawn rows' counts by bucket and sums them from the top,
**      ml_net_benefit at each t_k.  The draws and the counts are
**      net_benefit_ci's, so each point is net_benefit_ci(y, p, t_k, level,
**      reps, seed) text for text.  thresholds x (reps + 202) <= 2e7, else
**      an error.  No states.  decision_curve_ci_w: rule 9's weighted
**      bootstrap, a replicate net_benefit_ci_w's four exact cell sums at
**      every t_k (the rows moved from the cells below to those above,
**      highest p first), so each point is net_benefit_ci_w's text;
**      treat_all decision_curve_w's.
**
** Cost: state 8 bytes per row (score key) for one-score functions, 16 for
** paired and stratified ones (key of s_a / p_a / s plus s_b / p_b / strat as
** aux) and 8 for mean_ci (the values).  A result adds 8 bytes per row of
** weights and canonical map, plus per function: pr_auc/nap 24 per score
** that holds a positive (ml_ap_plan: a replicate then adds its terms only
** there, and sums the weights between them; pr_auc_diff two such plans),
** brier/log_loss 8 (the
** per-row terms), ece 4 (bin of each row), strat_gap 20 (the stratifier
** order), pr_auc_diff 20 (s_b order and its weights), ece_diff 8, auroc 16,
** pr_auc_delta_ci nothing (two sweeps of the sorted rows: O(n log n), or
** O(entries) over states), pr_auc_diff_delta 24 (the rows by s_b and each
** row's derivative for s_a),
** auroc_diff 48 (keys and components of both scores).  A weighted twin keeps
** 16 bytes per row (score key and weight; 24 with a stratifier or second
** score) and adds at a result 16 per row (the replicate's drawn rows; 24
** for strat_gap_ci_w, plus 32 of ml_strat_compute_w scratch), 8 for
** brier/log_loss terms, 12 for the paired twins' second-score order (and
** 32 transiently to sort it), and ece_ci_w, ece_diff_ci_w 32 bytes per bin
** (the occupied bins, at most min(bins, rows)).  decision_curve_ci 4 bytes
** per row (its bucket) and 8 T (reps + 202) for T thresholds; a replicate
** O(n + T).
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "uncertainty.h"


#define UNC_MAX_BINS 100000
static const MlParamSpec psBins = ML_PARAM_INT("bins", 1, UNC_MAX_BINS, "10", "10");

/* What each kind reads: data arguments, then (in this order) ql/qh, bins,
** level, reps/seed. */
typedef struct UncShape {
  int nData;       /* 1 (mean_ci), 2 (y, s|p) or 3 */
  int prob;        /* scores are probabilities */
  int hasQ, hasBins, boot;
  unsigned width;  /* sample record bytes */
  const char *zA, *zB;   /* names of the score arguments (3-argument kinds) */
  int hasTarget;   /* a required parameter right after the data (d->aParam[0]):
                   ** target_fpr, target_spec or pt */
  int hasGrid;     /* from, to, by (decision_curve_ci), all three or none */
} UncShape;

static const UncShape aShape[] = {
  /* UN_PR_AUC      */ {2, 0, 0, 0, 1, 8, "s", 0, 0, 0},
  /* UN_NAP         */ {2, 0, 0, 0, 1, 8, "s", 0, 0, 0},
  /* UN_BRIER       */ {2, 1, 0, 0, 1, 8, "p", 0, 0, 0},
  /* UN_LOGLOSS     */ {2, 1, 0, 0, 1, 8, "p", 0, 0, 0},
  /* UN_ECE         */ {2, 1, 0, 1, 1, 8, "p", 0, 0, 0},
  /* UN_STRAT_GAP   */ {3, 0, 1, 0, 1, 16, "s", "strat", 0, 0},
  /* UN_AUROC       */ {2, 0, 0, 0, 0, 8, "s", 0, 0, 0},
  /* UN_AUROC_DIFF  */ {3, 0, 0, 0, 0, 16, "s_a", "s_b", 0, 0},
  /* UN_PR_AUC_DIFF */ {3, 0, 0, 0, 1, 16, "s_a", "s_b", 0, 0},
  /* UN_ECE_DIFF    */ {3, 1, 0, 1, 1, 16, "p_a", "p_b", 0, 0},
  /* UN_MEAN        */ {1, 0, 0, 0, 0, 8, "x", 0, 0, 0},
  /* UN_AUROC_W     */ {2, 0, 0, 0, 1, 16, "s", 0, 0, 0},
  /* UN_AUROC_DIFF_W */ {3, 0, 0, 0, 1, 16, "s_a", "s_b", 0, 0},
  /* UN_PR_AUC_DELTA */ {2, 0, 0, 0, 0, 8, "s", 0, 0, 0},
  /* UN_PR_AUC_DIFF_DELTA */ {3, 0, 0, 0, 0, 16, "s_a", "s_b", 0, 0},
  /* UN_TPR_AT_FPR  */ {2, 0, 0, 0, 1, 8, "s", 0, 1, 0},
  /* UN_SENS_AT_SPEC */ {2, 0, 0, 0, 1, 8, "s", 0, 1, 0},
  /* UN_NET_BENEFIT */ {2, 1, 0, 0, 1, 8, "p", 0, 1, 0},
  /* UN_NET_BENEFIT_DIFF */ {3, 1, 0, 0, 1, 16, "p_a", "p_b", 1, 0},
  /* UN_DECISION_CURVE */ {2, 1, 0, 0, 1, 8, "p", 0, 0, 1},
};



/* Reads the parameters after the data arguments and counts the row under
** each (MlParam: they follow the frame's rows); an absent one is left out
** of its slot, and the result uses its default (unc_param_values). */
static int unc_params(sqlite3_context *ctx, const MlFuncDesc *d, const UncShape *u,
                      int argc, sqlite3_value **argv, UncAgg *p){
  int i = u->nData;
  double v;
  ml_i64 iv;
  if( u->hasTarget ){       /* required: the records' nMin counts it */
    if( ml_param_real(ctx, d->name, d->aParam[0], argv[i], &p->target, &v) ) return ML_ROW_ERR;
    i++;
  }
  if( u->hasGrid ){
    int k;
    if( argc>i && argc<i+3 ){
      ml_arity_error(ctx, d, argc + p->weighted);    /* a twin's call had its w too */
      return ML_ROW_ERR;
    }
    for(k=0; k<3 && argc>i; k++){
      if( ml_param_real(ctx, d->name, d->aParam[k], argv[i+k], &p->grid[k], &v) ) return ML_ROW_ERR;
    }
    i += 3;
  }
  if( u->hasQ ){
    if( argc==i+1 ){
      ml_arity_error(ctx, d, argc + p->weighted);    /* a twin's call had its w too */
      return ML_ROW_ERR;
    }
    if( argc>i+1 ){
      double ql, qh;
      char z1[32], z2[32];
      if( ml_param_real(ctx, d->name, &ml_ps_ql, argv[i], &p->ql, &ql) ) return ML_ROW_ERR;
      if( ml_param_real(ctx, d->name, &ml_ps_qh, argv[i+1], &p->qh, &qh) ) return ML_ROW_ERR;
      if( ql >= qh ){
        ml_error(ctx, d->name, "ql must be less than qh, got ql = %s and qh = %s",
                 ml_num(z1, ql), ml_num(z2, qh));
        return ML_ROW_ERR;
      }
    }
    i += 2;
  }
  if( u->hasBins ){
    if( argc>i && ml_param_int(ctx, d->name, &psBins, argv[i], &p->bins, &iv) ) return ML_ROW_ERR;
    i++;
  }
  if( argc>i && ml_param_real(ctx, d->name, &ml_ps_level, argv[i], &p->level, &v) ) return ML_ROW_ERR;
  i++;
  if( !u->boot ) return ML_ROW_OK;
  if( argc>i && ml_param_int(ctx, d->name, &ml_ps_reps, argv[i], &p->reps, &iv) ) return ML_ROW_ERR;
  i++;
  if( argc>i ){
    int first = p->seed.n[0]==0 && p->seed.n[1]==0;
    if( ml_param_int(ctx, d->name, &ml_ps_seed, argv[i], &p->seed, &iv) ) return ML_ROW_ERR;
    if( first ){
      p->seedInt = iv;
    }else if( (double)iv==(double)p->seedInt && iv!=p->seedInt ){   /* equal as doubles only */
      ml_error(ctx, d->name, "seed must be the same in every row of a group, got %lld and then %lld",
               (long long)p->seedInt, (long long)iv);
      return ML_ROW_ERR;
    }
  }
  return ML_ROW_OK;
}

/* xInverse: the row's parameters (accepted by unc_params) leave. */
static void unc_params_drop(const UncShape *u, int argc, sqlite3_value **argv, UncAgg *p){
  int i = u->nData;
  if( u->hasTarget ) ml_param_drop(&p->target, argv[i++]);
  if( u->hasGrid ){
    int k;
    for(k=0; k<3 && argc>i+k; k++) ml_param_drop(&p->grid[k], argv[i+k]);
    i += 3;
  }
  if( u->hasQ ){
    if( argc>i+1 ){ ml_param_drop(&p->ql, argv[i]); ml_param_drop(&p->qh, argv[i+1]); }
    i += 2;
  }
  if( u->hasBins ){ if( argc>i ) ml_param_drop(&p->bins, argv[i]); i++; }
  if( argc>i ) ml_param_drop(&p->level, argv[i]);
  i++;
  if( !u->boot ) return;
  if( argc>i ) ml_param_drop(&p->reps, argv[i]);
  i++;
  if( argc>i ) ml_param_drop(&p->seed, argv[i]);
}

/* At a result: an error when the frame's rows disagree on a parameter;
** else fills *q.  ML_ROW_OK or ML_ROW_ERR. */
static int unc_param_values(sqlite3_context *ctx, const MlFuncDesc *d, const UncAgg *p, UncParams *q){
  double seed;
  if( ml_param_check(ctx, d->name, "ql", &p->ql) || ml_param_check(ctx, d->name, "qh", &p->qh)
   || ml_param_check(ctx, d->name, "bins", &p->bins) || ml_param_check(ctx, d->name, "level", &p->level)
   || ml_param_check(ctx, d->name, "reps", &p->reps) || ml_param_check(ctx, d->name, "seed", &p->seed)
   || (aShape[d->kind].hasTarget && ml_param_check(ctx, d->name, d->aParam[0]->name, &p->target))
   || (aShape[d->kind].hasGrid && (ml_param_check(ctx, d->name, "from", &p->grid[0])
       || ml_param_check(ctx, d->name, "to", &p->grid[1]) || ml_param_check(ctx, d->name, "by", &p->grid[2]))) ){
    return ML_ROW_ERR;
  }
  q->grid[0] = ml_param_value(&p->grid[0], 0.01);
  q->grid[1] = ml_param_value(&p->grid[1], 0.99);
  q->grid[2] = ml_param_value(&p->grid[2], 0.01);
  q->target = ml_param_value(&p->target, NAN);
  q->level = ml_param_value(&p->level, 0.95);
  q->ql = ml_param_value(&p->ql, 0.25);
  q->qh = ml_param_value(&p->qh, 0.75);
  q->reps = (ml_i64)ml_param_value(&p->reps, 1000);
  q->bins = (ml_i64)ml_param_value(&p->bins, 10);
  seed = ml_param_value(&p->seed, 0.0);
  /* seedInt is exact for the value the group started with; a later value
  ** (a frame that slid past it) is read from its double */
  q->seed = (double)p->seedInt==seed ? p->seedInt : (ml_i64)seed;
  return ML_ROW_OK;
}

/* Reads one row: label y, score or probability x, and aux (the third data
** argument, -0.0 folded to +0.0 so that equal values have equal bytes). */
static int unc_row(sqlite3_context *ctx, const MlFuncDesc *d, const UncShape *u,
                   sqlite3_value **argv, int *y, double *x, double *aux){
  int rc;
  *aux = 0.0;
  if( u->nData==1 ){
    *y = 0;
    return ml_arg_score(ctx, d->name, "x", argv[0], x);
  }
  if( u->nData==2 ) return ml_arg_binary_row(ctx, d->name, argv, u->prob, y, x);
  if( sqlite3_value_type(argv[0])==SQLITE_NULL || sqlite3_value_type(argv[1])==SQLITE_NULL
   || sqlite3_value_type(argv[2])==SQLITE_NULL ) return ML_ROW_SKIP;
  rc = ml_arg_label(ctx, d->name, argv[0], 1, y);
  if( rc==ML_ROW_OK ){
    rc = u->prob ? ml_arg_prob(ctx, d->name, u->zA, argv[1], x)
                 : ml_arg_score(ctx, d->name, u->zA, argv[1], x);
  }
  if( rc==ML_ROW_OK ){
    rc = u->prob ? ml_arg_prob(ctx, d->name, u->zB, argv[2], aux)
                 : ml_arg_score(ctx, d->name, u->zB, argv[2], aux);
  }
  *aux += 0.0;
  return rc;
}

/*
** SQL function: pr_auc_ci, nap_ci, brier_ci, log_loss_ci, ece_ci,
**   strat_gap_ci, auroc_ci, auroc_diff, pr_auc_diff_ci, ece_diff_ci,
**   mean_ci                                                  -- xStep
*/
static void ml_unc_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  const UncShape *u = &aShape[d->kind];
  UncAgg *p;
  int y, rc;
  double x, aux;
  if( ML_STATE_DIVERT(ctx, argc, argv, sqlite3_value_type(argv[0]), 0) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){ ml_samples_init(&p->smp, u->width); p->init = 1; }
  rc = unc_params(ctx, d, u, argc, argv, p);
  if( rc==ML_ROW_OK ) rc = unc_row(ctx, d, u, argv, &y, &x, &aux);
  if( rc==ML_ROW_OK ) rc = ml_add_row(ctx, &p->smp, y, x, aux) ? ML_ROW_ERR : ML_ROW_OK;
  if( rc==ML_ROW_ERR ) p->failed = 1;
}

/* xInverse: the row was accepted by xStep; remove it. */
static void ml_unc_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  UncAgg *p;
  int y;
  double x, aux;
  if( ML_STATE_DIVERT(ctx, argc, argv, sqlite3_value_type(argv[0]), 1) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 || !p->init ) return;
  unc_params_drop(&aShape[d->kind], argc, argv, p);
  if( unc_row(ctx, d, &aShape[d->kind], argv, &y, &x, &aux)!=ML_ROW_OK ) return;
  ml_samples_remove(&p->smp, y, x, aux);
}

/*
** SQL function: pr_auc_ci_w, nap_ci_w, brier_ci_w, log_loss_ci_w, ece_ci_w,
**   auroc_ci_w, strat_gap_ci_w, pr_auc_diff_ci_w, ece_diff_ci_w
**                                                -- xStep and xInverse (MlFamily.xStepW)
** The driver has read the weight w and taken it out of argv: the same
** parameter and row checks as the unweighted step; a row of weight w > 0
** enters the buffer as (score, w), or with three data arguments as the
** width-24 record (s, w, strat) or (s_a|p_a, w, s_b|p_b); one of weight 0
** (or NULL) only counts its parameters.
*/
static void ml_unc_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  const UncShape *u = &aShape[d->kind];
  UncAgg *p = ml_agg_context(ctx, sizeof(*p));
  int y, rc;
  double x, aux;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){
    if( u->nData==3 ){ ml_samples_init(&p->smp, 24); p->smp.weighted = 1; }
    else ml_samples_init_weighted(&p->smp);
    p->init = 1;
    p->weighted = 1;
  }
  if( w<0.0 ){ p->failed = 1; return; }       /* the driver set the error */
  rc = unc_params(ctx, d, u, argc, argv, p);
  if( rc==ML_ROW_OK ) rc = unc_row(ctx, d, u, argv, &y, &x, &aux);
  if( rc==ML_ROW_OK && w>0.0 ){
    if( u->nData<3 ){
      rc = ml_add_row(ctx, &p->smp, y, x, w) ? ML_ROW_ERR : ML_ROW_OK;
    }else if( ml_samples_add2(&p->smp, y, x, w, aux) ){
      ml_samples_clear(&p->smp);
      sqlite3_result_error_nomem(ctx);
      rc = ML_ROW_ERR;
    }
  }
  if( rc==ML_ROW_ERR ) p->failed = 1;
}
static void ml_unc_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  const UncShape *u = &aShape[d->kind];
  UncAgg *p = ml_agg_context(ctx, sizeof(*p));
  int y;
  double x, aux;
  if( p==0 || !p->init ) return;
  unc_params_drop(u, argc, argv, p);
  if( unc_row(ctx, d, u, argv, &y, &x, &aux)!=ML_ROW_OK || w==0.0 ) return;
  if( u->nData<3 ) ml_samples_remove(&p->smp, y, x, w);
  else ml_samples_remove2(&p->smp, y, x, w, aux);
}

/* States: the one-score functions (y, s|p) and strat_gap_ci (y, s, strat)
** take partial states; the states' sorted runs merge into the buffer, so the
** canonical order, and with it every replicate, is the row query's.  The
** paired functions and mean_ci take none (no state holds two scores). */
static int unc_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  const UncShape *u = &aShape[d->kind];
  UncAgg *p = ml_agg_context(ctx, sizeof(*p));
  int rc;
  if( p==0 ) return ML_NOMEM;
  if( u->prob && (rc = ml_state_probabilities(st, n, zErr, nErr))!=0 ) return rc;
  if( !p->init ){ ml_samples_init(&p->smp, u->width); p->init = 1; }
  return ml_absorb_section(&p->smp, st, n, 0, sign, zErr, nErr);
}
static const MlStateHooks ml_unc_states = {
  sizeof(UncAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT), unc_absorb
};
static const MlStateHooks ml_unc_strat_states = { sizeof(UncAgg), 3, 1u<<ML_STATE_STRAT, unc_absorb };

/* The one compute routine behind xValue and xFinal. */
static void unc_compute(sqlite3_context *ctx, UncAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 P, N;
  if( p && unc_param_values(ctx, d, p, &p->q) ) return;
  if( p==0 || !p->init || ml_samples_count(&p->smp)==0 ){
    ml_result_null(ctx, d->name, p && p->weighted ? "no rows of positive weight" : "no rows");
    return;
  }
  if( d->kind==UN_MEAN ){ ml_unc_mean_result(ctx, p); return; }
  P = p->smp.n[1];
  N = p->smp.n[0];
  if( (P==0 || N==0) && d->kind!=UN_BRIER && d->kind!=UN_LOGLOSS && d->kind!=UN_ECE && d->kind!=UN_ECE_DIFF
   && d->kind!=UN_NET_BENEFIT && d->kind!=UN_NET_BENEFIT_DIFF && d->kind!=UN_DECISION_CURVE ){
    ml_result_null(ctx, d->name, "only one class in the group (%lld positives, %lld negatives)",
                   (long long)P, (long long)N);
    return;
  }
  if( d->kind==UN_AUROC || d->kind==UN_AUROC_DIFF ) ml_unc_delong_result(ctx, d, p);
  else if( d->kind==UN_PR_AUC_DELTA ) ml_unc_delta_ap_result(ctx, p);
  else if( d->kind==UN_PR_AUC_DIFF_DELTA ) ml_unc_delta_diff_result(ctx, p);
  else if( d->kind==UN_DECISION_CURVE ) ml_unc_decision_curve_ci_result(ctx, d, p);
  else ml_unc_boot_result(ctx, d, p);
}

/* An abandoned statement's cleanup computes nothing (ml_compute_begin); the
** bootstrap's own stop check (unc_stop) ends a long one early. */
static void unc_result(sqlite3_context *ctx, UncAgg *p, int isFinal){
  if( p && p->failed ) return;
  if( ml_compute_begin(ctx, isFinal, p && p->init ? ml_samples_count(&p->smp) : 0) ) return;
  unc_compute(ctx, p);
  ml_compute_end(ctx);
}

static void ml_unc_value(sqlite3_context *ctx){
  unc_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}

static void ml_unc_final(sqlite3_context *ctx){
  UncAgg *p = sqlite3_aggregate_context(ctx, 0);
  unc_result(ctx, p, 1);
  if( p && p->init ) ml_samples_clear(&p->smp);
}

/* ------------------------------------------------------------- records */

static const MlFamily famUnc = { "uncertainty", ml_unc_step, ml_unc_final, ml_unc_value, ml_unc_inverse,
                                 &ml_unc_states, ml_unc_step_w, ml_unc_inverse_w, 0 };
static const MlFamily famUncStrat = { "uncertainty", ml_unc_step, ml_unc_final, ml_unc_value,
                                      ml_unc_inverse, &ml_unc_strat_states, ml_unc_step_w, ml_unc_inverse_w, 0 };
#define BOOT &ml_ps_level, &ml_ps_reps, &ml_ps_seed

#define W ML_FN_WEIGHTED

/* strat_gap_ci rejects 4 arguments itself: ql needs qh.  The *_ci records
** flagged W get the driver's twin NAME_w(y, s|p, w, ...), the weighted
** bootstrap (strat_gap_ci_w(y, s, w, strat, ...): the weight after the
** second data argument, as strat_gap_w).  Three are twin records of their
** own (ML_FN_TWIN: the driver still reads the weight; ML_FN_TWIN_W3: at argv[3]): auroc_ci is
** DeLong's, with no bootstrap parameters, so auroc_ci_w adds level, reps
** and seed; the paired pr_auc_diff_ci_w and ece_diff_ci_w take their weight
** after both scores, (y, s_a, s_b, w, ...), where the driver's twin would
** put it between them; auroc_diff_w is auroc_diff's (DeLong's paired test)
** weighted counterpart, the weighted paired bootstrap of auroc_w(s_a) -
** auroc_w(s_b) with pr_auc_diff_ci_w's JSON (DeLong has no weighted form). */
const MlFuncDesc ml_uncertainty_functions[] = {
  { "pr_auc_ci",       "y, s [, level, reps, seed]", 2, 5, &famUnc, 0, UN_PR_AUC, ML_FN_JSON | W, ML_PARAMS(BOOT) },
  { "nap_ci",          "y, s [, level, reps, seed]", 2, 5, &famUnc, 0, UN_NAP, ML_FN_JSON | W, ML_PARAMS(BOOT) },
  { "brier_ci",        "y, p [, level, reps, seed]", 2, 5, &famUnc, 0, UN_BRIER, ML_FN_JSON | W, ML_PARAMS(BOOT) },
  { "log_loss_ci",     "y, p [, level, reps, seed]", 2, 5, &famUnc, 0, UN_LOGLOSS, ML_FN_JSON | W, ML_PARAMS(BOOT) },
  { "ece_ci",          "y, p [, bins, level, reps, seed]", 2, 6, &famUnc, 0, UN_ECE, ML_FN_JSON | W,
                                                   ML_PARAMS(&psBins, BOOT) },
  { "strat_gap_ci",    "y, s, strat [, ql, qh [, level, reps, seed]]", 3, 8, &famUncStrat, 0, UN_STRAT_GAP, ML_FN_JSON | W,
                                                   ML_PARAMS(&ml_ps_ql, &ml_ps_qh, BOOT) },
  { "auroc_ci",        "y, s [, level]",           2,  3, &famUnc, 0, UN_AUROC, ML_FN_JSON, ML_PARAMS(&ml_ps_level) },
  { "pr_auc_delta_ci", "y, s [, level]",           2,  3, &famUnc, 0, UN_PR_AUC_DELTA, ML_FN_JSON | W,
                                                   ML_PARAMS(&ml_ps_level) },
  { "auroc_ci_w",      "y, s, w [, level, reps, seed]", 3, 6, &famUnc, 0, UN_AUROC_W,
                                                   ML_FN_JSON | ML_FN_TWIN | ML_FN_NO_STATE, ML_PARAMS(BOOT) },
  { "auroc_diff",      "y, s_a, s_b [, level]",    3,  4, &famUnc, 0, UN_AUROC_DIFF, ML_FN_JSON | ML_FN_NO_STATE,
                                                   ML_PARAMS(&ml_ps_level) },
  { "pr_auc_diff_delta", "y, s_a, s_b [, level]",  3,  4, &famUnc, 0, UN_PR_AUC_DIFF_DELTA,
                                                   ML_FN_JSON | ML_FN_NO_STATE, ML_PARAMS(&ml_ps_level) },
  { "pr_auc_diff_ci",  "y, s_a, s_b [, level, reps, seed]", 3, 6, &famUnc, 0, UN_PR_AUC_DIFF,
                                                   ML_FN_JSON | ML_FN_NO_STATE, ML_PARAMS(BOOT) },
  { "pr_auc_diff_ci_w", "y, s_a, s_b, w [, level, reps, seed]", 4, 7, &famUnc, 0, UN_PR_AUC_DIFF,
                                                   ML_FN_JSON | ML_FN_TWIN | ML_FN_TWIN_W3 | ML_FN_NO_STATE | ML_FN_BASE_NO_STATE,
                                                   ML_PARAMS(BOOT) },
  { "auroc_diff_w",    "y, s_a, s_b, w [, level, reps, seed]", 4, 7, &famUnc, 0, UN_AUROC_DIFF_W,
                                                   ML_FN_JSON | ML_FN_TWIN | ML_FN_TWIN_W3 | ML_FN_NO_STATE | ML_FN_BASE_NO_STATE,
                                                   ML_PARAMS(BOOT) },
  { "ece_diff_ci",     "y, p_a, p_b [, bins, level, reps, seed]", 3, 7, &famUnc, 0, UN_ECE_DIFF,
                                                   ML_FN_JSON | ML_FN_NO_STATE, ML_PARAMS(&psBins, BOOT) },
  { "ece_diff_ci_w",   "y, p_a, p_b, w [, bins, level, reps, seed]", 4, 8, &famUnc, 0, UN_ECE_DIFF,
                                                   ML_FN_JSON | ML_FN_TWIN | ML_FN_TWIN_W3 | ML_FN_NO_STATE | ML_FN_BASE_NO_STATE,
                                                   ML_PARAMS(&psBins, BOOT) },
  { "mean_ci",         "x [, level]",              1,  2, &famUnc, 0, UN_MEAN, ML_FN_JSON | ML_FN_NO_STATE,
                                                   ML_PARAMS(&ml_ps_level) },
  /* clinical operating points (SPEC round 4): the bootstrap of ranking.c's
  ** tpr_at_fpr, sens_at_spec and net_benefit, the paired difference of net
  ** benefits; no states (a state holds no target) */
  { "tpr_at_fpr_ci",   "y, s, target_fpr [, level, reps, seed]", 3, 6, &famUnc, 0, UN_TPR_AT_FPR,
                                                   ML_FN_JSON | ML_FN_NO_STATE | W, ML_PARAMS(&ml_ps_target_fpr, BOOT) },
  { "sens_at_spec_ci", "y, s, target_spec [, level, reps, seed]", 3, 6, &famUnc, 0, UN_SENS_AT_SPEC,
                                                   ML_FN_JSON | ML_FN_NO_STATE | W, ML_PARAMS(&ml_ps_target_spec, BOOT) },
  { "net_benefit_ci",  "y, p, pt [, level, reps, seed]", 3, 6, &famUnc, 0, UN_NET_BENEFIT,
                                                   ML_FN_JSON | ML_FN_NO_STATE | W, ML_PARAMS(&ml_ps_pt, BOOT) },
  { "net_benefit_diff_ci", "y, p_a, p_b, pt [, level, reps, seed]", 4, 7, &famUnc, 0, UN_NET_BENEFIT_DIFF,
                                                   ML_FN_JSON | ML_FN_NO_STATE, ML_PARAMS(&ml_ps_pt, BOOT) },
  { "net_benefit_diff_ci_w", "y, p_a, p_b, w, pt [, level, reps, seed]", 5, 8, &famUnc, 0, UN_NET_BENEFIT_DIFF,
                                                   ML_FN_JSON | ML_FN_TWIN | ML_FN_TWIN_W3 | ML_FN_NO_STATE | ML_FN_BASE_NO_STATE,
                                                   ML_PARAMS(&ml_ps_pt, BOOT) },
  /* decision_curve with each point's interval: one bootstrap, the whole
  ** curve a replicate (rule 13); its twin; no states */
  { "decision_curve_ci", "y, p [, from, to, by [, level, reps, seed]]", 2, 8, &famUnc, 0, UN_DECISION_CURVE,
                                                   ML_FN_JSON | ML_FN_NO_STATE | W,
                                                   ML_PARAMS(&ml_ps_from, &ml_ps_to, &ml_ps_by, BOOT) },
  { 0 }
};
