/* check_suites.h -- the Check suites of the core; check_main.c runs them all.
** SPDX-License-Identifier: MIT */
#ifndef CHECK_SUITES_H
#define CHECK_SUITES_H
#include <check.h>
Suite *suite_sort(void);
Suite *suite_sweep(void);
Suite *suite_rankset(void);
Suite *suite_quantile(void);
Suite *suite_json(void);
Suite *suite_log(void);
Suite *suite_xsum(void);
Suite *suite_boot(void);
Suite *suite_dist(void);
Suite *suite_logit(void);
Suite *suite_beta(void);
Suite *suite_conc(void);
Suite *suite_surv(void);
Suite *suite_surv2(void);
/* SQLITE_CONFIG_LOG callback of check_log.c, installed by check_main.c. */
void log_capture(void *arg, int code, const char *msg);
/* A deterministic generator for test data (xorshift64*). */
double test_rand01(void);
void test_seed(unsigned long long s);
#endif
