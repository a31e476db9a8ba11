/*
** SPDX-License-Identifier: MIT
**
** fuzz_sql.c -- libFuzzer target: arbitrary SQL (meant to use mleval's
** functions) against an in-memory database with a small predictions table.
** svd_bench is left to fuzz_svd.c (its cost is in LAPACK, out of reach of
** the progress handler), so inputs naming it are skipped here.
*/
#include <strings.h>
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  int steps;
  sqlite3 *db;
  char *sql;
  size_t i;
  if( size>20000 ) return 0;
  sql = malloc(size+1);
  if( sql==0 ) return 0;
  memcpy(sql, data, size);
  sql[size] = 0;
  for(i=0; i+9<=size; i++){
    if( strncasecmp(sql+i, "svd_bench", 9)==0 ){ free(sql); return 0; }
  }
  db = fuzz_open(&steps);
  if( db ){
    sqlite3_exec(db, sql, 0, 0, 0);
    sqlite3_close(db);
  }
  free(sql);
  return 0;
}
