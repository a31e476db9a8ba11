/*
** SPDX-License-Identifier: MIT
**
** uncertainty_boot.c -- the uncertainty family's bootstrap: what each
** kind's statistic needs built once per result, the run, and the results'
** JSON (the statistics of a replicate are uncertainty_stat.c's).  The rows,
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

/* ------------------------------------------------------------- results */

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
      spec->stat = ml_unc_stat_mean_term_w;
      break;
    case UN_ECE:
      u->B = B;
      spec->stat = ml_unc_stat_ece_w;
      break;
    case UN_NET_BENEFIT: case UN_NET_BENEFIT_DIFF:
      u->target = q->target;
      spec->stat = ml_unc_stat_net_benefit_w;
      spec->K = kind==UN_NET_BENEFIT_DIFF ? 3 : 1;
      break;
    case UN_STRAT_GAP:
      u->ql = q->ql;
      u->qh = q->qh;
      spec->stat = ml_unc_stat_strat_gap_w;
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
      spec->stat = ml_unc_stat_diff_w;
      spec->K = 3;
      break;
    }
    default:                    /* UN_PR_AUC, UN_NAP, UN_AUROC_W, UN_TPR_AT_FPR, UN_SENS_AT_SPEC */
      u->target = q->target;
      spec->stat = ml_unc_stat_rank_w;
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
  spec.stat = p->weighted ? ml_unc_stat_decision_curve_w : ml_unc_stat_decision_curve;
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
  spec->stat = ml_unc_stat_strat_gap;
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
  spec->stat = ml_unc_stat_ap_diff;
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
      spec->stat = ml_unc_stat_ap_plan;
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
      spec->stat = ml_unc_stat_mean_term;
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
      spec->stat = ml_unc_stat_ece;
      spec->K = paired ? 3 : 1;
      break;
    }
    case UN_STRAT_GAP:
      return boot_plan_strat_gap(c, p, u, spec, pMem, pScratch);
    case UN_TPR_AT_FPR: case UN_SENS_AT_SPEC:
      u->target = p->q.target;
      spec->stat = ml_unc_stat_tpr_at_fpr;
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
      spec->stat = ml_unc_stat_net_benefit;
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
