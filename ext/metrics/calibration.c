/*
** SPDX-License-Identifier: MIT
**
** calibration.c -- the calibration family: binary labels, probabilities p.
** Its records and the binned sums (brier, log_loss, ece, mce, reliability
** and their twins' rows) are here; the twins' bins and weighted states
** calibration_w.c's, the estimators over the sorted sample
** calibration_sorted.c's (calibration.h).
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
**   calibration_summary(y, p [, level=0.95])  JSON, rms::val.prob's statistics
**                                    and Wald intervals: its rows are kept here,
**                                    its result is validation.c's
**   weighted twins f_w(y, p, w, ...) (docs/weights.md) of brier, log_loss,
**   ece, mce, reliability, ece_equal_mass, ece_l2, brier_decomposition,
**   calibration_summary, calibration_smooth (their rows (p, w) kept here,
**   their results validation.c's)
**
** Rules:
**   1. A NULL y or p skips the row; y must be 0 or 1, p a number in [0, 1].
**   2. eps is a number in (0, 0.5); bins an integer in 1..100000; strategy
**      'uniform' or 'quantile' (any case); level (calibration_summary) a
**      number in (0, 1); each the same in every row.
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
**   8. Weighted twins: counts become sums of weights.  Equal-width bins sum
**      w, w y and w p exactly.  reliability_w 'quantile' and the equal-mass
**      twins cut a cumulative-weight axis (rows by p, ties by label, each
**      (p, label) group's exact weight added in that order): quantile edges
**      are rule 7's with the axis for the ranks (h = q (W - 1)), equal-mass
**      parts [floor(i W/B), floor((i+1) W/B)) of it, a row's weight split
**      between the parts it crosses; NULL when W < bins.  Integer weights
**      give the unweighted function over the rows repeated, bit for bit.
**   9. States (sums and bins): the states' entries are merged into one
**      counted run per distinct p (the k-way merge of ml_state_merge.c), and each
**      run's class counts go into the exact sums at once: O(entries) to
**      merge, O(distinct p) to update, the row query's bits.
**  10. States (the equal-mass estimators, Kumar's, calibration_summary):
**      each entry is one record weighing its count, and the weighted twins'
**      path folds them -- integer weights are rows repeated, bit for bit --
**      so O(entries); rows beside states weigh 1.  reliability 'quantile'
**      likewise (reliability_w's edges on the cumulative count), and
**      ece_l2_kumar (array_split's integer ranks on the cumulative count;
**      it has no weighted twin).
**  11. A weighted state (ml_state_w) turns the group into its weighted
**      twin's (calib_absorb_w, calsort_absorb): each (p, weight) entry's c
**      rows of class y weigh c w exactly, so ece(st) over weighted states
**      is ece_w over their rows bit for bit; rows and unweighted states
**      beside it weigh 1.  ece_l2_debiased and ece_l2_kumar take none (no
**      weighted definition).
**  12. One row model: xStep, xInverse and the twins' xStepW, xInverseW are
**      one function (calib_row) compiled four times, the weight and the
**      direction constants; the unweighted instances read no weight
**      (docs/decisions.md, "one source compiled twice").
**
** Cost: brier and log_loss keep one exact sum (MlXsum, 568 bytes); ece, mce
** and reliability 'uniform' a count and an exact probability sum per bin
** (MlPSum: 40 bytes x bins, +568 bytes in a bin once it sees a p < 2^-17).
** Sums are exact and window xInverse subtracts exactly, so no row is
** buffered and a frame's result equals the aggregate over its rows bit for
** bit -- except with more than CAL_DENSE_MAX bins: a group then keeps its
** rows (8 bytes each, the shared sample keyed by p) until they outnumber
** bins/4, and only then allocates its bins, so a small group costs its
** rows, not its bins (reliability(y, p, 100000) over groups of 2 rows); its
** bins' sums are then made exactly from the rows.
** A parameter (eps, bins, strategy) follows the frame's rows (MlParam):
** each row is counted, binned and removed under its own value.  The equal-mass
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
#include "calibration.h"

/* Up to this many bins a group allocates them at its first row; above, it
** keeps its rows until they outnumber bins/4. */
#define CAL_DENSE_MAX 1024

/* An occupied bin: its index, counts and the correctly rounded sum of p. */
typedef struct CalOcc { ml_i64 b, n, npos; double sp; } CalOcc;

/* reliability's strategy argument. */
static const char *const azStrategy[] = {"uniform", "quantile", 0};

/* reliability's strategy (argv[3], default 'uniform') of this row into
** *st, counted in its slot.  Returns ML_ROW_*. */
static int cal_strategy(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                        MlParam *slot, int *st){
  *st = STRATEGY_UNIFORM;
  if( argc<4 ) return ML_ROW_OK;
  return ml_param_choice(ctx, d->name, d->aParam[1], argv[3], slot, st);
}

/* xInverse: the row's strategy (accepted by cal_strategy), uncounted. */
static int cal_strategy_drop(const MlFuncDesc *d, int argc, sqlite3_value **argv, MlParam *slot){
  const char *z;
  if( d->kind!=CAL_RELIABILITY || argc<4 ) return STRATEGY_UNIFORM;
  ml_param_choice_drop(slot, argv[3], d->aParam[1]);
  z = (const char*)sqlite3_value_text(argv[3]);
  return z && sqlite3_stricmp(z, "quantile")==0 ? STRATEGY_QUANTILE : STRATEGY_UNIFORM;
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
  if( s->a ){
    for(b=0; b<s->nBin; b++) ml_psum_clear(&s->a[b].sp);
    ml_free(s->a);
  }
  if( s->buffered ) ml_samples_clear(&s->smp);
  memset(s, 0, sizeof(*s));
}

/* Adds (sign +1) or removes (sign -1) one row to a bin.  ML_OK or ML_NOMEM
** (adding only; nothing changed then). */
static int bin_add(CalPBin *c, int y, double pr, int sign){
  if( ml_psum_add(&c->sp, pr, sign) ) return ML_NOMEM;
  c->n += sign;
  c->npos += sign * y;
  return ML_OK;
}

/* The same for cnt rows of one (y, p): a state's entry. */
static int bin_add_n(CalPBin *c, int y, double pr, ml_i64 cnt, int sign){
  if( ml_psum_add_n(&c->sp, pr, cnt, sign) ) return ML_NOMEM;
  c->n += sign * cnt;
  c->npos += sign * y * cnt;
  return ML_OK;
}

/* The binning of B bins: the one holding rows with B, else a free one
** (re-made for B: bins allocated, or buffered above CAL_DENSE_MAX).  NULL
** when out of memory. */
static CalBins *bins_for(CalAgg *p, ml_i64 B){
  int i;
  if( p->set[0].nBin==B && p->set[1].n==0 ) return &p->set[0];     /* the common case */
  for(i=0; i<2; i++) if( p->set[i].n>0 && p->set[i].nBin==B ) return &p->set[i];
  for(i=0; i<2; i++){
    CalBins *s = &p->set[i];
    if( s->n>0 ) continue;
    if( s->nBin!=B ){
      bins_free(s);
      if( B>CAL_DENSE_MAX ){
        ml_samples_init(&s->smp, 8);
        s->buffered = 1;
      }else{
        s->a = ml_malloc(sizeof(CalPBin) * (uint64_t)B);
        if( s->a==0 ) return 0;
        memset(s->a, 0, sizeof(CalPBin) * (size_t)B);
      }
      s->nBin = B;
    }
    return s;
  }
  return 0;     /* not reached: MlParam holds at most two values */
}

/* The binning holding rows with B (xInverse), or NULL. */
static CalBins *bins_find(CalAgg *p, ml_i64 B){
  int i;
  for(i=0; i<2; i++) if( p->set[i].n>0 && p->set[i].nBin==B ) return &p->set[i];
  return 0;
}

/* The binning holding the rows (the one non-empty set), or NULL. */
static CalBins *bins_held(CalAgg *p){
  return p->set[0].n>0 ? &p->set[0] : p->set[1].n>0 ? &p->set[1] : 0;
}

/* A buffered binning has grown to bins/4 rows: allocate the bins, replay
** the rows into them, free the rows.  ML_OK or ML_NOMEM (nothing changed). */
static int to_bins(CalBins *s){
  ml_i64 i;
  int y;
  s->a = ml_malloc(sizeof(CalPBin) * (uint64_t)s->nBin);
  if( s->a==0 ) return ML_NOMEM;
  memset(s->a, 0, sizeof(CalPBin) * (size_t)s->nBin);
  for(y=0; y<2; y++){
    for(i=0; i<s->smp.n[y]; i++){
      double pr = ml_double_of(ml_samples_key(&s->smp, y, i));
      if( bin_add(&s->a[bin_of(pr, s->nBin)], y, pr, +1) ){
        for(i=0; i<s->nBin; i++) ml_psum_clear(&s->a[i].sp);
        ml_free(s->a);
        s->a = 0;
        return ML_NOMEM;
      }
    }
  }
  ml_samples_clear(&s->smp);
  s->buffered = 0;
  return ML_OK;
}

/* Adds (sign +1) or removes (sign -1) one row whose parameter is param.
** ML_OK or ML_NOMEM (adding only). */
static int cal_update(CalAgg *p, int kind, int y, double pr, double param, int sign){
  switch( kind ){
    case CAL_BRIER: ml_xsum_add(&p->sum, ml_calib_brier_term(y, pr), sign); break;
    case CAL_LOGLOSS: ml_xsum_add(&p->sum, log_loss_term(y, pr, param), sign); break;
    default: {
      ml_i64 B = (ml_i64)param;
      CalBins *s = sign>0 ? bins_for(p, B) : bins_find(p, B);
      if( s==0 ) return sign>0 ? ML_NOMEM : ML_OK;
      if( s->buffered ){
        if( sign<0 ){
          if( ml_samples_remove(&s->smp, y, pr, 0.0) ){ s->n--; p->n--; }
          return ML_OK;
        }
        if( ml_samples_count(&s->smp) < B/4 ){
          if( ml_samples_add(&s->smp, y, pr, 0.0) ) return ML_NOMEM;
          s->n++;
          p->n++;
          return ML_OK;
        }
        if( to_bins(s) ) return ML_NOMEM;
      }
      if( bin_add(&s->a[bin_of(pr, B)], y, pr, sign) ) return ML_NOMEM;
      s->n += sign;
      break;
    }
  }
  p->n += sign;
  return ML_OK;
}

/* cal_update for cnt rows of one (y, p), a state's entry, in O(1) (O(cnt)
** only in a buffered binning, which holds under bins/4 rows): the exact
** sums take term x cnt exactly, so they equal cnt calls of cal_update. */
static int cal_update_n(CalAgg *p, int kind, int y, double pr, double param, ml_i64 cnt, int sign){
  switch( kind ){
    case CAL_BRIER: ml_xsum_add_n(&p->sum, ml_calib_brier_term(y, pr), cnt, sign); break;
    case CAL_LOGLOSS: ml_xsum_add_n(&p->sum, log_loss_term(y, pr, param), cnt, sign); break;
    default: {
      ml_i64 B = (ml_i64)param;
      CalBins *s = sign>0 ? bins_for(p, B) : bins_find(p, B);
      if( s==0 ) return sign>0 ? ML_NOMEM : ML_OK;
      if( s->buffered ){
        if( sign<0 || ml_samples_count(&s->smp) + cnt < B/4 ){
          ml_i64 k;
          for(k=0; k<cnt; k++) if( cal_update(p, kind, y, pr, param, sign) ) return ML_NOMEM;
          return ML_OK;
        }
        if( to_bins(s) ) return ML_NOMEM;
      }
      if( bin_add_n(&s->a[bin_of(pr, B)], y, pr, cnt, sign) ) return ML_NOMEM;
      s->n += sign * cnt;
      break;
    }
  }
  p->n += sign * cnt;
  return ML_OK;
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

/* The occupied bins of s in ascending order, in a new array (*pn of them):
** from the bins, or for a buffered binning from its rows sorted by p, each
** bin's sum made exactly (so both give the same doubles).  NULL when out of
** memory. */
static CalOcc *occupied_bins(CalBins *s, ml_i64 *pn){
  CalOcc *o;
  ml_i64 k = 0, b;
  *pn = 0;
  if( !s->buffered ){
    for(b=0; b<s->nBin; b++) k += s->a[b].n>0;
    o = ml_malloc(sizeof(CalOcc) * (uint64_t)(k ? k : 1));
    if( o==0 ) return 0;
    for(k=0, b=0; b<s->nBin; b++){
      const CalPBin *c = &s->a[b];
      if( c->n>0 ){ o[k].b = b; o[k].n = c->n; o[k].npos = c->npos; o[k].sp = ml_psum_round(&c->sp); k++; }
    }
  }else{
    ml_i64 i0 = 0, i1 = 0;
    const MlSamples *m = &s->smp;
    MlPSum sp = {0, 0, 0};
    if( ml_samples_sort(&s->smp) ) return 0;
    o = ml_malloc(sizeof(CalOcc) * (uint64_t)(ml_samples_count(m) ? ml_samples_count(m) : 1));
    if( o==0 ) return 0;
    /* merge the two sorted arrays: ascending p, so ascending bins */
    while( i0<m->n[0] || i1<m->n[1] ){
      int y = i0>=m->n[0] || (i1<m->n[1] && ml_samples_key(m, 1, i1)<ml_samples_key(m, 0, i0));
      double pr = ml_double_of(ml_samples_key(m, y, y ? i1++ : i0++));
      b = bin_of(pr, s->nBin);
      if( k==0 || o[k-1].b!=b ){
        if( k>0 ){ o[k-1].sp = ml_psum_round(&sp); ml_psum_clear(&sp); }
        memset(&o[k], 0, sizeof(CalOcc));
        o[k].b = b;
        k++;
      }
      o[k-1].n++;
      o[k-1].npos += y;
      if( ml_psum_add(&sp, pr, +1) ){ ml_psum_clear(&sp); ml_free(o); return 0; }
    }
    if( k>0 ){ o[k-1].sp = ml_psum_round(&sp); ml_psum_clear(&sp); }
  }
  *pn = k;
  return o;
}

/* States: each entry adds its rows of each class at once (a buffered group
** goes to its bins first); reliability 'quantile' takes each entry as one
** record weighing its count (rule 10). */
static int calib_absorb_do(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalAgg *p = ml_agg_context(ctx, sizeof(*p));
  double param;
  int rc;
  ml_i64 held[2];
  if( p==0 ) return ML_NOMEM;
  held[0] = p->n; held[1] = 0;
  if( sign>0 && (rc = ml_state_rows(st, n, 0, held, zErr, nErr))!=0 ) return rc;
  if( p->weighted || ml_states_weighted(st, n) ) return ml_calib_absorb_w(d, p, st, n, sign, zErr, nErr);
  /* The wrapper ran xStep over the states' parameters first (and runs
  ** xInverse after removing one), so the slot holds them. */
  param = ml_param_value(&p->param, d->kind==CAL_LOGLOSS ? 1e-15 : default_bins(d->kind));
  if( d->kind==CAL_RELIABILITY && ml_param_value(&p->strategy, STRATEGY_UNIFORM)==STRATEGY_QUANTILE ){
    if( (rc = ml_state_probabilities(st, n, zErr, nErr))!=0 ) return rc;
    if( !p->qinit ){ ml_samples_init(&p->smp, 8); p->qinit = 1; }
    rc = ml_absorb_section_counted(&p->smp, &p->counted, p->held, st, n, 0, sign, zErr, nErr);
    if( rc==ML_OK ) p->n = p->held[0] + p->held[1];
    return rc;
  }
  /* The states' entries merged into one counted run per distinct p (the
  ** ranking family's k-way merge), then each run's count of each class at
  ** once: the exact sums take term x count exactly, so they equal the row
  ** query's bit for bit, in O(entries) merged and O(distinct p) updated --
  ** never O(the rows a state claims). */
  {
    MlSamples m;
    ml_i64 i;
    ml_samples_init(&m, 8);
    rc = ml_absorb_section_counts(&m, st, n, 0, +1, zErr, nErr);
    if( rc==ML_OK && m.nRun>0 ){        /* every p in [0, 1]: the merged ends */
      rc = ml_state_probability_range(ml_double_of(m.run[0].key), ml_double_of(m.run[m.nRun-1].key), zErr, nErr);
    }
    for(i=0; rc==ML_OK && i<m.nRun; i++){
      double pr = ml_double_of(m.run[i].key);
      int y;
      for(y=0; y<2; y++){
        if( m.run[i].n[y] && cal_update_n(p, d->kind, y, pr, param, m.run[i].n[y], sign) ){
          rc = ML_NOMEM;
          break;
        }
      }
    }
    ml_samples_clear(&m);
    return rc;
  }
}
/* A failed absorb may have cleared the buffer that n counts (or added
** part of a batch): the group is failed, as after a failed row, so that
** xFinal only frees (the wrapper sets the error). */
static int calib_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  int rc = calib_absorb_do(ctx, st, n, sign, zErr, nErr);
  CalAgg *p = rc ? sqlite3_aggregate_context(ctx, 0) : 0;
  if( p ) p->failed = 1;
  return rc;
}
static const MlStateHooks ml_calib_states = {
  sizeof(CalAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT) | (1u<<ML_STATE_WEIGHTED), calib_absorb
};

/* An unweighted row added (xStep's data part, after its checks).  The row
** paths of brier, log_loss, ece and mce inline: what cal_update does for
** them, without its dispatch (cal_update stays the one update for the
** other kinds, xInverse and the buffered binnings); reliability 'quantile'
** keeps the rows instead of bins. */
static ML_ALWAYS_INLINE void calib_add(sqlite3_context *ctx, const MlFuncDesc *d, CalAgg *p, int y, double pr,
                                       double param, int st){
  if( d->kind==CAL_LOGLOSS ){
    ml_xsum_add(&p->sum, log_loss_term(y, pr, param), +1);
    p->n++;
    return;
  }
  if( (d->kind==CAL_ECE || d->kind==CAL_MCE) && p->set[0].nBin==(ml_i64)param && p->set[1].n==0
   && !p->set[0].buffered ){
    CalBins *b = &p->set[0];                    /* bins_for's common case */
    if( bin_add(&b->a[bin_of(pr, b->nBin)], y, pr, +1) ){ p->failed = 1; sqlite3_result_error_nomem(ctx); return; }
    b->n++;
    p->n++;
    return;
  }
  if( p->weighted ){                /* beside a weighted state: a row of weight 1 */
    if( !p->qinit ){ ml_samples_init_weighted(&p->smp); p->qinit = 1; }
    if( ml_add_row(ctx, &p->smp, y, pr, 1.0)==ML_OK ) p->n++;
    else p->failed = 1;
    return;
  }
  if( st==STRATEGY_QUANTILE ){
    if( !p->qinit ){ ml_samples_init(&p->smp, 8); p->qinit = 1; }
    if( ml_add_row(ctx, &p->smp, y, pr, p->counted ? 1.0 : 0.0)==ML_OK ){   /* beside states: count 1 */
      p->n++;
      if( p->counted ) p->held[y]++;
    }else{
      p->failed = 1;
    }
    return;
  }
  if( cal_update(p, d->kind, y, pr, param, +1) ){ p->failed = 1; sqlite3_result_error_nomem(ctx); }
}

/* An unweighted row removed (xInverse's data part). */
static void calib_remove(CalAgg *p, const MlFuncDesc *d, int y, double pr, double param, int st){
  if( p->weighted && d->kind!=CAL_BRIER && d->kind!=CAL_LOGLOSS ){
    if( p->qinit && ml_samples_remove(&p->smp, y, pr, 1.0) ) p->n--;
    return;
  }
  if( st==STRATEGY_QUANTILE ){
    if( p->qinit && ml_samples_remove(&p->smp, y, pr, p->counted ? 1.0 : 0.0) ){
      p->n--;
      if( p->counted ) p->held[y]--;
    }
    return;
  }
  cal_update(p, d->kind, y, pr, param, -1);
}

/* A twin's row of weight w > 0 added (sign +1) or removed (-1).  brier and
** log_loss keep two exact sums, of w t (each product split by fma into two
** doubles, so the sum is exact) and of w; the others keep the rows (p, w)
** and, at a result, walk them sorted by p, one bin at a time, summing each
** bin's weight, positive weight and w p exactly.  So the results do not
** depend on row order (a window frame gives the aggregate's bits) and
** integer weights give the rows repeated: the unweighted sums are exact too. */
static ML_ALWAYS_INLINE void calib_row_weight(sqlite3_context *ctx, const MlFuncDesc *d, CalAgg *p, int y, double pr,
                                              double param, double w, int sign){
  if( d->kind==CAL_BRIER || d->kind==CAL_LOGLOSS ){
    if( p->wsum==0 ){
      if( sign<0 || (p->wsum = ml_malloc(sizeof(MlXsum)))==0 ){
        if( sign>0 ){ p->failed = 1; sqlite3_result_error_nomem(ctx); }
        return;
      }
      ml_xsum_init(p->wsum);
    }
    ml_xsum_add_product(&p->sum, w, d->kind==CAL_BRIER ? ml_calib_brier_term(y, pr) : log_loss_term(y, pr, param), sign);
    ml_xsum_add(p->wsum, w, sign);
    p->n += sign;
    p->nw += sign;
    return;
  }
  if( !p->qinit ){ ml_samples_init_weighted(&p->smp); p->qinit = 1; }
  if( sign>0 ){
    if( ml_add_row(ctx, &p->smp, y, pr, w)==ML_OK ) p->n++;
    else p->failed = 1;
  }else{
    p->n -= ml_samples_remove(&p->smp, y, pr, w);
  }
}

/* One row, written once for famCalib's four row callbacks (rule 12): sign
** +1 adds it (xStep), -1 removes it (xInverse, a row xStep accepted);
** weighted is a constant at each call, so the unweighted instances
** (weighted 0, w the literal 1.0) read and test no weight.  The checks
** (state, parameters, row) are one code for both; a twin's weight 0 or
** NULL drops the row after them, w < 0 follows the driver's error. */
static ML_ALWAYS_INLINE void calib_row(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                                       double w, int sign, int weighted){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalAgg *p;
  int y, st = STRATEGY_UNIFORM, t0 = sqlite3_value_type(argv[0]);
  double pr, param;
  if( !weighted && ML_STATE_DIVERT(ctx, argc, argv, t0, sign<0) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 ){ if( sign>0 ) sqlite3_result_error_nomem(ctx); return; }
  if( weighted ){
    p->weighted = 1;
    if( w<0.0 ){ p->failed = 1; return; }        /* the driver set the error */
  }
  if( !weighted && sign>0 && d->kind==CAL_BRIER ){  /* no parameter: the row alone */
    if( ml_arg_binary_row_t(ctx, d->name, argv, t0, 1, &y, &pr)!=ML_ROW_OK ) return;
    { double e = pr - y; ml_xsum_add(&p->sum, e*e, +1); }    /* ml_calib_brier_term */
    p->n++;
    return;
  }
  if( sign>0 ){
    if( cal_param(ctx, d, argc, argv, &p->param, &param) ) return;
    if( d->kind==CAL_RELIABILITY && cal_strategy(ctx, d, argc, argv, &p->strategy, &st) ) return;
  }else{
    param = cal_param_drop(d, argc, argv, &p->param);
    st = cal_strategy_drop(d, argc, argv, &p->strategy);
  }
  if( ml_arg_binary_row_t(ctx, d->name, argv, t0, 1, &y, &pr)!=ML_ROW_OK ) return;
  if( weighted ){
    if( w!=0.0 ) calib_row_weight(ctx, d, p, y, pr, param, w, sign);
  }else if( sign>0 ){
    calib_add(ctx, d, p, y, pr, param, st);
  }else{
    calib_remove(p, d, y, pr, param, st);
  }
}

/*
** SQL function: brier(y, p), log_loss(y, p [, eps]), ece(y, p [, bins]),
**   mce(y, p [, bins]), reliability(y, p [, bins [, strategy]]): xStep and
**   xInverse, and their weighted twins' (brier_w, log_loss_w, ece_w, mce_w,
**   reliability_w; MlFamily.xStepW, xInverseW): calib_row.
*/
static void ml_calib_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  calib_row(ctx, argc, argv, 1.0, +1, 0);
}
static void ml_calib_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  calib_row(ctx, argc, argv, 1.0, -1, 0);
}
static void calib_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  calib_row(ctx, argc, argv, w, +1, 1);
}
static void calib_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  calib_row(ctx, argc, argv, w, -1, 1);
}
/* Mean p of a non-empty bin. */
static double bin_mean_p(const CalOcc *c){
  return c->sp/(double)c->n;
}

/* One bin of reliability()'s JSON, {"bin","lo","hi","n","mean_p","frac_pos"}:
** the one writer of every strategy and its weighted twin; n is written as
** an integer for rows (weighted 0), as a number for a sum of weights. */
void ml_cal_reliability_bin(MlJson *j, ml_i64 b, double lo, double hi, int weighted, double n,
                            double meanP, double fracPos){
  ml_json_begin_object(j);
  ml_json_key(j, "bin");      ml_json_int(j, b);
  ml_json_key(j, "lo");       ml_json_double(j, lo);
  ml_json_key(j, "hi");       ml_json_double(j, hi);
  ml_json_key(j, "n");        if( weighted ) ml_json_double(j, n); else ml_json_int(j, (ml_i64)n);
  ml_json_key(j, "mean_p");   ml_json_double(j, meanP);
  ml_json_key(j, "frac_pos"); ml_json_double(j, fracPos);
  ml_json_end_object(j);
}

static void write_reliability(MlJson *j, ml_i64 B, const CalOcc *o, ml_i64 nOcc){
  ml_i64 i;
  ml_json_begin_array(j);
  for(i=0; i<nOcc; i++){
    const CalOcc *c = &o[i];
    ml_cal_reliability_bin(j, c->b, width_edge(c->b, B), width_edge(c->b+1, B), 0, (double)c->n,
                         bin_mean_p(c), (double)c->npos/(double)c->n);
  }
  ml_json_end_array(j);
}

static void calib_compute(sqlite3_context *ctx, CalAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 B;
  if( p && p->failed ) return;             /* the step's error stands */
  if( p && d->aParam && ml_param_check(ctx, d->name, d->aParam[0]->name, &p->param) ) return;
  if( p && d->kind==CAL_RELIABILITY
   && ml_param_choice_check(ctx, d->name, d->aParam[1], &p->strategy) ) return;
  if( p==0 || p->n==0 ){
    ml_result_null(ctx, d->name, p && p->weighted ? "no rows of positive weight" : "no rows");
    return;
  }
  B = (ml_i64)ml_param_value(&p->param, default_param(d->kind));
  if( p->weighted ){
    if( d->kind==CAL_BRIER || d->kind==CAL_LOGLOSS ){
      MlXsum W;
      if( p->wsum ) W = *p->wsum; else ml_xsum_init(&W);
      ml_xsum_add_n(&W, 1.0, p->n - p->nw, +1);      /* rows beside a weighted state */
      sqlite3_result_double(ctx, ml_xsum_round(&p->sum) / ml_xsum_round(&W));
    }else{
      ml_calib_bins_w(ctx, d, p, B);
    }
    return;
  }
  switch( d->kind ){
    case CAL_BRIER:
    case CAL_LOGLOSS:
      sqlite3_result_double(ctx, ml_xsum_round(&p->sum) / (double)p->n);
      break;
    default: {
      MlJson j;
      ml_i64 nOcc, i;
      CalOcc *o;
      CalBins *s;
      if( ml_param_value(&p->strategy, STRATEGY_UNIFORM)==STRATEGY_QUANTILE ){
        ml_json_init(&j);
        /* over states the counted records take the weighted twin's path:
        ** counts as weights give the rows' text (rule 10) */
        if( p->counted ? ml_samples_sort(&p->smp) || ml_cal_reliability_quantile_w(&j, &p->smp, B)
                       : ml_cal_reliability_quantile(&j, &p->smp, B) ){
          ml_json_free(&j);
          sqlite3_result_error_nomem(ctx);
          break;
        }
        ml_result_json(ctx, &j);
        break;
      }
      /* the occupied bins, ascending: from the bins or the buffered rows */
      s = bins_held(p);
      o = s ? occupied_bins(s, &nOcc) : 0;
      if( o==0 ){ sqlite3_result_error_nomem(ctx); break; }
      if( d->kind==CAL_ECE ){
        /* sum_b (n_b/N) |ybar_b - pbar_b| = (1/N) sum_b |npos_b - sum_p_b| */
        MlXsum e;
        ml_xsum_init(&e);
        for(i=0; i<nOcc; i++) ml_xsum_add(&e, fabs((double)o[i].npos - o[i].sp), 1);
        sqlite3_result_double(ctx, ml_xsum_round(&e) / (double)p->n);
      }else if( d->kind==CAL_MCE ){
        /* max_b |ybar_b - pbar_b| over the non-empty bins */
        double m = 0.0;
        for(i=0; i<nOcc; i++){
          double e = fabs((double)o[i].npos/(double)o[i].n - bin_mean_p(&o[i]));
          if( e>m ) m = e;
        }
        sqlite3_result_double(ctx, m);
      }else{
        ml_json_init(&j);
        write_reliability(&j, B, o, nOcc);
        ml_result_json(ctx, &j);
      }
      ml_free(o);
      break;
    }
  }
}

/* Only reliability 'quantile' sorts: its rows decide whether an abandoned
** statement's cleanup skips the computation. */
static void calib_result(sqlite3_context *ctx, CalAgg *p, int isFinal){
  if( ml_compute_begin(ctx, isFinal, p && p->qinit ? ml_samples_count(&p->smp) : 0) ) return;
  calib_compute(ctx, p);
  ml_compute_end(ctx);
}

static void ml_calib_value(sqlite3_context *ctx){
  calib_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}

static void ml_calib_final(sqlite3_context *ctx){
  CalAgg *p = sqlite3_aggregate_context(ctx, 0);
  calib_result(ctx, p, 1);
  if( p ){
    bins_free(&p->set[0]);
    bins_free(&p->set[1]);
    if( p->qinit ) ml_samples_clear(&p->smp);
    ml_free(p->wsum);
    p->wsum = 0;
  }
}

/* ------------------------------------------------------------- records */

static const MlParamSpec psEps = ML_PARAM_REAL("eps", 0.0, 1, 0.5, 1, "1e-15", "1e-15");
static const MlParamSpec psBins = ML_PARAM_INT("bins", 1, ML_MAX_BINS, "10", "10");
static const MlParamSpec psBinsSorted = ML_PARAM_INT("bins", 1, ML_MAX_BINS, "10", "2");
static const MlParamSpec psBinsKumar = ML_PARAM_INT("bins", 1, ML_MAX_BINS, "15", "2");
static const MlParamSpec psStrategy = ML_PARAM_CHOICE("strategy", azStrategy, "'uniform'", "'quantile'");

static const MlFamily famCalib = { "calibration", ml_calib_step, ml_calib_final, ml_calib_value,
                                   ml_calib_inverse, &ml_calib_states, calib_step_w, calib_inverse_w, 0 };

const MlFuncDesc ml_calibration_functions[] = {
  { "brier",           "y, p",                     2,  2, &famCalib, 0, CAL_BRIER, ML_FN_WEIGHTED, 0 },
  { "log_loss",        "y, p [, eps]",             2,  3, &famCalib, 0, CAL_LOGLOSS, ML_FN_WEIGHTED, ML_PARAMS(&psEps) },
  { "ece",             "y, p [, bins]",            2,  3, &famCalib, 0, CAL_ECE, ML_FN_WEIGHTED, ML_PARAMS(&psBins) },
  { "mce",             "y, p [, bins]",            2,  3, &famCalib, 0, CAL_MCE, ML_FN_WEIGHTED, ML_PARAMS(&psBins) },
  { "reliability",     "y, p [, bins [, strategy]]", 2, 4, &famCalib, 0, CAL_RELIABILITY, ML_FN_JSON|ML_FN_WEIGHTED,
                                                             ML_PARAMS(&psBins, &psStrategy) },
  { "ece_equal_mass",  "y, p [, bins]",            2,  3, &ml_calsort_family, 0, CAL_EQUAL_MASS, ML_FN_WEIGHTED, ML_PARAMS(&psBinsSorted) },
  { "ece_l2",          "y, p [, bins]",            2,  3, &ml_calsort_family, 0, CAL_L2, ML_FN_WEIGHTED, ML_PARAMS(&psBinsSorted) },
  { "brier_decomposition", "y, p [, bins]",        2,  3, &ml_calsort_family, 0, CAL_BRIER_DECOMP, ML_FN_JSON|ML_FN_WEIGHTED,
                                                             ML_PARAMS(&psBinsSorted) },
  { "ece_l2_debiased", "y, p [, bins]",            2,  3, &ml_calsort_family, 0, CAL_L2_DEBIASED,
                       ML_FN_STATE_UNWEIGHTED, ML_PARAMS(&psBinsSorted) },
  { "ece_l2_kumar",    "y, p [, bins]",            2,  3, &ml_calsort_family, 0, CAL_L2_KUMAR,
                       ML_FN_STATE_UNWEIGHTED, ML_PARAMS(&psBinsKumar) },
  { "calibration_summary", "y, p [, level]",       2,  3, &ml_calsort_family, 0, CAL_SUMMARY, ML_FN_JSON|ML_FN_WEIGHTED,
                                                             ML_PARAMS(&ml_ps_level) },
  { "calibration_smooth", "y, p",                  2,  2, &ml_calsort_family, 0, CAL_SMOOTH, ML_FN_JSON|ML_FN_WEIGHTED, 0 },
  { 0 }
};
