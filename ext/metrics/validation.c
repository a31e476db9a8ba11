/*
** SPDX-License-Identifier: MIT
**
** validation.c -- the validation statistics of clinical prediction models:
** the calibration summary of R's rms::val.prob and its lowess calibration
** curve (pROC's unpaired DeLong test, auroc_test, is auroc_test.c's; its
** rules 4-7 keep their numbers there).
**
** SQL functions:
**   calibration_summary(y, p [, level=0.95])   aggregate and window, JSON
**       {"n","events","expected","oe_ratio","citl","citl_lo","citl_hi",
**        "intercept","intercept_lo","intercept_hi","slope","slope_lo",
**        "slope_hi","level","spiegelhalter_z","spiegelhalter_p","brier",
**        "scaled_brier","reason"}
**       Registered in calibration's sorted family (calibration.c keeps its
**       rows, takes its states, hands the sorted sample to
**       ml_calib_summary_result below).
**   calibration_summary_w(y, p, w [, level])   its weighted twin (docs/weights.md):
**       the same JSON on frequency weights, the sample weighted.
**   calibration_smooth(y, p)    aggregate and window, JSON
**       {"n","ici","e50","e90","emax","span","delta","curve"}; calibration's
**       sorted family too, ml_calib_smooth_result (the curve itself:
**       ml_calib_smooth, also plot_reliability's overlay).
**   calibration_smooth_w(y, p, w), calibration_smooth(st): its twin on
**       frequency weights and its state form (rule 10).
**
** Rules (calibration_summary; Harrell's rms::val.prob, Steyerberg's
** "Clinical Prediction Models" ch. 15):
**   1. y is 0 or 1, p a probability in [0, 1]; NULL skips the row; no rows
**      give NULL.  One class is allowed: what needs both is null.
**   2. events = sum y, expected = sum p, oe_ratio = events/expected (null
**      when expected is 0), brier = mean (p - y)^2, scaled_brier =
**      1 - brier/(ybar (1 - ybar)) (null with one class), Spiegelhalter
**      z = sum (y - p)(1 - 2p) / sqrt(sum (1 - 2p)^2 p (1 - p)) and its
**      two-sided normal p-value (null when the variance is 0: every p is
**      0, 1/2 or 1).  These use p as given; the sums are exact (MlXsum, a
**      run of c equal rows adding c * term exactly), so any frame or state
**      of the same rows gives the same bits.
**   3. intercept, slope: the logistic fit of y on logit(p); citl
**      (calibration-in-the-large): the intercept of the fit with logit(p)
**      as an offset (not the intercept of the slope fit).  For the logits p
**      is clipped to [1e-15, 1 - 1e-15] (p = 0 or 1 would be infinite);
**      logit(c) = ln(c/(1 - c)).  Fits by ml_logit_calib over the distinct
**      p (one run per distinct p, with its count of each class): null with
**      "reason" when no finite estimate exists (one class; classes
**      separated by a threshold on p) or the fit does not converge.
**      "reason" joins every such cause; null when none.  When every p has
**      one logit the slope is not identifiable: slope and its interval are
**      null with a reason, intercept = logit(ybar) with the intercept-only
**      fit's interval (var 1/events + 1/nonevents), as R's glm(y ~ lp)
**      reports with lp aliased.
**   3b. Intervals: Wald at level (the uncertainty family's level, in (0,
**      1), the same in every row): est + se qnorm((1 - level)/2) and
**      est + se qnorm((1 + level)/2), se from ml_logit_cov -- the inverse
**      information of the same fit at its estimate (R's confint.default on
**      the glm).  Null where the estimate is.
**   3a. calibration_summary_w: frequency weights (a row of weight w stands
**      for w rows).  n, events are the exact sums of w and of w y (written
**      as numbers), and every sum of rule 2 the exact sum of w * term over
**      the rows (fma-split products), so brier is brier_w's double; the fits
**      are rule 3's on runs holding each class's exact weight (MlWSweep's
**      tie sums), the information summing w (statsmodels' GLM with
**      freq_weights).  Integer weights give the rows repeated bit for bit.
**      Rows of weight 0 are not kept; NULL when no row has positive weight.
**
** Rules (calibration_smooth; rms::val.prob's Eavg/E90/Emax,
** docs/validation.md rules 8-10):
**   8. The curve is R's lowess(p, y, f = 2/3, iter = 0, delta = 0.01 range(p))
**      from its definition (lowess() below), then ties averaged as
**      approx(ties = mean): the curve at a p shared by rows is their mean.
**   9. ici = mean |curve - p| over the rows, e50/e90 numpy-linear (R type 7)
**      quantiles of it, emax its largest; curve: [p, curve] at the distinct p,
**      every k-th above 200 and the last.
**  10. One computation over the distinct p, each weighing its negatives and
**      positives (counts, or the twin's exact tie sums of weights; a state's
**      entries as counts): R's row loop on the rows repeated, written on
**      the cumulative-weight axis (rows by p, ties negatives first, a row
**      of weight w an interval of length w; docs/weights.md).  The window
**      is ns = max(2, floor(f W + 1e-7)) unit positions [L, L + ns), slid
**      while L + ns < W, the p at L + ns is nearer than the p at L, and the
**      p at L + 1 is at most the fit's (implied for rows); a distinct p
**      weighs its weight in the sums, the window's first only its part at
**      or after L (its last rows: positives first).  ici = the exact sum of
**      w |curve - p| over W, e50/e90 ml_wquantile on |curve - p| ascending.
**      Integer weights are the rows repeated, text for text; counts are
**      the rows' text; a tie's rows share one value, so rule 8's averaging
**      is the identity.
**
** Cost: calibration_summary keeps calibration's sorted sample (8 bytes per
** row; the twin 16, p and w); a result sorts it (O(n)), makes its runs (24
** bytes per row allocated, one run per distinct p) and fits in O(runs) per
** Newton step; the twin adds each row's terms to seven exact sums.
** calibration_smooth keeps the same sample (the twin 16 bytes a row); a
** result needs 56 bytes per distinct p (72 with the errors' sort) and about
** 100 local fits (delta) over ~2/3 of the distinct p each: O(distinct p),
** ~70 m, plus the sort of the m errors (O(m log m)); over states
** O(entries).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

/* -0 printed as 0. */
static double nz(double x){ return x + 0.0; }

/* --------------------------------------------------- calibration_summary */

#define SUMMARY_CLIP 1e-15

/* Appends "; " and z to the reasons. */
static void add_reason(MlStr *r, const char *z){
  if( r->n>0 ) ml_str_appendz(r, "; ");
  ml_str_appendz(r, z);
}

/* Why a fit gave no estimate, for "reason". */
static const char *fit_reason(int rc, int slope){
  switch( rc ){
    case ML_LOGIT_ONE_CLASS:
      return slope ? 0 : "one class: citl, intercept and slope are undefined";
    case ML_LOGIT_SEPARATED:
      return "a threshold on p separates the classes: the calibration slope is infinite";
    default:
      return slope ? "the calibration slope fit did not converge"
                   : "the calibration-in-the-large fit did not converge";
  }
}

/* The exact sums of rule 2: of w t over the rows for each term t, and the
** weight of each class and of all (counts when unweighted).  A row's
** weight is its count c (or a run's: c rows of one (y, p) add c t) or its
** weight w; every product w t goes in exactly (fma splits it), so the
** sums do not depend on the order rows come in, and integer weights give
** the counts' sums. */
typedef struct SummarySums { MlXsum expected, brier, znum, zden, cls[2], all; } SummarySums;

static void summary_sums_init(SummarySums *s){
  ml_xsum_init(&s->expected); ml_xsum_init(&s->brier);
  ml_xsum_init(&s->znum); ml_xsum_init(&s->zden);
  ml_xsum_init(&s->cls[0]); ml_xsum_init(&s->cls[1]); ml_xsum_init(&s->all);
}

/* Adds weight c (> 0) of rows (y, p). */
static void summary_add(SummarySums *s, int y, double p, double c){
  double q = 1.0 - p, u = 1.0 - 2.0*p;
  ml_xsum_add_product(&s->expected, c, p, 1);
  ml_xsum_add_product(&s->brier, c, y ? q*q : p*p, 1);            /* (p - y)^2 */
  ml_xsum_add_product(&s->znum, c, y ? q*u : -(p*u), 1);          /* (y - p)(1 - 2p) */
  ml_xsum_add_product(&s->zden, c, u*u*(p*q), 1);
  ml_xsum_add(&s->cls[y], c, 1);
  ml_xsum_add(&s->all, c, 1);
}

/* The Wald interval est + se qnorm(a), est + se qnorm(1 - a), a = (1 -
** level)/2 (R's confint.default), or NaNs when est or var is.  Where 1 - a
** rounds to 1 (a below 2^-53: level within 2^-52 of 1) the upper end uses
** -qnorm(a), the same quantile by symmetry, so both ends are finite or
** neither (qnorm(1) is +Inf; issue 44). */
static void wald(double est, double var, double level, double *lo, double *hi){
  double a = 0.5*(1.0 - level), se = sqrt(var);
  double zlo = ml_norm_quantile(a), zhi = 1.0 - a < 1.0 ? ml_norm_quantile(1.0 - a) : -zlo;
  if( isnan(est) || !(var>=0.0) ){ *lo = *hi = NAN; return; }
  *lo = est + se*zlo;
  *hi = est + se*zhi;
}

/* The fits of rule 3 and their Wald intervals (rule 3b) over the runs
** (x = logit(p); a0 the offset fit's start): est[0..2] citl, intercept,
** slope; lo/hi the intervals.  Reasons go to why.  ML_OK or
** ML_LOGIT_STOPPED. */
static int summary_fits(MlLogitRun *r, ml_i64 nRun, double a0, double events, double nonevents, double level,
                        double *est, double *lo, double *hi, MlStr *why){
  MlLogitCalib c;
  int k;
  for(k=0; k<3; k++) est[k] = lo[k] = hi[k] = NAN;
  if( ml_logit_calib(r, nRun, a0, &c)==ML_LOGIT_STOPPED ) return ML_LOGIT_STOPPED;
  if( c.rcCitl ){
    add_reason(why, fit_reason(c.rcCitl, 0));
  }else{
    est[0] = c.citl;
    wald(est[0], c.varCitl, level, &lo[0], &hi[0]);
  }
  if( c.rcSlope==ML_LOGIT_CONSTANT ){
    /* as R's glm(y ~ lp) with lp constant: lp is aliased (its coefficient
    ** NA), the intercept that of y on the intercept alone, its variance
    ** 1/events + 1/nonevents */
    est[1] = log(events/nonevents);
    wald(est[1], 1.0/events + 1.0/nonevents, level, &lo[1], &hi[1]);
    add_reason(why, "p is constant (one logit): the calibration slope is not identifiable");
  }else if( c.rcSlope ){
    if( fit_reason(c.rcSlope, 1) ) add_reason(why, fit_reason(c.rcSlope, 1));
  }else{
    est[1] = c.a; est[2] = c.b;
    wald(est[1], c.cov[0], level, &lo[1], &hi[1]);
    wald(est[2], c.cov[1], level, &lo[2], &hi[2]);
  }
  return ML_OK;
}

/* Writes the summary from the sums and the runs of distinct p (ascending;
** x is p, made logit(p) here for the fits), the intervals at level.
** weighted: n and events are sums of weights, written as numbers.  ML_OK,
** ML_NOMEM or ML_LOGIT_STOPPED. */
static int write_summary(MlJson *j, const SummarySums *s, MlLogitRun *r, ml_i64 nRun, int weighted,
                         double level){
  static const char *const azFit[3] = {"citl", "intercept", "slope"};
  static const char *const azLo[3] = {"citl_lo", "intercept_lo", "slope_lo"};
  static const char *const azHi[3] = {"citl_hi", "intercept_hi", "slope_hi"};
  MlStr why;
  double n = ml_xsum_round(&s->all), events = ml_xsum_round(&s->cls[1]), nonevents = ml_xsum_round(&s->cls[0]);
  double expected, brier, ybar, zden, z = NAN, zp = NAN, est[3], lo[3], hi[3], a0;
  MlSum g0 = {0, 0}, h0 = {0, 0};
  ml_i64 i;
  int k;
  /* the logits, and the offset fit's first Newton step from 0, where
  ** sigma(logit(c)) is c: sum w (y - c) / sum w c (1 - c) */
  for(i=0; i<nRun; i++){
    double p = r[i].x, c = p < SUMMARY_CLIP ? SUMMARY_CLIP : p > 1.0 - SUMMARY_CLIP ? 1.0 - SUMMARY_CLIP : p;
    double w = r[i].w[0] + r[i].w[1];
    ml_sum_add(&g0, r[i].w[1] - w*c);
    ml_sum_add(&h0, w*(c*(1.0 - c)));
    r[i].x = log(c/(1.0 - c));
  }
  ml_str_init(&why);
  a0 = ml_sum_value(&h0)>0.0 ? ml_sum_value(&g0)/ml_sum_value(&h0) : 0.0;
  if( summary_fits(r, nRun, a0, events, nonevents, level, est, lo, hi, &why) ){
    ml_str_free(&why);
    return ML_LOGIT_STOPPED;
  }
  expected = ml_xsum_round(&s->expected);
  brier = ml_xsum_round(&s->brier) / n;
  ybar = events / n;
  zden = ml_xsum_round(&s->zden);
  if( zden>0.0 ){
    z = ml_xsum_round(&s->znum) / sqrt(zden);
    zp = erfc(fabs(z) / 1.41421356237309504880);
  }else{
    add_reason(&why, "Spiegelhalter's variance is 0 (every p is 0, 1/2 or 1)");
  }
  if( why.oom ) return ML_NOMEM;
  ml_json_begin_object(j);
  ml_json_key(j, "n");               if( weighted ) ml_json_double(j, n); else ml_json_int(j, (ml_i64)n);
  ml_json_key(j, "events");          if( weighted ) ml_json_double(j, events); else ml_json_int(j, (ml_i64)events);
  ml_json_key(j, "expected");        ml_json_double(j, expected);
  ml_json_key(j, "oe_ratio");        ml_json_double(j, expected>0.0 ? events/expected : NAN);
  for(k=0; k<3; k++){
    ml_json_key(j, azFit[k]);        ml_json_double(j, nz(est[k]));
    ml_json_key(j, azLo[k]);         ml_json_double(j, nz(lo[k]));
    ml_json_key(j, azHi[k]);         ml_json_double(j, nz(hi[k]));
  }
  ml_json_key(j, "level");           ml_json_double(j, level);
  ml_json_key(j, "spiegelhalter_z"); ml_json_double(j, nz(z));
  ml_json_key(j, "spiegelhalter_p"); ml_json_double(j, zp);
  ml_json_key(j, "brier");           ml_json_double(j, brier);
  ml_json_key(j, "scaled_brier");
  ml_json_double(j, events>0.0 && nonevents>0.0 ? nz(1.0 - brier/(ybar*(1.0 - ybar))) : NAN);
  ml_json_key(j, "reason");          ml_json_string(j, why.n ? why.z : 0);
  ml_json_end_object(j);
  ml_str_free(&why);
  return ML_OK;
}

/* The sums and the runs of distinct p of the sorted sample, into r (room
** for every row; filled from r[cap - 1] down): the unweighted sweep's
** counts, or the weighted sweep's exact tie sums with each row's w t added
** to the sums.  Returns the index of the first run. */
static ml_i64 summary_runs(const MlSamples *smp, SummarySums *s, MlLogitRun *r, ml_i64 cap){
  ml_i64 k = cap, i;
  int y;
  summary_sums_init(s);
  if( smp->weighted ){
    MlWSweep w;
    for(y=0; y<2; y++){
      for(i=0; i<smp->n[y]; i++){
        summary_add(s, y, ml_double_of(ml_samples_key(smp, y, i)), ml_samples_aux(smp, y, i));
      }
    }
    ml_wsweep_init(&w, smp);
    while( ml_wsweep_next(&w) ){
      k--;
      r[k].x = ml_double_of(w.key); r[k].w[0] = w.dfp; r[k].w[1] = w.dtp;
    }
  }else{
    MlSweep w;
    ml_sweep_init(&w, smp, 0);
    while( ml_sweep_next(&w) ){
      double p = ml_double_of(w.key);
      k--;
      r[k].x = p; r[k].w[0] = (double)w.dfp; r[k].w[1] = (double)w.dtp;
      if( w.dfp ) summary_add(s, 0, p, (double)w.dfp);
      if( w.dtp ) summary_add(s, 1, p, (double)w.dtp);
    }
  }
  return k;
}

void ml_calib_summary_result(sqlite3_context *ctx, MlSamples *smp, double level){
  ml_i64 n = ml_samples_count(smp), k;
  SummarySums s;
  MlLogitRun *r;
  MlJson j;
  int rc;
  if( ml_samples_sort(smp) ){ sqlite3_result_error_nomem(ctx); return; }
  r = ml_malloc(sizeof(MlLogitRun) * (uint64_t)n);
  if( r==0 ){ sqlite3_result_error_nomem(ctx); return; }
  k = summary_runs(smp, &s, r, n);
  ml_json_init(&j);
  rc = write_summary(&j, &s, r + k, n - k, smp->weighted, level);
  ml_free(r);
  if( rc==ML_LOGIT_STOPPED ){ ml_json_free(&j); return; }   /* ml_compute_end reports it */
  if( rc ){ ml_json_free(&j); sqlite3_result_error_nomem(ctx); return; }
  ml_result_json(ctx, &j);
}

/* ---------------------------------------------------- calibration_smooth */

#define SMOOTH_F 2.0/3.0       /* R's lowess default span */
#define SMOOTH_CURVE_MAX 200   /* points of "curve" at most */

/* The entries of rule 10 (MlSmooth, ml_sql.h): the distinct p ascending,
** x[i], each with the weight of its negatives c0[i] and positives c1[i]
** (counts, or the exact tie sums of the weights), cw[i] = c0 + c1, and its
** place [lo[i], hi[i]) on the cumulative-weight axis (the rows by p, ties
** negatives first, the weights added in that order: hi = lo + c0 + c1, as
** docs/weights.md's axis).  ys the curve; t scratch.  Separate arrays: the
** fits stream x, t, cw and c1 (~100 passes over 2/3 of them). */

/* The entry holding position r of the axis (the last when r is past it),
** looking from k on. */
static ml_i64 smooth_at(const MlSmooth *e, double r, ml_i64 k){
  while( k+1<e->m && !(e->lo[k+1] > r) ) k++;
  return k;
}

/* One local linear fit of rule 8 at xs: the window's rows are the
** positions [L, L + ns) of the axis, its ends the entries kl (holding L)
** and kr (holding L + ns - 1); tricube weights (1 - (r/h)^3)^3 with h the
** larger distance from xs to x[kl], x[kr], 1 within 0.001 h, 0 beyond
** 0.999 h, each entry weighing its rows' weight -- all of it from kl + 1
** on (rows tied beyond the window's right end within the bandwidth join,
** as R's), and of kl only the part at or after L (its last rows, positives
** first, as the rows ascending have them).  The weighted least-squares
** line at xs (the weighted mean alone when the weighted spread is at most
** 0.001 of x's range).  Returns 0 when every weight is 0. */
static int lowess_fit(MlSmooth *e, double xs, double L, ml_i64 kl, ml_i64 kr, double range, double *ys){
  const double *x = e->x;
  double *t = e->t, *cw = e->cw, *cp = e->c1;
  double h = fmax(xs - x[kl], x[kr] - xs), h9 = 0.999*h, h1 = 0.001*h, a = 0.0, b, c;
  double cwKeep = cw[kl], cpKeep = cp[kl];
  ml_i64 j, nrt, m = e->m;
  if( L > e->lo[kl] ){                         /* kl's part in the window */
    cw[kl] = e->hi[kl] - L;
    cp[kl] = cpKeep < cw[kl] ? cpKeep : cw[kl];
  }
  for(j=kl; j<m; j++){
    double r = fabs(x[j] - xs);
    if( r<=h9 ){
      double q = r/h;
      q = 1.0 - q*q*q;
      t[j] = r<=h1 ? 1.0 : q*q*q;
      a += t[j]*cw[j];
    }else if( x[j]>xs ){
      break;
    }else{
      t[j] = 0.0;
    }
  }
  nrt = j - 1;
  if( a>0.0 ){
    for(j=kl; j<=nrt; j++) t[j] /= a;
    if( h>0.0 ){
      a = 0.0;
      for(j=kl; j<=nrt; j++) a += t[j]*cw[j]*x[j];
      b = xs - a;
      c = 0.0;
      for(j=kl; j<=nrt; j++) c += t[j]*cw[j]*(x[j] - a)*(x[j] - a);
      if( sqrt(c) > 0.001*range ){
        b /= c;
        for(j=kl; j<=nrt; j++) t[j] *= b*(x[j] - a) + 1.0;
      }
    }
    c = 0.0;
    for(j=kl; j<=nrt; j++) c += t[j]*cp[j];
    *ys = c;
  }
  cw[kl] = cwKeep; cp[kl] = cpKeep;
  return a>0.0;
}

/* The lowess curve of rule 8 at each of the m entries (total weight W):
** ns = max(2, floor(f W + 1e-7)) positions a window; for a fit at xs the
** window [L, L + ns) slides right, one position a step, while position L +
** ns exists (< W) and its x is nearer to xs than x at L (taken in jumps: the
** comparison changes only where L or L + ns enters another entry); a fit
** at an entry, then the entries within delta = 0.01 range of it skipped and
** filled by linear interpolation between fits.  Returns ML_SMOOTH_STOPPED
** when stopped (ml_stop_requested). */
static int lowess(MlSmooth *e){
  const double *x = e->x;
  double *ys = e->ys, W = e->W, range = x[e->m-1] - x[0], delta = 0.01*range, L = 0.0;
  double ns = floor(SMOOTH_F*W + 1e-7);
  ml_i64 m = e->m, kl = 0, kr = 0, kn = 0, last = -1, i = 0, j;
  if( ns<2.0 ) ns = 2.0;
  for(;;){
    double xs = x[i], cut, lim = ceil(e->hi[i]) - 1.0;   /* the last position L may take: x there <= xs */
    while( L + ns < W ){
      double b, next, cap;
      kl = smooth_at(e, L, kl);
      kn = smooth_at(e, L + ns, kn);
      if( !(xs - x[kl] > x[kn] - xs) ) break;
      b = fmin(e->hi[kl], e->hi[kn] - ns);        /* where the comparison may change */
      next = fmax(L + 1.0, ceil(b));
      cap = ceil(W - ns);                          /* the first L with L + ns >= W */
      if( next>cap ) next = cap;
      if( next>lim ) next = lim;                   /* never past xs (weights below 1) */
      if( !(next>L) ) break;                       /* and positions beyond 2^53 */
      L = next;
    }
    kl = smooth_at(e, L, kl);
    kr = smooth_at(e, L + ns - 1.0, kr > kl ? kr : kl);
    if( ml_stop_requested() ) return ML_SMOOTH_STOPPED;
    if( !lowess_fit(e, xs, L, kl, kr, range, &ys[i]) ) ys[i] = e->c1[i]/e->cw[i];
    if( last<i-1 ){
      double denom = xs - x[last];
      for(j=last+1; j<i; j++){
        double alpha = (x[j] - x[last])/denom;
        ys[j] = alpha*ys[i] + (1.0 - alpha)*ys[last];
      }
    }
    last = i;
    if( last>=m-1 ) break;
    cut = xs + delta;
    for(j=last+1; j<m && !(x[j]>cut); j++){}
    i = j - 1 > last ? j - 1 : last + 1;
  }
  return 0;
}

/* Orders |curve - p| ascending (qsort). */
static int cmp_err(const void *a, const void *b){
  double x = ((const double*)a)[0], y = ((const double*)b)[0];
  return x<y ? -1 : x>y;
}

/* The smoothed curve of a sorted sample (rules 8-10) into out (its arrays
** one block, out->x, the caller's to free): the entries, their count and
** total weight, and ici, e50, e90, emax.  ML_OK, ML_NOMEM or
** ML_SMOOTH_STOPPED. */
int ml_calib_smooth(const MlSamples *smp, MlSmooth *out){
  ml_i64 n = ml_samples_count(smp), k = n, m, i;
  double c = 0.0, *er, *x0, *c00, *c10;
  MlXsum ici;
  double *blk = ml_malloc(sizeof(double) * 8 * (uint64_t)(n ? n : 1));
  out->x = blk;
  if( blk==0 ) return ML_NOMEM;
  x0 = blk; c00 = blk + n; c10 = blk + 2*n;
  /* the entries ascending (the sweeps walk the distinct p from the top) */
  if( smp->weighted ){
    MlWSweep w;
    ml_wsweep_init(&w, smp);
    while( ml_wsweep_next(&w) ){ k--; x0[k] = ml_double_of(w.key); c00[k] = w.dfp; c10[k] = w.dtp; }
  }else{
    MlSweep w;
    ml_sweep_init(&w, smp, 0);
    while( ml_sweep_next(&w) ){ k--; x0[k] = ml_double_of(w.key); c00[k] = (double)w.dfp; c10[k] = (double)w.dtp; }
  }
  m = n - k;
  out->m = m;
  out->c0 = blk + m; out->c1 = blk + 2*m;
  if( k>0 ){
    memmove(blk, x0 + k, sizeof(double) * (size_t)m);
    memmove(out->c0, c00 + k, sizeof(double) * (size_t)m);
    memmove(out->c1, c10 + k, sizeof(double) * (size_t)m);
  }
  out->cw = blk + 3*m; out->lo = blk + 4*m; out->hi = blk + 5*m; out->ys = blk + 6*m; out->t = blk + 7*m;
  for(i=0; i<m; i++){
    out->lo[i] = c;
    c += out->c0[i];
    c += out->c1[i];
    out->hi[i] = c;
    out->cw[i] = out->c0[i] + out->c1[i];
  }
  out->W = c;
  if( lowess(out) ) return ML_SMOOTH_STOPPED;
  /* |curve - p| by entry (a tie's rows share the curve: approx(ties =
  ** mean) averages equal values), their weighted mean, quantiles and max;
  ** er pairs (|curve - p|, weight, then its place on the axis) in the
  ** scratch lo and hi, no longer needed */
  er = out->lo;
  ml_xsum_init(&ici);
  out->emax = 0.0;
  for(i=0; i<m; i++){
    double d = fabs(out->ys[i] - out->x[i]);
    er[2*i] = d;
    er[2*i+1] = out->cw[i];
    ml_xsum_add_product(&ici, out->cw[i], d, 1);
    if( d>out->emax ) out->emax = d;
  }
  out->ici = ml_xsum_round(&ici)/c;
  qsort(er, (size_t)m, 2*sizeof(double), cmp_err);
  {
    double below = 0.0, w;
    ml_i64 at = 0;
    for(i=0; i<m; i++){ w = er[2*i+1]; er[2*i+1] = below; below += w; }
    out->e50 = ml_wquantile(er, er + 1, 2, m, c, 0.5, &at);
    out->e90 = ml_wquantile(er, er + 1, 2, m, c, 0.9, &at);
  }
  return ML_OK;
}

/* calibration_smooth's JSON (rules 8-10) from calibration's sorted sample
** (non-empty; sorted here); weighted: n is a sum of weights. */
void ml_calib_smooth_result(sqlite3_context *ctx, MlSamples *smp){
  MlSmooth sm;
  ml_i64 i, step;
  MlJson j;
  int rc;
  if( ml_samples_sort(smp) ){ sqlite3_result_error_nomem(ctx); return; }
  rc = ml_calib_smooth(smp, &sm);
  if( rc ){
    ml_free(sm.x);
    if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
    return;                                               /* stopped: ml_compute_end reports it */
  }
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "n");     if( smp->weighted ) ml_json_double(&j, sm.W); else ml_json_int(&j, (ml_i64)sm.W);
  ml_json_key(&j, "ici");   ml_json_double(&j, sm.ici);
  ml_json_key(&j, "e50");   ml_json_double(&j, sm.e50);
  ml_json_key(&j, "e90");   ml_json_double(&j, sm.e90);
  ml_json_key(&j, "emax");  ml_json_double(&j, sm.emax);
  ml_json_key(&j, "span");  ml_json_double(&j, SMOOTH_F);
  ml_json_key(&j, "delta"); ml_json_double(&j, 0.01*(sm.x[sm.m-1] - sm.x[0]));
  /* [p, curve] at every distinct p, or every step-th of them and the last */
  ml_json_key(&j, "curve");
  ml_json_begin_array(&j);
  step = sm.m<=SMOOTH_CURVE_MAX ? 1 : (sm.m + SMOOTH_CURVE_MAX - 2)/(SMOOTH_CURVE_MAX - 1);
  for(i=0; i<sm.m; i++){
    if( i%step==0 || i==sm.m-1 ){
      ml_json_begin_array(&j);
      ml_json_double(&j, sm.x[i]);
      ml_json_double(&j, sm.ys[i]);
      ml_json_end_array(&j);
    }
  }
  ml_json_end_array(&j);
  ml_json_end_object(&j);
  ml_free(sm.x);
  ml_result_json(ctx, &j);
}
