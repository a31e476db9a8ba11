/*
** SPDX-License-Identifier: MIT
**
** check_svd_backend.c -- the CPU back-end module (mleval_cpu.so) through its
** interface alone (svd_backend.h), loaded with dlopen as svd_bench does.
**
**   1. A LAPACK failure is ML_SVD_ERROR with "<routine> failed (info <n>)",
**      never ML_SVD_NOMEM: a matrix with a NaN makes ?gesdd fail.
**   2. Every allocation failure is ML_SVD_NOMEM with nothing left allocated:
**      the Nth allocation fails, for N = 1, 2, ... until a run completes,
**      for both dtypes, both spectra and the matrix builder -- so the
**      reconstruction-error buffers are reached too (issue 12: they used to
**      give NaN, a NULL recon_rel_error).
**   3. xInterrupted is asked before every call, between the steps of a
**      randomized call, before each reconstruction error and between the
**      construction steps of the 'decay' matrix (issue 26), exactly as often
**      as that says: answering yes at the Kth question gives
**      ML_SVD_INTERRUPT with nothing left allocated.
**   4. A run that completes fills every field.
** The module is $MLEVAL_BACKEND_DIR/mleval_cpu.so (make check: ext/.libs);
** exit 77 (SKIP) in a build without it.
*/
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svd_backend.h"

static int nFail = 0, nCheck = 0;
static void check(int ok, const char *what){
  nCheck++;
  if( !ok ){ nFail++; printf("FAIL %s\n", what); }
}

/* A counting allocator that fails its failAt-th call (0: never). */
static int nLive = 0, nCalls = 0, failAt = 0, nInterruptAsk = 0, interruptAt = 0;
static void *tMalloc(uint64_t n){
  void *p;
  if( failAt && ++nCalls==failAt ) return 0;
  p = malloc(n ? n : 1);
  if( p ) nLive++;
  return p;
}
static void tFree(void *p){ if( p ){ nLive--; free(p); } }
static int tInterrupted(void *p){ (void)p; return interruptAt && ++nInterruptAsk>=interruptAt; }

typedef struct Bufs { double *A, *mem; MlSvdRun run[ML_SVD_NMETHOD]; } Bufs;

static void setup(const MlSvdSpec *sp, Bufs *b){
  int i;
  b->A = calloc((size_t)sp->rows*sp->cols, sizeof(double));
  b->mem = calloc((size_t)ML_SVD_NMETHOD*(sp->iters + sp->rank), sizeof(double));
  for(i=0; i<ML_SVD_NMETHOD; i++){
    memset(&b->run[i], 0, sizeof(b->run[i]));
    b->run[i].ms = b->mem + (size_t)i*(sp->iters + sp->rank);
    b->run[i].S = b->run[i].ms + sp->iters;
    b->run[i].recon_rel_error = NAN;
  }
}

/* Builds the matrix and runs the methods; an ML_SVD_* code. */
static int runAll(const MlSvdBackend *be, const MlSvdSpec *sp, Bufs *b, char *zErr, int nErr){
  int rc = be->xMatrix(sp, b->A, zErr, nErr);
  return rc==ML_SVD_OK ? be->xRun(sp, b->A, b->run, zErr, nErr) : rc;
}

int main(void){
  const char *dir = getenv("MLEVAL_BACKEND_DIR");
  char path[4096], zErr[256], what[512];
  void *h;
  const MlSvdBackend *be;
  MlSvdSpec sp;
  Bufs b;
  int f32, decay, rc, n;
  snprintf(path, sizeof(path), "%s/mleval_cpu.so", dir ? dir : "ext/.libs");
  h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if( h==0 ){ printf("skipped: no CPU back end (%s)\n", dlerror()); return 77; }
  be = (const MlSvdBackend*)dlsym(h, ML_SVD_BACKEND_SYMBOL);
  if( be==0 || be->iVersion!=ML_SVD_BACKEND_VERSION || be->xMatrix==0 ){ printf("not a back end\n"); return 99; }

  for(f32=0; f32<2; f32++) for(decay=0; decay<2; decay++){
    memset(&sp, 0, sizeof(sp));
    sp.rows = 14; sp.cols = 9; sp.rank = 4; sp.warmup = 1; sp.iters = 2; sp.f32 = f32; sp.decay = decay;
    sp.seed = 5; sp.xMalloc = tMalloc; sp.xFree = tFree; sp.xInterrupted = tInterrupted;
    /* 4. a complete run */
    setup(&sp, &b);
    failAt = 0; interruptAt = 0;
    rc = runAll(be, &sp, &b, zErr, sizeof(zErr));
    snprintf(what, sizeof(what), "f32 %d decay %d: complete run, rc %d %s", f32, decay, rc, rc ? zErr : "");
    check(rc==ML_SVD_OK && nLive==0 && b.run[0].S[0]>0 && b.run[1].recon_rel_error>=0
          && isnan(b.run[2].recon_rel_error) && b.run[0].ms[1]>0, what);
    free(b.A); free(b.mem);
    /* 2. every allocation failure */
    for(n=1; ; n++){
      setup(&sp, &b);
      nCalls = 0; failAt = n;
      rc = runAll(be, &sp, &b, zErr, sizeof(zErr));
      snprintf(what, sizeof(what), "f32 %d decay %d: allocation %d fails: rc %d, %d left allocated", f32, decay, n, rc, nLive);
      check((rc==ML_SVD_NOMEM || (rc==ML_SVD_OK && nCalls<n)) && nLive==0, what);
      if( rc==ML_SVD_OK ){
        snprintf(what, sizeof(what), "f32 %d decay %d: no NaN in place of a value", f32, decay);
        check(!isnan(b.run[0].recon_rel_error) && !isnan(b.run[1].recon_rel_error), what);
      }
      free(b.A); free(b.mem);
      if( rc!=ML_SVD_NOMEM ) break;
    }
    printf("f32 %d decay %d: %d allocations, each failure ends in ML_SVD_NOMEM\n", f32, decay, n - 1);
    failAt = 0;
    /* 3. interrupted at every question */
    for(n=1; ; n++){
      setup(&sp, &b);
      nInterruptAsk = 0; interruptAt = n;
      rc = runAll(be, &sp, &b, zErr, sizeof(zErr));
      snprintf(what, sizeof(what), "f32 %d decay %d: interrupt at question %d: rc %d, %d left allocated", f32, decay, n, rc, nLive);
      check((rc==ML_SVD_INTERRUPT || (rc==ML_SVD_OK && nInterruptAsk<n)) && nLive==0, what);
      free(b.A); free(b.mem);
      if( rc!=ML_SVD_INTERRUPT ) break;
    }
    interruptAt = 0;
    {
      /* before each of the 3 x (warmup + iters) calls; between the 2q + 2
      ** steps of each randomized call; before the two reconstructions; and
      ** for 'decay' before the 4 QR calls of U and V and the one panel of
      ** the product (9 columns) */
      int calls = sp.warmup + sp.iters, want = ML_SVD_NMETHOD*calls + calls*(2*ML_SVD_POWER_ITERS + 2) + 2
                                              + (decay ? 4 + 1 : 0);
      snprintf(what, sizeof(what), "f32 %d decay %d: asked %d times (before each call, between steps), want %d",
               f32, decay, n - 1, want);
      check(n - 1==want, what);
    }
    /* 1. a LAPACK failure names the routine and info */
    setup(&sp, &b);
    rc = be->xMatrix(&sp, b.A, zErr, sizeof(zErr));
    b.A[3] = NAN;
    zErr[0] = 0;
    if( rc==ML_SVD_OK ) rc = be->xRun(&sp, b.A, b.run, zErr, sizeof(zErr));
    snprintf(what, sizeof(what), "f32 %d decay %d: NaN: rc %d, '%s'", f32, decay, rc, zErr);
    check(rc==ML_SVD_ERROR && strncmp(zErr, f32 ? "sgesdd failed (info " : "dgesdd failed (info ", 20)==0
          && nLive==0, what);
    if( f32==0 && decay==0 ) printf("NaN input: %s\n", zErr);
    free(b.A); free(b.mem);
  }
  printf("check_svd_backend: %d checks, %d failed\n", nCheck, nFail);
  return nFail ? 1 : 0;
}
