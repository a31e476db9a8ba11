/*
** SPDX-License-Identifier: MIT
**
** ml_sweep.c -- the one sorted threshold sweep every ranking metric folds over.
**
** Provides: ml_sweep_init/next, ml_count_classes and the folds
** ml_fold_average_precision, ml_fold_auroc, ml_fold_youden_j,
** ml_fold_tpr_at_fpr.  Callers: ranking.c (pr_auc, auroc, nap, youden_j,
** tpr_at_fpr, sens_at_spec, pr_curve, roc_curve), stratified.c (the same AP
** with a filter on the stratifier), ordinal.c (AP per cut), calibration.c
** (the debiased ECEs walk the sorted probabilities through it).
**
** Rules:
**   1. Thresholds are the distinct scores, visited highest first; a row is
**      "predicted positive" at threshold t when its score >= t, so after a
**      step tp/fp count the rows with score >= key.
**   2. A filter keeps only rows whose aux lies in [lo, hi] (inclusive); a
**      threshold none of whose rows pass is not visited.
**   3. The folds match scikit-learn's definitions exactly: AP is
**      sum (R_i - R_{i-1}) P_i with no interpolation, AUROC counts a tied
**      positive/negative pair as 1/2 (trapezoids between sweep points).
**
** Cost: O(n) for one sweep over sorted samples, O(1) extra memory.
*/
#include "ml_core.h"

void ml_count_classes(const MlSamples *s, const MlFilter *f, ml_i64 *P, ml_i64 *N){
  ml_i64 i, c[2] = {0, 0};
  int y;
  if( f==0 ){
    *P = s->n[1]; *N = s->n[0];
    return;
  }
  for(y=0; y<2; y++){
    for(i=0; i<s->n[y]; i++) c[y] += ml_filter_keeps(f, ml_samples_aux(s, y, i));
  }
  *P = c[1]; *N = c[0];
}

void ml_sweep_init(MlSweep *w, const MlSamples *s, const MlFilter *f){
  memset(w, 0, sizeof(*w));
  w->s = s;
  w->f = f;
  w->i[0] = s->n[0];
  w->i[1] = s->n[1];
  ml_count_classes(s, f, &w->P, &w->N);
}

double ml_fold_ap_sweep(MlSweep *w){
  MlSum ap = {0.0, 0.0};
  while( ml_sweep_next(w) ){
    if( w->dtp ) ml_sum_add(&ap, (double)w->dtp * ((double)w->tp / (double)(w->tp + w->fp)));
  }
  return ml_sum_value(&ap) / (double)w->P;
}

/* AP without a filter, walking the positives: only a threshold that holds a
** positive adds a term, and there fp is the count of negatives >= its key,
** found by moving one pointer down the negatives.  The terms, and their
** order, are those of the general sweep, so the sum is the same bit for bit;
** but the loop over the negatives is a bare comparison (a sliding window
** runs this fold once per row). */
static double ap_unfiltered(const MlSamples *s){
  const ml_key *a0 = (const ml_key*)s->a[0], *a1 = (const ml_key*)s->a[1];
  const size_t st = s->width/8;
  const ml_i64 n0 = s->n[0];
  ml_i64 i0 = n0, i1 = s->n[1], tp = 0;
  MlSum ap = {0.0, 0.0};
  while( i1>0 ){
    ml_key k = a1[(i1-1)*st];
    ml_i64 d = 0, fp;
    do{ i1--; d++; }while( i1>0 && a1[(i1-1)*st]==k );
    tp += d;
    if( st==1 ){
      while( i0>0 && a0[i0-1]>=k ) i0--;
    }else{
      while( i0>0 && a0[(i0-1)*st]>=k ) i0--;
    }
    fp = n0 - i0;
    ml_sum_add(&ap, (double)d * ((double)tp / (double)(tp + fp)));
  }
  return ml_sum_value(&ap) / (double)s->n[1];
}

double ml_fold_average_precision(const MlSamples *s, const MlFilter *f){
  MlSweep w;
  if( f==0 ) return ap_unfiltered(s);
  ml_sweep_init(&w, s, f);
  return ml_fold_ap_sweep(&w);
}

ml_i64 ml_fold_auroc_u2(const MlSamples *s){
  MlSweep w;
  ml_i64 area2 = 0;       /* twice the area, in units of one (pos, neg) pair */
  ml_sweep_init(&w, s, 0);
  while( ml_sweep_next(&w) ){
    /* Trapezoid between (fp-dfp, tp-dtp) and (fp, tp), in integers: each
    ** negative at this threshold counts 2 per positive above, 1 per tie. */
    area2 += w.dfp * (2*w.tp - w.dtp);
  }
  return area2;
}

double ml_fold_auroc(const MlSamples *s){
  return (double)ml_fold_auroc_u2(s) / (2.0 * (double)s->n[1] * (double)s->n[0]);
}

double ml_fold_youden_j(const MlSamples *s){
  MlSweep w;
  double best = 0.0;      /* the all-negative point: TPR = FPR = 0 */
  ml_sweep_init(&w, s, 0);
  while( ml_sweep_next(&w) ){
    double j = (double)w.tp/(double)w.P - (double)w.fp/(double)w.N;
    if( j>best ) best = j;
  }
  return best;
}

double ml_fold_tpr_at_fpr(const MlSamples *s, double target, int bySpec){
  MlSweep w;
  double best = 0.0;      /* the all-negative point always qualifies */
  ml_sweep_init(&w, s, 0);
  while( ml_sweep_next(&w) ){
    double fpr = (double)w.fp/(double)w.N;
    /* The test is written as the reference writes it (fpr <= target, or
    ** 1 - fpr >= target) so that a point on the boundary is decided the same
    ** way.  fp only grows along the sweep: once over, it stays over. */
    if( bySpec ? !(1.0 - fpr >= target) : !(fpr <= target) ) break;
    best = (double)w.tp/(double)w.P;
  }
  return best;
}
