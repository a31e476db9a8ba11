/*
** ml_delong.c -- DeLong's structural components with midranks.
** SPDX-License-Identifier: MIT
**
** Provides ml_delong_components(), behind auroc_ci (one score) and
** auroc_diff (two scores on the same rows) in uncertainty.c.
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
** Cost: O(n) time after two radix sorts, 16 bytes per row of scratch.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
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
