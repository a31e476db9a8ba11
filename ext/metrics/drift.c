/*
** SPDX-License-Identifier: MIT
**
** drift.c -- the monitoring family's drift functions: drift between two
** periods of one variable, the reference (g = 0) and the current period
** (g = 1).  The family's other functions: expected.c (performance without
** labels), disparity.c (group disparity).
**
** SQL functions (aggregate and window; docs/monitoring.md):
**   psi(g, x [, bins])            population stability index, default 10 bins
**   ks_test(g, x)                 JSON {"statistic","p_value","method"}:
**                                 scipy.stats.ks_2samp(method='auto')
**   wasserstein(g, x)             scipy.stats.wasserstein_distance
**   drift_report(g, x [, bins])   JSON {"n_ref","n_cur","psi","bins":[{"lo",
**                                 "hi","ref","cur","contribution"}],"ks",
**                                 "ks_p_value","ks_method","wasserstein",
**                                 "mean_ref","mean_cur","auroc_period"}
**   psi_w(g, x, w [, bins]), wasserstein_w(g, x, w)   weighted twins
**   psi(st_ref, st_cur [, bins]), ks_test(st_ref, st_cur),
**   wasserstein(st_ref, st_cur), drift_report(st_ref, st_cur [, bins])
**                                 the same over two ml_state BLOBs
**
** Rules:
**   1. g is 0 or 1 (the label rules: INTEGER, integral REAL, numeric TEXT);
**      x any number (+-Inf included).  A NULL g or x skips the row.  bins
**      is an integer in 1..100000, the same in every row of a group.
**   2. A period without rows makes the result NULL with a SQLITE_WARNING
**      naming the empty period.
**   3. PSI: the edges are the reference's quantiles at 1/B .. (B-1)/B
**      (numpy's linear quantile, ml_wquantile: on the cumulative-weight axis
**      for the twin), sorted, duplicates removed; the bins are (-Inf, e_1],
**      (e_1, e_2], .., (e_last, +Inf); r_i, c_i each period's share (of
**      weight, for the twin); a zero share counts as 1e-4 (Evidently's rule)
**      in the proportion and in the term; psi = sum (c_i - r_i) ln(c_i/r_i),
**      each term >= 0, summed exactly.  An edge that is NaN (the reference
**      holds both infinities, or one twice at a lerp) gives NULL with a reason.
**   4. KS: D as scipy computes it (ECDF differences c_0/n_0 - c_1/n_1 at
**      every value, the larger of the maximum and the clipped negated
**      minimum).  method 'exact' when max(n_0, n_1) <= 10000: h =
**      round(D lcm(n_0, n_1)) (ties to even), D = h / lcm, the p-value by
**      scipy's recursions (_compute_prob_outside_square when n_0 = n_1, the
**      Hodges/Viehmann inside method otherwise), p = 1 when h = 0; a result
**      outside [0, 1] falls back to 'asymp' as scipy does.  'asymp':
**      scipy's kstwo.sf(D, en), en = round(n_0 n_1 / (n_0 + n_1)), its
**      branches followed (ks_kstwo_sf); docs/monitoring.md gives the
**      measured difference.
**   5. Wasserstein-1: sum over consecutive distinct values t_k < t_{k+1} of
**      |U(t_k) - V(t_k)| (t_{k+1} - t_k), U and V each period's ECDF (by
**      weight: scipy's u_weights, v_weights), each product rounded, summed
**      exactly.  An infinite x gives NULL with a reason (scipy: inf or nan).
**   6. drift_report: every number above, plus each bin's edges (lo null for
**      the first, hi null for the last), shares (as counted: before the
**      1e-4 rule) and term, mean_ref and mean_cur (exact sums of w x / W),
**      auroc_period = auroc(g, x): Mann-Whitney over the walk's steps (twice
**      the area as an integer, or ml_wfold_auroc's exact sum when 2 W_0 W_1
**      passes 2^62), divided as ml_fold_auroc divides, so bit for bit.
**      Every statistic comes from one walk over the merged sorted periods,
**      one step per distinct x with each period's tie weight there (an
**      exact sum, ml_exact_sum: independent of the records' order).
**   7. The twins: a row of weight w counts w times (sums of weights for
**      counts); integer weights give the rows repeated bit for bit (every
**      count is a sum of weights, exact below 2^53).  ks_test and
**      drift_report have no twin: KS's p-value needs counts.
**   8. The two-state form: each argument a state made by ml_state(y, s)
**      (its entries' both classes summed: the score distribution);
**      SQLite picks it by argument count with psi(g, x) and the step tells
**      them apart by the BLOB.  Each entry is one record weighing its count,
**      O(entries), so the result is the row query's bit for bit.  Several
**      pairs in a group merge (the st_ref of every row the reference).  A
**      NULL state skips the pair; anything else but a state is an error.
**   9. Window frames: the rows (records) are kept; xInverse removes the
**      row, a result sorts and recomputes, so a frame equals the aggregate
**      over its rows.
**
** Cost: 16 bytes per row (x and its weight, by period); a result sorts
** (O(n) radix), walks both periods once, and holds 16 bytes per reference
** row for the quantiles.  The exact KS p-value costs O(n_0 n_1 / gcd)
** at worst (n <= 10000 each); the asymptotic one O(en) (Birnbaum-Tingey's
** sum) or O(k^3 log en) (Durbin's matrix, k = ceil(en D) <= 24 where used).
** A state costs 16 bytes per entry, whatever its counts.  Measured:
** drift_report(g, x) on 10^6 rows runs 1.26x auroc(g, x)'s instructions
** (bench/RESULTS.md, monitoring).
*/
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

enum { MON_PSI = 1, MON_KS, MON_WASS, MON_REPORT };

#define MON_MAX_BINS 100000
#define MON_KS_MAX_EXACT 10000   /* scipy's MAX_AUTO_N */
#define MON_PSI_FLOOR 1e-4

typedef struct MonAgg {
  MlSamples smp;      /* a[0] the reference, a[1] the current period: key x, aux weight */
  MlParam bins;
  int init;
  int failed;         /* a step set an error: results only free */
} MonAgg;

static const MlParamSpec psMonBins = ML_PARAM_INT("bins", 1, MON_MAX_BINS, "10", "10");

static MonAgg *mon_agg(sqlite3_context *ctx){
  MonAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return 0; }
  if( !p->init ){ ml_samples_init_weighted(&p->smp); p->init = 1; }
  return p;
}

/* The bins parameter of argv[2] (when given): ML_ROW_*. */
static int mon_param(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                     MonAgg *p, int inverse){
  ml_i64 b;
  if( argc<3 || d->aParam==0 ) return ML_ROW_OK;
  if( inverse ){ ml_param_drop(&p->bins, argv[2]); return ML_ROW_OK; }
  return ml_param_int(ctx, d->name, &psMonBins, argv[2], &p->bins, &b);
}

/* Adds (sign +1) or removes (-1) the entries of a two-state pair (rule 8). */
static int mon_states(sqlite3_context *ctx, const MlFuncDesc *d, sqlite3_value **argv, MonAgg *p, int sign){
  static const char *const azName[2] = {"st_ref", "st_cur"};
  MlState st[2];
  int g, rc;
  for(g=0; g<2; g++){
    rc = ml_read_binary_state(ctx, d->name, argv[g], azName[g], &st[g]);
    if( rc!=ML_ROW_OK ) return rc;
  }
  for(g=0; g<2; g++){
    MlReader rd;
    MlEntry e;
    ml_reader_init(&rd, &st[g].sec[0]);
    while( ml_reader_next(&rd, &e) ){
      double x = ml_double_of(e.key) + 0.0, c = (double)(e.n[0] + e.n[1]);
      if( c<=0.0 ) continue;
      if( sign>0 ){
        if( ml_add_row(ctx, &p->smp, g, x, c) ) return ML_ROW_ERR;
      }else{
        ml_samples_remove(&p->smp, g, x, c);
      }
    }
  }
  return ML_ROW_OK;
}

/* One row (g, x) of weight w; sign -1 removes it. */
static void mon_row(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w, int sign){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  MonAgg *p = mon_agg(ctx);
  int g, rc;
  double x;
  if( p==0 ){ return; }
  if( sign>0 && p->failed ) return;
  if( w<0.0 ){ p->failed = 1; return; }      /* the twin's weight was invalid */
  if( argc<2 ){ ml_arity_error(ctx, d, argc); p->failed = 1; return; }
  if( mon_param(ctx, d, argc, argv, p, sign<0)==ML_ROW_ERR ){ p->failed = 1; return; }
  if( sqlite3_value_type(argv[0])==SQLITE_BLOB && !(d->flags & ML_FN_TWIN) ){
    if( sign<0 && p->failed ) return;
    if( mon_states(ctx, d, argv, p, sign)==ML_ROW_ERR ) p->failed = 1;
    return;
  }
  rc = ml_arg_label_named(ctx, d->name, "g", argv[0], 1, &g);
  if( rc==ML_ROW_OK ) rc = ml_arg_score(ctx, d->name, "x", argv[1], &x);
  if( rc==ML_ROW_ERR ){ p->failed = 1; return; }
  if( rc!=ML_ROW_OK || w==0.0 ) return;
  x += 0.0;   /* -0 and +0 are one value */
  if( sign>0 ){
    if( ml_add_row(ctx, &p->smp, g, x, w) ) p->failed = 1;
  }else{
    ml_samples_remove(&p->smp, g, x, w);
  }
}

/*
** SQL function: psi(g, x [, bins]), ks_test(g, x), wasserstein(g, x),
** drift_report(g, x [, bins]) and their two-state forms -- xStep, xInverse
*/
static void monStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  /* The common row inline: g an INTEGER 0 or 1, x a number, no parameter
  ** (what the checkers accept first; anything else goes through them) */
  int g;
  double x;
  if( argc==2 && ml_binary_row_common(argv, sqlite3_value_type(argv[0]), 0, &g, &x) ){
    MonAgg *p = mon_agg(ctx);
    if( p==0 || p->failed ) return;
    if( ml_add_row(ctx, &p->smp, g, x + 0.0, 1.0) ) p->failed = 1;
    return;
  }
  mon_row(ctx, argc, argv, 1.0, 1);
}
static void monInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){ mon_row(ctx, argc, argv, 1.0, -1); }
/*
** SQL function: psi_w(g, x, w [, bins]), wasserstein_w(g, x, w) -- xStep, xInverse
** (the driver has read the weight: MlFamily.xStepW)
*/
static void monStepW(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  mon_row(ctx, argc, argv, w, 1);
}
static void monInverseW(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  if( w>=0.0 ) mon_row(ctx, argc, argv, w, -1);
}

/* ------------------------------------------------------------ computation */

/* Everything a result reports (rules 3 to 6). */
typedef struct MonResult {
  double W[2];                 /* each period's weight (rows) */
  ml_i64 nEdge;                /* distinct edges */
  double *edge;                /* nEdge edges (the caller frees) */
  double *share;               /* 2 (nEdge + 1): the bins' shares, reference first */
  double psi;                  /* NaN when an edge is NaN */
  double ks, ksP;
  const char *ksMethod;
  double wass;                 /* NaN when an x is infinite */
  double mean[2];
  double auroc;
} MonResult;

static int cmp_double(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

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

/* The KS p-value of rule 4; r->ks is D, replaced by h/lcm when exact. */
static int ks_pvalue(MonResult *r){
  ml_i64 n1 = (ml_i64)r->W[0], n2 = (ml_i64)r->W[1];
  double d = r->ks;
  r->ksMethod = "asymp";
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
      r->ks = d; r->ksP = prob; r->ksMethod = "exact";
      return ML_OK;
    }
    r->ks = d;
  }
  {
    double m = r->W[0] > r->W[1] ? r->W[0] : r->W[1], n = r->W[0] > r->W[1] ? r->W[1] : r->W[0];
    double en = nearbyint(m*n/(m + n)), p;
    r->ks = d;
    p = ks_kstwo_sf((ml_i64)en, d);
    if( p<0.0 ) return ML_NOMEM;
    r->ksP = p;
  }
  return ML_OK;
}

/* The PSI edges (rule 3) from the sorted reference; *pn distinct edges. */
static int psi_edges(const MlSamples *s, ml_i64 B, double W0, double **pe, ml_i64 *pn){
  ml_i64 n0 = s->n[0], i, at = 0, k = 0;
  double *vb = ml_malloc(sizeof(double) * 2 * (uint64_t)n0), *e, below = 0.0;
  if( vb==0 ) return ML_NOMEM;
  e = ml_malloc(sizeof(double) * (uint64_t)(B > 1 ? B - 1 : 1));
  if( e==0 ){ ml_free(vb); return ML_NOMEM; }
  for(i=0; i<n0; i++){
    vb[2*i] = ml_double_of(ml_samples_key(s, 0, i));
    vb[2*i+1] = below;
    below += ml_samples_aux(s, 0, i);
  }
  for(i=1; i<B; i++) e[i-1] = ml_wquantile(vb, vb+1, 2, n0, W0, (double)i/(double)B, &at);
  ml_free(vb);
  if( B>1 ) qsort(e, (size_t)(B-1), sizeof(double), cmp_double);
  for(i=0; i<B-1; i++){
    if( k==0 || e[i]!=e[k-1] || isnan(e[i]) ) e[k++] = e[i];
  }
  *pe = e;
  *pn = k;
  return ML_OK;
}

/* The weight of the tie group of key k that starts at record i of class
** y's sorted records; *pj gets the record after it.  One record: its
** weight; more: their exact sum, correctly rounded (ml_exact_sum), so that
** it does not depend on the order the group's records are held in. */
static double tie_weight(const MlRec16 *a, ml_i64 n, ml_i64 i, ml_key k, ml_i64 *pj){
  ml_i64 j = i + 1;
  while( j<n && a[j].key==k ) j++;
  *pj = j;
  return j==i+1 ? a[i].aux : ml_exact_sum(&a[i].aux, 2, j - i);
}

/* Walks the sorted periods once, merged, one step per distinct x with the
** tie group's weight in each period (d_0, d_1): each bin's weight, the ECDF
** differences (KS), the Wasserstein sum, and for the report the means and
** the period AUROC (rule 6: Mann-Whitney over the same steps). */
static void mon_walk(const MlSamples *s, int kind, MonResult *r){
  const MlRec16 *a[2];
  ml_i64 i[2] = {0, 0}, n[2], nb = r->nEdge + 1, b = 0;
  double c[2] = {0.0, 0.0}, maxS = 0.0, minS = 0.0, prev = 0.0, U = 0.0, V = 0.0, sp, sn;
  int started = 0, inf = 0, g;
  const int report = kind==MON_REPORT;
  /* the report's AUROC: twice the area as an integer while 2 W_0 W_1 fits
  ** (its weights are counts, integers), else as the weighted fold's exact sum */
  const int u2ok = report && r->W[0]*r->W[1] < 4611686018427387904.0;   /* 2^62 */
  uint64_t u2 = 0;
  MlXsum ws, ms[2], as;
  a[0] = (const MlRec16*)s->a[0]; a[1] = (const MlRec16*)s->a[1];
  n[0] = s->n[0]; n[1] = s->n[1];
  ml_xsum_init(&ws);
  if( report ){ ml_xsum_init(&ms[0]); ml_xsum_init(&ms[1]); ml_xsum_init(&as); }
  sp = ml_pow2_scale(r->W[1]); sn = ml_pow2_scale(r->W[0]);
  memset(r->share, 0, sizeof(double) * 2 * (size_t)nb);
  while( i[0]<n[0] || i[1]<n[1] ){
    ml_key k = i[0]<n[0] && (i[1]>=n[1] || a[0][i[0]].key<=a[1][i[1]].key) ? a[0][i[0]].key : a[1][i[1]].key;
    double t = ml_double_of(k), d[2] = {0.0, 0.0}, diff;
    for(g=0; g<2; g++){
      if( i[g]<n[g] && a[g][i[g]].key==k ) d[g] = tie_weight(a[g], n[g], i[g], k, &i[g]);
    }
    if( isinf(t) ) inf = 1;
    if( started ) ml_xsum_add(&ws, fabs(U - V) * (t - prev), 1);
    /* the bin of t: the first edge >= t */
    while( b<r->nEdge && r->edge[b]<t ) b++;
    r->share[b] += d[0];
    r->share[nb + b] += d[1];
    if( report ){
      if( d[0]>0.0 ){
        ml_xsum_add_product(&ms[0], t, d[0], 1);
        /* the trapezoid where the reference (the negatives) steps: d_0 times
        ** twice the current weight at or above t, less d_1 (ml_wfold_auroc) */
        if( u2ok ){
          u2 += (uint64_t)d[0] * (uint64_t)(2.0*(r->W[1] - c[1]) - d[1]);
        }else{
          double bb = (2.0*(r->W[1] - c[1]) - d[1])*sp, f = d[0]*sn, hi = f*bb;
          ml_xsum_add(&as, hi, 1);
          ml_xsum_add(&as, fma(f, bb, -hi), 1);
        }
      }
      if( d[1]>0.0 ) ml_xsum_add_product(&ms[1], t, d[1], 1);
    }
    c[0] += d[0];
    c[1] += d[1];
    U = c[0]/r->W[0];
    V = c[1]/r->W[1];
    diff = U - V;
    if( diff>maxS ) maxS = diff;
    if( diff<minS ) minS = diff;
    prev = t;
    started = 1;
  }
  minS = -minS;
  if( minS>1.0 ) minS = 1.0;
  r->ks = minS>maxS ? minS : maxS;
  r->wass = inf ? NAN : ml_xsum_round(&ws);
  if( report ){
    r->mean[0] = ml_xsum_round(&ms[0]) / r->W[0];
    r->mean[1] = ml_xsum_round(&ms[1]) / r->W[1];
    /* auroc(g, x)'s expression: ml_fold_auroc, unweighted or weighted */
    r->auroc = u2ok ? (double)u2 / (2.0 * r->W[1] * r->W[0])
                    : ml_xsum_round(&as) / (2.0 * (r->W[1]*sp) * (r->W[0]*sn));
  }
}

/* The PSI from the bins' weights (rule 3); the shares become proportions. */
static void psi_fold(MonResult *r){
  ml_i64 nb = r->nEdge + 1, b;
  MlXsum a;
  ml_xsum_init(&a);
  for(b=0; b<r->nEdge; b++) if( isnan(r->edge[b]) ){ r->psi = NAN; break; }
  for(b=0; b<nb; b++){
    r->share[b] /= r->W[0];
    r->share[nb + b] /= r->W[1];
    {
      double rr = r->share[b] > 0.0 ? r->share[b] : MON_PSI_FLOOR;
      double cc = r->share[nb + b] > 0.0 ? r->share[nb + b] : MON_PSI_FLOOR;
      ml_xsum_add(&a, (cc - rr) * log(cc / rr), 1);
    }
  }
  if( !isnan(r->psi) ) r->psi = ml_xsum_round(&a);
}

/* Everything of rules 3 to 6 on the group's sorted sample, both periods
** non-empty.  ML_OK or ML_NOMEM; r->edge and r->share are the caller's to free. */
static int mon_compute(MlSamples *s, ml_i64 B, int kind, MonResult *r){
  int g;
  memset(r, 0, sizeof(*r));
  /* states' entries arrive in order: a buffer that holds one state per
  ** period (or rows in order) needs no sort; any other stops at its first
  ** descent, a few records in */
  if( !s->sorted ){
    int ok = 1;
    for(g=0; g<2 && ok; g++){
      const MlRec16 *a = (const MlRec16*)s->a[g];
      ml_i64 i;
      for(i=1; i<s->n[g]; i++) if( a[i].key<a[i-1].key ){ ok = 0; break; }
    }
    if( ok ) s->sorted = 1;
  }
  if( ml_samples_sort(s) ) return ML_NOMEM;
  for(g=0; g<2; g++){
    ml_i64 i;
    double w = 0.0;
    for(i=0; i<s->n[g]; i++) w += ml_samples_aux(s, g, i);
    r->W[g] = w;
  }
  if( kind==MON_PSI || kind==MON_REPORT ){
    if( psi_edges(s, B, r->W[0], &r->edge, &r->nEdge) ) return ML_NOMEM;
  }
  r->share = ml_malloc(sizeof(double) * 2 * (uint64_t)(r->nEdge + 1));
  if( r->share==0 ) return ML_NOMEM;
  mon_walk(s, kind, r);
  psi_fold(r);
  if( kind==MON_KS || kind==MON_REPORT ){
    if( ks_pvalue(r) ) return ML_NOMEM;
  }
  return ML_OK;
}

static void json_num_or_null(MlJson *j, const char *k, double v){
  ml_json_key(j, k);
  ml_json_double(j, v + 0.0);
}

static void write_report(MlJson *j, const MonResult *r){
  ml_i64 nb = r->nEdge + 1, b;
  ml_json_begin_object(j);
  json_num_or_null(j, "n_ref", r->W[0]);
  json_num_or_null(j, "n_cur", r->W[1]);
  json_num_or_null(j, "psi", r->psi);
  ml_json_key(j, "bins");
  ml_json_begin_array(j);
  for(b=0; b<nb; b++){
    double rr = r->share[b] > 0.0 ? r->share[b] : MON_PSI_FLOOR;
    double cc = r->share[nb + b] > 0.0 ? r->share[nb + b] : MON_PSI_FLOOR;
    ml_json_begin_object(j);
    ml_json_key(j, "lo"); if( b==0 ) ml_json_null(j); else ml_json_double(j, r->edge[b-1]);
    ml_json_key(j, "hi"); if( b==nb-1 ) ml_json_null(j); else ml_json_double(j, r->edge[b]);
    json_num_or_null(j, "ref", r->share[b]);
    json_num_or_null(j, "cur", r->share[nb + b]);
    json_num_or_null(j, "contribution", isnan(r->psi) ? NAN : (cc - rr) * log(cc / rr));
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
  json_num_or_null(j, "ks", r->ks);
  json_num_or_null(j, "ks_p_value", r->ksP);
  ml_json_key(j, "ks_method"); ml_json_string(j, r->ksMethod);
  json_num_or_null(j, "wasserstein", r->wass);
  json_num_or_null(j, "mean_ref", r->mean[0]);
  json_num_or_null(j, "mean_cur", r->mean[1]);
  json_num_or_null(j, "auroc_period", r->auroc);
  ml_json_end_object(j);
}

static void mon_emit(sqlite3_context *ctx, const MlFuncDesc *d, const MonResult *r){
  MlJson j;
  switch( d->kind ){
    case MON_PSI:
      if( isnan(r->psi) ){
        ml_result_null(ctx, d->name, "a reference quantile is NaN (the reference holds infinite values)");
      }else{
        sqlite3_result_double(ctx, r->psi);
      }
      return;
    case MON_WASS:
      if( isnan(r->wass) ){
        ml_result_null(ctx, d->name, "x holds an infinite value: the distance is undefined");
      }else{
        sqlite3_result_double(ctx, r->wass);
      }
      return;
    case MON_KS:
      ml_json_init(&j);
      ml_json_begin_object(&j);
      json_num_or_null(&j, "statistic", r->ks);
      json_num_or_null(&j, "p_value", r->ksP);
      ml_json_key(&j, "method"); ml_json_string(&j, r->ksMethod);
      ml_json_end_object(&j);
      ml_result_json(ctx, &j);
      return;
    default:
      ml_json_init(&j);
      write_report(&j, r);
      ml_result_json(ctx, &j);
      return;
  }
}

static void mon_result(sqlite3_context *ctx, MonAgg *p, int isFinal){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 n = p && p->init ? ml_samples_count(&p->smp) : 0;
  MonResult r;
  int rc;
  if( p && p->failed ) return;
  if( p && d->aParam && ml_param_check(ctx, d->name, "bins", &p->bins)!=ML_ROW_OK ) return;
  if( n==0 || p->smp.n[0]==0 || p->smp.n[1]==0 ){
    ml_result_null(ctx, d->name, "the %s period (g = %d) has no rows",
                   n>0 && p->smp.n[0]>0 ? "current" : "reference", n>0 && p->smp.n[0]>0 ? 1 : 0);
    return;
  }
  if( ml_compute_begin(ctx, isFinal, n) ) return;
  rc = mon_compute(&p->smp, (ml_i64)ml_param_value(&p->bins, 10.0), d->kind, &r);
  if( rc ){
    sqlite3_result_error_nomem(ctx);
  }else if( !ml_stop_happened() ){
    mon_emit(ctx, d, &r);
  }
  ml_free(r.edge);
  ml_free(r.share);
  ml_compute_end(ctx);
}

static void monValue(sqlite3_context *ctx){
  mon_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}
static void monFinal(sqlite3_context *ctx){
  MonAgg *p = sqlite3_aggregate_context(ctx, 0);
  mon_result(ctx, p, 1);
  if( p && p->init ) ml_samples_clear(&p->smp);
}

/* ------------------------------------------------------------- records */

static const MlFamily famMonitoring = { "monitoring", monStep, monFinal, monValue, monInverse, 0,
                                        monStepW, monInverseW };

const MlFuncDesc ml_drift_functions[] = {
  { "psi",          "g, x [, bins]", 2, 3, &famMonitoring, 0, MON_PSI,
                    ML_FN_WEIGHTED, ML_PARAMS(&psMonBins) },
  { "ks_test",      "g, x",                   2, 2, &famMonitoring, 0, MON_KS,
                    ML_FN_JSON, 0 },
  { "wasserstein",  "g, x",                   2, 2, &famMonitoring, 0, MON_WASS,
                    ML_FN_WEIGHTED, 0 },
  { "drift_report", "g, x [, bins]", 2, 3, &famMonitoring, 0, MON_REPORT,
                    ML_FN_JSON, ML_PARAMS(&psMonBins) },
  { 0 }
};
