/*
** SPDX-License-Identifier: MIT
**
** ml_json.c -- the one JSON writer every JSON-returning function uses
** (confusion, pr_curve, roc_curve, reliability, strat_report, ordinal_report,
** mleval_build_info), built on the string builder of ml_str.c.
** SPDX-License-Identifier: MIT
**
** Rules:
**   1. Commas are placed by the writer: callers only open, close, and emit
**      keys and values.
**   2. Doubles are written in the shortest of %.15g, %.16g, %.17g that reads
**      back as the same double, with '.' as the decimal point in every C
**      locale (ml_format_double); NaN and +-Inf are written as null (JSON has
**      no such numbers, and SQLite's json functions reject them).
**   3. Strings are escaped per RFC 8259: quote, backslash, and every control
**      character below 0x20; an ill-formed UTF-8 sequence is written as
**      U+FFFD (ml_utf8.h), so the text is always well-formed UTF-8.
**   4. Out of memory: the builder frees its text and every later call is a
**      no-op; ml_json_finish() then returns NULL.
**
** Cost: amortised O(1) per byte, the buffer grows by doubling.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ml_core.h"
#include "ml_utf8.h"

void ml_json_init(MlJson *j){
  memset(j, 0, sizeof(*j));
  ml_str_init(&j->s);
  j->first[0] = 1;
}

void ml_json_free(MlJson *j){
  ml_str_free(&j->s);
  ml_json_init(j);
}

static void json_append(MlJson *j, const char *z, size_t n){
  ml_str_append(&j->s, z, n);
}

/* A value or key is about to be written at the current level. */
static void json_sep(MlJson *j){
  if( j->first[j->depth] ) j->first[j->depth] = 0;
  else json_append(j, ",", 1);
}

char *ml_json_finish(MlJson *j, size_t *pn){
  char *z = ml_str_finish(&j->s, pn);
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

/* s's n bytes quoted (a NUL among them written \u0000: text keys that
** differ only after a NUL stay apart) */
static void json_quoted_n(MlJson *j, const char *s, size_t n){
  static const char hex[] = "0123456789abcdef";
  const char *run = s, *end = s + n;
  json_append(j, "\"", 1);
  for(; s<end; s++){
    unsigned char c = (unsigned char)*s;
    char esc[7];
    int ne = 0;
    if( c>=0x80 ){
      unsigned cp;
      int k = ml_utf8_char(s, &cp);
      if( k>0 ){ s += k-1; continue; }
      json_append(j, run, (size_t)(s-run));
      json_append(j, ML_UTF8_REPLACEMENT, 3);
      s += -k-1;
      run = s+1;
      continue;
    }
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
static void json_quoted(MlJson *j, const char *s){ json_quoted_n(j, s, strlen(s)); }

void ml_json_key(MlJson *j, const char *k){
  json_sep(j);
  json_quoted(j, k);
  json_append(j, ":", 1);
  j->first[j->depth] = 1;     /* the value that follows takes no comma */
}

void ml_json_double(MlJson *j, double d){
  if( !isfinite(d) ){ ml_json_null(j); return; }
  if( d==0.0 ) d = 0.0;      /* -0 is 0: a quantile or an input's sign of zero depends on row order */
  json_sep(j);
  ml_str_double(&j->s, d);
}

void ml_json_int(MlJson *j, ml_i64 v){
  json_sep(j);
  ml_str_int(&j->s, v);
}

void ml_json_bool(MlJson *j, int b){
  json_sep(j);
  if( b ) json_append(j, "true", 4); else json_append(j, "false", 5);
}

void ml_json_null(MlJson *j){
  json_sep(j);
  json_append(j, "null", 4);
}

void ml_json_string_n(MlJson *j, const char *s, size_t n){
  json_sep(j);
  json_quoted_n(j, s, n);
}

void ml_json_string(MlJson *j, const char *s){
  if( s==0 ){ ml_json_null(j); return; }
  json_sep(j);
  json_quoted(j, s);
}
