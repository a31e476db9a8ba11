/*
** SPDX-License-Identifier: MIT
**
** svd_backend.h -- the interface between the svd_bench virtual table
** (svd_bench.c, in mleval.so) and its back ends, each a separate module
** loaded with dlopen on first use:
**
**   mleval_cpu.so    svd_cpu.c   LAPACKE on OpenBLAS; also builds the test
**                                matrix for every device
**   mleval_cuda.so   svd_cuda.c  cuSOLVER
**
** so that .load mleval links libc and libm only, starts no BLAS thread and
** works where LAPACKE, OpenBLAS or CUDA are absent.  In the build tree the
** modules lie next to mleval.so (ext/.libs/); installed, in $(pkglibdir),
** the directory mleval/ next to it.
**
** No SQLite here: a back end allocates host memory through the spec's
** xMalloc/xFree (the core's ml_malloc/ml_free, i.e. SQLite's allocator, so
** fault injection reaches it) and asks xInterrupted between timed calls.
*/
#ifndef ML_SVD_BACKEND_H
#define ML_SVD_BACKEND_H
#include <stdint.h>

#define ML_SVD_FULL        0
#define ML_SVD_RANDOMIZED  1
#define ML_SVD_VALUES      2
#define ML_SVD_NMETHOD     3
#define ML_SVD_OVERSAMPLE  10
#define ML_SVD_POWER_ITERS 2

/* What a back-end call returns. */
#define ML_SVD_OK        0
#define ML_SVD_ERROR     1   /* the message is in zErr */
#define ML_SVD_NOMEM     2   /* spec->xMalloc failed */
#define ML_SVD_INTERRUPT 3   /* spec->xInterrupted said stop */
#define ML_SVD_ABSENT    4   /* the device is not there (no GPU, no driver): the
                             ** message in zErr says which; a test SKIPs on it,
                             ** where it FAILs on ML_SVD_ERROR */

/* LAPACK's ?larnv seed (four integers in 0..4095, the last odd) from the
** 48-bit svd_bench seed; the matrix and the randomized sketch both use it. */
#define ML_SVD_ISEED(seed, is) do{ \
  (is)[0] = (seed) & 4095; (is)[1] = ((seed)>>12) & 4095; \
  (is)[2] = ((seed)>>24) & 4095; (is)[3] = (((seed)>>36) & 4095) | 1; }while(0)

typedef struct MlSvdSpec {
  int rows, cols;          /* the test matrix is rows x cols, column-major */
  int rank;                /* leading singular values compared, and the randomized target */
  int warmup, iters;
  int f32;                 /* dtype float32 (else float64) */
  int decay;               /* spectrum 'decay' (else 'gaussian') */
  uint64_t seed;
  void *(*xMalloc)(uint64_t);
  void (*xFree)(void*);
  int (*xInterrupted)(void*);   /* nonzero: stop with ML_SVD_INTERRUPT */
  void *pInterruptArg;
} MlSvdSpec;

/* One method's outcome.  S holds the leading `rank` singular values
** (caller-allocated, rank doubles); NaN fields are SQL NULL. */
typedef struct MlSvdRun {
  char driver[48];         /* the routine that ran, e.g. "gesdd", "cusolverDnXgesvd" */
  double *ms;              /* iters timings, caller-allocated */
  double *S;
  double recon_rel_error;  /* ||A - U_k S_k V_k^T||_F / ||A||_F, NaN for values_only */
} MlSvdRun;

#define ML_SVD_BACKEND_VERSION 1

/* What a module provides: the symbol mleval_svd_backend, of this type. */
typedef struct MlSvdBackend {
  int iVersion;            /* ML_SVD_BACKEND_VERSION: a stale module is refused */
  const char *zDevice;     /* "cpu", "cuda" */
  /* Fills A (rows x cols doubles, column-major) with the spec's test
  ** matrix.  NULL in a module that cannot (the CPU module builds it). */
  int (*xMatrix)(const MlSvdSpec *spec, double *A, char *zErr, int nErr);
  /* Runs all three methods on A.  An ML_SVD_* code. */
  int (*xRun)(const MlSvdSpec *spec, const double *A, MlSvdRun run[ML_SVD_NMETHOD],
              char *zErr, int nErr);
} MlSvdBackend;

#define ML_SVD_BACKEND_SYMBOL "mleval_svd_backend"

#endif
