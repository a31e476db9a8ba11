/*
** SPDX-License-Identifier: MIT
**
** ranking_json.c -- the ranking family's JSON results over the sorted
** sample: the PR and ROC curves' points, operating_point's object, gains'
** parts, decision_curve's points, and the net benefit every one of the
** latter two is made of (ranking.c computes the rest and calls these).
**
** Provides: ml_rank_write_curve, ml_rank_write_operating_point,
** ml_rank_write_gains, ml_rank_write_decision_curve (ranking.h),
** ml_net_benefit, ml_net_benefit_w (ml_sql.h; confusion.c and the
** bootstrap's net_benefit_ci_w use them too).
**
** Rules (ranking.c's rules 6, 7, 9, 10 and 12 are the contract):
**   1. A sample of rows or runs writes its counts, a weighted one (twin or
**      weighted state) its sums of weights, through one writer each: counts
**      below 2^53 are exact as doubles, so integer weights give the rows'
**      text.
**   2. A threshold of +-Inf is written null (JSON has no Inf); numbers go
**      through ml_json_double (shortest round-trip text, no locale).
**
** Cost: one sweep of the sorted sample per result (O(n), O(runs) over
** states); decision_curve O(n + T) for T grid points, its weighted form
** 16 bytes per point below 1.
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ranking.h"

/* operating_point's JSON: the chosen point's threshold, counts (or sums of
** weights) and rates; write_operating_point and the weighted twin's. */
static void op_json(MlJson *j, int criterion, double target, const MlWOpPoint *o){
  double tp = o->tp, fp = o->fp, fn = o->P - tp, tn = o->N - fp;
  ml_json_begin_object(j);
  ml_json_key(j, "criterion"); ml_json_string(j, ml_rank_criteria[criterion]);
  ml_json_key(j, "target");
  if( ml_criterion_has_target(criterion) ) ml_json_double(j, target); else ml_json_null(j);
  ml_json_key(j, "threshold");
  if( o->allNegative ) ml_json_null(j); else ml_json_double(j, ml_double_of(o->key));
  ml_json_key(j, "tp"); ml_json_double(j, tp);
  ml_json_key(j, "fp"); ml_json_double(j, fp);
  ml_json_key(j, "tn"); ml_json_double(j, tn);
  ml_json_key(j, "fn"); ml_json_double(j, fn);
  wratio(j, "tpr", tp, o->P);
  wratio(j, "fpr", fp, o->N);
  wratio(j, "specificity", tn, o->N);
  wratio(j, "precision", tp, tp+fp);
  wratio(j, "f1", 2*tp, 2*tp+fp+fn);
  ml_json_key(j, "youden_j"); ml_json_double(j, tp/o->P - fp/o->N);
  ml_json_key(j, "achieved"); ml_json_bool(j, o->achieved);
  ml_json_end_object(j);
}

/* Net benefit of treating the rows at or above a threshold pt: TP/n - FP/n
** pt/(1 - pt) (Vickers & Elkin 2006; the dcurves package).  net_benefit
** and every point of decision_curve, its treat-all line included (all rows
** at or above), are this one expression, on counts or (the weighted
** twins) sums of weights. */
double ml_net_benefit(double tp, double fp, double n, double pt){
  return tp/n - fp/n * (pt/(1.0 - pt));
}

/* net_benefit_w's value from its four sums of weights: integral ones
** (integer weights, up to 2^53) as the counts they are, so that they give
** the rows repeated bit for bit; others scaled by one power of two as
** confusion_value_w scales every cell (the same bits for c w as for w).
** net_benefit_ci_w's replicates call it too. */
double ml_net_benefit_w(double tp, double fp, double tn, double fn, double pt){
  double sc;
  if( tp==floor(tp) && fp==floor(fp) && tn==floor(tn) && fn==floor(fn)
   && fmax(fmax(tp, fp), fmax(tn, fn))<=9007199254740992.0 ){
    return ml_net_benefit(tp, fp, (double)((ml_i64)tp + (ml_i64)fp + (ml_i64)tn + (ml_i64)fn), pt);
  }
  sc = ml_pow2_scale(fmax(fmax(tp, fp), fmax(tn, fn)));
  tp *= sc; fp *= sc; tn *= sc; fn *= sc;
  return ml_net_benefit(tp, fp, (tp + fn) + (tn + fp), pt);
}

/* decision_curve_w: write_decision_curve's points on weight sums.  The
** sweep runs down the scores while the grid is walked from its top, the
** points kept (at most ML_CURVE_MAX_POINTS) and written ascending.  ML_OK
** or ML_NOMEM. */
static int write_decision_curve_w(MlJson *j, const MlSamples *smp, const double g[3]){
  ml_i64 T = (ml_i64)ml_grid_points(g), i, m = 0;
  double *v, tp = 0.0, fp = 0.0, n;
  MlWSweep w;
  int have;
  while( m<T && g[0] + (double)m*g[2] < 1.0 ) m++;   /* the grid below 1, as the rows' loop */
  v = ml_malloc(sizeof(double) * 2 * (uint64_t)(m ? m : 1));
  if( v==0 ) return ML_NOMEM;
  ml_wsweep_init(&w, smp);
  n = w.P + w.N;
  have = ml_wsweep_next(&w);
  for(i=m-1; i>=0; i--){
    ml_key kt = ml_key_of(g[0] + (double)i*g[2]);
    while( have && w.key>=kt ){ tp = w.tp; fp = w.fp; have = ml_wsweep_next(&w); }
    v[2*i] = tp; v[2*i+1] = fp;
  }
  ml_json_begin_array(j);
  for(i=0; i<m; i++){
    double t = g[0] + (double)i*g[2];
    ml_json_begin_object(j);
    ml_json_key(j, "threshold");   ml_json_double(j, t);
    ml_json_key(j, "net_benefit"); ml_json_double(j, ml_net_benefit(v[2*i], v[2*i+1], n, t));
    ml_json_key(j, "treat_all");   ml_json_double(j, ml_net_benefit(w.P, w.N, n, t));
    ml_json_key(j, "treat_none");  ml_json_double(j, 0.0);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
  ml_free(v);
  return ML_OK;
}

/* One point of a curve from the counts (or sums of weights) at a threshold. */
static void curve_point(MlJson *j, int roc, ml_key key, double tp, double fp, double P, double N){
  ml_json_begin_object(j);
  ml_json_key(j, "threshold"); ml_json_double(j, ml_double_of(key));
  if( roc ){
    ml_json_key(j, "fpr"); ml_json_double(j, fp/N);
    ml_json_key(j, "tpr"); ml_json_double(j, tp/P);
  }else{
    ml_json_key(j, "precision"); ml_json_double(j, tp/(tp+fp));
    ml_json_key(j, "recall");    ml_json_double(j, tp/P);
  }
  ml_json_end_object(j);
}

/* Writes the PR curve (one point per distinct score, highest first) or the
** ROC curve ((0,0) with a null threshold first), from the rows' counts or,
** for a weighted twin's sample, from sums of weights; counts
** below 2^53 are exact as doubles, so both give the same text. */
void ml_rank_write_curve(MlJson *j, const MlSamples *smp, int roc){
  ml_json_begin_array(j);
  if( roc ){
    ml_json_begin_object(j);
    ml_json_key(j, "threshold"); ml_json_null(j);
    ml_json_key(j, "fpr"); ml_json_double(j, 0.0);
    ml_json_key(j, "tpr"); ml_json_double(j, 0.0);
    ml_json_end_object(j);
  }
  if( smp->weighted ){
    MlWSweep w;
    ml_wsweep_init(&w, smp);
    while( ml_wsweep_next(&w) ) curve_point(j, roc, w.key, w.tp, w.fp, w.P, w.N);
  }else{
    MlSweep w;
    ml_sweep_init(&w, smp, 0);
    while( ml_sweep_next(&w) ){
      curve_point(j, roc, w.key, (double)w.tp, (double)w.fp, (double)w.P, (double)w.N);
    }
  }
  ml_json_end_array(j);
}

void ml_rank_write_operating_point(MlJson *j, const MlSamples *smp, int criterion, double target){
  MlOpPoint o;
  MlWOpPoint w;
  if( smp->weighted ){
    ml_wfold_operating_point(smp, criterion, target, &w);
    op_json(j, criterion, target, &w);
    return;
  }
  ml_fold_operating_point(smp, criterion, target, &o);
  /* counts below 2^53: exact as doubles, and every ratio is the same double */
  w.tp = (double)o.tp; w.fp = (double)o.fp; w.P = (double)smp->n[1]; w.N = (double)smp->n[0];
  w.key = o.key; w.allNegative = o.allNegative; w.achieved = o.achieved;
  op_json(j, criterion, target, &w);
}


/* gains' parts (ml_fold_gains), one JSON object each: lift is the part's
** positive rate over the group's, cum_lift the same for parts 1..b
** together, cum_positive_rate their share of all positives (the gain).
** n and P are the rows and positives, or (gains_w) their weights, whose
** "n" is then a double: the same text for integer weights. */
typedef struct GainsOut { MlJson *j; double n, P; int weighted; } GainsOut;
static void gains_part(void *arg, ml_i64 b, double nb, double top, double pos, double cum){
  const GainsOut *g = arg;
  double n = g->n, P = g->P;
  ml_json_begin_object(g->j);
  ml_json_key(g->j, "bin");               ml_json_int(g->j, b + 1);
  ml_json_key(g->j, "n");                 if( g->weighted ) ml_json_double(g->j, nb); else ml_json_int(g->j, (ml_i64)nb);
  ml_json_key(g->j, "positives");         ml_json_double(g->j, pos);
  ml_json_key(g->j, "cum_positive_rate"); ml_json_double(g->j, cum/P);
  ml_json_key(g->j, "lift");              ml_json_double(g->j, pos*n/(nb*P));
  ml_json_key(g->j, "cum_lift");          ml_json_double(g->j, cum*n/(top*P));
  ml_json_end_object(g->j);
}

/* gains' JSON array: the B parts of the n rows (or total weight), P of
** them positive. */
void ml_rank_write_gains(MlJson *j, const MlSamples *smp, ml_i64 B, double n, double P){
  GainsOut g;
  g.j = j; g.n = n; g.P = P; g.weighted = smp->weighted;
  ml_json_begin_array(j);
  ml_fold_gains(smp, B, gains_part, &g);
  ml_json_end_array(j);
}

/* decision_curve: one point per threshold of the grid, from one pass over
** the sorted rows (the thresholds ascend, so does each class's cursor). */
int ml_rank_write_decision_curve(MlJson *j, const MlSamples *smp, const double g[3]){
  ml_i64 n = ml_samples_count(smp), T = (ml_i64)ml_grid_points(g), i, idx[ML_COUNT_CURSOR] = {0, 0, 0}, tp, fp;
  if( smp->weighted ) return write_decision_curve_w(j, smp, g);
  ml_json_begin_array(j);
  for(i=0; i<T; i++){
    double t = g[0] + (double)i*g[2];
    if( t>=1.0 ) break;             /* to's tolerance never reaches 1 but for a rounding */
    ml_count_at_least(smp, idx, ml_key_of(t), &tp, &fp);
    ml_json_begin_object(j);
    ml_json_key(j, "threshold");   ml_json_double(j, t);
    ml_json_key(j, "net_benefit"); ml_json_double(j, ml_net_benefit((double)tp, (double)fp, (double)n, t));
    ml_json_key(j, "treat_all");   ml_json_double(j, ml_net_benefit((double)smp->n[1], (double)smp->n[0], (double)n, t));
    ml_json_key(j, "treat_none");  ml_json_double(j, 0.0);
    ml_json_end_object(j);
  }
  ml_json_end_array(j);
  return ML_OK;
}
