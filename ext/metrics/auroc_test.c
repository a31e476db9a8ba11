/*
** SPDX-License-Identifier: MIT
**
** auroc_test.c -- pROC's unpaired DeLong test of two groups' AUROCs, over
** rows and over two states (the uncertainty family; docs/validation.md).
**
** SQL functions:
**   auroc_test(y, s, g)         aggregate and window, JSON
**       {"auroc_0","auroc_1","diff","se","df","statistic","p_value","reason"}
**   auroc_test(st_a, st_b)      scalar over two states made by ml_state(y, s)
**
** Rules (numbered as when they were validation.c's; pROC's roc.test(method = "delong", paired = FALSE)):
**   4. g is 0 or 1 (the two independent groups); a NULL in y, s or g skips
**      the row.  Each group's AUROC is auroc's (higher s is more positive:
**      pROC's direction "<", not its automatic choice).
**   5. By DeLong's placements in each group, V10 of a positive and V01 of
**      a negative (ml_delong_runs): S_g = var(V10)/P_g + var(V01)/N_g
**      (var with ddof 1), se = sqrt(S_0 + S_1), statistic = diff/se with
**      diff = auroc_0 - auroc_1, Welch-Satterthwaite
**      df = (S_0 + S_1)^2 / (S_0^2/(n_0 - 1) + S_1^2/(n_1 - 1)) with n_g the
**      group's rows, p_value = 2 P(T_df > |statistic|) -- pROC's
**      delong.unpaired.test exactly.
**   6. A group without both classes gives NULL (and a SQLITE_WARNING); a
**      class of one row leaves se, df, statistic and p_value null (the
**      variance needs two), with "reason".  se = 0 gives a null statistic
**      and df, and p_value 1 when diff = 0, else 0 (as auroc_diff).
**   7. auroc_test(st_a, st_b): the same over two states (group 0 = st_a),
**      computed from their entries, O(entries), so it equals the row query
**      over the states' rows bit for bit.  A state with a stratifier is
**      read without it.  A NULL state gives NULL; anything but a state is
**      an error.
**
** Cost: auroc_test keeps 8 bytes per row (the score, by label, in its group's
** sample); a result costs O(n) after the sort and 24 bytes per distinct
** score.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

/* -0 printed as 0. */
static double nz(double x){ return x + 0.0; }

/* ------------------------------------------------------------ auroc_test */

typedef struct AtAgg {
  MlSamples smp[2];   /* group g's rows: key s, label picks the array */
  int init;
  int failed;         /* xStep set an error: xFinal only frees */
} AtAgg;

/* Reads (y, s, g); ML_ROW_*. */
static int at_row(sqlite3_context *ctx, const char *fn, sqlite3_value **argv, int *y, double *s, int *g){
  ml_i64 v;
  int rc;
  if( sqlite3_value_type(argv[2])==SQLITE_NULL ) return ML_ROW_SKIP;
  rc = ml_arg_binary_row(ctx, fn, argv, 0, y, s);
  if( rc!=ML_ROW_OK ) return rc;
  if( !ml_value_integer(argv[2], 0, 1, &v) ){
    char *z = ml_describe(argv[2]);
    if( z==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
    ml_error(ctx, fn, "g must be 0 or 1, got %s", z);
    sqlite3_free(z);
    return ML_ROW_ERR;
  }
  *g = (int)v;
  return ML_ROW_OK;
}

/*
** SQL function: auroc_test(y, s, g)   -- xStep
*/
static void ml_aurt_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  AtAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y, g, rc;
  double s;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( argc!=3 ){ ml_arity_error(ctx, d, argc); p->failed = 1; return; }
  if( !p->init ){ ml_samples_init(&p->smp[0], 8); ml_samples_init(&p->smp[1], 8); p->init = 1; }
  rc = at_row(ctx, d->name, argv, &y, &s, &g);
  if( rc==ML_ROW_OK ) rc = ml_add_row(ctx, &p->smp[g], y, s, 0.0) ? ML_ROW_ERR : ML_ROW_OK;
  if( rc==ML_ROW_ERR ) p->failed = 1;
}

static void ml_aurt_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  AtAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y, g;
  double s;
  if( p==0 || !p->init || argc!=3 ) return;
  if( at_row(ctx, d->name, argv, &y, &s, &g)!=ML_ROW_OK ) return;
  ml_samples_remove(&p->smp[g], y, s, 0.0);
}

/* Writes the test from the two groups' DeLong terms (rules 5, 6). */
static void write_auroc_test(MlJson *j, const MlDelong *dl){
  double S[2], se = NAN, df = NAN, stat = NAN, pv = NAN, diff = nz(dl[0].auc - dl[1].auc);
  const char *why = 0;
  int g;
  for(g=0; g<2; g++){
    if( dl[g].P<2 || dl[g].N<2 ){
      why = g==0 ? "group 0 has a class of one row: DeLong's variance needs two of each"
                 : "group 1 has a class of one row: DeLong's variance needs two of each";
      break;
    }
    S[g] = dl[g].s10/((double)(dl[g].P - 1)*(double)dl[g].P)
         + dl[g].s01/((double)(dl[g].N - 1)*(double)dl[g].N);
  }
  if( why==0 ){
    double v = S[0] + S[1];
    se = sqrt(v);
    if( se>0.0 ){
      stat = diff/se;
      df = v*v / (S[0]*S[0]/(double)(dl[0].P + dl[0].N - 1) + S[1]*S[1]/(double)(dl[1].P + dl[1].N - 1));
      pv = 2.0*ml_t_sf(fabs(stat), df);
    }else{
      pv = diff==0.0 ? 1.0 : 0.0;
    }
  }
  ml_json_begin_object(j);
  ml_json_key(j, "auroc_0");   ml_json_double(j, dl[0].auc);
  ml_json_key(j, "auroc_1");   ml_json_double(j, dl[1].auc);
  ml_json_key(j, "diff");      ml_json_double(j, diff);
  ml_json_key(j, "se");        ml_json_double(j, se);
  ml_json_key(j, "df");        ml_json_double(j, df);
  ml_json_key(j, "statistic"); ml_json_double(j, nz(stat));
  ml_json_key(j, "p_value");   ml_json_double(j, pv);
  ml_json_key(j, "reason");    ml_json_string(j, why);
  ml_json_end_object(j);
}

/* NULL with a warning unless both groups hold both classes (rule 6);
** else the test.  fn names the function. */
static void auroc_test_result(sqlite3_context *ctx, const char *fn, const MlDelong *dl){
  MlJson j;
  int g;
  for(g=0; g<2; g++){
    if( dl[g].P==0 || dl[g].N==0 ){
      ml_result_null(ctx, fn, "group %d has %lld positives and %lld negatives: its AUROC needs both classes",
                     g, (long long)dl[g].P, (long long)dl[g].N);
      return;
    }
  }
  ml_json_init(&j);
  write_auroc_test(&j, dl);
  ml_result_json(ctx, &j);
}

/* DeLong's terms of one group's sorted sample.  ML_OK or ML_NOMEM. */
static int group_delong(MlSamples *smp, MlDelong *out){
  ml_i64 n = ml_samples_count(smp), nRun;
  MlRun *r;
  memset(out, 0, sizeof(*out));
  out->P = smp->n[1];
  out->N = smp->n[0];
  if( n==0 ) return ML_OK;
  if( ml_samples_sort(smp) ) return ML_NOMEM;
  r = ml_malloc(sizeof(MlRun) * (uint64_t)n);
  if( r==0 ) return ML_NOMEM;
  nRun = ml_samples_runs(smp, r);
  if( out->P>0 && out->N>0 ) ml_delong_runs(r, nRun, out);
  ml_free(r);
  return ML_OK;
}

static void aurt_compute(sqlite3_context *ctx, AtAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  MlDelong dl[2];
  int g;
  if( p==0 || !p->init || ml_samples_count(&p->smp[0]) + ml_samples_count(&p->smp[1])==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  for(g=0; g<2; g++){
    if( group_delong(&p->smp[g], &dl[g]) ){ sqlite3_result_error_nomem(ctx); return; }
  }
  auroc_test_result(ctx, d->name, dl);
}

static void aurt_result(sqlite3_context *ctx, AtAgg *p, int isFinal){
  ml_i64 n = p && p->init ? ml_samples_count(&p->smp[0]) + ml_samples_count(&p->smp[1]) : 0;
  if( p && p->failed ) return;
  if( ml_compute_begin(ctx, isFinal, n) ) return;
  aurt_compute(ctx, p);
  ml_compute_end(ctx);
}

static void ml_aurt_value(sqlite3_context *ctx){
  aurt_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}

static void ml_aurt_final(sqlite3_context *ctx){
  AtAgg *p = sqlite3_aggregate_context(ctx, 0);
  aurt_result(ctx, p, 1);
  if( p && p->init ){ ml_samples_clear(&p->smp[0]); ml_samples_clear(&p->smp[1]); }
}

/* The runs of a state's section: its entries, equal scores (a stratified
** state's entries of one score, or -0 beside +0) merged.  ML_OK or
** ML_NOMEM; *pr is the caller's to free. */
static int state_runs(const MlSection *sec, MlRun **pr, ml_i64 *pn){
  MlRun *r = ml_malloc(sizeof(MlRun) * (uint64_t)(sec->nEntry ? sec->nEntry : 1));
  MlReader rd;
  MlEntry e;
  ml_i64 n = 0;
  if( r==0 ) return ML_NOMEM;
  ml_reader_init(&rd, sec);
  while( ml_reader_next(&rd, &e) ){
    double v = ml_double_of(e.key);
    if( n>0 && ml_double_of(r[n-1].key)==v ){
      r[n-1].n[0] += e.n[0];
      r[n-1].n[1] += e.n[1];
    }else{
      r[n].key = ml_key_of(v);
      r[n].n[0] = e.n[0];
      r[n].n[1] = e.n[1];
      n++;
    }
  }
  *pr = r;
  *pn = n;
  return ML_OK;
}

/*
** SQL function: auroc_test(st_a, st_b)
** The unpaired test over two states (rule 7).
*/
static void ml_auroc_test_states(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  static const char *const azName[2] = {"st_a", "st_b"};
  MlState st[2];
  MlDelong dl[2];
  int g, rc[2];
  (void)argc;
  for(g=0; g<2; g++){
    rc[g] = ml_state_arg(ctx, d->name, argv[g], azName[g], d->fam->formKinds, &st[g]);
    if( rc[g]==ML_ROW_ERR ) return;
  }
  if( rc[0]==ML_ROW_SKIP || rc[1]==ML_ROW_SKIP ){
    ml_result_null(ctx, d->name, "%s is NULL", rc[0]==ML_ROW_SKIP ? "st_a" : "st_b");
    return;
  }
  for(g=0; g<2; g++){
    MlRun *r;
    ml_i64 nRun;
    memset(&dl[g], 0, sizeof(dl[g]));
    dl[g].N = st[g].sec[0].n[0];
    dl[g].P = st[g].sec[0].n[1];
    if( dl[g].P==0 || dl[g].N==0 ) continue;
    if( state_runs(&st[g].sec[0], &r, &nRun) ){ sqlite3_result_error_nomem(ctx); return; }
    ml_delong_runs(r, nRun, &dl[g]);
    ml_free(r);
  }
  auroc_test_result(ctx, d->name, dl);
}

/* ------------------------------------------------------------- records */

static const MlFamily famAurocTest = { "uncertainty", ml_aurt_step, ml_aurt_final, ml_aurt_value,
                                       ml_aurt_inverse, 0, 0, 0,
                                       (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT) };

/* calibration_summary's record is calibration.c's (its rows are that
** family's sorted sample); with 2 arguments auroc_test is a scalar over two
** states (ML_FN_SCALAR_MIN). */
const MlFuncDesc ml_validation_functions[] = {
  { "auroc_test",      "y, s, g | st_a, st_b",     2,  3, &famAurocTest, ml_auroc_test_states, 0,
                                                   ML_FN_JSON | ML_FN_SCALAR_MIN, 0 },
  { 0 }
};
