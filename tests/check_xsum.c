/*
** SPDX-License-Identifier: MIT
**
** check_xsum.c -- the exact sums (ml_xsum.c) against an independent exact
** reference: Shewchuk's non-overlapping partials with CPython's math.fsum
** final rounding (correctly rounded, half to even), over random add/remove
** sequences of subnormals, huge and tiny magnitudes and heavy cancellation;
** plus the probability sum MlPSum against the same reference.
*/
#include <math.h>
#include <float.h>
#include <stdlib.h>
#include "check_suites.h"
#include "ml_core.h"

/* math.fsum (CPython's msum + rounding correction) of finite x[0..n) whose
** partial sums do not overflow. */
static double ref_fsum(const double *x, int n){
  double p[64 + 2100/53];      /* non-overlapping partials: at most ~40 for doubles */
  int np = 0, i, j;
  for(i=0; i<n; i++){
    double v = x[i];
    int k = 0;
    for(j=0; j<np; j++){
      double y = p[j], hi, lo;
      if( fabs(v) < fabs(y) ){ double t = v; v = y; y = t; }
      hi = v + y;
      lo = y - (hi - v);
      if( lo!=0.0 ) p[k++] = lo;
      v = hi;
    }
    np = k;
    p[np++] = v;
  }
  {
    double hi = 0.0, lo = 0.0;
    if( np>0 ){
      int k = np - 1;
      hi = p[k];
      while( k>0 ){
        double v = hi, y = p[--k];
        hi = v + y;
        lo = y - (hi - v);
        if( lo!=0.0 ) break;
      }
      if( k>0 && ((lo<0.0 && p[k-1]<0.0) || (lo>0.0 && p[k-1]>0.0)) ){
        double y = lo*2.0, v = hi + y;
        if( y==v - hi ) hi = v;
      }
    }
    return hi;
  }
}

static void same_double(double got, double want, const char *what, int step){
  ck_assert_msg(memcmp(&got, &want, 8)==0 || (got==0.0 && want==0.0),
                "%s, step %d: got %.17g, want %.17g", what, step, got, want);
}

/* A random double of a chosen shape. */
static double shape(int kind){
  double u = test_rand01(), sgn = test_rand01()<0.5 ? -1.0 : 1.0;
  switch( kind ){
    case 0: return sgn*u;                                        /* plain */
    case 1: return sgn*ldexp(0.5 + u/2, (int)(test_rand01()*2000) - 1000);  /* any magnitude */
    case 2: return sgn*ldexp(u, -1074 + (int)(test_rand01()*60)); /* subnormal */
    case 3: return sgn*ldexp(1.0 + u, 900 + (int)(test_rand01()*60)); /* huge */
    case 4: return sgn*(1.0 + ldexp(u, -60));                    /* cancellation near 1 */
    default: return sgn*ldexp(u, (int)(test_rand01()*80) - 40);
  }
}

START_TEST(test_xsum_random_add_remove){
  enum { N = 400 };
  double held[N];
  int round, step;
  test_seed(7);
  for(round=0; round<60; round++){
    MlXsum a;
    int n = 0, kind = round % 6;
    ml_xsum_init(&a);
    for(step=0; step<3000; step++){
      if( n>0 && (n==N || test_rand01()<0.45) ){
        int i = (int)(test_rand01()*n);
        ml_xsum_add(&a, held[i], -1);
        held[i] = held[--n];
      }else{
        double v = shape(test_rand01()<0.7 ? kind : (int)(test_rand01()*6));
        ml_xsum_add(&a, v, +1);
        held[n++] = v;
      }
      if( step%7==0 ) same_double(ml_xsum_round(&a), ref_fsum(held, n), "random", step);
    }
    while( n>0 ) ml_xsum_add(&a, held[--n], -1);
    same_double(ml_xsum_round(&a), 0.0, "emptied", round);
    ck_assert_int_eq(ml_xsum_sign(&a), 0);
  }
}
END_TEST

START_TEST(test_xsum_exact_cases){
  MlXsum a;
  int i;
  ml_xsum_init(&a);
  ml_xsum_add(&a, 1e308, 1); ml_xsum_add(&a, 1.0, 1); ml_xsum_add(&a, -1e308, 1);
  same_double(ml_xsum_round(&a), 1.0, "1e308 + 1 - 1e308", 0);
  ml_xsum_init(&a);
  ml_xsum_add(&a, DBL_MAX, 1); ml_xsum_add(&a, DBL_MAX, 1);
  ck_assert(isinf(ml_xsum_round(&a)) && ml_xsum_round(&a)>0);
  ml_xsum_add(&a, DBL_MAX, -1);
  same_double(ml_xsum_round(&a), DBL_MAX, "2 max - max", 0);
  /* ties to even: 1 + 2^-53 is halfway between 1 and its successor */
  ml_xsum_init(&a);
  ml_xsum_add(&a, 1.0, 1); ml_xsum_add(&a, ldexp(1.0, -53), 1);
  same_double(ml_xsum_round(&a), 1.0, "tie to even (down)", 0);
  ml_xsum_add(&a, 4.9e-324, 1);             /* a sticky bit far below breaks the tie */
  same_double(ml_xsum_round(&a), nextafter(1.0, 2.0), "tie broken by sticky", 0);
  /* subnormal results are exact */
  ml_xsum_init(&a);
  ml_xsum_add(&a, 4.9e-324, 1); ml_xsum_add(&a, 4.9e-324, 1); ml_xsum_add(&a, -DBL_MIN, 1);
  same_double(ml_xsum_round(&a), -DBL_MIN + 2*4.9e-324, "subnormal", 0);
  /* the sliding brier frame: three terms after others left */
  ml_xsum_init(&a);
  ml_xsum_add(&a, 9e-34, 1); ml_xsum_add(&a, 0.123456789*0.123456789, 1); ml_xsum_add(&a, 0.81, 1);
  ml_xsum_add(&a, 9e-34, -1); ml_xsum_add(&a, 0.123456789*0.123456789, -1); ml_xsum_add(&a, 0.81, -1);
  ml_xsum_add(&a, 1e-34, 1);
  same_double(ml_xsum_round(&a), 1e-34, "left terms leave no residue", 0);
  /* more than one carry pass' worth of terms, then remove them all */
  ml_xsum_init(&a);
  for(i=0; i<5000; i++) ml_xsum_add(&a, 0.1*i, 1);
  for(i=0; i<5000; i++) ml_xsum_add(&a, 0.1*i, -1);
  same_double(ml_xsum_round(&a), 0.0, "5000 in, 5000 out", 0);
  /* non-finite terms come and go */
  ml_xsum_add(&a, INFINITY, 1);
  ck_assert(ml_xsum_round(&a)==INFINITY);
  ml_xsum_add(&a, -INFINITY, 1);
  ck_assert(isnan(ml_xsum_round(&a)));
  ml_xsum_add(&a, INFINITY, -1); ml_xsum_add(&a, -INFINITY, -1);
  same_double(ml_xsum_round(&a), 0.0, "infinities removed", 0);
}
END_TEST

/* MlPSum: exact sums of probabilities, the p < 2^-17 ones included. */
START_TEST(test_psum_random_add_remove){
  enum { N = 300 };
  double held[N];
  int round, step;
  test_seed(11);
  for(round=0; round<40; round++){
    MlPSum s;
    int n = 0;
    memset(&s, 0, sizeof(s));
    for(step=0; step<2000; step++){
      if( n>0 && (n==N || test_rand01()<0.45) ){
        int i = (int)(test_rand01()*n);
        ck_assert_int_eq(ml_psum_add(&s, held[i], -1), ML_OK);
        held[i] = held[--n];
      }else{
        double u = test_rand01(), v;
        switch( (round + step) % 5 ){
          case 0: v = u; break;
          case 1: v = ldexp(u, -(int)(test_rand01()*1074)); break;   /* tiny to subnormal */
          case 2: v = test_rand01()<0.5 ? 1.0 : 0.0; break;
          case 3: v = ldexp(1.0, -17) * (test_rand01()<0.5 ? 1.0 : nextafter(1.0, 0.0)); break;
          default: v = 1.0 - ldexp(u, -50); break;
        }
        ck_assert_int_eq(ml_psum_add(&s, v, +1), ML_OK);
        held[n++] = v;
      }
      if( step%5==0 ) same_double(ml_psum_round(&s), ref_fsum(held, n), "psum", step);
    }
    while( n>0 ) ml_psum_add(&s, held[--n], -1);
    same_double(ml_psum_round(&s), 0.0, "psum emptied", round);
    ml_psum_clear(&s);
  }
}
END_TEST

/* ml_exact_sum (the weighted sweep's tie-group sums): correctly rounded,
** the same double as math.fsum, on real-valued weights of one magnitude
** (its two-double fast path), on weights spanning 1e-300..1e300 and with
** subnormals (its fall-back), strided as the sample buffer holds them. */
START_TEST(test_exact_sum){
  static double buf[2*300];
  double x[300];
  int trial, i, n;
  srand(38);
  for(trial=0; trial<3000; trial++){
    n = 1 + rand()%300;
    for(i=0; i<n; i++){
      double u = (rand() + 0.5) / ((double)RAND_MAX + 1.0);
      switch( trial%4 ){
        case 0: x[i] = 0.5 + 1.5*u; break;                         /* issue 38's weights */
        case 1: x[i] = ldexp(u, (rand()%2001) - 1000); break;      /* 2^-1000 .. 2^1000 */
        case 2: x[i] = (rand()%3==0) ? 4.9e-324*(1 + rand()%1000) : u*1e-300; break;
        default: x[i] = (double)(1 + rand()%1000) * (rand()%2 ? 1.0 : 0.1); break;
      }
      buf[2*i] = -1.0; buf[2*i+1] = x[i];
    }
    ck_assert_msg(ml_exact_sum(buf+1, 2, n)==ref_fsum(x, n), "trial %d: %a, want %a", trial,
                  ml_exact_sum(buf+1, 2, n), ref_fsum(x, n));
  }
}
END_TEST

Suite *suite_xsum(void){
  Suite *s = suite_create("xsum");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_xsum_random_add_remove);
  tcase_add_test(tc, test_xsum_exact_cases);
  tcase_add_test(tc, test_psum_random_add_remove);
  tcase_add_test(tc, test_exact_sum);
  suite_add_tcase(s, tc);
  return s;
}
