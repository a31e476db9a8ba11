/*
** SPDX-License-Identifier: MIT
**
** svd_cuda_status.c -- the CUDA back end's decision, from the runtime's
** answers, whether there is a GPU to run on, none (SKIP), or a broken GPU
** stack (FAIL); and cuSOLVER's status names.  Rules in svd_cuda_status.h.
** No CUDA header and no SQLite here: compiled into mleval_cuda.so and into
** tests/check_svd_cuda_status.
*/
#include <stdio.h>
#include "svd_cuda_status.h"

/* "12.2" from 12020; "none" for 0. */
static void versionText(int v, char *z, int n){
  if( v<=0 ) snprintf(z, n, "none");
  else snprintf(z, n, "%d.%d", v/1000, (v%1000)/10);
}

/* "<call>: <name>: <text>" of a failed call. */
static void callText(const char *zCall, const MlCudaCall *c, char *z, int n){
  snprintf(z, n, "%s: %s: %s", zCall, c->zName ? c->zName : "an unnamed error",
           c->zText ? c->zText : "no text");
}

int ml_cuda_classify(const MlCudaProbe *p, char *zErr, int nErr){
  char zDrv[16], zRt[16], zCall[256];
  if( nErr>0 ) zErr[0] = 0;
  versionText(p->driverVersion, zDrv, sizeof(zDrv));
  versionText(p->runtimeVersion, zRt, sizeof(zRt));
  if( p->driver.rc!=ML_CUDA_SUCCESS ){
    callText("cudaDriverGetVersion", &p->driver, zCall, sizeof(zCall));
    snprintf(zErr, nErr, "%s", zCall);
    return ML_CUDA_BROKEN;
  }
  if( p->driverVersion==0 ){
    snprintf(zErr, nErr, "no CUDA driver installed (cudaDriverGetVersion gives 0; runtime %s)", zRt);
    return ML_CUDA_ABSENT;
  }
  if( p->runtime.rc!=ML_CUDA_SUCCESS ){
    callText("cudaRuntimeGetVersion", &p->runtime, zCall, sizeof(zCall));
    snprintf(zErr, nErr, "%s (driver %s)", zCall, zDrv);
    return ML_CUDA_BROKEN;
  }
  if( p->count.rc==ML_CUDA_NO_DEVICE || (p->count.rc==ML_CUDA_SUCCESS && p->nDevice<=0) ){
    if( p->count.rc==ML_CUDA_SUCCESS ){
      snprintf(zErr, nErr, "no CUDA device found (cudaGetDeviceCount gives 0; driver %s, runtime %s)", zDrv, zRt);
    }else{
      callText("cudaGetDeviceCount", &p->count, zCall, sizeof(zCall));
      snprintf(zErr, nErr, "no CUDA device found (%s; driver %s, runtime %s)", zCall, zDrv, zRt);
    }
    return ML_CUDA_ABSENT;
  }
  if( p->count.rc!=ML_CUDA_SUCCESS ){
    callText("cudaGetDeviceCount", &p->count, zCall, sizeof(zCall));
    snprintf(zErr, nErr, "%s (driver %s, runtime %s)", zCall, zDrv, zRt);
    return ML_CUDA_BROKEN;
  }
  return ML_CUDA_READY;
}

const char *ml_cusolver_status_name(int status){
  static const char *const az[] = {
    "CUSOLVER_STATUS_SUCCESS", "CUSOLVER_STATUS_NOT_INITIALIZED", "CUSOLVER_STATUS_ALLOC_FAILED",
    "CUSOLVER_STATUS_INVALID_VALUE", "CUSOLVER_STATUS_ARCH_MISMATCH", "CUSOLVER_STATUS_MAPPING_ERROR",
    "CUSOLVER_STATUS_EXECUTION_FAILED", "CUSOLVER_STATUS_INTERNAL_ERROR",
    "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "CUSOLVER_STATUS_NOT_SUPPORTED",
    "CUSOLVER_STATUS_ZERO_PIVOT", "CUSOLVER_STATUS_INVALID_LICENSE",
  };
  if( status>=0 && status<(int)(sizeof(az)/sizeof(az[0])) ) return az[status];
  if( status==31 ) return "CUSOLVER_STATUS_INVALID_WORKSPACE";
  return "an unknown cusolverStatus_t";
}
