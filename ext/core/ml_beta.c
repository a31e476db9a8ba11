/*
** SPDX-License-Identifier: MIT
**
** ml_beta.c -- the regularized incomplete beta function I_x(a, b) and its
** inverse, for the exact (Clopper-Pearson) binomial interval of
** confusion_ci (ranking.c): the bounds of x successes in n trials are
** beta quantiles, lo = Q(alpha/2; x, n - x + 1) and
** hi = Q(1 - alpha/2; x + 1, n - x).
**
** Provides: ml_beta_cdf, ml_beta_sf (the lower and the upper tail),
** ml_beta_quantile, ml_beta_isf (their inverses), and ml_beta_cf (the
** continued fraction, which ml_dist.c's Student-t tail shares).  Pure C,
** libm only.
**
** Rules:
**   1. I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * CF, the continued fraction
**      (modified Lentz) evaluated on the side of the mean where it
**      converges fast, x < (a + 1)/(a + b + 2); on the other side
**      I_x(a, b) = 1 - I_{1-x}(b, a).  The tail asked for is computed
**      directly where it is the small one, never as 1 minus a value near 1.
**   2. The front factor's logarithm is where the digits go for large a, b
**      (a ln x and ln B(a, b) are each about n ln 2 and cancel).  With
**      a, b >= 10 it is written, after Stirling, as
**        -a rlog1(u) - b rlog1(v) + ln sqrt(a b / (a + b)) - ln sqrt(2 pi)
**        - (delta(a) + delta(b) - delta(a + b)),
**      u = (x (a + b) - a)/a, v = -u a/b, rlog1(t) = t - ln(1 + t) summed
**      without cancellation, delta Stirling's correction to lgamma
**      (DiDonato & Morris 1992, TOMS 708).  With one of a, b below 10,
**      ln B(a, b) takes lgamma of the small one and the difference
**      lgamma(L) - lgamma(L + s) by the same expansion, so no two large
**      lgamma values are subtracted.
**   3. The inverse: closed forms for a = 1 and b = 1; otherwise Newton's
**      method on the logarithm of the tail asked for, from Cornish-Fisher's
**      start (Numerical Recipes 6.4), kept inside a bracket that shrinks
**      with every step; a step that leaves the bracket is taken on ln x
**      (or ln(1 - x)) instead, and bisection is the last resort.  Relative
**      error about 1e-14 for the integer shapes of Clopper-Pearson, below
**      1e-13 for any shape (tests/check_beta.c: against 50-digit values,
**      a and b from 0.5 to 10^9).
**   4. 1 - x is rounded when x < 1/2: there, for an integer a (every
**      Clopper-Pearson bound), the upper tail is the binomial sum
**      sum_{j<a} C(a+b-1, j) x^j (1-x)^(a+b-1-j), all terms positive,
**      instead of the fraction in 1 - x, which loses about b/a ulps.
**
** Cost: O(sqrt(max(a, b))) terms of the continued fraction per evaluation
** near the mean, a handful of evaluations per quantile.
*/
#include <float.h>
#include <math.h>
#include "ml_core.h"

#define LN_SQRT_2PI 0.91893853320467274178032973640562

/* Stirling's correction: lgamma(z) - [(z - 1/2) ln z - z + ln sqrt(2 pi)],
** z >= 10 (the first omitted term is below 2e-18 there). */
static double stirling_delta(double z){
  double r = 1.0/z, r2 = r*r;
  return r*(1.0/12 + r2*(-1.0/360 + r2*(1.0/1260 + r2*(-1.0/1680 + r2*(1.0/1188
         + r2*(-691.0/360360 + r2*(1.0/156 + r2*(-3617.0/122400))))))));
}

/* t - ln(1 + t), t > -1, without the cancellation of the two terms near 0:
** with r = t/(2 + t), ln(1 + t) = 2 (r + r^3/3 + r^5/5 + ...) and t - 2r = r t. */
static double rlog1(double t){
  if( t>=-0.39 && t<=0.57 ){
    double r = t/(2.0 + t), r2 = r*r, term = r*r2, sum = 0.0;
    int k;
    for(k=3; k<120; k+=2){
      double q = term/(double)k;
      sum += q;
      if( fabs(q) <= 1e-17*fabs(sum) ) break;
      term *= r2;
    }
    return r*t - 2.0*sum;
  }
  return t - log1p(t);
}

/* ln B(a, b) with min(a, b) < 10 (rule 2). */
static double log_beta_small(double a, double b){
  double s = a<b ? a : b, L = a<b ? b : a;
  if( L<10.0 ) return lgamma(a) + lgamma(b) - lgamma(a + b);
  /* lgamma(L) - lgamma(L + s) = -(L - 1/2) ln(1 + s/L) - s ln(L + s) + s
  **                             + delta(L) - delta(L + s) */
  return lgamma(s) - (L - 0.5)*log1p(s/L) - s*log(L + s) + s
         + stirling_delta(L) - stirling_delta(L + s);
}

/* ln( x^a (1 - x)^b / B(a, b) ), 0 < x < 1 (rule 2). */
static double log_front(double x, double a, double b){
  double lx = log(x), l1x = log1p(-x);
  if( a>=10.0 && b>=10.0 ){
    double ab = a + b;
    double dev = fma(x, ab, -a);          /* x (a + b) - a, rounded once */
    double u = dev/a, v = -dev/b, ta, tb;
    /* far from the mean ln(1 + u) is taken from ln x itself */
    ta = u < -0.5 ? u - (lx + log1p(b/a)) : rlog1(u);
    tb = v < -0.5 ? v - (l1x + log1p(a/b)) : rlog1(v);
    return -(a*ta + b*tb) + 0.5*(log(a) + log(b) - log(ab)) - LN_SQRT_2PI
           - (stirling_delta(a) + stirling_delta(b) - stirling_delta(ab));
  }
  return a*lx + b*l1x - log_beta_small(a, b);
}

/* The continued fraction of I_x(a, b) (modified Lentz), x < (a+1)/(a+b+2):
** until a step moves it by at most DBL_EPSILON, or 1000 + 50 sqrt(max(a, b))
** steps.  Also ml_t_sf's (ml_dist.c). */
double ml_beta_cf(double x, double a, double b){
  const double tiny = 1e-300;
  double qab = a + b, qap = a + 1.0, qam = a - 1.0, c = 1.0, d, h;
  double m, mMax = 1000.0 + 50.0*sqrt(a > b ? a : b);
  d = 1.0 - qab*x/qap;
  if( fabs(d)<tiny ) d = tiny;
  d = 1.0/d;
  h = d;
  for(m=1.0; m<=mMax; m+=1.0){
    double m2 = 2.0*m, aa, del;
    aa = m*(b - m)*x/((qam + m2)*(a + m2));
    d = 1.0 + aa*d; if( fabs(d)<tiny ) d = tiny;
    c = 1.0 + aa/c; if( fabs(c)<tiny ) c = tiny;
    d = 1.0/d;
    h *= d*c;
    aa = -(a + m)*(qab + m)*x/((a + m2)*(qap + m2));
    d = 1.0 + aa*d; if( fabs(d)<tiny ) d = tiny;
    c = 1.0 + aa/c; if( fabs(c)<tiny ) c = tiny;
    d = 1.0/d;
    del = d*c;
    h *= del;
    if( fabs(del - 1.0) <= DBL_EPSILON ) break;
  }
  return h;
}

/* 1 - I_x(a, b) for an integer a, as the binomial sum
** sum_{j < a} C(a+b-1, j) x^j (1-x)^(a+b-1-j), taken downward from its
** term j = a - 1, which is the front over b x.  For x past the mean the
** terms fall from there on: O(sqrt(a)) of them matter. */
static double beta_upper_binomial(double x, double a, double b){
  double n = a + b - 1.0, r = (1.0 - x)/x, term = exp(log_front(x, a, b))/(b*x), sum = 0.0, j;
  for(j=a-1.0; j>=0.0; j-=1.0){
    sum += term;
    if( term <= 1e-17*sum ) break;
    term *= j/(n - j + 1.0) * r;
  }
  return sum;
}

/* The lower (upper 0) or upper (upper 1) tail at x, a, b > 0. */
static double beta_tail(double x, double a, double b, int upper){
  double t;
  if( !(x>0.0) ) return upper ? 1.0 : 0.0;
  if( !(x<1.0) ) return upper ? 0.0 : 1.0;
  if( x < (a + 1.0)/(a + b + 2.0) ){
    t = exp(log_front(x, a, b)) * ml_beta_cf(x, a, b) / a;       /* the lower tail */
    return upper ? 1.0 - t : t;
  }
  if( x<0.5 && a==floor(a) ){
    /* 1 - x is rounded, and the fraction in 1 - x cancels digits in about
    ** b/a proportion (relative error 1e-11 at a = 65, b = 10^7): for an
    ** integer a (every use in mleval) the binomial sum has no such loss */
    t = beta_upper_binomial(x, a, b);
    return upper ? t : 1.0 - t;
  }
  /* the front is symmetric, x^a (1-x)^b / B(a, b) = y^b (1-y)^a / B(b, a):
  ** taken at x itself, as 1 - x may be rounded */
  t = exp(log_front(x, a, b)) * ml_beta_cf(1.0 - x, b, a) / b;       /* the upper tail */
  return upper ? t : 1.0 - t;
}

double ml_beta_cdf(double x, double a, double b){ return beta_tail(x, a, b, 0); }
double ml_beta_sf(double x, double a, double b){ return beta_tail(x, a, b, 1); }

/* The density at 0 < x < 1. */
static double beta_pdf(double x, double a, double b){
  return exp(log_front(x, a, b)) / (x*(1.0 - x));
}

/* Numerical Recipes' starting point for the quantile whose lower tail is
** p (upper 0) or whose upper tail is p (upper 1). */
static double beta_start(double p, double a, double b, int upper){
  double pp = p<=0.5 ? p : 1.0 - p;             /* the smaller tail */
  int below = (p<=0.5) != upper;                /* the quantile lies below the median */
  double x;
  if( a>=1.0 && b>=1.0 ){
    double t = sqrt(-2.0*log(pp)), z, al, h, w;
    z = (2.30753 + t*0.27061)/(1.0 + t*(0.99229 + t*0.04481)) - t;
    if( below ) z = -z;
    al = (z*z - 3.0)/6.0;
    h = 2.0/(1.0/(2.0*a - 1.0) + 1.0/(2.0*b - 1.0));
    w = z*sqrt(al + h)/h - (1.0/(2.0*b - 1.0) - 1.0/(2.0*a - 1.0))*(al + 5.0/6.0 - 2.0/(3.0*h));
    x = a/(a + b*exp(2.0*w));
  }else{
    double lna = log(a/(a + b)), lnb = log(b/(a + b));
    double t = exp(a*lna)/a, u = exp(b*lnb)/b, w = t + u;
    double pl = upper ? 1.0 - p : p;
    if( pl < t/w ) x = pow(a*w*pl, 1.0/a);
    else x = 1.0 - pow(b*w*(1.0 - pl), 1.0/b);
  }
  if( !(x>0.0 && x<1.0) ) x = 0.5;
  return x;
}

/* x with the lower (upper 0) or upper (upper 1) tail equal to p, 0 < p < 1. */
static double beta_solve(double p, double a, double b, int upper){
  double lo = 0.0, hi = 1.0, x, lp = log(p);
  int i;
  /* closed forms: I_x(1, b) = 1 - (1 - x)^b, I_x(a, 1) = x^a */
  if( a==1.0 ) return -expm1((upper ? log(p) : log1p(-p))/b);
  if( b==1.0 ) return exp((upper ? log1p(-p) : log(p))/a);
  x = beta_start(p, a, b, upper);
  for(i=0; i<200; i++){
    double t = beta_tail(x, a, b, upper), xn, m;
    if( t==p ) return x;
    /* the lower tail grows with x, the upper shrinks */
    if( (t<p) != (upper!=0) ) lo = x; else hi = x;
    xn = -1.0;
    if( t>0.0 ){
      double dx = -(log(t) - lp) * t / beta_pdf(x, a, b);
      if( upper ) dx = -dx;
      m = x < 1.0 - x ? x : 1.0 - x;
      /* Newton converges quadratically: after a step this small the error
      ** left is far below the rounding of the tail itself */
      if( fabs(dx) <= 1e-12*m ) return x + dx;
      xn = x + dx;
      if( !(xn>lo && xn<hi) ){
        /* the same Newton step on ln x (downward) or ln(1 - x) (upward):
        ** it never crosses 0 or 1 */
        xn = dx<0.0 ? x*exp(dx/x) : 1.0 - (1.0 - x)*exp(-dx/(1.0 - x));
      }
    }
    if( !(xn>lo && xn<hi) ){
      /* bisection, geometric towards an end that is still 0 or 1 */
      if( lo==0.0 ) xn = hi*0.0625;
      else if( hi==1.0 ) xn = 1.0 - (1.0 - lo)*0.0625;
      else xn = 0.5*(lo + hi);
    }
    x = xn;
    m = x < 1.0 - x ? x : 1.0 - x;
    if( hi - lo <= 4.0*DBL_EPSILON*m ) break;
  }
  return x;
}

double ml_beta_quantile(double p, double a, double b){
  if( !(p>0.0) ) return 0.0;
  if( !(p<1.0) ) return 1.0;
  return p<=0.5 ? beta_solve(p, a, b, 0) : beta_solve(1.0 - p, a, b, 1);
}

double ml_beta_isf(double q, double a, double b){
  if( !(q>0.0) ) return 1.0;
  if( !(q<1.0) ) return 0.0;
  return q<=0.5 ? beta_solve(q, a, b, 1) : beta_solve(1.0 - q, a, b, 0);
}
