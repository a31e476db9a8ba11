/*
** SPDX-License-Identifier: MIT
**
** svd_bench.c -- the svd_bench eponymous table-valued function.
**
**   SELECT * FROM svd_bench(rows, cols [, rank, warmup=5, iters=20,
**                           device='cpu', dtype='float64', seed=0, spectrum='gaussian']);
**
** Builds a rows x cols test matrix from seed -- 'gaussian': iid N(0,1)
** entries (LAPACK dlarnv); 'decay': U diag(sigma) V^T with random
** orthonormal U, V and sigma_i = exp(-i/8) -- and times three methods on it,
** one result row each: full, randomized, values_only (see svd_cpu.c and
** svd_cuda.c for what each runs on each device).
**
** Columns: method, device, driver, dtype, rows, cols, rank, warmup, iters,
** ms_mean, ms_min, ms_median, ms_max, sv_rel_error, sv_correlation,
** recon_rel_error; then the hidden argument columns arg_rows .. arg_spectrum.
**
** Rules:
**   1. rows and cols are required integers in 1..16384 with rows*cols at
**      most 16777216; rank in 1..min(rows, cols) (default min(rows, cols));
**      warmup in 0..1000; iters in 1..10000; seed in 0..2^48-1; device
**      'cpu' or 'cuda'; dtype 'float64' or 'float32'; spectrum 'gaussian'
**      or 'decay'.  Anything else is an error naming svd_bench().
**   2. device = 'cuda' in a build without CUDA, or on a machine without a
**      GPU, is an error that says which; never a silent CPU run.
**   3. sv_rel_error = ||S_full,k - S_method,k||_2 / ||S_full,k||_2 over the
**      leading k = rank singular values; sv_correlation their Pearson
**      correlation (NULL when k < 2 or a vector is constant);
**      recon_rel_error = ||A - U_k S_k V_k^T||_F / ||A||_F (NULL for
**      values_only).
**   4. The table is SQLITE_VTAB_DIRECTONLY: it burns CPU/GPU time and is not
**      deterministic, so triggers and views cannot call it.
**
** Cost: the matrix, its copies and the workspaces, all from
** sqlite3_malloc64; time as measured.
*/
#ifndef _GNU_SOURCE
# define _GNU_SOURCE   /* dladdr, Dl_info */
#endif
#include <dlfcn.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <lapacke.h>
#include <cblas.h>
#include "config.h"
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "svd_bench.h"

#define SVD_MAX_DIM   16384
#define SVD_MAX_CELLS 16777216

/* Result columns, then the hidden argument columns. */
enum { C_METHOD, C_DEVICE, C_DRIVER, C_DTYPE, C_ROWS, C_COLS, C_RANK, C_WARMUP, C_ITERS,
       C_MS_MEAN, C_MS_MIN, C_MS_MEDIAN, C_MS_MAX, C_SV_REL, C_SV_CORR, C_RECON,
       C_ARG0 };
enum { A_ROWS, A_COLS, A_RANK, A_WARMUP, A_ITERS, A_DEVICE, A_DTYPE, A_SEED, A_SPECTRUM, A_COUNT };
static const char *azArg[A_COUNT] = {"rows", "cols", "rank", "warmup", "iters", "device",
                                     "dtype", "seed", "spectrum"};
static const char *azMethod[ML_SVD_NMETHOD] = {"full", "randomized", "values_only"};

typedef struct SvdRow {
  char driver[48];
  double ms_mean, ms_min, ms_median, ms_max, sv_rel, sv_corr, recon;
} SvdRow;

typedef struct SvdCursor {
  sqlite3_vtab_cursor base;
  int iRow;                     /* 0..2, 3 = EOF */
  int nRow;
  MlSvdSpec spec;
  int cuda;
  SvdRow row[ML_SVD_NMETHOD];
} SvdCursor;

/* xConnect/xCreate: one schema, hidden columns carry the arguments. */
static int svdConnect(sqlite3 *db, void *pAux, int argc, const char *const*argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  sqlite3_vtab *p;
  int rc;
  (void)pAux; (void)argc; (void)argv; (void)pzErr;
  rc = sqlite3_declare_vtab(db,
     "CREATE TABLE x(method TEXT, device TEXT, driver TEXT, dtype TEXT, rows INT, cols INT, rank INT,"
     " warmup INT, iters INT, ms_mean REAL, ms_min REAL, ms_median REAL, ms_max REAL,"
     " sv_rel_error REAL, sv_correlation REAL, recon_rel_error REAL,"
     " arg_rows HIDDEN, arg_cols HIDDEN, arg_rank HIDDEN, arg_warmup HIDDEN, arg_iters HIDDEN,"
     " arg_device HIDDEN, arg_dtype HIDDEN, arg_seed HIDDEN, arg_spectrum HIDDEN)");
  if( rc!=SQLITE_OK ) return rc;
  p = sqlite3_malloc(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
#ifdef SQLITE_VTAB_DIRECTONLY
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
#endif
  *ppVtab = p;
  return SQLITE_OK;
}

/* xDisconnect/xDestroy */
static int svdDisconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* xOpen */
static int svdOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor){
  SvdCursor *c = sqlite3_malloc(sizeof(*c));
  (void)pVtab;
  if( c==0 ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  *ppCursor = &c->base;
  return SQLITE_OK;
}

/* xClose */
static int svdClose(sqlite3_vtab_cursor *cur){
  sqlite3_free(cur);
  return SQLITE_OK;
}

/*
** xBestIndex.  Every argument is an equality constraint on its hidden
** column.  idxNum has bit i set when argument i (A_ROWS .. A_SPECTRUM) is
** given; argv in xFilter holds the given arguments in that bit order.
** rows and cols are required: without them the statement fails with a
** message; a constraint that is present but not usable in this plan gives
** SQLITE_CONSTRAINT so that the planner tries another.
*/
static int svdBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info){
  int i, idxNum = 0, unusable = 0, aIdx[A_COUNT], n = 0;
  for(i=0; i<A_COUNT; i++) aIdx[i] = -1;
  for(i=0; i<info->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int a = c->iColumn - C_ARG0;
    if( a<0 || a>=A_COUNT || c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( !c->usable ){ unusable |= 1<<a; continue; }
    idxNum |= 1<<a;
    aIdx[a] = i;
  }
  if( ((idxNum|unusable) & 3)!=3 ){
    sqlite3_free(tab->zErrMsg);
    tab->zErrMsg = sqlite3_mprintf("svd_bench(): rows and cols are required: "
        "svd_bench(rows, cols [, rank, warmup, iters, device, dtype, seed, spectrum])");
    return SQLITE_ERROR;
  }
  if( (idxNum & 3)!=3 ) return SQLITE_CONSTRAINT;
  for(i=0; i<A_COUNT; i++){
    if( aIdx[i]>=0 ){
      info->aConstraintUsage[aIdx[i]].argvIndex = ++n;
      info->aConstraintUsage[aIdx[i]].omit = 1;
    }
  }
  info->idxNum = idxNum;
  info->estimatedCost = 1.0;
  info->estimatedRows = ML_SVD_NMETHOD;
  return SQLITE_OK;
}

/* Sets "svd_bench(): ..." on the vtab. */
static int svdError(SvdCursor *c, const char *zFmt, ...){
  va_list ap;
  char *z;
  va_start(ap, zFmt);
  z = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  sqlite3_free(c->base.pVtab->zErrMsg);
  c->base.pVtab->zErrMsg = z ? sqlite3_mprintf("svd_bench(): %s", z) : 0;
  sqlite3_free(z);
  return z ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* An integer argument in lo..hi. */
static int argInt(SvdCursor *c, int a, sqlite3_value *v, sqlite3_int64 lo, sqlite3_int64 hi, sqlite3_int64 *out){
  ml_i64 i;
  if( ml_value_integer(v, lo, hi, &i) ){ *out = i; return SQLITE_OK; }
  {
    char *z = ml_describe(v);
    int rc = z ? svdError(c, "%s must be an integer in %lld..%lld, got %s", azArg[a], lo, hi, z) : SQLITE_NOMEM;
    sqlite3_free(z);
    return rc;
  }
}

/* A text argument among the choices (case-insensitive); *out is its index. */
static int argChoice(SvdCursor *c, int a, sqlite3_value *v, const char *const*az, int n, int *out){
  const char *z = sqlite3_value_type(v)==SQLITE_TEXT ? (const char*)sqlite3_value_text(v) : 0;
  int i;
  for(i=0; z && i<n; i++){
    if( strcasecmp(z, az[i])==0 ){ *out = i; return SQLITE_OK; }
  }
  {
    char *zv = ml_describe(v);
    int rc = zv ? svdError(c, "%s must be '%s' or '%s', got %s", azArg[a], az[0], az[1], zv) : SQLITE_NOMEM;
    sqlite3_free(zv);
    return rc;
  }
}

/* Orthonormal m x r factor from a Gaussian draw (decay spectrum). */
static int randomOrtho(double *Q, int m, int r, lapack_int *iseed){
  lapack_int info = LAPACKE_dlarnv(3, iseed, (lapack_int)m*r, Q);
  double *tau;
  if( info ) return 1;
  tau = sqlite3_malloc64(sizeof(double)*(uint64_t)r);
  if( tau==0 ) return 2;
  info = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, r, Q, m, tau);
  if( info==0 ) info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, r, r, Q, m, tau);
  sqlite3_free(tau);
  return info ? 1 : 0;
}

/* The test matrix, rows x cols column-major, or NULL when out of memory.
** (LAPACKE's high-level geqrf/orgqr allocate their workspace with malloc;
** they run only here, once, outside the timing.) */
static double *makeMatrix(const MlSvdSpec *sp, int decay){
  int m = sp->rows, n = sp->cols, r = m<n ? m : n, i, j;
  lapack_int iseed[4];
  double *A = sqlite3_malloc64(sizeof(double)*(uint64_t)m*n), *U, *V;
  ML_SVD_ISEED(sp->seed, iseed);
  if( A==0 ) return 0;
  if( !decay ){
    LAPACKE_dlarnv(3, iseed, (lapack_int)m*n, A);
    return A;
  }
  U = sqlite3_malloc64(sizeof(double)*(uint64_t)m*r);
  V = sqlite3_malloc64(sizeof(double)*(uint64_t)n*r);
  if( U==0 || V==0 || randomOrtho(U, m, r, iseed) || randomOrtho(V, n, r, iseed) ){
    sqlite3_free(U); sqlite3_free(V); sqlite3_free(A);
    return 0;
  }
  for(j=0; j<r; j++){
    double s = exp(-(double)j/8.0);
    for(i=0; i<m; i++) U[(size_t)j*m+i] *= s;
  }
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, r, 1.0, U, m, V, n, 0.0, A, m);
  sqlite3_free(U); sqlite3_free(V);
  return A;
}

/* sv_rel_error and sv_correlation of S against the full SVD's F. */
static void svStats(const double *F, const double *S, int k, double *rel, double *corr){
  double num = 0, den = 0, mf = 0, ms = 0, sff = 0, sss = 0, sfs = 0;
  int i;
  for(i=0; i<k; i++){ num += (F[i]-S[i])*(F[i]-S[i]); den += F[i]*F[i]; mf += F[i]; ms += S[i]; }
  *rel = den>0 ? sqrt(num/den) : NAN;
  mf /= k; ms /= k;
  for(i=0; i<k; i++){
    sff += (F[i]-mf)*(F[i]-mf); sss += (S[i]-ms)*(S[i]-ms); sfs += (F[i]-mf)*(S[i]-ms);
  }
  *corr = (k<2 || sff==0 || sss==0) ? NAN : sfs/sqrt(sff*sss);
}

#ifdef MLEVAL_HAVE_CUDA
/* The CUDA back end lives in mleval_cuda.so next to this library; it is
** loaded on first use and kept. */
static MlSvdBackend cudaBackend(char *zErr, int nErr){
  static MlSvdBackend xCuda = 0;
  sqlite3_mutex *mx = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
  MlSvdBackend x;
  sqlite3_mutex_enter(mx);
  if( xCuda==0 ){
    Dl_info dli;
    char zPath[4096];
    void *h = 0;
    if( dladdr((void*)&ml_svd_cpu, &dli) && dli.dli_fname ){
      const char *zSlash = strrchr(dli.dli_fname, '/');
      int nDir = zSlash ? (int)(zSlash - dli.dli_fname) + 1 : 0;
      snprintf(zPath, sizeof(zPath), "%.*smleval_cuda.so", nDir, dli.dli_fname);
      h = dlopen(zPath, RTLD_NOW | RTLD_LOCAL);
    }
    if( h==0 ) h = dlopen("mleval_cuda.so", RTLD_NOW | RTLD_LOCAL);
    if( h==0 ){
      snprintf(zErr, nErr, "cannot load the CUDA back end mleval_cuda.so: %s", dlerror());
    }else{
      *(void**)&xCuda = dlsym(h, "mleval_cuda_svd");
      if( xCuda==0 ) snprintf(zErr, nErr, "mleval_cuda.so has no mleval_cuda_svd");
    }
  }
  x = xCuda;
  sqlite3_mutex_leave(mx);
  return x;
}
#endif

static void *svdMalloc(uint64_t n){ return sqlite3_malloc64(n); }
static void svdFree(void *p){ sqlite3_free(p); }

/* xFilter: validates the arguments, builds the matrix, runs the methods. */
static int svdFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  static const char *azDevice[] = {"cpu", "cuda"};
  static const char *azDtype[] = {"float64", "float32"};
  static const char *azSpectrum[] = {"gaussian", "decay"};
  SvdCursor *c = (SvdCursor*)cur;
  sqlite3_value *aArg[A_COUNT] = {0};
  sqlite3_int64 v;
  int i, j = 0, rc = SQLITE_OK, decay = 0, mn;
  MlSvdSpec *sp = &c->spec;
  MlSvdRun run[ML_SVD_NMETHOD];
  double *A = 0, *mem = 0;
  char zErr[256] = "";
  MlSvdBackend xRun = ml_svd_cpu;
  (void)idxStr;
  for(i=0; i<A_COUNT && j<argc; i++) if( idxNum & (1<<i) ) aArg[i] = argv[j++];
  c->iRow = c->nRow = 0;
  memset(sp, 0, sizeof(*sp));
  sp->warmup = 5; sp->iters = 20; c->cuda = 0;
  sp->xMalloc = svdMalloc; sp->xFree = svdFree;
  if( aArg[A_ROWS]==0 || aArg[A_COLS]==0 ) return svdError(c, "rows and cols are required");
  if( (rc = argInt(c, A_ROWS, aArg[A_ROWS], 1, SVD_MAX_DIM, &v)) ) return rc;
  sp->rows = (int)v;
  if( (rc = argInt(c, A_COLS, aArg[A_COLS], 1, SVD_MAX_DIM, &v)) ) return rc;
  sp->cols = (int)v;
  if( (sqlite3_int64)sp->rows * sp->cols > SVD_MAX_CELLS ){
    return svdError(c, "rows x cols must be at most %d, got %d x %d", SVD_MAX_CELLS, sp->rows, sp->cols);
  }
  mn = sp->rows < sp->cols ? sp->rows : sp->cols;
  sp->rank = mn;
  if( aArg[A_RANK] && sqlite3_value_type(aArg[A_RANK])!=SQLITE_NULL ){
    if( (rc = argInt(c, A_RANK, aArg[A_RANK], 1, mn, &v)) ) return rc;
    sp->rank = (int)v;
  }
  if( aArg[A_WARMUP] ){ if( (rc = argInt(c, A_WARMUP, aArg[A_WARMUP], 0, 1000, &v)) ) return rc; sp->warmup = (int)v; }
  if( aArg[A_ITERS] ){ if( (rc = argInt(c, A_ITERS, aArg[A_ITERS], 1, 10000, &v)) ) return rc; sp->iters = (int)v; }
  if( aArg[A_DEVICE] && (rc = argChoice(c, A_DEVICE, aArg[A_DEVICE], azDevice, 2, &c->cuda)) ) return rc;
  if( aArg[A_DTYPE] && (rc = argChoice(c, A_DTYPE, aArg[A_DTYPE], azDtype, 2, &sp->f32)) ) return rc;
  if( aArg[A_SEED] ){ if( (rc = argInt(c, A_SEED, aArg[A_SEED], 0, ((sqlite3_int64)1<<48) - 1, &v)) ) return rc; sp->seed = (uint64_t)v; }
  if( aArg[A_SPECTRUM] && (rc = argChoice(c, A_SPECTRUM, aArg[A_SPECTRUM], azSpectrum, 2, &decay)) ) return rc;
  if( c->cuda ){
#ifdef MLEVAL_HAVE_CUDA
    xRun = cudaBackend(zErr, sizeof(zErr));
    if( xRun==0 ) return svdError(c, "%s", zErr);
#else
    return svdError(c, "this build has no CUDA support; configure --with-cuda");
#endif
  }
  A = makeMatrix(sp, decay);
  mem = sqlite3_malloc64(sizeof(double)*(uint64_t)ML_SVD_NMETHOD*(sp->iters + sp->rank));
  if( A==0 || mem==0 ){ sqlite3_free(A); sqlite3_free(mem); return SQLITE_NOMEM; }
  for(i=0; i<ML_SVD_NMETHOD; i++){
    memset(&run[i], 0, sizeof(run[i]));
    run[i].ms = mem + (size_t)i*(sp->iters + sp->rank);
    run[i].S = run[i].ms + sp->iters;
    run[i].recon_rel_error = NAN;
  }
  rc = xRun(sp, A, run, zErr, sizeof(zErr));
  if( rc==0 ){
    for(i=0; i<ML_SVD_NMETHOD; i++){
      SvdRow *r = &c->row[i];
      double sum = 0, lo, hi;
      memcpy(r->driver, run[i].driver, sizeof(r->driver));
      r->ms_min = r->ms_max = run[i].ms[0];
      for(j=0; j<sp->iters; j++){
        sum += run[i].ms[j];
        if( run[i].ms[j]<r->ms_min ) r->ms_min = run[i].ms[j];
        if( run[i].ms[j]>r->ms_max ) r->ms_max = run[i].ms[j];
      }
      r->ms_mean = sum / sp->iters;
      /* the median is the core's 0.5 quantile (the mean of the middle two) */
      ml_quantile_pair(run[i].ms, sp->iters, 0.5, 0.5, &lo, &hi);
      r->ms_median = hi;
      svStats(run[ML_SVD_FULL].S, run[i].S, sp->rank, &r->sv_rel, &r->sv_corr);
      r->recon = run[i].recon_rel_error;
    }
    c->nRow = ML_SVD_NMETHOD;
  }
  sqlite3_free(A);
  sqlite3_free(mem);
  if( rc==2 ) return SQLITE_NOMEM;
  if( rc ) return svdError(c, "%s", zErr);
  return SQLITE_OK;
}

/* xNext */
static int svdNext(sqlite3_vtab_cursor *cur){
  ((SvdCursor*)cur)->iRow++;
  return SQLITE_OK;
}

/* xEof */
static int svdEof(sqlite3_vtab_cursor *cur){
  SvdCursor *c = (SvdCursor*)cur;
  return c->iRow >= c->nRow;
}

static void resultReal(sqlite3_context *ctx, double d){
  if( isnan(d) ) sqlite3_result_null(ctx); else sqlite3_result_double(ctx, d);
}

/* xColumn */
static int svdColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  SvdCursor *c = (SvdCursor*)cur;
  const SvdRow *r = &c->row[c->iRow];
  const MlSvdSpec *sp = &c->spec;
  switch( i ){
    case C_METHOD:    sqlite3_result_text(ctx, azMethod[c->iRow], -1, SQLITE_STATIC); break;
    case C_DEVICE:    sqlite3_result_text(ctx, c->cuda ? "cuda" : "cpu", -1, SQLITE_STATIC); break;
    case C_DRIVER:    sqlite3_result_text(ctx, r->driver, -1, SQLITE_TRANSIENT); break;
    case C_DTYPE:     sqlite3_result_text(ctx, sp->f32 ? "float32" : "float64", -1, SQLITE_STATIC); break;
    case C_ROWS:      sqlite3_result_int(ctx, sp->rows); break;
    case C_COLS:      sqlite3_result_int(ctx, sp->cols); break;
    case C_RANK:      sqlite3_result_int(ctx, sp->rank); break;
    case C_WARMUP:    sqlite3_result_int(ctx, sp->warmup); break;
    case C_ITERS:     sqlite3_result_int(ctx, sp->iters); break;
    case C_MS_MEAN:   resultReal(ctx, r->ms_mean); break;
    case C_MS_MIN:    resultReal(ctx, r->ms_min); break;
    case C_MS_MEDIAN: resultReal(ctx, r->ms_median); break;
    case C_MS_MAX:    resultReal(ctx, r->ms_max); break;
    case C_SV_REL:    resultReal(ctx, r->sv_rel); break;
    case C_SV_CORR:   resultReal(ctx, r->sv_corr); break;
    case C_RECON:     resultReal(ctx, r->recon); break;
    default:          sqlite3_result_null(ctx); break;   /* hidden argument columns */
  }
  return SQLITE_OK;
}

/* xRowid */
static int svdRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((SvdCursor*)cur)->iRow + 1;
  return SQLITE_OK;
}

/* Eponymous-only (no xCreate), read-only: the slots not named are NULL. */
static sqlite3_module svdModule = {
  .iVersion    = 0,
  .xCreate     = 0,               /* eponymous only: no CREATE VIRTUAL TABLE */
  .xConnect    = svdConnect,      /* declares the schema */
  .xBestIndex  = svdBestIndex,    /* maps the arguments to argv */
  .xDisconnect = svdDisconnect,
  .xDestroy    = 0,
  .xOpen       = svdOpen,
  .xClose      = svdClose,
  .xFilter     = svdFilter,       /* validates, builds the matrix, runs the methods */
  .xNext       = svdNext,
  .xEof        = svdEof,
  .xColumn     = svdColumn,
  .xRowid      = svdRowid,
};

int ml_register_svd_bench(sqlite3 *db){
  return sqlite3_create_module(db, "svd_bench", &svdModule, 0);
}
