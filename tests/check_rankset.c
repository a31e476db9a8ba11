/*
** SPDX-License-Identifier: MIT
**
** check_rankset.c -- the counted multiset (ml_rankset.c) against a naive
** reference: an unsorted array of doubles counted by a linear scan.
**
** Random inserts and removes (some of keys that are absent), with heavy
** duplicates, +-Inf, -0.0 beside +0.0, and enough keys that blocks split,
** merge and disappear; after every operation the rank of probe keys is
** compared with the reference.
*/
#include <math.h>
#include <stdlib.h>
#include "check_suites.h"
#include "ml_core.h"

typedef struct Ref { double *v; long n; } Ref;

static long ref_less(const Ref *r, double x, int orEqual){
  long i, c = 0;
  for(i=0; i<r->n; i++) c += orEqual ? r->v[i]<=x : r->v[i]<x;
  return c;
}
/* Removes one value == x from the reference; 1 if there was one. */
static int ref_remove(Ref *r, double x){
  long i;
  for(i=0; i<r->n; i++){
    if( r->v[i]==x ){ r->v[i] = r->v[--r->n]; return 1; }
  }
  return 0;
}

/* Values drawn from a small pool (duplicates, signed zeros, infinities) or
** uniformly. */
static double draw(int pool){
  static const double special[] = { -INFINITY, INFINITY, -0.0, 0.0, 1.0, -1.0, 0.5 };
  double u = test_rand01();
  if( pool ) return special[(int)(u*7) % 7];
  if( u<0.1 ) return special[(int)(test_rand01()*7) % 7];
  if( u<0.5 ) return floor(test_rand01()*50.0)/10.0 - 2.0;   /* ties */
  return test_rand01()*1e3 - 500.0;
}

static void check_ranks(const MlRankSet *s, const Ref *r, double x){
  ml_i64 lt, le;
  ck_assert_int_eq(ml_rankset_less(s, ml_key_of(x)), ref_less(r, x, 0));
  ck_assert_int_eq(ml_rankset_le(s, ml_key_of(x)), ref_less(r, x, 1));
  ml_rankset_count(s, ml_key_of(x), &lt, &le);
  ck_assert_int_eq(lt, ref_less(r, x, 0));
  ck_assert_int_eq(le, ref_less(r, x, 1));
}

/* nOps random operations, growing to about target keys then shrinking. */
static void random_ops(unsigned long long seed, long nOps, long target, int pool){
  MlRankSet s;
  Ref r;
  long op;
  test_seed(seed);
  ml_rankset_init(&s);
  r.v = malloc(sizeof(double)*(size_t)(nOps+1)); r.n = 0;
  for(op=0; op<nOps; op++){
    double x = draw(pool);
    int grow = op < nOps/2 ? r.n < target : 0;
    if( grow || test_rand01() < (op < nOps/2 ? 0.3 : 0.4) ){
      ck_assert_int_eq(ml_rankset_insert(&s, ml_key_of(x)), ML_OK);
      r.v[r.n++] = x;
    }else{
      /* remove a present value most of the time, sometimes an absent one */
      double z = (r.n>0 && test_rand01()<0.9) ? r.v[(long)(test_rand01()*r.n)] : x;
      int want = ref_remove(&r, z);
      ck_assert_int_eq(ml_rankset_remove(&s, ml_key_of(z)), want);
    }
    ck_assert_int_eq(s.n, r.n);
    check_ranks(&s, &r, draw(pool));
    if( r.n>0 ) check_ranks(&s, &r, r.v[(long)(test_rand01()*r.n)]);
  }
  check_ranks(&s, &r, -INFINITY);
  check_ranks(&s, &r, INFINITY);
  check_ranks(&s, &r, -0.0);
  ml_rankset_clear(&s);
  ck_assert_int_eq(s.n, 0);
  free(r.v);
}

START_TEST(test_rankset_random_small){ random_ops(11, 4000, 40, 0); }
END_TEST
START_TEST(test_rankset_random_blocks_split_and_merge){ random_ops(12, 12000, 3000, 0); }
END_TEST
START_TEST(test_rankset_duplicates_infinities_signed_zero){ random_ops(13, 6000, 2000, 1); }
END_TEST

START_TEST(test_rankset_signed_zero_is_one_key){
  MlRankSet s;
  ml_rankset_init(&s);
  ck_assert_int_eq(ml_rankset_insert(&s, ml_key_of(-0.0)), ML_OK);
  ck_assert_int_eq(ml_rankset_insert(&s, ml_key_of(0.0)), ML_OK);
  ck_assert_int_eq(ml_rankset_le(&s, ml_key_of(0.0)), 2);
  ck_assert_int_eq(ml_rankset_less(&s, ml_key_of(0.0)), 0);
  ck_assert_int_eq(ml_rankset_remove(&s, ml_key_of(0.0)), 1);    /* removes the -0.0 too */
  ck_assert_int_eq(ml_rankset_remove(&s, ml_key_of(-0.0)), 1);
  ck_assert_int_eq(ml_rankset_remove(&s, ml_key_of(0.0)), 0);
  ck_assert_int_eq(s.n, 0);
  ml_rankset_clear(&s);
}
END_TEST

START_TEST(test_rankset_build_then_update){
  long n = 5000, i;
  ml_key *a = malloc(sizeof(ml_key)*(size_t)n);
  double *v = malloc(sizeof(double)*(size_t)(n+1000));
  MlRankSet s;
  Ref r = { v, n };
  for(i=0; i<n; i++){ v[i] = (double)(i/3) - 100.0; a[i] = ml_key_of(v[i]); }  /* ascending */
  ml_rankset_init(&s);
  ck_assert_int_eq(ml_rankset_build(&s, a, n, 1), ML_OK);
  ck_assert_int_eq(s.n, n);
  for(i=0; i<200; i++) check_ranks(&s, &r, (double)i*9.0 - 150.5);
  test_seed(14);
  for(i=0; i<3000; i++){
    double x = floor(test_rand01()*2000.0) - 150.0;
    if( i%2 ){
      ck_assert_int_eq(ml_rankset_remove(&s, ml_key_of(x)), ref_remove(&r, x));
    }else{
      ck_assert_int_eq(ml_rankset_insert(&s, ml_key_of(x)), ML_OK);
      r.v[r.n++] = x;
    }
    check_ranks(&s, &r, x);
    check_ranks(&s, &r, x + 0.5);
  }
  ml_rankset_clear(&s);
  free(a); free(v);
}
END_TEST

Suite *suite_rankset(void){
  Suite *s = suite_create("rankset");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_rankset_random_small);
  tcase_add_test(tc, test_rankset_random_blocks_split_and_merge);
  tcase_add_test(tc, test_rankset_duplicates_infinities_signed_zero);
  tcase_add_test(tc, test_rankset_signed_zero_is_one_key);
  tcase_add_test(tc, test_rankset_build_then_update);
  suite_add_tcase(s, tc);
  return s;
}
