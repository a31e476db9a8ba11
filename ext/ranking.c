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
**   partial_auroc(y, s, max_fpr)    McClish-standardised partial AUC up to max_fpr
**   operating_point(y, s, criterion [, target])
**                                   JSON: the threshold a criterion picks, and the
**                                   counts and rates at it
**   pr_curve(y, s)                  JSON [{"threshold","precision","recall"}]
**   roc_curve(y, s)                 JSON [{"threshold","fpr","tpr"}], from (0,0)
**   confusion(y, s, threshold)      JSON counts and ratios at s >= threshold
**   precision_at_prior(y, s, threshold, prior)
**                                   JSON: precision at s >= threshold projected
**                                   to the prevalence prior
**
** Rules:
**   1. A row with a NULL y or s is skipped.  y must be 0 or 1 (INTEGER, or
**      REAL 0.0/1.0), s a number (+-Inf allowed): anything else is an error.
**   2. target_fpr, target_spec, operating_point's target and prior lie in
**      (0, 1), max_fpr in (0, 1]; threshold is any number; criterion is one
**      of 'fpr', 'specificity', 'sensitivity', 'precision' (these need a
**      target), 'max_f1', 'youden' (these take none), in any case.  Each
**      must be the same in every row of a group.
**   3. Every function but confusion needs both classes: with no rows, or one
**      class only, the result is NULL and a SQLITE_WARNING is logged.
**   4. All thresholds are the distinct scores; ties (by ==, so -0.0 == 0.0)
**      form one threshold; no collinear point is dropped.
**   5. Window frames: xInverse removes the row that left; once a frame has
**      been sorted it stays sorted, so a frame sliding by one row costs O(w).
**      auroc does better: at the first xValue its rows move to one counted
**      set per class (ml_rankset.c) and twice the Mann-Whitney count is
**      kept up to date, so a row entering or leaving costs O(log w); the
**      value is the same integer count the aggregate's sweep finds, so
**      frame and aggregate agree exactly.
**   6. A curve whose threshold is +-Inf writes null there (JSON has no Inf).
**   7. operating_point: the candidates are every distinct score and the
**      all-negative point (threshold null); among equal optima the highest
**      threshold wins; when no candidate meets the target the all-negative
**      point is reported with "achieved": false.
**
** Cost: 8 bytes per row of state (the score key; the label picks the array),
** a radix sort at the first xValue/xFinal, one O(n) sweep per result; an
** auroc window, O(log w) per row and about 8 to 13 bytes per row.
** confusion and precision_at_prior keep four counters: O(1) state, no buffer.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"

typedef struct RankAgg {
  MlSamples smp;
  MlParam target;          /* target_fpr / target_spec / max_fpr / operating_point's target */
  MlParam criterion;       /* operating_point: ML_OP_* */
  int init;
  int failed;              /* xStep set an error: xFinal only frees */
  /* auroc over a window frame: once xValue has been called, the rows live in
  ** one counted set per class and u2 (twice the Mann-Whitney count) is kept
  ** up to date row by row; smp is then empty. */
  int live;
  MlRankSet rs[2];
  ml_i64 u2;
} RankAgg;

/* What the row (y, key) adds to u2: 2 per row of the other class it beats,
** 1 per tie.  The other class's set is unchanged by the row's own move. */
static ml_i64 u2_share(const RankAgg *p, int y, ml_key k){
  const MlRankSet *o = &p->rs[!y];
  ml_i64 lt, le;
  ml_rankset_count(o, k, &lt, &le);
  return y ? lt + le : 2*o->n - lt - le;
}

/* Moves an auroc window state from the sample buffer to the counted sets. */
static int go_live(RankAgg *p){
  int y;
  if( ml_samples_sort(&p->smp) ) return ML_NOMEM;
  p->u2 = ml_fold_auroc_u2(&p->smp);
  for(y=0; y<2; y++){
    if( ml_rankset_build(&p->rs[y], (const ml_key*)p->smp.a[y], p->smp.n[y], 1) ){
      ml_rankset_clear(&p->rs[0]);
      return ML_NOMEM;
    }
  }
  ml_samples_clear(&p->smp);
  p->live = 1;
  return ML_OK;
}

/* operating_point's criteria, in ML_OP_* order; the last two take no target. */
static const char *const azCriterion[] = {"fpr", "specificity", "sensitivity", "precision",
                                          "max_f1", "youden", 0};
static int criterion_has_target(int c){ return c!=ML_OP_MAX_F1 && c!=ML_OP_YOUDEN; }

/* Reads the parameters after (y, s): tpr_at_fpr's and sens_at_spec's target
** in (0, 1), partial_auroc's max_fpr in (0, 1], operating_point's
** criterion and its target, which only some criteria take.  ML_ROW_*. */
static int rank_params(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                       RankAgg *p){
  double t;
  int c;
  switch( d->kind ){
    case RK_TPR_AT_FPR:
      return ml_param_real(ctx, d->name, "target_fpr", argv[2], 0.0, 1, 1.0, 1, &p->target, &t);
    case RK_SENS_AT_SPEC:
      return ml_param_real(ctx, d->name, "target_spec", argv[2], 0.0, 1, 1.0, 1, &p->target, &t);
    case RK_PARTIAL_AUROC:
      return ml_param_real(ctx, d->name, "max_fpr", argv[2], 0.0, 1, 1.0, 0, &p->target, &t);
    case RK_OPERATING_POINT:
      if( ml_param_choice(ctx, d->name, "criterion", argv[2], azCriterion, &p->criterion, &c) ){
        return ML_ROW_ERR;
      }
      /* a row that is wrong on its own in a group that already disagrees:
      ** the disagreement is the first error (as in a group's first rows) */
      if( p->criterion.n[1]>0 && (criterion_has_target(c) ? argc<4 : argc>=4) ){
        return ml_param_choice_check(ctx, d->name, "criterion", azCriterion, &p->criterion);
      }
      if( criterion_has_target(c) ){
        if( argc<4 ){
          ml_error(ctx, d->name, "criterion '%s' needs a target in (0, 1)", azCriterion[c]);
          return ML_ROW_ERR;
        }
        return ml_param_real(ctx, d->name, "target", argv[3], 0.0, 1, 1.0, 1, &p->target, &t);
      }
      if( argc>=4 ){
        char *z = ml_describe(argv[3]);
        if( z==0 ){ sqlite3_result_error_nomem(ctx); return ML_ROW_ERR; }
        ml_error(ctx, d->name, "criterion '%s' takes no target, got %s", azCriterion[c], z);
        sqlite3_free(z);
        return ML_ROW_ERR;
      }
      return ML_ROW_OK;
    default:
      return ML_ROW_OK;
  }
}

/* xInverse: the row's parameters (accepted by rank_params) leave. */
static void rank_params_drop(const MlFuncDesc *d, int argc, sqlite3_value **argv, RankAgg *p){
  if( d->kind==RK_OPERATING_POINT ){
    ml_param_choice_drop(&p->criterion, argv[2], azCriterion);
    if( argc>=4 ) ml_param_drop(&p->target, argv[3]);
  }else if( argc>2 ){
    ml_param_drop(&p->target, argv[2]);
  }
}

/* At a result: the frame's rows must agree on every parameter. */
static int rank_params_check(sqlite3_context *ctx, const MlFuncDesc *d, const RankAgg *p){
  const char *zTarget = d->kind==RK_TPR_AT_FPR ? "target_fpr" : d->kind==RK_SENS_AT_SPEC ? "target_spec"
                      : d->kind==RK_PARTIAL_AUROC ? "max_fpr" : "target";
  if( d->kind==RK_OPERATING_POINT
   && ml_param_choice_check(ctx, d->name, "criterion", azCriterion, &p->criterion) ) return ML_ROW_ERR;
  return ml_param_check(ctx, d->name, zTarget, &p->target);
}

/*
** SQL function: pr_auc(y, s), auroc(y, s), nap(y, s), youden_j(y, s),
**   tpr_at_fpr(y, s, target_fpr), sens_at_spec(y, s, target_spec),
**   pr_curve(y, s), roc_curve(y, s)        -- xStep
*/
void ml_rank_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  RankAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y, rc;
  double s;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( !p->init ){ ml_samples_init(&p->smp, 8); p->init = 1; }
  if( argc>2 ){
    const MlFuncDesc *d = sqlite3_user_data(ctx);
    if( rank_params(ctx, d, argc, argv, p) ){ p->failed = 1; return; }
  }
  /* the function's name is only needed for an error: looked up then */
  rc = ml_arg_binary_row(ctx, 0, argv, 0, &y, &s);
  if( rc!=ML_ROW_OK ){
    if( rc==ML_ROW_ERR ) p->failed = 1;
    return;
  }
  if( p->live ){
    ml_key k = ml_key_of(s);
    if( ml_rankset_insert(&p->rs[y], k) ){ p->failed = 1; sqlite3_result_error_nomem(ctx); return; }
    p->u2 += u2_share(p, y, k);
    return;
  }
  if( ml_add_row(ctx, &p->smp, y, s, 0.0) ) p->failed = 1;
}

/* xInverse: the row was accepted by xStep, so it parses; remove it (and
** its parameter). */
void ml_rank_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  RankAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s;
  if( p==0 || !p->init ) return;
  rank_params_drop(d, argc, argv, p);
  if( ml_arg_binary_row(ctx, d->name, argv, 0, &y, &s)!=ML_ROW_OK ) return;
  if( p->live ){
    ml_key k = ml_key_of(s);
    if( ml_rankset_remove(&p->rs[y], k) ) p->u2 -= u2_share(p, y, k);
    return;
  }
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

static void ratio(MlJson *j, const char *k, ml_i64 num, ml_i64 den){
  ml_json_key(j, k);
  if( den==0 ) ml_json_null(j); else ml_json_double(j, (double)num/(double)den);
}

/* operating_point's JSON: the chosen point's threshold, counts and rates. */
static void write_operating_point(MlJson *j, const MlSamples *smp, int criterion, double target){
  MlOpPoint o;
  ml_i64 P = smp->n[1], N = smp->n[0], tp, fp, tn, fn;
  ml_fold_operating_point(smp, criterion, target, &o);
  tp = o.tp; fp = o.fp; fn = P - tp; tn = N - fp;
  ml_json_begin_object(j);
  ml_json_key(j, "criterion"); ml_json_string(j, azCriterion[criterion]);
  ml_json_key(j, "target");
  if( criterion_has_target(criterion) ) ml_json_double(j, target); else ml_json_null(j);
  ml_json_key(j, "threshold");
  if( o.allNegative ) ml_json_null(j); else ml_json_double(j, ml_double_of(o.key));
  ml_json_key(j, "tp"); ml_json_int(j, tp);
  ml_json_key(j, "fp"); ml_json_int(j, fp);
  ml_json_key(j, "tn"); ml_json_int(j, tn);
  ml_json_key(j, "fn"); ml_json_int(j, fn);
  ratio(j, "tpr", tp, P);
  ratio(j, "fpr", fp, N);
  ratio(j, "specificity", tn, N);
  ratio(j, "precision", tp, tp+fp);
  ratio(j, "f1", 2*tp, 2*tp+fp+fn);
  ml_json_key(j, "youden_j"); ml_json_double(j, (double)tp/(double)P - (double)fp/(double)N);
  ml_json_key(j, "achieved"); ml_json_bool(j, o.achieved);
  ml_json_end_object(j);
}

/* The one compute routine behind xValue and xFinal. */
static void rank_compute(sqlite3_context *ctx, RankAgg *p){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ml_i64 P, N;
  if( p==0 || !p->init ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  if( rank_params_check(ctx, d, p) ) return;
  P = p->live ? p->rs[1].n : p->smp.n[1];
  N = p->live ? p->rs[0].n : p->smp.n[0];
  if( P+N==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  if( P==0 || N==0 ){
    ml_result_null(ctx, d->name, "only one class in the group (%lld positives, %lld negatives)",
                   (long long)P, (long long)N);
    return;
  }
  if( p->live ){        /* auroc over a window frame: the count is up to date */
    sqlite3_result_double(ctx, (double)p->u2 / (2.0 * (double)P * (double)N));
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
    case RK_PARTIAL_AUROC:
      /* max_fpr = 1 is auroc itself, as in scikit-learn */
    {
      double maxFpr = ml_param_value(&p->target, 1.0);
      sqlite3_result_double(ctx, maxFpr==1.0 ? ml_fold_auroc(&p->smp)
                                             : ml_fold_partial_auroc(&p->smp, maxFpr));
    }
      break;
    default: {
      MlJson j;
      ml_json_init(&j);
      if( d->kind==RK_PR_CURVE ) write_pr_curve(&j, &p->smp);
      else if( d->kind==RK_ROC_CURVE ) write_roc_curve(&j, &p->smp);
      else write_operating_point(&j, &p->smp, (int)ml_param_value(&p->criterion, 0),
                                 ml_param_value(&p->target, NAN));
      ml_result_json(ctx, &j);
      break;
    }
  }
}

static void rank_result(sqlite3_context *ctx, RankAgg *p, int isFinal){
  ml_i64 n = 0;
  if( p && p->failed ) return;
  if( p && p->init ) n = p->live ? p->rs[0].n + p->rs[1].n : ml_samples_count(&p->smp);
  if( ml_compute_begin(ctx, isFinal, n) ) return;
  rank_compute(ctx, p);
  ml_compute_end(ctx);
}

/* xValue is only called for window frames: an auroc frame moves to the
** counted sets here, so that each later row costs O(log w). */
void ml_rank_value(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  RankAgg *p = sqlite3_aggregate_context(ctx, 0);
  if( p && p->init && !p->failed && !p->live && d->kind==RK_AUROC && go_live(p) ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  rank_result(ctx, p, 0);
}

void ml_rank_final(sqlite3_context *ctx){
  RankAgg *p = sqlite3_aggregate_context(ctx, 0);
  rank_result(ctx, p, 1);
  if( p && p->init ){
    ml_samples_clear(&p->smp);
    ml_rankset_clear(&p->rs[0]);
    ml_rankset_clear(&p->rs[1]);
  }
}

/* States (ml_state_sql.c): the states' sorted runs merge into the buffer.
** xStep has run first (parameters), so the buffer is set up. */
static int rank_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  RankAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 ) return ML_NOMEM;
  if( !p->init ){ ml_samples_init(&p->smp, 8); p->init = 1; }
  if( p->live ){                 /* auroc over a frame: the rows go through the counted sets */
    ml_i64 held[2], done = 0;
    int j, rc;
    held[0] = p->rs[0].n; held[1] = p->rs[1].n;
    if( sign>0 && (rc = ml_state_rows(st, n, 0, held, zErr, nErr))!=ML_OK ) return rc;
    /* a key per row, as the row query keeps (8 to 13 bytes each): no more
    ** rows than one of SQLite's allocations could hold at 8 bytes a row */
    if( sign>0 && held[0] + held[1] > ((ml_i64)1<<28) ){
      sqlite3_snprintf(nErr, zErr, "the states hold %lld rows: a window's auroc takes a state's rows one by one"
                       " and holds at most %lld", (long long)(held[0] + held[1]), (long long)1<<28);
      return ML_ERROR;
    }
    for(j=0; j<n; j++){
      MlReader r;
      MlEntry e;
      ml_reader_init(&r, &st[j].sec[0]);
      while( ml_reader_next(&r, &e) ){
        int y;
        for(y=0; y<2; y++){
          ml_i64 c;
          for(c=0; c<e.n[y]; c++){
            if( (++done & 0xFFFF)==0 && ml_stop_requested() ) return ML_STOPPED;
            if( sign>0 ){
              if( ml_rankset_insert(&p->rs[y], e.key) ) return ML_NOMEM;
              p->u2 += u2_share(p, y, e.key);
            }else if( ml_rankset_remove(&p->rs[y], e.key) ){
              p->u2 -= u2_share(p, y, e.key);
            }
          }
        }
      }
    }
    return ML_OK;
  }
  return ml_absorb_section(&p->smp, st, n, 0, sign, zErr, nErr);
}
const MlStateHooks ml_rank_states = {
  sizeof(RankAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT), rank_absorb
};

/* ------------------------------------- confusion, precision_at_prior */

typedef struct ConfAgg {
  ml_i64 c[2][2];          /* c[y][predicted] */
  MlParam threshold;
  MlParam prior;           /* precision_at_prior */
} ConfAgg;

/*
** SQL function: confusion(y, s, threshold), precision_at_prior(y, s, threshold, prior)
** Counts at "positive when s >= threshold" and the ratios derived from them;
** a ratio whose denominator is zero is null.
*/
void ml_confusion_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s, t, pi;
  (void)argc;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( ml_param_real(ctx, d->name, "threshold", argv[2], -INFINITY, 0, INFINITY, 0,
                    &p->threshold, &t) ) return;
  if( d->kind==RK_PRECISION_AT_PRIOR
   && ml_param_real(ctx, d->name, "prior", argv[3], 0.0, 1, 1.0, 1, &p->prior, &pi) ) return;
  if( ml_arg_binary_row(ctx, d->name, argv, 0, &y, &s)!=ML_ROW_OK ) return;
  p->c[y][s>=t]++;
}

void ml_confusion_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  int y;
  double s, t;
  (void)argc;
  if( p==0 ) return;
  ml_param_drop(&p->threshold, argv[2]);
  if( d->kind==RK_PRECISION_AT_PRIOR ) ml_param_drop(&p->prior, argv[3]);
  t = sqlite3_value_double(argv[2]);       /* the row's own threshold, as xStep used */
  if( ml_arg_binary_row(ctx, d->name, argv, 0, &y, &s)!=ML_ROW_OK ) return;
  p->c[y][s>=t]--;
}

/* Precision at prevalence pi from the rates: tpr pi / (tpr pi + fpr (1 - pi)),
** null when nothing is predicted positive (tpr = fpr = 0). */
static void precision_at(MlJson *j, const char *k, double tpr, double fpr, double pi){
  double den = tpr*pi + fpr*(1.0 - pi);
  ml_json_key(j, k);
  if( den==0.0 ) ml_json_null(j); else ml_json_double(j, tpr*pi/den);
}

/* precision_at_prior: needs both classes (tpr and fpr). */
static void prior_value(sqlite3_context *ctx, const MlFuncDesc *d, const ConfAgg *p){
  ml_i64 P = p->c[1][0] + p->c[1][1], N = p->c[0][0] + p->c[0][1];
  double tpr, fpr, pe, prior;
  MlJson j;
  if( P==0 || N==0 ){
    ml_result_null(ctx, d->name, "only one class in the group (%lld positives, %lld negatives)",
                   (long long)P, (long long)N);
    return;
  }
  prior = ml_param_value(&p->prior, NAN);
  tpr = (double)p->c[1][1]/(double)P;
  fpr = (double)p->c[0][1]/(double)N;
  pe = (double)P/(double)(P+N);
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "tpr");           ml_json_double(&j, tpr);
  ml_json_key(&j, "fpr");           ml_json_double(&j, fpr);
  ml_json_key(&j, "eval_prior");    ml_json_double(&j, pe);
  ml_json_key(&j, "assumed_prior"); ml_json_double(&j, prior);
  precision_at(&j, "precision_at_eval_prior", tpr, fpr, pe);
  precision_at(&j, "precision_at_assumed_prior", tpr, fpr, prior);
  ml_json_key(&j, "threshold");     ml_json_double(&j, ml_param_value(&p->threshold, NAN));
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

void ml_confusion_value(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p = sqlite3_aggregate_context(ctx, 0);
  ml_i64 tp, fp, tn, fn;
  MlJson j;
  if( p && (ml_param_check(ctx, d->name, "threshold", &p->threshold)
          || ml_param_check(ctx, d->name, "prior", &p->prior)) ) return;
  if( p==0 || p->c[0][0]+p->c[0][1]+p->c[1][0]+p->c[1][1]==0 ){
    ml_result_null(ctx, d->name, "no rows");
    return;
  }
  if( d->kind==RK_PRECISION_AT_PRIOR ){ prior_value(ctx, d, p); return; }
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

/* States: each entry's counts go to their side of the threshold. */
static int confusion_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  ConfAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  ml_i64 held[2];
  int j, rc;
  if( p==0 ) return ML_NOMEM;
  if( p->threshold.n[0]==0 ) return ML_OK;  /* xStep rejected the parameters */
  held[0] = p->c[0][0] + p->c[0][1];
  held[1] = p->c[1][0] + p->c[1][1];
  if( sign>0 && (rc = ml_state_rows(st, n, 0, held, zErr, nErr))!=ML_OK ) return rc;
  for(j=0; j<n; j++){
    MlReader r;
    MlEntry e;
    ml_reader_init(&r, &st[j].sec[0]);
    while( ml_reader_next(&r, &e) ){
      int pred = ml_double_of(e.key) >= p->threshold.v[0];   /* xStep set the threshold */
      p->c[0][pred] += sign * e.n[0];
      p->c[1][pred] += sign * e.n[1];
    }
  }
  return ML_OK;
}
const MlStateHooks ml_confusion_states = {
  sizeof(ConfAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT), confusion_absorb
};
