/*
** SPDX-License-Identifier: MIT
**
** calibration_w.c -- the binned calibration functions' weighted side:
** ece_w, mce_w and reliability_w's equal-width bins over the sorted rows
** (p, w), ml_calib_ece_w (the one computation of ece_w and of the weighted
** bootstrap's replicates, uncertainty_boot.c), and a weighted state
** (ml_state_w) turning a binned group into its twin's.  The rows and the
** unweighted sums are calibration.c's (calibration.h: CalAgg).
**
** Provides: ml_calib_bins_w, ml_calib_absorb_w (calibration.h),
** ml_calib_ece_w (ml_sql.h).
**
** Rules (calibration.c's rules 8 and 11 are the contract):
**   1. A bin's weight, positive weight and sum of w p are exact sums
**      (MlXsum), rounded once: the result does not depend on the rows'
**      order, and integer weights give the unweighted function over the
**      rows repeated, bit for bit.
**   2. A weighted state's entry of c rows of class y weighing w adds c w
**      exactly (split by fma); rows held before it weigh 1; rows already
**      in unweighted equal-width bins have lost their p and cannot join
**      (an error saying so).
**
** Cost: a result sorts the rows (16 bytes each) and walks them once,
** with four exact sums (568 bytes each) and one record per occupied bin
** (min(B, rows)); a weighted state O(entries).
*/
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_state.h"
#include "calibration.h"

/* A weighted state (rule 11): the group turns into its weighted twin's --
** brier and log_loss add c w t and c w exactly (c w split by fma, each
** piece times t split again), the binned functions keep weighted records
** (ml_samples_absorb_weighted) -- so the result is the twin's over the
** rows, bit for bit.  Rows held so far weigh 1: brier's and log_loss's are
** in sum and n already (nw counts the weighted ones), a buffered quantile
** sample or counted records widen; rows already in equal-width bins have
** lost their p, so they cannot join (the error says so). */
int ml_calib_absorb_w(const MlFuncDesc *d, CalAgg *p, const MlState *st, int n, int sign, char *zErr, int nErr){
  int sums = d->kind==CAL_BRIER || d->kind==CAL_LOGLOSS, j, y, rc;
  double eps = ml_param_value(&p->param, 1e-15);
  if( (rc = ml_state_probabilities(st, n, zErr, nErr))!=0 ) return rc;
  if( !p->weighted ){
    if( !sums && p->n>0 ){
      if( !p->qinit ){
        sqlite3_snprintf(nErr, zErr, "a weighted state (made by ml_state_w) cannot join rows already"
                         " binned in its group: give those rows as a state too");
        return ML_ERROR;
      }
      /* rows or counted records, both weigh their count */
      if( ml_samples_weigh(&p->smp) ) return ML_NOMEM;
    }
    p->weighted = 1;
  }
  if( sums && p->wsum==0 ){
    if( (p->wsum = ml_malloc(sizeof(MlXsum)))==0 ) return ML_NOMEM;
    ml_xsum_init(p->wsum);
  }
  if( !sums && !p->qinit ){ ml_samples_init_weighted(&p->smp); p->qinit = 1; }
  if( !sums ){
    ml_i64 held[2] = {0, 0};
    if( (rc = ml_absorb_weighted(&p->smp, held, st, n, sign, zErr, nErr))!=ML_OK ) return rc;
    p->n += held[0] + held[1];           /* the rows added, or minus the rows removed */
    return ML_OK;
  }
  for(j=0; j<n; j++){
    MlReader r;
    MlEntry e;
    int w8 = st[j].kind==ML_STATE_WEIGHTED;
    ml_reader_init(&r, &st[j].sec[0]);
    while( ml_reader_next(&r, &e) ){
      double pr = ml_double_of(e.key), w = w8 ? ml_double_of_zkey(e.zkey) : 1.0;
      for(y=0; y<2; y++){
        double c, hi, lo, t;
        if( e.n[y]==0 ) continue;
        c = (double)e.n[y];
        hi = c * w; lo = fma(c, w, -hi);
        t = d->kind==CAL_BRIER ? ml_calib_brier_term(y, pr) : ml_calib_log_loss_term(y, pr, eps);
        ml_xsum_add_product(&p->sum, hi, t, sign);
        ml_xsum_add(p->wsum, hi, sign);
        if( lo!=0.0 ){ ml_xsum_add_product(&p->sum, lo, t, sign); ml_xsum_add(p->wsum, lo, sign); }
        p->n += sign * e.n[y];
        p->nw += sign * e.n[y];
      }
    }
  }
  return ML_OK;
}

/* The occupied equal-width bins of B over the sorted rows (p, w) of m,
** ascending, into o (the caller's, room for min(B, rows) bins), with a[0..4)
** the caller's exact sums as scratch (a bin's w, w y, w p; all w), so that a
** bootstrap replicate allocates nothing; the total weight, exactly, to *pW.
** Returns the number of bins written. */
static ml_i64 occupied_bins_w(const MlSamples *m, ml_i64 B, MlXsum *a, CalWOcc *o, double *pW){
  ml_i64 i[2] = {0, 0}, cur = -1, k = 0;
  ml_xsum_init(&a[3]);
  for(;;){
    int y = 0, done = i[0]>=m->n[0] && i[1]>=m->n[1];
    ml_i64 b = -1;
    double pr = 0.0, w = 0.0;
    if( !done ){
      y = i[0]>=m->n[0] ? 1 : i[1]>=m->n[1] ? 0
        : ml_samples_key(m, 0, i[0]) <= ml_samples_key(m, 1, i[1]) ? 0 : 1;
      pr = ml_double_of(ml_samples_key(m, y, i[y]));
      w = ml_samples_aux(m, y, i[y]);
      i[y]++;
      b = bin_of(pr, B);
    }
    if( b!=cur && cur>=0 ){                    /* bin cur is complete */
      o[k].b = cur;
      o[k].w = ml_xsum_round(&a[0]); o[k].wy = ml_xsum_round(&a[1]); o[k].wp = ml_xsum_round(&a[2]);
      k++;
    }
    if( done ) break;
    if( b!=cur ){ ml_xsum_init(&a[0]); ml_xsum_init(&a[1]); ml_xsum_init(&a[2]); cur = b; }
    ml_xsum_add(&a[0], w, 1);
    ml_xsum_add(&a[3], w, 1);
    if( y ) ml_xsum_add(&a[1], w, 1);
    ml_xsum_add_product(&a[2], w, pr, 1);
  }
  *pW = ml_xsum_round(&a[3]);
  return k;
}

/* ece_w's fold of the occupied bins: sum_b |sum_b w y - sum_b w p| / W,
** the sum exact, rounded once. */
static double ece_fold_w(const CalWOcc *o, ml_i64 nOcc, double W){
  MlXsum e;
  ml_i64 i;
  ml_xsum_init(&e);
  for(i=0; i<nOcc; i++) ml_xsum_add(&e, fabs(o[i].wy - o[i].wp), 1);
  return ml_xsum_round(&e) / W;
}

/* ece_w of the sorted weighted sample m (key p, aux w, at least one row),
** B equal-width bins: occupied_bins_w and ece_fold_w, the one computation of
** the twin and of the weighted bootstrap (uncertainty.c's ece_ci_w, once per
** replicate).  a[0..4) and o[0..min(B, rows)) are the caller's scratch. */
double ml_calib_ece_w(const MlSamples *m, ml_i64 B, MlXsum *a, CalWOcc *o){
  double W;
  ml_i64 nOcc = occupied_bins_w(m, B, a, o, &W);
  return ece_fold_w(o, nOcc, W);
}

/* ece_w, mce_w and reliability_w over the sorted rows (p, w) of p->smp, B
** bins: equal-width from exact bin sums (as ece, mce and reliability
** 'uniform' make theirs), or reliability's 'quantile'. */
void ml_calib_bins_w(sqlite3_context *ctx, const MlFuncDesc *d, CalAgg *p, ml_i64 B){
  ml_i64 n = ml_samples_count(&p->smp), nOcc, i;
  MlXsum *a;
  CalWOcc *o;
  double W, mce = 0.0;
  MlJson j;
  if( ml_samples_sort(&p->smp) ){ sqlite3_result_error_nomem(ctx); return; }
  if( d->kind==CAL_RELIABILITY && ml_param_value(&p->strategy, STRATEGY_UNIFORM)==STRATEGY_QUANTILE ){
    ml_json_init(&j);
    if( ml_cal_reliability_quantile_w(&j, &p->smp, B) ){
      ml_json_free(&j);
      sqlite3_result_error_nomem(ctx);
      return;
    }
    ml_result_json(ctx, &j);
    return;
  }
  a = ml_malloc(4*sizeof(MlXsum) + sizeof(CalWOcc) * (uint64_t)(n<B ? n : B));
  if( a==0 ){ sqlite3_result_error_nomem(ctx); return; }
  o = (CalWOcc*)(a + 4);
  nOcc = occupied_bins_w(&p->smp, B, a, o, &W);
  switch( d->kind ){
    case CAL_ECE:
      sqlite3_result_double(ctx, ece_fold_w(o, nOcc, W));
      break;
    case CAL_MCE:
      for(i=0; i<nOcc; i++){
        double x = fabs(o[i].wy/o[i].w - o[i].wp/o[i].w);
        if( x>mce ) mce = x;
      }
      sqlite3_result_double(ctx, mce);
      break;
    default:            /* CAL_RELIABILITY 'uniform' */
      ml_json_init(&j);
      ml_json_begin_array(&j);
      for(i=0; i<nOcc; i++){
        ml_cal_reliability_bin(&j, o[i].b, width_edge(o[i].b, B), width_edge(o[i].b+1, B), 1, o[i].w,
                             o[i].wp/o[i].w, o[i].wy/o[i].w);
      }
      ml_json_end_array(&j);
      ml_result_json(ctx, &j);
      break;
  }
  ml_free(a);
}
