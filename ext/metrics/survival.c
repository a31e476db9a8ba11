/*
** SPDX-License-Identifier: MIT
**
** survival.c -- the time-to-event family: a model's risk or predicted
** probability validated on follow-up times with censoring (SPEC.md "Round
** 5"; docs/survival.md).
**
** SQL functions (aggregate and window; each f has a weighted twin f_w
** with w right after the score):
**   km(time, event [, t])           JSON: Kaplan-Meier (survfit) at t, or the curve
**   censoring_km(time, event)       JSON: the censoring curve G (C2), as km()'s curve
**   ipcw(curve, time, event, t)     scalar: a row's weight at t (C5) from censoring_km's JSON
**   surv_auroc(time, event, risk, t)   AUC(t): riskRegression Score(cens.model = "km")
**   surv_brier(time, event, p, t)      IPCW Brier(t)
**   surv_summary(time, event, p, t)    JSON {"t","n","cases","controls","censored",
**                                   "auroc","brier","brier_null","ipa","km_risk","mean_p","oe"}
**   surv_ibs(time, event, horizon, p)  JSON {"ibs","ibs_null","horizons","brier","brier_null"}
**   c_index(time, event, risk [, tau])             Harrell's C (survival::concordance)
**   c_index_ci(time, event, risk [, tau [, level]])   JSON {"estimate","se","lo","hi","level",
**                                   "concordant","discordant","tied_risk","tied_time"}
**   uno_c(time, event, risk [, tau])               Uno's C (timewt = "n/G2")
**   ml_state_surv(time, event, risk), ml_state_surv_w(time, event, risk, w)
**                                   BLOB: the rows as a state (rule 9)
**   f(state, ...)                   every function above but surv_ibs over a state
**                                   in place of (time, event [, risk | p])
**
** Rules:
**   1. time a non-negative finite number, event 0 or 1 (the label rules),
**      risk any number, p a probability in [0, 1], horizon (surv_ibs) a
**      positive finite number; each error names the function, the argument
**      and the value (ml_arg_time_event, ml_arg_score, ml_arg_prob).  A NULL
**      in a data argument skips the row.
**   2. t and tau are numbers in (0, Inf), level in (0, 1), the same in
**      every row of a group (MlParam: a frame may change them).
**   3. The rows are the core's buffer (ml_surv.h): a row at (time, event)
**      carrying its risk or p, 16 bytes while every weight is 1, 24 (with
**      the weight w) from the first row that weighs otherwise.  A result sorts it once by time and fits Kaplan-Meier and
**      G from it (ml_surv_fit, conventions C1 to C5, C9, C10).
**   4. Undefined results are NULL with a SQLITE_WARNING naming the reason:
**      no rows, no case or no control at t (surv_auroc), G = 0 where a
**      weight needs it (C9), no comparable pair (c_index, uno_c).
**   5. The twins (frequency weights): the driver reads w; a row of weight
**      w counts w times everywhere, the censoring curve included; integer
**      weights equal the rows repeated bit for bit (every sum of weights is
**      exact per time, every Brier term added exactly).
**   6. Windows: xInverse removes the row (ml_surv_remove; from its horizon's
**      buffer for surv_ibs); each result refits the frame, so a frame equals
**      the aggregate over its rows bit for bit.
**   7. surv_ibs: one buffer per distinct horizon (at most 10000); each
**      horizon's rows must have the same weight at every (time, event) (the
**      same subjects), else an error naming the two horizons; Brier(h) and
**      the null model's per horizon, integrated by C11.
**   8. c_index, c_index_ci, uno_c: ml_concordance (ml_conc.c) over the rows;
**      uno_c passes G(T_i-) of the fit (C2, C3) per row; the interval is
**      estimate -+ z se with se^2 the infinitesimal-jackknife variance.
**   9. States (ml_state_surv.c: kinds 7 and 8, the multiclass layout with
**      k = 2): ml_state_surv keeps the distinct (time, event, risk) with
**      their counts (the twin: (time, event, risk, w)); a state BLOB first
**      argument stands for the data arguments (km, censoring_km: time,
**      event; the others: time, event, risk or p -- a state's risk column
**      read as p must lie in [0, 1] as rows must); the family's step
**      diverts it (ML_STATE_DIVERT) and ml_sv_absorb adds each entry as one
**      record weighing its count (times its weight, as the one or two
**      doubles whose sum it is exactly), so every sum a result takes is the
**      rows' sum: the rows' results bit for bit, O(entries).  surv_ibs
**      takes no state (its horizon rides on each row).
**
** Cost: 16 bytes a row held (24 once a weight is not 1), the growth slack
** given back before the result sorts the rows (radix) and walks them
** once (km, Brier), sorts the cases and controls by risk (AUC(t): 16 bytes a
** row of scratch), or runs the concordance core (O(n log n): 20-44 bytes a
** row of arrays, 32 of scratch).
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

static const MlParamSpec psSvT = ML_PARAM_REAL("t", 0.0, 1, INFINITY, 1, 0, "5");
static const MlParamSpec psSvTau = ML_PARAM_REAL("tau", 0.0, 1, INFINITY, 1, 0, "10");

/* surv_ibs: the buffer of horizon h (made when add), or 0. */
static MlSamples *sv_horizon(SvAgg *p, double h, int add){
  int lo = 0, hi = p->nH;
  if( p->lastH<p->nH && p->aH[p->lastH].h==h ) return &p->aH[p->lastH].smp;
  while( lo<hi ){
    int mid = (lo + hi)/2;
    if( p->aH[mid].h<h ) lo = mid + 1; else hi = mid;
  }
  if( lo<p->nH && p->aH[lo].h==h ){ p->lastH = lo; return &p->aH[lo].smp; }
  if( !add ) return 0;
  if( p->nH==p->capH ){
    int cNew = p->capH ? p->capH*2 : 8;
    SvHorizon *a = ml_realloc(p->aH, (uint64_t)cNew * sizeof(*a));
    if( a==0 ) return 0;
    p->aH = a; p->capH = cNew;
  }
  memmove(p->aH + lo + 1, p->aH + lo, (size_t)(p->nH - lo) * sizeof(*p->aH));
  p->aH[lo].h = h;
  ml_surv_init(&p->aH[lo].smp);
  p->nH++;
  p->lastH = lo;
  return &p->aH[lo].smp;
}

/* The parameters after the data arguments (rule 2): ML_ROW_*. */
static int sv_params(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                     SvAgg *p, int inverse){
  int nd = sv_ndata(d->kind);
  double x;
  if( argc>nd ){
    const MlParamSpec *ps = (d->kind==SV_KM || d->kind==SV_AUROC || d->kind==SV_BRIER || d->kind==SV_SUMMARY)
                            ? &psSvT : &psSvTau;
    if( inverse ) ml_param_drop(&p->t, argv[nd]);
    else if( ml_param_real(ctx, d->name, ps, argv[nd], &p->t, &x)!=ML_ROW_OK ) return ML_ROW_ERR;
  }
  if( argc>nd+1 ){
    if( inverse ) ml_param_drop(&p->level, argv[nd+1]);
    else if( ml_param_real(ctx, d->name, &ml_ps_level, argv[nd+1], &p->level, &x)!=ML_ROW_OK ) return ML_ROW_ERR;
  }
  return ML_ROW_OK;
}

int ml_surv_arg_row(sqlite3_context *ctx, const char *fn, sqlite3_value **argv, int what,
                    double *time, int *event, double *x){
  int rc = ml_arg_time_event(ctx, fn, argv, time, event);
  if( rc!=ML_ROW_OK || what==ML_SURV_ROW_TE ) return rc;
  return what==ML_SURV_ROW_P ? ml_arg_prob(ctx, fn, "p", argv[2], x) : ml_arg_score(ctx, fn, "risk", argv[2], x);
}

int ml_surv_apply(MlSamples *smp, int event, double time, double w, double x, int sign){
  if( sign>0 ) return ml_surv_add(smp, event, time, w, x);
  ml_surv_remove(smp, event, time, w, x);
  return ML_OK;
}

/* One row of weight w; sign -1 removes it (rules 1, 5, 6). */
static void sv_row(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w, int sign){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  SvAgg *p = sv_agg(ctx);
  MlSamples *smp;
  double time, x = 0.0, h = 0.0;
  int event, rc, kind = d->kind;
  if( p==0 ) return;
  if( sign>0 && p->failed ) return;
  if( w<0.0 ){ p->failed = 1; return; }      /* the twin's weight was invalid */
  if( argc>0 && ML_STATE_DIVERT(ctx, argc, argv, sqlite3_value_type(argv[0]), sign<0) ) return;   /* rule 9 */
  if( argc<sv_ndata(kind) ){ ml_arity_error(ctx, d, argc); p->failed = 1; return; }
  if( sv_params(ctx, d, argc, argv, p, sign<0)==ML_ROW_ERR ){ p->failed = 1; return; }
  rc = ml_surv_arg_row(ctx, d->name, argv, kind==SV_IBS || kind<SV_AUROC ? ML_SURV_ROW_TE
                       : sv_is_prob(kind) ? ML_SURV_ROW_P : ML_SURV_ROW_RISK, &time, &event, &x);
  if( rc==ML_ROW_OK && kind==SV_IBS ){
    int th = ml_value_type(argv[2]);
    rc = th==SQLITE_NULL ? ML_ROW_SKIP : ML_ROW_OK;
    if( th==SQLITE_INTEGER || th==SQLITE_FLOAT ) h = sqlite3_value_double(argv[2]);
    if( th!=SQLITE_NULL && !(h>0.0 && h<INFINITY) ){
      char *z = ml_describe(argv[2]);
      if( z==0 ){ sqlite3_result_error_nomem(ctx); p->failed = 1; return; }
      ml_error(ctx, d->name, "horizon must be a positive finite number, got %s", z);
      sqlite3_free(z);
      rc = ML_ROW_ERR;
    }
    if( rc==ML_ROW_OK ) rc = ml_arg_prob(ctx, d->name, "p", argv[3], &x);
  }
  if( rc==ML_ROW_ERR ){ p->failed = 1; return; }
  if( rc!=ML_ROW_OK || w==0.0 ) return;
  if( kind==SV_IBS ){
    smp = sv_horizon(p, h, sign>0);
    if( smp==0 ){
      if( sign<0 ) return;
      sqlite3_result_error_nomem(ctx); p->failed = 1; return;
    }
    if( sign>0 && p->nH>SV_MAX_HORIZONS ){
      ml_error(ctx, d->name, "more than %d distinct horizons", SV_MAX_HORIZONS);
      p->failed = 1;
      return;
    }
  }else{
    smp = &p->smp;
  }
  if( ml_surv_apply(smp, event, time, w, x, sign)!=ML_OK ){ sqlite3_result_error_nomem(ctx); p->failed = 1; }
}

/*
** SQL function: km, censoring_km, surv_auroc, surv_brier, surv_summary,
** surv_ibs, c_index, c_index_ci, uno_c -- xStep, xInverse
*/
static void svStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  /* The common row inline: time a number >= 0, event an INTEGER 0 or 1, the
  ** risk or p a number (p in [0, 1]), at most one parameter (t or tau);
  ** anything else -- a state, NULLs, text, surv_ibs -- goes to sv_row */
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  int kind = d->kind, nd = sv_ndata(kind), t0;
  if( kind!=SV_IBS && argc>=nd && argc<=nd+1 && ((t0 = sqlite3_value_type(argv[0]))==SQLITE_FLOAT || t0==SQLITE_INTEGER)
   && sqlite3_value_type(argv[1])==SQLITE_INTEGER ){
    double time = sqlite3_value_double(argv[0]), x = 0.0;
    sqlite3_int64 e = sqlite3_value_int64(argv[1]);
    int ok = time>=0.0 && time<INFINITY && (e & ~(sqlite3_int64)1)==0;
    if( ok && nd==3 ){
      int t2 = sqlite3_value_type(argv[2]);
      ok = t2==SQLITE_FLOAT || t2==SQLITE_INTEGER;
      if( ok ){
        x = sqlite3_value_double(argv[2]);
        if( sv_is_prob(kind) ) ok = x>=0.0 && x<=1.0;
      }
    }
    if( ok ){
      SvAgg *p = sv_agg(ctx);
      double v;
      if( p==0 || p->failed ) return;
      if( argc>nd && ml_param_real(ctx, d->name, kind>=SV_CINDEX ? &psSvTau : &psSvT, argv[nd], &p->t, &v)!=ML_ROW_OK ){
        p->failed = 1;
        return;
      }
      if( ml_surv_add(&p->smp, (int)e, time, 1.0, x)!=ML_OK ){ sqlite3_result_error_nomem(ctx); p->failed = 1; }
      return;
    }
  }
  sv_row(ctx, argc, argv, 1.0, 1);
}
static void svInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){ sv_row(ctx, argc, argv, 1.0, -1); }
/*
** SQL function: the twins f_w(time, event, [risk | p | horizon, p,] w, ...)
** -- xStep, xInverse (the driver has read the weight: MlFamily.xStepW)
*/
static void svStepW(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  sv_row(ctx, argc, argv, w, 1);
}
static void svInverseW(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  if( w>=0.0 ) sv_row(ctx, argc, argv, w, -1);
}

/*
** SQL function: ipcw(curve, time, event, t) -- scalar.  curve is
** censoring_km()'s JSON (its "time" and "surv"), read once per statement
** (sqlite3_set_auxdata); the row's weight by C5: 1/G(time-) for a case,
** 1/G(t) for a control, 0 for a row censored at or before t; NULL for a
** NULL argument, and NULL with a reason where the G it needs is 0 (C9).
*/
typedef struct SvCurve { double *t, *g; ml_i64 m; } SvCurve;
static void sv_curve_free(void *p){
  SvCurve *c = p;
  ml_free(c->t); ml_free(c->g); ml_free(c);
}
/* Reads curve (argv[0], not NULL) into a new SvCurve; 0 with the error set. */
static SvCurve *sv_curve_read(sqlite3_context *ctx, const MlFuncDesc *d, sqlite3_value *v){
  int t = sqlite3_value_type(v), rc;
  const char *z = t==SQLITE_TEXT ? (const char*)sqlite3_value_text(v) : 0;
  char zErr[96];
  ml_i64 m2 = 0, i;
  SvCurve *c;
  if( t==SQLITE_TEXT && z==0 ){ sqlite3_result_error_nomem(ctx); return 0; }
  if( (c = ml_malloc(sizeof(*c)))==0 ){ sqlite3_result_error_nomem(ctx); return 0; }
  memset(c, 0, sizeof(*c));
  zErr[0] = 0;
  rc = z ? ml_json_read_field(z, "time", &c->t, &c->m, zErr, sizeof(zErr)) : ML_ERROR;
  if( rc==ML_OK ) rc = ml_json_read_field(z, "surv", &c->g, &m2, zErr, sizeof(zErr));
  if( rc==ML_OK && m2!=c->m ){
    sqlite3_snprintf(sizeof(zErr), zErr, "\"time\" and \"surv\" differ in length");
    rc = ML_ERROR;
  }
  for(i=0; rc==ML_OK && i<c->m; i++){
    if( !(c->g[i]>=0.0 && c->g[i]<=1.0) || !(c->t[i]>=0.0) || (i>0 && !(c->t[i]>c->t[i-1])) ){
      sqlite3_snprintf(sizeof(zErr), zErr, "not a censoring curve at element %lld", (long long)i);
      rc = ML_ERROR;
    }
  }
  if( rc==ML_OK ) return c;
  sv_curve_free(c);
  if( rc==ML_NOMEM ){ sqlite3_result_error_nomem(ctx); return 0; }
  if( z ){
    ml_error(ctx, d->name, "curve must be the JSON of censoring_km(), got text (%s)", zErr);
  }else{
    char *zV = ml_describe(v);
    if( zV==0 ){ sqlite3_result_error_nomem(ctx); return 0; }
    ml_error(ctx, d->name, "curve must be the JSON of censoring_km(), got %s", zV);
    sqlite3_free(zV);
  }
  return 0;
}

static void ipcwFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  SvCurve *c;
  double time, tt, g;
  int event, rc, cached;
  (void)argc;
  if( sqlite3_value_type(argv[0])==SQLITE_NULL ) return;
  c = sqlite3_get_auxdata(ctx, 0);
  cached = c!=0;
  if( c==0 && (c = sv_curve_read(ctx, d, argv[0]))==0 ) return;
  /* t: a parameter (an error when NULL), checked as the aggregates' t */
  {
    MlParam slot;
    memset(&slot, 0, sizeof(slot));
    rc = ml_param_real(ctx, d->name, &psSvT, argv[3], &slot, &tt);
  }
  if( rc==ML_ROW_OK ) rc = ml_arg_time_event(ctx, d->name, argv + 1, &time, &event);
  if( rc==ML_ROW_OK ){
    switch( ml_surv_class(event, time, tt) ){
      case 1:  g = ml_surv_step_at(c->t, c->g, c->m, time, 1); break;
      case 0:  g = ml_surv_step_at(c->t, c->g, c->m, tt, 0); break;
      default: g = -1.0; break;
    }
    if( g<0.0 ) sqlite3_result_double(ctx, 0.0);
    else if( g>0.0 ) sqlite3_result_double(ctx, 1.0/g);
    else ml_result_null(ctx, d->name, "the censoring curve G is 0 at the %s (C9)",
                        event && time<=tt ? "case's time" : "horizon");
  }
  /* kept for the statement's next rows while curve is the same constant */
  if( !cached ) sqlite3_set_auxdata(ctx, 0, c, sv_curve_free);
}

static const MlStateHooks svStates = { sizeof(SvAgg), 3, (1u<<ML_STATE_SURV) | (1u<<ML_STATE_SURV_W), ml_sv_absorb };
static const MlFamily famSurvival = { "survival", svStep, ml_sv_final, ml_sv_value, svInverse, &svStates,
                                      svStepW, svInverseW, 0 };

#define SV_W3 (ML_FN_WEIGHTED | ML_FN_TWIN_W3)
const MlFuncDesc ml_survival_functions[] = {
  { "km",           "time, event [, t]",           2, 3, &famSurvival, 0, SV_KM,
                    ML_FN_JSON | ML_FN_WEIGHTED | ML_FN_STATE_YS, ML_PARAMS(&psSvT) },
  { "censoring_km", "time, event",                 2, 2, &famSurvival, 0, SV_CENS,
                    ML_FN_JSON | ML_FN_WEIGHTED | ML_FN_STATE_YS, 0 },
  { "ipcw",         "curve, time, event, t",       4, 4, 0, ipcwFunc, 0, 0, ML_PARAMS(&psSvT) },
  { "surv_auroc",   "time, event, risk, t",        4, 4, &famSurvival, 0, SV_AUROC, SV_W3, ML_PARAMS(&psSvT) },
  { "surv_brier",   "time, event, p, t",           4, 4, &famSurvival, 0, SV_BRIER, SV_W3, ML_PARAMS(&psSvT) },
  { "surv_summary", "time, event, p, t",           4, 4, &famSurvival, 0, SV_SUMMARY, ML_FN_JSON | SV_W3,
                    ML_PARAMS(&psSvT) },
  { "surv_ibs",     "time, event, horizon, p",     4, 4, &famSurvival, 0, SV_IBS,
                    ML_FN_JSON | ML_FN_WEIGHTED | ML_FN_TWIN_W4 | ML_FN_NO_STATE, 0 },
  { "c_index",      "time, event, risk [, tau]",   3, 4, &famSurvival, 0, SV_CINDEX, SV_W3, ML_PARAMS(&psSvTau) },
  { "c_index_ci",   "time, event, risk [, tau [, level]]", 3, 5, &famSurvival, 0, SV_CINDEX_CI,
                    ML_FN_JSON | SV_W3, ML_PARAMS(&psSvTau, &ml_ps_level) },
  { "uno_c",        "time, event, risk [, tau]",   3, 4, &famSurvival, 0, SV_UNO, SV_W3, ML_PARAMS(&psSvTau) },
  { "ml_state_surv", "time, event, risk",          3, 3, &famSurvival, 0, SV_STATE,
                    ML_FN_BLOB | ML_FN_NO_STATE | SV_W3, 0 },
  { 0 }
};
