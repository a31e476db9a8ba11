/*
** ml_logit.c -- maximum-likelihood logistic regression of a binary label
** on one covariate, over runs of rows that share the covariate.
** SPDX-License-Identifier: MIT
**
** Provides ml_logit_fit(), behind calibration_summary's and
** calibration_summary_w's calibration intercept and slope (y on logit(p))
** and calibration-in-the-large (y with logit(p) as an offset) in
** validation.c.
**
** Rules:
**   1. A run (MlLogitRun) is one x with the weight w[0] of its rows of y = 0
**      and w[1] of y = 1: counts (calibration_summary), or sums of
**      frequency weights (calibration_summary_w), a row of weight w
**      standing for w rows; the log-likelihood is
**      sum w1 ln sigma(eta) + w0 ln sigma(-eta), eta = a + b x (or a + x),
**      and its information sums w, so integer weights give the fit of the
**      rows repeated bit for bit (the same doubles in the same order).  A
**      class with w[y] = 0 has no row in the run.
**      sigma(eta), 1 - sigma(eta) (as sigma(-eta)) and their logarithms come
**      from exp(-|eta|) and its log1p, so nothing overflows or cancels.
**   2. No finite maximum exists -- and none is reported -- when one class is
**      missing, when x takes one value (the slope is not identifiable), or
**      when a threshold on x separates the classes, completely or with ties
**      at the threshold: max x of one class <= min x of the other (Albert &
**      Anderson 1984; with one covariate and an intercept these are the
**      only cases).  Otherwise the log-likelihood is strictly concave and
**      Newton's method with step halving reaches its maximum.
**   3. The slope fit works on x - mean(x) (the same model, better
**      conditioned) and shifts the intercept back at the end.  Starts: the
**      caller's (calibration_summary starts the slope fit at (citl, 1)),
**      else a = ln(W1/W0), b = 0 (W_y the weight of class y; as rms's
**      lrm.fit), the offset fit a = 0.
**   4. A step moves no linear predictor by more than 30 (where every eta
**      lies far out on one side the likelihood is nearly flat and a full
**      Newton step would leap by 1e20), and is halved until the
**      log-likelihood does not fall.  Stops when an accepted step changes
**      the log-likelihood by at most 1e-12 |LL|, then takes one more Newton
**      step from the derivatives at hand (the quadratic convergence makes
**      that the last digits; a step that would move a linear predictor by
**      more than 1e-6 there is not taken); at
**      most ML_LOGIT_MAX_ITER steps, else ML_LOGIT_NO_CONVERGENCE.  Sums are
**      compensated (Neumaier) and run in the order of the runs, so equal
**      runs give equal bits.  Every tolerance is relative (to |LL|, or to a
**      step in eta), so multiplying every weight by one constant gives the
**      same estimates up to rounding.
**
**   5. ml_logit_cov: the Wald covariance of (a, b) at a fit's estimate,
**      the inverse of the information sum w sigma(eta) sigma(-eta) [1, x]
**      [1, x]' (the offset fit: 1/sum w sigma sigma), which is what R's
**      vcov(glm(..., binomial)) and statsmodels' GLM cov_params() invert at
**      their estimates (frequency weights sum as rows).  The slope fit's
**      information is formed in x - mean(x) (as rule 3) and turned back
**      exactly in algebra: var(a) = var(A) + xc^2 var(b) - 2 xc cov(A, b).
**
** Cost: O(runs) per Newton step, typically 5 to 10 steps, and one pass for
** the covariance; no allocation.
*/
#include <math.h>
#include "ml_core.h"

/* sigma(eta), sigma(-eta) and their logarithms from one exp() and one
** log1p() of -|eta|, each on the side where nothing overflows or cancels. */
typedef struct Sigmoid { double p, q, lp, lq; } Sigmoid;
static void sigmoid(double eta, Sigmoid *o){
  double z = exp(-fabs(eta)), big = 1.0/(1.0 + z), small = z/(1.0 + z), l = log1p(z);
  if( eta>=0.0 ){ o->p = big; o->q = small; o->lp = -l; o->lq = -eta - l; }
  else{ o->p = small; o->q = big; o->lp = eta - l; o->lq = -l; }
}

/* Log-likelihood, gradient and information (the negated Hessian). */
typedef struct LogitEval { double ll, g0, g1, h00, h01, h11; } LogitEval;

/* At (a, b): eta = a + b (x - xc) (slope), or a + x (offset). */
static void logit_eval(const MlLogitRun *r, ml_i64 nRun, int slope, double a, double b, double xc,
                       LogitEval *e){
  MlSum ll = {0, 0}, g0 = {0, 0}, g1 = {0, 0}, h00 = {0, 0}, h01 = {0, 0}, h11 = {0, 0};
  ml_i64 i;
  for(i=0; i<nRun; i++){
    double x = r[i].x, n0 = r[i].w[0], n1 = r[i].w[1];
    double t = slope ? x - xc : 0.0, eta = slope ? a + b*t : a + x;
    Sigmoid g;
    double res, w;
    sigmoid(eta, &g);
    res = n1*g.q - n0*g.p;
    w = (n0 + n1)*(g.p*g.q);
    if( n1>0.0 ) ml_sum_add(&ll, n1*g.lp);
    if( n0>0.0 ) ml_sum_add(&ll, n0*g.lq);
    ml_sum_add(&g0, res);
    ml_sum_add(&h00, w);
    if( slope ){
      ml_sum_add(&g1, res*t);
      ml_sum_add(&h01, w*t);
      ml_sum_add(&h11, w*t*t);
    }
  }
  e->ll = ml_sum_value(&ll);
  e->g0 = ml_sum_value(&g0); e->g1 = ml_sum_value(&g1);
  e->h00 = ml_sum_value(&h00); e->h01 = ml_sum_value(&h01); e->h11 = ml_sum_value(&h11);
}

/* The Newton step from e; 0 when the information is not positive definite. */
static int newton_step(const LogitEval *e, int slope, double *da, double *db){
  if( !slope ){
    if( !(e->h00>0.0) ) return 0;
    *da = e->g0/e->h00;
    *db = 0.0;
    return 1;
  }else{
    double det = e->h00*e->h11 - e->h01*e->h01;
    if( !(det>0.0) ) return 0;
    *da = (e->h11*e->g0 - e->h01*e->g1)/det;
    *db = (e->h00*e->g1 - e->h01*e->g0)/det;
    return isfinite(*da) && isfinite(*db);
  }
}

/* Rule 2: why the data admit no finite estimate, or ML_LOGIT_OK; the
** weighted mean of x to *xc.  (Counts below 2^53 add exactly in doubles:
** the sums here are the integer sums they were when runs held counts.) */
static int logit_check(const MlLogitRun *r, ml_i64 nRun, int slope, double *xc){
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, cnt[2] = {0.0, 0.0};
  ml_i64 i;
  MlSum sx = {0, 0};
  int y;
  for(i=0; i<nRun; i++){
    double x = r[i].x;
    for(y=0; y<2; y++){
      if( !(r[i].w[y]>0.0) ) continue;
      cnt[y] += r[i].w[y];
      if( x<lo[y] ) lo[y] = x;
      if( x>hi[y] ) hi[y] = x;
    }
    ml_sum_add(&sx, (r[i].w[0] + r[i].w[1]) * x);
  }
  *xc = ml_sum_value(&sx) / (cnt[0] + cnt[1]);
  if( cnt[0]==0.0 || cnt[1]==0.0 ) return ML_LOGIT_ONE_CLASS;
  if( !slope ) return ML_LOGIT_OK;
  if( fmin(lo[0], lo[1])==fmax(hi[0], hi[1]) ) return ML_LOGIT_CONSTANT;
  if( hi[0]<=lo[1] || hi[1]<=lo[0] ) return ML_LOGIT_SEPARATED;
  return ML_LOGIT_OK;
}

int ml_logit_fit(const MlLogitRun *r, ml_i64 nRun, int slope, const double *start,
                 double *a, double *b, int *nIter){
  ml_i64 i;
  double n0 = 0.0, n1 = 0.0, A, B = 0.0, xc, da, db, span = 0.0;
  LogitEval e, f;
  int rc = logit_check(r, nRun, slope, &xc), it, k;
  *nIter = 0;
  if( rc ) return rc;
  for(i=0; i<nRun; i++){
    n0 += r[i].w[0]; n1 += r[i].w[1];
    span = fmax(span, fabs(r[i].x - xc));
  }
  if( start ){ A = start[0] + (slope ? start[1]*xc : 0.0); B = slope ? start[1] : 0.0; }
  else A = slope ? log(n1/n0) : 0.0;
  logit_eval(r, nRun, slope, A, B, xc, &e);
  for(it=1; it<=ML_LOGIT_MAX_ITER; it++){
    double lam = 1.0, tol = 1e-12*fabs(e.ll), move;
    int done;
    if( ml_stop_requested() ) return ML_LOGIT_STOPPED;
    if( !newton_step(&e, slope, &da, &db) ) return ML_LOGIT_NO_CONVERGENCE;
    /* where the likelihood is flat (every eta far out on one side) Newton
    ** leaps: move no linear predictor by more than 30 a step */
    move = fabs(da) + fabs(db)*span;
    if( move>30.0 ) lam = 30.0/move;
    /* halve the step until the log-likelihood does not fall (by more than
    ** its rounding: at the maximum a step's change is noise) */
    for(k=0; k<60; k++, lam *= 0.5){
      logit_eval(r, nRun, slope, A + lam*da, B + lam*db, xc, &f);
      if( f.ll >= e.ll - 1e-3*tol ) break;
    }
    if( k==60 ) return ML_LOGIT_NO_CONVERGENCE;
    done = fabs(f.ll - e.ll) <= tol;
    A += lam*da;
    B += lam*db;
    e = f;
    if( done ){
      /* one more step, from the derivatives at hand: the last digits */
      if( newton_step(&e, slope, &da, &db) && fabs(da) + fabs(db)*span <= 1e-6 ){ A += da; B += db; }
      *nIter = it;
      *a = slope ? A - B*xc : A;
      *b = slope ? B : 1.0;
      return ML_LOGIT_OK;
    }
  }
  return ML_LOGIT_NO_CONVERGENCE;
}

int ml_logit_cov(const MlLogitRun *r, ml_i64 nRun, int slope, double a, double b, double *cov){
  double xc, A;
  LogitEval e;
  int rc = logit_check(r, nRun, slope, &xc);
  if( rc ) return rc;
  A = slope ? a + b*xc : a;
  logit_eval(r, nRun, slope, A, slope ? b : 1.0, xc, &e);
  if( !slope ){
    if( !(e.h00>0.0) ) return ML_LOGIT_NO_CONVERGENCE;
    cov[0] = 1.0/e.h00;
    cov[1] = cov[2] = NAN;
  }else{
    double det = e.h00*e.h11 - e.h01*e.h01, vA, vB, cAB;
    if( !(det>0.0) ) return ML_LOGIT_NO_CONVERGENCE;
    vA = e.h11/det; vB = e.h00/det; cAB = -e.h01/det;
    cov[0] = vA + xc*xc*vB - 2.0*xc*cAB;   /* a = A - b xc */
    cov[1] = vB;
    cov[2] = cAB - xc*vB;
  }
  return ML_LOGIT_OK;
}
