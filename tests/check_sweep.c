/*
** SPDX-License-Identifier: MIT
**
** check_sweep.c -- the threshold sweep and its folds (ml_sweep.c), on small
** cases worked by hand and on scikit-learn's documented example.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "ml_core.h"

static void fill(MlSamples *s, unsigned width, const int *y, const double *v, const double *aux, int n){
  int i;
  ml_samples_init(s, width);
  for(i=0; i<n; i++) ck_assert_int_eq(ml_samples_add(s, y[i], v[i], aux ? aux[i] : 0.0), ML_OK);
  ck_assert_int_eq(ml_samples_sort(s), ML_OK);
}

/* sklearn's docstring example: average_precision_score -> 0.8333, roc_auc 0.75 */
static const int yDoc[] = {0, 0, 1, 1};
static const double sDoc[] = {0.1, 0.4, 0.35, 0.8};

START_TEST(test_sweep_visits_thresholds_highest_first){
  MlSamples s; MlSweep w;
  static const double key[] = {0.8, 0.4, 0.35, 0.1};
  static const int tp[] = {1, 1, 2, 2}, fp[] = {0, 1, 1, 2};
  int i = 0;
  fill(&s, 8, yDoc, sDoc, 0, 4);
  ml_sweep_init(&w, &s, 0);
  ck_assert_int_eq((int)w.P, 2); ck_assert_int_eq((int)w.N, 2);
  while( ml_sweep_next(&w) ){
    ck_assert_int_lt(i, 4);
    ck_assert(ml_double_of(w.key)==key[i]);
    ck_assert_int_eq((int)w.tp, tp[i]);
    ck_assert_int_eq((int)w.fp, fp[i]);
    i++;
  }
  ck_assert_int_eq(i, 4);
  ml_samples_clear(&s);
}
END_TEST

START_TEST(test_folds_on_sklearn_example){
  MlSamples s;
  fill(&s, 8, yDoc, sDoc, 0, 4);
  ck_assert_double_eq_tol(ml_fold_average_precision(&s, 0), 5.0/6.0, 1e-15);
  ck_assert_double_eq_tol(ml_fold_auroc(&s), 0.75, 1e-15);
  ck_assert_double_eq_tol(ml_fold_youden_j(&s), 0.5, 1e-15);
  ck_assert_double_eq_tol(ml_fold_tpr_at_fpr(&s, 0.5, 0), 1.0, 1e-15);
  ck_assert_double_eq_tol(ml_fold_tpr_at_fpr(&s, 0.49, 0), 0.5, 1e-15);
  ck_assert_double_eq_tol(ml_fold_tpr_at_fpr(&s, 0.5, 1), 1.0, 1e-15);   /* spec >= 0.5 */
  ck_assert_double_eq_tol(ml_fold_tpr_at_fpr(&s, 0.51, 1), 0.5, 1e-15);
  ml_samples_clear(&s);
}
END_TEST

START_TEST(test_all_tied_is_one_threshold){
  static const int y[] = {1, 0, 1, 0, 0};
  static const double v[] = {0.5, 0.5, -0.0, 0.0, 0.5};
  MlSamples s; MlSweep w;
  int n = 0;
  fill(&s, 8, y, v, 0, 5);
  ml_sweep_init(&w, &s, 0);
  while( ml_sweep_next(&w) ) n++;
  ck_assert_int_eq(n, 2);                 /* 0.5 and 0 (signed zeros merged) */
  /* AP: at 0.5: tp 1 fp 2 -> P=1/3, dR=1/2; at 0: tp 2 fp 3 -> P=2/5, dR=1/2 */
  ck_assert_double_eq_tol(ml_fold_average_precision(&s, 0), 0.5/3.0 + 0.5*0.4, 1e-15);
  /* AUROC: pairs (pos, neg): pos 0.5 beats 1 neg, ties 2; pos 0 ties 1 -> (1 + 1 + 0.5)/6 */
  ck_assert_double_eq_tol(ml_fold_auroc(&s), (1.0 + 2*0.5 + 0.5)/6.0, 1e-15);
  ml_samples_clear(&s);
}
END_TEST

START_TEST(test_filter_keeps_window_only){
  static const int y[] = {1, 0, 1, 0, 1, 0};
  static const double v[] = {0.9, 0.8, 0.7, 0.6, 0.5, 0.4};
  static const double aux[] = {1, 50, 2, 3, 99, 4};
  MlSamples s; MlSweep w; MlFilter f = {1.0, 4.0};
  int n = 0;
  fill(&s, 16, y, v, aux, 6);
  ml_sweep_init(&w, &s, &f);
  ck_assert_int_eq((int)w.P, 2); ck_assert_int_eq((int)w.N, 2);
  while( ml_sweep_next(&w) ) n++;
  ck_assert_int_eq(n, 4);                 /* 0.9 0.7 0.6 0.4 */
  /* kept ranking: 1 1 0 0 -> AP 1 */
  ck_assert_double_eq_tol(ml_fold_average_precision(&s, &f), 1.0, 1e-15);
  ml_samples_clear(&s);
}
END_TEST

/* sklearn: roc_auc_score([0,0,1,1], [.1,.4,.35,.8], max_fpr=0.5): the ROC
** points (0,0) (0,.5) (.5,.5) (.5,1) (1,1); area up to 0.5 is 0.25,
** McClish 0.5 (1 + (0.25 - 0.125)/(0.5 - 0.125)) = 2/3.  At max_fpr 0.25 the
** curve is interpolated on the flat segment: area 0.125, min 1/32, max 1/4. */
START_TEST(test_partial_auroc){
  MlSamples s;
  fill(&s, 8, yDoc, sDoc, 0, 4);
  ck_assert_double_eq_tol(ml_fold_partial_auroc(&s, 0.5), 2.0/3.0, 1e-15);
  ck_assert_double_eq_tol(ml_fold_partial_auroc(&s, 0.25), 0.5*(1.0 + (0.125 - 1.0/32)/(0.25 - 1.0/32)), 1e-15);
  ml_samples_clear(&s);
}
END_TEST

/* Operating points on the sklearn example: thresholds 0.8 (tp 1, fp 0),
** 0.4 (1, 1), 0.35 (2, 1), 0.1 (2, 2). */
START_TEST(test_operating_points){
  MlSamples s;
  MlOpPoint o;
  fill(&s, 8, yDoc, sDoc, 0, 4);
  ml_fold_operating_point(&s, ML_OP_FPR, 0.5, &o);          /* TPR 1 at 0.35 */
  ck_assert(!o.allNegative && ml_double_of(o.key)==0.35 && o.tp==2 && o.fp==1 && o.achieved);
  ml_fold_operating_point(&s, ML_OP_SPECIFICITY, 0.9, &o);  /* FPR 0: 0.8 */
  ck_assert(!o.allNegative && ml_double_of(o.key)==0.8 && o.tp==1 && o.fp==0);
  ml_fold_operating_point(&s, ML_OP_SENSITIVITY, 0.6, &o);  /* TPR 1 first at 0.35 */
  ck_assert(ml_double_of(o.key)==0.35 && o.fp==1);
  ml_fold_operating_point(&s, ML_OP_PRECISION, 0.6, &o);    /* 0.8: 1/1; 0.35: 2/3 */
  ck_assert(ml_double_of(o.key)==0.35 && o.achieved);
  ml_fold_operating_point(&s, ML_OP_PRECISION, 0.99, &o);
  ck_assert(ml_double_of(o.key)==0.8 && o.achieved);
  ml_fold_operating_point(&s, ML_OP_MAX_F1, 0.0, &o);       /* F1 2/3 at 0.8, 4/5 at 0.35 */
  ck_assert(ml_double_of(o.key)==0.35);
  ml_fold_operating_point(&s, ML_OP_YOUDEN, 0.0, &o);       /* J .5 at 0.8 and at 0.35: the higher */
  ck_assert(ml_double_of(o.key)==0.8 && o.tp==1);
  ml_samples_clear(&s);
}
END_TEST

START_TEST(test_operating_point_all_negative){
  static const int y[] = {0, 0, 1, 0};
  static const double v[] = {0.9, 0.8, 0.5, 0.1};
  MlSamples s;
  MlOpPoint o;
  fill(&s, 8, y, v, 0, 4);
  /* 0.9 meets FPR <= 0.4 with TPR 0, as the all-negative point: it wins */
  ml_fold_operating_point(&s, ML_OP_FPR, 0.4, &o);
  ck_assert(o.allNegative && o.tp==0 && o.fp==0 && o.achieved);
  /* no threshold reaches precision 0.5 (the best is 1/3, at 0.5) */
  ml_fold_operating_point(&s, ML_OP_PRECISION, 0.5, &o);
  ck_assert(o.allNegative && !o.achieved);
  ml_samples_clear(&s);
}
END_TEST

/* The value at a rank of both classes merged, against a merged copy. */
START_TEST(test_samples_at_rank){
  static const int y[] = {1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1};
  static const double v[] = {0.5, 0.1, 0.5, 0.2, 0.9, 0.9, -1.0, 0.5, 0.3, 0.0, -0.0};
  static const double sorted[] = {-1.0, 0.0, 0.0, 0.1, 0.2, 0.3, 0.5, 0.5, 0.5, 0.9, 0.9};
  MlSamples s;
  int r;
  fill(&s, 8, y, v, 0, 11);
  for(r=0; r<11; r++) ck_assert(ml_samples_at_rank(&s, r)==sorted[r]);
  ml_samples_clear(&s);
  fill(&s, 8, y, v, 0, 1);                  /* one positive, no negatives */
  ck_assert(ml_samples_at_rank(&s, 0)==0.5);
  ml_samples_clear(&s);
}
END_TEST

/* gains' parts as emitted: rows (or weight), end, positives, cumulative. */
typedef struct GainsRec { int n; double v[64]; } GainsRec;
static void gains_rec(void *arg, ml_i64 b, double n, double end, double pos, double cum){
  GainsRec *g = arg;
  (void)b;
  if( g->n<=60 ){ g->v[g->n++] = n; g->v[g->n++] = end; g->v[g->n++] = pos; g->v[g->n++] = cum; }
}

/* The weighted sweep (ml_wsweep.c): integer weights fold to the unweighted
** folds over the rows repeated, bit for bit; a tie group's weight does not
** depend on the order its rows are held in; weight sums at each threshold. */
START_TEST(test_weighted_folds_equal_repeated_rows){
  enum { N = 300 };
  int y[N], yr[4*N], i, k, nr = 0;
  double v[N], wt[N], vr[4*N];
  MlSamples sw, sr;
  uint64_t x = 88172645463325252ULL;
  for(i=0; i<N; i++){
    x ^= x<<13; x ^= x>>7; x ^= x<<17;
    y[i] = (int)(x % 3 == 0);
    v[i] = (double)((x >> 8) % 17) / 16.0;          /* many ties */
    wt[i] = (double)(1 + (x >> 20) % 4);
    for(k=0; k<(int)wt[i]; k++){ yr[nr] = y[i]; vr[nr] = v[i]; nr++; }
  }
  fill(&sw, 16, y, v, wt, N);
  fill(&sr, 8, yr, vr, 0, nr);
  ck_assert(ml_wfold_ap(&sw)==ml_fold_average_precision(&sr, 0));
  ck_assert(ml_wfold_auroc(&sw)==ml_fold_auroc(&sr));
  ck_assert(ml_wfold_youden_j(&sw)==ml_fold_youden_j(&sr));
  ck_assert(ml_wfold_ks(&sw)==ml_fold_ks(&sr));
  ck_assert(ml_wfold_tpr_at_fpr(&sw, 0.3, 0)==ml_fold_tpr_at_fpr(&sr, 0.3, 0));
  ck_assert(ml_wfold_tpr_at_fpr(&sw, 0.8, 1)==ml_fold_tpr_at_fpr(&sr, 0.8, 1));
  for(k=0; k<=nr; k+=7) ck_assert(ml_wfold_top_k(&sw, (double)k)==ml_fold_top_k(&sr, k));
  for(k=1; k<=15; k+=7){
    GainsRec g1, g2;
    g1.n = g2.n = 0;
    ml_wfold_gains(&sw, k, gains_rec, &g1);
    ml_fold_gains(&sr, k, gains_rec, &g2);
    ck_assert_int_eq(g1.n, 4*k);
    ck_assert_int_eq(g1.n, g2.n);
    ck_assert(memcmp(g1.v, g2.v, sizeof(double) * (size_t)g1.n)==0);
  }
  ml_samples_clear(&sw);
  ml_samples_clear(&sr);
}
END_TEST

START_TEST(test_weighted_ties_order_free){
  /* one tie group of weights whose double sum depends on the order */
  static const int y[] = {1, 1, 1, 0, 0};
  static const double v[] = {0.5, 0.5, 0.5, 0.5, 0.2};
  static const double w1[] = {1e16, 1.0, -0.0 + 1.0, 1.0, 1.0}, w2[] = {1.0, 1.0, 1e16, 1.0, 1.0};
  MlSamples a, b;
  MlWSweep s;
  fill(&a, 16, y, v, w1, 5);
  fill(&b, 16, y, v, w2, 5);
  ml_wsweep_init(&s, &a);
  ck_assert(ml_wsweep_next(&s));
  ck_assert(s.dtp==1e16 + 2.0);            /* exact: 1e16 + 1 + 1 rounded once */
  ck_assert(s.dfp==1.0);
  ck_assert(ml_wfold_auroc(&a)==ml_wfold_auroc(&b));
  ck_assert(ml_wfold_ap(&a)==ml_wfold_ap(&b));
  ck_assert(s.P==1e16 + 2.0 && s.N==2.0);
  ml_samples_clear(&a);
  ml_samples_clear(&b);
}
END_TEST

/* Rule 10: AP by plan is the weighted sweep's double.  Random orders with
** many ties, both classes at a score, negatives first at a score (the
** canonical order) or labels in any order there (pr_auc_diff_ci's rows by
** s_b), weights from 0 (a jackknife's left-out rows, an undrawn row) to 4,
** a replicate with no positive drawn: the value (compared with ==, NaN
** alike), P and N equal the weighted sweep's. */
START_TEST(test_ap_plan_equals_weighted_sweep){
  unsigned seed = 25;
  int trial;
  for(trial=0; trial<400; trial++){
    ml_i64 n = 1 + (ml_i64)(rand_r(&seed) % 60), i, m = 0;
    int sorted_labels = trial % 2, levels = 2 + rand_r(&seed) % 12;
    MlCanon c;
    ml_weight *wc = malloc(sizeof(ml_weight)*(size_t)n);
    MlApGroup *plan;
    MlSweep w;
    uint64_t P, N;
    double a, b;
    c.n = n;
    c.key = malloc(sizeof(ml_key)*(size_t)n);
    c.lab = malloc((size_t)n);
    c.aux = c.aux2 = 0;
    for(i=0; i<n; i++){
      c.key[i] = ml_key_of((double)(rand_r(&seed) % levels));
      c.lab[i] = (unsigned char)(rand_r(&seed) % 3 == 0);
      wc[i] = (ml_weight)(trial % 7 == 0 ? 0 : rand_r(&seed) % 5);
    }
    /* ascending keys; at one key negatives first, or left as drawn */
    for(i=1; i<n; i++){
      ml_i64 j = i;
      while( j>0 && (c.key[j-1]>c.key[j] || (sorted_labels && c.key[j-1]==c.key[j] && c.lab[j-1]>c.lab[j])) ){
        ml_key tk = c.key[j]; unsigned char tl = c.lab[j];
        c.key[j] = c.key[j-1]; c.lab[j] = c.lab[j-1];
        c.key[j-1] = tk; c.lab[j-1] = tl;
        j--;
      }
    }
    plan = ml_ap_plan(&c, &m);
    ck_assert_ptr_nonnull(plan);
    a = ml_fold_ap_plan(plan, m, &c, wc, &P, &N);
    ml_sweep_init_weighted(&w, &c, 0, wc);
    b = ml_fold_ap_sweep(&w);
    ck_assert(P==(uint64_t)w.P && N==(uint64_t)w.N);
    ck_assert(a==b || (isnan(a) && isnan(b)));
    ml_free(plan);
    free(wc); free(c.key); free(c.lab);
  }
}
END_TEST

/* The runs form (a ranking buffer that absorbed a state) gives every fold
** the same double as the rows it counts: random samples with many ties,
** each fold on the rows and on a copy turned into runs, compared with ==;
** then rows added to and removed from the runs form, as a window does. */
static void assert_same_folds(const MlSamples *a, const MlSamples *r){
  MlOpPoint o1, o2;
  GainsRec g1, g2;
  ml_i64 i1[ML_COUNT_CURSOR] = {0, 0, 0}, i2[ML_COUNT_CURSOR] = {0, 0, 0}, tp1, fp1, tp2, fp2, k;
  int c, t;
  ck_assert(ml_fold_average_precision(a, 0)==ml_fold_average_precision(r, 0));
  ck_assert(ml_fold_auroc(a)==ml_fold_auroc(r));
  ck_assert(ml_fold_auroc_u2(a)==ml_fold_auroc_u2(r));
  ck_assert(ml_fold_youden_j(a)==ml_fold_youden_j(r));
  ck_assert(ml_fold_ks(a)==ml_fold_ks(r));
  ck_assert(ml_fold_tpr_at_fpr(a, 0.3, 0)==ml_fold_tpr_at_fpr(r, 0.3, 0));
  ck_assert(ml_fold_tpr_at_fpr(a, 0.7, 1)==ml_fold_tpr_at_fpr(r, 0.7, 1));
  ck_assert(ml_fold_partial_auroc(a, 0.37)==ml_fold_partial_auroc(r, 0.37));
  for(k=0; k<=ml_samples_count(a); k+=3) ck_assert(ml_fold_top_k(a, k)==ml_fold_top_k(r, k));
  for(c=ML_OP_FPR; c<=ML_OP_YOUDEN; c++){
    ml_fold_operating_point(a, c, 0.6, &o1);
    ml_fold_operating_point(r, c, 0.6, &o2);
    ck_assert(o1.tp==o2.tp && o1.fp==o2.fp && o1.allNegative==o2.allNegative && o1.achieved==o2.achieved);
    ck_assert(o1.allNegative || o1.key==o2.key);
  }
  g1.n = g2.n = 0;
  ml_fold_gains(a, 7, gains_rec, &g1);
  ml_fold_gains(r, 7, gains_rec, &g2);
  ck_assert_int_eq(g1.n, g2.n);
  ck_assert(memcmp(g1.v, g2.v, sizeof(double) * (size_t)g1.n)==0);
  for(t=0; t<=20; t++){
    ml_count_at_least(a, i1, ml_key_of(t/20.0), &tp1, &fp1);
    ml_count_at_least(r, i2, ml_key_of(t/20.0), &tp2, &fp2);
    ck_assert(tp1==tp2 && fp1==fp2);
  }
}

START_TEST(test_runs_form_folds_equal_rows){
  MlSamples a, r;
  uint64_t x = 88172645463325252ULL;
  int trial;
  for(trial=0; trial<200; trial++){
    int n = 4 + trial % 60, i, ny[2] = {0, 0};
    int *y = malloc(sizeof(int) * (size_t)n);
    double *v = malloc(sizeof(double) * (size_t)n);
    for(i=0; i<n; i++){
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      y[i] = (int)(x & 1);
      v[i] = (double)((x >> 8) % (uint64_t)(2 + trial % 11)) / 10.0;
      ny[y[i]]++;
    }
    if( ny[0]==0 || ny[1]==0 ){ y[0] = !y[0]; y[1] = !y[0]; }
    fill(&a, 8, y, v, 0, n);
    fill(&r, 8, y, v, 0, n);
    ck_assert_int_eq(ml_samples_to_runs(&r, 0), ML_OK);
    ck_assert(r.run!=0 && r.a[0]==0 && r.a[1]==0);
    ck_assert(r.n[0]==a.n[0] && r.n[1]==a.n[1]);
    assert_same_folds(&a, &r);
    /* a window's row moves: the same adds and removes on both forms */
    for(i=0; i<n/2; i++){
      double s = (double)(i % 7) / 6.0;
      ck_assert_int_eq(ml_samples_add(&a, i & 1, s, 0.0), ML_OK);
      ck_assert_int_eq(ml_samples_add(&r, i & 1, s, 0.0), ML_OK);
      ck_assert_int_eq(ml_samples_remove(&a, y[i], v[i], 0.0), 1);
      ck_assert_int_eq(ml_samples_remove(&r, y[i], v[i], 0.0), 1);
    }
    ck_assert_int_eq(ml_samples_remove(&r, 1, 12345.0, 0.0), 0);
    if( a.n[0]>0 && a.n[1]>0 ) assert_same_folds(&a, &r);
    for(i=0; i<r.nRun; i++) ck_assert(r.run[i].n[0] + r.run[i].n[1] > 0 && (i==0 || r.run[i-1].key < r.run[i].key));
    ml_samples_clear(&a);
    ml_samples_clear(&r);
    free(y); free(v);
  }
}
END_TEST

/* Counts a state may claim (2^40 rows a class): auroc's pair count passes
** 2^63 and is formed in 128 bits; the folds take O(runs). */
START_TEST(test_runs_form_large_counts){
  MlSamples r;
  MlRun run[2];
  const ml_i64 n = (ml_i64)1 << 40;
  ml_samples_init(&r, 8);
  ck_assert_int_eq(ml_samples_to_runs(&r, 2), ML_OK);
  run[0].key = ml_key_of(0.25); run[0].n[0] = n; run[0].n[1] = n/4;       /* tp 3n/4 above it */
  run[1].key = ml_key_of(0.75); run[1].n[0] = 0; run[1].n[1] = 3*(n/4);
  memcpy(r.run, run, sizeof(run));
  r.nRun = 2; r.n[0] = n; r.n[1] = n;
  /* pairs: 3/4 of the positives beat every negative, 1/4 tie: 3/4 + 1/8 */
  ck_assert(ml_fold_auroc(&r)==0.875);
  ck_assert(ml_fold_ks(&r)==0.75);
  /* AP: 3n/4 positives at precision 1, then n/4 at n / 2n */
  ck_assert(ml_fold_average_precision(&r, 0)==0.875);
  ck_assert(ml_fold_top_k(&r, n/2)==(double)(n/2));
  ml_samples_clear(&r);
}
END_TEST

Suite *suite_sweep(void){
  Suite *s = suite_create("sweep");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_sweep_visits_thresholds_highest_first);
  tcase_add_test(tc, test_folds_on_sklearn_example);
  tcase_add_test(tc, test_all_tied_is_one_threshold);
  tcase_add_test(tc, test_filter_keeps_window_only);
  tcase_add_test(tc, test_partial_auroc);
  tcase_add_test(tc, test_operating_points);
  tcase_add_test(tc, test_operating_point_all_negative);
  tcase_add_test(tc, test_samples_at_rank);
  tcase_add_test(tc, test_weighted_folds_equal_repeated_rows);
  tcase_add_test(tc, test_weighted_ties_order_free);
  tcase_add_test(tc, test_ap_plan_equals_weighted_sweep);
  tcase_add_test(tc, test_runs_form_folds_equal_rows);
  tcase_add_test(tc, test_runs_form_large_counts);
  suite_add_tcase(s, tc);
  return s;
}
