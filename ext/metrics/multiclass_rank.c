/*
** SPDX-License-Identifier: MIT
**
** multiclass_rank.c -- the ranking results of the multiclass family:
** mc_auroc's and mc_pr_auc's sorts and sweeps of the k score columns
** (McRank, from the rows or the columns form), their JSON, and
** mc_auroc_ci's bootstrap of them.  multiclass.c calls these
** (multiclass_impl.h).
**
** Rules (numbered as in multiclass.c, whose other rules hold here):
**   5. OvR per class: the binary AUC / average precision of (y = j, p_j),
**      ties counting 1/2 (AUC) or as one threshold (AP), as roc_auc_score
**      and average_precision_score.  micro: the same over the n k pairs
**      (1[y = j], p_j).  OvO (Hand & Till 2001): the mean over pairs a < b
**      of (A(a|b) + A(b|a)) / 2, A(a|b) the AUC of p_a between the rows of
**      classes a and b; ovo_weighted weighs each pair by its rows (its
**      weight), as scikit-learn's average='weighted'.
**  11. mc_auroc_ci draws rows (ml_boot_run, docs/uncertainty.md) in the
**      canonical order (y, w, s_0, ..., s_k-1), so the interval does not
**      depend on the rows' order; a replicate missing a class is drawn again
**      (at most 100 times, then NULL); a class absent from the group: NULL.
**      Its estimate is mc_auroc's ovr_macro and ovo_macro, bit for bit.
**      mc_auroc_ci_w: the weighted bootstrap of docs/weights.md on the same
**      machinery: a row is one unit (drawn k times, it weighs k w); its
**      estimate is mc_auroc_w's bit for bit; equal weights give
**      mc_auroc_ci's text.
**  16. A class holding every row of a group has no OvR per-class value:
**      its AUROC and average precision are null, as auroc and pr_auc over
**      one class are, and "reason" says so.
**
** Cost: mc_auroc / mc_pr_auc: the keys of the k columns made in one pass over the
** rows, each column sorted once (the shared sort, ml_radix_sort) and swept
** (its OvR terms and the OvO pairs of its class), then micro by a k-way merge
** of the sorted columns (no sort of the n k pairs): O(n k) time for the sorts
** and sweeps, O(n k^2) for the merge's choice of column, and 16 (k + 1) n
** bytes of scratch (the columns form: the held columns and 16 n).  Measured (bench/RESULTS.md, "Multiclass"; callgrind,
** k = 3, 10^6 rows): mc_auroc 1994 Ir/row, 1.96x the no-op floor4 of the
** same four columns, of which the k sorts ~390, the micro merge ~185, the
** sweeps ~95, the row step above the floor's ~250; the JSON form 2258
** (3.21x floor_text, which parses nothing).
** mc_auroc_ci: the canonical order (a merge sort of the rows), then per
** replicate the drawn rows and one mc_rank (16 + 8 (k + 2) + 16 (k + 1)
** bytes a row in one block, rule 18).
*/
#include <float.h>
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "multiclass_impl.h"

/* ------------------------------------------------------ ranking sweeps */

/* The row r of the group (its [y, w, p_0 .. p_k-1]). */
static const double *mc_at(const McAgg *p, ml_i64 r){
  return p->a + (size_t)(p->head + r)*MC_STRIDE(p);
}

/* A sort record's aux: row * MC_TAG + low, exact in a double (rows < 2^49);
** low is the row's class y in a column's records, 1[y = j] in a gathered
** micro group's.  The class needs no look-up in the rows; the weight does. */
#define MC_TAG 16
static ml_i64 mc_rec_row(const MlRec16 *r){ return (ml_i64)r->aux >> 4; }
static int mc_rec_low(const MlRec16 *r){ return (int)((ml_i64)r->aux & (MC_TAG-1)); }

/* Within a run of tied scores rec[lo..hi), orders the records by weight
** (weighted rows only), so that every sum over the run is taken in an
** order fixed by the values (rule 6).  scratch: hi - lo records + extra. */
static void mc_order_ties(const McAgg *p, MlRec16 *rec, ml_i64 lo, ml_i64 hi, void *scratch){
  ml_i64 t;
  for(t=lo; t<hi; t++) rec[t].key = ml_key_of(mc_at(p, mc_rec_row(&rec[t]))[1]);
  ml_radix_sort(rec + lo, hi - lo, 16, scratch);
}

/* Column i: rec holds the n rows sorted ascending by p_i; the sweep goes
** from the highest score down, one run of ties at a time (ml_mc_col_one,
** ml_mc_col_run: multiclass_impl.h).  A run of one row (most runs) takes
** the general step's arithmetic with one class nonzero, term for term.
** unit: every row's weight is 1 (no look-up).  A weighted run is left
** ordered by weight (mc_order_ties), for the micro sweep. */
static void mc_sweep_column(const McAgg *p, int i, MlRec16 *rec, int weighted, int unit, void *scratch,
                            McCol *out){
  double above[MC_MAX_K], g[MC_MAX_K], u[MC_MAX_K];
  const MlRec16 *r;
  ml_i64 hi = p->n, lo;
  McColSums cs = { 0.0, 0.0, 0.0, 0.0 };
  memset(above, 0, sizeof(above));
  memset(g, 0, sizeof(g));
  memset(u, 0, sizeof(u));
  while( hi>0 ){
    ml_key key;
    r = rec + hi - 1;
    key = r->key;
    if( hi==1 || r[-1].key!=key ){
      if( unit ) ml_mc_col_one(&cs, above, u, i, mc_rec_low(r), 1.0, 1);
      else ml_mc_col_one(&cs, above, u, i, mc_rec_low(r), mc_at(p, mc_rec_row(r))[1], 0);
      hi--;
      continue;
    }
    for(lo=hi-2; lo>0 && rec[lo-1].key==key; lo--){}
    if( weighted ){
      mc_order_ties(p, rec, lo, hi, scratch);
      for(ml_i64 t=lo; t<hi; t++) rec[t].key = key;      /* the score's key back, for micro */
    }
    for(ml_i64 t=lo; t<hi; t++){
      g[mc_rec_low(&rec[t])] += unit ? 1.0 : mc_at(p, mc_rec_row(&rec[t]))[1];
    }
    ml_mc_col_run(&cs, above, u, i, p->k, g);
    hi = lo;
  }
  memcpy(out->above, above, sizeof(above));
  memcpy(out->u, u, sizeof(u));
  out->s = cs;
}

/* micro: the n k pairs (1[y = j], p_j) swept from the highest score down, a
** k-way merge of the k sorted columns col[j*n .. j*n+n) (no sort of the
** pairs): a run of tied pairs is each column's run at that score.  Its
** positive and negative weights are summed as a sort of the pairs would
** have: in any order when every weight is an integer count below 2^53
** (unweighted: exact), in the column's order when the run comes from one
** column (weighted: already ordered by weight, mc_sweep_column), else
** gathered into *pBuf and ordered by weight (mc_order_ties).  ML_OK or
** ML_NOMEM. */
static int mc_sweep_micro(const McAgg *p, const MlRec16 *col, int weighted, int unit, MlRec16 **pBuf,
                          ml_i64 *pnBuf, double *pU, double *pAp, double *pP, double *pN){
  double posAbove = 0.0, negAbove = 0.0, u = 0.0, ap = 0.0;
  ml_i64 n = p->n, hi[MC_MAX_K], lo[MC_MAX_K];
  int k = p->k, j;
  for(j=0; j<k; j++) hi[j] = n;
  for(;;){
    double gp = 0.0, gn = 0.0;
    ml_key key = 0;
    ml_i64 m = 0, t;
    int any = 0, ncol = 0;
    for(j=0; j<k; j++){
      if( hi[j]>0 && (!any || col[j*n + hi[j]-1].key>key) ){ key = col[j*n + hi[j]-1].key; any = 1; }
    }
    if( !any ) break;
    for(j=0; j<k; j++){
      const MlRec16 *c = col + j*n;
      lo[j] = hi[j];
      while( lo[j]>0 && c[lo[j]-1].key==key ) lo[j]--;
      if( lo[j]<hi[j] ){ m += hi[j] - lo[j]; ncol++; }
    }
    if( !weighted || ncol==1 || m==1 ){
      for(j=0; j<k; j++){
        const MlRec16 *c = col + j*n;
        for(t=lo[j]; t<hi[j]; t++){
          double w = unit ? 1.0 : mc_at(p, mc_rec_row(&c[t]))[1];
          if( mc_rec_low(&c[t])==j ) gp += w; else gn += w;
        }
      }
    }else{
      MlRec16 *b;
      ml_i64 o = 0;
      if( *pnBuf<m ){                     /* records and the sort's scratch */
        ml_i64 cNew = m>2*(*pnBuf) ? m : 2*(*pnBuf);
        b = ml_realloc(*pBuf, (uint64_t)cNew*32 + ML_RADIX_EXTRA);
        if( b==0 ) return ML_NOMEM;
        *pBuf = b;
        *pnBuf = cNew;
      }
      b = *pBuf;
      for(j=0; j<k; j++){
        const MlRec16 *c = col + j*n;
        for(t=lo[j]; t<hi[j]; t++){
          b[o].aux = (double)(mc_rec_row(&c[t])*MC_TAG + (mc_rec_low(&c[t])==j));
          o++;
        }
      }
      mc_order_ties(p, b, 0, m, b + m);
      for(t=0; t<m; t++){
        double w = mc_at(p, mc_rec_row(&b[t]))[1];
        if( mc_rec_low(&b[t]) ) gp += w; else gn += w;
      }
    }
    ml_mc_run_end(gp, gn, &posAbove, &negAbove, &u, &ap);
    for(j=0; j<k; j++) hi[j] = lo[j];
  }
  *pU = u; *pAp = ap; *pP = posAbove; *pN = negAbove;
  return ML_OK;
}

/* micro without weights (every weight an integer count, so that a run's
** sums are exact in any order): the same sweep as mc_sweep_micro, one pair
** at a time -- the column whose next score is highest gives the next pair,
** and a run ends where the score changes.  A column's key 0 marks it used
** up (no score has key 0: only a NaN would).  unit: the counts are counted
** as integers and turned to doubles at the end of each run (exact). */
static void mc_sweep_micro_counts(const McAgg *p, MlRec16 *const *col, int unit, double *pU, double *pAp,
                                  double *pP, double *pN){
  double posAbove = 0.0, negAbove = 0.0, u = 0.0, ap = 0.0, gp = 0.0, gn = 0.0;
  const MlRec16 *at[MC_MAX_K], *first[MC_MAX_K];
  ml_i64 n = p->n, cp = 0, cn = 0;
  ml_key hk[MC_MAX_K], key = 0;
  int k = p->k, j, b;
  for(j=0; j<k; j++){
    first[j] = col[j];
    at[j] = first[j] + n - 1;
    hk[j] = at[j]->key;
    if( hk[j]>key ) key = hk[j];
  }
  for(;;){
    const MlRec16 *r;
    ml_key kb = hk[0];
    for(b=0, j=1; j<k; j++) if( hk[j]>kb ){ kb = hk[j]; b = j; }
    if( kb!=key ){                         /* the run at key is complete */
      if( unit && cp + cn==1 ){
        /* one pair: the general terms with (gp, gn) = (1, 0) or (0, 1), exactly
        ** (u += 0 * x and negAbove += 0 change nothing; 1 * x = x) */
        if( cp ){
          double tp = posAbove + 1.0;
          ap += tp/(tp + negAbove);
          posAbove = tp;
        }else{
          u += posAbove;
          negAbove += 1.0;
        }
        cp = cn = 0;
      }else{
        if( unit ){ gp = (double)cp; gn = (double)cn; cp = cn = 0; }
        ml_mc_run_end(gp, gn, &posAbove, &negAbove, &u, &ap);
        gp = gn = 0.0;
      }
      if( kb==0 ) break;
      key = kb;
    }
    r = at[b];
    if( unit ){
      if( mc_rec_low(r)==b ) cp++; else cn++;
    }else if( mc_rec_low(r)==b ){
      gp += mc_at(p, mc_rec_row(r))[1];
    }else{
      gn += mc_at(p, mc_rec_row(r))[1];
    }
    if( r>first[b] ){ at[b] = r - 1; hk[b] = r[-1].key; }else{ hk[b] = 0; }
  }
  *pU = u; *pAp = ap; *pP = posAbove; *pN = negAbove;
}

/* The class marks of a ranking's result: absent, the first class with no
** row, full, the first holding every row (-1: none).  The aggregate's and
** both windows' rankings (multiclass_window.c) end with it. */
void ml_mc_rank_marks(McRank *R){
  int c;
  R->absent = R->full = -1;
  for(c=R->k-1; c>=0; c--){
    if( R->W[c]==0.0 ) R->absent = c;
    if( R->W[c]==R->n ) R->full = c;
  }
}

void ml_mc_rank_col(McRank *R, int i, McCol *cs){
  double P, N;
  int c, k = R->k;
  cs->above[i] = cs->s.posAbove;
  if( i==0 ){
    R->n = 0.0;
    for(c=0; c<k; c++){ R->W[c] = cs->above[c]; R->n += cs->above[c]; }
  }
  P = R->W[i];
  N = R->n - P;
  R->auc[i] = P>0.0 && N>0.0 ? cs->s.uOvr / (P*N) : NAN;
  R->ap[i] = P>0.0 && N>0.0 ? cs->s.ap / P : NAN;      /* one class only: null (rule 16) */
  for(c=0; c<k; c++){
    R->A[i][c] = c!=i && P>0.0 && R->W[c]>0.0 ? cs->u[c] / (P*R->W[c]) : NAN;
  }
}

void ml_mc_rank_micro(McRank *R, double U, double AP, double P, double N){
  R->microAuc = P>0.0 && N>0.0 ? U / (P*N) : NAN;
  R->microAp = P>0.0 ? AP / P : NAN;
}

/* Bytes of scratch ml_mc_rank needs for n rows of k scores: the k sorted
** columns and one column's sort scratch. */
static uint64_t mc_rank_scratch(ml_i64 n, int k){ return (uint64_t)n*(k + 1)*16 + ML_RADIX_EXTRA; }

/* Sorts each column col[i] (n records; scratch: one column's and the
** sort's extra) and sweeps it, then micro (weighted: the columns must be
** one block, col[i] = col[0] + i n).  ML_OK, ML_NOMEM or ML_STOPPED. */
static int mc_rank_columns(const McAgg *p, MlRec16 *const *col, int weighted, int unit, void *scratch, McRank *R){
  ml_i64 nBuf = 0;
  int k = p->k, i, rc;
  MlRec16 *buf = 0;
  McCol cs;
  double U, AP, P, N;
  R->k = k;
  for(i=0; i<k; i++){
    if( ml_radix_sort(col[i], p->n, 16, scratch) ) return ML_STOPPED;
    mc_sweep_column(p, i, col[i], weighted, unit, scratch, &cs);
    ml_mc_rank_col(R, i, &cs);
  }
  ml_mc_rank_marks(R);
  rc = ML_OK;
  if( weighted ) rc = mc_sweep_micro(p, col[0], weighted, unit, &buf, &nBuf, &U, &AP, &P, &N);
  else mc_sweep_micro_counts(p, col, unit, &U, &AP, &P, &N);
  ml_free(buf);
  if( rc!=ML_OK ) return rc;
  ml_mc_rank_micro(R, U, AP, P, N);
  return ML_OK;
}

/* Sorts each score column once (the shared sort, ml_radix_sort, of records
** (key of p_j, row and class) made in one pass over the rows), sweeps each,
** then merges the k sorted columns for micro.  In mem (mc_rank_scratch
** bytes; 0: allocated here).  ML_OK, ML_NOMEM or ML_STOPPED. */
int ml_mc_rank(const McAgg *p, int weighted, McRank *R, void *mem){
  ml_i64 n = p->n, t;
  int k = p->k, i, unit = 1, rc;
  MlRec16 *col, *cols[MC_MAX_K];
  col = mem ? mem : ml_malloc(mc_rank_scratch(n, k));
  if( col==0 ) return ML_NOMEM;
  for(t=0; t<n; t++){                      /* the keys, made once */
    const double *r = mc_at(p, t);
    double tag = (double)(t*MC_TAG + (int)r[0]);
    if( r[1]!=1.0 ) unit = 0;
    for(i=0; i<k; i++){ col[i*n + t].key = ml_key_of(r[2 + i]); col[i*n + t].aux = tag; }
  }
  for(i=0; i<k; i++) cols[i] = col + (size_t)i*n;
  rc = mc_rank_columns(p, cols, weighted, unit, col + (size_t)n*k, R);
  if( !mem ) ml_free(col);
  return rc;
}

/* The columns form's result (rule 19): each column shrunk to its rows (no
** growth slack kept), then sorted in place with one column of scratch. */
int ml_mc_rank_held(McAgg *p, McRank *R){
  void *scratch;
  int i, rc;
  for(i=0; i<p->k; i++){
    MlRec16 *c = ml_realloc(p->col[i], (uint64_t)p->n*16);
    if( c ) p->col[i] = c;
  }
  p->capcol = p->n;
  scratch = ml_malloc((uint64_t)p->n*16 + ML_RADIX_EXTRA);
  if( scratch==0 ) return ML_NOMEM;
  rc = mc_rank_columns(p, p->col, 0, 1, scratch, R);
  ml_free(scratch);
  return rc;
}

/* Mean of v[0..k) (weights wt, or equal when wt is 0); NaN if any is NaN. */
static double mc_average(const double *v, const double *wt, int k){
  double s = 0.0, sw = 0.0;
  int i;
  for(i=0; i<k; i++){
    double w = wt ? wt[i] : 1.0;
    s += w*v[i];
    sw += w;
  }
  return s / sw;
}

/* v[0..k) times f (1, or rule 15's factor back to the weights' scale). */
void ml_mc_json_array(MlJson *j, const double *v, int k, double f){
  int i;
  ml_json_begin_array(j);
  for(i=0; i<k; i++) ml_json_double(j, v[i]*f);
  ml_json_end_array(j);
}

static void mc_json_reason(MlJson *j, const McRank *R, const char *zWhat, const char *zBinary){
  char z[320];
  int n;
  if( R->absent<0 ) return;
  sqlite3_snprintf(sizeof(z), z, "class %d has no row: %s need every class", R->absent, zWhat);
  if( R->full>=0 ){
    n = (int)strlen(z);
    sqlite3_snprintf((int)sizeof(z) - n, z + n, "; class %d holds every row: its per_class value is null, "
                     "as %s over one class", R->full, zBinary);
  }
  ml_json_key(j, "reason");
  ml_json_string(j, z);
}

void ml_mc_auroc_json(sqlite3_context *ctx, const McRank *R, double unscale){
  MlJson j;
  int k = R->k, a, b, np = 0;
  double s = 0.0, sw = 0.0, sp = 0.0;
  for(a=0; a<k; a++){
    for(b=a+1; b<k; b++){
      double pair = (R->A[a][b] + R->A[b][a]) / 2.0, w = (R->W[a] + R->W[b]) / R->n;
      s += pair;
      sp += w*pair;
      sw += w;
      np++;
    }
  }
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "k");            ml_json_int(&j, k);
  ml_json_key(&j, "n");            ml_json_double(&j, R->n*unscale);
  ml_json_key(&j, "ovr_macro");    ml_json_double(&j, mc_average(R->auc, 0, k));
  ml_json_key(&j, "ovr_weighted"); ml_json_double(&j, R->absent>=0 ? NAN : mc_average(R->auc, R->W, k));
  ml_json_key(&j, "micro");        ml_json_double(&j, R->microAuc);
  ml_json_key(&j, "ovo_macro");    ml_json_double(&j, s / np);
  ml_json_key(&j, "ovo_weighted"); ml_json_double(&j, sp / sw);
  ml_json_key(&j, "per_class");    ml_mc_json_array(&j, R->auc, k, 1.0);
  mc_json_reason(&j, R, "ovr_macro, ovr_weighted, ovo_macro and ovo_weighted", "auroc");
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

void ml_mc_pr_auc_json(sqlite3_context *ctx, const McRank *R, double unscale){
  MlJson j;
  int k = R->k;
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "k");        ml_json_int(&j, k);
  ml_json_key(&j, "n");        ml_json_double(&j, R->n*unscale);
  ml_json_key(&j, "macro");    ml_json_double(&j, mc_average(R->ap, 0, k));
  ml_json_key(&j, "weighted"); ml_json_double(&j, R->absent>=0 ? NAN : mc_average(R->ap, R->W, k));
  ml_json_key(&j, "micro");    ml_json_double(&j, R->microAp);
  ml_json_key(&j, "per_class"); ml_mc_json_array(&j, R->ap, k, 1.0);
  mc_json_reason(&j, R, "macro and weighted", "pr_auc");
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

/* ------------------------------------------------------------ bootstrap */

/* Row i before row j in the canonical order (y, w, s_0, ..., s_k-1), so
** that the bootstrap draws the same rows whatever order they came in. */
static int mc_row_before(const McAgg *p, ml_i64 i, ml_i64 j){
  const double *a = mc_at(p, i), *b = mc_at(p, j);
  int c;
  for(c=0; c<p->k + 2; c++){
    if( a[c]!=b[c] ) return a[c]<b[c];
  }
  return i<j;
}

/* The rows' canonical order into perm[0..n) (a merge sort, tmp n more). */
static void mc_canonical(const McAgg *p, ml_i64 *perm, ml_i64 *tmp){
  ml_i64 n = p->n, w, i;
  for(i=0; i<n; i++) perm[i] = i;
  for(w=1; w<n; w*=2){
    for(i=0; i<n; i+=2*w){
      ml_i64 a = i, m = i+w<n ? i+w : n, b = m, e = i+2*w<n ? i+2*w : n, o = i;
      while( a<m || b<e ){
        if( b>=e || (a<m && !mc_row_before(p, perm[b], perm[a])) ) tmp[o++] = perm[a++];
        else tmp[o++] = perm[b++];
      }
    }
    memcpy(perm, tmp, (size_t)n*sizeof(ml_i64));
  }
}

typedef struct McBoot {
  const McAgg *p;
  const ml_i64 *perm;      /* canonical position -> row */
  McAgg drawn;             /* a replicate's rows, weight w times drawn */
  McRank R;
  void *mem;               /* ml_mc_rank's scratch, allocated once */
  int weighted;
  int nomem;               /* a replicate ran out of memory (the weighted micro merge's buffer) */
} McBoot;

/* The replicate's ovr_macro and ovo_macro (ml_boot_run's statistic). */
static int mc_boot_stat(void *arg, const MlCanon *cn, const ml_weight *wc, double *out){
  McBoot *b = arg;
  size_t st = MC_STRIDE(b->p);
  ml_i64 r, m = 0;
  int a, c, np = 0;
  double ovr = 0.0, ovo = 0.0;
  for(r=0; r<cn->n; r++){
    double *to;
    if( wc[r]==0 ) continue;
    to = b->drawn.a + (size_t)m*st;
    memcpy(to, mc_at(b->p, b->perm[r]), st*sizeof(double));
    to[1] *= (double)wc[r];
    m++;
  }
  b->drawn.n = m;
  if( (r = ml_mc_rank(&b->drawn, b->weighted, &b->R, b->mem))!=ML_OK ){
    if( r==ML_NOMEM ) b->nomem = 1;                  /* not an undefined replicate: the run stops */
    return 0;                                        /* (stopped: the run asks too) */
  }
  for(a=0; a<b->R.k; a++){
    ovr += b->R.auc[a];
    for(c=a+1; c<b->R.k; c++){ ovo += (b->R.A[a][c] + b->R.A[c][a]) / 2.0; np++; }
  }
  out[0] = ovr / b->R.k;
  out[1] = ovo / np;
  return !isnan(out[0]) && !isnan(out[1]);
}

static int mc_boot_stop(void *arg){ return ((McBoot*)arg)->nomem || ml_stop_requested(); }

static void mc_ci_json(MlJson *j, const char *zKey, const MlBootInterval *iv){
  ml_json_key(j, zKey);
  ml_json_begin_object(j);
  ml_json_key(j, "estimate"); ml_json_double(j, iv->estimate);
  ml_json_key(j, "lo");       ml_json_double(j, iv->lo);
  ml_json_key(j, "hi");       ml_json_double(j, iv->hi);
  ml_json_key(j, "se");       ml_json_double(j, iv->se);
  ml_json_key(j, "percentile");
  ml_json_begin_array(j); ml_json_double(j, iv->plo); ml_json_double(j, iv->phi); ml_json_end_array(j);
  ml_json_end_object(j);
}

/* mc_auroc_ci: the BCa bootstrap (ml_boot_run, as pr_auc_ci) of ovr_macro
** and ovo_macro, rows drawn in the canonical order (rule 11). */
void ml_mc_auroc_ci_result(sqlite3_context *ctx, const McAgg *p, int weighted){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  McBoot b;
  MlBootSpec spec;
  MlBootResult res;
  MlCanon cn;
  MlJson j;
  ml_i64 *perm;
  int rc;
  memset(&b, 0, sizeof(b));
  memset(&cn, 0, sizeof(cn));
  perm = ml_malloc((uint64_t)p->n*2*sizeof(ml_i64) + (uint64_t)p->n*MC_STRIDE(p)*sizeof(double)
                   + mc_rank_scratch(p->n, p->k));
  if( perm==0 ){ sqlite3_result_error_nomem(ctx); return; }
  b.mem = (double*)(perm + 2*p->n) + (size_t)p->n*MC_STRIDE(p);
  mc_canonical(p, perm, perm + p->n);
  b.p = p;
  b.perm = perm;
  b.weighted = weighted;
  b.drawn.k = p->k;
  b.drawn.a = (double*)(perm + 2*p->n);
  cn.n = p->n;
  memset(&spec, 0, sizeof(spec));
  memset(&spec, 0, sizeof(spec));
  spec.level = ml_param_value(&p->par[0], 0.95);
  spec.reps = (ml_i64)ml_param_value(&p->par[1], 1000.0);
  spec.seed = (uint64_t)ml_param_value(&p->par[2], 0.0);
  spec.K = 2;
  spec.stat = mc_boot_stat;
  spec.arg = &b;
  spec.stop = mc_boot_stop;
  spec.stopArg = &b;
  rc = ml_boot_run(&cn, &spec, &res);
  ml_free(perm);
  if( rc==ML_NOMEM || b.nomem ){ sqlite3_result_error_nomem(ctx); return; }
  if( rc==ML_BOOT_STOPPED ) return;                 /* ml_compute_end reports it */
  if( rc==ML_BOOT_UNDEFINED ){
    ml_result_null(ctx, d->name, "ovr_macro and ovo_macro need every class in the group");
    return;
  }
  if( rc==ML_BOOT_EXHAUSTED ){
    ml_result_null(ctx, d->name, "more than %d redraws for one replicate (a class too rare)", ML_BOOT_MAX_REDRAW);
    return;
  }
  ml_json_init(&j);
  ml_json_begin_object(&j);
  mc_ci_json(&j, "ovr_macro", &res.iv[0]);
  mc_ci_json(&j, "ovo_macro", &res.iv[1]);
  ml_json_key(&j, "level");   ml_json_double(&j, spec.level);
  ml_json_key(&j, "reps");    ml_json_int(&j, spec.reps);
  ml_json_key(&j, "seed");    ml_json_int(&j, (ml_i64)spec.seed);
  ml_json_key(&j, "method");  ml_json_string(&j, "bca");
  ml_json_key(&j, "redrawn"); ml_json_int(&j, res.redrawn);
  ml_json_key(&j, "k");       ml_json_int(&j, p->k);
  ml_json_key(&j, "n");       ml_json_int(&j, p->n);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}
