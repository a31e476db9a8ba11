/*
** SPDX-License-Identifier: MIT
**
** ordinal.c -- cumulative (ordinal) AUPRC for ordered severities 0..m.
**
** SQL functions (all aggregate and window functions):
**   auprc_ge(y, s, k)                 pr_auc of the binary task y >= k
**   ordinal_auprc(y, s_1, ..., s_m)   mean over k of AP(y >= k, s_k)
**   ordinal_nap(y, s_1, ..., s_m)     mean over k of (AP_k - pi_k)/(1 - pi_k)
**   ordinal_report(y, s_1, ..., s_m)  JSON {"auprc_ge_k", "nap_ge_k",
**       "prevalence_ge_k" for k = 1..m, "ordinal_auprc", "ordinal_nap",
**       "severity_ordering_ap"}
**
** One score per cut: s_k ranks "is the severity at least k?".  For class
** probabilities pass s_1 = p_high + p_crit, s_2 = p_crit; for one shared
** severity score pass it m times.
**
** Rules:
**   1. m is the number of scores, 1..16.  y is an integer 0..m (INTEGER, or
**      an integral REAL); above m, negative, fractional, text or blob is an
**      error.  For auprc_ge, y is an integer in 0..2147483647 and k an integer
**      in 1..1000000, the same in every row.
**   2. A NULL y or any NULL score skips the row.
**   3. A cut with one class makes ordinal_auprc and ordinal_nap NULL (the
**      original scoring script reports 0.0 there, which silently drags fold
**      means down; we don't).  In ordinal_report that cut's fields, and the
**      means, are null.
**   4. severity_ordering_ap is AP of y == m against s_m among rows with
**      y >= 1: among the risky rows, is the most severe ranked first?
**   5. States: each cut's section (and the severity run) is absorbed as
**      counted runs (ml_absorb_section_counts, as the ranking family's):
**      O(entries), whatever the counts; AP folds runs and rows alike.
**
** Cost: 8 bytes per row per cut (each cut is a shared sample buffer), plus
** 8 bytes per row with y >= 1 for ordinal_report; one radix sort and one
** sweep per cut.  Over states, 24 bytes per distinct score per cut.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

/* Which metric a record asks of the family's shared callbacks (MlFuncDesc.kind). */
enum { ORD_GE, ORD_AUPRC, ORD_NAP, ORD_REPORT, ORD_STATE };

#define ORD_MAX_CUTS 16
#define ORD_MAX_K    1000000

typedef struct OrdAgg {
  int m;                          /* cuts; 0 until the first row */
  MlSamples cut[ORD_MAX_CUTS];    /* cut k-1: key s_k, label y >= k */
  MlSamples sev;                  /* rows with y >= 1: key s_m, label y == m */
  MlParam k;                      /* auprc_ge's k */
  int failed;                     /* xStep set an error: xFinal only frees */
} OrdAgg;

static void ord_clear(OrdAgg *p){
  int i;
  for(i=0; i<p->m; i++) ml_samples_clear(&p->cut[i]);
  ml_samples_clear(&p->sev);
}

/* Reads y and the scores; ML_ROW_*. */
static int ord_row(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                   int *y, double *s){
  int i, nScore = d->kind==ORD_GE ? 1 : argc-1, rc;
  for(i=0; i<=nScore; i++){
    if( sqlite3_value_type(argv[i])==SQLITE_NULL ) return ML_ROW_SKIP;
  }
  rc = ml_arg_label(ctx, d->name, argv[0], d->kind==ORD_GE ? -1 : nScore, y);
  for(i=0; rc==ML_ROW_OK && i<nScore; i++){
    char zName[8];
    int t = sqlite3_value_type(argv[1+i]);
    if( t==SQLITE_FLOAT || t==SQLITE_INTEGER ){      /* the common case: no name needed */
      s[i] = sqlite3_value_double(argv[1+i]);
      continue;
    }
    sqlite3_snprintf(sizeof(zName), zName, nScore==1 && d->kind==ORD_GE ? "s" : "s_%d", i+1);
    rc = ml_arg_score(ctx, d->name, zName, argv[1+i], &s[i]);
  }
  return rc;
}

/* Adds (add 1) or removes (add 0) one row in every cut. */
static int ord_update(OrdAgg *p, int kind, int y, const double *s, ml_i64 kk, int add){
  int i, lab;
  for(i=0; i<p->m; i++){
    lab = kind==ORD_GE ? y>=kk : y>=i+1;
    if( add ){
      if( !ml_samples_append(&p->cut[i], lab, s[i], 0.0)
       && ml_samples_add(&p->cut[i], lab, s[i], 0.0) ) return ML_NOMEM;
    }else{
      ml_samples_remove(&p->cut[i], lab, s[i], 0.0);
    }
  }
  if( (kind==ORD_REPORT || kind==ORD_STATE) && y>=1 ){
    if( add ){
      if( ml_samples_add(&p->sev, y==p->m, s[p->m-1], 0.0) ) return ML_NOMEM;
    }else{
      ml_samples_remove(&p->sev, y==p->m, s[p->m-1], 0.0);
    }
  }
  return ML_OK;
}

/*
** SQL function: auprc_ge(y, s, k), ordinal_auprc(y, s_1, ..., s_m),
**   ordinal_nap(y, s_1, ..., s_m), ordinal_report(y, s_1, ..., s_m)  -- xStep
*/
static void ml_ord_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  OrdAgg *p;
  int y, i;
  ml_i64 k = 0;
  double s[ORD_MAX_CUTS];
  if( ML_STATE_DIVERT(ctx, argc, argv, sqlite3_value_type(argv[0]), 0) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( p->m==0 ){
    p->m = d->kind==ORD_GE ? 1 : argc-1;
    for(i=0; i<p->m; i++) ml_samples_init(&p->cut[i], 8);
    ml_samples_init(&p->sev, 8);
  }
  if( d->kind==ORD_GE ){
    if( ml_param_int(ctx, d->name, d->aParam[0], argv[2], &p->k, &k) ){ p->failed = 1; return; }
  }
  i = ord_row(ctx, d, argc, argv, &y, s);
  if( i==ML_ROW_ERR ) p->failed = 1;
  if( i!=ML_ROW_OK ) return;
  if( ord_update(p, d->kind, y, s, k, 1) ){
    ord_clear(p);
    p->failed = 1;
    sqlite3_result_error_nomem(ctx);
  }
}

static void ml_ord_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  OrdAgg *p;
  int y;
  double s[ORD_MAX_CUTS];
  ml_i64 k = 0;
  if( ML_STATE_DIVERT(ctx, argc, argv, sqlite3_value_type(argv[0]), 1) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 || p->m==0 ) return;
  if( d->kind==ORD_GE ){                    /* the row's own k, as xStep used */
    ml_param_drop(&p->k, argv[2]);
    k = sqlite3_value_int64(argv[2]);
  }
  if( ord_row(ctx, d, argc, argv, &y, s)!=ML_ROW_OK ) return;
  ord_update(p, d->kind, y, s, k, 0);
}

/* AP of one buffer, NaN when it holds one class or none.  ML_NOMEM or ML_OK. */
static int cut_ap(MlSamples *smp, double *ap){
  *ap = NAN;
  if( smp->n[0]==0 || smp->n[1]==0 ) return ML_OK;
  if( ml_samples_sort(smp) ) return ML_NOMEM;
  *ap = ml_fold_average_precision(smp, 0);
  return ML_OK;
}

static void ord_compute(sqlite3_context *ctx, OrdAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  if( d->kind==ORD_STATE ){                /* ml_state_ordinal: the cuts, then the severity run */
    MlSamples *a[ORD_MAX_CUTS+1];
    int i;
    if( p==0 || p->m==0 || ml_samples_count(&p->cut[0])==0 ){
      ml_result_null(ctx, d->name, "no rows");
      return;
    }
    for(i=0; i<p->m; i++) a[i] = &p->cut[i];
    a[p->m] = &p->sev;
    ml_result_state(ctx, a, p->m + 1, ML_STATE_ORDINAL);
    return;
  }
  double ap[ORD_MAX_CUTS], nap[ORD_MAX_CUTS], prev[ORD_MAX_CUTS];
  double sumAp = 0.0, sumNap = 0.0, sev = NAN;
  ml_i64 n;
  int i, bad = -1;
  if( p && d->aParam && ml_param_check(ctx, d->name, d->aParam[0]->name, &p->k) ) return;
  if( p==0 || p->m==0 || (n = ml_samples_count(&p->cut[0]))==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  for(i=0; i<p->m; i++){
    if( cut_ap(&p->cut[i], &ap[i]) ){ sqlite3_result_error_nomem(ctx); return; }
    prev[i] = (double)p->cut[i].n[1] / (double)n;
    nap[i] = (ap[i] - prev[i]) / (1.0 - prev[i]);
    if( isnan(ap[i]) && bad<0 ) bad = i;
    sumAp += ap[i];
    sumNap += nap[i];
  }
  if( d->kind==ORD_REPORT ){
    MlJson j;
    char zKey[32];
    if( cut_ap(&p->sev, &sev) ){ sqlite3_result_error_nomem(ctx); return; }
    ml_json_init(&j);
    ml_json_begin_object(&j);
    for(i=0; i<p->m; i++){
      sqlite3_snprintf(sizeof(zKey), zKey, "auprc_ge_%d", i+1);
      ml_json_key(&j, zKey); ml_json_double(&j, ap[i]);
    }
    for(i=0; i<p->m; i++){
      sqlite3_snprintf(sizeof(zKey), zKey, "nap_ge_%d", i+1);
      ml_json_key(&j, zKey); ml_json_double(&j, nap[i]);
    }
    for(i=0; i<p->m; i++){
      sqlite3_snprintf(sizeof(zKey), zKey, "prevalence_ge_%d", i+1);
      ml_json_key(&j, zKey); ml_json_double(&j, prev[i]);
    }
    ml_json_key(&j, "ordinal_auprc");        ml_json_double(&j, sumAp / p->m);
    ml_json_key(&j, "ordinal_nap");          ml_json_double(&j, sumNap / p->m);
    ml_json_key(&j, "severity_ordering_ap"); ml_json_double(&j, sev);
    ml_json_end_object(&j);
    ml_result_json(ctx, &j);
    return;
  }
  if( bad>=0 ){
    if( d->kind==ORD_GE ){
      ml_result_null(ctx, d->name, "only one class in the cut y >= %lld (%lld of %lld rows)",
                     (long long)ml_param_value(&p->k, 0), (long long)p->cut[bad].n[1], (long long)n);
    }else{
      ml_result_null(ctx, d->name, "only one class in the cut y >= %d (%lld of %lld rows)",
                     bad+1, (long long)p->cut[bad].n[1], (long long)n);
    }
    return;
  }
  sqlite3_result_double(ctx, d->kind==ORD_NAP ? sumNap / p->m : sumAp / p->m);
}

static void ord_result(sqlite3_context *ctx, OrdAgg *p, int isFinal){
  ml_i64 n = 0;
  int i;
  if( p && p->failed ) return;
  for(i=0; p && i<p->m; i++) n += ml_samples_count(&p->cut[i]);
  if( ml_compute_begin(ctx, isFinal, n) ) return;
  ord_compute(ctx, p);
  ml_compute_end(ctx);
}

static void ml_ord_value(sqlite3_context *ctx){
  ord_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}

static void ml_ord_final(sqlite3_context *ctx){
  OrdAgg *p = sqlite3_aggregate_context(ctx, 0);
  ord_result(ctx, p, 1);
  if( p ) ord_clear(p);
}

/* States (ordinal): cut k takes section k, ordinal_report's severity run the
** last; auprc_ge(state, k) takes section k alone -- each as counted runs
** (rule 5), never a row per count. */
static int ord_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  OrdAgg *p = ml_agg_context(ctx, sizeof(*p));
  int i;
  if( p==0 ) return ML_NOMEM;
  if( p->m==0 ) return ML_OK;             /* xStep failed before setting up */
  if( d->kind==ORD_GE ){
    ml_i64 k = (ml_i64)p->k.v[0];
    if( p->k.n[0]==0 ) return ML_OK;      /* xStep rejected k */
    if( k>st[0].m ){
      sqlite3_snprintf(nErr, zErr, "k must be at most the state's m = %d, got %lld", st[0].m, (long long)k);
      return ML_ERROR;
    }
    return ml_absorb_section_counts(&p->cut[0], st, n, (int)k-1, sign, zErr, nErr);
  }
  for(i=0; i<p->m; i++){
    int rc = ml_absorb_section_counts(&p->cut[i], st, n, i, sign, zErr, nErr);
    if( rc ) return rc;
  }
  if( d->kind==ORD_REPORT ) return ml_absorb_section_counts(&p->sev, st, n, p->m, sign, zErr, nErr);
  return ML_OK;
}
static const MlStateHooks ml_ord_states = { sizeof(OrdAgg), 0, 1u<<ML_STATE_ORDINAL, ord_absorb };

/* ------------------------------------------------------------- records */

static const MlParamSpec psK = ML_PARAM_INT("k", 1, ORD_MAX_K, 0, "1");

static const MlFamily famOrd = { "ordinal", ml_ord_step, ml_ord_final, ml_ord_value, ml_ord_inverse,
                                 &ml_ord_states, 0, 0, 0 };

/* y and one score per cut, m = 1..16 */
const MlFuncDesc ml_ordinal_functions[] = {
  { "auprc_ge",        "y, s, k",                  3,  3, &famOrd, 0, ORD_GE, ML_FN_STATE_YS, ML_PARAMS(&psK) },
  { "ordinal_auprc",   "y, s_1, ..., s_m",         2, 17, &famOrd, 0, ORD_AUPRC, 0, 0 },
  { "ordinal_nap",     "y, s_1, ..., s_m",         2, 17, &famOrd, 0, ORD_NAP, 0, 0 },
  { "ordinal_report",  "y, s_1, ..., s_m",         2, 17, &famOrd, 0, ORD_REPORT, ML_FN_JSON, 0 },
  /* the ordinal partial state (ml_state_sql.c has the binary ones) */
  { "ml_state_ordinal", "y, s_1, ..., s_m",        2, 17, &famOrd, 0, ORD_STATE, ML_FN_BLOB | ML_FN_NO_STATE, 0 },
  { 0 }
};
