/*
** SPDX-License-Identifier: MIT
**
** svd_cpu.c -- svd_bench's CPU back end: LAPACKE on OpenBLAS, built as the
** module mleval_cpu.so (see svd_backend.h), which svd_bench.c loads with
** dlopen on the first svd_bench query.  It alone links LAPACKE, OpenBLAS
** and gfortran, so mleval.so does not, and loading mleval starts no
** OpenBLAS thread.  Exports one symbol, mleval_svd_backend.
**
**   matrix       'gaussian': iid N(0,1) entries (?larnv); 'decay':
**                U diag(exp(-i/8)) V^T with U, V orthonormalised Gaussian
**                draws (?geqrf + ?orgqr), for every device
**   full         ?gesdd_work, jobz 'S' (thin U and V^T); ?gesvd_work when
**                gesdd does not converge (the driver column says so)
**   randomized   Halko-Martinsson-Tropp: Gaussian sketch (?larnv) of
**                rank + 10 columns capped at min(m, n), 2 power iterations
**                re-orthonormalised with ?geqrf/?orgqr, QR, small ?gesdd,
**                products with cblas_?gemm
**   values_only  ?gesdd_work, jobz 'N'
**
** Rules:
**   1. Every buffer and LAPACK workspace comes from spec->xMalloc (the
**      _work routines only: LAPACKE's high-level ones would malloc behind
**      SQLite's back); a failed allocation is ML_SVD_NOMEM, never a NaN.
**   2. Workspaces are queried once (lwork = -1) and allocated, with every
**      other buffer, before the warm-up calls; a timed call allocates nothing.
**   3. Each call of full / values_only copies A first (LAPACK overwrites its
**      input; numpy.linalg.svd makes the same copy), inside the timing.
**   4. float32 runs the s-routines on a float copy of the float64 matrix.
**   5. recon_rel_error uses the leading `rank` triplets, in the dtype's
**      precision, with norms accumulated in double.
**   6. A LAPACK routine that returns info != 0 is ML_SVD_ERROR with the
**      message "<routine> failed (info <n>)", e.g. "dgesdd failed (info 3)".
**   7. spec->xInterrupted is asked before every warm-up and timed call,
**      between the steps of a randomized call (each product, each QR),
**      before the reconstruction error, and while the 'decay' matrix is
**      built: before each QR and orthonormalisation of U and V, and
**      between panels of the product U diag(sigma) V^T (about 0.5 GFlop
**      each).  A true answer frees everything and returns
**      ML_SVD_INTERRUPT, so an interrupt waits for at most one LAPACK call
**      (one gesdd of the full matrix, or one QR of the decay construction).
**
** Cost: A, its working copy, U, V^T and the workspaces: about 3 rows x cols
** + 2 min(m, n)^2 elements for full; time as measured.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <lapacke.h>
#include <cblas.h>
#include "svd_backend.h"

/* Milliseconds between two CLOCK_MONOTONIC readings. */
static double msBetween(const struct timespec *t0, const struct timespec *t1){
  return (t1->tv_sec - t0->tv_sec)*1e3 + (t1->tv_nsec - t0->tv_nsec)/1e6;
}

static int interrupted(const MlSvdSpec *sp){
  return sp->xInterrupted && sp->xInterrupted(sp->pInterruptArg);
}

/* "<routine> failed (info <n>)" into zErr; returns ML_SVD_ERROR. */
static int lapackError(char *zErr, int nErr, const char *zRoutine, lapack_int info){
  snprintf(zErr, nErr, "%s failed (info %d)", zRoutine, (int)info);
  return ML_SVD_ERROR;
}

#define R double
#define P "d"
#define LP(x) LAPACKE_d##x
#define BL(x) cblas_d##x
#define FN(x) x##_f64
#include "svd_cpu_impl.h"
#undef R
#undef P
#undef LP
#undef BL
#undef FN

#define R float
#define P "s"
#define LP(x) LAPACKE_s##x
#define BL(x) cblas_s##x
#define FN(x) x##_f32
#include "svd_cpu_impl.h"
#undef R
#undef P
#undef LP
#undef BL
#undef FN

/* Orthonormal m x r factor from a Gaussian draw (the decay spectrum). */
static int randomOrtho(const MlSvdSpec *sp, double *Q, int m, int r, lapack_int *iseed,
                       char *zErr, int nErr){
  lapack_int info, lwork;
  double wq, w2, *tau = 0, *work = 0;
  int rc = ML_SVD_OK;
  info = LAPACKE_dlarnv_work(3, iseed, (lapack_int)m*r, Q);
  if( info ) return lapackError(zErr, nErr, "dlarnv", info);
  info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, r, Q, m, 0, &wq, -1);
  if( info ) return lapackError(zErr, nErr, "dgeqrf", info);
  info = LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, m, r, r, Q, m, 0, &w2, -1);
  if( info ) return lapackError(zErr, nErr, "dorgqr", info);
  lwork = (lapack_int)(wq > w2 ? wq : w2);
  if( lwork<1 ) lwork = 1;
  tau = sp->xMalloc(sizeof(double)*(uint64_t)r);
  work = sp->xMalloc(sizeof(double)*(uint64_t)lwork);
  if( tau==0 || work==0 ){
    rc = ML_SVD_NOMEM;
  }else if( interrupted(sp) ){
    rc = ML_SVD_INTERRUPT;
  }else if( (info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, r, Q, m, tau, work, lwork)) ){
    rc = lapackError(zErr, nErr, "dgeqrf", info);
  }else if( interrupted(sp) ){
    rc = ML_SVD_INTERRUPT;
  }else if( (info = LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, m, r, r, Q, m, tau, work, lwork)) ){
    rc = lapackError(zErr, nErr, "dorgqr", info);
  }
  sp->xFree(tau);
  sp->xFree(work);
  return rc;
}

/* The test matrix into A (rows x cols, column-major). */
static int cpuMatrix(const MlSvdSpec *sp, double *A, char *zErr, int nErr){
  int m = sp->rows, n = sp->cols, r = m<n ? m : n, i, j, rc;
  lapack_int iseed[4], info;
  double *U, *V;
  ML_SVD_ISEED(sp->seed, iseed);
  if( !sp->decay ){
    info = LAPACKE_dlarnv_work(3, iseed, (lapack_int)m*n, A);
    return info ? lapackError(zErr, nErr, "dlarnv", info) : ML_SVD_OK;
  }
  U = sp->xMalloc(sizeof(double)*(uint64_t)m*r);
  V = sp->xMalloc(sizeof(double)*(uint64_t)n*r);
  if( U==0 || V==0 ){
    rc = ML_SVD_NOMEM;
  }else if( (rc = randomOrtho(sp, U, m, r, iseed, zErr, nErr))==ML_SVD_OK
         && (rc = randomOrtho(sp, V, n, r, iseed, zErr, nErr))==ML_SVD_OK ){
    int j0, nb = (int)(((size_t)1<<28) / ((size_t)m*r));   /* columns of A per product, ~0.5 GFlop */
    if( nb<16 ) nb = 16;
    for(j=0; j<r; j++){
      double s = exp(-(double)j/8.0);
      for(i=0; i<m; i++) U[(size_t)j*m+i] *= s;
    }
    /* A = U_s V^T a panel of columns at a time, asking between panels */
    for(j0=0; j0<n && rc==ML_SVD_OK; j0+=nb){
      int w = n - j0 < nb ? n - j0 : nb;
      if( interrupted(sp) ){ rc = ML_SVD_INTERRUPT; break; }
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, w, r, 1.0, U, m, V + j0, n, 0.0,
                  A + (size_t)j0*m, m);
    }
  }
  sp->xFree(U);
  sp->xFree(V);
  return rc;
}

/* All three methods, in the spec's dtype. */
static int cpuRun(const MlSvdSpec *spec, const double *A, MlSvdRun run[ML_SVD_NMETHOD], char *zErr, int nErr){
  size_t i, n = (size_t)spec->rows * spec->cols;
  float *Af;
  int rc;
  if( !spec->f32 ) return all_f64(spec, A, run, zErr, nErr);
  Af = spec->xMalloc(sizeof(float)*(uint64_t)n);
  if( Af==0 ) return ML_SVD_NOMEM;
  for(i=0; i<n; i++) Af[i] = (float)A[i];
  rc = all_f32(spec, Af, run, zErr, nErr);
  spec->xFree(Af);
  return rc;
}

const MlSvdBackend mleval_svd_backend = { ML_SVD_BACKEND_VERSION, "cpu", cpuMatrix, cpuRun };
