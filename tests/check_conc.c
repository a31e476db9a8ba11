/*
** SPDX-License-Identifier: MIT
**
** check_conc.c -- the concordance core (ml_conc.c): Harrell's and Uno's C,
** their pair counts, var and per-row influence.
**
**   - against R survival 3.5-3's concordance(..., reverse = TRUE,
**     influence = 1 [, ymax] [, timewt = "n/G2"] [, weights]) on five fixed
**     sets with ties in time, in risk, censorings tied with events, tau and
**     integer and real weights (numbers from Rscript, 17 digits; R's
**     weighted dfbeta is divided by w, its var recomputed by the frequency
**     rule sum dfbeta^2 / w).  Unit-weight Harrell is R's double bit for bit;
**   - against an O(n^2) pair count and the influence differentiated from
**     the definition, on 600 random tied sets (no / integer / real
**     weights, Harrell and Uno, tau at an event time, between times, before
**     every time) and a few large ones that take the radix sort's paths,
**     some of them with the rows in time order (no second sort);
**   - integer weights = repeated rows, bit for bit (rule 5);
**   - the undefined cases (no comparable pair), ml_conc_var, the stop, and
**     out of memory at each allocation.
** tests/r/conc_check.R compares hundreds more sets with live R.
*/
#include <math.h>
#include <stdlib.h>
#include <sqlite3.h>
#include "check_suites.h"
#include "ml_conc.h"

#define MAXR 16

/* ------------------------------------------------------------ references */

/* G(T_i-) by SPEC rule 2 (censorings after events), as survival's fastkm1. */
static void ref_g_left(int n, const double *t, const int *e, const double *w, double *g){
  int i, j;
  for(i=0; i<n; i++){
    double G = 1.0, u = -INFINITY;
    for(;;){
      double next = INFINITY, nrisk = 0.0, cens = 0.0;
      for(j=0; j<n; j++) if( !e[j] && t[j]>u && t[j]<t[i] && t[j]<next ) next = t[j];
      if( next==INFINITY ) break;
      for(j=0; j<n; j++){
        if( t[j]>next || (t[j]==next && !e[j]) ) nrisk += w ? w[j] : 1.0;
        if( t[j]==next && !e[j] ) cens += w ? w[j] : 1.0;
      }
      G = G*(nrisk - cens)/nrisk;
      u = next;
    }
    g[i] = G;
  }
}

/* Every pair, by ml_conc.h's definitions (the copies of a weighted row
** are events tied in both), the counts summed exactly; and the influence
** D_i = dC/dw_i straight from C = (c + t/2)/(c + d + t). */
static void brute(int n, const double *t, const int *e, const double *x, const double *w,
                  const double *g, double tau, MlConc *o, double *D){
  int i, j, k;
  double *dc = calloc(n+1, 8), *dd = calloc(n+1, 8), *dt = calloc(n+1, 8);
  double np;
  MlXsum xs[6];         /* concordant, discordant, tied_risk, tied_time, tied_both, tied_self */
  for(k=0; k<6; k++) ml_xsum_init(xs+k);
  for(i=0; i<n; i++){
    double tw, wi = w ? w[i] : 1.0;
    if( !e[i] || !(t[i]<=tau) ) continue;
    tw = g ? 1.0/(g[i]*g[i]) : 1.0;
    ml_xsum_add_product(xs+4, tw, wi*(wi - 1.0)/2.0, 1);
    ml_xsum_add_product(xs+5, tw, wi*(wi - 1.0)/2.0, 1);
    for(j=0; j<n; j++){
      double wj = w ? w[j] : 1.0, pw = tw*wi*wj;
      if( j==i ) continue;
      if( t[j]==t[i] && e[j] ){
        if( j>i ) ml_xsum_add(xs + (x[i]==x[j] ? 4 : 3), pw, 1);
        continue;
      }
      if( t[j]<t[i] ) continue;
      if( x[i]>x[j] ){ ml_xsum_add(xs+0, pw, 1); dc[i] += tw*wj; dc[j] += tw*wi; }
      else if( x[i]<x[j] ){ ml_xsum_add(xs+1, pw, 1); dd[i] += tw*wj; dd[j] += tw*wi; }
      else { ml_xsum_add(xs+2, pw, 1); dt[i] += tw*wj; dt[j] += tw*wi; }
    }
  }
  memset(o, 0, sizeof(*o));
  o->concordant = ml_xsum_round(xs+0);
  o->discordant = ml_xsum_round(xs+1);
  o->tied_risk = ml_xsum_round(xs+2);
  o->tied_time = ml_xsum_round(xs+3);
  o->tied_both = ml_xsum_round(xs+4);
  o->tied_self = ml_xsum_round(xs+5);
  np = o->concordant + o->discordant + o->tied_risk;
  o->estimate = np>0 ? (o->concordant + 0.5*o->tied_risk)/np : NAN;
  for(i=0; i<n; i++){
    D[i] = np>0 ? ((dc[i] + 0.5*dt[i]) - o->estimate*(dc[i] + dd[i] + dt[i]))/np : NAN;
  }
  o->var = 0.0;
  for(i=0; i<n; i++) o->var += (w ? w[i] : 1.0)*D[i]*D[i];
  if( !(np>0) ) o->var = NAN;
  free(dc); free(dd); free(dt);
}

static int close_rel(double a, double b, double tol){
  if( isnan(a) || isnan(b) ) return isnan(a) && isnan(b);
  return fabs(a - b) <= tol*fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* ------------------------------------------------------------ R's numbers */

typedef struct RRes {
  double count[5];        /* concordant, discordant, tied.x, tied.y, tied.xy */
  double est, var;        /* var: sum dfbeta^2 / w */
  double dfbeta[MAXR];    /* per unit weight */
} RRes;
static const struct RSet {
  int n;
  double tau;
  double time[MAXR];
  int event[MAXR];
  double risk[MAXR], w[MAXR];   /* w[0] == 0: unweighted */
  RRes r[2];                    /* Harrell, Uno */
} aR[] = {
/* set 1 */
{ 10, INFINITY, {1, 2, 2, 3, 3, 3, 4, 5, 5, 6}, {1, 1, 0, 1, 1, 0, 0, 1, 1, 0}, {5, 3, 3, 4, 4, 1, 2, 2, 0, 1}, {0},
  {
  { {25, 3, 1, 1, 1}, 0.87931034482758619, 0.0051811090641484788,
    {0.037455410225921526, -0.048751486325802618, -0.0089179548156956001, -0.005350772889417349, -0.005350772889417349, 0.016646848989298454, 0.016646848989298454, 0.020808561236623072, -0.01367419738406659, -0.0095124851367419661} },
  { {30.689342403628117, 5.6281179138322006, 1, 3.6281179138322015, 1.3061224489795917}, 0.83578416479309725, 0.010450232843440727,
    {0.039604584671337262, -0.027388184363116165, -0.0045975349910379621, 0.010741931825263909, 0.010741931825263909, 0.020296227065129756, 0.020296227065129749, 0.036261794078014511, -0.060961272094434936, -0.044995705081550166} },
  } },
/* set 2 */
{ 12, 7, {2, 2, 2, 4, 4, 5, 7, 7, 8, 9, 9, 9}, {1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0}, {0.29999999999999999, 0.29999999999999999, 0.10000000000000001, 0.90000000000000002, 0.20000000000000001, 0.5, 0.5, 0.10000000000000001, 0.69999999999999996, 0.20000000000000001, 0.40000000000000002, 0.40000000000000002}, {0},
  {
  { {23, 18, 1, 1, 1}, 0.55952380952380953, 0.012668814691409442,
    {-0.037981859410430835, -0.037981859410430835, 0.020975056689342401, 0.057256235827664398, 0.031462585034013606, 0.011054421768707481, 0.00056689342403628065, -0.011337868480725623, -0.05612244897959183, 0.039115646258503403, -0.0085034013605442167, -0.0085034013605442167} },
  { {29.164021164021165, 21.674981103552533, 1.6124968505920887, 1.6124968505920885, 1}, 0.57139014314535497, 0.013433265984619107,
    {-0.032675928434235467, -0.032675928434235467, 0.016343092726064809, 0.058919259450544034, 0.026431421569314696, 0.021246574337200012, 0.0080699815623430319, -0.030656120849031729, -0.064397143847107707, 0.035218573320727822, -0.0029118907007920185, -0.0029118907007920185} },
  } },
/* set 3 */
{ 11, 5.5, {1, 1, 2, 3, 4, 4, 4, 6, 6, 8, 10}, {0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 0}, {3, 1, 2, 2, 5, 5, 1, 4, 4, 2, 3}, {0},
  {
  { {11, 14, 3, 0, 1}, 0.4464285714285714, 0.039233327259475217,
    {-0.015943877551020409, -0.14158163265306123, -0.072066326530612249, -0.014030612244897957, 0.066964285714285712, 0.066964285714285712, 0.061224489795918366, 0.0076530612244897957, 0.0076530612244897957, 0.025510204081632654, 0.0076530612244897957} },
  { {17.359536407155453, 15.172839506172838, 3.4691358024691357, 0, 1.6124968505920887}, 0.53036951501154728, 0.04133935056372838,
    {-0.014731867905947457, -0.13343037336978317, -0.091647572213125403, -0.01577330274083151, 0.072253679690622657, 0.072253679690622657, 0.057330274891278475, 0.0091498563875343324, 0.0091498563875343324, 0.026295912794560714, 0.0091498563875343254} },
  } },
/* set 4 */
{ 14, INFINITY, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7}, {1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1}, {2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5, 9, 0}, {1, 2, 3, 1, 2, 1, 1, 4, 2, 1, 3, 1, 2, 1},
  {
  { {80, 100, 26, 9, 0}, 0.45145631067961167, 0.0090347227046583493,
    {-0.0067159958525779993, 0.019747384296352154, 0.013549816193797718, 0.034310491092468656, -0.0057027052502592133, -0.015175794137053444, -0.025897822603449902, -0.01807427655763974, 0.017155245546234328, 0.02241021773965501, -0.0032755207842397969, 0.0037703836365350174, -0.032401734376472806, 0.031176359694598924} },
  { {98.853839806241439, 129.6846064814815, 32.066743827160494, 11.460937500000002, 0}, 0.44084775007426213, 0.0073337782388005627,
    {-0.0043725078967372022, 0.01650523343940332, 0.010954937230129165, 0.028016899798302391, -0.0083002196165558421, -0.003820558559883433, -0.019494416053428193, -0.015849176643384782, 0.016834727839810486, 0.018650824821060934, -0.0048077479217335916, 0.0077873232953529822, -0.031859340091025173, 0.031826770100419295} },
  } },
/* set 5 */
{ 12, 5, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8}, {1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0}, {2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5}, {0.5, 1.25, 2, 0.75, 1, 3, 0.25, 1.5, 2.5, 1, 0.5, 2},
  {
  { {27.75, 23.125, 13.375, 1.9375, 0}, 0.53599221789883267, 0.015484063194908082,
    {-0.033554633681054977, 0.017309118987418434, 0.025136640978667354, 0.060110675407651887, -0.036325303941013493, -0.030178352435313176, -0.086784054262744326, -0.030178352435313176, 0.022350830444064256, 0.042320852700267989, -0.020761101606383139, 0.0028955775257763182} },
  { {28.271541950113381, 27.193027210884356, 14.418083900226758, 2.1461167800453516, 0}, 0.50771661272135826, 0.01646396201646589,
    {-0.024881998056322321, 0.021679747438800197, 0.024627895864043337, 0.061031430289059378, -0.048057313275269915, -0.030168671897794968, -0.073315273234590028, -0.030168671897794968, 0.024097063502495446, 0.04487780336004623, -0.026284500088278439, 0.00023944666831440093} },
  } },
};

/* R's counts, estimate, var and dfbeta on the fixed sets; unit-weight
** Harrell bit for bit. */
START_TEST(test_conc_matches_r){
  size_t k;
  int m, i;
  for(k=0; k<sizeof(aR)/sizeof(aR[0]); k++){
    const struct RSet *s = &aR[k];
    const double *w = s->w[0]==0.0 ? 0 : s->w;
    double g[MAXR], df[MAXR];
    ref_g_left(s->n, s->time, s->event, w, g);
    for(m=0; m<2; m++){
      const RRes *r = &s->r[m];
      MlConc c;
      int exact = w==0 && m==0;
      double tolc = exact ? 0.0 : 1e-14;
      ck_assert_int_eq(ml_concordance(s->n, s->time, s->event, s->risk, w, m ? g : 0, s->tau, &c, df), ML_OK);
      ck_assert_msg(close_rel(c.concordant, r->count[0], tolc), "set %zu m %d concordant %.17g R %.17g", k, m, c.concordant, r->count[0]);
      ck_assert_msg(close_rel(c.discordant, r->count[1], tolc), "set %zu m %d discordant %.17g R %.17g", k, m, c.discordant, r->count[1]);
      ck_assert_msg(close_rel(c.tied_risk, r->count[2], tolc), "set %zu m %d tied_risk %.17g R %.17g", k, m, c.tied_risk, r->count[2]);
      ck_assert_msg(close_rel(c.tied_time, r->count[3], tolc), "set %zu m %d tied_time %.17g R %.17g", k, m, c.tied_time, r->count[3]);
      ck_assert_msg(close_rel(c.tied_both - c.tied_self, r->count[4], tolc), "set %zu m %d tied_both %.17g R %.17g", k, m, c.tied_both, r->count[4]);
      ck_assert(w || c.tied_self==0.0);
      ck_assert_msg(exact ? c.estimate==r->est : fabs(c.estimate - r->est)<=4e-16,
                    "set %zu m %d estimate %.17g R %.17g", k, m, c.estimate, r->est);
      ck_assert_msg(exact ? c.var==r->var : close_rel(c.var, r->var, 1e-13),
                    "set %zu m %d var %.17g R %.17g", k, m, c.var, r->var);
      for(i=0; i<s->n; i++){
        ck_assert_msg(exact ? df[i]==r->dfbeta[i] : fabs(df[i] - r->dfbeta[i])<=1e-15,
                      "set %zu m %d dfbeta[%d] %.17g R %.17g", k, m, i, df[i], r->dfbeta[i]);
      }
    }
  }
}
END_TEST

/* ------------------------------------------------------------ random sets */

typedef struct Data { int n; double *t, *x, *w, *g; int *e; } Data;

static void data_free(Data *d){ free(d->t); free(d->x); free(d->w); free(d->g); free(d->e); }

/* n rows: times on a grid of nt values (0 included), events with
** probability pe, risks on a grid of nx values (0: continuous), weights
** kind 0 none, 1 integers 1..4, 2 real. */
static Data data_make(int n, int nt, double pe, int nx, int wkind){
  Data d;
  int i;
  d.n = n;
  d.t = malloc(8*(n+1)); d.x = malloc(8*(n+1)); d.w = malloc(8*(n+1)); d.g = malloc(8*(n+1));
  d.e = malloc(sizeof(int)*(n+1));
  for(i=0; i<n; i++){
    d.t[i] = nt ? floor(test_rand01()*nt)*0.5 : test_rand01()*10.0;
    d.e[i] = test_rand01() < pe;
    d.x[i] = nx ? floor(test_rand01()*nx) - 2.0 : test_rand01() - 0.5;
    d.w[i] = wkind==1 ? 1.0 + floor(test_rand01()*4) : 0.1 + 2.9*test_rand01();
    d.g[i] = 1.0;
  }
  if( wkind==0 ){ free(d.w); d.w = 0; }
  return d;
}

/* The rows of d in ascending time (ties in a scrambled order): the path
** that skips the second sort. */
static Data data_by_time(const Data *d){
  Data o;
  int *ix = malloc(sizeof(int)*(d->n+1)), i, j;
  for(i=0; i<d->n; i++) ix[i] = (i*7919) % d->n;     /* a permutation when gcd = 1 ... */
  if( d->n % 7919==0 ) for(i=0; i<d->n; i++) ix[i] = i;
  for(i=1; i<d->n; i++){                              /* ... then insertion sort by time */
    int v = ix[i];
    for(j=i; j>0 && d->t[ix[j-1]]>d->t[v]; j--) ix[j] = ix[j-1];
    ix[j] = v;
  }
  o.n = d->n;
  o.t = malloc(8*(o.n+1)); o.x = malloc(8*(o.n+1)); o.g = malloc(8*(o.n+1));
  o.e = malloc(sizeof(int)*(o.n+1)); o.w = d->w ? malloc(8*(o.n+1)) : 0;
  for(i=0; i<o.n; i++){
    o.t[i] = d->t[ix[i]]; o.x[i] = d->x[ix[i]]; o.g[i] = d->g[ix[i]]; o.e[i] = d->e[ix[i]];
    if( d->w ) o.w[i] = d->w[ix[i]];
  }
  free(ix);
  return o;
}

/* A tau: +Inf, an event's time, between two grid times, or before all. */
static double pick_tau(const Data *d){
  double u = test_rand01();
  int i;
  if( u<0.4 ) return INFINITY;
  if( u<0.9 ){
    for(i=0; i<d->n; i++) if( d->e[i] ) return d->t[i] + (u<0.65 ? 0.0 : 0.25);
    return INFINITY;
  }
  return -1.0;
}

static void check_against_brute(const Data *d, const double *g, double tau, const char *what){
  MlConc c, b;
  double *df = malloc(8*(d->n+1)), *db = malloc(8*(d->n+1));
  int i;
  ck_assert_int_eq(ml_concordance(d->n, d->t, d->e, d->x, d->w, g, tau, &c, df), ML_OK);
  brute(d->n, d->t, d->e, d->x, d->w, g, tau, &b, db);
  ck_assert_msg(close_rel(c.concordant, b.concordant, 1e-13) && close_rel(c.discordant, b.discordant, 1e-13)
                && close_rel(c.tied_risk, b.tied_risk, 1e-13) && close_rel(c.tied_time, b.tied_time, 1e-13)
                && close_rel(c.tied_both, b.tied_both, 1e-13) && close_rel(c.tied_self, b.tied_self, 1e-13),
                "%s n %d tau %g: counts %.17g %.17g %.17g %.17g %.17g, pairs say %.17g %.17g %.17g %.17g %.17g",
                what, d->n, tau, c.concordant, c.discordant, c.tied_risk, c.tied_time, c.tied_both,
                b.concordant, b.discordant, b.tied_risk, b.tied_time, b.tied_both);
  ck_assert_msg(close_rel(c.estimate, b.estimate, 1e-14), "%s n %d: estimate %.17g, pairs %.17g", what, d->n, c.estimate, b.estimate);
  ck_assert_msg(close_rel(c.var, b.var, 1e-11), "%s n %d: var %.17g, pairs %.17g", what, d->n, c.var, b.var);
  for(i=0; i<d->n; i++){
    ck_assert_msg(close_rel(df[i], db[i], 1e-12), "%s n %d: D[%d] %.17g, pairs %.17g", what, d->n, i, df[i], db[i]);
  }
  /* without dfbeta: the same counts and estimate, var NaN */
  {
    MlConc c2;
    ck_assert_int_eq(ml_concordance(d->n, d->t, d->e, d->x, d->w, g, tau, &c2, 0), ML_OK);
    ck_assert(c2.concordant==c.concordant && c2.discordant==c.discordant && c2.tied_risk==c.tied_risk);
    ck_assert(c2.tied_time==c.tied_time && c2.tied_both==c.tied_both && c2.tied_self==c.tied_self);
    ck_assert(c2.estimate==c.estimate || (isnan(c2.estimate) && isnan(c.estimate)));
    ck_assert(isnan(c2.var));
  }
  free(df); free(db);
}

/* 600 random tied sets against every pair. */
START_TEST(test_conc_matches_pairs){
  int k;
  test_seed(4711);
  for(k=0; k<600; k++){
    static const int aN[] = { 1, 2, 3, 5, 8, 13, 21, 40, 60, 90 };
    int n = aN[k % 10], wkind = (k/10) % 3, uno = (k/30) % 2;
    Data d = data_make(n, (k % 7)==6 ? 0 : 2 + k % 9, 0.2 + 0.7*test_rand01(), (k % 5)==4 ? 0 : 2 + k % 6, wkind);
    double tau = pick_tau(&d);
    if( uno ){
      /* any positive function of time will do for the pair count; the
      ** censoring curve itself half of the time */
      int i;
      if( k % 4 < 2 ) ref_g_left(n, d.t, d.e, d.w, d.g);
      else for(i=0; i<n; i++) d.g[i] = 1.0/(1.0 + 0.15*d.t[i]);
    }
    check_against_brute(&d, uno ? d.g : 0, tau, uno ? "uno" : "harrell");
    if( k % 3==0 ){
      Data o = data_by_time(&d);
      check_against_brute(&o, uno ? o.g : 0, tau, uno ? "uno, by time" : "harrell, by time");
      data_free(&o);
    }
    data_free(&d);
  }
}
END_TEST

/* Larger sets: the radix sort's value and LSD paths (ties, +-Inf risks,
** continuous times). */
START_TEST(test_conc_large_sets){
  int k;
  test_seed(99);
  for(k=0; k<6; k++){
    int n = k<3 ? 700 : 2500, i;
    Data d = data_make(n, k % 3==0 ? 0 : 40*(k+1), 0.5, k % 2 ? 0 : 50, k % 3);
    if( k==1 ){ d.x[3] = INFINITY; d.x[7] = -INFINITY; d.x[11] = INFINITY; }
    if( k==4 ) for(i=0; i<n; i++) d.t[i] = ldexp(d.t[i], -1040);   /* subnormal times */
    check_against_brute(&d, 0, k==5 ? 20.0 : INFINITY, "large");
    if( k<3 ){
      Data o;
      ref_g_left(n, d.t, d.e, d.w, d.g);
      check_against_brute(&d, d.g, INFINITY, "large uno");
      o = data_by_time(&d);
      check_against_brute(&o, 0, INFINITY, "large, by time");
      check_against_brute(&o, o.g, INFINITY, "large uno, by time");
      data_free(&o);
    }
    data_free(&d);
  }
}
END_TEST

/* Integer weights are repeated rows, bit for bit: counts, estimate, var and
** every copy's D (Harrell); counts and estimate (Uno). */
START_TEST(test_conc_integer_weights_are_repeated_rows){
  int k;
  test_seed(31337);
  for(k=0; k<200; k++){
    int n = 1 + k % 37, i, j, r, uno = k % 2;
    Data d = data_make(n, 2 + k % 6, 0.6, k % 3 ? 3 + k % 4 : 0, 1);
    double tau = pick_tau(&d);
    Data e;
    MlConc cw, cr;
    double *dw = malloc(8*(n+1)), *dr;
    int total = 0;
    for(i=0; i<n; i++) total += (int)d.w[i];
    e.n = total;
    e.t = malloc(8*total); e.x = malloc(8*total); e.g = malloc(8*total); e.e = malloc(sizeof(int)*total); e.w = 0;
    dr = malloc(8*total);
    for(i=0, r=0; i<n; i++) for(j=0; j<(int)d.w[i]; j++, r++){ e.t[r] = d.t[i]; e.x[r] = d.x[i]; e.e[r] = d.e[i]; }
    ref_g_left(n, d.t, d.e, d.w, d.g);
    ref_g_left(total, e.t, e.e, 0, e.g);
    ck_assert_int_eq(ml_concordance(n, d.t, d.e, d.x, d.w, uno ? d.g : 0, tau, &cw, dw), ML_OK);
    ck_assert_int_eq(ml_concordance(total, e.t, e.e, e.x, 0, uno ? e.g : 0, tau, &cr, dr), ML_OK);
    ck_assert_msg(cw.concordant==cr.concordant && cw.discordant==cr.discordant && cw.tied_risk==cr.tied_risk
                  && cw.tied_time==cr.tied_time && cw.tied_both==cr.tied_both && cr.tied_self==0.0,
                  "k %d: weighted counts %.17g %.17g %.17g, repeated %.17g %.17g %.17g", k,
                  cw.concordant, cw.discordant, cw.tied_risk, cr.concordant, cr.discordant, cr.tied_risk);
    ck_assert_msg(memcmp(&cw.estimate, &cr.estimate, 8)==0, "k %d: estimate %.17g vs %.17g", k, cw.estimate, cr.estimate);
    if( uno ){
      ck_assert_msg(close_rel(cw.var, cr.var, 1e-13), "k %d: uno var %.17g vs %.17g", k, cw.var, cr.var);
    }else{
      ck_assert_msg(memcmp(&cw.var, &cr.var, 8)==0, "k %d: var %.17g vs %.17g", k, cw.var, cr.var);
      for(i=0, r=0; i<n; i++) for(j=0; j<(int)d.w[i]; j++, r++){
        ck_assert_msg(memcmp(dw+i, dr+r, 8)==0, "k %d: D[%d] %.17g, copy %.17g", k, i, dw[i], dr[r]);
      }
    }
    free(dw); free(dr);
    data_free(&d); data_free(&e);
  }
}
END_TEST

/* No comparable pair: NaN estimate, var and D, the counts still there. */
START_TEST(test_conc_undefined){
  static const double t[] = { 1, 1, 1, 2, 3 }, x[] = { 1, 2, 2, 0, 5 };
  static const int eAll[] = { 1, 1, 1, 0, 0 }, eNone[] = { 0, 0, 0, 0, 0 }, eLast[] = { 0, 0, 0, 0, 1 };
  double df[5];
  MlConc c;
  int i;
  ck_assert_int_eq(ml_concordance(0, t, eAll, x, 0, 0, INFINITY, &c, df), ML_OK);
  ck_assert(isnan(c.estimate) && isnan(c.var) && c.concordant==0.0);
  ck_assert_int_eq(ml_concordance(1, t, eAll, x, 0, 0, INFINITY, &c, df), ML_OK);
  ck_assert(isnan(c.estimate) && isnan(c.var) && isnan(df[0]));
  ck_assert_int_eq(ml_concordance(5, t, eNone, x, 0, 0, INFINITY, &c, df), ML_OK);
  ck_assert(isnan(c.estimate) && isnan(c.var));
  ck_assert_int_eq(ml_concordance(5, t, eLast, x, 0, 0, INFINITY, &c, df), ML_OK);   /* the last row's event */
  ck_assert(isnan(c.estimate) && c.concordant + c.discordant + c.tied_risk==0.0);
  /* three events at one time: 2 pairs tied in time, 1 tied in both, none comparable */
  ck_assert_int_eq(ml_concordance(3, t, eAll, x, 0, 0, INFINITY, &c, df), ML_OK);
  ck_assert(isnan(c.estimate) && c.tied_time==2.0 && c.tied_both==1.0);
  for(i=0; i<3; i++) ck_assert(isnan(df[i]));
  /* tau before every time: nothing counts */
  ck_assert_int_eq(ml_concordance(5, t, eAll, x, 0, 0, 0.5, &c, df), ML_OK);
  ck_assert(isnan(c.estimate) && c.tied_time==0.0);
  /* tau inclusive: at 1 the events at 1 are the earlier rows of 6 pairs */
  ck_assert_int_eq(ml_concordance(5, t, eAll, x, 0, 0, 1.0, &c, df), ML_OK);
  ck_assert(c.concordant==3.0 && c.discordant==3.0 && c.tied_risk==0.0 && c.estimate==0.5);
  /* all risks tied: 1/2 */
  {
    static const double t2[] = { 1, 2, 3, 4 }, x2[] = { 7, 7, 7, 7 };
    static const int e2[] = { 1, 0, 1, 1 };
    ck_assert_int_eq(ml_concordance(4, t2, e2, x2, 0, 0, INFINITY, &c, df), ML_OK);
    ck_assert(c.tied_risk==4.0 && c.estimate==0.5 && c.var==0.0);
  }
  /* a censoring tied with an event is after it; -0.0 is 0 */
  {
    static const double t3[] = { 0.0, -0.0, 2 }, x3[] = { 3, 1, 2 };
    static const int e3[] = { 1, 0, 0 };
    ck_assert_int_eq(ml_concordance(3, t3, e3, x3, 0, 0, INFINITY, &c, df), ML_OK);
    ck_assert(c.concordant==2.0 && c.discordant==0.0 && c.estimate==1.0);
  }
}
END_TEST

/* ml_conc_var: sum w (a - b)^2, exactly summed; c_index_diff's se^2 is
** zero for one score against itself. */
START_TEST(test_conc_var_of_differences){
  static const double a[] = { 0.1, -0.25, 1e-17, 0.3 }, b[] = { 0.05, 0.25, 0.0, 0.3 }, w[] = { 1, 3, 2, 0.5 };
  double want = 0.05*0.05 + 3*0.25 + 0.0;
  ck_assert(fabs(ml_conc_var(4, a, b, w) - want) <= 1e-17);
  ck_assert(ml_conc_var(4, a, a, w)==0.0);
  ck_assert(fabs(ml_conc_var(4, a, 0, 0) - (0.01 + 0.0625 + 0.09)) <= 1e-16);
  ck_assert(ml_conc_var(0, a, b, w)==0.0);
}
END_TEST

/* Out of memory at each of the core's allocations (SQLite's hard heap
** limit, since ml_malloc is sqlite3_malloc64): ML_NOMEM, nothing leaked,
** and the same answer once memory is back. */
START_TEST(test_conc_out_of_memory){
  int n = 5000, k, nNomem = 0;
  Data d;
  MlConc c, want;
  double *df = malloc(8*5000), *dwant = malloc(8*5000);
  sqlite3_int64 base, old;
  test_seed(8);
  d = data_make(n, 50, 0.5, 0, 2);
  ref_g_left(n, d.t, d.e, d.w, d.g);
  ck_assert_int_eq(ml_concordance(n, d.t, d.e, d.x, d.w, d.g, INFINITY, &want, dwant), ML_OK);
  base = sqlite3_memory_used();
  old = sqlite3_hard_heap_limit64(-1);
  for(k=0; k<=12; k++){
    int rc;
    sqlite3_hard_heap_limit64(base + (sqlite3_int64)k*40000 + 1);
    rc = ml_concordance(n, d.t, d.e, d.x, d.w, d.g, INFINITY, &c, df);
    sqlite3_hard_heap_limit64(old);
    ck_assert_msg(rc==ML_OK || rc==ML_NOMEM, "limit %d: rc %d", k, rc);
    ck_assert_msg(sqlite3_memory_used()==base, "limit %d: %lld bytes left", k, (long long)(sqlite3_memory_used() - base));
    if( rc==ML_NOMEM ){ nNomem++; continue; }
    ck_assert(memcmp(&c.estimate, &want.estimate, 8)==0 && memcmp(&c.var, &want.var, 8)==0);
  }
  ck_assert_int_ge(nNomem, 3);            /* each of the three allocations failed once */
  data_free(&d);
  free(df); free(dwant);
}
END_TEST

static int always_stop(void *arg){ (void)arg; return 1; }

/* A statement being abandoned: the sorts and walks ask, and stop. */
START_TEST(test_conc_stops_when_asked){
  int n = 300000;
  Data d;
  MlConc c;
  test_seed(5);
  d = data_make(n, 0, 0.5, 0, 0);
  ml_stop_install(always_stop, 0);
  ck_assert_int_eq(ml_concordance(n, d.t, d.e, d.x, 0, 0, INFINITY, &c, 0), ML_STOPPED);
  ml_stop_install(0, 0);
  ck_assert_int_eq(ml_concordance(n, d.t, d.e, d.x, 0, 0, INFINITY, &c, 0), ML_OK);
  ck_assert(c.estimate>0.45 && c.estimate<0.55);
  data_free(&d);
}
END_TEST

Suite *suite_conc(void){
  Suite *s = suite_create("conc");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_conc_matches_r);
  tcase_add_test(tc, test_conc_matches_pairs);
  tcase_add_test(tc, test_conc_large_sets);
  tcase_add_test(tc, test_conc_integer_weights_are_repeated_rows);
  tcase_add_test(tc, test_conc_undefined);
  tcase_add_test(tc, test_conc_var_of_differences);
  tcase_add_test(tc, test_conc_stops_when_asked);
  tcase_add_test(tc, test_conc_out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}
