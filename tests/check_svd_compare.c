/*
** SPDX-License-Identifier: MIT
**
** check_svd_compare.c -- the comparison the GPU test makes (tests/
** svd_compare.c), proved where every build can: its helpers on known
** numbers, and the CPU back end against itself on the same seeded matrix.
**
**   1. svdcmp_rel_error, svdcmp_tail_bound and svdcmp_first_above give
**      the values worked out by hand for small inputs; a value above the
**      exact one, or NaN, is caught.
**   2. CPU against CPU, as check_svd_cuda does GPU against CPU: the
**      reference is the full-rank run's singular values; at ranks 8 and 20
**      (oversampling 10, 2 power iterations, what svd_bench runs) on both
**      spectra and three shapes: full equals the reference's leading values,
**      values_only is within 1e-10 (float64) / 1e-5 (float32), and the
**      randomized values are never above the exact ones and within the
**      spectrum's tail beyond the sketch -- below 0.2 on 'decay', so the
**      check has teeth.  At full rank the sketch spans A: within rounding.
** Exit 77 (SKIP) in a build without the CPU module.
*/
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "svd_compare.h"

static const MlSvdBackend *cpu;

START_TEST(test_rel_error){
  static const double ref[] = {3, 4}, got[] = {3, 0}, zero[] = {0, 0};
  ck_assert_double_eq(svdcmp_rel_error(ref, ref, 2), 0);
  ck_assert_double_eq_tol(svdcmp_rel_error(ref, got, 2), 0.8, 1e-15);
  ck_assert_double_eq(svdcmp_rel_error(zero, zero, 2), 0);
  ck_assert(isinf(svdcmp_rel_error(zero, ref, 2)));
}
END_TEST

START_TEST(test_tail_bound){
  static const double sigma[] = {4, 2, 1, 0.5, 0.25};
  /* ||(1, 0.5, 0.25)|| / ||(4, 2)|| at k = 2, l = 2 */
  ck_assert_double_eq_tol(svdcmp_tail_bound(sigma, 5, 2, 2, 0), sqrt(1.3125/20), 1e-15);
  /* a sketch of 4 leaves only 0.25 unseen; tol is added */
  ck_assert_double_eq_tol(svdcmp_tail_bound(sigma, 5, 2, 4, 1e-3), 0.25/sqrt(20) + 1e-3, 1e-15);
  ck_assert_double_eq(svdcmp_tail_bound(sigma, 5, 2, 5, 1e-3), 1e-3);   /* the sketch spans A */
}
END_TEST

START_TEST(test_first_above){
  static const double sigma[] = {4, 2, 1};
  double got[3] = {4, 2, 1};
  ck_assert_int_eq(svdcmp_first_above(sigma, got, 3, 0), -1);
  got[1] = 1.5;                                        /* below: allowed */
  ck_assert_int_eq(svdcmp_first_above(sigma, got, 3, 0), -1);
  got[2] = 1 + 1e-9;                                   /* above by more than tol * 4 */
  ck_assert_int_eq(svdcmp_first_above(sigma, got, 3, 1e-10), 2);
  ck_assert_int_eq(svdcmp_first_above(sigma, got, 3, 1e-9), -1);
  got[0] = NAN;
  ck_assert_int_eq(svdcmp_first_above(sigma, got, 3, 1), 0);
}
END_TEST

/* The CPU run of rows x cols (seed 7) at rank k; sigma: the full-rank
** run's values, in ref (mn of them). */
static void compareAt(int rows, int cols, int decay, int f32, int k, const double *A, const double *ref){
  int mn = rows<cols ? rows : cols, l = k + ML_SVD_OVERSAMPLE < mn ? k + ML_SVD_OVERSAMPLE : mn, above;
  MlSvdSpec sp = svdcmp_spec(rows, cols, k, 0, 1, f32, decay, 7);
  SvdcmpRun r;
  char zErr[256];
  double tol = f32 ? 1e-5 : 1e-10, bound, e;
  int rc = svdcmp_run(cpu, &sp, A, &r, zErr, sizeof(zErr));
  ck_assert_msg(rc==ML_SVD_OK, "%dx%d rank %d: rc %d %s", rows, cols, k, rc, zErr);
  if( !f32 ){
    e = svdcmp_rel_error(ref, r.run[ML_SVD_FULL].S, k);
    ck_assert_msg(e <= 1e-12, "%dx%d rank %d: full vs full rank %g", rows, cols, k, e);
  }
  e = svdcmp_rel_error(ref, r.run[ML_SVD_VALUES].S, k);
  ck_assert_msg(e <= tol, "%dx%d rank %d f32 %d: values_only %g > %g", rows, cols, k, f32, e, tol);
  bound = svdcmp_tail_bound(ref, mn, k, l, f32 ? 1e-5 : 1e-11);
  e = svdcmp_rel_error(ref, r.run[ML_SVD_RANDOMIZED].S, k);
  above = svdcmp_first_above(ref, r.run[ML_SVD_RANDOMIZED].S, k, f32 ? 1e-5 : 1e-12);
  printf("cpu %dx%d %s f32 %d rank %d: randomized sv_rel_error %.3g, tail bound %.3g\n",
         rows, cols, decay ? "decay" : "gaussian", f32, k, e, bound);
  ck_assert_msg(e <= bound, "%dx%d rank %d: randomized %g outside the tail bound %g", rows, cols, k, e, bound);
  ck_assert_msg(above<0, "%dx%d rank %d: randomized value %d above the exact one", rows, cols, k, above);
  if( decay && k < mn ) ck_assert_msg(bound < 0.2, "decay %dx%d rank %d: bound %g has no teeth", rows, cols, k, bound);
  svdcmp_free(&r);
}

START_TEST(test_cpu_against_cpu){
  static const int shape[][2] = {{300, 200}, {200, 300}, {256, 256}};
  int s, decay;
  for(s=0; s<3; s++) for(decay=0; decay<2; decay++){
    int m = shape[s][0], n = shape[s][1], mn = m<n ? m : n, rc;
    MlSvdSpec sp = svdcmp_spec(m, n, mn, 0, 1, 0, decay, 7);
    double *A = malloc(sizeof(double)*(size_t)m*n);
    SvdcmpRun ref;
    char zErr[256];
    ck_assert_ptr_nonnull(A);
    ck_assert_int_eq(cpu->xMatrix(&sp, A, zErr, sizeof(zErr)), ML_SVD_OK);
    rc = svdcmp_run(cpu, &sp, A, &ref, zErr, sizeof(zErr));
    ck_assert_msg(rc==ML_SVD_OK, "reference %dx%d: %s", m, n, zErr);
    compareAt(m, n, decay, 0, 8, A, ref.run[ML_SVD_FULL].S);
    compareAt(m, n, decay, 0, 20, A, ref.run[ML_SVD_FULL].S);
    compareAt(m, n, decay, 0, mn, A, ref.run[ML_SVD_FULL].S);
    if( s==0 ) compareAt(m, n, decay, 1, 20, A, ref.run[ML_SVD_FULL].S);
    svdcmp_free(&ref);
    free(A);
  }
}
END_TEST

int main(void){
  Suite *s = suite_create("svd_compare");
  TCase *tc = tcase_create("compare");
  SRunner *sr;
  char zWhy[512];
  int nFail;
  setenv("OPENBLAS_NUM_THREADS", "1", 0);     /* read when the module loads */
  cpu = svdcmp_load("mleval_cpu.so", zWhy, sizeof(zWhy));
  if( cpu==0 ){ printf("skipped: no CPU back end (%s)\n", zWhy); return 77; }
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_rel_error);
  tcase_add_test(tc, test_tail_bound);
  tcase_add_test(tc, test_first_above);
  tcase_add_test(tc, test_cpu_against_cpu);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  nFail = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nFail ? EXIT_FAILURE : EXIT_SUCCESS;
}
