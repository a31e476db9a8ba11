/*
** SPDX-License-Identifier: MIT
**
** check_svd_cuda.c -- svd_bench's CUDA back end on a real GPU, against the
** CPU back end on the same seeded matrix.
**
** Built whenever configure found the CUDA toolkit.  Opens mleval_cpu.so and
** mleval_cuda.so ($MLEVAL_BACKEND_DIR, make check: ext/.libs) through their
** interface (svd_backend.h), and:
**   1. First a small run decides: ML_SVD_ABSENT (no GPU, or no driver) is
**      SKIP (exit 77) with the back end's reason; ML_SVD_ERROR (a GPU
**      stack that does not work, e.g. a driver older than the runtime) is
**      FAIL -- never a SKIP (issue 26).
**   2. For tall, wide and square shapes, both spectra and both dtypes, the
**      reference is the CPU's float64 full-rank singular values
**      (tests/svd_compare.c):
**        full rank: GPU full and values_only within 1e-10 (float64) /
**        1e-5 (float32); the randomized row is NULL with the reason
**        (gesvdr needs rank < min(m, n));
**        rank 16 (p = 10, 2 power iterations): full and values_only as
**        above on the leading 16; randomized never above the exact values
**        and within the spectrum's tail beyond the sketch; recon_rel_error
**        of full equals the CPU's (the tail) within 1e-10 / 1e-5, and the
**        randomized one is no smaller than it (Eckart-Young).
**   3. Every call's timing is finite and positive; through SQL
**      ms_min <= ms_median <= ms_max.
**   4. Through SQL: svd_bench(..., 'cuda') gives rows that say cuda.
** `check_svd_cuda --probe` does step 1 only, `--quick` leaves out the
** 1024 x 1024 shape (both for tests/cuda_sanitizer.sh).
** Exit 0 pass, 1 fail, 77 skip, 99 setup error.
*/
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svd_compare.h"

static int nFail = 0, nCheck = 0;
static const MlSvdBackend *cpu, *gpu;

static void check(int ok, const char *zWhat){
  nCheck++;
  if( !ok ){ nFail++; printf("FAIL %s\n", zWhat); }
}

/* Step 1: 0 when a GPU runs, else the exit code (77 or 1) after saying why. */
static int probe(void){
  MlSvdSpec sp = svdcmp_spec(8, 8, 4, 0, 1, 0, 0, 1);
  double A[64];
  SvdcmpRun r = {0};
  char zErr[512];
  int rc = cpu->xMatrix(&sp, A, zErr, sizeof(zErr));
  if( rc==ML_SVD_OK ) rc = svdcmp_run(gpu, &sp, A, &r, zErr, sizeof(zErr));
  svdcmp_free(&r);
  if( rc==ML_SVD_OK ) return 0;
  if( rc==ML_SVD_ABSENT ){ printf("skipped: %s\n", zErr); return 77; }
  printf("FAIL the CUDA back end does not run (rc %d): %s\n", rc, zErr);
  return 1;
}

/* Step 3 on one method's timings. */
static void checkTimes(const MlSvdRun *run, int iters, const char *zWhat){
  char z[256];
  int i, ok = 1;
  for(i=0; i<iters; i++) ok = ok && isfinite(run->ms[i]) && run->ms[i] > 0;
  snprintf(z, sizeof(z), "%s: timings finite and positive", zWhat);
  check(ok, z);
}

/* Step 2 for one GPU run at rank k against the CPU reference ref (mn
** values) and the CPU's full-rank-k reconstruction error cpuRecon. */
static void compareRun(const MlSvdSpec *sp, const SvdcmpRun *g, const double *ref, double cpuRecon,
                       const char *zShape){
  int mn = sp->rows<sp->cols ? sp->rows : sp->cols, k = sp->rank, l, above;
  double tol = sp->f32 ? 1e-5 : 1e-10, e, bound;
  const MlSvdRun *rr = &g->run[ML_SVD_RANDOMIZED];
  char z[512];
  snprintf(z, sizeof(z), "%s rank %d", zShape, k);
  e = svdcmp_rel_error(ref, g->run[ML_SVD_FULL].S, k);
  printf("%s: full sv_rel_error vs CPU %.3g, recon %.3g (CPU %.3g), driver %s\n", z, e,
         g->run[ML_SVD_FULL].recon_rel_error, cpuRecon, g->run[ML_SVD_FULL].driver);
  { char w[600]; snprintf(w, sizeof(w), "%s: full vs CPU %g <= %g", z, e, tol); check(e <= tol, w); }
  e = svdcmp_rel_error(ref, g->run[ML_SVD_VALUES].S, k);
  { char w[600]; snprintf(w, sizeof(w), "%s: values_only vs CPU %g <= %g", z, e, tol); check(e <= tol, w); }
  e = fabs(g->run[ML_SVD_FULL].recon_rel_error - cpuRecon);
  { char w[600]; snprintf(w, sizeof(w), "%s: full recon_rel_error %g vs the CPU's %g", z,
                          g->run[ML_SVD_FULL].recon_rel_error, cpuRecon); check(e <= tol, w); }
  checkTimes(&g->run[ML_SVD_FULL], sp->iters, z);
  checkTimes(&g->run[ML_SVD_VALUES], sp->iters, z);
  if( k >= mn ){
    snprintf(z + strlen(z), sizeof(z) - strlen(z), ": randomized at full rank is not run");
    check(isnan(rr->ms[0]) && isnan(rr->S[0]) && strstr(rr->driver, "needs rank < min(rows, cols)")!=0, z);
    return;
  }
  l = k + ML_SVD_OVERSAMPLE < mn - 1 ? k + ML_SVD_OVERSAMPLE : mn - 1;
  bound = svdcmp_tail_bound(ref, mn, k, l, sp->f32 ? 1e-5 : 1e-11);
  e = svdcmp_rel_error(ref, rr->S, k);
  above = svdcmp_first_above(ref, rr->S, k, sp->f32 ? 1e-5 : 1e-12);
  printf("%s: randomized sv_rel_error vs CPU %.3g, tail bound %.3g, recon %.3g, driver %s\n", z, e, bound,
         rr->recon_rel_error, rr->driver);
  { char w[600]; snprintf(w, sizeof(w), "%s: randomized %g within the tail bound %g", z, e, bound); check(e <= bound, w); }
  { char w[600]; snprintf(w, sizeof(w), "%s: randomized value %d above the exact one", z, above); check(above < 0, w); }
  { char w[600]; snprintf(w, sizeof(w), "%s: randomized recon %g >= the optimal %g", z, rr->recon_rel_error, cpuRecon);
    check(rr->recon_rel_error >= cpuRecon - tol && rr->recon_rel_error <= 1 + tol, w); }
  checkTimes(rr, sp->iters, z);
}

/* One shape, spectrum and dtype: the CPU reference, then the GPU at full
** rank and at rank 16. */
static int caseShape(int m, int n, int decay, int f32){
  int mn = m<n ? m : n, ranks[2], i, rc = 0;
  MlSvdSpec sp = svdcmp_spec(m, n, mn, 0, 1, 0, decay, 3);
  double *A = malloc(sizeof(double)*(size_t)m*n);
  SvdcmpRun ref, low;
  char zErr[512], zShape[128];
  ranks[0] = mn; ranks[1] = 16;
  snprintf(zShape, sizeof(zShape), "%dx%d %s %s", m, n, decay ? "decay" : "gaussian", f32 ? "float32" : "float64");
  if( A==0 || cpu->xMatrix(&sp, A, zErr, sizeof(zErr))!=ML_SVD_OK
      || svdcmp_run(cpu, &sp, A, &ref, zErr, sizeof(zErr))!=ML_SVD_OK ){
    printf("setup %s: %s\n", zShape, zErr);
    free(A);
    return 99;
  }
  for(i=0; i<2 && rc==0; i++){
    MlSvdSpec gs = svdcmp_spec(m, n, ranks[i], 2, 5, f32, decay, 3), cs = gs;
    SvdcmpRun g;
    cs.f32 = 0; cs.warmup = 0; cs.iters = 1;
    if( svdcmp_run(cpu, &cs, A, &low, zErr, sizeof(zErr))!=ML_SVD_OK ){ printf("setup: %s\n", zErr); rc = 99; break; }
    if( svdcmp_run(gpu, &gs, A, &g, zErr, sizeof(zErr))!=ML_SVD_OK ){
      char w[700];
      snprintf(w, sizeof(w), "%s rank %d: the GPU run failed: %s", zShape, ranks[i], zErr);
      check(0, w);
    }else{
      compareRun(&gs, &g, ref.run[ML_SVD_FULL].S, low.run[ML_SVD_FULL].recon_rel_error, zShape);
    }
    svdcmp_free(&g);
    svdcmp_free(&low);
  }
  svdcmp_free(&ref);
  free(A);
  return rc;
}

/* Step 4: the rows through SQL. */
static int viaSql(void){
  const char *lib = getenv("MLEVAL_LIB");
  sqlite3 *db;
  sqlite3_stmt *st;
  char *err = 0;
  int rc, nRow = 0;
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) return 99;
  sqlite3_enable_load_extension(db, 1);
  if( sqlite3_load_extension(db, lib ? lib : "ext/.libs/mleval", 0, &err)!=SQLITE_OK ){
    printf("cannot load the extension: %s\n", err);
    return 99;
  }
  rc = sqlite3_prepare_v2(db, "SELECT method, device, driver, ms_min <= ms_median AND ms_median <= ms_max "
                              "FROM svd_bench(256, 128, 16, 2, 5, 'cuda')", -1, &st, 0);
  while( rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    char w[300];
    snprintf(w, sizeof(w), "SQL row %s: device %s, driver %s, timings ordered", sqlite3_column_text(st, 0),
             sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
    check(strcmp((const char*)sqlite3_column_text(st, 1), "cuda")==0 && sqlite3_column_int(st, 3)==1, w);
    nRow++;
  }
  check(nRow==3, "svd_bench(..., 'cuda') gives three rows");
  if( nRow!=3 ) printf("  %s\n", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return 0;
}

int main(int argc, char **argv){
  static const int shape[][2] = {{256, 256}, {512, 128}, {128, 512}, {1024, 1024}};
  char zWhy[512];
  int f32, decay, rc, quick = argc>1 && strcmp(argv[1], "--quick")==0;
  size_t i;
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  cpu = svdcmp_load("mleval_cpu.so", zWhy, sizeof(zWhy));
  if( cpu==0 ){ printf("setup: no CPU back end (%s)\n", zWhy); return 99; }
  gpu = svdcmp_load("mleval_cuda.so", zWhy, sizeof(zWhy));
  if( gpu==0 ){ printf("FAIL the CUDA back end was built but does not load: %s\n", zWhy); return 1; }
  if( (rc = probe())!=0 ) return rc;
  if( argc>1 && strcmp(argv[1], "--probe")==0 ){ printf("a CUDA device runs\n"); return 0; }
  for(f32=0; f32<2; f32++) for(decay=0; decay<2; decay++){
    for(i=0; i<sizeof(shape)/sizeof(shape[0]) - (quick ? 1 : 0); i++){
      if( (rc = caseShape(shape[i][0], shape[i][1], decay, f32))!=0 ) return rc;
    }
  }
  if( (rc = viaSql())!=0 ) return rc;
  printf("check_svd_cuda: %d checks, %d failures\n", nCheck, nFail);
  return nFail ? 1 : 0;
}
