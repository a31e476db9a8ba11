/*
** SPDX-License-Identifier: MIT
**
** svd_cpu_impl.h -- svd_bench's CPU back end, written once for both dtypes.
** Included twice by svd_cpu.c with
**   R        the element type (double, float)
**   P        the LAPACK prefix as text, for messages ("d", "s")
**   LP(x)    LAPACKE_d##x / LAPACKE_s##x
**   BL(x)    cblas_d##x / cblas_s##x
**   FN(x)    x##_f64 / x##_f32
** Every buffer comes from spec->xMalloc; every LAPACK workspace is queried
** once and allocated before the warm-up calls (svd_cpu.c, rules 1-7).
*/

/* Frees the listed buffers through the spec's allocator. */
static void FN(release)(const MlSvdSpec *sp, void **a, int n){
  int i;
  for(i=0; i<n; i++){ sp->xFree(a[i]); a[i] = 0; }
}

/* *out = ||A - U_k diag(S_k) Vt_k||_F / ||A||_F, U m x k (ld m), Vt k x n
** (ld ldvt).  ML_SVD_OK or ML_SVD_NOMEM. */
static int FN(recon_error)(const MlSvdSpec *sp, const R *A, const R *U, const R *S,
                           const R *Vt, int ldvt, int k, double *out){
  int m = sp->rows, n = sp->cols, i, j;
  size_t mn = (size_t)m*n;
  R *US = sp->xMalloc(sizeof(R)*(uint64_t)m*k), *D = sp->xMalloc(sizeof(R)*(uint64_t)mn);
  double num = 0.0, den = 0.0;
  if( US==0 || D==0 ){ sp->xFree(US); sp->xFree(D); return ML_SVD_NOMEM; }
  for(j=0; j<k; j++) for(i=0; i<m; i++) US[(size_t)j*m+i] = U[(size_t)j*m+i]*S[j];
  memcpy(D, A, sizeof(R)*mn);
  BL(gemm)(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, -1.0, US, m, Vt, ldvt, 1.0, D, m);
  for(i=0; i<(int)mn; i++){ num += (double)D[i]*D[i]; den += (double)A[i]*A[i]; }
  sp->xFree(US); sp->xFree(D);
  *out = den>0 ? sqrt(num/den) : 0.0;
  return ML_SVD_OK;
}

/* One exact call: gesdd, or gesvd once gesdd has failed to converge. */
static lapack_int FN(exact_call)(int useGesvd, int values, int m, int n, R *Aw, R *S, R *U, R *Vt,
                                 R *work, lapack_int lwork, lapack_int *iwork){
  int mn = m<n ? m : n;
  if( useGesvd ){
    char job = values ? 'N' : 'S';
    return LP(gesvd_work)(LAPACK_COL_MAJOR, job, job, m, n, Aw, m, S, U, m, Vt, mn, work, lwork);
  }
  return LP(gesdd_work)(LAPACK_COL_MAJOR, values ? 'N' : 'S', m, n, Aw, m, S, U, m, Vt, mn, work, lwork, iwork);
}

/* full (jobz 'S') or values_only (jobz 'N') through gesdd, falling back to
** gesvd when gesdd does not converge.  An ML_SVD_* code. */
static int FN(exact)(const MlSvdSpec *sp, const R *A, MlSvdRun *run, int values, char *zErr, int nErr){
  int m = sp->rows, n = sp->cols, mn = m<n ? m : n, it, total = sp->warmup + sp->iters;
  int rc = ML_SVD_OK, useGesvd = 0;
  lapack_int info, lwork;
  R wq, *Aw, *S, *U = 0, *Vt = 0, *work = 0;
  lapack_int *iwork;
  void *buf[6] = {0};
  Aw = buf[0] = sp->xMalloc(sizeof(R)*(uint64_t)m*n);
  S  = buf[1] = sp->xMalloc(sizeof(R)*(uint64_t)mn);
  iwork = buf[2] = sp->xMalloc(sizeof(lapack_int)*8*(uint64_t)mn);
  if( !values ){
    U  = buf[3] = sp->xMalloc(sizeof(R)*(uint64_t)m*mn);
    Vt = buf[4] = sp->xMalloc(sizeof(R)*(uint64_t)mn*n);
  }
  if( !Aw || !S || !iwork || (!values && (!U || !Vt)) ){ rc = ML_SVD_NOMEM; goto done; }
  memcpy(Aw, A, sizeof(R)*(size_t)m*n);
  info = LP(gesdd_work)(LAPACK_COL_MAJOR, values ? 'N' : 'S', m, n, Aw, m, S, U, m, Vt, mn, &wq, -1, iwork);
  if( info!=0 ){ rc = lapackError(zErr, nErr, P "gesdd", info); goto done; }
  lwork = (lapack_int)wq;
  work = buf[5] = sp->xMalloc(sizeof(R)*(uint64_t)(lwork>1 ? lwork : 1));
  if( work==0 ){ rc = ML_SVD_NOMEM; goto done; }
  for(it=0; it<total; it++){
    struct timespec t0, t1;
    if( interrupted(sp) ){ rc = ML_SVD_INTERRUPT; goto done; }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memcpy(Aw, A, sizeof(R)*(size_t)m*n);      /* LAPACK destroys its input, as numpy copies it */
    info = FN(exact_call)(useGesvd, values, m, n, Aw, S, U, Vt, work, lwork, iwork);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if( info>0 && !useGesvd ){
      /* gesdd did not converge: switch to gesvd, size its workspace, restart */
      char job = values ? 'N' : 'S';
      useGesvd = 1;
      info = LP(gesvd_work)(LAPACK_COL_MAJOR, job, job, m, n, Aw, m, S, U, m, Vt, mn, &wq, -1);
      if( info!=0 ) break;
      if( (lapack_int)wq > lwork ){
        lwork = (lapack_int)wq;
        sp->xFree(work);
        work = buf[5] = sp->xMalloc(sizeof(R)*(uint64_t)lwork);
        if( work==0 ){ rc = ML_SVD_NOMEM; goto done; }
      }
      it = -1;
      continue;
    }
    if( info!=0 ) break;
    if( it>=sp->warmup ) run->ms[it-sp->warmup] = msBetween(&t0, &t1);
  }
  if( info!=0 ){ rc = lapackError(zErr, nErr, useGesvd ? P "gesvd" : P "gesdd", info); goto done; }
  snprintf(run->driver, sizeof(run->driver), "%s", useGesvd ? "gesvd" : "gesdd");
  for(it=0; it<sp->rank; it++) run->S[it] = S[it];
  run->recon_rel_error = NAN;
  if( !values && interrupted(sp) ) rc = ML_SVD_INTERRUPT;             /* before the reconstruction */
  else if( !values ) rc = FN(recon_error)(sp, A, U, S, Vt, mn, sp->rank, &run->recon_rel_error);
done:
  FN(release)(sp, buf, 6);
  return rc;
}

/* The randomized method's buffers: l = rank + oversampling, capped. */
typedef struct FN(Hmt) {
  int m, n, l;
  R *Om, *Y, *Z, *B, *Ub, *Sb, *Vtb, *U, *tau, *work;
  lapack_int *iwork, lwork;
} FN(Hmt);

/* Orthonormalises the m x l matrix Y in place (geqrf + orgqr); names the
** routine that failed. */
static lapack_int FN(orth)(FN(Hmt) *h, int m, R *Y, const char **pzFail){
  lapack_int info = LP(geqrf_work)(LAPACK_COL_MAJOR, m, h->l, Y, m, h->tau, h->work, h->lwork);
  if( info ){ *pzFail = P "geqrf"; return info; }
  info = LP(orgqr_work)(LAPACK_COL_MAJOR, m, h->l, h->l, Y, m, h->tau, h->work, h->lwork);
  if( info ) *pzFail = P "orgqr";
  return info;
}

/* One randomized SVD of A (Halko, Martinsson & Tropp): Gaussian sketch,
** power iterations re-orthonormalised with QR, QR, small SVD.  Asks
** sp->xInterrupted between the steps: *pStop set (return 0) when told to. */
static lapack_int FN(hmt_call)(const MlSvdSpec *sp, FN(Hmt) *h, const R *A, const lapack_int *iseed0,
                               const char **pzFail, int *pStop){
  int m = h->m, n = h->n, l = h->l, q;
  lapack_int info, iseed[4];
#define HMT_ASK() do{ if( interrupted(sp) ){ *pStop = 1; return 0; } }while(0)
  memcpy(iseed, iseed0, sizeof(iseed));          /* the same sketch every call */
  info = LP(larnv_work)(3, iseed, (lapack_int)n*l, h->Om);
  if( info ){ *pzFail = P "larnv"; return info; }
  BL(gemm)(CblasColMajor, CblasNoTrans, CblasNoTrans, m, l, n, 1.0, A, m, h->Om, n, 0.0, h->Y, m);
  for(q=0; q<ML_SVD_POWER_ITERS; q++){
    HMT_ASK();
    if( (info = FN(orth)(h, m, h->Y, pzFail)) ) return info;
    BL(gemm)(CblasColMajor, CblasTrans, CblasNoTrans, n, l, m, 1.0, A, m, h->Y, m, 0.0, h->Z, n);
    HMT_ASK();
    if( (info = FN(orth)(h, n, h->Z, pzFail)) ) return info;
    BL(gemm)(CblasColMajor, CblasNoTrans, CblasNoTrans, m, l, n, 1.0, A, m, h->Z, n, 0.0, h->Y, m);
  }
  HMT_ASK();
  if( (info = FN(orth)(h, m, h->Y, pzFail)) ) return info;
  BL(gemm)(CblasColMajor, CblasTrans, CblasNoTrans, l, n, m, 1.0, h->Y, m, A, m, 0.0, h->B, l);
  HMT_ASK();
  info = LP(gesdd_work)(LAPACK_COL_MAJOR, 'S', l, n, h->B, l, h->Sb, h->Ub, l, h->Vtb, l, h->work, h->lwork, h->iwork);
  if( info ){ *pzFail = P "gesdd"; return info; }
  BL(gemm)(CblasColMajor, CblasNoTrans, CblasNoTrans, m, l, l, 1.0, h->Y, m, h->Ub, l, 0.0, h->U, m);
#undef HMT_ASK
  return 0;
}

/* Allocates the buffers and the one workspace, the largest any step asks
** for.  An ML_SVD_* code; buf[0..10] hold what must be freed. */
static int FN(hmt_alloc)(const MlSvdSpec *sp, FN(Hmt) *h, void **buf, char *zErr, int nErr){
  int m = h->m, n = h->n, l = h->l, big = m>n ? m : n, i;
  lapack_int info;
  R wq;
  h->Om  = buf[0] = sp->xMalloc(sizeof(R)*(uint64_t)n*l);
  h->Y   = buf[1] = sp->xMalloc(sizeof(R)*(uint64_t)m*l);
  h->Z   = buf[2] = sp->xMalloc(sizeof(R)*(uint64_t)n*l);
  h->B   = buf[3] = sp->xMalloc(sizeof(R)*(uint64_t)l*n);
  h->Ub  = buf[4] = sp->xMalloc(sizeof(R)*(uint64_t)l*l);
  h->Sb  = buf[5] = sp->xMalloc(sizeof(R)*(uint64_t)l);
  h->Vtb = buf[6] = sp->xMalloc(sizeof(R)*(uint64_t)l*n);
  h->U   = buf[7] = sp->xMalloc(sizeof(R)*(uint64_t)m*l);
  h->tau = buf[8] = sp->xMalloc(sizeof(R)*(uint64_t)l);
  h->iwork = buf[9] = sp->xMalloc(sizeof(lapack_int)*8*(uint64_t)l);
  for(i=0; i<10; i++) if( buf[i]==0 ) return ML_SVD_NOMEM;
  h->lwork = 1;
  info = LP(geqrf_work)(LAPACK_COL_MAJOR, big, l, h->Y, big, h->tau, &wq, -1);
  if( info ) return lapackError(zErr, nErr, P "geqrf", info);
  if( (lapack_int)wq > h->lwork ) h->lwork = (lapack_int)wq;
  info = LP(orgqr_work)(LAPACK_COL_MAJOR, big, l, l, h->Y, big, h->tau, &wq, -1);
  if( info ) return lapackError(zErr, nErr, P "orgqr", info);
  if( (lapack_int)wq > h->lwork ) h->lwork = (lapack_int)wq;
  info = LP(gesdd_work)(LAPACK_COL_MAJOR, 'S', l, n, h->B, l, h->Sb, h->Ub, l, h->Vtb, l, &wq, -1, h->iwork);
  if( info ) return lapackError(zErr, nErr, P "gesdd", info);
  if( (lapack_int)wq > h->lwork ) h->lwork = (lapack_int)wq;
  h->work = buf[10] = sp->xMalloc(sizeof(R)*(uint64_t)h->lwork);
  return h->work ? ML_SVD_OK : ML_SVD_NOMEM;
}

/* The randomized method, timed.  An ML_SVD_* code. */
static int FN(randomized)(const MlSvdSpec *sp, const R *A, MlSvdRun *run, char *zErr, int nErr){
  int mn = sp->rows<sp->cols ? sp->rows : sp->cols, it, total = sp->warmup + sp->iters, rc;
  lapack_int iseed0[4];
  void *buf[11] = {0};
  FN(Hmt) h;
  memset(&h, 0, sizeof(h));
  h.m = sp->rows; h.n = sp->cols;
  h.l = sp->rank + ML_SVD_OVERSAMPLE;
  if( h.l>mn ) h.l = mn;
  rc = FN(hmt_alloc)(sp, &h, buf, zErr, nErr);
  ML_SVD_ISEED(sp->seed, iseed0);
  for(it=0; rc==ML_SVD_OK && it<total; it++){
    struct timespec t0, t1;
    const char *zFail = 0;
    lapack_int info;
    int stop = 0;
    if( interrupted(sp) ){ rc = ML_SVD_INTERRUPT; break; }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    info = FN(hmt_call)(sp, &h, A, iseed0, &zFail, &stop);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if( stop ){ rc = ML_SVD_INTERRUPT; break; }
    if( info ){ rc = lapackError(zErr, nErr, zFail, info); break; }
    if( it>=sp->warmup ) run->ms[it-sp->warmup] = msBetween(&t0, &t1);
  }
  if( rc==ML_SVD_OK && interrupted(sp) ) rc = ML_SVD_INTERRUPT;     /* before the reconstruction */
  if( rc==ML_SVD_OK ){
    snprintf(run->driver, sizeof(run->driver), "HMT geqrf+gesdd (l=%d, q=%d)", h.l, ML_SVD_POWER_ITERS);
    for(it=0; it<sp->rank; it++) run->S[it] = h.Sb[it];
    rc = FN(recon_error)(sp, A, h.U, h.Sb, h.Vtb, h.l, sp->rank, &run->recon_rel_error);
  }
  FN(release)(sp, buf, 11);
  return rc;
}

static int FN(all)(const MlSvdSpec *sp, const R *A, MlSvdRun run[ML_SVD_NMETHOD], char *zErr, int nErr){
  int rc = FN(exact)(sp, A, &run[ML_SVD_FULL], 0, zErr, nErr);
  if( rc==ML_SVD_OK ) rc = FN(randomized)(sp, A, &run[ML_SVD_RANDOMIZED], zErr, nErr);
  if( rc==ML_SVD_OK ) rc = FN(exact)(sp, A, &run[ML_SVD_VALUES], 1, zErr, nErr);
  return rc;
}
