/*
** SPDX-License-Identifier: MIT
**
** ml_sweep.c -- the one sorted threshold sweep every ranking metric folds over.
**
** Provides: ml_sweep_init/next (and their weighted forms), ml_count_classes, the
** weighted AP by plan (ml_ap_plan, ml_fold_ap_plan) and the folds
** ml_fold_average_precision (and ml_fold_ap_sum_plain, its terms summed
** plainly: multiclass_window.c's windows), ml_fold_auroc, ml_fold_youden_j,
** ml_fold_tpr_at_fpr, ml_fold_partial_auroc, ml_fold_operating_point,
** ml_fold_ks (and ml_wfold_youden_j, _ks, _tpr_at_fpr, _partial_auroc, the
** same folds over ml_wsweep.c's weighted sweep), ml_fold_top_k,
** ml_fold_gains, and ml_count_at_least.
** Callers: ranking.c (pr_auc, auroc, nap, youden_j, tpr_at_fpr,
** sens_at_spec, partial_auroc, operating_point, pr_curve, roc_curve, ks,
** precision_at_k, recall_at_k, gains, decision_curve), multiclass_window.c
** (mc_pr_auc's window frames), stratified.c (the same AP
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
**   4. Partial AUROC: whole trapezoids up to the last point with
**      FPR <= max_fpr, then the crossing segment interpolated at max_fpr as
**      numpy.interp does; McClish's standardisation 0.5 (1 + (A - m^2/2) /
**      (m - m^2/2)).
**   5. Operating points: the candidates are the all-negative point (highest
**      of all) and every distinct threshold; among equal optima the first
**      met along the sweep -- the highest threshold -- stays.
**   6. A weighted sweep (the bootstrap's replicates, ml_boot.c) counts row i
**      of class y wt[y][i] times: the counts are those of the resampled rows,
**      so every fold computes the metric of the replicate exactly as it would
**      on the rows repeated, without re-sorting.  It walks the canonical
**      order (MlCanon, both classes merged) with branch-free counting; a
**      threshold none of whose rows was drawn is visited with dtp = dfp = 0,
**      which no fold counts.
**   7. Cuts at a rank (top k, gains' parts): the rows are ranked by
**      score, highest first; a group of tied scores holding ranks
**      [g0, g1) that a cut splits counts, on each side, its positives in
**      proportion to its rows there -- the expected count over every order
**      of the tied rows.  A part's positives add its whole groups exactly
**      (integers) and at most two such fractions.
**
**   8. A buffer in runs form (MlSamples) sweeps its runs, one threshold
**      each, with the same counts its rows would give: every fold returns
**      the same double, and costs O(runs) whatever the counts.  Counts
**      products that pass 2^63 (states claiming 2^32 rows and more) are
**      formed in 128-bit integers (auroc's pair count, operating_point's
**      comparisons); below that nothing changes.
**   9. A weighted sample (MlSamples.weighted, the weighted twins) is handed
**      by ml_fold_average_precision, _auroc, _youden_j, _tpr_at_fpr,
**      _partial_auroc, _ks and _gains to their weighted forms (ml_wsweep.c),
**      so a caller folds either sample with the same call.  (Top k takes
**      its k as a double there: ml_wfold_top_k.)
**  10. AP of a weighted canonical order by plan (ml_ap_plan, ml_fold_ap_plan:
**      pr_auc_ci, nap_ci, pr_auc_diff_ci's replicates): the plan lists,
**      once, the scores that hold a positive; a replicate sums the drawn
**      weights between them and adds a term only there.  The weighted
**      sweep's term at any other score is dtp = 0 times a precision, an
**      exact +0.0, which leaves a compensated sum's bits as they are, so
**      the value is ml_fold_ap_sweep's double (tests/check_sweep.c).
**  11. One fold, two sweeps: youden_j, ks, tpr_at_fpr and partial_auroc are
**      written once (rate_gap_sweep, tpr_at_fpr_sweep, partial_auroc_sweep)
**      over either sweep's thresholds as doubles (sweep_next_d), compiled
**      once per sweep with the other sweep a constant 0: the counts'
**      instance converts its integers as it did, the weighted instance
**      (ml_wfold_youden_j, _ks, _tpr_at_fpr, _partial_auroc) reads
**      ml_wsweep.c's sums, so both are the expressions they were, bit for
**      bit.  Only partial_auroc's sum of whole trapezoids stays each
**      sweep's own (an integer count, an fma-split exact sum); over rows,
**      youden_j and ks keep max_rate_gap, which counts by index and has no
**      weighted form.
**
** Cost: O(n) for one sweep over sorted samples (O(runs) in runs form),
** O(1) extra memory; a plan 24 bytes per score that holds a positive.
*/
#include <math.h>
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
  if( s->run ){ w->run = s->run; w->iRun = s->nRun; w->i[0] = w->i[1] = 0; }
  ml_count_classes(s, f, &w->P, &w->N);
}

void ml_sweep_init_weighted(MlSweep *w, const MlCanon *c, const MlFilter *f, const ml_weight *wc){
  memset(w, 0, sizeof(*w));
  w->f = f;
  w->cn = c;
  w->wc = wc;
  w->r = c->n;
  w->P = w->N = -1;       /* known once the sweep has run: tp and fp at its end */
}

double ml_fold_ap_sweep(MlSweep *w){
  MlSum ap = {0.0, 0.0};
  unsigned k = 0;          /* ml_stop_requested every 2^20 thresholds */
  if( w->wc ){
    /* Weighted: no branch on dtp (which a replicate makes unpredictable);
    ** a term with dtp = 0 adds exactly 0, and tp + fp = 0 only then. */
    while( ml_sweep_next_weighted(w) ){
      ml_i64 d = w->tp + w->fp;
      ml_sum_add(&ap, (double)w->dtp * ((double)w->tp / (double)(d + (d==0))));
      if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) break;
    }
    w->P = w->tp; w->N = w->fp;
  }else{
    while( ml_sweep_next(w) ){
      if( w->dtp ) ml_sum_add(&ap, (double)w->dtp * ((double)w->tp / (double)(w->tp + w->fp)));
      if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) break;
    }
  }
  return ml_sum_value(&ap) / (double)w->tp;        /* tp = P once every row is passed */
}

/* Rule 10: AP's plan over an order of the rows by score, ascending (the
** canonical order, or pr_auc_diff_ci's rows by s_b, whose labels lie in any
** order among tied scores): the scores that hold a positive, each as its
** rows [lo, hi) and plo, its first positive. */
MlApGroup *ml_ap_plan(const MlCanon *c, ml_i64 *pN){
  ml_i64 i = 0, j, m = 0, cap = 16;
  MlApGroup *a = ml_malloc(sizeof(MlApGroup)*(uint64_t)cap);
  if( a==0 ) return 0;
  while( i<c->n ){
    ml_i64 k = -1;
    for(j=i; j<c->n && c->key[j]==c->key[i]; j++) if( k<0 && c->lab[j] ) k = j;
    if( k>=0 ){
      if( m==cap ){
        MlApGroup *b = ml_realloc(a, sizeof(MlApGroup)*(uint64_t)(cap *= 2));
        if( b==0 ){ ml_free(a); return 0; }
        a = b;
      }
      a[m].lo = i; a[m].plo = k; a[m].hi = j;
      m++;
    }
    i = j;
  }
  *pN = m;
  return a;
}

/* Rule 10: the weighted AP over a plan, highest score first.  C, the weight
** of the rows at or above a score, grows by the rows passed since the last
** planned score; the term dtp (tp / C) and its order are the weighted
** sweep's (ml_fold_ap_sweep), so the value is the same double. */
double ml_fold_ap_plan(const MlApGroup *a, ml_i64 m, const MlCanon *c, const ml_weight *wc,
                       uint64_t *pP, uint64_t *pN){
  MlSum ap = {0.0, 0.0};
  ml_i64 g, r, prev = c->n;
  uint64_t C = 0, tp = 0, rest = 0;
  for(g=m-1; g>=0; g--){
    const MlApGroup *q = &a[g];
    uint64_t d1 = 0;
    for(r=q->lo; r<prev; r++) C += wc[r];
    for(r=q->plo; r<q->hi; r++) d1 += wc[r] & (ml_weight)-(ml_weight)c->lab[r];
    prev = q->lo;
    if( d1 ){
      tp += d1;
      ml_sum_add(&ap, (double)d1 * ((double)tp / (double)C));
    }
  }
  for(r=0; r<prev; r++) rest += wc[r];
  *pP = tp;
  *pN = C + rest - tp;
  return ml_sum_value(&ap) / (double)tp;
}

/* AP without a filter, walking the positives: only a threshold that holds a
** positive adds a term, and there fp is the count of negatives >= its key,
** found by moving one pointer down the negatives.  The terms, and their
** order, are those of the general sweep, so the sum is the same bit for bit;
** but the loop over the negatives is a bare comparison (a sliding window
** runs this fold once per row). */
/* The rows form's sweep of ap_unfiltered: the sum of the terms d tp /
** (tp + fp), compensated (MlSum) or, plain, in plain double additions from
** the highest score (ml_fold_ap_sum_plain). */
static inline double ap_rows(const MlSamples *s, int plain){
  const ml_key *a0 = (const ml_key*)s->a[0], *a1 = (const ml_key*)s->a[1];
  const size_t st = s->width/8;
  const ml_i64 n0 = s->n[0];
  ml_i64 i0 = n0, i1 = s->n[1], tp = 0;
  MlSum ap = {0.0, 0.0};
  double sum = 0.0;
  unsigned nThr = 0;
  while( i1>0 ){
    ml_key k = a1[(i1-1)*st];
    ml_i64 d = 0, fp;
    double t;
    do{ i1--; d++; }while( i1>0 && a1[(i1-1)*st]==k );
    tp += d;
    if( st==1 ){
      while( i0>0 && a0[i0-1]>=k ) i0--;
    }else{
      while( i0>0 && a0[(i0-1)*st]>=k ) i0--;
    }
    fp = n0 - i0;
    t = (double)d * ((double)tp / (double)(tp + fp));
    if( plain ) sum += t; else ml_sum_add(&ap, t);
    if( (++nThr & 0xFFFFF)==0 && ml_stop_requested() ) break;   /* every 2^20 thresholds */
  }
  return plain ? sum : ml_sum_value(&ap);
}

static double ap_unfiltered(const MlSamples *s){
  if( s->run ){
    /* runs: each run holding positives adds a term, fp the negatives at
    ** and above it -- the same terms in the same order */
    ml_i64 i = s->nRun, tp = 0, fp = 0;
    MlSum ap = {0.0, 0.0};
    while( i>0 ){
      const MlRun *r = &s->run[--i];
      fp += r->n[0];
      if( r->n[1]==0 ) continue;
      tp += r->n[1];
      ml_sum_add(&ap, (double)r->n[1] * ((double)tp / (double)(tp + fp)));
    }
    return ml_sum_value(&ap) / (double)s->n[1];
  }
  return ap_rows(s, 0) / (double)s->n[1];
}

double ml_fold_ap_sum_plain(const MlSamples *s){ return ap_rows(s, 1); }

double ml_fold_average_precision(const MlSamples *s, const MlFilter *f){
  MlSweep w;
  if( s->weighted ) return ml_wfold_ap(s);        /* no filter: the twins are unstratified */
  if( f==0 ) return ap_unfiltered(s);
  ml_sweep_init(&w, s, f);
  return ml_fold_ap_sweep(&w);
}

__extension__ typedef __int128 ml_i128;

/* Twice the Mann-Whitney count over runs, from the top: each run's
** negatives count 2 per positive above and 1 per positive tied.  128-bit:
** P N passes 2^63 for counts a state can claim. */
static ml_i128 auroc_u2_runs(const MlSamples *s){
  ml_i64 i = s->nRun, gt = 0;
  ml_i128 area2 = 0;
  while( i>0 ){
    const MlRun *r = &s->run[--i];
    area2 += (ml_i128)r->n[0] * (2*gt + r->n[1]);
    gt += r->n[1];
  }
  return area2;
}

/* Each negative counts 2 per positive above it and 1 per tied positive
** (the trapezoids between sweep points, in integers).  Walk the negatives
** from the top, one group of equal keys at a time, moving one pointer
** down the positives: the same sum as the general sweep, without its
** per-threshold merge.  Inline with the stride st a constant at each call
** (1 for 8-byte records: the loops are bare compares). */
static inline ml_i64 auroc_u2_rows(const ml_key *a0, const ml_key *a1, ml_i64 i0, ml_i64 i1, size_t st){
  ml_i64 gt = 0, area2 = 0;
  while( i0>0 ){
    ml_key k = a0[(i0-1)*st];
    ml_i64 d0 = 0, eq = 0;
    do{ i0--; d0++; }while( i0>0 && a0[(i0-1)*st]==k );
    while( i1>0 && a1[(i1-1)*st]>k ){ i1--; gt++; }
    while( i1-eq>0 && a1[(i1-eq-1)*st]==k ) eq++;
    area2 += d0 * (2*gt + eq);
  }
  return area2;
}

ml_i64 ml_fold_auroc_u2(const MlSamples *s){
  const ml_key *a0 = (const ml_key*)s->a[0], *a1 = (const ml_key*)s->a[1];
  if( s->run ) return (ml_i64)auroc_u2_runs(s);
  if( s->width==8 ) return auroc_u2_rows(a0, a1, s->n[0], s->n[1], 1);
  return auroc_u2_rows(a0, a1, s->n[0], s->n[1], s->width/8);
}

double ml_fold_auroc(const MlSamples *s){
  if( s->weighted ) return ml_wfold_auroc(s);
  /* the same double below 2^63: both conversions round correctly */
  if( s->run ) return (double)auroc_u2_runs(s) / (2.0 * (double)s->n[1] * (double)s->n[0]);
  return (double)ml_fold_auroc_u2(s) / (2.0 * (double)s->n[1] * (double)s->n[0]);
}

double ml_fold_auroc_sweep(MlSweep *w){
  double area2 = 0.0;     /* twice the area, in units of one (pos, neg) pair */
  while( ml_sweep_next(w) ){
    /* Trapezoid between (fp-dfp, tp-dtp) and (fp, tp): integer arithmetic
    ** in doubles, exact while the counts stay below 2^53. */
    area2 += (double)w->dfp * (double)(2*w->tp - w->dtp);
  }
  if( w->wc ){ w->P = w->tp; w->N = w->fp; }
  return area2 / (2.0 * (double)w->tp * (double)w->fp);   /* tp = P, fp = N at the end */
}

/* The largest (rate of class c at or above a threshold) - (rate of the
** other class at or above it), and 0 (the all-below point): walking class
** c's keys from the top, one pointer down the other class's, as
** ap_unfiltered does.  Going down one threshold, the gap grows by class
** c's share of the tie group there and shrinks by the other class's, so
** its maxima lie at keys that hold class c: the same maximum as the
** general sweep over every threshold, each candidate computed from the
** same counts by the same expression, so bit for bit (c = 0 gives
** FPR - TPR, which is -(TPR - FPR) exactly).  Rows only (no runs). */
static double max_rate_gap(const MlSamples *s, int c){
  const ml_key *ac = (const ml_key*)s->a[c], *ao = (const ml_key*)s->a[1-c];
  const size_t st = s->width/8;
  const ml_i64 nc = s->n[c], no = s->n[1-c];
  ml_i64 ic = nc, io = no;
  double best = 0.0;
  unsigned nThr = 0;
  if( nc==0 || no==0 ) return 0.0;
  while( ic>0 ){
    ml_key k = ac[(ic-1)*st];
    double g;
    do{ ic--; }while( ic>0 && ac[(ic-1)*st]==k );
    while( io>0 && ao[(io-1)*st]>=k ) io--;
    g = (double)(nc - ic)/(double)nc - (double)(no - io)/(double)no;
    if( g>best ) best = g;
    if( (++nThr & 0xFFFFF)==0 && ml_stop_requested() ) break;   /* every 2^20 thresholds */
  }
  return best;
}

/* The next threshold of the sweep u or, given one, of the weighted sweep w
** (ml_wsweep.c), its counts or sums of weights as doubles (rule 11).  Each
** caller passes one of the two as a constant 0, so the test folds away. */
static ML_ALWAYS_INLINE int sweep_next_d(MlSweep *u, MlWSweep *w, double *tp, double *fp, double *P, double *N){
  if( w ){
    if( !ml_wsweep_next(w) ) return 0;
    *tp = w->tp; *fp = w->fp; *P = w->P; *N = w->N;
  }else{
    if( !ml_sweep_next(u) ) return 0;
    *tp = (double)u->tp; *fp = (double)u->fp; *P = (double)u->P; *N = (double)u->N;
  }
  return 1;
}

/* The largest TPR - FPR (absolute 0: youden_j) or |TPR - FPR| (1: ks) over
** the sweep's thresholds and 0 (the all-negative point). */
static ML_ALWAYS_INLINE double rate_gap_sweep(MlSweep *u, MlWSweep *w, int absolute){
  double best = 0.0, tp, fp, P, N;
  while( sweep_next_d(u, w, &tp, &fp, &P, &N) ){
    double j = tp/P - fp/N;
    if( absolute ) j = fabs(j);
    if( j>best ) best = j;
  }
  return best;
}

/* The TPR at the last threshold whose FPR <= target (bySpec: 1 - FPR >=
** target); the all-negative point always qualifies.  The test is written
** as the reference writes it so that a point on the boundary is decided
** the same way; fp only grows along the sweep: once over, it stays over. */
static ML_ALWAYS_INLINE double tpr_at_fpr_sweep(MlSweep *u, MlWSweep *w, double target, int bySpec){
  double best = 0.0, tp, fp, P, N;
  while( sweep_next_d(u, w, &tp, &fp, &P, &N) ){
    double fpr = fp/N;
    if( bySpec ? !(1.0 - fpr >= target) : !(fpr <= target) ) break;
    best = tp/P;
  }
  return best;
}

double ml_wfold_youden_j(const MlSamples *s){
  MlWSweep w;
  ml_wsweep_init(&w, s);
  return rate_gap_sweep(0, &w, 0);
}

double ml_fold_youden_j(const MlSamples *s){
  MlSweep w;
  if( s->weighted ) return ml_wfold_youden_j(s);
  if( !s->run ) return max_rate_gap(s, 1);
  ml_sweep_init(&w, s, 0);
  return rate_gap_sweep(&w, 0, 0);
}

double ml_wfold_tpr_at_fpr(const MlSamples *s, double target, int bySpec){
  MlWSweep w;
  ml_wsweep_init(&w, s);
  return tpr_at_fpr_sweep(0, &w, target, bySpec);
}

double ml_fold_tpr_at_fpr(const MlSamples *s, double target, int bySpec){
  MlSweep w;
  if( s->weighted ) return ml_wfold_tpr_at_fpr(s, target, bySpec);
  ml_sweep_init(&w, s, 0);
  return tpr_at_fpr_sweep(&w, 0, target, bySpec);
}

double ml_fold_tpr_at_fpr_sweep(MlSweep *w, double target, int bySpec){
  return tpr_at_fpr_sweep(w, 0, target, bySpec);
}

/* Partial AUROC (rule 4) over either sweep (rule 11): the walk, the
** crossing segment and McClish's standardisation written once; the whole
** trapezoids summed as each sweep sums them -- counts exactly in a double,
** in units of one (pos, neg) pair as auroc, weights split by fma into an
** exact sum on power-of-two scaled sums (ml_wsweep.c rule 6). */
static ML_ALWAYS_INLINE double partial_auroc_sweep(MlSweep *u, MlWSweep *w, double max_fpr){
  MlXsum a;
  double area2 = 0.0, part = 0.0, fp0 = 0.0, tp0 = 0.0, tp, fp, pa, lo, sp = 1.0, sn = 1.0;
  double P = w ? w->P : (double)u->P, N = w ? w->N : (double)u->N;
  if( w ){
    ml_xsum_init(&a);
    sp = ml_pow2_scale(P); sn = ml_pow2_scale(N);
  }
  while( sweep_next_d(u, w, &tp, &fp, &P, &N) ){
    double x1 = fp/N;
    if( x1 > max_fpr ){
      /* the segment that crosses max_fpr: numpy.interp between its ends
      ** (the start itself when it lies on max_fpr), then one trapezoid */
      double x0 = fp0/N, y0 = tp0/P, y1 = tp/P, yi;
      if( x0==max_fpr ) yi = y0;
      else yi = (y1 - y0)/(x1 - x0) * (max_fpr - x0) + y0;
      part = (max_fpr - x0) * (yi + y0) / 2.0;
      break;
    }
    if( !w ){
      area2 += (double)u->dfp * (double)(2*u->tp - u->dtp);     /* exact: integers */
    }else if( w->dfp>0.0 ){
      double b = (2.0*w->tp - w->dtp)*sp, f = w->dfp*sn, hi = f * b;
      ml_xsum_add(&a, hi, 1);
      ml_xsum_add(&a, fma(f, b, -hi), 1);
    }
    fp0 = fp; tp0 = tp;
  }
  pa = w ? ml_xsum_round(&a) / (2.0 * (P*sp) * (N*sn)) + part : area2 / (2.0 * P * N) + part;
  lo = 0.5 * max_fpr * max_fpr;            /* the diagonal's area up to max_fpr */
  return 0.5 * (1.0 + (pa - lo) / (max_fpr - lo));
}

double ml_wfold_partial_auroc(const MlSamples *s, double max_fpr){
  MlWSweep w;
  ml_wsweep_init(&w, s);
  return partial_auroc_sweep(0, &w, max_fpr);
}

double ml_fold_partial_auroc(const MlSamples *s, double max_fpr){
  MlSweep w;
  if( s->weighted ) return ml_wfold_partial_auroc(s, max_fpr);
  ml_sweep_init(&w, s, 0);
  return partial_auroc_sweep(&w, 0, max_fpr);
}

/* Does the all-negative point, or a point with counts (tp, fp), meet the
** target?  Written as the reference writes each test, so a point on the
** boundary is decided the same way. */
static int op_meets(int criterion, double target, ml_i64 tp, ml_i64 fp, ml_i64 P, ml_i64 N){
  switch( criterion ){
    case ML_OP_FPR:         return (double)fp/(double)N <= target;
    case ML_OP_SPECIFICITY: return 1.0 - (double)fp/(double)N >= target;
    case ML_OP_SENSITIVITY: return (double)tp/(double)P >= target;
    case ML_OP_PRECISION:   return tp+fp>0 && (double)tp/(double)(tp+fp) >= target;
    default:                return 1;
  }
}

/* Is (tp, fp) strictly better than the best so far?  Compared exactly in
** integers (F1 = 2tp/(tp+fp+P), J = (tp N - fp P)/(P N)), so that equal
** optima are equal whatever their doubles; 128-bit products, exact for any
** counts up to 2^53. */
static int op_better(int criterion, ml_i64 tp, ml_i64 fp, const MlOpPoint *b, ml_i64 P, ml_i64 N){
  switch( criterion ){
    case ML_OP_SENSITIVITY: return fp < b->fp;             /* max specificity */
    case ML_OP_MAX_F1:      return (ml_i128)tp*(b->tp + b->fp + P) > (ml_i128)b->tp*(tp + fp + P);
    case ML_OP_YOUDEN:      return (ml_i128)tp*N - (ml_i128)fp*P > (ml_i128)b->tp*N - (ml_i128)b->fp*P;
    default:                return tp > b->tp;             /* max TPR (recall) */
  }
}

void ml_fold_operating_point(const MlSamples *s, int criterion, double target, MlOpPoint *out){
  MlSweep w;
  ml_sweep_init(&w, s, 0);
  memset(out, 0, sizeof(*out));
  out->allNegative = 1;
  out->achieved = op_meets(criterion, target, 0, 0, w.P, w.N);
  while( ml_sweep_next(&w) ){
    if( !op_meets(criterion, target, w.tp, w.fp, w.P, w.N) ){
      /* fp only grows along the sweep: past the FPR bound nothing meets it */
      if( criterion==ML_OP_FPR || criterion==ML_OP_SPECIFICITY ) break;
      continue;
    }
    if( !out->achieved || op_better(criterion, w.tp, w.fp, out, w.P, w.N) ){
      out->tp = w.tp; out->fp = w.fp; out->key = w.key;
      out->allNegative = 0;
      out->achieved = 1;
    }
    /* tp and fp only grow: the first point over a TPR bound has the fewest fp */
    if( criterion==ML_OP_SENSITIVITY ) break;
  }
}

double ml_wfold_ks(const MlSamples *s){
  MlWSweep w;
  ml_wsweep_init(&w, s);
  return rate_gap_sweep(0, &w, 1);
}

double ml_fold_ks(const MlSamples *s){
  MlSweep w;
  if( s->weighted ) return ml_wfold_ks(s);
  if( !s->run ){
    double up = max_rate_gap(s, 1), down = max_rate_gap(s, 0);
    return up>down ? up : down;
  }
  ml_sweep_init(&w, s, 0);
  return rate_gap_sweep(&w, 0, 1);
}

double ml_fold_top_k(const MlSamples *s, ml_i64 k){
  MlSweep w;
  ml_sweep_init(&w, s, 0);
  if( k<=0 ) return 0.0;
  while( ml_sweep_next(&w) ){
    ml_i64 d = w.dtp + w.dfp, end = w.tp + w.fp;
    if( end>=k ){
      ml_i64 r = k - (end - d);           /* rows of this group inside the top k */
      if( r==d ) return (double)w.tp;
      return (double)(w.tp - w.dtp) + (double)r * (double)w.dtp / (double)d;
    }
  }
  return (double)w.tp;
}

/* Restores the min-heap property of h[0..n) below slot i. */
static void heap_down(ml_key *h, ml_i64 n, ml_i64 i){
  ml_key v = h[i];
  for(;;){
    ml_i64 c = 2*i + 1;
    if( c>=n ) break;
    if( c+1<n && h[c+1]<h[c] ) c++;
    if( h[c]>=v ) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = v;
}

double ml_top_k_select(const MlSamples *s, ml_i64 k, ml_key *heap){
  ml_i64 m = 0, i, above[2] = {0, 0}, eq[2] = {0, 0}, d, r;
  ml_key t;
  int y;
  /* the k largest keys in a min-heap: its root is the k-th largest */
  for(y=0; y<2; y++){
    const ml_key *a = (const ml_key*)s->a[y];
    for(i=0; i<s->n[y]; i++){
      ml_key v = a[i];
      if( m<k ){
        heap[m++] = v;
        if( m==k ){ ml_i64 j; for(j=k/2; j-- > 0; ) heap_down(heap, k, j); }
      }else if( v>heap[0] ){
        heap[0] = v;
        heap_down(heap, k, 0);
      }
    }
  }
  t = heap[0];
  for(y=0; y<2; y++){
    const ml_key *a = (const ml_key*)s->a[y];
    ml_i64 gt = 0, e = 0;
    for(i=0; i<s->n[y]; i++){ gt += a[i]>t; e += a[i]==t; }
    above[y] = gt; eq[y] = e;
  }
  /* ml_fold_top_k's arithmetic at the tie group of t: it holds d rows,
  ** r of them inside the top k */
  d = eq[0] + eq[1];
  r = k - (above[0] + above[1]);
  if( r==d ) return (double)(above[1] + eq[1]);
  return (double)above[1] + (double)r * (double)eq[1] / (double)d;
}

/* The tie group holding rank r (0-based from the top, r < n) of sorted
** rows: its first rank *g0, its rows *d, its positives *dtp, and the
** positives ranked above it *tp0 -- by binary search on the key (the
** largest key with at least r + 1 rows at or above it), O(64 log n). */
static void group_at_rank(const MlSamples *s, ml_i64 r, ml_i64 *g0, ml_i64 *d, ml_i64 *dtp, ml_i64 *tp0){
  ml_key lo = 0, hi = (ml_key)-1;
  ml_i64 gt0, gt1;
  while( lo<hi ){                   /* the largest v with count(>= v) > r */
    ml_key m = hi - (hi-lo)/2;
    if( s->n[0] - ml_samples_bound(s, 0, m, 0) + s->n[1] - ml_samples_bound(s, 1, m, 0) > r ) lo = m;
    else hi = m-1;
  }
  gt0 = s->n[0] - ml_samples_bound(s, 0, lo, 1);
  gt1 = s->n[1] - ml_samples_bound(s, 1, lo, 1);
  *g0 = gt0 + gt1;
  *tp0 = gt1;
  *dtp = s->n[1] - ml_samples_bound(s, 1, lo, 0) - gt1;
  *d = s->n[0] - ml_samples_bound(s, 0, lo, 0) - gt0 + *dtp;
}

/* ml_fold_gains over rows: each part's pieces found by binary search at
** its two edges instead of a sweep over every threshold.  The same
** arithmetic in the same order as the sweep below: positives of the tie
** groups wholly inside the part as an integer, then the share of the
** group split at the part's top edge, then of the one split at its
** bottom edge (one piece when one group spans the part); the cumulative
** count at the bottom edge as the sweep's cum.  O(B log^2 n). */
static void gains_rows(const MlSamples *s, ml_i64 B, MlGainsEmit emit, void *arg){
  ml_i64 n = ml_samples_count(s), b, lo = 0;
  ml_i64 g0L = 0, dL = 0, dtpL = 0, tp0L = 0;      /* the group at rank lo */
  for(b=0; b<B; b++){
    ml_i64 hi = ml_mass_edge(b+1, n, B), g0H, dH, dtpH, tp0H, loFull, hiFull, ipos;
    double fpos = 0.0, cum;
    int splitLo, splitHi;
    if( b==0 ) group_at_rank(s, 0, &g0L, &dL, &dtpL, &tp0L);
    if( hi<n ) group_at_rank(s, hi, &g0H, &dH, &dtpH, &tp0H);
    else{ g0H = n; dH = 0; dtpH = 0; tp0H = s->n[1]; }
    splitLo = g0L < lo;                            /* lo falls inside its group */
    splitHi = g0H < hi;                            /* so does hi */
    loFull = splitLo ? g0L + dL : lo;              /* the whole groups: [loFull, hiFull) */
    hiFull = splitHi ? g0H : hi;
    if( splitLo && g0L==g0H ){                     /* one group spans the part */
      ipos = 0;
      fpos += (double)(hi - lo) * (double)dtpL / (double)dL;
    }else{
      ml_i64 tpLoFull = splitLo ? tp0L + dtpL : tp0L;   /* positives above loFull */
      ipos = (hiFull > loFull) ? tp0H - tpLoFull : 0;
      if( splitLo ) fpos += (double)(loFull - lo) * (double)dtpL / (double)dL;
      if( splitHi ) fpos += (double)(hi - g0H) * (double)dtpH / (double)dH;
    }
    cum = splitHi ? (double)tp0H + (double)(hi - g0H) * (double)dtpH / (double)dH : (double)tp0H;
    emit(arg, b, (double)(hi - lo), (double)hi, (double)ipos + fpos, cum);
    lo = hi;
    g0L = g0H; dL = dH; dtpL = dtpH; tp0L = tp0H;
  }
}

void ml_fold_gains(const MlSamples *s, ml_i64 B, MlGainsEmit emit, void *arg){
  ml_i64 n = ml_samples_count(s), b = 0, lo = 0, hi = ml_mass_edge(1, n, B), ipos = 0;
  double fpos = 0.0;          /* part b's share of the groups it splits (rule 7) */
  MlSweep w;
  if( s->weighted ){ ml_wfold_gains(s, B, emit, arg); return; }
  if( !s->run ){ gains_rows(s, B, emit, arg); return; }
  ml_sweep_init(&w, s, 0);
  while( b<B && ml_sweep_next(&w) ){
    ml_i64 d = w.dtp + w.dfp, g1 = w.tp + w.fp, g0 = g1 - d, at = g0;
    while( at<g1 || at==hi ){
      ml_i64 end = g1<hi ? g1 : hi;
      if( end - at==d ) ipos += w.dtp;
      else if( end>at ) fpos += (double)(end - at) * (double)w.dtp / (double)d;
      at = end;
      if( at==hi ){
        double cum = end==g1 ? (double)w.tp
                             : (double)(w.tp - w.dtp) + (double)(end - g0) * (double)w.dtp / (double)d;
        emit(arg, b, (double)(hi - lo), (double)hi, (double)ipos + fpos, cum);
        if( ++b==B ) return;
        lo = hi;
        hi = ml_mass_edge(b+1, n, B);
        ipos = 0;
        fpos = 0.0;
      }
    }
  }
}

void ml_count_at_least(const MlSamples *s, ml_i64 idx[ML_COUNT_CURSOR], ml_key k, ml_i64 *tp, ml_i64 *fp){
  const size_t st = s->width/8;
  int y;
  if( s->run ){
    /* idx[2]: the runs passed; idx[0], idx[1]: their rows of each class */
    ml_i64 i = idx[2];
    while( i<s->nRun && s->run[i].key<k ){ idx[0] += s->run[i].n[0]; idx[1] += s->run[i].n[1]; i++; }
    idx[2] = i;
    *tp = s->n[1] - idx[1];
    *fp = s->n[0] - idx[0];
    return;
  }
  for(y=0; y<2; y++){
    const ml_key *a = (const ml_key*)s->a[y];
    ml_i64 i = idx[y];
    while( i<s->n[y] && a[i*st]<k ) i++;
    idx[y] = i;
  }
  *tp = s->n[1] - idx[1];
  *fp = s->n[0] - idx[0];
}
