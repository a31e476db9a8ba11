/*
** SPDX-License-Identifier: MIT
**
** ml_wsweep.c -- the threshold sweep over weighted rows, and its folds.
**
** Provides: ml_wsweep_init/next, ml_wfold_ap, ml_wfold_auroc,
** ml_wfold_youden_j, ml_wfold_tpr_at_fpr, ml_wfold_ks.  Callers: ranking.c's
** weighted twins (pr_auc_w, nap_w, auroc_w, youden_j_w, tpr_at_fpr_w,
** sens_at_spec_w, ks_w, pr_curve_w, roc_curve_w).
**
** The sample is an MlSamples of width 16 whose aux is each row's weight
** w > 0 (rows of weight 0 never enter it: scikit-learn drops them before
** forming thresholds).  Counts become sums of weights, as scikit-learn's
** sample_weight defines them.
**
** Rules:
**   1. Thresholds are the distinct scores, highest first, as in ml_sweep.c;
**      after a step tp and fp are the weights of the rows with score >= key.
**   2. The weight of a threshold's rows of one class (dtp, dfp) is their
**      exact sum, correctly rounded (MlXsum when more than one row ties), so
**      it does not depend on the order the tied rows are held in: a window
**      frame, whose sorted rows are kept by insertion, gives the aggregate's
**      bits.  tp and fp add these, highest threshold first.
**   3. P and N are tp and fp at the end of the sweep (scikit-learn divides by
**      the last cumulative sum, tps[-1]).
**   4. Every fold is the unweighted fold's expression on these doubles, in
**      the same order, so integer weights give exactly the result of the
**      rows repeated (while the sums stay below 2^53).  The AUROC's twice-
**      area sum is accumulated exactly (each product split by fma into two
**      doubles, summed in an MlXsum), as the unweighted fold's integer count.
**
** Cost: O(n) a sweep after the sort; an MlXsum (568 bytes, on the stack)
** only for tie groups of more than one row.
*/
#include <math.h>
#include "ml_core.h"

/* The exact sum of the weights of class y's rows j, j+1, ..., i-1 (one key). */
static double group_weight(const MlSamples *s, int y, ml_i64 j, ml_i64 i){
  MlXsum a;
  ml_i64 r;
  if( i-j==1 ) return ml_samples_aux(s, y, j);
  ml_xsum_init(&a);
  for(r=j; r<i; r++) ml_xsum_add(&a, ml_samples_aux(s, y, r), 1);
  return ml_xsum_round(&a);
}

int ml_wsweep_next(MlWSweep *w){
  const MlSamples *s = w->s;
  ml_i64 i0 = w->i[0], i1 = w->i[1], j0, j1;
  ml_key k;
  if( i0==0 && i1==0 ) return 0;
  if( i0==0 ) k = ml_samples_key(s, 1, i1-1);
  else if( i1==0 ) k = ml_samples_key(s, 0, i0-1);
  else{
    ml_key k0 = ml_samples_key(s, 0, i0-1), k1 = ml_samples_key(s, 1, i1-1);
    k = k0>k1 ? k0 : k1;
  }
  j0 = i0; while( j0>0 && ml_samples_key(s, 0, j0-1)==k ) j0--;
  j1 = i1; while( j1>0 && ml_samples_key(s, 1, j1-1)==k ) j1--;
  w->dfp = j0<i0 ? group_weight(s, 0, j0, i0) : 0.0;
  w->dtp = j1<i1 ? group_weight(s, 1, j1, i1) : 0.0;
  w->tp += w->dtp;
  w->fp += w->dfp;
  w->i[0] = j0; w->i[1] = j1;
  w->key = k;
  return 1;
}

void ml_wsweep_init(MlWSweep *w, const MlSamples *s){
  MlWSweep a;
  memset(&a, 0, sizeof(a));
  a.s = s;
  a.i[0] = s->n[0]; a.i[1] = s->n[1];
  *w = a;
  while( ml_wsweep_next(&a) ){}      /* P and N: the sweep's own last sums (rule 3) */
  w->P = a.tp;
  w->N = a.fp;
}

double ml_wfold_ap(const MlSamples *s){
  MlWSweep w;
  MlSum ap = {0.0, 0.0};
  unsigned k = 0;
  ml_wsweep_init(&w, s);
  while( ml_wsweep_next(&w) ){
    if( w.dtp>0.0 ) ml_sum_add(&ap, w.dtp * (w.tp / (w.tp + w.fp)));
    if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) break;
  }
  return ml_sum_value(&ap) / w.tp;
}

double ml_wfold_auroc(const MlSamples *s){
  MlWSweep w;
  MlXsum a;
  unsigned k = 0;
  ml_wsweep_init(&w, s);
  ml_xsum_init(&a);
  while( ml_wsweep_next(&w) ){
    if( w.dfp>0.0 ){
      /* twice the trapezoid between (fp - dfp, tp - dtp) and (fp, tp) */
      double b = 2.0*w.tp - w.dtp, hi = w.dfp * b, lo = fma(w.dfp, b, -hi);
      ml_xsum_add(&a, hi, 1);
      ml_xsum_add(&a, lo, 1);
    }
    if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) break;
  }
  return ml_xsum_round(&a) / (2.0 * w.P * w.N);
}

double ml_wfold_youden_j(const MlSamples *s){
  MlWSweep w;
  double best = 0.0;
  ml_wsweep_init(&w, s);
  while( ml_wsweep_next(&w) ){
    double j = w.tp/w.P - w.fp/w.N;
    if( j>best ) best = j;
  }
  return best;
}

double ml_wfold_tpr_at_fpr(const MlSamples *s, double target, int bySpec){
  MlWSweep w;
  double best = 0.0;
  ml_wsweep_init(&w, s);
  while( ml_wsweep_next(&w) ){
    double fpr = w.fp/w.N;
    if( bySpec ? !(1.0 - fpr >= target) : !(fpr <= target) ) break;
    best = w.tp/w.P;
  }
  return best;
}

double ml_wfold_ks(const MlSamples *s){
  MlWSweep w;
  double best = 0.0;
  ml_wsweep_init(&w, s);
  while( ml_wsweep_next(&w) ){
    double j = fabs(w.tp/w.P - w.fp/w.N);
    if( j>best ) best = j;
  }
  return best;
}
