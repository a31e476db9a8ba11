/*
** SPDX-License-Identifier: MIT
**
** svd_cpu.c -- svd_bench's CPU back end: LAPACKE on OpenBLAS.
**
**   full         ?gesdd_work, jobz 'S' (thin U and V^T); ?gesvd_work when
**                gesdd does not converge (the driver column says so)
**   randomized   Halko-Martinsson-Tropp: Gaussian sketch (?larnv) of
**                rank + 10 columns capped at min(m, n), 2 power iterations
**                re-orthonormalised with ?geqrf/?orgqr, QR, small ?gesdd,
**                products with cblas_?gemm
**   values_only  ?gesdd_work, jobz 'N'
**
** Rules:
**   1. Workspaces are queried once (lwork = -1) and allocated, with every
**      other buffer, before the warm-up calls; a timed call allocates nothing.
**   2. Each call of full / values_only copies A first (LAPACK overwrites its
**      input; numpy.linalg.svd makes the same copy), inside the timing.
**   3. float32 runs the s-routines on a float copy of the float64 matrix.
**   4. recon_rel_error uses the leading `rank` triplets, in the dtype's
**      precision, with norms accumulated in double.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <lapacke.h>
#include <cblas.h>
#include "svd_bench.h"

#define R double
#define LP(x) LAPACKE_d##x
#define BL(x) cblas_d##x
#define FN(x) x##_f64
#include "svd_cpu_impl.h"
#undef R
#undef LP
#undef BL
#undef FN

#define R float
#define LP(x) LAPACKE_s##x
#define BL(x) cblas_s##x
#define FN(x) x##_f32
#include "svd_cpu_impl.h"
#undef R
#undef LP
#undef BL
#undef FN

int ml_svd_cpu(const MlSvdSpec *spec, const double *A, MlSvdRun run[ML_SVD_NMETHOD], char *zErr, int nErr){
  size_t i, n = (size_t)spec->rows * spec->cols;
  float *Af;
  int rc;
  if( !spec->f32 ) return all_f64(spec, A, run, zErr, nErr);
  Af = spec->xMalloc(sizeof(float)*(uint64_t)n);
  if( Af==0 ) return 2;
  for(i=0; i<n; i++) Af[i] = (float)A[i];
  rc = all_f32(spec, Af, run, zErr, nErr);
  spec->xFree(Af);
  return rc;
}
