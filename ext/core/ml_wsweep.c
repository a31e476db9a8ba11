/*
** SPDX-License-Identifier: MIT
**
** ml_wsweep.c -- the threshold sweep over weighted rows, and its folds.
**
** Provides: ml_wsweep_init/begin/next, ml_wfold_ap, ml_wfold_auroc,
** ml_wfold_top_k, ml_wfold_gains, ml_wfold_operating_point (youden_j, ks,
** tpr_at_fpr and partial_auroc are written once for both sweeps: ml_sweep.c
** rule 11, ml_wfold_youden_j & co.).
** Callers: ranking.c's weighted twins (pr_auc_w, nap_w, auroc_w,
** youden_j_w, tpr_at_fpr_w, sens_at_spec_w, ks_w, partial_auroc_w,
** pr_curve_w, roc_curve_w, precision_at_k_w, recall_at_k_w, gains_w).
**
** The sample is an MlSamples of width 16 (or 24: a stratifier after) whose aux is each row's weight
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
**   3. P and N are what tp and fp are at the end of the sweep (scikit-learn
**      divides by the last cumulative sum, tps[-1]), so the last point's
**      rates are exactly 1; found by one pass per class, without the merge.
**   4. Every fold is the unweighted fold's expression on these doubles, in
**      the same order, so integer weights give exactly the result of the
**      rows repeated (while the sums stay below 2^53).  The AUROC's twice-
**      area sum is accumulated exactly (each product split by fma into two
**      doubles, summed in an MlXsum), as the unweighted fold's integer count.
**   6. Products of two weight sums (the AUROC's trapezoids and P N, the
**      operating point's comparisons) are formed on the sums scaled by one
**      power of two each (ml_pow2_scale), so they neither underflow nor
**      overflow whatever the weights' scale, and weights c.w give the bits
**      of w for a power of two c (issue 38).
**   5. Cuts on the cumulative-weight axis (top k, gains' parts; ml_sweep.c
**      rule 7 with weight for rows): a tie group occupies [c, e) of the
**      axis from the top, c and e the running tp + fp before and after it
**      (e = W = P + N after the last).  A cut at x inside it counts
**      tp(c) + (x - c) dtp / (dtp + dfp) above it: its positive fraction
**      of the part of its weight inside the cut (all of it once x - c
**      reaches its weight).  On integers every one of these doubles is the
**      unweighted fold's count, in the same expression.
**
**   7. AP's terms dtp * precision are formed on dtp scaled by one power of
**      two (ml_pow2_scale of the first positive group's weight) and the sum
**      divided by tp scaled alike: weights near 1e-200 beside others near 1
**      (expected_pr_auc's p and 1 - p) give precision ~1e-200 and a term
**      that underflowed to 0 unscaled; a power-of-two scale is exact, so
**      every other result keeps its bits (integer weights still equal the
**      rows repeated).
**
** Cost: O(n) a sweep after the sort, and O(n) for the totals (ml_wsweep_init;
** ml_wsweep_begin leaves them out, for folds that need none before the end: AP); a tie group's
** sum is checked exact addition by addition (TwoSum) and taken over by an
** MlXsum (568 bytes, on the stack) only when an addition rounds.
*/
#include <math.h>
#include "ml_core.h"

/* The exact sum, correctly rounded, of the weights of class y's rows
** j, j+1, ..., i-1 (ml_exact_sum). */
static double weight_sum(const MlSamples *s, int y, ml_i64 j, ml_i64 i){
  return ml_exact_sum((const double*)(s->a[y] + (size_t)j*s->width + 8), s->width/8, i-j);
}

/* What tp (y = 1) or fp (y = 0) is at the end of a sweep (rule 3): the tie
** groups' sums of class y added highest key first, as the sweep adds them,
** without the merge with the other class. */
static double class_total(const MlSamples *s, int y){
  ml_i64 i = s->n[y];
  double t = 0.0;
  while( i>0 ){
    ml_key k = ml_samples_key(s, y, i-1);
    ml_i64 j = i-1;
    while( j>0 && ml_samples_key(s, y, j-1)==k ) j--;
    t += i-j==1 ? ml_samples_aux(s, y, j) : weight_sum(s, y, j, i);
    i = j;
  }
  return t;
}

/* The start of class y's tie group ending at row i (exclusive) of key k. */
static ml_i64 group_start(const MlSamples *s, int y, ml_i64 i, ml_key k){
  while( i>0 && ml_samples_key(s, y, i-1)==k ) i--;
  return i;
}

int ml_wsweep_next(MlWSweep *w){
  const MlSamples *s = w->s;
  ml_i64 i0 = w->i[0], i1 = w->i[1], j0, j1;
  ml_key k;
  if( i0==0 ){
    if( i1==0 ) return 0;
    k = ml_samples_key(s, 1, i1-1);
  }else if( i1==0 ){
    k = ml_samples_key(s, 0, i0-1);
  }else{
    ml_key k0 = ml_samples_key(s, 0, i0-1), k1 = ml_samples_key(s, 1, i1-1);
    k = k0>k1 ? k0 : k1;
  }
  j0 = group_start(s, 0, i0, k);
  j1 = group_start(s, 1, i1, k);
  w->dfp = j0==i0 ? 0.0 : i0-j0==1 ? ml_samples_aux(s, 0, j0) : weight_sum(s, 0, j0, i0);
  w->dtp = j1==i1 ? 0.0 : i1-j1==1 ? ml_samples_aux(s, 1, j1) : weight_sum(s, 1, j1, i1);
  w->tp += w->dtp;
  w->fp += w->dfp;
  w->i[0] = j0; w->i[1] = j1;
  w->key = k;
  return 1;
}

void ml_wsweep_begin(MlWSweep *w, const MlSamples *s){
  memset(w, 0, sizeof(*w));
  w->s = s;
  w->i[0] = s->n[0]; w->i[1] = s->n[1];
  w->P = w->N = NAN;
}

void ml_wsweep_init(MlWSweep *w, const MlSamples *s){
  ml_wsweep_begin(w, s);
  w->P = class_total(s, 1);
  w->N = class_total(s, 0);
}

/* A tie group's weight: one row's own, or the group's exact sum (rule 2). */
static double group_weight(const MlSamples *s, int y, ml_i64 j, ml_i64 i){
  return i-j==1 ? ml_samples_aux(s, y, j) : weight_sum(s, y, j, i);
}

/* The sweep's AP, walked by the positives' groups: each negative group above
** a positive group's key (and the one at it) adds its exact sum to fp in
** the sweep's order, so tp, fp and the terms are the sweep's bits; the
** negatives below the last positive, which cannot change AP, are not read.
** AP divides by the last tp: no totals first. */
double ml_wfold_ap(const MlSamples *s){
  ml_i64 i0 = s->n[0], i1 = s->n[1], j0, j1;
  double tp = 0.0, fp = 0.0, dtp, sp = 0.0;
  MlSum ap = {0.0, 0.0};
  unsigned k = 0;
  while( i1>0 ){
    ml_key key = ml_samples_key(s, 1, i1-1);
    while( i0>0 && ml_samples_key(s, 0, i0-1)>=key ){
      j0 = group_start(s, 0, i0, ml_samples_key(s, 0, i0-1));
      fp += group_weight(s, 0, j0, i0);
      i0 = j0;
      if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) return 0.0;   /* stopped: the caller discards it */
    }
    j1 = group_start(s, 1, i1, key);
    dtp = group_weight(s, 1, j1, i1);
    tp += dtp;
    if( sp==0.0 ) sp = ml_pow2_scale(dtp);      /* rule 7: once, at the first positive group */
    ml_sum_add(&ap, (dtp * sp) * (tp / (tp + fp)));
    i1 = j1;
    if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) break;
  }
  return ml_sum_value(&ap) / (tp * sp);
}

double ml_wfold_auroc(const MlSamples *s){
  MlWSweep w;
  MlXsum a;
  unsigned k = 0;
  double sp, sn;
  ml_wsweep_init(&w, s);
  ml_xsum_init(&a);
  sp = ml_pow2_scale(w.P); sn = ml_pow2_scale(w.N);    /* products of weights: scaled (rule 6) */
  while( ml_wsweep_next(&w) ){
    if( w.dfp>0.0 ){
      /* twice the trapezoid between (fp - dfp, tp - dtp) and (fp, tp) */
      double b = (2.0*w.tp - w.dtp)*sp, f = w.dfp*sn, hi = f * b, lo = fma(f, b, -hi);
      ml_xsum_add(&a, hi, 1);
      ml_xsum_add(&a, lo, 1);
    }
    if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) break;
  }
  return ml_xsum_round(&a) / (2.0 * (w.P*sp) * (w.N*sn));
}

double ml_wfold_top_k(const MlSamples *s, double k){
  MlWSweep w;
  double c = 0.0, tp0 = 0.0;      /* the axis and tp above the group */
  ml_wsweep_init(&w, s);
  if( k<=0.0 ) return 0.0;
  while( ml_wsweep_next(&w) ){
    double e = w.tp + w.fp, d = w.dtp + w.dfp, r = k - c;
    if( e>=k ){
      if( e==k || r>=d ) return w.tp;
      return tp0 + r * w.dtp / d;        /* ml_fold_top_k's expression */
    }
    c = e; tp0 = w.tp;
  }
  return w.tp;
}

void ml_wfold_gains(const MlSamples *s, ml_i64 B, MlGainsEmit emit, void *arg){
  MlWSweep w;
  double W, lo = 0.0, hi, c = 0.0, tp0 = 0.0, ipos = 0.0, fpos = 0.0;
  ml_i64 b = 0;
  ml_wsweep_init(&w, s);
  W = w.P + w.N;                        /* what tp + fp is after the last group */
  hi = ml_mass_edge_w(1, W, B);
  while( b<B && ml_wsweep_next(&w) ){
    double d = w.dtp + w.dfp, e = w.tp + w.fp, at = c;
    /* ml_fold_gains' walk: whole groups' positive weight in ipos, the
    ** pieces of split ones in fpos (rule 5) */
    while( at<e || at==hi ){
      double end = e<hi ? e : hi;
      if( at==c && end==e ) ipos += w.dtp;
      else if( end>at ) fpos += (end - at) * w.dtp / d;
      at = end;
      if( at==hi ){
        double cum = end==e ? w.tp : tp0 + (end - c) * w.dtp / d;
        emit(arg, b, hi - lo, hi, ipos + fpos, cum);
        if( ++b==B ) return;
        lo = hi;
        hi = ml_mass_edge_w(b+1, W, B);
        ipos = 0.0;
        fpos = 0.0;
      }
    }
    c = e; tp0 = w.tp;
  }
}

/* ml_fold_operating_point's criteria on weight sums (its rule 5). */
static int wop_meets(int criterion, double target, double tp, double fp, double P, double N){
  switch( criterion ){
    case ML_OP_FPR:         return fp/N <= target;
    case ML_OP_SPECIFICITY: return 1.0 - fp/N >= target;
    case ML_OP_SENSITIVITY: return tp/P >= target;
    case ML_OP_PRECISION:   return tp+fp>0.0 && tp/(tp+fp) >= target;
    default:                return 1;
  }
}
static int wop_better(int criterion, double tp, double fp, const MlWOpPoint *b, double P, double N, double sc){
  /* the products compare sums scaled by the fold's one power of two (rule 6) */
  double btp = b->tp*sc, bfp = b->fp*sc;
  tp *= sc; fp *= sc; P *= sc; N *= sc;
  switch( criterion ){
    case ML_OP_SENSITIVITY: return fp < bfp;
    case ML_OP_MAX_F1:      return tp*(btp + bfp + P) > btp*(tp + fp + P);
    case ML_OP_YOUDEN:      return tp*N - fp*P > btp*N - bfp*P;
    default:                return tp > btp;
  }
}

void ml_wfold_operating_point(const MlSamples *s, int criterion, double target, MlWOpPoint *out){
  MlWSweep w;
  double sc;
  ml_wsweep_init(&w, s);
  sc = ml_pow2_scale(w.P > w.N ? w.P : w.N);      /* once a fold, not once a candidate */
  memset(out, 0, sizeof(*out));
  out->P = w.P; out->N = w.N;
  out->allNegative = 1;
  out->achieved = wop_meets(criterion, target, 0.0, 0.0, w.P, w.N);
  while( ml_wsweep_next(&w) ){
    if( !wop_meets(criterion, target, w.tp, w.fp, w.P, w.N) ){
      if( criterion==ML_OP_FPR || criterion==ML_OP_SPECIFICITY ) break;
      continue;
    }
    if( !out->achieved || wop_better(criterion, w.tp, w.fp, out, w.P, w.N, sc) ){
      out->tp = w.tp; out->fp = w.fp; out->key = w.key;
      out->allNegative = 0;
      out->achieved = 1;
    }
    if( criterion==ML_OP_SENSITIVITY ) break;
  }
}

double ml_samples_prevalence(const MlSamples *s){
  MlWSweep w;
  if( !s->weighted ) return (double)s->n[1] / (double)(s->n[0] + s->n[1]);
  ml_wsweep_init(&w, s);
  return w.P / (w.P + w.N);
}
