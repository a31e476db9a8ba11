/*
** SPDX-License-Identifier: MIT
**
** svd_compare.c -- the SVD tests' comparison helpers and module runner
** (svd_compare.h says what each bound rests on).
*/
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svd_compare.h"

double svdcmp_rel_error(const double *ref, const double *got, int k){
  double num = 0, den = 0;
  int i;
  for(i=0; i<k; i++){ num += (ref[i]-got[i])*(ref[i]-got[i]); den += ref[i]*ref[i]; }
  if( den==0 ) return num==0 ? 0 : INFINITY;
  return sqrt(num/den);
}

double svdcmp_tail_bound(const double *sigma, int mn, int k, int l, double tol){
  double tail = 0, head = 0;
  int j;
  for(j=0; j<k; j++) head += sigma[j]*sigma[j];
  for(j=l; j<mn; j++) tail += sigma[j]*sigma[j];
  if( head==0 ) return tail==0 ? tol : INFINITY;
  return sqrt(tail/head) + tol;
}

int svdcmp_first_above(const double *sigma, const double *got, int k, double tol){
  int j;
  for(j=0; j<k; j++) if( !(got[j] <= sigma[j] + tol*sigma[0]) ) return j;
  return -1;
}

const MlSvdBackend *svdcmp_load(const char *zFile, char *zWhy, int nWhy){
  const char *dir = getenv("MLEVAL_BACKEND_DIR");
  char path[4096];
  void *h;
  const MlSvdBackend *be;
  snprintf(path, sizeof(path), "%s/%s", dir ? dir : "ext/.libs", zFile);
  h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if( h==0 ){ snprintf(zWhy, nWhy, "%s", dlerror()); return 0; }
  be = (const MlSvdBackend*)dlsym(h, ML_SVD_BACKEND_SYMBOL);
  if( be==0 || be->iVersion!=ML_SVD_BACKEND_VERSION ){
    snprintf(zWhy, nWhy, "%s is not a back end of this mleval", path);
    return 0;
  }
  return be;
}

static void *tMalloc(uint64_t n){ return malloc(n ? n : 1); }

MlSvdSpec svdcmp_spec(int rows, int cols, int rank, int warmup, int iters, int f32, int decay,
                      unsigned long long seed){
  MlSvdSpec sp;
  memset(&sp, 0, sizeof(sp));
  sp.rows = rows; sp.cols = cols; sp.rank = rank; sp.warmup = warmup; sp.iters = iters;
  sp.f32 = f32; sp.decay = decay; sp.seed = seed;
  sp.xMalloc = tMalloc; sp.xFree = free;
  return sp;
}

int svdcmp_run(const MlSvdBackend *be, const MlSvdSpec *sp, const double *A, SvdcmpRun *r,
               char *zErr, int nErr){
  int i, rc;
  memset(r, 0, sizeof(*r));
  r->mem = calloc((size_t)ML_SVD_NMETHOD*(sp->iters + sp->rank), sizeof(double));
  if( r->mem==0 ) return ML_SVD_NOMEM;
  for(i=0; i<ML_SVD_NMETHOD; i++){
    r->run[i].ms = r->mem + (size_t)i*(sp->iters + sp->rank);
    r->run[i].S = r->run[i].ms + sp->iters;
    r->run[i].recon_rel_error = NAN;
  }
  zErr[0] = 0;
  rc = be->xRun(sp, A, r->run, zErr, nErr);
  return rc;
}

void svdcmp_free(SvdcmpRun *r){
  free(r->mem);
  r->mem = 0;
}
