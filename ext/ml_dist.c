/*
** ml_dist.c -- the normal and Student-t distributions the intervals need.
** SPDX-License-Identifier: MIT
**
** Provides: ml_norm_cdf, ml_norm_quantile (BCa, DeLong), ml_t_sf and
** ml_t_quantile (mean_ci).  No new dependency: libm's erfc, lgamma, log1p.
**
** Rules:
**   1. Phi(x) = erfc(-x/sqrt 2)/2.  Phi^-1 starts from Acklam's rational
**      approximation (relative error 1.15e-9) and takes two Halley steps
**      against erfc, which brings it to full double precision; the lower
**      tail is solved directly and the upper by symmetry, so tails keep
**      their relative accuracy.
**   2. P(T > t) = I_x(df/2, 1/2)/2 with x = df/(df + t^2), the regularized
**      incomplete beta by its continued fraction (modified Lentz), and by
**      1 - I_{1-x}(1/2, df/2) on the other side of the mean, 1 - x computed
**      as t^2/(df + t^2) so no digit cancels.  ln B(df/2, 1/2) for df >= 20
**      uses the Stirling series of the difference lgamma(a) - lgamma(a+1/2)
**      with log1p (lgamma's own values are too large there to subtract).
**   3. The t quantile: exact formulas for df = 1 and 2; otherwise Newton on
**      ln P(T > t) from the Cornish-Fisher start, kept inside a bracket that
**      bisection shrinks when a step leaves it.  Agrees with scipy.stats.t to
**      1e-12 relative (tests/test_uncertainty.py).
**
** Cost: O(sqrt(df)) per tail probability, a few dozen for a quantile.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_core.h"

#define ML_PI 3.14159265358979323846

double ml_norm_cdf(double x){
  return 0.5 * erfc(-x / 1.41421356237309504880);
}

/* Acklam's approximation of Phi^-1(p), p in (0, 0.5]. */
static double acklam_lower(double p){
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  if( p < 0.02425 ){
    double q = sqrt(-2.0*log(p));
    return (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q+c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q+1.0);
  }else{
    double q = p - 0.5, r = q*q;
    return (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r+a[5])*q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r+1.0);
  }
}

double ml_norm_quantile(double p){
  double x;
  int i;
  if( !(p>0.0) ) return -INFINITY;
  if( !(p<1.0) ) return INFINITY;
  if( p>0.5 ) return -ml_norm_quantile(1.0 - p);
  x = acklam_lower(p);
  for(i=0; i<2; i++){
    /* Halley: e = Phi(x) - p, u = e / phi(x) */
    double e = ml_norm_cdf(x) - p;
    double u = e * 2.50662827463100050242 * exp(0.5*x*x);
    x = x - u / (1.0 + 0.5*x*u);
  }
  return x;
}

/* ----------------------------------------------------------- Student t */

/* ln B(a, 1/2). */
static double lbeta_half(double a){
  if( a < 10.0 ) return lgamma(a) + lgamma(0.5) - lgamma(a + 0.5);
  {
    /* lgamma(a) - lgamma(a + 1/2) by Stirling:
    **   (a - 1/2) ln a - a - [a ln(a + 1/2) - (a + 1/2)] + sum_k c_k (a^-(2k-1) - (a+1/2)^-(2k-1))
    ** = -ln(a)/2 - a log1p(1/(2a)) + 1/2 + ... */
    static const double c[] = {1.0/12.0, -1.0/360.0, 1.0/1260.0, -1.0/1680.0, 1.0/1188.0};
    double b = a + 0.5, d = -0.5*log(a) - a*log1p(0.5/a) + 0.5;
    double ia = 1.0/a, ib = 1.0/b, pa = ia, pb = ib;
    int k;
    for(k=0; k<5; k++){
      d += c[k]*(pa - pb);
      pa *= ia*ia; pb *= ib*ib;
    }
    return d + 0.57236494292470008707;       /* + lgamma(1/2) = ln sqrt(pi) */
  }
}

/* Continued fraction of I_x(a, b) (Numerical Recipes' betacf, modified Lentz). */
static double betacf(double a, double b, double x){
  const double FPMIN = 1e-300, EPS = 1e-16;
  double qab = a + b, qap = a + 1.0, qam = a - 1.0, c = 1.0, d = 1.0 - qab*x/qap, h;
  int m;
  if( fabs(d)<FPMIN ) d = FPMIN;
  d = 1.0/d;
  h = d;
  for(m=1; m<=100000; m++){
    double m2 = 2.0*m, aa = m*(b - m)*x/((qam + m2)*(a + m2)), del;
    d = 1.0 + aa*d; if( fabs(d)<FPMIN ) d = FPMIN;
    c = 1.0 + aa/c; if( fabs(c)<FPMIN ) c = FPMIN;
    d = 1.0/d;
    h *= d*c;
    aa = -(a + m)*(qab + m)*x/((a + m2)*(qap + m2));
    d = 1.0 + aa*d; if( fabs(d)<FPMIN ) d = FPMIN;
    c = 1.0 + aa/c; if( fabs(c)<FPMIN ) c = FPMIN;
    d = 1.0/d;
    del = d*c;
    h *= del;
    if( fabs(del - 1.0) < EPS ) break;
  }
  return h;
}

double ml_t_sf(double t, double df){
  double a = 0.5*df, t2, x, xc, lb, front;
  if( isnan(t) ) return NAN;
  if( t<0.0 ) return 1.0 - ml_t_sf(-t, df);
  if( isinf(t) ) return 0.0;
  t2 = t*t;
  x = df/(df + t2);
  xc = t2/(df + t2);
  lb = lbeta_half(a);
  /* x^a (1-x)^(1/2) / B(a, 1/2) */
  front = exp(a*log(x) + 0.5*log(xc) - lb);
  if( x < (a + 1.0)/(a + 2.5) ){
    return 0.5 * front * betacf(a, 0.5, x) / a;                 /* the tail */
  }
  return 0.5 * (1.0 - front * betacf(0.5, a, xc) / 0.5);        /* near the middle */
}

/* Density of t. */
static double t_pdf(double t, double df){
  return exp(-lbeta_half(0.5*df) - 0.5*log(df) - 0.5*(df + 1.0)*log1p(t*t/df));
}

/* t > 0 with P(T > t) = q, q in (0, 0.5). */
static double t_isf_upper(double q, double df){
  double z, t, lo = 0.0, hi = INFINITY;
  int i;
  if( df==1.0 ) return 1.0/tan(ML_PI*q);
  if( df==2.0 ) return (1.0 - 2.0*q)/sqrt(2.0*q*(1.0 - q));
  z = -ml_norm_quantile(q);
  t = z + (z*z*z + z)/(4.0*df) + (5.0*pow(z, 5) + 16.0*z*z*z + 3.0*z)/(96.0*df*df);
  if( !(t>0.0) ) t = z;
  for(i=0; i<200; i++){
    double sf = ml_t_sf(t, df), step, tn;
    if( sf > q ) lo = t; else hi = t;
    if( sf==q ) break;
    /* Newton on ln sf: d/dt ln sf = -pdf/sf */
    step = (log(sf) - log(q)) * sf / t_pdf(t, df);
    tn = t + step;
    if( !(tn>lo && tn<hi) ) tn = isinf(hi) ? 2.0*t + 1.0 : 0.5*(lo + hi);
    if( fabs(tn - t) <= 1e-15*fabs(t) ){ t = tn; break; }
    t = tn;
  }
  return t;
}

double ml_t_quantile(double p, double df){
  if( !(p>0.0) ) return -INFINITY;
  if( !(p<1.0) ) return INFINITY;
  if( p==0.5 ) return 0.0;
  if( p<0.5 ) return -t_isf_upper(p, df);
  return t_isf_upper(1.0 - p, df);
}

double ml_t_isf(double q, double df){
  return -ml_t_quantile(q, df);
}
