/*
** SPDX-License-Identifier: MIT
**
** ml_quantile.c -- numpy's default quantile (method 'linear', Hyndman & Fan
** type 7) by selection.
**
** Provides ml_quantile_pair(), used by stratified.c for the window
** [Q(ql), Q(qh)] of the stratifier, and its two pieces ml_quantile_index()
** and ml_lerp_np(), used by calibration.c for the quantile reliability
** bins over an already sorted sample; ml_quantile_pair_sorted(), the same
** quantiles of sorted values repeated by weights (strat_gap_ci's replicates,
** one O(n) walk each); ml_wquantile(), the quantile on a cumulative-weight
** axis (the weighted twins: reliability_w's quantile edges, the stratified
** twins' window).
**
** Rules:
**   1. The virtual index is h = (n-1)q; with j = floor(h), g = h - j the
**      result is lerp(a_(j), a_(j+1), g) written as numpy 1.24 writes it:
**      a + (b-a)g, or b - (b-a)(1-g) when g >= 0.5, so the value is the same
**      double numpy returns and a row equal to it is in or out the same way.
**   2. Order statistics are found by quickselect (median of three, with
**      three-way partition so heavy ties stay linear): O(n) expected, no
**      full sort.  The array is reordered.
**   3. Weighted (docs/weights.md, "Cuts on cumulative weight"): the values
**      ascending, value i occupying [below_i, below_i + w_i) of an axis of
**      length W; h = q (W - 1) (0 when W < 1), j = floor(h), the result
**      lerp(value at rank j, value at rank j + 1, h - j), the value at rank
**      r the one whose interval holds r (the largest when r >= W).  Every
**      weight 1 gives rule 1's double; integer weights give the quantile of
**      the values repeated.
*/
#include <math.h>
#include "ml_core.h"

static void swapd(double *a, double *b){ double t = *a; *a = *b; *b = t; }

/* Reorders a[lo..hi] so that a[k] holds the k-th smallest, with everything
** before it <= it and everything after >= it. */
static void select_kth(double *a, ml_i64 lo, ml_i64 hi, ml_i64 k){
  while( hi>lo ){
    ml_i64 mid = lo + (hi-lo)/2, lt, gt, i;
    double piv;
    /* median of three as pivot */
    if( a[mid]<a[lo] ) swapd(&a[mid], &a[lo]);
    if( a[hi]<a[lo] ) swapd(&a[hi], &a[lo]);
    if( a[hi]<a[mid] ) swapd(&a[hi], &a[mid]);
    piv = a[mid];
    /* Dutch-flag partition: [lo,lt) < piv, [lt,gt] == piv, (gt,hi] > piv */
    lt = lo; gt = hi; i = lo;
    while( i<=gt ){
      if( a[i]<piv ) swapd(&a[i++], &a[lt++]);
      else if( a[i]>piv ) swapd(&a[i], &a[gt--]);
      else i++;
    }
    if( k<lt ) hi = lt-1;
    else if( k>gt ) lo = gt+1;
    else return;
    if( hi-lo >= (1<<20) && ml_stop_requested() ) return;   /* abandoned: any value will do */
  }
}

static double min_of(const double *a, ml_i64 lo, ml_i64 hi){
  double m = a[lo];
  ml_i64 i;
  for(i=lo+1; i<=hi; i++) if( a[i]<m ) m = a[i];
  return m;
}

double ml_lerp_np(double a, double b, double g){
  double d = b - a;
  return g>=0.5 ? b - d*(1.0-g) : a + d*g;
}

/* Virtual index of quantile q in n values: integer part j, fraction g. */
void ml_quantile_index(ml_i64 n, double q, ml_i64 *j, double *g){
  double h = (double)(n-1)*q;
  *j = (ml_i64)floor(h);
  *g = h - (double)*j;
  if( *j>=n-1 ){ *j = n-1; *g = 0.0; }
}

void ml_quantile_pair(double *a, ml_i64 n, double q1, double q2, double *out1, double *out2){
  ml_i64 j1, j2;
  double g1, g2, next2;
  ml_quantile_index(n, q2, &j2, &g2);
  ml_quantile_index(n, q1, &j1, &g1);
  /* The upper one first.  Afterwards a[0..j2) <= a[j2] <= a(j2..n). */
  select_kth(a, 0, n-1, j2);
  next2 = (j2+1<n) ? min_of(a, j2+1, n-1) : a[j2];
  *out2 = ml_lerp_np(a[j2], next2, g2);
  if( j1==j2 ){
    *out1 = ml_lerp_np(a[j2], next2, g1);
  }else{
    /* j1 < j2: its order statistic is in the prefix; its successor is the
    ** smallest of a[j1+1..j2] (a[j2] bounds the prefix from above). */
    select_kth(a, 0, j2-1, j1);
    *out1 = ml_lerp_np(a[j1], min_of(a, j1+1, j2), g1);
  }
}

void ml_quantile_pair_sorted(const double *v, const ml_weight *w, ml_i64 n,
                             double q1, double q2, double *out1, double *out2){
  ml_i64 m = 0, i, j[2], want[4], at;
  double g[2], val[4];
  int k;
  for(i=0; i<n; i++) m += w ? w[i] : 1;
  ml_quantile_index(m, q1, &j[0], &g[0]);
  ml_quantile_index(m, q2, &j[1], &g[1]);
  want[0] = j[0]; want[1] = j[0]+1 < m ? j[0]+1 : j[0];
  want[2] = j[1]; want[3] = j[1]+1 < m ? j[1]+1 : j[1];
  /* one walk over the ranks wanted in ascending order (j1 + 1 may pass j2) */
  {
    int ord[4] = {0, 1, 2, 3};
    if( want[1] > want[2] ){ ord[1] = 2; ord[2] = 1; }
    for(i=0, at=0, k=0; i<n && k<4; i++){
      at += w ? w[i] : 1;                /* ranks [at - w_i, at) hold v[i] */
      while( k<4 && want[ord[k]] < at ) val[ord[k++]] = v[i];
    }
  }
  *out1 = ml_lerp_np(val[0], val[1], g[0]);
  *out2 = ml_lerp_np(val[2], val[3], g[1]);
}

/* The value at rank r of a cumulative-weight axis: the first value whose
** interval ends above r, looking from *at on (advanced: ranks are asked in
** ascending order); the largest when r >= W. */
double ml_wrank(const double *v, const double *below, size_t st, ml_i64 n, double r, ml_i64 *at){
  ml_i64 i = *at;
  while( i+1<n && !(below[(size_t)(i+1)*st] > r) ) i++;
  *at = i;
  return v[(size_t)i*st];
}

double ml_wquantile(const double *v, const double *below, size_t stride, ml_i64 n, double W,
                    double q, ml_i64 *at){
  double h = q * (W - 1.0), j, lo, hi;
  ml_i64 a;
  if( !(h>0.0) ) h = 0.0;
  j = floor(h);
  lo = ml_wrank(v, below, stride, n, j, at);
  a = *at;
  hi = ml_wrank(v, below, stride, n, j + 1.0, &a);
  return ml_lerp_np(lo, hi, h - j);
}
