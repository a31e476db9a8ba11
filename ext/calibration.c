/*
** SPDX-License-Identifier: MIT
**
** calibration.c -- the calibration family: binary labels, probabilities p.
**
** SQL functions (all aggregate and window functions):
**   brier(y, p)                      mean of (p - y)^2
**   log_loss(y, p [, eps=1e-15])     mean of -(y ln clip(p) + (1-y) ln clip(1-p)),
**                                    clip to [eps, 1 - eps]
**   ece(y, p [, bins=10])            sum_b (n_b/N) |mean(y)_b - mean(p)_b| over equal-width bins
**   mce(y, p [, bins=10])            max_b |mean(y)_b - mean(p)_b| over equal-width bins
**   reliability(y, p [, bins=10 [, strategy='uniform']])
**                                    JSON [{"bin","lo","hi","n","mean_p","frac_pos"}]
**                                    for every non-empty bin, equal-width or quantile
**   ece_equal_mass(y, p [, bins=10]) ece's sum over equal-mass bins
**   ece_l2(y, p [, bins=10])         sqrt(sum_b (n_b/n)(pbar_b - ybar_b)^2), equal mass
**   ece_l2_debiased(y, p [, bins=10])  eval_toolkit's debiased L2 ECE, equal mass
**   brier_decomposition(y, p [, bins=10])  JSON {"brier","reliability","resolution",
**                                    "uncertainty"}, Murphy's terms on equal-mass bins
**   ece_l2_kumar(y, p [, bins=15])   Kumar, Liang & Ma 2019 debiased L2 error
**
** Rules:
**   1. A NULL y or p skips the row; y must be 0 or 1, p a number in [0, 1].
**   2. eps is a number in (0, 0.5); bins an integer in 1..100000; strategy
**      'uniform' or 'quantile' (any case); each the same in every row.
**   3. One class is fine here: only an empty group gives NULL (and a
**      SQLITE_WARNING).  The equal-mass and Kumar estimators are also NULL
**      when the group has fewer rows than bins.
**   4. Equal-width bins: edges e_k = k * (1/B), e_B = 1, the doubles of
**      numpy's linspace(0, 1, B+1); bin b holds e_b <= p < e_{b+1}, p = 1
**      the last bin.  (e_3 = 0.30000000000000004 at B = 10: p = 0.3 is in bin 2.)
**   5. Equal-mass bins (ece_equal_mass, ece_l2, ece_l2_debiased,
**      brier_decomposition, one routine): rows sorted by p, ties by label
**      (0 before 1); part i is ranks b_i .. b_{i+1} - 1, b_i = floor(i * (n/B))
**      in doubles (numpy's linspace(0, n, B+1, dtype=int)), b_B = n.
**   6. ece_l2_kumar: sorted p split as numpy.array_split does, edges at the
**      midpoints between neighbouring parts plus 1.0, bin i = (e_{i-1}, e_i];
**      sqrt(max(0, sum_b (n_b/n) ((pbar_b - ybar_b)^2 - ybar_b (1 - ybar_b)/(n_b - 1)))),
**      a bin with fewer than 2 rows adding 0.
**   7. reliability 'quantile': edges numpy.percentile(p, linspace(0, 1, B+1)
**      * 100), a row in bin searchsorted(edges[1:-1], p) -- sklearn's
**      calibration_curve(strategy='quantile') exactly.
**
** Cost: brier and log_loss keep two numbers; ece, mce and reliability
** 'uniform' one accumulator per bin (32 bytes x bins); all use compensated
** sums and window xInverse subtracts, so no row is buffered -- except with
** more than CAL_DENSE_MAX bins: a group then keeps its rows (8 bytes each,
** the shared sample keyed by p) until they outnumber bins/4, and only then
** allocates its bins, so a small group costs its rows, not its bins
** (reliability(y, p, 100000) over groups of 2 rows).  The equal-mass
** estimators, Kumar's and reliability 'quantile' keep the shared sorted
** sample (8 bytes per row), kept sorted in a sliding frame (O(w) a row), and
** walk it with the sweep: O(n + B) a result (Kumar and quantile edges add
** O(B log n) rank look-ups).
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

#define ML_MAX_BINS 100000


typedef struct CalAgg {
  ml_i64 n;           /* rows in the group (frame) */
  MlSum sum;          /* brier: sum (p-y)^2; log_loss: sum of losses */
  MlParam param;      /* eps or bins */
  ml_i64 nBin;        /* ece / mce / reliability: bins allocated */
  CalBin *aBin;
  MlParam strategy;   /* reliability: STRATEGY_* */
  MlSamples smp;      /* reliability 'quantile', or a buffered group: the rows (key p) */
  int buffered;       /* ece / mce / reliability with many bins: rows kept in smp */
} CalAgg;

/* Up to this many bins a group allocates them at its first row; above, it
** keeps its rows until they outnumber bins/4. */
#define CAL_DENSE_MAX 1024

/* An occupied bin: its index and its accumulators. */
typedef struct CalOcc { ml_i64 b; CalBin c; } CalOcc;

/* reliability's strategy argument. */
enum { STRATEGY_UNIFORM, STRATEGY_QUANTILE };
static const char *const azStrategy[] = {"uniform", "quantile", 0};

static int uses_quantiles(const CalAgg *p){
  return p->strategy.set && p->strategy.v==STRATEGY_QUANTILE;
}

static int default_bins(int kind){ return kind==CAL_L2_KUMAR ? 15 : 10; }

/* Edge k of B equal-width bins: the double numpy's linspace(0, 1, B+1)
** holds there, k * (1/B), and exactly 1 at k = B.  (k/B is a different
** double for some k: 3 * (1/10) = 0.30000000000000004, 3/10 = 0.3.) */
static double width_edge(ml_i64 k, ml_i64 B){
  return k>=B ? 1.0 : (double)k * (1.0/(double)B);
}

/* Bin of p in [0, 1] among B equal-width bins [e_b, e_{b+1}), p = 1 in the
** last.  floor(p*B) can be one off near an edge; the edges themselves are
** the doubles width_edge(), so correct against them. */
static ml_i64 bin_of(double p, ml_i64 B){
  double x = p * (double)B;
  ml_i64 b = (ml_i64)x;                   /* p >= 0: truncation is floor */
  double frac = x - (double)b;
  if( b>=B ) return B-1;
  /* Only a product within rounding of an integer can disagree with the
  ** edges (which lie within a few ulps of b/B); check those against the
  ** edges themselves. */
  if( frac < 1e-9 || frac > 1.0 - 1e-9 ){
    if( b+1<B && p >= width_edge(b+1, B) ) b++;
    else if( b>0 && p < width_edge(b, B) ) b--;
  }
  return b;
}

/* reliability's strategy (argv[3], default 'uniform'); the first row that
** sets it 'quantile' starts the sample buffer.  Returns ML_ROW_*. */
static int cal_strategy(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                        CalAgg *p){
  int st, first = !p->strategy.set;
  if( argc<4 ){
    if( first ){ p->strategy.v = STRATEGY_UNIFORM; p->strategy.set = 1; }
    return ML_ROW_OK;
  }
  if( ml_param_choice(ctx, d->name, "strategy", argv[3], azStrategy, &p->strategy, &st) ) return ML_ROW_ERR;
  if( first && st==STRATEGY_QUANTILE ) ml_samples_init(&p->smp, 8);
  return ML_ROW_OK;
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

/* Adds (sign +1) or removes (sign -1) one row. */
static void cal_update(CalAgg *p, int kind, int y, double pr, ml_i64 w){
  /* w = +1 or -1 for a row; a state's entry adds w = its count of rows with
  ** this (y, p) at once (sums scaled by w: within the precision rule of a
  ** row-by-row sum, see docs/states.md). */
  p->n += w;
  switch( kind ){
    case CAL_BRIER: ml_sum_add(&p->sum, (double)w * ml_calib_brier_term(y, pr)); break;
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

/* The per-row terms and bins, shared with brier_ci, log_loss_ci, ece_ci and
** ece_diff_ci (uncertainty.c), so that their estimates are these metrics. */
double ml_calib_brier_term(int y, double p){ double e = p - y; return e*e; }
double ml_calib_log_loss_term(int y, double p, double eps){ return log_loss_term(y, p, eps); }
ml_i64 ml_calib_bin(double p, ml_i64 B){ return bin_of(p, B); }

/* One non-empty bin's share of ece times N: |npos_b - sum_p_b|, since
** sum_b (n_b/N) |ybar_b - pbar_b| = (1/N) sum_b |npos_b - sum_p_b|. */
double ml_calib_ece_term(const CalBin *c){
  return fabs((double)c->npos - ml_sum_value(&c->sp));
}

/* ece from B bins in ascending order (the empty ones skipped), summed as
** calib_result sums the occupied bins. */
double ml_calib_ece_fold(const CalBin *aBin, ml_i64 nBin, ml_i64 n){
  MlSum e = {0.0, 0.0};
  ml_i64 b;
  for(b=0; b<nBin; b++){
    if( aBin[b].n ) ml_sum_add(&e, ml_calib_ece_term(&aBin[b]));
  }
  return ml_sum_value(&e) / (double)n;
}

/* A buffered group has grown to bins/4 rows: allocate the bins, replay
** the rows into them, free the rows.  ML_OK or ML_NOMEM (nothing changed). */
static int to_bins(CalAgg *p, int kind){
  ml_i64 i;
  int y;
  p->aBin = ml_malloc(sizeof(CalBin) * (uint64_t)p->nBin);
  if( p->aBin==0 ) return ML_NOMEM;
  memset(p->aBin, 0, sizeof(CalBin) * (size_t)p->nBin);
  p->n = 0;
  for(y=0; y<2; y++){
    for(i=0; i<p->smp.n[y]; i++) cal_update(p, kind, y, ml_double_of(ml_samples_key(&p->smp, y, i)), +1);
  }
  ml_samples_clear(&p->smp);
  p->buffered = 0;
  return ML_OK;
}

/* The occupied bins in ascending order, in a new array (*pn of them):
** from the bins, or for a buffered group from its rows sorted by p.  NULL
** when out of memory. */
static CalOcc *occupied_bins(CalAgg *p, ml_i64 *pn){
  CalOcc *o;
  ml_i64 k = 0, b;
  *pn = 0;
  if( !p->buffered ){
    for(b=0; b<p->nBin; b++) k += p->aBin[b].n>0;
    o = ml_malloc(sizeof(CalOcc) * (uint64_t)(k ? k : 1));
    if( o==0 ) return 0;
    for(k=0, b=0; b<p->nBin; b++){
      if( p->aBin[b].n>0 ){ o[k].b = b; o[k].c = p->aBin[b]; k++; }
    }
  }else{
    ml_i64 i0 = 0, i1 = 0;
    const MlSamples *s = &p->smp;
    if( ml_samples_sort(&p->smp) ) return 0;
    o = ml_malloc(sizeof(CalOcc) * (uint64_t)(ml_samples_count(s) ? ml_samples_count(s) : 1));
    if( o==0 ) return 0;
    /* merge the two sorted arrays: ascending p, so ascending bins */
    while( i0<s->n[0] || i1<s->n[1] ){
      int y = i0>=s->n[0] || (i1<s->n[1] && ml_samples_key(s, 1, i1)<ml_samples_key(s, 0, i0));
      double pr = ml_double_of(ml_samples_key(s, y, y ? i1++ : i0++));
      b = bin_of(pr, p->nBin);
      if( k==0 || o[k-1].b!=b ){ memset(&o[k], 0, sizeof(CalOcc)); o[k].b = b; k++; }
      o[k-1].c.n++;
      o[k-1].c.npos += y;
      ml_sum_add(&o[k-1].c.sp, pr);
    }
  }
  *pn = k;
  return o;
}

/*
** SQL function: brier(y, p), log_loss(y, p [, eps]), ece(y, p [, bins]),
**   mce(y, p [, bins]), reliability(y, p [, bins [, strategy]])   -- xStep
** reliability with strategy 'quantile' keeps the rows instead of bins.
*/
void ml_calib_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double pr;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( cal_param(ctx, d, argc, argv, &p->param) ) return;
  if( d->kind==CAL_RELIABILITY && cal_strategy(ctx, d, argc, argv, p) ) return;
  if( ml_arg_binary_row(ctx, d->name, argv, 1, &y, &pr)!=ML_ROW_OK ) return;
  if( uses_quantiles(p) ){
    if( ml_add_row(ctx, &p->smp, y, pr, 0.0)==ML_OK ) p->n++;
    return;
  }
  if( (d->kind==CAL_ECE || d->kind==CAL_MCE || d->kind==CAL_RELIABILITY) && p->aBin==0 ){
    p->nBin = (ml_i64)p->param.v;
    if( p->nBin>CAL_DENSE_MAX && !p->buffered && p->n==0 ){
      ml_samples_init(&p->smp, 8);
      p->buffered = 1;
    }
    if( p->buffered ){
      if( ml_samples_count(&p->smp) < p->nBin/4 ){
        if( ml_add_row(ctx, &p->smp, y, pr, 0.0) ) return;
        p->n++;
        return;
      }
      if( to_bins(p, d->kind) ){ sqlite3_result_error_nomem(ctx); return; }
    }else{
      p->aBin = ml_malloc(sizeof(CalBin) * (uint64_t)p->nBin);
      if( p->aBin==0 ){ sqlite3_result_error_nomem(ctx); return; }
      memset(p->aBin, 0, sizeof(CalBin) * (size_t)p->nBin);
    }
  }
  cal_update(p, d->kind, y, pr, +1);
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

/* States: each entry adds its rows of each class at once (a buffered group
** goes to its bins first); reliability 'quantile' merges the sorted runs
** into its buffer. */
static int calib_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int j, rc;
  if( p==0 ) return ML_NOMEM;
  if( d->kind!=CAL_BRIER && !p->param.set ) return ML_OK;   /* xStep rejected the parameter */
  if( d->kind==CAL_RELIABILITY && !p->strategy.set ) return ML_OK;
  if( (rc = state_probabilities(st, n, zErr, nErr))!=0 ) return rc;
  if( uses_quantiles(p) ){
    for(j=0; j<n; j++) p->n += sign * (st[j].sec[0].n[0] + st[j].sec[0].n[1]);
    return ml_absorb_section(&p->smp, st, n, 0, sign);
  }
  if( (d->kind==CAL_ECE || d->kind==CAL_MCE || d->kind==CAL_RELIABILITY) && p->aBin==0 ){
    p->nBin = (ml_i64)p->param.v;
    if( p->buffered ){
      if( to_bins(p, d->kind) ) return ML_NOMEM;
    }else{
      p->aBin = ml_malloc(sizeof(CalBin) * (uint64_t)p->nBin);
      if( p->aBin==0 ) return ML_NOMEM;
      memset(p->aBin, 0, sizeof(CalBin) * (size_t)p->nBin);
    }
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
  if( uses_quantiles(p) || p->buffered ){
    p->n -= ml_samples_remove(&p->smp, y, pr, 0.0);
    return;
  }
  cal_update(p, d->kind, y, pr, -1);
}

/* Mean p of a non-empty bin. */
static double bin_mean_p(const CalBin *c){
  return ml_sum_value(&c->sp)/(double)c->n;
}

static int write_reliability_quantile(MlJson *j, CalAgg *p);

static void write_reliability(MlJson *j, const CalAgg *p, const CalOcc *o, ml_i64 nOcc){
  ml_i64 i;
  ml_json_begin_array(j);
  for(i=0; i<nOcc; i++){
    const CalBin *c = &o[i].c;
    ml_i64 b = o[i].b;
    ml_json_begin_object(j);
    ml_json_key(j, "bin");      ml_json_int(j, b);
    ml_json_key(j, "lo");       ml_json_double(j, width_edge(b, p->nBin));
    ml_json_key(j, "hi");       ml_json_double(j, width_edge(b+1, p->nBin));
    ml_json_key(j, "n");        ml_json_int(j, c->n);
    ml_json_key(j, "mean_p");   ml_json_double(j, bin_mean_p(c));
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
    default: {
      MlJson j;
      ml_i64 nOcc, i;
      CalOcc *o;
      if( uses_quantiles(p) ){
        ml_json_init(&j);
        if( write_reliability_quantile(&j, p) ){
          ml_json_free(&j);
          sqlite3_result_error_nomem(ctx);
          break;
        }
        ml_result_json(ctx, &j);
        break;
      }
      /* the occupied bins, ascending: from the bins or the buffered rows */
      o = occupied_bins(p, &nOcc);
      if( o==0 ){ sqlite3_result_error_nomem(ctx); break; }
      if( d->kind==CAL_ECE ){
        /* sum_b (n_b/N) |ybar_b - pbar_b| = (1/N) sum_b |npos_b - sum_p_b| */
        MlSum e = {0.0, 0.0};
        for(i=0; i<nOcc; i++) ml_sum_add(&e, ml_calib_ece_term(&o[i].c));
        sqlite3_result_double(ctx, ml_sum_value(&e) / (double)p->n);
      }else if( d->kind==CAL_MCE ){
        /* max_b |ybar_b - pbar_b| over the non-empty bins */
        double m = 0.0;
        for(i=0; i<nOcc; i++){
          double e = fabs((double)o[i].c.npos/(double)o[i].c.n - bin_mean_p(&o[i].c));
          if( e>m ) m = e;
        }
        sqlite3_result_double(ctx, m);
      }else{
        ml_json_init(&j);
        write_reliability(&j, p, o, nOcc);
        ml_result_json(ctx, &j);
      }
      ml_free(o);
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
  if( p ){
    ml_free(p->aBin); p->aBin = 0;
    if( uses_quantiles(p) || p->buffered ) ml_samples_clear(&p->smp);
  }
}

/* --------------------------------------- bins over the sorted sample */

typedef struct CalSortAgg {
  MlSamples smp;      /* key p; label picks the array */
  MlParam bins;
  int init;
} CalSortAgg;

/* Adds cnt rows of value v (pos of them positive) to a bin. */
static void cal_bin_add(CalBin *b, ml_i64 cnt, ml_i64 pos, double v){
  b->n += cnt;
  b->npos += pos;
  ml_sum_add(&b->sp, (double)cnt * v);
}

/* Boundary i of n ranks cut into B equal-mass parts: floor(i * (n/B)) with
** n/B a double, and n at i = B -- numpy's linspace(0, n, B+1, dtype=int),
** which is how eval_toolkit cuts.  (floor(i*n/B) in integers differs for
** about 1 % of (n, B) pairs: n = 30, B = 22, i = 11 gives 14 here, 15 there.) */
static ml_i64 mass_edge(ml_i64 i, ml_i64 n, ml_i64 B){
  return i>=B ? n : (ml_i64)((double)i * ((double)n/(double)B));
}

/* Equal-mass bins, the one routine behind ece_equal_mass, ece_l2,
** ece_l2_debiased and brier_decomposition.  Rows are ranked by p, ties by
** label (0 before 1); part i holds ranks mass_edge(i) .. mass_edge(i+1)-1.
** Walking the sweep from the top, a threshold's rows hold ascending ranks
** [lo, hi]: negatives first, so positives take the top dtp ranks.  n >= B. */
static void fill_mass_bins(const MlSamples *smp, CalBin *bin, ml_i64 B){
  ml_i64 n = ml_samples_count(smp), i = B-1, lo = mass_edge(B-1, n, B);
  MlSweep w;
  ml_sweep_init(&w, smp, 0);
  while( ml_sweep_next(&w) ){
    double pv = ml_double_of(w.key);
    ml_i64 r = n - (w.tp + w.fp) + w.dtp + w.dfp - 1;    /* highest rank of the group */
    int pass;
    for(pass=0; pass<2; pass++){                          /* positives, then negatives */
      ml_i64 cnt = pass==0 ? w.dtp : w.dfp;
      while( cnt>0 ){
        ml_i64 take;
        while( r<lo ){ i--; lo = mass_edge(i, n, B); }    /* part holding rank r */
        take = r - lo + 1 < cnt ? r - lo + 1 : cnt;
        cal_bin_add(&bin[i], take, pass==0 ? take : 0, pv);
        r -= take;
        cnt -= take;
      }
    }
  }
}

/* Puts every row in bin i = the number of edge[0..nEdge-1] below its p
** (numpy.searchsorted(edge, p, 'left'), or bisect_left): bin i holds
** (edge[i-1], edge[i]].  Edges ascending. */
static void fill_edge_bins(const MlSamples *smp, const double *edge, ml_i64 nEdge, CalBin *bin){
  ml_i64 i = nEdge;
  MlSweep w;
  ml_sweep_init(&w, smp, 0);
  while( ml_sweep_next(&w) ){
    double v = ml_double_of(w.key);
    while( i>0 && edge[i-1] >= v ) i--;
    cal_bin_add(&bin[i], w.dtp + w.dfp, w.dtp, v);
  }
}

/* Kumar et al.: the sorted p split as numpy.array_split(p, B) does (parts
** of ceil(n/B) values first, n mod B of them, then parts of floor(n/B));
** edges at the midpoints between the last value of a part and the first of
** the next, then 1.0; bin i = (e_{i-1}, e_i].  Equal edges leave a bin
** empty, which is what removing duplicates does.  n >= B.  ML_OK or
** ML_NOMEM. */
static int fill_kumar_bins(const MlSamples *smp, CalBin *bin, ml_i64 B){
  ml_i64 n = ml_samples_count(smp), q = n/B, rem = n%B, j;
  double *edge = ml_malloc(sizeof(double) * (uint64_t)B);
  if( edge==0 ) return ML_NOMEM;
  for(j=0; j<B-1; j++){
    ml_i64 next = (j+1)*q + (j+1<rem ? j+1 : rem);   /* first rank of part j+1 */
    edge[j] = (ml_samples_at_rank(smp, next-1) + ml_samples_at_rank(smp, next)) / 2.0;
  }
  edge[B-1] = 1.0;
  fill_edge_bins(smp, edge, B-1, bin);   /* p <= 1 = edge[B-1]: nothing beyond the last bin */
  ml_free(edge);
  return ML_OK;
}

/* reliability(..., 'quantile'): edges numpy.percentile(p, linspace(0, 1,
** B+1) * 100) -- the percentile divides by 100 again, so q_k is
** (e_k * 100) / 100, which is not always e_k --, a row in bin
** searchsorted(edges[1:-1], p), as sklearn's calibration_curve.  Writes the
** non-empty bins; returns ML_OK or ML_NOMEM (j untouched then). */
static int write_reliability_quantile(MlJson *j, CalAgg *p){
  ml_i64 B = (ml_i64)p->param.v, n = ml_samples_count(&p->smp), k;
  double *edge;
  CalBin *bin;
  if( ml_samples_sort(&p->smp) ) return ML_NOMEM;
  edge = ml_malloc((sizeof(double) + sizeof(CalBin)) * (uint64_t)(B+1));
  if( edge==0 ) return ML_NOMEM;
  bin = (CalBin*)(edge + B + 1);
  memset(bin, 0, sizeof(CalBin) * (size_t)B);
  for(k=0; k<=B; k++){
    double q = (width_edge(k, B) * 100.0) / 100.0, g, lo, hi;
    ml_i64 r;
    ml_quantile_index(n, q, &r, &g);
    lo = ml_samples_at_rank(&p->smp, r);
    hi = r+1<n ? ml_samples_at_rank(&p->smp, r+1) : lo;
    edge[k] = ml_lerp_np(lo, hi, g);
  }
  fill_edge_bins(&p->smp, edge+1, B-1, bin);
  ml_json_begin_array(j);
  for(k=0; k<B; k++){
    const CalBin *c = &bin[k];
    if( c->n==0 ) continue;
    ml_json_begin_object(j);
    ml_json_key(j, "bin");      ml_json_int(j, k);
    ml_json_key(j, "lo");       ml_json_double(j, edge[k]);
    ml_json_key(j, "hi");       ml_json_double(j, edge[k+1]);
    ml_json_key(j, "n");        ml_json_int(j, c->n);
    ml_json_key(j, "mean_p");   ml_json_double(j, ml_sum_value(&c->sp)/(double)c->n);
    ml_json_key(j, "frac_pos"); ml_json_double(j, (double)c->npos/(double)c->n);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
  ml_free(edge);
  return ML_OK;
}

/*
** SQL function: ece_equal_mass(y, p [, bins=10]), ece_l2(y, p [, bins=10]),
**   ece_l2_debiased(y, p [, bins=10]), brier_decomposition(y, p [, bins=10]),
**   ece_l2_kumar(y, p [, bins=15])             -- xStep
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

/* Mean of (p - y)^2 over the sorted sample, for brier_decomposition. */
static double sample_brier(const MlSamples *smp){
  MlSum e = {0.0, 0.0};
  MlSweep w;
  ml_sweep_init(&w, smp, 0);
  while( ml_sweep_next(&w) ){
    double v = ml_double_of(w.key);
    ml_sum_add(&e, (double)w.dfp * v*v + (double)w.dtp * (1.0 - v)*(1.0 - v));
  }
  return ml_sum_value(&e) / (double)ml_samples_count(smp);
}

/* brier_decomposition's JSON from the equal-mass bins. */
static void write_brier_decomposition(MlJson *j, const MlSamples *smp, const CalBin *bin, ml_i64 B){
  ml_i64 n = ml_samples_count(smp), b;
  double ybar = (double)smp->n[1] / (double)n;
  MlSum rel = {0.0, 0.0}, res = {0.0, 0.0};
  for(b=0; b<B; b++){
    double nbv = (double)bin[b].n, pbar, yb;
    if( bin[b].n==0 ) continue;
    pbar = ml_sum_value(&bin[b].sp) / nbv;
    yb = (double)bin[b].npos / nbv;
    ml_sum_add(&rel, nbv/(double)n * (pbar - yb)*(pbar - yb));
    ml_sum_add(&res, nbv/(double)n * (yb - ybar)*(yb - ybar));
  }
  ml_json_begin_object(j);
  ml_json_key(j, "brier");       ml_json_double(j, sample_brier(smp));
  ml_json_key(j, "reliability"); ml_json_double(j, ml_sum_value(&rel));
  ml_json_key(j, "resolution");  ml_json_double(j, ml_sum_value(&res));
  ml_json_key(j, "uncertainty"); ml_json_double(j, ybar * (1.0 - ybar));
  ml_json_end_object(j);
}

/* One bin's term of the sum each scalar estimator adds up (n_b > 0). */
static double bin_term(int kind, const CalBin *c, ml_i64 n){
  double nbv = (double)c->n, w = nbv/(double)n;
  double pbar = ml_sum_value(&c->sp) / nbv, ybar = (double)c->npos / nbv;
  double d2 = (pbar - ybar)*(pbar - ybar);
  switch( kind ){
    case CAL_EQUAL_MASS:  return w * fabs(ybar - pbar);
    case CAL_L2:          return w * d2;
    case CAL_L2_DEBIASED: return w * (d2 - pbar*(1.0 - pbar)/nbv);
    default:              /* CAL_L2_KUMAR: a bin of one row adds 0 */
      return c->n<2 ? 0.0 : w * (d2 - ybar*(1.0 - ybar)/(nbv - 1.0));
  }
}

static void calsort_result(sqlite3_context *ctx, CalSortAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 n, B, b;
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
  if( d->kind!=CAL_L2_KUMAR ){
    fill_mass_bins(&p->smp, bin, B);
  }else if( fill_kumar_bins(&p->smp, bin, B) ){
    ml_free(bin);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if( d->kind==CAL_BRIER_DECOMP ){
    MlJson j;
    ml_json_init(&j);
    write_brier_decomposition(&j, &p->smp, bin, B);
    ml_free(bin);
    ml_result_json(ctx, &j);
    return;
  }
  for(b=0; b<B; b++){
    if( bin[b].n ) ml_sum_add(&tot, bin_term(d->kind, &bin[b], n));
  }
  ml_free(bin);
  v = ml_sum_value(&tot);
  switch( d->kind ){
    case CAL_EQUAL_MASS: sqlite3_result_double(ctx, v); break;
    case CAL_L2:         sqlite3_result_double(ctx, sqrt(v)); break;
    default:             sqlite3_result_double(ctx, sqrt(v > 0.0 ? v : 0.0)); break;
  }
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
