/*
** sql.c -- the SQL helpers of mleval-report: prepare, step and exec that end
** the run on an error (exit 1, SQLite's message), and readers of one value.
** SPDX-License-Identifier: MIT
**
** Rules:
**   1. An error names what failed: a prepare error adds the statement, and
**      exec_cols names the option the user gave for the column at fault
**      ("--label y: ...", "--score s: ...").
**   2. A NULL column reads as NAN (col_double) or a NULL pointer (col_dup,
**      query_text); the text they return is malloc'd (free() it).
**   3. progress() writes a line on stderr only when it is a terminal (or
**      MLEVAL_REPORT_PROGRESS=1), from the run's second 2 on, at most one a
**      second: a long run says where it is, a quick one or a pipeline's
**      stderr holds errors alone.
**
** Cost: no more than the statements they run.
*/
#include "config.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "report.h"

sqlite3_stmt *prep(Report *r, const char *zSql){
  sqlite3_stmt *st = 0;
  if( sqlite3_prepare_v2(r->db, zSql, -1, &st, 0)!=SQLITE_OK ){
    die(1, "%s\n  in: %s", sqlite3_errmsg(r->db), zSql);
  }
  return st;
}

void step_done(Report *r, sqlite3_stmt *st, int rc){
  if( rc!=SQLITE_DONE && rc!=SQLITE_ROW ) die(1, "%s", sqlite3_errmsg(r->db));
  (void)st;
}

void exec(Report *r, const char *zSql){
  char *zErr = 0;
  if( sqlite3_exec(r->db, zSql, 0, 0, &zErr)!=SQLITE_OK ) die(1, "%s", zErr);
}

/* exec() of a query over the label column and one other column (zOpt zCol:
** "--score s1"), whose errors name the option the user gave: a function's
** message "auroc(): y must be 0 or 1, ..." is about the label, any other
** argument ("s", "p") is about zCol. */
void exec_cols(Report *r, const char *zSql, const char *zOpt, const char *zCol){
  char *zErr = 0;
  if( sqlite3_exec(r->db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    const char *arg = zErr ? strstr(zErr, "(): ") : 0;
    if( arg && strncmp(arg+4, "y ", 2)==0 ) die(1, "--label %s: %s", r->o.zLabel, zErr);
    if( arg && r->o.zWeight && strncmp(arg+4, "w ", 2)==0 ) die(1, "--weight %s: %s", r->o.zWeight, zErr);
    if( arg ) die(1, "%s %s: %s", zOpt, zCol, zErr);
    die(1, "--label %s, %s %s: %s", r->o.zLabel, zOpt, zCol, zErr ? zErr : "?");
  }
}

/* One SVG from a query returning one text value (NULL when nothing to draw). */
char *query_text(Report *r, const char *zSql){
  sqlite3_stmt *st = prep(r, zSql);
  char *z = 0;
  int rc = sqlite3_step(st);
  step_done(r, st, rc);
  if( rc==SQLITE_ROW && sqlite3_column_type(st, 0)!=SQLITE_NULL ){
    z = xstrdup((const char*)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  return z;
}

/* One double from a JSON text and a path. */
double query_double(Report *r, const char *zJson, const char *zPath){
  char *zSql = sqlite3_mprintf("SELECT %Q ->> %Q", zJson, zPath);
  sqlite3_stmt *st = prep(r, zSql);
  double d = NAN;
  if( sqlite3_step(st)==SQLITE_ROW ) d = col_double(st, 0);
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  return d;
}

double col_double(sqlite3_stmt *st, int i){
  return sqlite3_column_type(st, i)==SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}
const char *col_text(sqlite3_stmt *st, int i){
  return (const char*)sqlite3_column_text(st, i);
}
/* A copy of a text column (free() it), NULL when the column is NULL. */
char *col_dup(sqlite3_stmt *st, int i){
  if( sqlite3_column_type(st, i)==SQLITE_NULL ) return 0;
  return xstrdup(col_text(st, i));
}

/* ------------------------------------------------------------- progress */

static double now_s(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Progress lines (issue 46: a --by of 60 000 groups ran 600 s with no
** output) go to stderr when it is a terminal, or with
** MLEVAL_REPORT_PROGRESS=1 (a log file, the tests); never otherwise, so a
** run in a pipeline or a test keeps stderr for errors. */
void progress_start(Report *r){
  const char *z = getenv("MLEVAL_REPORT_PROGRESS");
  r->t0 = r->tLast = now_s();
  r->progress = z ? strcmp(z, "1")==0 : isatty(2);
}

/* The stage's line, once the run has taken 2 s and at most once a second
** (every: each call, as MLEVAL_REPORT_PROGRESS=1 asks). */
static void progress_line(Report *r, int every){
  double t = now_s();
  if( !every && (t - r->t0 < 2 || t - r->tLast < 1) ) return;
  r->tLast = t;
  fprintf(stderr, "mleval-report: [%.0f s] %s\n", t - r->t0, r->zStage);
  fflush(stderr);
}

/* SQLite's progress handler (every 10^6 instructions): a statement that
** runs long -- the scan's sort of a large table -- repeats its stage's
** line ("... (still running)"), at most once a second. */
static int progress_tick(void *p){
  Report *r = p;
  size_t n = strlen(r->zStage);
  if( n+16 < sizeof(r->zStage) && (n<16 || strcmp(r->zStage+n-16, " (still running)")!=0) ){
    memcpy(r->zStage+n, " (still running)", 17);
  }
  progress_line(r, 0);
  return 0;
}

/* "mleval-report: [12 s] scan: 5000 groups read" on stderr (rule 3). */
void progress(Report *r, const char *fmt, ...){
  va_list ap;
  if( !r->progress ) return;
  va_start(ap, fmt);
  vsnprintf(r->zStage, sizeof(r->zStage), fmt, ap);
  va_end(ap);
  if( r->db ) sqlite3_progress_handler(r->db, 1000000, progress_tick, r);
  progress_line(r, getenv("MLEVAL_REPORT_PROGRESS")!=0);
}

/* The groups of a column with fewer than 2 rows of a class, as a note. */
const char *too_few(double pos, double neg){
  if( pos<2 ) return "not enough positives";
  if( neg<2 ) return "not enough negatives";
  return 0;
}

/* The index of group g in r->aGroup (r->nGroup when none). */
int group_index(Report *r, const char *g){
  int i;
  for(i=0; i<r->nGroup && strcmp(r->aGroup[i].zName, g)!=0; i++){}
  return i;
}
