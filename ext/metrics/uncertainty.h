/*
** SPDX-License-Identifier: MIT
**
** uncertainty.h -- what the uncertainty family's three files share: the
** kinds of its records, its aggregate context and the parameters a result
** uses (uncertainty.c), the results without resampling
** (uncertainty_normal.c) and the bootstrap's (uncertainty_boot.c).
** Private to ext/metrics/uncertainty*.c.
**
** Rules:
**   1. uncertainty.c reads rows, parameters and states into UncAgg and sets
**      UncAgg.q before it asks uncertainty_boot.c for a result.
**
** Cost: none (declarations).
*/
#ifndef ML_UNCERTAINTY_H
#define ML_UNCERTAINTY_H

#include "ml_sql.h"

/* Which statistic a record asks of the family's shared callbacks (MlFuncDesc.kind). */
enum { UN_PR_AUC, UN_NAP, UN_BRIER, UN_LOGLOSS, UN_ECE, UN_STRAT_GAP, UN_AUROC, UN_AUROC_DIFF,
       UN_PR_AUC_DIFF, UN_ECE_DIFF, UN_MEAN, UN_AUROC_W, UN_AUROC_DIFF_W, UN_PR_AUC_DELTA,
       UN_PR_AUC_DIFF_DELTA, UN_TPR_AT_FPR, UN_SENS_AT_SPEC, UN_NET_BENEFIT, UN_NET_BENEFIT_DIFF,
       UN_DECISION_CURVE };

/* The parameters a result uses: the frame's rows' values, or the defaults. */
typedef struct UncParams { double level, ql, qh, target, grid[3]; ml_i64 reps, bins, seed; } UncParams;

typedef struct UncAgg {
  MlSamples smp;       /* key: s, s_a, p, p_a or x; aux: strat, s_b or p_b */
  MlParam level, reps, seed, bins, ql, qh;
  MlParam target;      /* target_fpr, target_spec or pt (UncShape.hasTarget) */
  MlParam grid[3];     /* from, to, by (UncShape.hasGrid) */
  ml_i64 seedInt;      /* seed exactly (a double holds 53 bits) */
  UncParams q;         /* set by unc_result for the computation */
  int init;
  int failed;          /* xStep set an error: xFinal only frees */
  int weighted;        /* a weighted twin: smp holds (score, w) of the rows of weight w > 0 */
} UncAgg;

/* uncertainty_boot.c: the bootstrap's result for every bootstrapped kind but
** decision_curve_ci's, and decision_curve_ci's (one bootstrap, a curve). */
void ml_unc_boot_result(sqlite3_context *ctx, const MlFuncDesc *d, UncAgg *p);
/* uncertainty_normal.c: the results without resampling (rules 6, 10, 11,
** mean_ci), from the group's rows or states in p, both classes present
** (mean_ci: at least one value). */
void ml_unc_delong_result(sqlite3_context *ctx, const MlFuncDesc *d, UncAgg *p);
void ml_unc_delta_ap_result(sqlite3_context *ctx, UncAgg *p);
void ml_unc_delta_diff_result(sqlite3_context *ctx, UncAgg *p);
void ml_unc_mean_result(sqlite3_context *ctx, UncAgg *p);
void ml_unc_decision_curve_ci_result(sqlite3_context *ctx, const MlFuncDesc *d, UncAgg *p);

#endif /* ML_UNCERTAINTY_H */
