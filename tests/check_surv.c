/*
** SPDX-License-Identifier: MIT
**
** check_surv.c -- the time-to-event core (ml_surv.c) on hand cases whose
** values R gives: survfit's Kaplan-Meier and Greenwood se, prodlim's
** reverse Kaplan-Meier (the censoring curve G, SPEC C2), riskRegression
** Score's AUC(t) and Brier(t) (C5, C10), among them the seven rows of
** scikit-survival issue #428 (a censoring tied with an event at 11); the
** weights of C3-C5 and C9 one by one; integer weights against the rows
** repeated, and the rows held in any order, bit for bit; C11's integral.
*/
#include <math.h>
#include <string.h>
#include "check_suites.h"
#include "ml_surv.h"
#include "ml_state.h"

static void same_bits(double got, double want, const char *what){
  ck_assert_msg(memcmp(&got, &want, 8)==0, "%s: got %.17g, want %.17g", what, got, want);
}
static void near(double got, double want, const char *what){
  ck_assert_msg(fabs(got - want)<=1e-15 * (1.0 + fabs(want)), "%s: got %.17g, want %.17g", what, got, want);
}

/* The seven rows of scikit-survival #428. */
static const double t428[7] = {11, 11, 26, 89, 128, 299, 300};
static const int e428[7] = {1, 0, 0, 1, 0, 1, 0};
static const double r428[7] = {-0.02, 1.20, -0.56, -1.33, -0.81, 1.02, -1.29};

static void load(MlSamples *s, int n, const double *t, const int *e, const double *x, const double *w){
  int i;
  ml_surv_init(s);
  for(i=0; i<n; i++) ck_assert_int_eq(ml_surv_add(s, e[i], t[i], w ? w[i] : 1.0, x[i]), ML_OK);
}

START_TEST(km_and_g_428){
  /* R: survfit(Surv(time, event) ~ 1)$surv, $std.err * $surv;
  ** prodlim(Hist(time, event) ~ 1, reverse = TRUE)$surv */
  static const double S[6] = {0.85714285714285710, 0.85714285714285710, 0.64285714285714279,
                              0.64285714285714279, 0.32142857142857140, 0.32142857142857140};
  static const double se[6] = {0.13226001425322162, 0.13226001425322162, 0.21042439415613548,
                               0.21042439415613548, 0.25045512508092199, 0.25045512508092199};
  static const double G[6] = {0.83333333333333337, 0.66666666666666674, 0.66666666666666674,
                              0.44444444444444453, 0.44444444444444453, 0.0};
  MlSamples s;
  MlSurvFit f;
  int k;
  load(&s, 7, t428, e428, r428, 0);
  ck_assert_int_eq(ml_surv_fit(&s, &f), ML_OK);
  ck_assert_int_eq((int)f.m, 6);
  for(k=0; k<6; k++){
    near(f.S[k], S[k], "S");
    near(f.S[k]*sqrt(f.v[k]), se[k], "Greenwood se");
    near(f.G[k], G[k], "G");
  }
  same_bits(f.n[0], 7.0, "n at 11"); same_bits(f.d[0], 1.0, "d at 11"); same_bits(f.c[0], 1.0, "c at 11");
  /* C3, C4: G(11-) = 1, G(11) = 5/6; G(299-) = G(299) = 4/9; past 300: 0 */
  same_bits(ml_surv_G_before(&f, 11), 1.0, "G(11-)");
  same_bits(ml_surv_G_at(&f, 11), f.G[0], "G(11)");
  same_bits(ml_surv_G_before(&f, 299), f.G[3], "G(299-)");
  same_bits(ml_surv_G_at(&f, 1000), 0.0, "G after the last censoring");
  /* C5: the case at 11 weighs 1/G(11-) = 1; the one censored at 11 weighs
  ** 0 at t = 50; a control at t = 50 weighs 1/G(50) = 1.5 */
  same_bits(ml_surv_ipcw(&f, 1, 11, 50), 1.0, "case weight");
  same_bits(ml_surv_ipcw(&f, 0, 11, 50), 0.0, "censored by t");
  same_bits(ml_surv_ipcw(&f, 0, 128, 50), 1.0/f.G[2], "control weight");
  same_bits(ml_surv_ipcw(&f, 1, 89, 50), 1.0/f.G[2], "a control with an event later");
  /* C9: G(300) = 0: a control at t = 300 would need it */
  ck_assert(isinf(ml_surv_ipcw(&f, 0, 400, 300)));
  ml_surv_fit_free(&f);
  ml_samples_clear(&s);
}
END_TEST

START_TEST(auc_brier_428){
  /* R: Score(list(m = risk), Hist(time, event) ~ 1, times = c(50, 100, 299),
  ** metrics = "auc", cens.model = "km")$AUC$score$AUC */
  static const double tt[3] = {50, 100, 299}, auc[3] = {0.75, 0.26666666666666666, 0.68421052631578949};
  MlSamples s;
  MlSurvFit f;
  MlSurvAt at;
  int k;
  load(&s, 7, t428, e428, r428, 0);
  ck_assert_int_eq(ml_surv_fit(&s, &f), ML_OK);
  for(k=0; k<3; k++){
    ck_assert_int_eq(ml_surv_at(&s, &f, tt[k], ML_SURV_AUROC, &at), ML_OK);
    near(at.auroc, auc[k], "AUC(t)");
  }
  /* at t = 300 no row is a control (the last is censored there): AUC is
  ** NaN with a reason, Brier(t) is defined */
  ck_assert_int_eq(ml_surv_at(&s, &f, 300, ML_SURV_AUROC | ML_SURV_BRIER, &at), ML_OK);
  ck_assert(isnan(at.auroc) && at.zWhy!=0 && strstr(at.zWhy, "no control")!=0);
  ck_assert(!isnan(at.brier));
  ml_surv_fit_free(&f);
  ml_samples_clear(&s);
}
END_TEST

START_TEST(brier_eight_rows){
  /* R: Score(list(m = p), ..., times = 3.5, metrics = "brier", summary = "ipa") */
  static const double t[8] = {1, 2, 2, 3, 4, 5, 6, 6}, p[8] = {0.8, 0.3, 0.6, 0.4, 0.2, 0.7, 0.1, 0.5};
  static const int e[8] = {1, 0, 1, 1, 0, 1, 0, 1};
  MlSamples s;
  MlSurvFit f;
  MlSurvAt at;
  load(&s, 8, t, e, p, 0);
  ck_assert_int_eq(ml_surv_fit(&s, &f), ML_OK);
  ck_assert_int_eq(ml_surv_at(&s, &f, 3.5, ML_SURV_BRIER | ML_SURV_NULL | ML_SURV_AUROC, &at), ML_OK);
  near(at.brier, 0.19749999999999998, "Brier(3.5)");
  near(at.brierNull, 0.24, "null Brier(3.5)");
  near(at.auroc, 0.734375, "AUC(3.5) of p");
  same_bits(at.cases, 3.0, "cases"); same_bits(at.controls, 4.0, "controls"); same_bits(at.censored, 1.0, "censored");
  near(at.kmRisk, 0.4, "1 - S(3.5)");
  ml_surv_fit_free(&f);
  ml_samples_clear(&s);
}
END_TEST

/* Frequency weights: integer weights equal the rows repeated, bit for bit,
** and the rows' order does not matter (real weights: exact sums per time). */
START_TEST(weights_equal_repeats){
  enum { N = 200 };
  double t[N], x[N], w[N], tr[4*N], xr[4*N], wr[N];
  int e[N], er[4*N], i, j, n = 0, k;
  MlSamples a, b, c, d;
  MlSurvFit fa, fb, fc, fd;
  test_seed(47);
  for(i=0; i<N; i++){
    t[i] = (double)(int)(test_rand01()*20.0);
    e[i] = test_rand01()<0.6;
    x[i] = (double)(int)(test_rand01()*10.0)/10.0;
    w[i] = (double)(1 + (int)(test_rand01()*3.0));
    wr[i] = test_rand01()*3.0 + 0.01;
    for(j=0; j<(int)w[i]; j++){ tr[n] = t[i]; er[n] = e[i]; xr[n] = x[i]; n++; }
  }
  load(&a, N, t, e, x, w);
  load(&b, n, tr, er, xr, 0);
  ck_assert_int_eq(ml_surv_fit(&a, &fa), ML_OK);
  ck_assert_int_eq(ml_surv_fit(&b, &fb), ML_OK);
  ck_assert_int_eq((int)fa.m, (int)fb.m);
  for(k=0; k<fa.m; k++){
    same_bits(fa.S[k], fb.S[k], "S"); same_bits(fa.v[k], fb.v[k], "Greenwood");
    same_bits(fa.G[k], fb.G[k], "G");
  }
  for(k=0; k<3; k++){
    static const double tt[3] = {3, 7.5, 12};
    MlSurvAt ra, rb;
    ck_assert_int_eq(ml_surv_at(&a, &fa, tt[k], ML_SURV_BRIER | ML_SURV_NULL | ML_SURV_AUROC, &ra), ML_OK);
    ck_assert_int_eq(ml_surv_at(&b, &fb, tt[k], ML_SURV_BRIER | ML_SURV_NULL | ML_SURV_AUROC, &rb), ML_OK);
    same_bits(ra.brier, rb.brier, "Brier"); same_bits(ra.brierNull, rb.brierNull, "null Brier");
    same_bits(ra.auroc, rb.auroc, "AUC"); same_bits(ra.meanP, rb.meanP, "mean p");
    same_bits(ra.cases, rb.cases, "cases");
  }
  /* real weights, rows held in two orders */
  ml_surv_init(&c); ml_surv_init(&d);
  for(i=0; i<N; i++) ck_assert_int_eq(ml_surv_add(&c, e[i], t[i], wr[i], x[i]), ML_OK);
  for(i=N-1; i>=0; i--) ck_assert_int_eq(ml_surv_add(&d, e[i], t[i], wr[i], x[i]), ML_OK);
  ck_assert_int_eq(ml_surv_fit(&c, &fc), ML_OK);
  ck_assert_int_eq(ml_surv_fit(&d, &fd), ML_OK);
  for(k=0; k<fc.m; k++){ same_bits(fc.S[k], fd.S[k], "S, real weights"); same_bits(fc.G[k], fd.G[k], "G, real weights"); }
  {
    MlSurvAt rc, rd;
    ck_assert_int_eq(ml_surv_at(&c, &fc, 7.5, ML_SURV_BRIER | ML_SURV_AUROC, &rc), ML_OK);
    ck_assert_int_eq(ml_surv_at(&d, &fd, 7.5, ML_SURV_BRIER | ML_SURV_AUROC, &rd), ML_OK);
    same_bits(rc.brier, rd.brier, "Brier, real weights"); same_bits(rc.auroc, rd.auroc, "AUC, real weights");
  }
  ml_surv_fit_free(&fa); ml_surv_fit_free(&fb); ml_surv_fit_free(&fc); ml_surv_fit_free(&fd);
  ml_samples_clear(&a); ml_samples_clear(&b); ml_samples_clear(&c); ml_samples_clear(&d);
}
END_TEST

START_TEST(integrate_c11){
  static const double h[3] = {2, 4, 5}, B[3] = {0.1, 0.2, 0.4};
  /* (0.1 (4 - 2) + 0.2 (5 - 4)) / 5 = 0.08: the last horizon's B does not count */
  near(ml_surv_integrate(h, B, 3), 0.08, "IBS");
  same_bits(ml_surv_integrate(h, B, 1), 0.0, "one horizon");
}
END_TEST

START_TEST(empty_fit){
  MlSamples s;
  MlSurvFit f;
  ml_surv_init(&s);
  ck_assert_int_eq(ml_surv_fit(&s, &f), ML_OK);
  ck_assert_int_eq((int)f.m, 0);
  same_bits(ml_surv_G_at(&f, 5), 1.0, "G of nothing");
  ml_surv_fit_free(&f);
}
END_TEST

/* The survival state kinds (ml_state_surv.c): rows -> state -> entries,
** counted; merged with a weighted one it turns weighted; a negative time
** is refused by the validator; a multiclass state does not join it. */
START_TEST(state_round_trip){
  /* rows: [event, w, time, risk] */
  static const double rows[5*4] = {1, 1, 11, -0.02,  0, 1, 11, 1.2,  1, 1, 11, -0.02,  0, 1, 26, -0.56,  1, 1, 89, -1.33};
  static const double roww[4] = {1, 2.5, 89, -1.33};
  MlBuf b, bw, bm, bad;
  MlState st, sw, two[2];
  MlMcReader r;
  MlMcEntry e;
  char zErr[200];
  ml_i64 rows1 = 0;
  ck_assert_int_eq(ml_state_encode_tuples(rows, 5, 2, ML_STATE_SURV, &b), ML_OK);
  ck_assert_int_eq(ml_state_parse(b.z, b.n, &st, zErr, sizeof(zErr)), ML_OK);
  ck_assert_int_eq(st.kind, ML_STATE_SURV);
  ck_assert_str_eq(ml_state_kind_name(&st, zErr, sizeof(zErr)), "survival");
  ck_assert_int_eq((int)st.sec[1].nEntry, 2);                 /* (11, -0.02) twice, (89, -1.33) */
  ml_mc_reader_init(&r, &st.sec[1], 2, 0);
  while( ml_mc_reader_next(&r, &e)==1 ) rows1 += e.n;
  ck_assert_int_eq((int)rows1, 3);
  /* merged with a weighted state: weighted, the unweighted rows weighing 1 */
  ck_assert_int_eq(ml_state_encode_tuples(roww, 1, 2, ML_STATE_SURV_W, &bw), ML_OK);
  ck_assert_int_eq(ml_state_parse(bw.z, bw.n, &sw, zErr, sizeof(zErr)), ML_OK);
  two[0] = st; two[1] = sw;
  ck_assert_int_eq(ml_state_kmerge(two, 2, &bm, zErr, sizeof(zErr)), ML_OK);
  ck_assert_int_eq(ml_state_parse(bm.z, bm.n, &two[0], zErr, sizeof(zErr)), ML_OK);
  ck_assert_int_eq(two[0].kind, ML_STATE_SURV_W);
  ck_assert_int_eq((int)two[0].sec[1].n[1], 4);
  /* a negative time: written (the encoder trusts its rows), refused on reading */
  {
    static const double neg[4] = {1, 1, -1, 0.5};
    ck_assert_int_eq(ml_state_encode_tuples(neg, 1, 2, ML_STATE_SURV, &bad), ML_OK);
    ck_assert_int_eq(ml_state_parse(bad.z, bad.n, &st, zErr, sizeof(zErr)), ML_STATE_BAD);
    ck_assert_msg(strstr(zErr, "negative time")!=0, "%s", zErr);
  }
  /* a multiclass state does not join a survival one */
  {
    MlBuf bmc, bx;
    MlState mc;
    static const double mcrow[4] = {1, 1, 0.25, 0.75};
    ck_assert_int_eq(ml_state_encode_mc(mcrow, 1, 2, 0, &bmc), ML_OK);
    ck_assert_int_eq(ml_state_parse(bmc.z, bmc.n, &mc, zErr, sizeof(zErr)), ML_OK);
    ck_assert(!ml_state_kinds_join(ML_STATE_SURV, mc.kind));
    ml_state_parse(b.z, b.n, &two[0], zErr, sizeof(zErr));
    two[1] = mc;
    ck_assert_int_eq(ml_state_kmerge(two, 2, &bx, zErr, sizeof(zErr)), ML_STATE_BAD);
    ck_assert_msg(strstr(zErr, "survival")!=0 && strstr(zErr, "multiclass")!=0, "%s", zErr);
    ml_buf_free(&bx);
    ml_buf_free(&bmc);
  }
  ml_buf_free(&b); ml_buf_free(&bw); ml_buf_free(&bm); ml_buf_free(&bad);
}
END_TEST

Suite *suite_surv(void){
  Suite *s = suite_create("surv");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, km_and_g_428);
  tcase_add_test(tc, auc_brier_428);
  tcase_add_test(tc, brier_eight_rows);
  tcase_add_test(tc, weights_equal_repeats);
  tcase_add_test(tc, integrate_c11);
  tcase_add_test(tc, empty_fit);
  tcase_add_test(tc, state_round_trip);
  suite_add_tcase(s, tc);
  return s;
}
