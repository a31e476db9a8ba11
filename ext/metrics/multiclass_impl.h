/*
** SPDX-License-Identifier: MIT
**
** multiclass_impl.h -- what the wide form's files share (multiclass.c,
** multiclass_window.c, multiclass_stream.c, multiclass_rank.c,
** multiclass_state.c): the aggregate McAgg, the streaming kinds' sums McStream, the result of the ranking
** sweeps McRank, a column sweep's step (McColSums, ml_mc_col_one,
** ml_mc_col_run, ml_mc_run_end: the aggregate's and the weighted windows'
** one arithmetic), and the window functions' entry points.  Private to
** ext/metrics/multiclass*.c (multiclass.h is the long layout's interface).
**
** Rules:
**   1. McAgg's rows a[head .. head+n) are [y, w, p_0 .. p_k-1], MC_STRIDE
**      doubles each (multiclass.c, its rules 1-21).
**   2. The sweep steps are inline (ML_ALWAYS_INLINE) so that the
**      aggregate's loop keeps its sums in registers; every caller adds the
**      same terms in the same order, which is what makes a window frame
**      equal the aggregate bit for bit (multiclass_window.c, rule 21).
**
** Cost: O(k) a step (inline).
*/
#ifndef ML_MULTICLASS_IMPL_H
#define ML_MULTICLASS_IMPL_H

#include "ml_sql.h"
#include "ml_state.h"
#include "multiclass.h"

/* The wide form's aggregate: its rows, or the streaming kinds' sums, the
** columns form, a window frame's structures (multiclass.c's rules). */
typedef struct McAgg {
  int k;               /* scores per row; 0 until the first row */
  int failed;          /* a step set an error: results only free */
  double *a;           /* rows a[head .. head+n), each [y, w, p_0 .. p_k-1] */
  ml_i64 head, n, cap; /* in rows */
  MlParam par[3];      /* the JSON form's parameters: mc_calibration's bins;
                       ** mc_auroc_ci's level, reps, seed */
  int counted;         /* rows from a state: w is a count of equal rows (rule 12) */
  int wstate;          /* rows from a weighted state: the results are weighted */
  struct McStream *ss; /* the streaming kinds' sums (rule 7): no row kept */
  int e0set, e0;       /* those sums hold each weight as w 2^-e0 (rule 15) */
  int wmode;           /* the sums are of weights (a twin, a weighted state), not counts */
  int ckind;           /* MC_TOP_K or MC_CONFUSION once a row was counted: mc_step_counting
                       ** counts the common rows itself (rule 13); else 0 */
  struct McWin *win;   /* mc_auroc over a window frame: its counted sets (rule 17) */
  struct McSorted *srt;    /* mc_pr_auc over a window frame: its sorted columns (rule 20) */
  struct McWSorted *wsrt;  /* mc_auroc_w, mc_pr_auc_w over a window frame: their (score,
                           ** weight)-sorted columns (rule 21) */
  MlRec16 *col[MC_MAX_K];  /* the columns form (rule 19): column j's (key of s_j, class), */
  ml_i64 capcol;           /* in arrival order, n of capcol held */
  int cols;                /* the columns form holds the rows (a is then empty) */
} McAgg;

/* Everything mc_auroc and mc_pr_auc report. */
typedef struct McRank {
  int k, absent, full;           /* absent: the first class with no row, or -1; full:
                                 ** the class holding every row, or -1 (rule 16) */
  double n;                      /* rows, or their weight */
  double W[MC_MAX_K];            /* each class's rows (weight) */
  double auc[MC_MAX_K], ap[MC_MAX_K];        /* OvR per class, NaN when undefined */
  double A[MC_MAX_K][MC_MAX_K];              /* A[a][b]: AUC of p_a, class a against b */
  double microAuc, microAp;
} McRank;

#define MC_STRIDE(p) ((size_t)(p)->k + 2)

/* A column's sweep (column i, from the highest score down, one score at a
** time): the positive and negative weight above, the Mann-Whitney sum
** uOvr (class i above the others, ties 1/2) and the AP sum; beside them,
** the arrays above[c] (the weight of class c above; above[i] is kept in
** posAbove) and u[c] (class i above class c).  The aggregate's sweep
** (multiclass_rank.c) and the weighted window's (multiclass_window.c) both
** step them with these two functions, so that their arithmetic is one;
** the scalars are a struct of their own, a local of each sweep, which the
** compiler keeps in registers once the steps are inlined. */
typedef struct McColSums {
  double negAbove, posAbove, uOvr, ap;
} McColSums;

/* What a column's sweep gives (ml_mc_rank_col). */
typedef struct McCol {
  double above[MC_MAX_K], u[MC_MAX_K];
  McColSums s;
} McCol;

/* One row of class y and weight w alone at its score (unit: w is 1): the
** run step's terms with one class nonzero, exactly (x + 0.0 = x for the
** sums here, all >= +0; 1.0 * x = x). */
static ML_ALWAYS_INLINE void ml_mc_col_one(McColSums *c, double *above, double *u, int i, int y, double w,
                                           int unit){
  if( y==i ){
    double tp = c->posAbove + (unit ? 1.0 : w);
    c->ap += unit ? tp/(tp + c->negAbove) : w*(tp/(tp + c->negAbove));
    c->posAbove = tp;
  }else{
    double t = unit ? c->posAbove : w*c->posAbove;
    u[y] += t;
    c->uOvr += t;
    c->negAbove += unit ? 1.0 : w;
    above[y] += unit ? 1.0 : w;
  }
}

/* A run of tied scores of g[c] weight in each class c (each summed in the
** run's order: ascending weight for weighted rows, rule 6); g is zeroed. */
static ML_ALWAYS_INLINE void ml_mc_col_run(McColSums *s, double *above, double *u, int i, int k, double *g){
  double gi = g[i], negG = 0.0, half = s->posAbove + 0.5*gi;
  int c;
  for(c=0; c<k; c++){
    if( c==i || g[c]==0.0 ) continue;
    u[c] += g[c]*half;
    negG += g[c];
  }
  s->uOvr += negG*half;
  if( gi>0.0 ){
    double tp = s->posAbove + gi, fp = s->negAbove + negG;
    s->ap += gi*(tp/(tp + fp));
  }
  for(c=0; c<k; c++){ if( c!=i ) above[c] += g[c]; g[c] = 0.0; }
  s->posAbove += gi;
  s->negAbove += negG;
}

/* A run of tied scores ends in micro's sweep: gp positive and gn negative
** weight in it.  Its Mann-Whitney term (ties 1/2) and its AP term, then
** the weight above the next run (the binary sweep's terms, ml_sweep.c). */
static ML_ALWAYS_INLINE void ml_mc_run_end(double gp, double gn, double *posAbove, double *negAbove, double *u,
                                           double *ap){
  *u += gn*(*posAbove + 0.5*gp);
  if( gp>0.0 ){
    double tp = *posAbove + gp, fp = *negAbove + gn;
    *ap += gp*(tp/(tp + fp));
  }
  *posAbove += gp;
  *negAbove += gn;
}

/* The kinds that keep sums, not rows (rule 7). */
#define MC_STREAMS(kind) ((kind)==MC_LOG_LOSS || (kind)==MC_BRIER || (kind)==MC_RPS || (kind)==MC_TOP_K \
                          || (kind)==MC_CONFUSION || (kind)==MC_CALIB)

/* multiclass.c: the row store -- released (ml_mc_clear, multiclass.h), the most rows a
** group of kind and k holds and its error text (rule 18), a row appended
** (ML_OK, ML_NOMEM, or ML_ERROR past the limit) or removed, the columns
** form turned back into rows (rule 19; ML_OK or ML_NOMEM, ML_ERROR). */
ml_i64 ml_mc_max_rows(int kind, int k);
void ml_mc_too_many(char *zErr, int nErr, const char *zName, int kind, int k);
int ml_mc_append(McAgg *p, int y, double w, const double *s, int kind);
void ml_mc_remove(McAgg *p, int y, double w, const double *s);
int ml_mc_cols_to_rows(McAgg *p, int kind);

/* multiclass_state.c: the family's state hooks (rule 12) and ml_state_mc's
** result (weighted: kind 6). */
extern const MlStateHooks ml_mc_states;
void ml_mc_state_result(sqlite3_context *ctx, const McAgg *p, int weighted);

/* A bin of one mc_calibration column: its rows (a count, whatever their
** weight: the bin is empty at 0) and positives, and x: unweighted, one
** exact sum (of p); weighted, three (of w, w 1[lab], w p); allocated on
** the bin's first row. */
typedef struct McBin { ml_i64 n, npos; MlXsum *x; } McBin;

/* What a streaming kind keeps (rule 7), in one allocation sized by kind:
** the means' two sums, or top k's and the matrix's counts; the weighted
** sums of those two (x) allocated when a weight first comes. */
typedef struct McStream {
  MlXsum *sum;                            /* means: the exact sums of w t and of w (den: wmode only) */
  ml_i64 *cnt;                            /* rows: top k [above][tied-1]; confusion [y][pred] (MC_MAX_K^2) */
  MlXsum **x;                             /* weights: top k's x[0] (k sums: all, then top-m hits);
                                          ** confusion's cells; MC_MAX_K^2, each made on first use */
  ml_i64 B;                               /* mc_calibration: bins */
  McBin *bin;                             /* (k + 1) B bins, column c's at c B */
} McStream;

/* multiclass_stream.c: the streaming kinds (rule 7).  _add adds (sign +1)
** or removes (-1) c rows (y, s) of weight w; _weigh turns a group's counts
** into sums of weights (a weighted state's first entry); _result sets the
** kind's result; _free releases the sums.  ML_OK or ML_NOMEM. */
int ml_mc_stream_add(McAgg *p, int kind, int y, const double *s, double w, ml_i64 c, int sign);

/* The predicted class of a row's scores s: pred itself (k = 1 rows), else
** the first index of the highest score (numpy.argmax). */
static inline int ml_mc_argmax(const double *s, int k){
  int j, b = 0;
  if( k==1 ) return (int)s[0];
  for(j=1; j<k; j++) if( s[j]>s[b] ) b = j;
  return b;
}

/* One unweighted row (y, s) of mc_top_k or mc_confusion counted as
** ml_mc_stream_add counts it (rules 7, 9), without its set-up and dispatch:
** for the steps' common rows once the counts exist.  1 when counted; 0
** (nothing done) when p has no counts yet, is weighted, or kind is
** another: the caller takes ml_mc_stream_add's way. */
static inline int ml_mc_count_row(McAgg *p, int kind, int y, const double *s){
  McStream *ss = p->ss;
  int j, k = p->k;
  if( (kind!=MC_TOP_K && kind!=MC_CONFUSION) || ss==0 || p->wmode ) return 0;
  if( kind==MC_TOP_K ){
    double sy = s[y];                       /* the true class's place: above it, tied with it */
    int above = 0, tied = 0;
    for(j=0; j<k; j++){
      above += s[j]>sy;
      tied += s[j]==sy;
    }
    ss->cnt[above*MC_MAX_K + tied-1]++;
  }else{
    ss->cnt[y*MC_MAX_K + ml_mc_argmax(s, k)]++;
  }
  p->n++;
  return 1;
}
int ml_mc_stream_weigh(McAgg *p, int kind);
void ml_mc_stream_result(sqlite3_context *ctx, const McAgg *p, int kind);
void ml_mc_stream_free(McAgg *p);
/* multiclass_rank.c: mc_auroc's and mc_pr_auc's McRank from the rows (in
** mem: 0, or their scratch) or from the columns form; each one's JSON
** (unscale: rule 15's factor back); mc_auroc_ci's result (rule 11); the k
** values v (times f) as a JSON array (null for NaN).  ML_OK, ML_NOMEM or
** ML_STOPPED. */
int ml_mc_rank(const McAgg *p, int weighted, McRank *R, void *mem);
void ml_mc_rank_marks(McRank *R);
int ml_mc_rank_held(McAgg *p, McRank *R);
/* Column i's swept sums into R (i = 0 first: its class totals are R's W and
** n), then micro's (its positive and negative totals P, N). */
void ml_mc_rank_col(McRank *R, int i, McCol *c);
void ml_mc_rank_micro(McRank *R, double U, double AP, double P, double N);
void ml_mc_auroc_json(sqlite3_context *ctx, const McRank *R, double unscale);
void ml_mc_pr_auc_json(sqlite3_context *ctx, const McRank *R, double unscale);
void ml_mc_auroc_ci_result(sqlite3_context *ctx, const McAgg *p, int weighted);
void ml_mc_json_array(MlJson *j, const double *v, int k, double f);

/* multiclass_window.c: mc_auroc's counted sets (rule 17) and mc_pr_auc's
** sorted buffers (rule 20) over a window frame.  _start fills them from the
** rows held (dropped when out of memory), _row adds (sign +1) or removes
** (-1) one row (ML_OK or ML_NOMEM: the caller then drops them), _free drops
** them, _rank reads the frame's McRank (ML_OK). */
void ml_mc_win_start(McAgg *p);
int ml_mc_win_row(struct McWin *v, int k, int y, const double *s, int sign);
void ml_mc_win_free(McAgg *p);
int ml_mc_win_rank(const McAgg *p, McRank *R);
void ml_mc_srt_start(McAgg *p);
int ml_mc_srt_row(struct McSorted *v, int k, int y, const double *s, int sign);
void ml_mc_srt_free(McAgg *p);
int ml_mc_srt_rank(const McAgg *p, McRank *R);
/* mc_auroc_w and mc_pr_auc_w over a window frame (rule 21): the same four
** entry points; _rank reads the weights times sc (rule 15's factor, the one
** the aggregate would apply to the frame's rows). */
void ml_mc_wsrt_start(McAgg *p);
int ml_mc_wsrt_row(struct McWSorted *v, int k, int y, double w, const double *s, int sign);
void ml_mc_wsrt_free(McAgg *p);
int ml_mc_wsrt_rank(const McAgg *p, McRank *R, double sc);

#endif /* ML_MULTICLASS_IMPL_H */
