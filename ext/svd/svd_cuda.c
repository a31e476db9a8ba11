/*
** SPDX-License-Identifier: MIT
**
** svd_cuda.c -- svd_bench's CUDA back end (cuSOLVER, called from C).
** Built into the separate module mleval_cuda.so when configure finds the
** CUDA toolkit; svd_bench.c loads it on the first device = 'cuda' query
** (see svd_backend.h; the test matrix comes from the CPU module).  Exports
** one symbol, mleval_svd_backend.
**
**   full         cusolverDnXgesvd, jobu = jobvt = 'S'
**   randomized   cusolverDnXgesvdr, jobu = jobv = 'S', k = rank,
**                p = min(10, min(m, n) - 1 - k), niters = 2
**   values_only  cusolverDnXgesvd, jobu = jobvt = 'N'
**
** Rules:
**   1. Before anything else the runtime is asked for the driver version,
**      its own version and the device count, and svd_cuda_status.c
**      decides: no driver or no device is ML_SVD_ABSENT ("no CUDA device
**      found (...)", "no CUDA driver installed (...)"); any other failure
**      (a driver too old for the runtime: cudaErrorInsufficientDriver) is
**      ML_SVD_ERROR naming the call, the runtime's error name and text.
**   2. Every other failure is ML_SVD_ERROR "<call>: <error name>: <text>"
**      (cudaGetErrorName/String, cublasGetStatusName/String, the
**      cusolverStatus_t name): the CUDA call, never C source text.
**   3. gesvd needs m >= n: a wide matrix (rows < cols) is transposed on the
**      host first; its singular values, and the reconstruction error, are
**      those of the original.  gesvdr gets the same matrix.
**   4. Buffers follow cuSOLVER's documentation (cuSOLVER API reference,
**      cusolverDnXgesvd and cusolverDnXgesvdr; NVIDIA CUDALibrarySamples
**      cuSOLVER/Xgesvdr): gesvd: S min(m, n), U ldu x min(m, n) with
**      ldu = m, VT ldvt x n with ldvt = min(m, n).  gesvdr: k < min(m, n)
**      and k + p < min(m, n) ("rank is less than min(m,n)", "(k+p) is less
**      than min(m,n)"); ldUrand >= max(1, m), ldVrand >= max(1, n); it
**      returns V, not V^H.  The parameter list does not state the extent of
**      Srand, Urand and Vrand, and NVIDIA's sample allocates Srand of
**      min(m, n) and Urand, Vrand of m x m and n x n: so do we (m x k and
**      n x k, the k columns returned, may be what the routine writes, but
**      nothing documents that it writes no more).  At rank >= min(m, n)
**      gesvdr is outside its documented domain: the randomized row is
**      then not run, its values NULL and its driver column says why.
**   5. Timing is the seed's (phase 13): each warm-up call alone; then the
**      timed calls back to back on working copies of A made beforehand
**      (gesvd and gesvdr destroy their input), one event pair around the
**      batch with the device synchronised before and after, the elapsed
**      time divided by the number of calls.  The copies are a pool of as
**      many as half the free device memory holds (at most iters); the
**      batch is also cut so that it runs about 2 s at most (from the last
**      warm-up call) so an interrupt is seen.  Each call of a batch gets
**      the batch's mean as its time: ms_min, ms_median and ms_max are over
**      batch means, and all equal ms_mean when one batch held every call.
**   6. Each call writes its own info (an array, one per call of a batch),
**      read after the batch: any info != 0, warm-up calls included, is
**      ML_SVD_ERROR "<routine> returned info <n> (call <i>)".
**   7. Accuracy is computed on the device: the singular values are copied
**      back, the reconstruction ||A - U_k S_k V_k^T||_F is formed with
**      cublas ?dgmm and ?gemm and measured with ?nrm2.
**   8. spec->xInterrupted is asked before every warm-up call, every batch
**      and the reconstruction (ML_SVD_INTERRUPT); host memory comes from
**      spec->xMalloc (ML_SVD_NOMEM when it fails).
**
** Cost on the device: A, the pool of copies, S, U, V and the workspaces;
** gesvdr's U and V are m x m and n x n (rule 4).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include "svd_backend.h"
#include "svd_cuda_status.h"

_Static_assert(cudaSuccess==ML_CUDA_SUCCESS, "svd_cuda_status.h: cudaSuccess");
_Static_assert(cudaErrorNoDevice==ML_CUDA_NO_DEVICE, "svd_cuda_status.h: cudaErrorNoDevice");
_Static_assert(CUSOLVER_STATUS_INVALID_VALUE==3 && CUSOLVER_STATUS_INVALID_WORKSPACE==31,
               "svd_cuda_status.c: cusolverStatus_t names");

#define CUDA_BATCH_MS 2000.0       /* rule 5: a batch runs about this long at most */

typedef struct Gpu {
  const MlSvdSpec *sp;
  int m, n, mn, f32;                 /* the (possibly transposed) shape: m >= n */
  size_t esz, cells;                 /* element size; m * n */
  cudaDataType dt;
  cudaStream_t stream;
  cusolverDnHandle_t sol;
  cusolverDnParams_t par;
  cublasHandle_t blas;
  cudaEvent_t e0, e1;
  const double *A;                   /* the spec's matrix (host, float64, rows x cols) */
  void *dA;                          /* the matrix, read only after the upload */
  char *dPool;                       /* nPool working copies of A, one per call of a batch */
  int nPool;
  int *dInfo;                        /* nPool infos, one per call of a batch */
  int *hInfo;                        /* their host copy */
  char *zErr;
  int nErr;
} Gpu;

/* One method's buffers and arguments. */
typedef struct Method {
  int which;                         /* ML_SVD_FULL ... */
  const char *zRoutine;              /* "cusolverDnXgesvd", "cusolverDnXgesvdr" */
  signed char job;                   /* 'S' or 'N' */
  int64_t k, p, ldU, ldV;
  void *dS, *dU, *dV, *dWork, *hWork;
  size_t wDev, wHost;
} Method;

/* Rule 2: the call's name and the runtime's words for the error. */
#define CU(fn, args) do{ cudaError_t e_ = fn args; if( e_!=cudaSuccess ){ \
  snprintf(g->zErr, g->nErr, "%s: %s: %s", #fn, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
  goto fail; } }while(0)
#define SOL(fn, args) do{ cusolverStatus_t s_ = fn args; if( s_!=CUSOLVER_STATUS_SUCCESS ){ \
  snprintf(g->zErr, g->nErr, "%s: %s (status %d)", #fn, ml_cusolver_status_name((int)s_), (int)s_); \
  goto fail; } }while(0)
#define BLA(fn, args) do{ cublasStatus_t s_ = fn args; if( s_!=CUBLAS_STATUS_SUCCESS ){ \
  snprintf(g->zErr, g->nErr, "%s: %s: %s", #fn, cublasGetStatusName(s_), cublasGetStatusString(s_)); \
  goto fail; } }while(0)

static int interrupted(const MlSvdSpec *sp){
  return sp->xInterrupted && sp->xInterrupted(sp->pInterruptArg);
}

/* Rule 1: ML_SVD_OK when there is a device to run on, else ML_SVD_ABSENT or
** ML_SVD_ERROR with the reason in zErr. */
static int probe(char *zErr, int nErr){
  MlCudaProbe p;
  memset(&p, 0, sizeof(p));
  p.driver.rc = (int)cudaDriverGetVersion(&p.driverVersion);
  p.runtime.rc = (int)cudaRuntimeGetVersion(&p.runtimeVersion);
  p.count.rc = (int)cudaGetDeviceCount(&p.nDevice);
  if( p.driver.rc ){ p.driver.zName = cudaGetErrorName(p.driver.rc); p.driver.zText = cudaGetErrorString(p.driver.rc); }
  if( p.runtime.rc ){ p.runtime.zName = cudaGetErrorName(p.runtime.rc); p.runtime.zText = cudaGetErrorString(p.runtime.rc); }
  if( p.count.rc ){ p.count.zName = cudaGetErrorName(p.count.rc); p.count.zText = cudaGetErrorString(p.count.rc); }
  switch( ml_cuda_classify(&p, zErr, nErr) ){
    case ML_CUDA_READY:  return ML_SVD_OK;
    case ML_CUDA_ABSENT: return ML_SVD_ABSENT;
    default:             return ML_SVD_ERROR;
  }
}

/* ||A - U_k diag(S_k) Vt_k||_F / ||A||_F on the device.  U: m x k (ld m);
** V^T rows: k x n with ld ldv, or V (n x k, ld ldv) when vIsV. */
static int recon(Gpu *g, const Method *M, int vIsV, int k, double *out){
  void *dUS = 0, *dR = 0;
  double num = 0, den = 0;
  CU(cudaMalloc, (&dUS, g->esz * (size_t)g->m * k));
  CU(cudaMalloc, (&dR, g->esz * g->cells));
  CU(cudaMemcpyAsync, (dR, g->dA, g->esz * g->cells, cudaMemcpyDeviceToDevice, g->stream));
  if( g->f32 ){
    float one = 1.0f, mone = -1.0f, a, b;
    BLA(cublasSdgmm, (g->blas, CUBLAS_SIDE_RIGHT, g->m, k, M->dU, (int)M->ldU, M->dS, 1, dUS, g->m));
    BLA(cublasSgemm, (g->blas, CUBLAS_OP_N, vIsV ? CUBLAS_OP_T : CUBLAS_OP_N, g->m, g->n, k,
                      &mone, dUS, g->m, M->dV, (int)M->ldV, &one, dR, g->m));
    BLA(cublasSnrm2, (g->blas, (int)g->cells, dR, 1, &a));
    BLA(cublasSnrm2, (g->blas, (int)g->cells, g->dA, 1, &b));
    num = a; den = b;
  }else{
    double one = 1.0, mone = -1.0;
    BLA(cublasDdgmm, (g->blas, CUBLAS_SIDE_RIGHT, g->m, k, M->dU, (int)M->ldU, M->dS, 1, dUS, g->m));
    BLA(cublasDgemm, (g->blas, CUBLAS_OP_N, vIsV ? CUBLAS_OP_T : CUBLAS_OP_N, g->m, g->n, k,
                      &mone, dUS, g->m, M->dV, (int)M->ldV, &one, dR, g->m));
    BLA(cublasDnrm2, (g->blas, (int)g->cells, dR, 1, &num));
    BLA(cublasDnrm2, (g->blas, (int)g->cells, g->dA, 1, &den));
  }
  CU(cudaStreamSynchronize, (g->stream));
  cudaFree(dUS); cudaFree(dR);
  *out = den>0 ? num/den : 0.0;
  return 0;
fail:
  cudaFree(dUS); cudaFree(dR);
  return 1;
}

/* Copies k singular values (dtype) from the device into run->S (double). */
static int fetchS(Gpu *g, const Method *M, MlSvdRun *run){
  void *h = g->sp->xMalloc(g->esz * (uint64_t)M->k);
  int i;
  if( h==0 ) return ML_SVD_NOMEM;
  CU(cudaMemcpy, (h, M->dS, g->esz * (size_t)M->k, cudaMemcpyDeviceToHost));
  for(i=0; i<M->k; i++) run->S[i] = g->f32 ? ((float*)h)[i] : ((double*)h)[i];
  g->sp->xFree(h);
  return ML_SVD_OK;
fail:
  g->sp->xFree(h);
  return ML_SVD_ERROR;
}

/* One solver call on the working copy dW, writing *dInfo; enqueued on the
** stream, not waited for.  0, or 1 with the message in zErr. */
static int solve(Gpu *g, const Method *M, void *dW, int *dInfo){
  if( M->which==ML_SVD_RANDOMIZED ){
    SOL(cusolverDnXgesvdr, (g->sol, g->par, 'S', 'S', g->m, g->n, M->k, M->p, ML_SVD_POWER_ITERS,
        g->dt, dW, g->m, g->dt, M->dS, g->dt, M->dU, M->ldU, g->dt, M->dV, M->ldV, g->dt,
        M->dWork, M->wDev, M->hWork, M->wHost, dInfo));
  }else{
    SOL(cusolverDnXgesvd, (g->sol, g->par, M->job, M->job, g->m, g->n, g->dt, dW, g->m, g->dt, M->dS,
        g->dt, M->dU, M->ldU, g->dt, M->dV, M->ldV, g->dt, M->dWork, M->wDev, M->hWork, M->wHost, dInfo));
  }
  return 0;
fail:
  return 1;
}

/* Restores the first nb copies of the pool from A and clears their infos
** (untimed, on the stream).  0 or 1. */
static int restore(Gpu *g, int nb){
  int c;
  for(c=0; c<nb; c++){
    CU(cudaMemcpyAsync, (g->dPool + (size_t)c*g->esz*g->cells, g->dA, g->esz * g->cells,
                         cudaMemcpyDeviceToDevice, g->stream));
  }
  CU(cudaMemsetAsync, (g->dInfo, 0, sizeof(int)*(size_t)nb, g->stream));
  return 0;
fail:
  return 1;
}

/* Rule 6: reads the infos of calls first .. first+nb-1 (pool slots
** 0 .. nb-1).  0, or 1 with the message. */
static int checkInfo(Gpu *g, const Method *M, int first, int nb){
  int c;
  CU(cudaMemcpy, (g->hInfo, g->dInfo, sizeof(int)*(size_t)nb, cudaMemcpyDeviceToHost));
  for(c=0; c<nb; c++){
    if( g->hInfo[c]!=0 ){
      snprintf(g->zErr, g->nErr, "%s returned info %d (call %d)", M->zRoutine, g->hInfo[c], first + c + 1);
      return 1;
    }
  }
  return 0;
fail:
  return 1;
}

/* Sizes and allocates a method's buffers (rule 4).  ML_SVD_* code. */
static int setup(Gpu *g, Method *M){
  int m = g->m, n = g->n, mn = g->mn;
  M->k = g->sp->rank;
  M->ldU = m;
  CU(cudaMalloc, (&M->dS, g->esz * (size_t)mn));
  if( M->which==ML_SVD_RANDOMIZED ){
    M->zRoutine = "cusolverDnXgesvdr";
    M->p = mn - 1 - M->k < ML_SVD_OVERSAMPLE ? mn - 1 - M->k : ML_SVD_OVERSAMPLE;
    M->ldV = n;
    CU(cudaMalloc, (&M->dU, g->esz * (size_t)m * m));
    CU(cudaMalloc, (&M->dV, g->esz * (size_t)n * n));
    SOL(cusolverDnXgesvdr_bufferSize, (g->sol, g->par, 'S', 'S', m, n, M->k, M->p, ML_SVD_POWER_ITERS,
        g->dt, g->dPool, m, g->dt, M->dS, g->dt, M->dU, M->ldU, g->dt, M->dV, M->ldV, g->dt,
        &M->wDev, &M->wHost));
  }else{
    M->zRoutine = "cusolverDnXgesvd";
    M->job = M->which==ML_SVD_VALUES ? 'N' : 'S';
    M->ldV = mn;
    if( M->which==ML_SVD_FULL ){
      CU(cudaMalloc, (&M->dU, g->esz * (size_t)m * mn));
      CU(cudaMalloc, (&M->dV, g->esz * (size_t)mn * n));
    }
    SOL(cusolverDnXgesvd_bufferSize, (g->sol, g->par, M->job, M->job, m, n, g->dt, g->dPool, m, g->dt,
        M->dS, g->dt, M->dU, M->ldU, g->dt, M->dV, M->ldV, g->dt, &M->wDev, &M->wHost));
  }
  CU(cudaMalloc, (&M->dWork, M->wDev ? M->wDev : 1));
  M->hWork = g->sp->xMalloc(M->wHost ? M->wHost : 1);
  return M->hWork ? ML_SVD_OK : ML_SVD_NOMEM;
fail:
  return ML_SVD_ERROR;
}

static void release(Gpu *g, Method *M){
  cudaFree(M->dS); cudaFree(M->dU); cudaFree(M->dV); cudaFree(M->dWork);
  g->sp->xFree(M->hWork);
}

/* The warm-up calls, each alone and checked; *pMs: the last one's time (0
** without warm-up).  ML_SVD_* code. */
static int warmUp(Gpu *g, const Method *M, double *pMs){
  const MlSvdSpec *sp = g->sp;
  int it;
  *pMs = 0;
  for(it=0; it<sp->warmup; it++){
    float ms = 0;
    if( interrupted(sp) ) return ML_SVD_INTERRUPT;
    if( restore(g, 1) ) return ML_SVD_ERROR;
    CU(cudaEventRecord, (g->e0, g->stream));
    if( solve(g, M, g->dPool, g->dInfo) ) return ML_SVD_ERROR;
    CU(cudaEventRecord, (g->e1, g->stream));
    CU(cudaEventSynchronize, (g->e1));
    CU(cudaEventElapsedTime, (&ms, g->e0, g->e1));
    if( checkInfo(g, M, it, 1) ) return ML_SVD_ERROR;
    *pMs = ms;
  }
  return ML_SVD_OK;
fail:
  return ML_SVD_ERROR;
}

/* The timed calls in batches (rule 5), each call's time into run->ms.
** ML_SVD_* code. */
static int timeBatches(Gpu *g, const Method *M, double msCall, MlSvdRun *run){
  const MlSvdSpec *sp = g->sp;
  int done = 0, cap = g->nPool, c;
  if( msCall>0 && CUDA_BATCH_MS/msCall < cap ) cap = (int)(CUDA_BATCH_MS/msCall);
  if( cap<1 ) cap = 1;
  while( done<sp->iters ){
    int nb = sp->iters - done < cap ? sp->iters - done : cap;
    float ms = 0;
    if( interrupted(sp) ) return ML_SVD_INTERRUPT;
    if( restore(g, nb) ) return ML_SVD_ERROR;
    CU(cudaDeviceSynchronize, ());
    CU(cudaEventRecord, (g->e0, g->stream));
    for(c=0; c<nb; c++){
      if( solve(g, M, g->dPool + (size_t)c*g->esz*g->cells, g->dInfo + c) ) return ML_SVD_ERROR;
    }
    CU(cudaEventRecord, (g->e1, g->stream));
    CU(cudaEventSynchronize, (g->e1));
    CU(cudaDeviceSynchronize, ());
    CU(cudaEventElapsedTime, (&ms, g->e0, g->e1));
    if( checkInfo(g, M, sp->warmup + done, nb) ) return ML_SVD_ERROR;
    for(c=0; c<nb; c++) run->ms[done + c] = ms / nb;
    done += nb;
  }
  return ML_SVD_OK;
fail:
  return ML_SVD_ERROR;
}

/* Rule 4: the randomized row when gesvdr cannot run: NULL values. */
static void notRun(const MlSvdSpec *sp, MlSvdRun *run){
  int i;
  snprintf(run->driver, sizeof(run->driver), "cusolverDnXgesvdr: needs rank < min(rows, cols)");
  for(i=0; i<sp->iters; i++) run->ms[i] = NAN;
  for(i=0; i<sp->rank; i++) run->S[i] = NAN;
  run->recon_rel_error = NAN;
}

/* Times one method, then its accuracy.  ML_SVD_* code. */
static int timeMethod(Gpu *g, int which, MlSvdRun *run){
  Method M;
  double msCall = 0;
  int rc;
  memset(&M, 0, sizeof(M));
  M.which = which;
  if( which==ML_SVD_RANDOMIZED && g->sp->rank >= g->mn ){
    notRun(g->sp, run);
    return ML_SVD_OK;
  }
  rc = setup(g, &M);
  if( rc==ML_SVD_OK ) rc = warmUp(g, &M, &msCall);
  if( rc==ML_SVD_OK ) rc = timeBatches(g, &M, msCall, run);
  if( rc==ML_SVD_OK ) rc = fetchS(g, &M, run);
  if( rc==ML_SVD_OK ){
    if( which==ML_SVD_RANDOMIZED ){
      snprintf(run->driver, sizeof(run->driver), "cusolverDnXgesvdr (p=%d, niters=%d)",
               (int)M.p, ML_SVD_POWER_ITERS);
    }else{
      snprintf(run->driver, sizeof(run->driver), "cusolverDnXgesvd");
    }
    run->recon_rel_error = NAN;
    if( which!=ML_SVD_VALUES && interrupted(g->sp) ) rc = ML_SVD_INTERRUPT;
    else if( which!=ML_SVD_VALUES && recon(g, &M, which==ML_SVD_RANDOMIZED, g->sp->rank, &run->recon_rel_error) ){
      rc = ML_SVD_ERROR;
    }
  }
  release(g, &M);
  return rc;
}

/* The host copy of A in the dtype, transposed when wide (column-major
** m x n); NULL when xMalloc fails. */
static void *hostCopy(Gpu *g){
  const MlSvdSpec *sp = g->sp;
  void *h = sp->xMalloc(g->esz * (uint64_t)g->cells);
  int i, j, tr = sp->rows < sp->cols;
  if( h==0 ) return 0;
  for(j=0; j<sp->cols; j++){
    for(i=0; i<sp->rows; i++){
      double v = g->A[(size_t)j*sp->rows + i];
      size_t at = tr ? (size_t)i*g->m + j : (size_t)j*g->m + i;
      if( sp->f32 ) ((float*)h)[at] = (float)v; else ((double*)h)[at] = v;
    }
  }
  return h;
}

/* Handles, events, A on the device, the pool (rule 5) and the infos.
** ML_SVD_* code. */
static int gpuOpen(Gpu *g){
  const MlSvdSpec *sp = g->sp;
  size_t freeMem = 0, totalMem = 0, bytes = g->esz * g->cells;
  void *h = hostCopy(g);
  if( h==0 ) return ML_SVD_NOMEM;
  CU(cudaStreamCreate, (&g->stream));
  SOL(cusolverDnCreate, (&g->sol));
  SOL(cusolverDnSetStream, (g->sol, g->stream));
  SOL(cusolverDnCreateParams, (&g->par));
  BLA(cublasCreate, (&g->blas));
  BLA(cublasSetStream, (g->blas, g->stream));
  CU(cudaEventCreate, (&g->e0));
  CU(cudaEventCreate, (&g->e1));
  CU(cudaMalloc, (&g->dA, bytes));
  CU(cudaMemcpy, (g->dA, h, bytes, cudaMemcpyHostToDevice));
  sp->xFree(h);
  h = 0;
  CU(cudaMemGetInfo, (&freeMem, &totalMem));
  g->nPool = (int)((freeMem/2) / bytes < (size_t)sp->iters ? (freeMem/2) / bytes : (size_t)sp->iters);
  if( g->nPool<1 ) g->nPool = 1;
  CU(cudaMalloc, ((void**)&g->dPool, bytes * (size_t)g->nPool));
  CU(cudaMalloc, ((void**)&g->dInfo, sizeof(int)*(size_t)g->nPool));
  g->hInfo = sp->xMalloc(sizeof(int)*(uint64_t)g->nPool);
  return g->hInfo ? ML_SVD_OK : ML_SVD_NOMEM;
fail:
  sp->xFree(h);
  return ML_SVD_ERROR;
}

static void gpuClose(Gpu *g){
  g->sp->xFree(g->hInfo);
  if( g->dA ) cudaFree(g->dA);
  if( g->dPool ) cudaFree(g->dPool);
  if( g->dInfo ) cudaFree(g->dInfo);
  if( g->e0 ) cudaEventDestroy(g->e0);
  if( g->e1 ) cudaEventDestroy(g->e1);
  if( g->blas ) cublasDestroy(g->blas);
  if( g->par ) cusolverDnDestroyParams(g->par);
  if( g->sol ) cusolverDnDestroy(g->sol);
  if( g->stream ) cudaStreamDestroy(g->stream);
}

/* All three methods on the GPU.  An ML_SVD_* code. */
static int cudaRun(const MlSvdSpec *sp, const double *A, MlSvdRun run[ML_SVD_NMETHOD], char *zErr, int nErr){
  Gpu gg, *g = &gg;
  int rc = probe(zErr, nErr);
  if( rc!=ML_SVD_OK ) return rc;
  memset(g, 0, sizeof(*g));
  g->sp = sp; g->A = A; g->zErr = zErr; g->nErr = nErr;
  g->m = sp->rows < sp->cols ? sp->cols : sp->rows;
  g->n = sp->rows < sp->cols ? sp->rows : sp->cols;
  g->mn = g->n;
  g->cells = (size_t)g->m * g->n;
  g->f32 = sp->f32;
  g->esz = sp->f32 ? sizeof(float) : sizeof(double);
  g->dt = sp->f32 ? CUDA_R_32F : CUDA_R_64F;
  rc = gpuOpen(g);
  if( rc==ML_SVD_OK ) rc = timeMethod(g, ML_SVD_FULL, &run[ML_SVD_FULL]);
  if( rc==ML_SVD_OK ) rc = timeMethod(g, ML_SVD_RANDOMIZED, &run[ML_SVD_RANDOMIZED]);
  if( rc==ML_SVD_OK ) rc = timeMethod(g, ML_SVD_VALUES, &run[ML_SVD_VALUES]);
  gpuClose(g);
  return rc;
}

const MlSvdBackend mleval_svd_backend = { ML_SVD_BACKEND_VERSION, "cuda", 0, cudaRun };
