/*
** SPDX-License-Identifier: MIT
**
** calibration.h -- what the calibration family's three files share: the
** kinds of its records, its parameters' defaults and readers, the
** equal-width edges and bins, the binned functions' aggregate (CalAgg),
** and reliability's bin writer and 'quantile' strategy.  calibration.c
** holds the records and the binned sums (brier, log_loss, ece, mce,
** reliability); calibration_w.c their twins' bins and weighted states;
** calibration_sorted.c the estimators over the sorted sample (equal-mass,
** Kumar, the summaries' rows) and reliability's quantile edges.  Private
** to those three files.
**
** Rules:
**   1. The row path's helpers (a parameter read and counted per row, the
**      bin of p) are static inline here, so each file's step inlines them
**      as before.
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

/* Bin of p in [0, 1] among B equal-width bins [e_b, e_{b+1}), p = 1 in the
** last.  floor(p*B) can be one off near an edge; the edges themselves are
** the doubles width_edge(), so correct against them. */
static inline ml_i64 bin_of(double p, ml_i64 B){
  double x = p * (double)B;
  ml_i64 b = (ml_i64)x;                   /* p >= 0: truncation is floor */
  double frac = x - (double)b;
  if( b>=B ) return B-1;
  /* Only a product within rounding of an integer can disagree with the
  ** edges (which lie within a few ulps of b/B); check those against the
  ** edges themselves. */
  if( frac < 1e-9 || frac > 1.0 - 1e-9 ){
    if( b+1<B && p >= width_edge(b+1, B) ) b++;
    else if( b>0 && p < width_edge(b, B) ) b--;
  }
  return b;
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

/* One equal-width bin of the streaming functions: rows, positives and the
** exact sum of p. */
typedef struct CalPBin { ml_i64 n, npos; MlPSum sp; } CalPBin;

/* The equal-width binning of one bins value.  With more than CAL_DENSE_MAX
** bins it starts buffered: the rows are kept in smp until they outnumber
** bins/4, then replayed into the bins. */
typedef struct CalBins {
  ml_i64 nBin;        /* B (0: unused) */
  ml_i64 n;           /* rows held */
  CalPBin *a;         /* the bins; 0 while buffered */
  MlSamples smp;      /* buffered: the rows (key p) */
  int buffered;
} CalBins;

typedef struct CalAgg {
  ml_i64 n;           /* rows in the group (frame) */
  MlXsum sum;         /* brier: sum (p-y)^2; log_loss: sum of losses (exact) */
  MlParam param;      /* eps or bins */
  MlParam strategy;   /* reliability: STRATEGY_* */
  CalBins set[2];     /* ece / mce / reliability 'uniform': one binning per
                      ** bins value held (two only between two frames, see MlParam) */
  MlSamples smp;      /* reliability 'quantile': the rows (key p); a weighted
                      ** ece or mce: the rows (key p, aux weight), width 16 */
  int qinit;          /* smp initialised */
  int weighted;       /* a weighted twin (n counts its rows of positive weight) */
  MlXsum *wsum;       /* weighted brier, log_loss: the exact sum of the weights */
  int failed;         /* a row's update ran out of memory (the error is set):
                      ** the buffers no longer hold what n counts, xFinal only frees */
  int counted;        /* reliability 'quantile' over states: smp is width 16,
                      ** each record (p, count), rows weigh 1 (rule 10) */
  ml_i64 held[2];     /* counted: the rows of each class smp stands for */
  ml_i64 nw;          /* weighted brier, log_loss: the rows of n whose weights are in
                      ** wsum (the others, rows beside a weighted state, weigh 1) */
} CalAgg;

/* reliability's strategy argument. */
enum { STRATEGY_UNIFORM, STRATEGY_QUANTILE };

/* calibration_w.c: ece_w, mce_w, reliability_w's result over the sorted
** rows (p, w) of p->smp, B bins; and a weighted state's entries added
** (sign +1) or removed (-1) to the group p, turning it weighted (rows held
** weigh 1).  ML_OK, ML_NOMEM or ML_ERROR with zErr set. */
void ml_calib_bins_w(sqlite3_context *ctx, const MlFuncDesc *d, CalAgg *p, ml_i64 B);
int ml_calib_absorb_w(const MlFuncDesc *d, CalAgg *p, const MlState *st, int n, int sign, char *zErr, int nErr);

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
