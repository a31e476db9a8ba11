/*
** SPDX-License-Identifier: MIT
**
** ml_state_sql.c -- partial states on the SQL side: every function of a
** family with state hooks takes a state BLOB in place of its data
** arguments, and ml_merge(state) merges states.
**
** SQL functions:
**   ml_merge(state)     agg: the union of the group's states, one state
**   pr_auc(state), ece(state, 15), strat_report(state, 0.25, 0.75),
**   ordinal_auprc(state), ...  every function whose family has MlStateHooks
**   (ml_state(y, s [, strat]) and ml_state_ordinal(y, s_1..s_m) are kinds of
**   the ranking, stratified and ordinal families: ml_result_state below;
**   ml_state_mc(y, p_0..p_k-1) is the multiclass family's, whose functions
**   take the state then the JSON form's parameters: mc_calibration(st, 15).)
**
** Rules:
**   1. A BLOB first argument is a state: it stands for the function's data
**      arguments (y, s / y, p: 2; y, s, strat: 3; ordinal: y and its m
**      scores), the parameters follow it: ece(state, 15).  Any other first
**      argument is a row, handled by the family as before.  Inside a
**      state's own call of the family's step (NULL data, so that the step
**      counts the parameters) a NULL first argument is that row, not a
**      NULL state (StatePending.nested).
**   2. Every state is validated (ml_state_parse) before anything is taken
**      from it; the error names what is wrong: "pr_auc(): state: the state
**      is truncated (...)".  A state of a kind the function cannot read is
**      an error naming both kinds.  Binary functions read binary and
**      stratified states (the stratifier is ignored); stratified functions
**      need a stratifier; ordinal functions an ordinal state.
**   3. A group's states are collected (their own bytes) and merged at once
**      when a result is due: one k-way merge straight into the family's
**      buffers, no re-sort -- but for weighted states, whose records
**      (ml_absorb_weighted) are appended and sorted with the buffer.  A
**      window frame's xInverse removes the state's rows in one linear pass.
**   4. NULL states are skipped, as avg() skips NULLs (ml_state over no rows
**      is NULL, so an empty shard adds nothing).
**   5. ml_merge returns NULL for a group without states.
**
** Cost: a row pays nothing here.  The driver registers the family's own
** xStep at every row count; the step reads argv[0]'s type once for its
** row and compares it (ML_STATE_DIVERT): a BLOB or NULL there comes here
** (ml_state_divert), so a state is recognised in the family's step, once
** per state, and the wrappers below serve only the counts that the state
** form alone has, and every count's xFinal/xValue (the merge, once per
** group).  The family's context carries this file's 64 bytes
** (ml_agg_context), so a row never asks for them.  A state in the group costs its own size until the merge;
** the merge is O(entries log k) for k states plus, for the families that
** keep rows, O(rows) to fill their buffer (8 or 16 bytes per row, as rows
** would; at most one SQLite allocation per class, interruptible every 2^16
** rows); the ranking family's counted runs (ml_absorb_section_counts), the
** calibration sums and confusion counts take O(entries).
*/
#include <stdio.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"


/* The wrapper's own part of the aggregate context, after the family's. */
typedef struct StatePending {
  MlStateAcc acc;
  sqlite3_value *nullv;         /* a NULL for the family's data slots */
  int nested;                   /* inside a state's call of the family's step */
} StatePending;

_Static_assert(sizeof(StatePending) <= ML_STATE_PENDING_BYTES, "ML_STATE_PENDING_BYTES holds StatePending");

/* The wrapper's part, after the family's struct: the family allocates the
** same total (ml_agg_context), so either may come first in a group. */
static StatePending *pending(sqlite3_context *ctx, const MlStateHooks *h, int create){
  char *p = create ? ml_agg_context(ctx, h->szAgg) : sqlite3_aggregate_context(ctx, 0);
  return p ? (StatePending*)(p + ML_AGG_BYTES(h->szAgg) - ML_STATE_PENDING_BYTES) : 0;
}

/* Data arguments a state replaces for this function (ordinal: 1 + m;
** multiclass, nData -1: y and the JSON form's scores). */
static int data_args(const MlFuncDesc *d, const MlState *st){
  if( d->flags & ML_FN_STATE_YS ) return 2;
  if( d->fam->state->nData<0 ) return 2;
  if( d->fam->state->nData>0 ) return d->fam->state->nData;
  return st ? 1 + st->m : 2;
}

int ml_state_arity(const MlFuncDesc *d, int *lo, int *hi){
  int nData;
  if( d->fam==0 || d->fam->state==0 || (d->flags & ML_FN_NO_STATE) ) return 0;
  nData = (d->flags & ML_FN_STATE_YS) ? 2 : d->fam->state->nData;
  if( nData>0 ){ *lo = d->nMin - nData + 1; *hi = d->nMax - nData + 1; }
  else if( nData<0 ){                 /* multiclass: the state, then the parameters */
    int n = 0;
    while( d->aParam && d->aParam[n] ) n++;
    *lo = 1; *hi = 1 + n;
  }else{ *lo = *hi = 1; }
  return 1;
}

/* The signature of the state form: the row signature with its data
** arguments replaced by "state": "y, p [, bins]" -> "state [, bins]". */
void ml_state_signature(const MlFuncDesc *d, char *buf, int nBuf){
  const char *z = d->signature, *br = strstr(z, " ["), *end = z + strlen(z), *rest = z;
  int nData = (d->flags & ML_FN_STATE_YS) ? 2 : d->fam->state->nData, i, afterComma = 0;
  if( nData<=0 ){
    rest = br ? br : end;
  }else{
    for(i=0; i<nData; i++){
      const char *c = strstr(rest, ", ");
      if( c==0 || (br && c>br) ){ rest = br ? br : end; afterComma = 0; break; }
      rest = c + 2;
      afterComma = 1;
    }
  }
  snprintf(buf, (size_t)nBuf, "state%s%s", afterComma ? ", " : "", rest);
}

/* The makers of the kinds in mask, from the kinds' one list
** (ml_state_kinds): "ml_state(y, s), ml_state(y, s, strat) or
** ml_state_w(y, s, w)".  Written into buf (always terminated). */
void ml_state_wanted(char *buf, int nBuf, unsigned kinds){
  const MlStateKind *k;
  int n = 0, i = 0, at = 0;   /* at: bytes written */
  for(k=ml_state_kinds; k->kind; k++) if( kinds & (1u<<k->kind) ) n++;
  buf[0] = 0;
  for(k=ml_state_kinds; k->kind && at>=0 && at<nBuf; k++){
    if( !(kinds & (1u<<k->kind)) ) continue;
    at += snprintf(buf + at, (size_t)(nBuf - at), "%s%s", i==0 ? "" : i==n-1 ? " or " : ", ", k->maker);
    i++;
  }
}

/* Parses argv[0] as a state; ML_ROW_OK or ML_ROW_ERR (error set). */
static int read_state(sqlite3_context *ctx, const MlFuncDesc *d, sqlite3_value *v, MlState *st,
                      const void **pz, int *pn){
  char zErr[200];
  const void *z = sqlite3_value_blob(v);
  int n = sqlite3_value_bytes(v);
  if( z==0 && n>0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
  if( ml_state_parse(z ? z : "", (uint64_t)n, st, zErr, sizeof(zErr)) ){
    ml_error(ctx, d->name, "state: %s", zErr);
    return ML_ROW_ERR;
  }
  if( st->kind==ML_STATE_WEIGHTED && (d->flags & ML_FN_STATE_UNWEIGHTED) ){
    ml_error(ctx, d->name, "takes no weighted state (made by ml_state_w): it has no weighted"
             " definition (docs/weights.md)");
    return ML_ROW_ERR;
  }
  if( d->fam->state && st->kind==ML_STATE_WEIGHTED && (d->fam->state->kinds & (1u<<ML_STATE_BINARY))
   && !(d->fam->state->kinds & (1u<<ML_STATE_WEIGHTED)) ){
    /* the uncertainty family: its bootstrap resamples rows and DeLong
    ** ranks them; a weighted state keeps sums of weights (docs/states.md);
    ** the label-free estimates (expected_*) have no weighted twin */
    if( strcmp(d->fam->name, "uncertainty")==0 ){
      ml_error(ctx, d->name, "takes no weighted state (made by ml_state_w): its interval needs the rows"
               " themselves, and a weighted state keeps only their weights summed; give the rows to %s_w",
               d->name);
    }else{
      ml_error(ctx, d->name, "takes no weighted state (made by ml_state_w): %s has no weighted twin;"
               " give it a state made by ml_state(y, p)", d->name);
    }
    return ML_ROW_ERR;
  }
  if( d->fam->state && !(d->fam->state->kinds & (1u<<st->kind)) ){
    char buf[32], zWant[400];
    const char *zKind = ml_state_kind_name(st, buf, sizeof(buf));
    ml_state_wanted(zWant, sizeof(zWant), d->fam->state->kinds);
    ml_error(ctx, d->name, "expects a state made by %s, got %s %s state", zWant, ml_article(zKind), zKind);
    return ML_ROW_ERR;
  }
  *pz = z; *pn = n;
  return ML_ROW_OK;
}

/* A protected NULL value for the family's data slots, made once per group
** (a copy of SQLite's own static NULL, below); freed by xFinal. */
static sqlite3_value *null_value(StatePending *q){
  /* SQLite's own static NULL -- what sqlite3_column_value() returns for no
  ** statement (columnMem: "if( pVm==0 ) return columnNullValue()") -- made
  ** a protected value of our own.  Nothing is prepared: a prepare on the
  ** statement's connection fails once it is interrupted, and that failure
  ** once read as out of memory (issue 39).  0 only when the copy's
  ** allocation fails. */
  if( q->nullv==0 ) q->nullv = sqlite3_value_dup(sqlite3_column_value(0, 0));
  return q->nullv;
}

/* Sets the error an xAbsorb returned. */
static void absorb_error(sqlite3_context *ctx, const MlFuncDesc *d, int rc, const char *zErr){
  if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
  else if( rc==ML_STOPPED ) ml_result_interrupted(ctx);
  else ml_error(ctx, d->name, "%s", zErr);
}

/* Feeds the collected states to the family and empties the collection.
** ML_OK, or an xAbsorb code with zErr. */
static int flush(sqlite3_context *ctx, const MlFuncDesc *d, StatePending *q, char *zErr, int nErr){
  MlState *st;
  int rc;
  if( q==0 || q->acc.n==0 ) return ML_OK;
  if( ml_acc_states(&q->acc, &st) ){ ml_acc_clear(&q->acc); return ML_NOMEM; }
  /* A state's counts, not its size, set the work of the loops that expand
  ** it: they ask ml_stop_requested every 2^16 rows. */
  ml_stop_begin(ctx);
  rc = d->fam->state->xAbsorb(ctx, st, q->acc.n, +1, zErr, nErr);
  if( ml_stop_end() && rc==ML_OK ) rc = ML_STOPPED;
  ml_free(st);
  ml_acc_clear(&q->acc);
  return rc;
}

/* Calls the family's xStep (inverse 0) or xInverse (1) with NULL in the
** nData data slots and the state call's parameters after them, marked as
** a state's own call (q->nested) so that ML_STATE_DIVERT reads it as a
** row.  argc - 1 + nData is a row count the caller checked.  1 when out of
** memory (the error set). */
static int step_null_data(sqlite3_context *ctx, const MlFuncDesc *d, StatePending *q, int nData,
                          int argc, sqlite3_value **argv, int inverse){
  sqlite3_value *av[ML_MAX_ARGS];
  int i;
  if( null_value(q)==0 ){ sqlite3_result_error_nomem(ctx); return 1; }
  for(i=0; i<nData; i++) av[i] = q->nullv;
  for(i=1; i<argc; i++) av[nData+i-1] = argv[i];
  q->nested = 1;
  if( inverse ) d->fam->xInverse(ctx, argc - 1 + nData, av);
  else d->fam->xStep(ctx, argc - 1 + nData, av);
  q->nested = 0;
  return 0;
}

/* True when argc is a count of the state form (multiclass: 1 + at most
** its parameters). */
static int state_count_ok(const MlFuncDesc *d, int argc){
  int lo, hi;
  return ml_state_arity(d, &lo, &hi) && argc>=lo && argc<=hi;
}

int ml_state_nested(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  StatePending *q;
  if( d==0 || d->fam==0 || d->fam->state==0 || sqlite3_aggregate_context(ctx, 0)==0 ) return 0;
  q = pending(ctx, d->fam->state, 0);
  return q!=0 && q->nested;
}

/* A state BLOB in argv[0] (xStep): validated, its parameters counted by the
** family's own step over NULL data, and collected for the merge. */
static void state_step(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv){
  StatePending *q = pending(ctx, d->fam->state, 1);
  MlState st;
  const void *z;
  int n, nData, argc2, rc;
  char zErr[200];
  if( q==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( read_state(ctx, d, argv[0], &st, &z, &n) ) return;
  nData = data_args(d, &st);
  argc2 = argc - 1 + nData;
  if( argc2<d->nMin || argc2>d->nMax || argc2>ML_MAX_ARGS || (d->fam->state->nData<0 && !state_count_ok(d, argc)) ){
    char sig[160];
    ml_state_signature(d, sig, sizeof(sig));
    ml_error(ctx, d->name, "a state takes (%s), got %d argument%s", sig, argc, argc==1 ? "" : "s");
    return;
  }
  /* The family's own xStep sets up and checks the parameters, then skips
  ** the row: its data are NULL. */
  if( step_null_data(ctx, d, q, nData, argc, argv, 0) ) return;
  rc = ml_acc_add(&q->acc, z, (uint64_t)n, &st, zErr, sizeof(zErr));
  if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
  else if( rc ) ml_error(ctx, d->name, "%s", zErr);
}

/*
** SQL function: any function whose family takes states  -- xStep
*/
void ml_state_xstep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int t = argc>0 ? sqlite3_value_type(argv[0]) : SQLITE_NULL;
  /* A row's argument count goes to the family (the driver registers the
  ** family's step there itself; this is for a caller that does not). */
  if( t!=SQLITE_BLOB && t!=SQLITE_NULL && argc>=d->nMin && argc<=d->nMax ){
    d->fam->xStep(ctx, argc, argv);
    return;
  }
  if( t!=SQLITE_BLOB ){
    int lo, hi;
    ml_state_arity(d, &lo, &hi);
    /* A NULL where a state may stand is a NULL state: skipped whole, its
    ** parameters unread (a row with a NULL label would be skipped too). */
    if( argc>=lo && argc<=hi && argc>0 && t==SQLITE_NULL ) return;
    if( argc<d->nMin || argc>d->nMax ){
      /* one argument is only ever a state: say a state was expected */
      if( argc==1 && lo==1 ){
        char *zv = ml_describe(argv[0]), zWant[400];
        if( zv==0 ){ sqlite3_result_error_nomem(ctx); return; }
        ml_state_wanted(zWant, sizeof(zWant), d->fam->state->kinds);
        ml_error(ctx, d->name, "state must be a BLOB made by %s, got %s", zWant, zv);
        sqlite3_free(zv);
        return;
      }
      ml_arity_error(ctx, d, argc);
      return;
    }
    d->fam->xStep(ctx, argc, argv);
    return;
  }
  state_step(ctx, d, argc, argv);
}

/* A state BLOB in argv[0] (xInverse): the collected states are merged
** first, then this one's rows removed, then the family's own xInverse over
** the same NULL data its xStep saw, so that the parameters this state's row
** held are released (MlParam counts the rows holding each value). */
static void state_inverse(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv){
  const MlStateHooks *h = d->fam->state;
  StatePending *q;
  MlState st;
  const void *z;
  char zErr[200];
  int n, rc, nData, argc2;
  rc = flush(ctx, d, pending(ctx, h, 0), zErr, sizeof(zErr));
  if( rc ){ absorb_error(ctx, d, rc, zErr); return; }
  if( read_state(ctx, d, argv[0], &st, &z, &n) ) return;
  ml_stop_begin(ctx);
  rc = h->xAbsorb(ctx, &st, 1, -1, zErr, sizeof(zErr));
  if( ml_stop_end() && rc==ML_OK ) rc = ML_STOPPED;
  if( rc ){ absorb_error(ctx, d, rc, zErr); return; }
  q = pending(ctx, h, 0);
  nData = data_args(d, &st);
  argc2 = argc - 1 + nData;
  if( q==0 || argc2<d->nMin || argc2>d->nMax || argc2>ML_MAX_ARGS ) return;
  step_null_data(ctx, d, q, nData, argc, argv, 1);
}

void ml_state_xinverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int t = argc>0 ? sqlite3_value_type(argv[0]) : SQLITE_NULL;
  if( t!=SQLITE_BLOB && t!=SQLITE_NULL && argc>=d->nMin && argc<=d->nMax ){
    d->fam->xInverse(ctx, argc, argv);              /* the row path, as xStep's */
    return;
  }
  if( t!=SQLITE_BLOB ){
    int lo, hi;
    ml_state_arity(d, &lo, &hi);
    if( argc>=lo && argc<=hi && argc>0 && t==SQLITE_NULL ) return;
    if( argc>=d->nMin && argc<=d->nMax ) d->fam->xInverse(ctx, argc, argv);   /* as xStep took it */
    return;
  }
  state_inverse(ctx, d, argc, argv);
}

int ml_state_divert(sqlite3_context *ctx, int argc, sqlite3_value **argv, int t0, int inverse){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int lo, hi;
  if( !ml_state_arity(d, &lo, &hi) ) return 0;
  if( t0==SQLITE_NULL ){
    StatePending *q;
    if( argc<lo || argc>hi ) return 0;     /* a row with a NULL label */
    /* a NULL state, skipped whole -- unless this is a state's own call of
    ** the step, whose NULL data stand for the state's rows */
    q = pending(ctx, d->fam->state, 0);
    return q==0 || !q->nested;
  }
  if( inverse ) state_inverse(ctx, d, argc, argv);
  else state_step(ctx, d, argc, argv);
  return 1;
}

/* Reads v, argument `name` of fn (st_a, st_ref, st, ...), as a state of
** one of the kinds in mask: ML_ROW_OK, ML_ROW_SKIP (NULL) or ML_ROW_ERR
** (error set: not a BLOB, not a valid state, or a kind outside mask,
** refused by name).  The explicit state forms' reader (two-state forms,
** group_disparity's st), beside the one-state form's (ml_state_divert);
** mask is the family's formKinds, so a kind added to ml_state_kinds is
** refused here until a family says it reads it. */
int ml_state_arg(sqlite3_context *ctx, const char *fn, sqlite3_value *v, const char *name,
                 unsigned kinds, MlState *st){
  char zErr[200], zWant[400];
  const void *z;
  int n;
  if( sqlite3_value_type(v)==SQLITE_NULL ) return ML_ROW_SKIP;
  ml_state_wanted(zWant, sizeof(zWant), kinds);
  if( sqlite3_value_type(v)!=SQLITE_BLOB ){
    char *zv = ml_describe(v);
    if( zv==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
    ml_error(ctx, fn, "%s must be a state made by %s, got %s", name, zWant, zv);
    sqlite3_free(zv);
    return ML_ROW_ERR;
  }
  z = sqlite3_value_blob(v);
  n = sqlite3_value_bytes(v);
  if( z==0 && n>0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
  if( ml_state_parse(z ? z : "", (uint64_t)n, st, zErr, sizeof(zErr)) ){
    ml_error(ctx, fn, "%s: %s", name, zErr);
    return ML_ROW_ERR;
  }
  if( !(kinds & (1u<<st->kind)) ){
    char buf[32];
    const char *zKind = ml_state_kind_name(st, buf, sizeof(buf));
    ml_error(ctx, fn, "%s must be a state made by %s, got %s %s state", name, zWant, ml_article(zKind), zKind);
    return ML_ROW_ERR;
  }
  return ML_ROW_OK;
}

unsigned ml_form_kinds(const MlFuncDesc *d){
  unsigned k = d->fam ? d->fam->formKinds : 0;
  return d->fam && d->fam->xStepW && !(d->flags & ML_FN_WEIGHTED) ? k & ~(1u<<ML_STATE_DIST_W) : k;
}

void ml_state_xvalue(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  char zErr[200];
  int rc = flush(ctx, d, pending(ctx, d->fam->state, 0), zErr, sizeof(zErr));
  if( rc ){ absorb_error(ctx, d, rc, zErr); return; }
  d->fam->xValue(ctx);
}

void ml_state_xfinal(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  StatePending *q = pending(ctx, d->fam->state, 0);
  char zErr[200];
  int rc;
  if( q ){ sqlite3_value_free(q->nullv); q->nullv = 0; }
  rc = flush(ctx, d, q, zErr, sizeof(zErr));
  if( q ) ml_acc_clear(&q->acc);        /* an empty one may still hold its array */
  d->fam->xFinal(ctx);                  /* frees the family's buffers */
  if( rc ) absorb_error(ctx, d, rc, zErr);
}

int ml_state_probability_range(double lo, double hi, char *zErr, int nErr){
  if( lo<0.0 || hi>1.0 ){
    sqlite3_snprintf(nErr, zErr, "p must be a probability in [0, 1], got %!.15g in a state", lo<0.0 ? lo : hi);
    return ML_ERROR;
  }
  return ML_OK;
}

int ml_state_probabilities(const MlState *st, int n, char *zErr, int nErr){
  int j;
  for(j=0; j<n; j++){
    double lo, hi;
    if( st[j].sec[0].nEntry==0 ) continue;
    ml_section_range(&st[j].sec[0], &lo, &hi);
    if( ml_state_probability_range(lo, hi, zErr, nErr) ) return ML_ERROR;
  }
  return ML_OK;
}

void ml_result_state(sqlite3_context *ctx, MlSamples *const *smp, int nSmp, int kind){
  MlBuf b;
  if( ml_state_encode(smp, nSmp, kind, &b) ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_blob64(ctx, b.z, b.n, sqlite3_free);
}

/* ---------------------------------------------------------------- merge */

typedef struct MergeAgg { MlStateAcc acc; } MergeAgg;

/*
** SQL function: ml_merge(state)
** The union of the group's states as one state (a k-way merge of sorted
** runs); NULL states are skipped; NULL when the group has none.
*/
static void ml_merge_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  MergeAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  MlState st;
  char zErr[200];
  const void *z;
  int n, rc;
  (void)argc;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( sqlite3_value_type(argv[0])==SQLITE_NULL ) return;
  if( sqlite3_value_type(argv[0])!=SQLITE_BLOB ){
    char *zv = ml_describe(argv[0]);
    if( zv==0 ){ sqlite3_result_error_nomem(ctx); return; }
    ml_error(ctx, "ml_merge", "state must be a state made by ml_state(), got %s", zv);
    sqlite3_free(zv);
    return;
  }
  z = sqlite3_value_blob(argv[0]);
  n = sqlite3_value_bytes(argv[0]);
  if( z==0 && n>0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( ml_state_parse(z ? z : "", (uint64_t)n, &st, zErr, sizeof(zErr)) ){
    ml_error(ctx, "ml_merge", "state: %s", zErr);
    return;
  }
  rc = ml_acc_add(&p->acc, z, (uint64_t)n, &st, zErr, sizeof(zErr));
  if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
  else if( rc ) ml_error(ctx, "ml_merge", "%s", zErr);
}

static void ml_merge_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  MergeAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  MlState st;
  char zErr[200];
  int rc;
  (void)argc;
  if( p==0 || sqlite3_value_type(argv[0])!=SQLITE_BLOB ) return;
  if( ml_state_parse(sqlite3_value_blob(argv[0]), (uint64_t)sqlite3_value_bytes(argv[0]), &st,
                     zErr, sizeof(zErr)) ) return;
  rc = ml_acc_remove(&p->acc, &st, zErr, sizeof(zErr));
  if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
  else if( rc ) ml_error(ctx, "ml_merge", "%s", zErr);
}

static void merge_result(sqlite3_context *ctx, MergeAgg *p){
  const unsigned char *z;
  uint64_t n;
  char zErr[200];
  int rc;
  if( p==0 || p->acc.n==0 ){
    ml_result_null(ctx, "ml_merge", "no states");
    return;
  }
  rc = ml_acc_collapse(&p->acc, &z, &n, zErr, sizeof(zErr));
  if( rc==ML_NOMEM ){ sqlite3_result_error_nomem(ctx); return; }
  if( rc ){ ml_error(ctx, "ml_merge", "%s", zErr); return; }
  sqlite3_result_blob64(ctx, z, n, SQLITE_TRANSIENT);
}

static void ml_merge_value(sqlite3_context *ctx){
  merge_result(ctx, sqlite3_aggregate_context(ctx, 0));
}

static void ml_merge_final(sqlite3_context *ctx){
  MergeAgg *p = sqlite3_aggregate_context(ctx, 0);
  merge_result(ctx, p);
  if( p ) ml_acc_clear(&p->acc);
}

/* ------------------------------------------------------------- ml_state */

typedef struct MakeAgg { MlSamples smp; int init, failed; } MakeAgg;

/* Reads (y, s [, strat]); ML_ROW_*. */
static int make_row(sqlite3_context *ctx, int argc, sqlite3_value **argv, int *y, double *s, double *z){
  int rc;
  *z = 0.0;
  if( argc==3 && sqlite3_value_type(argv[2])==SQLITE_NULL ) return ML_ROW_SKIP;
  rc = ml_arg_binary_row(ctx, "ml_state", argv, 0, y, s);
  if( rc==ML_ROW_OK && argc==3 ) rc = ml_arg_strat(ctx, "ml_state", argv[2], z);
  return rc;
}

/*
** SQL function: ml_state(y, s [, strat])
** The group's rows as a state: sorted distinct scores (or (score, strat)
** pairs) with their counts of negatives and positives; NULL for no rows.
*/
static void ml_make_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  MakeAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s, z;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){ ml_samples_init(&p->smp, argc==3 ? 16 : 8); p->init = 1; }
  if( make_row(ctx, argc, argv, &y, &s, &z)!=ML_ROW_OK ) return;
  ml_add_row(ctx, &p->smp, y, s, z);
}

static void ml_make_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  MakeAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s, z;
  if( p==0 || !p->init ) return;
  if( make_row(ctx, argc, argv, &y, &s, &z)!=ML_ROW_OK ) return;
  ml_samples_remove(&p->smp, y, s, z);
}

/*
** SQL function: ml_state_w(y, s, w)
** The group's rows of positive weight as a weighted state: sorted distinct
** (score, weight) entries with their counts of negatives and positives (a
** weight-0 row is dropped, a NULL weight skips the row, as the weighted
** twins do; the driver checks the weight).  Entries keep each weight
** itself, so merging adds counts and never rounds; every weighted fold then
** sums a tie group's weights exactly (ml_samples_absorb_weighted).
*/
static void ml_make_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  MakeAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s;
  (void)argc;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){ ml_samples_init_weighted(&p->smp); p->init = 1; }
  if( w<0.0 ){ p->failed = 1; return; }          /* the driver set the error */
  if( ml_arg_binary_row(ctx, "ml_state_w", argv, 0, &y, &s)!=ML_ROW_OK || w==0.0 ) return;
  ml_add_row(ctx, &p->smp, y, s, w);
}
static void ml_make_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  MakeAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s;
  (void)argc;
  if( p==0 || !p->init || w<=0.0 ) return;
  if( ml_arg_binary_row(ctx, "ml_state_w", argv, 0, &y, &s)!=ML_ROW_OK ) return;
  ml_samples_remove(&p->smp, y, s, w);
}

static void ml_make_value(sqlite3_context *ctx){
  MakeAgg *p = sqlite3_aggregate_context(ctx, 0);
  MlSamples *a;
  if( p && p->failed ) return;
  if( p==0 || !p->init || ml_samples_count(&p->smp)==0 ){
    if( p && p->smp.weighted ) ml_result_null(ctx, "ml_state_w", "no rows of positive weight");
    else ml_result_null(ctx, "ml_state", "no rows");
    return;
  }
  a = &p->smp;
  ml_result_state(ctx, &a, 1, p->smp.weighted ? ML_STATE_WEIGHTED
                            : p->smp.width==16 ? ML_STATE_STRAT : ML_STATE_BINARY);
}

static void ml_make_final(sqlite3_context *ctx){
  MakeAgg *p = sqlite3_aggregate_context(ctx, 0);
  ml_make_value(ctx);
  if( p && p->init ) ml_samples_clear(&p->smp);
}

/* ------------------------------------------------------------- records */

static const MlFamily famMake = { "state", ml_make_step, ml_make_final, ml_make_value, ml_make_inverse, 0,
                                  ml_make_step_w, ml_make_inverse_w, 0 };
static const MlFamily famMerge = { "state", ml_merge_step, ml_merge_final, ml_merge_value, ml_merge_inverse, 0, 0, 0,
                                   ML_STATE_ANY };     /* ml_merge reads every kind */

/* The binary partial states (ml_state_ordinal is ordinal.c's). */
const MlFuncDesc ml_state_functions[] = {
  { "ml_state",         "y, s [, strat]",          2,  3, &famMake, 0, 0, ML_FN_BLOB, 0 },
  { "ml_state_w",       "y, s, w",                 3,  3, &famMake, 0, 0, ML_FN_BLOB | ML_FN_TWIN, 0 },
  { "ml_merge",         "state",                   1,  1, &famMerge, 0, 0, ML_FN_BLOB, 0 },
  { 0 }
};
