/*
** uncertainty_normal.c -- the uncertainty family's intervals without
** resampling: DeLong's auroc_ci and auroc_diff, the delta method's
** pr_auc_delta_ci(_w) and pr_auc_diff_delta, Student's mean_ci.  Their
** rows, parameters and states are uncertainty.c's (UncAgg, uncertainty.h);
** each result here reads the group's sorted sample and sets the JSON.
** SPDX-License-Identifier: MIT
**
** Rules (uncertainty.c's numbering):
**   6. DeLong: AUC and structural components by midranks (ml_delong.c); the
**      variance uses ddof 1 within each class, so fewer than 2 rows of a
**      class gives null se, bounds, z and p_value.
**  10. pr_auc_delta_ci: the infinitesimal jackknife of AP in two sweeps of
**      the sorted rows, the normal interval of logit(AP) mapped back (the
**      full text in uncertainty.c); its twin reads weights as frequencies.
**  11. pr_auc_diff_delta: the paired counterpart, (D_a - D_b)^2 summed over
**      rows, the normal interval of a - b clipped to [-1, 1], z and p.
**   -  mean_ci: mean, sd (ddof 1) and the Student t interval; one value
**      gives a null sd and bounds.
**
** Cost: auroc 16 bytes per row (keys and components), auroc_diff 48;
** pr_auc_delta_ci nothing beyond the sorted rows (two sweeps, O(n)), or
** O(entries) over states; pr_auc_diff_delta 24 per row (the rows by s_b and
** each row's derivative for s_a); mean_ci O(n), nothing more.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "uncertainty.h"

/* The variance terms of DeLong: sum over a class of (u_i - mu)(v_i - nu). */
static double comoment(const double *u, double mu, const double *v, double nu, ml_i64 n){
  MlSum s = {0.0, 0.0};
  ml_i64 i;
  for(i=0; i<n; i++) ml_sum_add(&s, (u[i]-mu)*(v[i]-nu));
  return ml_sum_value(&s);
}

/* Copies the keys (aux 0) or the keys of aux (aux 1) of class y. */
static void class_keys(const MlSamples *s, int y, int aux, ml_key *out){
  ml_i64 i;
  for(i=0; i<s->n[y]; i++) out[i] = aux ? ml_key_of(ml_samples_aux(s, y, i)) : ml_samples_key(s, y, i);
}

/* The JSON of an interval from a standard error (auroc_ci, pr_auc_delta_ci):
** {"estimate","se","lo","hi","level","method","n"}. */
static void result_se_interval(sqlite3_context *ctx, double est, double se, double lo, double hi,
                               double level, const char *zMethod, ml_i64 n, double nw, int weighted){
  MlJson j;
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "estimate"); ml_json_double(&j, est);
  ml_json_key(&j, "se");       ml_json_double(&j, se);
  ml_json_key(&j, "lo");       ml_json_double(&j, lo);
  ml_json_key(&j, "hi");       ml_json_double(&j, hi);
  ml_json_key(&j, "level");    ml_json_double(&j, level);
  ml_json_key(&j, "method");   ml_json_string(&j, zMethod);
  ml_json_key(&j, "n");        if( weighted ) ml_json_double(&j, nw); else ml_json_int(&j, n);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

/* The JSON of a paired normal test of a - b with standard error se
** (auroc_diff, pr_auc_diff_delta): {"a","b","diff","se","z","p_value","lo",
** "hi","level","method","n"}, the interval clipped to [-1, 1], two-sided p;
** se 0: z null, p 1 for a zero difference and 0 for another; se NaN: both
** null. */
static void result_paired_test(sqlite3_context *ctx, double a, double b, double se, double level,
                               const char *zMethod, ml_i64 n){
  double z = -ml_norm_quantile((1.0 - level)/2.0), diff = a - b, lo = diff - z*se, hi = diff + z*se, zs, pv;
  MlJson j;
  if( se>0.0 ){ zs = diff/se; pv = erfc(fabs(zs)/1.41421356237309504880); }
  else{ zs = NAN; pv = isnan(se) ? NAN : (diff==0.0 ? 1.0 : 0.0); }
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "a");       ml_json_double(&j, a);
  ml_json_key(&j, "b");       ml_json_double(&j, b);
  ml_json_key(&j, "diff");    ml_json_double(&j, diff);
  ml_json_key(&j, "se");      ml_json_double(&j, se);
  ml_json_key(&j, "z");       ml_json_double(&j, zs);
  ml_json_key(&j, "p_value"); ml_json_double(&j, pv);
  ml_json_key(&j, "lo");      ml_json_double(&j, lo < -1.0 ? -1.0 : lo);
  ml_json_key(&j, "hi");      ml_json_double(&j, hi > 1.0 ? 1.0 : hi);
  ml_json_key(&j, "level");   ml_json_double(&j, level);
  ml_json_key(&j, "method");  ml_json_string(&j, zMethod);
  ml_json_key(&j, "n");       ml_json_int(&j, n);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

void ml_unc_delong_result(sqlite3_context *ctx, const MlFuncDesc *d, UncAgg *p){
  const MlSamples *s = &p->smp;
  ml_i64 P = s->n[1], N = s->n[0], n = P + N;
  int paired = d->kind==UN_AUROC_DIFF, m = paired ? 2 : 1, k;
  double auc[2], se, z = -ml_norm_quantile((1.0 - p->q.level)/2.0);
  double *v10[2], *v01[2];
  ml_key *kp, *kn;
  double *mem = ml_malloc(8*(uint64_t)n*(uint64_t)(2*m + 1));
  if( mem==0 ){ sqlite3_result_error_nomem(ctx); return; }
  kp = (ml_key*)(mem + 2*m*n);
  kn = kp + P;
  for(k=0; k<m; k++){
    double sum2;
    v10[k] = mem + 2*k*n;
    v01[k] = v10[k] + P;
    class_keys(s, 1, k, kp);
    class_keys(s, 0, k, kn);
    sum2 = ml_delong_components(kp, P, kn, N, v10[k], v01[k]);
    if( sum2<0 ){ ml_free(mem); sqlite3_result_error_nomem(ctx); return; }
    auc[k] = sum2 / (2.0 * (double)P * (double)N);      /* as ml_fold_auroc */
  }
  if( P<2 || N<2 ){
    se = NAN;
  }else{
    /* var = S10/P + S01/N of the difference (or of the one AUC) */
    double s10, s01;
    s10 = comoment(v10[0], auc[0], v10[0], auc[0], P);
    s01 = comoment(v01[0], auc[0], v01[0], auc[0], N);
    if( paired ){
      s10 += comoment(v10[1], auc[1], v10[1], auc[1], P) - 2.0*comoment(v10[0], auc[0], v10[1], auc[1], P);
      s01 += comoment(v01[1], auc[1], v01[1], auc[1], N) - 2.0*comoment(v01[0], auc[0], v01[1], auc[1], N);
    }
    se = s10/((double)(P-1)*(double)P) + s01/((double)(N-1)*(double)N);
    se = se > 0.0 ? sqrt(se) : 0.0;
  }
  ml_free(mem);
  if( paired ){
    result_paired_test(ctx, auc[0], auc[1], se, p->q.level, "delong", n);
  }else{
    double lo = auc[0] - z*se, hi = auc[0] + z*se;
    result_se_interval(ctx, auc[0], se, lo < 0.0 ? 0.0 : lo, hi > 1.0 ? 1.0 : hi, p->q.level, "delong", n, 0.0, 0);
  }
}

/* pr_auc_delta_ci (rule 10).  Over the tie groups g, highest score first,
** with a_g positives, T_g positives and C_g rows at or above g, AP =
** sum_g a_g T_g / C_g / P.  Its derivative in the weight of one row of
** group h is, over P, for a positive (T_h/C_h - AP) + S3_h and for a
** negative -S2_h, where S2_h and S3_h sum a_g T_g / C_g^2 and a_g F_g / C_g^2
** (F_g = C_g - T_g) over g at or below h: two sweeps, the first for the
** totals, the second taking each group's terms off a copy of them (a
** compensated sum, so a suffix keeps its precision), summing the squared
** derivatives of the rows.  se^2 is that sum: the variance of the
** linearised AP under the bootstrap's multinomial weights. */
/* The two sweeps of rule 10.  DeltaAcc holds the suffix sums S2 and S3 (of
** a_g T_g / C_g^2 and a_g F_g / C_g^2 over the groups not yet passed, and
** the group being passed), counts or sums of weights alike. */
typedef struct DeltaAcc { MlSum t2, t3, ap; } DeltaAcc;

/* First sweep, at a group that holds a positive (tp, fp, dtp as the sweep
** leaves them): its terms of the totals, and its term of AP itself, which
** is the folds' dtp (tp / (tp + fp)) in their order, so AP = ap / P is
** pr_auc's (pr_auc_w's) double. */
static void delta_totals(DeltaAcc *d, double tp, double fp, double dtp){
  double c = tp + fp, a = dtp / c;
  ml_sum_add(&d->ap, dtp * (tp / c));
  /* a_g T_g / C_g^2 as the product of two ratios: no weight's scale, so
  ** nothing overflows or underflows whatever the weights' size */
  ml_sum_add(&d->t2, a * (tp / c));
  ml_sum_add(&d->t3, a * (fp / c));
}
/* Second sweep: P times the derivative of AP in the weight of one of the
** group's negatives (*dn) and positives (*dp, 0 without one), then the
** group's terms leave the suffix sums (a compensated sum, so a suffix keeps
** its precision). */
static void delta_derivs(DeltaAcc *d, double tp, double fp, double dtp, double ap, double *dp, double *dn){
  double c = tp + fp;
  *dn = -ml_sum_value(&d->t2);
  *dp = 0.0;
  if( dtp>0.0 ){
    double a = dtp / c;
    *dp = (tp / c - ap) + ml_sum_value(&d->t3);
    ml_sum_add(&d->t2, -(a * (tp / c)));
    ml_sum_add(&d->t3, -(a * (fp / c)));
  }
}

/* What the second sweep over unweighted rows does with a group: its rows of
** class y are [w->i[y], hi[y]) of the sorted buffer, dp and dn as
** delta_derivs gives them. */
typedef void (*DeltaVisit)(void *arg, const MlSweep *w, const ml_i64 hi[2], double dp, double dn);

/* Both sweeps over a sorted unweighted buffer: returns AP (pr_auc's value,
** from the first) and calls visit on every group, highest score first. */
static double delta_sweeps(const MlSamples *s, DeltaVisit visit, void *arg){
  DeltaAcc acc;
  MlSweep w;
  double ap, dp, dn;
  unsigned k = 0;
  memset(&acc, 0, sizeof(acc));
  ml_sweep_init(&w, s, 0);
  while( ml_sweep_next(&w) ) if( w.dtp ) delta_totals(&acc, (double)w.tp, (double)w.fp, (double)w.dtp);
  ap = ml_sum_value(&acc.ap) / (double)w.tp;       /* pr_auc's value */
  ml_sweep_init(&w, s, 0);
  for(;;){
    ml_i64 hi[2];
    hi[0] = w.i[0]; hi[1] = w.i[1];
    if( !ml_sweep_next(&w) ) break;
    delta_derivs(&acc, (double)w.tp, (double)w.fp, (double)w.dtp, ap, &dp, &dn);
    visit(arg, &w, hi, dp, dn);
    if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) break;
  }
  return ap;
}

/* pr_auc_delta_ci: the sum over rows of the squared derivatives. */
static void visit_var(void *arg, const MlSweep *w, const ml_i64 hi[2], double dp, double dn){
  MlSum *var = arg;
  (void)hi;
  ml_sum_add(var, (double)w->dfp * dn * dn);
  if( w->dtp ) ml_sum_add(var, (double)w->dtp * dp * dp);
}

void ml_unc_delta_ap_result(sqlite3_context *ctx, UncAgg *p){
  MlSamples *s = &p->smp;
  MlSum var = {0.0, 0.0};
  double ap, se, P, lo, hi, nw = 0.0, z = -ml_norm_quantile((1.0 - p->q.level)/2.0);
  if( ml_samples_sort(s) ){ sqlite3_result_error_nomem(ctx); return; }
  if( p->weighted ){
    /* the twin: counts become sums of weights, and a group's rows of a
    ** class enter the variance as their weight sum times the squared
    ** derivative of one unit (w D^2, not (w D)^2: a row of weight k is k
    ** rows).  The weight sums are scaled by 2^-e, e even, so that nothing
    ** overflows or vanishes whatever the weights' scale; the scaling is
    ** exact, so integer weights give the rows' expression bit for bit */
    DeltaAcc acc;
    MlWSweep w;
    double dp, dn, wmax = 0.0;
    unsigned k = 0;
    int e, y;
    ml_i64 i;
    MlXsum tot;
    memset(&acc, 0, sizeof(acc));
    ml_xsum_init(&tot);
    for(y=0; y<2; y++) for(i=0; i<s->n[y]; i++){
      double v = ml_samples_aux(s, y, i);
      if( v>wmax ) wmax = v;
      ml_xsum_add(&tot, v, +1);
    }
    nw = ml_xsum_round(&tot);                      /* "n": the weights' exact sum */
    e = ilogb(wmax);
    e -= e & 1;                                    /* even: sqrt(2^-e) is 2^(-e/2) */
    ml_wsweep_begin(&w, s);
    while( ml_wsweep_next(&w) ) if( w.dtp>0.0 ) delta_totals(&acc, w.tp, w.fp, w.dtp);
    P = w.tp;
    ap = ml_sum_value(&acc.ap) / P;                /* pr_auc_w's value */
    ml_wsweep_begin(&w, s);
    for(;;){
      if( !ml_wsweep_next(&w) ) break;
      delta_derivs(&acc, w.tp, w.fp, w.dtp, ap, &dp, &dn);
      ml_sum_add(&var, ldexp(w.dfp, -e) * dn * dn);
      if( w.dtp>0.0 ) ml_sum_add(&var, ldexp(w.dtp, -e) * dp * dp);
      if( (++k & 0xFFFFF)==0 && ml_stop_requested() ) break;
    }
    /* sqrt(var 2^-e) / (P 2^-e) is se 2^(e/2) exactly */
    se = ldexp(sqrt(ml_sum_value(&var)) / ldexp(P, -e), -e/2);
  }else{
    ap = delta_sweeps(s, visit_var, &var);
    se = sqrt(ml_sum_value(&var)) / (double)s->n[1];
  }
  if( !(se>=0.0) ){
    lo = hi = NAN;                                 /* no standard error, no interval */
  }else if( se>0.0 && ap<1.0 ){
    /* the normal interval of logit(AP), se / (AP (1 - AP)) by the delta method */
    double eta = log(ap/(1.0 - ap)), h = z * se / (ap*(1.0 - ap));
    lo = 1.0 / (1.0 + exp(-(eta - h)));
    hi = 1.0 / (1.0 + exp(-(eta + h)));
  }else{
    lo = hi = ap;
  }
  result_se_interval(ctx, ap, se, lo, hi, p->q.level, "delta_logit", ml_samples_count(s), nw, p->weighted);
}

/* pr_auc_diff_delta (rule 11).  The buffer holds (s_a, s_b) sorted by s_a:
** its sweeps leave each row's derivative for s_a in da (negatives at their
** index, positives after the n[0] negatives); the rows re-sorted by s_b
** (key s_b, aux the row's slot in da) then sum (da - db)^2. */
typedef struct DiffCtx {
  const MlSamples *s;   /* the sweep's buffer: aux is what visit reads */
  double *da;           /* per row, P times d AP(s_a) */
  ml_i64 n0;
  MlSum var;
} DiffCtx;
static void visit_store_a(void *arg, const MlSweep *w, const ml_i64 hi[2], double dp, double dn){
  DiffCtx *c = arg;
  ml_i64 i;
  for(i=w->i[0]; i<hi[0]; i++) c->da[i] = dn;
  for(i=w->i[1]; i<hi[1]; i++) c->da[c->n0 + i] = dp;
}
static void visit_diff_b(void *arg, const MlSweep *w, const ml_i64 hi[2], double dp, double dn){
  DiffCtx *c = arg;
  ml_i64 i;
  for(i=w->i[0]; i<hi[0]; i++){
    double e = c->da[(ml_i64)ml_samples_aux(c->s, 0, i)] - dn;
    ml_sum_add(&c->var, e*e);
  }
  for(i=w->i[1]; i<hi[1]; i++){
    double e = c->da[(ml_i64)ml_samples_aux(c->s, 1, i)] - dp;
    ml_sum_add(&c->var, e*e);
  }
}

void ml_unc_delta_diff_result(sqlite3_context *ctx, UncAgg *p){
  MlSamples *s = &p->smp, sb;
  DiffCtx c;
  ml_i64 i, n0 = s->n[0], n1 = s->n[1];
  double a, b, se;
  int y, rc;
  memset(&c, 0, sizeof(c));
  ml_samples_init(&sb, 16);
  rc = ml_samples_sort(s);
  if( rc==ML_OK && (c.da = ml_malloc(sizeof(double)*(uint64_t)(n0 + n1)))==0 ) rc = ML_NOMEM;
  /* zeroed: an interrupted first sweep leaves no slot unwritten for the second */
  if( rc==ML_OK ) memset(c.da, 0, sizeof(double)*(size_t)(n0 + n1));
  for(y=0; y<2 && rc==ML_OK; y++){
    for(i=0; i<s->n[y] && rc==ML_OK; i++){
      rc = ml_samples_add(&sb, y, ml_samples_aux(s, y, i), (double)(y ? n0 + i : i));
    }
  }
  if( rc==ML_OK ) rc = ml_samples_sort(&sb);
  if( rc ){
    ml_free(c.da);
    ml_samples_clear(&sb);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  c.n0 = n0;
  c.s = s;
  a = delta_sweeps(s, visit_store_a, &c);        /* pr_auc(y, s_a) */
  c.s = &sb;
  b = delta_sweeps(&sb, visit_diff_b, &c);       /* pr_auc(y, s_b) */
  ml_free(c.da);
  ml_samples_clear(&sb);
  se = sqrt(ml_sum_value(&c.var)) / (double)n1;
  result_paired_test(ctx, a, b, se, p->q.level, "delta", n0 + n1);
}

void ml_unc_mean_result(sqlite3_context *ctx, UncAgg *p){
  const MlSamples *s = &p->smp;
  ml_i64 n = s->n[0], i;
  MlSum sum = {0.0, 0.0}, ss = {0.0, 0.0};
  double mean, sd = NAN, lo = NAN, hi = NAN;
  MlJson j;
  for(i=0; i<n; i++) ml_sum_add(&sum, ml_double_of(ml_samples_key(s, 0, i)));
  mean = ml_sum_value(&sum) / (double)n;
  if( n>=2 ){
    double half;
    for(i=0; i<n; i++){
      double dv = ml_double_of(ml_samples_key(s, 0, i)) - mean;
      ml_sum_add(&ss, dv*dv);
    }
    sd = sqrt(ml_sum_value(&ss) / (double)(n-1));
    half = ml_t_isf((1.0 - p->q.level)/2.0, (double)(n-1)) * sd / sqrt((double)n);
    lo = mean - half;
    hi = mean + half;
  }
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "mean");  ml_json_double(&j, mean);
  ml_json_key(&j, "sd");    ml_json_double(&j, sd);
  ml_json_key(&j, "n");     ml_json_int(&j, n);
  ml_json_key(&j, "lo");    ml_json_double(&j, lo);
  ml_json_key(&j, "hi");    ml_json_double(&j, hi);
  ml_json_key(&j, "level"); ml_json_double(&j, p->q.level);
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}
