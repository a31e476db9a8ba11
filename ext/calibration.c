/*
** SPDX-License-Identifier: MIT
**
** calibration.c -- the calibration family: binary labels, probabilities p.
**
** SQL functions (all aggregate and window functions):
**   brier(y, p)                      mean of (p - y)^2
**   log_loss(y, p [, eps=1e-15])     mean of -(y ln clip(p) + (1-y) ln clip(1-p)),
**                                    clip to [eps, 1 - eps]
**   ece(y, p [, bins=10])            sum_b (n_b/N) |mean(y)_b - mean(p)_b|,
**                                    equal-width bins [b/B, (b+1)/B), p = 1 in the last
**   reliability(y, p [, bins=10])    JSON [{"bin","lo","hi","n","mean_p","frac_pos"}]
**                                    for every non-empty bin of ece's binning
**   ece_l2_debiased(y, p [, bins=10])  eval_toolkit's debiased L2 ECE (equal mass by rank)
**   ece_l2_kumar(y, p [, bins=15])     Kumar, Liang & Ma 2019 debiased L2 error
**
** Rules:
**   1. A NULL y or p skips the row; y must be 0 or 1, p a number in [0, 1].
**   2. eps is a number in (0, 0.5); bins an integer in 1..100000; each the
**      same in every row of a group.
**   3. One class is fine here: only an empty group gives NULL (and a
**      SQLITE_WARNING).  The two debiased estimators are NULL when the group
**      has fewer rows than bins.
**   4. A value on a bin edge b/B belongs to bin b (the edges are the doubles
**      b/B); p = 1 belongs to bin B-1.
**   5. ece_l2_debiased: rows sorted by p, ties by label (0 before 1); part i
**      is ranks floor(i n/B) .. floor((i+1) n/B) - 1;
**      sqrt(max(0, sum_b (n_b/n) ((pbar_b - ybar_b)^2 - pbar_b (1 - pbar_b)/n_b))).
**   6. ece_l2_kumar: sorted p cut into parts of ceil(n/B) values, edges at the
**      midpoints between neighbouring parts plus 1.0, bin i = (e_{i-1}, e_i];
**      sqrt(max(0, sum_b (n_b/n) ((pbar_b - ybar_b)^2 - ybar_b (1 - ybar_b)/(n_b - 1)))),
**      a bin with fewer than 2 rows adding 0.
**
** Cost: brier and log_loss keep two numbers; ece and reliability one
** accumulator per bin (32 bytes x bins); all use compensated sums and window
** xInverse subtracts, so no row is buffered.  The debiased estimators keep
** the shared sorted sample (8 bytes per row) and walk it with the sweep.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

#define ML_MAX_BINS 100000

/* One equal-width bin: rows, positives, and the sum of p. */
typedef struct CalBin { ml_i64 n, npos; MlSum sp; } CalBin;

typedef struct CalAgg {
  ml_i64 n;           /* rows in the group (frame) */
  MlSum sum;          /* brier: sum (p-y)^2; log_loss: sum of losses */
  MlParam param;      /* eps or bins */
  ml_i64 nBin;        /* ece / reliability: bins allocated */
  CalBin *aBin;
} CalAgg;

static int default_bins(int kind){ return kind==CAL_L2_KUMAR ? 15 : 10; }

/* Bin of p in [0, 1] among B equal-width bins [b/B, (b+1)/B), p = 1 in the
** last.  floor(p*B) can be one off near an edge; the edges themselves are
** the doubles b/B, so correct against them. */
static ml_i64 bin_of(double p, ml_i64 B){
  double x = p * (double)B;
  ml_i64 b = (ml_i64)x;                   /* p >= 0: truncation is floor */
  double frac = x - (double)b;
  if( b>=B ) return B-1;
  /* Only a product within rounding of an integer can disagree with the
  ** edges b/B; check those against the edges themselves. */
  if( frac < 1e-9 || frac > 1.0 - 1e-9 ){
    if( b+1<B && p >= (double)(b+1)/(double)B ) b++;
    else if( b>0 && p < (double)b/(double)B ) b--;
  }
  return b;
}

/* Reads the optional parameter (argv[2]) into its slot; returns ML_ROW_*. */
static int cal_param(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                     MlParam *slot){
  if( d->kind==CAL_LOGLOSS ){
    double eps;
    if( argc<3 ){ if( !slot->set ){ slot->v = 1e-15; slot->set = 1; } return ML_ROW_OK; }
    return ml_param_real(ctx, d->name, "eps", argv[2], 0.0, 1, 0.5, 1, slot, &eps);
  }
  if( d->kind==CAL_BRIER ) return ML_ROW_OK;
  {
    ml_i64 b;
    if( argc<3 ){ if( !slot->set ){ slot->v = default_bins(d->kind); slot->set = 1; } return ML_ROW_OK; }
    return ml_param_int(ctx, d->name, "bins", argv[2], 1, ML_MAX_BINS, slot, &b);
  }
}

/* Loss of one row for log_loss.  clip(1 - p) equals 1 - clip(p) in exact
** arithmetic; in doubles they differ (1 - (1 - 1e-15) is 9.99e-16), and
** scikit-learn computes the second, so we do too. */
static double log_loss_term(int y, double p, double eps){
  double c = p<eps ? eps : p>1.0-eps ? 1.0-eps : p;
  return -log(y ? c : 1.0 - c);
}

/* Adds (w = +1) or removes (w = -1) one row; a state's entry adds w = its
** count of rows with this (y, p) at once (sums scaled by w: within the
** precision rule of a row-by-row sum, see docs/states.md). */
static void cal_update(CalAgg *p, int kind, int y, double pr, ml_i64 w){
  p->n += w;
  switch( kind ){
    case CAL_BRIER: { double e = pr - y; ml_sum_add(&p->sum, (double)w * (e*e)); break; }
    case CAL_LOGLOSS: ml_sum_add(&p->sum, (double)w * log_loss_term(y, pr, p->param.v)); break;
    default: {
      CalBin *b = &p->aBin[bin_of(pr, p->nBin)];
      b->n += w;
      b->npos += w * y;
      if( b->n==0 ){ b->sp.s = 0.0; b->sp.c = 0.0; }   /* no residue in an empty bin */
      else ml_sum_add(&b->sp, (double)w * pr);
      break;
    }
  }
  if( p->n==0 ){ p->sum.s = 0.0; p->sum.c = 0.0; }
}

/* ece and reliability: the bins, allocated at the group's first row. */
static int cal_bins(sqlite3_context *ctx, const MlFuncDesc *d, CalAgg *p){
  if( (d->kind==CAL_ECE || d->kind==CAL_RELIABILITY) && p->aBin==0 ){
    p->nBin = (ml_i64)p->param.v;
    p->aBin = ml_malloc(sizeof(CalBin) * (uint64_t)p->nBin);
    if( p->aBin==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
    memset(p->aBin, 0, sizeof(CalBin) * (size_t)p->nBin);
  }
  return ML_ROW_OK;
}

/* A state's scores must be probabilities for the calibration functions. */
static int state_probabilities(const MlState *st, int n, char *zErr, int nErr){
  int j;
  for(j=0; j<n; j++){
    double lo, hi;
    if( st[j].sec[0].nEntry==0 ) continue;
    ml_section_range(&st[j].sec[0], &lo, &hi);
    if( lo<0.0 || hi>1.0 ){
      sqlite3_snprintf(nErr, zErr, "p must be a probability in [0, 1], got %!.15g in a state", lo<0.0 ? lo : hi);
      return ML_ERROR;
    }
  }
  return ML_OK;
}

/*
** SQL function: brier(y, p), log_loss(y, p [, eps]), ece(y, p [, bins]),
**   reliability(y, p [, bins])                   -- xStep
*/
void ml_calib_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double pr;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( cal_param(ctx, d, argc, argv, &p->param) ) return;
  if( ml_arg_binary_row(ctx, d->name, argv, 1, &y, &pr)!=ML_ROW_OK ) return;
  if( cal_bins(ctx, d, p) ) return;
  cal_update(p, d->kind, y, pr, +1);
}

/* States: each entry adds its rows of each class at once. */
static int calib_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int j, rc;
  if( p==0 ) return ML_NOMEM;
  if( d->kind!=CAL_BRIER && !p->param.set ) return ML_OK;   /* xStep rejected the parameter */
  if( (rc = state_probabilities(st, n, zErr, nErr))!=0 ) return rc;
  if( (d->kind==CAL_ECE || d->kind==CAL_RELIABILITY) && p->aBin==0 ){
    p->nBin = (ml_i64)p->param.v;
    p->aBin = ml_malloc(sizeof(CalBin) * (uint64_t)p->nBin);
    if( p->aBin==0 ) return ML_NOMEM;
    memset(p->aBin, 0, sizeof(CalBin) * (size_t)p->nBin);
  }
  for(j=0; j<n; j++){
    MlReader r;
    MlEntry e;
    ml_reader_init(&r, &st[j].sec[0]);
    while( ml_reader_next(&r, &e) ){
      double pr = ml_double_of(e.key);
      if( e.n[0] ) cal_update(p, d->kind, 0, pr, sign * e.n[0]);
      if( e.n[1] ) cal_update(p, d->kind, 1, pr, sign * e.n[1]);
    }
  }
  return ML_OK;
}
const MlStateHooks ml_calib_states = {
  sizeof(CalAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT), calib_absorb
};

void ml_calib_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double pr;
  (void)argc;
  if( p==0 || p->n==0 ) return;
  if( ml_arg_binary_row(ctx, d->name, argv, 1, &y, &pr)!=ML_ROW_OK ) return;
  cal_update(p, d->kind, y, pr, -1);
}

static void write_reliability(MlJson *j, const CalAgg *p){
  ml_i64 b;
  ml_json_begin_array(j);
  for(b=0; b<p->nBin; b++){
    const CalBin *c = &p->aBin[b];
    if( c->n==0 ) continue;
    ml_json_begin_object(j);
    ml_json_key(j, "bin");      ml_json_int(j, b);
    ml_json_key(j, "lo");       ml_json_double(j, (double)b/(double)p->nBin);
    ml_json_key(j, "hi");       ml_json_double(j, (double)(b+1)/(double)p->nBin);
    ml_json_key(j, "n");        ml_json_int(j, c->n);
    ml_json_key(j, "mean_p");   ml_json_double(j, ml_sum_value(&c->sp)/(double)c->n);
    ml_json_key(j, "frac_pos"); ml_json_double(j, (double)c->npos/(double)c->n);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
}

static void calib_result(sqlite3_context *ctx, CalAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  if( p==0 || p->n==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  switch( d->kind ){
    case CAL_BRIER:
    case CAL_LOGLOSS:
      sqlite3_result_double(ctx, ml_sum_value(&p->sum) / (double)p->n);
      break;
    case CAL_ECE: {
      /* sum_b (n_b/N) |ybar_b - pbar_b| = (1/N) sum_b |npos_b - sum_p_b| */
      MlSum e = {0.0, 0.0};
      ml_i64 b;
      for(b=0; b<p->nBin; b++){
        if( p->aBin[b].n ) ml_sum_add(&e, fabs((double)p->aBin[b].npos - ml_sum_value(&p->aBin[b].sp)));
      }
      sqlite3_result_double(ctx, ml_sum_value(&e) / (double)p->n);
      break;
    }
    default: {
      MlJson j;
      ml_json_init(&j);
      write_reliability(&j, p);
      ml_result_json(ctx, &j);
      break;
    }
  }
}

void ml_calib_value(sqlite3_context *ctx){
  calib_result(ctx, sqlite3_aggregate_context(ctx, 0));
}

void ml_calib_final(sqlite3_context *ctx){
  CalAgg *p = sqlite3_aggregate_context(ctx, 0);
  calib_result(ctx, p);
  if( p ){ ml_free(p->aBin); p->aBin = 0; }
}

/* ------------------------------------------- debiased estimators (sorted) */

typedef struct CalSortAgg {
  MlSamples smp;      /* key p; label picks the array */
  MlParam bins;
  int init;
} CalSortAgg;

/* Per-bin sums the two estimators share. */

/* eval_toolkit: equal-mass bins by rank.  Walking the sorted sample from the
** top, a threshold's rows hold ascending ranks [lo, hi]: negatives first
** (ties by label), so positives take the top dtp ranks. */
static void fill_rank_bins(const MlSamples *smp, CalBin *bin, ml_i64 B){
  ml_i64 n = ml_samples_count(smp);
  MlSweep w;
  ml_sweep_init(&w, smp, 0);
  while( ml_sweep_next(&w) ){
    double pv = ml_double_of(w.key);
    ml_i64 r = n - (w.tp + w.fp) + w.dtp + w.dfp - 1;    /* highest rank of the group */
    int pass;
    for(pass=0; pass<2; pass++){                          /* positives, then negatives */
      ml_i64 cnt = pass==0 ? w.dtp : w.dfp;
      while( cnt>0 ){
        ml_i64 i = ((r+1)*B + n - 1)/n - 1;               /* part holding rank r */
        ml_i64 lo = i*n/B;
        ml_i64 take = r - lo + 1 < cnt ? r - lo + 1 : cnt;
        bin[i].n += take;
        bin[i].npos += pass==0 ? take : 0;
        ml_sum_add(&bin[i].sp, (double)take * pv);
        r -= take;
        cnt -= take;
      }
    }
  }
}

/* Kumar et al.: parts of k = ceil(n/B) sorted values; edges at midpoints of
** neighbouring parts, then 1.0; bin i = (e_{i-1}, e_i].  Returns the number
** of bins used (m = ceil(n/k)), or -1 when out of memory. */
static ml_i64 fill_kumar_bins(const MlSamples *smp, CalBin *bin, ml_i64 B){
  ml_i64 n = ml_samples_count(smp);
  ml_i64 k = (n + B - 1)/B, m = (n + k - 1)/k, nq = 2*(m-1), t = 0, j, i;
  double *edge, *qv;
  MlSweep w;
  edge = ml_malloc(sizeof(double) * (uint64_t)(m + nq));
  if( edge==0 ) return -1;
  qv = edge + m;
  /* The values at the ranks around each cut, highest first: for j = m-2
  ** down to 0, rank (j+1)k (first of part j+1) then (j+1)k - 1 (last of
  ** part j).  A threshold's rows hold ranks [lo, lo + dtp + dfp). */
  ml_sweep_init(&w, smp, 0);
  while( t<nq && ml_sweep_next(&w) ){
    ml_i64 lo = n - (w.tp + w.fp);
    while( t<nq && (m-1 - t/2)*k - (t%2) >= lo ) qv[t++] = ml_double_of(w.key);
  }
  for(j=0; j<m-1; j++){
    ml_i64 q = 2*(m-2-j);
    edge[j] = (qv[q+1] + qv[q]) / 2.0;       /* (last of part j + first of part j+1) / 2 */
  }
  edge[m-1] = 1.0;
  /* bisect_left on the edges (bin i holds (e_{i-1}, e_i]), values downwards */
  i = m-1;
  ml_sweep_init(&w, smp, 0);
  while( ml_sweep_next(&w) ){
    double v = ml_double_of(w.key);
    while( i>0 && edge[i-1] >= v ) i--;
    bin[i].n += w.dtp + w.dfp;
    bin[i].npos += w.dtp;
    ml_sum_add(&bin[i].sp, (double)(w.dtp + w.dfp) * v);
  }
  ml_free(edge);
  return m;
}

/*
** SQL function: ece_l2_debiased(y, p [, bins=10]), ece_l2_kumar(y, p [, bins=15])
*/
void ml_calsort_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalSortAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double pr;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){ ml_samples_init(&p->smp, 8); p->init = 1; }
  if( cal_param(ctx, d, argc, argv, &p->bins) ) return;
  if( ml_arg_binary_row(ctx, d->name, argv, 1, &y, &pr)!=ML_ROW_OK ) return;
  ml_add_row(ctx, &p->smp, y, pr, 0.0);
}

void ml_calsort_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalSortAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double pr;
  (void)argc;
  if( p==0 || !p->init ) return;
  if( ml_arg_binary_row(ctx, d->name, argv, 1, &y, &pr)!=ML_ROW_OK ) return;
  ml_samples_remove(&p->smp, y, pr, 0.0);
}

static void calsort_result(sqlite3_context *ctx, CalSortAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 n, B, nb, b;
  CalBin *bin;
  MlSum tot = {0.0, 0.0};
  double v;
  if( p==0 || !p->init || (n = ml_samples_count(&p->smp))==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  B = (ml_i64)p->bins.v;
  if( n<B ){
    ml_result_null(ctx, d->name, "%lld rows, fewer than bins = %lld", (long long)n, (long long)B);
    return;
  }
  if( ml_samples_sort(&p->smp) ){ sqlite3_result_error_nomem(ctx); return; }
  bin = ml_malloc(sizeof(CalBin) * (uint64_t)B);
  if( bin==0 ){ sqlite3_result_error_nomem(ctx); return; }
  memset(bin, 0, sizeof(CalBin) * (size_t)B);
  if( d->kind==CAL_L2_DEBIASED ){
    fill_rank_bins(&p->smp, bin, B);
    nb = B;
  }else{
    nb = fill_kumar_bins(&p->smp, bin, B);
    if( nb<0 ){ ml_free(bin); sqlite3_result_error_nomem(ctx); return; }
  }
  for(b=0; b<nb; b++){
    double nbv = (double)bin[b].n, pbar, ybar, term;
    if( bin[b].n==0 ) continue;
    pbar = ml_sum_value(&bin[b].sp) / nbv;
    ybar = (double)bin[b].npos / nbv;
    if( d->kind==CAL_L2_DEBIASED ){
      term = (pbar - ybar)*(pbar - ybar) - pbar*(1.0 - pbar)/nbv;
    }else{
      if( bin[b].n<2 ) continue;
      term = (pbar - ybar)*(pbar - ybar) - ybar*(1.0 - ybar)/(nbv - 1.0);
    }
    ml_sum_add(&tot, nbv/(double)n * term);
  }
  ml_free(bin);
  v = ml_sum_value(&tot);
  sqlite3_result_double(ctx, sqrt(v > 0.0 ? v : 0.0));
}

void ml_calsort_value(sqlite3_context *ctx){
  calsort_result(ctx, sqlite3_aggregate_context(ctx, 0));
}

/* States: the sorted runs merge into the buffer. */
static int calsort_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  CalSortAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int rc;
  if( p==0 ) return ML_NOMEM;
  if( (rc = state_probabilities(st, n, zErr, nErr))!=0 ) return rc;
  if( !p->init ){ ml_samples_init(&p->smp, 8); p->init = 1; }
  return ml_absorb_section(&p->smp, st, n, 0, sign);
}
const MlStateHooks ml_calsort_states = {
  sizeof(CalSortAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT), calsort_absorb
};

void ml_calsort_final(sqlite3_context *ctx){
  CalSortAgg *p = sqlite3_aggregate_context(ctx, 0);
  calsort_result(ctx, p);
  if( p && p->init ) ml_samples_clear(&p->smp);
}
