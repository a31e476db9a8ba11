/*
** SPDX-License-Identifier: MIT
**
** check_svd_interrupt.c -- sqlite3_interrupt() stops svd_bench promptly
** (SPEC "Rules": an interrupted statement stops promptly and leaks nothing).
**
** Loads the extension ($MLEVAL_LIB) and runs svd_bench queries that would
** take minutes (10000 timed calls per method); a second thread calls
** sqlite3_interrupt() after a fraction of a second.  The statement must end
** with SQLITE_INTERRUPT within the lag bound of the interrupt: svd_bench
** checks before every call, so the bound is 3 s plus 10 times the longest
** call of the same shape measured just before (the build machine is shared
** and its load varies; the uninterrupted run is printed, and is far
** longer).  OpenBLAS runs one thread (OPENBLAS_NUM_THREADS=1 unless set):
** its spinning threads make a loaded machine's call times erratic.  Memory must
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

#define LAG_BASE_MS 3000.0

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

static void interruptOne(sqlite3 *db, const char *zSql, int afterMs, double bound);

/* The longest call, and the median, of svd_bench(zArgs) with 0 warm-up and
** iters timed calls, over the three methods (ms). */
static void callTimes(sqlite3 *db, const char *zArgs, const char *zTail, int iters,
                      double *pMax, double *pMedian){
  char *zSql = sqlite3_mprintf("SELECT max(ms_max), sum(ms_median) FROM svd_bench(%s, 0, %d%s)",
                               zArgs, iters, zTail);
  sqlite3_stmt *st = 0;
  *pMax = *pMedian = -1;
  if( zSql && sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    *pMax = sqlite3_column_double(st, 0);
    *pMedian = sqlite3_column_double(st, 1);
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
}

/* Runs svd_bench(zArgs, 0, iters zTail) with an interrupt after afterMs;
** checks code, lag, memory. */
static void interruptShape(sqlite3 *db, const char *zArgs, const char *zTail, int iters, int afterMs){
  double callMax, callMedians;
  char zSql[256];
  callTimes(db, zArgs, zTail, 5, &callMax, &callMedians);
  snprintf(zSql, sizeof(zSql), "SELECT * FROM svd_bench(%s, 0, %d%s)", zArgs, iters, zTail);
  printf("svd_bench(%s): longest call %.1f ms; uninterrupted, %d calls per method would take about %.0f s\n",
         zArgs, callMax, iters, callMedians*iters/1e3);
  interruptOne(db, zSql, afterMs, LAG_BASE_MS + 10*callMax);
}

/* Runs zSql with an interrupt after afterMs; checks code, lag (when
** bound > 0), memory. */
static void interruptOne(sqlite3 *db, const char *zSql, int afterMs, double bound){
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
         zSql, afterMs, rc, sqlite3_errmsg(db), nRow, lag, tEnd - tStart);
  sqlite3_finalize(st);
  if( bound<=0 ) return;
  snprintf(what, sizeof(what), "%s: SQLITE_INTERRUPT, got %d", zSql, rc);
  check(rc==SQLITE_INTERRUPT, what);
  snprintf(what, sizeof(what), "%s: lag %.1f ms <= %.0f ms", zSql, lag, bound);
  check(lag <= bound, what);
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
  setenv("OPENBLAS_NUM_THREADS", "1", 0);     /* read when the CPU back end loads */
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
  interruptOne(db, "SELECT * FROM svd_bench(60, 60, NULL, 0, 10000)", 50, 0);
  interruptShape(db, "200, 200, NULL", "", 10000, 400);
  interruptShape(db, "160, 120, 20", ", 'cpu', 'float32', 3, 'decay'", 10000, 300);
  interruptShape(db, "120, 90, 8", "", 10000, 100);
  /* the connection still works */
  rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM svd_bench(8, 8, 2, 0, 1)", -1, &st, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_step(st);
  check(rc==SQLITE_ROW && sqlite3_column_int(st, 0)==3, "svd_bench runs again after the interrupts");
  sqlite3_finalize(st);
  sqlite3_close(db);
  printf("%s\n", nFail ? "FAILED" : "ok");
  return nFail ? 1 : 0;
}
