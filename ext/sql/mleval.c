/*
** mleval.c -- entry point of the mleval SQLite extension.
** SPDX-License-Identifier: MIT
**
**   .load ext/.libs/mleval            (entry point sqlite3_mleval_init)
**
** Provides the registration table of every SQL function (ml_functions),
** mleval_version(), mleval_build_info() and mleval_functions().  The
** metrics live in one file per family:
**   ranking.c      pr_auc auroc nap youden_j tpr_at_fpr sens_at_spec partial_auroc
**                  operating_point confusion precision_at_prior pr_curve roc_curve
**                  mcc f_beta confusion_ci net_benefit ks precision_at_k recall_at_k
**                  gains decision_curve
**   calibration.c  brier log_loss ece mce reliability ece_equal_mass ece_l2
**                  ece_l2_debiased brier_decomposition ece_l2_kumar
**   stratified.c   strat_pr_auc strat_gap strat_report
**   ordinal.c      auprc_ge ordinal_auprc ordinal_nap ordinal_report
**   uncertainty.c  pr_auc_ci nap_ci brier_ci log_loss_ci ece_ci strat_gap_ci
**                  auroc_ci auroc_diff pr_auc_diff_ci ece_diff_ci mean_ci
**   validation.c   calibration_summary auroc_test
**   svd_bench.c    the svd_bench table-valued function (its back ends are
**                  separate modules loaded on first use)
** and the shared core in ml_*.c (see ml_core.h).
**
** Rules:
**   1. The table below is the one list of functions.  Every aggregate is
**      registered with sqlite3_create_window_function, so it is an aggregate
**      and a window function alike, once per accepted argument count, with
**      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS (and
**      SQLITE_RESULT_SUBTYPE for JSON results where SQLite defines it).
**   1a. A row flagged ML_FN_SCALAR_MIN is a scalar function (its xFunc)
**      at its fewest arguments and its family's aggregate above: SQLite
**      picks by argument count, so auroc_test(st_a, st_b) compares two
**      states while auroc_test(y, s, g) aggregates rows.
**   2. Every function is also registered with nArg -1, which SQLite picks
**      only when no exact count matches: that registration fails with the
**      signature, "sens_at_spec(): expects (y, s, target_spec), got 2
**      arguments".
**   3. A registration that fails stops the load and reports which function
**      through pzErrMsg.
**   4. An SQLite older than MLEVAL_SQLITE_MIN (configure.ac: 3.38.0) is
**      refused at load with a message naming both versions.
**
** Cost: (nMax - nMin + 2) registrations per function at load time.
*/
#include "config.h"
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include "ml_sql.h"

#ifndef SQLITE_INNOCUOUS
# define SQLITE_INNOCUOUS 0x000200000
#endif

#define ML_VERSION PACKAGE_VERSION

static void versionFunc(sqlite3_context*, int, sqlite3_value**);
static void buildInfoFunc(sqlite3_context*, int, sqlite3_value**);
static void functionsFunc(sqlite3_context*, int, sqlite3_value**);

/* The families: one set of callbacks per aggregate state type. */
/* A family with state hooks (x##_states) takes partial states: each of its
** functions also accepts a state BLOB in place of its data arguments. */
#define ML_FAMILY(var, label, x) \
  static const MlFamily var = { label, x##_step, x##_final, x##_value, x##_inverse, 0 };
#define ML_FAMILY_STATES(var, label, x) \
  static const MlFamily var = { label, x##_step, x##_final, x##_value, x##_inverse, &x##_states };
ML_FAMILY_STATES(famRank,      "ranking",     ml_rank)
ML_FAMILY_STATES(famConfusion, "ranking",     ml_confusion)
ML_FAMILY_STATES(famCalib,     "calibration", ml_calib)
ML_FAMILY_STATES(famCalsort,   "calibration", ml_calsort)
ML_FAMILY_STATES(famStrat,     "stratified",  ml_strat)
ML_FAMILY_STATES(famOrd,       "ordinal",     ml_ord)
ML_FAMILY(famMake,             "state",       ml_make)
ML_FAMILY(famMerge,            "state",       ml_merge)
ML_FAMILY_STATES(famUnc,       "uncertainty", ml_unc)
ML_FAMILY(famAurocTest,        "uncertainty", ml_aurt)
static const MlFamily famUncStrat = { "uncertainty", ml_unc_step, ml_unc_final, ml_unc_value,
                                      ml_unc_inverse, &ml_unc_strat_states };
/* Plots are aggregates only (plot.c, rule 1): no xValue/xInverse, so SQLite
** refuses them with OVER (...). */
static const MlFamily famPlot = { "plot", ml_plot_step, ml_plot_final, 0, 0, 0 };

#define J ML_FN_JSON
/*
** The registration table: every SQL function mleval provides, one row each.
**   name, signature (as the docs and the arity error show it), fewest and
**   most arguments, family (0: a scalar, then its body), kind, flags.
** A new function is one row here; the tests read this table through
** mleval_functions() and fail when a function lacks their coverage.
*/
const MlFuncDesc ml_functions[] = {
  /* ranking.c */
  { "pr_auc",          "y, s",                     2,  2, &famRank, 0, RK_PR_AUC, 0 },
  { "auroc",           "y, s",                     2,  2, &famRank, 0, RK_AUROC, 0 },
  { "nap",             "y, s",                     2,  2, &famRank, 0, RK_NAP, 0 },
  { "youden_j",        "y, s",                     2,  2, &famRank, 0, RK_YOUDEN, 0 },
  { "tpr_at_fpr",      "y, s, target_fpr",         3,  3, &famRank, 0, RK_TPR_AT_FPR, 0 },
  { "sens_at_spec",    "y, s, target_spec",        3,  3, &famRank, 0, RK_SENS_AT_SPEC, 0 },
  { "pr_curve",        "y, s",                     2,  2, &famRank, 0, RK_PR_CURVE, J },
  { "roc_curve",       "y, s",                     2,  2, &famRank, 0, RK_ROC_CURVE, J },
  { "partial_auroc",   "y, s, max_fpr",            3,  3, &famRank, 0, RK_PARTIAL_AUROC, 0 },
  { "operating_point", "y, s, criterion [, target]", 3, 4, &famRank, 0, RK_OPERATING_POINT, J },
  { "confusion",       "y, s, threshold",          3,  3, &famConfusion, 0, RK_CONFUSION, J },
  { "precision_at_prior", "y, s, threshold, prior", 4, 4, &famConfusion, 0, RK_PRECISION_AT_PRIOR, J },
  /* ranking.c: threshold and clinical-validation metrics (docs/clinical.md) */
  { "mcc",             "y, s, threshold",          3,  3, &famConfusion, 0, RK_MCC, 0 },
  { "f_beta",          "y, s, threshold, beta",    4,  4, &famConfusion, 0, RK_F_BETA, 0 },
  { "confusion_ci",    "y, s, threshold [, level [, method]]", 3, 5, &famConfusion, 0, RK_CONFUSION_CI, J },
  { "net_benefit",     "y, p, pt",                 3,  3, &famConfusion, 0, RK_NET_BENEFIT, 0 },
  { "ks",              "y, s",                     2,  2, &famRank, 0, RK_KS, 0 },
  { "precision_at_k",  "y, s, k",                  3,  3, &famRank, 0, RK_PRECISION_AT_K, 0 },
  { "recall_at_k",     "y, s, k",                  3,  3, &famRank, 0, RK_RECALL_AT_K, 0 },
  { "gains",           "y, s [, bins]",            2,  3, &famRank, 0, RK_GAINS, J },
  { "decision_curve",  "y, p [, from [, to [, by]]]", 2, 5, &famRank, 0, RK_DECISION_CURVE, J },
  /* calibration.c */
  { "brier",           "y, p",                     2,  2, &famCalib, 0, CAL_BRIER, 0 },
  { "log_loss",        "y, p [, eps]",             2,  3, &famCalib, 0, CAL_LOGLOSS, 0 },
  { "ece",             "y, p [, bins]",            2,  3, &famCalib, 0, CAL_ECE, 0 },
  { "mce",             "y, p [, bins]",            2,  3, &famCalib, 0, CAL_MCE, 0 },
  { "reliability",     "y, p [, bins [, strategy]]", 2, 4, &famCalib, 0, CAL_RELIABILITY, J },
  { "ece_equal_mass",  "y, p [, bins]",            2,  3, &famCalsort, 0, CAL_EQUAL_MASS, 0 },
  { "ece_l2",          "y, p [, bins]",            2,  3, &famCalsort, 0, CAL_L2, 0 },
  { "brier_decomposition", "y, p [, bins]",        2,  3, &famCalsort, 0, CAL_BRIER_DECOMP, J },
  { "ece_l2_debiased", "y, p [, bins]",            2,  3, &famCalsort, 0, CAL_L2_DEBIASED, 0 },
  { "ece_l2_kumar",    "y, p [, bins]",            2,  3, &famCalsort, 0, CAL_L2_KUMAR, 0 },
  { "calibration_summary", "y, p",                 2,  2, &famCalsort, 0, CAL_SUMMARY, J },
  /* stratified.c */
  { "strat_pr_auc",    "y, s, strat [, ql, qh]",   3,  5, &famStrat, 0, ST_PR_AUC, 0 },
  { "strat_gap",       "y, s, strat [, ql, qh]",   3,  5, &famStrat, 0, ST_GAP, 0 },
  { "strat_report",    "y, s, strat [, ql, qh [, gap_threshold]]", 3, 6, &famStrat, 0, ST_REPORT, J },
  /* ordinal.c: y and one score per cut, m = 1..16 */
  { "auprc_ge",        "y, s, k",                  3,  3, &famOrd, 0, ORD_GE, ML_FN_STATE_YS },
  { "ordinal_auprc",   "y, s_1, ..., s_m",         2, 17, &famOrd, 0, ORD_AUPRC, 0 },
  { "ordinal_nap",     "y, s_1, ..., s_m",         2, 17, &famOrd, 0, ORD_NAP, 0 },
  { "ordinal_report",  "y, s_1, ..., s_m",         2, 17, &famOrd, 0, ORD_REPORT, J },
  /* uncertainty.c (strat_gap_ci rejects 4 arguments itself: ql needs qh) */
  { "pr_auc_ci",       "y, s [, level, reps, seed]", 2, 5, &famUnc, 0, UN_PR_AUC, J },
  { "nap_ci",          "y, s [, level, reps, seed]", 2, 5, &famUnc, 0, UN_NAP, J },
  { "brier_ci",        "y, p [, level, reps, seed]", 2, 5, &famUnc, 0, UN_BRIER, J },
  { "log_loss_ci",     "y, p [, level, reps, seed]", 2, 5, &famUnc, 0, UN_LOGLOSS, J },
  { "ece_ci",          "y, p [, bins, level, reps, seed]", 2, 6, &famUnc, 0, UN_ECE, J },
  { "strat_gap_ci",    "y, s, strat [, ql, qh [, level, reps, seed]]", 3, 8, &famUncStrat, 0, UN_STRAT_GAP, J },
  { "auroc_ci",        "y, s [, level]",           2,  3, &famUnc, 0, UN_AUROC, J },
  { "auroc_diff",      "y, s_a, s_b [, level]",    3,  4, &famUnc, 0, UN_AUROC_DIFF, J | ML_FN_NO_STATE },
  { "pr_auc_diff_ci",  "y, s_a, s_b [, level, reps, seed]", 3, 6, &famUnc, 0, UN_PR_AUC_DIFF, J | ML_FN_NO_STATE },
  { "ece_diff_ci",     "y, p_a, p_b [, bins, level, reps, seed]", 3, 7, &famUnc, 0, UN_ECE_DIFF, J | ML_FN_NO_STATE },
  { "mean_ci",         "x [, level]",              1,  2, &famUnc, 0, UN_MEAN, J | ML_FN_NO_STATE },
  /* validation.c: with 2 arguments auroc_test is a scalar over two states */
  { "auroc_test",      "y, s, g | st_a, st_b",     2,  3, &famAurocTest, ml_auroc_test_states, 0,
                                                                   J | ML_FN_SCALAR_MIN },
  /* plot.c: SVG images */
  { "plot_curves",      "series, curve [, title]",  2,  3, &famPlot, 0, PK_CURVES, 0 },
  { "plot_reliability", "series, bins [, title]",   2,  3, &famPlot, 0, PK_RELIABILITY, 0 },
  { "plot_bars",        "category, series, value [, title [, unit]]", 3, 5, &famPlot, 0, PK_BARS, 0 },
  { "plot_lines",       "series, x, y [, title [, xlabel [, ylabel]]]", 3, 6, &famPlot, 0, PK_LINES, 0 },
  /* partial states: ml_state_sql.c (ml_state_ordinal: ordinal.c) */
  { "ml_state",         "y, s [, strat]",          2,  3, &famMake, 0, 0, ML_FN_BLOB },
  { "ml_state_ordinal", "y, s_1, ..., s_m",        2, 17, &famOrd, 0, ORD_STATE, ML_FN_BLOB | ML_FN_NO_STATE },
  { "ml_merge",         "state",                   1,  1, &famMerge, 0, 0, ML_FN_BLOB },
  /* mleval.c */
  { "mleval_version",    "",                       0,  0, 0, versionFunc, 0, 0 },
  { "mleval_build_info", "",                       0,  0, 0, buildInfoFunc, 0, J },
  { "mleval_functions",  "",                       0,  0, 0, functionsFunc, 0, J },
  { 0, 0, 0, 0, 0, 0, 0, 0 }
};
#undef J

/*
** A call with an argument count no row accepts lands on these (registered
** with nArg -1, which SQLite picks only when no exact count matches) and
** fails with the function's signature.  An aggregate that never sees a row
** learns the count nowhere, so its message says so without the number.
*/
static void arity_error(sqlite3_context *ctx, int argc){
  ml_arity_error(ctx, sqlite3_user_data(ctx), argc);
}
static void arityFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int *pSeen = sqlite3_aggregate_context(ctx, sizeof(int));
  (void)argv;
  if( pSeen ) *pSeen = 1;
  arity_error(ctx, argc);
}
static void arityScalar(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argv;
  arity_error(ctx, argc);
}
static void arityFinal(sqlite3_context *ctx){
  if( sqlite3_aggregate_context(ctx, 0)==0 ) arity_error(ctx, -1);   /* no row was seen */
}
static void arityInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)ctx; (void)argc; (void)argv;
}

/*
** SQL function: mleval_version()
** The version string, e.g. '0.1.0'.
*/
static void versionFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, ML_VERSION, -1, SQLITE_STATIC);
}

/*
** SQL function: mleval_build_info()
** JSON naming the build's options: version, commit, compiler, SQLite headers,
** library and the oldest SQLite mleval supports, LAPACKE, OpenBLAS, CUDA (built: yes/no), and "backends":
** for svd_bench's back-end modules whether each was built and loads, with
** its path or the reason it does not (asking loads them: see svd_bench.c).
*/
static void buildInfoFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  MlJson j;
  (void)argc; (void)argv;
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "version");        ml_json_string(&j, ML_VERSION);
  ml_json_key(&j, "commit");         ml_json_string(&j, MLEVAL_COMMIT);
  ml_json_key(&j, "compiler");       ml_json_string(&j, MLEVAL_CC_VERSION);
  ml_json_key(&j, "sqlite_headers"); ml_json_string(&j, SQLITE_VERSION);
  ml_json_key(&j, "sqlite_library"); ml_json_string(&j, sqlite3_libversion());
  ml_json_key(&j, "sqlite_minimum"); ml_json_string(&j, MLEVAL_SQLITE_MIN);
#ifdef MLEVAL_HAVE_LAPACKE
  ml_json_key(&j, "lapacke");        ml_json_bool(&j, 1);
  ml_json_key(&j, "openblas");       ml_json_bool(&j, 1);
#else
  ml_json_key(&j, "lapacke");        ml_json_bool(&j, 0);
  ml_json_key(&j, "openblas");       ml_json_bool(&j, 0);
#endif
#ifdef MLEVAL_HAVE_CUDA
  ml_json_key(&j, "cuda");           ml_json_bool(&j, 1);
#else
  ml_json_key(&j, "cuda");           ml_json_bool(&j, 0);
#endif
  ml_json_key(&j, "backends");       ml_svd_backends_json(&j);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

/*
** SQL function: mleval_functions()
** The registration table as JSON, one object per function:
** {"name","signature","min_args","max_args","family","json"}; family is
** "scalar" for plain functions.  The tests compare it with
** pragma_function_list and with their own lists.
*/
static void functionsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d;
  MlJson j;
  (void)argc; (void)argv;
  ml_json_init(&j);
  ml_json_begin_array(&j);
  for(d=ml_functions; d->name; d++){
    ml_json_begin_object(&j);
    ml_json_key(&j, "name");      ml_json_string(&j, d->name);
    ml_json_key(&j, "signature"); ml_json_string(&j, d->signature);
    ml_json_key(&j, "min_args");  ml_json_int(&j, d->nMin);
    ml_json_key(&j, "max_args");  ml_json_int(&j, d->nMax);
    ml_json_key(&j, "family");    ml_json_string(&j, d->fam ? d->fam->name : "scalar");
    ml_json_key(&j, "json");      ml_json_bool(&j, (d->flags & ML_FN_JSON)!=0);
    {
      int lo, hi;
      ml_json_key(&j, "state_args");     /* [fewest, most] arguments of the state form, or null */
      if( ml_state_arity(d, &lo, &hi) ){
        ml_json_begin_array(&j); ml_json_int(&j, lo); ml_json_int(&j, hi); ml_json_end_array(&j);
      }else{
        ml_json_null(&j);
      }
    }
    ml_json_end_object(&j);
  }
  ml_json_end_array(&j);
  ml_result_json(ctx, &j);
}

/* Registers one row of the table: each accepted count, then the catch-all.
** A function that takes states is registered through the state wrappers
** (ml_state_sql.c) for its row counts and its state counts alike: they hand
** rows to the family and decode states. */
static int register_function(sqlite3 *db, const MlFuncDesc *d){
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int n, rc = SQLITE_OK, lo = 0, hi = -1;
#ifdef SQLITE_RESULT_SUBTYPE
  if( d->flags & ML_FN_JSON ) flags |= SQLITE_RESULT_SUBTYPE;
#endif
  if( ml_state_arity(d, &lo, &hi) ){
    int nLo = lo < d->nMin ? lo : d->nMin, nHi = hi > d->nMax ? hi : d->nMax;
    for(n=nLo; rc==SQLITE_OK && n<=nHi; n++){
      if( (n<d->nMin || n>d->nMax) && (n<lo || n>hi) ) continue;
      rc = sqlite3_create_window_function(db, d->name, n, flags, (void*)d, ml_state_xstep,
                                          ml_state_xfinal, ml_state_xvalue, ml_state_xinverse, 0);
    }
  }else for(n=d->nMin; rc==SQLITE_OK && n<=d->nMax; n++){
    if( d->fam && !(n==d->nMin && (d->flags & ML_FN_SCALAR_MIN)) ){
      rc = sqlite3_create_window_function(db, d->name, n, flags, (void*)d, d->fam->xStep,
                                          d->fam->xFinal, d->fam->xValue, d->fam->xInverse, 0);
    }else{
      rc = sqlite3_create_function(db, d->name, n, flags, (void*)d, d->xFunc, 0, 0);
    }
  }
  if( rc==SQLITE_OK ){
    if( d->fam ){
      rc = sqlite3_create_window_function(db, d->name, -1, flags, (void*)d, arityFunc,
                                          arityFinal, arityFinal, arityInverse, 0);
    }else{
      rc = sqlite3_create_function(db, d->name, -1, flags, (void*)d, arityScalar, 0, 0);
    }
  }
  return rc;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_mleval_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  const MlFuncDesc *d;
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  if( sqlite3_libversion_number() < MLEVAL_SQLITE_MIN_NUMBER ){
    /* configure.ac says why this version; an older SQLite lacks what the
    ** functions and their documented use rely on */
    if( pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("mleval: needs SQLite >= %s, this process runs %s",
                                  MLEVAL_SQLITE_MIN, sqlite3_libversion());
    }
    return SQLITE_ERROR;
  }
  rc = ml_register_svd_bench(db);
  if( rc!=SQLITE_OK && pzErrMsg ) *pzErrMsg = sqlite3_mprintf("mleval: cannot register svd_bench");
  for(d=ml_functions; rc==SQLITE_OK && d->name; d++){
    rc = register_function(db, d);
    if( rc!=SQLITE_OK && pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("mleval: cannot register %s(): %s", d->name, sqlite3_errmsg(db));
    }
  }
  return rc;
}
