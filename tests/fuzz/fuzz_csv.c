/*
** SPDX-License-Identifier: MIT
**
** fuzz_csv.c -- libFuzzer target: arbitrary bytes as the CSV file that
** mleval-report imports (tools/report/csv.c, csv_import), into a fresh
** in-memory database.
**
** Any outcome but a crash, a sanitizer report or a leak is fine, provided
** the importer keeps its contract: SQLITE_OK with no message and a table t
** that can be read in full, or an error code with a message (a hostile file
** must fail with one, not with exit() or silence), and in either case no
** transaction left open.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <stdint.h>
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  sqlite3 *db = 0;
  sqlite3_stmt *st = 0;
  FILE *f;
  char *zErr = 0;
  int rc;
  if( size>(1<<20) ) return 0;
  /* glibc's fmemopen refuses a 0-byte buffer: an empty file is /dev/null */
  f = size ? fmemopen((void*)data, size, "rb") : fopen("/dev/null", "rb");
  if( f==0 ) return 0;
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ){ sqlite3_close(db); fclose(f); return 0; }
  sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 200);     /* keep a wide header cheap */
  rc = csv_import(db, "t", f, "fuzz.csv", &zErr);
  fclose(f);
  if( rc==SQLITE_OK ){
    if( zErr ) abort();                           /* success has no message */
    if( sqlite3_prepare_v2(db, "SELECT * FROM main.t", -1, &st, 0)!=SQLITE_OK ) abort();
    while( (rc = sqlite3_step(st))==SQLITE_ROW ){}
    if( rc!=SQLITE_DONE ) abort();
    sqlite3_finalize(st);
  }else{
    if( zErr==0 || zErr[0]==0 ) abort();          /* an error always says what */
  }
  if( !sqlite3_get_autocommit(db) ) abort();      /* no transaction left open */
  sqlite3_free(zErr);
  sqlite3_close(db);
  return 0;
}
