/*
** mleval.c -- entry point of the mleval SQLite extension.
** SPDX-License-Identifier: MIT
**
**   .load ext/.libs/mleval            (entry point sqlite3_mleval_init)
**
** Provides the registration driver: it registers every family's records
** (MlFuncDesc, ml_sql.h), each family declaring its own next to its code,
** and mleval_version(), mleval_build_info() and mleval_functions().  The
** layers (docs/ARCHITECTURE.md):
**   ext/core/      the pure-C core: sample buffer, sort, sweep, quantiles,
**                  exact sums, bootstrap, DeLong, fits, distributions, writers
**   ext/sql/       this driver, argument and parameter checks (ml_args.c),
**                  partial states on the SQL side (ml_state_sql.c)
**   ext/metrics/   one file per family, each with its records:
**     ranking.c      pr_auc auroc nap youden_j tpr_at_fpr sens_at_spec partial_auroc
**                    operating_point confusion precision_at_prior pr_curve roc_curve
**                    mcc f_beta confusion_ci net_benefit ks precision_at_k recall_at_k
**                    gains decision_curve
**     calibration.c  brier log_loss ece mce reliability ece_equal_mass ece_l2
**                    ece_l2_debiased brier_decomposition ece_l2_kumar calibration_summary
**                    calibration_smooth
**     stratified.c   strat_pr_auc strat_gap strat_report
**     ordinal.c      auprc_ge ordinal_auprc ordinal_nap ordinal_report ml_state_ordinal
**     uncertainty.c  pr_auc_ci nap_ci brier_ci log_loss_ci ece_ci strat_gap_ci
**                    auroc_ci auroc_diff pr_auc_diff_ci ece_diff_ci mean_ci
**                    pr_auc_delta_ci pr_auc_diff_delta tpr_at_fpr_ci sens_at_spec_ci
**                    net_benefit_ci net_benefit_diff_ci decision_curve_ci
**     auroc_test.c   auroc_test (validation.c: calibration_summary's and calibration_smooth's results)
**     plot.c         plot_curves plot_reliability plot_bars plot_lines (drawn by plot_draw.c)
**     plot_km.c      plot_km
**     drift.c        psi ks_test wasserstein drift_report (the monitoring family)
**                    ml_state_dist ml_state_dist_w (drift_ks.c: the KS p-value)
**     disparity.c    group_disparity (the monitoring family)
**     expected.c     expected_auroc expected_pr_auc expected_confusion (the monitoring family)
**     survival.c     km censoring_km ipcw surv_auroc surv_brier surv_summary surv_ibs
**                    c_index c_index_ci uno_c ml_state_surv
**     survival_clinical.c  surv_calibration surv_net_benefit surv_decision_curve
**     survival_boot.c      surv_auroc_ci surv_brier_ci c_index_diff
**     multiclass.c   mc_auroc mc_pr_auc mc_log_loss mc_brier mc_confusion mc_top_k ordinal_rps
**                    mc_calibration mc_auroc_ci ml_state_mc
**     multiclass_long.c  mc_auroc_long mc_pr_auc_long mc_log_loss_long mc_brier_long
**                    mc_confusion_long mc_top_k_long ordinal_rps_long mc_calibration_long
**                    mc_auroc_ci_long ml_state_mc_long (over long rows: id, y, class, p)
**   ext/svd/       the svd_bench table-valued function (its back ends are
**                  separate modules loaded on first use)
**
** Rules:
**   1. The families' records are the one list of functions.  Every aggregate
**      is registered with sqlite3_create_window_function, so it is an
**      aggregate and a window function alike, once per accepted argument
**      count, with SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS (and
**      SQLITE_RESULT_SUBTYPE for JSON results where SQLite defines it); a
**      record flagged ML_FN_SIDE_EFFECTS (mleval_build_info, which loads
**      svd_bench's back ends) gets SQLITE_UTF8 | SQLITE_DIRECTONLY instead.
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
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include "ml_sql.h"
#include "ml_state.h"

#ifndef SQLITE_INNOCUOUS
# define SQLITE_INNOCUOUS 0x000200000
#endif

#define ML_VERSION PACKAGE_VERSION

static void versionFunc(sqlite3_context*, int, sqlite3_value**);
static void buildInfoFunc(sqlite3_context*, int, sqlite3_value**);
static void functionsFunc(sqlite3_context*, int, sqlite3_value**);

/* mleval.c's own functions. */
static const MlFuncDesc aScalar[] = {
  { "mleval_version",    "",                       0,  0, 0, versionFunc, 0, 0, 0 },
  { "mleval_build_info", "",                       0,  0, 0, buildInfoFunc, 0, ML_FN_JSON | ML_FN_SIDE_EFFECTS, 0 },
  { "mleval_functions",  "",                       0,  0, 0, functionsFunc, 0, ML_FN_JSON, 0 },
  { 0 }
};

/*
** Every family's records (each declared next to its code), in the order
** mleval_functions() lists them.  A new function is a record in its
** family's list; a new family is a line here.  The tests read the records
** through mleval_functions() and fail when a function lacks their coverage.
*/
/* The weighted twins: one record made from each record flagged
** ML_FN_WEIGHTED (make_twins), before the first registration. */
#define ML_MAX_TWINS 128
static MlFuncDesc aTwin[ML_MAX_TWINS + 1];
static const MlFuncDesc *aTwinBase[ML_MAX_TWINS];    /* the function each twin weights */
static char azTwinName[ML_MAX_TWINS][40], azTwinSignature[ML_MAX_TWINS][96];

static const MlFuncDesc *const aFamilyRecords[] = {
  ml_ranking_functions, ml_calibration_functions, ml_stratified_functions, ml_ordinal_functions,
  ml_uncertainty_functions, ml_validation_functions, ml_plot_functions, ml_multiclass_functions,
  ml_multiclass_long_functions, ml_state_functions, ml_drift_functions, ml_disparity_functions, ml_expected_functions,
  ml_survival_functions,
  ml_survival_clinical_functions, ml_survival_boot_functions, ml_plot_km_functions, aTwin, aScalar
};
#define ML_NFAMILY ((int)(sizeof(aFamilyRecords)/sizeof(aFamilyRecords[0])))

/* Steps through every record: start with *pi = 0 and d = 0; returns the
** next record, or 0 after the last. */
static const MlFuncDesc *next_record(int *pi, const MlFuncDesc *d){
  if( d && d[1].name ) return d+1;
  while( *pi < ML_NFAMILY ){
    const MlFuncDesc *first = aFamilyRecords[(*pi)++];
    if( first->name ) return first;
  }
  return 0;
}

/* The signature's argument names, one at a time: the next name after *pz
** goes to zName (cut to nName - 1 bytes) and *pz moves past it; 0 at the
** end, at an optional part ('[') or at the state form ('|').  The one reader
** of signatures (the twins' and data_args_json's). */
static int signature_next(const char **pz, char *zName, size_t nName){
  const char *z = *pz;
  size_t n = 0;
  while( *z==' ' || *z==',' ) z++;
  if( *z==0 || *z=='[' || *z=='|' ) return 0;
  while( z[n] && z[n]!=',' && z[n]!=' ' && z[n]!='[' ){
    if( n<nName-1 ) zName[n] = z[n];
    n++;
  }
  zName[n<nName-1 ? n : nName-1] = 0;
  *pz = z + n;
  return 1;
}

/*
** Weighted twins.  A record flagged ML_FN_WEIGHTED, NAME(y, s, ...), gets a
** twin NAME_w(y, s, w, ...): the same family, kind and parameters, one
** more argument, the weight, right after the score.  The twin records are
** made once per process (the first load), under SQLite's static mutex; the
** twins take no state.
*/
static void make_twins(void){
  static int done = 0;
  sqlite3_mutex *m = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
  int i = 0, f, k, lo, hi;
  sqlite3_mutex_enter(m);
  for(f=0; !done && f<ML_NFAMILY; f++){
    const MlFuncDesc *d;
    if( aFamilyRecords[f]==aTwin ) continue;
    for(d=aFamilyRecords[f]; d->name; d++){
      const char *z = d->signature, *e = z;
      char zName[32];
      if( !(d->flags & ML_FN_WEIGHTED) ) continue;
      if( i>=ML_MAX_TWINS ) break;      /* test_weights' list of the twins fails then */
      /* the signature with ", w" after its second data argument (y, s or y, p),
      ** or its third or fourth where the record says (ML_FN_TWIN_W3, _W4) */
      for(k=(d->flags & ML_FN_TWIN_W4) ? 4 : (d->flags & ML_FN_TWIN_W3) ? 3 : 2; k>0; k--) signature_next(&e, zName, sizeof(zName));
      sqlite3_snprintf(sizeof(azTwinName[i]), azTwinName[i], "%s_w", d->name);
      {  /* the twins take no state: their signature stops before a state form */
        const char *st = strstr(e, " | st");
        int nTail = st ? (int)(st - e) : (int)strlen(e);
        sqlite3_snprintf(sizeof(azTwinSignature[i]), azTwinSignature[i], "%.*s, w%.*s", (int)(e - z), z, nTail, e);
      }
      aTwin[i] = *d;
      aTwin[i].name = azTwinName[i];
      aTwin[i].signature = azTwinSignature[i];
      aTwin[i].nMin = (signed char)(d->nMin + 1);
      aTwin[i].nMax = (signed char)(d->nMax + 1);
      aTwin[i].flags = (d->flags & ~ML_FN_WEIGHTED) | ML_FN_TWIN | ML_FN_NO_STATE
                       | (d->fam && d->fam->state && ml_state_arity(d, &lo, &hi) ? 0u : ML_FN_BASE_NO_STATE);
      aTwinBase[i] = d;
      i++;
    }
  }
  done = 1;
  sqlite3_mutex_leave(m);
}

/* xStep and xInverse of a twin: the weight -- right after the scores in
** every twin: argv[2] after y, s; argv[3] after y, s_a, s_b
** (ML_FN_TWIN_W3); after variadic scores (ML_FN_TWIN_WLAST) the last
** argument of the wide form, argv[2] of the JSON form, whose argv[1] is a
** JSON array -- read, checked and taken out of argv, then the family's
** weighted step (MlFamily.xStepW).  A variadic row whose argv[1] is NULL
** is skipped whatever its form; its weight is read as the wide form's. */
static int twin_weight_arg(const MlFuncDesc *d, int argc, sqlite3_value **argv){
  if( d->flags & ML_FN_TWIN_WLAST ) return argc>=3 && !ml_value_is_array(argv[1]) ? argc-1 : 2;
  return (d->flags & ML_FN_TWIN_W4) ? 4 : (d->flags & ML_FN_TWIN_W3) ? 3 : 2;
}
static int twin_args(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                     sqlite3_value ***pav, double *w){
  sqlite3_value **av = *pav;
  int i, k = twin_weight_arg(d, argc, argv);
  if( argc>ML_MAX_ARGS || argc<=k ) return -1;
  /* the common weight, a REAL >= 0 and finite, read here; else the checker */
  if( sqlite3_value_type(argv[k])!=SQLITE_FLOAT || !((*w = sqlite3_value_double(argv[k]))>=0.0 && *w<INFINITY) ){
    if( ml_arg_weight(ctx, d->name, argv[k], w)!=ML_ROW_OK ) *w = -1.0;
  }
  if( argc==k+1 ){ *pav = argv; return k; }   /* the weight last: the family reads argv[0..k) */
  for(i=0; i<k; i++) av[i] = argv[i];
  for(i=k+1; i<argc; i++) av[i-1] = argv[i];
  return argc-1;
}

static const char *twin_base_name(const MlFuncDesc *d, char *zBuf, int nBuf);

/* The weight's place in a twin record's signature is where its flags say
** (twin_weight_arg): else the record is wrong, and registration fails
** rather than read another argument as the weight.  ML_FN_TWIN_WLAST: w is
** the last name of the wide form, after the variadic scores' "..., s_k-1",
** and the third of each other form ("| y, probs, w [, bins]"). */
static int twin_weight_checked(const MlFuncDesc *d){
  const char *z = d->signature;
  char zName[32], zPrev[32] = "";
  int i, at = -1;
  for(i=0; signature_next(&z, zName, sizeof(zName)); i++){
    if( strcmp(zName, "w")==0 && at<0 ) at = i;
    if( !(d->flags & ML_FN_TWIN_WLAST) && at>=0 ) break;
    if( strcmp(zName, "w")!=0 ) memcpy(zPrev, zName, sizeof(zPrev));
    else if( at!=i ) return 0;                        /* w twice */
  }
  if( !(d->flags & ML_FN_TWIN_WLAST) ) return at>=0 && at==twin_weight_arg(d, 0, 0);
  /* the wide form: "y, s_0, ..., s_k-1, w", w last, after the scores */
  if( at!=i-1 || at<4 || strlen(zPrev)<4 || strcmp(zPrev + strlen(zPrev) - 4, "_k-1")!=0 ) return 0;
  for(;;){                                           /* each other form: y, one argument, w */
    while( *z && *z!='|' ) z++;                      /* past the parameters */
    if( *z==0 ) return 1;
    z++;
    for(i=0; signature_next(&z, zName, sizeof(zName)); i++){
      if( (i==2)!=(strcmp(zName, "w")==0) ) return 0;
    }
    if( i<3 ) return 0;
  }
}
static void twinStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  sqlite3_value *aBuf[ML_MAX_ARGS], **av = aBuf;
  double w;
  int n = twin_args(ctx, d, argc, argv, &av, &w);  /* a state as y: ml_arg_label says where it goes */
  if( n>0 ) d->fam->xStepW(ctx, n, av, w);
}
static void twinInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  sqlite3_value *aBuf[ML_MAX_ARGS], **av = aBuf;
  double w;
  int n = twin_args(ctx, d, argc, argv, &av, &w);  /* accepted by xStep: reads as it did */
  if( n>0 ) d->fam->xInverseW(ctx, n, av, w);
}

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
  if( pSeen ) *pSeen = 1;
  if( argc>0 && ml_twin_state_error(ctx, sqlite3_user_data(ctx), argv[0]) ) return;
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
  {  /* the state kinds this build reads and makes (ml_state_kinds, the one list) */
    const MlStateKind *k;
    ml_json_key(&j, "state_kinds");
    ml_json_begin_array(&j);
    for(k=ml_state_kinds; k->kind; k++){
      ml_json_begin_object(&j);
      ml_json_key(&j, "kind");  ml_json_string(&j, k->name);
      ml_json_key(&j, "maker"); ml_json_string(&j, k->maker);
      ml_json_end_object(&j);
    }
    ml_json_end_array(&j);
  }
  ml_json_key(&j, "backends");       ml_svd_backends_json(&j);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

/* A record's parameter specs as a JSON array of {"name","type", and by type
** "min","max","min_open","max_open" (real), "min","max" (integer),
** "choices" (choice), then "default" and "example" as SQL text}. */
static void params_json(MlJson *j, const MlFuncDesc *d){
  static const char *const azType[] = {"", "real", "integer", "choice", "text"};
  const MlParamSpec *const *pp;
  ml_json_begin_array(j);
  for(pp=d->aParam; pp && *pp; pp++){
    const MlParamSpec *ps = *pp;
    ml_json_begin_object(j);
    ml_json_key(j, "name"); ml_json_string(j, ps->name);
    ml_json_key(j, "type"); ml_json_string(j, azType[ps->type]);
    if( ps->type==ML_PT_REAL ){
      ml_json_key(j, "min"); if( isinf(ps->lo) ) ml_json_null(j); else ml_json_double(j, ps->lo);
      ml_json_key(j, "max"); if( isinf(ps->hi) ) ml_json_null(j); else ml_json_double(j, ps->hi);
      ml_json_key(j, "min_open"); ml_json_bool(j, ps->loOpen);
      ml_json_key(j, "max_open"); ml_json_bool(j, ps->hiOpen);
    }else if( ps->type==ML_PT_INT ){
      ml_json_key(j, "min"); ml_json_int(j, ps->ilo);
      ml_json_key(j, "max"); ml_json_int(j, ps->ihi);
    }else if( ps->type==ML_PT_CHOICE ){
      const char *const *az;
      ml_json_key(j, "choices");
      ml_json_begin_array(j);
      for(az=ps->azChoice; *az; az++) ml_json_string(j, *az);
      ml_json_end_array(j);
    }
    ml_json_key(j, "default"); ml_json_string(j, ps->zDefault);
    ml_json_key(j, "example"); ml_json_string(j, ps->zExample);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
}

/* The data arguments of a record: the names its signature lists before the
** first optional part ('['), the first parameter, or the state form ('|'):
** "y, s [, level]" gives ["y","s"], "y, s_1, ..., s_m" ["y","s_1","...","s_m"].
** The tests map these role names (y, s, p, strat, s_a, ...) to columns. */
static void data_args_json(MlJson *j, const MlFuncDesc *d){
  const char *z = d->signature;
  char zName[32];
  ml_json_begin_array(j);
  while( signature_next(&z, zName, sizeof(zName)) ){
    if( d->aParam && d->aParam[0] && strcmp(zName, d->aParam[0]->name)==0 ) break;
    ml_json_string(j, zName);
  }
  ml_json_end_array(j);
}

/* The function a twin weights: make_twins' base record, or for a family's
** own twin record (ML_FN_TWIN outside aTwin: auroc_ci_w, a bootstrap whose
** parameters auroc_ci lacks; pr_auc_diff_ci_w and ece_diff_ci_w, whose
** weight follows three data arguments) its name less "_w".  0 for other records. */
static const char *twin_base_name(const MlFuncDesc *d, char *zBuf, int nBuf){
  int i;
  if( !(d->flags & ML_FN_TWIN) ) return 0;
  for(i=0; i<ML_MAX_TWINS && aTwin[i].name; i++){
    if( d==&aTwin[i] ) return aTwinBase[i]->name;
  }
  sqlite3_snprintf(nBuf, zBuf, "%.*s", (int)strlen(d->name) - 2, d->name);
  return zBuf;
}

/* The kinds in mask as a JSON array of their names (ml_state_kinds). */
static void kinds_json(MlJson *j, unsigned mask){
  const MlStateKind *k;
  ml_json_begin_array(j);
  for(k=ml_state_kinds; k->kind; k++) if( mask & (1u<<k->kind) ) ml_json_string(j, k->name);
  ml_json_end_array(j);
}

/* Every form a record takes, as a JSON array of {"form","signature"[,
** "kinds"]}: the alternatives its signature separates by " | " -- "rows"
** (the data as rows: y, s ...; multiclass's JSON form y, scores too),
** "state" or "two_states" (an alternative whose first one or two
** arguments are states, st / st_a, st_b / st_ref, st_cur: the family's
** formKinds) -- then a family's one-state form through its state hooks
** ("state", its signature derived, the hooks' kinds).  The tests, the
** state fuzz target and the bad-input matrix derive their calls from it. */
static void forms_json(MlJson *j, const MlFuncDesc *d){
  const char *z = d->signature;
  int lo, hi;
  ml_json_begin_array(j);
  while( z ){
    const char *bar = strstr(z, " | ");
    int n = bar ? (int)(bar - z) : (int)strlen(z), nSt = 0;
    const char *p = z;
    char zName[32], zSig[160];
    while( p < z + n && signature_next(&p, zName, sizeof(zName)) && p <= z + n
        && (strcmp(zName, "st")==0 || strcmp(zName, "state")==0 || strncmp(zName, "st_", 3)==0) ) nSt++;
    sqlite3_snprintf(sizeof(zSig), zSig, "%.*s", n, z);
    ml_json_begin_object(j);
    ml_json_key(j, "form");      ml_json_string(j, nSt==0 ? "rows" : nSt==1 ? "state" : "two_states");
    ml_json_key(j, "signature"); ml_json_string(j, zSig);
    if( nSt>0 ){ ml_json_key(j, "kinds"); kinds_json(j, ml_form_kinds(d)); }
    ml_json_end_object(j);
    z = bar ? bar + 3 : 0;
  }
  if( ml_state_arity(d, &lo, &hi) ){
    char zSig[160];
    ml_state_signature(d, zSig, sizeof(zSig));
    ml_json_begin_object(j);
    ml_json_key(j, "form");      ml_json_string(j, "state");
    ml_json_key(j, "signature"); ml_json_string(j, zSig);
    ml_json_key(j, "kinds");
    kinds_json(j, d->fam->state->kinds & ~((d->flags & ML_FN_STATE_UNWEIGHTED) ? 1u<<ML_STATE_WEIGHTED : 0u));
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
}

/*
** SQL function: mleval_functions()
** The registration table as JSON, one object per function:
** {"name","signature","min_args","max_args","family","json","deterministic",
** "data","params","state_args","forms"}; family is "scalar" for plain functions,
** data the data arguments' names, params the parameter specs.  The tests compare it with
** pragma_function_list and with their own lists.
*/
static void functionsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = 0;
  int iFam = 0;
  char zBase[40];
  MlJson j;
  (void)argc; (void)argv;
  ml_json_init(&j);
  ml_json_begin_array(&j);
  while( (d = next_record(&iFam, d))!=0 ){
    ml_json_begin_object(&j);
    ml_json_key(&j, "name");      ml_json_string(&j, d->name);
    ml_json_key(&j, "signature"); ml_json_string(&j, d->signature);
    ml_json_key(&j, "min_args");  ml_json_int(&j, d->nMin);
    ml_json_key(&j, "max_args");  ml_json_int(&j, d->nMax);
    ml_json_key(&j, "family");    ml_json_string(&j, d->fam ? d->fam->name : "scalar");
    ml_json_key(&j, "json");      ml_json_bool(&j, (d->flags & ML_FN_JSON)!=0);
    ml_json_key(&j, "deterministic"); ml_json_bool(&j, (d->flags & ML_FN_SIDE_EFFECTS)==0);
    ml_json_key(&j, "weighted_of");   ml_json_string(&j, twin_base_name(d, zBase, sizeof(zBase)));
    ml_json_key(&j, "data");      data_args_json(&j, d);
    ml_json_key(&j, "params");    params_json(&j, d);
    {
      int lo, hi;
      ml_json_key(&j, "state_args");     /* [fewest, most] arguments of the state form, or null */
      if( ml_state_arity(d, &lo, &hi) ){
        ml_json_begin_array(&j); ml_json_int(&j, lo); ml_json_int(&j, hi); ml_json_end_array(&j);
      }else{
        ml_json_null(&j);
      }
    }
    ml_json_key(&j, "forms");     forms_json(&j, d);
    ml_json_end_object(&j);
  }
  ml_json_end_array(&j);
  ml_result_json(ctx, &j);
}

/* Registers one row of the table: each accepted count, then the catch-all.
** A function that takes states: at its row counts the family's own xStep
** and xInverse, so a row pays no wrapper (the family's step recognises a
** state BLOB itself, ML_STATE_DIVERT), with the state wrappers' xFinal and
** xValue, which merge the group's collected states once; at a count only
** the state form has, the state wrappers (ml_state_sql.c). */
static int register_function(sqlite3 *db, const MlFuncDesc *d){
  int flags = (d->flags & ML_FN_SIDE_EFFECTS) ? SQLITE_UTF8 | SQLITE_DIRECTONLY
                                             : SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int n, rc = SQLITE_OK, lo = 0, hi = -1;
#ifdef SQLITE_RESULT_SUBTYPE
  if( d->flags & ML_FN_JSON ) flags |= SQLITE_RESULT_SUBTYPE;
#endif
  if( ml_state_arity(d, &lo, &hi) ){
    int nLo = lo < d->nMin ? lo : d->nMin, nHi = hi > d->nMax ? hi : d->nMax;
    for(n=nLo; rc==SQLITE_OK && n<=nHi; n++){
      if( n>=d->nMin && n<=d->nMax ){
        rc = sqlite3_create_window_function(db, d->name, n, flags, (void*)d, d->fam->xStep,
                                            ml_state_xfinal, ml_state_xvalue, d->fam->xInverse, 0);
      }else if( n>=lo && n<=hi ){
        rc = sqlite3_create_window_function(db, d->name, n, flags, (void*)d, ml_state_xstep,
                                            ml_state_xfinal, ml_state_xvalue, ml_state_xinverse, 0);
      }
    }
  }else if( d->flags & ML_FN_TWIN ){
    if( !twin_weight_checked(d) ) rc = SQLITE_INTERNAL;
    for(n=d->nMin; rc==SQLITE_OK && n<=d->nMax; n++){
      rc = sqlite3_create_window_function(db, d->name, n, flags, (void*)d, twinStep,
                                          d->fam->xFinal, d->fam->xValue, twinInverse, 0);
    }
  }else for(n=d->nMin; rc==SQLITE_OK && n<=d->nMax; n++){
    if( d->fam && !(n==d->nMin && (d->flags & ML_FN_SCALAR_MIN)) ){
      rc = sqlite3_create_window_function(db, d->name, n, flags, (void*)d, d->fam->xStep,
                                          d->fam->xFinal, d->fam->xValue, d->fam->xInverse, 0);
    }else if( d==&aScalar[0] ){
      /* mleval_version's registration carries this load's hold on the
      ** state form's NULL: SQLite calls ml_state_null_release when the
      ** connection closes, or at once when the registration fails */
      rc = ml_state_null_hold(db);
      if( rc==SQLITE_OK ){
        rc = sqlite3_create_function_v2(db, d->name, n, flags, (void*)d, d->xFunc, 0, 0,
                                        ml_state_null_release);
      }
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
/* The one exported symbol (the core is built -fvisibility=hidden). */
#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int sqlite3_mleval_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  const MlFuncDesc *d = 0;
  int rc, iFam = 0;
  SQLITE_EXTENSION_INIT2(pApi);
  make_twins();
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
  while( rc==SQLITE_OK && (d = next_record(&iFam, d))!=0 ){
    rc = register_function(db, d);
    if( rc!=SQLITE_OK && pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("mleval: cannot register %s(): %s", d->name,
                                   rc==SQLITE_INTERNAL ? "its flags do not place its signature's w"
                                                       : sqlite3_errmsg(db));
    }
  }
  return rc;
}
