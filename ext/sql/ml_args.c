/*
** SPDX-License-Identifier: MIT
**
** ml_args.c -- argument checks and results shared by every metric family.
**
** Rules (SPEC "Rules every function follows"):
**   1. A NULL label, score, probability or stratifier skips the row.
**   2. Labels: INTEGER, or a REAL with an integral value, in 0..maxLabel.
**      Anything else (2, -1, 0.5, text, blob) is an error.
**   3. Scores: INTEGER or REAL; text and blob are errors.  Probabilities
**      must also lie in [0, 1].
**   3a. Text that SQLite reads in full as a number (what
**      sqlite3_value_numeric_type converts: '1', ' 0.5 ', '1e3') counts as
**      that number everywhere a number is expected, labels and parameters
**      included, so tables made by the shell's .import --csv work as they
**      are.  Other text ('yes', '1x') stays an error.
**   4. Parameters must be valid and the same in every row of a group; NULL
**      is an error.  A text parameter (criterion, strategy) is one of a
**      fixed list of words, compared case-insensitively.
**   5. Every message starts with "fn(): ", names the argument and what was
**      expected, and shows the bad value.
**   6. A NULL result for an undefined metric logs SQLITE_WARNING with the
**      function's name and the reason.
*/
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

void ml_error(sqlite3_context *ctx, const char *fn, const char *fmt, ...){
  va_list ap;
  char *zMsg, *zFull;
  va_start(ap, fmt);
  zMsg = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  zFull = zMsg ? sqlite3_mprintf("%s(): %s", fn, zMsg) : 0;
  if( zFull ) sqlite3_result_error(ctx, zFull, -1);
  else sqlite3_result_error_nomem(ctx);
  sqlite3_free(zMsg);
  sqlite3_free(zFull);
}

void ml_result_null(sqlite3_context *ctx, const char *fn, const char *fmt, ...){
  va_list ap;
  char *zMsg;
  va_start(ap, fmt);
  zMsg = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  /* no warning for a statement being abandoned: its result is never seen */
  if( !ml_interrupted(sqlite3_context_db_handle(ctx)) ){
    sqlite3_log(SQLITE_WARNING, "%s(): %s; result is NULL", fn, zMsg ? zMsg : "undefined");
  }
  sqlite3_free(zMsg);
  sqlite3_result_null(ctx);
}

/* Every function is registered with its MlFuncDesc as user data, which
** names it in the length error. */
void ml_result_json(sqlite3_context *ctx, MlJson *j){
  size_t n;
  char *z = ml_json_finish(j, &n);
  int lim;
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return; }
  lim = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
  if( n > (size_t)lim ){
    const MlFuncDesc *d = sqlite3_user_data(ctx);
    ml_error(ctx, d ? d->name : "mleval",
             "the JSON result is %llu bytes, longer than SQLITE_LIMIT_LENGTH (%d)",
             (unsigned long long)n, lim);
    ml_free(z);
    return;
  }
  sqlite3_result_text64(ctx, z, n, sqlite3_free, SQLITE_UTF8);
  sqlite3_result_subtype(ctx, 'J');
}

void ml_boot_json_interval(MlJson *j, const MlBootInterval *iv, int withEstimate){
  if( withEstimate ){ ml_json_key(j, "estimate"); ml_json_double(j, iv->estimate); }
  ml_json_key(j, "lo"); ml_json_double(j, iv->lo);
  ml_json_key(j, "hi"); ml_json_double(j, iv->hi);
  ml_json_key(j, "se"); ml_json_double(j, iv->se);
}

void ml_boot_json_percentile(MlJson *j, const MlBootInterval *iv){
  ml_json_key(j, "percentile");
  ml_json_begin_array(j);
  ml_json_double(j, iv->plo);
  ml_json_double(j, iv->phi);
  ml_json_end_array(j);
}

void ml_boot_json_run(MlJson *j, double level, ml_i64 reps, ml_i64 seed, ml_i64 redrawn, ml_i64 n){
  ml_json_key(j, "level");   ml_json_double(j, level);
  ml_json_key(j, "reps");    ml_json_int(j, reps);
  ml_json_key(j, "seed");    ml_json_int(j, seed);
  ml_json_key(j, "method");  ml_json_string(j, "bca");
  ml_json_key(j, "redrawn"); ml_json_int(j, redrawn);
  ml_json_key(j, "n");       ml_json_int(j, n);
}

void ml_result_boot_failed(sqlite3_context *ctx, const char *fn, int rc, const char *zUndefined){
  switch( rc ){
    case ML_NOMEM:          sqlite3_result_error_nomem(ctx); break;
    case ML_BOOT_STOPPED:   ml_result_interrupted(ctx); break;
    case ML_BOOT_UNDEFINED: ml_result_null(ctx, fn, "%s", zUndefined); break;
    default:
      ml_result_null(ctx, fn, "more than %d redraws for one replicate (the metric is undefined on most resamples)",
                     ML_BOOT_MAX_REDRAW);
      break;
  }
}

const char *ml_num(char *buf, double d){
  if( isinf(d) ) memcpy(buf, d>0 ? "Inf" : "-Inf", d>0 ? 4 : 5);
  else if( isnan(d) ) memcpy(buf, "NaN", 4);
  else ml_format_double(buf, d);
  return buf;
}

/* A REAL shows a decimal point or an exponent (2.0, not 2), so that it
** reads apart from the INTEGER 2; text is cut at 40 characters (the '!'
** flag counts characters, not bytes: no UTF-8 sequence is split). */
char *ml_describe(sqlite3_value *v){
  switch( sqlite3_value_type(v) ){
    case SQLITE_INTEGER: return sqlite3_mprintf("%lld", sqlite3_value_int64(v));
    case SQLITE_FLOAT: {
      char z[32];
      ml_num(z, sqlite3_value_double(v));
      return sqlite3_mprintf("%s%s", z, strpbrk(z, ".eIN") ? "" : ".0");
    }
    case SQLITE_TEXT:    return sqlite3_mprintf("text '%!.40q'", (const char*)sqlite3_value_text(v));
    case SQLITE_BLOB:    return sqlite3_mprintf("a blob");
    default:             return sqlite3_mprintf("NULL");
  }
}

/* Sets "fn(): <name> must be <what>, got <value>". */
static int bad_value(sqlite3_context *ctx, const char *fn, const char *name,
                     const char *what, sqlite3_value *v){
  char *z = ml_describe(v);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
  ml_error(ctx, fn, "%s must be %s, got %s", name, what, z);
  sqlite3_free(z);
  return ML_ROW_ERR;
}

int ml_arg_weight(sqlite3_context *ctx, const char *fn, sqlite3_value *v, double *w){
  int t = sqlite3_value_type(v);
  if( t==SQLITE_FLOAT || t==SQLITE_INTEGER || (t==SQLITE_TEXT && (t = ml_value_type(v))!=SQLITE_TEXT) ){
    double d = sqlite3_value_double(v);
    if( d>=0.0 && isfinite(d) ){ *w = d; return ML_ROW_OK; }
  }else if( t==SQLITE_NULL ){
    *w = 0.0;
    return ML_ROW_OK;
  }
  return bad_value(ctx, fn, "w", "a non-negative finite number", v);
}

int ml_value_type(sqlite3_value *v){
  int t = sqlite3_value_type(v);
  return t==SQLITE_TEXT ? sqlite3_value_numeric_type(v) : t;
}

int ml_value_integer(sqlite3_value *v, ml_i64 lo, ml_i64 hi, ml_i64 *out){
  int t = ml_value_type(v);
  if( t==SQLITE_INTEGER ){
    sqlite3_int64 i = sqlite3_value_int64(v);
    if( i<lo || i>hi ) return 0;
    *out = i;
    return 1;
  }
  if( t==SQLITE_FLOAT ){
    double d = sqlite3_value_double(v);
    ml_i64 i;
    /* The cast is defined on [-2^63, 2^63) only, and (double)INT64_MAX
    ** rounds up to 2^63: compare with the powers of two themselves, then
    ** the bounds as integers (NaN fails d==floor(d)). */
    if( d!=floor(d) || d<-9223372036854775808.0 || d>=9223372036854775808.0 ) return 0;
    i = (ml_i64)d;
    if( i<lo || i>hi ) return 0;
    *out = i;
    return 1;
  }
  return 0;
}

/* A state given to a twin (pr_auc_w(st)): the twins read rows only, and
** every state -- weighted (ml_state_w) or not -- goes to the unweighted
** name, which reads both (docs/weights.md).  Says so when that function
** takes states (the twin's family has state hooks and its record is not
** flagged ML_FN_BASE_NO_STATE; makers, ML_FN_BLOB, take none); 0 (nothing
** set) for other values and records.  The twin is its function's name
** with "_w" and the same family, so the record alone says it all. */
int ml_twin_state_error(sqlite3_context *ctx, const MlFuncDesc *d, sqlite3_value *v){
  unsigned kinds;
  int n;
  if( d==0 || !(d->flags & ML_FN_TWIN) || sqlite3_value_type(v)!=SQLITE_BLOB ) return 0;
  if( d->fam==0 || d->fam->state==0 || (d->flags & (ML_FN_BASE_NO_STATE | ML_FN_BLOB)) ) return 0;
  n = (int)strlen(d->name) - 2;
  kinds = d->fam->state->kinds;
  ml_error(ctx, d->name, "takes rows, not a state: %s goes to the unweighted name: %.*s(state%s)",
           (kinds & (1u<<ML_STATE_WEIGHTED)) ? "a state, weighted (ml_state_w) or not,"
             : (kinds & (1u<<ML_STATE_MC_W)) ? "a state, weighted (ml_state_mc_w) or not,"
             : (kinds & (1u<<ML_STATE_SURV_W)) ? "a state, weighted (ml_state_surv_w) or not,"
             : "a state of unweighted rows (ml_state)", n, d->name, d->aParam && d->aParam[0] ? ", ..." : "");
  return 1;
}

int ml_arg_label_named(sqlite3_context *ctx, const char *fn, const char *name, sqlite3_value *v,
                       int maxLabel, int *y){
  ml_i64 i;
  if( ml_value_integer(v, 0, maxLabel<0 ? 2147483647 : maxLabel, &i) ){ *y = (int)i; return ML_ROW_OK; }
  if( sqlite3_value_type(v)==SQLITE_NULL ) return ML_ROW_SKIP;
  if( ml_twin_state_error(ctx, sqlite3_user_data(ctx), v) ) return ML_ROW_ERR;  /* auroc_ci_w(st) */
  if( maxLabel==1 ) return bad_value(ctx, fn, name, "0 or 1", v);
  if( maxLabel<0 ) return bad_value(ctx, fn, name, "an integer in 0..2147483647", v);
  {
    char zWhat[48];
    sqlite3_snprintf(sizeof(zWhat), zWhat, "an integer in 0..%d", maxLabel);
    return bad_value(ctx, fn, name, zWhat, v);
  }
}

int ml_arg_label(sqlite3_context *ctx, const char *fn, sqlite3_value *v, int maxLabel, int *y){
  return ml_arg_label_named(ctx, fn, "y", v, maxLabel, y);
}

int ml_arg_score(sqlite3_context *ctx, const char *fn, const char *name, sqlite3_value *v, double *s){
  switch( ml_value_type(v) ){
    case SQLITE_INTEGER:
    case SQLITE_FLOAT:  *s = sqlite3_value_double(v); return ML_ROW_OK;
    case SQLITE_NULL:   return ML_ROW_SKIP;
    default:            return bad_value(ctx, fn, name, "a number", v);
  }
}

int ml_arg_prob(sqlite3_context *ctx, const char *fn, const char *name, sqlite3_value *v, double *p){
  int t = ml_value_type(v);
  if( t==SQLITE_INTEGER || t==SQLITE_FLOAT ){
    double d = sqlite3_value_double(v);
    if( d>=0.0 && d<=1.0 ){ *p = d; return ML_ROW_OK; }
  }else if( t==SQLITE_NULL ){
    return ML_ROW_SKIP;
  }
  return bad_value(ctx, fn, name, "a probability in [0, 1]", v);
}

int ml_arg_time_event(sqlite3_context *ctx, const char *fn, sqlite3_value **argv, double *time, int *event){
  int t = ml_value_type(argv[0]), rc;
  if( t==SQLITE_INTEGER || t==SQLITE_FLOAT ){
    double d = sqlite3_value_double(argv[0]);
    if( !(d>=0.0 && d<INFINITY) ) return bad_value(ctx, fn, "time", "a non-negative finite number", argv[0]);
    *time = d + 0.0;
  }else if( t==SQLITE_NULL ){
    rc = ml_arg_label_named(ctx, fn, "event", argv[1], 1, event);   /* a bad event still errs */
    return rc==ML_ROW_ERR ? rc : ML_ROW_SKIP;
  }else{
    if( ml_twin_state_error(ctx, sqlite3_user_data(ctx), argv[0]) ) return ML_ROW_ERR;
    return bad_value(ctx, fn, "time", "a non-negative finite number", argv[0]);
  }
  return ml_arg_label_named(ctx, fn, "event", argv[1], 1, event);
}

/* The full check behind the inline ml_arg_binary_row (ml_sql.h). */
int ml_arg_binary_row_checked(sqlite3_context *ctx, const char *fn, sqlite3_value **argv,
                              int isProb, int *y, double *x){
  int t0 = sqlite3_value_type(argv[0]), t1 = sqlite3_value_type(argv[1]);
  int rc;
  /* fn NULL: the caller's name is its registration row (the hot path
  ** leaves the look-up to the rare row that needs a message) */
  if( fn==0 ) fn = ((const MlFuncDesc*)sqlite3_user_data(ctx))->name;
  if( t0==SQLITE_NULL || t1==SQLITE_NULL ) return ML_ROW_SKIP;
  if( t0==SQLITE_INTEGER && (t1==SQLITE_FLOAT || t1==SQLITE_INTEGER) ){
    sqlite3_int64 v = sqlite3_value_int64(argv[0]);
    double d = sqlite3_value_double(argv[1]);
    if( (v & ~(sqlite3_int64)1)==0 && (!isProb || (d>=0.0 && d<=1.0)) ){
      *y = (int)v;
      *x = d;
      return ML_ROW_OK;
    }
  }
  rc = ml_arg_label(ctx, fn, argv[0], 1, y);
  if( rc==ML_ROW_OK ){
    rc = isProb ? ml_arg_prob(ctx, fn, "p", argv[1], x) : ml_arg_score(ctx, fn, "s", argv[1], x);
  }
  return rc;
}

/* ml_add_row (ml_sql.h) when the inline append could not: the buffer must
** grow, or it is kept sorted. */
int ml_add_row_grow(sqlite3_context *ctx, MlSamples *smp, int y, double score, double aux){
  if( ml_samples_add(smp, y, score, aux)==ML_OK ) return ML_OK;
  ml_samples_clear(smp);
  sqlite3_result_error_nomem(ctx);
  return ML_NOMEM;
}

/* "name must be the same ..., got A and then B": numbers as ml_num prints
** them, a choice (azChoice not 0) as its word. */
static void param_conflict(sqlite3_context *ctx, const char *fn, const char *name,
                           const char *const *azChoice, const MlParam *slot){
  char z1[32], z2[32];
  if( azChoice ){
    ml_error(ctx, fn, "%s must be the same in every row of a group, got '%s' and then '%s'",
             name, azChoice[(int)slot->v[0]], azChoice[(int)slot->v[1]]);
  }else{
    ml_error(ctx, fn, "%s must be the same in every row of a group, got %s and then %s",
             name, ml_num(z1, slot->v[0]), ml_num(z2, slot->v[1]));
  }
}

/* Counts this row under its parameter value d: a value held already, a free
** place, or (a third value) the error naming the two held, the first
** disagreement in a group. */
static int param_hold(sqlite3_context *ctx, const char *fn, const char *name,
                      const char *const *azChoice, double d, MlParam *slot){
  int i;
  for(i=0; i<2; i++){
    if( slot->n[i]>0 && slot->v[i]==d ){ slot->n[i]++; return ML_ROW_OK; }
  }
  for(i=0; i<2; i++){
    if( slot->n[i]==0 ){ slot->v[i] = d; slot->n[i] = 1; return ML_ROW_OK; }
  }
  param_conflict(ctx, fn, name, azChoice, slot);
  return ML_ROW_ERR;
}

/* Uncounts one row holding the value d. */
static void param_drop_value(MlParam *slot, double d){
  int i;
  for(i=0; i<2; i++){
    if( slot->n[i]>0 && slot->v[i]==d ){ slot->n[i]--; break; }
  }
  if( slot->n[0]==0 && slot->n[1]>0 ){           /* keep v[0] the older value */
    slot->v[0] = slot->v[1]; slot->n[0] = slot->n[1]; slot->n[1] = 0;
  }
}

void ml_param_drop(MlParam *slot, sqlite3_value *v){
  param_drop_value(slot, sqlite3_value_double(v));
}

int ml_param_check(sqlite3_context *ctx, const char *fn, const char *name, const MlParam *slot){
  if( slot->n[0]>0 && slot->n[1]>0 ){
    param_conflict(ctx, fn, name, 0, slot);
    return ML_ROW_ERR;
  }
  return ML_ROW_OK;
}

const MlParamSpec ml_ps_ql = ML_PARAM_REAL("ql", 0.0, 0, 1.0, 1, "0.25", "0.25");
const MlParamSpec ml_ps_qh = ML_PARAM_REAL("qh", 0.0, 1, 1.0, 0, "0.75", "0.75");
const MlParamSpec ml_ps_gap_threshold = ML_PARAM_REAL("gap_threshold", -INFINITY, 0, INFINITY, 0, "0.05", "0.05");
const MlParamSpec ml_ps_level = ML_PARAM_REAL("level", 0.0, 1, 1.0, 1, "0.95", "0.9");
const MlParamSpec ml_ps_reps = ML_PARAM_INT("reps", 10, 1000000, "1000", "20");
const MlParamSpec ml_ps_seed = ML_PARAM_INT("seed", 0, INT64_MAX, "0", "7");
const MlParamSpec ml_ps_target_fpr = ML_PARAM_REAL("target_fpr", 0.0, 1, 1.0, 1, 0, "0.1");
const MlParamSpec ml_ps_target_spec = ML_PARAM_REAL("target_spec", 0.0, 1, 1.0, 1, 0, "0.9");
const MlParamSpec ml_ps_pt = ML_PARAM_REAL("pt", 0.0, 1, 1.0, 1, 0, "0.2");

int ml_param_real_checked(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, sqlite3_value *v,
                          MlParam *slot, double *out){
  const char *name = ps->name;
  double lo = ps->lo, hi = ps->hi;
  int loOpen = ps->loOpen, hiOpen = ps->hiOpen;
  int t;
  double d;
  t = ml_value_type(v);
  if( t==SQLITE_INTEGER || t==SQLITE_FLOAT ){
    d = sqlite3_value_double(v);
    if( (loOpen ? d>lo : d>=lo) && (hiOpen ? d<hi : d<=hi) ){
      *out = d;
      return param_hold(ctx, fn, name, 0, d, slot);
    }
  }
  {
    char zWhat[96];
    if( isinf(lo) && isinf(hi) ){
      sqlite3_snprintf(sizeof(zWhat), zWhat, "a number");
    }else{
      char z1[32], z2[32];
      sqlite3_snprintf(sizeof(zWhat), zWhat, "a number in %c%s, %s%c",
                       loOpen ? '(' : '[', ml_num(z1, lo), ml_num(z2, hi), hiOpen ? ')' : ']');
    }
    return bad_value(ctx, fn, name, zWhat, v);
  }
}

int ml_param_choice_checked(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, sqlite3_value *v,
                            MlParam *slot, int *out){
  const char *name = ps->name;
  const char *const *azChoice = ps->azChoice;
  const char *z = sqlite3_value_type(v)==SQLITE_TEXT ? (const char*)sqlite3_value_text(v) : 0;
  int i;
  /* the word in any spelling; param_hold counts it under the group's value */
  for(i=0; z && azChoice[i]; i++){
    if( sqlite3_stricmp(z, azChoice[i])!=0 ) continue;
    *out = i;
    return param_hold(ctx, fn, name, azChoice, (double)i, slot);
  }
  {
    char zWhat[160];
    size_t n = 0;
    zWhat[0] = 0;
    for(i=0; azChoice[i]; i++){
      sqlite3_snprintf((int)(sizeof(zWhat)-n), zWhat+n, "%s'%s'", i==0 ? "one of " : ", ", azChoice[i]);
      n += strlen(zWhat+n);
    }
    return bad_value(ctx, fn, name, zWhat, v);
  }
}

void ml_param_choice_drop(MlParam *slot, sqlite3_value *v, const MlParamSpec *ps){
  const char *const *azChoice = ps->azChoice;
  const char *z = (const char*)sqlite3_value_text(v);
  int i;
  for(i=0; z && azChoice[i]; i++){
    if( sqlite3_stricmp(z, azChoice[i])==0 ){ param_drop_value(slot, (double)i); return; }
  }
}

int ml_param_choice_check(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, const MlParam *slot){
  if( slot->n[0]>0 && slot->n[1]>0 ){
    param_conflict(ctx, fn, ps->name, ps->azChoice, slot);
    return ML_ROW_ERR;
  }
  return ML_ROW_OK;
}

int ml_param_int_checked(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, sqlite3_value *v,
                         MlParam *slot, ml_i64 *out){
  const char *name = ps->name;
  ml_i64 lo = ps->ilo, hi = ps->ihi;
  if( ml_value_integer(v, lo, hi, out) ) return param_hold(ctx, fn, name, 0, (double)*out, slot);
  {
    char zWhat[96];
    sqlite3_snprintf(sizeof(zWhat), zWhat, "an integer in %lld..%lld", (long long)lo, (long long)hi);
    return bad_value(ctx, fn, name, zWhat, v);
  }
}

int ml_interrupted(sqlite3 *db){
  sqlite3_stmt *pStmt = 0;
  int rc;
#if SQLITE_VERSION_NUMBER>=3041000
  if( sqlite3_libversion_number()>=3041000 ) return sqlite3_is_interrupted(db);
#endif
  /* Before 3.41 no API reads the interrupt flag.  The tokenizer reads it at
  ** every space token (sqlite3RunParser: "if( tokenType>=TK_SPACE ) ...
  ** isInterrupted"), and the flag stays set while the interrupted
  ** statement runs: preparing one blank compiles nothing, makes no
  ** statement and costs about a microsecond (SELECT 1 prepared and stepped
  ** cost several, and 12 % of pr_auc ... GROUP BY over one-class groups). */
  rc = sqlite3_prepare_v2(db, " ", 1, &pStmt, 0);
  sqlite3_finalize(pStmt);                /* NULL: nothing was made */
  return rc==SQLITE_INTERRUPT;
}

static int stop_check(void *db){ return ml_interrupted((sqlite3*)db); }

/* Set once the first window frame over ML_WINDOW_WARN_ROWS rows has been
** reported (one warning a process: the cost is the query's shape, not its data). */
static int windowWarned = 0;

int ml_compute_begin(sqlite3_context *ctx, int isFinal, ml_i64 nRows){
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  ml_stop_install(0, 0);
  if( nRows < ML_CHECK_ROWS ) return 0;
  if( !isFinal && nRows>ML_WINDOW_WARN_ROWS && !__atomic_load_n(&windowWarned, __ATOMIC_RELAXED)
   && !__atomic_exchange_n(&windowWarned, 1, __ATOMIC_RELAXED) ){
    sqlite3_log(SQLITE_WARNING, "%s(): a window frame of %lld rows: each row's result is computed over its"
                " whole frame, O(rows in frame) a row; a window over daily ml_state rows costs O(entries)"
                " (docs/usage.md, \"What a window costs\"; said once)",
                ((const MlFuncDesc*)sqlite3_user_data(ctx))->name, (long long)nRows);
  }
  if( isFinal && ml_interrupted(db) ) return 1;
  ml_stop_install(stop_check, db);
  return 0;
}

void ml_stop_begin(sqlite3_context *ctx){
  ml_stop_install(stop_check, sqlite3_context_db_handle(ctx));
}

int ml_stop_end(void){
  int stopped = ml_stop_happened();
  ml_stop_install(0, 0);
  return stopped;
}

void ml_result_interrupted(sqlite3_context *ctx){
  /* sqlite3_result_error_code() alone keeps a result already written as the
  ** statement's message (a partial pr_auc once read "0.316093247034951"):
  ** the text goes first, then the code */
  sqlite3_result_error(ctx, sqlite3_errstr(SQLITE_INTERRUPT), -1);
  sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
}

int ml_compute_end(sqlite3_context *ctx){
  int stopped = ml_stop_happened();
  ml_stop_install(0, 0);
  if( stopped ) ml_result_interrupted(ctx);
  return stopped;
}

void ml_arity_error(sqlite3_context *ctx, const MlFuncDesc *d, int argc){
  if( argc<0 ){
    ml_error(ctx, d->name, "expects (%s), got a different number of arguments", d->signature);
  }else{
    ml_error(ctx, d->name, "expects (%s), got %d argument%s", d->signature, argc, argc==1 ? "" : "s");
  }
}

int ml_value_is_array(sqlite3_value *v){
  const unsigned char *z;
  if( sqlite3_value_type(v)!=SQLITE_TEXT || (z = sqlite3_value_text(v))==0 ) return 0;
  while( *z==' ' || *z=='\t' || *z=='\n' || *z=='\r' ) z++;
  return *z=='[';
}

int ml_arg_scores(sqlite3_context *ctx, const char *fn, sqlite3_value **argv, int nArg,
                  int isProb, int kMax, const char *zWide, double *p, int *pk){
  char zName[24];
  const char *zArr = isProb ? "probs" : "scores";
  int i, k, rc;
  if( nArg==1 ){                                   /* the JSON form */
    const char *z;
    char zErr[96];
    int t = sqlite3_value_type(argv[0]);
    if( t==SQLITE_NULL ) return ML_ROW_SKIP;
    z = t==SQLITE_TEXT ? (const char*)sqlite3_value_text(argv[0]) : 0;
    if( t==SQLITE_TEXT && z==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
    rc = z ? ml_json_read_numbers(z, p, kMax, &k, zErr, sizeof(zErr)) : ML_ERROR;
    if( rc==ML_NOMEM ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
    if( rc==ML_OK && k<2 ){
      sqlite3_snprintf(sizeof(zErr), zErr, "%d element%s", k, k==1 ? "" : "s");
      rc = ML_ERROR;
    }
    if( rc!=ML_OK ){
      char *zV = ml_describe(argv[0]);
      if( zV==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
      if( z ) ml_error(ctx, fn, "%s must be a JSON array of 2..%d numbers, got %s (%s)", zArr, kMax, zV, zErr);
      else ml_error(ctx, fn, "%s must be a JSON array of 2..%d numbers, got %s", zArr, kMax, zV);
      sqlite3_free(zV);
      return ML_ROW_ERR;
    }
    for(i=0; i<k; i++){
      if( isnan(p[i]) ) return ML_ROW_SKIP;
      if( isProb && !(p[i]>=0.0 && p[i]<=1.0) ){
        char zNum[32];
        ml_error(ctx, fn, "probs[%d] must be a probability in [0, 1], got %s", i, ml_num(zNum, p[i]));
        return ML_ROW_ERR;
      }
    }
  }else{                                            /* the wide form: k = nArg */
    k = nArg;
    if( k>kMax ){
      ml_error(ctx, fn, "expects at most %d scores, got %d", kMax, k);
      return ML_ROW_ERR;
    }
    for(i=0; i<k; i++){
      int t = sqlite3_value_type(argv[i]);
      if( t==SQLITE_FLOAT || t==SQLITE_INTEGER ){   /* the common case: no name needed */
        p[i] = sqlite3_value_double(argv[i]);
        if( !isProb || (p[i]>=0.0 && p[i]<=1.0) ) continue;
      }else if( t==SQLITE_NULL ){
        return ML_ROW_SKIP;
      }
      sqlite3_snprintf(sizeof(zName), zName, isProb ? "p_%d" : "s_%d", i);
      if( zWide && i==k-1 && t!=SQLITE_NULL ){      /* where a parameter would be: say so */
        char *zV = ml_describe(argv[i]);
        if( zV==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
        rc = isProb ? ml_arg_prob(ctx, fn, zName, argv[i], &p[i]) : ml_arg_score(ctx, fn, zName, argv[i], &p[i]);
        if( rc==ML_ROW_ERR ){
          ml_error(ctx, fn, "%s must be %s, got %s (%s)", zName, isProb ? "a probability in [0, 1]" : "a number",
                   zV, zWide);
        }
        sqlite3_free(zV);
      }else{
        rc = isProb ? ml_arg_prob(ctx, fn, zName, argv[i], &p[i]) : ml_arg_score(ctx, fn, zName, argv[i], &p[i]);
      }
      if( rc!=ML_ROW_OK ) return rc;
    }
  }
  if( isProb ){
    double sum = 0.0;
    if( ml_prob_row_check(p, k, &sum)>=0 ){       /* every value is in [0, 1] here: the sum */
      char zNum[32];
      ml_error(ctx, fn, "the probabilities of a row must sum to 1 (within 1e-6), got %s over %s%s%s%s",
               ml_num(zNum, sum), nArg==1 ? "probs" : "p_0..p_k-1", nArg>1 && zWide ? " (" : "",
               nArg>1 && zWide ? zWide : "", nArg>1 && zWide ? ")" : "");
      return ML_ROW_ERR;
    }
  }
  *pk = k;
  return ML_ROW_OK;
}
