/*
** SPDX-License-Identifier: MIT
**
** multiclass_state.c -- the multiclass family's partial states (ml_state.h
** kinds 5, 6): a state's entries absorbed into a group's rows or sums
** (sign +1) or removed from a window frame (-1) through the family's
** MlStateHooks (ml_mc_states), and ml_state_mc's result.  multiclass.c
** calls these (multiclass_impl.h).
**
** Rules (numbered as in multiclass.c, whose other rules hold here):
**  12. States (mc_absorb): every function but ml_state_mc takes a
**      multiclass state in place of y and the scores, the JSON form's
**      parameters after it (mc_calibration(st, 15)), and equals the rows bit
**      for bit: the group's unweighted states are merged (ml_state_kmerge)
**      and each distinct tuple is one kept row whose weight is its count
**      (sums of integer counts are exact), flagged so that mc_confusion sums
**      weights; a window's leaving state subtracts its counts; a weighted state's entry (each row's own
**      weight) and any entry mc_auroc_ci reads (it draws rows) are their
**      count of rows.  A weighted state gives the twins' results.
**      Probability functions check a state's tuples as rows.
**
** Cost: over unweighted states, a merge of their entries (ml_state_kmerge,
** O(entries log states)), one kept row per distinct tuple whatever the
** counts; a weighted state, or mc_auroc_ci, its rows (8 (k + 2) bytes
** each, rule 18).  ml_state_mc: a merge sort of the rows, O(n log n), then
** one pass (docs/states.md).
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "multiclass_impl.h"

/* ------------------------------------------------------------- states */

/* Adds (sign +1) or removes (sign -1) the rows of n multiclass states
** (rule 12): an entry of an unweighted state is one row whose weight is its
** count (every sum over counts is exact, so the results are the rows'
** bit for bit), except for mc_auroc_ci, whose bootstrap draws rows: there,
** and in a group with a weighted state (whose entries keep their rows' own
** weights), the entry is its count of rows.  Probability functions check
** each entry as a row. */
/* The counted rows as their rows of weight 1, once a weighted state joins
** the group (the weighted sweeps add weights one row at a time, so a count
** beside fractional weights must be its rows).  Every row is then a row or
** a counted row (a group with states takes no weights of its own).  ML_OK,
** ML_NOMEM, ML_ERROR (zErr: too many rows). */
static int mc_uncount(McAgg *p, const MlFuncDesc *d, char *zErr, int nErr){
  size_t st = MC_STRIDE(p);
  ml_i64 i, c, total = 0, at = 0;
  double *a;
  if( !p->counted ) return ML_OK;
  for(i=0; i<p->n; i++) total += (ml_i64)p->a[(size_t)(p->head + i)*st + 1];
  if( total > ml_mc_max_rows(d->kind, p->k) ){
    int n;
    sqlite3_snprintf(nErr, zErr, "state: %lld rows (a weighted state's group holds each row): ", (long long)total);
    n = (int)strlen(zErr);
    ml_mc_too_many(zErr + n, nErr - n, d->name, d->kind, p->k);
    return ML_ERROR;
  }
  a = ml_malloc((uint64_t)(total ? total : 1) * st * sizeof(double));
  if( a==0 ) return ML_NOMEM;
  for(i=0; i<p->n; i++){
    const double *r = p->a + (size_t)(p->head + i)*st;
    for(c=0; c<(ml_i64)r[1]; c++, at++){
      memcpy(a + (size_t)at*st, r, st*sizeof(double));
      a[(size_t)at*st + 1] = 1.0;
    }
  }
  ml_free(p->a);
  p->a = a;
  p->head = 0;
  p->n = p->cap = total;
  p->counted = 0;
  return ML_OK;
}

/* Removes count rows equal to (y, s) from counted rows (an unweighted
** state's entries, merged or not, and rows of weight 1: all the same rows),
** oldest first. */
static void mc_remove_count(McAgg *p, int y, ml_i64 count, const double *s){
  size_t st = MC_STRIDE(p);
  ml_i64 i;
  for(i=0; i<p->n && count>0; ){
    double *r = p->a + (size_t)(p->head + i)*st;
    if( r[0]==(double)y && memcmp(r + 2, s, (size_t)p->k*sizeof(double))==0 ){
      ml_i64 take = (ml_i64)r[1] < count ? (ml_i64)r[1] : count;
      r[1] -= (double)take;
      count -= take;
      if( r[1]==0.0 ){
        if( i==0 ){
          p->head++;
        }else{
          memmove(r, r + st, (size_t)(p->n - i - 1)*st*sizeof(double));
        }
        p->n--;
        if( p->n==0 ) p->head = 0;
        continue;
      }
    }
    i++;
  }
}

static int mc_absorb_states(sqlite3_context *ctx, McAgg *p, const MlState *st, int n, int sign, char *zErr, int nErr);

static int mc_absorb_in(sqlite3_context *ctx, McAgg *p, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int j;
  ml_mc_win_free(p);                           /* states: each frame computed afresh */
  ml_mc_srt_free(p);
  if( p->cols ){
    int rc = ml_mc_cols_to_rows(p, d->kind);
    if( rc==ML_ERROR ) ml_mc_too_many(zErr, nErr, d->name, d->kind, p->k);
    if( rc ) return rc;
  }
  for(j=0; sign>0 && !p->wstate && j<n; j++){
    if( st[j].kind==ML_STATE_MC_W ){
      int rc = MC_STREAMS(d->kind) ? ml_mc_stream_weigh(p, d->kind) : mc_uncount(p, d, zErr, nErr);
      if( rc ) return rc;
      p->wstate = 1;
    }
  }
  if( sign>0 && n>1 && !p->wstate && d->kind!=MC_AUROC_CI && !MC_STREAMS(d->kind) ){
    /* counted rows: the states merged first (one k-way merge), so that a
    ** tuple repeated across states is one row */
    MlBuf b;
    MlState one;
    int rc = ml_state_kmerge(st, n, &b, zErr, nErr);
    if( rc ) return rc;
    ml_state_parse_own(b.z, b.n, &one);
    rc = mc_absorb_states(ctx, p, &one, 1, sign, zErr, nErr);
    ml_buf_free(&b);
    return rc;
  }
  return mc_absorb_states(ctx, p, st, n, sign, zErr, nErr);
}

/* A streaming kind's sums left half updated by an error are not read: the
** group fails (its statement fails with the error anyway). */
static int mc_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  McAgg *p = ml_agg_context(ctx, sizeof(*p));
  int rc;
  if( p==0 ) return ML_NOMEM;
  if( p->failed ) return ML_OK;
  rc = mc_absorb_in(ctx, p, st, n, sign, zErr, nErr);
  if( rc!=ML_OK && MC_STREAMS(d->kind) ){ p->failed = 1; ml_mc_clear(p); }
  return rc;
}

static int mc_absorb_states(sqlite3_context *ctx, McAgg *p, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int j, c, i;
  ml_i64 done = 0;
  for(j=0; j<n; j++){
    int k = st[j].m, weighted = st[j].kind==ML_STATE_MC_W;
    int expand = (p->wstate || d->kind==MC_AUROC_CI) && !MC_STREAMS(d->kind);
    if( sign<0 && p->k==0 ) return ML_OK;
    if( p->k!=0 && p->k!=k ){
      if( p->k==1 ){
        sqlite3_snprintf(nErr, zErr, "every row of a group gives pred, or every row its scores: a state "
                         "(scores) after rows with pred");
      }else{
        sqlite3_snprintf(nErr, zErr, "k must be the same in every row of a group: a state with k = %d after "
                         "rows with %d", k, p->k);
      }
      return ML_ERROR;
    }
    if( expand ){
      ml_i64 rows = 0;
      for(c=0; c<k; c++) rows += st[j].sec[c].n[1];
      if( sign>0 && p->n + rows > ml_mc_max_rows(d->kind, k) ){
        int m;
        sqlite3_snprintf(nErr, zErr, "state: %lld rows (%s holds each row): ", (long long)rows,
                         d->kind==MC_AUROC_CI ? "a bootstrap" : "a weighted state's group");
        m = (int)strlen(zErr);
        ml_mc_too_many(zErr + m, nErr - m, d->name, d->kind, k);
        return ML_ERROR;
      }
    }
    if( sign>0 ) p->k = k;
    for(c=0; c<k; c++){
      MlMcReader r;
      MlMcEntry e;
      ml_mc_reader_init(&r, &st[j].sec[c], k, weighted);
      while( ml_mc_reader_next(&r, &e)==1 ){
        double s[MC_MAX_K], w = weighted ? ml_double_of(e.w) : 1.0;
        ml_i64 t, copies = expand ? e.n : 1;
        for(i=0; i<k; i++) s[i] = ml_double_of(e.p[i]);
        if( MC_IS_PROB(d->kind) ){
          double sum = 0.0;
          int bad = ml_prob_row_check(s, k, &sum);
          if( bad>=0 && bad<k ){
            char zNum[32];
            sqlite3_snprintf(nErr, zErr, "p_%d must be a probability in [0, 1], got %s in a state", bad,
                             ml_num(zNum, s[bad]));
            return ML_ERROR;
          }
          if( bad==k ){
            char zNum[32];
            sqlite3_snprintf(nErr, zErr, "the probabilities of a row must sum to 1 (within 1e-6), got %s "
                             "over p_0..p_k-1 in a state", ml_num(zNum, sum));
            return ML_ERROR;
          }
        }
        if( MC_STREAMS(d->kind) ){                /* c rows of weight w (1: counted) */
          if( ml_mc_stream_add(p, d->kind, c, s, w, e.n, sign) ) return ML_NOMEM;
          continue;
        }
        if( !expand ){ w = (double)e.n; p->counted = 1; }
        for(t=0; t<copies; t++){
          if( sign>0 ){
            int rc = ml_mc_append(p, c, w, s, d->kind);
            if( rc==ML_ERROR ) ml_mc_too_many(zErr, nErr, d->name, d->kind, k);
            if( rc ) return rc;
          }else if( expand ){
            ml_mc_remove(p, c, w, s);
          }else{
            mc_remove_count(p, c, e.n, s);
          }
          if( (++done & 0xffff)==0 && ml_stop_requested() ) return ML_STOPPED;
        }
      }
    }
  }
  return ML_OK;
}
const MlStateHooks ml_mc_states = { sizeof(McAgg), -1, (1u<<ML_STATE_MC) | (1u<<ML_STATE_MC_W), mc_absorb };

/* ml_state_mc: the group's rows as a multiclass state (ml_state.h). */
void ml_mc_state_result(sqlite3_context *ctx, const McAgg *p, int weighted){
  MlBuf b;
  double *rows = p->a + (size_t)p->head*MC_STRIDE(p);
  if( p->k==1 ){
    ml_error(ctx, "ml_state_mc", "takes the scores of every class, not pred");
    return;
  }
  if( ml_state_encode_mc(rows, p->n, p->k, weighted, &b) ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_blob64(ctx, b.z, b.n, sqlite3_free);
}
