/*
** SPDX-License-Identifier: MIT
**
** confusion.c -- the ranking family's counters at one threshold: the four
** cells of the confusion matrix (rows with s >= threshold predicted
** positive), and every metric made of them.  The records are ranking.c's
** (ranking.h: their kinds, ml_confusion_family).
**
** SQL functions (aggregate and window; docs/ranking.md, docs/clinical.md):
**   confusion(y, s, threshold)      JSON counts and ratios at s >= threshold
**   precision_at_prior(y, s, threshold, prior)
**                                   JSON: precision at s >= threshold projected
**                                   to the prevalence prior
**   mcc(y, s, threshold)            Matthews correlation at s >= threshold
**   f_beta(y, s, threshold, beta)   F-beta at s >= threshold
**   confusion_ci(y, s, threshold [, level [, method]])
**                                   JSON: sensitivity, specificity, ppv, npv,
**                                   accuracy with Wilson or Clopper-Pearson intervals
**   net_benefit(y, p, pt)           TP/n - FP/n pt/(1 - pt) at p >= pt
**   their weighted twins (NAME_w(y, s, w, ...), but confusion_ci) and state forms
**
** Rules (ranking.c's rules 1 to 3 hold here too):
**   1. The parameters (threshold, prior, beta, level, method, pt) are the
**      same in every row of a group (MlParam).
**   2. Metrics at one threshold are NULL, or a JSON field null, where a
**      denominator is zero; they are defined on one class otherwise.  mcc,
**      f_beta and confusion's ratios are computed from exact integer
**      numerators and denominators.
**   3. States: each entry's counts go to their side of the threshold,
**      O(entries), never expanded into rows; net_benefit's scores are
**      probabilities in a state as in a row.
**   4. A weighted twin, or a weighted state met, makes the cells exact sums
**      of weights (MlXsum; c rows of weight w add c w, split exactly by
**      fma), the rows held weighing 1: integer weights give the rows
**      repeated, bit for bit.
**   5. One row model: xStep, xInverse and the twins' xStepW, xInverseW are
**      one function (confusion_row) compiled four times, the weight and the
**      direction constants; the unweighted instances read no weight
**      (docs/decisions.md, "one source compiled twice").
**
** Cost: O(1) state (four counters; four exact sums when weighted), O(1)
** per row and per result, no buffer.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "ranking.h"

/* ------------------------------------- confusion, precision_at_prior,
** mcc, f_beta, confusion_ci, net_benefit: counts at one threshold */

typedef struct ConfAgg {
  ml_i64 c[2][2];          /* c[y][predicted] */
  MlParam threshold;       /* net_benefit: pt */
  MlParam prior;           /* precision_at_prior */
  MlParam beta;            /* f_beta */
  MlParam level;           /* confusion_ci */
  MlParam method;          /* confusion_ci: CI_* */
  int weighted;            /* a weighted twin, or a weighted state met: the cells are cw's
                           ** sums of weights, plus a weight of 1 for each row c holds
                           ** beyond cr */
  MlXsum *cw;              /* weighted: cw[2 y + predicted], exact; allocated on the first row */
  ml_i64 cr[2][2];         /* weighted: the rows of c whose weights are in cw */
} ConfAgg;

/* confusion_ci's methods, in CI_* order (ranking.h). */
const char *const ml_ci_methods[] = {"wilson", "clopper-pearson", 0};

/* The parameters after (y, s) of a row, each the same in every row. */
static int confusion_params(sqlite3_context *ctx, const MlFuncDesc *d, int argc, sqlite3_value **argv,
                            ConfAgg *p, double *t){
  double v;
  int c;
  /* the threshold (net_benefit's pt) */
  if( ml_param_real(ctx, d->name, d->aParam[0], argv[2], &p->threshold, t) ) return ML_ROW_ERR;
  switch( d->kind ){
    case RK_PRECISION_AT_PRIOR:
      return ml_param_real(ctx, d->name, d->aParam[1], argv[3], &p->prior, &v);
    case RK_F_BETA:
      return ml_param_real(ctx, d->name, d->aParam[1], argv[3], &p->beta, &v);
    case RK_CONFUSION_CI:
      if( argc>3 && ml_param_real(ctx, d->name, d->aParam[1], argv[3], &p->level, &v) ){
        return ML_ROW_ERR;
      }
      if( argc>4 ) return ml_param_choice(ctx, d->name, d->aParam[2], argv[4], &p->method, &c);
      return ML_ROW_OK;
    default:
      return ML_ROW_OK;
  }
}

/* The parameters of a row being removed (xInverse): each slot forgets it. */
static void confusion_params_drop(const MlFuncDesc *d, int argc, sqlite3_value **argv, ConfAgg *p){
  ml_param_drop(&p->threshold, argv[2]);
  if( d->kind==RK_PRECISION_AT_PRIOR ) ml_param_drop(&p->prior, argv[3]);
  if( d->kind==RK_F_BETA ) ml_param_drop(&p->beta, argv[3]);
  if( d->kind==RK_CONFUSION_CI ){
    if( argc>3 ) ml_param_drop(&p->level, argv[3]);
    if( argc>4 ) ml_param_choice_drop(&p->method, argv[4], d->aParam[2]);
  }
}

/* One row, written once for the four callbacks (rule 5): sign +1 adds it
** (xStep), -1 removes it (xInverse, a row xStep accepted); weighted is a
** constant at each call, so the unweighted instance (weighted 0, w the
** literal 1.0) compiles to the counter alone, with no weight read or test.
** A twin's row of weight w goes to the exact sum of its cell (c[y][predicted]
** becomes a sum of weights); weight 0 or NULL drops it, w < 0 follows the
** driver's error. */
static ML_ALWAYS_INLINE void confusion_row(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                                           double w, int sign, int weighted){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p;
  int y, i, t0 = sqlite3_value_type(argv[0]);
  double s, t;
  if( !weighted && ML_STATE_DIVERT(ctx, argc, argv, t0, sign<0) ) return;
  p = ml_agg_context(ctx, sizeof(*p));
  if( p==0 ){ if( sign>0 ) sqlite3_result_error_nomem(ctx); return; }
  if( weighted ){
    p->weighted = 1;
    if( w<0.0 ) return;                      /* the driver set the error */
  }
  if( sign>0 ){
    if( confusion_params(ctx, d, argc, argv, p, &t) ) return;
  }else{
    confusion_params_drop(d, argc, argv, p);
    t = sqlite3_value_double(argv[2]);       /* the row's own threshold, as xStep used */
  }
  if( ml_arg_binary_row_t(ctx, d->name, argv, t0, (weighted || sign>0) && d->kind==RK_NET_BENEFIT,
                          &y, &s)!=ML_ROW_OK ) return;
  if( !weighted ){
    p->c[y][s>=t] += sign;
    return;
  }
  if( w==0.0 ) return;
  if( p->cw==0 ){
    if( sign<0 || (p->cw = ml_malloc(4*sizeof(MlXsum)))==0 ){ if( sign>0 ) sqlite3_result_error_nomem(ctx); return; }
    for(i=0; i<4; i++) ml_xsum_init(&p->cw[i]);
  }
  ml_xsum_add(&p->cw[2*y + (s>=t)], w, sign);
  p->c[y][s>=t] += sign;                     /* rows, for "no rows" */
  p->cr[y][s>=t] += sign;
}

/*
** SQL function: confusion(y, s, threshold), precision_at_prior(y, s, threshold, prior),
**   mcc(y, s, threshold), f_beta(y, s, threshold, beta),
**   confusion_ci(y, s, threshold [, level [, method]]), net_benefit(y, p, pt)
** Counts at "positive when s >= threshold" and what is derived from them;
** a ratio whose denominator is zero is null.  Their weighted twins
** (MlFamily.xStepW, xInverseW) are the same row with the weight.
*/
static void ml_confusion_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  confusion_row(ctx, argc, argv, 1.0, +1, 0);
}
static void ml_confusion_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  confusion_row(ctx, argc, argv, 1.0, -1, 0);
}
static void confusion_step_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  confusion_row(ctx, argc, argv, w, +1, 1);
}
static void confusion_inverse_w(sqlite3_context *ctx, int argc, sqlite3_value **argv, double w){
  confusion_row(ctx, argc, argv, w, -1, 1);
}

/* Precision at prevalence pi from the rates: tpr pi / (tpr pi + fpr (1 - pi)),
** null when nothing is predicted positive (tpr = fpr = 0). */
static void precision_at(MlJson *j, const char *k, double tpr, double fpr, double pi){
  double den = tpr*pi + fpr*(1.0 - pi);
  ml_json_key(j, k);
  if( den==0.0 ) ml_json_null(j); else ml_json_double(j, tpr*pi/den);
}

/* precision_at_prior's JSON from the rates and the evaluation prevalence
** (counts, or a weighted twin's sums of weights). */
static void prior_json(sqlite3_context *ctx, const ConfAgg *p, double tpr, double fpr, double pe){
  double prior = ml_param_value(&p->prior, NAN);
  MlJson j;
  ml_json_init(&j);
  ml_json_begin_object(&j);
  ml_json_key(&j, "tpr");           ml_json_double(&j, tpr);
  ml_json_key(&j, "fpr");           ml_json_double(&j, fpr);
  ml_json_key(&j, "eval_prior");    ml_json_double(&j, pe);
  ml_json_key(&j, "assumed_prior"); ml_json_double(&j, prior);
  precision_at(&j, "precision_at_eval_prior", tpr, fpr, pe);
  precision_at(&j, "precision_at_assumed_prior", tpr, fpr, prior);
  ml_json_key(&j, "threshold");     ml_json_double(&j, ml_param_value(&p->threshold, NAN));
  ml_json_end_object(&j);
  ml_result_json(ctx, &j);
}

/* precision_at_prior: needs both classes (tpr and fpr). */
static void prior_value(sqlite3_context *ctx, const MlFuncDesc *d, const ConfAgg *p){
  ml_i64 P = p->c[1][0] + p->c[1][1], N = p->c[0][0] + p->c[0][1];
  if( P==0 || N==0 ){
    ml_result_null(ctx, d->name, "only one class in the group (%lld positives, %lld negatives)",
                   (long long)P, (long long)N);
    return;
  }
  prior_json(ctx, p, (double)p->c[1][1]/(double)P, (double)p->c[0][1]/(double)N, (double)P/(double)(P+N));
}

/* Exact products of counts (below 2^53 each): the numerators and
** denominators of mcc, kappa and the likelihood ratios are formed in
** integers and rounded once. */
__extension__ typedef __int128 ml_i128;

/* num/den with both rounded once, null when den is zero. */
static void ratio128(MlJson *j, const char *k, ml_i128 num, ml_i128 den){
  ml_json_key(j, k);
  if( den==0 ) ml_json_null(j); else ml_json_double(j, (double)num/(double)den);
}

/* Matthews correlation (tp tn - fp fn) / sqrt((tp+fp)(tp+fn)(tn+fp)(tn+fn));
** NaN when a factor of the denominator is zero. */
static double mcc_of(ml_i64 tp, ml_i64 fp, ml_i64 tn, ml_i64 fn){
  ml_i128 num = (ml_i128)tp*tn - (ml_i128)fp*fn;
  double den;
  if( tp+fp==0 || tp+fn==0 || tn+fp==0 || tn+fn==0 ) return NAN;
  den = sqrt((double)((ml_i128)(tp+fp)*(tp+fn))) * sqrt((double)((ml_i128)(tn+fp)*(tn+fn)));
  return (double)num/den;
}

/* F-beta = (1 + b2) tp / ((1 + b2) tp + b2 fn + fp), b2 = beta^2, written as
** tp / (tp + c fn + a fp) with a = 1/(1 + b2) and c = b2/(1 + b2), each
** formed without cancellation and finite for any finite beta (b2 may
** overflow to Inf: c = 1).  NaN when tp = fn = fp = 0. */
static double f_beta_of(double tp, double fp, double fn, double beta){
  double b2 = beta*beta, a = 1.0/(1.0 + b2), c = isinf(b2) ? 1.0 : b2*a, den;
  if( tp+fp+fn==0.0 ) return NAN;
  den = tp + c*fn + a*fp;
  return den>0.0 ? tp/den : 0.0;      /* den = 0: tp = 0, beta^2 underflowed */
}

/* confusion's JSON: the counts and every ratio at the threshold. */
static void ratio(MlJson *j, const char *k, ml_i64 num, ml_i64 den){
  ml_json_key(j, k);
  if( den==0 ) ml_json_null(j); else ml_json_double(j, (double)num/(double)den);
}

static void write_confusion(MlJson *j, ml_i64 tp, ml_i64 fp, ml_i64 tn, ml_i64 fn){
  ml_i64 P = tp + fn, N = tn + fp;
  ml_json_begin_object(j);
  ml_json_key(j, "tp"); ml_json_int(j, tp);
  ml_json_key(j, "fp"); ml_json_int(j, fp);
  ml_json_key(j, "tn"); ml_json_int(j, tn);
  ml_json_key(j, "fn"); ml_json_int(j, fn);
  ratio(j, "sensitivity", tp, P);
  ratio(j, "specificity", tn, N);
  ratio(j, "ppv", tp, tp+fp);
  ratio(j, "npv", tn, tn+fn);
  ratio(j, "f1", 2*tp, 2*tp+fp+fn);
  ratio(j, "accuracy", tp+tn, tp+tn+fp+fn);
  ml_json_key(j, "mcc"); ml_json_double(j, mcc_of(tp, fp, tn, fn));      /* NaN writes null */
  ml_json_key(j, "balanced_accuracy");
  if( P==0 || N==0 ) ml_json_null(j);
  else ml_json_double(j, ((double)tp/(double)P + (double)tn/(double)N) / 2.0);
  /* Cohen's kappa: 2 (tp tn - fn fp) / ((tp+fp)(fp+tn) + (tp+fn)(fn+tn)) */
  ratio128(j, "kappa", 2*((ml_i128)tp*tn - (ml_i128)fn*fp),
           (ml_i128)(tp+fp)*(fp+tn) + (ml_i128)(tp+fn)*(fn+tn));
  /* LR+ = sensitivity / (1 - specificity), LR- = (1 - sensitivity) / specificity */
  ratio128(j, "lr_pos", (ml_i128)tp*N, P==0 ? 0 : (ml_i128)fp*P);
  ratio128(j, "lr_neg", (ml_i128)fn*N, P==0 ? 0 : (ml_i128)tn*P);
  ml_json_end_object(j);
}

/* One proportion x/n and its interval at level: Wilson's score interval,
** computed as statsmodels' proportion_confint(method='wilson') writes it,
** or Clopper-Pearson's, the beta quantiles (method='beta').  The bound at
** x = 0 is 0 and at x = n is 1, exactly; null when n = 0. */
static void write_interval(MlJson *j, const char *k, ml_i64 x, ml_i64 n, double level, int method){
  double q, alpha = 1.0 - level, lo, hi, dn = (double)n;
  ml_json_key(j, k);
  if( n==0 ){ ml_json_null(j); return; }
  q = (double)x/dn;
  if( method==CI_WILSON ){
    double crit = -ml_norm_quantile(alpha/2.0), crit2 = crit*crit;
    double denom = 1.0 + crit2/dn, center = (q + crit2/(2.0*dn))/denom;
    double dist = crit*sqrt(q*(1.0 - q)/dn + crit2/(4.0*dn*dn))/denom;
    lo = center - dist;
    hi = center + dist;
    if( lo<0.0 ) lo = 0.0;
    if( hi>1.0 ) hi = 1.0;
  }else{
    lo = x>0 ? ml_beta_quantile(0.5*alpha, (double)x, (double)(n - x + 1)) : 0.0;
    hi = x<n ? ml_beta_isf(0.5*alpha, (double)(x + 1), (double)(n - x)) : 1.0;
  }
  if( x==0 ) lo = 0.0;
  if( x==n ) hi = 1.0;
  ml_json_begin_object(j);
  ml_json_key(j, "estimate"); ml_json_double(j, q);
  ml_json_key(j, "lo");       ml_json_double(j, lo);
  ml_json_key(j, "hi");       ml_json_double(j, hi);
  ml_json_end_object(j);
}

/* confusion_ci's JSON. */
static void write_confusion_ci(MlJson *j, ml_i64 tp, ml_i64 fp, ml_i64 tn, ml_i64 fn,
                               double level, int method){
  ml_json_begin_object(j);
  ml_json_key(j, "level");  ml_json_double(j, level);
  ml_json_key(j, "method"); ml_json_string(j, ml_ci_methods[method]);
  ml_json_key(j, "tp"); ml_json_int(j, tp);
  ml_json_key(j, "fp"); ml_json_int(j, fp);
  ml_json_key(j, "tn"); ml_json_int(j, tn);
  ml_json_key(j, "fn"); ml_json_int(j, fn);
  write_interval(j, "sensitivity", tp, tp+fn, level, method);
  write_interval(j, "specificity", tn, tn+fp, level, method);
  write_interval(j, "ppv", tp, tp+fp, level, method);
  write_interval(j, "npv", tn, tn+fn, level, method);
  write_interval(j, "accuracy", tp+tn, tp+tn+fp+fn, level, method);
  ml_json_end_object(j);
}

/* A weighted twin's result from sums of weights that are not all integers:
** the counts' formulas in doubles (wratio, ranking.h). */
static double mcc_w(double tp, double fp, double tn, double fn){
  if( tp+fp==0.0 || tp+fn==0.0 || tn+fp==0.0 || tn+fn==0.0 ) return NAN;
  return (tp*tn - fp*fn) / (sqrt((tp+fp)*(tp+fn)) * sqrt((tn+fp)*(tn+fn)));
}
static void confusion_value_w(sqlite3_context *ctx, const MlFuncDesc *d, const ConfAgg *p,
                              double tp, double fp, double tn, double fn){
  /* the cells as given (the JSON's tp, fp, tn, fn), then scaled by one power
  ** of two for every ratio and product: the same bits for c.w as for w, no
  ** product underflowing or overflowing (issue 38; ml_pow2_scale) */
  const double cell[4] = {tp, fp, tn, fn};
  double mx = fmax(fmax(tp, fp), fmax(tn, fn)), sc = ml_pow2_scale(mx);
  double P, N, n, v;
  MlJson j;
  tp *= sc; fp *= sc; tn *= sc; fn *= sc;
  P = tp + fn; N = tn + fp; n = P + N;
  switch( d->kind ){
    case RK_MCC:
      v = mcc_w(tp, fp, tn, fn);
      if( isnan(v) ) ml_result_null(ctx, d->name, "undefined: a zero margin");
      else sqlite3_result_double(ctx, v);
      return;
    case RK_F_BETA:
      v = f_beta_of(tp, fp, fn, ml_param_value(&p->beta, 1.0));
      if( isnan(v) ) ml_result_null(ctx, d->name, "undefined: no positives and none predicted");
      else sqlite3_result_double(ctx, v);
      return;
    case RK_PRECISION_AT_PRIOR: {
      if( P==0.0 || N==0.0 ){
        ml_result_null(ctx, d->name, "only one class in the group (positive weight %s, negative weight %s)",
                       P==0.0 ? "0" : "> 0", N==0.0 ? "0" : "> 0");
        return;
      }
      prior_json(ctx, p, tp/P, fp/N, P/n);
      return;
    }
    default:            /* RK_CONFUSION */
      ml_json_init(&j);
      ml_json_begin_object(&j);
      ml_json_key(&j, "tp"); ml_json_double(&j, cell[0]);
      ml_json_key(&j, "fp"); ml_json_double(&j, cell[1]);
      ml_json_key(&j, "tn"); ml_json_double(&j, cell[2]);
      ml_json_key(&j, "fn"); ml_json_double(&j, cell[3]);
      wratio(&j, "sensitivity", tp, P);
      wratio(&j, "specificity", tn, N);
      wratio(&j, "ppv", tp, tp+fp);
      wratio(&j, "npv", tn, tn+fn);
      wratio(&j, "f1", 2*tp, 2*tp+fp+fn);
      wratio(&j, "accuracy", tp+tn, n);
      ml_json_key(&j, "mcc"); ml_json_double(&j, mcc_w(tp, fp, tn, fn));
      ml_json_key(&j, "balanced_accuracy");
      if( P==0.0 || N==0.0 ) ml_json_null(&j); else ml_json_double(&j, (tp/P + tn/N) / 2.0);
      wratio(&j, "kappa", 2.0*(tp*tn - fn*fp), (tp+fp)*(fp+tn) + (tp+fn)*(fn+tn));
      wratio(&j, "lr_pos", tp*N, P==0.0 ? 0.0 : fp*P);
      wratio(&j, "lr_neg", fn*N, P==0.0 ? 0.0 : tn*P);
      ml_json_end_object(&j);
      ml_result_json(ctx, &j);
      return;
  }
}

/* At a result: the rows agree on every parameter. */
static int confusion_params_check(sqlite3_context *ctx, const MlFuncDesc *d, const ConfAgg *p){
  if( ml_param_check(ctx, d->name, d->aParam[0]->name, &p->threshold) ) return ML_ROW_ERR;
  switch( d->kind ){
    case RK_PRECISION_AT_PRIOR: return ml_param_check(ctx, d->name, d->aParam[1]->name, &p->prior);
    case RK_F_BETA:             return ml_param_check(ctx, d->name, d->aParam[1]->name, &p->beta);
    case RK_CONFUSION_CI:
      return ml_param_check(ctx, d->name, d->aParam[1]->name, &p->level)
          || ml_param_choice_check(ctx, d->name, d->aParam[2], &p->method);
    default:                    return ML_ROW_OK;
  }
}

static void ml_confusion_value(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p = sqlite3_aggregate_context(ctx, 0), q;
  ml_i64 tp, fp, tn, fn;
  double v;
  MlJson j;
  if( p && confusion_params_check(ctx, d, p) ) return;
  if( p==0 || p->c[0][0]+p->c[0][1]+p->c[1][0]+p->c[1][1]==0 ){
    ml_result_null(ctx, d->name, p && p->weighted ? "no rows of positive weight" : "no rows");
    return;
  }
  if( p->weighted ){
    /* sums of weights: integral ones (integer weights) take the counts'
    ** exact path below, so they give the rows repeated bit for bit */
    double v[4];
    int i, integral = 1;
    for(i=0; i<4; i++){
      MlXsum a = p->cw[i];         /* rows of a weighted state's group beside it weigh 1 */
      ml_xsum_add_n(&a, 1.0, p->c[i>>1][i&1] - p->cr[i>>1][i&1], +1);
      v[i] = ml_xsum_round(&a);
      integral &= v[i]==floor(v[i]) && v[i]<=9007199254740992.0;
    }
    if( d->kind==RK_NET_BENEFIT ){
      sqlite3_result_double(ctx, ml_net_benefit_w(v[3], v[1], v[0], v[2], ml_param_value(&p->threshold, NAN)));
      return;
    }
    if( !integral ){ confusion_value_w(ctx, d, p, v[3], v[1], v[0], v[2]); return; }
    q = *p;                   /* the sums as counts, in a copy: c counts the frame's rows */
    for(i=0; i<4; i++) q.c[i>>1][i&1] = (ml_i64)v[i];
    p = &q;
  }
  if( d->kind==RK_PRECISION_AT_PRIOR ){ prior_value(ctx, d, p); return; }
  tp = p->c[1][1]; fn = p->c[1][0]; fp = p->c[0][1]; tn = p->c[0][0];
  switch( d->kind ){
    case RK_MCC:
      v = mcc_of(tp, fp, tn, fn);
      if( isnan(v) ){
        ml_result_null(ctx, d->name, "undefined: a zero margin (tp %lld, fp %lld, tn %lld, fn %lld)",
                       (long long)tp, (long long)fp, (long long)tn, (long long)fn);
      }else{
        sqlite3_result_double(ctx, v);
      }
      return;
    case RK_F_BETA:
      v = f_beta_of((double)tp, (double)fp, (double)fn, ml_param_value(&p->beta, 1.0));
      if( isnan(v) ){
        ml_result_null(ctx, d->name, "undefined: no positives and none predicted (%lld true negatives)",
                       (long long)tn);
      }else{
        sqlite3_result_double(ctx, v);
      }
      return;
    case RK_NET_BENEFIT:
      sqlite3_result_double(ctx, ml_net_benefit((double)tp, (double)fp, (double)(tp+fp+tn+fn), ml_param_value(&p->threshold, NAN)));
      return;
    case RK_CONFUSION_CI:
      ml_json_init(&j);
      write_confusion_ci(&j, tp, fp, tn, fn, ml_param_value(&p->level, 0.95),
                         (int)ml_param_value(&p->method, CI_WILSON));
      ml_result_json(ctx, &j);
      return;
    default:
      ml_json_init(&j);
      write_confusion(&j, tp, fp, tn, fn);
      ml_result_json(ctx, &j);
      return;
  }
}

static void ml_confusion_final(sqlite3_context *ctx){
  ConfAgg *p = sqlite3_aggregate_context(ctx, 0);
  ml_confusion_value(ctx);
  if( p ){ ml_free(p->cw); p->cw = 0; }
}

/* States: each entry's counts go to their side of the threshold. */
static int confusion_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  ConfAgg *p = ml_agg_context(ctx, sizeof(*p));
  ml_i64 held[2];
  int j, rc;
  if( p==0 ) return ML_NOMEM;
  if( p->threshold.n[0]==0 ) return ML_OK;  /* xStep rejected the parameters */
  held[0] = p->c[0][0] + p->c[0][1];
  held[1] = p->c[1][0] + p->c[1][1];
  if( sign>0 && (rc = ml_state_rows(st, n, 0, held, zErr, nErr))!=ML_OK ) return rc;
  /* net_benefit's scores are probabilities, in a state as in a row */
  if( d->kind==RK_NET_BENEFIT && (rc = ml_state_probabilities(st, n, zErr, nErr))!=ML_OK ) return rc;
  if( p->weighted || ml_states_weighted(st, n) ){
    /* rule 4: each entry's c rows of weight w add c w to their cell,
    ** exactly (the product split by fma); the rows held weigh 1 */
    if( p->cw==0 ){
      int i;
      if( sign<0 || (p->cw = ml_malloc(4*sizeof(MlXsum)))==0 ) return ML_NOMEM;
      for(i=0; i<4; i++) ml_xsum_init(&p->cw[i]);
    }
    p->weighted = 1;
    for(j=0; j<n; j++){
      MlReader r;
      MlEntry e;
      int y, w8 = st[j].kind==ML_STATE_WEIGHTED;
      ml_reader_init(&r, &st[j].sec[0]);
      while( ml_reader_next(&r, &e) ){
        int pred = ml_double_of(e.key) >= p->threshold.v[0];
        double w = w8 ? ml_double_of_zkey(e.zkey) : 1.0;
        for(y=0; y<2; y++){
          if( e.n[y]==0 ) continue;
          ml_xsum_add_product(&p->cw[2*y + pred], (double)e.n[y], w, sign);
          p->c[y][pred] += sign * e.n[y];
          p->cr[y][pred] += sign * e.n[y];
        }
      }
    }
    return ML_OK;
  }
  for(j=0; j<n; j++){
    MlReader r;
    MlEntry e;
    ml_reader_init(&r, &st[j].sec[0]);
    while( ml_reader_next(&r, &e) ){
      int pred = ml_double_of(e.key) >= p->threshold.v[0];   /* xStep set the threshold */
      p->c[0][pred] += sign * e.n[0];
      p->c[1][pred] += sign * e.n[1];
    }
  }
  return ML_OK;
}
static const MlStateHooks ml_confusion_states = {
  sizeof(ConfAgg), 2, (1u<<ML_STATE_BINARY) | (1u<<ML_STATE_STRAT) | (1u<<ML_STATE_WEIGHTED), confusion_absorb
};

/* The counters' callbacks, for the ranking family's records (ranking.c). */
const MlFamily ml_confusion_family = { "ranking", ml_confusion_step, ml_confusion_final, ml_confusion_value,
                                       ml_confusion_inverse, &ml_confusion_states,
                                       confusion_step_w, confusion_inverse_w, 0 };
