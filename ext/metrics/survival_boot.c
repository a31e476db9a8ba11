/*
** SPDX-License-Identifier: MIT
**
** survival_boot.c -- the survival family, part 2: intervals at a horizon
** and the paired comparison of two models' C (SPEC.md "Round 5";
** docs/survival.md).  Rows, parameters and dispatch: survival_clinical.c
** (survival2.h).
**
** SQL functions (aggregate and window; each f has a weighted twin f_w, w
** right after the last score):
**   surv_auroc_ci(time, event, risk, t [, level, reps, seed])  JSON, pr_auc_ci's:
**   surv_brier_ci(time, event, p, t [, level, reps, seed])     {"estimate","lo","hi",
**       "se","level","reps","seed","method","redrawn","n","percentile"}
**   c_index_diff(time, event, risk_a, risk_b [, tau])   JSON {"c_a","c_b","diff",
**       "se","z","p_value"}
**
** Rules:
**   1. surv_auroc_ci, surv_brier_ci: ml_boot.c's BCa bootstrap, as pr_auc_ci
**      (docs/uncertainty.md): level in (0, 1) (0.95), reps 10..10^6 (1000),
**      seed >= 0 (0).  The canonical order the generator draws from is the
**      rows sorted by (time, event: censorings first, risk or p, weight)
**      (ml_samples_sort_canonical on the buffer widened to 24 bytes a row).
**   2. A replicate is the rows drawn, a row drawn k times weighing k w (w 1
**      unweighted), refitted whole: Kaplan-Meier and the censoring curve G
**      from the replicate's own rows (ml_surv_fit), then AUC(t) or Brier(t)
**      (ml_surv_at) -- surv_auroc's and surv_brier's computation, so the
**      estimate (every row once) is the point function's value bit for bit.
**      A replicate where the metric is undefined (no case or no control at
**      t, G = 0) is drawn again (ml_boot.c rule 2).
**   3. The point value undefined: NULL with surv_auroc's or surv_brier's
**      reason.  Twins: as every *_ci_w, a row is resampled as one unit (the
**      estimate equals the repeated rows; the interval need not).
**   4. c_index_diff: Harrell's C of risk_a and of risk_b over the same rows
**      (survival.c's c_index: ml_concordance, tau as there), the
**      infinitesimal-jackknife se of the difference, se^2 = sum_i w_i
**      (D_a,i - D_b,i)^2 over the per-row influences (survival's
**      concordance(..., influence = 1)$dfbeta; ml_conc_var), z = diff / se,
**      p_value two-sided normal; se 0: z null and p 1 for diff 0, else 0.
**      No comparable pair: NULL with the reason.  The rows are sorted
**      (time, event, risk_a, risk_b, w) before the core sees them, so the
**      result does not depend on the order rows came in (windows).
**
** Cost: the bootstrap keeps the canonical order (33 bytes a row), a
** replicate's rows (24 bytes a row) and its fit; a replicate is O(n) plus
** AUC(t)'s sort by risk (radix), O(reps n) in all.  c_index_diff: 40 bytes
** a row held, two concordance runs (O(n log n)) with their influences (16
** bytes a row).
*/
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "survival2.h"
#include "ml_conc.h"

static const MlParamSpec psSxTau = ML_PARAM_REAL("tau", 0.0, 1, INFINITY, 1, 0, "10");

/* ----------------------------------------------------------- bootstrap */

typedef struct SxBoot {
  MlSamples s;          /* a replicate's rows: width 24, sorted by time */
  double tt;
  unsigned what;        /* ML_SURV_AUROC or ML_SURV_BRIER */
  int rc;               /* ML_NOMEM or ML_STOPPED once a replicate's fit failed */
} SxBoot;

/* MlBootStat: the metric over the rows drawn (rule 2). */
static int sx_boot_stat(void *arg, const MlCanon *c, const ml_weight *wc, double *out){
  SxBoot *b = arg;
  MlSurvFit f;
  MlSurvAt at;
  ml_i64 r;
  b->s.n[0] = b->s.n[1] = 0;
  for(r=0; r<c->n; r++){
    MlRec24 *rec;
    int y;
    if( wc[r]==0 ) continue;
    y = c->lab[r];
    rec = (MlRec24*)b->s.a[y] + b->s.n[y]++;
    rec->key = c->key[r];
    rec->aux = (double)wc[r] * c->aux[r];
    rec->aux2 = c->aux2[r];
  }
  b->s.sorted = 1;
  if( b->rc!=ML_OK ) return 0;          /* failed before: redraw until the run ends */
  if( (b->rc = ml_surv_fit(&b->s, &f))!=ML_OK ) return 0;
  if( (b->rc = ml_surv_at(&b->s, &f, b->tt, b->what, &at))!=ML_OK ){ ml_surv_fit_free(&f); return 0; }
  ml_surv_fit_free(&f);
  out[0] = b->what==ML_SURV_AUROC ? at.auroc : at.brier;
  return !isnan(out[0]);
}

static int sx_stop(void *db){ return ml_interrupted((sqlite3*)db); }

void ml_sx_boot_result(sqlite3_context *ctx, const MlFuncDesc *d, SxAgg *p, const MlSurvFit *f){
  double tt = ml_sx_param(p, d, 0), level = ml_sx_param(p, d, 1);
  ml_i64 reps = ml_sx_iparam(p, d, 2), seed = ml_sx_iparam(p, d, 3);
  MlSurvAt at;
  MlCanon c;
  MlBootSpec spec;
  MlBootResult r;
  SxBoot b;
  ml_i64 n = ml_samples_count(&p->smp);
  int rc;
  memset(&b, 0, sizeof(b));
  b.tt = tt;
  b.what = d->kind==SX_AUROC_CI ? ML_SURV_AUROC : ML_SURV_BRIER;
  /* rule 3: the point function's value and reason first */
  if( ml_surv_at(&p->smp, f, tt, b.what, &at)!=ML_OK ){ sqlite3_result_error_nomem(ctx); return; }
  if( isnan(b.what==ML_SURV_AUROC ? at.auroc : at.brier) ){
    ml_result_null(ctx, d->name, "%s", at.zWhy ? at.zWhy : "undefined");
    return;
  }
  memset(&c, 0, sizeof(c));
  rc = ml_surv_widen(&p->smp);            /* the canonical records: (time, w, p) */
  if( rc==ML_OK ) rc = ml_samples_sort_canonical(&p->smp);
  if( rc==ML_OK ) rc = ml_canon_build(&c, &p->smp);
  ml_samples_init(&b.s, 24);
  if( rc==ML_OK ){
    b.s.a[0] = ml_malloc((uint64_t)(n ? n : 1) * 24);
    b.s.a[1] = ml_malloc((uint64_t)(n ? n : 1) * 24);
    if( b.s.a[0]==0 || b.s.a[1]==0 ) rc = ML_NOMEM;
    b.s.cap[0] = b.s.cap[1] = n;
  }
  if( rc==ML_OK ){
    memset(&spec, 0, sizeof(spec));
    spec.level = level;
    spec.reps = reps;
    spec.seed = (uint64_t)seed;
    spec.K = 1;
    spec.stat = sx_boot_stat;
    spec.arg = &b;
    spec.stop = sx_stop;
    spec.stopArg = sqlite3_context_db_handle(ctx);
    rc = ml_boot_run(&c, &spec, &r);
    if( b.rc==ML_NOMEM ) rc = ML_NOMEM;
    else if( b.rc==ML_STOPPED ) rc = ML_BOOT_STOPPED;
  }
  ml_samples_clear(&b.s);
  ml_canon_free(&c);
  if( rc==ML_OK ){
    MlJson j;
    ml_json_init(&j);
    ml_json_begin_object(&j);
    ml_boot_json_interval(&j, &r.iv[0], 1);
    ml_boot_json_run(&j, level, reps, seed, r.redrawn, n);
    ml_boot_json_percentile(&j, &r.iv[0]);
    ml_json_end_object(&j);
    ml_result_json(ctx, &j);
  }else{
    ml_result_boot_failed(ctx, d->name, rc, "undefined on the rows");
  }
}

/* -------------------------------------------------------- c_index_diff */

static int cmp_row(const void *x, const void *y){
  const SxRow *a = x, *b = y;
  if( a->time!=b->time ) return a->time<b->time ? -1 : 1;
  if( a->event!=b->event ) return a->event<b->event ? -1 : 1;
  if( a->a!=b->a ) return a->a<b->a ? -1 : 1;
  if( a->b!=b->b ) return a->b<b->b ? -1 : 1;
  if( a->w!=b->w ) return a->w<b->w ? -1 : 1;
  return 0;
}

void ml_sx_cdiff_result(sqlite3_context *ctx, const MlFuncDesc *d, SxAgg *p){
  ml_i64 n = p->nRow, i;
  double tau = p->prm[0].n[0]>0 ? p->prm[0].v[0] : INFINITY;
  double *time, *ra, *rb, *w, *dfa, *dfb, diff, se, z, pv, sc;
  int *ev, weighted = 0, rc;
  MlConc ca, cb;
  MlJson j;
  qsort(p->aRow, (size_t)n, sizeof(SxRow), cmp_row);
  time = ml_malloc((uint64_t)n * (6*sizeof(double) + sizeof(int)));
  if( time==0 ){ sqlite3_result_error_nomem(ctx); return; }
  ra = time + n; rb = ra + n; w = rb + n; dfa = w + n; dfb = dfa + n; ev = (int*)(dfb + n);
  for(i=0; i<n; i++){
    const SxRow *r = &p->aRow[i];
    time[i] = r->time; ra[i] = r->a; rb[i] = r->b; w[i] = r->w; ev[i] = r->event;
    if( r->w!=1.0 ) weighted = 1;
  }
  {  /* weights beyond 2^+-400 run on a power-of-two scale (as survival.c's
     ** sv_conc): the pair products would overflow or go subnormal; the
     ** frequency-rule variance is then scaled back by sc below */
    double wmax = 0.0;
    for(i=0; i<n; i++) if( w[i]>wmax ) wmax = w[i];
    sc = weighted ? ml_pow2_scale(wmax) : 1.0;
    if( sc > 0x1p400 || sc < 0x1p-400 ){ for(i=0; i<n; i++) w[i] *= sc; }else sc = 1.0;
  }
  rc = ml_concordance(n, time, ev, ra, weighted ? w : 0, 0, tau, &ca, dfa);
  if( rc==ML_OK ) rc = ml_concordance(n, time, ev, rb, weighted ? w : 0, 0, tau, &cb, dfb);
  if( rc!=ML_OK ){
    ml_free(time);
    if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
    return;                      /* stopped: ml_compute_end reports it */
  }
  if( isnan(ca.estimate) || isnan(cb.estimate) ){
    ml_free(time);
    ml_result_null(ctx, d->name, "no comparable pair (no event before another row's time%s)",
                   isinf(tau) ? "" : " within tau");
    return;
  }
  se = sqrt(ml_conc_var(n, dfa, dfb, weighted ? w : 0) * sc);
  ml_free(time);
  diff = ca.estimate - cb.estimate;
  if( se>0.0 ){ z = diff/se; pv = erfc(fabs(z)/1.41421356237309504880); }
  else{ z = NAN; pv = diff==0.0 ? 1.0 : 0.0; }
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "c_a");     ml_json_double(&j, ca.estimate);
  ml_json_key(&j, "c_b");     ml_json_double(&j, cb.estimate);
  ml_json_key(&j, "diff");    ml_json_double(&j, diff);
  ml_json_key(&j, "se");      ml_json_double(&j, se);
  ml_json_key(&j, "z");       ml_json_double(&j, z);
  ml_json_key(&j, "p_value"); ml_json_double(&j, pv);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

#define SX_W3 (ML_FN_WEIGHTED | ML_FN_TWIN_W3)
#define SX_BOOT ML_PARAMS(&ml_ps_surv_t, &ml_ps_level, &ml_ps_reps, &ml_ps_seed)
const MlFuncDesc ml_survival_boot_functions[] = {
  { "surv_auroc_ci", "time, event, risk, t [, level, reps, seed]", 4, 7, &ml_fam_survival2, 0, SX_AUROC_CI,
                     ML_FN_JSON | SX_W3, SX_BOOT },
  { "surv_brier_ci", "time, event, p, t [, level, reps, seed]",    4, 7, &ml_fam_survival2, 0, SX_BRIER_CI,
                     ML_FN_JSON | SX_W3, SX_BOOT },
  { "c_index_diff",  "time, event, risk_a, risk_b [, tau]",        4, 5, &ml_fam_survival2, 0, SX_CDIFF,
                     ML_FN_JSON | ML_FN_WEIGHTED | ML_FN_TWIN_W4 | ML_FN_NO_STATE, ML_PARAMS(&psSxTau) },
  { 0 }
};
