/*
** SPDX-License-Identifier: MIT
**
** check_main.c -- runs every Check suite of mleval's core (make check).
**
** The core allocates through SQLite (sqlite3_malloc64 via the extension API
** pointer), so the extension is registered as an auto-extension and one
** in-memory database is opened first: that sets the API pointer exactly as
** .load would.
*/
#include <sqlite3.h>
#include <stdlib.h>
#include "check_suites.h"

int sqlite3_mleval_init(sqlite3*, char**, const void*);
/* The core is linked in statically: svd_bench finds its back-end modules
** through this directory (make check: $MLEVAL_BACKEND_DIR = ext/.libs). */
void ml_svd_backend_dir(const char *zDir);

static unsigned long long rngState = 88172645463325252ULL;
void test_seed(unsigned long long s){ rngState = s ? s : 88172645463325252ULL; }
double test_rand01(void){
  rngState ^= rngState >> 12; rngState ^= rngState << 25; rngState ^= rngState >> 27;
  return (double)((rngState * 2685821657736338717ULL) >> 11) * (1.0/9007199254740992.0);
}

int main(void){
  sqlite3 *db;
  SRunner *sr;
  int nFail;
  sqlite3_config(SQLITE_CONFIG_LOG, log_capture, (void*)0);
  sqlite3_auto_extension((void(*)(void))sqlite3_mleval_init);
  ml_svd_backend_dir(getenv("MLEVAL_BACKEND_DIR"));
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) return 99;
  sr = srunner_create(suite_sort());
  srunner_add_suite(sr, suite_sweep());
  srunner_add_suite(sr, suite_rankset());
  srunner_add_suite(sr, suite_quantile());
  srunner_add_suite(sr, suite_json());
  srunner_add_suite(sr, suite_log());
  srunner_add_suite(sr, suite_xsum());
  srunner_add_suite(sr, suite_boot());
  srunner_add_suite(sr, suite_dist());
  srunner_add_suite(sr, suite_logit());
  srunner_add_suite(sr, suite_beta());
  srunner_add_suite(sr, suite_conc());
  srunner_add_suite(sr, suite_surv());
  srunner_add_suite(sr, suite_surv2());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  nFail = srunner_ntests_failed(sr);
  srunner_free(sr);
  sqlite3_close(db);
  return nFail ? EXIT_FAILURE : EXIT_SUCCESS;
}
