/*
** ml_json_read.c -- a small strict JSON reader for the one shape mleval reads
** back: an array of flat objects whose fields are numbers (the output of
** pr_curve, roc_curve, reliability).  Used by the plot family (plot.c).
** SPDX-License-Identifier: MIT
**
** Why not SQLite's json_each(): an aggregate step would have to prepare and
** run a statement per row; this reader is 200 lines, needs no database
** handle, and says exactly what is wrong.
**
** Rules:
**   1. The text must be one JSON value (RFC 8259, whitespace around it
**      allowed): an array whose elements are objects.  Anything else is an
**      error naming the byte offset and what was expected.
**   2. A requested field's value must be a number or null (null reads as
**      NaN); other fields may hold any JSON value, which is checked and
**      skipped (nesting at most 64 deep).
**   3. A requested field an object lacks reads as NaN and is not counted in
**      anPresent[f]; the caller decides whether that is an error.  A
**      requested field that appears twice in one object is an error of its
**      own ("field "recall" appears twice in one object"): which value was
**      meant cannot be known.  Keys are compared after their escapes are
**      read ("rec\u0061ll" is "recall").
**   4. Numbers are read exactly as strtod reads them in the C locale, whatever
**      their length, with '.' as the decimal point in every locale: the
**      double nearest the decimal (correctly rounded).  Short decimals take
**      Clinger's exact fast path (jr_number), the rest ml_parse_number.
**      SQLite's own CAST(text AS REAL) is not always correctly rounded
**      (3.40: '0.841613' gives 0.8416129999999999); this reader follows
**      strtod (docs/decisions.md).
**   5. ml_json_read_pairs (plot_reliability's smoothed overlay): an object
**      whose field named key is an array of [x, y] number pairs (the
**      "curve" of calibration_smooth); other fields checked and skipped; the
**      field missing or twice, or an element not two numbers, is an error.
**   6. ml_json_read_field (ipcw's censoring curve): the same object reader,
**      the field an array of numbers (the "time" or "surv" of censoring_km).
**
** Cost: O(length of the text); 8 bytes per requested field per element.
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include "ml_core.h"

typedef struct JRead {
  const char *z;          /* the text */
  size_t i;               /* read position */
  char *zErr; size_t nErr;
} JRead;

static void jr_ws(JRead *r){
  while( r->z[r->i]==' ' || r->z[r->i]=='\t' || r->z[r->i]=='\n' || r->z[r->i]=='\r' ) r->i++;
}

static int jr_fail(JRead *r, const char *zWhat){
  snprintf(r->zErr, r->nErr, "%s at byte %llu", zWhat, (unsigned long long)r->i);
  return ML_ERROR;
}

/* A string; when out is not NULL its bytes up to nOut-1 are copied there,
** escapes read (a \u escape of a non-ASCII character as '?': field names
** are plain ASCII). */
static int jr_string(JRead *r, char *out, size_t nOut){
  size_t o = 0;
  if( r->z[r->i]!='"' ) return jr_fail(r, "expected a string");
  r->i++;
  for(;;){
    unsigned char c = (unsigned char)r->z[r->i];
    if( c==0 ) return jr_fail(r, "unterminated string");
    if( c<0x20 ) return jr_fail(r, "control character in a string");
    if( c=='"' ){ r->i++; break; }
    if( c=='\\' ){
      char e = r->z[r->i+1];
      if( e=='u' ){
        int k;
        unsigned cp = 0;
        for(k=2; k<6; k++){
          char h = r->z[r->i+k];
          if( !((h>='0'&&h<='9')||(h>='a'&&h<='f')||(h>='A'&&h<='F')) ) return jr_fail(r, "bad \\u escape");
          cp = cp*16 + (unsigned)(h<='9' ? h-'0' : (h|0x20)-'a'+10);
        }
        r->i += 6;
        if( out && o+1<nOut ) out[o++] = cp>0 && cp<0x80 ? (char)cp : '?';
        continue;
      }
      if( e==0 || strchr("\"\\/bfnrt", e)==0 ) return jr_fail(r, "bad escape in a string");
      if( out && o+1<nOut ){
        static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
        const char *m = strchr(from, e);
        out[o++] = m ? to[m-from] : e;
      }
      r->i += 2;
      continue;
    }
    if( out && o+1<nOut ) out[o++] = (char)c;
    r->i++;
  }
  if( out ) out[o] = 0;
  return ML_OK;
}

/* 10^0 .. 10^22: every one an exact double. */
static const double jrPow10[23] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
  1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* Clinger's fast path needs each operation rounded once, to double. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD==0
# define JR_FAST 1
#else
# define JR_FAST 0
#endif

/* A number per RFC 8259's grammar (no leading '+', no leading zeros, no
** bare '.'), read locale-independently and exactly, whatever its length
** (rule 4).  Digits m and a power of ten e with m <= 2^53 and |e| <= 22
** (every short decimal: "0.25", "0.123456", "1e-3") take Clinger's fast
** path: m and 10^|e| are exact doubles, so m * 10^e or m / 10^-e, one
** correctly rounded operation, is the double nearest the decimal, as
** strtod's; any other number goes to strtod (ml_parse_number). */
static int jr_number(JRead *r, double *out){
  const char *z = r->z;
  size_t j = r->i;
  uint64_t m = 0;
  int e10 = 0, fast = JR_FAST, neg = 0;
  if( z[j]=='-' ){ neg = 1; j++; }
  if( z[j]=='0' ) j++;
  else if( z[j]>='1' && z[j]<='9' ){
    for(; z[j]>='0' && z[j]<='9'; j++){
      if( m<100000000000000000ULL ) m = m*10 + (uint64_t)(z[j] - '0'); else fast = 0;
    }
  }
  else return jr_fail(r, "expected a value");
  if( z[j]=='.' ){
    j++;
    if( !(z[j]>='0' && z[j]<='9') ) return jr_fail(r, "bad number");
    for(; z[j]>='0' && z[j]<='9'; j++){
      if( m<100000000000000000ULL ){ m = m*10 + (uint64_t)(z[j] - '0'); e10--; } else fast = 0;
    }
  }
  if( z[j]=='e' || z[j]=='E' ){
    int x = 0, xneg = 0;
    j++;
    if( z[j]=='+' || z[j]=='-' ){ xneg = z[j]=='-'; j++; }
    if( !(z[j]>='0' && z[j]<='9') ) return jr_fail(r, "bad number");
    for(; z[j]>='0' && z[j]<='9'; j++) if( x<100000 ) x = x*10 + (z[j] - '0');
    e10 += xneg ? -x : x;
  }
  if( out ){
    if( fast && m<=(1ULL<<53) && e10>=-22 && e10<=22 ){
      double d = e10>=0 ? (double)m * jrPow10[e10] : (double)m / jrPow10[-e10];
      *out = neg ? -d : d;
    }else if( ml_parse_number(z + r->i, j - r->i, out)!=ML_OK ){
      return ML_NOMEM;
    }
  }
  r->i = j;
  return ML_OK;
}

static int jr_literal(JRead *r, const char *lit){
  size_t n = strlen(lit);
  if( strncmp(r->z + r->i, lit, n)!=0 ) return jr_fail(r, "expected a value");
  r->i += n;
  return ML_OK;
}

/* Any value, checked and skipped. */
static int jr_skip(JRead *r, int depth){
  char c;
  jr_ws(r);
  c = r->z[r->i];
  if( depth>64 ) return jr_fail(r, "nested too deep");
  if( c=='"' ) return jr_string(r, 0, 0);
  if( c=='t' ) return jr_literal(r, "true");
  if( c=='f' ) return jr_literal(r, "false");
  if( c=='n' ) return jr_literal(r, "null");
  if( c=='[' || c=='{' ){
    char close = c=='[' ? ']' : '}';
    r->i++;
    jr_ws(r);
    if( r->z[r->i]==close ){ r->i++; return ML_OK; }
    for(;;){
      if( c=='{' ){
        jr_ws(r);
        if( jr_string(r, 0, 0) ) return ML_ERROR;
        jr_ws(r);
        if( r->z[r->i]!=':' ) return jr_fail(r, "expected ':'");
        r->i++;
      }
      if( jr_skip(r, depth+1) ) return ML_ERROR;
      jr_ws(r);
      if( r->z[r->i]==',' ){ r->i++; continue; }
      if( r->z[r->i]==close ){ r->i++; return ML_OK; }
      return jr_fail(r, c=='[' ? "expected ',' or ']'" : "expected ',' or '}'");
    }
  }
  return jr_number(r, 0);
}

/* One object: its requested fields go to row[0..nField-1] (nField <= 32). */
static int jr_object(JRead *r, int nField, const char *const *azField, double *row, ml_i64 *anPresent){
  int f, rc;
  unsigned seen = 0;
  for(f=0; f<nField; f++) row[f] = NAN;
  jr_ws(r);
  if( r->z[r->i]!='{' ) return jr_fail(r, "expected an object");
  r->i++;
  jr_ws(r);
  if( r->z[r->i]=='}' ){ r->i++; return ML_OK; }
  for(;;){
    char key[32];
    size_t keyAt;
    jr_ws(r);
    keyAt = r->i;
    if( jr_string(r, key, sizeof(key)) ) return ML_ERROR;
    jr_ws(r);
    if( r->z[r->i]!=':' ) return jr_fail(r, "expected ':'");
    r->i++;
    jr_ws(r);
    for(f=0; f<nField && strcmp(key, azField[f])!=0; f++){}
    if( f<nField ){
      char c = r->z[r->i];
      if( seen & (1u<<f) ){
        char msg[64];
        snprintf(msg, sizeof(msg), "field \"%s\" appears twice in one object", azField[f]);
        r->i = keyAt;            /* the message points at the second key */
        return jr_fail(r, msg);
      }
      seen |= 1u<<f;
      if( c=='n' ){
        if( jr_literal(r, "null") ) return ML_ERROR;
        row[f] = NAN;
      }else if( c=='-' || (c>='0' && c<='9') ){
        if( (rc = jr_number(r, &row[f]))!=ML_OK ) return rc;
      }else{
        char msg[64];
        snprintf(msg, sizeof(msg), "field \"%s\" is not a number", azField[f]);
        return jr_fail(r, msg);
      }
      anPresent[f]++;
    }else if( jr_skip(r, 1) ){
      return ML_ERROR;
    }
    jr_ws(r);
    if( r->z[r->i]==',' ){ r->i++; continue; }
    if( r->z[r->i]=='}' ){ r->i++; return ML_OK; }
    return jr_fail(r, "expected ',' or '}'");
  }
}

/* An array's opening bracket (after white space): ML_OK with *pEmpty set
** when "[]" was read whole, else the error. */
static int jr_array_open(JRead *r, int *pEmpty){
  jr_ws(r);
  if( r->z[r->i]!='[' ) return jr_fail(r, "expected an array");
  r->i++;
  jr_ws(r);
  *pEmpty = r->z[r->i]==']';
  if( *pEmpty ) r->i++;
  return ML_OK;
}

/* After an element: 1 when another follows (',' read), 0 at the closing
** ']' (read), ML_ERROR-style failure otherwise (-1, message set). */
static int jr_array_next(JRead *r){
  jr_ws(r);
  if( r->z[r->i]==',' ){ r->i++; return 1; }
  if( r->z[r->i]==']' ){ r->i++; return 0; }
  jr_fail(r, "expected ',' or ']'");
  return -1;
}

/* Nothing but white space after the array. */
static int jr_array_end(JRead *r){
  jr_ws(r);
  return r->z[r->i]!=0 ? jr_fail(r, "text after the array") : ML_OK;
}

int ml_json_read_rows(const char *z, int nField, const char *const *azField,
                      double **paOut, ml_i64 *pnRow, ml_i64 *anPresent,
                      char *zErr, size_t nErr){
  JRead r;
  double *a = 0;
  ml_i64 n = 0, cap = 0;
  int f, rc = ML_OK, empty;
  r.z = z; r.i = 0; r.zErr = zErr; r.nErr = nErr;
  *paOut = 0; *pnRow = 0;
  if( nField>32 ) return jr_fail(&r, "more than 32 fields requested");
  for(f=0; f<nField; f++) anPresent[f] = 0;
  if( (rc = jr_array_open(&r, &empty))!=ML_OK ) return rc;
  while( !empty ){
    int more;
    if( n==cap ){
      ml_i64 cNew = cap ? cap*2 : 64;
      double *p = ml_realloc(a, (uint64_t)cNew * (uint64_t)nField * sizeof(double) + 8);
      if( p==0 ){ rc = ML_NOMEM; break; }
      a = p; cap = cNew;
    }
    if( (rc = jr_object(&r, nField, azField, a + n*nField, anPresent))!=ML_OK ) break;
    n++;
    if( (more = jr_array_next(&r))<0 ){ rc = ML_ERROR; break; }
    if( !more ) break;
  }
  if( rc==ML_OK ) rc = jr_array_end(&r);
  if( rc!=ML_OK ){ ml_free(a); return rc; }
  *paOut = a; *pnRow = n;
  return ML_OK;
}

/* An array of numbers (null elements read as NaN) into out[0..nMax): the
** multiclass families' JSON form of a row's k scores (ml_arg_scores).
** Allocates nothing but what ml_parse_number needs for a number longer
** than its own buffer. */
int ml_json_read_numbers(const char *z, double *out, int nMax, int *pn, char *zErr, size_t nErr){
  JRead r;
  int n = 0, rc = ML_OK, empty, more = 1;
  r.z = z; r.i = 0; r.zErr = zErr; r.nErr = nErr;
  *pn = 0;
  if( (rc = jr_array_open(&r, &empty))!=ML_OK ) return rc;
  while( !empty && more ){
    double d;
    jr_ws(&r);
    if( z[r.i]=='n' ){
      if( (rc = jr_literal(&r, "null"))!=ML_OK ) return rc;
      d = NAN;
    }else if( (rc = jr_number(&r, &d))!=ML_OK ){
      return rc;
    }
    if( n>=nMax ){
      snprintf(zErr, nErr, "more than %d elements", nMax);
      return ML_ERROR;
    }
    out[n++] = d;
    if( (more = jr_array_next(&r))<0 ) return ML_ERROR;
  }
  if( (rc = jr_array_end(&r))!=ML_OK ) return rc;
  *pn = n;
  return ML_OK;
}

/* The field zKey of an object: an array of [x, y] pairs (k 2) or of numbers
** (k 1), k doubles an element into *paOut (rules 5 and 6). */
static int jr_object_field(const char *z, const char *zKey, int k1, double **paOut, ml_i64 *pn,
                           char *zErr, size_t nErr){
  JRead r;
  double *a = 0;
  ml_i64 n = 0, cap = 0;
  int rc = ML_OK, found = 0;
  r.z = z; r.i = 0; r.zErr = zErr; r.nErr = nErr;
  *paOut = 0; *pn = 0;
  jr_ws(&r);
  if( z[r.i]!='{' ) return jr_fail(&r, "expected an object");
  r.i++;
  jr_ws(&r);
  if( z[r.i]=='}' ){ r.i++; goto end; }
  for(;;){
    char key[32];
    size_t keyAt;
    jr_ws(&r);
    keyAt = r.i;
    if( jr_string(&r, key, sizeof(key)) ){ rc = ML_ERROR; break; }
    jr_ws(&r);
    if( z[r.i]!=':' ){ rc = jr_fail(&r, "expected ':'"); break; }
    r.i++;
    if( strcmp(key, zKey)==0 ){
      int empty, more = 1;
      if( found ){ r.i = keyAt; rc = jr_fail(&r, "the field appears twice"); break; }
      found = 1;
      if( (rc = jr_array_open(&r, &empty))!=ML_OK ) break;
      while( !empty && more ){
        double xy[2];
        int k;
        if( n==cap ){
          ml_i64 cNew = cap ? cap*2 : 64;
          double *p = ml_realloc(a, (uint64_t)cNew * (uint64_t)k1 * sizeof(double));
          if( p==0 ){ rc = ML_NOMEM; break; }
          a = p; cap = cNew;
        }
        jr_ws(&r);
        if( k1==1 ){
          if( (rc = jr_number(&r, &a[n]))!=ML_OK ) break;
          n++;
          if( (more = jr_array_next(&r))<0 ){ rc = ML_ERROR; break; }
          continue;
        }
        if( z[r.i]!='[' ){ rc = jr_fail(&r, "expected an [x, y] pair"); break; }
        r.i++;
        for(k=0; k<2 && rc==ML_OK; k++){
          jr_ws(&r);
          if( k==1 ){
            if( z[r.i]!=',' ){ rc = jr_fail(&r, "expected an [x, y] pair"); break; }
            r.i++;
            jr_ws(&r);
          }
          rc = jr_number(&r, &xy[k]);
        }
        if( rc ) break;
        jr_ws(&r);
        if( z[r.i]!=']' ){ rc = jr_fail(&r, "expected an [x, y] pair"); break; }
        r.i++;
        a[2*n] = xy[0]; a[2*n+1] = xy[1];
        n++;
        if( (more = jr_array_next(&r))<0 ){ rc = ML_ERROR; break; }
      }
      if( rc ) break;
    }else if( jr_skip(&r, 1) ){
      rc = ML_ERROR;
      break;
    }
    jr_ws(&r);
    if( z[r.i]==',' ){ r.i++; continue; }
    if( z[r.i]=='}' ){ r.i++; break; }
    rc = jr_fail(&r, "expected ',' or '}'");
    break;
  }
end:
  if( rc==ML_OK ){
    jr_ws(&r);
    if( z[r.i]!=0 ) rc = jr_fail(&r, "text after the object");
    else if( !found ){
      snprintf(zErr, nErr, "no \"%s\" field", zKey);
      rc = ML_ERROR;
    }
  }
  if( rc!=ML_OK ){ ml_free(a); return rc; }
  *paOut = a; *pn = n;
  return ML_OK;
}
int ml_json_read_pairs(const char *z, const char *zKey, double **paOut, ml_i64 *pn, char *zErr, size_t nErr){
  return jr_object_field(z, zKey, 2, paOut, pn, zErr, nErr);
}
int ml_json_read_field(const char *z, const char *zKey, double **paOut, ml_i64 *pn, char *zErr, size_t nErr){
  return jr_object_field(z, zKey, 1, paOut, pn, zErr, nErr);
}
