/*
** SPDX-License-Identifier: MIT
**
** check_svd_cuda_status.c -- the CUDA back end's SKIP/FAIL decision
** (ext/svd/svd_cuda_status.c, rules 1-4 of svd_cuda_status.h), fed the
** runtime's answers as numbers, so it runs in every build, GPU or none.
**
**   - no driver (cudaDriverGetVersion gives 0; cudaGetDeviceCount then says
**     cudaErrorInsufficientDriver) is ABSENT: a test SKIPs
**   - cudaErrorNoDevice, or a count of 0, is ABSENT
**   - a driver too old for the runtime (error 35 with driver 535's 12.2
**     under a 13.0 runtime, as seen) is BROKEN: a test FAILs, and the
**     message has the runtime's error name and text and both versions
**   - any other error code of any of the three calls is BROKEN
**   - a device is READY with an empty message
**   - messages are cut to the buffer, never overrun
** and cuSOLVER's status names.  The numbers are the CUDA runtime's
** (cudaErrorInsufficientDriver 35, cudaErrorNoDevice 100,
** cudaErrorInitializationError 3); svd_cuda.c checks the two the rules use
** against the CUDA headers at compile time.
*/
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "svd_cuda_status.h"

#define E_INSUFFICIENT 35
#define E_NO_DEVICE    100
#define E_INIT         3

/* A probe with a working driver 12.2, runtime 13.0 and the count call's
** outcome given. */
static MlCudaProbe probeWith(int rcCount, int nDevice){
  MlCudaProbe p;
  memset(&p, 0, sizeof(p));
  p.driverVersion = 12020;
  p.runtimeVersion = 13000;
  p.count.rc = rcCount;
  p.nDevice = nDevice;
  if( rcCount==E_INSUFFICIENT ){
    p.count.zName = "cudaErrorInsufficientDriver";
    p.count.zText = "CUDA driver version is insufficient for CUDA runtime version";
  }else if( rcCount==E_NO_DEVICE ){
    p.count.zName = "cudaErrorNoDevice";
    p.count.zText = "no CUDA-capable device is detected";
  }else if( rcCount!=0 ){
    p.count.zName = "cudaErrorInitializationError";
    p.count.zText = "initialization error";
  }
  return p;
}

START_TEST(test_no_driver_is_absent){
  /* what this build machine answers: no driver installed */
  MlCudaProbe p = probeWith(E_INSUFFICIENT, -1);
  char z[256];
  p.driverVersion = 0;
  ck_assert_int_eq(ml_cuda_classify(&p, z, sizeof(z)), ML_CUDA_ABSENT);
  ck_assert_str_eq(z, "no CUDA driver installed (cudaDriverGetVersion gives 0; runtime 13.0)");
}
END_TEST

START_TEST(test_old_driver_fails){
  /* driver 535 (CUDA 12.2) under a 13.0 runtime: the same error 35, but a
  ** GPU is there and the stack is broken */
  MlCudaProbe p = probeWith(E_INSUFFICIENT, -1);
  char z[256];
  ck_assert_int_eq(ml_cuda_classify(&p, z, sizeof(z)), ML_CUDA_BROKEN);
  ck_assert_str_eq(z, "cudaGetDeviceCount: cudaErrorInsufficientDriver: CUDA driver version is "
                      "insufficient for CUDA runtime version (driver 12.2, runtime 13.0)");
}
END_TEST

START_TEST(test_no_device_is_absent){
  MlCudaProbe p = probeWith(E_NO_DEVICE, 0);
  char z[256];
  ck_assert_int_eq(ml_cuda_classify(&p, z, sizeof(z)), ML_CUDA_ABSENT);
  ck_assert_str_eq(z, "no CUDA device found (cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable "
                      "device is detected; driver 12.2, runtime 13.0)");
  p = probeWith(0, 0);
  ck_assert_int_eq(ml_cuda_classify(&p, z, sizeof(z)), ML_CUDA_ABSENT);
  ck_assert_str_eq(z, "no CUDA device found (cudaGetDeviceCount gives 0; driver 12.2, runtime 13.0)");
}
END_TEST

START_TEST(test_other_errors_fail){
  MlCudaProbe p = probeWith(E_INIT, 0);
  char z[256];
  ck_assert_int_eq(ml_cuda_classify(&p, z, sizeof(z)), ML_CUDA_BROKEN);
  ck_assert_str_eq(z, "cudaGetDeviceCount: cudaErrorInitializationError: initialization error "
                      "(driver 12.2, runtime 13.0)");
  /* a failing driver query is never taken for "no driver" */
  p = probeWith(0, 1);
  p.driver.rc = E_INIT; p.driver.zName = "cudaErrorInitializationError"; p.driver.zText = "initialization error";
  p.driverVersion = 0;
  ck_assert_int_eq(ml_cuda_classify(&p, z, sizeof(z)), ML_CUDA_BROKEN);
  ck_assert_str_eq(z, "cudaDriverGetVersion: cudaErrorInitializationError: initialization error");
  p = probeWith(0, 1);
  p.runtime.rc = E_INIT;            /* no name given: still a message */
  ck_assert_int_eq(ml_cuda_classify(&p, z, sizeof(z)), ML_CUDA_BROKEN);
  ck_assert_str_eq(z, "cudaRuntimeGetVersion: an unnamed error: no text (driver 12.2)");
  /* every code but success and cudaErrorNoDevice, with a driver, fails */
  for(int rc=1; rc<1000; rc++){
    p = probeWith(rc, 0);
    ck_assert_int_eq(ml_cuda_classify(&p, z, sizeof(z)), rc==E_NO_DEVICE ? ML_CUDA_ABSENT : ML_CUDA_BROKEN);
  }
}
END_TEST

START_TEST(test_ready){
  MlCudaProbe p = probeWith(0, 2);
  char z[64] = "x";
  ck_assert_int_eq(ml_cuda_classify(&p, z, sizeof(z)), ML_CUDA_READY);
  ck_assert_str_eq(z, "");
}
END_TEST

START_TEST(test_message_cut_to_buffer){
  MlCudaProbe p = probeWith(E_INSUFFICIENT, -1);
  char z[32];
  memset(z, 'x', sizeof(z));
  ck_assert_int_eq(ml_cuda_classify(&p, z, 20), ML_CUDA_BROKEN);
  ck_assert_uint_eq(strlen(z), 19);
  ck_assert_int_eq(z[20], 'x');
  ck_assert_int_eq(ml_cuda_classify(&p, z, 0), ML_CUDA_BROKEN);   /* no room: nothing written */
  ck_assert_int_eq(z[0], 'c');
}
END_TEST

START_TEST(test_cusolver_status_names){
  ck_assert_str_eq(ml_cusolver_status_name(0), "CUSOLVER_STATUS_SUCCESS");
  ck_assert_str_eq(ml_cusolver_status_name(3), "CUSOLVER_STATUS_INVALID_VALUE");
  ck_assert_str_eq(ml_cusolver_status_name(7), "CUSOLVER_STATUS_INTERNAL_ERROR");
  ck_assert_str_eq(ml_cusolver_status_name(31), "CUSOLVER_STATUS_INVALID_WORKSPACE");
  ck_assert_str_eq(ml_cusolver_status_name(-1), "an unknown cusolverStatus_t");
  ck_assert_str_eq(ml_cusolver_status_name(99), "an unknown cusolverStatus_t");
}
END_TEST

int main(void){
  Suite *s = suite_create("svd_cuda_status");
  TCase *tc = tcase_create("classify");
  SRunner *sr;
  int nFail;
  tcase_add_test(tc, test_no_driver_is_absent);
  tcase_add_test(tc, test_old_driver_fails);
  tcase_add_test(tc, test_no_device_is_absent);
  tcase_add_test(tc, test_other_errors_fail);
  tcase_add_test(tc, test_ready);
  tcase_add_test(tc, test_message_cut_to_buffer);
  tcase_add_test(tc, test_cusolver_status_names);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  nFail = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nFail ? EXIT_FAILURE : EXIT_SUCCESS;
}
