/*
** SPDX-License-Identifier: MIT
**
** multiclass_long_window.c -- the long layout's windows (multiclass_long.c
** rule 7): from a group's first xValue the class-rows stay sorted by (id,
** class, y) and every well-formed id of the frame stays in one wide window
** store (multiclass.h: ml_mc_add_row, ml_mc_remove_row, ml_mc_value), so a
** frame costs the wide window's frame, not a sort and assembly of its rows.
**
** Rules (numbered as in multiclass_long.c, whose rules hold here):
**   7a. A class-row entering or leaving takes its id out of the frame's
**       tallies (broken ids; well-formed ids by k and of weight > 0) and out
**       of the store, moves one record, and puts the id back, read by
**       ml_mcl_run_read as the aggregate's assembly reads it.
**   7b. The store holds exactly the frame's well-formed ids of weight > 0
**       and k = K; K changes only by a rebuild from the sorted records.
**   7c. A frame with a broken id or two k, or no id of weight > 0, is
**       assembled afresh from the sorted records (ml_mcl_result): the
**       aggregate's error or null, word for word.
**
** Cost: a class-row entering or leaving: two binary searches, its id's k
** records re-read, one wide row out and in, and a move of the records on
** the nearer side of its place (none when rows enter by id, as ORDER BY id
** brings them); a frame: the wide window's (bench/RESULTS.md, "The long
** layout's windows": 1.4-3x the wide window an id, flat from 10^3 to 10^4
** ids).  Memory: the class-rows (16 or 24 bytes) and the wide store's rows.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "multiclass_long_impl.h"

void ml_mcl_win_free(LgAgg *L){
  if( L->win ){
    if( L->win->mc ){ ml_mc_clear(L->win->mc); ml_free(L->win->mc); }
    ml_free(L->win);
    L->win = 0;
  }
}

/* The first record (an index from head) whose key is >= key: the records
** are sorted in window mode. */
static ml_i64 lg_lower(const LgAgg *L, ml_key key){
  const unsigned char *rec = L->rec + (size_t)L->head*L->width;
  ml_i64 lo = 0, hi = L->n;
  while( lo<hi ){
    ml_i64 mid = lo + (hi - lo)/2;
    ml_key k;
    memcpy(&k, rec + (size_t)mid*L->width, 8);
    if( k<key ) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* Counts the id whose records are [lo, hi) in (sign +1) or out of (-1) the
** frame's tallies, and adds it to (removes it from) the wide store when it
** is well-formed, of weight > 0 and of the store's k.  ML_OK, or the wide
** store failed (its error set). */
static int lg_win_account(sqlite3_context *ctx, const MlFuncDesc *d, LgAgg *L, ml_i64 lo, ml_i64 hi, int sign){
  LgWin *W = L->win;
  LgRun R;
  if( lo>=hi ) return ML_OK;
  ml_mcl_run_read(L->rec + (size_t)L->head*L->width, lo, hi, L->width, MC_IS_PROB(d->kind), &R);
  if( R.status==LG_RUN_SKIP ) return ML_OK;
  if( R.status==LG_RUN_BAD ){ W->nBad += sign; return ML_OK; }
  W->nGood[R.k] += sign;
  if( R.w<=0.0 ) return ML_OK;
  W->nGoodW += sign;
  if( R.k!=W->K || W->mc==0 ) return ML_OK;
  if( sign>0 ) return ml_mc_add_row(ctx, W->mc, R.k, R.y, R.w, R.s);
  ml_mc_remove_row(ctx, W->mc, R.y, R.w, R.s);
  return ml_mc_failed(W->mc) ? ML_ERROR : ML_OK;
}

/* Makes room for one record at index pos (from head), moving the records on
** the nearer side; returns its address, or 0 (out of memory: nothing moved). */
static unsigned char *lg_win_open(LgAgg *L, ml_i64 pos){
  const int W = L->width;
  unsigned char *base;
  if( L->head + L->n >= L->cap ){
    if( L->head>0 ){
      memmove(L->rec, L->rec + (size_t)L->head*W, (size_t)L->n*W);
      L->head = 0;
    }else{
      ml_i64 c = L->cap + L->cap/4 + 1024;
      unsigned char *a = ml_realloc(L->rec, (uint64_t)c*W);
      if( a==0 ) return 0;
      L->rec = a;
      L->cap = c;
    }
  }
  base = L->rec + (size_t)L->head*W;
  if( L->head>0 && pos < L->n - pos ){          /* the records before pos move one down */
    memmove(base - W, base, (size_t)pos*W);
    L->head--;
  }else{
    memmove(base + (size_t)(pos+1)*W, base + (size_t)pos*W, (size_t)(L->n - pos)*W);
  }
  L->n++;
  return L->rec + (size_t)(L->head + pos)*W;
}

/* Removes the record at index i (from head), moving the nearer side. */
static void lg_win_close(LgAgg *L, ml_i64 i){
  const int W = L->width;
  unsigned char *base = L->rec + (size_t)L->head*W;
  if( i < L->n - 1 - i ){
    memmove(base + W, base, (size_t)i*W);
    L->head++;
  }else{
    memmove(base + (size_t)i*W, base + (size_t)(i+1)*W, (size_t)(L->n - 1 - i)*W);
  }
  if( --L->n==0 ) L->head = 0;
}

/* A class-row entering (sign +1) or leaving (-1) a window's frame: its id
** counted out, the record inserted in its place or removed (a leaving
** record that is not held is ignored, as the aggregate's xInverse does),
** the id counted in again.  ML_OK, ML_NOMEM, or ML_ERROR (set). */
int ml_mcl_win_update(sqlite3_context *ctx, const MlFuncDesc *d, LgAgg *L, ml_key key, double p, double w,
                         int sign){
  const int W = L->width;
  ml_i64 tag = lg_code((const unsigned char*)&key)>>8, lo, hi, at;
  unsigned char *r;
  lo = lg_lower(L, lg_key(tag, 0, 0));
  hi = lg_lower(L, lg_key(tag + 1, 0, 0));
  if( sign<0 ){
    for(at=lo; at<hi; at++){
      const unsigned char *q = L->rec + (size_t)(L->head + at)*W;
      double qp = lg_p(q);
      ml_key qk;
      memcpy(&qk, q, 8);
      if( qk==key && (qp==p || (isnan(qp) && isnan(p))) && lg_w(q, W)==w ) break;
    }
    if( at==hi ) return ML_OK;
  }else{
    at = lg_lower(L, key + 1);                   /* after the records of an equal key */
  }
  if( lg_win_account(ctx, d, L, lo, hi, -1) ) return ML_ERROR;
  if( sign>0 ){
    if( (r = lg_win_open(L, at))==0 ) return ML_NOMEM;
    memcpy(r, &key, 8);
    memcpy(r + 8, &p, 8);
    if( W==24 ) memcpy(r + 16, &w, 8);
    hi++;
  }else{
    lg_win_close(L, at);
    hi--;
  }
  return lg_win_account(ctx, d, L, lo, hi, 1);
}

/* Enters window mode: the records sorted, every id of the frame counted
** (the wide store is built at the first frame that is well-formed). */
static int lg_win_start(sqlite3_context *ctx, const MlFuncDesc *d, LgAgg *L){
  const int W = L->width;
  ml_i64 i = 0;
  if( (L->win = ml_malloc(sizeof(LgWin)))==0 ) return ML_NOMEM;
  memset(L->win, 0, sizeof(LgWin));
  L->fast = 0;                                     /* rows now enter through ml_mcl_win_update */
  if( L->n>1 ){
    unsigned char *scratch = ml_malloc((uint64_t)L->n*W + ML_RADIX_EXTRA);
    if( scratch==0 ) return ML_NOMEM;
    ml_mcl_sort(L->rec + (size_t)L->head*W, L->n, W, scratch);
    ml_free(scratch);
  }
  while( i<L->n ){
    LgRun R;
    ml_i64 j = ml_mcl_run_read(L->rec + (size_t)L->head*W, i, L->n, W, MC_IS_PROB(d->kind), &R);
    if( lg_win_account(ctx, d, L, i, j, 1) ) return ML_ERROR;
    i = j;
  }
  return ML_OK;
}

/* Builds the wide store afresh from the frame's ids, all of k = K. */
static int lg_win_rebuild(sqlite3_context *ctx, const MlFuncDesc *d, LgAgg *L, int K){
  LgWin *W = L->win;
  int t;
  if( W->mc ) ml_mc_clear(W->mc);
  else if( (W->mc = ml_malloc(ml_mc_agg_bytes()))==0 ) return ML_NOMEM;
  memset(W->mc, 0, ml_mc_agg_bytes());
  for(t=0; t<3; t++) *ml_mc_param(W->mc, t) = L->par[t];      /* before any row: a stream reads them then */
  W->K = K;
  return ml_mcl_assemble(ctx, d, L, L->rec + (size_t)L->head*L->width, L->n, W->mc);
}

/* A window frame's value (or the last, isFinal): the wide store's, when
** every id of the frame is well-formed and of one k; otherwise the sorted
** records assembled afresh (ml_mcl_result), which gives the aggregate's error
** -- or its null, when no id of weight > 0 is left. */
void ml_mcl_win_value(sqlite3_context *ctx, LgAgg *L, int isFinal){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  LgWin *W;
  int k = 0, nk = 0, t, rc;
  if( L==0 || L->failed || L->n==0 ){ ml_mcl_result(ctx, L, isFinal); return; }
  if( !L->win && (rc = lg_win_start(ctx, d, L))!=ML_OK ){
    if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
    ml_mcl_fail(L);
    return;
  }
  W = L->win;
  for(t=2; t<=MC_MAX_K; t++) if( W->nGood[t] ){ k = t; nk++; }
  if( W->nBad || nk!=1 || W->nGoodW==0 ){ ml_mcl_result(ctx, L, isFinal); return; }
  if( k!=W->K && (rc = lg_win_rebuild(ctx, d, L, k))!=ML_OK ){
    if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
    ml_mcl_fail(L);
    return;
  }
  for(t=0; t<3; t++) *ml_mc_param(W->mc, t) = L->par[t];
  if( isFinal ) ml_mc_result(ctx, W->mc, 1);
  else if( ml_mc_value(ctx, W->mc)!=ML_OK ) ml_mcl_fail(L);
}
