/*
** input.c -- where mleval-report's rows come from: DB opened read-only as a
** SQLite database or imported from a CSV file (csv.c) into an in-memory
** one, the mleval extension loaded into it, the named columns checked.
** SPDX-License-Identifier: MIT
**
** Rules:
**   1. DB is a database when its first 16 bytes are SQLite's header, else a
**      CSV file.  A 0-byte file is an empty database (what `sqlite3 fresh.db
**      "select 1"` leaves) unless its name ends in .csv: either way exit 1,
**      with the message for what its name says it is.
**   2. A database is opened read-only and read once at once, so that a
**      locked or corrupt one is "cannot read DB: database is locked" / "file
**      is not a database"; the input is never written.
**   3. The extension is loaded from $MLEVAL_LIB, else next to the program in
**      the build tree (../ext/.libs/mleval) or an install moved as a whole
**      (../lib/mleval), else from MLEVAL_EXTDIR.
**   4. TABLE must exist in main; each column an option names must be one of
**      its columns (case-insensitive, as SQL), else the message names the
**      option and lists the table's columns.
**
** Cost: a database is not read here beyond its schema; a CSV file is read
** once and held in memory while it is inserted (csv.c).
*/
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report.h"

/* DB as a database (by its header) or a CSV file.  A 0-byte file is
** either an empty database (what `sqlite3 fresh.db "select 1"` leaves) or
** an empty CSV file: its name decides which the message says.  A database
** is read once here, so that a locked or corrupt one says so at once. */
void open_db(Report *r){
  FILE *f = fopen(r->o.zDb, "rb");
  char head[16];
  size_t nHead;
  int isDb;
  if( f==0 ) die(1, "cannot open %s: %s", r->o.zDb, strerror(errno));
  nHead = fread(head, 1, 16, f);
  if( ferror(f) ) die(1, "cannot read %s: %s", r->o.zDb, strerror(errno));
  fclose(f);
  isDb = nHead==16 && memcmp(head, "SQLite format 3", 16)==0;
  if( nHead==0 ){
    size_t n = strlen(r->o.zDb);
    if( n<4 || sqlite3_stricmp(r->o.zDb+n-4, ".csv")!=0 ){
      die(1, "%s: empty file: not a database or an empty one (a CSV file needs a header row)", r->o.zDb);
    }
  }
  if( isDb ){
    sqlite3_stmt *st = 0;
    int rc;
    if( sqlite3_open_v2(r->o.zDb, &r->db, SQLITE_OPEN_READONLY, 0)!=SQLITE_OK ){
      die(1, "cannot open %s: %s", r->o.zDb, sqlite3_errmsg(r->db));
    }
    rc = sqlite3_prepare_v2(r->db, "SELECT count(*) FROM main.sqlite_schema", -1, &st, 0);
    if( rc==SQLITE_OK ) rc = sqlite3_step(st);
    if( rc!=SQLITE_ROW ) die(1, "cannot read %s: %s", r->o.zDb, sqlite3_errmsg(r->db));
    sqlite3_finalize(st);
  }else{
    char *zErr = 0;
    if( sqlite3_open(":memory:", &r->db)!=SQLITE_OK ) die(1, "cannot open an in-memory database");
    f = fopen(r->o.zDb, "rb");
    if( f==0 ) die(1, "cannot open %s: %s", r->o.zDb, strerror(errno));
    if( csv_import(r->db, r->o.zTable, f, r->o.zDb, &zErr)!=SQLITE_OK ) die(1, "%s", zErr ? zErr : "out of memory");
    fclose(f);
  }
}

static int try_load(Report *r, const char *zPath, char **pzErr){
  char *zErr = 0;
  if( sqlite3_load_extension(r->db, zPath, 0, &zErr)==SQLITE_OK ) return 1;
  if( pzErr && *pzErr==0 ) *pzErr = sqlite3_mprintf("%s: %s", zPath, zErr ? zErr : "?");
  sqlite3_free(zErr);
  return 0;
}

void load_mleval(Report *r){
  char zExe[PATH_MAX], *zErr = 0;
  ssize_t n;
  sqlite3_enable_load_extension(r->db, 1);
  if( getenv("MLEVAL_LIB") && getenv("MLEVAL_LIB")[0] ){
    if( try_load(r, getenv("MLEVAL_LIB"), &zErr) ) goto loaded;
    die(1, "cannot load the mleval extension from MLEVAL_LIB=%s", zErr);
  }
  n = readlink("/proc/self/exe", zExe, sizeof(zExe)-1);
  if( n>0 ){
    char *slash, *zTry;
    zExe[n] = 0;
    slash = strrchr(zExe, '/');
    if( slash ){
      *slash = 0;
      static const char *const azRel[] = {
        "%s/../ext/.libs/mleval",     /* the build tree: tools/mleval-report */
        "%s/../lib/mleval",           /* an install moved as a whole */
      };
      size_t j;
      for(j=0; j<sizeof(azRel)/sizeof(azRel[0]); j++){
        char *zSo;
        int ok;
        zTry = sqlite3_mprintf(azRel[j], zExe);
        zSo = sqlite3_mprintf("%s.so", zTry);
        ok = zTry && zSo && access(zSo, R_OK)==0 && try_load(r, zTry, &zErr);
        sqlite3_free(zSo);
        sqlite3_free(zTry);
        if( ok ) goto loaded;
      }
    }
  }
  if( try_load(r, MLEVAL_EXTDIR "/mleval", &zErr) ) goto loaded;
  die(1, "cannot load the mleval extension (%s); set MLEVAL_LIB to its path", zErr ? zErr : "not found");
loaded:
  sqlite3_free(zErr);
  sqlite3_enable_load_extension(r->db, 0);
}

void check_columns(Report *r){
  const char *azCol[MAX_SCORES+MAX_FEATURES+6];
  const char *azRole[MAX_SCORES+MAX_FEATURES+6];
  int n = 0, i;
  sqlite3_stmt *st;
  int found = 0;
  st = prep(r, "SELECT name FROM pragma_table_info(?1, 'main')");
  sqlite3_bind_text(st, 1, r->o.zTable, -1, SQLITE_STATIC);
  while( sqlite3_step(st)==SQLITE_ROW ) found++;
  sqlite3_finalize(st);
  if( found==0 ) die(1, "no table '%s' in %s", r->o.zTable, r->o.zDb);
  if( r->o.zLabel ){ azCol[n] = r->o.zLabel; azRole[n++] = "--label"; }
  for(i=0; i<r->o.nScore; i++){ azCol[n] = r->o.azScore[i]; azRole[n++] = "--score"; }
  if( r->o.zProb ){ azCol[n] = r->o.zProb; azRole[n++] = "--prob"; }
  if( r->o.zWeight ){ azCol[n] = r->o.zWeight; azRole[n++] = "--weight"; }
  if( r->o.zBy ){ azCol[n] = r->o.zBy; azRole[n++] = "--by"; }
  if( r->o.zTime ){ azCol[n] = r->o.zTime; azRole[n++] = "--time"; }
  if( r->o.zEvent ){ azCol[n] = r->o.zEvent; azRole[n++] = "--event"; }
  for(i=0; i<r->o.nFeature; i++){ azCol[n] = r->o.azFeature[i]; azRole[n++] = "--feature"; }
  for(i=0; i<n; i++){
    int ok = 0;
    sqlite3_str *cols = sqlite3_str_new(r->db);
    st = prep(r, "SELECT name FROM pragma_table_info(?1, 'main')");
    sqlite3_bind_text(st, 1, r->o.zTable, -1, SQLITE_STATIC);
    while( sqlite3_step(st)==SQLITE_ROW ){
      const char *z = (const char*)sqlite3_column_text(st, 0);
      if( sqlite3_stricmp(z, azCol[i])==0 ) ok = 1;
      sqlite3_str_appendf(cols, "%s%s", sqlite3_str_length(cols) ? ", " : "", z);
    }
    sqlite3_finalize(st);
    if( !ok ){
      char *z = sqlite3_str_finish(cols);
      die(1, "%s %s: no such column in %s (its columns: %s)", azRole[i], azCol[i], r->o.zTable, z);
    }
    sqlite3_free(sqlite3_str_finish(cols));
  }
}
