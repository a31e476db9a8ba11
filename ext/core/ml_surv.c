/*
** SPDX-License-Identifier: MIT
**
** ml_surv.c -- the time-to-event core: Kaplan-Meier with Greenwood's
** variance, the censoring curve G, the IPCW weights, Brier(t), AUC(t) and
** the integrated Brier score (ml_surv.h).  Callers: ext/metrics/survival.c
** (km, censoring_km, ipcw, surv_auroc, surv_brier, surv_summary, surv_ibs,
** and the weights of uno_c).
**
** Rules (SPEC.md "Round 5", conventions C1..C11):
**   1. The rows are one MlSamples of width 16 (every row weighing 1) or 24
**      (ml_surv.h; read through ml_surv_w, ml_surv_x): sorted once by
**      time with the shared radix sort; the two classes (a[1] events, a[0]
**      censorings) are merged by time, an event before a censoring at one
**      time (C1).
**   2. Per distinct time t_k: d_k, c_k the exact sums of the tied rows'
**      weights (ml_exact_sum: independent of the order the rows are held
**      in), n_k = n_{k+1} + d_k + c_k accumulated from the last time back
**      (so n_0 = W, every row at risk at the first time).
**   3. Kaplan-Meier: S_k = S_{k-1} (n_k - d_k) / n_k, Greenwood's sum v_k =
**      v_{k-1} + d_k / (n_k (n_k - d_k)) (survfit's; Inf once S reaches 0,
**      whose se survfit reports as NaN: null in JSON).
**   4. G (C2): G_k = G_{k-1} (1 - c_k / (n_k - d_k)) -- the censorings at
**      t_k leave after its events, so their risk set is n_k - d_k; a time
**      where n_k = d_k has no censoring and keeps G.  G(x) is G at the last
**      t_k <= x (C4), G(x-) at the last t_k < x (C3); 1 before t_0.
**   5. Weights (C5): case (time <= tt, event 1): 1/G(time-); control (time
**      > tt): 1/G(tt); censored at or before tt: 0.  A weight whose G is 0
**      is +Inf and its result NaN with a reason (C9, no truncation).
**   6. Brier(t) (C10) = sum w_i q_i (1[case_i] - p_i)^2 / W, q_i the weight
**      of rule 5, each term w (q r^2) added exactly (ml_xsum_add_product),
**      so integer weights equal the rows repeated bit for bit.  The null
**      model predicts 1 - S(tt) for every row.
**   7. AUC(t) (C5, C7): the weighted sweep's auroc_w (ml_wfold_auroc) over
**      the cases (weight w q) against the controls (weight w q), by risk;
**      ties in risk count 1/2 there.  w q is held as fl(w q) and, when that
**      rounds, a second record of its rounding error, so the sweep's exact
**      tie sums are the rows repeated.  NaN when a class is empty at tt.
**   8. Integrated Brier (C11): sum_{k<K-1} B_k (h_{k+1} - h_k) / h_{K-1}.
**
** Cost: the sort gives back the buffer's growth slack first
** (ml_surv_sort), so a result holds the rows (16 bytes each, 24 once a
** weight is not 1) and the sort's scratch (as much again for the larger
** class); a fit holds 7 doubles a distinct time (one allocation, sized by
** a first walk that counts them) and walks the rows twice after the sort;
** AUC(t) copies the cases and controls into a weighted buffer (16 bytes a
** row, 32 where w q rounds), trims it and sorts it by risk; Brier(t) walks
** the rows once with one binary search of G per case.
*/
#include <math.h>
#include <string.h>
#include "ml_surv.h"

void ml_surv_fit_free(MlSurvFit *f){
  ml_free(f->t);
  memset(f, 0, sizeof(*f));
}

/* The end of the run of rows of class y tied at key k from i on. */
static ml_i64 run_end(const MlSamples *s, int y, ml_i64 i, ml_key k){
  while( i<s->n[y] && ml_samples_key(s, y, i)==k ) i++;
  return i;
}

/* The distinct times of a sorted group, both classes together. */
static ml_i64 distinct_times(const MlSamples *s){
  ml_i64 i0 = 0, i1 = 0, m = 0;
  while( i0<s->n[0] || i1<s->n[1] ){
    ml_key k0 = i0<s->n[0] ? ml_samples_key(s, 0, i0) : ~(ml_key)0;
    ml_key k1 = i1<s->n[1] ? ml_samples_key(s, 1, i1) : ~(ml_key)0;
    ml_key kk = k0<k1 ? k0 : k1;
    if( k0==kk ) i0 = run_end(s, 0, i0, kk);
    if( k1==kk ) i1 = run_end(s, 1, i1, kk);
    m++;
  }
  return m;
}

int ml_surv_sort(MlSamples *s){
  if( !s->sorted ) ml_samples_trim(s);
  return ml_samples_sort(s);
}

int ml_surv_fit(MlSamples *s, MlSurvFit *f){
  ml_i64 i0 = 0, i1 = 0, m = 0, k, cap;
  double *mem, n, S, v, G;
  memset(f, 0, sizeof(*f));
  if( ml_surv_sort(s)!=ML_OK ) return ML_NOMEM;
  if( ml_stop_happened() ) return ML_STOPPED;
  if( ml_samples_count(s)==0 ) return ML_OK;
  cap = distinct_times(s);
  mem = ml_malloc((uint64_t)cap * 7 * sizeof(double));
  if( mem==0 ) return ML_NOMEM;
  f->t = mem; f->n = mem + cap; f->d = mem + 2*cap; f->c = mem + 3*cap;
  f->S = mem + 4*cap; f->v = mem + 5*cap; f->G = mem + 6*cap;
  /* rule 2: the distinct times ascending, each class's tied weights summed exactly */
  while( i0<s->n[0] || i1<s->n[1] ){
    ml_key k0 = i0<s->n[0] ? ml_samples_key(s, 0, i0) : ~(ml_key)0;
    ml_key k1 = i1<s->n[1] ? ml_samples_key(s, 1, i1) : ~(ml_key)0;
    ml_key kk = k0<k1 ? k0 : k1;
    ml_i64 e0 = k0==kk ? run_end(s, 0, i0, kk) : i0, e1 = k1==kk ? run_end(s, 1, i1, kk) : i1;
    f->t[m] = ml_double_of(kk);
    if( s->width==16 ){          /* unit weights: the exact sum is the count */
      f->d[m] = (double)(e1 - i1);
      f->c[m] = (double)(e0 - i0);
    }else{
      f->d[m] = e1>i1 ? ml_exact_sum((const double*)(s->a[1] + (size_t)i1*24 + 8), 3, e1 - i1) : 0.0;
      f->c[m] = e0>i0 ? ml_exact_sum((const double*)(s->a[0] + (size_t)i0*24 + 8), 3, e0 - i0) : 0.0;
    }
    m++;
    i0 = e0; i1 = e1;
    if( (m & 0xFFFF)==0 && ml_stop_requested() ){ ml_surv_fit_free(f); return ML_STOPPED; }
  }
  f->m = m;
  n = 0.0;
  for(k=m-1; k>=0; k--){ n += f->d[k] + f->c[k]; f->n[k] = n; }
  /* rules 3 and 4 */
  S = 1.0; v = 0.0; G = 1.0;
  f->D = 0.0;
  for(k=0; k<m; k++){
    double nk = f->n[k], dk = f->d[k], ck = f->c[k];
    if( dk>0.0 ){
      S = S * (nk - dk) / nk;
      v = nk>dk ? v + dk / (nk * (nk - dk)) : INFINITY;
      f->D += dk;
    }
    if( ck>0.0 && nk>dk ) G = G * (1.0 - ck / (nk - dk));
    f->S[k] = S; f->v[k] = v; f->G[k] = G;
  }
  f->W = f->n[0];
  return ML_OK;
}

ml_i64 ml_surv_index(const MlSurvFit *f, double x){
  ml_i64 lo = 0, hi = f->m;          /* the first t[k] > x is in [lo, hi] */
  while( lo<hi ){
    ml_i64 mid = lo + (hi - lo)/2;
    if( f->t[mid]<=x ) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}

double ml_surv_step_at(const double *t, const double *g, ml_i64 m, double x, int before){
  ml_i64 lo = 0, hi = m;
  while( lo<hi ){
    ml_i64 mid = lo + (hi - lo)/2;
    if( before ? t[mid]<x : t[mid]<=x ) lo = mid + 1; else hi = mid;
  }
  return lo==0 ? 1.0 : g[lo-1];
}

double ml_surv_G_at(const MlSurvFit *f, double x){
  return ml_surv_step_at(f->t, f->G, f->m, x, 0);
}
double ml_surv_G_before(const MlSurvFit *f, double x){
  return ml_surv_step_at(f->t, f->G, f->m, x, 1);
}

double ml_surv_ipcw(const MlSurvFit *f, int event, double time, double tt){
  double g;
  switch( ml_surv_class(event, time, tt) ){
    case 1:  g = ml_surv_G_before(f, time); break;
    case 0:  g = ml_surv_G_at(f, tt); break;
    default: return 0.0;
  }
  return g>0.0 ? 1.0/g : INFINITY;
}

int ml_surv_at(const MlSamples *s, const MlSurvFit *f, double tt, unsigned what, MlSurvAt *out){
  MlXsum bs, bn, sp, cnt[3];           /* cnt: censored, controls, cases */
  MlSamples ws;
  double qControl, gt = ml_surv_G_at(f, tt);
  ml_i64 k = ml_surv_index(f, tt), i;
  int y, rc = ML_OK;
  memset(out, 0, sizeof(*out));
  out->tt = tt;
  out->W = f->W;
  out->kmRisk = 1.0 - (k>=0 ? f->S[k] : 1.0);
  out->auroc = out->brier = out->brierNull = out->meanP = NAN;
  qControl = gt>0.0 ? 1.0/gt : INFINITY;
  ml_xsum_init(&bs); ml_xsum_init(&bn); ml_xsum_init(&sp);
  for(y=0; y<3; y++) ml_xsum_init(&cnt[y]);
  ml_samples_init_weighted(&ws);
  for(y=0; y<2; y++){
    for(i=0; i<s->n[y]; i++){
      double time = ml_double_of(ml_samples_key(s, y, i));
      double w = ml_surv_w(s, y, i), x = ml_surv_x(s, y, i), q, r;
      int cls = ml_surv_class(y, time, tt);
      if( what & ML_SURV_BRIER ) ml_xsum_add_product(&sp, w, x, 1);
      ml_xsum_add(&cnt[cls+1], w, 1);
      if( cls<0 ) continue;
      if( cls==1 ){
        double g = ml_surv_G_before(f, time);
        q = g>0.0 ? 1.0/g : INFINITY;
      }else{
        q = qControl;
      }
      if( q==INFINITY ){
        if( out->zWhy==0 ) out->zWhy = cls ? "the censoring curve G is 0 before a case's time (no row left uncensored)"
                                           : "the censoring curve G is 0 at t (no control's weight)";
        continue;
      }
      r = (double)cls - x;
      if( what & ML_SURV_BRIER ) ml_xsum_add_product(&bs, w, q*(r*r), 1);
      if( what & ML_SURV_NULL ){
        double rn = (double)cls - out->kmRisk;
        ml_xsum_add_product(&bn, w, q*(rn*rn), 1);
      }
      if( (what & ML_SURV_AUROC) && rc==ML_OK ){
        /* w q as the one or two doubles whose sum it is exactly (hi, lo):
        ** the sweep's exact tie sums then give the rows repeated (rule 7) */
        double hi = w*q, lo = fma(w, q, -hi);
        if( !ml_samples_append(&ws, cls, x, hi) && ml_samples_add(&ws, cls, x, hi)!=ML_OK ) rc = ML_NOMEM;
        if( lo!=0.0 && rc==ML_OK && !ml_samples_append(&ws, cls, x, lo) && ml_samples_add(&ws, cls, x, lo)!=ML_OK ){
          rc = ML_NOMEM;
        }
      }
    }
  }
  if( rc!=ML_OK ){ ml_samples_clear(&ws); return rc; }
  /* the classes' weights, exact sums: whatever order the rows are held in */
  out->censored = ml_xsum_round(&cnt[0]);
  out->controls = ml_xsum_round(&cnt[1]);
  out->cases = ml_xsum_round(&cnt[2]);
  if( what & ML_SURV_BRIER ) out->meanP = ml_xsum_round(&sp) / out->W;
  if( out->zWhy==0 ){
    if( what & ML_SURV_BRIER ) out->brier = ml_xsum_round(&bs) / out->W;
    if( what & ML_SURV_NULL ) out->brierNull = ml_xsum_round(&bn) / out->W;
  }
  if( what & ML_SURV_AUROC ){
    if( out->cases<=0.0 ){
      if( out->zWhy==0 ) out->zWhy = "no case (event at or before t)";
    }else if( out->controls<=0.0 ){
      if( out->zWhy==0 ) out->zWhy = "no control (time after t)";
    }else if( out->zWhy==0 ){
      ml_samples_trim(&ws);           /* its slack is not held beside the sort's scratch */
      if( ml_samples_sort(&ws)!=ML_OK ){ ml_samples_clear(&ws); return ML_NOMEM; }
      out->auroc = ml_wfold_auroc(&ws);
    }
  }
  ml_samples_clear(&ws);
  return ML_OK;
}

double ml_surv_integrate(const double *h, const double *B, ml_i64 K){
  MlSum a = {0.0, 0.0};
  ml_i64 k;
  if( K<1 ) return NAN;
  for(k=0; k+1<K; k++) ml_sum_add(&a, B[k] * (h[k+1] - h[k]));
  return ml_sum_value(&a) / h[K-1];
}

/* ------------------------------------------------------------------------
** Part 2 (ml_surv.h's second block): the quantile breaks of
** surv_calibration and the Kaplan-Meier risk above a threshold of
** surv_net_benefit and surv_decision_curve (ext/metrics/survival_clinical.c).
**   9. Breaks: R 4.2's quantile(type = 7) of seq(0, 1, 1/q) on the
**      cumulative weight (ml_surv.h), sorted, duplicates merged (cut()
**      then reads them as right-closed intervals, the lowest closed).
**  10. Risk above pt: rows join in descending p; per time <= tt their
**      events and censorings are summed in the order they join, those
**      beyond tt into one tail; n_k is the tail plus the sums from the last
**      time <= tt back (ml_surv_fit's order), S(tt) its forward product.
*/
#include <stdlib.h>

/* The value at 0-based rank r of v on the weight axis (cursor *pi, *pBelow
** moved forward: ranks asked ascending). */
static double rank_value(const double *v, const double *w, ml_i64 n, double r, ml_i64 *pi, double *pBelow){
  if( w==0 ){
    ml_i64 j = r<(double)(n-1) ? (ml_i64)r : n-1;
    return v[j];
  }
  while( *pi<n-1 && *pBelow + w[*pi]<=r ){ *pBelow += w[*pi]; (*pi)++; }
  return v[*pi];
}

static int cmp_double(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

ml_i64 ml_surv_breaks(const double *v, const double *w, ml_i64 n, double W, int q, double *out){
  double by = 1.0/(double)q, below = 0.0;
  ml_i64 kmax = (ml_i64)(1.0/by + 1e-10), k, nb = 0, i = 0, j;
  if( n<=0 ) return 0;
  if( kmax>q ) kmax = q;
  for(k=0; k<=kmax; k++){
    double prob = (double)k*by, index, lo, hi, x, xh;
    if( prob>1.0 ) prob = 1.0;
    index = 1.0 + (W>1.0 ? W - 1.0 : 0.0)*prob;
    lo = floor(index); hi = ceil(index);
    x = rank_value(v, w, n, lo - 1.0, &i, &below);
    if( index>lo ){
      ml_i64 i2 = i;
      double below2 = below;
      xh = rank_value(v, w, n, hi - 1.0, &i2, &below2);
      if( xh!=x ){ double h = index - lo; x = (1.0 - h)*x + h*xh; }
    }
    out[nb++] = x;
  }
  qsort(out, (size_t)nb, sizeof(double), cmp_double);
  for(i=0, j=0; i<nb; i++) if( j==0 || out[i]!=out[j-1] ) out[j++] = out[i];
  return j;
}

int ml_surv_risk_above(const MlSurvFit *f, const ml_i64 *k, const double *w, const unsigned char *ev,
                       const double *p, ml_i64 n, double tt, const double *pt, ml_i64 T,
                       double *pos, double *risk){
  ml_i64 mt = ml_surv_index(f, tt) + 1, i = 0, j, kk;
  double *d, *c, *nn, tail = 0.0, wsub = 0.0, last = -1.0;
  d = ml_malloc((uint64_t)(mt ? mt : 1) * 3 * sizeof(double));
  if( d==0 ) return ML_NOMEM;
  c = d + mt; nn = c + mt;
  memset(d, 0, (size_t)mt * 2 * sizeof(double));
  for(j=0; j<T; j++){
    while( i<n && p[i]>=pt[j] ){
      if( k[i]<mt ){ if( ev[i] ) d[k[i]] += w[i]; else c[k[i]] += w[i]; }
      else tail += w[i];
      wsub += w[i];
      if( f->t[k[i]]>last ) last = f->t[k[i]];
      i++;
    }
    pos[j] = wsub / f->W;
    if( wsub<=0.0 || last<tt ){
      risk[j] = NAN;
    }else{
      double nk = tail, S = 1.0;
      for(kk=mt-1; kk>=0; kk--){ nk += d[kk] + c[kk]; nn[kk] = nk; }
      for(kk=0; kk<mt; kk++) if( d[kk]>0.0 ) S = S * (nn[kk] - d[kk]) / nn[kk];
      risk[j] = 1.0 - S;
    }
  }
  ml_free(d);
  return ML_OK;
}
