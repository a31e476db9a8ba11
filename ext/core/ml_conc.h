/*
** SPDX-License-Identifier: MIT
**
** ml_conc.h -- the concordance core of the survival family (ml_conc.c):
** Harrell's and Uno's C over plain arrays, with the pair counts and the
** infinitesimal-jackknife influence of every row.  Pure C, no SQLite call
** but the allocator (ml_malloc & co.).
**
** The anchor is R survival 3.5's
**   concordance(Surv(time, event) ~ risk, reverse = TRUE [, ymax = tau]
**               [, timewt = "n/G2"] [, influence = 1])
** (survival's src/concordance3.c): higher risk = earlier event.  SPEC,
** "Round 5", conventions 1, 2, 3, 6, 7, 8:
**   - a pair (i, j) is comparable when event_i = 1 and T_i < T_j, or T_i = T_j
**     and j is censored (a censoring tied with an event happens after it);
**     i is the pair's earlier row;
**   - concordant: risk_i > risk_j; discordant: risk_i < risk_j; tied_risk:
**     risk_i == risk_j (counts 1/2 in the estimate);
**   - two events at one time are not comparable: tied_time (survival's
**     tied.y) when their risks differ, tied_both (survival's tied.xy) when
**     they are equal too (the copies of one weighted row are such pairs);
**   - tau: only pairs whose earlier row is an event at T_i <= tau count
**     (inclusive; survival's ymax); +INFINITY: every pair;
**   - each pair weighs w_i w_j, times 1/g_left[i]^2 for Uno (g_left[i] =
**     G(T_i-), the censoring Kaplan-Meier's left limit at the earlier row's
**     time: survival's timewt = "n/G2").  Every count below is such a sum.
*/
#ifndef ML_CONC_H
#define ML_CONC_H

#include "ml_core.h"

typedef struct MlConc {
  /* weighted pair counts (survival's count[], reverse = TRUE) */
  double concordant, discordant, tied_risk;
  double tied_time;  /* events tied in time, risks differ (survival's tied.y) */
  double tied_both;  /* events tied in time and in risk (survival's tied.xy),
                     ** by the frequency rule: a row of weight w counts as w
                     ** rows, so w (w - 1)/2 pairs among its copies count */
  double tied_self;  /* that part of tied_both: sum w_i (w_i - 1)/2 over the
                     ** events (times their pair weight), 0 unweighted.
                     ** survival's weighted tied.xy = tied_both - tied_self */
  /* (concordant + tied_risk/2) / (concordant + discordant + tied_risk);
  ** NaN when no pair is comparable */
  double estimate;
  /* infinitesimal-jackknife variance, sum_i w_i D_i^2 (frequency rule: an
  ** integer weight k is k repeated rows, whose var this is); NaN unless
  ** dfbeta was asked for, or when no pair is comparable.  Unweighted, it is
  ** survival's concordance(...)$var. */
  double var;
} MlConc;

/* Concordance of n rows (any order).
**   time[i]    finite, >= 0 (the caller checks; -0.0 is 0)
**   event[i]   0 or 1
**   risk[i]    any non-NaN double (higher = earlier event); ties by ==
**   w          NULL: every weight 1; else frequency weights, finite and > 0
**   g_left     NULL: Harrell; else G(T_i-) > 0 per row (read for events
**              only): Uno's pair weight 1/g_left[i]^2
**   tau        +INFINITY, or the truncation time (inclusive)
**   out        receives the counts, the estimate and var
**   dfbeta     NULL (the counts and the estimate only: one sort by risk, one
**              by time and one pass with a Fenwick tree), or n doubles that
**              receive each row's influence D_i on the estimate, per unit of
**              weight: survival's concordance(..., influence = 1)$dfbeta for
**              unit weights (R's weighted dfbeta is w_i D_i).  Asking for it
**              adds one more pass and fills out->var.
** Integer weights give what their repeated rows give, bit for bit, for the
** counts and the estimate (Harrell and Uno) and for var and dfbeta
** (Harrell), as long as each count stays below 2^53.
** Returns ML_OK, ML_NOMEM (out and dfbeta undefined) or ML_STOPPED
** (ml_stop_requested said stop; out and dfbeta are garbage).
** Rows in ascending time order (any order within a time) save the second
** sort (about a fifth of the cost).
** Cost: O(n log n) time (two radix sorts of 16-byte records, then one or
** two passes with O(log m) Fenwick steps per row, m distinct risks);
** scratch of 32 bytes per row while sorting, then 16 bytes per row and 24
** per distinct risk (32 with non-integer weights or Uno's dfbeta; 8 bytes
** per row more with dfbeta), freed before returning. */
int ml_concordance(ml_i64 n, const double *time, const int *event,
                   const double *risk, const double *w, const double *g_left,
                   double tau, MlConc *out, double *dfbeta);

/* The frequency-rule variance of an influence vector, or of the difference
** of two over the same rows (c_index_diff's se^2): sum_i w_i (a_i - b_i)^2,
** exactly summed and correctly rounded.  b NULL: sum_i w_i a_i^2; w NULL:
** every weight 1. */
double ml_conc_var(ml_i64 n, const double *a, const double *b, const double *w);

#endif /* ML_CONC_H */
