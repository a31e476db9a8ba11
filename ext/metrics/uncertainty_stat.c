/*
** SPDX-License-Identifier: MIT
**
** uncertainty_stat.c -- the uncertainty family's statistic of one bootstrap
** replicate, one function per kind (ml_boot.c's MlBootStat): unweighted
** over the canonical order and its multinomial weights (the weighted
** sweep, the exact sums), weighted over the replicate's drawn rows (the
** twin's own computation).  What each reads is built by uncertainty_boot.c
** (UncCtx, uncertainty.h).
**
** Rules (uncertainty_boot.c's 1 and 2):
**   1. A replicate's statistic is the metric's own fold or computation
**      over the replicate: the same expression as the estimate.
**   2. A statistic returns 0 where the metric is undefined on the
**      replicate (ml_boot.c redraws it), else 1 with out[0 .. K) set.
**
** Cost: O(n) a replicate (decision_curve: O(n + T)); no allocation: every
** array was allocated by uncertainty_boot.c before the run.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "uncertainty.h"

/* pr_auc_ci, nap_ci: AP (or NAP) of the replicate. */
int ml_unc_stat_ap_plan(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_mean_term(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_ece(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_strat_gap(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_ap_diff(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_tpr_at_fpr(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_net_benefit(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_decision_curve(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_decision_curve_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_rank_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_mean_term_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_ece_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  UncCtx *u = arg;
  drawn_rows(u, c, wc, 0, c->key);
  out[0] = ml_calib_ece_w(&u->drawn, u->B, u->xs, u->occ);
  return 1;
}

/* pr_auc_w, auroc_w or ece_w of the drawn rows by their first score (the
** canonical order), then by their second (orderB), the same weights:
** out = (a - b, a, b), as pr_auc_w(s_a) - pr_auc_w(s_b), auroc_w(s_a) -
** auroc_w(s_b) or ece_w(p_a) - ece_w(p_b). */
int ml_unc_stat_diff_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_net_benefit_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
int ml_unc_stat_strat_gap_w(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
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
