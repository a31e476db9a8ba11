/*
** SPDX-License-Identifier: MIT
**
** fuzz_args.c -- libFuzzer target: one mleval function, arbitrary argument
** values across many rows, as an aggregate, with GROUP BY and over a window.
**
** Byte 0 and the top two bits of byte 1 pick the call, byte 1's low six
** bits the window size; then each value is a type
** byte (NULL, small int, huge int, double from 8 bytes -- +-Inf, +-1e308,
** subnormals, -0.0 included --, text, blob) followed by its payload.
**
** The calls: those written below (the plots fed their JSON, fixed
** parameters in particular combinations), then, for every aggregate record
** (mleval_functions()), calls generated from it: its data arguments from
** the columns by role, with (1) its fewest arguments, (2) every parameter at
** its spec's example, (3) its first parameter from a column too (arbitrary
** values; reps stays at its example, since it sets the work).  So every
** function is reachable, and replay (make check) runs every call
** (LLVMFuzzerCallCount).  At most 1024 calls: byte 0 and byte 1's top
** two bits pick one (FUZZ_CALL_OF).
*/
#include <stdio.h>
#define FUZZ_WITH_CALLS
#include "fuzz_common.h"

static const char *azFixed[] = {
  "pr_auc(a, b)", "auroc(a, b)", "nap(a, b)", "youden_j(a, b)", "tpr_at_fpr(a, b, c)",
  "sens_at_spec(a, b, c)", "confusion(a, b, c)", "pr_curve(a, b)", "roc_curve(a, b)",
  "brier(a, b)", "log_loss(a, b)", "log_loss(a, b, c)", "ece(a, b)", "ece(a, b, c)",
  "reliability(a, b, c)", "ece_l2_debiased(a, b, c)", "ece_l2_kumar(a, b, c)",
  "strat_pr_auc(a, b, c)", "strat_gap(a, b, c, d, e)", "strat_report(a, b, c, d, e)",
  "auprc_ge(a, b, c)", "ordinal_auprc(a, b, c)", "ordinal_nap(a, b, c, d)",
  "ordinal_report(a, b, c, d, e)", "ordinal_auprc(a, b)",
  "mc_auroc(a, b)", "mc_auroc(a, b, c, d)", "mc_pr_auc(a, b, c, d, e)", "mc_log_loss(a, b)", "mc_brier(a, b, c, d)",
  "mc_auroc_w(a, b, c)", "mc_log_loss_w(a, b, c, d, e)", "mc_confusion(a, b)", "mc_confusion(a, b, c)",
  "mc_confusion_w(a, b, c)", "mc_top_k(a, b, c, d)", "ordinal_rps(a, b, c)", "ordinal_rps_w(a, b, c, d)",
  "mc_auroc_ci(a, b, c)", "mc_auroc_ci(a, b, 0.9, 10, c)", "mc_calibration(a, b, c)", "mc_calibration(a, b)", "mc_calibration(a, b, c, d)", "mc_calibration_w(a, b, c, d)",
  "ml_state_mc(a, b, c)", "ml_state_mc_w(a, b, c, d)", "mc_auroc_ci_w(a, b, c)", "mc_auroc_ci_w(a, b, c, 0.9, 10, d)",
  "mce(a, b)", "mce(a, b, c)", "ece_equal_mass(a, b, c)", "ece_l2(a, b, c)",
  "brier_decomposition(a, b, c)", "reliability(a, b, c, 'quantile')", "reliability(a, b, c, d)",
  "partial_auroc(a, b, c)", "operating_point(a, b, 'fpr', c)", "operating_point(a, b, 'max_f1')",
  "operating_point(a, b, d, c)", "operating_point(a, b, 'precision', c)",
  "precision_at_prior(a, b, c, d)", "precision_at_prior(a, b, 0.5, c)",
  /* the bootstrap ones with few replicates, so that a run stays short */
  "pr_auc_ci(a, b, 0.9, 10, c)", "nap_ci(a, b, c, 10)", "brier_ci(a, b, 0.5, 10)",
  "log_loss_ci(a, b, 0.9, 10, c)", "ece_ci(a, b, c, 0.9, 10)", "strat_gap_ci(a, b, c, 0.1, 0.9, 0.9, 10)",
  "auroc_ci(a, b, c)", "pr_auc_delta_ci(a, b, c)", "pr_auc_diff_delta(a, b, c, d)",
  "auroc_diff(a, b, c, d)", "pr_auc_diff_ci(a, b, c, 0.9, 10, d)",
  "ece_diff_ci(a, b, c, d, 0.9, 10)", "mean_ci(a, b)", "mean_ci(a)",
  /* plots: arbitrary values, and the JSON of each row's group */
  "plot_curves(a, b)", "plot_reliability(a, b, c)", "plot_bars(a, b, c, d, e)", "plot_lines(a, b, c, d)",
  "plot_curves(g, (SELECT pr_curve(a, b) FROM f AS f2 WHERE f2.g = f.g))",
  "plot_curves(g, (SELECT roc_curve(a, b) FROM f AS f2 WHERE f2.g = f.g), c)",
  "plot_reliability(g, (SELECT reliability(a, b, 4) FROM f AS f2 WHERE f2.g = f.g))",
  "plot_km(a, b)", "plot_km(g, (SELECT km(b, a) FROM f AS f2 WHERE f2.g = f.g), c)",
  "plot_reliability(g, (SELECT reliability(a, b, 4) FROM f AS f2 WHERE f2.g = f.g), NULL,"
  " (SELECT calibration_smooth(a, b) FROM f AS f2 WHERE f2.g = f.g))",
  "ml_state(a, b)", "ml_state(a, b, c)", "ml_state_ordinal(a, b, c)", "ml_merge(a)", "ml_state_w(a, b, d)",
  /* threshold and clinical-validation metrics (issue 24) */
  "mcc(a, b, c)", "f_beta(a, b, c, d)", "f_beta(a, b, 0.5, c)", "confusion_ci(a, b, c)",
  "confusion_ci(a, b, c, d, 'clopper-pearson')", "confusion_ci(a, b, 0.5, c, d)", "net_benefit(a, b, c)",
  "ks(a, b)", "precision_at_k(a, b, c)", "recall_at_k(a, b, 3)", "gains(a, b)", "gains(a, b, c)",
  "decision_curve(a, b)", "decision_curve(a, b, c, d, e)", "decision_curve(a, b, 0.1, 0.9, c)",
  /* validation.c: the summary's fits on arbitrary probabilities, the unpaired
  ** test with arbitrary groups, and its scalar form on arbitrary values */
  "calibration_summary(a, b)", "auroc_test(a, b, c)", "auroc_test(a, b, d % 2)", "auroc_test(a, b)",
  /* the lowess curve on arbitrary probabilities, weights and states (issue 36) */
  "calibration_smooth(a, b)", "calibration_smooth_w(a, b, d)", "calibration_smooth(a)",
  /* decision_curve with each point's bootstrap interval */
  "decision_curve_ci(a, b, 0.1, 0.5, 0.1, 0.9, 10)", "decision_curve_ci(a, b, c, d, 0.2, 0.9, 10, 1)",
  "decision_curve_ci_w(a, b, d, 0.1, 0.5, 0.1, 0.9, 10)",
};

/* The columns the rows carry, for each data argument's role. */
static const char *zRoleSql =
  "CASE r.value WHEN 'y' THEN 'a' WHEN 's' THEN 'b' WHEN 'p' THEN 'b' WHEN 'strat' THEN 'c'"
  " WHEN 's_a' THEN 'b' WHEN 's_b' THEN 'c' WHEN 'p_a' THEN 'b' WHEN 'p_b' THEN 'c' WHEN 'x' THEN 'b'"
  " WHEN 'g' THEN 'd' WHEN 'state' THEN 'a' WHEN 's_1' THEN 'b' WHEN '...' THEN 'c' WHEN 's_m' THEN 'd'"
  " WHEN 'w' THEN 'd' WHEN 'group' THEN 'c' WHEN 's_0' THEN 'b' WHEN 's_k-1' THEN 'c' WHEN 'p_0' THEN 'b' WHEN 'p_k-1' THEN 'c'"
  " WHEN 'time' THEN 'b' WHEN 'event' THEN 'a' WHEN 'risk' THEN 'c' WHEN 'horizon' THEN 'd'"
  " WHEN 'risk_a' THEN 'c' WHEN 'risk_b' THEN 'd' WHEN 'id' THEN 'd' WHEN 'class' THEN 'c'"
  " ELSE NULL END";

/* Fills fuzzCall (fuzz_common.h): the fixed calls, then three per aggregate record. */
static void fuzz_build_calls(sqlite3 *db){
  char *zSql;
  sqlite3_stmt *st = 0;
  size_t i;
  for(i=0; i<sizeof(azFixed)/sizeof(azFixed[0]); i++) fuzz_add_call(sqlite3_mprintf("%s", azFixed[i]));
  zSql = sqlite3_mprintf(
    "WITH f AS (SELECT value AS v FROM json_each(mleval_functions())"
    "            WHERE value->>'family' NOT IN ('scalar', 'plot')),"
    " d AS (SELECT v, (SELECT group_concat(%s, ', ') FROM json_each(v->'data') AS r) AS data FROM f),"
    " k AS (SELECT 0 AS variant UNION ALL SELECT 1 UNION ALL SELECT 2)"
    " SELECT v->>'name', data,"
    "   (SELECT group_concat(CASE WHEN variant = 2 AND p.key = 0 AND p.value->>'name' <> 'reps'"
    "                             THEN 'e' ELSE p.value->>'example' END, ', ')"
    "      FROM json_each(v->'params') AS p"
    "      WHERE variant > 0 OR p.key < (v->>'min_args') - json_array_length(v->'data'))"
    " FROM d, k WHERE variant = 0 OR json_array_length(v->'params') > 0", zRoleSql);
  if( zSql && sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK ){
    while( sqlite3_step(st)==SQLITE_ROW ){
      const char *zParams = (const char*)sqlite3_column_text(st, 2);
      char *z = sqlite3_mprintf("%s(%s%s%s)", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
                                zParams ? ", " : "", zParams ? zParams : "");
      fuzz_add_call(z);                   /* a variant equal to another is dropped */
    }
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  if( nFuzzCall<=(int)(sizeof(azFixed)/sizeof(azFixed[0])) ) abort();   /* the records gave no call */
}

/* Binds one value from the input; returns bytes used. */
static size_t bind_value(sqlite3_stmt *st, int i, const uint8_t *d, size_t n){
  double x;
  int64_t v;
  if( n==0 ){ sqlite3_bind_null(st, i); return 0; }
  switch( d[0] % 8 ){
    case 0: sqlite3_bind_null(st, i); return 1;
    case 1: case 2: sqlite3_bind_int(st, i, (int)(d[0]/8) % 4 - 1); return 1;   /* -1..2 */
    case 3:
      if( n<9 ){ sqlite3_bind_int64(st, i, 0); return n; }
      memcpy(&v, d+1, 8); sqlite3_bind_int64(st, i, v); return 9;
    case 4: case 5:
      if( n<9 ){ sqlite3_bind_double(st, i, (d[0]/8) / 31.0); return n; }
      memcpy(&x, d+1, 8); sqlite3_bind_double(st, i, x); return 9;
    case 6: {
      size_t len;
      if( n<2 ){ sqlite3_bind_text(st, i, "", 0, SQLITE_STATIC); return n; }
      len = d[1] % 8;
      if( 2+len>n ) len = n-2;
      sqlite3_bind_text(st, i, (const char*)d+2, (int)len, SQLITE_TRANSIENT);
      return 2+len;
    }
    default:
      sqlite3_bind_blob(st, i, d, n>4 ? 4 : (int)n, SQLITE_TRANSIENT);
      return n>4 ? 4 : n;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  int steps, row, col;
  sqlite3 *db;
  sqlite3_stmt *st = 0;
  size_t at = 2;
  const char *call;
  char q[512];
  if( size<2 || size>4096 ) return 0;
  call = fuzzCall[FUZZ_CALL_OF(data) % LLVMFuzzerCallCount(0)];
  db = fuzz_open(&steps);
  if( db==0 ) return 0;
  sqlite3_exec(db, "CREATE TABLE f(k INTEGER PRIMARY KEY, g, a, b, c, d, e)", 0, 0, 0);
  if( sqlite3_prepare_v2(db, "INSERT INTO f(g, a, b, c, d, e) VALUES (?, ?, ?, ?, ?, ?)", -1, &st, 0)==SQLITE_OK ){
    for(row=0; row<200 && at<size; row++){
      sqlite3_bind_int(st, 1, row % 3);
      for(col=2; col<=6; col++) at += bind_value(st, col, data+at, at<size ? size-at : 0);
      sqlite3_step(st);
      sqlite3_reset(st);
    }
  }
  sqlite3_finalize(st);
  snprintf(q, sizeof(q), "SELECT %s FROM f", call);
  sqlite3_exec(db, q, 0, 0, 0);
  snprintf(q, sizeof(q), "SELECT g, %s FROM f GROUP BY g", call);
  sqlite3_exec(db, q, 0, 0, 0);
  snprintf(q, sizeof(q), "SELECT %s OVER (ORDER BY k ROWS BETWEEN %d PRECEDING AND %d FOLLOWING) FROM f",
           call, data[1] % 16, (data[1] / 16) % 4);
  sqlite3_exec(db, q, 0, 0, 0);
  snprintf(q, sizeof(q), "SELECT %s OVER (PARTITION BY g ORDER BY a RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM f", call);
  sqlite3_exec(db, q, 0, 0, 0);
  sqlite3_close(db);
  return 0;
}
