/*
** ml_logit.c -- maximum-likelihood logistic regression of a binary label
** on one covariate, over runs of rows that share the covariate.
** SPDX-License-Identifier: MIT
**
** Provides ml_logit_calib() (and the single fit ml_logit_fit() and
** ml_logit_cov()), behind calibration_summary's and calibration_summary_w's
** calibration intercept and slope (y on logit(p)) and calibration-in-the-
** large (y with logit(p) as an offset), with their Wald covariances, in
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
**      caller's, else a = ln(W1/W0), b = 0 (W_y the weight of class y; as
**      rms's lrm.fit), the offset fit a = 0.  ml_logit_calib (rule 6)
**      starts the offset fit at the caller's closed-form first step and
**      the slope fit where the offset fit's last evaluation is.
**   4. Newton's method.  A full step is tried first when it moves no linear
**      predictor by more than 30, and kept when it at least halves the
**      Newton decrement g'H^-1 g at the new point: that evaluation needs
**      no logarithm (sigma from one exp and one division).  Otherwise the
**      safeguarded step: the log-likelihood at hand, the step capped so
**      that no linear predictor moves by more than 30 (where every eta lies
**      far out on one side the likelihood is nearly flat and a full step
**      would leap by 1e20) and halved until the log-likelihood does not
**      fall; there a change of at most 1e-12 |LL| ends the fit with one more
**      Newton step from the derivatives at hand (at most 1e-6 in eta).
**      The fit ends at a step that moves no linear predictor by more than
**      1e-10, or, in the quadratic phase (the step before was a full one,
**      this one moves by m <= 3e-6 and m <= 10 m_prev^2), at this step plus
**      its second-order (Chebyshev) correction from the third-derivative
**      sums at hand: the error left is of order m^3, under 1e-17; no
**      evaluation at the end point is needed.  At most ML_LOGIT_MAX_ITER
**      steps, else ML_LOGIT_NO_CONVERGENCE.  Sums of the gradient and
**      information are compensated (Neumaier) and run in the order of the
**      runs, so equal runs give equal bits.  Every tolerance is relative
**      (to |LL|, or a move in eta), so multiplying every weight by one
**      constant gives the same estimates up to rounding.
**   5. ml_logit_cov: the Wald covariance of (a, b) at a fit's estimate,
**      the inverse of the information sum w sigma(eta) sigma(-eta) [1, x]
**      [1, x]' (the offset fit: 1/sum w sigma sigma), which is what R's
**      vcov(glm(..., binomial)) and statsmodels' GLM cov_params() invert at
**      their estimates (frequency weights sum as rows).  The slope fit's
**      information is formed in x - mean(x) (as rule 3) and turned back
**      exactly in algebra: var(a) = var(A) + xc^2 var(b) - 2 xc cov(A, b).
**      In a fit (rule 6) the information is the last evaluation's, moved
**      to the estimate by the last step to first order (the sums of
**      w sigma sigma' (sigma' - sigma) t^j, j = 0..3, plain sums), which
**      leaves an error of order m^2 <= 1e-11 relative.
**   6. ml_logit_calib: calibration_summary's two fits in one go, the
**      offset fit (citl) from the caller's a0 (its first Newton step from
**      0, made from sums the caller has) summing the slope fit's terms too,
**      then the slope fit from the offset fit's last evaluation, which
**      already is at (citl, 1): typically 7 passes over the runs for both
**      fits and both covariances (issue 36 item 2; there were 11 for the
**      fits, each with a log1p, and 2 more for the covariances).
**
** Cost: O(runs) per evaluation (an exp, a division, six compensated and
** four plain sums per run; a log1p more on the safeguarded path);
** ml_logit_calib typically 7 evaluations for both fits and their
** covariances; no allocation.
*/
#include <math.h>
#include "ml_core.h"

/* sigma(eta), sigma(-eta) and their logarithms from one exp() and one
** log1p() of -|eta|, each on the side where nothing overflows or cancels. */
typedef struct Sigmoid { double p, q, lp, lq; } Sigmoid;
static void sigmoid(double eta, Sigmoid *o){
  double z = exp(-fabs(eta)), big = 1.0/(1.0 + z), small = z*big, l = log1p(z);
  if( eta>=0.0 ){ o->p = big; o->q = small; o->lp = -l; o->lq = -eta - l; }
  else{ o->p = small; o->q = big; o->lp = eta - l; o->lq = -l; }
}

/* Log-likelihood, gradient and information (the negated Hessian). */
/* t0..t3: sum w sigma sigma' (sigma' - sigma) t^j, the information's
** derivative along eta, plain sums: they only correct the information by
** a last step's move (rule 5). */
typedef struct LogitEval { double ll, g0, g1, h00, h01, h11, t0, t1, t2, t3; } LogitEval;

/* At (a, b): eta = a + b (x - xc) (slope), or a + x (offset).  wantLL 0
** leaves e->ll 0 and skips the logarithms (ml_logit_calib's full Newton
** steps need none); sums 1 accumulates the slope fit's t-sums even for the
** offset fit (t = x - xc), so that its last evaluation starts the slope fit. */
static void logit_eval_ex(const MlLogitRun *r, ml_i64 nRun, int slope, double a, double b, double xc,
                          int wantLL, int sums, LogitEval *e){
  MlSum ll = {0, 0}, g0 = {0, 0}, g1 = {0, 0}, h00 = {0, 0}, h01 = {0, 0}, h11 = {0, 0};
  double t0 = 0.0, t1 = 0.0, t2 = 0.0, t3 = 0.0;
  ml_i64 i;
  for(i=0; i<nRun; i++){
    double x = r[i].x, n0 = r[i].w[0], n1 = r[i].w[1];
    double t = slope || sums ? x - xc : 0.0, eta = slope ? a + b*t : a + x;
    Sigmoid g;
    double res, w;
    if( wantLL ){
      sigmoid(eta, &g);
      if( n1>0.0 ) ml_sum_add(&ll, n1*g.lp);
      if( n0>0.0 ) ml_sum_add(&ll, n0*g.lq);
    }else{
      double z = exp(-fabs(eta)), big = 1.0/(1.0 + z), small = z*big;
      if( eta>=0.0 ){ g.p = big; g.q = small; }else{ g.p = small; g.q = big; }
    }
    res = n1*g.q - n0*g.p;
    w = (n0 + n1)*(g.p*g.q);
    ml_sum_add(&g0, res);
    ml_sum_add(&h00, w);
    {
      double d = w*(g.q - g.p);
      t0 += d;
      if( slope || sums ){
        double dt = d*t;
        ml_sum_add(&g1, res*t);
        ml_sum_add(&h01, w*t);
        ml_sum_add(&h11, w*t*t);
        t1 += dt; t2 += dt*t; t3 += dt*t*t;
      }
    }
  }
  e->t0 = t0; e->t1 = t1; e->t2 = t2; e->t3 = t3;
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

/* The largest move of a linear predictor (|da| + |db| span) at which a
** Newton step ends a fit (rule 4): the step is taken and the information at
** hand, from before it, is the estimate's to within this relative amount
** (w = sigma sigma' moves by at most |d eta| relative). */
#define FINAL_MOVE 1e-10

/* Newton's method from (*pA, *pB), whose derivatives e holds (its ll only
** when hasLL), to the maximum (rule 4).  On ML_LOGIT_OK: *pA, *pB the
** estimate; e the derivatives at the last iterate, before the last step
** d[0], d[1] (0 when none was taken), whose move goes to *lastMove.  sums: the offset fit also sums the slope
** fit's terms, so that its e starts the slope fit.  *nEval counts passes. */
static int newton_fit(const MlLogitRun *r, ml_i64 nRun, int slope, double xc, double span, int sums,
                      double *pA, double *pB, LogitEval *e, int hasLL, double *lastMove, double *d,
                      int *nEval){
  double A = *pA, B = *pB, da, db, fa, fb, prev = 0.0;
  LogitEval f;
  int it, k;
  for(it=1; it<=ML_LOGIT_MAX_ITER; it++){
    double lam = 1.0, tol, move;
    int done;
    if( ml_stop_requested() ) return ML_LOGIT_STOPPED;
    if( !newton_step(e, slope, &da, &db) ) return ML_LOGIT_NO_CONVERGENCE;
    move = fabs(da) + fabs(db)*span;
    /* the last step: one that moves no linear predictor by more than
    ** FINAL_MOVE, or, in the quadratic phase (a full Newton step before
    ** this one, and this one's move m at most 3e-6 and 10 times the last
    ** move squared), this step plus its second-order correction (the
    ** gradient the step leaves, -1/2 sum D (da + db t)^2 [1, t] with D the
    ** t-sums' weights, solved by the same information): what is left is of
    ** order m^3, below 1e-16 (rule 4) */
    if( move<=FINAL_MOVE || (prev>0.0 && move<=3e-6 && move<=10.0*prev*prev) ){
      if( move>FINAL_MOVE ){
        LogitEval c = *e;
        double ca, cb;
        c.g0 = -0.5*(da*da*e->t0 + 2.0*da*db*e->t1 + db*db*e->t2);
        c.g1 = -0.5*(da*da*e->t1 + 2.0*da*db*e->t2 + db*db*e->t3);
        if( newton_step(&c, slope, &ca, &cb) ){ da += ca; db += cb; }
      }
      *lastMove = move; d[0] = da; d[1] = db; A += da; B += db;
      break;
    }
    prev = 0.0;
    if( move<=30.0 ){
      /* the full step, kept when it at least halves the Newton decrement
      ** g'H^-1 g (no logarithm needed): where Newton converges, it does */
      double dec = da*e->g0 + db*e->g1;
      logit_eval_ex(r, nRun, slope, A + da, B + db, xc, 0, sums, &f);
      (*nEval)++;
      if( newton_step(&f, slope, &fa, &fb) && fa*f.g0 + fb*f.g1 <= 0.5*dec ){
        A += da; B += db; *e = f; hasLL = 0;
        prev = move;
        continue;
      }
    }
    /* else the safeguarded step: the log-likelihood at hand, no linear
    ** predictor moved by more than 30, halved until it does not fall (by
    ** more than its rounding: at the maximum a step's change is noise) */
    if( !hasLL ){ logit_eval_ex(r, nRun, slope, A, B, xc, 1, sums, e); (*nEval)++; hasLL = 1; }
    tol = 1e-12*fabs(e->ll);
    if( move>30.0 ) lam = 30.0/move;
    for(k=0; k<60; k++, lam *= 0.5){
      logit_eval_ex(r, nRun, slope, A + lam*da, B + lam*db, xc, 1, sums, &f);
      (*nEval)++;
      if( f.ll >= e->ll - 1e-3*tol ) break;
    }
    if( k==60 ) return ML_LOGIT_NO_CONVERGENCE;
    done = fabs(f.ll - e->ll) <= tol;
    A += lam*da;
    B += lam*db;
    *e = f;
    if( done ){
      /* one more step, from the derivatives at hand: the last digits (a
      ** step that would move a linear predictor by more than 1e-6 there is
      ** not taken) */
      *lastMove = 0.0; d[0] = d[1] = 0.0;
      if( newton_step(e, slope, &da, &db) && (move = fabs(da) + fabs(db)*span)<=1e-6 ){
        A += da; B += db; *lastMove = move; d[0] = da; d[1] = db;
      }
      break;
    }
  }
  if( it>ML_LOGIT_MAX_ITER ) return ML_LOGIT_NO_CONVERGENCE;
  *pA = A;
  *pB = B;
  return ML_LOGIT_OK;
}

/* The covariance of rule 5 from the information in e (the slope fit's
** centred at xc), moved to the estimate by the last step d: to first
** order, I + sum w sigma sigma' (sigma' - sigma) (da + db t) [1, t][1, t]'
** (the step's square, at most FINAL_MOVE^2 or 1e-12 relative, is what it
** leaves out).  ML_LOGIT_OK or ML_LOGIT_NO_CONVERGENCE. */
static int cov_of(const LogitEval *e, int slope, double xc, const double *d, double *cov){
  double da = d ? d[0] : 0.0, db = d && slope ? d[1] : 0.0;
  double h00 = e->h00 + da*e->t0 + db*e->t1;
  if( !slope ){
    if( !(h00>0.0) ) return ML_LOGIT_NO_CONVERGENCE;
    cov[0] = 1.0/h00;
    cov[1] = cov[2] = NAN;
  }else{
    double h01 = e->h01 + da*e->t1 + db*e->t2, h11 = e->h11 + da*e->t2 + db*e->t3;
    double det = h00*h11 - h01*h01, vA, vB, cAB;
    if( !(det>0.0) ) return ML_LOGIT_NO_CONVERGENCE;
    vA = h11/det; vB = h00/det; cAB = -h01/det;
    cov[0] = vA + xc*xc*vB - 2.0*xc*cAB;   /* a = A - b xc */
    cov[1] = vB;
    cov[2] = cAB - xc*vB;
  }
  return ML_LOGIT_OK;
}

/* The largest |x - xc| over the runs. */
static double span_of(const MlLogitRun *r, ml_i64 nRun, double xc){
  double span = 0.0;
  ml_i64 i;
  for(i=0; i<nRun; i++) span = fmax(span, fabs(r[i].x - xc));
  return span;
}

int ml_logit_fit(const MlLogitRun *r, ml_i64 nRun, int slope, const double *start,
                 double *a, double *b, int *nIter){
  ml_i64 i;
  double n0 = 0.0, n1 = 0.0, A, B = 0.0, xc, span, last, d[2];
  LogitEval e;
  int rc = logit_check(r, nRun, slope, &xc);
  *nIter = 0;
  if( rc ) return rc;
  for(i=0; i<nRun; i++){ n0 += r[i].w[0]; n1 += r[i].w[1]; }
  span = span_of(r, nRun, xc);
  if( start ){ A = start[0] + (slope ? start[1]*xc : 0.0); B = slope ? start[1] : 0.0; }
  else A = slope ? log(n1/n0) : 0.0;
  logit_eval_ex(r, nRun, slope, A, B, xc, 0, 0, &e);
  *nIter = 1;
  rc = newton_fit(r, nRun, slope, xc, span, 0, &A, &B, &e, 0, &last, d, nIter);
  if( rc ) return rc;
  *a = slope ? A - B*xc : A;
  *b = slope ? B : 1.0;
  return ML_LOGIT_OK;
}

int ml_logit_calib(const MlLogitRun *r, ml_i64 nRun, double a0, MlLogitCalib *o){
  double xc, span, A, B, last, d[2];
  LogitEval e;
  int sums, rc;
  o->nEval = 0;
  o->citl = o->varCitl = o->a = o->b = NAN;
  o->cov[0] = o->cov[1] = o->cov[2] = NAN;
  o->rcSlope = logit_check(r, nRun, 1, &xc);
  o->rcCitl = logit_check(r, nRun, 0, &xc);
  if( o->rcCitl ) return ML_LOGIT_OK;         /* one class: neither fit */
  span = span_of(r, nRun, xc);
  sums = o->rcSlope==ML_LOGIT_OK;
  /* calibration-in-the-large from the caller's start (its first Newton
  ** step from 0, made from sums the caller has: no pass), capped at 30 */
  A = fmax(-30.0, fmin(30.0, isfinite(a0) ? a0 : 0.0));
  B = 1.0;
  logit_eval_ex(r, nRun, 0, A, B, xc, 0, sums, &e);
  o->nEval++;
  rc = newton_fit(r, nRun, 0, xc, span, sums, &A, &B, &e, 0, &last, d, &o->nEval);
  if( rc==ML_LOGIT_STOPPED ) return rc;
  if( rc==ML_LOGIT_OK ) rc = cov_of(&e, 0, xc, d, o->cov);
  o->rcCitl = rc;
  if( rc==ML_LOGIT_OK ){ o->citl = A; o->varCitl = o->cov[0]; }
  if( !sums ) return ML_LOGIT_OK;
  /* the slope fit starts at (citl, 1), where the offset fit's last
  ** evaluation already is (eta = a + x); else where rule 3 says */
  if( rc==ML_LOGIT_OK ){
    A = A - d[0] + xc;          /* eta = A + (x - xc): e's point, before the last step */
    B = 1.0;
  }else{
    double n0 = 0.0, n1 = 0.0;
    ml_i64 i;
    for(i=0; i<nRun; i++){ n0 += r[i].w[0]; n1 += r[i].w[1]; }
    A = log(n1/n0); B = 0.0;
    logit_eval_ex(r, nRun, 1, A, B, xc, 0, 0, &e);
    o->nEval++;
  }
  rc = newton_fit(r, nRun, 1, xc, span, 0, &A, &B, &e, 0, &last, d, &o->nEval);
  if( rc==ML_LOGIT_STOPPED ) return rc;
  if( rc==ML_LOGIT_OK ) rc = cov_of(&e, 1, xc, d, o->cov);
  o->rcSlope = rc;
  if( rc==ML_LOGIT_OK ){ o->a = A - B*xc; o->b = B; }
  else o->cov[0] = o->cov[1] = o->cov[2] = NAN;
  return ML_LOGIT_OK;
}

int ml_logit_cov(const MlLogitRun *r, ml_i64 nRun, int slope, double a, double b, double *cov){
  double xc;
  LogitEval e;
  int rc = logit_check(r, nRun, slope, &xc);
  if( rc ) return rc;
  logit_eval_ex(r, nRun, slope, slope ? a + b*xc : a, slope ? b : 1.0, xc, 0, 0, &e);
  return cov_of(&e, slope, xc, 0, cov);
}
