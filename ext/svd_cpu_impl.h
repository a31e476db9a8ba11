/*
** SPDX-License-Identifier: MIT
**
** svd_cpu_impl.h -- svd_bench's CPU back end, written once for both dtypes.
** Included twice by svd_cpu.c with
**   R        the element type (double, float)
**   LP(x)    LAPACKE_d##x / LAPACKE_s##x
**   BL(x)    cblas_d##x / cblas_s##x
**   FN(x)    x##_f64 / x##_f32
** Every buffer comes from spec->xMalloc (sqlite3_malloc64); every LAPACK
** workspace is queried once and allocated before the warm-up calls.
*/

/* Frees the listed buffers through the spec's allocator. */
static void FN(release)(const MlSvdSpec *sp, void **a, int n){
  int i;
  for(i=0; i<n; i++){ sp->xFree(a[i]); a[i] = 0; }
}

/* ||A - U_k diag(S_k) Vt_k||_F / ||A||_F, U m x k (ld m), Vt k x n (ld ldvt).
** Returns NaN when out of memory. */
static double FN(recon_error)(const MlSvdSpec *sp, const R *A, const R *U, const R *S,
                              const R *Vt, int ldvt, int k){
  int m = sp->rows, n = sp->cols, i, j;
  size_t mn = (size_t)m*n;
  R *US = sp->xMalloc(sizeof(R)*(uint64_t)m*k), *D = sp->xMalloc(sizeof(R)*(uint64_t)mn);
  double num = 0.0, den = 0.0;
  if( US==0 || D==0 ){ sp->xFree(US); sp->xFree(D); return NAN; }
  for(j=0; j<k; j++) for(i=0; i<m; i++) US[(size_t)j*m+i] = U[(size_t)j*m+i]*S[j];
  memcpy(D, A, sizeof(R)*mn);
  BL(gemm)(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, -1.0, US, m, Vt, ldvt, 1.0, D, m);
  for(i=0; i<(int)mn; i++){ num += (double)D[i]*D[i]; den += (double)A[i]*A[i]; }
  sp->xFree(US); sp->xFree(D);
  return den>0 ? sqrt(num/den) : 0.0;
}

/* full (jobz 'S') or values_only (jobz 'N') through gesdd, falling back to
** gesvd when gesdd does not converge.  Returns 0, 1 (error) or 2 (nomem). */
static int FN(exact)(const MlSvdSpec *sp, const R *A, MlSvdRun *run, int values, char *zErr, int nErr){
  int m = sp->rows, n = sp->cols, mn = m<n ? m : n, it, total = sp->warmup + sp->iters;
  char jobz = values ? 'N' : 'S';
  lapack_int info, lwork;
  R wq, *Aw, *S, *U = 0, *Vt = 0, *work;
  lapack_int *iwork;
  void *buf[6] = {0};
  int useGesvd = 0;
  Aw = buf[0] = sp->xMalloc(sizeof(R)*(uint64_t)m*n);
  S  = buf[1] = sp->xMalloc(sizeof(R)*(uint64_t)mn);
  iwork = buf[2] = sp->xMalloc(sizeof(lapack_int)*8*(uint64_t)mn);
  if( !values ){
    U  = buf[3] = sp->xMalloc(sizeof(R)*(uint64_t)m*mn);
    Vt = buf[4] = sp->xMalloc(sizeof(R)*(uint64_t)mn*n);
  }
  if( !Aw || !S || !iwork || (!values && (!U || !Vt)) ){ FN(release)(sp, buf, 6); return 2; }
  memcpy(Aw, A, sizeof(R)*(size_t)m*n);
  info = LP(gesdd_work)(LAPACK_COL_MAJOR, jobz, m, n, Aw, m, S, U, m, Vt, mn, &wq, -1, iwork);
  if( info!=0 ){ snprintf(zErr, nErr, "gesdd workspace query failed (info %d)", (int)info); FN(release)(sp, buf, 6); return 1; }
  lwork = (lapack_int)wq;
  work = buf[5] = sp->xMalloc(sizeof(R)*(uint64_t)(lwork>1 ? lwork : 1));
  if( work==0 ){ FN(release)(sp, buf, 6); return 2; }
  for(it=0; it<total; it++){
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memcpy(Aw, A, sizeof(R)*(size_t)m*n);      /* LAPACK destroys its input, as numpy copies it */
    if( useGesvd ){
      info = LP(gesvd_work)(LAPACK_COL_MAJOR, values ? 'N' : 'S', values ? 'N' : 'S', m, n, Aw, m, S,
                            U, m, Vt, mn, work, lwork);
    }else{
      info = LP(gesdd_work)(LAPACK_COL_MAJOR, jobz, m, n, Aw, m, S, U, m, Vt, mn, work, lwork, iwork);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if( info>0 && !useGesvd ){
      /* gesdd did not converge: switch to gesvd, size its workspace, restart */
      R *w2;
      useGesvd = 1;
      info = LP(gesvd_work)(LAPACK_COL_MAJOR, values ? 'N' : 'S', values ? 'N' : 'S', m, n, Aw, m, S,
                            U, m, Vt, mn, &wq, -1);
      if( info!=0 ) break;
      if( (lapack_int)wq > lwork ){
        lwork = (lapack_int)wq;
        w2 = sp->xMalloc(sizeof(R)*(uint64_t)lwork);
        if( w2==0 ){ FN(release)(sp, buf, 6); return 2; }
        sp->xFree(work);
        work = buf[5] = w2;
      }
      it = -1;
      continue;
    }
    if( info!=0 ) break;
    if( it>=sp->warmup ) run->ms[it-sp->warmup] = (t1.tv_sec - t0.tv_sec)*1e3 + (t1.tv_nsec - t0.tv_nsec)/1e6;
  }
  if( info!=0 ){
    snprintf(zErr, nErr, "%s failed (info %d)", useGesvd ? "gesvd" : "gesdd", (int)info);
    FN(release)(sp, buf, 6);
    return 1;
  }
  snprintf(run->driver, sizeof(run->driver), "%s", useGesvd ? "gesvd" : "gesdd");
  for(it=0; it<sp->rank; it++) run->S[it] = S[it];
  run->recon_rel_error = values ? NAN : FN(recon_error)(sp, A, U, S, Vt, mn, sp->rank);
  FN(release)(sp, buf, 6);
  return 0;
}

/* Orthonormalises the m x l matrix Y in place (geqrf + orgqr). */
static lapack_int FN(orth)(int m, int l, R *Y, R *tau, R *work, lapack_int lwork){
  lapack_int info = LP(geqrf_work)(LAPACK_COL_MAJOR, m, l, Y, m, tau, work, lwork);
  if( info==0 ) info = LP(orgqr_work)(LAPACK_COL_MAJOR, m, l, l, Y, m, tau, work, lwork);
  return info;
}

/* Halko, Martinsson & Tropp: Gaussian sketch of rank + oversampling (capped
** at min(m, n)), power iterations re-orthonormalised with QR, QR, small SVD. */
static int FN(randomized)(const MlSvdSpec *sp, const R *A, MlSvdRun *run, char *zErr, int nErr){
  int m = sp->rows, n = sp->cols, mn = m<n ? m : n, l = sp->rank + ML_SVD_OVERSAMPLE, it, q;
  int total = sp->warmup + sp->iters, big = m>n ? m : n;
  lapack_int info = 0, lwork, iseed0[4], iseed[4];
  R wq, *Om, *Y, *Z, *B, *Ub, *Sb, *Vtb, *U, *tau, *work;
  lapack_int *iwork;
  void *buf[11] = {0};
  if( l>mn ) l = mn;
  Om  = buf[0] = sp->xMalloc(sizeof(R)*(uint64_t)n*l);
  Y   = buf[1] = sp->xMalloc(sizeof(R)*(uint64_t)m*l);
  Z   = buf[2] = sp->xMalloc(sizeof(R)*(uint64_t)n*l);
  B   = buf[3] = sp->xMalloc(sizeof(R)*(uint64_t)l*n);
  Ub  = buf[4] = sp->xMalloc(sizeof(R)*(uint64_t)l*l);
  Sb  = buf[5] = sp->xMalloc(sizeof(R)*(uint64_t)l);
  Vtb = buf[6] = sp->xMalloc(sizeof(R)*(uint64_t)l*n);
  U   = buf[7] = sp->xMalloc(sizeof(R)*(uint64_t)m*l);
  tau = buf[8] = sp->xMalloc(sizeof(R)*(uint64_t)l);
  iwork = buf[9] = sp->xMalloc(sizeof(lapack_int)*8*(uint64_t)l);
  for(it=0; it<10; it++) if( buf[it]==0 ){ FN(release)(sp, buf, 11); return 2; }
  /* one workspace, the largest any step asks for */
  lwork = 1;
  info = LP(geqrf_work)(LAPACK_COL_MAJOR, big, l, Y, big, tau, &wq, -1);
  if( info==0 && (lapack_int)wq > lwork ) lwork = (lapack_int)wq;
  if( info==0 ) info = LP(orgqr_work)(LAPACK_COL_MAJOR, big, l, l, Y, big, tau, &wq, -1);
  if( info==0 && (lapack_int)wq > lwork ) lwork = (lapack_int)wq;
  if( info==0 ) info = LP(gesdd_work)(LAPACK_COL_MAJOR, 'S', l, n, B, l, Sb, Ub, l, Vtb, l, &wq, -1, iwork);
  if( info==0 && (lapack_int)wq > lwork ) lwork = (lapack_int)wq;
  if( info!=0 ){ snprintf(zErr, nErr, "randomized workspace query failed (info %d)", (int)info); FN(release)(sp, buf, 11); return 1; }
  work = buf[10] = sp->xMalloc(sizeof(R)*(uint64_t)lwork);
  if( work==0 ){ FN(release)(sp, buf, 11); return 2; }
  ML_SVD_ISEED(sp->seed, iseed0);
  for(it=0; it<total && info==0; it++){
    struct timespec t0, t1;
    memcpy(iseed, iseed0, sizeof(iseed));          /* the same sketch every call */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    info = LP(larnv_work)(3, iseed, (lapack_int)n*l, Om);
    BL(gemm)(CblasColMajor, CblasNoTrans, CblasNoTrans, m, l, n, 1.0, A, m, Om, n, 0.0, Y, m);
    for(q=0; q<ML_SVD_POWER_ITERS && info==0; q++){
      info = FN(orth)(m, l, Y, tau, work, lwork);
      BL(gemm)(CblasColMajor, CblasTrans, CblasNoTrans, n, l, m, 1.0, A, m, Y, m, 0.0, Z, n);
      if( info==0 ) info = FN(orth)(n, l, Z, tau, work, lwork);
      BL(gemm)(CblasColMajor, CblasNoTrans, CblasNoTrans, m, l, n, 1.0, A, m, Z, n, 0.0, Y, m);
    }
    if( info==0 ) info = FN(orth)(m, l, Y, tau, work, lwork);
    BL(gemm)(CblasColMajor, CblasTrans, CblasNoTrans, l, n, m, 1.0, Y, m, A, m, 0.0, B, l);
    if( info==0 ) info = LP(gesdd_work)(LAPACK_COL_MAJOR, 'S', l, n, B, l, Sb, Ub, l, Vtb, l, work, lwork, iwork);
    BL(gemm)(CblasColMajor, CblasNoTrans, CblasNoTrans, m, l, l, 1.0, Y, m, Ub, l, 0.0, U, m);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if( it>=sp->warmup ) run->ms[it-sp->warmup] = (t1.tv_sec - t0.tv_sec)*1e3 + (t1.tv_nsec - t0.tv_nsec)/1e6;
  }
  if( info!=0 ){
    snprintf(zErr, nErr, "randomized SVD failed (info %d)", (int)info);
    FN(release)(sp, buf, 11);
    return 1;
  }
  snprintf(run->driver, sizeof(run->driver), "HMT geqrf+gesdd (l=%d, q=%d)", l, ML_SVD_POWER_ITERS);
  for(it=0; it<sp->rank; it++) run->S[it] = Sb[it];
  run->recon_rel_error = FN(recon_error)(sp, A, U, Sb, Vtb, l, sp->rank);
  FN(release)(sp, buf, 11);
  return 0;
}

static int FN(all)(const MlSvdSpec *sp, const R *A, MlSvdRun run[ML_SVD_NMETHOD], char *zErr, int nErr){
  int rc = FN(exact)(sp, A, &run[ML_SVD_FULL], 0, zErr, nErr);
  if( rc==0 ) rc = FN(randomized)(sp, A, &run[ML_SVD_RANDOMIZED], zErr, nErr);
  if( rc==0 ) rc = FN(exact)(sp, A, &run[ML_SVD_VALUES], 1, zErr, nErr);
  return rc;
}
