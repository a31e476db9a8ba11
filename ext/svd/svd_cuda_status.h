/*
** SPDX-License-Identifier: MIT
**
** svd_cuda_status.h -- what the CUDA back end (svd_cuda.c) makes of the
** CUDA runtime's answers before it runs anything, and the names of
** cuSOLVER's status codes.  Pure functions of integers: no CUDA header is
** needed, so tests/check_svd_cuda_status.c proves them in every build
** (svd_cuda.c checks at compile time that the codes below are CUDA's).
**
** Rules of ml_cuda_classify():
**   1. cudaDriverGetVersion succeeded and gave 0: no driver is installed.
**      ML_CUDA_ABSENT, "no CUDA driver installed (...)".  (Without a driver
**      cudaGetDeviceCount says cudaErrorInsufficientDriver, the very code a
**      driver too old for the runtime gives: only the driver version tells
**      the two apart.)
**   2. cudaGetDeviceCount said cudaErrorNoDevice, or succeeded with a count
**      of 0: ML_CUDA_ABSENT, "no CUDA device found (...)".
**   3. Any other failure -- of cudaDriverGetVersion, of
**      cudaRuntimeGetVersion or of cudaGetDeviceCount (e.g. error 35, a
**      driver older than the runtime) -- is ML_CUDA_BROKEN: the message
**      names the call, the runtime's error name and text, and the driver
**      and runtime versions.  A test FAILs on it; it never SKIPs.
**   4. Otherwise ML_CUDA_READY (the message is empty).
** The message is cut to nErr bytes (NUL included), never overrun.
*/
#ifndef ML_SVD_CUDA_STATUS_H
#define ML_SVD_CUDA_STATUS_H

/* cudaError_t values that the rules name (checked against the CUDA headers
** in svd_cuda.c). */
#define ML_CUDA_SUCCESS    0
#define ML_CUDA_NO_DEVICE  100   /* cudaErrorNoDevice */

#define ML_CUDA_READY   0
#define ML_CUDA_ABSENT  1        /* nothing to run on: a test SKIPs */
#define ML_CUDA_BROKEN  2        /* a GPU stack that does not work: a test FAILs */

/* One CUDA runtime call's outcome: its return code, with the runtime's
** cudaGetErrorName / cudaGetErrorString of it (NULL when rc is success). */
typedef struct MlCudaCall {
  int rc;
  const char *zName;
  const char *zText;
} MlCudaCall;

/* The facts ml_cuda_classify() decides from. */
typedef struct MlCudaProbe {
  MlCudaCall driver;       /* cudaDriverGetVersion */
  int driverVersion;       /* its answer, e.g. 12020; 0: no driver */
  MlCudaCall runtime;      /* cudaRuntimeGetVersion */
  int runtimeVersion;      /* e.g. 13000 */
  MlCudaCall count;        /* cudaGetDeviceCount */
  int nDevice;             /* its answer */
} MlCudaProbe;

/* ML_CUDA_READY, ML_CUDA_ABSENT or ML_CUDA_BROKEN, with the reason in zErr
** (rules 1-4 above). */
int ml_cuda_classify(const MlCudaProbe *p, char *zErr, int nErr);

/* "CUSOLVER_STATUS_INVALID_VALUE" for a cusolverStatus_t value (static
** text); "an unknown cusolverStatus_t" for one this file does not know
** (callers print the number too). */
const char *ml_cusolver_status_name(int status);

#endif
