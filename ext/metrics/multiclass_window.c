/*
** SPDX-License-Identifier: MIT
**
** multiclass_window.c -- mc_auroc, mc_pr_auc and their weighted twins
** mc_auroc_w, mc_pr_auc_w over a window frame (rows, no state): the
** structures a frame keeps up to date row by row, so that its result is
** the aggregate's bit for bit without a sort a frame; multiclass.c calls
** them (multiclass_impl.h) from its steps and its xValue.
**
** Rules (numbered as in multiclass.c, whose other rules hold here):
**  17. mc_auroc over a window frame (unweighted rows, no state): from its
**      first xValue the frame's keys also live in counted sets
**      (ml_rankset.c), one per (column, class) and micro's two, and every
**      Mann-Whitney count of the result (twice, an integer) is updated as a
**      row enters or leaves: O(k^2 log n) a row, and the frame's result is
**      the aggregate's bit for bit (the sweep's sums are of integers and
**      halves, exact).  Out of memory there drops the sets (each frame is
**      then computed afresh); a state in the frame does too.
**  20. mc_pr_auc over a window frame (unweighted rows, no state): from its
**      first xValue the frame's keys also live in the binary pr_auc's
**      kept-sorted buffers (ml_samples_add inserts in place), one per
**      column j (class j's rows its positives) and micro's n k pairs, with
**      each class's rows counted; a frame's result sums each buffer's AP
**      terms d tp / (tp + fp) from the highest score in plain double
**      arithmetic (ml_fold_ap_sum_plain) -- the terms, order and rounding
**      of the aggregate's sweeps, whose tp and fp are integer counts -- so
**      it equals the aggregate bit for bit with no sort: O(k n) a row (k + 2
**      memmoves, micro's k - 1 negatives in one, ml_samples_add_keys, and
**      O(n k) for the sweeps) against the aggregate's O(n k log n).  Out of
**      memory drops the buffers (each frame is then computed afresh), and a
**      state in the frame does too.  The streaming twins slide in O(k)
**      (rule 7).
**  21. mc_auroc_w and mc_pr_auc_w over a window frame (rows, no state):
**      their sums are of weights, rounded, and the aggregate adds them in
**      an order fixed by the values -- from the highest score down, a tie's
**      weights of each class (column sweeps) or of each label (micro) in
**      ascending weight (mc_order_ties, rule 6) -- so a frame cannot be
**      updated row by row, but its order can be kept: from the first xValue
**      the rows also live in buffers kept in the canonical order
**      (ml_samples_add_canonical: by score, ties by weight), one per column
**      i, 24-byte (p_i, class, w) records ordered by (p_i, w, class), and
**      micro's n k pairs, 16-byte (p_j, w) records, positives apart.  A
**      frame's result is the aggregate's sweeps run over them -- the same
**      step functions (ml_mc_col_one, ml_mc_col_run, ml_mc_run_end), the
**      same weights times the same rule-15 factor, added in the same order
**      -- so it equals the aggregate bit for bit, with no sort and no tie
**      ordering: O(n k) a frame.  Out of memory drops the buffers (each
**      frame is then computed afresh).
**
** Cost: mc_auroc's sets: O(k^2 log n) a row entering or leaving, O(k^2) a
** result; mc_pr_auc's buffers: 16 k bytes a row more than the rows (its
** sorted keys), O(k n) a row (memmoves), O(n k) a result.  The twins'
** buffers: 40 k bytes a row more than the rows (24 k for the columns, 16 k
** for micro), 2 k binary searches and memmoves of O(n k) records a row
** entering or leaving, O(n k) a result (k column sweeps of n records,
** micro's merge of n k pairs).  Measured (bench/RESULTS.md, "Multiclass at
** scale", k = 3, frames over 10^4 and 10^5 rows): mc_pr_auc 10x and 14x
** the binary pr_auc in the same running frame (k + 1 sorted buffers,
** micro's k times larger, against its one), 8x and 7x sliding 1000 rows;
** the twins against the binary auroc_w and pr_auc_w in the same frame
** (one buffer of n each): mc_auroc_w 2.0x and 2.6x running, 2.4x and 1.7x
** sliding; mc_pr_auc_w 6.0x and 6.3x running, 7.1x and 5.5x sliding
** (before, a sort a frame: 9.5x and 49x running at 10^4).
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "multiclass_impl.h"

/* ------------------------------------------------------ mc_auroc window */

/* mc_auroc over a window frame (rule 17): the frame's keys in counted sets
** (ml_rankset.c, as the binary auroc's window) and every Mann-Whitney count
** of the result kept up to date row by row, twice each (ties count 1). */
typedef struct McWin {
  MlRankSet rs[MC_MAX_K][MC_MAX_K];   /* rs[a][c]: p_a of the rows of class c */
  MlRankSet mpos, mneg;               /* micro: each row's p_y; its p_j, j != y */
  ml_i64 u2[MC_MAX_K][MC_MAX_K];      /* u2[a][c]: rows of class a above class c in column a */
  ml_i64 mu2;                         /* micro's positive pairs above negative ones */
  ml_i64 W[MC_MAX_K];                 /* rows of each class */
} McWin;

void ml_mc_win_free(McAgg *p){
  McWin *v = p->win;
  int a, c;
  if( v==0 ) return;
  for(a=0; a<MC_MAX_K; a++) for(c=0; c<MC_MAX_K; c++) ml_rankset_clear(&v->rs[a][c]);
  ml_rankset_clear(&v->mpos);
  ml_rankset_clear(&v->mneg);
  ml_free(v);
  p->win = 0;
}

/* Twice the pairs of a key against the set o, the key above: 2 per key of
** o below it, 1 per tie; below: 2 per key above it, 1 per tie. */
static ml_i64 mc_above2(const MlRankSet *o, ml_key key){
  ml_i64 lt, le;
  ml_rankset_count(o, key, &lt, &le);
  return lt + le;
}
static ml_i64 mc_below2(const MlRankSet *o, ml_key key){
  ml_i64 lt, le;
  ml_rankset_count(o, key, &lt, &le);
  return 2*o->n - lt - le;
}

/* The row (y, s) enters (sign +1) or leaves (-1) the sets: O(k log n).
** Its pairs with the other rows are counted against sets that do not hold
** it (its keys leave before, enter after); its own micro pairs apart.  ML_OK or ML_NOMEM
** (the sets are then inconsistent: the caller drops them). */
static int mc_win_keys(McWin *v, int k, int y, const ml_key *key, int sign){
  int a;
  for(a=0; a<k; a++){
    MlRankSet *m = a==y ? &v->mpos : &v->mneg;
    if( sign>0 ){
      if( ml_rankset_insert(&v->rs[a][y], key[a]) || ml_rankset_insert(m, key[a]) ) return ML_NOMEM;
    }else if( !ml_rankset_remove(&v->rs[a][y], key[a]) || !ml_rankset_remove(m, key[a]) ){
      return ML_NOMEM;                   /* not held: cannot happen */
    }
  }
  return ML_OK;
}

int ml_mc_win_row(McWin *v, int k, int y, const double *s, int sign){
  ml_key key[MC_MAX_K] = {0};
  ml_i64 d = 0;
  int a, c;
  for(a=0; a<k; a++) key[a] = ml_key_of(s[a]);
  if( sign<0 && mc_win_keys(v, k, y, key, sign) ) return ML_NOMEM;
  for(a=0; a<k; a++){
    if( a==y ){
      for(c=0; c<k; c++) if( c!=y ) v->u2[y][c] += sign*mc_above2(&v->rs[y][c], key[y]);
      d += mc_above2(&v->mneg, key[y]);
    }else{
      v->u2[a][y] += sign*mc_below2(&v->rs[a][a], key[a]);
      d += mc_below2(&v->mpos, key[a]);
      d += key[y]>key[a] ? 2 : key[y]==key[a];      /* the row's own pair */
    }
  }
  v->mu2 += sign*d;
  v->W[y] += sign;
  return sign>0 ? mc_win_keys(v, k, y, key, sign) : ML_OK;
}

/* Moves an mc_auroc window's rows into the sets (first xValue); drops
** them when out of memory (each frame then computed afresh). */
void ml_mc_win_start(McAgg *p){
  ml_i64 i;
  if( (p->win = ml_malloc(sizeof(McWin)))==0 ) return;
  memset(p->win, 0, sizeof(McWin));
  for(i=0; i<p->n; i++){
    const double *r = p->a + (size_t)(p->head + i)*MC_STRIDE(p);
    if( ml_mc_win_row(p->win, p->k, (int)r[0], r + 2, 1) ){ ml_mc_win_free(p); return; }
  }
}

/* ----------------------------------------------------- mc_pr_auc window */

/* mc_pr_auc over a window frame (rule 20): the binary pr_auc's kept-sorted
** sample buffers (ml_samples_add / ml_samples_remove insert and remove in
** place), one per column -- the keys of p_j, class j's rows as positives --
** and micro's n k pairs (p_j, positive when y = j), and the rows of each
** class: a frame's AP terms are summed without a sort. */
typedef struct McSorted {
  MlSamples col[MC_MAX_K];
  MlSamples micro;
  ml_i64 W[MC_MAX_K];
} McSorted;

void ml_mc_srt_free(McAgg *p){
  McSorted *v = p->srt;
  int j;
  if( v==0 ) return;
  for(j=0; j<MC_MAX_K; j++) ml_samples_clear(&v->col[j]);
  ml_samples_clear(&v->micro);
  ml_free(v);
  p->srt = 0;
}

/* The row (y, s) enters (sign +1) or leaves (-1) the sorted buffers: a key
** in each column, and micro's k - 1 negative keys in one pass
** (ml_samples_add_keys): O(k log n) binary searches and k + 2 memmoves of
** O(n) keys.  Unsorted buffers (the first xValue's) append.  ML_OK or
** ML_NOMEM (the buffers are then inconsistent: the caller drops them). */
int ml_mc_srt_row(McSorted *v, int k, int y, const double *s, int sign){
  ml_key neg[MC_MAX_K];
  int j, m = 0;
  for(j=0; j<k; j++){
    if( sign>0 ){
      if( ml_samples_add(&v->col[j], j==y, s[j], 0.0) ) return ML_NOMEM;
    }else if( !ml_samples_remove(&v->col[j], j==y, s[j], 0.0) ){
      return ML_NOMEM;                   /* not held: cannot happen */
    }
    if( j!=y ){                          /* micro's negatives, ascending */
      ml_key key = ml_key_of(s[j]);
      int i = m++;
      while( i>0 && neg[i-1]>key ){ neg[i] = neg[i-1]; i--; }
      neg[i] = key;
    }
  }
  if( sign>0 ){
    if( ml_samples_add(&v->micro, 1, s[y], 0.0) ) return ML_NOMEM;
    if( !v->micro.sorted ){
      for(j=0; j<m; j++) if( ml_samples_add(&v->micro, 0, ml_double_of(neg[j]), 0.0) ) return ML_NOMEM;
    }else if( ml_samples_add_keys(&v->micro, 0, neg, m) ){
      return ML_NOMEM;
    }
  }else if( !ml_samples_remove(&v->micro, 1, s[y], 0.0) || !ml_samples_remove_keys(&v->micro, 0, neg, m) ){
    return ML_NOMEM;
  }
  v->W[y] += sign;
  return ML_OK;
}

/* Sorts an mc_pr_auc window's rows into the buffers (first xValue); drops
** them when out of memory (each frame then computed afresh). */
void ml_mc_srt_start(McAgg *p){
  McSorted *v;
  ml_i64 i;
  int j;
  if( (v = p->srt = ml_malloc(sizeof(McSorted)))==0 ) return;
  memset(v, 0, sizeof(*v));
  for(j=0; j<MC_MAX_K; j++) ml_samples_init(&v->col[j], 8);
  ml_samples_init(&v->micro, 8);
  for(i=0; i<p->n; i++){                   /* unsorted buffers: appended */
    const double *r = p->a + (size_t)(p->head + i)*MC_STRIDE(p);
    if( ml_mc_srt_row(v, p->k, (int)r[0], r + 2, 1) ){ ml_mc_srt_free(p); return; }
  }
  for(j=0; j<p->k; j++){
    if( ml_samples_sort(&v->col[j]) || !v->col[j].sorted ){ ml_mc_srt_free(p); return; }
  }
  if( ml_samples_sort(&v->micro) || !v->micro.sorted ) ml_mc_srt_free(p);
}

/* ------------------------------------ mc_auroc_w and mc_pr_auc_w window */

/* The weighted twins over a window frame (rule 21): each row's records in
** buffers kept in the canonical order (ml_samples_add_canonical), one per
** column i, width 24 (p_i, class, w) ordered by (p_i, w, class), and
** micro's n k pairs, width 16 (p_j, w) ordered by (p_j, w), a[1] each
** row's p_y, a[0] its p_j, j != y.  A frame sweeps them as the aggregate
** sweeps its sorted columns, with no sort. */
typedef struct McWSorted {
  MlSamples col[MC_MAX_K];
  MlSamples micro;
} McWSorted;

void ml_mc_wsrt_free(McAgg *p){
  McWSorted *v = p->wsrt;
  int i;
  if( v==0 ) return;
  for(i=0; i<MC_MAX_K; i++) ml_samples_clear(&v->col[i]);
  ml_samples_clear(&v->micro);
  ml_free(v);
  p->wsrt = 0;
}

/* The row (y, w, s) enters (sign +1) or leaves (-1) the buffers: 2 k binary
** searches and memmoves (a column holds n records, micro's negatives
** (k - 1) n).  Unsorted buffers (the first xValue's) append.  ML_OK or
** ML_NOMEM (the buffers are then inconsistent: the caller drops them). */
int ml_mc_wsrt_row(McWSorted *v, int k, int y, double w, const double *s, int sign){
  int j;
  for(j=0; j<k; j++){
    if( sign>0 ){
      if( ml_samples_add_canonical(&v->col[j], 0, s[j], (double)y, w)
       || ml_samples_add_canonical(&v->micro, j==y, s[j], w, 0.0) ) return ML_NOMEM;
    }else if( !ml_samples_remove_canonical(&v->col[j], 0, s[j], (double)y, w)
           || !ml_samples_remove_canonical(&v->micro, j==y, s[j], w, 0.0) ){
      return ML_NOMEM;                   /* not held: cannot happen */
    }
  }
  return ML_OK;
}

/* Sorts a weighted window's rows into the buffers, canonically (first
** xValue); drops them when out of memory (each frame then computed
** afresh).  The weights are the rows' own (rule 15's factor is applied by
** each result, as the aggregate applies it). */
void ml_mc_wsrt_start(McAgg *p){
  McWSorted *v;
  ml_i64 i;
  int j;
  if( (v = p->wsrt = ml_malloc(sizeof(McWSorted)))==0 ) return;
  for(j=0; j<MC_MAX_K; j++) ml_samples_init(&v->col[j], 24);
  ml_samples_init_weighted(&v->micro);
  for(i=0; i<p->n; i++){
    const double *r = p->a + (size_t)(p->head + i)*MC_STRIDE(p);
    if( ml_mc_wsrt_row(v, p->k, (int)r[0], r[1], r + 2, 1) ){ ml_mc_wsrt_free(p); return; }
  }
  for(j=0; j<p->k; j++){
    if( ml_samples_sort_canonical(&v->col[j]) || !v->col[j].sorted ){ ml_mc_wsrt_free(p); return; }
  }
  if( ml_samples_sort_canonical(&v->micro) || !v->micro.sorted ) ml_mc_wsrt_free(p);
}

/* Column i's sweep from the highest score down, the aggregate's loop
** (mc_sweep_column) over the canonical order: a run of tied scores holds
** each class's rows in ascending weight, the order the aggregate adds them
** in (mc_order_ties); every weight times sc. */
static void wsrt_column(const MlSamples *col, int k, int i, double sc, McCol *out){
  const MlRec24 *r = (const MlRec24*)col->a[0];
  ml_i64 hi = col->n[0], lo, t;
  double above[MC_MAX_K], g[MC_MAX_K], u[MC_MAX_K];
  McColSums cs = { 0.0, 0.0, 0.0, 0.0 };
  memset(above, 0, sizeof(above));
  memset(g, 0, sizeof(g));
  memset(u, 0, sizeof(u));
  while( hi>0 ){
    ml_key key = r[hi-1].key;
    if( hi==1 || r[hi-2].key!=key ){
      ml_mc_col_one(&cs, above, u, i, (int)r[hi-1].aux, r[hi-1].aux2*sc, 0);
      hi--;
      continue;
    }
    for(lo=hi-2; lo>0 && r[lo-1].key==key; lo--){}
    for(t=lo; t<hi; t++) g[(int)r[t].aux] += r[t].aux2*sc;
    ml_mc_col_run(&cs, above, u, i, k, g);
    hi = lo;
  }
  memcpy(out->above, above, sizeof(above));
  memcpy(out->u, u, sizeof(u));
  out->s = cs;
}

/* The sum of a canonical width-16 array's weights (times sc) over its run
** of key just below *hi, in ascending weight; *hi moves below the run. */
static double wsrt_run(const MlRec16 *a, ml_i64 *hi, ml_key key, double sc){
  ml_i64 lo = *hi, t;
  double g = 0.0;
  while( lo>0 && a[lo-1].key==key ) lo--;
  for(t=lo; t<*hi; t++) g += a[t].aux*sc;
  *hi = lo;
  return g;
}

/* mc_auroc_w's and mc_pr_auc_w's McRank from a window's buffers (rule 21):
** every sum is the aggregate's, of the same weights (times rule 15's sc) in
** the same order, so the frame's result is the aggregate's bit for bit. */
int ml_mc_wsrt_rank(const McAgg *p, McRank *R, double sc){
  const McWSorted *v = p->wsrt;
  const MlRec16 *pa = (const MlRec16*)v->micro.a[1], *na = (const MlRec16*)v->micro.a[0];
  double posAbove = 0.0, negAbove = 0.0, U = 0.0, AP = 0.0;
  ml_i64 hp = v->micro.n[1], hn = v->micro.n[0];
  int k = p->k, i;
  McCol cs;
  R->k = k;
  for(i=0; i<k; i++){
    wsrt_column(&v->col[i], k, i, sc, &cs);
    ml_mc_rank_col(R, i, &cs);
  }
  ml_mc_rank_marks(R);
  while( hp>0 || hn>0 ){                   /* micro: the pairs from the highest score down */
    ml_key kp = hp>0 ? pa[hp-1].key : 0, kn = hn>0 ? na[hn-1].key : 0;
    ml_key key = hp>0 && (hn==0 || kp>kn) ? kp : kn;
    double gp = hp>0 && kp==key ? wsrt_run(pa, &hp, key, sc) : 0.0;
    double gn = hn>0 && kn==key ? wsrt_run(na, &hn, key, sc) : 0.0;
    ml_mc_run_end(gp, gn, &posAbove, &negAbove, &U, &AP);
  }
  ml_mc_rank_micro(R, U, AP, posAbove, negAbove);
  return ML_OK;
}

/* A window's class counts W (exact integers) as McRank's totals; returns n. */
static double win_totals(McRank *R, int k, const ml_i64 *W){
  int c;
  double n = 0.0;
  R->k = k;
  for(c=0; c<k; c++){ R->W[c] = (double)W[c]; n += R->W[c]; }
  R->n = n;
  return n;
}

/* mc_pr_auc's McRank from a window's sorted buffers (rule 20): every sum
** of the sweeps' AP is of the terms d tp / (tp + fp), tp and fp integer
** counts (exact as doubles), one per score holding a positive, added from
** the highest score in plain double arithmetic -- what
** ml_fold_ap_sum_plain adds -- so the frame's result is the aggregate's
** bit for bit; the AUROC fields, which mc_pr_auc does not report, are NaN. */
int ml_mc_srt_rank(const McAgg *p, McRank *R){
  const McSorted *v = p->srt;
  int k = p->k, i, c;
  double n = 0.0, P, N;
  n = win_totals(R, k, v->W);
  for(i=0; i<k; i++){
    P = R->W[i];
    N = n - P;
    R->auc[i] = NAN;
    R->ap[i] = P>0.0 && N>0.0 ? ml_fold_ap_sum_plain(&v->col[i]) / P : NAN;
    for(c=0; c<k; c++) R->A[i][c] = NAN;
  }
  ml_mc_rank_marks(R);
  R->microAuc = NAN;
  R->microAp = n>0.0 ? ml_fold_ap_sum_plain(&v->micro) / n : NAN;
  return ML_OK;
}

/* mc_auroc's McRank from a window's counts (rule 17): each sum the sweep
** would take is a sum of integers and halves, exact, so the frame's result
** is the aggregate's bit for bit. */
int ml_mc_win_rank(const McAgg *p, McRank *R){
  const McWin *v = p->win;
  int k = p->k, i, c;
  double n = 0.0, P, N;
  n = win_totals(R, k, v->W);
  for(i=0; i<k; i++){
    ml_i64 u = 0;
    for(c=0; c<k; c++) if( c!=i ) u += v->u2[i][c];
    P = R->W[i];
    N = n - P;
    R->auc[i] = P>0.0 && N>0.0 ? ((double)u/2.0) / (P*N) : NAN;
    R->ap[i] = NAN;
    for(c=0; c<k; c++){
      R->A[i][c] = c!=i && P>0.0 && R->W[c]>0.0 ? ((double)v->u2[i][c]/2.0) / (P*R->W[c]) : NAN;
    }
  }
  ml_mc_rank_marks(R);
  P = n;
  N = n*(double)(k - 1);
  R->microAuc = P>0.0 && N>0.0 ? ((double)v->mu2/2.0) / (P*N) : NAN;
  R->microAp = NAN;
  return ML_OK;
}
