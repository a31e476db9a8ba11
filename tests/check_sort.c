/*
** SPDX-License-Identifier: MIT
**
** check_sort.c -- the radix sort and the kept-sorted buffer (ml_sample.c),
** in key order and in the canonical order (ties by weight).
** Each test compares against qsort on the doubles, so a key mapping that
** broke order (negatives, -0.0, +-Inf, subnormals, huge values) fails here.
*/
#include <math.h>
#include <stdlib.h>
#include <float.h>
#include "check_suites.h"
#include "ml_core.h"

static int cmp_double(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

/* Sorts v[0..n) as keys with ml_radix_sort and checks the result equals qsort. */
static void check_sorted_like_qsort(const double *v, long n){
  ml_key *k = malloc(sizeof(ml_key)*(n+1)), *tmp = malloc(sizeof(ml_key)*(n+1) + ML_RADIX_EXTRA);
  double *ref = malloc(sizeof(double)*(n+1));
  long i;
  for(i=0; i<n; i++){ k[i] = ml_key_of(v[i]); ref[i] = v[i]; }
  ml_radix_sort(k, n, 8, tmp);
  qsort(ref, n, sizeof(double), cmp_double);
  for(i=0; i<n; i++){
    ck_assert_msg(ml_double_of(k[i])==ref[i], "position %ld: %.17g != %.17g", i, ml_double_of(k[i]), ref[i]);
    if( i>0 ) ck_assert(k[i-1]<=k[i]);
  }
  free(k); free(tmp); free(ref);
}

START_TEST(test_key_order_preserved){
  static const double v[] = { -INFINITY, -DBL_MAX, -1e300, -1.0, -DBL_MIN, -4.9e-324,
                              0.0, 4.9e-324, DBL_MIN, 0.5, 1.0, 1e300, DBL_MAX, INFINITY };
  size_t i;
  for(i=1; i<sizeof(v)/sizeof(v[0]); i++){
    ck_assert_msg(ml_key_of(v[i-1]) < ml_key_of(v[i]), "key(%g) !< key(%g)", v[i-1], v[i]);
    ck_assert(ml_double_of(ml_key_of(v[i]))==v[i]);
  }
}
END_TEST

START_TEST(test_signed_zero_is_one_key){
  ck_assert(ml_key_of(-0.0)==ml_key_of(0.0));
  ck_assert(!signbit(ml_double_of(ml_key_of(-0.0))));
}
END_TEST

START_TEST(test_sort_random_uniform){
  long n = 100000, i;
  double *v = malloc(sizeof(double)*n);
  test_seed(1);
  for(i=0; i<n; i++) v[i] = test_rand01();
  check_sorted_like_qsort(v, n);
  free(v);
}
END_TEST

START_TEST(test_sort_heavy_ties_and_signs){
  long n = 50000, i;
  double *v = malloc(sizeof(double)*n);
  test_seed(2);
  for(i=0; i<n; i++){
    double r = test_rand01();
    v[i] = r<0.2 ? -0.0 : r<0.4 ? 0.0 : r<0.5 ? INFINITY : r<0.6 ? -INFINITY
         : r<0.7 ? floor(test_rand01()*5)-2 : (test_rand01()-0.5)*1e308;
  }
  check_sorted_like_qsort(v, n);
  free(v);
}
END_TEST

/* The value-bucket passes (ml_sample.c): distributions that put most keys
** in one bucket at every level, ranges that overflow or are subnormal, and
** the LSD fallback below them. */
START_TEST(test_sort_value_buckets_adversarial){
  long n = 60000, i, t;
  double *v = malloc(sizeof(double)*n);
  test_seed(3);
  for(t=0; t<7; t++){
    for(i=0; i<n; i++){
      double u = test_rand01();
      switch( t ){
        case 0: v[i] = i==7 ? 1e12 : u; break;                       /* one far outlier */
        case 1: v[i] = pow(u, 40.0); break;                           /* piled up at 0 */
        case 2: v[i] = u*4.9e-320; break;                             /* subnormals only */
        case 3: v[i] = (u-0.5)*1.7e308*2; break;                      /* range overflows */
        case 4: v[i] = i%3 ? 0.5 : 0.5 + u*1e-12; break;              /* ties and a hair apart */
        case 5: v[i] = floor(u*1e6)/1e6 - (i%2 ? 0.0 : 1e-300); break;/* probabilities, 6 decimals */
        default: v[i] = exp((u-0.5)*1400.0) * (i%2 ? 1 : -1); break;  /* every exponent */
      }
    }
    check_sorted_like_qsort(v, n);
  }
  free(v);
}
END_TEST

START_TEST(test_sort_small_and_constant){
  double one[1] = {3.0}, same[1000];
  long i;
  for(i=0; i<1000; i++) same[i] = 0.25;
  check_sorted_like_qsort(one, 1);
  check_sorted_like_qsort(same, 1000);
  for(i=0; i<1000; i++) same[i] = (double)(1000-i);     /* reversed */
  check_sorted_like_qsort(same, 1000);
  for(i=0; i<40; i++) same[i] = (double)((i*7)%13) - 6.0; /* insertion-sort path */
  check_sorted_like_qsort(same, 40);
}
END_TEST

START_TEST(test_sort_width16_carries_aux){
  long n = 20000, i;
  MlRec16 *r = malloc(sizeof(MlRec16)*n), *tmp = malloc(sizeof(MlRec16)*n + ML_RADIX_EXTRA);
  test_seed(3);
  for(i=0; i<n; i++){
    double s = floor(test_rand01()*100);
    r[i].key = ml_key_of(s);
    r[i].aux = s*2.0 + 1.0;        /* aux is a function of the key: must travel with it */
  }
  ml_radix_sort(r, n, 16, tmp);
  for(i=0; i<n; i++){
    ck_assert(ml_double_of(r[i].key)*2.0+1.0==r[i].aux);
    if( i ) ck_assert(r[i-1].key<=r[i].key);
  }
  free(r); free(tmp);
}
END_TEST

/* The sort is stable at every width and on every path (insertion sort of a
** short input, value buckets sorted as they are copied, the levels below,
** the LSD fallback, the first level's bucket cap): records of equal keys
** keep their input order, so that sums over a tie group are taken in the
** order the rows came (the families' bits depend on it).  aux numbers the
** records; aux2 carries a function of both. */
START_TEST(test_sort_stable_every_width){
  static const long sizes[] = { 2, 16, 17, 40, 49, 300, 5000, 100000, 300000 };
  static const unsigned widths[] = { 8, 16, 24 };
  size_t si, wi;
  test_seed(4);
  for(si=0; si<sizeof(sizes)/sizeof(sizes[0]); si++){
    long n = sizes[si], i;
    for(wi=0; wi<3; wi++){
      unsigned w = widths[wi];
      unsigned char *a = malloc((size_t)n*w), *tmp = malloc((size_t)n*w + ML_RADIX_EXTRA);
      int t;
      for(t=0; t<3; t++){
        for(i=0; i<n; i++){
          double u = test_rand01();
          /* few distinct values, probabilities to 3 decimals, every exponent */
          double v = t==0 ? floor(u*7) : t==1 ? floor(u*1000)/1000 : exp((u-0.5)*1400.0);
          unsigned char *r = a + (size_t)i*w;
          ml_key k = ml_key_of(v);
          double aux = (double)i, aux2 = v*3.0 + (double)i;
          memcpy(r, &k, 8);
          if( w>=16 ) memcpy(r+8, &aux, 8);
          if( w>=24 ) memcpy(r+16, &aux2, 8);
        }
        ml_radix_sort(a, n, w, tmp);
        for(i=0; i<n; i++){
          ml_key k, kp;
          double aux, auxp, aux2;
          memcpy(&k, a + (size_t)i*w, 8);
          if( w<16 ){
            if( i ){ memcpy(&kp, a + (size_t)(i-1)*w, 8); ck_assert(kp<=k); }
            continue;
          }
          memcpy(&aux, a + (size_t)i*w + 8, 8);
          if( w>=24 ){
            memcpy(&aux2, a + (size_t)i*w + 16, 8);
            ck_assert_msg(aux2==ml_double_of(k)*3.0 + aux, "n=%ld w=%u t=%d: record %ld torn", n, w, t, i);
          }
          if( i==0 ) continue;
          memcpy(&kp, a + (size_t)(i-1)*w, 8);
          memcpy(&auxp, a + (size_t)(i-1)*w + 8, 8);
          ck_assert_msg(kp<k || (kp==k && auxp<aux),
                        "n=%ld w=%u t=%d: position %ld out of order or unstable (%.17g #%.0f, %.17g #%.0f)",
                        n, w, t, i, ml_double_of(kp), auxp, ml_double_of(k), aux);
        }
      }
      free(a); free(tmp);
    }
  }
}
END_TEST

/* Adds and removes rows in random order and checks the buffer always holds,
** sorted, exactly the multiset a brute-force copy holds. */
START_TEST(test_kept_sorted_insert_remove){
  MlSamples s;
  double live[2][600];
  int nLive[2] = {0, 0}, step, y, i;
  test_seed(4);
  ml_samples_init(&s, 16);
  for(i=0; i<100; i++){
    y = test_rand01()<0.3;
    live[y][nLive[y]++] = floor(test_rand01()*20);
    ck_assert_int_eq(ml_samples_add(&s, y, live[y][nLive[y]-1], live[y][nLive[y]-1]+0.5), ML_OK);
  }
  ck_assert_int_eq(ml_samples_sort(&s), ML_OK);
  for(step=0; step<2000; step++){
    y = test_rand01()<0.3;
    if( test_rand01()<0.5 && nLive[y]>0 ){
      int at = (int)(test_rand01()*nLive[y]);
      double v = live[y][at];
      ck_assert_int_eq(ml_samples_remove(&s, y, v, v+0.5), 1);
      live[y][at] = live[y][--nLive[y]];
    }else if( nLive[y]<600 ){
      double v = floor(test_rand01()*20) - 10.0;
      live[y][nLive[y]++] = v;
      ck_assert_int_eq(ml_samples_add(&s, y, v, v+0.5), ML_OK);
    }
    for(y=0; y<2; y++){
      double ref[600];
      ck_assert_int_eq((int)s.n[y], nLive[y]);
      memcpy(ref, live[y], sizeof(double)*nLive[y]);
      qsort(ref, nLive[y], sizeof(double), cmp_double);
      for(i=0; i<nLive[y]; i++){
        ck_assert(ml_double_of(ml_samples_key(&s, y, i))==ref[i]);
        ck_assert(ml_samples_aux(&s, y, i)==ref[i]+0.5);
      }
    }
  }
  /* removing a row that is not there reports it and changes nothing */
  ck_assert_int_eq(ml_samples_remove(&s, 0, 1234.5, 0.0), 0);
  ml_samples_clear(&s);
}
END_TEST

/* Several keys of one class at once (ml_samples_add_keys, _remove_keys)
** leave the buffer that one key at a time leaves: a twin buffer fed key by
** key, heavy ties and repeated keys in one call, and a batch holding a key
** not there removes nothing. */
START_TEST(test_kept_sorted_keys_at_once){
  MlSamples s, t;
  int step, i, j;
  test_seed(48);
  ml_samples_init(&s, 8);
  ml_samples_init(&t, 8);
  ck_assert_int_eq(ml_samples_sort(&s), ML_OK);
  ck_assert_int_eq(ml_samples_sort(&t), ML_OK);
  for(step=0; step<1500; step++){
    ml_key k[ML_SAMPLES_MAX_KEYS];
    int m = 1 + (int)(test_rand01()*ML_SAMPLES_MAX_KEYS), y = test_rand01()<0.5;
    if( m>ML_SAMPLES_MAX_KEYS ) m = ML_SAMPLES_MAX_KEYS;
    if( test_rand01()<0.4 && t.n[y]>=m ){
      for(i=0; i<m; i++){                  /* m held keys, ascending, repeats allowed */
        ml_i64 at = (ml_i64)(test_rand01()*t.n[y]);
        ml_key v = ml_samples_key(&t, y, at);
        for(j=i; j>0 && k[j-1]>v; j--) k[j] = k[j-1];
        k[j] = v;
      }
      for(i=0; i<m; i++){                  /* a repeated key must be held as often */
        ml_i64 c = ml_samples_bound(&t, y, k[i], 1) - ml_samples_bound(&t, y, k[i], 0), r = 0;
        for(j=0; j<m; j++) r += k[j]==k[i];
        if( r>c ) break;
      }
      if( i<m ) continue;
      ck_assert_int_eq(ml_samples_remove_keys(&s, y, k, m), 1);
      for(i=0; i<m; i++) ck_assert_int_eq(ml_samples_remove(&t, y, ml_double_of(k[i]), 0.0), 1);
    }else{
      for(i=0; i<m; i++){
        ml_key v = ml_key_of(floor(test_rand01()*30) - 15.0);
        for(j=i; j>0 && k[j-1]>v; j--) k[j] = k[j-1];
        k[j] = v;
      }
      ck_assert_int_eq(ml_samples_add_keys(&s, y, k, m), ML_OK);
      for(i=0; i<m; i++) ck_assert_int_eq(ml_samples_add(&t, y, ml_double_of(k[i]), 0.0), ML_OK);
    }
    for(y=0; y<2; y++){
      ck_assert_int_eq((int)s.n[y], (int)t.n[y]);
      for(i=0; i<s.n[y]; i++) ck_assert(ml_samples_key(&s, y, i)==ml_samples_key(&t, y, i));
    }
  }
  {
    ml_key k[2];
    k[0] = ml_key_of(-15.0); k[1] = ml_key_of(1234.5);
    ml_i64 n0 = s.n[0];
    ck_assert_int_eq(ml_samples_remove_keys(&s, 0, k, 2), 0);
    ck_assert_int_eq((int)s.n[0], (int)n0);
  }
  ml_samples_clear(&s);
  ml_samples_clear(&t);
}
END_TEST

/* A record of a small pool with heavy ties: scores (signed zeros,
** infinities), weights and classes each of a few values. */
static void canon_draw(double *v){
  static const double sc[] = { -INFINITY, -0.0, 0.0, 0.5, 1.0, INFINITY };
  static const double wt[] = { 1.0/3, 0.1, 7.0, 1e-3, 1000.1 };
  v[0] = sc[(int)(test_rand01()*6) % 6];
  v[1] = wt[(int)(test_rand01()*5) % 5];
  v[2] = (double)((int)(test_rand01()*3) % 3);
}

/* Draws a record (y, score, aux, aux2), adds it to s with
** ml_samples_add_canonical and to the brute-force copy live[0..*pN). */
static void canon_add(MlSamples *s, double live[][4], int *pN){
  double v[3], *o = live[*pN];
  canon_draw(v);
  o[0] = test_rand01()<0.4;
  o[1] = v[0]; o[2] = v[1]; o[3] = v[2];
  ck_assert_int_eq(ml_samples_add_canonical(s, (int)o[0], v[0], v[1], v[2]), ML_OK);
  (*pN)++;
}

/* The canonical order kept by ml_samples_add_canonical /
** ml_samples_remove_canonical (widths 16 and 24) is, after every step, the
** order ml_samples_sort_canonical gives the same records sorted afresh. */
START_TEST(test_kept_canonical_order){
  unsigned width;
  test_seed(21);
  for(width=16; width<=24; width+=8){
    double live[400][4];                   /* y, score, aux, aux2 */
    int nLive = 0, step, i, y;
    MlSamples s;
    ml_samples_init(&s, width);
    for(i=0; i<60; i++) canon_add(&s, live, &nLive);   /* unsorted first, as a window's first rows */
    ck_assert_int_eq(ml_samples_sort_canonical(&s), ML_OK);
    for(step=0; step<600; step++){
      MlSamples r;
      if( nLive>0 && (nLive>=400 || test_rand01()<0.45) ){
        int at = (int)(test_rand01()*nLive) % nLive;
        double *o = live[at];
        ck_assert_int_eq(ml_samples_remove_canonical(&s, (int)o[0], o[1], o[2], o[3]), 1);
        memcpy(live[at], live[--nLive], sizeof(live[0]));
      }else{
        canon_add(&s, live, &nLive);
      }
      ml_samples_init(&r, width);
      for(i=0; i<nLive; i++) ck_assert_int_eq(ml_samples_add2(&r, (int)live[i][0], live[i][1], live[i][2], live[i][3]), ML_OK);
      ck_assert_int_eq(ml_samples_sort_canonical(&r), ML_OK);
      for(y=0; y<2; y++){
        ck_assert_int_eq((int)s.n[y], (int)r.n[y]);
        ck_assert(s.n[y]==0 || memcmp(s.a[y], r.a[y], (size_t)s.n[y]*width)==0);
      }
      ml_samples_clear(&r);
    }
    /* a record not held (a weight never drawn): nothing removed */
    ck_assert_int_eq(ml_samples_remove_canonical(&s, 0, 0.5, 2.0, 1.0), 0);
    ml_samples_clear(&s);
  }
}
END_TEST

START_TEST(test_unsorted_remove_then_sort){
  MlSamples s;
  ml_samples_init(&s, 8);
  ml_samples_add(&s, 1, 3.0, 0); ml_samples_add(&s, 1, 1.0, 0); ml_samples_add(&s, 1, 2.0, 0);
  ml_samples_add(&s, 0, -0.0, 0);
  ck_assert_int_eq(ml_samples_remove(&s, 1, 3.0, 0), 1);
  ck_assert_int_eq(ml_samples_remove(&s, 0, 0.0, 0), 1);   /* -0.0 and 0.0 are one value */
  ck_assert_int_eq(ml_samples_sort(&s), ML_OK);
  ck_assert_int_eq((int)s.n[1], 2);
  ck_assert_int_eq((int)s.n[0], 0);
  ck_assert(ml_double_of(ml_samples_key(&s, 1, 0))==1.0);
  ck_assert(ml_double_of(ml_samples_key(&s, 1, 1))==2.0);
  ml_samples_clear(&s);
}
END_TEST

/* A buffer widened (ml_samples_widen) or trimmed (ml_samples_trim) holds
** exactly its rows, 1 for a class of none or one: adding more must grow it
** (1 + 1/2 is 1: the buffer once stayed at 1 and the next add wrote past
** its end, n above cap). */
START_TEST(test_grow_after_widen_and_trim){
  MlSamples s;
  int i, y;
  ml_samples_init(&s, 8);
  ck_assert_int_eq(ml_samples_add(&s, 1, 0.5, 0), ML_OK);       /* class 1: one row, class 0: none */
  ck_assert_int_eq(ml_samples_widen(&s, 2.0), ML_OK);
  ck_assert_int_eq((int)s.width, 16);
  for(i=0; i<300; i++){
    for(y=0; y<2; y++){
      ck_assert_int_eq(ml_samples_add(&s, y, i/300.0, 1.0 + y), ML_OK);
      ck_assert_msg(s.n[y]<=s.cap[y], "class %d: %lld rows in room for %lld", y, (long long)s.n[y], (long long)s.cap[y]);
    }
  }
  ml_samples_trim(&s);
  ck_assert_int_eq((int)s.cap[0], 300);
  for(i=0; i<5; i++){
    ck_assert_int_eq(ml_samples_add(&s, 0, 2.0 + i, 1.0), ML_OK);
    ck_assert(s.n[0]<=s.cap[0]);
  }
  ck_assert_int_eq(ml_samples_sort(&s), ML_OK);
  ck_assert_int_eq((int)s.n[1], 301);
  ck_assert(ml_double_of(ml_samples_key(&s, 0, 304))==6.0);
  ck_assert(ml_samples_aux(&s, 1, 300)==2.0);
  ml_samples_clear(&s);
}
END_TEST

Suite *suite_sort(void){
  Suite *s = suite_create("sort");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_key_order_preserved);
  tcase_add_test(tc, test_signed_zero_is_one_key);
  tcase_add_test(tc, test_sort_random_uniform);
  tcase_add_test(tc, test_sort_heavy_ties_and_signs);
  tcase_add_test(tc, test_sort_value_buckets_adversarial);
  tcase_add_test(tc, test_sort_small_and_constant);
  tcase_add_test(tc, test_sort_width16_carries_aux);
  tcase_add_test(tc, test_sort_stable_every_width);
  tcase_add_test(tc, test_kept_sorted_insert_remove);
  tcase_add_test(tc, test_unsorted_remove_then_sort);
  tcase_add_test(tc, test_kept_sorted_keys_at_once);
  tcase_add_test(tc, test_kept_canonical_order);
  tcase_add_test(tc, test_grow_after_widen_and_trim);
  suite_add_tcase(s, tc);
  return s;
}
