/*
** mleval.c -- entry point of the mleval SQLite extension.
**
**   .load ext/.libs/mleval            (entry point sqlite3_mleval_init)
**
** Provides the registration table of every SQL function, mleval_version()
** and mleval_build_info().  The metrics live in one file per family:
**   ranking.c      pr_auc auroc nap youden_j tpr_at_fpr sens_at_spec
**                  confusion pr_curve roc_curve
**   calibration.c  brier log_loss ece reliability ece_l2_debiased ece_l2_kumar
**   stratified.c   strat_pr_auc strat_gap strat_report
**   ordinal.c      auprc_ge ordinal_auprc ordinal_nap ordinal_report
**   svd_bench.c    the svd_bench table-valued function (svd_cpu.c; svd_cuda.c
**                  in the separate module mleval_cuda.so)
** and the shared core in ml_*.c (see ml_core.h).
**
** Rules:
**   1. Every metric is registered with sqlite3_create_window_function, so it
**      is an aggregate and a window function alike, with the flags
**      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS.
**   2. A registration that fails stops the load and reports which function
**      through pzErrMsg.
*/
#include "config.h"
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include "ml_sql.h"

#ifndef SQLITE_INNOCUOUS
# define SQLITE_INNOCUOUS 0x000200000
#endif

#define ML_VERSION PACKAGE_VERSION

/* Selectors passed as user data; the family decides what kind means. */
static const MlFuncDesc dPrAuc      = {"pr_auc", RK_PR_AUC};
static const MlFuncDesc dAuroc      = {"auroc", RK_AUROC};
static const MlFuncDesc dNap        = {"nap", RK_NAP};
static const MlFuncDesc dYouden     = {"youden_j", RK_YOUDEN};
static const MlFuncDesc dTprAtFpr   = {"tpr_at_fpr", RK_TPR_AT_FPR};
static const MlFuncDesc dSensAtSpec = {"sens_at_spec", RK_SENS_AT_SPEC};
static const MlFuncDesc dPrCurve    = {"pr_curve", RK_PR_CURVE};
static const MlFuncDesc dRocCurve   = {"roc_curve", RK_ROC_CURVE};
static const MlFuncDesc dConfusion  = {"confusion", 0};
static const MlFuncDesc dBrier       = {"brier", CAL_BRIER};
static const MlFuncDesc dLogLoss     = {"log_loss", CAL_LOGLOSS};
static const MlFuncDesc dEce         = {"ece", CAL_ECE};
static const MlFuncDesc dReliability = {"reliability", CAL_RELIABILITY};
static const MlFuncDesc dEceDebiased = {"ece_l2_debiased", CAL_L2_DEBIASED};
static const MlFuncDesc dEceKumar    = {"ece_l2_kumar", CAL_L2_KUMAR};
static const MlFuncDesc dStratPrAuc  = {"strat_pr_auc", ST_PR_AUC};
static const MlFuncDesc dStratGap    = {"strat_gap", ST_GAP};
static const MlFuncDesc dStratReport = {"strat_report", ST_REPORT};
static const MlFuncDesc dAuprcGe     = {"auprc_ge", ORD_GE};
static const MlFuncDesc dOrdAuprc    = {"ordinal_auprc", ORD_AUPRC};
static const MlFuncDesc dOrdNap      = {"ordinal_nap", ORD_NAP};
static const MlFuncDesc dOrdReport   = {"ordinal_report", ORD_REPORT};
static const MlFuncDesc dPlotCurves  = {"plot_curves", PK_CURVES};
static const MlFuncDesc dPlotRel     = {"plot_reliability", PK_RELIABILITY};
static const MlFuncDesc dPlotBars    = {"plot_bars", PK_BARS};
static const MlFuncDesc dPlotLines   = {"plot_lines", PK_LINES};

/* Plots: aggregates only (plot.c, rule 1). */
static const struct { const MlFuncDesc *desc; int nArg; } aPlot[] = {
  {&dPlotCurves, 2}, {&dPlotCurves, 3},
  {&dPlotRel, 2}, {&dPlotRel, 3},
  {&dPlotBars, 3}, {&dPlotBars, 4}, {&dPlotBars, 5},
  {&dPlotLines, 3}, {&dPlotLines, 4},
};

typedef struct MlAggDef {
  const MlFuncDesc *desc;
  int nArg;
  void (*xStep)(sqlite3_context*, int, sqlite3_value**);
  void (*xFinal)(sqlite3_context*);
  void (*xValue)(sqlite3_context*);
  void (*xInverse)(sqlite3_context*, int, sqlite3_value**);
} MlAggDef;

#define RANK(d, n)  { &d, n, ml_rank_step, ml_rank_final, ml_rank_value, ml_rank_inverse }
#define CALIB(d, n) { &d, n, ml_calib_step, ml_calib_final, ml_calib_value, ml_calib_inverse }
#define CALSORT(d, n) { &d, n, ml_calsort_step, ml_calsort_final, ml_calsort_value, ml_calsort_inverse }
#define STRAT(d, n) { &d, n, ml_strat_step, ml_strat_final, ml_strat_value, ml_strat_inverse }
#define ORD(d, n)   { &d, n, ml_ord_step, ml_ord_final, ml_ord_value, ml_ord_inverse }
#define CONF(d, n)  { &d, n, ml_confusion_step, ml_confusion_final, ml_confusion_value, ml_confusion_inverse }

static const MlAggDef aAgg[] = {
  RANK(dPrAuc, 2),
  RANK(dAuroc, 2),
  RANK(dNap, 2),
  RANK(dYouden, 2),
  RANK(dTprAtFpr, 3),
  RANK(dSensAtSpec, 3),
  RANK(dPrCurve, 2),
  RANK(dRocCurve, 2),
  CONF(dConfusion, 3),
  CALIB(dBrier, 2),
  CALIB(dLogLoss, 2), CALIB(dLogLoss, 3),
  CALIB(dEce, 2), CALIB(dEce, 3),
  CALIB(dReliability, 2), CALIB(dReliability, 3),
  CALSORT(dEceDebiased, 2), CALSORT(dEceDebiased, 3),
  CALSORT(dEceKumar, 2), CALSORT(dEceKumar, 3),
  STRAT(dStratPrAuc, 3), STRAT(dStratPrAuc, 5),
  STRAT(dStratGap, 3), STRAT(dStratGap, 5),
  STRAT(dStratReport, 3), STRAT(dStratReport, 5), STRAT(dStratReport, 6),
  ORD(dAuprcGe, 3),
  ORD(dOrdAuprc, -1), ORD(dOrdNap, -1), ORD(dOrdReport, -1),   /* y, s_1..s_m: m checked in xStep */
};

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
** JSON naming the build's options: version, commit, compiler, SQLite headers
** and library, LAPACKE, OpenBLAS, CUDA.
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
  ml_json_key(&j, "lapacke");        ml_json_bool(&j, 1);
  ml_json_key(&j, "openblas");       ml_json_bool(&j, 1);
#ifdef MLEVAL_HAVE_CUDA
  ml_json_key(&j, "cuda");           ml_json_bool(&j, 1);
#else
  ml_json_key(&j, "cuda");           ml_json_bool(&j, 0);
#endif
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_mleval_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  size_t i;
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  rc = sqlite3_create_function(db, "mleval_version", 0, flags, 0, versionFunc, 0, 0);
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_function(db, "mleval_build_info", 0, flags, 0, buildInfoFunc, 0, 0);
  }
  if( rc==SQLITE_OK ){
    rc = ml_register_svd_bench(db);
    if( rc!=SQLITE_OK && pzErrMsg ) *pzErrMsg = sqlite3_mprintf("mleval: cannot register svd_bench");
  }
  for(i=0; rc==SQLITE_OK && i<sizeof(aAgg)/sizeof(aAgg[0]); i++){
    const MlAggDef *a = &aAgg[i];
    rc = sqlite3_create_window_function(db, a->desc->name, a->nArg, flags, (void*)a->desc,
                                        a->xStep, a->xFinal, a->xValue, a->xInverse, 0);
    if( rc!=SQLITE_OK && pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("mleval: cannot register %s/%d: %s",
                                  a->desc->name, a->nArg, sqlite3_errmsg(db));
    }
  }
  for(i=0; rc==SQLITE_OK && i<sizeof(aPlot)/sizeof(aPlot[0]); i++){
    rc = sqlite3_create_function(db, aPlot[i].desc->name, aPlot[i].nArg, flags, (void*)aPlot[i].desc,
                                 0, ml_plot_step, ml_plot_final);
    if( rc!=SQLITE_OK && pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("mleval: cannot register %s/%d: %s",
                                  aPlot[i].desc->name, aPlot[i].nArg, sqlite3_errmsg(db));
    }
  }
  return rc;
}
