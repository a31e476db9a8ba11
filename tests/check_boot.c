/*
** SPDX-License-Identifier: MIT
**
** check_boot.c -- the bootstrap core (ml_boot.c), the weighted sweep
** (ml_sweep.c), DeLong's components (ml_delong.c) and the distributions
** (ml_dist.c), on cases worked by hand or by the documented definitions.
*/
#include <math.h>
#include <stdlib.h>
#include "check_suites.h"
#include "ml_core.h"

/* The generator's first outputs, as docs/uncertainty.md defines it (the
** numbers come from the Python re-implementation in test_uncertainty.py). */
START_TEST(test_rng_matches_documented_stream){
  MlRng r;
  static const int want[] = {6, 1, 0, 1, 1, 6, 7, 5, 1, 8};
  int i;
  ml_rng_seed(&r, 0, 0);
  ck_assert_uint_eq(ml_rng_next(&r), 0x3a4bb92775cc364dULL);
  ck_assert_uint_eq(ml_rng_next(&r), 0x692fffe3c26d7315ULL);
  ck_assert_uint_eq(ml_rng_next(&r), 0x8a3288c3e21885efULL);
  ml_rng_seed(&r, 12345, 7);
  for(i=0; i<10; i++) ck_assert_int_eq((int)ml_rng_below(&r, 10), want[i]);
  ck_assert_uint_eq(ml_rng_below(&r, (1ULL<<63) + 5), 2238914857097004197ULL);
}
END_TEST

START_TEST(test_rng_below_stays_in_range_and_is_even){
  MlRng r;
  int c[3] = {0, 0, 0}, i;
  ml_rng_seed(&r, 42, 0);
  for(i=0; i<30000; i++){
    uint64_t v = ml_rng_below(&r, 3);
    ck_assert_uint_lt(v, 3);
    c[v]++;
  }
  for(i=0; i<3; i++) ck_assert_int_lt(abs(c[i] - 10000), 400);
  ck_assert_uint_eq(ml_rng_below(&r, 1), 0);
}
END_TEST

static void fill(MlSamples *s, unsigned width, const int *y, const double *v, const double *aux, int n){
  int i;
  ml_samples_init(s, width);
  for(i=0; i<n; i++) ck_assert_int_eq(ml_samples_add(s, y[i], v[i], aux ? aux[i] : 0.0), ML_OK);
}

/* Ties in the score are ordered by aux whatever the insertion order, and
** the flattened order puts negatives first at equal keys. */
START_TEST(test_canonical_order_ignores_insertion_order){
  static const int y[] = {1, 0, 1, 1, 0, 1};
  static const double s[] = {0.5, 0.5, 0.5, 0.2, 0.5, 0.5};
  static const double a1[] = {3.0, 2.0, -1.0, 9.0, -0.0, 0.0};
  static const int perm[] = {5, 3, 0, 4, 2, 1};
  int yy[6], i;
  double ss[6], aa[6];
  MlSamples x, z;
  MlCanon c1, c2;
  for(i=0; i<6; i++){ yy[i] = y[perm[i]]; ss[i] = s[perm[i]]; aa[i] = a1[perm[i]] + 0.0; }
  fill(&x, 16, y, s, a1, 6);
  fill(&z, 16, yy, ss, aa, 6);
  for(i=0; i<6; i++) aa[i] += 0.0;
  ck_assert_int_eq(ml_samples_sort_canonical(&x), ML_OK);
  ck_assert_int_eq(ml_samples_sort_canonical(&z), ML_OK);
  ck_assert_int_eq(ml_canon_build(&c1, &x), ML_OK);
  ck_assert_int_eq(ml_canon_build(&c2, &z), ML_OK);
  for(i=0; i<6; i++){
    ck_assert_uint_eq(c1.key[i], c2.key[i]);
    ck_assert_int_eq(c1.lab[i], c2.lab[i]);
    ck_assert(c1.aux[i]==c2.aux[i]);
  }
  /* 0.2(pos) | 0.5: neg aux -0/0, neg 2 | pos -1, 0, 3 */
  ck_assert_int_eq(c1.lab[0], 1);
  ck_assert_int_eq(c1.lab[1], 0); ck_assert_int_eq(c1.lab[2], 0);
  ck_assert(c1.aux[2]==2.0);
  ck_assert(c1.aux[3]==-1.0 && c1.aux[4]==0.0 && c1.aux[5]==3.0);
  ml_canon_free(&c1); ml_canon_free(&c2);
  ml_samples_clear(&x); ml_samples_clear(&z);
}
END_TEST

/* A weighted sweep computes the metric of the rows repeated by weight. */
START_TEST(test_weighted_sweep_equals_repeated_rows){
  int y[40], yr[200], i, k, n = 0, trial;
  double s[40], sr[200];
  ml_weight w[40];
  for(trial=0; trial<50; trial++){
    MlSamples a, b;
    MlCanon c;
    MlSweep sw;
    ml_weight wc[40];
    test_seed(1000 + trial);
    n = 0;
    for(i=0; i<40; i++){
      y[i] = test_rand01() < 0.4;
      s[i] = floor(test_rand01()*8) / 8 + 0.1*y[i];
      w[i] = (ml_weight)(test_rand01()*4);
    }
    y[0] = 0; y[1] = 1; w[0] = w[1] = 1;
    for(i=0; i<40; i++) for(k=0; k<(int)w[i]; k++){ yr[n] = y[i]; sr[n] = s[i]; n++; }
    fill(&a, 8, y, s, 0, 40);
    fill(&b, 8, yr, sr, 0, n);
    ck_assert_int_eq(ml_samples_sort_canonical(&a), ML_OK);
    ck_assert_int_eq(ml_samples_sort(&b), ML_OK);
    ck_assert_int_eq(ml_canon_build(&c, &a), ML_OK);
    /* the weights follow the rows into canonical order: match by (key, label) runs */
    {
      int used[40] = {0};
      ml_i64 r;
      for(r=0; r<c.n; r++){
        for(i=0; i<40; i++){
          if( !used[i] && ml_key_of(s[i])==c.key[r] && y[i]==c.lab[r] ){ used[i] = 1; wc[r] = w[i]; break; }
        }
      }
    }
    ml_sweep_init_weighted(&sw, &c, 0, wc);
    ck_assert(ml_fold_ap_sweep(&sw)==ml_fold_average_precision(&b, 0));
    ck_assert_int_eq((int)sw.P, (int)b.n[1]);
    ck_assert_int_eq((int)sw.N, (int)b.n[0]);
    ml_sweep_init_weighted(&sw, &c, 0, wc);
    ck_assert(ml_fold_auroc_sweep(&sw)==ml_fold_auroc(&b));
    ml_canon_free(&c);
    ml_samples_clear(&a); ml_samples_clear(&b);
  }
}
END_TEST

/* Weighted quantiles equal numpy's on the repeated values. */
START_TEST(test_quantile_sorted_weighted){
  static const double v[] = {1.0, 2.0, 2.5, 4.0, 7.0};
  static const ml_weight w[] = {2, 0, 3, 1, 1};
  double rep[] = {1.0, 1.0, 2.5, 2.5, 2.5, 4.0, 7.0}, a, b, c, d;
  static const double q[][2] = {{0.0, 1.0}, {0.25, 0.75}, {0.1, 0.9}, {0.5, 0.5}, {0.3, 0.31}};
  int i;
  for(i=0; i<5; i++){
    ml_quantile_pair_sorted(v, w, 5, q[i][0], q[i][1], &a, &b);
    ml_quantile_pair(rep, 7, q[i][0], q[i][1], &c, &d);
    ck_assert(a==c);
    ck_assert(b==d);
  }
}
END_TEST

/* Midranks by hand: positives {0.8, 0.5}, negatives {0.5, 0.1, 0.9}. */
START_TEST(test_delong_components_by_hand){
  ml_key kp[2], kn[3];
  double v10[2], v01[3], sum2;
  kp[0] = ml_key_of(0.8); kp[1] = ml_key_of(0.5);
  kn[0] = ml_key_of(0.5); kn[1] = ml_key_of(0.1); kn[2] = ml_key_of(0.9);
  sum2 = ml_delong_components(kp, 2, kn, 3, v10, v01);
  ck_assert(sum2==7.0);                          /* 2(2) + (2*1 + 1): AUC 3.5/6 */
  ck_assert_double_eq_tol(v10[0], 2.0/3.0, 1e-15);
  ck_assert_double_eq_tol(v10[1], 1.5/3.0, 1e-15);
  ck_assert_double_eq_tol(v01[0], 1.5/2.0, 1e-15);
  ck_assert_double_eq_tol(v01[1], 1.0, 1e-15);
  ck_assert_double_eq_tol(v01[2], 0.0, 1e-15);
}
END_TEST

START_TEST(test_distributions_known_values){
  ck_assert_double_eq_tol(ml_norm_quantile(0.975), 1.959963984540054, 1e-15);
  ck_assert_double_eq_tol(ml_norm_quantile(1e-10), -6.361340902404056, 1e-13);
  ck_assert_double_eq_tol(ml_norm_cdf(ml_norm_quantile(0.3)), 0.3, 1e-16);
  ck_assert_double_eq_tol(ml_t_isf(0.25, 1.0), 1.0, 1e-15);                 /* tan(pi/4) */
  ck_assert_double_eq_tol(ml_t_isf(0.025, 2.0), 4.302652729749464, 1e-14);  /* closed form */
  ck_assert_double_eq_tol(ml_t_sf(ml_t_isf(0.025, 7.0), 7.0), 0.025, 1e-16);
  ck_assert(ml_t_quantile(0.025, 30.0)==-ml_t_isf(0.025, 30.0));
  ck_assert_double_eq_tol(ml_t_isf(0.025, 1e7), 1.959963984540054, 1e-6);
}
END_TEST

/* A statistic that is the weighted mean of the keys; one that is never
** defined; a stop callback. */
static int stat_mean(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  ml_i64 i, m = 0;
  double s = 0;
  (void)arg;
  for(i=0; i<c->n; i++){ s += wc[i]*ml_double_of(c->key[i]); m += wc[i]; }
  out[0] = s/(double)m;
  return 1;
}
static int stat_never(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  static int calls = 0;
  (void)arg; (void)c; (void)wc;
  out[0] = 0;
  return calls++ == 0;             /* defined on the rows, then never */
}
static int stop_now(void *arg){ (void)arg; return 1; }

START_TEST(test_boot_run_outcomes){
  int y[300], i;
  double s[300];
  MlSamples a;
  MlCanon c;
  MlBootSpec spec;
  MlBootResult r1, r2;
  for(i=0; i<300; i++){ y[i] = i%2; s[i] = (double)(i%17); }
  fill(&a, 8, y, s, 0, 300);
  ck_assert_int_eq(ml_samples_sort_canonical(&a), ML_OK);
  ck_assert_int_eq(ml_canon_build(&c, &a), ML_OK);
  memset(&spec, 0, sizeof(spec));
  spec.level = 0.95; spec.reps = 200; spec.seed = 3; spec.K = 1; spec.stat = stat_mean;
  ck_assert_int_eq(ml_boot_run(&c, &spec, &r1), ML_OK);
  ck_assert_int_eq(ml_boot_run(&c, &spec, &r2), ML_OK);
  ck_assert(memcmp(&r1, &r2, sizeof(r1))==0);                 /* reproducible */
  ck_assert(r1.iv[0].lo < r1.iv[0].estimate && r1.iv[0].estimate < r1.iv[0].hi);
  ck_assert(r1.iv[0].plo < r1.iv[0].phi);
  ck_assert_int_eq((int)r1.redrawn, 0);
  /* se of a mean: sd / sqrt(n), within bootstrap noise */
  ck_assert_double_eq_tol(r1.iv[0].se, 4.9/sqrt(300.0), 0.05);
  spec.stat = stat_never;
  ck_assert_int_eq(ml_boot_run(&c, &spec, &r1), ML_BOOT_EXHAUSTED);
  ck_assert_int_eq((int)r1.redrawn, ML_BOOT_MAX_REDRAW + 1);
  spec.stat = stat_mean; spec.stop = stop_now; spec.reps = 100000;
  ck_assert_int_eq(ml_boot_run(&c, &spec, &r1), ML_BOOT_STOPPED);
  ml_canon_free(&c);
  ml_samples_clear(&a);
}
END_TEST

Suite *suite_boot(void){
  Suite *s = suite_create("boot");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_rng_matches_documented_stream);
  tcase_add_test(tc, test_rng_below_stays_in_range_and_is_even);
  tcase_add_test(tc, test_canonical_order_ignores_insertion_order);
  tcase_add_test(tc, test_weighted_sweep_equals_repeated_rows);
  tcase_add_test(tc, test_quantile_sorted_weighted);
  tcase_add_test(tc, test_delong_components_by_hand);
  tcase_add_test(tc, test_distributions_known_values);
  tcase_add_test(tc, test_boot_run_outcomes);
  suite_add_tcase(s, tc);
  return s;
}
