/*
** SPDX-License-Identifier: MIT
**
** drift.h -- what the drift files share (drift.c, drift_ks.c): the KS
** p-value.  Private to ext/metrics/drift*.c.
*/
#ifndef ML_DRIFT_H
#define ML_DRIFT_H

/* The KS statistic's p-value (drift_ks.c): W the periods' weights (counts
** for the exact method), d the statistic D, replaced by h / lcm when the
** method is exact; p and method ("exact" or "asymp") set.  ML_OK or
** ML_NOMEM. */
typedef struct MlKsResult {
  double W[2];
  double d, p;
  const char *method;
} MlKsResult;
int ml_ks_pvalue(MlKsResult *r);

#endif /* ML_DRIFT_H */
