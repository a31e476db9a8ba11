/*
** SPDX-License-Identifier: MIT
**
** multiclass_long.c -- the multiclass family over the long layout: one row
** per (id, class), as predictions are often stored, read as stored (no
** pivot, no json_group_array); its ids (rules 2, 6) live in
** multiclass_long_ids.c, its windows (rule 7) in multiclass_long_window.c,
** what the three share in multiclass_long_impl.h.  One reader serves the
** family:
**
**   NAME_long(id, y, class, p [, params])       NAME_long_w(id, y, class, p, w [, params])
**
** for NAME in mc_auroc, mc_pr_auc, mc_log_loss, mc_brier, mc_confusion (the
** argmax form), mc_top_k, ordinal_rps, mc_calibration [, bins],
** mc_auroc_ci [, level, reps, seed] and ml_state_mc (the partial state,
** BLOB, read by every mc_* function and ml_merge): the wide form
** NAME(y, p_0, ..., p_k-1) of the rows that one row per id would make, bit
** for bit.
**
** Rules:
**   1. The aggregate keeps the class-rows (rule 6), and at a result sorts
**      them by (id, class) -- rows of one id need not be adjacent, nor in
**      class order -- and hands each id, as one row (y, w, p_0 .. p_k-1),
**      to the wide form's own row store and result (multiclass.h,
**      ml_mc_add_row): the same code, so the same bits.  Rows already in
**      (id, class) order (ORDER BY id, class, or as most tables are
**      written) are not sorted again: the step notes a record that comes
**      before the last one's, and only then does a result check the order
**      (a window's leaving rows may have restored it) or sort.
**   2. An id is what GROUP BY id would make of it: INTEGER and REAL ids of
**      equal value are one id (1 and 1.0), TEXT and BLOB ids compare by
**      their bytes, a TEXT id never equals a number ('1' is not 1).  A NULL
**      id skips its row.
**   3. Each id has k rows, one per class 0..k-1, and k (2..16) is the same
**      for every id; y (and the twins' w) is the same in every row of an
**      id.  Else an error names the function, the argument, the bad value
**      and the id: a class repeated or missing, k differing between ids, y
**      or w differing within an id, y outside 0..k-1.  class and y are
**      integers 0..15 (ml_arg_label's rules) and p a number (a probability
**      in [0, 1] for mc_log_loss, mc_brier, ordinal_rps, mc_calibration,
**      whose ids' p must sum to 1 within 1e-6, as the wide rows').
**   4. NULLs, as the wide forms': a NULL y, class or p in any row of an id
**      skips the id (as a NULL score skips a wide row); the twins' NULL
**      or 0 weight skips it (the driver reads both as 0, so an id whose rows
**      give NULL and 0.5 has differing weights).  No id left: NULL with a
**      warning, as the wide forms.
**   5. Parameters come after p (after w in a twin) and must be the same in
**      every row of a group (MlParam), as the wide forms' JSON form.
**   6. What a class-row holds: one record of 16 bytes, the key
**      t 256 + class 16 + y itself (t the id's tag, below; an integer in
**      [0, 2^53), in (id, class) order; the shared sort reads it shifted
**      into the key of a finite double of the same order) and p (NaN marks
**      a row with a NULL: its id is skipped); a twin's record holds w too:
**      24 bytes.  The tag of an INTEGER id (or integral REAL) in
**      [-2^43, 2^43) is the id plus 2^43, nothing else held; any other id
**      (TEXT, BLOB, a fraction, a larger integer) is interned once: its bytes
**      and 32 bytes of entry and hash slots, its tag 2^44 plus its index.
**      The buffer grows by a
**      quarter (slack at most 25 %).  At a result: the sort's scratch,
**      16 (24) bytes a class-row more unless the rows came in (id, class)
**      order, then the wide form's own holding while the class-rows are
**      still held (an xFinal frees them before the wide result).  Measured
**      peaks (k = 3): 19 bytes a class-row in order, 35 shuffled; 40 for
**      mc_auroc_long (docs/multiclass.md).
**   7. Windows: a frame that cuts an id's rows apart gives the errors of
**      rule 3 (a class missing), so frames should keep ids whole: ORDER BY id
**      (or a column constant within an id) with RANGE or GROUPS.  From the
**      group's first xValue (window mode, LgWin) the records stay sorted by
**      (id, class, y) and every well-formed id of the frame stays in one wide
**      window store (ml_mc_add_row / ml_mc_remove_row, the wide form's own
**      window structures): a class-row entering or leaving takes its id out
**      of the tallies and the store, moves one record, and puts the id back,
**      as ml_mcl_assemble reads it (ml_mcl_run_read, one code).  A frame whose ids
**      are all well-formed and of one k is the store's value; a frame with a
**      broken id or two k is assembled afresh from the sorted records (the
**      aggregate's error or null, word for word); a frame whose one k is not
**      the store's rebuilds it.  Before the first xValue, xInverse removes
**      the oldest equal record.
**   8. The common row and the common id take short paths that do what the
**      general ones do, bit for bit: a step reads an INTEGER id of a direct
**      tag, INTEGER y and class in 0..15 and a REAL p (in [0, 1] for the
**      probability functions) with one type look-up each and appends its
**      record with no other call (lg_fast; not in window mode); the
**      assembly takes an id whose k records run over classes 0..k-1 with one
**      y, no NULL and one w without ml_mcl_run_read, and mc_top_k's and
**      mc_confusion's ids are counted as their wide rows are
**      (ml_mc_count_row).  Any other row or id is read again by the general
**      code, which gives the errors.
**
** Cost: O(1) a class-row entering (an interned id: one hash probe); a
** result O(n) to assemble (and to check the order, only when a row came
** out of it), plus the shared sort (ml_radix_sort) when the rows are out
** of order, plus the wide form's own work over n / k rows.  A window: a
** class-row entering or leaving costs a binary search, its id's k records
** re-read, one wide row out and in, and a move of the records on the
** nearer side of its place (none when rows enter by id, as ORDER BY id
** brings them); a frame costs the wide window's (a running
** mc_log_loss_long over 5 000 ids: 0.88 s -> 0.03 s).  Measured
** (bench/RESULTS.md, "The long layout"; callgrind, 10^5 ids, k = 3): the
** reader ~29 Ir a class-row above the wide form's own work for mc_auroc,
** ~55 for the streaming functions (~170-210 before rule 8's paths), + ~100
** for the sort when shuffled; mc_auroc_long 3655 Ir an id against the wide
** form's 1738 (2.10x; SQLite's scan of the k rows alone is 2.8x the wide
** row's, and mleval's part 1.12x the wide form's), mc_top_k_long 3070
** against 1077 (2.85x); 6.8x cheaper than the json_group_array pivot it
** replaces.
*/
#include <float.h>
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_utf8.h"
#include "multiclass.h"
#include "multiclass_long_impl.h"

void ml_mcl_clear(LgAgg *L){
  ml_mcl_win_free(L);
  ml_free(L->rec);
  ml_free(L->ids);
  ml_free(L->slot);
  ml_free(L->arena);
  L->rec = 0; L->ids = 0; L->slot = 0; L->arena = 0;
  L->head = L->n = L->cap = L->nId = L->capId = L->nSlot = L->nArena = L->capArena = 0;
  L->unsorted = 0;
  L->last = 0;
}

/* Sorts n records of width W by key (rule 1) with the shared sort, which
** buckets keys by the doubles they order: each key is shifted by LG_KEY0
** first -- the key of the double whose bits are those of 2^52 plus the
** code, finite, positive, in the code's order -- and back after. */
#define LG_KEY0 ((ml_key)0xC330000000000000ULL)
void ml_mcl_sort(unsigned char *rec, ml_i64 n, int W, void *scratch){
  ml_i64 i;
  ml_key k;
  for(i=0; i<n; i++){ memcpy(&k, rec + (size_t)i*W, 8); k += LG_KEY0; memcpy(rec + (size_t)i*W, &k, 8); }
  ml_radix_sort(rec, n, (unsigned)W, scratch);
  for(i=0; i<n; i++){ memcpy(&k, rec + (size_t)i*W, 8); k -= LG_KEY0; memcpy(rec + (size_t)i*W, &k, 8); }
}

/* Room for one more record at the end; ML_OK or ML_NOMEM (nothing changed). */
static int lg_grow(LgAgg *L){
  if( L->head>0 && L->head >= L->n/4 ){            /* a window: slide the rows to the front */
    memmove(L->rec, L->rec + (size_t)L->head*L->width, (size_t)L->n*L->width);
    L->head = 0;
  }else{
    ml_i64 c = L->cap + L->cap/4 + 1024;
    unsigned char *a = ml_realloc(L->rec, (uint64_t)c*L->width);
    if( a==0 ) return ML_NOMEM;
    L->rec = a;
    L->cap = c;
  }
  return ML_OK;
}

/* Writes a record at the end (room made), noting whether the records stay
** in key order (rule 1): the one record writer of lg_append and lg_fast. */
static ML_ALWAYS_INLINE void lg_put(LgAgg *L, ml_key key, double p, double w){
  unsigned char *r = L->rec + (size_t)(L->head + L->n)*L->width;
  memcpy(r, &key, 8);
  memcpy(r + 8, &p, 8);
  if( L->width==24 ) memcpy(r + 16, &w, 8);
  L->n++;
  L->unsorted |= key<L->last;
  L->last = key;
}

/* Appends a record; ML_OK or ML_NOMEM (nothing changed). */
static inline int lg_append(LgAgg *L, ml_key key, double p, double w){
  if( L->head + L->n >= L->cap && lg_grow(L)!=ML_OK ) return ML_NOMEM;
  lg_put(L, key, p, w);
  return ML_OK;
}

/* Reads a class-row: its record's key, p (NaN: a NULL, rule 4).  ML_ROW_OK,
** ML_ROW_SKIP (a NULL id), ML_ROW_ERR (the error set; nomem too). */
static int lg_row(sqlite3_context *ctx, const MlFuncDesc *d, LgAgg *L, sqlite3_value **argv, int add,
                  ml_key *pKey, double *pP){
  ml_i64 tag;
  int y = 0, c = 0, rc, isNull = 0, t0 = sqlite3_value_type(argv[0]);
  double p = 0.0;
  /* the common row: an INTEGER id of a direct tag, INTEGER y and class in
  ** 0..15, a REAL p (in [0, 1] for probabilities) */
  if( t0==SQLITE_INTEGER && sqlite3_value_type(argv[1])==SQLITE_INTEGER
   && sqlite3_value_type(argv[2])==SQLITE_INTEGER && sqlite3_value_type(argv[3])==SQLITE_FLOAT ){
    sqlite3_int64 id = sqlite3_value_int64(argv[0]), yv = sqlite3_value_int64(argv[1]);
    sqlite3_int64 cv = sqlite3_value_int64(argv[2]);
    p = sqlite3_value_double(argv[3]);
    if( id>=-LG_DIRECT && id<LG_DIRECT && (yv & ~(sqlite3_int64)15)==0 && (cv & ~(sqlite3_int64)15)==0
     && (!MC_IS_PROB(d->kind) || (p>=0.0 && p<=1.0)) ){
      *pKey = lg_key(id + LG_DIRECT, (int)cv, (int)yv);
      *pP = p;
      return ML_ROW_OK;
    }
  }
  if( t0==SQLITE_NULL ) return ML_ROW_SKIP;
  /* any other row: each argument by the shared checkers (a NULL y, class or
  ** p marks the id skipped, rule 4) */
  if( (rc = ml_arg_label(ctx, d->name, argv[1], MC_MAX_K-1, &y))==ML_ROW_ERR ) return rc;
  isNull |= rc==ML_ROW_SKIP;
  if( (rc = ml_arg_label_named(ctx, d->name, "class", argv[2], MC_MAX_K-1, &c))==ML_ROW_ERR ) return rc;
  isNull |= rc==ML_ROW_SKIP;
  rc = MC_IS_PROB(d->kind) ? ml_arg_prob(ctx, d->name, "p", argv[3], &p) : ml_arg_score(ctx, d->name, "p", argv[3], &p);
  if( rc==ML_ROW_ERR ) return rc;
  isNull |= rc==ML_ROW_SKIP;
  tag = ml_mcl_tag(L, argv[0], add);
  if( tag==-1 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
  if( tag==-3 ){ ml_error(ctx, d->name, "more than 4294967294 ids that are not integers below 2^43"); return ML_ROW_ERR; }
  if( tag==-2 ) return ML_ROW_SKIP;                 /* xInverse of a row never added */
  if( isNull ){ y = 0; c = 0; p = NAN; }
  *pKey = lg_key(tag, c, y);
  *pP = p;
  return ML_ROW_OK;
}

void ml_mcl_fail(LgAgg *L){ L->failed = 1; L->fast = 0; ml_mcl_clear(L); }

/* The common class-row (an INTEGER id of a direct tag, INTEGER y and class
** in 0..15, a REAL p, in [0, 1] for probabilities) appended where the
** buffer has room, as lg_row and lg_append would: 1; else 0, nothing kept
** (the caller reads the row again).  No call but SQLite's value readers. */
static ML_ALWAYS_INLINE int lg_fast(LgAgg *L, sqlite3_value **argv, double w){
  sqlite3_int64 id, yv, cv;
  double p;
  ml_key key;
  if( L->head + L->n >= L->cap || sqlite3_value_type(argv[0])!=SQLITE_INTEGER
   || sqlite3_value_type(argv[1])!=SQLITE_INTEGER || sqlite3_value_type(argv[2])!=SQLITE_INTEGER
   || sqlite3_value_type(argv[3])!=SQLITE_FLOAT ) return 0;
  id = sqlite3_value_int64(argv[0]);
  yv = sqlite3_value_int64(argv[1]);
  cv = sqlite3_value_int64(argv[2]);
  p = sqlite3_value_double(argv[3]);
  if( !(id>=-LG_DIRECT && id<LG_DIRECT && ((yv | cv) & ~(sqlite3_int64)15)==0
        && (!L->isProb || (p>=0.0 && p<=1.0))) ) return 0;
  key = lg_key(id + LG_DIRECT, (int)cv, (int)yv);
  lg_put(L, key, p, w);
  return 1;
}

/* xStep (through the driver for the twins: w its weight, 0 for NULL or 0,
** < 0 its error already set). */
static void lg_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  LgAgg *L = sqlite3_aggregate_context(ctx, sizeof(*L));
  ml_key key;
  double p;
  int i, rc;
  if( L==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( L->fast && argc==4 && w>=0.0 && lg_fast(L, argv, w) ) return;
  if( L->failed ) return;
  if( L->width==0 ){
    L->width = (d->flags & ML_FN_TWIN) ? 24 : 16;
    L->isProb = MC_IS_PROB(d->kind);
    L->fast = L->win==0;
  }
  if( w<0.0 ){ ml_mcl_fail(L); return; }
  for(i=0; d->aParam && d->aParam[i] && 4+i<argc; i++){
    const MlParamSpec *ps = d->aParam[i];
    ml_i64 iv;
    double v;
    if( ps->type==ML_PT_INT ? ml_param_int(ctx, d->name, ps, argv[4+i], &L->par[i], &iv)
                            : ml_param_real(ctx, d->name, ps, argv[4+i], &L->par[i], &v) ){
      ml_mcl_fail(L);
      return;
    }
  }
  rc = lg_row(ctx, d, L, argv, 1, &key, &p);
  if( rc==ML_ROW_ERR ){ ml_mcl_fail(L); return; }
  if( rc!=ML_ROW_OK ) return;
  if( L->win ){                                    /* window mode (rule 7) */
    if( (rc = ml_mcl_win_update(ctx, d, L, key, p, w, 1))!=ML_OK ){
      if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
      ml_mcl_fail(L);
    }
    return;
  }
  if( lg_append(L, key, p, w)!=ML_OK ){ sqlite3_result_error_nomem(ctx); ml_mcl_fail(L); }
}

static void lg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  LgAgg *L = sqlite3_aggregate_context(ctx, sizeof(*L));
  if( L && L->fast && argc==4 && lg_fast(L, argv, 1.0) ) return;   /* the common row */
  lg_step_w(ctx, argc, argv, 1.0);
}

/* xInverse: the oldest record equal to the leaving row's goes (rule 7). */
static void lg_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  LgAgg *L = sqlite3_aggregate_context(ctx, 0);
  ml_key key;
  double p;
  ml_i64 i;
  if( L==0 || L->failed ) return;
  for(i=0; d->aParam && d->aParam[i] && 4+i<argc; i++) ml_param_drop(&L->par[i], argv[4+i]);
  if( w<0.0 || lg_row(ctx, d, L, argv, 0, &key, &p)!=ML_ROW_OK ) return;
  if( L->win ){                                    /* window mode (rule 7) */
    int rc = ml_mcl_win_update(ctx, d, L, key, p, w, -1);
    if( rc!=ML_OK ){
      if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
      ml_mcl_fail(L);
    }
    return;
  }
  for(i=0; i<L->n; i++){
    unsigned char *r = L->rec + (size_t)(L->head + i)*L->width;
    ml_key rk;
    double rp, rw = w;
    memcpy(&rk, r, 8);
    memcpy(&rp, r + 8, 8);
    if( L->width==24 ) memcpy(&rw, r + 16, 8);
    if( rk!=key || !(rp==p || (isnan(rp) && isnan(p))) || rw!=w ) continue;
    if( i==0 ) L->head++;
    else memmove(r, r + L->width, (size_t)(L->n - i - 1)*L->width);
    L->n--;
    if( L->n==0 ){ L->head = 0; L->unsorted = 0; L->last = 0; }
    return;
  }
}
static void lg_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){ lg_inverse_w(ctx, argc, argv, 1.0); }

/* "w" as a message shows it: 0 reads NULL too (rule 4). */
static const char *lg_wnum(char *z, double w){
  if( w==0.0 ) return "0 (or NULL)";
  return ml_num(z, w);
}

/* Reads the run starting at record i of rec[0..n) (width W) into *R;
** returns one past it.  The checks of rule 3 that need no other id: its
** classes, y and w the same in every row, y < k, the probabilities' sum. */
ml_i64 ml_mcl_run_read(const unsigned char *rec, ml_i64 i, ml_i64 n, int W, int isProb, LgRun *R){
  ml_i64 code = lg_code(rec + (size_t)i*W), j = i, m = 0;
  int skip = 0, t;
  R->tag = code>>8;
  R->ok = 1;
  /* the id's run: its classes, y, p and w, at most MC_MAX_K of them kept
  ** (one more is a class repeated) */
  for(;;){
    const unsigned char *r = rec + (size_t)j*W;
    double p = lg_p(r);
    if( m<MC_MAX_K ){
      R->cls[m] = (int)((code>>4) & 15);
      R->yv[m] = (int)(code & 15);
      R->s[m] = p;
      R->wv[m] = W==24 ? lg_w(r, W) : 1.0;
      R->ok &= R->cls[m]==(int)m;
    }else{
      R->ok = 0;
    }
    skip |= isnan(p);
    m++;
    if( ++j>=n ) break;
    code = lg_code(rec + (size_t)j*W);
    if( (code>>8)!=R->tag ) break;
  }
  R->m = m;
  R->status = LG_RUN_BAD;
  if( skip ){ R->status = LG_RUN_SKIP; return j; }
  if( !R->ok || m<2 ) return j;
  R->k = (int)m;
  R->y = R->yv[0];
  R->w = R->wv[0];
  for(t=1; t<R->k; t++) if( R->yv[t]!=R->y || R->wv[t]!=R->w ) return j;
  if( R->y>=R->k ) return j;
  R->sum = 0.0;
  if( isProb && ml_prob_row_check(R->s, R->k, &R->sum)>=0 ) return j;
  R->status = LG_RUN_GOOD;
  return j;
}

/* The error of a run that is not GOOD, or of k differing from k0 (the first
** id's, whose tag is firstTag): the message ml_mcl_assemble gives (rule 3). */
static void lg_run_error(sqlite3_context *ctx, const MlFuncDesc *d, const LgAgg *L, const LgRun *R,
                         int k0, ml_i64 firstTag){
  char zId[96], zId2[96], zA[32], zB[32];
  ml_i64 m = R->m;
  int t;
  ml_mcl_describe(L, R->tag, zId, sizeof(zId));
  if( !R->ok || m<2 ){
    /* the id's classes, for the message: a class repeated or missing */
    char zList[128];
    int o = 0;
    for(t=0; t<m && t<MC_MAX_K && o<100; t++){
      sqlite3_snprintf((int)sizeof(zList) - o, zList + o, "%s%d", t ? ", " : "", R->cls[t]);
      o += (int)strlen(zList + o);
    }
    for(t=0; t<m && t<MC_MAX_K && R->cls[t]==t; t++){}
    if( t<m && (t>=MC_MAX_K || R->cls[t]<t) ){
      ml_error(ctx, d->name, "class must appear once in each id, got classes %s for id %s (class %d twice)",
               zList, zId, t-1);
    }else if( t<m ){
      ml_error(ctx, d->name, "class must run over 0..k-1 in each id, got classes %s for id %s (no class %d)",
               zList, zId, t);
    }else{
      ml_error(ctx, d->name, "class must run over 0..k-1, k at least 2, in each id, got class 0 alone for id %s",
               zId);
    }
    return;
  }
  if( k0 && m!=k0 ){
    ml_mcl_describe(L, firstTag, zId2, sizeof(zId2));
    ml_error(ctx, d->name, "k must be the same in every id: id %s has %d classes (0..%d), id %s has %d", zId,
             (int)m, (int)m-1, zId2, k0);
    return;
  }
  for(t=1; t<m; t++){
    if( R->yv[t]!=R->yv[0] ){
      ml_error(ctx, d->name, "y must be the same in every row of an id, got %d and %d for id %s", R->yv[0],
               R->yv[t], zId);
      return;
    }
    if( R->wv[t]!=R->wv[0] ){
      ml_error(ctx, d->name, "w must be the same in every row of an id, got %s and %s for id %s",
               lg_wnum(zA, R->wv[0]), lg_wnum(zB, R->wv[t]), zId);
      return;
    }
  }
  if( R->yv[0]>=m ){
    ml_error(ctx, d->name, "y must be %s%d, got %d (k = %d: id %s has classes 0..%d)", m==2 ? "0 or " : "an integer in 0..",
             (int)m-1, R->yv[0], (int)m, zId, (int)m-1);
    return;
  }
  ml_error(ctx, d->name, "the probabilities of an id must sum to 1 (within 1e-6), got %s over the %d rows of "
           "id %s", ml_num(zA, R->sum), (int)m, zId);
}

/* Assembles the ids of the sorted records rec[0..n) and hands each to the
** wide store mc (rules 1, 3): one pass, each record decoded once.  ML_OK,
** or the error is set (ML_ERROR). */
int ml_mcl_assemble(sqlite3_context *ctx, const MlFuncDesc *d, const LgAgg *L, const unsigned char *rec,
                       ml_i64 n, void *mc){
  const int W = L->width, isProb = MC_IS_PROB(d->kind);
  ml_i64 i = 0, firstTag = -1;
  int k0 = 0;
  LgRun R;
  while( i<n ){
    /* the common id, once k is known: its k rows in class order 0..k-1 with
    ** one y (codes c0, c0 + 16, ...), no NULL, one w, the next row another
    ** id's (rule 8).  Anything else is read by ml_mcl_run_read, which says what
    ** is wrong. */
    ml_i64 code = lg_code(rec + (size_t)i*W);
    if( k0 && i + k0<=n && (code & 0xF0)==0 ){
      const unsigned char *r = rec + (size_t)i*W;
      double w = W==24 ? lg_w(r, W) : 1.0;
      int t;
      for(t=0; t<k0; t++, r+=W){
        double p = lg_p(r);
        if( lg_code(r)!=code + 16*t || isnan(p) || (W==24 && lg_w(r, W)!=w) ) break;
        R.s[t] = p;
      }
      if( t==k0 && (i + k0==n || (lg_code(r)>>8)!=(code>>8)) ){
        int y = (int)(code & 15);
        if( y<k0 && !(isProb && ml_prob_row_check(R.s, k0, &R.sum)>=0) ){
          if( w>0.0 && ml_mc_add_row(ctx, mc, k0, y, w, R.s)!=ML_OK ) return ML_ERROR;
          i += k0;
          continue;
        }
      }
    }
    i = ml_mcl_run_read(rec, i, n, W, isProb, &R);
    if( R.status==LG_RUN_SKIP ) continue;           /* a NULL in a row of the id (rule 4) */
    if( R.status==LG_RUN_GOOD && k0==0 ){ k0 = R.k; firstTag = R.tag; }
    if( R.status!=LG_RUN_GOOD || R.k!=k0 ){
      lg_run_error(ctx, d, L, &R, k0, firstTag);
      return ML_ERROR;
    }
    if( R.w>0.0 && ml_mc_add_row(ctx, mc, R.k, R.y, R.w, R.s)!=ML_OK ) return ML_ERROR;
  }
  return ML_OK;
}

/* A result (rule 1): the records sorted by (id, class) -- in place at
** xFinal, a copy for a window's xValue -- then assembled into a wide store
** whose result is the function's. */
void ml_mcl_result(sqlite3_context *ctx, LgAgg *L, int isFinal){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  unsigned char *rec = 0, *copy = 0, *scratch = 0;
  void *mc;
  ml_i64 n = L ? L->n : 0, i;
  int sorted = 1, c;
  if( L && L->failed ) return;
  if( (mc = ml_malloc(ml_mc_agg_bytes()))==0 ){ sqlite3_result_error_nomem(ctx); return; }
  memset(mc, 0, ml_mc_agg_bytes());
  for(c=0; L && c<3; c++) *ml_mc_param(mc, c) = L->par[c];
  if( n>0 ){
    const int W = L->width;
    ml_key prev = 0;
    rec = L->rec + (size_t)L->head*W;
    /* in key order unless a record came before a greater one's (rule 1; a
    ** window's leaving rows may have put them back in order) */
    for(i=0; L->unsorted && i<n && sorted; i++){
      ml_key k;
      memcpy(&k, rec + (size_t)i*W, 8);
      sorted = i==0 || k>=prev;
      prev = k;
    }
    if( L->unsorted && sorted ){ L->unsorted = 0; L->last = prev; }
    if( !sorted ){
      uint64_t nb = (uint64_t)n*W;
      if( !isFinal ){
        if( (copy = ml_malloc(nb))==0 ) goto nomem;
        memcpy(copy, rec, (size_t)nb);
        rec = copy;
      }
      if( (scratch = ml_malloc(nb + ML_RADIX_EXTRA))==0 ) goto nomem;
      ml_mcl_sort(rec, n, W, scratch);
      ml_free(scratch);
      scratch = 0;
    }
    if( ml_mcl_assemble(ctx, d, L, rec, n, mc)!=ML_OK ){
      ml_free(copy);
      ml_mc_clear(mc);
      ml_free(mc);
      ml_mcl_fail(L);
      return;
    }
    ml_free(copy);
    copy = 0;
    if( isFinal ){                  /* the class-rows are the wide store's now: freed before its result */
      ml_free(L->rec);
      L->rec = 0;
      L->head = L->n = L->cap = 0;
      L->unsorted = 0;
      L->last = 0;
    }
  }
  ml_mc_result(ctx, mc, isFinal);
  ml_mc_clear(mc);
  ml_free(mc);
  return;
nomem:
  ml_free(copy);
  ml_free(scratch);
  ml_mc_clear(mc);
  ml_free(mc);
  sqlite3_result_error_nomem(ctx);
  if( L ) ml_mcl_fail(L);
}

void lg_value(sqlite3_context *ctx){ ml_mcl_win_value(ctx, sqlite3_aggregate_context(ctx, 0), 0); }
static void lg_final(sqlite3_context *ctx){
  LgAgg *L = sqlite3_aggregate_context(ctx, 0);
  if( L && L->win ) ml_mcl_win_value(ctx, L, 1);
  else ml_mcl_result(ctx, L, 1);
  if( L ) ml_mcl_clear(L);
}

/* ------------------------------------------------------------- records */

static const MlFamily famMcLong = { "multiclass", lg_step, lg_final, lg_value, lg_inverse, 0,
                                    lg_step_w, lg_inverse_w, 0 };

#define LG_TWIN (ML_FN_TWIN | ML_FN_TWIN_W4 | ML_FN_NO_STATE)

static const MlParamSpec psBinsL = ML_PARAM_INT("bins", 1, 100000, "10", "10");
static const MlParamSpec psSeedL = ML_PARAM_INT("seed", 0, 9007199254740992LL, "0", "7");

/* the multiclass family's functions over long rows (id, y, class, p), the
** twins with w right after p, parameters after that */
const MlFuncDesc ml_multiclass_long_functions[] = {
  { "mc_auroc_long",       "id, y, class, p", 4, 4, &famMcLong, 0, MC_AUROC,     ML_FN_JSON, 0 },
  { "mc_pr_auc_long",      "id, y, class, p", 4, 4, &famMcLong, 0, MC_PR_AUC,    ML_FN_JSON, 0 },
  { "mc_log_loss_long",    "id, y, class, p", 4, 4, &famMcLong, 0, MC_LOG_LOSS,  0, 0 },
  { "mc_brier_long",       "id, y, class, p", 4, 4, &famMcLong, 0, MC_BRIER,     0, 0 },
  { "mc_confusion_long",   "id, y, class, p", 4, 4, &famMcLong, 0, MC_CONFUSION, ML_FN_JSON, 0 },
  { "mc_top_k_long",       "id, y, class, p", 4, 4, &famMcLong, 0, MC_TOP_K,     ML_FN_JSON, 0 },
  { "ordinal_rps_long",    "id, y, class, p", 4, 4, &famMcLong, 0, MC_RPS,       0, 0 },
  { "mc_calibration_long", "id, y, class, p [, bins]", 4, 5, &famMcLong, 0, MC_CALIB, ML_FN_JSON,
    ML_PARAMS(&psBinsL) },
  { "mc_auroc_ci_long",    "id, y, class, p [, level, reps, seed]", 4, 7, &famMcLong, 0, MC_AUROC_CI, ML_FN_JSON,
    ML_PARAMS(&ml_ps_level, &ml_ps_reps, &psSeedL) },
  { "ml_state_mc_long",    "id, y, class, p", 4, 4, &famMcLong, 0, MC_STATE,     ML_FN_BLOB | ML_FN_NO_STATE, 0 },
  { "mc_auroc_long_w",     "id, y, class, p, w", 5, 5, &famMcLong, 0, MC_AUROC,     ML_FN_JSON | LG_TWIN, 0 },
  { "mc_pr_auc_long_w",    "id, y, class, p, w", 5, 5, &famMcLong, 0, MC_PR_AUC,    ML_FN_JSON | LG_TWIN, 0 },
  { "mc_log_loss_long_w",  "id, y, class, p, w", 5, 5, &famMcLong, 0, MC_LOG_LOSS,  LG_TWIN, 0 },
  { "mc_brier_long_w",     "id, y, class, p, w", 5, 5, &famMcLong, 0, MC_BRIER,     LG_TWIN, 0 },
  { "mc_confusion_long_w", "id, y, class, p, w", 5, 5, &famMcLong, 0, MC_CONFUSION, ML_FN_JSON | LG_TWIN, 0 },
  { "mc_top_k_long_w",     "id, y, class, p, w", 5, 5, &famMcLong, 0, MC_TOP_K,     ML_FN_JSON | LG_TWIN, 0 },
  { "ordinal_rps_long_w",  "id, y, class, p, w", 5, 5, &famMcLong, 0, MC_RPS,       LG_TWIN, 0 },
  { "mc_calibration_long_w", "id, y, class, p, w [, bins]", 5, 6, &famMcLong, 0, MC_CALIB, ML_FN_JSON | LG_TWIN,
    ML_PARAMS(&psBinsL) },
  { "mc_auroc_ci_long_w",  "id, y, class, p, w [, level, reps, seed]", 5, 8, &famMcLong, 0, MC_AUROC_CI,
    ML_FN_JSON | LG_TWIN, ML_PARAMS(&ml_ps_level, &ml_ps_reps, &psSeedL) },
  { "ml_state_mc_long_w",  "id, y, class, p, w", 5, 5, &famMcLong, 0, MC_STATE,     ML_FN_BLOB | LG_TWIN, 0 },
  { 0 }
};
