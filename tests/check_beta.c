/*
** SPDX-License-Identifier: MIT
**
** check_beta.c -- the incomplete beta function's inverse (ml_beta.c)
** against quantiles computed at 50 digits: mpmath's loggamma and the same
** continued fraction in multiple precision (checked against
** mpmath.betainc where that converges), solved by Newton's method from
** scipy's value.  The cases are the Clopper-Pearson bounds confusion_ci
** asks for -- Q(alpha/2; x, n-x+1) and Q(1-alpha/2; x+1, n-x) -- from n = 1
** to 10^9, the regimes where digits are easily lost (a or b in the tens of
** millions, a small with b large, a tail of 5e-11), and a few non-integer
** shapes.  scipy 1.10's beta.isf itself is off by up to 1.4e-10 on some of
** them (Q(0.75; 3, 9999998)); ours must be within 1e-13.
*/
#include <math.h>
#include "check_suites.h"
#include "ml_core.h"

/* upper 0: the x with I_x(a, b) = p; upper 1: the x with 1 - I_x(a, b) = p. */
static const struct { int upper; double p, a, b, x; } aBeta[] = {
  { 0, 0.025, 1.0, 10.0, 2.5285785444617846442e-3 },
  { 1, 0.025, 1.0, 10.0, 3.0849710781876082007e-1 },
  { 0, 0.025, 7.0, 1.0, 5.9038360277499654499e-1 },
  { 1, 0.025, 7.0, 1.0, 9.963897031380994165e-1 },
  { 0, 0.025, 3.0, 3.0, 1.4663279963467312197e-1 },
  { 1, 0.05, 3.0, 3.0, 8.1074462256222920521e-1 },
  { 1, 0.25, 4.0, 2.0, 8.0623639044602883177e-1 },
  { 0, 0.0025, 2.0, 19.0, 3.708891211433117424e-3 },
  { 0, 0.025, 35.0, 3.0, 8.1805088162225067543e-1 },
  { 1, 0.005, 11.0, 10.0, 7.8225251473874566324e-1 },
  { 1, 0.05, 61.0, 40.0, 6.824739847635005237e-1 },
  { 0, 0.005, 2.0, 999.0, 1.0354097257471615722e-4 },
  { 1, 0.4995, 501.0, 500.0, 5.0051964497776505714e-1 },
  { 0, 0.025, 668.0, 333.0, 6.378497983147290552e-1 },
  { 1, 0.25, 4.0, 12342.0, 4.1385102958144938729e-4 },
  { 0, 0.025, 1.0, 1000000.0, 2.5317807663794178967e-8 },
  { 1, 0.025, 1.0, 1000000.0, 3.6888726502064890227e-6 },
  { 0, 5e-07, 2.0, 99999.0, 1.000338482892347753e-8 },
  { 1, 0.025, 2.0, 99999.0, 5.5715160347742760704e-5 },
  { 1, 0.25, 4.0, 99997.0, 5.1093735953920089443e-5 },
  { 1, 0.025, 50001.0, 50000.0, 5.031039375081996029e-1 },
  { 0, 0.025, 50000.0, 50001.0, 4.968960624918003971e-1 },
  { 1, 0.025, 2.0, 9999999.0, 5.5716421173607311708e-7 },
  { 1, 0.25, 3.0, 9999998.0, 3.9204016838551621704e-7 },
  { 1, 0.05, 65.0, 9999936.0, 7.8804903226162836617e-6 },
  { 1, 0.025, 101.0, 9999900.0, 1.21626662272323087e-5 },
  { 1, 0.005, 1001.0, 9999000.0, 1.0843682933813424016e-4 },
  { 0, 0.005, 1000.0, 9999001.0, 9.2042766242378355515e-5 },
  { 1, 0.025, 100001.0, 9899999.0, 1.006186189633701077e-2 },
  { 0, 0.025, 100000.0, 9900001.0, 9.9384230568476962775e-3 },
  { 0, 0.025, 5000000.0, 5000001.0, 4.9969005252137108938e-1 },
  { 1, 0.025, 5000001.0, 5000000.0, 5.0030994747862891062e-1 },
  { 0, 5e-07, 8184876.0, 1815125.0, 8.1789080189152019901e-1 },
  { 1, 0.05, 8184877.0, 1815124.0, 8.1868806901672572174e-1 },
  { 0, 0.025, 9999998.0, 3.0, 9.9999927753142196126e-1 },
  { 1, 0.025, 9999999.0, 2.0, 9.9999997577907122788e-1 },
  { 0, 0.025, 3.0, 999999998.0, 6.1867212332289582562e-10 },
  { 1, 0.025, 4.0, 999999997.0, 8.7672730444606970571e-9 },
  { 0, 0.025, 500000000.0, 500000001.0, 4.9996900974842228227e-1 },
  { 1, 5e-11, 20.0, 30.0, 8.1446725727989841101e-1 },
  { 0, 5e-11, 20.0, 30.0, 7.1937384866831465737e-2 },
  { 0, 0.49, 12.0, 900.0, 1.2710691193684498656e-2 },
  { 0, 0.3, 0.5, 0.5, 2.0610737385376342131e-1 },
  { 1, 0.01, 2.5, 7.25, 6.1448003103689248422e-1 },
  { 0, 1e-09, 150.5, 2.5, 8.4569990450157221219e-1 },
  { 1, 0.2, 1234.5, 98765.25, 1.2637920097716824657e-2 },
};

START_TEST(test_beta_quantiles_match_50_digit_references){
  size_t i;
  for(i=0; i<sizeof(aBeta)/sizeof(aBeta[0]); i++){
    double got = aBeta[i].upper ? ml_beta_isf(aBeta[i].p, aBeta[i].a, aBeta[i].b)
                                : ml_beta_quantile(aBeta[i].p, aBeta[i].a, aBeta[i].b);
    double err = fabs(got - aBeta[i].x)/aBeta[i].x;
    ck_assert_msg(err <= 1e-13, "case %d (%s %g; %.17g, %.17g): %.17g, want %.17g (relative error %g)",
                  (int)i, aBeta[i].upper ? "isf" : "quantile", aBeta[i].p, aBeta[i].a, aBeta[i].b,
                  got, aBeta[i].x, err);
  }
}
END_TEST

/* The tails at the quantile give p back, and the two tails add to 1. */
START_TEST(test_beta_tails_invert_their_quantiles){
  size_t i;
  for(i=0; i<sizeof(aBeta)/sizeof(aBeta[0]); i++){
    double x = aBeta[i].x, a = aBeta[i].a, b = aBeta[i].b, p = aBeta[i].p;
    double lo = ml_beta_cdf(x, a, b), up = ml_beta_sf(x, a, b);
    double t = aBeta[i].upper ? up : lo;
    ck_assert_msg(fabs(lo + up - 1.0) <= 1e-15, "case %d: tails add to %.17g", (int)i, lo + up);
    /* x = 0.99999997...: rounding x moves 1 - x by 1e-9 of itself */
    if( x > 1.0 - 1e-6 ) continue;
    ck_assert_msg(fabs(t - p) <= 1e-9*p, "case %d: tail %.17g at the quantile, want %.17g", (int)i, t, p);
  }
}
END_TEST

START_TEST(test_beta_ends_and_closed_forms){
  ck_assert(ml_beta_quantile(0.0, 3, 4)==0.0);
  ck_assert(ml_beta_quantile(1.0, 3, 4)==1.0);
  ck_assert(ml_beta_isf(0.0, 3, 4)==1.0);
  ck_assert(ml_beta_isf(1.0, 3, 4)==0.0);
  ck_assert(ml_beta_cdf(0.0, 2, 2)==0.0 && ml_beta_sf(0.0, 2, 2)==1.0);
  ck_assert(ml_beta_cdf(1.0, 2, 2)==1.0 && ml_beta_sf(1.0, 2, 2)==0.0);
  /* Beta(2, 2): I_x = 3x^2 - 2x^3, so the median is 1/2 */
  ck_assert(fabs(ml_beta_cdf(0.25, 2, 2) - 0.15625) <= 1e-16);
  ck_assert(fabs(ml_beta_quantile(0.5, 2, 2) - 0.5) <= 1e-15);
  /* the quantiles of a p above 1/2 are the other tail's */
  ck_assert(ml_beta_quantile(0.75, 5, 9)==ml_beta_isf(0.25, 5, 9));
}
END_TEST

Suite *suite_beta(void){
  Suite *s = suite_create("beta");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_beta_quantiles_match_50_digit_references);
  tcase_add_test(tc, test_beta_tails_invert_their_quantiles);
  tcase_add_test(tc, test_beta_ends_and_closed_forms);
  suite_add_tcase(s, tc);
  return s;
}
