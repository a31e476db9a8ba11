/*
** SPDX-License-Identifier: MIT
**
** uncertainty_boot.c -- the uncertainty family's bootstrap: each kind's
** statistic of a replicate (unweighted, over the canonical order and its
** multinomial weights; weighted, over the replicate's drawn rows), what a
** statistic needs built once per result, and the results' JSON.  The rows,
** parameters, states and records are uncertainty.c's, whose header gives
** the family's rules (the bootstrap: rules 3 to 5, 7 to 9, 12 and 13).
**
** Provides: ml_unc_boot_result, ml_unc_decision_curve_ci_result
** (uncertainty.h).
**
** Rules:
**   1. The estimate is the metric itself (the same folds and terms); a
**      replicate is ml_boot.c's (canonical order, per-replicate seeded
**      streams), its statistic the weighted sweep's or the twin's own
**      computation over the drawn rows.
**   2. A statistic returns 0 where the metric is undefined on a replicate
**      (the bootstrap redraws it); the result is NULL with a reason when
**      the estimate is undefined or a replicate needs more than
**      ML_BOOT_MAX_REDRAW redraws.
**   3. What a kind needs beyond the canonical order is built once, in one
**      block freed after the run; out of memory is SQLITE_NOMEM, an
**      interrupt SQLITE_INTERRUPT (spec.stop).
**
** Cost: O(reps n) a result (a replicate O(n), O(n + T) for
** decision_curve_ci's T thresholds); memory as uncertainty.c's Cost says.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "uncertainty.h"

/* ---------------------------------------------------------- statistics */

/* What a statistic needs besides the canonical order and the weights; every
** per-row array is in canonical order. */
typedef struct UncCtx {
  int kind;
  const double *term;           /* brier/log_loss: the row's term */
  const uint32_t *binA, *binB;  /* ece: the row's bin by p, and by aux */
  CalBin *bins;                 /* ece: 2 x B accumulators */
  ml_i64 B;
  const double *zSorted;        /* strat_gap: the stratifier ascending, */
  const uint32_t *zPos;         /* the canonical position of each, */
  ml_weight *zw;                /* and its weight in a replicate */
  double ql, qh;
  const MlCanon *cB;            /* pr_auc_diff: the rows ordered by s_b, */
  const uint32_t *posB;         /* the canonical position of each, */
  ml_weight *wB;                /* and its weight in a replicate */
  MlSamples drawn;              /* weighted: a replicate's rows, each once with weight k w */
  MlXsum *xs;                   /* weighted brier, log_loss (2), ece (4): exact sums */
  CalWOcc *occ;                 /* weighted ece: room for min(B, n) occupied bins */
  const ml_key *keyB;           /* weighted paired: the keys of s_b|p_b ascending, */
  const uint32_t *orderB;       /* the canonical position of each */
  void *stratScratch;           /* weighted strat_gap: ml_strat_compute_w's scratch, */
  MlStratResult sr;             /* its result (the estimate's reason when undefined) */
  const MlApGroup *apg;         /* pr_auc, nap, pr_auc_diff: the scores that hold */
  ml_i64 nApg;                  /* a positive, ascending (ml_ap_plan), */
  MlApGroup *apgB;              /* and pr_auc_diff's in cB */
  ml_i64 nApgB;
  double target;                /* tpr_at_fpr, sens_at_spec: the target; net_benefit: pt */
  ml_i64 nT;                    /* decision_curve_ci: the thresholds grid[0..nT), */
  const double *grid;
  const uint32_t *bucket;       /* each row's number of thresholds <= p, */
  ml_i64 *cnt;                  /* and a replicate's counts by bucket */
  const unsigned char *pred;    /* net_benefit: bit 0 p (p_a) >= pt, bit 1 p_b >= pt */
} UncCtx;

/* pr_auc_ci, nap_ci: AP (or NAP) of the replicate. */
static int stat_ap_plan(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  uint64_t P, N;
  out[0] = ml_fold_ap_plan(u->apg, u->nApg, c, wc, &P, &N);
  if( P==0 || N==0 ) return 0;
  if( u->kind==UN_NAP ){
    double pi = (double)P / (double)(P+N);    /* as nap() */
    out[0] = (out[0] - pi) / (1.0 - pi);
  }
  return 1;
}

/* brier, log_loss: the mean of the per-row terms over the drawn rows. */
static int stat_mean_term(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  MlSum sum = {0.0, 0.0};
  ml_i64 i, m = 0;
  for(i=0; i<c->n; i++){
    if( wc[i]==0 ) continue;
    ml_sum_add(&sum, wc[i]==1 ? u->term[i] : (double)wc[i] * u->term[i]);
    m += wc[i];
  }
  out[0] = ml_sum_value(&sum) / (double)m;
  return 1;
}

/* ece over the drawn rows, by p (bins[0..B)) and, paired, by aux (bins[B..2B)). */
static int stat_ece(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  int paired = u->binB!=0;
  ml_i64 i, m = 0, B = u->B;
  memset(u->bins, 0, sizeof(CalBin)*(size_t)B*(paired ? 2 : 1));
  for(i=0; i<c->n; i++){
    ml_weight wi = wc[i];
    CalBin *a;
    if( wi==0 ) continue;
    m += wi;
    a = &u->bins[u->binA[i]];
    a->n += wi;
    a->npos += c->lab[i] ? wi : 0;
    ml_sum_add(&a->sp, wi==1 ? ml_double_of(c->key[i]) : (double)wi * ml_double_of(c->key[i]));
    if( paired ){
      CalBin *b = &u->bins[B + u->binB[i]];
      b->n += wi;
      b->npos += c->lab[i] ? wi : 0;
      ml_sum_add(&b->sp, wi==1 ? c->aux[i] : (double)wi * c->aux[i]);
    }
  }
  out[1] = ml_calib_ece_fold(u->bins, B, m);
  if( paired ){
    out[2] = ml_calib_ece_fold(u->bins + B, B, m);
    out[0] = out[1] - out[2];
  }else{
    out[0] = out[1];
  }
  return 1;
}

/* strat_gap: the window [Q(ql), Q(qh)] of the drawn stratifiers, then AP
** over all drawn rows and over those in the window. */
static int stat_strat_gap(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  ml_i64 i;
  MlFilter f;
  MlSweep sw;
  double full, trimmed;
  for(i=0; i<c->n; i++) u->zw[i] = wc[u->zPos[i]];
  ml_quantile_pair_sorted(u->zSorted, u->zw, c->n, u->ql, u->qh, &f.lo, &f.hi);
  ml_sweep_init_weighted(&sw, c, 0, wc);
  full = ml_fold_ap_sweep(&sw);
  if( sw.P==0 || sw.N==0 ) return 0;
  ml_sweep_init_weighted(&sw, c, &f, wc);
  trimmed = ml_fold_ap_sweep(&sw);
  if( sw.P<10 || sw.N<10 ) return 0;       /* as strat_pr_auc: fewer than 10 of a class */
  out[0] = full - trimmed;
  out[1] = full;
  out[2] = trimmed;
  return 1;
}

/* pr_auc_diff: AP of s_a over the canonical order, AP of s_b over the rows
** ordered by s_b, the same weights carried across by position. */
static int stat_ap_diff(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  uint64_t P, N;
  ml_i64 i;
  out[1] = ml_fold_ap_plan(u->apg, u->nApg, c, wc, &P, &N);
  if( P==0 || N==0 ) return 0;
  for(i=0; i<c->n; i++) u->wB[i] = wc[u->posB[i]];
  out[2] = ml_fold_ap_plan(u->apgB, u->nApgB, u->cB, u->wB, &P, &N);
  out[0] = out[1] - out[2];
  return 1;
}

/* tpr_at_fpr, sens_at_spec: ml_sweep.c's fold over the replicate's
** weighted sweep, its P and N summed first (the fold needs N from the
** first threshold on). */
static int stat_tpr_at_fpr(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  MlSweep sw;
  ml_i64 i, m[2] = {0, 0};
  for(i=0; i<c->n; i++) m[c->lab[i]] += wc[i];
  if( m[0]==0 || m[1]==0 ) return 0;
  ml_sweep_init_weighted(&sw, c, 0, wc);
  sw.P = m[1];
  sw.N = m[0];
  out[0] = ml_fold_tpr_at_fpr_sweep(&sw, u->target, u->kind==UN_SENS_AT_SPEC);
  return 1;
}

/* net_benefit (and, paired, of p_b): the replicate's counts at p >= pt,
** counts as net_benefit counts them (integers, then ml_net_benefit). */
static int stat_net_benefit(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  ml_i64 i, n = 0, tp[2] = {0, 0}, fp[2] = {0, 0};
  for(i=0; i<c->n; i++){
    ml_i64 wi = wc[i];
    unsigned b = u->pred[i];
    n += wi;
    if( c->lab[i] ){ tp[0] += wi & -(ml_i64)(b & 1); tp[1] += wi & -(ml_i64)(b>>1); }
    else{ fp[0] += wi & -(ml_i64)(b & 1); fp[1] += wi & -(ml_i64)(b>>1); }
  }
  out[1] = ml_net_benefit((double)tp[0], (double)fp[0], (double)n, u->target);
  if( u->kind==UN_NET_BENEFIT_DIFF ){
    out[2] = ml_net_benefit((double)tp[1], (double)fp[1], (double)n, u->target);
    out[0] = out[1] - out[2];
  }else{
    out[0] = out[1];
  }
  return 1;
}

/* decision_curve_ci: net_benefit at every threshold t_k of the grid from one
** pass: a row counts at the thresholds below its bucket (the number of t_k
** <= p, precomputed), so TP(t_k) sums the buckets above k -- the counts
** net_benefit_ci's p >= pt gives at t_k, into the same ml_net_benefit. */
static int stat_decision_curve(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  ml_i64 i, n = 0, T = u->nT, k, tp = 0, fp = 0;
  ml_i64 *cnt = u->cnt;            /* [2 (T + 1)]: negatives, positives by bucket */
  memset(cnt, 0, sizeof(ml_i64) * 2 * (size_t)(T + 1));
  for(i=0; i<c->n; i++){
    n += wc[i];
    cnt[2*(ml_i64)u->bucket[i] + c->lab[i]] += wc[i];
  }
  for(k=T-1; k>=0; k--){
    fp += cnt[2*(k+1)];
    tp += cnt[2*(k+1) + 1];
    out[k] = ml_net_benefit((double)tp, (double)fp, (double)n, u->grid[k]);
  }
  return 1;
}

/* decision_curve_ci_w: net_benefit_ci_w's cells (y, p >= t) for every t_k
** at once: the drawn rows' k w start in the cells below (p < t), and
** walking the rows from the highest p down each passes to the cell above
** before the thresholds it clears are read -- exact sums, moved exactly, so
** at t_k the four roundings are net_benefit_ci_w's at t_k. */
static int stat_decision_curve_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  MlXsum *xs = u->xs;             /* [2 y + (p >= t)] */
  ml_i64 i, k;
  for(k=0; k<4; k++) ml_xsum_init(&xs[k]);
  for(i=0; i<c->n; i++){
    if( wc[i]==0 ) continue;
    ml_xsum_add(&xs[2*c->lab[i]], wc[i]==1 ? c->aux[i] : (double)wc[i] * c->aux[i], 1);
  }
  i = c->n - 1;
  for(k=u->nT-1; k>=0; k--){
    for(; i>=0 && (ml_i64)u->bucket[i] > k; i--){
      double t;
      if( wc[i]==0 ) continue;
      t = wc[i]==1 ? c->aux[i] : (double)wc[i] * c->aux[i];
      ml_xsum_add(&xs[2*c->lab[i] + 1], t, 1);
      ml_xsum_add(&xs[2*c->lab[i]], t, -1);
    }
    out[k] = ml_net_benefit_w(ml_xsum_round(&xs[3]), ml_xsum_round(&xs[1]),
                              ml_xsum_round(&xs[0]), ml_xsum_round(&xs[2]), u->grid[k]);
  }
  return 1;
}

/* Rows ordered by the key of v[r] (c->aux, or a weighted twin's c->aux2;
** any order among equal keys: a sweep, and the weighted folds' exact tie
** sums, sum a key's rows), with each row's canonical position: a radix sort
** of (key of v, position) records.  rec has n records; scratch as
** ml_radix_sort wants. */
static void order_by(const MlCanon *c, const double *v, MlRec16 *rec, void *scratch){
  ml_i64 i;
  for(i=0; i<c->n; i++){ rec[i].key = ml_key_of(v[i]); rec[i].aux = (double)i; }
  ml_radix_sort(rec, c->n, 16, scratch);
}

/*
** The weighted bootstrap (the *_ci_w twins).  The canonical order is (p or
** s, label, weight); c->aux holds each row's weight w.  A replicate draws
** rows exactly as the unweighted one (ml_boot_run: n draws over the
** canonical positions), and a row drawn k times enters the replicate once
** with weight k w (the product rounded once; k w = w for k = 1).  The
** replicate's metric is then the weighted twin's own computation on those
** rows: the weighted folds (ml_wsweep.c) for AP, NAP and AUROC, the exact
** sums of w t and w for brier and log_loss, calibration.c's
** ml_calib_ece_w for ece (its occupied bins and fold, in scratch allocated
** once here: a replicate cannot report out of memory).  With k = 1 for every row that is the group
** itself: the estimate is the point twin's value, bit for bit.
*/

/* Fills u->drawn with the rows of positive weight wc[r] (once each, weight
** wc[r] * w_r), visiting the canonical positions r = order[j] (order 0: r =
** j) with the keys key[j], ascending, so that each class stays sorted;
** 24-byte drawn records also take each row's aux2 (the stratifier). */
static void drawn_rows(UncCtx *u, const MlCanon *c, const ml_weight *wc,
                       const uint32_t *order, const ml_key *key){
  ml_i64 j, m[2] = {0, 0};
  size_t width = u->drawn.width;
  for(j=0; j<c->n; j++){
    ml_i64 r = order ? (ml_i64)order[j] : j;
    MlRec16 *o;
    int y;
    if( wc[r]==0 ) continue;
    y = c->lab[r];
    o = (MlRec16*)(u->drawn.a[y] + width*(size_t)m[y]++);
    o->key = key[j];
    o->aux = wc[r]==1 ? c->aux[r] : (double)wc[r] * c->aux[r];
    if( width==24 ) memcpy((unsigned char*)o + 16, &c->aux2[r], 8);
  }
  u->drawn.n[0] = m[0];
  u->drawn.n[1] = m[1];
}

/* pr_auc_w, nap_w, auroc_w, tpr_at_fpr_w, sens_at_spec_w of the drawn rows
** (ranking.c's expressions). */
static int stat_rank_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  drawn_rows(u, c, wc, 0, c->key);
  if( u->drawn.n[0]==0 || u->drawn.n[1]==0 ) return 0;
  if( u->kind==UN_AUROC_W ){
    out[0] = ml_fold_auroc(&u->drawn);
  }else if( u->kind==UN_TPR_AT_FPR || u->kind==UN_SENS_AT_SPEC ){
    out[0] = ml_fold_tpr_at_fpr(&u->drawn, u->target, u->kind==UN_SENS_AT_SPEC);
  }else if( u->kind==UN_NAP ){
    double pi = ml_samples_prevalence(&u->drawn);
    out[0] = (ml_fold_average_precision(&u->drawn, 0) - pi) / (1.0 - pi);
  }else{
    out[0] = ml_fold_average_precision(&u->drawn, 0);
  }
  return 1;
}

/* brier_w, log_loss_w of the drawn rows: sum of (k w) t over sum of k w,
** both exact, rounded once (as calibration.c's twins). */
static int stat_mean_term_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  ml_i64 i;
  ml_xsum_init(&u->xs[0]);
  ml_xsum_init(&u->xs[1]);
  for(i=0; i<c->n; i++){
    double v;
    if( wc[i]==0 ) continue;
    v = wc[i]==1 ? c->aux[i] : (double)wc[i] * c->aux[i];
    ml_xsum_add_product(&u->xs[0], v, u->term[i], 1);
    ml_xsum_add(&u->xs[1], v, 1);
  }
  out[0] = ml_xsum_round(&u->xs[0]) / ml_xsum_round(&u->xs[1]);
  return 1;
}

/* ece_w of the drawn rows. */
static int stat_ece_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  drawn_rows(u, c, wc, 0, c->key);
  out[0] = ml_calib_ece_w(&u->drawn, u->B, u->xs, u->occ);
  return 1;
}

/* pr_auc_w, auroc_w or ece_w of the drawn rows by their first score (the
** canonical order), then by their second (orderB), the same weights:
** out = (a - b, a, b), as pr_auc_w(s_a) - pr_auc_w(s_b), auroc_w(s_a) -
** auroc_w(s_b) or ece_w(p_a) - ece_w(p_b). */
static int stat_diff_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  int k;
  for(k=1; k<3; k++){
    drawn_rows(u, c, wc, k==1 ? 0 : u->orderB, k==1 ? c->key : u->keyB);
    if( u->kind==UN_ECE_DIFF ){
      out[k] = ml_calib_ece_w(&u->drawn, u->B, u->xs, u->occ);
    }else{
      if( u->drawn.n[0]==0 || u->drawn.n[1]==0 ) return 0;
      out[k] = u->kind==UN_AUROC_DIFF_W ? ml_fold_auroc(&u->drawn) : ml_fold_average_precision(&u->drawn, 0);
    }
  }
  out[0] = out[1] - out[2];
  return 1;
}

/* net_benefit_w of the replicate (and, paired, of p_b, in c->aux2): the
** exact sums of k w in each cell (y, p >= pt), ranking.c's
** ml_net_benefit_w of their roundings, as net_benefit_w takes its sums. */
static int stat_net_benefit_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  int k, paired = u->kind==UN_NET_BENEFIT_DIFF;
  ml_i64 i;
  for(k=1; k<(paired ? 3 : 2); k++){
    for(i=0; i<4; i++) ml_xsum_init(&u->xs[i]);
    for(i=0; i<c->n; i++){
      double p = k==1 ? ml_double_of(c->key[i]) : c->aux2[i];
      if( wc[i]==0 ) continue;
      ml_xsum_add(&u->xs[2*c->lab[i] + (p>=u->target)], wc[i]==1 ? c->aux[i] : (double)wc[i] * c->aux[i], 1);
    }
    out[k] = ml_net_benefit_w(ml_xsum_round(&u->xs[3]), ml_xsum_round(&u->xs[1]),
                              ml_xsum_round(&u->xs[0]), ml_xsum_round(&u->xs[2]), u->target);
  }
  out[0] = paired ? out[1] - out[2] : out[1];
  return 1;
}

/* strat_gap_w of the drawn rows (s, k w, strat): stratified.c's own
** computation (ml_strat_compute_w), out = (gap, full, trimmed); undefined
** (one class, or a window too thin: the reason stays in u->sr) as
** strat_gap_w is NULL. */
static int stat_strat_gap_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  drawn_rows(u, c, wc, 0, c->key);
  if( u->drawn.n[0]==0 || u->drawn.n[1]==0 ){
    sqlite3_snprintf(sizeof(u->sr.zReason), u->sr.zReason, "only one class in the group");
    return 0;
  }
  u->sr.ql = u->ql;
  u->sr.qh = u->qh;
  ml_strat_compute_w(&u->drawn, &u->sr, 1, u->stratScratch);
  if( isnan(u->sr.full) || isnan(u->sr.trimmed) ) return 0;
  out[0] = u->sr.gap;
  out[1] = u->sr.full;
  out[2] = u->sr.trimmed;
  return 1;
}

/* ------------------------------------------------------------- results */

static void write_boot_json(MlJson *j, int kind, const UncAgg *p, const MlBootResult *r){
  ml_json_begin_object(j);
  if( kind==UN_PR_AUC_DIFF || kind==UN_ECE_DIFF || kind==UN_AUROC_DIFF_W || kind==UN_NET_BENEFIT_DIFF ){
    ml_json_key(j, "a");       ml_json_double(j, r->iv[1].estimate);
    ml_json_key(j, "b");       ml_json_double(j, r->iv[2].estimate);
    ml_json_key(j, "diff");    ml_json_double(j, r->iv[0].estimate);
    ml_boot_json_interval(j, &r->iv[0], 0);
    ml_json_key(j, "p_value"); ml_json_double(j, r->iv[0].p_value);
  }else{
    ml_boot_json_interval(j, &r->iv[0], 1);
  }
  ml_boot_json_run(j, p->q.level, p->q.reps, p->q.seed, r->redrawn, ml_samples_count(&p->smp));
  ml_boot_json_percentile(j, &r->iv[0]);
  if( kind==UN_STRAT_GAP ){
    int k;
    for(k=1; k<3; k++){
      ml_json_key(j, k==1 ? "full_ci" : "trimmed_ci");
      ml_json_begin_object(j);
      ml_boot_json_interval(j, &r->iv[k], 1);
      ml_boot_json_percentile(j, &r->iv[k]);
      ml_json_end_object(j);
    }
  }
  ml_json_end_object(j);
}

/* What the weighted statistics need (one block, *pMem): the drawn rows'
** arrays (16 bytes a row; 24 for strat_gap's (s, k w, strat)), the exact
** sums, the per-row terms of brier and log_loss, ece's occupied bins (at
** most min(B, n): the drawn rows are at most n), the paired functions' keys
** of the second score ascending and their canonical positions, and
** strat_gap's ml_strat_compute_w scratch.  ML_OK or ML_NOMEM. */
static int boot_weighted_ctx(UncCtx *u, MlBootSpec *spec, int kind, const MlCanon *c,
                             const MlSamples *s, const UncParams *q, void **pMem){
  ml_i64 n = c->n, i, B = q->bins;
  int paired = kind==UN_PR_AUC_DIFF || kind==UN_ECE_DIFF || kind==UN_AUROC_DIFF_W, strat = kind==UN_STRAT_GAP;
  ml_i64 nOcc = kind==UN_ECE || kind==UN_ECE_DIFF ? (n<B ? n : B) : 0;
  size_t width = strat ? 24 : 16;
  uint64_t nDrawn = width*(uint64_t)(n ? n : 1), nStrat = 0, nOrder = paired ? 12*(uint64_t)n : 0;
  unsigned char *m;
  double *term;
  if( strat ){
    ml_samples_init(&u->drawn, 24);
    u->drawn.weighted = 1;
  }else{
    ml_samples_init_weighted(&u->drawn);
  }
  u->drawn.cap[0] = u->drawn.n[0] = s->n[0];   /* the counts size the strat scratch */
  u->drawn.cap[1] = u->drawn.n[1] = s->n[1];
  u->drawn.sorted = 1;
  if( strat ) nStrat = ml_strat_scratch_w(&u->drawn);
  m = ml_malloc(nDrawn + 4*sizeof(MlXsum) + 8*(uint64_t)n + sizeof(CalWOcc)*(uint64_t)nOcc
                + nOrder + nStrat);
  if( m==0 ) return ML_NOMEM;
  *pMem = m;
  u->drawn.a[0] = m;
  u->drawn.a[1] = m + width*(size_t)s->n[0];
  u->xs = (MlXsum*)(m + nDrawn);
  term = (double*)(u->xs + 4);
  u->occ = (CalWOcc*)(term + n);
  u->stratScratch = u->occ + nOcc;
  switch( kind ){
    case UN_BRIER: case UN_LOGLOSS:
      for(i=0; i<n; i++){
        double pr = ml_double_of(c->key[i]);
        term[i] = kind==UN_BRIER ? ml_calib_brier_term(c->lab[i], pr)
                                 : ml_calib_log_loss_term(c->lab[i], pr, 1e-15);
      }
      u->term = term;
      spec->stat = stat_mean_term_w;
      break;
    case UN_ECE:
      u->B = B;
      spec->stat = stat_ece_w;
      break;
    case UN_NET_BENEFIT: case UN_NET_BENEFIT_DIFF:
      u->target = q->target;
      spec->stat = stat_net_benefit_w;
      spec->K = kind==UN_NET_BENEFIT_DIFF ? 3 : 1;
      break;
    case UN_STRAT_GAP:
      u->ql = q->ql;
      u->qh = q->qh;
      spec->stat = stat_strat_gap_w;
      spec->K = 3;
      break;
    case UN_PR_AUC_DIFF: case UN_ECE_DIFF: case UN_AUROC_DIFF_W: {
      /* the rows by their second score: a radix sort in scratch of its own */
      ml_key *keyB = (ml_key*)((unsigned char*)u->stratScratch + nStrat);
      uint32_t *orderB = (uint32_t*)(keyB + n);
      MlRec16 *rec = ml_malloc(16*(uint64_t)n + 16*(uint64_t)n + ML_RADIX_EXTRA);
      if( rec==0 ) return ML_NOMEM;
      order_by(c, c->aux2, rec, rec + n);
      for(i=0; i<n; i++){ keyB[i] = rec[i].key; orderB[i] = (uint32_t)rec[i].aux; }
      ml_free(rec);
      u->keyB = keyB;
      u->orderB = orderB;
      u->B = B;
      spec->stat = stat_diff_w;
      spec->K = 3;
      break;
    }
    default:                    /* UN_PR_AUC, UN_NAP, UN_AUROC_W, UN_TPR_AT_FPR, UN_SENS_AT_SPEC */
      u->target = q->target;
      spec->stat = stat_rank_w;
      break;
  }
  return ML_OK;
}

/* spec.stop: the statement was interrupted. */
static int unc_stop(void *db){ return ml_interrupted((sqlite3*)db); }

/* The bootstrap's context and spec for a result of K statistics: the
** kind, the group's level, reps and seed, the interrupt check. */
static void unc_boot_begin(sqlite3_context *ctx, const MlFuncDesc *d, const UncAgg *p, UncCtx *u,
                           MlBootSpec *spec, int K){
  memset(u, 0, sizeof(*u));
  memset(spec, 0, sizeof(*spec));
  u->kind = d->kind;
  spec->level = p->q.level;
  spec->reps = p->q.reps;
  spec->seed = (uint64_t)p->q.seed;
  spec->arg = u;
  spec->K = K;
  spec->stop = unc_stop;
  spec->stopArg = sqlite3_context_db_handle(ctx);
}

/* decision_curve_ci (uncertainty.c rule 13): one bootstrap whose replicate computes the
** whole curve; {"level","reps","seed","method","redrawn","n","curve":[{
** "threshold","net_benefit","lo","hi","se","percentile","treat_all",
** "treat_none"}]}. */
#define DC_CI_MAX_KEPT 20000000.0     /* thresholds x (reps + 202) doubles kept */
void ml_unc_decision_curve_ci_result(sqlite3_context *ctx, const MlFuncDesc *d, UncAgg *p){
  MlSamples *s = &p->smp;
  ml_i64 n = ml_samples_count(s), T, i, k, redrawn = 0;
  double *grid = 0;
  MlCanon c;
  UncCtx u;
  MlBootSpec spec;
  MlBootInterval *iv = 0;
  uint32_t *bucket = 0;
  int rc;
  char z1[32];
  if( ml_grid_check(ctx, d->name, p->q.grid) ) return;
  T = (ml_i64)ml_grid_points(p->q.grid);
  while( T>0 && p->q.grid[0] + (double)(T-1)*p->q.grid[2] >= 1.0 ) T--;   /* as decision_curve */
  if( (double)T * ((double)p->q.reps + 202.0) > DC_CI_MAX_KEPT ){
    ml_error(ctx, d->name, "thresholds x (reps + 202) must be at most %s (the replicates kept, 8 bytes each),"
             " got %lld thresholds and reps = %lld", ml_num(z1, DC_CI_MAX_KEPT), (long long)T, (long long)p->q.reps);
    return;
  }
  unc_boot_begin(ctx, d, p, &u, &spec, (int)T);
  spec.stat = p->weighted ? stat_decision_curve_w : stat_decision_curve;
  /* a replicate walks the T thresholds too: 4 exact-sum roundings each
  ** weighted (~64 row-units), one count unweighted (issue 44 item 5: the
  ** weighted curve at its cap honoured an interrupt after 25 s) */
  spec.repCost = p->weighted ? 64*T : T;
  rc = ml_samples_sort_canonical(s);
  if( rc==ML_OK ) rc = ml_canon_build(&c, s);
  if( rc ){ sqlite3_result_error_nomem(ctx); return; }
  grid = ml_malloc(sizeof(double)*(uint64_t)T + sizeof(ml_i64)*2*(uint64_t)(T + 1) + 4*sizeof(MlXsum));
  bucket = ml_malloc(sizeof(uint32_t)*(uint64_t)(n ? n : 1));
  iv = ml_malloc(sizeof(MlBootInterval)*(uint64_t)T);
  if( grid==0 || bucket==0 || iv==0 ){ rc = ML_NOMEM; goto done; }
  for(k=0; k<T; k++) grid[k] = p->q.grid[0] + (double)k*p->q.grid[2];
  for(i=0, k=0; i<n; i++){        /* canonical order: p ascending */
    double v = ml_double_of(c.key[i]);
    while( k<T && grid[k]<=v ) k++;
    bucket[i] = (uint32_t)k;
  }
  u.nT = T; u.grid = grid; u.bucket = bucket; u.cnt = (ml_i64*)(grid + T);
  u.xs = (MlXsum*)(u.cnt + 2*(T + 1));
  rc = ml_boot_run_k(&c, &spec, iv, &redrawn);
  if( rc==ML_OK ){
    MlJson j;
    double P = (double)s->n[1], N = (double)s->n[0];
    if( p->weighted ){             /* decision_curve_w's treat_all: the weight totals */
      MlWSweep w;
      ml_wsweep_init(&w, s);
      P = w.P; N = w.N;
    }
    ml_json_init(&j);
    ml_json_begin_object(&j);
    ml_boot_json_run(&j, p->q.level, p->q.reps, p->q.seed, redrawn, n);
    ml_json_key(&j, "curve");
    ml_json_begin_array(&j);
    for(k=0; k<T; k++){
      ml_json_begin_object(&j);
      ml_json_key(&j, "threshold");   ml_json_double(&j, grid[k]);
      ml_json_key(&j, "net_benefit"); ml_json_double(&j, iv[k].estimate);
      ml_boot_json_interval(&j, &iv[k], 0);
      ml_boot_json_percentile(&j, &iv[k]);
      ml_json_key(&j, "treat_all");   ml_json_double(&j, ml_net_benefit(P, N, P + N, grid[k]));
      ml_json_key(&j, "treat_none");  ml_json_double(&j, 0.0);
      ml_json_end_object(&j);
    }
    ml_json_end_array(&j);
    ml_json_end_object(&j);
    ml_result_json(ctx, &j);
  }
done:
  ml_free(grid);
  ml_free(bucket);
  ml_free(iv);
  ml_canon_free(&c);
  if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
  else if( rc==ML_BOOT_STOPPED ) ml_result_interrupted(ctx);
  else if( rc!=ML_OK ) ml_result_null(ctx, d->name, "the bootstrap failed (%d)", rc);   /* net benefit is always defined */
}

/* strat_gap_ci: the rows ordered by the stratifier, their canonical
** positions, and room for their weights in a replicate (mem, scratch). */
static int boot_plan_strat_gap(const MlCanon *c, const UncAgg *p, UncCtx *u, MlBootSpec *spec,
                               void **pMem, void **pScratch){
  ml_i64 n = c->n, i;
  MlRec16 *rec;
  double *z;
  uint32_t *zp;
  void *mem, *scratch;
  mem = *pMem = ml_malloc(16*(uint64_t)n + 8*(uint64_t)n + 4*(uint64_t)n + 4*(uint64_t)n);
  scratch = *pScratch = ml_malloc(16*(uint64_t)n + ML_RADIX_EXTRA);
  if( mem==0 || scratch==0 ) return ML_NOMEM;
  rec = mem;
  order_by(c, c->aux, rec, scratch);
  z = (double*)(rec + n);
  zp = (uint32_t*)(z + n);
  for(i=0; i<n; i++){ z[i] = ml_double_of(rec[i].key); zp[i] = (uint32_t)rec[i].aux; }
  u->zSorted = z;
  u->zPos = zp;
  u->zw = (ml_weight*)(zp + n);
  u->ql = p->q.ql; u->qh = p->q.qh;
  spec->stat = stat_strat_gap;
  spec->K = 3;
  return ML_OK;
}

/* pr_auc_diff_ci: the rows ordered by s_b (cB: keys, labels; their
** positions and weights), and both AP plans (*pApA, u->apgB). */
static int boot_plan_ap_diff(const MlCanon *c, MlCanon *cB, UncCtx *u, MlBootSpec *spec,
                             void **pMem, void **pScratch, MlApGroup **pApA){
  ml_i64 n = c->n, i;
  MlRec16 *rec;
  uint32_t *pos;
  void *mem, *scratch;
  mem = *pMem = ml_malloc(16*(uint64_t)n + 8*(uint64_t)n + (uint64_t)n + 4*(uint64_t)n + 4*(uint64_t)n);
  scratch = *pScratch = ml_malloc(16*(uint64_t)n + ML_RADIX_EXTRA);
  if( mem==0 || scratch==0 ) return ML_NOMEM;
  rec = mem;
  order_by(c, c->aux, rec, scratch);
  cB->n = n;
  cB->key = (ml_key*)(rec + n);
  pos = (uint32_t*)(cB->key + n);
  u->wB = (ml_weight*)(pos + n);
  cB->lab = (unsigned char*)(u->wB + n);
  for(i=0; i<n; i++){
    pos[i] = (uint32_t)rec[i].aux;
    cB->key[i] = rec[i].key;
    cB->lab[i] = c->lab[pos[i]];
  }
  u->cB = cB;
  u->posB = pos;
  u->apg = *pApA = ml_ap_plan(c, &u->nApg);
  u->apgB = ml_ap_plan(cB, &u->nApgB);
  if( u->apg==0 || u->apgB==0 ) return ML_NOMEM;
  spec->stat = stat_ap_diff;
  spec->K = 3;
  return ML_OK;
}

/* What an unweighted kind's statistic needs (one block, *pMem; *pScratch
** and *pApA where the kind makes them, the caller frees all three). */
static int boot_plan(const MlFuncDesc *d, const UncAgg *p, const MlCanon *c, MlCanon *cB, UncCtx *u,
                     MlBootSpec *spec, void **pMem, void **pScratch, MlApGroup **pApA){
  ml_i64 n = c->n, i;
  int rc = ML_OK;
  void *mem = 0;
  switch( d->kind ){
    case UN_PR_AUC: case UN_NAP:
      mem = ml_ap_plan(c, &u->nApg);
      if( mem==0 ){ rc = ML_NOMEM; break; }
      u->apg = mem;
      spec->stat = stat_ap_plan;
      break;
    case UN_BRIER: case UN_LOGLOSS: {
      double *t = mem = ml_malloc(sizeof(double)*(uint64_t)n);
      if( t==0 ){ rc = ML_NOMEM; break; }
      for(i=0; i<n; i++){
        double pr = ml_double_of(c->key[i]);
        t[i] = d->kind==UN_BRIER ? ml_calib_brier_term(c->lab[i], pr)
                                 : ml_calib_log_loss_term(c->lab[i], pr, 1e-15);
      }
      u->term = t;
      spec->stat = stat_mean_term;
      break;
    }
    case UN_ECE: case UN_ECE_DIFF: {
      int paired = d->kind==UN_ECE_DIFF;
      uint32_t *bin;
      u->B = p->q.bins;
      mem = ml_malloc(sizeof(CalBin)*(uint64_t)u->B*2 + sizeof(uint32_t)*(uint64_t)n*2);
      if( mem==0 ){ rc = ML_NOMEM; break; }
      u->bins = mem;
      bin = (uint32_t*)(u->bins + 2*u->B);
      for(i=0; i<n; i++){
        bin[i] = (uint32_t)ml_calib_bin(ml_double_of(c->key[i]), u->B);
        if( paired ) bin[n + i] = (uint32_t)ml_calib_bin(c->aux[i], u->B);
      }
      u->binA = bin;
      u->binB = paired ? bin + n : 0;
      spec->stat = stat_ece;
      spec->K = paired ? 3 : 1;
      break;
    }
    case UN_STRAT_GAP:
      return boot_plan_strat_gap(c, p, u, spec, pMem, pScratch);
    case UN_TPR_AT_FPR: case UN_SENS_AT_SPEC:
      u->target = p->q.target;
      spec->stat = stat_tpr_at_fpr;
      break;
    case UN_NET_BENEFIT: case UN_NET_BENEFIT_DIFF: {
      unsigned char *pred = mem = ml_malloc((uint64_t)(n ? n : 1));
      double pt = p->q.target;
      if( pred==0 ){ rc = ML_NOMEM; break; }
      for(i=0; i<n; i++){          /* as net_benefit's row: p >= pt */
        pred[i] = (unsigned char)((ml_double_of(c->key[i])>=pt)
                                  | (d->kind==UN_NET_BENEFIT_DIFF && c->aux[i]>=pt ? 2 : 0));
      }
      u->pred = pred;
      u->target = pt;
      spec->stat = stat_net_benefit;
      spec->K = d->kind==UN_NET_BENEFIT_DIFF ? 3 : 1;
      break;
    }
    case UN_PR_AUC_DIFF:
      return boot_plan_ap_diff(c, cB, u, spec, pMem, pScratch, pApA);
  }
  *pMem = mem;
  return rc;
}

/* The bootstrap's outcome as the function's result: its JSON, or NULL with
** the reason, or the error. */
static void boot_emit(sqlite3_context *ctx, const MlFuncDesc *d, const UncAgg *p, const UncCtx *u,
                      const MlBootResult *r, int rc){
  const MlSamples *s = &p->smp;
  switch( rc ){
    case ML_OK: {
      MlJson j;
      ml_json_init(&j);
      write_boot_json(&j, d->kind, p, r);
      ml_result_json(ctx, &j);
      break;
    }
    default: {
      char zWhy[160];
      if( d->kind==UN_STRAT_GAP && p->weighted ){
        sqlite3_snprintf(sizeof(zWhy), zWhy, "%s", u->sr.zReason);   /* strat_gap_w's reason */
      }else if( d->kind==UN_STRAT_GAP ){
        sqlite3_snprintf(sizeof(zWhy), zWhy, "fewer than 10 positives or negatives in the window");
      }else{
        sqlite3_snprintf(sizeof(zWhy), zWhy, "only one class in the group (%lld positives, %lld negatives)",
                         (long long)s->n[1], (long long)s->n[0]);
      }
      ml_result_boot_failed(ctx, d->name, rc, zWhy);
      break;
    }
  }
}

/* The bootstrap of every kind but decision_curve_ci's: builds what the
** kind's statistic needs (boot_weighted_ctx, boot_plan), runs the bootstrap
** over the canonical order, writes the result. */
void ml_unc_boot_result(sqlite3_context *ctx, const MlFuncDesc *d, UncAgg *p){
  MlSamples *s = &p->smp;
  MlCanon c, cB;
  UncCtx u;
  MlBootSpec spec;
  MlBootResult r;
  void *mem = 0, *scratch = 0;
  MlApGroup *apA = 0;          /* pr_auc_diff's plan in the canonical order */
  int rc;
  memset(&cB, 0, sizeof(cB));
  unc_boot_begin(ctx, d, p, &u, &spec, 1);
  rc = ml_samples_sort_canonical(s);
  if( rc==ML_OK ) rc = ml_canon_build(&c, s);
  if( rc ){ sqlite3_result_error_nomem(ctx); return; }
  if( p->weighted ){
    rc = boot_weighted_ctx(&u, &spec, d->kind, &c, s, &p->q, &mem);
  }else{
    rc = boot_plan(d, p, &c, &cB, &u, &spec, &mem, &scratch, &apA);
  }
  ml_free(scratch);
  if( rc==ML_OK ) rc = ml_boot_run(&c, &spec, &r);
  ml_free(mem);
  ml_free(apA);
  ml_free(u.apgB);
  ml_canon_free(&c);
  boot_emit(ctx, d, p, &u, &r, rc);
}
