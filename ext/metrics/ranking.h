/*
** SPDX-License-Identifier: MIT
**
** ranking.h -- what the ranking family's three files share: the kinds of
** its records (ranking.c holds the records and the sorted metrics,
** ranking_json.c their JSON results, confusion.c the counters at one
** threshold), operating_point's criteria, confusion_ci's methods and the
** counters' callbacks.  Private to ext/metrics/ranking.c, ranking_json.c
** and confusion.c.
**
** Rules:
**   1. The records are one list, in ranking.c, in the order
**      mleval_functions() shows them; a record's kind picks the metric
**      within its MlFamily (famRank in ranking.c, ml_confusion_family here).
**
** Cost: none (declarations).
*/
#ifndef ML_RANKING_H
#define ML_RANKING_H

#include "ml_sql.h"

/* Which metric a record asks of the family's shared callbacks (MlFuncDesc.kind). */
enum { RK_PR_AUC, RK_AUROC, RK_NAP, RK_YOUDEN, RK_TPR_AT_FPR, RK_SENS_AT_SPEC,
       RK_PARTIAL_AUROC, RK_PR_CURVE, RK_ROC_CURVE, RK_OPERATING_POINT,
       RK_KS, RK_PRECISION_AT_K, RK_RECALL_AT_K, RK_GAINS, RK_DECISION_CURVE,   /* ml_rank */
       RK_CONFUSION, RK_PRECISION_AT_PRIOR,
       RK_MCC, RK_F_BETA, RK_CONFUSION_CI, RK_NET_BENEFIT };                      /* ml_confusion */

/* confusion_ci's methods: the CI_* values index ml_ci_methods (confusion.c). */
enum { CI_WILSON, CI_CLOPPER_PEARSON };
extern const char *const ml_ci_methods[];

/* confusion.c: the counters' callbacks (confusion, precision_at_prior, mcc,
** f_beta, confusion_ci, net_benefit and their twins). */
extern const MlFamily ml_confusion_family;

/* operating_point's criteria, in ML_OP_* order (ranking.c); the last two,
** max_f1 and youden, take no target. */
extern const char *const ml_rank_criteria[];
static inline int ml_criterion_has_target(int c){ return c!=ML_OP_MAX_F1 && c!=ML_OP_YOUDEN; }

/* ranking_json.c: the sorted metrics' JSON results, from the sorted sample
** (rows, runs or, for a weighted twin or state, sums of weights). */
void ml_rank_write_curve(MlJson *j, const MlSamples *smp, int roc);
void ml_rank_write_operating_point(MlJson *j, const MlSamples *smp, int criterion, double target);
void ml_rank_write_gains(MlJson *j, const MlSamples *smp, ml_i64 B, double n, double P);
int ml_rank_write_decision_curve(MlJson *j, const MlSamples *smp, const double g[3]);

/* A ratio of sums of weights as a JSON field: null when den is 0 (the
** weighted twins' operating_point, ranking.c, and confusion & co.). */
static inline void wratio(MlJson *j, const char *k, double num, double den){
  ml_json_key(j, k);
  if( den==0.0 ) ml_json_null(j); else ml_json_double(j, num/den);
}

#endif /* ML_RANKING_H */
