/*
** SPDX-License-Identifier: MIT
**
** check_svd_interrupt.c -- sqlite3_interrupt() stops svd_bench promptly
** (SPEC "Rules": an interrupted statement stops promptly and leaks nothing).
**
** Loads the extension ($MLEVAL_LIB) and runs an svd_bench that would take
** minutes (500 x 500, 10000 timed calls per method); a second thread calls
** sqlite3_interrupt() after 0.4 s.  The statement must end with
** SQLITE_INTERRUPT within LAG_BOUND_MS of the interrupt (svd_bench checks
** before every call, and one call takes tens of milliseconds), memory must
** be back where it was (sqlite3_memory_used, once a first interrupt has
** given the connection its error message), and the connection must still
** answer an svd_bench query.  The same for float32 and the decay spectrum,
** and with the interrupt arriving later (in the randomized method).
** Prints the measured lags.  Exit 0 pass, 1 fail, 77 skip (no CPU back end),
** 99 setup error.
**
** Measurement only: MLEVAL_INTERRUPT_QUERY=... MLEVAL_INTERRUPT_AFTER_MS=...
** replace the query and the delay (bench/RESULTS.md's before/after).
*/
#include <sqlite3.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LAG_BOUND_MS 3000.0   /* generous: one call is ~50 ms; the run would take minutes */

typedef struct Interrupter {
  sqlite3 *db;
  int afterMs;
  double tInterrupt;          /* when sqlite3_interrupt was called */
} Interrupter;

static double nowMs(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec*1e3 + t.tv_nsec/1e6;
}

static void *interrupter(void *p){
  Interrupter *it = (Interrupter*)p;
  struct timespec d = { it->afterMs/1000, (long)(it->afterMs%1000)*1000000L };
  nanosleep(&d, 0);
  it->tInterrupt = nowMs();
  sqlite3_interrupt(it->db);
  return 0;
}

static int nFail = 0;

static void check(int ok, const char *what){
  if( !ok ){ nFail++; printf("FAIL %s\n", what); }
}

/* Runs zSql with an interrupt after afterMs; checks code, lag, memory. */
static void interruptOne(sqlite3 *db, const char *zSql, int afterMs, int enforce){
  Interrupter it = { db, afterMs, 0 };
  pthread_t th;
  sqlite3_stmt *st = 0;
  sqlite3_int64 mem0 = sqlite3_memory_used();
  double tStart = nowMs(), tEnd, lag;
  int rc, nRow = 0;
  char what[512];
  rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  if( rc!=SQLITE_OK ){ printf("FAIL prepare %s: %s\n", zSql, sqlite3_errmsg(db)); nFail++; return; }
  pthread_create(&th, 0, interrupter, &it);
  while( (rc = sqlite3_step(st))==SQLITE_ROW ) nRow++;
  tEnd = nowMs();
  pthread_join(th, 0);
  lag = tEnd - it.tInterrupt;
  printf("%s\n  interrupt after %d ms: rc %d (%s), %d rows, lag %.1f ms, total %.1f ms\n",
         zSql, afterMs, rc, sqlite3_errstr(rc), nRow, lag, tEnd - tStart);
  sqlite3_finalize(st);
  if( !enforce ) return;
  snprintf(what, sizeof(what), "%s: SQLITE_INTERRUPT, got %d", zSql, rc);
  check(rc==SQLITE_INTERRUPT, what);
  snprintf(what, sizeof(what), "%s: lag %.1f ms <= %.0f ms", zSql, lag, LAG_BOUND_MS);
  check(lag <= LAG_BOUND_MS, what);
  snprintf(what, sizeof(what), "%s: memory back to %lld, got %lld", zSql,
           (long long)mem0, (long long)sqlite3_memory_used());
  check(sqlite3_memory_used()==mem0, what);
}

int main(void){
  const char *lib = getenv("MLEVAL_LIB");
  const char *zQuery = getenv("MLEVAL_INTERRUPT_QUERY");
  const char *zAfter = getenv("MLEVAL_INTERRUPT_AFTER_MS");
  sqlite3 *db;
  sqlite3_stmt *st;
  char *err = 0;
  int rc;
  if( lib==0 ) lib = "ext/.libs/mleval";
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) return 99;
  sqlite3_enable_load_extension(db, 1);
  if( sqlite3_load_extension(db, lib, 0, &err)!=SQLITE_OK ){
    printf("cannot load %s: %s\n", lib, err);
    return 99;
  }
  /* a first query loads the back end; a build without one skips */
  rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM svd_bench(8, 8, 2, 0, 1)", -1, &st, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_step(st);
  if( rc!=SQLITE_ROW ){
    printf("skipped: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return strstr(sqlite3_errmsg(db), "no CPU back end") ? 77 : 99;
  }
  sqlite3_finalize(st);
  if( zQuery ){
    interruptOne(db, zQuery, zAfter ? atoi(zAfter) : 1000, 0);
    sqlite3_close(db);
    return 0;
  }
  /* one interrupt first, unchecked: the connection keeps its last error
  ** message ("interrupted"), which is not a leak */
  interruptOne(db, "SELECT * FROM svd_bench(200, 200, NULL, 0, 10000)", 50, 0);
  interruptOne(db, "SELECT * FROM svd_bench(500, 500, NULL, 0, 10000)", 400, 1);
  interruptOne(db, "SELECT * FROM svd_bench(400, 300, 20, 2, 10000, 'cpu', 'float32', 3, 'decay')", 300, 1);
  /* a smaller matrix: many short calls */
  interruptOne(db, "SELECT * FROM svd_bench(300, 200, 10, 0, 3000)", 100, 1);
  /* the connection still works */
  rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM svd_bench(8, 8, 2, 0, 1)", -1, &st, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_step(st);
  check(rc==SQLITE_ROW && sqlite3_column_int(st, 0)==3, "svd_bench runs again after the interrupts");
  sqlite3_finalize(st);
  sqlite3_close(db);
  printf("%s\n", nFail ? "FAILED" : "ok");
  return nFail ? 1 : 0;
}
