/*
** SPDX-License-Identifier: MIT
**
** drift_ks.c -- the two-sample Kolmogorov-Smirnov p-value of the drift
** functions (drift.c, rule 4), as scipy.stats.ks_2samp(method='auto')
** computes it: exact for max(n_0, n_1) <= 10000, asymptotic otherwise.
**
** Provides: ml_ks_pvalue (drift.h).
**
** Rules:
**   1. 'exact' when both periods' weights are integers (counts) and
**      max(n_0, n_1) <= 10000: h = round(D lcm(n_0, n_1)) (ties to even),
**      D = h / lcm, the p-value by scipy's recursions
**      (_compute_prob_outside_square when n_0 = n_1, the Hodges/Viehmann
**      inside method otherwise), p = 1 when h = 0; a result outside [0, 1]
**      falls back to 'asymp' as scipy does.
**   2. 'asymp': scipy's kstwo.sf(D, en), en = round(n_0 n_1 / (n_0 + n_1)),
**      its branches followed (ks_kstwo_sf).
**   3. Out of memory returns ML_NOMEM; a long exact recursion asks
**      ml_stop_requested every 1024 steps.
**
** Cost: the exact p-value O(n_0 n_1 / gcd) at worst (n <= 10000 each); the
** asymptotic one O(en) (Birnbaum-Tingey's sum) or O(k^3 log en) (Durbin's
** matrix, k = ceil(en D) <= 24 where used).
*/
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "drift.h"

#define MON_KS_MAX_EXACT 10000   /* scipy's MAX_AUTO_N */

/* scipy's _compute_prob_outside_square(n, h): P(D_{n,n} >= h/n). */
static double ks_outside_square(ml_i64 n, ml_i64 h){
  double P = 0.0;
  ml_i64 k = n/h, j;
  for(; k>=0; k--){
    double p1 = 1.0;
    for(j=0; j<h; j++) p1 = (double)(n - k*h - j) * p1 / (double)(n + k*h + j + 1);
    P = p1 * (1.0 - P);
  }
  return 2.0*P;
}

/* scipy's _compute_outer_prob_inside_method(m, n, g, h) (Hodges, with
** Viehmann's recursion for 1 - p): the share of lattice paths that leave
** |x/m - y/n| < h/lcm.  A holds min(2 maxj + 2, n + 1) doubles. */
static int ks_outer_inside(ml_i64 m, ml_i64 n, ml_i64 g, ml_i64 h, double *out){
  ml_i64 mg, ng, minj, maxj, curlen, lenA, i, jj;
  double *A;
  if( m<n ){ ml_i64 t = m; m = n; n = t; }
  mg = m/g; ng = n/g;
  minj = 0;
  maxj = (h + mg - 1)/mg;            /* ceil(h / mg) */
  if( maxj>n+1 ) maxj = n+1;
  curlen = maxj - minj;
  lenA = 2*maxj + 2 < n + 1 ? 2*maxj + 2 : n + 1;
  A = ml_malloc(sizeof(double) * (uint64_t)(lenA + 1));
  if( A==0 ) return ML_NOMEM;
  for(i=0; i<lenA; i++) A[i] = 1.0;
  for(i=minj; i<maxj && i<lenA; i++) A[i] = 0.0;
  for(i=1; i<=m; i++){
    ml_i64 lastminj = minj, lastlen = curlen, num;
    double val;
    num = ng*i - h;                   /* floor(num / mg) + 1, num may be negative */
    minj = (num>=0 ? num/mg : -((-num + mg - 1)/mg)) + 1;
    if( minj<0 ) minj = 0;
    if( minj>n ) minj = n;
    maxj = (ng*i + h + mg - 1)/mg;
    if( maxj>n+1 ) maxj = n+1;
    if( maxj<=minj ){ ml_free(A); *out = 1.0; return ML_OK; }
    val = minj==0 ? 0.0 : 1.0;
    for(jj=0; jj<maxj-minj; jj++){
      ml_i64 j = jj + minj;
      val = (A[jj + minj - lastminj] * (double)i + val * (double)j) / (double)(i + j);
      A[jj] = val;
    }
    curlen = maxj - minj;
    if( lastlen>curlen ){
      ml_i64 k;
      for(k=maxj-minj; k<maxj-minj+(lastlen-curlen) && k<lenA; k++) A[k] = 1.0;
    }
    if( (i & 1023)==0 && ml_stop_requested() ) break;
  }
  *out = A[maxj - minj - 1];
  ml_free(A);
  return ML_OK;
}

/*
** scipy.stats.kstwo.sf(x, n): the two-sided one-sample Kolmogorov-Smirnov
** distribution at finite n, following scipy 1.10's _kolmogn (Simard &
** L'Ecuyer 2011) branch for branch: Ruben-Gambino's closed forms near
** 1/(2n) and 1 - 1/n, 2 x smirnov(n, x) (Birnbaum-Tingey's sum, here in
** lgamma terms) in the upper tail, Durbin's matrix (Marsaglia-Tsang-Wang)
** for small n x^2, Pelz-Good's expansion for large n.  Where scipy uses
** Pomeranz's recursion (n <= 140, 0.754693 < n x^2 <= 4) this uses Durbin's
** matrix, exact as well.
*/
#define KS_PI 3.14159265358979323846
#define KS_E128 340282366920938463463374607431768211456.0   /* 2^128 */

/* P(D+_n >= x), Birnbaum and Tingey. */
static double ks_smirnov(ml_i64 n, double x){
  ml_i64 v, last;
  double sum = 0.0, lg = lgamma((double)n + 1.0);
  if( x<=0.0 ) return 1.0;
  if( x>=1.0 ) return 0.0;
  last = (ml_i64)floor((double)n * (1.0 - x));
  for(v=0; v<=last; v++){
    double e = x + (double)v/(double)n, ome = 1.0 - e, t;
    if( ome<=0.0 ){
      if( n - v==0 ) sum += exp(lg - lgamma((double)v + 1.0) + (double)(v - 1)*log(e));
      continue;
    }
    t = lg - lgamma((double)v + 1.0) - lgamma((double)(n - v) + 1.0)
      + (double)(v - 1)*log(e) + (double)(n - v)*log(ome);
    if( t>-745.0 ) sum += exp(t);
  }
  sum *= x;
  return sum<0.0 ? 0.0 : sum>1.0 ? 1.0 : sum;
}

/* C = A B for m x m matrices. */
static void ks_matmul(const double *A, const double *B, double *C, int m){
  int i, j, k;
  for(i=0; i<m; i++) for(j=0; j<m; j++){
    double s = 0.0;
    for(k=0; k<m; k++) s += A[i*m + k]*B[k*m + j];
    C[i*m + j] = s;
  }
}

/* P(D_n <= d) by Durbin's matrix (scipy's _kolmogn_DMTW).  -1: no memory. */
static double ks_dmtw(ml_i64 n, double d){
  double nd = (double)n*d, h, fac, tt, *H, *P, *T, *v, *w, p;
  int k, m, i, j;
  ml_i64 nn, ii, expnt = 0, Hexpnt = 0;
  if( d>=1.0 ) return 1.0;
  if( nd<=0.5 ) return 0.0;
  k = (int)ceil(nd);
  h = (double)k - nd;
  m = 2*k - 1;
  H = ml_malloc(sizeof(double) * (uint64_t)(3*m*m + 2*m));
  if( H==0 ) return -1.0;
  P = H + m*m; T = P + m*m; v = T + m*m; w = v + m;
  memset(H, 0, sizeof(double) * (size_t)(2*m*m));
  fac = 1.0;
  for(j=1; j<=m; j++){
    w[j-1] = fac;
    fac /= (double)j;
    v[j-1] = (1.0 - pow(h, (double)j)) * fac;
  }
  tt = pow(2.0*h - 1.0 > 0.0 ? 2.0*h - 1.0 : 0.0, (double)m) - 2.0*pow(h, (double)m);
  v[m-1] = (1.0 + tt) * fac;
  for(i=1; i<m; i++) for(j=i-1; j<m; j++) H[j*m + i] = w[j - (i-1)];
  for(j=0; j<m; j++) H[j*m] = v[j];
  for(j=0; j<m; j++) H[(m-1)*m + j] = v[m-1-j];
  for(i=0; i<m; i++) P[i*m + i] = 1.0;
  for(nn=n; nn>0; nn/=2){
    if( nn % 2 ){
      ks_matmul(P, H, T, m);
      memcpy(P, T, sizeof(double) * (size_t)(m*m));
      expnt += Hexpnt;
    }
    ks_matmul(H, H, T, m);
    memcpy(H, T, sizeof(double) * (size_t)(m*m));
    Hexpnt *= 2;
    if( fabs(H[(k-1)*m + k-1])>KS_E128 ){
      for(i=0; i<m*m; i++) H[i] /= KS_E128;
      Hexpnt += 128;
    }
  }
  p = P[(k-1)*m + k-1];
  for(ii=1; ii<=n; ii++){
    p = (double)ii * p / (double)n;
    if( fabs(p)<1.0/KS_E128 ){ p *= KS_E128; expnt -= 128; }
  }
  ml_free(H);
  if( expnt!=0 ) p = ldexp(p, (int)expnt);
  return p;
}

/* 1 - P(D_n <= x) by Pelz and Good's expansion (scipy's _kolmogn_PelzGood, cdf=False). */
static double ks_pelz_good_sf(ml_i64 n, double x){
  double z = sqrt((double)n)*x, z2 = z*z, z3 = z2*z, z4 = z2*z2, z6 = z4*z2;
  double pi2 = KS_PI*KS_PI, pi4 = pi2*pi2, pi6 = pi4*pi2, sqrt2pi = sqrt(2.0*KS_PI);
  double qlog = -pi2/8.0/z2, q, K[4] = {0, 0, 0, 0}, k2extra = 0.0, k3extra = 0.0, sqrt3z, sum;
  double k1a = -z2, k1b = pi2/4.0;
  double k2a = 6.0*z6 + 2.0*z4, k2b = (2.0*z4 - 5.0*z2)*pi2/4.0, k2c = pi4*(1.0 - 2.0*z2)/16.0;
  double k3d = pi6*(5.0 - 30.0*z2)/64.0, k3c = pi4*(-60.0*z2 + 212.0*z4)/16.0;
  double k3b = pi2*(135.0*z4 - 96.0*z6)/4.0, k3a = -30.0*z6 - 90.0*z4*z4;
  int maxk, kk, i;
  if( qlog < -708.0 ) return 1.0;
  q = exp(qlog);
  maxk = (int)ceil(16.0*z/KS_PI);
  for(kk=maxk; kk>0; kk--){
    double mm = 2.0*kk - 1.0, m2 = mm*mm, m4 = m2*m2, m6 = m4*m2, qp = pow(q, 8.0*kk);
    double c[4] = {1.0, k1a + k1b*m2, k2a + k2b*m2 + k2c*m4, k3a + k3b*m2 + k3c*m4 + k3d*m6};
    for(i=0; i<4; i++){ K[i] *= qp; K[i] += c[i]; }
  }
  for(i=0; i<4; i++){ K[i] *= q; K[i] *= sqrt2pi; }
  K[0] /= z; K[1] /= 6.0*z4; K[2] /= 72.0*pow(z, 7.0); K[3] /= 6480.0*pow(z, 10.0);
  q = exp(-pi2/2.0/z2);
  sqrt3z = sqrt(3.0)*z;
  for(kk=maxk; kk>0; kk--){
    double ks = (double)kk, ksq = ks*ks, kspi = KS_PI*ks, qp = pow(q, ksq);
    k2extra += ksq*qp;
    k3extra += (sqrt3z + kspi)*(sqrt3z - kspi)*ksq*qp;
  }
  K[2] += k2extra * (pi2*sqrt2pi/(-36.0*z3));
  K[3] += k3extra * (pi2*sqrt2pi/(216.0*z6));
  for(i=1; i<4; i++) K[i] /= pow((double)n, (double)i/2.0);
  for(i=0; i<4; i++) K[i] = -K[i];
  K[0] += 1.0;
  sum = K[0] + K[1] + K[2] + K[3];
  return sum;
}

static double ks_clip(double p){ return p<0.0 ? 0.0 : p>1.0 ? 1.0 : p; }

/* kstwo.sf(x, n), n >= 1; -1 when out of memory. */
static double ks_kstwo_sf(ml_i64 n, double x){
  double t = (double)n*x, nx2;
  if( x>=1.0 ) return 0.0;
  if( x<=0.0 ) return 1.0;
  if( t<=1.0 ){
    double prob;
    ml_i64 i;
    if( t<=0.5 ) return 1.0;
    if( n<=140 ){
      prob = 1.0;
      for(i=1; i<=n; i++) prob *= (double)i * (1.0/(double)n) * (2.0*t - 1.0);
    }else{
      double rn = 1.0/(double)n, r2 = rn/(double)n, poly;
      static const double c[] = {-2.955065359477124183e-2, 6.4102564102564102564e-3,
        -1.9175269175269175269e-3, 8.4175084175084175084e-4, -5.952380952380952381e-4,
        7.9365079365079365079e-4, -2.7777777777777777778e-3, 8.3333333333333333333e-2};
      int j;
      poly = 0.0;
      for(j=0; j<8; j++) poly = poly*r2 + c[j];
      prob = exp(log((double)n)/2.0 - (double)n + log(2.0*KS_PI)/2.0 + rn*poly + (double)n*log(2.0*t - 1.0));
    }
    return ks_clip(1.0 - prob);
  }
  if( t>=(double)(n - 1) ) return ks_clip(2.0*pow(1.0 - x, (double)n));
  if( x>=0.5 ) return ks_clip(2.0*ks_smirnov(n, x));
  nx2 = t*x;
  if( n<=140 ){
    if( nx2<=4.0 ){
      double c = ks_dmtw(n, x);
      return c<0.0 ? -1.0 : ks_clip(1.0 - c);
    }
    return ks_clip(2.0*ks_smirnov(n, x));
  }
  if( nx2>=370.0 ) return 0.0;
  if( nx2>=2.2 ) return ks_clip(2.0*ks_smirnov(n, x));
  if( n<=100000 && (double)n*pow(x, 1.5)<=1.4 ){
    double c = ks_dmtw(n, x);
    return c<0.0 ? -1.0 : ks_clip(1.0 - c);
  }
  return ks_clip(ks_pelz_good_sf(n, x));
}

static ml_i64 gcd_i64(ml_i64 a, ml_i64 b){ while( b ){ ml_i64 t = a % b; a = b; b = t; } return a; }

/* The p-value of rules 1 and 2; r->d is D, replaced by h/lcm when exact. */
int ml_ks_pvalue(MlKsResult *r){
  ml_i64 n1 = (ml_i64)r->W[0], n2 = (ml_i64)r->W[1];
  double d = r->d;
  r->method = "asymp";
  if( (n1>n2 ? n1 : n2)<=MON_KS_MAX_EXACT && (double)n1==r->W[0] && (double)n2==r->W[1] ){
    ml_i64 g = gcd_i64(n1, n2), lcm = (n1/g)*n2, h = (ml_i64)nearbyint(d*(double)lcm);
    double prob;
    d = (double)h / (double)lcm;
    if( h==0 ){
      prob = 1.0;
    }else if( n1==n2 ){
      prob = ks_outside_square(n1, h);
    }else if( ks_outer_inside(n1, n2, g, h, &prob) ){
      return ML_NOMEM;
    }
    if( prob>=0.0 && prob<=1.0 ){
      r->d = d; r->p = prob; r->method = "exact";
      return ML_OK;
    }
    r->d = d;
  }
  {
    double m = r->W[0] > r->W[1] ? r->W[0] : r->W[1], n = r->W[0] > r->W[1] ? r->W[1] : r->W[0];
    double en = nearbyint(m*n/(m + n)), p;
    r->d = d;
    p = ks_kstwo_sf((ml_i64)en, d);
    if( p<0.0 ) return ML_NOMEM;
    r->p = p;
  }
  return ML_OK;
}
