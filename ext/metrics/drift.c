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
**                                 the same over two states
**   ml_state_dist(x), ml_state_dist_w(x, w)
**                                 a label-free state: one column's distribution
**
** Rules:
**   1. g is 0 or 1 (the label rules: INTEGER, integral REAL, numeric TEXT);
**      x any number (+-Inf included).  A NULL g or x skips the row.  bins
**      is an integer in 1..100000, the same in every row of a group.
**   2. A period without rows makes the result NULL with a SQLITE_WARNING
**      naming the empty period; in the two-state form, where only pairs
**      with a NULL state (a state of no rows: a day with no rows yet) were
**      seen, it names the NULL one ("the current period has no rows (st_cur
**      is NULL ...)").
**   3. PSI: the edges are the reference's quantiles at 1/B .. (B-1)/B
**      (numpy's linear quantile, ml_wquantile: on the cumulative-weight axis
**      for the twin, stepping once per distinct x by its tie group's exact
**      weight), sorted, duplicates removed; the bins are (-Inf, e_1],
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
**      branches followed (drift_ks.c); docs/monitoring.md gives the
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
**   8. The two-state form: each argument a state of one of the family's
**      formKinds (ml_form_kinds): ml_state_dist(x) or ml_state_dist_w(x, w)
**      (every row with an x, labelled or not), or ml_state(y, s) [, strat]
**      (its labelled rows: both classes summed); the two may be of
**      different kinds (docs/decisions.md); ks_test and drift_report, which
**      have no twin, read no weighted one.  SQLite picks it by argument
**      count with psi(g, x) and the step tells them apart by the BLOB (or a
**      NULL st_ref beside one).  An entry of c rows weighing w is one record
**      weighing c w, or two whose exact sum it is (ml_count_weight),
**      O(entries); tie groups, the periods' weights and the quantile axis are
**      exact sums, so the result is the row query's bit for bit, weighted
**      too.  Several pairs in a group merge (the st_ref of every row the
**      reference).  A NULL state skips the pair; anything else but a state
**      is an error.
**   9. Window frames: the rows (records) are kept; xInverse removes the
**      row, a result sorts and recomputes, so a frame equals the aggregate
**      over its rows.
**  10. ml_state_dist(x) [ml_state_dist_w(x, w)]: the group's rows with a
**      non-NULL x (any number, +-Inf included; -0 is 0) as a distribution
**      state (ml_state.h, kinds 9 and 10); the weight as the twins read it
**      (a non-negative finite number; NULL or 0 skips the row; read before
**      x); NULL for no rows (of positive weight).  Window frames remove rows.
**
** Cost: 16 bytes per row (x and its weight, by period); a result sorts
** (O(n) radix), walks both periods once, and holds 16 bytes per reference
** row for the quantiles; the KS p-value's cost is drift_ks.c's.  A
** distribution state's maker holds 8 bytes a row (16 weighted) until its
** result sorts them.
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
#include "drift.h"

enum { MON_PSI = 1, MON_KS, MON_WASS, MON_REPORT };

#define MON_MAX_BINS 100000
#define MON_PSI_FLOOR 1e-4

typedef struct MonAgg {
  MlSamples smp;      /* a[0] the reference, a[1] the current period: key x, aux weight */
  MlParam bins;
  int init;
  int failed;         /* a step set an error: results only free */
  int nNull[2];       /* pairs skipped for a NULL st_ref, st_cur (rule 2's warning) */
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

/* Adds (sign +1) or removes (-1) one entry's rows as records: c rows of
** weight w (1 for a state of counts) are one record weighing c w, or two
** whose exact sum it is (ml_count_weight), so that a tie group's exact sum
** (tie_weight) is the rows' own.  ML_ROW_OK or ML_ROW_ERR (no memory). */
static int mon_entry(sqlite3_context *ctx, MonAgg *p, int g, double x, ml_i64 c, double w, int sign){
  double part[2];
  int i, n;
  if( w==1.0 ){ part[0] = (double)c; n = 1; }
  else n = ml_count_weight(c, w, part);
  for(i=0; i<n; i++){
    if( sign>0 ){
      if( ml_add_row(ctx, &p->smp, g, x, part[i]) ) return ML_ROW_ERR;
    }else{
      ml_samples_remove(&p->smp, g, x, part[i]);
    }
  }
  return ML_ROW_OK;
}

/* Adds (sign +1) or removes (-1) the entries of a two-state pair (rule 8). */
static int mon_states(sqlite3_context *ctx, const MlFuncDesc *d, sqlite3_value **argv, MonAgg *p, int sign){
  static const char *const azName[2] = {"st_ref", "st_cur"};
  MlState st[2];
  int g, rc;
  for(g=0; g<2; g++){
    rc = ml_state_arg(ctx, d->name, argv[g], azName[g], ml_form_kinds(d), &st[g]);
    if( rc==ML_ROW_SKIP ){
      /* a NULL state skips the pair; the warning names it (rule 2) */
      if( sqlite3_value_type(argv[0])==SQLITE_NULL ) p->nNull[0] += sign;
      if( sqlite3_value_type(argv[1])==SQLITE_NULL ) p->nNull[1] += sign;
    }
    if( rc!=ML_ROW_OK ) return rc;
  }
  for(g=0; g<2; g++){
    MlReader rd;
    MlEntry e;
    const int weighted = st[g].kind==ML_STATE_DIST_W;
    ml_reader_init(&rd, &st[g].sec[0]);
    while( ml_reader_next(&rd, &e) ){
      double x = ml_double_of(e.key) + 0.0, w = weighted ? ml_double_of_zkey(e.zkey) : 1.0;
      ml_i64 c = e.n[0] + e.n[1];
      if( c<=0 ) continue;
      if( mon_entry(ctx, p, g, x, c, w, sign) ) return ML_ROW_ERR;
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
  /* a state pair: a BLOB first, or a NULL st_ref beside a BLOB (a NULL g
  ** beside a number is a row, skipped) */
  if( !(d->flags & ML_FN_TWIN) && (sqlite3_value_type(argv[0])==SQLITE_BLOB
       || (sqlite3_value_type(argv[0])==SQLITE_NULL && sqlite3_value_type(argv[1])==SQLITE_BLOB)) ){
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

/* The PSI edges (rule 3) from the sorted reference; *pn distinct edges.
** The cumulative-weight axis steps once per distinct x, by its tie group's
** exact weight: rows and the states' records give the same axis. */
static int psi_edges(const MlSamples *s, ml_i64 B, double W0, double **pe, ml_i64 *pn){
  const MlRec16 *a = (const MlRec16*)s->a[0];
  ml_i64 n0 = s->n[0], i, j, nv = 0, at = 0, k = 0;
  double *vb = ml_malloc(sizeof(double) * 2 * (uint64_t)n0), *e, below = 0.0;
  if( vb==0 ) return ML_NOMEM;
  e = ml_malloc(sizeof(double) * (uint64_t)(B > 1 ? B - 1 : 1));
  if( e==0 ){ ml_free(vb); return ML_NOMEM; }
  for(i=0; i<n0; i=j){
    double w = tie_weight(a, n0, i, a[i].key, &j);
    vb[2*nv] = ml_double_of(a[i].key);
    vb[2*nv+1] = below;
    below += w;
    nv++;
  }
  for(i=1; i<B; i++) e[i-1] = ml_wquantile(vb, vb+1, 2, nv, W0, (double)i/(double)B, &at);
  ml_free(vb);
  if( B>1 ) qsort(e, (size_t)(B-1), sizeof(double), cmp_double);
  for(i=0; i<B-1; i++){
    if( k==0 || e[i]!=e[k-1] || isnan(e[i]) ) e[k++] = e[i];
  }
  *pe = e;
  *pn = k;
  return ML_OK;
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
    /* an exact sum: the same double whatever the records' order or split */
    r->W[g] = s->n[g]>0 ? ml_exact_sum(&((const MlRec16*)s->a[g])[0].aux, 2, s->n[g]) : 0.0;
  }
  if( kind==MON_PSI || kind==MON_REPORT ){
    if( psi_edges(s, B, r->W[0], &r->edge, &r->nEdge) ) return ML_NOMEM;
  }
  r->share = ml_malloc(sizeof(double) * 2 * (uint64_t)(r->nEdge + 1));
  if( r->share==0 ) return ML_NOMEM;
  mon_walk(s, kind, r);
  psi_fold(r);
  if( kind==MON_KS || kind==MON_REPORT ){
    MlKsResult k;
    k.W[0] = r->W[0]; k.W[1] = r->W[1]; k.d = r->ks;
    if( ml_ks_pvalue(&k) ) return ML_NOMEM;
    r->ks = k.d; r->ksP = k.p; r->ksMethod = k.method;
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
  if( n==0 && p && (p->nNull[0]>0 || p->nNull[1]>0) ){
    /* only pairs with a NULL state: name the NULL one (a state of no rows) */
    if( p->nNull[0]>0 && p->nNull[1]>0 ){
      ml_result_null(ctx, d->name, "both periods have no rows (st_ref and st_cur are NULL: states of no rows)");
    }else{
      int g = p->nNull[1]>0;
      ml_result_null(ctx, d->name, "the %s period has no rows (%s is NULL: a state of no rows)",
                     g ? "current" : "reference", g ? "st_cur" : "st_ref");
    }
    return;
  }
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

/* ------------------------------------------------ distribution states */

typedef struct DistAgg { MlSamples smp; int init, weighted, failed; } DistAgg;

/* One row of ml_state_dist(x) or ml_state_dist_w(x, w) (rule 10); sign -1
** removes it. */
static void dist_row(sqlite3_context *ctx, int argc, sqlite3_value **argv, int sign){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  DistAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  double x, w = 0.0;
  int rc;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){
    p->weighted = argc==2;
    if( p->weighted ) ml_samples_init_weighted(&p->smp); else ml_samples_init(&p->smp, 8);
    p->init = 1;
  }
  if( p->failed ) return;
  if( p->weighted ){
    /* the weight first, as the twins' driver reads it: a bad weight errs
    ** whatever x is; NULL or 0 skips the row */
    if( ml_arg_weight(ctx, d->name, argv[1], &w)!=ML_ROW_OK ){ p->failed = 1; return; }
    if( w==0.0 ) return;
  }
  rc = ml_arg_score(ctx, d->name, "x", argv[0], &x);
  if( rc==ML_ROW_ERR ){ p->failed = 1; return; }
  if( rc!=ML_ROW_OK ) return;
  x += 0.0;   /* -0 and +0 are one value */
  if( sign>0 ){
    if( ml_add_row(ctx, &p->smp, 0, x, w) ) p->failed = 1;
  }else{
    ml_samples_remove(&p->smp, 0, x, w);
  }
}

/*
** SQL function: ml_state_dist(x), ml_state_dist_w(x, w) -- xStep, xInverse
*/
static void distStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){ dist_row(ctx, argc, argv, 1); }
static void distInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){ dist_row(ctx, argc, argv, -1); }

static void distValue(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  DistAgg *p = sqlite3_aggregate_context(ctx, 0);
  MlSamples *a;
  if( p && p->failed ) return;
  if( p==0 || !p->init || ml_samples_count(&p->smp)==0 ){
    ml_result_null(ctx, d->name, d->nMax==2 ? "no rows of positive weight" : "no rows");
    return;
  }
  a = &p->smp;
  ml_result_state(ctx, &a, 1, p->weighted ? ML_STATE_DIST_W : ML_STATE_DIST);
}
static void distFinal(sqlite3_context *ctx){
  DistAgg *p = sqlite3_aggregate_context(ctx, 0);
  distValue(ctx);
  if( p && p->init ) ml_samples_clear(&p->smp);
}

/* ------------------------------------------------------------- records */

static const MlFamily famMonitoring = { "monitoring", monStep, monFinal, monValue, monInverse, 0,
                                        monStepW, monInverseW,
                                       (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT)
                                       | (1u<<ML_STATE_DIST) | (1u<<ML_STATE_DIST_W) };
/* The distribution states' makers: the partial states' family (ml_state's). */
static const MlFamily famDist = { "state", distStep, distFinal, distValue, distInverse, 0, 0, 0, 0 };

const MlFuncDesc ml_drift_functions[] = {
  { "psi",          "g, x [, bins] | st_ref, st_cur [, bins]", 2, 3, &famMonitoring, 0, MON_PSI,
                    ML_FN_WEIGHTED, ML_PARAMS(&psMonBins) },
  { "ks_test",      "g, x | st_ref, st_cur",  2, 2, &famMonitoring, 0, MON_KS,
                    ML_FN_JSON, 0 },
  { "wasserstein",  "g, x | st_ref, st_cur",  2, 2, &famMonitoring, 0, MON_WASS,
                    ML_FN_WEIGHTED, 0 },
  { "drift_report", "g, x [, bins] | st_ref, st_cur [, bins]", 2, 3, &famMonitoring, 0, MON_REPORT,
                    ML_FN_JSON, ML_PARAMS(&psMonBins) },
  { "ml_state_dist",   "x",    1, 1, &famDist, 0, 0, ML_FN_BLOB, 0 },
  { "ml_state_dist_w", "x, w", 2, 2, &famDist, 0, 0, ML_FN_BLOB, 0 },
  { 0 }
};
