/*
** SPDX-License-Identifier: MIT
**
** check_surv2.c -- the time-to-event core's part 2 (the second block of
** ml_surv.c): ml_surv_breaks against R's quantile(type 7) of seq(0, 1,
** 1/q) with duplicates merged (R's doubles, bit for bit), weights as
** repeated values; ml_surv_risk_above against survfit among p >= pt (R's
** doubles), the subset's follow-up ending before t (NaN), no row above pt,
** and one threshold at a time equal to the whole pass.
*/
#include <math.h>
#include <string.h>
#include "check_suites.h"
#include "ml_surv.h"

static void same_bits(double got, double want, const char *what){
  ck_assert_msg(memcmp(&got, &want, 8)==0, "%s: got %a, want %a", what, got, want);
}
static void near(double got, double want, const char *what){
  ck_assert_msg(fabs(got - want)<=1e-15 * (1.0 + fabs(want)), "%s: got %.17g, want %.17g", what, got, want);
}

/* 1 - S(tt) of ml_surv_fit (km()'s) over the rows with p >= pt. */
static double km_risk_above(const double *tt, const int *ev, const double *p, int n, double pt, double t){
  MlSamples s;
  MlSurvFit f;
  ml_i64 k;
  double r;
  int i;
  ml_surv_init(&s);
  for(i=0; i<n; i++) if( p[i]>=pt ) ck_assert_int_eq(ml_surv_add(&s, ev[i], tt[i], 1.0, p[i]), ML_OK);
  ck_assert_int_eq(ml_surv_fit(&s, &f), ML_OK);
  k = ml_surv_index(&f, t);
  r = 1.0 - (k>=0 ? f.S[k] : 1.0);
  ml_surv_fit_free(&f);
  ml_samples_clear(&s);
  return r;
}

static const double v10[10] = {0.12, 0.15, 0.15, 0.31, 0.4, 0.4, 0.4, 0.52, 0.77, 0.9};

START_TEST(breaks_r){
  /* R: unique(quantile(v10, seq(0, 1, 1/q), names = FALSE)) */
  static const double b3[4] = {0x1.eb851eb851eb8p-4, 0x1.3d70a3d70a3d7p-2, 0x1.999999999999ap-2, 0x1.ccccccccccccdp-1};
  static const double b4[5] = {0x1.eb851eb851eb8p-4, 0x1.851eb851eb852p-3, 0x1.999999999999ap-2,
                               0x1.f5c28f5c28f5cp-2, 0x1.ccccccccccccdp-1};
  static const double b7[8] = {0x1.eb851eb851eb8p-4, 0x1.3333333333333p-3, 0x1.ee721a54d880ap-3,
                               0x1.8c6f2d593bfa2p-2, 0x1.999999999999ap-2, 0x1.ce434a9b10176p-2,
                               0x1.65ab277f44c1p-1, 0x1.ccccccccccccdp-1};
  static const double *want[3] = {b3, b4, b7};
  static const int q[3] = {3, 4, 7}, nb[3] = {4, 5, 8};
  /* the same values as distinct values with counts (weights) */
  static const double vd[7] = {0.12, 0.15, 0.31, 0.4, 0.52, 0.77, 0.9};
  static const double wd[7] = {1, 2, 1, 3, 1, 1, 1};
  double out[16], outw[16];
  int i, k;
  for(i=0; i<3; i++){
    ml_i64 n = ml_surv_breaks(v10, 0, 10, 10.0, q[i], out);
    ml_i64 nw = ml_surv_breaks(vd, wd, 7, 10.0, q[i], outw);
    ck_assert_int_eq((int)n, nb[i]);
    ck_assert_int_eq((int)nw, nb[i]);
    for(k=0; k<nb[i]; k++){
      same_bits(out[k], want[i][k], "R's break");
      same_bits(outw[k], want[i][k], "weighted = repeated");
    }
  }
  /* one distinct value: one break; one row */
  ck_assert_int_eq((int)ml_surv_breaks(v10 + 4, 0, 3, 3.0, 10, out), 1);
  same_bits(out[0], 0.4, "constant");
  ck_assert_int_eq((int)ml_surv_breaks(v10, 0, 1, 1.0, 4, out), 1);
  ck_assert_int_eq((int)ml_surv_breaks(v10, 0, 0, 0.0, 4, out), 0);
}
END_TEST

START_TEST(risk_above_r){
  /* rows by descending p; R: 1 - summary(survfit(Surv(t, e) ~ 1, subset = p >= pt), times = 4.5)$surv */
  static const double tt[10] = {1, 2, 2, 3, 4, 5, 5, 6, 7, 8};
  static const int ev[10] = {1, 0, 1, 1, 0, 1, 0, 1, 0, 1};
  static const double p[10] = {.9, .8, .7, .6, .5, .4, .3, .2, .1, .05};
  static const double pt[4] = {0.95, 0.55, 0.35, 0.15};
  MlSamples s;
  MlSurvFit f;
  ml_i64 k[10];
  double w[10], pos[4], risk[4], pos1, risk1;
  unsigned char e[10];
  int i;
  ml_surv_init(&s);
  for(i=0; i<10; i++) ck_assert_int_eq(ml_surv_add(&s, ev[i], tt[i], 1.0, p[i]), ML_OK);
  ck_assert_int_eq(ml_surv_fit(&s, &f), ML_OK);
  for(i=0; i<10; i++){ k[i] = ml_surv_index(&f, tt[i]); w[i] = 1.0; e[i] = (unsigned char)ev[i]; }
  ck_assert_int_eq(ml_surv_risk_above(&f, k, w, e, p, 10, 4.5, pt, 4, pos, risk), ML_OK);
  same_bits(pos[0], 0.0, "nobody above 0.95");
  ck_assert(isnan(risk[0]));
  same_bits(pos[1], 0.4, "4 of 10 at or above 0.55");
  ck_assert_msg(isnan(risk[1]), "their follow-up ends at 3, before 4.5");
  near(risk[2], 0x1.1c71c71c71c72p-1, "survfit among p >= 0.35");
  near(risk[3], 0x1.9999999999998p-2, "survfit among p >= 0.15");
  /* and km()'s own doubles over those rows (R multiplies 1 - d/n, km() (n - d)/n) */
  same_bits(risk[2], km_risk_above(tt, ev, p, 10, 0.35, 4.5), "km() among p >= 0.35");
  same_bits(risk[3], km_risk_above(tt, ev, p, 10, 0.15, 4.5), "km() among p >= 0.15");
  /* one threshold alone gives the pass's doubles */
  for(i=0; i<4; i++){
    ck_assert_int_eq(ml_surv_risk_above(&f, k, w, e, p, 10, 4.5, pt + i, 1, &pos1, &risk1), ML_OK);
    same_bits(pos1, pos[i], "pos alone");
    if( !isnan(risk[i]) ) same_bits(risk1, risk[i], "risk alone");
  }
  ml_surv_fit_free(&f);
  ml_samples_clear(&s);
}
END_TEST

Suite *suite_surv2(void){
  Suite *s = suite_create("surv2");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, breaks_r);
  tcase_add_test(tc, risk_above_r);
  suite_add_tcase(s, tc);
  return s;
}
