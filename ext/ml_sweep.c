/*
** ml_sweep.c -- the one sorted threshold sweep every ranking metric folds over.
**
** Provides: ml_sweep_init/next (and their weighted forms), ml_count_classes and the folds
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
**   4. A weighted sweep (the bootstrap's replicates, ml_boot.c) counts row i
**      of class y wt[y][i] times: the counts are those of the resampled rows,
**      so every fold computes the metric of the replicate exactly as it would
**      on the rows repeated, without re-sorting.  Thresholds whose rows all
**      weigh 0 are not visited.
**
** Cost: O(n) for one sweep over sorted samples, O(1) extra memory.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
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

void ml_sweep_init_weighted(MlSweep *w, const MlSamples *s, const MlFilter *f,
                            const ml_weight *wt0, const ml_weight *wt1){
  static const ml_weight none = 0;      /* an empty class still marks the sweep weighted */
  ml_i64 i, c[2] = {0, 0};
  int y;
  memset(w, 0, sizeof(*w));
  w->s = s;
  w->f = f;
  w->i[0] = s->n[0];
  w->i[1] = s->n[1];
  w->wt[0] = wt0 ? wt0 : &none;
  w->wt[1] = wt1 ? wt1 : &none;
  for(y=0; y<2; y++){
    const ml_weight *wt = w->wt[y];
    if( f==0 ){
      for(i=0; i<s->n[y]; i++) c[y] += wt[i];
    }else{
      for(i=0; i<s->n[y]; i++) if( ml_filter_keeps(f, ml_samples_aux(s, y, i)) ) c[y] += wt[i];
    }
  }
  w->P = c[1]; w->N = c[0];
}

/* ml_sweep_next for a weighted sweep (with or without a filter). */
int ml_sweep_next_weighted(MlSweep *w){
  const MlSamples *s = w->s;
  const ml_key *a0 = (const ml_key*)s->a[0], *a1 = (const ml_key*)s->a[1];
  const size_t st = s->width/8;
  const ml_weight *w0 = w->wt[0], *w1 = w->wt[1];
  const MlFilter *f = w->f;
  ml_i64 i0 = w->i[0], i1 = w->i[1];
  for(;;){
    ml_i64 d0 = 0, d1 = 0;
    ml_key k;
    if( i0==0 && i1==0 ){ w->i[0] = w->i[1] = 0; return 0; }
    if( i0==0 ) k = a1[(i1-1)*st];
    else if( i1==0 ) k = a0[(i0-1)*st];
    else{
      ml_key k0 = a0[(i0-1)*st], k1 = a1[(i1-1)*st];
      k = k0>k1 ? k0 : k1;
    }
    if( f==0 ){
      while( i0>0 && a0[(i0-1)*st]==k ){ i0--; d0 += w0[i0]; }
      while( i1>0 && a1[(i1-1)*st]==k ){ i1--; d1 += w1[i1]; }
    }else{
      while( i0>0 && a0[(i0-1)*st]==k ){
        double z; i0--; memcpy(&z, &a0[i0*st+1], 8); if( ml_filter_keeps(f, z) ) d0 += w0[i0];
      }
      while( i1>0 && a1[(i1-1)*st]==k ){
        double z; i1--; memcpy(&z, &a1[i1*st+1], 8); if( ml_filter_keeps(f, z) ) d1 += w1[i1];
      }
    }
    if( d0==0 && d1==0 ) continue;          /* nothing of this threshold was drawn */
    w->i[0] = i0; w->i[1] = i1;
    w->key = k;
    w->dtp = d1; w->dfp = d0;
    w->tp += d1; w->fp += d0;
    return 1;
  }
}

double ml_fold_ap_sweep(MlSweep *w){
  MlSum ap = {0.0, 0.0};
  while( ml_sweep_next(w) ){
    if( w->dtp ) ml_sum_add(&ap, (double)w->dtp * ((double)w->tp / (double)(w->tp + w->fp)));
  }
  return ml_sum_value(&ap) / (double)w->P;
}

double ml_fold_average_precision(const MlSamples *s, const MlFilter *f){
  MlSweep w;
  ml_sweep_init(&w, s, f);
  return ml_fold_ap_sweep(&w);
}

double ml_fold_auroc_sweep(MlSweep *w){
  double area2 = 0.0;     /* twice the area, in units of one (pos, neg) pair */
  while( ml_sweep_next(w) ){
    /* Trapezoid between (fp-dfp, tp-dtp) and (fp, tp): integer arithmetic
    ** in doubles, exact while the counts stay below 2^53. */
    area2 += (double)w->dfp * (double)(2*w->tp - w->dtp);
  }
  return area2 / (2.0 * (double)w->P * (double)w->N);
}

double ml_fold_auroc(const MlSamples *s){
  MlSweep w;
  ml_sweep_init(&w, s, 0);
  return ml_fold_auroc_sweep(&w);
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
