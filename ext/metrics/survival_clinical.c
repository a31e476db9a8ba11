/*
** SPDX-License-Identifier: MIT
**
** survival_clinical.c -- the survival family, part 2: calibration and net
** benefit at a horizon (SPEC.md "Round 5"; docs/survival.md), and the
** step, parameters and result dispatch that part 2's records share
** (survival2.h; survival_boot.c holds the intervals and c_index_diff).
**
** SQL functions (aggregate and window; each f has a weighted twin f_w with
** w right after the score or probability):
**   surv_calibration(time, event, p, t [, bins=10])   JSON {"t","n","km_risk",
**       "mean_p","oe","bins":[{"lo","hi","n","pred","obs","obs_se"}]}
**   surv_net_benefit(time, event, p, t, pt)           dcurves' survival net benefit
**   surv_decision_curve(time, event, p, t [, from [, to [, by]]])   JSON
**       [{"threshold","net_benefit","treat_all","treat_none"}] (decision_curve's)
**
** Rules:
**   1. Rows as part 1's (survival.c rule 1): time >= 0 finite, event 0/1,
**      p in [0, 1], risk any number; a NULL in a data argument skips the
**      row; ml_arg_time_event, ml_arg_prob, ml_arg_score say what is wrong.
**   2. Parameters (t in (0, Inf), bins 1..10000, pt in (0, 1), from, to, by
**      as decision_curve's, level, reps, seed as pr_auc_ci's, tau in (0,
**      Inf)) are read from the record's specs in its order and must be the
**      same in every row of a group or frame (MlParam).
**   3. The rows are the core's buffer (ml_surv.h: 16 or 24 bytes), fitted once by
**      ml_surv_fit (Kaplan-Meier, G); twins: a row of weight w counts w
**      times (frequency weights; integer weights equal the rows repeated).
**   4. Follow-up must reach t: when the group's last time (event or
**      censoring) is before t, every function here is NULL with a warning
**      ("follow-up ends at .. before t = .."; survfit's summary(times = t)
**      has no row there, dcurves #17).
**   5. surv_calibration (riskRegression plotCalibration(method =
**      "quantile", q = bins, cens.method = "local")): breaks are R's type-7
**      quantiles of p (ml_surv_breaks: on the cumulative weight for twins),
**      duplicates merged; cut(include.lowest = TRUE): bin j is (b_j,
**      b_{j+1}], the first [b_0, b_1]; one break gives one bin [b_0, b_0].
**      Per bin with rows: n (the weight), pred = the weighted mean of p
**      (exact sums), obs = 1 - Kaplan-Meier at t within the bin and obs_se
**      its Greenwood se (survfit per group), both null when the bin's
**      follow-up ends before t.  Empty bins are left out.  km_risk = 1 -
**      S(t) of all rows, mean_p the weighted mean p, oe = km_risk / mean_p
**      (surv_summary's).
**   6. surv_net_benefit (dcurves' survival rule): P = the weight of the rows
**      with p >= pt over W, risk = 1 - Kaplan-Meier at t among them,
**      NB = risk P - (1 - risk) P pt/(1 - pt) (ranking.c's ml_net_benefit
**      over n = 1); no row at or above pt: 0; their follow-up ending before
**      t: NULL with the reason.
**   7. surv_decision_curve: decision_curve's grid (from, to, by: all, some
**      or none; thresholds >= 1 dropped) and its JSON; each point is
**      surv_net_benefit at that threshold bit for bit (one routine,
**      ml_surv_risk_above, rows joining in the same order: descending
**      canonical order by (p, event, time, w)); net_benefit null where rule 6
**      says NULL.  treat_all from the Kaplan-Meier of every row (P = 1),
**      treat_none 0.
**   8. Windows: xInverse removes the row; every result recomputes from the
**      frame's rows, so a frame equals the aggregate over them.
**   9. States: ml_state_surv(time, event, p or risk) (and _w) in place of
**      the three data arguments, part 1's absorb (ml_surv_absorb: each
**      entry one record weighing its count; the bootstraps' entries are
**      their rows, since they resample rows), so a state gives its rows'
**      result bit for bit; c_index_diff, whose rows carry two risks, takes
**      none.
**
** Cost: 16 bytes a row held (24 once a weight is not 1).  A result sorts the rows by time (radix, the
** fit) and by p (the canonical sort, 25 bytes a row flattened); calibration
** then fits each bin's rows (24 bytes a row of the largest bin); the
** decision curve walks the rows once and each threshold the distinct times
** up to t (O(n log n + T m_t), ml_surv_risk_above), never a fit per
** threshold.
*/
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_state.h"
#include "survival2.h"

#define SX_MAX_BINS 10000

const MlParamSpec ml_ps_surv_t = ML_PARAM_REAL("t", 0.0, 1, INFINITY, 1, 0, "1");
static const MlParamSpec psSxBins = ML_PARAM_INT("bins", 1, SX_MAX_BINS, "10", "4");

/* ---------------------------------------------------------------- rows */

static SxAgg *sx_agg(sqlite3_context *ctx){
  SxAgg *p = ml_agg_context(ctx, sizeof(*p));      /* room for a state's part (rule 9) */
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return 0; }
  if( !p->init ){ ml_surv_init(&p->smp); p->init = 1; }
  return p;
}

static void sx_clear(SxAgg *p){
  if( p==0 || !p->init ) return;
  ml_samples_clear(&p->smp);
  ml_free(p->aRow);
  p->aRow = 0; p->nRow = p->capRow = 0;
}

static int sx_ndata(int kind){ return kind==SX_CDIFF ? 4 : 3; }
static int sx_is_prob(int kind){ return kind!=SX_AUROC_CI && kind!=SX_CDIFF; }

double ml_sx_param(const SxAgg *p, const MlFuncDesc *d, int i){
  const MlParamSpec *ps = d->aParam[i];
  return ml_param_value(&p->prm[i], ps->zDefault ? ml_parse_double(ps->zDefault, 0) : NAN);
}

ml_i64 ml_sx_iparam(const SxAgg *p, const MlFuncDesc *d, int i){
  double v = ml_sx_param(p, d, i);
  if( p->prm[i].n[0]>0 && (double)p->iprm[i]==v ) return p->iprm[i];
  return v>=9223372036854775807.0 ? INT64_MAX : (ml_i64)v;   /* a default, or a later frame's value */
}

/* The parameters after the data (rule 2): ML_ROW_*. */
static int sx_params(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                     SxAgg *p, int inverse){
  int nd = sx_ndata(d->kind), i;
  for(i=0; d->aParam && d->aParam[i] && nd+i<argc; i++){
    const MlParamSpec *ps = d->aParam[i];
    double x;
    ml_i64 v;
    if( inverse ){ ml_param_drop(&p->prm[i], argv[nd+i]); continue; }
    if( ps->type==ML_PT_INT ){
      int first = p->prm[i].n[0]==0 && p->prm[i].n[1]==0;
      if( ml_param_int(ctx, d->name, ps, argv[nd+i], &p->prm[i], &v)!=ML_ROW_OK ) return ML_ROW_ERR;
      if( first ){
        p->iprm[i] = v;
      }else if( (double)v==(double)p->iprm[i] && v!=p->iprm[i] ){   /* equal as doubles only */
        ml_error(ctx, d->name, "%s must be the same in every row of a group, got %lld and then %lld",
                 ps->name, (long long)p->iprm[i], (long long)v);
        return ML_ROW_ERR;
      }
    }else if( ml_param_real(ctx, d->name, ps, argv[nd+i], &p->prm[i], &x)!=ML_ROW_OK ){
      return ML_ROW_ERR;
    }
  }
  return ML_ROW_OK;
}

/* c_index_diff: adds a row, or removes one equal to it. */
static int sx_row_rec(SxAgg *p, const SxRow *r, int sign){
  ml_i64 i;
  if( sign>0 ){
    if( p->nRow==p->capRow ){
      ml_i64 cNew = p->capRow ? p->capRow*2 : 64;
      SxRow *a = ml_realloc(p->aRow, (uint64_t)cNew * sizeof(*a));
      if( a==0 ) return ML_NOMEM;
      p->aRow = a; p->capRow = cNew;
    }
    p->aRow[p->nRow++] = *r;
    return ML_OK;
  }
  for(i=p->nRow-1; i>=0; i--){
    const SxRow *q = &p->aRow[i];
    if( q->time==r->time && q->event==r->event && q->a==r->a && q->b==r->b && q->w==r->w ){
      p->aRow[i] = p->aRow[--p->nRow];
      break;
    }
  }
  return ML_OK;
}

/* One row of weight w; sign -1 removes it (rules 1, 3, 8). */
static void sx_row(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w, int sign){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  SxAgg *p = sx_agg(ctx);
  double time, x = 0.0, x2 = 0.0;
  int event, rc, kind = d->kind;
  if( p==0 ) return;
  if( kind!=SX_CDIFF && argc>0 && ML_STATE_DIVERT(ctx, argc, argv, sqlite3_value_type(argv[0]), sign<0) ) return;
  if( sign>0 && p->failed ) return;
  if( w<0.0 ){ p->failed = 1; return; }      /* the twin's weight was invalid */
  if( argc<sx_ndata(kind) ){ ml_arity_error(ctx, d, argc); p->failed = 1; return; }
  if( sx_params(ctx, d, argc, argv, p, sign<0)==ML_ROW_ERR ){ p->failed = 1; return; }
  rc = ml_surv_arg_row(ctx, d->name, argv, kind==SX_CDIFF ? ML_SURV_ROW_TE
                       : sx_is_prob(kind) ? ML_SURV_ROW_P : ML_SURV_ROW_RISK, &time, &event, &x);
  if( rc==ML_ROW_OK && kind==SX_CDIFF ){
    rc = ml_arg_score(ctx, d->name, "risk_a", argv[2], &x);
    if( rc==ML_ROW_OK ) rc = ml_arg_score(ctx, d->name, "risk_b", argv[3], &x2);
  }
  if( rc==ML_ROW_ERR ){ p->failed = 1; return; }
  if( rc!=ML_ROW_OK || w==0.0 ) return;
  if( kind==SX_CDIFF ){
    SxRow r;
    r.time = time; r.event = event; r.a = x + 0.0; r.b = x2 + 0.0; r.w = w;
    if( sx_row_rec(p, &r, sign)!=ML_OK ){ sqlite3_result_error_nomem(ctx); p->failed = 1; }
  }else if( ml_surv_apply(&p->smp, event, time, w, x, sign)!=ML_OK ){
    sqlite3_result_error_nomem(ctx); p->failed = 1;
  }
}

/*
** SQL function: surv_calibration, surv_net_benefit, surv_decision_curve,
** surv_auroc_ci, surv_brier_ci, c_index_diff -- xStep, xInverse
*/
static void sxStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){ sx_row(ctx, argc, argv, 1.0, 1); }
static void sxInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){ sx_row(ctx, argc, argv, 1.0, -1); }
/*
** SQL function: their twins f_w(time, event, p | risk | risk_a, risk_b, w,
** ...) -- xStep, xInverse (the driver has read the weight)
*/
static void sxStepW(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  sx_row(ctx, argc, argv, w, 1);
}
static void sxInverseW(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  if( w>=0.0 ) sx_row(ctx, argc, argv, w, -1);
}

/* ------------------------------------------------------------- results */

/* The rows in the canonical order by p (key p, aux w, aux2 time; ties by
** event, time, weight): the order every result here reads rows by p in. */
static int sx_by_p(const MlSamples *smp, MlCanon *c){
  MlSamples bp;
  ml_i64 i;
  int y, rc = ML_OK;
  memset(c, 0, sizeof(*c));
  ml_samples_init(&bp, 24);
  for(y=0; y<2 && rc==ML_OK; y++){
    for(i=0; i<smp->n[y] && rc==ML_OK; i++){
      rc = ml_samples_add2(&bp, y, ml_surv_x(smp, y, i), ml_surv_w(smp, y, i),
                           ml_double_of(ml_samples_key(smp, y, i)));
    }
  }
  if( rc==ML_OK ) rc = ml_samples_sort_canonical(&bp);
  if( rc==ML_OK ) rc = ml_canon_build(c, &bp);
  ml_samples_clear(&bp);
  return rc;
}

/* Rule 4: NULL with the reason when follow-up ends before tt; else 0. */
static int sx_followup_short(sqlite3_context *ctx, const MlFuncDesc *d, const MlSurvFit *f, double tt){
  char z1[32], z2[32];
  if( f->t[f->m-1]>=tt ) return 0;
  ml_result_null(ctx, d->name, "follow-up ends at %s, before t = %s", ml_num(z1, f->t[f->m-1]), ml_num(z2, tt));
  return 1;
}

/* S(tt) and Greenwood's variance sum of a fit. */
static double sx_surv_at(const MlSurvFit *f, double tt, double *pv){
  ml_i64 k = ml_surv_index(f, tt);
  *pv = k>=0 ? f->v[k] : 0.0;
  return k>=0 ? f->S[k] : 1.0;
}

/* The mean of p over the canonical rows [i0, i1), weighted, exact. */
static double sx_mean_p(const MlCanon *c, ml_i64 i0, ml_i64 i1, double *pW){
  MlXsum sp, sw;
  ml_i64 i;
  ml_xsum_init(&sp); ml_xsum_init(&sw);
  for(i=i0; i<i1; i++){
    ml_xsum_add_product(&sp, c->aux[i], ml_double_of(c->key[i]), 1);
    ml_xsum_add(&sw, c->aux[i], 1);
  }
  *pW = ml_xsum_round(&sw);
  return ml_xsum_round(&sp) / *pW;
}

/* surv_calibration (rule 5). */
static void sx_cal_result(sqlite3_context *ctx, const MlFuncDesc *d, SxAgg *p, const MlSurvFit *f){
  double tt = ml_sx_param(p, d, 0), *v = 0, *wv = 0, *brk = 0, W;
  int q = (int)ml_sx_iparam(p, d, 1), weighted = 0, rc;
  ml_i64 n, nb, i, i0, j;
  MlCanon c;
  MlSamples bs;
  MlJson jj;
  if( sx_followup_short(ctx, d, f, tt) ) return;
  if( (rc = sx_by_p(&p->smp, &c))!=ML_OK ){ sqlite3_result_error_nomem(ctx); return; }
  n = c.n;
  v = ml_malloc((uint64_t)n * 2 * sizeof(double) + (uint64_t)(q + 1) * sizeof(double));
  if( v==0 ){ ml_canon_free(&c); sqlite3_result_error_nomem(ctx); return; }
  wv = v + n; brk = wv + n;
  for(i=0; i<n; i++){
    v[i] = ml_double_of(c.key[i]);
    wv[i] = c.aux[i];
    if( wv[i]!=1.0 ) weighted = 1;
  }
  nb = ml_surv_breaks(v, weighted ? wv : 0, n, f->W, q, brk);
  ml_json_init(&jj);
  ml_json_begin_object(&jj);
  ml_json_key(&jj, "t");       ml_json_double(&jj, tt);
  ml_json_key(&jj, "n");       ml_json_double(&jj, f->W);
  {
    double sv, km = 1.0 - sx_surv_at(f, tt, &sv), mp = sx_mean_p(&c, 0, n, &W);
    ml_json_key(&jj, "km_risk"); ml_json_double(&jj, km);
    ml_json_key(&jj, "mean_p");  ml_json_double(&jj, mp);
    ml_json_key(&jj, "oe");      ml_json_double(&jj, mp>0.0 ? km/mp : NAN);
  }
  ml_json_key(&jj, "bins");
  ml_json_begin_array(&jj);
  ml_surv_init(&bs);
  /* the rows ascend in p: bin j holds a contiguous run of them */
  for(i0=0, j=0; i0<n && rc==ML_OK; j++){
    double lo = brk[j], hi = nb>1 ? brk[j+1] : brk[0], mp, sv, s, wb;
    MlSurvFit fb;
    ml_i64 i1 = i0;
    if( nb>1 && j>=nb-1 ) break;
    if( nb>1 && j==nb-2 ) i1 = n;               /* the last bin: up to the top break */
    else while( i1<n && v[i1]<=hi ) i1++;
    if( i1==i0 ) continue;                      /* an empty bin: left out */
    for(i=i0; i<i1 && rc==ML_OK; i++) rc = ml_surv_add(&bs, c.lab[i], c.aux2[i], c.aux[i], v[i]);
    if( rc==ML_OK ) rc = ml_surv_fit(&bs, &fb);
    if( rc!=ML_OK ) break;
    mp = sx_mean_p(&c, i0, i1, &wb);
    ml_json_begin_object(&jj);
    ml_json_key(&jj, "lo");     ml_json_double(&jj, lo);
    ml_json_key(&jj, "hi");     ml_json_double(&jj, hi);
    ml_json_key(&jj, "n");      ml_json_double(&jj, wb);
    ml_json_key(&jj, "pred");   ml_json_double(&jj, mp);
    if( fb.t[fb.m-1]>=tt ){
      s = sx_surv_at(&fb, tt, &sv);
      ml_json_key(&jj, "obs");    ml_json_double(&jj, 1.0 - s);
      ml_json_key(&jj, "obs_se"); ml_json_double(&jj, s * sqrt(sv));
    }else{
      ml_json_key(&jj, "obs");    ml_json_null(&jj);
      ml_json_key(&jj, "obs_se"); ml_json_null(&jj);
    }
    ml_json_end_object(&jj);
    ml_surv_fit_free(&fb);
    ml_samples_clear(&bs);
    ml_surv_init(&bs);
    i0 = i1;
    if( nb<=1 ) break;
  }
  ml_samples_clear(&bs);
  ml_json_end_array(&jj);
  ml_json_end_object(&jj);
  ml_free(v);
  ml_canon_free(&c);
  if( rc==ML_NOMEM ){ ml_json_free(&jj); sqlite3_result_error_nomem(ctx); return; }
  if( rc!=ML_OK ){ ml_json_free(&jj); return; }   /* stopped: ml_compute_end reports it */
  ml_result_json(ctx, &jj);
}

/* surv_net_benefit and surv_decision_curve (rules 6, 7). */
static void sx_nb_result(sqlite3_context *ctx, const MlFuncDesc *d, SxAgg *p, const MlSurvFit *f){
  double tt = ml_sx_param(p, d, 0), g[3], *pt, *pos, *risk, *pv, *wv, sv, riskAll;
  ml_i64 T, n, i, *kx;
  unsigned char *ev;
  MlCanon c;
  int rc;
  if( d->kind==SX_NB ){
    g[0] = g[1] = ml_sx_param(p, d, 1); g[2] = 1.0;
    T = 1;
  }else{
    for(i=0; i<3; i++) g[i] = ml_sx_param(p, d, 1 + (int)i);
    if( ml_grid_check(ctx, d->name, g) ) return;
    T = (ml_i64)ml_grid_points(g);
    while( T>0 && g[0] + (double)(T-1)*g[2] >= 1.0 ) T--;   /* as decision_curve */
  }
  if( sx_followup_short(ctx, d, f, tt) ) return;
  if( (rc = sx_by_p(&p->smp, &c))!=ML_OK ){ sqlite3_result_error_nomem(ctx); return; }
  n = c.n;
  pt = ml_malloc((uint64_t)(T ? T : 1) * 3 * sizeof(double) + (uint64_t)n * (2*sizeof(double) + sizeof(ml_i64) + 1));
  if( pt==0 ){ ml_canon_free(&c); sqlite3_result_error_nomem(ctx); return; }
  pos = pt + T; risk = pos + T; pv = risk + T; wv = pv + n; kx = (ml_i64*)(wv + n); ev = (unsigned char*)(kx + n);
  for(i=0; i<T; i++) pt[i] = g[0] + (double)(T-1-i)*g[2];      /* descending */
  for(i=0; i<n; i++){                                            /* descending canonical */
    ml_i64 r = n-1-i;
    pv[i] = ml_double_of(c.key[r]);
    wv[i] = c.aux[r];
    ev[i] = c.lab[r];
    kx[i] = ml_surv_index(f, c.aux2[r]);
  }
  ml_canon_free(&c);
  rc = ml_surv_risk_above(f, kx, wv, ev, pv, n, tt, pt, T, pos, risk);
  if( rc!=ML_OK ){ ml_free(pt); sqlite3_result_error_nomem(ctx); return; }
  riskAll = 1.0 - sx_surv_at(f, tt, &sv);
  if( d->kind==SX_NB ){
    char z1[32], z2[32];
    if( pos[0]<=0.0 ) sqlite3_result_double(ctx, 0.0);
    else if( isnan(risk[0]) ){
      ml_result_null(ctx, d->name, "follow-up of the rows with p >= pt = %s ends before t = %s",
                     ml_num(z1, pt[0]), ml_num(z2, tt));
    }else{
      sqlite3_result_double(ctx, ml_net_benefit(risk[0]*pos[0], (1.0 - risk[0])*pos[0], 1.0, pt[0]));
    }
  }else{
    MlJson j;
    ml_json_init(&j);
    ml_json_begin_array(&j);
    for(i=T-1; i>=0; i--){
      double nb = pos[i]<=0.0 ? 0.0 : ml_net_benefit(risk[i]*pos[i], (1.0 - risk[i])*pos[i], 1.0, pt[i]);
      ml_json_begin_object(&j);
      ml_json_key(&j, "threshold");   ml_json_double(&j, pt[i]);
      ml_json_key(&j, "net_benefit"); ml_json_double(&j, nb);
      ml_json_key(&j, "treat_all");   ml_json_double(&j, ml_net_benefit(riskAll, 1.0 - riskAll, 1.0, pt[i]));
      ml_json_key(&j, "treat_none");  ml_json_double(&j, 0.0);
      ml_json_end_object(&j);
    }
    ml_json_end_array(&j);
    ml_result_json(ctx, &j);
  }
  ml_free(pt);
}

static void sx_result(sqlite3_context *ctx, SxAgg *p, int isFinal){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  MlSurvFit f;
  ml_i64 n = 0;
  int i, rc;
  if( p && p->failed ) return;
  for(i=0; p && d->aParam && d->aParam[i]; i++){
    if( ml_param_check(ctx, d->name, d->aParam[i]->name, &p->prm[i])!=ML_ROW_OK ) return;
  }
  if( p && p->init ) n = d->kind==SX_CDIFF ? p->nRow : ml_samples_count(&p->smp);
  if( n==0 ){ ml_result_null(ctx, d->name, "no rows"); return; }
  if( ml_compute_begin(ctx, isFinal, n) ) return;
  if( d->kind==SX_CDIFF ){
    ml_sx_cdiff_result(ctx, d, p);
    ml_compute_end(ctx);
    return;
  }
  rc = ml_surv_fit(&p->smp, &f);
  if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
  if( rc==ML_OK ){
    switch( d->kind ){
      case SX_CAL: sx_cal_result(ctx, d, p, &f); break;
      case SX_NB: case SX_DC: sx_nb_result(ctx, d, p, &f); break;
      default: ml_sx_boot_result(ctx, d, p, &f); break;
    }
    ml_surv_fit_free(&f);
  }
  ml_compute_end(ctx);
}

static void sxValue(sqlite3_context *ctx){
  sx_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}
static void sxFinal(sqlite3_context *ctx){
  SxAgg *p = sqlite3_aggregate_context(ctx, 0);
  sx_result(ctx, p, 1);
  sx_clear(p);
}

/* MlStateHooks.xAbsorb (rule 9): part 1's absorb into the same rows. */
static int sx_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  SxAgg *p = sx_agg(ctx);
  int rc;
  if( p==0 ) return ML_NOMEM;
  /* the bootstraps resample rows: a state's entry is its count of rows there */
  rc = ml_surv_absorb(&p->smp, st, n, sign, sx_is_prob(d->kind), d->kind==SX_AUROC_CI || d->kind==SX_BRIER_CI,
                      zErr, nErr);
  if( rc==ML_ERROR || rc==ML_NOMEM ) p->failed = 1;    /* the group's result is the error alone */
  return rc;
}

static const MlStateHooks sxStates = { sizeof(SxAgg), 3, (1u<<ML_STATE_SURV) | (1u<<ML_STATE_SURV_W), sx_absorb };
const MlFamily ml_fam_survival2 = { "survival", sxStep, sxFinal, sxValue, sxInverse, &sxStates, sxStepW, sxInverseW, 0 };

#define SX_W3 (ML_FN_WEIGHTED | ML_FN_TWIN_W3)
const MlFuncDesc ml_survival_clinical_functions[] = {
  { "surv_calibration",    "time, event, p, t [, bins]", 4, 5, &ml_fam_survival2, 0, SX_CAL, ML_FN_JSON | SX_W3,
                           ML_PARAMS(&ml_ps_surv_t, &psSxBins) },
  { "surv_net_benefit",    "time, event, p, t, pt",      5, 5, &ml_fam_survival2, 0, SX_NB, SX_W3,
                           ML_PARAMS(&ml_ps_surv_t, &ml_ps_pt) },
  { "surv_decision_curve", "time, event, p, t [, from [, to [, by]]]", 4, 7, &ml_fam_survival2, 0, SX_DC,
                           ML_FN_JSON | SX_W3, ML_PARAMS(&ml_ps_surv_t, &ml_ps_from, &ml_ps_to, &ml_ps_by) },
  { 0 }
};
