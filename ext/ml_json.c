/*
** SPDX-License-Identifier: MIT
**
** ml_json.c -- the one JSON writer every JSON-returning function uses
** (confusion, pr_curve, roc_curve, reliability, strat_report, ordinal_report,
** mleval_build_info).
**
** Rules:
**   1. Commas are placed by the writer: callers only open, close, and emit
**      keys and values.
**   2. Doubles are written in the shortest of %.15g, %.16g, %.17g that reads
**      back as the same double; NaN and +-Inf are written as null (JSON has
**      no such numbers, and SQLite's json functions reject them).
**   3. Strings are escaped per RFC 8259: quote, backslash, and every control
**      character below 0x20.
**   4. Out of memory: the buffer is freed, oom is set, and every later call
**      is a no-op; ml_json_finish() then returns NULL.
**
** Cost: amortised O(1) per byte, the buffer grows by doubling.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ml_core.h"

void ml_json_init(MlJson *j){
  memset(j, 0, sizeof(*j));
  j->first[0] = 1;
}

void ml_json_free(MlJson *j){
  ml_free(j->z);
  ml_json_init(j);
}

static void json_append(MlJson *j, const char *z, size_t n){
  if( j->oom ) return;
  if( j->n + n + 1 > j->cap ){
    size_t nNew = j->cap ? j->cap*2 : 256;
    char *p;
    while( nNew < j->n + n + 1 ) nNew *= 2;
    p = ml_realloc(j->z, nNew);
    if( p==0 ){
      ml_free(j->z);
      j->z = 0; j->n = j->cap = 0; j->oom = 1;
      return;
    }
    j->z = p; j->cap = nNew;
  }
  memcpy(j->z + j->n, z, n);
  j->n += n;
  j->z[j->n] = 0;
}

/* A value or key is about to be written at the current level. */
static void json_sep(MlJson *j){
  if( j->first[j->depth] ) j->first[j->depth] = 0;
  else json_append(j, ",", 1);
}

char *ml_json_finish(MlJson *j, size_t *pn){
  char *z = j->oom ? 0 : j->z;
  if( z==0 && !j->oom ){      /* nothing written: empty text */
    json_append(j, "", 0);
    z = j->oom ? 0 : j->z;
  }
  if( pn ) *pn = z ? j->n : 0;
  j->z = 0;
  ml_json_init(j);
  return z;
}

static void json_open(MlJson *j, const char *c){
  json_sep(j);
  json_append(j, c, 1);
  if( j->depth < (int)sizeof(j->first)-1 ) j->depth++;
  j->first[j->depth] = 1;
}
static void json_close(MlJson *j, const char *c){
  if( j->depth>0 ) j->depth--;
  json_append(j, c, 1);
}
void ml_json_begin_object(MlJson *j){ json_open(j, "{"); }
void ml_json_end_object(MlJson *j){ json_close(j, "}"); }
void ml_json_begin_array(MlJson *j){ json_open(j, "["); }
void ml_json_end_array(MlJson *j){ json_close(j, "]"); }

static void json_quoted(MlJson *j, const char *s){
  static const char hex[] = "0123456789abcdef";
  const char *run = s;
  json_append(j, "\"", 1);
  for(; *s; s++){
    unsigned char c = (unsigned char)*s;
    char esc[7];
    int ne = 0;
    if( c=='"' || c=='\\' ){ esc[0] = '\\'; esc[1] = (char)c; ne = 2; }
    else if( c=='\n' ){ esc[0] = '\\'; esc[1] = 'n'; ne = 2; }
    else if( c=='\t' ){ esc[0] = '\\'; esc[1] = 't'; ne = 2; }
    else if( c=='\r' ){ esc[0] = '\\'; esc[1] = 'r'; ne = 2; }
    else if( c<0x20 ){
      memcpy(esc, "\\u00", 4); esc[4] = hex[c>>4]; esc[5] = hex[c&15]; ne = 6;
    }
    if( ne ){
      json_append(j, run, (size_t)(s-run));
      json_append(j, esc, (size_t)ne);
      run = s+1;
    }
  }
  json_append(j, run, (size_t)(s-run));
  json_append(j, "\"", 1);
}

void ml_json_key(MlJson *j, const char *k){
  json_sep(j);
  json_quoted(j, k);
  json_append(j, ":", 1);
  j->first[j->depth] = 1;     /* the value that follows takes no comma */
}

int ml_format_double(char *buf, double d){
  int prec, n = 0;
  for(prec=15; prec<=17; prec++){
    n = snprintf(buf, 32, "%.*g", prec, d);
    if( strtod(buf, 0)==d ) break;
  }
  return n;
}

void ml_json_double(MlJson *j, double d){
  char buf[32];
  int n;
  if( !isfinite(d) ){ ml_json_null(j); return; }
  json_sep(j);
  n = ml_format_double(buf, d);
  json_append(j, buf, (size_t)n);
}

void ml_json_int(MlJson *j, ml_i64 v){
  char buf[32];
  int n = snprintf(buf, sizeof(buf), "%lld", (long long)v);
  json_sep(j);
  json_append(j, buf, (size_t)n);
}

void ml_json_bool(MlJson *j, int b){
  json_sep(j);
  if( b ) json_append(j, "true", 4); else json_append(j, "false", 5);
}

void ml_json_null(MlJson *j){
  json_sep(j);
  json_append(j, "null", 4);
}

void ml_json_string(MlJson *j, const char *s){
  if( s==0 ){ ml_json_null(j); return; }
  json_sep(j);
  json_quoted(j, s);
}
