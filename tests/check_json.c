/*
** SPDX-License-Identifier: MIT
**
** check_json.c -- the JSON writer (ml_json.c): commas, escaping, shortest
** round-trip doubles, null for non-finite numbers.
*/
#include <math.h>
#include <stdlib.h>
#include "check_suites.h"
#include "ml_core.h"

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

Suite *suite_json(void){
  Suite *s = suite_create("json");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_nested_commas);
  tcase_add_test(tc, test_string_escaping);
  tcase_add_test(tc, test_doubles_shortest_round_trip);
  tcase_add_test(tc, test_non_finite_is_null);
  tcase_add_test(tc, test_long_output_grows);
  suite_add_tcase(s, tc);
  return s;
}
