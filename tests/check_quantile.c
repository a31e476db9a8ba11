/*
** SPDX-License-Identifier: MIT
**
** check_quantile.c -- numpy-default quantiles by selection (ml_quantile.c),
** against the same formula applied to a fully sorted copy.
*/
#include <math.h>
#include <stdlib.h>
#include "check_suites.h"
#include "ml_core.h"

static int cmp_double(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

/* numpy 1.24 'linear': h=(n-1)q, lerp written as numpy writes it. */
static double ref_quantile(const double *sorted, long n, double q){
  double h = (n-1)*q, g, a, b;
  long j = (long)floor(h);
  if( j>=n-1 ) return sorted[n-1];
  g = h - j; a = sorted[j]; b = sorted[j+1];
  return g>=0.5 ? b - (b-a)*(1-g) : a + (b-a)*g;
}

START_TEST(test_quantiles_match_sorted_reference){
  int trial;
  test_seed(7);
  for(trial=0; trial<300; trial++){
    long n = 1 + (long)(test_rand01()*(trial<100 ? 10 : 3000)), i;
    double *a = malloc(sizeof(double)*n), *b = malloc(sizeof(double)*n), q1, q2, o1, o2;
    int ties = trial%3==0;
    for(i=0; i<n; i++) a[i] = b[i] = ties ? floor(test_rand01()*7) : test_rand01()*100 - 50;
    q1 = test_rand01(); q2 = test_rand01();
    if( trial%10==0 ){ q1 = 0.0; q2 = 1.0; }
    if( q1>q2 ){ double t = q1; q1 = q2; q2 = t; }
    qsort(b, n, sizeof(double), cmp_double);
    ml_quantile_pair(a, n, q1, q2, &o1, &o2);
    ck_assert_msg(o1==ref_quantile(b, n, q1), "trial %d n %ld q1 %g: %.17g vs %.17g", trial, n, q1, o1, ref_quantile(b, n, q1));
    ck_assert_msg(o2==ref_quantile(b, n, q2), "trial %d n %ld q2 %g: %.17g vs %.17g", trial, n, q2, o2, ref_quantile(b, n, q2));
    free(a); free(b);
  }
}
END_TEST

START_TEST(test_quartiles_of_small_integers){
  double a[] = {7, 1, 3, 5, 9, 2, 8, 4, 6, 10}, lo, hi;   /* numpy: 3.25, 7.75 */
  ml_quantile_pair(a, 10, 0.25, 0.75, &lo, &hi);
  ck_assert(lo==3.25);
  ck_assert(hi==7.75);
}
END_TEST

Suite *suite_quantile(void){
  Suite *s = suite_create("quantile");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_quantiles_match_sorted_reference);
  tcase_add_test(tc, test_quartiles_of_small_integers);
  suite_add_tcase(s, tc);
  return s;
}
