/*
** SPDX-License-Identifier: MIT
**
** check_json.c -- the JSON writer (ml_json.c): commas, escaping, shortest
** round-trip doubles, null for non-finite numbers; the text rules every
** writer shares (ml_utf8.h, ml_str_text): well-formed UTF-8 and XML out of
** any bytes in, cuts between characters.  The reader (ml_json_read.c): rows
** of objects, and arrays of numbers read as strtod reads them.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "ml_core.h"
#include "ml_utf8.h"
#include <sqlite3.h>

static char *finish(MlJson *j){
  char *z = ml_json_finish(j, 0);
  ck_assert_ptr_nonnull(z);
  return z;
}

START_TEST(test_nested_commas){
  MlJson j; char *z;
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "a"); ml_json_int(&j, 1);
  ml_json_key(&j, "b"); ml_json_begin_array(&j);
    ml_json_begin_object(&j); ml_json_key(&j, "x"); ml_json_null(&j); ml_json_end_object(&j);
    ml_json_begin_object(&j); ml_json_end_object(&j);
    ml_json_bool(&j, 1);
  ml_json_end_array(&j);
  ml_json_key(&j, "c"); ml_json_begin_array(&j); ml_json_end_array(&j);
  ml_json_end_object(&j);
  z = finish(&j);
  ck_assert_str_eq(z, "{\"a\":1,\"b\":[{\"x\":null},{},true],\"c\":[]}");
  ml_free(z);
}
END_TEST

START_TEST(test_string_escaping){
  MlJson j; char *z;
  ml_json_init(&j);
  ml_json_string(&j, "q\"b\\n\nt\tc\x01" "e\x1f");
  z = finish(&j);
  ck_assert_str_eq(z, "\"q\\\"b\\\\n\\nt\\tc\\u0001e\\u001f\"");
  ml_free(z);
}
END_TEST

START_TEST(test_doubles_shortest_round_trip){
  static const double v[] = {0.1, 1.0/3.0, 0.5, 1e-300, 4.9e-324, 1.7976931348623157e308,
                             -2.5, 0.30000000000000004, 123456789.0};
  size_t i;
  for(i=0; i<sizeof(v)/sizeof(v[0]); i++){
    char buf[32];
    ml_format_double(buf, v[i]);
    ck_assert_msg(strtod(buf, 0)==v[i], "%s does not read back as %.17g", buf, v[i]);
  }
  {
    char buf[32];
    ml_format_double(buf, 0.1);
    ck_assert_str_eq(buf, "0.1");
  }
}
END_TEST

START_TEST(test_non_finite_is_null){
  MlJson j; char *z;
  ml_json_init(&j);
  ml_json_begin_array(&j);
  ml_json_double(&j, NAN); ml_json_double(&j, INFINITY); ml_json_double(&j, -INFINITY);
  ml_json_double(&j, 0.25);
  ml_json_end_array(&j);
  z = finish(&j);
  ck_assert_str_eq(z, "[null,null,null,0.25]");
  ml_free(z);
}
END_TEST

START_TEST(test_long_output_grows){
  MlJson j; char *z; size_t n; int i;
  ml_json_init(&j);
  ml_json_begin_array(&j);
  for(i=0; i<100000; i++) ml_json_int(&j, i);
  ml_json_end_array(&j);
  z = ml_json_finish(&j, &n);
  ck_assert_ptr_nonnull(z);
  ck_assert_uint_eq(n, strlen(z));
  ck_assert(strncmp(z, "[0,1,2,", 7)==0);
  ck_assert(strcmp(z + n - 7, ",99999]")==0);
  ml_free(z);
}
END_TEST

/* Unicode 15, section 3.9, table 3-8 (maximal subparts) and the edges of
** RFC 3629: overlong forms, surrogates, beyond U+10FFFF, truncation. */
START_TEST(test_utf8_replacement){
  static const struct { const char *in, *out; } c[] = {
    { "a\xF1\x80\x80\xE1\x80\xC2" "b\x80" "c\x80\xBF" "d",
      "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD\xEF\xBF\xBD" "d" },
    { "\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD" },                 /* overlong '/' */
    { "\xE0\x80\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" },  /* overlong, 3 bytes */
    { "\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" },  /* a surrogate */
    { "\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" }, /* > U+10FFFF */
    { "\xE2\x82", "\xEF\xBF\xBD" },                               /* truncated at the end */
    { "\xE2\x82" "x", "\xEF\xBF\xBD" "x" },
    { "\xE2\x82\xAC \xF0\x9F\x98\x80 \xC3\xA9", "\xE2\x82\xAC \xF0\x9F\x98\x80 \xC3\xA9" }, /* well-formed */
    { "\xEF\xBF\xBE\xEF\xBF\xBF", "\xEF\xBF\xBE\xEF\xBF\xBF" },      /* U+FFFE, U+FFFF: valid UTF-8 */
  };
  size_t i;
  for(i=0; i<sizeof(c)/sizeof(c[0]); i++){
    MlStr s; char *z;
    MlJson j;
    ml_str_init(&s);
    ml_str_text(&s, c[i].in, (size_t)-1, 0);
    z = ml_str_finish(&s, 0);
    ck_assert_msg(strcmp(z, c[i].out)==0, "case %d: text", (int)i);
    ml_free(z);
    ml_json_init(&j);
    ml_json_string(&j, c[i].in);
    z = finish(&j);
    ck_assert_msg(strlen(z)==strlen(c[i].out)+2 && memcmp(z+1, c[i].out, strlen(c[i].out))==0,
                  "case %d: JSON string", (int)i);
    ml_free(z);
  }
}
END_TEST

START_TEST(test_xml_text){
  MlStr s; char *z;
  ml_str_init(&s);
  /* escapes, a dropped control, U+FFFE/U+FFFF (not XML characters) and an
  ** ill-formed byte as U+FFFD, tab and newline kept */
  ml_str_xml(&s, "<a&'\"\x01\t\n\xEF\xBF\xBE\xEF\xBF\xBF\xFF>");
  z = ml_str_finish(&s, 0);
  ck_assert_str_eq(z, "&lt;a&amp;&#39;&quot;\t\n\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD&gt;");
  ml_free(z);
}
END_TEST

START_TEST(test_cut_between_characters){
  /* "a" then twenty 3-byte euro signs: a cut at 60 bytes falls inside the
  ** 20th character and backs off to 58 */
  char in[64];
  int i;
  MlStr s; char *z;
  in[0] = 'a';
  for(i=0; i<20; i++) memcpy(in + 1 + 3*i, "\xE2\x82\xAC", 3);
  in[61] = 0;
  ck_assert_uint_eq(ml_utf8_cut(in, 60), 58);
  ck_assert_uint_eq(ml_utf8_cut(in, 61), 61);
  ck_assert_uint_eq(ml_utf8_cut(in, 1000), 61);
  ck_assert_uint_eq(ml_utf8_cut("\xFF\xFF", 1), 1);          /* an ill-formed byte is one unit */
  ml_str_init(&s);
  ml_str_text(&s, in, 60, 1);
  z = ml_str_finish(&s, 0);
  ck_assert_uint_eq(strlen(z), 58);
  ml_free(z);
}
END_TEST

/* The reader behind the plots reads every valid JSON number exactly as
** strtod does (it once cut numbers after ~126 characters: 1000...0e-400 read
** as 1e+125), and a field given twice in one object is an error of its own. */
static double read_one(const char *zNum){
  static const char *const az[] = {"x"};
  char *z = sqlite3_mprintf("[{\"x\":%s}]", zNum), err[96];
  double *a = 0, v;
  ml_i64 n = 0, pres[1];
  int rc = ml_json_read_rows(z, 1, az, &a, &n, pres, err, sizeof(err));
  ck_assert_msg(rc==ML_OK && n==1 && pres[0]==1, "reading %.60s: rc %d, %s", zNum, rc, rc ? err : "");
  v = a[0];
  ml_free(a);
  sqlite3_free(z);
  return v;
}

START_TEST(test_read_long_numbers){
  char *zs[6];
  int i, k = 0;
  /* (SQLite's printf repeats a %c precision times) */
  zs[k++] = sqlite3_mprintf("1%.*ce-400", 300, '0');                  /* 1e-100, 305 bytes */
  zs[k++] = sqlite3_mprintf("9007199254740993.%.*c1", 200, '0');       /* 2^53 + 1 + 1e-201: rounds up */
  zs[k++] = sqlite3_mprintf("0.%.*c1", 150, '0');                      /* 1e-151 */
  zs[k++] = sqlite3_mprintf("-0.%.*c%.*c7e2", 500, '3', 500, '1');      /* 1003 digits */
  zs[k++] = sqlite3_mprintf("%.*c", 320, '9');                          /* 1e320: Inf, as strtod says */
  zs[k++] = sqlite3_mprintf("0.25");
  for(i=0; i<k; i++){
    double want = strtod(zs[i], 0), got = read_one(zs[i]);
    ck_assert_msg(got==want, "%.40s... (%d bytes) read as %.17g, strtod says %.17g",
                  zs[i], (int)strlen(zs[i]), got, want);
  }
  ck_assert(read_one(zs[0])==1e-100);
  ck_assert(read_one(zs[1])==9007199254740994.0);
  for(i=0; i<k; i++) sqlite3_free(zs[i]);
}
END_TEST

START_TEST(test_read_duplicate_field){
  static const char *const az[] = {"recall", "precision"};
  double *a = 0;
  ml_i64 n = 0, pres[2];
  char err[96];
  int rc = ml_json_read_rows("[{\"recall\":0.5,\"precision\":1,\"recall\":0.7}]", 2, az, &a, &n, pres,
                             err, sizeof(err));
  ck_assert_int_eq(rc, ML_ERROR);
  ck_assert_str_eq(err, "field \"recall\" appears twice in one object at byte 29");
  /* an escaped key is the same key */
  rc = ml_json_read_rows("[{\"recall\":0.5,\"rec\\u0061ll\":0.7}]", 2, az, &a, &n, pres, err, sizeof(err));
  ck_assert_int_eq(rc, ML_ERROR);
  ck_assert_str_eq(err, "field \"recall\" appears twice in one object at byte 15");
  /* fields not asked for may repeat */
  rc = ml_json_read_rows("[{\"t\":1,\"recall\":0.5,\"t\":2}]", 2, az, &a, &n, pres, err, sizeof(err));
  ck_assert_int_eq(rc, ML_OK);
  ck_assert(n==1 && a[0]==0.5 && pres[0]==1 && pres[1]==0);
  ml_free(a);
}
END_TEST

/* The multiclass families' JSON form (ml_json_read_numbers): a row's k
** numbers into the caller's buffer, null as NaN, at most nMax, each read as
** strtod reads it; anything else is an error naming the byte. */
START_TEST(test_read_numbers){
  double v[4];
  char err[96];
  int n = -1;
  char *zLong = sqlite3_mprintf("[0.%.*c1, 2]", 150, '0');
  ck_assert_int_eq(ml_json_read_numbers(" [0.25, -1e-3 ,null,3] ", v, 4, &n, err, sizeof(err)), ML_OK);
  ck_assert_int_eq(n, 4);
  ck_assert(v[0]==0.25 && v[1]==-1e-3 && isnan(v[2]) && v[3]==3.0);
  ck_assert_int_eq(ml_json_read_numbers("[]", v, 4, &n, err, sizeof(err)), ML_OK);
  ck_assert_int_eq(n, 0);
  ck_assert_int_eq(ml_json_read_numbers(zLong, v, 4, &n, err, sizeof(err)), ML_OK);
  ck_assert(n==2 && v[0]==strtod(zLong + 1, 0) && v[1]==2.0);
  sqlite3_free(zLong);
  ck_assert_int_eq(ml_json_read_numbers("[1, 2, 3, 4, 5]", v, 4, &n, err, sizeof(err)), ML_ERROR);
  ck_assert_str_eq(err, "more than 4 elements");
  ck_assert_int_eq(ml_json_read_numbers("[0.5, 0.5", v, 4, &n, err, sizeof(err)), ML_ERROR);
  ck_assert_str_eq(err, "expected ',' or ']' at byte 9");
  ck_assert_int_eq(ml_json_read_numbers("[0.5, \"a\"]", v, 4, &n, err, sizeof(err)), ML_ERROR);
  ck_assert_str_eq(err, "expected a value at byte 6");
  ck_assert_int_eq(ml_json_read_numbers("[01]", v, 4, &n, err, sizeof(err)), ML_ERROR);
  ck_assert_int_eq(ml_json_read_numbers("{\"a\":1}", v, 4, &n, err, sizeof(err)), ML_ERROR);
  ck_assert_str_eq(err, "expected an array at byte 0");
  ck_assert_int_eq(ml_json_read_numbers("[1] x", v, 4, &n, err, sizeof(err)), ML_ERROR);
  ck_assert_str_eq(err, "text after the array at byte 4");
}
END_TEST

/* The JSON form's numbers are the doubles strtod gives, bit for bit, on
** 300 000 random decimals of every shape: short ones (Clinger's fast path,
** jr_number), mantissas around 2^53, exponents around +-22, long digit
** strings, 17-digit round trips and their negations (the fallback).  A
** fast path that rounded twice (m * 0.1^e, say) fails here. */
static uint64_t xs_next(uint64_t *s){ *s ^= *s<<13; *s ^= *s>>7; *s ^= *s<<17; return *s; }
static int xs_below(uint64_t *s, int n){ return (int)(xs_next(s) % (uint64_t)n); }
static void xs_digits(uint64_t *s, char *z, int n){
  int i;
  for(i=0; i<n; i++) z[i] = (char)('0' + xs_below(s, 10));
  z[n] = 0;
}
START_TEST(test_read_numbers_exact){
  uint64_t st = 0x9E3779B97F4A7C15ULL;
  char s[80], d[40], a[96], err[96];
  int i, n, nFast = 0;
  for(i=0; i<300000; i++){
    double v[1], ref;
    int shape = xs_below(&st, 7), o = 0;
    if( xs_below(&st, 4)==0 ) s[o++] = '-';
    switch( shape ){
      case 0: xs_digits(&st, d, 1 + xs_below(&st, 17)); o += sprintf(s + o, "0.%s", d); break;
      case 1: xs_digits(&st, d, 1 + xs_below(&st, 8));
              o += sprintf(s + o, "%d.%s", 1 + xs_below(&st, 999999), d); break;
      case 2: xs_digits(&st, d, 1 + xs_below(&st, 20)); d[0] = (char)('1' + xs_below(&st, 9));
              o += sprintf(s + o, "%se%d", d, xs_below(&st, 61) - 30); break;
      case 3: o += sprintf(s + o, "%llu%se%d", 9007199254740980ULL + (unsigned long long)xs_below(&st, 30),
                           xs_below(&st, 2) ? ".0" : "", xs_below(&st, 51) - 25); break;
      case 4: xs_digits(&st, d, 18 + xs_below(&st, 8)); d[0] = (char)('1' + xs_below(&st, 9));
              o += sprintf(s + o, "%c.%se%d", d[0], d + 1, xs_below(&st, 41) - 20); break;
      case 5: { double x; uint64_t u = xs_next(&st) >> 2; memcpy(&x, &u, 8);
                o += sprintf(s + o, "%.17g", x); break; }
      default: o += sprintf(s + o, "%d", xs_below(&st, 1000000)); break;
    }
    snprintf(a, sizeof(a), "[%s]", s);
    ck_assert_int_eq(ml_json_read_numbers(a, v, 1, &n, err, sizeof(err)), ML_OK);
    ref = strtod(s, 0);
    if( memcmp(&v[0], &ref, sizeof(ref))!=0 ) ck_abort_msg("%s: read %.17g, strtod %.17g", s, v[0], ref);
    if( shape<=3 ) nFast++;
  }
  ck_assert_int_gt(nFast, 100000);
}
END_TEST

Suite *suite_json(void){
  Suite *s = suite_create("json");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_nested_commas);
  tcase_add_test(tc, test_string_escaping);
  tcase_add_test(tc, test_doubles_shortest_round_trip);
  tcase_add_test(tc, test_non_finite_is_null);
  tcase_add_test(tc, test_long_output_grows);
  tcase_add_test(tc, test_utf8_replacement);
  tcase_add_test(tc, test_xml_text);
  tcase_add_test(tc, test_cut_between_characters);
  tcase_add_test(tc, test_read_long_numbers);
  tcase_add_test(tc, test_read_duplicate_field);
  tcase_add_test(tc, test_read_numbers);
  tcase_add_test(tc, test_read_numbers_exact);
  suite_add_tcase(s, tc);
  return s;
}
