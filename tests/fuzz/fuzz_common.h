/*
** SPDX-License-Identifier: MIT
**
** fuzz_common.h -- what the three fuzz targets share: a database with mleval
** registered, bounded so that no input can run for long or grow without
** limit.  Used by the libFuzzer builds (make fuzz) and by the plain replay
** driver (replay.c) that make check runs over the committed corpus.
*/
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_mleval_init(sqlite3*, char**, const void*);
/* The core is linked in statically: svd_bench finds its back-end modules
** through this directory (make check: $MLEVAL_BACKEND_DIR = ext/.libs). */
void ml_svd_backend_dir(const char *zDir);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzzProgress(void *p){
  int *n = (int*)p;
  return ++*n > 20000;      /* x 100 VM steps: stop runaway queries */
}

/* A fresh in-memory database with the extension and a small table
** t(id, g, y, s, p, z, o).  The caller closes it. */
static sqlite3 *fuzz_open(int *pSteps){
  static int registered = 0;
  sqlite3 *db = 0;
  if( !registered ){
    sqlite3_initialize();
    sqlite3_auto_extension((void(*)(void))sqlite3_mleval_init);
    ml_svd_backend_dir(getenv("MLEVAL_BACKEND_DIR"));
    registered = 1;
  }
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ){ sqlite3_close(db); return 0; }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000);
  sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 100000);
  sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 50);
  *pSteps = 0;
  sqlite3_progress_handler(db, 100, fuzzProgress, pSteps);
  sqlite3_exec(db,
    "CREATE TABLE t(id INTEGER PRIMARY KEY, g INT, y INT, s REAL, p REAL, z REAL, o INT);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<60)"
    " INSERT INTO t SELECT i, i%3, (i*7)%5<2, ((i*37)%101)/101.0, ((i*53)%97)/97.0, (i*13)%17, (i*11)%3 FROM c;",
    0, 0, 0);
  return db;
}
#endif
