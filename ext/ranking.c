/*
** SPDX-License-Identifier: MIT
**
** ranking.c -- the ranking family: binary labels, real-valued scores.
**
** SQL functions (all aggregate and window functions):
**   pr_auc(y, s)                    average precision, as sklearn
**   auroc(y, s)                     area under the ROC curve
**   nap(y, s)                       (AP - prevalence) / (1 - prevalence)
**   youden_j(y, s)                  max TPR - FPR over thresholds
**   tpr_at_fpr(y, s, target_fpr)    max TPR with FPR <= target_fpr
**   sens_at_spec(y, s, target_spec) max TPR with 1 - FPR >= target_spec
**   pr_curve(y, s)                  JSON [{"threshold","precision","recall"}]
**   roc_curve(y, s)                 JSON [{"threshold","fpr","tpr"}], from (0,0)
**   confusion(y, s, threshold)      JSON counts and ratios at s >= threshold
**
** Rules:
**   1. A row with a NULL y or s is skipped.  y must be 0 or 1 (INTEGER, or
**      REAL 0.0/1.0), s a number (+-Inf allowed): anything else is an error.
**   2. target_fpr and target_spec lie in (0, 1); threshold is any number.
**      Each must be the same in every row of a group.
**   3. Every function but confusion needs both classes: with no rows, or one
**      class only, the result is NULL and a SQLITE_WARNING is logged.
**   4. All thresholds are the distinct scores; ties (by ==, so -0.0 == 0.0)
**      form one threshold; no collinear point is dropped.
**   5. Window frames: xInverse removes the row that left; once a frame has
**      been sorted it stays sorted, so a frame sliding by one row costs O(w).
**   6. A curve whose threshold is +-Inf writes null there (JSON has no Inf).
**
** Cost: 8 bytes per row of state (the score key; the label picks the array),
** a radix sort at the first xValue/xFinal, one O(n) sweep per result.
** confusion keeps four counters: O(1) state, no buffer.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"

typedef struct RankAgg {
  MlSamples smp;
  MlParam target;          /* target_fpr / target_spec */
  int init;
  int failed;              /* xStep set an error: xFinal only frees */
} RankAgg;

static const char *target_name(int kind){
  return kind==RK_TPR_AT_FPR ? "target_fpr" : "target_spec";
}

/*
** SQL function: pr_auc(y, s), auroc(y, s), nap(y, s), youden_j(y, s),
**   tpr_at_fpr(y, s, target_fpr), sens_at_spec(y, s, target_spec),
**   pr_curve(y, s), roc_curve(y, s)        -- xStep
*/
void ml_rank_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  RankAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y, rc;
  double s, t;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){ ml_samples_init(&p->smp, 8); p->init = 1; }
  if( argc==3 ){
    rc = ml_param_real(ctx, d->name, target_name(d->kind), argv[2], 0.0, 1, 1.0, 1, &p->target, &t);
    if( rc ){ p->failed = 1; return; }
  }
  rc = ml_arg_binary_row(ctx, d->name, argv, 0, &y, &s);
  if( rc==ML_ROW_OK ) rc = ml_add_row(ctx, &p->smp, y, s, 0.0) ? ML_ROW_ERR : ML_ROW_OK;
  if( rc==ML_ROW_ERR ) p->failed = 1;
}

/* xInverse: the row was accepted by xStep, so it parses; remove it (and
** its parameter). */
void ml_rank_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  RankAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s;
  if( p==0 || !p->init ) return;
  if( argc==3 ) ml_param_drop(&p->target, argv[2]);
  if( ml_arg_binary_row(ctx, d->name, argv, 0, &y, &s)!=ML_ROW_OK ) return;
  ml_samples_remove(&p->smp, y, s, 0.0);
}

/* Writes the PR curve: one point per distinct score, highest first. */
static void write_pr_curve(MlJson *j, const MlSamples *smp){
  MlSweep w;
  ml_sweep_init(&w, smp, 0);
  ml_json_begin_array(j);
  while( ml_sweep_next(&w) ){
    ml_json_begin_object(j);
    ml_json_key(j, "threshold"); ml_json_double(j, ml_double_of(w.key));
    ml_json_key(j, "precision"); ml_json_double(j, (double)w.tp/(double)(w.tp+w.fp));
    ml_json_key(j, "recall");    ml_json_double(j, (double)w.tp/(double)w.P);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
}

/* Writes the ROC curve: (0,0) with a null threshold, then one point per
** distinct score, highest first. */
static void write_roc_curve(MlJson *j, const MlSamples *smp){
  MlSweep w;
  ml_sweep_init(&w, smp, 0);
  ml_json_begin_array(j);
  ml_json_begin_object(j);
  ml_json_key(j, "threshold"); ml_json_null(j);
  ml_json_key(j, "fpr"); ml_json_double(j, 0.0);
  ml_json_key(j, "tpr"); ml_json_double(j, 0.0);
  ml_json_end_object(j);
  while( ml_sweep_next(&w) ){
    ml_json_begin_object(j);
    ml_json_key(j, "threshold"); ml_json_double(j, ml_double_of(w.key));
    ml_json_key(j, "fpr"); ml_json_double(j, (double)w.fp/(double)w.N);
    ml_json_key(j, "tpr"); ml_json_double(j, (double)w.tp/(double)w.P);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
}

/* The one compute routine behind xValue and xFinal. */
static void rank_compute(sqlite3_context *ctx, RankAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 P, N;
  if( p && ml_param_check(ctx, d->name, target_name(d->kind), &p->target) ) return;
  if( p==0 || !p->init || ml_samples_count(&p->smp)==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  P = p->smp.n[1];
  N = p->smp.n[0];
  if( P==0 || N==0 ){
    ml_result_null(ctx, d->name, "only one class in the group (%lld positives, %lld negatives)",
                   (long long)P, (long long)N);
    return;
  }
  if( ml_samples_sort(&p->smp) ){ sqlite3_result_error_nomem(ctx); return; }
  switch( d->kind ){
    case RK_PR_AUC:
      sqlite3_result_double(ctx, ml_fold_average_precision(&p->smp, 0));
      break;
    case RK_NAP: {
      double pi = (double)P / (double)(P+N);
      sqlite3_result_double(ctx, (ml_fold_average_precision(&p->smp, 0) - pi) / (1.0 - pi));
      break;
    }
    case RK_AUROC:
      sqlite3_result_double(ctx, ml_fold_auroc(&p->smp));
      break;
    case RK_YOUDEN:
      sqlite3_result_double(ctx, ml_fold_youden_j(&p->smp));
      break;
    case RK_TPR_AT_FPR:
    case RK_SENS_AT_SPEC:
      sqlite3_result_double(ctx, ml_fold_tpr_at_fpr(&p->smp, ml_param_value(&p->target, NAN),
                                                       d->kind==RK_SENS_AT_SPEC));
      break;
    default: {
      MlJson j;
      ml_json_init(&j);
      if( d->kind==RK_PR_CURVE ) write_pr_curve(&j, &p->smp);
      else write_roc_curve(&j, &p->smp);
      ml_result_json(ctx, &j);
      break;
    }
  }
}

static void rank_result(sqlite3_context *ctx, RankAgg *p, int isFinal){
  if( p && p->failed ) return;
  if( ml_compute_begin(ctx, isFinal, p && p->init ? ml_samples_count(&p->smp) : 0) ) return;
  rank_compute(ctx, p);
  ml_compute_end(ctx);
}

void ml_rank_value(sqlite3_context *ctx){
  rank_result(ctx, sqlite3_aggregate_context(ctx, 0), 0);
}

void ml_rank_final(sqlite3_context *ctx){
  RankAgg *p = sqlite3_aggregate_context(ctx, 0);
  rank_result(ctx, p, 1);
  if( p && p->init ) ml_samples_clear(&p->smp);
}

/* ------------------------------------------------------------- confusion */

typedef struct ConfAgg {
  ml_i64 c[2][2];          /* c[y][predicted] */
  MlParam threshold;
} ConfAgg;

/*
** SQL function: confusion(y, s, threshold)
** Counts at "positive when s >= threshold" and the ratios derived from them;
** a ratio whose denominator is zero is null.
*/
void ml_confusion_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  ConfAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s, t;
  (void)argc;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( ml_param_real(ctx, "confusion", "threshold", argv[2], -INFINITY, 0, INFINITY, 0,
                    &p->threshold, &t) ) return;
  if( ml_arg_binary_row(ctx, "confusion", argv, 0, &y, &s)!=ML_ROW_OK ) return;
  p->c[y][s>=t]++;
}

void ml_confusion_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  ConfAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s, t;
  (void)argc;
  if( p==0 ) return;
  ml_param_drop(&p->threshold, argv[2]);
  t = sqlite3_value_double(argv[2]);       /* the row's own threshold, as xStep used */
  if( ml_arg_binary_row(ctx, "confusion", argv, 0, &y, &s)!=ML_ROW_OK ) return;
  p->c[y][s>=t]--;
}

static void ratio(MlJson *j, const char *k, ml_i64 num, ml_i64 den){
  ml_json_key(j, k);
  if( den==0 ) ml_json_null(j); else ml_json_double(j, (double)num/(double)den);
}

void ml_confusion_value(sqlite3_context *ctx){
  ConfAgg *p = sqlite3_aggregate_context(ctx, 0);
  ml_i64 tp, fp, tn, fn;
  MlJson j;
  if( p && ml_param_check(ctx, "confusion", "threshold", &p->threshold) ) return;
  if( p==0 || p->c[0][0]+p->c[0][1]+p->c[1][0]+p->c[1][1]==0 ){
    ml_result_null(ctx, "confusion", "no rows");
    return;
  }
  tp = p->c[1][1]; fn = p->c[1][0]; fp = p->c[0][1]; tn = p->c[0][0];
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "tp"); ml_json_int(&j, tp);
  ml_json_key(&j, "fp"); ml_json_int(&j, fp);
  ml_json_key(&j, "tn"); ml_json_int(&j, tn);
  ml_json_key(&j, "fn"); ml_json_int(&j, fn);
  ratio(&j, "sensitivity", tp, tp+fn);
  ratio(&j, "specificity", tn, tn+fp);
  ratio(&j, "ppv", tp, tp+fp);
  ratio(&j, "npv", tn, tn+fn);
  ratio(&j, "f1", 2*tp, 2*tp+fp+fn);
  ratio(&j, "accuracy", tp+tn, tp+tn+fp+fn);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

void ml_confusion_final(sqlite3_context *ctx){
  ml_confusion_value(ctx);
}
