/*
** ml_delong.c -- DeLong's structural components with midranks.
** SPDX-License-Identifier: MIT
**
** Provides ml_delong_components(), behind auroc_ci (one score) and
** auroc_diff (two scores on the same rows) in uncertainty.c, and
** ml_delong_runs(), the same over distinct-score runs with counts, behind
** auroc_test (auroc_test.c), whose state form has only the runs.
**
** Rules (DeLong, DeLong & Clarke-Pearson 1988, computed as Sun & Xu 2014):
**   1. For positive i, v10[i] = (#negatives below + #negatives tied / 2)/N:
**      the midrank of the row among all rows minus its midrank among the
**      positives, over N.  For negative j, v01[j] = (#positives above +
**      #positives tied / 2)/P.  Ties count 1/2, as auroc does.
**   2. The AUC is the mean of either; it is returned as the exact integer
**      sum of 2 #below + #tied over the positives, so AUC = sum/(2 P N) is
**      the same double auroc() computes.
**   3. Each class is sorted once (radix sort of (key, index) records), then
**      one merge counts what lies below and what ties: O(n) after the sort.
**
** Cost: O(n) time after two radix sorts, 16 bytes per row of scratch;
** ml_delong_runs O(runs), no allocation.
*/
#include "ml_core.h"

/* Records (key, index) of one class, sorted by key. */
static MlRec16 *sorted_index(const ml_key *k, ml_i64 n, void *scratch){
  MlRec16 *r = ml_malloc(16*(uint64_t)(n ? n : 1));
  ml_i64 i;
  if( r==0 ) return 0;
  for(i=0; i<n; i++){ r[i].key = k[i]; r[i].aux = (double)i; }
  ml_radix_sort(r, n, 16, scratch);
  return r;
}

double ml_delong_components(const ml_key *kp, ml_i64 P, const ml_key *kn, ml_i64 N,
                            double *v10, double *v01){
  ml_i64 nMax = P > N ? P : N, i, j, lt, eq;
  double sum2 = 0.0;
  void *scratch = ml_malloc((uint64_t)nMax*16 + ML_RADIX_EXTRA);
  MlRec16 *rp = scratch ? sorted_index(kp, P, scratch) : 0;
  MlRec16 *rn = rp ? sorted_index(kn, N, scratch) : 0;
  if( rn==0 ){ ml_free(scratch); ml_free(rp); return -1.0; }
  /* positives, ascending: negatives strictly below and tied */
  for(i=0, lt=0; i<P; ){
    ml_key k = rp[i].key;
    while( lt<N && rn[lt].key<k ) lt++;
    for(eq=0; lt+eq<N && rn[lt+eq].key==k; eq++){}
    for(; i<P && rp[i].key==k; i++){
      v10[(ml_i64)rp[i].aux] = ((double)lt + 0.5*(double)eq)/(double)N;
      sum2 += (double)(2*lt + eq);
    }
  }
  /* negatives, ascending: positives strictly above and tied */
  for(j=0, lt=0; j<N; ){
    ml_key k = rn[j].key;
    while( lt<P && rp[lt].key<k ) lt++;
    for(eq=0; lt+eq<P && rp[lt+eq].key==k; eq++){}
    for(; j<N && rn[j].key==k; j++){
      v01[(ml_i64)rn[j].aux] = ((double)(P - lt - eq) + 0.5*(double)eq)/(double)P;
    }
  }
  ml_free(scratch);
  ml_free(rp);
  ml_free(rn);
  return sum2;
}

/* The same components over distinct-score runs: every positive of a run
** has V10 = (negatives below + negatives of the run / 2) / N, every
** negative V01 = (positives above + positives of the run / 2) / P, so each
** run adds its count times one squared deviation. */
void ml_delong_runs(const MlRun *r, ml_i64 nRun, MlDelong *out){
  ml_i64 P = 0, N = 0, negBelow = 0, posBelow = 0, i;
  double sum2 = 0.0, auc;
  MlSum s10 = {0.0, 0.0}, s01 = {0.0, 0.0};
  for(i=0; i<nRun; i++){ N += r[i].n[0]; P += r[i].n[1]; }
  for(i=0; i<nRun; i++){
    sum2 += (double)r[i].n[1] * (double)(2*negBelow + r[i].n[0]);
    negBelow += r[i].n[0];
  }
  auc = sum2 / (2.0 * (double)P * (double)N);          /* as ml_fold_auroc */
  for(negBelow=0, i=0; i<nRun; i++){
    if( r[i].n[1] ){
      double v = ((double)negBelow + 0.5*(double)r[i].n[0])/(double)N - auc;
      ml_sum_add(&s10, (double)r[i].n[1] * (v*v));
    }
    if( r[i].n[0] ){
      double v = ((double)(P - posBelow - r[i].n[1]) + 0.5*(double)r[i].n[1])/(double)P - auc;
      ml_sum_add(&s01, (double)r[i].n[0] * (v*v));
    }
    negBelow += r[i].n[0];
    posBelow += r[i].n[1];
  }
  out->P = P;
  out->N = N;
  out->auc = auc;
  out->s10 = ml_sum_value(&s10);
  out->s01 = ml_sum_value(&s01);
}
