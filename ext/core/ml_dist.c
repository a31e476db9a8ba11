/*
** ml_dist.c -- the normal and Student-t distributions the intervals need.
** SPDX-License-Identifier: MIT
**
** Provides: ml_norm_cdf, ml_norm_quantile (BCa, DeLong), ml_t_sf and
** ml_t_quantile (mean_ci).  No new dependency: libm's erfc, tgamma, log1p.
**
** Rules:
**   1. Phi(x) = erfc(-x/sqrt 2)/2.  Phi^-1 starts from Acklam's rational
**      approximation (relative error 1.15e-9) and takes two Halley steps
**      against erfc (p <= 1/4) or erf (1/4 < p <= 1/2, against p - 1/2,
**      exact), which brings it to full double precision;
**      the lower tail is solved directly and the upper by symmetry, so tails
**      keep their relative accuracy.
**   2. P(T > t) = I_x(df/2, 1/2)/2 with x = df/(df + t^2).  Two ways, both
**      fed ln x = -log1p(t^2/df) and 1 - x = t^2/(df + t^2), never x itself
**      (x rounds to a double near 1 and loses the digits of 1 - x that a
**      large df needs):
**      a. df >= 30: DiDonato & Morris's asymptotic expansion for a large
**         first parameter (BGRAT, ACM TOMS 708, 1992), a sum of incomplete
**         gamma ratios; with b = 1/2 its leading one is erfc(sqrt(z)),
**         z = -(df/2 - 1/4) ln x, the normal tail it tends to.  Two to a
**         dozen terms; when it does not settle in 30 (t far beyond
**         sqrt(df)), (b).
**      b. the continued fraction of I_x(a, b) (ml_beta_cf, ml_beta.c's:
**         modified Lentz), and 1 - I_{1-x}(1/2, df/2) on the other side of
**         the mean.
**      ln B(df/2, 1/2): tgamma's ratio below df = 20, above it the Stirling
**      series of lgamma(a) - lgamma(a + 1/2) to eight terms (truncation
**      below 1e-17; lgamma's own values are too large there to subtract).
**   3. The t quantile: exact formulas for df = 1 and 2; otherwise Newton on
**      ln P(T > t) from the Cornish-Fisher start, kept inside a bracket that
**      bisection shrinks when a step leaves it.  Against 40-digit mpmath
**      inversions (tests/check_dist.c, tests/test_dist.py) the quantile is
**      within 1e-14 relative over df 1..10^6 and levels 0.5..0.9999 (the
**      largest error measured is in docs/uncertainty.md); scipy 1.10's own
**      t.ppf is off by up to 4e-9 there.
**
** Cost: a tail probability is a few dozen operations (df >= 30) or
** O(sqrt(df)) continued-fraction steps (df < 30); a quantile, a few of them.
*/
#include <math.h>
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
    /* Halley: e = Phi(x) - p, u = e / phi(x); above p = 1/4 as
    ** erf(x/sqrt 2)/2 - (p - 1/2), p - 1/2 exact, so that no digit of a
    ** quantile near 0 cancels (erfc's would: 2.4e-13 at p = 0.4999) */
    double e = p<=0.25 ? ml_norm_cdf(x) - p : 0.5*erf(x / 1.41421356237309504880) - (p - 0.5);
    double u = e * 2.50662827463100050242 * exp(0.5*x*x);
    x = x - u / (1.0 + 0.5*x*u);
  }
  return x;
}

/* ----------------------------------------------------------- Student t */

/* ln B(a, 1/2). */
static double lbeta_half(double a){
  if( a < 10.0 ) return log(tgamma(a) * 1.77245385090551602730 / tgamma(a + 0.5));
  {
    /* lgamma(a) - lgamma(a + 1/2) by Stirling:
    **   (a - 1/2) ln a - a - [a ln(a + 1/2) - (a + 1/2)] + sum_k c_k (a^-(2k-1) - (a+1/2)^-(2k-1))
    ** = -ln(a)/2 - a log1p(1/(2a)) + 1/2 + ...; at a = 10 the ninth term
    ** would add 1e-18. */
    static const double c[] = {1.0/12.0, -1.0/360.0, 1.0/1260.0, -1.0/1680.0, 1.0/1188.0,
                               -691.0/360360.0, 1.0/156.0, -3617.0/122400.0};
    double b = a + 0.5, d = -0.5*log(a) - a*log1p(0.5/a) + 0.5, sum = 0.0;
    double ia = 1.0/a, ib = 1.0/b, pa = ia, pb = ib;
    int k;
    for(k=0; k<8; k++){
      sum += c[k]*(pa - pb);
      pa *= ia*ia; pb *= ib*ib;
    }
    return d + sum + 0.57236494292470008707;       /* + lgamma(1/2) = ln sqrt(pi) */
  }
}

/* I_x(a, 1/2) for a >= 15 by DiDonato & Morris's BGRAT (ACM TOMS 708,
** algorithm 708, 1992), given ln x and z = -(a - 1/4) ln x:
**   I_x(a, b) = Gamma(a+b)/(Gamma(a) T^b) * r * sum_n p_n J_n(b, z),
** T = a + (b-1)/2, r = z^b e^-z / Gamma(b), J_0 = Q(b, z)/r with
** Q(1/2, z) = erfc(sqrt z), the J_n and the coefficients p_n by their
** recurrences.  Returns -1 when the sum does not settle in 30 terms (then
** the continued fraction serves). */
static double bgrat_half(double a, double lnx){
  const double b = 0.5, bm1 = -0.5;
  double T = a + 0.5*bm1, z = -T*lnx, r, w, v, t2, j, sum, t = 1.0, cn = 1.0, n2 = 0.0;
  double c[31], d[31];
  int n, i;
  if( !(z>0.0) ) return z==0.0 ? 1.0 : -1.0;
  r = exp(-z) * sqrt(z) / 1.77245385090551602730;          /* z^b e^-z / Gamma(1/2) */
  if( r==0.0 ) return -1.0;
  /* Gamma(a + 1/2)/(Gamma(a) T^(1/2)); lgamma(a) - lgamma(a + 1/2) = lbeta_half - ln sqrt(pi) */
  w = r * exp(-(lbeta_half(a) - 0.57236494292470008707) - b*log(T));
  v = 0.25/(T*T);
  t2 = 0.25*lnx*lnx;
  j = erfc(sqrt(z)) / r;
  sum = j;
  for(n=1; n<=30; n++){
    double bp2n = b + n2, s = 0.0, coef = b - n, dj;
    j = (bp2n*(bp2n + 1.0)*j + (z + bp2n + 1.0)*t)*v;
    n2 += 2.0;
    t *= t2;
    cn /= n2*(n2 + 1.0);
    c[n] = cn;
    for(i=1; i<n; i++){ s += coef*c[i]*d[n-i]; coef += b; }
    d[n] = bm1*cn + s/n;
    dj = d[n]*j;
    sum += dj;
    if( !(sum>0.0) ) return -1.0;
    if( fabs(dj) <= 1e-17*sum ) return w*sum;
  }
  return -1.0;
}

double ml_t_sf(double t, double df){
  double a = 0.5*df, u, lnx, x, xc, front;
  if( isnan(t) ) return NAN;
  if( t<0.0 ) return 1.0 - ml_t_sf(-t, df);
  if( isinf(t) ) return 0.0;
  if( t==0.0 ) return 0.5;
  /* ln x and 1 - x from u = t^2/df, exactly as far as doubles go */
  u = t*t/df;
  if( isinf(u) ){
    lnx = log(df) - 2.0*log(t);
    xc = 1.0;
  }else{
    lnx = -log1p(u);
    xc = u/(1.0 + u);
  }
  if( a>=15.0 ){
    double w = bgrat_half(a, lnx);
    if( w>=0.0 ) return 0.5*w;
  }
  x = exp(lnx);
  /* x^a (1-x)^(1/2) / B(a, 1/2) */
  front = exp(a*lnx + 0.5*log(xc) - lbeta_half(a));
  if( x < (a + 1.0)/(a + 2.5) ){
    return 0.5 * front * ml_beta_cf(x, a, 0.5) / a;                 /* the tail */
  }
  return 0.5 * (1.0 - front * ml_beta_cf(xc, 0.5, a) / 0.5);        /* near the middle */
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
