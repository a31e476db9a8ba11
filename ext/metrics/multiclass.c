/*
** SPDX-License-Identifier: MIT
**
** multiclass.c -- metrics of k-class classifiers (k >= 2): the row's true
** class y in 0..k-1 and its k class scores.
** This file holds the records, the rows (read, kept, the columns form),
** the steps and the results' dispatch; its rooms (multiclass_impl.h) hold
** the ranking results and mc_auroc_ci (multiclass_rank.c), the streaming
** kinds (multiclass_stream.c), the window frames (multiclass_window.c) and
** the states (multiclass_state.c).
**
** SQL functions (all aggregate and window functions):
**   mc_auroc(y, s_0, ..., s_k-1)      JSON {"k","n","ovr_macro","ovr_weighted",
**   mc_auroc(y, scores)                 "micro","ovo_macro","ovo_weighted","per_class"}
**   mc_pr_auc(y, s_0, ..., s_k-1)     JSON {"k","n","macro","weighted","micro","per_class"}
**   mc_log_loss(y, p_0, ..., p_k-1)   mean of -ln(clip(p_y, 1e-15, 1))
**   mc_brier(y, p_0, ..., p_k-1)      mean of sum_j (1[y = j] - p_j)^2
**   mc_confusion(y, s_0, ..., s_k-1)  JSON {"k","n","matrix","accuracy","balanced_accuracy",
**   mc_confusion(y, pred)               "precision","recall","f1","support","macro_f1",
**                                       "weighted_f1","micro_f1","kappa","kappa_linear",
**                                       "kappa_quadratic","mcc"}
**   mc_top_k(y, s_0, ..., s_k-1)      JSON [top-1, ..., top-(k-1) accuracy]
**   ordinal_rps(y, p_0, ..., p_k-1)   mean of sum_{j<k-1} (F_j - O_j)^2 / (k - 1)
**   mc_auroc_ci(y, s_0, ..., s_k-1 | y, scores [, level, reps, seed])  JSON: the BCa
**       bootstrap (1000 replicates, seed 0, level 0.95, as pr_auc_ci) of ovr_macro and
**       ovo_macro: {"ovr_macro":{"estimate","lo","hi","se","percentile"},"ovo_macro":{...},
**       "level","reps","seed","method","redrawn","k","n"}
**   ml_state_mc(y, s_0, ..., s_k-1 | y, scores), ml_state_mc_w(y, ..., w)  BLOB: a
**       multiclass partial state (ml_state.h kinds 5, 6; rule 12)
**   mc_auroc_ci_w(y, ..., w [, ...])  mc_auroc_ci's weighted bootstrap (rule 11)
**   mc_calibration(y, p_0, ..., p_k-1 | y, probs [, bins])  JSON {"k","bins",
**       "top_label_ece","classwise_ece","per_class_ece","mce"}: the binary ece's
**       equal-width bins (default 10) on (max p, argmax = y) and on each (p_j, y = j)
** each also as NAME(y, scores) / NAME(y, probs), one JSON array of the k
** values ('[0.2, 0.5, 0.3]', or json_group_array(p ORDER BY class) over long rows),
** and each with a weighted twin NAME_w(y, p_0, ..., p_k-1, w) /
** NAME_w(y, probs, w [, params]): the weight right after the scores, as in
** every twin (the driver places it: ML_FN_TWIN_WLAST, rule 14).
**
** Rules:
**   1. k is the number of scores, 2..16 (MC_MAX_K, as the ordinal family's cuts), the same in every row of
**      a group or window partition, else an error naming both counts.  The
**      scores are read by the shared reader ml_arg_scores (ml_args.c): the
**      wide form (k arguments) and the JSON form (one argument) are the
**      same rows, bit for bit, whenever the JSON text holds the same
**      doubles.  y is an integer 0..k-1 (ml_arg_label).
**   2. mc_auroc and mc_pr_auc take any numbers; mc_log_loss and mc_brier
**      take probabilities in [0, 1] whose row sums to 1 within 1e-6, used as
**      given (never renormalised).
**   3. A NULL y, a NULL score, a NULL array or a null element skips the row;
**      weighted twins: a NULL or 0 weight skips it too (after the row is
**      checked), a negative, infinite or non-numeric weight is an error.
**   4. No row (no row of positive weight) gives NULL with a warning.  In
**      the JSON results, a class with no row makes the per-class value and
**      every average that needs each class null (ovr_*, ovo_*, macro,
**      weighted), and "reason" names the class; micro needs only a row.  A
**      class holding every row makes its per-class value null as well
**      (rule 16).
**   5. OvR, micro and OvO: multiclass_rank.c, rule 5.
**   6. Weighted twins: counts become sums of weights.  Every sum is taken
**      in an order fixed by the rows' values alone (ties are ordered by
**      weight; log_loss and brier sum exactly, ml_xsum), so a result does
**      not depend on the rows' order, a window frame equals the aggregate
**      over its rows, and integer weights equal repeated rows bit for bit.
**   7. Streaming kinds (mc_log_loss, mc_brier, ordinal_rps, mc_top_k,
**      mc_confusion, mc_calibration) keep no row: multiclass_stream.c,
**      rule 7.  The other kinds keep the rows in arrival order; xInverse
**      removes the leaving row (the oldest, found from the front); each
**      result is computed afresh from them.
**   8. mc_confusion: the predicted class is the first index of the highest
**      score (numpy.argmax), or with two arguments whose second is not a
**      JSON array, pred, an integer class 0..15 (a row of k = 1 here); the
**      matrix then spans 0..max(y, pred), at least 2 classes.  A group gives
**      pred in every row or scores in every row.  Ratios with a zero
**      denominator, and mcc when a margin is constant, are null.
**   9. mc_top_k's ties: multiclass_stream.c, rule 9.
**  10. Parameters exist only in the JSON form, after the array
**      (mc_calibration(y, probs, 15)); the wide form takes the defaults, so
**      no call is ambiguous.  bins: an integer 1..100000, the same in every
**      row of a group (MlParam).  mce is the top label's.
**  11. mc_auroc_ci's bootstrap: multiclass_rank.c, rule 11.
**  12. States: multiclass_state.c, rule 12.
**  13. The step reads the common row inline (an INTEGER class in range and
**      k numbers in the wide form, after the group's first row); any other
**      row goes through mc_row and ml_arg_scores, which read it again, so
**      both paths take the same rows and give the same errors.  mc_top_k's
**      and mc_confusion's common row, once the group counts, is read and
**      counted in their own step, mc_step_counting (mc_count_fast: the true
**      class's place or the argmax as the scores are read, no other call;
**      the other kinds' step, mc_step, pays nothing for it).
**  14. Twins: the weight comes right after the scores, as in every twin
**      (round 5): the last argument of the wide form, the argument after
**      the array in the JSON form, before its parameters.  The driver
**      places it (ML_FN_TWIN_WLAST: argv[1] a JSON array, or not); a row
**      whose argv[1] is NULL is skipped, its weight read as the wide form's.
**      A call in round 4's order (y, w, s_0, ...) has the same arity as
**      this one and cannot be told from it (docs/multiclass.md).
**  15. Scale (docs/weights.md, "Scale"): a weighted group's weights are
**      multiplied by one power of two (ml_pow2_scale of the largest) while
**      a result is computed and restored after it (exact both ways) -- the
**      streaming kinds hold each weight as w 2^-e0, e0 the exponent of the
**      group's first weight (exact, and a power of two like the other) -- so
**      that no product of weight sums (P N, the Mann-Whitney sums, kappa's
**      and mcc's margins, w p in the means) underflows or overflows,
**      whatever the weights' scale; c w gives w's result, bit for bit when
**      c is a power of two.  Sums of weights in a result (n, matrix,
**      support) are reported at the weights' own scale.
**  16. A class holding every row: multiclass_rank.c, rule 16.
**  17. mc_auroc over a window frame: multiclass_window.c, rule 17.
**  18. Row limit: the kinds that keep rows hold them, and their result's
**      scratch, in one block each, and SQLite allocates at most 2 GiB at
**      once: a group holds at most (2^31 - 2^20) / b rows, b the bytes a
**      row of the largest block (mc_block_bytes: 8 (k + 2) for the rows,
**      16 (k + 1) for mc_auroc's and mc_pr_auc's columns, 16 + 8 (k + 2) +
**      16 (k + 1) for mc_auroc_ci); one more row is an error "more than N
**      rows in one group", not "out of memory" (issue 44 item 3).  A
**      weighted state's entries, and any that mc_auroc_ci reads, count
**      as their rows.
**  19. The columns form: mc_auroc and mc_pr_auc (unweighted, until a
**      window's first result or a state) keep no rows but their k score
**      columns as the sort's records (key of s_j, the class in aux: 16 k
**      bytes a row, each column its own block), in arrival order, grown
**      by a quarter past 2^20 rows (at most 20 k bytes a row held while
**      stepping, 80.5 B/row at 10^7 rows and k = 3 with doubling); the
**      final result shrinks each to its rows (no growth slack kept),
**      sorts it in place with one column of scratch and sweeps it (the
**      sweeps read only the class: every weight is 1), so its peak is
**      16 (k + 1) bytes a row and a group holds up to (2^31 - 2^20) / 16
**      rows (134 M) whatever k.  A window's first xValue, its first
**      xInverse, or a state turns the columns back into rows (exact: the
**      key of a score gives the score back, -0.0 as +0.0, which rows
**      compare as equal).
**  20. mc_pr_auc over a window frame: multiclass_window.c, rule 20.
**  21. mc_auroc_w and mc_pr_auc_w over a window frame: multiclass_window.c,
**      rule 21.
**
** Cost: the kinds that keep rows: 8 (k + 2) bytes per row (y, weight, k
** scores), mc_auroc and mc_pr_auc 16 k (the columns form, rule 19); over
** unweighted states the same per distinct tuple of their merge (O(entries
** log states)), whatever the counts.  ml_state_mc: a merge sort of the
** rows, O(n log n), then one pass; its state takes ~1.4 k bytes per
** distinct row for 2-decimal probabilities, ~7.7 k for full doubles
** (docs/states.md).  The streaming kinds' sums: multiclass_stream.c; the
** sorts and sweeps of mc_auroc, mc_pr_auc and mc_auroc_ci:
** multiclass_rank.c; the window frames: multiclass_window.c.
*/
#include <float.h>
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "multiclass.h"      /* the kinds (MC_AUROC ...), MC_IS_PROB, MC_MAX_K */
#include "multiclass_impl.h" /* McAgg, McRank, McStream, the other rooms' entry points */

static void mc_cols_free(McAgg *p){
  int j;
  for(j=0; j<MC_MAX_K; j++){ ml_free(p->col[j]); p->col[j] = 0; }
  p->capcol = 0;
  if( p->cols ){ p->cols = 0; p->n = 0; }
}

static void mc_clear(McAgg *p){
  ml_mc_stream_free(p);
  ml_mc_win_free(p);
  ml_mc_srt_free(p);
  ml_mc_wsrt_free(p);
  mc_cols_free(p);
  ml_free(p->a);
  p->a = 0;
  p->head = p->n = p->cap = 0;
}

/* How many parameters the call gives: only the JSON form has them, after
** the array (mc_calibration(y, probs, bins), mc_auroc_ci(y, scores, level,
** reps, seed)); a wide call has none. */
static int mc_has_param(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv){
  if( d->aParam==0 || argc<3 ) return 0;
  if( ml_value_is_array(argv[1]) ) return argc-2;
  /* a state's own call of the step: (NULL, NULL, parameters...) */
  if( sqlite3_value_type(argv[0])==SQLITE_NULL && sqlite3_value_type(argv[1])==SQLITE_NULL
   && ml_state_nested(ctx) ) return argc-2;
  return 0;
}

/* Reads a row: y, and the k scores after it (isProb from the kind).
** mc_confusion(y, pred), pred an integer class, is the row k = 1 whose one
** "score" is pred (rule 8). */
static int mc_row(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                  int *y, double *s, int *k){
  char zWide[160];
  ml_i64 yv;
  int rc, nArg;
  if( sqlite3_value_type(argv[0])==SQLITE_NULL ) return ML_ROW_SKIP;
  if( d->kind==MC_CONFUSION && argc==2 && !ml_value_is_array(argv[1]) ){
    ml_i64 pr;
    char zWhat[40];
    if( sqlite3_value_type(argv[1])==SQLITE_NULL ) return ML_ROW_SKIP;
    sqlite3_snprintf(sizeof(zWhat), zWhat, "an integer class in 0..%d", MC_MAX_K-1);
    if( !ml_value_integer(argv[1], 0, MC_MAX_K-1, &pr) ){
      char *zV = ml_describe(argv[1]);
      if( zV==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
      ml_error(ctx, d->name, "pred must be %s, got %s", zWhat, zV);
      sqlite3_free(zV);
      return ML_ROW_ERR;
    }
    s[0] = (double)pr;
    *k = 1;
    return ml_arg_label(ctx, d->name, argv[0], MC_MAX_K-1, y);
  }
  nArg = mc_has_param(ctx, d, argc, argv) ? 1 : argc-1;
  if( nArg>1 && d->aParam ){
    /* a wide call with a parameter reads it as one more score: say where
    ** parameters go (rule 10) */
    char zPar[96];
    int i, n = 0;
    zPar[0] = 0;
    for(i=0; d->aParam[i]; i++){
      sqlite3_snprintf((int)sizeof(zPar) - n, zPar + n, ", %s", d->aParam[i]->name);
      n += (int)strlen(zPar + n);
    }
    sqlite3_snprintf((int)sizeof(zWide), zWide, "parameters exist only in the JSON form: %s(y, %s%s%s)", d->name,
                     MC_IS_PROB(d->kind) ? "probs" : "scores", (d->flags & ML_FN_TWIN) ? ", w" : "", zPar);
  }
  rc = ml_arg_scores(ctx, d->name, argv+1, nArg, MC_IS_PROB(d->kind), MC_MAX_K, nArg>1 && d->aParam ? zWide : 0,
                     s, k);
  if( rc!=ML_ROW_OK ) return rc;
  if( ml_value_integer(argv[0], *k, (ml_i64)1<<53, &yv) ){
    /* a class past the scores: a score column missing, most often; the
    ** words of ml_arg_label's message, then where k comes from */
    char zNum[32], zWhat[48];
    if( *k==2 ) sqlite3_snprintf(sizeof(zWhat), zWhat, "0 or 1");
    else sqlite3_snprintf(sizeof(zWhat), zWhat, "an integer in 0..%d", *k-1);
    if( nArg>1 ){
      ml_error(ctx, d->name, "y must be %s, got %s (k = %d: %d %s arguments, so y in 0..%d)", zWhat,
               ml_num(zNum, (double)yv), *k, *k, MC_IS_PROB(d->kind) ? "probability" : "score", *k-1);
    }else{
      ml_error(ctx, d->name, "y must be %s, got %s (k = %d: %s holds %d numbers, so y in 0..%d)", zWhat,
               ml_num(zNum, (double)yv), *k, MC_IS_PROB(d->kind) ? "probs" : "scores", *k, *k-1);
    }
    return ML_ROW_ERR;
  }
  return ml_arg_label(ctx, d->name, argv[0], *k-1, y);
}

/* SQLite allocates at most 2^31 - 257 bytes at once (its default
** SQLITE_MAX_ALLOCATION_SIZE), and the kinds that keep rows keep them, and
** their result's scratch, in one block each: the most rows a group of
** k scores can hold is the largest block's limit (rule 18), minus a margin
** for the sort's extra. */
#define MC_MAX_BLOCK (((ml_i64)1<<31) - ((ml_i64)1<<20))

/* Bytes a row of the largest block a kind allocates: the rows (8 (k + 2));
** mc_auroc's and mc_pr_auc's k sorted columns and one column's scratch
** (16 (k + 1)); mc_auroc_ci's canonical order, drawn rows and that scratch
** in one block. */
static ml_i64 mc_block_bytes(int kind, int k){
  ml_i64 rows = 8*((ml_i64)k + 2), cols = 16*((ml_i64)k + 1);
  if( kind==MC_AUROC || kind==MC_PR_AUC ) return cols>rows ? cols : rows;
  if( kind==MC_AUROC_CI ) return 16 + rows + cols;
  return rows;
}

/* The most rows a group of kind and k holds (rule 18). */
ml_i64 ml_mc_max_rows(int kind, int k){ return MC_MAX_BLOCK / mc_block_bytes(kind, k); }

/* "more than N rows in one group" (rule 18) into zErr. */
void ml_mc_too_many(char *zErr, int nErr, const char *zName, int kind, int k){
  sqlite3_snprintf(nErr, zErr, "more than %lld rows in one group (k = %d): %s holds %lld bytes a row in one "
                   "block, and SQLite allocates at most 2 GiB at once", (long long)ml_mc_max_rows(kind, k), k, zName,
                   (long long)mc_block_bytes(kind, k));
}

/* Appends a row; ML_OK, ML_NOMEM (the buffer is kept as it was), or
** ML_ERROR past the kind's row limit (ml_mc_max_rows). */
int ml_mc_append(McAgg *p, int y, double w, const double *s, int kind){
  size_t st = MC_STRIDE(p);
  double *r;
  if( p->head + p->n >= p->cap ){
    if( p->head > 0 && p->head >= p->n ){        /* slide the rows to the front */
      memmove(p->a, p->a + p->head*st, (size_t)p->n*st*sizeof(double));
      p->head = 0;
    }else{
      ml_i64 cNew = p->cap ? p->cap*2 : 16, mx = ml_mc_max_rows(kind, p->k);
      double *a;
      if( p->n>=mx ) return ML_ERROR;
      if( cNew>mx ) cNew = mx;
      a = ml_realloc(p->a, (uint64_t)cNew * st * sizeof(double));
      if( a==0 ) return ML_NOMEM;
      p->a = a;
      p->cap = cNew;
    }
  }
  r = p->a + (size_t)(p->head + p->n)*st;
  r[0] = (double)y;
  r[1] = w;
  memcpy(r + 2, s, (size_t)p->k*sizeof(double));
  p->n++;
  return ML_OK;
}

/* Removes one row equal to (y, w, s): the oldest in practice (SQLite
** removes rows from a frame in the order it added them). */
void ml_mc_remove(McAgg *p, int y, double w, const double *s){
  size_t st = MC_STRIDE(p);
  ml_i64 i;
  for(i=0; i<p->n; i++){
    const double *r = p->a + (size_t)(p->head + i)*st;
    int j;
    for(j=0; j<p->k && r[2 + j]==s[j]; j++){}     /* == : -0.0 and +0.0 are one score (ml_key_of) */
    if( r[0]==(double)y && r[1]==w && j==p->k ){
      if( i==0 ){
        p->head++;
      }else{
        double *at = p->a + (size_t)(p->head + i)*st;
        memmove(at, at + st, (size_t)(p->n - i - 1)*st*sizeof(double));
      }
      p->n--;
      if( p->n==0 ) p->head = 0;
      return;
    }
  }
}

/* ---------------------------------------------------- the columns form */

/* Rule 19: the most rows the columns form holds (one column, then its
** sort's scratch, each one block of 16 bytes a row). */
#define MC_MAX_COL_ROWS (MC_MAX_BLOCK / 16)

/* Appends a row to the columns form.  ML_OK, ML_NOMEM (unchanged) or
** ML_ERROR (past MC_MAX_COL_ROWS). */
static int mc_col_append(McAgg *p, int y, const double *s){
  int j, k = p->k;
  if( p->n>=p->capcol ){
    /* doubling, then a quarter more past 2^20 rows: the slack held while
    ** stepping stays at most 1/4 of the rows (rule 19) */
    ml_i64 cNew = p->capcol==0 ? 64 : p->capcol < (1<<20) ? p->capcol*2 : p->capcol + p->capcol/4;
    if( p->n>=MC_MAX_COL_ROWS ) return ML_ERROR;
    if( cNew>MC_MAX_COL_ROWS ) cNew = MC_MAX_COL_ROWS;
    for(j=0; j<k; j++){
      MlRec16 *c = ml_realloc(p->col[j], (uint64_t)cNew*16);
      if( c==0 ) return ML_NOMEM;               /* the columns grown so far keep their rows */
      p->col[j] = c;
    }
    p->capcol = cNew;
  }
  for(j=0; j<k; j++){
    p->col[j][p->n].key = ml_key_of(s[j]);
    p->col[j][p->n].aux = (double)y;
  }
  p->n++;
  p->cols = 1;
  return ML_OK;
}

/* The columns form back to rows (weight 1), in arrival order: what a window
** frame or a state needs (rule 19).  ML_OK, ML_NOMEM or ML_ERROR (the row
** limit: ml_mc_too_many), the columns then kept. */
int ml_mc_cols_to_rows(McAgg *p, int kind){
  ml_i64 t, n = p->n;
  int j, rc;
  double s[MC_MAX_K];
  if( !p->cols ) return ML_OK;
  p->n = 0;
  p->cols = 0;
  for(t=0; t<n; t++){
    for(j=0; j<p->k; j++) s[j] = ml_double_of(p->col[j][t].key);
    if( (rc = ml_mc_append(p, (int)p->col[0][t].aux, 1.0, s, kind))!=ML_OK ){
      ml_free(p->a);
      p->a = 0;
      p->head = p->cap = 0;
      p->n = n;
      p->cols = 1;
      return rc;
    }
  }
  mc_cols_free(p);
  return ML_OK;
}

/* A row enters: the sums of a streaming kind, the kept rows of any other.
** ML_OK, ML_NOMEM, or ML_ERROR (past the row limit: ml_mc_too_many). */
static int mc_add(McAgg *p, const MlFuncDesc *d, int y, double w, const double *s){
  int kind = d->kind, rc;
  if( MC_STREAMS(kind) ) return ml_mc_stream_add(p, kind, y, s, w, 1, 1);
  if( p->cols || ((kind==MC_AUROC || kind==MC_PR_AUC) && !(d->flags & ML_FN_TWIN) && p->a==0 && p->n==0
                  && !p->counted && !p->wstate) ){
    return mc_col_append(p, y, s);            /* the columns form (rule 19) */
  }
  rc = ml_mc_append(p, y, w, s, kind);
  if( rc ) return rc;
  if( p->win && ml_mc_win_row(p->win, p->k, y, s, 1) ) ml_mc_win_free(p);
  if( p->srt && ml_mc_srt_row(p->srt, p->k, y, s, 1) ) ml_mc_srt_free(p);
  if( p->wsrt && ml_mc_wsrt_row(p->wsrt, p->k, y, w, s, 1) ) ml_mc_wsrt_free(p);
  return ML_OK;
}

/* Reports mc_add's failure: out of memory, or the row limit (rule 18). */
static void mc_add_failed(sqlite3_context *ctx, const MlFuncDesc *d, const McAgg *p, int rc){
  char z[200];
  if( rc==ML_NOMEM ){ sqlite3_result_error_nomem(ctx); return; }
  if( p->cols ){
    ml_error(ctx, d->name, "more than %lld rows in one group (k = %d): %s holds 16 bytes a row in each of "
             "%d blocks, and SQLite allocates at most 2 GiB at once", (long long)MC_MAX_COL_ROWS, p->k, d->name,
             p->k);
  }else{
    ml_mc_too_many(z, sizeof(z), d->name, d->kind, p->k);
    ml_error(ctx, d->name, "%s", z);
  }
}

/* The step of a row of weight w (1 for the unweighted functions; 0: the
** row is checked and skipped; < 0: the driver set the weight's error). */
static void mc_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  McAgg *p = ml_agg_context(ctx, sizeof(*p));
  double s[MC_MAX_K];
  int y, k, rc;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( p->failed ) return;
  if( w<0.0 ){ p->failed = 1; mc_clear(p); return; }
  if( d->flags & ML_FN_TWIN ) p->wmode = 1;
  for(k=0; d->aParam && k<mc_has_param(ctx, d, argc, argv); k++){
    const MlParamSpec *ps = d->aParam[k];
    ml_i64 iv;
    double v;
    if( ps->type==ML_PT_INT ? ml_param_int(ctx, d->name, ps, argv[2+k], &p->par[k], &iv)
                            : ml_param_real(ctx, d->name, ps, argv[2+k], &p->par[k], &v) ){
      p->failed = 1;
      mc_clear(p);
      return;
    }
  }
  /* The common row read inline (rule 13): the wide form of the group's k,
  ** an INTEGER class in range, numeric scores (probabilities in [0, 1]
  ** summing to 1 within 1e-6, the sum taken as ml_arg_scores takes it).
  ** Anything else -- a NULL, a text, the first row, an error -- goes
  ** through mc_row, which reads it again and says what is wrong. */
  if( argc-1==p->k && p->k>=2 && sqlite3_value_type(argv[0])==SQLITE_INTEGER ){
    sqlite3_int64 yv = sqlite3_value_int64(argv[0]);
    int j, isProb = MC_IS_PROB(d->kind);
    if( yv>=0 && yv<p->k ){
      double sum;
      for(j=0; j<p->k; j++){
        int t = sqlite3_value_type(argv[1+j]);
        if( t!=SQLITE_FLOAT && t!=SQLITE_INTEGER ) break;
        s[j] = sqlite3_value_double(argv[1+j]);
      }
      if( j==p->k && isProb && ml_prob_row_check(s, p->k, &sum)>=0 ) j = 0;
      /* mc_top_k's and mc_confusion's row counted here, as
      ** ml_mc_stream_add counts it (rules 7, 9) */
      if( j==p->k && ml_mc_count_row(p, d->kind, (int)yv, s) ){
        p->ckind = d->kind;                   /* mc_step_counting may count the next rows itself */
        return;
      }
      if( j==p->k ){
        if( w!=0.0 && (rc = mc_add(p, d, (int)yv, w, s))!=ML_OK ){
          mc_add_failed(ctx, d, p, rc);
          mc_clear(p);
          p->failed = 1;
        }
        return;
      }
    }
  }
  rc = mc_row(ctx, d, argc, argv, &y, s, &k);
  if( rc==ML_ROW_OK && p->k!=0 && k!=p->k ){
    if( k==1 || p->k==1 ){
      ml_error(ctx, d->name, "every row of a group gives pred, or every row its scores: a row with %s "
               "after rows with %s", k==1 ? "pred" : "scores", p->k==1 ? "pred" : "scores");
    }else{
      ml_error(ctx, d->name, "k must be the same in every row of a group: a row with %d scores "
               "after rows with %d", k, p->k);
    }
    rc = ML_ROW_ERR;
  }
  if( rc==ML_ROW_ERR ){ p->failed = 1; mc_clear(p); return; }
  if( rc!=ML_ROW_OK || w==0.0 ) return;
  p->k = k;
  if( (rc = mc_add(p, d, y, w, s))!=ML_OK ){
    mc_add_failed(ctx, d, p, rc);
    mc_clear(p);
    p->failed = 1;
  }
}

static void mc_unrow(sqlite3_context *ctx, const MlFuncDesc *d, McAgg *p, int y, double w, const double *s);
static void mc_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  McAgg *p = sqlite3_aggregate_context(ctx, 0);
  double s[MC_MAX_K];
  int y, k;
  if( p==0 || p->failed ) return;
  for(k=0; k<mc_has_param(ctx, d, argc, argv); k++) ml_param_drop(&p->par[k], argv[2+k]);
  if( p->k==0 || w<=0.0 ) return;
  if( mc_row(ctx, d, argc, argv, &y, s, &k)!=ML_ROW_OK || k!=p->k ) return;
  mc_unrow(ctx, d, p, y, w, s);
}

/* Removes a row (y, w > 0, s) that was added, from the rows or the streaming
** sums and from a window's structures (the wide xInverse, and the long
** layout's windows through ml_mc_remove_row). */
static void mc_unrow(sqlite3_context *ctx, const MlFuncDesc *d, McAgg *p, int y, double w, const double *s){
  if( p->cols && ml_mc_cols_to_rows(p, d->kind) ){
    /* out of memory (or the row limit) turning the columns into rows:
    ** the group fails */
    sqlite3_result_error_nomem(ctx);
    mc_clear(p);
    p->failed = 1;
    return;
  }
  if( MC_STREAMS(d->kind) ) ml_mc_stream_add(p, d->kind, y, s, w, 1, -1);   /* removes: no allocation */
  else{
    ml_mc_remove(p, y, w, s);
    if( p->win && ml_mc_win_row(p->win, p->k, y, s, -1) ) ml_mc_win_free(p);
    if( p->srt && ml_mc_srt_row(p->srt, p->k, y, s, -1) ) ml_mc_srt_free(p);
    if( p->wsrt && ml_mc_wsrt_row(p->wsrt, p->k, y, w, s, -1) ) ml_mc_wsrt_free(p);
  }
}

/*
** SQL function: mc_auroc(y, s_0, ..., s_k-1 | y, scores), mc_pr_auc(...),
**   mc_log_loss(y, p_0, ..., p_k-1 | y, probs), mc_brier(...)  -- xStep, xInverse; the twins
**   NAME_w(y, ..., w) come through the driver (ML_FN_TWIN_WLAST) to the _w pair.
*/
/* mc_top_k's and mc_confusion's common row once its group counts (rule
** 13: the wide form of the group's k >= 2, an INTEGER y in 0..k-1, numeric
** scores; unweighted, not failed), read and counted with no call but
** SQLite's value readers: 1; else 0, nothing done (mc_step_w reads it). */
static ML_ALWAYS_INLINE int mc_count_fast(McAgg *p, int argc, sqlite3_value **argv){
  sqlite3_int64 yv;
  double v, best;
  int j, t, k = p->k, a, b;
  if( p->ckind==0 || argc-1!=k || k<2 || p->ss==0 || p->wmode || p->failed ) return 0;
  yv = sqlite3_value_int64(argv[0]);
  if( yv<0 || yv>=k ) return 0;
  if( p->ckind==MC_TOP_K ){
    /* the true class's place as the scores are read, as ml_mc_count_row
    ** finds it: a classes above s_y, b tied with it (itself included) */
    t = sqlite3_value_type(argv[1+yv]);
    if( t!=SQLITE_FLOAT && t!=SQLITE_INTEGER ) return 0;
    best = sqlite3_value_double(argv[1+yv]);
    a = 0;
    b = best==best;
    for(j=0; j<k; j++){
      if( j==yv ) continue;
      t = sqlite3_value_type(argv[1+j]);
      if( t!=SQLITE_FLOAT && t!=SQLITE_INTEGER ) return 0;
      v = sqlite3_value_double(argv[1+j]);
      a += v>best;
      b += v==best;
    }
    p->ss->cnt[a*MC_MAX_K + b-1]++;
  }else{
    /* mc_confusion: the first highest score's class (ml_mc_argmax) */
    for(j=0, b=0, best=0.0; j<k; j++){
      t = sqlite3_value_type(argv[1+j]);
      if( t!=SQLITE_FLOAT && t!=SQLITE_INTEGER ) return 0;
      v = sqlite3_value_double(argv[1+j]);
      if( j==0 || v>best ){ best = v; b = j; }
    }
    p->ss->cnt[yv*MC_MAX_K + b]++;
  }
  p->n++;
  return 1;
}

static void mc_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  if( ML_STATE_DIVERT(ctx, argc, argv, sqlite3_value_type(argv[0]), 0) ) return;
  mc_step_w(ctx, argc, argv, 1.0);
}

/* mc_top_k's and mc_confusion's xStep (famMcCount): the common row counted
** here (mc_count_fast), any other as mc_step takes it.  A step of its own,
** so that the other kinds' rows pay nothing for it. */
static void mc_step_counting(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int t0 = sqlite3_value_type(argv[0]);
  if( t0==SQLITE_INTEGER ){
    McAgg *p = ml_agg_context(ctx, sizeof(*p));
    if( p && mc_count_fast(p, argc, argv) ) return;
  }else if( ML_STATE_DIVERT(ctx, argc, argv, t0, 0) ){
    return;
  }
  mc_step_w(ctx, argc, argv, 1.0);
}
static void mc_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  if( ML_STATE_DIVERT(ctx, argc, argv, sqlite3_value_type(argv[0]), 1) ) return;
  mc_inverse_w(ctx, argc, argv, 1.0);
}

/* ------------------------------------------------------------ results */

/* Rule 15: multiplies the n rows' weights by f, a power of two. */
static void mc_weights_times(McAgg *p, double f){
  size_t st = MC_STRIDE(p);
  ml_i64 i;
  for(i=0; i<p->n; i++) p->a[(size_t)(p->head + i)*st + 1] *= f;
}

/* Rule 15: the power of two that brings the largest weight to [1, 2)
** (ml_pow2_scale), applied to every weight; 1 (nothing applied) when a
** weight times it would leave the normal range, where it could not be
** undone exactly (weights spanning more than 2^1021). */
static double mc_weights_scale(McAgg *p){
  size_t st = MC_STRIDE(p);
  double mx = 0.0, mn = INFINITY, sc;
  ml_i64 i;
  for(i=0; i<p->n; i++){
    double w = p->a[(size_t)(p->head + i)*st + 1];
    if( w>mx ) mx = w;
    if( w<mn ) mn = w;
  }
  sc = ml_pow2_scale(mx);
  if( sc==1.0 || !(mn*sc>=DBL_MIN) ) return 1.0;
  mc_weights_times(p, sc);
  return sc;
}

static void mc_compute(sqlite3_context *ctx, McAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int c;
  int weighted = (d->flags & ML_FN_TWIN)!=0 || (p && p->wstate);
  double sc = 1.0;
  for(c=0; p && d->aParam && d->aParam[c]; c++){
    if( ml_param_check(ctx, d->name, d->aParam[c]->name, &p->par[c]) ) return;
  }
  if( p==0 || p->n==0 ){
    ml_result_null(ctx, d->name, weighted ? "no rows of positive weight" : "no rows");
    return;
  }
  if( d->kind==MC_STATE ){
    ml_mc_state_result(ctx, p, weighted);            /* the weights as given */
    return;
  }
  if( MC_STREAMS(d->kind) ){
    ml_mc_stream_result(ctx, p, d->kind);
    return;
  }
  if( weighted ) sc = mc_weights_scale(p);
  if( d->kind==MC_AUROC_CI ){
    ml_mc_auroc_ci_result(ctx, p, weighted);
  }else{
    McRank *R = ml_malloc(sizeof(*R));
    int rc = R==0 ? ML_NOMEM : p->win ? ml_mc_win_rank(p, R) : p->srt ? ml_mc_srt_rank(p, R)
           : p->wsrt ? ml_mc_wsrt_rank(p, R, sc) : p->cols ? ml_mc_rank_held(p, R) : ml_mc_rank(p, weighted, R, 0);
    if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
    else if( rc==ML_OK && d->kind==MC_AUROC ) ml_mc_auroc_json(ctx, R, 1.0/sc);
    else if( rc==ML_OK ) ml_mc_pr_auc_json(ctx, R, 1.0/sc);
    ml_free(R);
  }
  if( sc!=1.0 ) mc_weights_times(p, 1.0/sc);      /* the rows as they came (xInverse matches them) */
}

static void mc_result(sqlite3_context *ctx, McAgg *p, int isFinal){
  if( p && p->failed ) return;
  if( ml_compute_begin(ctx, isFinal, p && !MC_STREAMS(((const MlFuncDesc*)sqlite3_user_data(ctx))->kind)
                                     ? p->n * (p->k + 1) : 0) ) return;
  mc_compute(ctx, p);
  ml_compute_end(ctx);
}

/* A window frame's value (xValue): the rows form, and the windows' kept
** structures started at the first frame. */
static void mc_value_of(sqlite3_context *ctx, McAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int rc;
  if( p && !p->failed && p->cols && (rc = ml_mc_cols_to_rows(p, d->kind))!=ML_OK ){
    mc_add_failed(ctx, d, p, rc);
    mc_clear(p);
    p->failed = 1;
    return;
  }
  if( p && !p->failed && !p->win && d->kind==MC_AUROC && !(d->flags & ML_FN_TWIN) && !p->counted && !p->wstate
   && p->k>=2 && p->n>0 ) ml_mc_win_start(p);
  if( p && !p->failed && !p->srt && d->kind==MC_PR_AUC && !(d->flags & ML_FN_TWIN) && !p->counted && !p->wstate
   && p->k>=2 && p->n>0 ) ml_mc_srt_start(p);
  if( p && !p->failed && !p->wsrt && (d->kind==MC_AUROC || d->kind==MC_PR_AUC) && (d->flags & ML_FN_TWIN)
   && !p->counted && !p->wstate && p->k>=2 && p->n>0 ) ml_mc_wsrt_start(p);
  mc_result(ctx, p, 0);
}
static void mc_value(sqlite3_context *ctx){ mc_value_of(ctx, sqlite3_aggregate_context(ctx, 0)); }

static void mc_final(sqlite3_context *ctx){
  McAgg *p = sqlite3_aggregate_context(ctx, 0);
  mc_result(ctx, p, 1);
  if( p ) mc_clear(p);
}

/* ------------------------------------------- the long layout's entry points */

/* multiclass_long.c hands each assembled id to these (multiclass.h): the
** wide form's own row store and result, so the long form equals it. */
size_t ml_mc_agg_bytes(void){ return sizeof(McAgg); }
MlParam *ml_mc_param(void *agg, int i){ return &((McAgg*)agg)->par[i]; }
void ml_mc_clear(void *agg){ mc_clear((McAgg*)agg); }
int ml_mc_add_row(sqlite3_context *ctx, void *agg, int k, int y, double w, const double *s){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  McAgg *p = agg;
  int rc;
  if( d->flags & ML_FN_TWIN ) p->wmode = 1;
  p->k = k;
  if( ml_mc_count_row(p, d->kind, y, s) ) return ML_OK;     /* mc_top_k's, mc_confusion's common id */
  if( (rc = mc_add(p, d, y, w, s))!=ML_OK ){
    mc_add_failed(ctx, d, p, rc);
    mc_clear(p);
    p->failed = 1;
  }
  return rc;
}
void ml_mc_result(sqlite3_context *ctx, void *agg, int isFinal){ mc_result(ctx, (McAgg*)agg, isFinal); }
void ml_mc_remove_row(sqlite3_context *ctx, void *agg, int y, double w, const double *s){
  McAgg *p = agg;
  if( !p->failed && p->k>0 && w>0.0 ) mc_unrow(ctx, sqlite3_user_data(ctx), p, y, w, s);
}
int ml_mc_value(sqlite3_context *ctx, void *agg){
  McAgg *p = agg;
  mc_value_of(ctx, p);
  return p->failed ? ML_ERROR : ML_OK;
}
int ml_mc_failed(const void *agg){ return ((const McAgg*)agg)->failed; }

/* ------------------------------------------------------------- records */

static const MlFamily famMc = { "multiclass", mc_step, mc_final, mc_value, mc_inverse, &ml_mc_states,
                                mc_step_w, mc_inverse_w, 0 };
/* the same family, with the counting kinds' step (mc_top_k, mc_confusion) */
static const MlFamily famMcCount = { "multiclass", mc_step_counting, mc_final, mc_value, mc_inverse, &ml_mc_states,
                                     mc_step_w, mc_inverse_w, 0 };

#define MC_SIG_S   "y, s_0, ..., s_k-1 | y, scores"       /* any numbers */
#define MC_SIG_P   "y, p_0, ..., p_k-1 | y, probs"        /* probabilities */
#define MC_SIG_SW  "y, s_0, ..., s_k-1, w | y, scores, w"
#define MC_SIG_PW  "y, p_0, ..., p_k-1, w | y, probs, w"
#define MC_TWIN  (ML_FN_TWIN | ML_FN_TWIN_WLAST | ML_FN_NO_STATE)

static const MlParamSpec psBins = ML_PARAM_INT("bins", 1, 100000, "10", "10");
/* mc_auroc_ci: the uncertainty family's level and reps; a seed up to 2^53
** (the group's value is held as a double, MlParam) */
static const MlParamSpec psSeed = ML_PARAM_INT("seed", 0, 9007199254740992LL, "0", "7");

/* y and 2..16 scores (or y and one JSON array); the twins with w right
** after the scores, as every twin (round 5; round 4 had it after y) */
const MlFuncDesc ml_multiclass_functions[] = {
  { "mc_auroc",      MC_SIG_S,   2, MC_MAX_K+1, &famMc, 0, MC_AUROC,    ML_FN_JSON, 0 },
  { "mc_pr_auc",     MC_SIG_S,   2, MC_MAX_K+1, &famMc, 0, MC_PR_AUC,   ML_FN_JSON, 0 },
  { "mc_log_loss",   MC_SIG_P,   2, MC_MAX_K+1, &famMc, 0, MC_LOG_LOSS, 0, 0 },
  { "mc_brier",      MC_SIG_P,   2, MC_MAX_K+1, &famMc, 0, MC_BRIER,    0, 0 },
  { "mc_confusion",  MC_SIG_S " | y, pred", 2, MC_MAX_K+1, &famMcCount, 0, MC_CONFUSION, ML_FN_JSON, 0 },
  { "mc_top_k",      MC_SIG_S,   2, MC_MAX_K+1, &famMcCount, 0, MC_TOP_K,    ML_FN_JSON, 0 },
  { "ordinal_rps",   MC_SIG_P,   2, MC_MAX_K+1, &famMc, 0, MC_RPS,      0, 0 },
  { "mc_calibration", "y, p_0, ..., p_k-1 | y, probs [, bins]", 2, MC_MAX_K+1, &famMc, 0, MC_CALIB, ML_FN_JSON,
    ML_PARAMS(&psBins) },
  { "mc_auroc_ci",   "y, s_0, ..., s_k-1 | y, scores [, level, reps, seed]", 2, MC_MAX_K+1, &famMc, 0, MC_AUROC_CI,
    ML_FN_JSON, ML_PARAMS(&ml_ps_level, &ml_ps_reps, &psSeed) },
  { "ml_state_mc",   MC_SIG_S,   2, MC_MAX_K+1, &famMc, 0, MC_STATE,    ML_FN_BLOB | ML_FN_NO_STATE, 0 },
  { "ml_state_mc_w", MC_SIG_SW,  3, MC_MAX_K+2, &famMc, 0, MC_STATE,    ML_FN_BLOB | MC_TWIN, 0 },
  { "mc_auroc_ci_w", "y, s_0, ..., s_k-1, w | y, scores, w [, level, reps, seed]", 3, MC_MAX_K+2, &famMc, 0,
    MC_AUROC_CI, ML_FN_JSON | MC_TWIN, ML_PARAMS(&ml_ps_level, &ml_ps_reps, &psSeed) },
  { "mc_auroc_w",    MC_SIG_SW, 3, MC_MAX_K+2, &famMc, 0, MC_AUROC,    ML_FN_JSON | MC_TWIN, 0 },
  { "mc_pr_auc_w",   MC_SIG_SW, 3, MC_MAX_K+2, &famMc, 0, MC_PR_AUC,   ML_FN_JSON | MC_TWIN, 0 },
  { "mc_log_loss_w", MC_SIG_PW, 3, MC_MAX_K+2, &famMc, 0, MC_LOG_LOSS, MC_TWIN, 0 },
  { "mc_brier_w",    MC_SIG_PW, 3, MC_MAX_K+2, &famMc, 0, MC_BRIER,    MC_TWIN, 0 },
  { "mc_confusion_w", MC_SIG_SW " | y, pred, w", 3, MC_MAX_K+2, &famMc, 0, MC_CONFUSION, ML_FN_JSON | MC_TWIN, 0 },
  { "mc_top_k_w",    MC_SIG_SW, 3, MC_MAX_K+2, &famMc, 0, MC_TOP_K,    ML_FN_JSON | MC_TWIN, 0 },
  { "ordinal_rps_w", MC_SIG_PW, 3, MC_MAX_K+2, &famMc, 0, MC_RPS,      MC_TWIN, 0 },
  { "mc_calibration_w", "y, p_0, ..., p_k-1, w | y, probs, w [, bins]", 3, MC_MAX_K+2, &famMc, 0, MC_CALIB,
    ML_FN_JSON | MC_TWIN, ML_PARAMS(&psBins) },
  { 0 }
};
