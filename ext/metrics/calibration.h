/*
** SPDX-License-Identifier: MIT
**
** calibration.h -- what the calibration family's two files share: the
** kinds of its records, its parameters' defaults and readers, the
** equal-width edges, and reliability's bin writer and 'quantile' strategy.
** calibration.c holds the records and the binned sums (brier, log_loss,
** ece, mce, reliability); calibration_sorted.c the estimators over the
** sorted sample (equal-mass, Kumar, the summaries' rows) and reliability's
** quantile edges.  Private to those two files.
**
** Rules:
**   1. The row path's helpers (a parameter read and counted per row) are
**      static inline here, so each file's step inlines them as before.
**
** Cost: none beyond the inline helpers.
*/
#ifndef ML_CALIBRATION_H
#define ML_CALIBRATION_H

#include "ml_sql.h"

/* Which metric a record asks of the family's shared callbacks (MlFuncDesc.kind). */
enum { CAL_BRIER, CAL_LOGLOSS, CAL_ECE, CAL_MCE, CAL_RELIABILITY,            /* ml_calib */
       CAL_EQUAL_MASS, CAL_L2, CAL_L2_DEBIASED, CAL_BRIER_DECOMP, CAL_L2_KUMAR,
       CAL_SUMMARY,              /* ml_calsort; calibration_summary: validation.c computes it */
       CAL_SMOOTH };             /* ml_calsort; calibration_smooth: validation.c computes it */

#define ML_MAX_BINS 100000

static inline int default_bins(int kind){ return kind==CAL_L2_KUMAR ? 15 : 10; }

/* Edge k of B equal-width bins: the double numpy's linspace(0, 1, B+1)
** holds there, k * (1/B), and exactly 1 at k = B.  (k/B is a different
** double for some k: 3 * (1/10) = 0.30000000000000004, 3/10 = 0.3.) */
static inline double width_edge(ml_i64 k, ml_i64 B){
  return k>=B ? 1.0 : (double)k * (1.0/(double)B);
}

static inline double default_param(int kind){
  return kind==CAL_LOGLOSS ? 1e-15 : kind==CAL_SUMMARY ? 0.95 : (double)default_bins(kind);
}

/* Reads the optional parameter (argv[2]) of this row into *val and counts
** the row under it; the default when absent.  Returns ML_ROW_*. */
static inline int cal_param(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                     MlParam *slot, double *val){
  *val = default_param(d->kind);
  if( argc<3 || d->kind==CAL_BRIER ) return ML_ROW_OK;
  if( d->kind==CAL_LOGLOSS || d->kind==CAL_SUMMARY ){     /* eps, level */
    return ml_param_real(ctx, d->name, d->aParam[0], argv[2], slot, val);
  }else{
    ml_i64 b;
    int rc = ml_param_int(ctx, d->name, d->aParam[0], argv[2], slot, &b);
    *val = (double)b;
    return rc;
  }
}

/* xInverse: the row's parameter value (as cal_param read it), uncounted. */
static inline double cal_param_drop(const MlFuncDesc *d, int argc, sqlite3_value **argv, MlParam *slot){
  if( argc<3 || d->kind==CAL_BRIER ) return default_param(d->kind);
  ml_param_drop(slot, argv[2]);
  return sqlite3_value_double(argv[2]);
}

/* calibration.c: one bin of reliability()'s JSON (every strategy, and the
** twin: n an integer for rows, weighted 0, a number for a sum of weights). */
void ml_cal_reliability_bin(MlJson *j, ml_i64 b, double lo, double hi, int weighted, double n,
                            double meanP, double fracPos);
/* calibration_sorted.c: reliability 'quantile' over the sorted rows of smp
** (sorted here), and its weighted twin over the rows (p, w) of m (sorted);
** ML_OK or ML_NOMEM (j untouched then). */
int ml_cal_reliability_quantile(MlJson *j, MlSamples *smp, ml_i64 B);
int ml_cal_reliability_quantile_w(MlJson *j, const MlSamples *m, ml_i64 B);

/* calibration_sorted.c: the sorted estimators' callbacks (ece_equal_mass,
** ece_l2, ece_l2_debiased, brier_decomposition, ece_l2_kumar, and the rows
** of calibration_summary and calibration_smooth). */
extern const MlFamily ml_calsort_family;

#endif /* ML_CALIBRATION_H */
