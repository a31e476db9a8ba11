/*
** SPDX-License-Identifier: MIT
**
** svd_bench.c -- the svd_bench eponymous table-valued function, and the
** loader of its back-end modules (svd_backend.h).
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
**   2. The arguments are one list (SVD_ARGUMENTS): the hidden columns, the
**      names in messages, the idxNum bits and the argv order all come from
**      it.  A hidden column returns its argument as given (the value used,
**      when the argument was left out), and a plan with an unusable
**      constraint on an argument is refused with SQLITE_CONSTRAINT, as
**      SQLite's series.c does -- so svd_bench(t.rows, t.cols) in a join
**      runs once per row of t.
**   3. The back ends are modules loaded with dlopen on the first query that
**      needs them and kept: mleval_cpu.so (LAPACKE/OpenBLAS; it also builds
**      the test matrix, so every query needs it) and mleval_cuda.so.  They
**      are looked for, in order, in the directory ml_svd_backend_dir()
**      set (tests only), in mleval/ next to the library holding this code
**      (installed: $(pkglibdir) = $(libdir)/mleval), next to it (the build
**      tree's ext/.libs/), and in the configured $(pkglibdir).  A module of
**      another interface version, or of another device, is refused.
**   4. A build without LAPACKE has no CPU back end: every svd_bench query
**      fails with "svd_bench(): this build has no CPU back end (LAPACKE);
**      install liblapacke-dev libopenblas-dev and reconfigure".
**      device = 'cuda' in a build without CUDA, or on a machine without a
**      GPU or a driver, is an error that says which ("no CUDA device found
**      (...)", with the runtime's own error name); never a silent CPU run.
**      A method a back end cannot run for these arguments (CUDA's gesvdr
**      at rank >= min(rows, cols)) keeps its row, with NULL values and
**      the reason in the driver column.
**   5. sv_rel_error = ||S_full,k - S_method,k||_2 / ||S_full,k||_2 over the
**      leading k = rank singular values; sv_correlation their Pearson
**      correlation (NULL when k < 2 or a vector is constant);
**      recon_rel_error = ||A - U_k S_k V_k^T||_F / ||A||_F (NULL for
**      values_only).
**   6. Every allocation failure, the back ends' included, ends the
**      statement with SQLITE_NOMEM; a LAPACK failure is an error naming the
**      routine and its info; sqlite3_interrupt() is noticed before every
**      warm-up and timed call and ends the statement with SQLITE_INTERRUPT.
**   7. The table is SQLITE_VTAB_DIRECTONLY: it burns CPU/GPU time and is not
**      deterministic, so triggers and views cannot call it.
**
** Cost: the matrix, its copies and the workspaces, all from ml_malloc
** (SQLite's allocator); time as measured.
*/
#ifndef _GNU_SOURCE
# define _GNU_SOURCE   /* dladdr, Dl_info */
#endif
#include <dlfcn.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "config.h"
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "svd_backend.h"

#define SVD_MAX_DIM   16384
#define SVD_MAX_CELLS 16777216

/* The result columns, in order.  X(id, name, type) */
#define SVD_COLUMNS(X) \
  X(METHOD, method, TEXT) X(DEVICE, device, TEXT) X(DRIVER, driver, TEXT) X(DTYPE, dtype, TEXT) \
  X(ROWS, rows, INT) X(COLS, cols, INT) X(RANK, rank, INT) X(WARMUP, warmup, INT) \
  X(ITERS, iters, INT) X(MS_MEAN, ms_mean, REAL) X(MS_MIN, ms_min, REAL) \
  X(MS_MEDIAN, ms_median, REAL) X(MS_MAX, ms_max, REAL) X(SV_REL, sv_rel_error, REAL) \
  X(SV_CORR, sv_correlation, REAL) X(RECON, recon_rel_error, REAL)

/* The arguments, in SQL order: the one list of rule 2.  Argument i is the
** hidden column arg_<name> after the result columns, bit i of idxNum, and,
** when given, the next entry of xFilter's argv.  X(id, name) */
#define SVD_ARGUMENTS(X) \
  X(ROWS, rows) X(COLS, cols) X(RANK, rank) X(WARMUP, warmup) X(ITERS, iters) \
  X(DEVICE, device) X(DTYPE, dtype) X(SEED, seed) X(SPECTRUM, spectrum)

#define SVD_COL_ENUM(id, name, type) C_##id,
#define SVD_COL_DECL(id, name, type) #name " " #type,
#define SVD_ARG_ENUM(id, name) A_##id,
#define SVD_ARG_NAME(id, name) #name,
enum { SVD_COLUMNS(SVD_COL_ENUM) C_ARG0 };
enum { SVD_ARGUMENTS(SVD_ARG_ENUM) A_COUNT };
static const char *const azColDecl[C_ARG0] = { SVD_COLUMNS(SVD_COL_DECL) };
static const char *const azArg[A_COUNT] = { SVD_ARGUMENTS(SVD_ARG_NAME) };
#define SVD_REQUIRED ((1<<A_ROWS) | (1<<A_COLS))

static const char *const azMethod[ML_SVD_NMETHOD] = {"full", "randomized", "values_only"};
static const char *const azDevice[] = {"cpu", "cuda"};
static const char *const azDtype[] = {"float64", "float32"};
static const char *const azSpectrum[] = {"gaussian", "decay"};

/* ------------------------------------------------------------ back ends */

#define SVD_BACKEND_CPU  0
#define SVD_BACKEND_CUDA 1

typedef struct SvdModule {
  const char *zDevice;          /* "cpu", "cuda" */
  const char *zFile;            /* the module's file name */
  int built;                    /* configure built it */
  const MlSvdBackend *p;        /* once loaded (kept for the process) */
  char *zPath;                  /* where it was loaded from (azModulePath) */
} SvdModule;

#ifdef MLEVAL_HAVE_LAPACKE
# define SVD_HAVE_CPU 1
#else
# define SVD_HAVE_CPU 0
#endif
#ifdef MLEVAL_HAVE_CUDA
# define SVD_HAVE_CUDA 1
#else
# define SVD_HAVE_CUDA 0
#endif
#ifndef MLEVAL_PKGLIBDIR
# define MLEVAL_PKGLIBDIR "/usr/local/lib/mleval"
#endif

#define SVD_PATH_MAX 4096
static char azModulePath[2][SVD_PATH_MAX];
static SvdModule aModule[2] = {
  { "cpu",  "mleval_cpu.so",  SVD_HAVE_CPU,  0, azModulePath[0] },
  { "cuda", "mleval_cuda.so", SVD_HAVE_CUDA, 0, azModulePath[1] },
};
static const char *zBackendDir = 0;   /* ml_svd_backend_dir() */
static char zLibDir[SVD_PATH_MAX];            /* the directory of the library holding this code */

/* Remembers, once, the absolute directory of the library holding this code
** (dladdr on one of its symbols), so that a later change of the working
** directory cannot lose a library loaded by a relative path. */
static void svdFindLibDir(void){
  sqlite3_mutex *mx = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
  Dl_info dli;
  sqlite3_mutex_enter(mx);
  if( zLibDir[0]==0 && dladdr((void*)&svdFindLibDir, &dli) && dli.dli_fname ){
    char *zReal = realpath(dli.dli_fname, 0);
    const char *zName = zReal ? zReal : dli.dli_fname;
    const char *zSlash = strrchr(zName, '/');
    if( zSlash ) sqlite3_snprintf(sizeof(zLibDir), zLibDir, "%.*s", (int)(zSlash - zName), zName);
    free(zReal);     /* realpath's buffer comes from malloc */
  }
  sqlite3_mutex_leave(mx);
}

void ml_svd_backend_dir(const char *zDir){
  zBackendDir = zDir;
}

/* Tries dir/file: ML_SVD_OK when it loaded; else the reason goes to zErr
** for the first candidate that exists (*pSeen counts them). */
static int tryModule(SvdModule *m, const char *zDir, char *zErr, int nErr, int *pSeen){
  char zPath[SVD_PATH_MAX];
  void *h;
  const MlSvdBackend *p;
  sqlite3_snprintf(sizeof(zPath), zPath, "%s/%s", zDir, m->zFile);
  if( access(zPath, F_OK)!=0 ) return ML_SVD_ERROR;
  h = dlopen(zPath, RTLD_NOW | RTLD_LOCAL);
  if( h==0 ){
    if( !(*pSeen)++ ) sqlite3_snprintf(nErr, zErr, "cannot load the %s back end: %s", m->zDevice, dlerror());
    return ML_SVD_ERROR;
  }
  p = (const MlSvdBackend*)dlsym(h, ML_SVD_BACKEND_SYMBOL);
  if( p==0 || p->iVersion!=ML_SVD_BACKEND_VERSION ){
    if( !(*pSeen)++ ){
      sqlite3_snprintf(nErr, zErr, "cannot load the %s back end: %s is not a back end of this mleval "
                       "(interface %d, want %d)", m->zDevice, zPath, p ? p->iVersion : -1,
                       ML_SVD_BACKEND_VERSION);
    }
    dlclose(h);
    return ML_SVD_ERROR;
  }
  if( p->zDevice==0 || strcmp(p->zDevice, m->zDevice)!=0 ){
    if( !(*pSeen)++ ){
      sqlite3_snprintf(nErr, zErr, "cannot load the %s back end: %s is the %s back end, not the %s one",
                       m->zDevice, zPath, p->zDevice ? p->zDevice : "unnamed", m->zDevice);
    }
    dlclose(h);
    return ML_SVD_ERROR;
  }
  memcpy(m->zPath, zPath, sizeof(zPath));
  m->p = p;
  return ML_SVD_OK;
}

/* Loads module iModule once, from the directories of rule 3 in order;
** NULL with the reason in zErr. */
static const MlSvdBackend *svdBackend(int iModule, char *zErr, int nErr){
  SvdModule *m = &aModule[iModule];
  sqlite3_mutex *mx = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
  const MlSvdBackend *p;
  sqlite3_mutex_enter(mx);
  if( m->p==0 && m->built ){
    char zInstalled[sizeof(zLibDir) + 8];
    const char *azDir[4];
    int i, nDir = 0, seen = 0;
    sqlite3_snprintf(sizeof(zInstalled), zInstalled, "%s/mleval", zLibDir);
    if( zBackendDir ) azDir[nDir++] = zBackendDir;
    if( zLibDir[0] ){ azDir[nDir++] = zInstalled; azDir[nDir++] = zLibDir; }
    azDir[nDir++] = MLEVAL_PKGLIBDIR;
    sqlite3_snprintf(nErr, zErr, "cannot load the %s back end: %s not found in", m->zDevice, m->zFile);
    for(i=0; i<nDir; i++){
      int n = (int)strlen(zErr);
      sqlite3_snprintf(nErr - n, zErr + n, "%s %s", i ? "," : "", azDir[i]);
    }
    for(i=0; i<nDir && tryModule(m, azDir[i], zErr, nErr, &seen); i++){}
  }else if( !m->built ){
    sqlite3_snprintf(nErr, zErr, "%s", iModule==SVD_BACKEND_CPU
      ? "this build has no CPU back end (LAPACKE); install liblapacke-dev libopenblas-dev and reconfigure"
      : "this build has no CUDA support; configure --with-cuda");
  }
  p = m->p;
  sqlite3_mutex_leave(mx);
  return p;
}

void ml_svd_backends_json(MlJson *j){
  int i;
  ml_json_begin_object(j);
  for(i=0; i<(int)(sizeof(aModule)/sizeof(aModule[0])); i++){
    char zErr[512] = "";
    int loads = svdBackend(i, zErr, sizeof(zErr))!=0;
    ml_json_key(j, aModule[i].zDevice);
    ml_json_begin_object(j);
    ml_json_key(j, "built"); ml_json_bool(j, aModule[i].built);
    ml_json_key(j, "loads"); ml_json_bool(j, loads);
    if( loads ){
      ml_json_key(j, "path"); ml_json_string(j, aModule[i].zPath);
    }else if( aModule[i].built ){
      ml_json_key(j, "error"); ml_json_string(j, zErr);
    }
    ml_json_end_object(j);
  }
  ml_json_end_object(j);
}

/* ------------------------------------------------------------ the table */

typedef struct SvdRow {
  char driver[48];
  double ms_mean, ms_min, ms_median, ms_max, sv_rel, sv_corr, recon;
} SvdRow;

typedef struct SvdVtab {
  sqlite3_vtab base;
  sqlite3 *db;                  /* for ml_interrupted() */
} SvdVtab;

typedef struct SvdCursor {
  sqlite3_vtab_cursor base;
  int iRow;                     /* 0..2, nRow = EOF */
  int nRow;
  MlSvdSpec spec;
  int cuda;
  sqlite3_value *aArg[A_COUNT]; /* the arguments as given (copies), NULL when left out */
  SvdRow row[ML_SVD_NMETHOD];
} SvdCursor;

/* xConnect: one schema, from SVD_COLUMNS and SVD_ARGUMENTS. */
static int svdConnect(sqlite3 *db, void *pAux, int argc, const char *const*argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  SvdVtab *p;
  char *zSchema = sqlite3_mprintf("CREATE TABLE x(%s", azColDecl[0]);
  int i, rc;
  (void)pAux; (void)argc; (void)argv; (void)pzErr;
  for(i=1; zSchema && i<C_ARG0; i++) zSchema = sqlite3_mprintf("%z, %s", zSchema, azColDecl[i]);
  for(i=0; zSchema && i<A_COUNT; i++) zSchema = sqlite3_mprintf("%z, arg_%s HIDDEN", zSchema, azArg[i]);
  if( zSchema ) zSchema = sqlite3_mprintf("%z)", zSchema);
  if( zSchema==0 ) return SQLITE_NOMEM;
  rc = sqlite3_declare_vtab(db, zSchema);
  sqlite3_free(zSchema);
  if( rc!=SQLITE_OK ) return rc;
  p = ml_malloc(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
#ifdef SQLITE_VTAB_DIRECTONLY
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
#endif
  *ppVtab = &p->base;
  return SQLITE_OK;
}

/* xDisconnect */
static int svdDisconnect(sqlite3_vtab *pVtab){
  ml_free(pVtab);
  return SQLITE_OK;
}

/* xOpen */
static int svdOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor){
  SvdCursor *c = ml_malloc(sizeof(*c));
  (void)pVtab;
  if( c==0 ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  *ppCursor = &c->base;
  return SQLITE_OK;
}

/* Frees the cursor's copies of the arguments. */
static void svdClearArgs(SvdCursor *c){
  int i;
  for(i=0; i<A_COUNT; i++){ sqlite3_value_free(c->aArg[i]); c->aArg[i] = 0; }
}

/* xClose */
static int svdClose(sqlite3_vtab_cursor *cur){
  svdClearArgs((SvdCursor*)cur);
  ml_free(cur);
  return SQLITE_OK;
}

/*
** xBestIndex.  Every argument is an equality constraint on its hidden
** column.  idxNum has bit i set when argument i (SVD_ARGUMENTS order) is
** given; xFilter's argv holds the given arguments in that bit order.
** A plan in which a constraint on an argument is unusable (its value comes
** from a table the plan has not read yet) is refused with SQLITE_CONSTRAINT,
** so that the planner puts that table first.  rows and cols are required:
** without them the statement fails with a message.
*/
static int svdBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info){
  int i, idxNum = 0, unusable = 0, aIdx[A_COUNT], n = 0;
  for(i=0; i<A_COUNT; i++) aIdx[i] = -1;
  for(i=0; i<info->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int a = c->iColumn - C_ARG0;
    if( a<0 || a>=A_COUNT ) continue;
    if( !c->usable ){ unusable |= 1<<a; continue; }
    if( c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    idxNum |= 1<<a;
    aIdx[a] = i;
  }
  if( unusable & ~idxNum ) return SQLITE_CONSTRAINT;
  if( (idxNum & SVD_REQUIRED)!=SVD_REQUIRED ){
    char *z = sqlite3_mprintf("svd_bench(): rows and cols are required: svd_bench(");
    for(i=0; z && i<A_COUNT; i++){
      int opt = (SVD_REQUIRED & (1<<i))==0, first = opt && i>0 && (SVD_REQUIRED & (1<<(i-1)));
      z = sqlite3_mprintf("%z%s%s%s", z, first ? " [" : "", i ? ", " : "", azArg[i]);
    }
    if( z ) z = sqlite3_mprintf("%z])", z);
    sqlite3_free(tab->zErrMsg);
    tab->zErrMsg = z;
    return z ? SQLITE_ERROR : SQLITE_NOMEM;
  }
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
  return c->base.pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* An integer argument in lo..hi. */
static int argInt(SvdCursor *c, int a, sqlite3_int64 lo, sqlite3_int64 hi, sqlite3_int64 *out){
  sqlite3_value *v = c->aArg[a];
  ml_i64 i;
  char *z;
  int rc;
  if( ml_value_integer(v, lo, hi, &i) ){ *out = i; return SQLITE_OK; }
  z = ml_describe(v);
  rc = z ? svdError(c, "%s must be an integer in %lld..%lld, got %s", azArg[a], lo, hi, z) : SQLITE_NOMEM;
  sqlite3_free(z);
  return rc;
}

/* A text argument among two choices (case-insensitive); *out is its index. */
static int argChoice(SvdCursor *c, int a, const char *const*az, int *out){
  sqlite3_value *v = c->aArg[a];
  const char *z = sqlite3_value_type(v)==SQLITE_TEXT ? (const char*)sqlite3_value_text(v) : 0;
  char *zv;
  int i, rc;
  for(i=0; z && i<2; i++){
    if( strcasecmp(z, az[i])==0 ){ *out = i; return SQLITE_OK; }
  }
  zv = ml_describe(v);
  rc = zv ? svdError(c, "%s must be '%s' or '%s', got %s", azArg[a], az[0], az[1], zv) : SQLITE_NOMEM;
  sqlite3_free(zv);
  return rc;
}

/* Keeps copies of the given arguments (idxNum, argv: see xBestIndex). */
static int svdTakeArgs(SvdCursor *c, int idxNum, int argc, sqlite3_value **argv){
  int a, j = 0;
  svdClearArgs(c);
  for(a=0; a<A_COUNT && j<argc; a++){
    if( (idxNum & (1<<a))==0 ) continue;
    c->aArg[a] = sqlite3_value_dup(argv[j++]);
    if( c->aArg[a]==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* Parse: the arguments into c->spec and c->cuda (rule 1). */
static int svdParse(SvdCursor *c){
  MlSvdSpec *sp = &c->spec;
  sqlite3_int64 v;
  int rc, mn;
  memset(sp, 0, sizeof(*sp));
  sp->warmup = 5; sp->iters = 20; c->cuda = 0;
  if( (rc = argInt(c, A_ROWS, 1, SVD_MAX_DIM, &v)) ) return rc;
  sp->rows = (int)v;
  if( (rc = argInt(c, A_COLS, 1, SVD_MAX_DIM, &v)) ) return rc;
  sp->cols = (int)v;
  if( (sqlite3_int64)sp->rows * sp->cols > SVD_MAX_CELLS ){
    return svdError(c, "rows x cols must be at most %d, got %d x %d", SVD_MAX_CELLS, sp->rows, sp->cols);
  }
  mn = sp->rows < sp->cols ? sp->rows : sp->cols;
  sp->rank = mn;
  if( c->aArg[A_RANK] && sqlite3_value_type(c->aArg[A_RANK])!=SQLITE_NULL ){
    if( (rc = argInt(c, A_RANK, 1, mn, &v)) ) return rc;
    sp->rank = (int)v;
  }
  if( c->aArg[A_WARMUP] ){ if( (rc = argInt(c, A_WARMUP, 0, 1000, &v)) ) return rc; sp->warmup = (int)v; }
  if( c->aArg[A_ITERS] ){ if( (rc = argInt(c, A_ITERS, 1, 10000, &v)) ) return rc; sp->iters = (int)v; }
  if( c->aArg[A_DEVICE] && (rc = argChoice(c, A_DEVICE, azDevice, &c->cuda)) ) return rc;
  if( c->aArg[A_DTYPE] && (rc = argChoice(c, A_DTYPE, azDtype, &sp->f32)) ) return rc;
  if( c->aArg[A_SEED] ){
    if( (rc = argInt(c, A_SEED, 0, ((sqlite3_int64)1<<48) - 1, &v)) ) return rc;
    sp->seed = (uint64_t)v;
  }
  if( c->aArg[A_SPECTRUM] && (rc = argChoice(c, A_SPECTRUM, azSpectrum, &sp->decay)) ) return rc;
  return SQLITE_OK;
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

/* Emit: the back end's timings and values as the three result rows. */
static void svdSummarise(SvdCursor *c, MlSvdRun run[ML_SVD_NMETHOD]){
  const MlSvdSpec *sp = &c->spec;
  int i, j;
  for(i=0; i<ML_SVD_NMETHOD; i++){
    SvdRow *r = &c->row[i];
    double sum = 0, lo, hi;
    memcpy(r->driver, run[i].driver, sizeof(r->driver));
    if( isnan(run[i].ms[0]) ){
      /* a method the back end could not run (CUDA's gesvdr at full rank):
      ** its row is there, its values NULL, its driver column says why */
      r->ms_mean = r->ms_min = r->ms_median = r->ms_max = r->sv_rel = r->sv_corr = r->recon = NAN;
      continue;
    }
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

/* The spec's interrupt test: the connection's interrupt flag. */
static int svdInterrupted(void *db){
  return ml_interrupted((sqlite3*)db);
}

/* Run: loads the back ends, builds the matrix, times the methods (rule 6
** maps the back end's codes to SQLite's). */
static int svdRun(SvdCursor *c){
  MlSvdSpec *sp = &c->spec;
  const MlSvdBackend *cpu, *dev;
  MlSvdRun run[ML_SVD_NMETHOD];
  double *A, *mem;
  char zErr[512] = "";
  int i, rc;
  cpu = dev = svdBackend(SVD_BACKEND_CPU, zErr, sizeof(zErr));
  if( cpu && c->cuda ) dev = svdBackend(SVD_BACKEND_CUDA, zErr, sizeof(zErr));
  if( dev==0 ) return svdError(c, "%s", zErr);
  sp->xMalloc = ml_malloc;
  sp->xFree = ml_free;
  sp->xInterrupted = svdInterrupted;
  sp->pInterruptArg = ((SvdVtab*)c->base.pVtab)->db;
  A = ml_malloc(sizeof(double)*(uint64_t)sp->rows*sp->cols);
  mem = ml_malloc(sizeof(double)*(uint64_t)ML_SVD_NMETHOD*(sp->iters + sp->rank));
  rc = (A && mem) ? cpu->xMatrix(sp, A, zErr, sizeof(zErr)) : ML_SVD_NOMEM;
  for(i=0; rc==ML_SVD_OK && i<ML_SVD_NMETHOD; i++){
    memset(&run[i], 0, sizeof(run[i]));
    run[i].ms = mem + (size_t)i*(sp->iters + sp->rank);
    run[i].S = run[i].ms + sp->iters;
    run[i].recon_rel_error = NAN;
  }
  if( rc==ML_SVD_OK ) rc = dev->xRun(sp, A, run, zErr, sizeof(zErr));
  if( rc==ML_SVD_OK ) svdSummarise(c, run);
  ml_free(A);
  ml_free(mem);
  switch( rc ){
    case ML_SVD_OK:        return SQLITE_OK;
    case ML_SVD_NOMEM:     return SQLITE_NOMEM;
    case ML_SVD_INTERRUPT: return SQLITE_INTERRUPT;
    default:               return svdError(c, "%s", zErr);   /* ML_SVD_ERROR, ML_SVD_ABSENT */
  }
}

/* xFilter: parse the arguments, run the methods; the rows are then read. */
static int svdFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  SvdCursor *c = (SvdCursor*)cur;
  int rc;
  (void)idxStr;
  c->iRow = c->nRow = 0;
  rc = svdTakeArgs(c, idxNum, argc, argv);
  if( rc==SQLITE_OK && (c->aArg[A_ROWS]==0 || c->aArg[A_COLS]==0) ){
    rc = svdError(c, "rows and cols are required");
  }
  if( rc==SQLITE_OK ) rc = svdParse(c);
  if( rc==SQLITE_OK ) rc = svdRun(c);
  return rc;
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

/* A hidden column: the argument as given, or the value used in its place. */
static void svdArgColumn(SvdCursor *c, sqlite3_context *ctx, int a){
  const MlSvdSpec *sp = &c->spec;
  if( c->aArg[a] ){ sqlite3_result_value(ctx, c->aArg[a]); return; }
  switch( a ){
    case A_RANK:     sqlite3_result_int(ctx, sp->rank); break;
    case A_WARMUP:   sqlite3_result_int(ctx, sp->warmup); break;
    case A_ITERS:    sqlite3_result_int(ctx, sp->iters); break;
    case A_DEVICE:   sqlite3_result_text(ctx, azDevice[c->cuda], -1, SQLITE_STATIC); break;
    case A_DTYPE:    sqlite3_result_text(ctx, azDtype[sp->f32], -1, SQLITE_STATIC); break;
    case A_SEED:     sqlite3_result_int64(ctx, (sqlite3_int64)sp->seed); break;
    case A_SPECTRUM: sqlite3_result_text(ctx, azSpectrum[sp->decay], -1, SQLITE_STATIC); break;
    default:         sqlite3_result_null(ctx); break;   /* rows, cols: always given */
  }
}

/* xColumn */
static int svdColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  SvdCursor *c = (SvdCursor*)cur;
  const SvdRow *r = &c->row[c->iRow];
  const MlSvdSpec *sp = &c->spec;
  switch( i ){
    case C_METHOD:    sqlite3_result_text(ctx, azMethod[c->iRow], -1, SQLITE_STATIC); break;
    case C_DEVICE:    sqlite3_result_text(ctx, azDevice[c->cuda], -1, SQLITE_STATIC); break;
    case C_DRIVER:    sqlite3_result_text(ctx, r->driver, -1, SQLITE_TRANSIENT); break;
    case C_DTYPE:     sqlite3_result_text(ctx, azDtype[sp->f32], -1, SQLITE_STATIC); break;
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
    default:          svdArgColumn(c, ctx, i - C_ARG0); break;
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
  .xBestIndex  = svdBestIndex,    /* maps the arguments to argv, refuses unusable ones */
  .xDisconnect = svdDisconnect,
  .xDestroy    = 0,
  .xOpen       = svdOpen,
  .xClose      = svdClose,
  .xFilter     = svdFilter,       /* parses, builds the matrix, runs the methods */
  .xNext       = svdNext,
  .xEof        = svdEof,
  .xColumn     = svdColumn,       /* result columns, then the arguments */
  .xRowid      = svdRowid,
};

int ml_register_svd_bench(sqlite3 *db){
  svdFindLibDir();
  return sqlite3_create_module(db, "svd_bench", &svdModule, 0);
}
