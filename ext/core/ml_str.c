/*
** ml_str.c -- the growable string builder the JSON writer (ml_json.c) and the
** SVG writer (ml_svg.c) are built on, and the locale-independent number
** formatting and parsing every piece of text mleval emits uses.
** SPDX-License-Identifier: MIT
**
** Rules:
**   1. The text is NUL-terminated after every append (when not oom).
**   2. Out of memory: the buffer is freed, oom is set, every later append is
**      a no-op, and ml_str_finish() returns NULL.  A caller checks once, at
**      the end.
**   3. Numbers are written and read the same in every C locale: the decimal
**      point is always '.', whatever setlocale(LC_NUMERIC) the host chose
**      ("hi":0,5 is not JSON, and 0,5 is not an SVG coordinate).  printf and
**      strtod are locale-aware, so their decimal point is swapped for '.' on
**      the way out and '.' for the locale's on the way in.
**   4. XML text is escaped (& < > " '), control characters that XML 1.0
**      forbids (all below 0x20 but tab, newline, carriage return) are dropped,
**      and the text written is well-formed UTF-8 and XML whatever the input:
**      an ill-formed sequence, and U+FFFE / U+FFFF (not XML characters),
**      become U+FFFD (ml_utf8.h's rules).  ml_str_text does the same, cut to a
**      length, with or without the escaping (for messages).
**
** Cost: amortised O(1) per byte appended; the buffer grows by doubling.
*/
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ml_core.h"
#include "ml_utf8.h"

void ml_str_init(MlStr *s){
  memset(s, 0, sizeof(*s));
}

void ml_str_free(MlStr *s){
  ml_free(s->z);
  ml_str_init(s);
}

void ml_str_append(MlStr *s, const char *z, size_t n){
  if( s->oom ) return;
  if( s->n + n + 1 > s->cap ){
    size_t nNew = s->cap ? s->cap*2 : 256;
    char *p;
    while( nNew < s->n + n + 1 ) nNew *= 2;
    p = ml_realloc(s->z, nNew);
    if( p==0 ){
      ml_free(s->z);
      s->z = 0; s->n = s->cap = 0; s->oom = 1;
      return;
    }
    s->z = p; s->cap = nNew;
  }
  if( n ) memcpy(s->z + s->n, z, n);
  s->n += n;
  s->z[s->n] = 0;
}

void ml_str_appendz(MlStr *s, const char *z){
  ml_str_append(s, z, strlen(z));
}

void ml_str_int(MlStr *s, ml_i64 v){
  char buf[32];
  int n = snprintf(buf, sizeof(buf), "%lld", (long long)v);
  ml_str_append(s, buf, (size_t)n);
}

void ml_str_double(MlStr *s, double d){
  char buf[32];
  int n = ml_format_double(buf, d);
  ml_str_append(s, buf, (size_t)n);
}

void ml_str_fixed(MlStr *s, double d, int decimals){
  char buf[64];
  int n = ml_format_fixed(buf, d, decimals);
  ml_str_append(s, buf, (size_t)n);
}

/* The text z up to max bytes (cut between characters), escaped for XML when
** xml is set; ill-formed UTF-8 (and, for XML, U+FFFE/U+FFFF) as U+FFFD. */
void ml_str_text(MlStr *s, const char *z, size_t max, int xml){
  const char *run = z, *end = z + ml_utf8_cut(z, max);
  while( z<end ){
    unsigned char c = (unsigned char)*z;
    const char *esc = 0;
    int len = 1;
    if( c<0x80 ){
      switch( c ){
        case '&':  if( xml ) esc = "&amp;"; break;
        case '<':  if( xml ) esc = "&lt;"; break;
        case '>':  if( xml ) esc = "&gt;"; break;
        case '"':  if( xml ) esc = "&quot;"; break;
        case '\'': if( xml ) esc = "&#39;"; break;
        default:
          if( xml && !ml_utf8_xml_char(c) ) esc = "";
      }
    }else{
      unsigned cp;
      int k = ml_utf8_char(z, &cp);
      if( k<0 ){ esc = ML_UTF8_REPLACEMENT; len = -k; }
      else if( xml && !ml_utf8_xml_char(cp) ){ esc = ML_UTF8_REPLACEMENT; len = k; }
      else len = k;
    }
    if( esc ){
      ml_str_append(s, run, (size_t)(z-run));
      ml_str_appendz(s, esc);
      run = z + len;
    }
    z += len;
  }
  ml_str_append(s, run, (size_t)(z-run));
}

void ml_str_xml(MlStr *s, const char *z){ ml_str_text(s, z, (size_t)-1, 1); }

char *ml_str_finish(MlStr *s, size_t *pn){
  char *z;
  if( s->z==0 && !s->oom ) ml_str_append(s, "", 0);   /* nothing written: "" */
  z = s->oom ? 0 : s->z;
  if( pn ) *pn = z ? s->n : 0;
  ml_str_init(s);
  return z;
}

/* ------------------------------------------------------------ numbers */

/* Rewrites printf's output in place so that its decimal point is '.': in a
** "%g"/"%f" number every byte that is not a digit, sign or exponent letter
** belongs to the locale's decimal point (one byte, or several in a UTF-8
** locale); each such run becomes one '.'.  Returns the new length. */
static int c_locale_number(char *buf, int n){
  int i, o = 0, inPoint = 0;
  for(i=0; i<n; i++){
    char c = buf[i];
    if( (c>='0' && c<='9') || c=='-' || c=='+' || c=='e' || c=='E'
     || c=='i' || c=='n' || c=='f' || c=='a' || c=='I' || c=='N' || c=='F' || c=='A' ){
      buf[o++] = c; inPoint = 0;
    }else if( !inPoint ){
      buf[o++] = '.'; inPoint = 1;
    }
  }
  buf[o] = 0;
  return o;
}

/* strtod over the n bytes of z, with '.' read as the decimal point whatever
** the locale: strtod reads the locale's point, so it is handed a copy with
** each '.' replaced by that point (on the stack when it fits, else on the
** heap: a number of any length is read exactly, as strtod reads it in the C
** locale).  *pUsed is the count of z's bytes strtod took. */
static int parse_span(const char *z, size_t n, double *pOut, size_t *pUsed){
  char stackBuf[128], *buf = stackBuf, *end;
  const char *pt = localeconv()->decimal_point;
  size_t np, i, o = 0, nDot = 0, cap;
  if( pt==0 || pt[0]==0 ) pt = ".";
  np = strlen(pt);
  for(i=0; i<n; i++) if( z[i]=='.' ) nDot++;
  cap = n + nDot*(np-1) + 1;
  if( cap > sizeof(stackBuf) ){
    buf = ml_malloc(cap);
    if( buf==0 ) return ML_NOMEM;
  }
  for(i=0; i<n; i++){
    if( z[i]=='.' ){ memcpy(buf+o, pt, np); o += np; }
    else buf[o++] = z[i];
  }
  buf[o] = 0;
  *pOut = strtod(buf, &end);
  if( pUsed ){
    /* back from the copy's bytes to z's: each point counts np bytes there */
    size_t used = (size_t)(end - buf), k = 0;
    for(i=0; i<n && k<used; i++) k += z[i]=='.' ? np : 1;
    if( k>used ) i--;        /* strtod stopped inside a multi-byte point */
    *pUsed = i;
  }
  if( buf!=stackBuf ) ml_free(buf);
  return ML_OK;
}

int ml_parse_number(const char *z, size_t n, double *pOut){
  return parse_span(z, n, pOut, 0);
}

double ml_parse_double(const char *z, const char **pEnd){
  size_t n = 0, used = 0;
  double d = NAN;
  /* no other byte can be part of a number we read */
  while( (z[n]>='0' && z[n]<='9') || z[n]=='-' || z[n]=='+' || z[n]=='e' || z[n]=='E' || z[n]=='.' ) n++;
  if( parse_span(z, n, &d, &used)!=ML_OK ){ used = 0; d = NAN; }
  if( pEnd ) *pEnd = z + used;
  return d;
}

int ml_format_double(char *buf, double d){
  int prec, n = 0;
  if( d==0.0 ) d = 0.0;        /* -0 and 0 are one value: never "-0" in any text (issue 37) */
  for(prec=15; prec<=17; prec++){
    n = snprintf(buf, 32, "%.*g", prec, d);
    n = c_locale_number(buf, n);
    if( !isfinite(d) || ml_parse_double(buf, 0)==d ) break;
  }
  return n;
}

int ml_format_fixed(char *buf, double d, int decimals){
  int n;
  if( decimals<0 ) decimals = 0;
  if( decimals>17 ) decimals = 17;
  n = snprintf(buf, 64, "%.*f", decimals, d);
  if( n<0 || n>=64 ){                     /* far beyond any drawing: %g */
    n = snprintf(buf, 64, "%.6g", d);
  }
  n = c_locale_number(buf, n);
  if( buf[0]=='-' && strspn(buf+1, "0.")==(size_t)(n-1) ){   /* "-0.00": "0.00" */
    memmove(buf, buf+1, (size_t)n);
    n--;
  }
  return n;
}
