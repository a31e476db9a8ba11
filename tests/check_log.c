/*
** SPDX-License-Identifier: MIT
**
** check_log.c -- SPEC: a NULL result for an undefined metric "also emits
** sqlite3_log(SQLITE_WARNING, ...) naming the function and the reason".
** check_main.c installs log_capture() with SQLITE_CONFIG_LOG before SQLite
** initialises; each test runs a query and reads what was logged.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include "check_suites.h"

static char zLast[512];
static int iLastCode = 0, nLogged = 0;

void log_capture(void *arg, int code, const char *msg){
  (void)arg;
  iLastCode = code;
  nLogged++;
  snprintf(zLast, sizeof(zLast), "%s", msg);
}

/* Runs one query returning one value; that value must be NULL and the log
** must have received exactly zWant as a SQLITE_WARNING. */
static void expect_null_logged(const char *zSql, const char *zWant){
  sqlite3 *db;
  sqlite3_stmt *st;
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(db, zSql, -1, &st, 0), SQLITE_OK);
  nLogged = 0; zLast[0] = 0;
  ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
  ck_assert_int_eq(sqlite3_column_type(st, 0), SQLITE_NULL);
  ck_assert_int_eq(nLogged, 1);
  ck_assert_int_eq(iLastCode, SQLITE_WARNING);
  ck_assert_str_eq(zLast, zWant);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

START_TEST(test_one_class_logs_warning){
  expect_null_logged("SELECT pr_auc(1, 0.5)",
    "pr_auc(): only one class in the group (1 positives, 0 negatives); result is NULL");
  expect_null_logged("SELECT auroc(y, s) FROM (SELECT 0 AS y, 0.1 AS s UNION ALL SELECT 0, 0.2)",
    "auroc(): only one class in the group (0 positives, 2 negatives); result is NULL");
}
END_TEST

START_TEST(test_empty_group_logs_warning){
  expect_null_logged("SELECT brier(1, 0.5) WHERE 0", "brier(): no rows; result is NULL");
  expect_null_logged("SELECT ece_l2_kumar(1, 0.5)", "ece_l2_kumar(): 1 rows, fewer than bins = 15; result is NULL");
}
END_TEST

START_TEST(test_thin_window_logs_reason){
  expect_null_logged("SELECT strat_pr_auc(1, 0.5, 3)",
    "strat_pr_auc(): fewer than 10 positives and fewer than 10 negatives in the window [3, 3]; result is NULL");
  expect_null_logged("SELECT ordinal_auprc(y, s, s) FROM (SELECT 0 AS y, 0.1 AS s UNION ALL SELECT 1, 0.2)",
    "ordinal_auprc(): only one class in the cut y >= 2 (0 of 2 rows); result is NULL");
}
END_TEST

/* Issue 24's NULLs: each names its reason (docs/clinical.md). */
START_TEST(test_threshold_metrics_log_their_reason){
  const char *two = " FROM (SELECT 0 AS y, 0.1 AS s UNION ALL SELECT 1, 0.2)";
  char q[256];
  snprintf(q, sizeof(q), "SELECT mcc(y, s, 0.5)%s", two);
  expect_null_logged(q, "mcc(): undefined: a zero margin (tp 0, fp 0, tn 1, fn 1); result is NULL");
  expect_null_logged("SELECT f_beta(0, 0.1, 0.5, 2)",
    "f_beta(): undefined: no positives and none predicted (1 true negatives); result is NULL");
  expect_null_logged("SELECT ks(1, 0.5)", "ks(): only one class in the group (1 positives, 0 negatives); result is NULL");
  expect_null_logged("SELECT recall_at_k(0, 0.5, 1)", "recall_at_k(): no positives in the group (1 negatives); result is NULL");
  expect_null_logged("SELECT gains(0, 0.5, 1)", "gains(): no positives in the group (1 negatives); result is NULL");
  snprintf(q, sizeof(q), "SELECT gains(y, s)%s", two);
  expect_null_logged(q, "gains(): 2 rows, fewer than bins = 10; result is NULL");
  expect_null_logged("SELECT confusion_ci(1, 0.5, 0.5) WHERE 0", "confusion_ci(): no rows; result is NULL");
  expect_null_logged("SELECT decision_curve(y, p) FROM (SELECT NULL AS y, 0.5 AS p)",
    "decision_curve(): no rows; result is NULL");
}
END_TEST

START_TEST(test_defined_result_logs_nothing){
  sqlite3 *db;
  ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
  nLogged = 0;
  ck_assert_int_eq(sqlite3_exec(db, "SELECT pr_auc(y, s) FROM (SELECT 0 AS y, 0.1 AS s UNION ALL SELECT 1, 0.2)", 0, 0, 0), SQLITE_OK);
  ck_assert_int_eq(nLogged, 0);
  /* defined on one class: no warning */
  ck_assert_int_eq(sqlite3_exec(db, "SELECT f_beta(y, s, 0.5, 2), precision_at_k(y, s, 1), recall_at_k(y, s, 5),"
                                    " gains(y, s, 2), net_benefit(y, s, 0.5), decision_curve(y, s), confusion_ci(y, s, 0.5)"
                                    " FROM (SELECT 1 AS y, 0.1 AS s UNION ALL SELECT 1, 0.7)", 0, 0, 0), SQLITE_OK);
  ck_assert_int_eq(nLogged, 0);
  sqlite3_close(db);
}
END_TEST

Suite *suite_log(void){
  Suite *s = suite_create("sqlite3_log");
  TCase *tc = tcase_create("warnings");
  tcase_add_test(tc, test_one_class_logs_warning);
  tcase_add_test(tc, test_empty_group_logs_warning);
  tcase_add_test(tc, test_thin_window_logs_reason);
  tcase_add_test(tc, test_threshold_metrics_log_their_reason);
  tcase_add_test(tc, test_defined_result_logs_nothing);
  suite_add_tcase(s, tc);
  return s;
}
