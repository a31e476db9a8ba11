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

#ifdef FUZZ_WITH_CALLS
/* Targets whose first two bytes pick one of several calls (fuzz_args.c,
** fuzz_state.c): byte 0 and byte 1's top two bits pick fuzzCall[], which
** the target's fuzz_build_calls() fills (fixed calls, then calls derived
** from the records) through fuzz_add_call().  replay.c replays every call
** (LLVMFuzzerCallCount, LLVMFuzzerSetCall); test_registry reads --list. */
#include <stdio.h>
#define FUZZ_MAX_CALLS 1024
static char *fuzzCall[FUZZ_MAX_CALLS];
static int nFuzzCall = 0;
static void fuzz_build_calls(sqlite3 *db);
#define FUZZ_CALL_OF(d) ((int)(d)[0] | (((int)(d)[1] >> 6) << 8))

/* Takes z (sqlite3_malloc'd) unless it repeats a call held already. */
static void fuzz_add_call(char *z){
  int k;
  for(k=0; z && k<nFuzzCall && strcmp(fuzzCall[k], z)!=0; k++){}
  if( z==0 || k<nFuzzCall ){ sqlite3_free(z); return; }
  if( nFuzzCall>=FUZZ_MAX_CALLS ) abort();   /* more calls than two bytes pick: widen the format */
  fuzzCall[nFuzzCall++] = z;
}

/* For replay.c: rewrites input buf (2 bytes or more) to pick call c. */
void LLVMFuzzerSetCall(uint8_t *buf, int c);
void LLVMFuzzerSetCall(uint8_t *buf, int c){
  buf[0] = (uint8_t)(c & 255);
  buf[1] = (uint8_t)((buf[1] & 0x3F) | ((c >> 8) << 6));
}

/* For replay.c and test_registry: how many calls the first two bytes pick
** from; with list set, prints them. */
int LLVMFuzzerCallCount(int list);
int LLVMFuzzerCallCount(int list){
  int steps, i;
  if( nFuzzCall==0 ){
    sqlite3 *db = fuzz_open(&steps);
    if( db==0 ) abort();
    fuzz_build_calls(db);
    sqlite3_close(db);
    if( nFuzzCall==0 ) abort();
  }
  for(i=0; list && i<nFuzzCall; i++) printf("%s\n", fuzzCall[i]);
  return nFuzzCall;
}
#endif /* FUZZ_WITH_CALLS */
#endif
