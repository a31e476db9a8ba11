/*
** SPDX-License-Identifier: MIT
**
** floor.c -- the floor every mleval aggregate is measured against (make bench).
**
** A separate loadable module, built only for benchmarking and never part of
** mleval.so.  It registers aggregates that do what any aggregate of two or
** three columns must do and nothing more:
**
**   floor2(y, s)        reads y (type + int64) and s (type + double) through
**                       sqlite3_value_*, adds them to a running total
**   floor3(y, s, z)     the same with a third column
**   floor4(y, a, b, c)  the same with four columns (the multiclass family's
**                       wide row at k = 3: y and three class scores)
**   floorn(y, s_0, ..., s_k-1)  the same with any number of columns (the
**                       multiclass wide row at any k)
**   floor_text(y, t)    reads y, and t's type, text and length in bytes
**                       (the multiclass JSON form's row: y and one JSON
**                       array as text), adds the length to the total
**   floor2_keep(y, s)   floor2, and also appends the 8-byte value of s to a
**                       growing buffer (what a sorted metric must keep)
**
** Rules:
**   1. Each returns the total of its arguments (so the work cannot be
**      optimised away); floor2_keep returns the number of values it kept.
**   2. They are window functions too (xInverse subtracts), so a sliding
**      frame's floor can be measured the same way.
**
** Cost: O(1) per row; floor2_keep keeps 8 bytes per row.
*/
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

typedef struct FloorAgg { double sum; sqlite3_int64 n; } FloorAgg;
typedef struct KeepAgg { double *a; sqlite3_int64 n, cap; } KeepAgg;

/* Reads argv[0..argc-1] the way a metric does: a type look-up, then the
** integer label and the double columns. */
static double floor_row(int argc, sqlite3_value **argv){
  double t = 0.0;
  int i;
  if( sqlite3_value_type(argv[0])==SQLITE_INTEGER ) t += (double)sqlite3_value_int64(argv[0]);
  for(i=1; i<argc; i++){
    if( sqlite3_value_type(argv[i])!=SQLITE_NULL ) t += sqlite3_value_double(argv[i]);
  }
  return t;
}

/* Reads y and a text argument the way the JSON form must before parsing
** it: a type look-up, the text and its length. */
static double floor_row_text(int argc, sqlite3_value **argv){
  double t = 0.0;
  (void)argc;
  if( sqlite3_value_type(argv[0])==SQLITE_INTEGER ) t += (double)sqlite3_value_int64(argv[0]);
  if( sqlite3_value_type(argv[1])==SQLITE_TEXT && sqlite3_value_text(argv[1])!=0 ){
    t += (double)sqlite3_value_bytes(argv[1]);
  }
  return t;
}

/* SQL function: floor2(y, s), floor3(y, s, z), floor4(y, a, b, c),
** floorn(y, ...), floor_text(y, t) -- xStep */
static void floor_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  FloorAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  p->sum += floor_row(argc, argv);
  p->n++;
}
static void floor_text_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  FloorAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  p->sum += floor_row_text(argc, argv);
  p->n++;
}
static void floor_text_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  FloorAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 ) return;
  p->sum -= floor_row_text(argc, argv);
  p->n--;
}
static void floor_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  FloorAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 ) return;
  p->sum -= floor_row(argc, argv);
  p->n--;
}
static void floor_value(sqlite3_context *ctx){
  FloorAgg *p = sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_double(ctx, p ? p->sum : 0.0);
}

/* SQL function: floor2_keep(y, s) -- xStep */
static void keep_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  KeepAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  (void)argc;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( sqlite3_value_type(argv[0])!=SQLITE_INTEGER || sqlite3_value_type(argv[1])==SQLITE_NULL ) return;
  if( p->n>=p->cap ){
    sqlite3_int64 nNew = p->cap ? p->cap + p->cap/2 : 64;
    double *a = sqlite3_realloc64(p->a, (sqlite3_uint64)nNew*sizeof(double));
    if( a==0 ){ sqlite3_free(p->a); memset(p, 0, sizeof(*p)); sqlite3_result_error_nomem(ctx); return; }
    p->a = a;
    p->cap = nNew;
  }
  p->a[p->n++] = sqlite3_value_double(argv[1]) + (double)sqlite3_value_int64(argv[0]);
}
static void keep_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  KeepAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  (void)argc; (void)argv;
  if( p && p->n>0 ) p->n--;
}
static void keep_value(sqlite3_context *ctx){
  KeepAgg *p = sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_int64(ctx, p ? p->n : 0);
}
static void keep_final(sqlite3_context *ctx){
  KeepAgg *p = sqlite3_aggregate_context(ctx, 0);
  keep_value(ctx);
  if( p ) sqlite3_free(p->a);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_floor_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  /* keep: 0 the floor, 1 floor2_keep, 2 floor_text */
  static const struct { const char *name; int nArg; int keep; } aFn[] = {
    {"floor2", 2, 0}, {"floor3", 3, 0}, {"floor4", 4, 0}, {"floorn", -1, 0}, {"floor2_keep", 2, 1},
    {"floor_text", 2, 2},
  };
  int i, rc = SQLITE_OK;
  SQLITE_EXTENSION_INIT2(pApi);
  for(i=0; rc==SQLITE_OK && i<(int)(sizeof(aFn)/sizeof(aFn[0])); i++){
    rc = sqlite3_create_window_function(db, aFn[i].name, aFn[i].nArg,
           SQLITE_UTF8|SQLITE_DETERMINISTIC, 0,
           aFn[i].keep==1 ? keep_step : aFn[i].keep==2 ? floor_text_step : floor_step,
           aFn[i].keep==1 ? keep_final : floor_value,
           aFn[i].keep==1 ? keep_value : floor_value,
           aFn[i].keep==1 ? keep_inverse : aFn[i].keep==2 ? floor_text_inverse : floor_inverse, 0);
  }
  if( rc!=SQLITE_OK && pzErrMsg ) *pzErrMsg = sqlite3_mprintf("floor: cannot register %s", aFn[i-1].name);
  return rc;
}
