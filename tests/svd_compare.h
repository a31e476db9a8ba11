/*
** SPDX-License-Identifier: MIT
**
** svd_compare.h -- what the SVD tests compare a back end's singular values
** with, and how they run a back-end module (svd_backend.h) directly.
** Used by tests/check_svd_compare.c (CPU against CPU: proves the helpers
** and their bounds in every build with the CPU module) and
** tests/check_svd_cuda.c (GPU against CPU on the same seeded matrix).
**
** What a randomized SVD's k singular values s_j (sketch of l = k + p
** columns, q power iterations) are held to, against the exact sigma_j of the
** same matrix:
**   1. Never above the exact ones: s_j are the singular values of B = Q^T A
**      and B^T B <= A^T A, so s_j <= sigma_j (plus rounding, tol * sigma_1).
**   2. sv_rel_error = ||sigma_1..k - s_1..k|| / ||sigma_1..k|| at most the
**      spectrum's tail beyond the sketch, ||sigma_l+1..mn|| / ||sigma_1..k||
**      (plus tol): what the sketch cannot see.  0 when l >= min(m, n): the
**      sketch then spans A.  This is the practical bound, met by orders of
**      magnitude with p = 10 and q = 2 on the 'decay' spectrum (1e-6 against
**      0.02 at rank 20).  The rigorous ones are vacuous there: Halko,
**      Martinsson & Tropp's (SIAM Review 2011, eq. 1.11) residual bound
**      [1 + 11 sqrt(k+p) sqrt(min(m,n))]^(1/(2q+1)) sigma_k+1 exceeds sigma_1 at
**      rank 8 of exp(-i/8), so a test built on it could catch nothing.
** On a flat ('gaussian') spectrum the tail bound exceeds 1 and rule 1 is
** the check that has teeth.
*/
#ifndef ML_SVD_COMPARE_H
#define ML_SVD_COMPARE_H
#include "svd_backend.h"

/* ||ref - got||_2 / ||ref||_2 over k values (0 when ref is all zero and
** got equals it, +Inf when only ref is zero). */
double svdcmp_rel_error(const double *ref, const double *got, int k);

/* Rule 2: ||sigma_l+1..mn|| / ||sigma_1..k|| + tol for all mn exact singular
** values (descending), the target rank k and the sketch size l (0 + tol
** when l >= mn). */
double svdcmp_tail_bound(const double *sigma, int mn, int k, int l, double tol);

/* Rule 1: the first j < k with got[j] > sigma[j] + tol * sigma[0] (or NaN),
** or -1. */
int svdcmp_first_above(const double *sigma, const double *got, int k, double tol);

/* A back-end module, opened from $MLEVAL_BACKEND_DIR (default ext/.libs);
** NULL with the loader's reason in zWhy. */
const MlSvdBackend *svdcmp_load(const char *zFile, char *zWhy, int nWhy);

/* One run's buffers: the three methods' timings and singular values. */
typedef struct SvdcmpRun {
  double *mem;
  MlSvdRun run[ML_SVD_NMETHOD];
} SvdcmpRun;

/* Runs be->xRun on A with the spec (malloc'ed buffers; free with
** svdcmp_free).  An ML_SVD_* code, the message in zErr. */
int svdcmp_run(const MlSvdBackend *be, const MlSvdSpec *sp, const double *A, SvdcmpRun *r,
               char *zErr, int nErr);
void svdcmp_free(SvdcmpRun *r);

/* A spec with malloc/free and no interrupt. */
MlSvdSpec svdcmp_spec(int rows, int cols, int rank, int warmup, int iters, int f32, int decay,
                      unsigned long long seed);

#endif
