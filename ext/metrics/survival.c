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
**      diverts it (ML_STATE_DIVERT) and sv_absorb adds each entry as one
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

enum { SV_KM = 1, SV_CENS, SV_AUROC, SV_BRIER, SV_SUMMARY, SV_IBS, SV_CINDEX, SV_CINDEX_CI, SV_UNO, SV_STATE };

#define SV_MAX_HORIZONS 10000

static const MlParamSpec psSvT = ML_PARAM_REAL("t", 0.0, 1, INFINITY, 1, 0, "5");
static const MlParamSpec psSvTau = ML_PARAM_REAL("tau", 0.0, 1, INFINITY, 1, 0, "10");

/* surv_ibs's rows of one horizon. */
typedef struct SvHorizon { double h; MlSamples smp; } SvHorizon;

typedef struct SvAgg {
  MlSamples smp;        /* the rows (ml_surv.h); surv_ibs: unused */
  SvHorizon *aH;        /* surv_ibs: the horizons, ascending */
  int nH, capH, lastH;
  MlParam t;            /* t or tau */
  MlParam level;
  int init;
  int failed;           /* a step set an error: results only free */
} SvAgg;

static SvAgg *sv_agg(sqlite3_context *ctx){
  SvAgg *p = ml_agg_context(ctx, sizeof(*p));     /* room for a state's part (rule 9) */
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return 0; }
  if( !p->init ){ ml_surv_init(&p->smp); p->init = 1; }
  return p;
}

static void sv_clear(SvAgg *p){
  int i;
  if( p==0 || !p->init ) return;
  ml_samples_clear(&p->smp);
  for(i=0; i<p->nH; i++) ml_samples_clear(&p->aH[i].smp);
  ml_free(p->aH);
  p->aH = 0; p->nH = p->capH = 0;
}

/* The data arguments of a kind. */
static int sv_ndata(int kind){
  return kind<=SV_CENS ? 2 : kind==SV_IBS ? 4 : 3;    /* SV_STATE: time, event, risk */
}
static int sv_is_prob(int kind){
  return kind==SV_BRIER || kind==SV_SUMMARY || kind==SV_IBS;
}

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
  rc = ml_arg_time_event(ctx, d->name, argv, &time, &event);
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
  }else if( rc==ML_ROW_OK && kind>=SV_AUROC ){
    rc = sv_is_prob(kind) ? ml_arg_prob(ctx, d->name, "p", argv[2], &x)
                          : ml_arg_score(ctx, d->name, "risk", argv[2], &x);
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
  if( sign>0 ){
    if( ml_surv_add(smp, event, time, w, x)!=ML_OK ){ sqlite3_result_error_nomem(ctx); p->failed = 1; }
  }else{
    ml_surv_remove(smp, event, time, w, x);
  }
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

/* ------------------------------------------------------------- results */

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
** The family's xAbsorb (sv_absorb) and part 2's (survival_clinical.c)
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
static int sv_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
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

static void svValue(sqlite3_context *ctx){
  sv_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}
static void svFinal(sqlite3_context *ctx){
  SvAgg *p = sqlite3_aggregate_context(ctx, 0);
  sv_result(ctx, p, 1);
  sv_clear(p);
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

static const MlStateHooks svStates = { sizeof(SvAgg), 3, (1u<<ML_STATE_SURV) | (1u<<ML_STATE_SURV_W), sv_absorb };
static const MlFamily famSurvival = { "survival", svStep, svFinal, svValue, svInverse, &svStates,
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
