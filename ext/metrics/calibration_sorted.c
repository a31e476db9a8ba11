/*
** SPDX-License-Identifier: MIT
**
** calibration_sorted.c -- the calibration family's estimators over the
** sorted sample: equal-mass bins (ece_equal_mass, ece_l2, ece_l2_debiased,
** brier_decomposition), Kumar's debiased L2 error, the rows of
** calibration_summary and calibration_smooth (validation.c computes their
** results), reliability's 'quantile' edges (for calibration.c's
** reliability), and the weighted twins' cumulative-weight axis.  The
** family's records and binned sums are calibration.c's (calibration.h).
**
** Provides: ml_calsort_family, ml_cal_reliability_quantile,
** ml_cal_reliability_quantile_w (calibration.h).
**
** Rules (the family's rules are calibration.c's header; here rules 3,
** 5 to 11 and 12, the one row model, apply):
**   1. Equal-mass parts are ranks b_i = floor(i * (n/B)) of the rows sorted
**      by p, ties by label; the weighted twins cut the cumulative-weight
**      axis instead, each (p, label) group's exact weight added in order.
**   2. States: each entry is one record weighing its count (the weighted
**      path with counts, the rows' bits); a weighted state's entries weigh
**      c w exactly.
**
** Cost: 8 bytes per row (16 weighted or counted), kept sorted in a sliding
** frame (O(w) a row); a result O(n + B), O(B log n) more for Kumar's and
** the quantile edges.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "calibration.h"

/* The distinct p of a weighted sample in ascending order, each with the
** exact weight of its rows of each class (MlWSweep's tie sums) and its
** place on the cumulative-weight axis: the rows ordered by p, ties by label
** (0 before 1) -- the unweighted equal-mass ranks -- and the weights added
** in that order, so that the negatives of group g lie on [below, below + w0)
** and its positives on [below + w0, below + w0 + w1) (docs/weights.md). */
typedef struct CalWGroup { double v, w0, w1, below; } CalWGroup;
typedef struct CalWGroups {
  CalWGroup *g;       /* ascending p (a new array) */
  ml_i64 n;           /* groups */
  double W, P;        /* the axis' end (the running sum of all weights), the
                      ** running sum of the positives' weights */
} CalWGroups;

/* ML_OK or ML_NOMEM.  The sample is sorted. */
static int weighted_groups(const MlSamples *m, CalWGroups *out){
  ml_i64 n = ml_samples_count(m), k = n, i;
  double c = 0.0, P = 0.0;
  MlWSweep w;
  CalWGroup *g = ml_malloc(sizeof(CalWGroup) * (uint64_t)(n ? n : 1));
  if( g==0 ) return ML_NOMEM;
  ml_wsweep_init(&w, m);
  while( ml_wsweep_next(&w) ){                   /* highest p first: fill from the end */
    k--;
    g[k].v = ml_double_of(w.key); g[k].w0 = w.dfp; g[k].w1 = w.dtp;
  }
  if( k>0 ) memmove(g, g + k, sizeof(CalWGroup) * (size_t)(n - k));
  out->g = g;
  out->n = n - k;
  for(i=0; i<out->n; i++){
    g[i].below = c;
    c += g[i].w0;
    c += g[i].w1;
    P += g[i].w1;
  }
  out->W = c;
  out->P = P;
  return ML_OK;
}

/* One bin of the weighted sorted estimators: its weight, positive weight and
** sum of w p, added piece by piece as the unweighted CalBin's counts and sum
** are, so integer weights give the same doubles. */
typedef struct CalWBin { double n, npos; MlSum sp; } CalWBin;
static void wbin_add(CalWBin *b, double cnt, double pos, double v){
  b->n += cnt;
  b->npos += pos;
  ml_sum_add(&b->sp, cnt * v);
}

/* Edge k of B weighted quantile bins (docs/weights.md): the smallest p at
** k = 0 and the largest at k = B; between, numpy's linear quantile on the
** cumulative-weight axis (ml_wquantile) -- the unweighted rule where every
** weight is 1.  k ascending (*at as ml_wquantile's). */
static double weighted_quantile_edge(const CalWGroups *G, ml_i64 k, ml_i64 B, ml_i64 *at){
  double q = (width_edge(k, B) * 100.0) / 100.0;
  if( k==0 ) return G->g[0].v;
  if( k>=B ) return G->g[G->n-1].v;
  return ml_wquantile(&G->g[0].v, &G->g[0].below, sizeof(CalWGroup)/sizeof(double), G->n, G->W, q, at);
}

/* fill_edge_bins on the groups: group g in bin i = the number of
** edge[0..nEdge) below its p, its weights added as fill_edge_bins adds
** counts (highest p first). */
static void fill_edge_bins_w(const CalWGroups *G, const double *edge, ml_i64 nEdge, CalWBin *bin){
  ml_i64 i = nEdge, k;
  for(k=G->n-1; k>=0; k--){
    const CalWGroup *g = &G->g[k];
    while( i>0 && edge[i-1] >= g->v ) i--;
    wbin_add(&bin[i], g->w1 + g->w0, g->w1, g->v);
  }
}

/* fill_mass_bins on the groups: part i holds the weight lying on
** [ml_mass_edge_w(i), ml_mass_edge_w(i+1)); a group's weight is split between
** the parts its interval crosses.  Highest p first, positives before
** negatives, each from its top: the order fill_mass_bins adds in.
** W >= B > 0. */
static void fill_mass_bins_w(const CalWGroups *G, CalWBin *bin, ml_i64 B){
  ml_i64 i = B-1, k;
  double lo = ml_mass_edge_w(B-1, G->W, B);
  for(k=G->n-1; k>=0; k--){
    const CalWGroup *g = &G->g[k];
    int pass;
    for(pass=0; pass<2; pass++){                  /* positives, then negatives */
      double s = pass==0 ? g->below + g->w0 : g->below;
      double e = pass==0 ? s + g->w1 : s + g->w0;
      while( e>s ){
        double from;
        while( i>0 && lo>=e ){ i--; lo = ml_mass_edge_w(i, G->W, B); }
        from = lo>s ? lo : s;
        wbin_add(&bin[i], e - from, pass==0 ? e - from : 0.0, g->v);
        e = from;
      }
    }
  }
}

/* reliability_w(..., 'quantile'): the weighted edges, the groups in bin
** searchsorted(edges[1:-1], p), as write_reliability_quantile.  ML_OK or
** ML_NOMEM. */
int ml_cal_reliability_quantile_w(MlJson *j, const MlSamples *m, ml_i64 B){
  CalWGroups G;
  double *edge;
  CalWBin *bin;
  ml_i64 k, at = 0;
  if( weighted_groups(m, &G) ) return ML_NOMEM;
  edge = ml_malloc((sizeof(double) + sizeof(CalWBin)) * (uint64_t)(B+1));
  if( edge==0 ){ ml_free(G.g); return ML_NOMEM; }
  bin = (CalWBin*)(edge + B + 1);
  memset(bin, 0, sizeof(CalWBin) * (size_t)B);
  for(k=0; k<=B; k++) edge[k] = weighted_quantile_edge(&G, k, B, &at);
  fill_edge_bins_w(&G, edge+1, B-1, bin);
  ml_json_begin_array(j);
  for(k=0; k<B; k++){
    const CalWBin *c = &bin[k];
    if( c->n==0.0 ) continue;
    ml_cal_reliability_bin(j, k, edge[k], edge[k+1], 1, c->n, ml_sum_value(&c->sp)/c->n, c->npos/c->n);
  }
  ml_json_end_array(j);
  ml_free(edge);
  ml_free(G.g);
  return ML_OK;
}

/* --------------------------------------- bins over the sorted sample */

typedef struct CalSortAgg {
  MlSamples smp;      /* key p; label picks the array */
  MlParam bins;       /* bins, or calibration_summary's level */
  int init;
  int failed;         /* xStep set an error: xFinal only frees */
  int weighted;       /* a weighted twin: smp is width 16, aux each row's weight */
  int counted;        /* states absorbed (not Kumar's): smp is width 16, each
                      ** record (p, count), rows weigh 1 -- the weighted path
                      ** with counts, the rows' bits (ml_samples_absorb_counted) */
  ml_i64 held[2];     /* counted: the rows of each class the buffer stands for */
  int wstate;         /* counted, and a weighted state met: the weights are
                      ** not counts, so the texts are the twins' */
} CalSortAgg;

/* Adds cnt rows of value v (pos of them positive) to a bin. */
static void cal_bin_add(CalBin *b, ml_i64 cnt, ml_i64 pos, double v){
  b->n += cnt;
  b->npos += pos;
  ml_sum_add(&b->sp, (double)cnt * v);
}

/* Boundary i of n ranks cut into B equal-mass parts: floor(i * (n/B)) with
** n/B a double, and n at i = B -- numpy's linspace(0, n, B+1, dtype=int),
** which is how eval_toolkit cuts.  (floor(i*n/B) in integers differs for
** about 1 % of (n, B) pairs: n = 30, B = 22, i = 11 gives 14 here, 15 there.) */
static ml_i64 mass_edge(ml_i64 i, ml_i64 n, ml_i64 B){
  return i>=B ? n : (ml_i64)((double)i * ((double)n/(double)B));
}

/* Equal-mass bins, the one routine behind ece_equal_mass, ece_l2,
** ece_l2_debiased and brier_decomposition.  Rows are ranked by p, ties by
** label (0 before 1); part i holds ranks mass_edge(i) .. mass_edge(i+1)-1.
** Walking the sweep from the top, a threshold's rows hold ascending ranks
** [lo, hi]: negatives first, so positives take the top dtp ranks.  n >= B. */
static void fill_mass_bins(const MlSamples *smp, CalBin *bin, ml_i64 B){
  ml_i64 n = ml_samples_count(smp), i = B-1, lo = mass_edge(B-1, n, B);
  MlSweep w;
  ml_sweep_init(&w, smp, 0);
  while( ml_sweep_next(&w) ){
    double pv = ml_double_of(w.key);
    ml_i64 r = n - (w.tp + w.fp) + w.dtp + w.dfp - 1;    /* highest rank of the group */
    int pass;
    for(pass=0; pass<2; pass++){                          /* positives, then negatives */
      ml_i64 cnt = pass==0 ? w.dtp : w.dfp;
      while( cnt>0 ){
        ml_i64 take;
        while( r<lo ){ i--; lo = mass_edge(i, n, B); }    /* part holding rank r */
        take = r - lo + 1 < cnt ? r - lo + 1 : cnt;
        cal_bin_add(&bin[i], take, pass==0 ? take : 0, pv);
        r -= take;
        cnt -= take;
      }
    }
  }
}

/* Puts every row in bin i = the number of edge[0..nEdge-1] below its p
** (numpy.searchsorted(edge, p, 'left'), or bisect_left): bin i holds
** (edge[i-1], edge[i]].  Edges ascending. */
static void fill_edge_bins(const MlSamples *smp, const double *edge, ml_i64 nEdge, CalBin *bin){
  ml_i64 i = nEdge;
  MlSweep w;
  ml_sweep_init(&w, smp, 0);
  while( ml_sweep_next(&w) ){
    double v = ml_double_of(w.key);
    while( i>0 && edge[i-1] >= v ) i--;
    cal_bin_add(&bin[i], w.dtp + w.dfp, w.dtp, v);
  }
}

/* Kumar et al.: the sorted p split as numpy.array_split(p, B) does (parts
** of ceil(n/B) values first, n mod B of them, then parts of floor(n/B));
** edges at the midpoints between the last value of a part and the first of
** the next, then 1.0; bin i = (e_{i-1}, e_i].  Equal edges leave a bin
** empty, which is what removing duplicates does.  n >= B.  ML_OK or
** ML_NOMEM. */
static int fill_kumar_bins(const MlSamples *smp, CalBin *bin, ml_i64 B){
  ml_i64 n = ml_samples_count(smp), q = n/B, rem = n%B, j;
  double *edge = ml_malloc(sizeof(double) * (uint64_t)B);
  if( edge==0 ) return ML_NOMEM;
  for(j=0; j<B-1; j++){
    ml_i64 next = (j+1)*q + (j+1<rem ? j+1 : rem);   /* first rank of part j+1 */
    edge[j] = (ml_samples_at_rank(smp, next-1) + ml_samples_at_rank(smp, next)) / 2.0;
  }
  edge[B-1] = 1.0;
  fill_edge_bins(smp, edge, B-1, bin);   /* p <= 1 = edge[B-1]: nothing beyond the last bin */
  ml_free(edge);
  return ML_OK;
}

/* fill_kumar_bins on counted groups (a state's entries, each weighing its
** count: calibration.c rule 10): the same integer ranks on the cumulative count, the p
** at a rank the group's whose interval holds it, the groups binned as
** fill_edge_bins bins rows -- the rows' bits. */
static int fill_kumar_bins_counted(const CalWGroups *G, CalWBin *bin, ml_i64 B){
  ml_i64 n = (ml_i64)G->W, q = n/B, rem = n%B, j, at = 0;
  const size_t st = sizeof(CalWGroup)/sizeof(double);
  double *edge = ml_malloc(sizeof(double) * (uint64_t)B);
  if( edge==0 ) return ML_NOMEM;
  for(j=0; j<B-1; j++){
    ml_i64 next = (j+1)*q + (j+1<rem ? j+1 : rem);   /* first rank of part j+1 */
    double lo = ml_wrank(&G->g[0].v, &G->g[0].below, st, G->n, (double)(next-1), &at);
    ml_i64 a = at;
    edge[j] = (lo + ml_wrank(&G->g[0].v, &G->g[0].below, st, G->n, (double)next, &a)) / 2.0;
  }
  edge[B-1] = 1.0;
  fill_edge_bins_w(G, edge, B-1, bin);
  ml_free(edge);
  return ML_OK;
}

/* reliability(..., 'quantile'): edges numpy.percentile(p, linspace(0, 1,
** B+1) * 100) -- the percentile divides by 100 again, so q_k is
** (e_k * 100) / 100, which is not always e_k --, a row in bin
** searchsorted(edges[1:-1], p), as sklearn's calibration_curve.  Writes the
** non-empty bins; returns ML_OK or ML_NOMEM (j untouched then). */
int ml_cal_reliability_quantile(MlJson *j, MlSamples *smp, ml_i64 B){
  ml_i64 n = ml_samples_count(smp), k;
  double *edge;
  CalBin *bin;
  if( ml_samples_sort(smp) ) return ML_NOMEM;
  edge = ml_malloc((sizeof(double) + sizeof(CalBin)) * (uint64_t)(B+1));
  if( edge==0 ) return ML_NOMEM;
  bin = (CalBin*)(edge + B + 1);
  memset(bin, 0, sizeof(CalBin) * (size_t)B);
  for(k=0; k<=B; k++){
    double q = (width_edge(k, B) * 100.0) / 100.0, g, lo, hi;
    ml_i64 r;
    ml_quantile_index(n, q, &r, &g);
    lo = ml_samples_at_rank(smp, r);
    hi = r+1<n ? ml_samples_at_rank(smp, r+1) : lo;
    edge[k] = ml_lerp_np(lo, hi, g);
  }
  fill_edge_bins(smp, edge+1, B-1, bin);
  ml_json_begin_array(j);
  for(k=0; k<B; k++){
    const CalBin *c = &bin[k];
    if( c->n==0 ) continue;
    ml_cal_reliability_bin(j, k, edge[k], edge[k+1], 0, (double)c->n,
                         ml_sum_value(&c->sp)/(double)c->n, (double)c->npos/(double)c->n);
  }
  ml_json_end_array(j);
  ml_free(edge);
  return ML_OK;
}

/* One row, written once for the four row callbacks (calibration.c's rule
** 12): sign +1 adds it (xStep), -1 removes it (xInverse, a row xStep accepted); weighted is a
** constant at each call, so the unweighted instances (weighted 0, w the
** literal 1.0) read and test no weight.  An unweighted row is kept in the
** sorted sample (beside states a record of count 1); a twin's row (p, w)
** in the weighted sample, weight 0 or NULL counting only the parameter,
** w < 0 following the driver's error. */
static ML_ALWAYS_INLINE void calsort_row(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                                         double w, int sign, int weighted){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  CalSortAgg *p;
  int y, rc, t0 = sqlite3_value_type(argv[0]);
  double pr, bins;
  if( !weighted && ML_STATE_DIVERT(ctx, argc, argv, t0, sign<0) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 ){ if( sign>0 ) sqlite3_result_error_nomem(ctx); return; }
  if( weighted ){
    if( !p->init ){ ml_samples_init_weighted(&p->smp); p->init = 1; p->weighted = 1; }
    if( w<0.0 ){ p->failed = 1; return; }        /* the driver set the error */
  }
  if( sign<0 ){
    if( !p->init ) return;
    cal_param_drop(d, argc, argv, &p->bins);
    if( (weighted && !(w>0.0)) || ml_arg_binary_row_t(ctx, d->name, argv, t0, 1, &y, &pr)!=ML_ROW_OK ) return;
    if( weighted ) ml_samples_remove(&p->smp, y, pr, w);
    else if( ml_samples_remove(&p->smp, y, pr, p->counted ? 1.0 : 0.0) && p->counted ) p->held[y]--;
    return;
  }
  if( !p->init ){ ml_samples_init(&p->smp, 8); p->init = 1; }
  rc = cal_param(ctx, d, argc, argv, &p->bins, &bins);
  if( weighted && rc ){ p->failed = 1; return; }
  if( rc==ML_ROW_OK ) rc = ml_arg_binary_row_t(ctx, d->name, argv, t0, 1, &y, &pr);
  if( rc==ML_ROW_OK && (!weighted || w>0.0) ){
    /* beside states an unweighted row is a record of count 1 */
    rc = ml_add_row(ctx, &p->smp, y, pr, weighted ? w : p->counted ? 1.0 : 0.0) ? ML_ROW_ERR : ML_ROW_OK;
    if( !weighted && rc==ML_ROW_OK && p->counted ) p->held[y]++;
  }
  if( rc==ML_ROW_ERR ) p->failed = 1;
}

/*
** SQL function: ece_equal_mass(y, p [, bins=10]), ece_l2(y, p [, bins=10]),
**   ece_l2_debiased(y, p [, bins=10]), brier_decomposition(y, p [, bins=10]),
**   ece_l2_kumar(y, p [, bins=15]): xStep and xInverse, and the weighted
**   twins' (ece_equal_mass_w, ece_l2_w, brier_decomposition_w, the rows of
**   calibration_summary_w and calibration_smooth_w; MlFamily.xStepW,
**   xInverseW): calsort_row.
*/
static void ml_calsort_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  calsort_row(ctx, argc, argv, 1.0, +1, 0);
}
static void ml_calsort_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  calsort_row(ctx, argc, argv, 1.0, -1, 0);
}
static void calsort_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  calsort_row(ctx, argc, argv, w, +1, 1);
}
static void calsort_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  calsort_row(ctx, argc, argv, w, -1, 1);
}

/* Mean of (p - y)^2 over the sorted sample, for brier_decomposition. */
static double sample_brier(const MlSamples *smp){
  MlSum e = {0.0, 0.0};
  MlSweep w;
  ml_sweep_init(&w, smp, 0);
  while( ml_sweep_next(&w) ){
    double v = ml_double_of(w.key);
    ml_sum_add(&e, (double)w.dfp * v*v + (double)w.dtp * (1.0 - v)*(1.0 - v));
  }
  return ml_sum_value(&e) / (double)ml_samples_count(smp);
}

/* brier_decomposition's JSON: Murphy's terms from B bins of nb rows (or
** weight), npos positives and p sum sp each, n rows, ybar, and the Brier
** score.  bin(b, &nb, &npos, &sp) reads bin b of the array a. */
static void write_murphy(MlJson *j, const void *a, void (*bin)(const void*, ml_i64, double*, double*, double*),
                         ml_i64 B, double n, double ybar, double brier){
  MlSum rel = {0.0, 0.0}, res = {0.0, 0.0};
  ml_i64 b;
  for(b=0; b<B; b++){
    double nbv, npos, sp, pbar, yb;
    bin(a, b, &nbv, &npos, &sp);
    if( nbv==0.0 ) continue;
    pbar = sp / nbv;
    yb = npos / nbv;
    ml_sum_add(&rel, nbv/n * (pbar - yb)*(pbar - yb));
    ml_sum_add(&res, nbv/n * (yb - ybar)*(yb - ybar));
  }
  ml_json_begin_object(j);
  ml_json_key(j, "brier");       ml_json_double(j, brier);
  ml_json_key(j, "reliability"); ml_json_double(j, ml_sum_value(&rel));
  ml_json_key(j, "resolution");  ml_json_double(j, ml_sum_value(&res));
  ml_json_key(j, "uncertainty"); ml_json_double(j, ybar * (1.0 - ybar));
  ml_json_end_object(j);
}
static void calbin_read(const void *a, ml_i64 b, double *nb, double *npos, double *sp){
  const CalBin *c = (const CalBin*)a + b;
  *nb = (double)c->n; *npos = (double)c->npos; *sp = ml_sum_value(&c->sp);
}
static void calwbin_read(const void *a, ml_i64 b, double *nb, double *npos, double *sp){
  const CalWBin *c = (const CalWBin*)a + b;
  *nb = c->n; *npos = c->npos; *sp = ml_sum_value(&c->sp);
}

/* brier_decomposition's JSON from the equal-mass bins. */
static void write_brier_decomposition(MlJson *j, const MlSamples *smp, const CalBin *bin, ml_i64 B){
  ml_i64 n = ml_samples_count(smp);
  write_murphy(j, bin, calbin_read, B, (double)n, (double)smp->n[1] / (double)n, sample_brier(smp));
}

/* One bin's term of the sum each scalar estimator adds up (nb > 0): nb
** its rows (or weight), npos its positives, sp its sum of p, n all rows. */
static double bin_term(int kind, double nbv, double npos, double sp, double n){
  double w = nbv/n, pbar = sp / nbv, ybar = npos / nbv;
  double d2 = (pbar - ybar)*(pbar - ybar);
  switch( kind ){
    case CAL_EQUAL_MASS:  return w * fabs(ybar - pbar);
    case CAL_L2:          return w * d2;
    case CAL_L2_DEBIASED: return w * (d2 - pbar*(1.0 - pbar)/nbv);
    default:              /* CAL_L2_KUMAR: a bin of one row adds 0 */
      return nbv<2.0 ? 0.0 : w * (d2 - ybar*(1.0 - ybar)/(nbv - 1.0));
  }
}

static void calsort_compute_w(sqlite3_context *ctx, const MlFuncDesc *d, CalSortAgg *p);

static void calsort_compute(sqlite3_context *ctx, CalSortAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 n, B, b;
  CalBin *bin;
  MlSum tot = {0.0, 0.0};
  double v;
  if( p && d->aParam && ml_param_check(ctx, d->name, d->aParam[0]->name, &p->bins) ) return;
  if( p==0 || !p->init || (n = ml_samples_count(&p->smp))==0 ){
    ml_result_null(ctx, d->name, p && p->weighted ? "no rows of positive weight" : "no rows");
    return;
  }
  /* validation.c; a weighted sample (calibration_summary_w, or counted
  ** states) is its twin */
  if( d->kind==CAL_SUMMARY ){
    ml_calib_summary_result(ctx, &p->smp, ml_param_value(&p->bins, default_param(d->kind)));
    return;
  }
  if( d->kind==CAL_SMOOTH ){ ml_calib_smooth_result(ctx, &p->smp); return; }
  if( p->weighted || p->counted ){ calsort_compute_w(ctx, d, p); return; }
  B = (ml_i64)ml_param_value(&p->bins, default_bins(d->kind));
  if( n<B ){
    ml_result_null(ctx, d->name, "%lld rows, fewer than bins = %lld", (long long)n, (long long)B);
    return;
  }
  if( ml_samples_sort(&p->smp) ){ sqlite3_result_error_nomem(ctx); return; }
  bin = ml_malloc(sizeof(CalBin) * (uint64_t)B);
  if( bin==0 ){ sqlite3_result_error_nomem(ctx); return; }
  memset(bin, 0, sizeof(CalBin) * (size_t)B);
  if( d->kind!=CAL_L2_KUMAR ){
    fill_mass_bins(&p->smp, bin, B);
  }else if( fill_kumar_bins(&p->smp, bin, B) ){
    ml_free(bin);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if( d->kind==CAL_BRIER_DECOMP ){
    MlJson j;
    ml_json_init(&j);
    write_brier_decomposition(&j, &p->smp, bin, B);
    ml_free(bin);
    ml_result_json(ctx, &j);
    return;
  }
  for(b=0; b<B; b++){
    if( bin[b].n ){
      ml_sum_add(&tot, bin_term(d->kind, (double)bin[b].n, (double)bin[b].npos,
                                ml_sum_value(&bin[b].sp), (double)n));
    }
  }
  ml_free(bin);
  v = ml_sum_value(&tot);
  switch( d->kind ){
    case CAL_EQUAL_MASS: sqlite3_result_double(ctx, v); break;
    case CAL_L2:         sqlite3_result_double(ctx, sqrt(v)); break;
    default:             sqlite3_result_double(ctx, sqrt(v > 0.0 ? v : 0.0)); break;
  }
}

/* The weighted twins of the equal-mass estimators (ece_equal_mass_w,
** ece_l2_w, brier_decomposition_w): the same terms on the weighted parts of
** fill_mass_bins_w, the total weight W for n; NULL when W < bins.  Also the
** unweighted estimators over states (counted: each weight a count, so the
** rows' bits, and the rows' texts). */
static void calsort_compute_w(sqlite3_context *ctx, const MlFuncDesc *d, CalSortAgg *p){
  ml_i64 B = (ml_i64)ml_param_value(&p->bins, default_bins(d->kind)), b, k;
  CalWGroups G;
  CalWBin *bin;
  MlSum tot = {0.0, 0.0};
  double v;
  char buf[32];
  if( ml_samples_sort(&p->smp) || weighted_groups(&p->smp, &G) ){ sqlite3_result_error_nomem(ctx); return; }
  if( G.W < (double)B ){
    ml_free(G.g);
    if( p->counted && !p->wstate ){
      ml_result_null(ctx, d->name, "%lld rows, fewer than bins = %lld", (long long)G.W, (long long)B);
    }else{
      ml_result_null(ctx, d->name, "total weight %s, less than bins = %lld", ml_num(buf, G.W), (long long)B);
    }
    return;
  }
  bin = ml_malloc(sizeof(CalWBin) * (uint64_t)B);
  if( bin==0 ){ ml_free(G.g); sqlite3_result_error_nomem(ctx); return; }
  memset(bin, 0, sizeof(CalWBin) * (size_t)B);
  if( d->kind!=CAL_L2_KUMAR ){
    fill_mass_bins_w(&G, bin, B);
  }else if( fill_kumar_bins_counted(&G, bin, B) ){    /* counted states only: no twin */
    ml_free(bin);
    ml_free(G.g);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if( d->kind==CAL_BRIER_DECOMP ){
    /* the Brier score as sample_brier adds it: one term per distinct p, highest first */
    MlSum e = {0.0, 0.0};
    MlJson j;
    for(k=G.n-1; k>=0; k--){
      double v = G.g[k].v;
      ml_sum_add(&e, G.g[k].w0 * v*v + G.g[k].w1 * (1.0 - v)*(1.0 - v));
    }
    ml_json_init(&j);
    write_murphy(&j, bin, calwbin_read, B, G.W, G.P / G.W, ml_sum_value(&e) / G.W);
    ml_free(bin);
    ml_free(G.g);
    ml_result_json(ctx, &j);
    return;
  }
  for(b=0; b<B; b++){
    if( bin[b].n>0.0 ) ml_sum_add(&tot, bin_term(d->kind, bin[b].n, bin[b].npos, ml_sum_value(&bin[b].sp), G.W));
  }
  ml_free(bin);
  ml_free(G.g);
  v = ml_sum_value(&tot);
  switch( d->kind ){
    case CAL_EQUAL_MASS: sqlite3_result_double(ctx, v); break;
    case CAL_L2:         sqlite3_result_double(ctx, sqrt(v)); break;
    default:             sqlite3_result_double(ctx, sqrt(v > 0.0 ? v : 0.0)); break;   /* debiased */
  }
}

static void calsort_result(sqlite3_context *ctx, CalSortAgg *p, int isFinal){
  if( p && p->failed ) return;
  if( ml_compute_begin(ctx, isFinal, p && p->init ? ml_samples_count(&p->smp) : 0) ) return;
  calsort_compute(ctx, p);
  ml_compute_end(ctx);
}

static void ml_calsort_value(sqlite3_context *ctx){
  calsort_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}

/* States: each entry is one record weighing its count (calibration.c rule 10), never a
** row per count; rows held so far weigh 1. */
static int calsort_absorb_do(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  CalSortAgg *p = ml_agg_context(ctx, sizeof(*p));
  int rc;
  if( p==0 ) return ML_NOMEM;
  if( (rc = ml_state_probabilities(st, n, zErr, nErr))!=0 ) return rc;
  if( !p->init ){ ml_samples_init(&p->smp, 8); p->init = 1; }
  if( p->wstate || ml_states_weighted(st, n) ){
    /* calibration.c rule 11: a weighted state's entries are records of weight c w (the
    ** twins' path, as counts are; ml_absorb_weighted) */
    /* (ece_l2_debiased and ece_l2_kumar never get here: their records say
    ** ML_FN_STATE_UNWEIGHTED, and the state reader refuses the kind) */
    if( ml_samples_counted_begin(&p->smp, &p->counted, p->held) ) return ML_NOMEM;
    p->wstate = 1;
    return ml_absorb_weighted(&p->smp, p->held, st, n, sign, zErr, nErr);
  }
  return ml_absorb_section_counted(&p->smp, &p->counted, p->held, st, n, 0, sign, zErr, nErr);
}
/* As calib_absorb: a failed absorb fails the group. */
static int calsort_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  int rc = calsort_absorb_do(ctx, st, n, sign, zErr, nErr);
  CalSortAgg *p = rc ? sqlite3_aggregate_context(ctx, 0) : 0;
  if( p ) p->failed = 1;
  return rc;
}
static const MlStateHooks ml_calsort_states = {
  sizeof(CalSortAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT) | (1u<<ML_STATE_WEIGHTED), calsort_absorb
};

static void ml_calsort_final(sqlite3_context *ctx){
  CalSortAgg *p = sqlite3_aggregate_context(ctx, 0);
  calsort_result(ctx, p, 1);
  if( p && p->init ) ml_samples_clear(&p->smp);
}

/* The sorted estimators' callbacks, for the family's records (calibration.c). */
const MlFamily ml_calsort_family = { "calibration", ml_calsort_step, ml_calsort_final, ml_calsort_value,
                                     ml_calsort_inverse, &ml_calsort_states, calsort_step_w, calsort_inverse_w, 0 };
