/*
** SPDX-License-Identifier: MIT
**
** survival_result.c -- the survival family's part 1 results: km and
** censoring_km's curves, km at t, surv_auroc, surv_brier and surv_summary
** at t, surv_ibs over its horizons, c_index, c_index_ci and uno_c, the
** survival states (ml_state_surv), and the family's xAbsorb.  The rows,
** parameters and records are survival.c's, whose header gives the rules
** (SPEC "Round 5") these results follow.
**
** Rules (survival.c's numbering, in short):
**   1. One sort of the group's rows by time per result (ml_surv_fit); every
**      number is ml_surv.c's or ml_conc.c's, from the rows or from states
**      absorbed as counted records, so both give the same bits.
**   2. An undefined result is NULL with the core's reason as a warning.
**
** Cost: a result sorts the rows (radix) and walks them once (km, Brier),
** sorts the cases and controls by risk (AUC(t): 16 bytes a row of
** scratch), or runs the concordance core (O(n log n), 32-48 bytes a row of
** scratch); surv_ibs does so per horizon.
*/
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "ml_surv.h"
#include "ml_conc.h"
#include "survival.h"
#include "survival2.h"

/* km()'s curve, or censoring_km()'s (cens: G's own counts: at risk n - d,
** its events the censorings, its censorings the events; Greenwood's se of G). */
static void sv_curve_json(MlJson *j, const MlSurvFit *f, int cens){
  static const char *const azKey[6] = {"time", "n_risk", "n_event", "n_censor", "surv", "se"};
  int c;
  for(c=0; c<6; c++){
    ml_i64 k;
    double v = 0.0;
    ml_json_key(j, azKey[c]);
    ml_json_begin_array(j);
    for(k=0; k<f->m; k++){
      double r = cens ? f->n[k] - f->d[k] : f->n[k], e = cens ? f->c[k] : f->d[k];
      double s = cens ? f->G[k] : f->S[k];
      if( cens && e>0.0 && r>0.0 ) v = r>e ? v + e/(r*(r - e)) : INFINITY;
      switch( c ){
        case 0: ml_json_double(j, f->t[k]); break;
        case 1: ml_json_double(j, r); break;
        case 2: ml_json_double(j, e); break;
        case 3: ml_json_double(j, cens ? f->d[k] : f->c[k]); break;
        case 4: ml_json_double(j, s); break;
        default: ml_json_double(j, s * sqrt(cens ? v : f->v[k])); break;
      }
    }
    ml_json_end_array(j);
  }
}

/* km(time, event, t): survfit's summary at t (rule 3). */
static void sv_km_at_json(MlJson *j, const MlSurvFit *f, double tt){
  ml_i64 k = ml_surv_index(f, tt), i;
  double s = k>=0 ? f->S[k] : 1.0, v = k>=0 ? f->v[k] : 0.0, ev = 0.0;
  for(i=0; i<=k; i++) ev += f->d[i];
  ml_json_key(j, "t");        ml_json_double(j, tt);
  ml_json_key(j, "surv");     ml_json_double(j, s);
  ml_json_key(j, "risk");     ml_json_double(j, 1.0 - s);
  ml_json_key(j, "se");       ml_json_double(j, s * sqrt(v));
  /* at risk at t: the rows whose time is >= t (the next time's n) */
  ml_json_key(j, "n_risk");
  if( k>=0 && f->t[k]==tt ) ml_json_double(j, f->n[k]);
  else ml_json_double(j, k+1<f->m ? f->n[k+1] : 0.0);
  ml_json_key(j, "n_events"); ml_json_double(j, ev);
}

/* The arrays ml_concordance reads, from the rows: n rows; w 0 when every
** weight is 1; g (Uno) G(T_i-) per row.  One allocation at *pMem. */
static int sv_conc(MlSamples *smp, const MlSurvFit *f, int uno, double tau, int wantDf, MlConc *out,
                   double **pDf, double **pW, ml_i64 *pn){
  ml_i64 n = ml_samples_count(smp), i, r = 0;
  double *time, *risk, *w = 0, *g = 0, *df = 0, *q;
  int *ev, y, weighted = 0, rc;
  unsigned char *mem;
  /* only the arrays the call reads: w when a weight is not 1, df, g */
  for(y=0; y<2 && !weighted; y++) for(i=0; i<smp->n[y] && !weighted; i++) weighted = ml_surv_w(smp, y, i)!=1.0;
  mem = ml_malloc((uint64_t)n * (8*(2 + weighted + (wantDf!=0) + (uno!=0)) + 4) + 8);
  *pDf = 0; *pW = 0; *pn = n;
  if( mem==0 ) return ML_NOMEM;
  time = (double*)mem; risk = time + n; q = risk + n;
  if( weighted ){ w = q; q += n; }
  if( wantDf ){ df = q; q += n; }
  if( uno ){ g = q; q += n; }
  ev = (int*)q;
  for(y=0; y<2; y++){
    for(i=0; i<smp->n[y]; i++, r++){
      time[r] = ml_double_of(ml_samples_key(smp, y, i));
      if( weighted ) w[r] = ml_surv_w(smp, y, i);
      risk[r] = ml_surv_x(smp, y, i);
      ev[r] = y;
      if( uno ) g[r] = y ? ml_surv_G_before(f, time[r]) : 1.0;
    }
  }
  if( weighted ){
    /* Weights far from 1 (beyond 2^+-400): the pair weights w_i w_j would
    ** overflow or turn subnormal (c_index_w NULL at 2^600, off in the 7th
    ** digit at 1e-160), so the concordance runs on the weights times the
    ** power of two that brings the largest to [1, 2) -- exact -- and the
    ** weight sums it reports are scaled back: pair counts by 1/sc^2, the
    ** frequency-rule var and dfbeta (per unit weight) by sc.  Weights
    ** nearer 1 run as given, so integer weights stay the repeated rows. */
    double wmax = 0.0, sc;
    for(i=0; i<n; i++) if( w[i]>wmax ) wmax = w[i];
    sc = ml_pow2_scale(wmax);
    if( sc > 0x1p400 || sc < 0x1p-400 ){
      for(i=0; i<n; i++) w[i] *= sc;
      rc = ml_concordance(n, time, ev, risk, w, g, tau, out, df);
      for(i=0; i<n; i++) w[i] /= sc;
      out->concordant = out->concordant/sc/sc; out->discordant = out->discordant/sc/sc;
      out->tied_risk = out->tied_risk/sc/sc; out->tied_time = out->tied_time/sc/sc;
      out->tied_both = out->tied_both/sc/sc; out->tied_self = out->tied_self/sc/sc;
      out->var *= sc;
      if( df ) for(i=0; i<n; i++) df[i] *= sc;
    }else{
      rc = ml_concordance(n, time, ev, risk, w, g, tau, out, df);
    }
  }else{
    rc = ml_concordance(n, time, ev, risk, 0, g, tau, out, df);
  }
  *pDf = (double*)mem;          /* the caller frees mem through it */
  *pW = weighted ? w : 0;
  return rc;
}

/* Uno's C needs G(T_i-) > 0 for every event row that is an earlier row of a
** pair: the first event with G(T-) = 0 (within tau) makes it undefined (C9). */
static int sv_uno_defined(const MlSurvFit *f, double tau){
  ml_i64 k;
  double g = 1.0;
  for(k=0; k<f->m && f->t[k]<=tau; k++){
    if( f->d[k]>0.0 && g<=0.0 ) return 0;
    g = f->G[k];
  }
  return 1;
}

static void sv_cindex_result(sqlite3_context *ctx, const MlFuncDesc *d, SvAgg *p, MlSurvFit *f){
  MlConc c;
  double *mem = 0, *w = 0, tau = ml_param_value(&p->t, INFINITY);
  ml_i64 n;
  int uno = d->kind==SV_UNO, rc;
  if( uno && !sv_uno_defined(f, tau) ){
    ml_result_null(ctx, d->name, "the censoring curve G is 0 before an event's time (C9)");
    return;
  }
  rc = sv_conc(&p->smp, f, uno, tau, d->kind==SV_CINDEX_CI, &c, &mem, &w, &n);
  if( rc==ML_NOMEM ){ ml_free(mem); sqlite3_result_error_nomem(ctx); return; }
  if( rc!=ML_OK ){ ml_free(mem); return; }   /* stopped: ml_compute_end reports it */
  if( isnan(c.estimate) ){
    ml_free(mem);
    ml_result_null(ctx, d->name, "no comparable pair (no event before another row's time%s)",
                   isinf(tau) ? "" : " within tau");
    return;
  }
  if( d->kind==SV_CINDEX_CI ){
    MlJson j;
    double level = ml_param_value(&p->level, 0.95), se = sqrt(c.var), z = ml_norm_quantile(0.5 + level/2.0);
    ml_json_init(&j);
    ml_json_begin_object(&j);
    ml_json_key(&j, "estimate");   ml_json_double(&j, c.estimate);
    ml_json_key(&j, "se");         ml_json_double(&j, se);
    ml_json_key(&j, "lo");         ml_json_double(&j, c.estimate - z*se);
    ml_json_key(&j, "hi");         ml_json_double(&j, c.estimate + z*se);
    ml_json_key(&j, "level");      ml_json_double(&j, level);
    ml_json_key(&j, "concordant"); ml_json_double(&j, c.concordant);
    ml_json_key(&j, "discordant"); ml_json_double(&j, c.discordant);
    ml_json_key(&j, "tied_risk");  ml_json_double(&j, c.tied_risk);
    ml_json_key(&j, "tied_time");  ml_json_double(&j, c.tied_time);
    ml_json_end_object(&j);
    ml_result_json(ctx, &j);
  }else{
    sqlite3_result_double(ctx, c.estimate);
  }
  ml_free(mem);
}

/* surv_ibs (rule 7): every horizon's fit against the first's, then Brier. */
static void sv_ibs_result(sqlite3_context *ctx, const MlFuncDesc *d, SvAgg *p){
  MlSurvFit f0, f;
  double *buf;
  ml_i64 K = 0, k;
  int i, i0 = -1, rc = ML_OK;
  const char *zWhy = 0;
  MlJson j;
  buf = ml_malloc((uint64_t)(p->nH + 1) * 3 * sizeof(double));
  if( buf==0 ){ sqlite3_result_error_nomem(ctx); return; }
  memset(&f0, 0, sizeof(f0));
  for(i=0; i<p->nH && rc==ML_OK; i++){
    MlSurvAt at;
    if( ml_samples_count(&p->aH[i].smp)==0 ) continue;
    if( (rc = ml_surv_fit(&p->aH[i].smp, i0<0 ? &f0 : &f))!=ML_OK ) break;
    if( i0<0 ){
      i0 = i;
    }else{
      int same = f.m==f0.m && f.W==f0.W;
      for(k=0; same && k<f.m; k++) same = f.t[k]==f0.t[k] && f.d[k]==f0.d[k] && f.c[k]==f0.c[k];
      ml_surv_fit_free(&f);
      if( !same ){
        char z1[32], z2[32];
        ml_error(ctx, d->name, "every horizon must carry the same rows' (time, event): horizon %s "
                 "differs from horizon %s", ml_num(z1, p->aH[i].h), ml_num(z2, p->aH[i0].h));
        ml_surv_fit_free(&f0); ml_free(buf);
        return;
      }
    }
    rc = ml_surv_at(&p->aH[i].smp, &f0, p->aH[i].h, ML_SURV_BRIER | ML_SURV_NULL, &at);
    if( at.zWhy && zWhy==0 ) zWhy = at.zWhy;
    buf[K] = p->aH[i].h;
    buf[p->nH + 1 + K] = at.brier;
    buf[2*(p->nH + 1) + K] = at.brierNull;
    K++;
  }
  ml_surv_fit_free(&f0);
  if( rc==ML_NOMEM ){ ml_free(buf); sqlite3_result_error_nomem(ctx); return; }
  if( rc!=ML_OK ){ ml_free(buf); return; }
  if( K==0 ){ ml_free(buf); ml_result_null(ctx, d->name, "no rows"); return; }
  if( zWhy ){ ml_free(buf); ml_result_null(ctx, d->name, "%s", zWhy); return; }
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "ibs");      ml_json_double(&j, ml_surv_integrate(buf, buf + p->nH + 1, K));
  ml_json_key(&j, "ibs_null"); ml_json_double(&j, ml_surv_integrate(buf, buf + 2*(p->nH + 1), K));
  for(i=0; i<3; i++){
    static const char *const azKey[3] = {"horizons", "brier", "brier_null"};
    ml_json_key(&j, azKey[i]);
    ml_json_begin_array(&j);
    for(k=0; k<K; k++) ml_json_double(&j, buf[i*(p->nH + 1) + k]);
    ml_json_end_array(&j);
  }
  ml_json_end_object(&j);
  ml_free(buf);
  ml_result_json(ctx, &j);
}

/* surv_auroc, surv_brier, surv_summary at t. */
static void sv_at_result(sqlite3_context *ctx, const MlFuncDesc *d, SvAgg *p, const MlSurvFit *f){
  MlSurvAt at;
  double tt = ml_param_value(&p->t, NAN);
  unsigned what = d->kind==SV_AUROC ? ML_SURV_AUROC : d->kind==SV_BRIER ? ML_SURV_BRIER
                : ML_SURV_AUROC | ML_SURV_BRIER | ML_SURV_NULL;
  if( ml_surv_at(&p->smp, f, tt, what, &at)!=ML_OK ){ sqlite3_result_error_nomem(ctx); return; }
  if( d->kind==SV_AUROC || d->kind==SV_BRIER ){
    double v = d->kind==SV_AUROC ? at.auroc : at.brier;
    if( isnan(v) ) ml_result_null(ctx, d->name, "%s", at.zWhy ? at.zWhy : "undefined");
    else sqlite3_result_double(ctx, v);
    return;
  }
  if( isnan(at.brier) ){   /* G = 0: nothing at t is defined */
    ml_result_null(ctx, d->name, "%s", at.zWhy ? at.zWhy : "undefined");
    return;
  }
  {
    MlJson j;
    ml_json_init(&j);
    ml_json_begin_object(&j);
    ml_json_key(&j, "t");          ml_json_double(&j, tt);
    ml_json_key(&j, "n");          ml_json_double(&j, at.W);
    ml_json_key(&j, "cases");      ml_json_double(&j, at.cases);
    ml_json_key(&j, "controls");   ml_json_double(&j, at.controls);
    ml_json_key(&j, "censored");   ml_json_double(&j, at.censored);
    ml_json_key(&j, "auroc");      ml_json_double(&j, at.auroc);
    ml_json_key(&j, "brier");      ml_json_double(&j, at.brier);
    ml_json_key(&j, "brier_null"); ml_json_double(&j, at.brierNull);
    ml_json_key(&j, "ipa");        ml_json_double(&j, at.brierNull>0.0 ? 1.0 - at.brier/at.brierNull : NAN);
    ml_json_key(&j, "km_risk");    ml_json_double(&j, at.kmRisk);
    ml_json_key(&j, "mean_p");     ml_json_double(&j, at.meanP);
    ml_json_key(&j, "oe");         ml_json_double(&j, at.meanP>0.0 ? at.kmRisk/at.meanP : NAN);
    ml_json_end_object(&j);
    ml_result_json(ctx, &j);
  }
}

/* ml_state_surv(_w)'s BLOB: the rows as tuples (rule 9). */
static void sv_state_result(sqlite3_context *ctx, const MlFuncDesc *d, SvAgg *p){
  ml_i64 n = ml_samples_count(&p->smp), i, r = 0;
  double *rows = ml_malloc((uint64_t)n * 4 * sizeof(double) + 8);
  int y, weighted = (d->flags & ML_FN_TWIN)!=0;
  MlBuf b;
  if( rows==0 ){ sqlite3_result_error_nomem(ctx); return; }
  for(y=0; y<2; y++){
    for(i=0; i<p->smp.n[y]; i++, r++){
      rows[4*r] = (double)y;
      rows[4*r+1] = ml_surv_w(&p->smp, y, i);
      rows[4*r+2] = ml_double_of(ml_samples_key(&p->smp, y, i));
      rows[4*r+3] = ml_surv_x(&p->smp, y, i);
    }
  }
  if( ml_state_encode_tuples(rows, n, 2, weighted ? ML_STATE_SURV_W : ML_STATE_SURV, &b) ){
    ml_free(rows);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  ml_free(rows);
  sqlite3_result_blob64(ctx, b.z, b.n, sqlite3_free);
}

/* n survival states' entries join (sign +1) or leave (-1) the rows smp,
** each entry one record weighing its count (times its weight: the one or
** two doubles whose sum it is exactly, ml_count_weight), so every sum the
** results take equals the rows' (rule 9); isProb: the risk column read as
** p must lie in [0, 1]; expand: an entry's count c is c records of its
** weight instead (the rows themselves, for a bootstrap that resamples
** rows).  ML_OK, ML_NOMEM, ML_ERROR (zErr) or ML_STOPPED.
** The family's xAbsorb (ml_sv_absorb) and part 2's (survival_clinical.c)
** call it.  surv_ibs takes no state. */
int ml_surv_absorb(MlSamples *smp, const MlState *st, int n, int sign, int isProb, int expand,
                   char *zErr, int nErr){
  int j, c;
  for(j=0; j<n; j++){
    for(c=0; c<2; c++){
      MlMcReader r;
      MlMcEntry e;
      ml_i64 k = 0;
      ml_mc_reader_init(&r, &st[j].sec[c], 2, st[j].kind==ML_STATE_SURV_W);
      while( ml_mc_reader_next(&r, &e)==1 ){
        double part[2], t = ml_double_of(e.p[0]), x = ml_double_of(e.p[1]);
        double w = st[j].kind==ML_STATE_SURV_W ? ml_double_of(e.w) : 1.0;
        int np = expand ? 1 : ml_count_weight(e.n, w, part);
        ml_i64 i, nRec = expand ? (ml_i64)e.n : np;
        if( expand ) part[0] = w;
        if( isProb && sign>0 && ml_state_probability_range(x, x, zErr, nErr) ) return ML_ERROR;
        for(i=0; i<nRec; i++){
          if( sign>0 ){
            if( ml_surv_add(smp, c, t, part[expand ? 0 : i], x)!=ML_OK ) return ML_NOMEM;
          }else if( !ml_surv_remove(smp, c, t, part[expand ? 0 : i], x) ){
            snprintf(zErr, (size_t)nErr, "the state removed holds rows the frame does not");
            return ML_ERROR;
          }
        }
        if( (++k & 0xFFFF)==0 && ml_stop_requested() ) return ML_STOPPED;
      }
    }
  }
  return ML_OK;
}
int ml_sv_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  SvAgg *p = sv_agg(ctx);
  int rc;
  if( p==0 ) return ML_NOMEM;
  rc = ml_surv_absorb(&p->smp, st, n, sign, sv_is_prob(d->kind), 0, zErr, nErr);
  if( rc==ML_ERROR || rc==ML_NOMEM ) p->failed = 1;    /* the group's result is the error alone */
  return rc;
}

static void sv_result(sqlite3_context *ctx, SvAgg *p, int isFinal){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  MlSurvFit f;
  ml_i64 n = 0;
  int i, rc;
  if( p && p->failed ) return;
  if( p && ml_param_check(ctx, d->name, d->kind<SV_CINDEX ? "t" : "tau", &p->t)!=ML_ROW_OK ) return;
  if( p && ml_param_check(ctx, d->name, "level", &p->level)!=ML_ROW_OK ) return;
  if( p && p->init ){
    n = ml_samples_count(&p->smp);
    for(i=0; i<p->nH; i++) n += ml_samples_count(&p->aH[i].smp);
  }
  if( n==0 ){
    if( d->kind==SV_STATE ) return;            /* no rows: NULL, as ml_state's (an empty shard adds nothing) */
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  if( d->kind==SV_STATE ){ sv_state_result(ctx, d, p); return; }
  if( ml_compute_begin(ctx, isFinal, n) ) return;
  if( d->kind==SV_IBS ){
    sv_ibs_result(ctx, d, p);
    ml_compute_end(ctx);
    return;
  }
  if( d->kind==SV_CINDEX || d->kind==SV_CINDEX_CI ){   /* Harrell's C needs no curve */
    if( ml_surv_sort(&p->smp)!=ML_OK ){ sqlite3_result_error_nomem(ctx); ml_compute_end(ctx); return; }
    sv_cindex_result(ctx, d, p, 0);
    ml_compute_end(ctx);
    return;
  }
  rc = ml_surv_fit(&p->smp, &f);
  if( rc==ML_NOMEM ) sqlite3_result_error_nomem(ctx);
  if( rc==ML_OK ){
    MlJson j;
    switch( d->kind ){
      case SV_KM:
      case SV_CENS:
        ml_json_init(&j);
        ml_json_begin_object(&j);
        if( d->kind==SV_KM && p->t.n[0]>0 ) sv_km_at_json(&j, &f, p->t.v[0]);
        else sv_curve_json(&j, &f, d->kind==SV_CENS);
        ml_json_end_object(&j);
        ml_result_json(ctx, &j);
        break;
      case SV_AUROC: case SV_BRIER: case SV_SUMMARY:
        sv_at_result(ctx, d, p, &f);
        break;
      default:
        sv_cindex_result(ctx, d, p, &f);
        break;
    }
    ml_surv_fit_free(&f);
  }
  ml_compute_end(ctx);
}

void ml_sv_value(sqlite3_context *ctx){
  sv_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}
void ml_sv_final(sqlite3_context *ctx){
  SvAgg *p = sqlite3_aggregate_context(ctx, 0);
  sv_result(ctx, p, 1);
  sv_clear(p);
}
