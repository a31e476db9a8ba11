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
**                p = min(10, min(m, n) - k), niters = 2
**   values_only  cusolverDnXgesvd, jobu = jobvt = 'N'
**
** Rules:
**   1. gesvd needs m >= n: a wide matrix (rows < cols) is transposed on the
**      host first; its singular values, and the reconstruction error, are
**      those of the original.
**   2. The handle is bound to one stream; the device matrix, its working
**      copy, S, U, V^T, the device and host workspaces and info are all
**      allocated before the warm-up calls.
**   3. Each call (the device-to-device copy that restores A, which gesvd
**      overwrites, and the solver) is bracketed by CUDA events recorded on
**      that stream; the time is read after cudaEventSynchronize.
**   4. Accuracy is computed on the device: the singular values are copied
**      back, the reconstruction ||A - U_k S_k V_k^T||_F is formed with
**      cublas ?dgmm and ?gemm and measured with ?nrm2.
**   5. No GPU (cudaGetDeviceCount fails or says 0) is the error
**      "no CUDA device found".
**   6. spec->xInterrupted is asked before every warm-up and timed call
**      (ML_SVD_INTERRUPT); host memory comes from spec->xMalloc
**      (ML_SVD_NOMEM when it fails).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include "svd_backend.h"

typedef struct Gpu {
  const MlSvdSpec *sp;
  int m, n, mn, f32;                 /* the (possibly transposed) shape: m >= n */
  size_t esz;                        /* element size */
  cudaDataType dt;
  cudaStream_t stream;
  cusolverDnHandle_t sol;
  cusolverDnParams_t par;
  cublasHandle_t blas;
  cudaEvent_t e0, e1;
  void *dA, *dW;                     /* the matrix and its working copy */
  int *dInfo;
  char *zErr;
  int nErr;
} Gpu;

#define CU(x)  do{ cudaError_t e_ = (x); if( e_!=cudaSuccess ){ snprintf(g->zErr, g->nErr, "%s: %s", #x, cudaGetErrorString(e_)); goto fail; } }while(0)
#define SOL(x) do{ cusolverStatus_t s_ = (x); if( s_!=CUSOLVER_STATUS_SUCCESS ){ snprintf(g->zErr, g->nErr, "%s failed (status %d)", #x, (int)s_); goto fail; } }while(0)
#define BLA(x) do{ cublasStatus_t s_ = (x); if( s_!=CUBLAS_STATUS_SUCCESS ){ snprintf(g->zErr, g->nErr, "%s failed (status %d)", #x, (int)s_); goto fail; } }while(0)

/* ||A - U_k diag(S_k) Vt_k||_F / ||A||_F on the device.  U: m x k (ld m);
** V^T rows: k x n with ld ldv, or V (n x k, ld ldv) when vIsV. */
static int recon(Gpu *g, void *dU, void *dS, void *dV, int ldv, int vIsV, int k, double *out){
  void *dUS = 0, *dR = 0;
  size_t mn = (size_t)g->m * g->n;
  double num = 0, den = 0;
  CU(cudaMalloc(&dUS, g->esz * (size_t)g->m * k));
  CU(cudaMalloc(&dR, g->esz * mn));
  CU(cudaMemcpyAsync(dR, g->dA, g->esz * mn, cudaMemcpyDeviceToDevice, g->stream));
  if( g->f32 ){
    float one = 1.0f, mone = -1.0f, a, b;
    BLA(cublasSdgmm(g->blas, CUBLAS_SIDE_RIGHT, g->m, k, dU, g->m, dS, 1, dUS, g->m));
    BLA(cublasSgemm(g->blas, CUBLAS_OP_N, vIsV ? CUBLAS_OP_T : CUBLAS_OP_N, g->m, g->n, k,
                    &mone, dUS, g->m, dV, ldv, &one, dR, g->m));
    BLA(cublasSnrm2(g->blas, (int)mn, dR, 1, &a));
    BLA(cublasSnrm2(g->blas, (int)mn, g->dA, 1, &b));
    num = a; den = b;
  }else{
    double one = 1.0, mone = -1.0;
    BLA(cublasDdgmm(g->blas, CUBLAS_SIDE_RIGHT, g->m, k, dU, g->m, dS, 1, dUS, g->m));
    BLA(cublasDgemm(g->blas, CUBLAS_OP_N, vIsV ? CUBLAS_OP_T : CUBLAS_OP_N, g->m, g->n, k,
                    &mone, dUS, g->m, dV, ldv, &one, dR, g->m));
    BLA(cublasDnrm2(g->blas, (int)mn, dR, 1, &num));
    BLA(cublasDnrm2(g->blas, (int)mn, g->dA, 1, &den));
  }
  CU(cudaStreamSynchronize(g->stream));
  cudaFree(dUS); cudaFree(dR);
  *out = den>0 ? num/den : 0.0;
  return 0;
fail:
  cudaFree(dUS); cudaFree(dR);
  return 1;
}

/* Copies k singular values (dtype) from the device into run->S (double). */
static int fetchS(Gpu *g, const void *dS, MlSvdRun *run, int k){
  void *h = g->sp->xMalloc(g->esz * (uint64_t)k);
  int i;
  if( h==0 ) return ML_SVD_NOMEM;
  if( cudaMemcpy(h, dS, g->esz * (size_t)k, cudaMemcpyDeviceToHost)!=cudaSuccess ){
    g->sp->xFree(h);
    snprintf(g->zErr, g->nErr, "cannot copy singular values from the device");
    return ML_SVD_ERROR;
  }
  for(i=0; i<k; i++) run->S[i] = g->f32 ? ((float*)h)[i] : ((double*)h)[i];
  g->sp->xFree(h);
  return ML_SVD_OK;
}

/* Times one method; setup done by the caller.  which: ML_SVD_FULL ...
** Returns an ML_SVD_* code. */
static int timeMethod(Gpu *g, int which, MlSvdRun *run){
  const MlSvdSpec *sp = g->sp;
  int m = g->m, n = g->n, mn = g->mn, k = sp->rank, it, info = 0, total = sp->warmup + sp->iters;
  int rc = ML_SVD_ERROR;
  int64_t p = mn - k < ML_SVD_OVERSAMPLE ? mn - k : ML_SVD_OVERSAMPLE;
  signed char job = which==ML_SVD_VALUES ? 'N' : 'S';
  void *dS = 0, *dU = 0, *dV = 0, *dWork = 0, *hWork = 0;
  size_t wDev = 0, wHost = 0;
  CU(cudaMalloc(&dS, g->esz * mn));
  if( which==ML_SVD_RANDOMIZED ){
    CU(cudaMalloc(&dU, g->esz * (size_t)m * k));
    CU(cudaMalloc(&dV, g->esz * (size_t)n * k));
    SOL(cusolverDnXgesvdr_bufferSize(g->sol, g->par, 'S', 'S', m, n, k, p, ML_SVD_POWER_ITERS,
        g->dt, g->dW, m, g->dt, dS, g->dt, dU, m, g->dt, dV, n, g->dt, &wDev, &wHost));
  }else{
    if( which==ML_SVD_FULL ){
      CU(cudaMalloc(&dU, g->esz * (size_t)m * mn));
      CU(cudaMalloc(&dV, g->esz * (size_t)mn * n));
    }
    SOL(cusolverDnXgesvd_bufferSize(g->sol, g->par, job, job, m, n, g->dt, g->dW, m, g->dt, dS,
        g->dt, dU, m, g->dt, dV, mn, g->dt, &wDev, &wHost));
  }
  CU(cudaMalloc(&dWork, wDev ? wDev : 1));
  hWork = sp->xMalloc(wHost ? wHost : 1);
  if( hWork==0 ){ rc = ML_SVD_NOMEM; goto fail; }
  for(it=0; it<total; it++){
    float ms = 0;
    if( sp->xInterrupted && sp->xInterrupted(sp->pInterruptArg) ){ rc = ML_SVD_INTERRUPT; goto fail; }
    CU(cudaEventRecord(g->e0, g->stream));
    CU(cudaMemcpyAsync(g->dW, g->dA, g->esz * (size_t)m * n, cudaMemcpyDeviceToDevice, g->stream));
    if( which==ML_SVD_RANDOMIZED ){
      SOL(cusolverDnXgesvdr(g->sol, g->par, 'S', 'S', m, n, k, p, ML_SVD_POWER_ITERS,
          g->dt, g->dW, m, g->dt, dS, g->dt, dU, m, g->dt, dV, n, g->dt,
          dWork, wDev, hWork, wHost, g->dInfo));
    }else{
      SOL(cusolverDnXgesvd(g->sol, g->par, job, job, m, n, g->dt, g->dW, m, g->dt, dS,
          g->dt, dU, m, g->dt, dV, mn, g->dt, dWork, wDev, hWork, wHost, g->dInfo));
    }
    CU(cudaEventRecord(g->e1, g->stream));
    CU(cudaEventSynchronize(g->e1));
    CU(cudaEventElapsedTime(&ms, g->e0, g->e1));
    if( it>=sp->warmup ) run->ms[it - sp->warmup] = ms;
  }
  CU(cudaMemcpy(&info, g->dInfo, sizeof(int), cudaMemcpyDeviceToHost));
  if( info!=0 ){
    snprintf(g->zErr, g->nErr, "%s returned info %d", which==ML_SVD_RANDOMIZED ? "cusolverDnXgesvdr" : "cusolverDnXgesvd", info);
    goto fail;
  }
  snprintf(run->driver, sizeof(run->driver), "%s", which==ML_SVD_RANDOMIZED ? "cusolverDnXgesvdr" : "cusolverDnXgesvd");
  if( (rc = fetchS(g, dS, run, k))!=ML_SVD_OK ) goto fail;
  rc = ML_SVD_ERROR;
  run->recon_rel_error = NAN;
  if( which==ML_SVD_FULL && recon(g, dU, dS, dV, mn, 0, k, &run->recon_rel_error) ) goto fail;
  if( which==ML_SVD_RANDOMIZED && recon(g, dU, dS, dV, n, 1, k, &run->recon_rel_error) ) goto fail;
  rc = ML_SVD_OK;
fail:
  cudaFree(dS); cudaFree(dU); cudaFree(dV); cudaFree(dWork);
  sp->xFree(hWork);
  return rc;
}

/* All three methods on the GPU.  An ML_SVD_* code. */
static int cudaRun(const MlSvdSpec *sp, const double *A, MlSvdRun run[ML_SVD_NMETHOD], char *zErr, int nErr){
  Gpu gg, *g = &gg;
  int nDev = 0, rc = ML_SVD_ERROR, i, j, tr = sp->rows < sp->cols;
  size_t cells = (size_t)sp->rows * sp->cols;
  void *h = 0;
  memset(g, 0, sizeof(*g));
  g->sp = sp; g->zErr = zErr; g->nErr = nErr;
  if( cudaGetDeviceCount(&nDev)!=cudaSuccess || nDev==0 ){
    snprintf(zErr, nErr, "no CUDA device found");
    return ML_SVD_ERROR;
  }
  g->m = tr ? sp->cols : sp->rows;
  g->n = tr ? sp->rows : sp->cols;
  g->mn = g->n;
  g->f32 = sp->f32;
  g->esz = sp->f32 ? sizeof(float) : sizeof(double);
  g->dt = sp->f32 ? CUDA_R_32F : CUDA_R_64F;
  /* the host copy in the dtype, transposed when wide (column-major m x n) */
  h = sp->xMalloc(g->esz * (uint64_t)cells);
  if( h==0 ) return ML_SVD_NOMEM;
  for(j=0; j<sp->cols; j++){
    for(i=0; i<sp->rows; i++){
      double v = A[(size_t)j*sp->rows + i];
      size_t at = tr ? (size_t)i*g->m + j : (size_t)j*g->m + i;
      if( sp->f32 ) ((float*)h)[at] = (float)v; else ((double*)h)[at] = v;
    }
  }
  CU(cudaStreamCreate(&g->stream));
  SOL(cusolverDnCreate(&g->sol));
  SOL(cusolverDnSetStream(g->sol, g->stream));
  SOL(cusolverDnCreateParams(&g->par));
  BLA(cublasCreate(&g->blas));
  BLA(cublasSetStream(g->blas, g->stream));
  CU(cudaEventCreate(&g->e0));
  CU(cudaEventCreate(&g->e1));
  CU(cudaMalloc(&g->dA, g->esz * cells));
  CU(cudaMalloc(&g->dW, g->esz * cells));
  CU(cudaMalloc((void**)&g->dInfo, sizeof(int)));
  CU(cudaMemcpy(g->dA, h, g->esz * cells, cudaMemcpyHostToDevice));
  rc = timeMethod(g, ML_SVD_FULL, &run[ML_SVD_FULL]);
  if( rc==ML_SVD_OK ) rc = timeMethod(g, ML_SVD_RANDOMIZED, &run[ML_SVD_RANDOMIZED]);
  if( rc==ML_SVD_OK ) rc = timeMethod(g, ML_SVD_VALUES, &run[ML_SVD_VALUES]);
fail:
  sp->xFree(h);
  if( g->dA ) cudaFree(g->dA);
  if( g->dW ) cudaFree(g->dW);
  if( g->dInfo ) cudaFree(g->dInfo);
  if( g->e0 ) cudaEventDestroy(g->e0);
  if( g->e1 ) cudaEventDestroy(g->e1);
  if( g->blas ) cublasDestroy(g->blas);
  if( g->par ) cusolverDnDestroyParams(g->par);
  if( g->sol ) cusolverDnDestroy(g->sol);
  if( g->stream ) cudaStreamDestroy(g->stream);
  return rc;
}

const MlSvdBackend mleval_svd_backend = { ML_SVD_BACKEND_VERSION, "cuda", 0, cudaRun };
