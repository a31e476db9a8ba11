/*
** SPDX-License-Identifier: MIT
**
** svd_bench.h -- the interface between the svd_bench virtual table
** (svd_bench.c) and its back ends: svd_cpu.c (LAPACKE on OpenBLAS, in the
** extension) and svd_cuda.c (cuSOLVER, in the separate module mleval_cuda.so,
** loaded on first use so that .load mleval stays fast and works where the
** CUDA libraries are absent).
**
** No SQLite here: the back ends allocate host memory through the spec's
** xMalloc/xFree (sqlite3_malloc64/sqlite3_free), so fault injection reaches
** them too.
*/
#ifndef ML_SVD_BENCH_H
#define ML_SVD_BENCH_H
#include <stdint.h>

#define ML_SVD_FULL        0
#define ML_SVD_RANDOMIZED  1
#define ML_SVD_VALUES      2
#define ML_SVD_NMETHOD     3
#define ML_SVD_OVERSAMPLE  10
#define ML_SVD_POWER_ITERS 2

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
  uint64_t seed;
  void *(*xMalloc)(uint64_t);
  void (*xFree)(void*);
} MlSvdSpec;

/* One method's outcome.  S holds the leading `rank` singular values
** (caller-allocated, rank doubles); NaN fields are SQL NULL. */
typedef struct MlSvdRun {
  char driver[48];         /* the routine that ran, e.g. "gesdd", "cusolverDnXgesvd" */
  double *ms;              /* iters timings, caller-allocated */
  double *S;
  double recon_rel_error;  /* ||A - U_k S_k V_k^T||_F / ||A||_F, NaN for values_only */
} MlSvdRun;

/* Runs all three methods on A (rows x cols doubles, column-major).  Returns
** 0, or 1 with a message in zErr (out of memory: 2). */
typedef int (*MlSvdBackend)(const MlSvdSpec *spec, const double *A, MlSvdRun run[ML_SVD_NMETHOD],
                            char *zErr, int nErr);

int ml_svd_cpu(const MlSvdSpec *spec, const double *A, MlSvdRun run[ML_SVD_NMETHOD], char *zErr, int nErr);

/* Exported by mleval_cuda.so. */
int mleval_cuda_svd(const MlSvdSpec *spec, const double *A, MlSvdRun run[ML_SVD_NMETHOD], char *zErr, int nErr);

#endif
