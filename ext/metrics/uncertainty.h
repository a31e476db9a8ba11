/*
** SPDX-License-Identifier: MIT
**
** uncertainty.h -- what the uncertainty family's four files share: the
** kinds of its records, its aggregate context and the parameters a result
** uses (uncertainty.c), the results without resampling
** (uncertainty_normal.c), the bootstrap's (uncertainty_boot.c) and what
** a replicate's statistic reads (UncCtx, uncertainty_stat.c).
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

/* What a statistic needs besides the canonical order and the weights; every
** per-row array is in canonical order. */
typedef struct UncCtx {
  int kind;
  const double *term;           /* brier/log_loss: the row's term */
  const uint32_t *binA, *binB;  /* ece: the row's bin by p, and by aux */
  CalBin *bins;                 /* ece: 2 x B accumulators */
  ml_i64 B;
  const double *zSorted;        /* strat_gap: the stratifier ascending, */
  const uint32_t *zPos;         /* the canonical position of each, */
  ml_weight *zw;                /* and its weight in a replicate */
  double ql, qh;
  const MlCanon *cB;            /* pr_auc_diff: the rows ordered by s_b, */
  const uint32_t *posB;         /* the canonical position of each, */
  ml_weight *wB;                /* and its weight in a replicate */
  MlSamples drawn;              /* weighted: a replicate's rows, each once with weight k w */
  MlXsum *xs;                   /* weighted brier, log_loss (2), ece (4): exact sums */
  CalWOcc *occ;                 /* weighted ece: room for min(B, n) occupied bins */
  const ml_key *keyB;           /* weighted paired: the keys of s_b|p_b ascending, */
  const uint32_t *orderB;       /* the canonical position of each */
  void *stratScratch;           /* weighted strat_gap: ml_strat_compute_w's scratch, */
  MlStratResult sr;             /* its result (the estimate's reason when undefined) */
  const MlApGroup *apg;         /* pr_auc, nap, pr_auc_diff: the scores that hold */
  ml_i64 nApg;                  /* a positive, ascending (ml_ap_plan), */
  MlApGroup *apgB;              /* and pr_auc_diff's in cB */
  ml_i64 nApgB;
  double target;                /* tpr_at_fpr, sens_at_spec: the target; net_benefit: pt */
  ml_i64 nT;                    /* decision_curve_ci: the thresholds grid[0..nT), */
  const double *grid;
  const uint32_t *bucket;       /* each row's number of thresholds <= p, */
  ml_i64 *cnt;                  /* and a replicate's counts by bucket */
  const unsigned char *pred;    /* net_benefit: bit 0 p (p_a) >= pt, bit 1 p_b >= pt */
} UncCtx;

/* uncertainty_stat.c: each kind's statistic of a replicate (MlBootStat). */
int ml_unc_stat_ap_plan(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_mean_term(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_ece(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_strat_gap(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_ap_diff(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_tpr_at_fpr(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_net_benefit(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_decision_curve(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_decision_curve_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_rank_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_mean_term_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_ece_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_diff_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_net_benefit_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out);
int ml_unc_stat_strat_gap_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out);

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
