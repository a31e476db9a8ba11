/*
** SPDX-License-Identifier: MIT
**
** ml_surv.h -- the time-to-event core (ml_surv.c): a group's rows, the
** Kaplan-Meier curve with Greenwood's variance, the censoring curve G, the
** inverse-probability-of-censoring weights, Brier(t), AUC(t) and the
** integrated Brier score.  Pure C: no SQLite call but the allocator.  The
** conventions are SPEC.md's "Round 5" table, numbered as there (C1..C11).
*/
#ifndef ML_SURV_H
#define ML_SURV_H

#include "ml_core.h"

/*
** The rows of a group are an MlSamples (the shared buffer and its radix
** sort): a[1] the events, a[0] the censorings; key the time (>= 0, finite,
** -0 read as +0).  Two widths, read through ml_surv_w and ml_surv_x:
**   16  (key, risk): every row weighs 1 -- an unweighted function's rows,
**       16 bytes a row;
**   24  (key, weight, risk): the first row whose weight is not 1 (a twin's
**       row, a state's counted entry) widens the buffer, its rows so far
**       weighing 1 (ml_surv_widen, order kept); 24 bytes a row.
** The risk or probability is 0 where unused.  ml_surv_add appends (inserts
** once sorted: windows) and ml_surv_remove takes a row out.  The two
** widths hold the same rows in the same order, so every result reads the
** same weights and risks in the same order (bit for bit).
*/
static inline void ml_surv_init(MlSamples *s){ ml_samples_init(s, 16); }
static inline double ml_surv_w(const MlSamples *s, int y, ml_i64 i){
  return s->width==16 ? 1.0 : ml_samples_aux(s, y, i);
}
static inline double ml_surv_x(const MlSamples *s, int y, ml_i64 i){
  return s->width==16 ? ml_samples_aux(s, y, i) : ml_samples_aux2(s, y, i);
}
/* Width 16 to 24, every row weighing 1 (no-op at 24).  ML_OK or ML_NOMEM
** (unchanged). */
static inline int ml_surv_widen(MlSamples *s){
  if( s->width!=16 ) return ML_OK;
  if( ml_samples_widen(s, 1.0)!=ML_OK ) return ML_NOMEM;
  s->weighted = 0;            /* a width-24 buffer of ml_samples_init's, as before */
  return ML_OK;
}
static inline int ml_surv_add(MlSamples *s, int event, double time, double w, double x){
  ml_i64 n = s->n[event];
  if( s->width==16 ){
    if( w==1.0 ){
      if( !s->sorted && n<s->cap[event] ){    /* the row path: append in place */
        MlRec16 *r = (MlRec16*)s->a[event] + n;
        r->key = ml_key_of(time + 0.0);
        r->aux = x + 0.0;
        s->n[event] = n + 1;
        return ML_OK;
      }
      return ml_samples_add(s, event, time + 0.0, x + 0.0);
    }
    if( ml_surv_widen(s)!=ML_OK ) return ML_NOMEM;
  }
  if( !s->sorted && n<s->cap[event] ){        /* the row path: append in place */
    MlRec24 *r = (MlRec24*)s->a[event] + n;
    r->key = ml_key_of(time + 0.0);
    r->aux = w;
    r->aux2 = x + 0.0;
    s->n[event] = n + 1;
    return ML_OK;
  }
  return ml_samples_add2(s, event, time + 0.0, w, x + 0.0);
}
/* 1 if a row (event, time, w, x) was held and is removed, else 0. */
static inline int ml_surv_remove(MlSamples *s, int event, double time, double w, double x){
  if( s->width==16 ) return w==1.0 ? ml_samples_remove(s, event, time + 0.0, x + 0.0) : 0;
  return ml_samples_remove2(s, event, time + 0.0, w, x + 0.0);
}

/*
** The fit of a sorted group, one entry per distinct time t[0..m) ascending:
**   n[k]  the weight at risk at t[k] (rows with time >= t[k])
**   d[k]  the events at t[k], c[k] the censorings there (exact sums)
**   S[k]  Kaplan-Meier after t[k]: prod_{j<=k} (n_j - d_j) / n_j (survfit)
**   v[k]  Greenwood's sum prod_{j<=k} d_j / (n_j (n_j - d_j)) (Inf once S = 0)
**   G[k]  the censoring Kaplan-Meier after t[k] (C2): censorings after the
**         events at a tied time, risk set n_j - d_j
**   W     the total weight, D the events' weight
** Every sum is exact per time (ml_exact_sum), then accumulated from the
** last time back, so the fit depends on the rows held, not on their order:
** a window frame and the aggregate over the same rows agree bit for bit,
** and integer weights give the rows repeated.
*/
typedef struct MlSurvFit {
  ml_i64 m;
  double *t, *n, *d, *c, *S, *v, *G;   /* one allocation, at t */
  double W, D;
} MlSurvFit;

/* Sorts s by time (if it is not), its growth slack given back first
** (ml_samples_trim: once, at the first sort, so a window's frames do not
** shrink and regrow it).  ML_OK or ML_NOMEM. */
int ml_surv_sort(MlSamples *s);
/* Sorts s (ml_surv_sort) and fits it.  ML_OK, ML_NOMEM or ML_STOPPED; on
** failure f holds nothing.  A group without rows fits to m = 0. */
int ml_surv_fit(MlSamples *s, MlSurvFit *f);
void ml_surv_fit_free(MlSurvFit *f);
/* The last k with t[k] <= x, or -1 (binary search). */
ml_i64 ml_surv_index(const MlSurvFit *f, double x);
/* G(x) (C4) and its left limit G(x-) (C3); 1 before the first time. */
double ml_surv_G_at(const MlSurvFit *f, double x);
double ml_surv_G_before(const MlSurvFit *f, double x);
/* The step G given as its jump times and values (ipcw()'s curve, read back
** from censoring_km's JSON): the same two lookups over t[0..m), g[0..m). */
double ml_surv_step_at(const double *t, const double *g, ml_i64 m, double x, int before);

/* C5: a row's class at the horizon: 1 case (time <= tt, event), 0 control
** (time > tt), -1 censored at or before tt. */
static inline int ml_surv_class(int event, double time, double tt){
  return time>tt ? 0 : event ? 1 : -1;
}
/* C5's weight of one row from G's two lookups: 1/G(time-) for a case,
** 1/G(tt) for a control, 0 for a row censored by tt.  +Inf where the G it
** needs is 0 (C9: the caller's result is NULL with a reason). */
double ml_surv_ipcw(const MlSurvFit *f, int event, double time, double tt);

/* What a result at the horizon tt reports (surv_auroc, surv_brier,
** surv_summary, one horizon of surv_ibs).  Weights are sums of the rows'
** weights; NaN marks an undefined value, zWhy says why (the first reason). */
typedef struct MlSurvAt {
  double tt;
  double W, cases, controls, censored;  /* weights */
  double auroc;                         /* C5, C7: auroc_w over the IPCW weights */
  double brier, brierNull;              /* C10: over W; the null model predicts kmRisk */
  double kmRisk;                        /* 1 - S(tt) */
  double meanP;                         /* sum w p / W */
  const char *zWhy;                     /* 0, or why a value is NaN */
} MlSurvAt;
#define ML_SURV_AUROC  0x1   /* what ml_surv_at computes: AUC(t) */
#define ML_SURV_BRIER  0x2   /* Brier(t) of the rows' p, mean p */
#define ML_SURV_NULL   0x4   /* the null model's Brier(t) */
/* The horizon's results from a sorted group s and its fit f.  ML_OK or
** ML_NOMEM (AUC(t) sorts a weighted copy of the classes, 16 bytes a row). */
int ml_surv_at(const MlSamples *s, const MlSurvFit *f, double tt, unsigned what, MlSurvAt *out);

/* C11: the integral of the right-continuous step through (0, 0), (h_0,
** B_0), .. (h_{K-1}, B_{K-1}) from 0 to h_{K-1}, divided by h_{K-1}:
** sum_{k<K-1} B_k (h_{k+1} - h_k) / h_{K-1}.  h ascending, h_0 > 0. */
double ml_surv_integrate(const double *h, const double *B, ml_i64 K);


/* ------------------------------------------------------------------------
** Part 2 (surv_calibration, surv_net_benefit, surv_decision_curve: the
** block at the end of ml_surv.c).
*/

/* R's quantile(v, seq(0, 1, 1/q), type = 7) on a cumulative-weight axis,
** its duplicates merged: v[0..n) ascending, w[i] the weight of v[i] (NULL:
** every weight 1), W their sum.  The probabilities are R's seq(): k (1/q),
** k = 0..q, capped at 1; the index 1 + (W - 1) prob (W < 1: 1), lo and hi
** its floor and ceiling, the value at 1-based rank r the one whose weight
** interval [below_i, below_i + w_i) holds r - 1 (the last when r - 1 >= W),
** and (1 - h) x_lo + h x_hi where index > lo and x_hi != x_lo (R 4.2's
** expression).  Unit weights give R's doubles; integer weights, the values
** repeated.  Writes the distinct breaks ascending to out (room for q + 1)
** and returns how many (>= 1 when n > 0). */
ml_i64 ml_surv_breaks(const double *v, const double *w, ml_i64 n, double W, int q, double *out);

/* Kaplan-Meier at tt among the rows with p >= pt, for thresholds pt[0..T)
** descending, in one pass (surv_net_benefit, surv_decision_curve):
**   f        the group's fit (its distinct times f->t[0..m))
**   k, w, ev, p   the rows in descending p (ties in a fixed order: the
**            caller's canonical one), each row's time index into f->t,
**            its weight and event
** Rows join the subset as the threshold falls; at each threshold the
** subset's events and censorings per time give S(tt) = prod over t_k <= tt
** of (n_k - d_k)/n_k (ml_surv_fit's expression), n_k the subset's weight
** at risk at t_k (its rows beyond tt summed as they join, in row order:
** integer weights are exact, any weights give the same double whatever the
** thresholds asked).  Out, per threshold: pos[j] the subset's weight / W;
** risk[j] = 1 - S(tt), NaN when the subset is empty or its last time
** (event or censoring) is before tt (follow-up ends before t).  ML_OK or
** ML_NOMEM.  Cost: O(n + T m_tt), m_tt the distinct times <= tt; 16
** bytes per distinct time <= tt. */
int ml_surv_risk_above(const MlSurvFit *f, const ml_i64 *k, const double *w, const unsigned char *ev,
                       const double *p, ml_i64 n, double tt, const double *pt, ml_i64 T,
                       double *pos, double *risk);

#endif /* ML_SURV_H */
