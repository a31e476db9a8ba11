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
** Cost: brier and log_loss keep one exact sum (MlXsum, 568 bytes); ece and
** reliability a count and an exact probability sum per bin (MlPSum: 40 bytes
** x bins, +568 bytes in bin 0 once it sees a p < 2^-17).  Sums are exact and
** window xInverse subtracts exactly, so no row is buffered and a frame's
** result equals the aggregate over its rows bit for bit.  The debiased estimators keep
** the shared sorted sample (8 bytes per row) and walk it with the sweep.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"

#define ML_MAX_BINS 100000

/* One equal-width bin: rows, positives, and the exact sum of p. */
typedef struct CalBin { ml_i64 n, npos; MlPSum sp; } CalBin;

/* The bins of one bins value. */
typedef struct CalBins {
  ml_i64 nBin;        /* bins allocated */
  ml_i64 n;           /* rows held in them */
  CalBin *a;
} CalBins;

typedef struct CalAgg {
  ml_i64 n;           /* rows in the group (frame) */
  MlXsum sum;         /* brier: sum (p-y)^2; log_loss: sum of losses (exact) */
  MlParam param;      /* eps or bins */
  CalBins set[2];     /* ece / reliability: one binning per bins value held
                      ** (two only between two frames, see MlParam) */
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

static double default_param(int kind){
  return kind==CAL_LOGLOSS ? 1e-15 : (double)default_bins(kind);
}
static const char *param_name(int kind){ return kind==CAL_LOGLOSS ? "eps" : "bins"; }

/* Reads the optional parameter (argv[2]) of this row into *val and counts
** the row under it; the default when absent.  Returns ML_ROW_*. */
static int cal_param(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                     MlParam *slot, double *val){
  *val = default_param(d->kind);
  if( argc<3 || d->kind==CAL_BRIER ) return ML_ROW_OK;
  if( d->kind==CAL_LOGLOSS ){
    return ml_param_real(ctx, d->name, "eps", argv[2], 0.0, 1, 0.5, 1, slot, val);
  }else{
    ml_i64 b;
    int rc = ml_param_int(ctx, d->name, "bins", argv[2], 1, ML_MAX_BINS, slot, &b);
    *val = (double)b;
    return rc;
  }
}

/* xInverse: the row's parameter value (as cal_param read it), uncounted. */
static double cal_param_drop(const MlFuncDesc *d, int argc, sqlite3_value **argv, MlParam *slot){
  if( argc<3 || d->kind==CAL_BRIER ) return default_param(d->kind);
  ml_param_drop(slot, argv[2]);
  return sqlite3_value_double(argv[2]);
}

/* Loss of one row for log_loss.  clip(1 - p) equals 1 - clip(p) in exact
** arithmetic; in doubles they differ (1 - (1 - 1e-15) is 9.99e-16), and
** scikit-learn computes the second, so we do too. */
static double log_loss_term(int y, double p, double eps){
  double c = p<eps ? eps : p>1.0-eps ? 1.0-eps : p;
  return -log(y ? c : 1.0 - c);
}

static void bins_free(CalBins *s){
  ml_i64 b;
  for(b=0; b<s->nBin; b++) ml_psum_clear(&s->a[b].sp);
  ml_free(s->a);
  memset(s, 0, sizeof(*s));
}

/* The binning of B bins: the one holding rows with B, else a free one
** (re-allocated for B).  NULL when out of memory. */
static CalBins *bins_for(CalAgg *p, ml_i64 B){
  int i;
  if( p->set[0].nBin==B && p->set[1].n==0 ) return &p->set[0];     /* the common case */
  for(i=0; i<2; i++) if( p->set[i].n>0 && p->set[i].nBin==B ) return &p->set[i];
  for(i=0; i<2; i++){
    CalBins *s = &p->set[i];
    if( s->n>0 ) continue;
    if( s->nBin!=B ){
      bins_free(s);
      s->a = ml_malloc(sizeof(CalBin) * (uint64_t)B);
      if( s->a==0 ) return 0;
      memset(s->a, 0, sizeof(CalBin) * (size_t)B);
      s->nBin = B;
    }
    return s;
  }
  return 0;     /* not reached: MlParam holds at most two values */
}

/* The binning holding the rows (the one non-empty set), or NULL. */
static const CalBins *bins_held(const CalAgg *p){
  return p->set[0].n>0 ? &p->set[0] : p->set[1].n>0 ? &p->set[1] : 0;
}

/* Adds (sign +1) or removes (sign -1) one row whose parameter is param.
** ML_OK or ML_NOMEM (adding only). */
static int cal_update(CalAgg *p, int kind, int y, double pr, double param, int sign){
  switch( kind ){
    case CAL_BRIER: { double e = pr - y; ml_xsum_add(&p->sum, e*e, sign); break; }
    case CAL_LOGLOSS: ml_xsum_add(&p->sum, log_loss_term(y, pr, param), sign); break;
    default: {
      CalBins *s = bins_for(p, (ml_i64)param);
      CalBin *b;
      if( s==0 ) return ML_NOMEM;
      b = &s->a[bin_of(pr, s->nBin)];
      if( ml_psum_add(&b->sp, pr, sign) ) return ML_NOMEM;
      b->n += sign;
      b->npos += sign * y;
      s->n += sign;
      break;
    }
  }
  p->n += sign;
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
  double pr, param;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( cal_param(ctx, d, argc, argv, &p->param, &param) ) return;
  if( ml_arg_binary_row(ctx, d->name, argv, 1, &y, &pr)!=ML_ROW_OK ) return;
  if( cal_update(p, d->kind, y, pr, param, +1) ) sqlite3_result_error_nomem(ctx);
}

void ml_calib_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double pr, param;
  if( p==0 ) return;
  param = cal_param_drop(d, argc, argv, &p->param);
  if( ml_arg_binary_row(ctx, d->name, argv, 1, &y, &pr)!=ML_ROW_OK ) return;
  cal_update(p, d->kind, y, pr, param, -1);
}

static void write_reliability(MlJson *j, const CalBins *s){
  ml_i64 b;
  ml_json_begin_array(j);
  for(b=0; b<s->nBin; b++){
    const CalBin *c = &s->a[b];
    if( c->n==0 ) continue;
    ml_json_begin_object(j);
    ml_json_key(j, "bin");      ml_json_int(j, b);
    ml_json_key(j, "lo");       ml_json_double(j, (double)b/(double)s->nBin);
    ml_json_key(j, "hi");       ml_json_double(j, (double)(b+1)/(double)s->nBin);
    ml_json_key(j, "n");        ml_json_int(j, c->n);
    ml_json_key(j, "mean_p");   ml_json_double(j, ml_psum_round(&c->sp)/(double)c->n);
    ml_json_key(j, "frac_pos"); ml_json_double(j, (double)c->npos/(double)c->n);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
}

static void calib_result(sqlite3_context *ctx, CalAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  if( p && ml_param_check(ctx, d->name, param_name(d->kind), &p->param) ) return;
  if( p==0 || p->n==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  switch( d->kind ){
    case CAL_BRIER:
    case CAL_LOGLOSS:
      sqlite3_result_double(ctx, ml_xsum_round(&p->sum) / (double)p->n);
      break;
    case CAL_ECE: {
      /* sum_b (n_b/N) |ybar_b - pbar_b| = (1/N) sum_b |npos_b - sum_p_b| */
      const CalBins *s = bins_held(p);
      MlXsum e;
      ml_i64 b;
      ml_xsum_init(&e);
      for(b=0; b<s->nBin; b++){
        const CalBin *c = &s->a[b];
        if( c->n ) ml_xsum_add(&e, fabs((double)c->npos - ml_psum_round(&c->sp)), 1);
      }
      sqlite3_result_double(ctx, ml_xsum_round(&e) / (double)p->n);
      break;
    }
    default: {
      MlJson j;
      ml_json_init(&j);
      write_reliability(&j, bins_held(p));
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
  if( p ){ bins_free(&p->set[0]); bins_free(&p->set[1]); }
}

/* ------------------------------------------- debiased estimators (sorted) */

/* A bin of the sorted estimators: filled once per result from the sorted
** sample (no xInverse), so a compensated sum of p suffices. */
typedef struct CalSortBin { ml_i64 n, npos; MlSum sp; } CalSortBin;

typedef struct CalSortAgg {
  MlSamples smp;      /* key p; label picks the array */
  MlParam bins;
  int init;
  int failed;         /* xStep set an error: xFinal only frees */
} CalSortAgg;

/* Per-bin sums the two estimators share. */

/* eval_toolkit: equal-mass bins by rank.  Walking the sorted sample from the
** top, a threshold's rows hold ascending ranks [lo, hi]: negatives first
** (ties by label), so positives take the top dtp ranks. */
static void fill_rank_bins(const MlSamples *smp, CalSortBin *bin, ml_i64 B){
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
static ml_i64 fill_kumar_bins(const MlSamples *smp, CalSortBin *bin, ml_i64 B){
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
  int y, rc;
  double pr, bins;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){ ml_samples_init(&p->smp, 8); p->init = 1; }
  rc = cal_param(ctx, d, argc, argv, &p->bins, &bins);
  if( rc==ML_ROW_OK ) rc = ml_arg_binary_row(ctx, d->name, argv, 1, &y, &pr);
  if( rc==ML_ROW_OK ) rc = ml_add_row(ctx, &p->smp, y, pr, 0.0) ? ML_ROW_ERR : ML_ROW_OK;
  if( rc==ML_ROW_ERR ) p->failed = 1;
}

void ml_calsort_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalSortAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double pr;
  if( p==0 || !p->init ) return;
  cal_param_drop(d, argc, argv, &p->bins);
  if( ml_arg_binary_row(ctx, d->name, argv, 1, &y, &pr)!=ML_ROW_OK ) return;
  ml_samples_remove(&p->smp, y, pr, 0.0);
}

static void calsort_compute(sqlite3_context *ctx, CalSortAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 n, B, nb, b;
  CalSortBin *bin;
  MlSum tot = {0.0, 0.0};
  double v;
  if( p && ml_param_check(ctx, d->name, "bins", &p->bins) ) return;
  if( p==0 || !p->init || (n = ml_samples_count(&p->smp))==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  B = (ml_i64)ml_param_value(&p->bins, default_bins(d->kind));
  if( n<B ){
    ml_result_null(ctx, d->name, "%lld rows, fewer than bins = %lld", (long long)n, (long long)B);
    return;
  }
  if( ml_samples_sort(&p->smp) ){ sqlite3_result_error_nomem(ctx); return; }
  bin = ml_malloc(sizeof(CalSortBin) * (uint64_t)B);
  if( bin==0 ){ sqlite3_result_error_nomem(ctx); return; }
  memset(bin, 0, sizeof(CalSortBin) * (size_t)B);
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

static void calsort_result(sqlite3_context *ctx, CalSortAgg *p, int isFinal){
  if( p && p->failed ) return;
  if( ml_compute_begin(ctx, isFinal, p && p->init ? ml_samples_count(&p->smp) : 0) ) return;
  calsort_compute(ctx, p);
  ml_compute_end(ctx);
}

void ml_calsort_value(sqlite3_context *ctx){
  calsort_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}

void ml_calsort_final(sqlite3_context *ctx){
  CalSortAgg *p = sqlite3_aggregate_context(ctx, 0);
  calsort_result(ctx, p, 1);
  if( p && p->init ) ml_samples_clear(&p->smp);
}
