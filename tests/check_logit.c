/*
** SPDX-License-Identifier: MIT
**
** check_logit.c -- the logistic fits behind calibration_summary
** (ml_logit.c) and DeLong over runs behind auroc_test (ml_delong.c).
*/
#include <math.h>
#include <stdlib.h>
#include "check_suites.h"
#include "ml_core.h"

static MlLogitRun run(double x, double n0, double n1){
  MlLogitRun r;
  r.x = x;
  r.w[0] = n0;
  r.w[1] = n1;
  return r;
}

/* The score equations at (a, b): sum (y - sigma(eta)) and its x-weighted twin. */
static void scores(const MlLogitRun *r, int n, int slope, double a, double b, double *s0, double *s1){
  int i;
  *s0 = *s1 = 0.0;
  for(i=0; i<n; i++){
    double x = r[i].x, eta = slope ? a + b*x : a + x;
    double p = 1.0/(1.0 + exp(-eta)), q = 1.0/(1.0 + exp(eta));
    double res = r[i].w[1]*q - r[i].w[0]*p;
    *s0 += res;
    *s1 += res*x;
  }
}

START_TEST(test_calibrated_runs_give_zero_and_one){
  /* each run's event rate is sigma(x): the maximum is exactly a = 0, b = 1 */
  MlLogitRun r[2];
  double a, b;
  int it;
  r[0] = run(log(1.0/3.0), 3, 1);    /* p = 1/4 */
  r[1] = run(log(3.0), 1, 3);        /* p = 3/4 */
  ck_assert_int_eq(ml_logit_fit(r, 2, 1, 0, &a, &b, &it), ML_LOGIT_OK);
  ck_assert_msg(fabs(a) < 1e-15 && fabs(b - 1.0) < 1e-15, "a %.17g b %.17g", a, b);
  ck_assert_int_eq(ml_logit_fit(r, 2, 0, 0, &a, &b, &it), ML_LOGIT_OK);
  ck_assert_msg(fabs(a) < 1e-15 && b==1.0, "offset: a %.17g", a);
}
END_TEST

START_TEST(test_wald_covariance_of_saturated_fits){
  /* two runs at x = 0 and 1, 3:1 and 1:3: the saturated model, whose
  ** covariance is the information [[3/2, 3/4], [3/4, 3/4]] inverted:
  ** var(a) = 4/3 (= 1/3 + 1/1, the log odds of the first run), var(b) = 8/3,
  ** cov(a, b) = -4/3 (x not centred, so the turn back from x - mean(x) is
  ** exercised) */
  MlLogitRun r[2];
  double a, b, cov[3];
  int it;
  r[0] = run(0.0, 3, 1);
  r[1] = run(1.0, 1, 3);
  ck_assert_int_eq(ml_logit_fit(r, 2, 1, 0, &a, &b, &it), ML_LOGIT_OK);
  ck_assert_int_eq(ml_logit_cov(r, 2, 1, a, b, cov), ML_LOGIT_OK);
  ck_assert_msg(fabs(cov[0] - 4.0/3.0) < 1e-14 && fabs(cov[1] - 8.0/3.0) < 1e-14
                && fabs(cov[2] + 4.0/3.0) < 1e-14, "cov %.17g %.17g %.17g", cov[0], cov[1], cov[2]);
  /* the offset fit: var = 1 / sum w sigma(1 - sigma) at its estimate */
  ck_assert_int_eq(ml_logit_fit(r, 2, 0, 0, &a, &b, &it), ML_LOGIT_OK);
  ck_assert_int_eq(ml_logit_cov(r, 2, 0, a, 1.0, cov), ML_LOGIT_OK);
  {
    double p0 = 1.0/(1.0 + exp(-a)), p1 = 1.0/(1.0 + exp(-(a + 1.0)));
    double want = 1.0/(4.0*p0*(1.0 - p0) + 4.0*p1*(1.0 - p1));
    ck_assert_msg(fabs(cov[0] - want) < 1e-14*want && isnan(cov[1]) && isnan(cov[2]),
                  "offset var %.17g, want %.17g", cov[0], want);
  }
  /* no estimate: the fit's reason */
  r[1] = run(0.0, 1, 3);
  ck_assert_int_eq(ml_logit_cov(r, 1, 1, 0.0, 0.0, cov), ML_LOGIT_CONSTANT);
}
END_TEST

/* calibration_summary's two fits in one go (ml_logit_calib): on calibrated
** and miscalibrated runs of 2000 distinct x it takes at most 8 passes over
** the runs (the fits one at a time and their covariances took 13), gives
** the estimates of the separate fits to 1e-14, and its covariances --
** the last evaluation's information moved to the estimate by the last
** step -- equal the information evaluated at the estimate to 1e-11. */
START_TEST(test_calib_fits_in_few_passes){
  int trial;
  test_seed(36);
  for(trial=0; trial<20; trial++){
    int n = 2000, i, it;
    MlLogitRun *r = malloc(sizeof(MlLogitRun)*(size_t)n);
    double a, b, cov[3], slope = trial%2 ? 1.0 : 0.6 + test_rand01(), shift = trial%3 ? 0.0 : -1.0;
    double g = 0.0, h = 0.0;
    MlLogitCalib c;
    for(i=0; i<n; i++){
      double x = -6.0 + 12.0*((double)i + test_rand01())/(double)n;
      double pr = 1.0/(1.0 + exp(-(shift + slope*x))), pp = 1.0/(1.0 + exp(-x));
      double w = 1.0 + (double)(ml_i64)(test_rand01()*3.0);
      double y1 = (double)(ml_i64)(w*pr + test_rand01());
      if( y1>w ) y1 = w;
      r[i] = run(x, w - y1, y1);
      g += y1 - w*pp; h += w*pp*(1.0 - pp);
    }
    ck_assert_int_eq(ml_logit_calib(r, n, g/h, &c), ML_LOGIT_OK);
    ck_assert_int_eq(c.rcCitl, ML_LOGIT_OK);
    ck_assert_int_eq(c.rcSlope, ML_LOGIT_OK);
    ck_assert_msg(c.nEval <= 8, "trial %d: %d passes", trial, c.nEval);
    ck_assert_int_eq(ml_logit_fit(r, n, 0, 0, &a, &b, &it), ML_LOGIT_OK);
    ck_assert_msg(fabs(c.citl - a) <= 1e-14*(1.0 + fabs(a)), "trial %d: citl %.17g, alone %.17g", trial, c.citl, a);
    ck_assert_int_eq(ml_logit_cov(r, n, 0, c.citl, 1.0, cov), ML_LOGIT_OK);
    ck_assert_msg(fabs(c.varCitl - cov[0]) <= 1e-11*cov[0], "trial %d: var citl %.17g, at the estimate %.17g",
                  trial, c.varCitl, cov[0]);
    ck_assert_int_eq(ml_logit_fit(r, n, 1, 0, &a, &b, &it), ML_LOGIT_OK);
    ck_assert_msg(fabs(c.a - a) <= 1e-14*(1.0 + fabs(a)) && fabs(c.b - b) <= 1e-14*(1.0 + fabs(b)),
                  "trial %d: (%.17g, %.17g), alone (%.17g, %.17g)", trial, c.a, c.b, a, b);
    ck_assert_int_eq(ml_logit_cov(r, n, 1, c.a, c.b, cov), ML_LOGIT_OK);
    for(i=0; i<3; i++){
      /* relative to var a, var b, and sqrt(var a var b) for the covariance */
      double sc = i==0 ? cov[0] : i==1 ? cov[1] : sqrt(cov[0]*cov[1]);
      ck_assert_msg(fabs(c.cov[i] - cov[i]) <= 1e-11*sc,
                    "trial %d: cov[%d] %.17g, at the estimate %.17g", trial, i, c.cov[i], cov[i]);
    }
    free(r);
  }
}
END_TEST

START_TEST(test_no_finite_estimate_is_named){
  MlLogitRun r[3];
  double a, b;
  int it;
  r[0] = run(-1.0, 2, 0); r[1] = run(0.5, 0, 3);
  ck_assert_int_eq(ml_logit_fit(r, 2, 1, 0, &a, &b, &it), ML_LOGIT_SEPARATED);
  ck_assert_int_eq(ml_logit_fit(r, 2, 0, 0, &a, &b, &it), ML_LOGIT_OK);   /* the offset fit exists */
  r[0] = run(-1.0, 2, 0); r[1] = run(0.0, 1, 1); r[2] = run(1.0, 0, 2);  /* quasi-complete: ties at 0 */
  ck_assert_int_eq(ml_logit_fit(r, 3, 1, 0, &a, &b, &it), ML_LOGIT_SEPARATED);
  r[0] = run(2.0, 0, 5);
  ck_assert_int_eq(ml_logit_fit(r, 1, 1, 0, &a, &b, &it), ML_LOGIT_ONE_CLASS);
  ck_assert_int_eq(ml_logit_fit(r, 1, 0, 0, &a, &b, &it), ML_LOGIT_ONE_CLASS);
  r[0] = run(2.0, 3, 5);
  ck_assert_int_eq(ml_logit_fit(r, 1, 1, 0, &a, &b, &it), ML_LOGIT_CONSTANT);
  /* reversed overlap (negatives above positives except one pair) is finite */
  r[0] = run(-1.0, 0, 2); r[1] = run(0.0, 1, 1); r[2] = run(1.0, 2, 0);
  ck_assert_int_eq(ml_logit_fit(r, 3, 1, 0, &a, &b, &it), ML_LOGIT_SEPARATED);
  r[1] = run(0.0, 2, 3);
  r[2] = run(1.0, 2, 1);
  ck_assert_int_eq(ml_logit_fit(r, 3, 1, 0, &a, &b, &it), ML_LOGIT_OK);
  ck_assert_msg(b<0.0, "a decreasing relation gives a negative slope, got %g", b);
}
END_TEST

/* Clipped logits of +-34.54 with every eta far out on one side: Newton
** would leap by 1e20; the capped steps reach the root of the score. */
START_TEST(test_flat_likelihood_converges){
  MlLogitRun r[4];
  double a, b, s0, s1;
  int it;
  r[0] = run(-34.538776394910684, 150, 0);
  r[1] = run(-1.0, 300, 2);
  r[2] = run(1.0, 280, 3);
  r[3] = run(34.538776394910684, 140, 0);
  ck_assert_int_eq(ml_logit_fit(r, 4, 0, 0, &a, &b, &it), ML_LOGIT_OK);
  scores(r, 4, 0, a, 1.0, &s0, &s1);
  ck_assert_msg(fabs(s0) < 1e-9 && a < -30.0, "offset a %.17g score %g", a, s0);
  ck_assert_int_eq(ml_logit_fit(r, 4, 1, 0, &a, &b, &it), ML_LOGIT_OK);
  scores(r, 4, 1, a, b, &s0, &s1);
  ck_assert_msg(fabs(s0) < 1e-9 && fabs(s1) < 1e-7, "slope a %g b %g scores %g %g", a, b, s0, s1);
}
END_TEST

/* Random tied data: the fit solves the score equations, and a start does
** not change the answer beyond the last digits. */
START_TEST(test_random_fits_solve_the_score_equations){
  int trial;
  test_seed(24);
  for(trial=0; trial<200; trial++){
    int n = 2 + (int)(test_rand01()*40), i, it, rc;
    MlLogitRun *r = malloc(sizeof(MlLogitRun)*(size_t)n);
    double a, b, a2, b2, s0, s1, st[2] = {0.3, 0.7};
    for(i=0; i<n; i++){
      double x = (i - n/2.0) * (0.1 + test_rand01());
      r[i] = run(x, (double)(1 + (ml_i64)(test_rand01()*5)), (double)(ml_i64)(test_rand01()*4));
    }
    for(i=1; i<n; i++) if( r[i].x <= r[i-1].x ) r[i].x = r[i-1].x + 0.5;
    rc = ml_logit_fit(r, n, 1, 0, &a, &b, &it);
    if( rc==ML_LOGIT_OK ){
      scores(r, n, 1, a, b, &s0, &s1);
      ck_assert_msg(fabs(s0) < 1e-9 && fabs(s1) < 1e-8, "trial %d: scores %g %g", trial, s0, s1);
      ck_assert_int_eq(ml_logit_fit(r, n, 1, st, &a2, &b2, &it), ML_LOGIT_OK);
      ck_assert_msg(fabs(a2 - a) <= 1e-12*(1 + fabs(a)) && fabs(b2 - b) <= 1e-12*(1 + fabs(b)),
                    "trial %d: start changes (%.17g, %.17g) to (%.17g, %.17g)", trial, a, b, a2, b2);
    }else{
      ck_assert_msg(rc==ML_LOGIT_SEPARATED || rc==ML_LOGIT_ONE_CLASS, "trial %d: rc %d", trial, rc);
    }
    free(r);
  }
}
END_TEST

/* Frequency weights: a run's weights are its rows' counts, so weights
** that are a constant times counts give the counts' fit (to rounding: the
** stopping rule is relative), and fractional weights solve the weighted
** score equations; a class of weight 0 in a run is absent from it. */
START_TEST(test_weighted_runs){
  int trial;
  test_seed(41);
  for(trial=0; trial<100; trial++){
    int n = 5 + (int)(test_rand01()*20), i, it, slope;
    MlLogitRun *r = malloc(sizeof(MlLogitRun)*(size_t)n), *rw = malloc(sizeof(MlLogitRun)*(size_t)n);
    double c = trial%2 ? 0.37 : 1e4, a, b, aw, bw, s0, s1;
    for(i=0; i<n; i++){
      r[i] = run(i - n/2.0 + 0.3*test_rand01(), (double)(1 + (ml_i64)(test_rand01()*4)),
                 (double)(1 + (ml_i64)(test_rand01()*4)));
      rw[i] = run(r[i].x, c*r[i].w[0], c*r[i].w[1]);
    }
    for(slope=0; slope<2; slope++){
      ck_assert_int_eq(ml_logit_fit(r, n, slope, 0, &a, &b, &it), ML_LOGIT_OK);
      ck_assert_int_eq(ml_logit_fit(rw, n, slope, 0, &aw, &bw, &it), ML_LOGIT_OK);
      ck_assert_msg(fabs(aw - a) <= 1e-12*(1 + fabs(a)) && fabs(bw - b) <= 1e-12*(1 + fabs(b)),
                    "trial %d slope %d: weights c * counts give (%.17g, %.17g), counts (%.17g, %.17g)",
                    trial, slope, aw, bw, a, b);
    }
    for(i=0; i<n; i++){ rw[i].w[0] = test_rand01()*3.0; rw[i].w[1] = test_rand01()*0.5; }
    rw[0].w[1] = 0.0; rw[n-1].w[0] = 0.0;   /* x ascending, n >= 5: the classes still overlap */
    ck_assert_int_eq(ml_logit_fit(rw, n, 1, 0, &aw, &bw, &it), ML_LOGIT_OK);
    scores(rw, n, 1, aw, bw, &s0, &s1);
    ck_assert_msg(fabs(s0) < 1e-10 && fabs(s1) < 1e-9, "trial %d: weighted scores %g %g", trial, s0, s1);
    free(r); free(rw);
  }
}
END_TEST

static int always_stop(void *arg){ (void)arg; return 1; }

/* An interrupted statement: the fit asks between Newton steps and stops. */
START_TEST(test_fit_stops_when_asked){
  MlLogitRun r[3];
  double a, b;
  int it;
  r[0] = run(-1.0, 3, 1); r[1] = run(0.0, 2, 2); r[2] = run(1.0, 1, 3);
  ml_stop_install(always_stop, 0);
  ck_assert_int_eq(ml_logit_fit(r, 3, 1, 0, &a, &b, &it), ML_LOGIT_STOPPED);
  ml_stop_install(0, 0);
  ck_assert_int_eq(ml_logit_fit(r, 3, 1, 0, &a, &b, &it), ML_LOGIT_OK);
}
END_TEST

/* DeLong over runs gives ml_delong_components' AUC and variance terms. */
START_TEST(test_delong_runs_match_components){
  int trial;
  test_seed(7);
  for(trial=0; trial<100; trial++){
    ml_i64 P = 1 + (ml_i64)(test_rand01()*30), N = 1 + (ml_i64)(test_rand01()*30), i, nRun;
    ml_key *kp = malloc(8*(size_t)P), *kn = malloc(8*(size_t)N);
    double *v10 = malloc(8*(size_t)P), *v01 = malloc(8*(size_t)N), sum2, auc, s10 = 0, s01 = 0;
    MlSamples smp;
    MlRun *r = malloc(sizeof(MlRun)*(size_t)(P + N));
    MlDelong d;
    ml_samples_init(&smp, 8);
    for(i=0; i<P; i++){ double v = floor(test_rand01()*8); kp[i] = ml_key_of(v); ml_samples_add(&smp, 1, v, 0); }
    for(i=0; i<N; i++){ double v = floor(test_rand01()*6); kn[i] = ml_key_of(v); ml_samples_add(&smp, 0, v, 0); }
    ck_assert_int_eq(ml_samples_sort(&smp), ML_OK);
    nRun = ml_samples_runs(&smp, r);
    sum2 = ml_delong_components(kp, P, kn, N, v10, v01);
    auc = sum2/(2.0*(double)P*(double)N);
    for(i=0; i<P; i++) s10 += (v10[i] - auc)*(v10[i] - auc);
    for(i=0; i<N; i++) s01 += (v01[i] - auc)*(v01[i] - auc);
    ml_delong_runs(r, nRun, &d);
    ck_assert(d.P==P && d.N==N);
    ck_assert_msg(d.auc==auc, "trial %d: auc %.17g vs %.17g", trial, d.auc, auc);
    ck_assert_msg(fabs(d.s10 - s10) <= 1e-12*(1 + s10) && fabs(d.s01 - s01) <= 1e-12*(1 + s01),
                  "trial %d: s10 %.17g vs %.17g, s01 %.17g vs %.17g", trial, d.s10, s10, d.s01, s01);
    ml_samples_clear(&smp);
    free(kp); free(kn); free(v10); free(v01); free(r);
  }
}
END_TEST

Suite *suite_logit(void){
  Suite *s = suite_create("logit");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_calibrated_runs_give_zero_and_one);
  tcase_add_test(tc, test_wald_covariance_of_saturated_fits);
  tcase_add_test(tc, test_calib_fits_in_few_passes);
  tcase_add_test(tc, test_no_finite_estimate_is_named);
  tcase_add_test(tc, test_flat_likelihood_converges);
  tcase_add_test(tc, test_random_fits_solve_the_score_equations);
  tcase_add_test(tc, test_weighted_runs);
  tcase_add_test(tc, test_fit_stops_when_asked);
  tcase_add_test(tc, test_delong_runs_match_components);
  suite_add_tcase(s, tc);
  return s;
}
