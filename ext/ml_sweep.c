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
  unsigned k = 0;
  while( ml_sweep_next(w) ){
    if( w->dtp ) ml_sum_add(&ap, (double)w->dtp * ((double)w->tp / (double)(w->tp + w->fp)));
    if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) break;     /* every 2^20 thresholds */
  }
  return ml_sum_value(&ap) / (double)w->P;
}

double ml_fold_average_precision(const MlSamples *s, const MlFilter *f){
  MlSweep w;
  ml_sweep_init(&w, s, f);
  return ml_fold_ap_sweep(&w);
}

double ml_fold_auroc(const MlSamples *s){
  MlSweep w;
  double area2 = 0.0;     /* twice the area, in units of one (pos, neg) pair */
  ml_sweep_init(&w, s, 0);
  while( ml_sweep_next(&w) ){
    /* Trapezoid between (fp-dfp, tp-dtp) and (fp, tp): integer arithmetic
    ** in doubles, exact while the counts stay below 2^53. */
    area2 += (double)w.dfp * (double)(2*w.tp - w.dtp);
  }
  return area2 / (2.0 * (double)w.P * (double)w.N);
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
