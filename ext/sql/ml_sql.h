/*
** SPDX-License-Identifier: MIT
**
** ml_sql.h -- what the metric families share on the SQL side: argument
** checks, the error helper, NULL-with-a-warning results, JSON results, and
** the callbacks each family registers (the table itself is in mleval.c).
*/
#ifndef ML_SQL_H
#define ML_SQL_H

#include <math.h>
#include "sqlite3ext.h"
#include "ml_core.h"

/* What an argument check says about the row. */
#define ML_ROW_OK    0   /* use it */
#define ML_ROW_SKIP  1   /* NULL: skip the row, as avg() does */
#define ML_ROW_ERR   2   /* an error is set on the context: return at once */

/* A per-row parameter that must be the same in every row of a group or
** window frame.  It follows the rows holding it: xStep counts the row under
** its value (ml_param_real, ml_param_int), xInverse uncounts it
** (ml_param_drop), and once no row holds a value it is free again, so
** consecutive frames may use different values.  Two values may be held at
** once: for frames that start FOLLOWING SQLite steps the next frame's rows
** before it removes the last frame's, so between two results the state holds
** both.  A third value is an error at once; two values when a result is due
** are an error then (ml_param_check).  v[0] is the older value; a zeroed
** struct holds nothing. */
typedef struct MlParam { double v[2]; ml_i64 n[2]; } MlParam;

/* Sets "fn(): <message>" as the statement's error. */
void ml_error(sqlite3_context *ctx, const char *fn, const char *fmt, ...);
/* Result NULL, and sqlite3_log(SQLITE_WARNING, "fn(): <reason>; result is NULL"). */
void ml_result_null(sqlite3_context *ctx, const char *fn, const char *fmt, ...);
/* Hands a finished JSON writer's text to SQLite with subtype 'J'. */
void ml_result_json(sqlite3_context *ctx, MlJson *j);
/* A bootstrap's JSON (ml_boot.c's results), one writer for every family:
** ml_boot_json_interval writes "estimate" (withEstimate), "lo", "hi", "se";
** ml_boot_json_percentile "percentile": [plo, phi]; ml_boot_json_run
** "level", "reps", "seed", "method": "bca", "redrawn", "n". */
void ml_boot_json_interval(MlJson *j, const MlBootInterval *iv, int withEstimate);
void ml_boot_json_percentile(MlJson *j, const MlBootInterval *iv);
void ml_boot_json_run(MlJson *j, double level, ml_i64 reps, ml_i64 seed, ml_i64 redrawn, ml_i64 n);
/* Sets the result of a bootstrap that did not end ML_OK (ml_boot_run's
** code): out of memory, interrupted, ML_BOOT_UNDEFINED a NULL saying
** zUndefined, else (too many redraws) a NULL saying so. */
void ml_result_boot_failed(sqlite3_context *ctx, const char *fn, int rc, const char *zUndefined);
/* A short description of a value for error messages: 2, 0.5, text 'abc', a blob, NULL. */
char *ml_describe(sqlite3_value *v);

/* sqlite3_value_type, except that TEXT which SQLite reads in full as a
** number is converted in place (sqlite3_value_numeric_type) and reported
** as INTEGER or REAL.  The one place that decides what counts as a number. */
int ml_value_type(sqlite3_value *v);

/* True when v is an INTEGER, or a REAL with an integral value, in lo..hi;
** the value goes to *out.  The one integer test behind labels, integer
** parameters and svd_bench's arguments. */
int ml_value_integer(sqlite3_value *v, ml_i64 lo, ml_i64 hi, ml_i64 *out);

/* Label in 0..maxLabel (1 for binary functions; -1: any non-negative
** integer): INTEGER or an integral REAL (or numeric text, see ml_value_type). */
int ml_arg_label(sqlite3_context *ctx, const char *fn, sqlite3_value *v, int maxLabel, int *y);
/* The same for a label argument of another name: the monitoring family's
** period g (0 = reference, 1 = current) says "g must be 0 or 1, got 2". */
int ml_arg_label_named(sqlite3_context *ctx, const char *fn, const char *name, sqlite3_value *v,
                       int maxLabel, int *y);
/* Score: INTEGER or REAL, any value (+-Inf included). */
int ml_arg_score(sqlite3_context *ctx, const char *fn, const char *name, sqlite3_value *v, double *s);
/* Probability: INTEGER or REAL in [0, 1]. */
int ml_arg_prob(sqlite3_context *ctx, const char *fn, const char *name, sqlite3_value *v, double *p);
/* The (y, s) or (y, p) pair that leads every binary function's arguments:
** argv[0] a 0/1 label, argv[1] a score (isProb 0) or a probability (isProb
** 1).  A NULL in either skips the row.  The common case costs two type
** look-ups and two reads. */
int ml_arg_binary_row_checked(sqlite3_context *ctx, const char *fn, sqlite3_value **argv,
                              int isProb, int *y, double *x);
/* Inline: the common row (INTEGER 0/1 label, a REAL or INTEGER score in
** range) costs the two type look-ups and two reads that any aggregate of two
** columns pays; every other row goes to ml_arg_binary_row_checked.  fn may
** be NULL: the name is then read from the function's MlFuncDesc user data.
** ml_arg_binary_row_t takes argv[0]'s type t0 already read (a family step
** reads it once for the state check, ML_STATE_DIVERT, and the row). */
/* The common row alone: 1 and *y, *x when it is one, else 0 (nothing read
** that a checker would miss): the one test behind ml_arg_binary_row_t and
** the steps that keep their own messages for other rows (drift.c's g). */
static inline int ml_binary_row_common(sqlite3_value **argv, int t0, int isProb, int *y, double *x){
  if( t0==SQLITE_INTEGER ){
    int t1 = sqlite3_value_type(argv[1]);
    if( t1==SQLITE_FLOAT || t1==SQLITE_INTEGER ){
      sqlite3_int64 v = sqlite3_value_int64(argv[0]);
      double d = sqlite3_value_double(argv[1]);
      if( (v & ~(sqlite3_int64)1)==0 && (!isProb || (d>=0.0 && d<=1.0)) ){
        *y = (int)v;
        *x = d;
        return 1;
      }
    }
  }
  return 0;
}
static inline int ml_arg_binary_row_t(sqlite3_context *ctx, const char *fn, sqlite3_value **argv,
                                      int t0, int isProb, int *y, double *x){
  if( ml_binary_row_common(argv, t0, isProb, y, x) ) return ML_ROW_OK;
  return ml_arg_binary_row_checked(ctx, fn, argv, isProb, y, x);
}
static inline int ml_arg_binary_row(sqlite3_context *ctx, const char *fn, sqlite3_value **argv,
                                    int isProb, int *y, double *x){
  return ml_arg_binary_row_t(ctx, fn, argv, sqlite3_value_type(argv[0]), isProb, y, x);
}
/* The rule of a row of k class probabilities (multiclass rule 2): each in
** [0, 1] and their sum, taken in index order, within 1e-6 of 1 (used as
** given, never renormalised).  -1 when the row keeps it; else the index of
** the first value outside [0, 1], or k when only the sum fails.  *pSum
** gets the sum (for the message).  The one test of the row readers
** (ml_arg_scores), the multiclass step's inline row and its states. */
static inline int ml_prob_row_check(const double *p, int k, double *pSum){
  double sum = 0.0;
  int i;
  for(i=0; i<k; i++){
    if( !(p[i]>=0.0 && p[i]<=1.0) ) return i;
    sum += p[i];
  }
  *pSum = sum;
  return fabs(sum - 1.0)<=1e-6 ? -1 : k;
}
/* A row's weight (weighted twins): a non-negative finite number, or NULL
** (the row is skipped); *w gets it, 0 for NULL.  Anything else is an error
** "fn(): w must be a non-negative finite number, got ...".  ML_ROW_OK or
** ML_ROW_ERR. */
int ml_arg_weight(sqlite3_context *ctx, const char *fn, sqlite3_value *v, double *w);
/* The k class scores of a multiclass row (multiclass.c), read into p
** without allocating: argv[0..nArg) is either the wide form, nArg = k
** numbers (s_0 .. s_k-1, or p_0 .. p_k-1 for probabilities), or nArg = 1,
** the JSON form, one text holding a JSON array of k numbers ("scores", or
** "probs").  2 <= k <= kMax; *pk gets k.  Scores
** (isProb 0) may be any number; probabilities (isProb 1) lie in [0, 1] and
** sum to 1 within 1e-6 (used as given, never renormalised).  A NULL score,
** a NULL probs or a null element skips the row.  ML_ROW_*; every error
** names the argument (s_2, scores, p_2, probs, probs[2]) and the bad value.
** zWide (0: none) is added in parentheses to the wide form's errors where
** a parameter given to it would show: its last value and the row's sum
** (a function whose parameters exist only in the JSON form says so). */
int ml_arg_scores(sqlite3_context *ctx, const char *fn, sqlite3_value **argv, int nArg,
                  int isProb, int kMax, const char *zWide, double *p, int *pk);
/* True when v is text that starts (after spaces) with '[': the JSON form of
** a multiclass row's scores (the one test the driver, which places a
** twin's weight, and the family share). */
int ml_value_is_array(sqlite3_value *v);
/* The (time, event) pair that leads every time-to-event function's
** arguments (survival.c): argv[0] a follow-up time, a non-negative finite
** number ("time must be a non-negative finite number, got -1"), argv[1]
** the event, 0 or 1 (the label rules; "event must be 0 or 1, got 2").  A
** NULL in either skips the row (a bad value in the other still errs).
** ML_ROW_*. */
int ml_arg_time_event(sqlite3_context *ctx, const char *fn, sqlite3_value **argv, double *time, int *event);
/* Stratifier: any number (NULL skips the row). */
#define ml_arg_strat(ctx, fn, v, out) ml_arg_score(ctx, fn, "strat", v, out)

/* Adds a row to an aggregate's sample buffer; when memory runs out, frees
** the buffer and sets SQLITE_NOMEM on the context.  ML_OK or ML_NOMEM. */
int ml_add_row_grow(sqlite3_context *ctx, MlSamples *smp, int y, double score, double aux);
static inline int ml_add_row(sqlite3_context *ctx, MlSamples *smp, int y, double score, double aux){
  if( ml_samples_append(smp, y, score, aux) ) return ML_OK;
  return ml_add_row_grow(ctx, smp, y, score, aux);
}

/*
** Parameters are data: each function's record (MlFuncDesc.aParam) lists its
** parameter arguments, after the data arguments, as specs -- name, type,
** range, default, and a valid example (what mleval_functions() shows and the
** tests call with).  The checks below take the spec, so the record is the
** one place a range is written and the error text follows from it:
** "target_fpr must be a number in (0, 1), got 1.0".  Every parameter must be
** the same in every row of a group (MlParam); the per-row path compares the
** row's value with the group's held one before any parsing or range check.
*/
enum { ML_PT_REAL = 1, ML_PT_INT, ML_PT_CHOICE, ML_PT_TEXT };
typedef struct MlParamSpec {
  const char *name;
  unsigned char type;           /* ML_PT_* */
  unsigned char loOpen, hiOpen; /* ML_PT_REAL: open ends of lo..hi */
  double lo, hi;                /* ML_PT_REAL: the range (+-INFINITY: unbounded) */
  ml_i64 ilo, ihi;              /* ML_PT_INT: the range */
  const char *const *azChoice;  /* ML_PT_CHOICE: the lowercase words, 0-terminated */
  const char *zDefault;         /* the default as SQL text; 0: none (required, or no single default) */
  const char *zExample;         /* a valid value as SQL text */
} MlParamSpec;
#define ML_PARAM_REAL(name, lo, loOpen, hi, hiOpen, dflt, ex) \
  { name, ML_PT_REAL, loOpen, hiOpen, lo, hi, 0, 0, 0, dflt, ex }
#define ML_PARAM_INT(name, lo, hi, dflt, ex) \
  { name, ML_PT_INT, 0, 0, 0.0, 0.0, lo, hi, 0, dflt, ex }
#define ML_PARAM_CHOICE(name, az, dflt, ex) \
  { name, ML_PT_CHOICE, 0, 0, 0.0, 0.0, 0, 0, az, dflt, ex }
#define ML_PARAM_TEXT(name, dflt, ex) \
  { name, ML_PT_TEXT, 0, 0, 0.0, 0.0, 0, 0, 0, dflt, ex }

/* Parameters several families share (ml_args.c): the stratifier quantiles
** ql in [0, 1) and qh in (0, 1] (defaults 0.25, 0.75), gap_threshold (any
** number, 0.05), and the uncertainty family's level in (0, 1) (0.95), reps
** in 10..10^6 (1000) and seed in 0..2^63-1 (0). */
extern const MlParamSpec ml_ps_ql, ml_ps_qh, ml_ps_gap_threshold, ml_ps_level, ml_ps_reps, ml_ps_seed;
/* decision_curve's grid (ranking.c), shared with decision_curve_ci
** (uncertainty.c): from, to, by; the number of thresholds from + i by; the
** check of from <= to and of the limit (ML_ROW_OK or ML_ROW_ERR, fn's error). */
extern const MlParamSpec ml_ps_from, ml_ps_to, ml_ps_by;
#define ML_CURVE_MAX_POINTS 10000
double ml_grid_points(const double g[3]);
int ml_grid_check(sqlite3_context *ctx, const char *fn, const double g[3]);
/* tpr_at_fpr's target_fpr and sens_at_spec's target_spec in (0, 1), and
** net_benefit's pt in (0, 1), all required: ranking.c's functions and their
** bootstrap intervals in uncertainty.c read the same specs. */
extern const MlParamSpec ml_ps_target_fpr, ml_ps_target_spec, ml_ps_pt;

/* Net benefit of treating the rows at or above pt: tp/n - fp/n pt/(1 - pt)
** (ranking.c; net_benefit, decision_curve and net_benefit_ci share it). */
double ml_net_benefit(double tp, double fp, double n, double pt);
/* net_benefit_w's value from the sums of weights tp, fp, tn, fn (ranking.c). */
double ml_net_benefit_w(double tp, double fp, double tn, double fn, double pt);

/* A real parameter in ps's range, the same in every row: validates it and
** counts this row under it.  NULL is an error (a parameter is not data).
** Inline, the per-row path: the group's value again (already checked when
** the group's first row held it) costs a type look-up, a read and a
** compare; anything else goes to ml_param_real_checked. */
int ml_param_real_checked(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, sqlite3_value *v,
                          MlParam *slot, double *out);
static inline int ml_param_real(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, sqlite3_value *v,
                                MlParam *slot, double *out){
  int t;
  if( slot->n[0]>0 && ((t = sqlite3_value_type(v))==SQLITE_FLOAT || t==SQLITE_INTEGER) ){
    double d = sqlite3_value_double(v);
    if( d==slot->v[0] ){ slot->n[0]++; *out = d; return ML_ROW_OK; }
  }
  return ml_param_real_checked(ctx, fn, ps, v, slot, out);
}
/* A text parameter that names one of ps's words, case-insensitively, the
** same in every row; its index goes to *out (and is what the slot keeps). */
int ml_param_choice_checked(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, sqlite3_value *v,
                            MlParam *slot, int *out);
static inline int ml_param_choice(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, sqlite3_value *v,
                                  MlParam *slot, int *out){
  /* once per row: the group's word again, in the same spelling, compared
  ** byte by byte here (no strlen, no call); anything else is checked in full */
  if( slot->n[0]>0 && sqlite3_value_type(v)==SQLITE_TEXT ){
    const unsigned char *z = sqlite3_value_text(v);
    const char *c = ps->azChoice[(int)slot->v[0]];
    int i = 0;
    if( z ){
      while( c[i] && z[i]==(unsigned char)c[i] ) i++;
      if( c[i]==0 && z[i]==0 ){ slot->n[0]++; *out = (int)slot->v[0]; return ML_ROW_OK; }
    }
  }
  return ml_param_choice_checked(ctx, fn, ps, v, slot, out);
}
/* An integer parameter in ps's range, the same in every row (the per-row
** path inline, as ml_param_real's). */
int ml_param_int_checked(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, sqlite3_value *v,
                         MlParam *slot, ml_i64 *out);
static inline int ml_param_int(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, sqlite3_value *v,
                               MlParam *slot, ml_i64 *out){
  if( slot->n[0]>0 && sqlite3_value_type(v)==SQLITE_INTEGER ){
    sqlite3_int64 i = sqlite3_value_int64(v);
    if( (double)i==slot->v[0] ){ slot->n[0]++; *out = i; return ML_ROW_OK; }
  }
  return ml_param_int_checked(ctx, fn, ps, v, slot, out);
}

/* xInverse: the row holding the parameter value v (accepted by xStep) left. */
void ml_param_drop(MlParam *slot, sqlite3_value *v);
/* At a result: an error when the rows held disagree.  ML_ROW_OK or ML_ROW_ERR. */
int ml_param_check(sqlite3_context *ctx, const char *fn, const char *name, const MlParam *slot);
/* The same for a choice parameter (ml_param_choice): the row's word v
** left; at a result, the error names the two words. */
void ml_param_choice_drop(MlParam *slot, sqlite3_value *v, const MlParamSpec *ps);
int ml_param_choice_check(sqlite3_context *ctx, const char *fn, const MlParamSpec *ps, const MlParam *slot);
/* The value the rows hold, or dflt when no row holds one. */
static inline double ml_param_value(const MlParam *slot, double dflt){
  return slot->n[0]>0 ? slot->v[0] : dflt;
}

/* The shortest text that reads back as d ("0.1", "1.0000000000000002",
** "Inf"), for messages; buf >= 32 bytes. */
const char *ml_num(char *buf, double d);
/* "an" before a word that starts with a vowel ("an ordinal state"), else "a". */
static inline const char *ml_article(const char *z){
  return z && z[0] && strchr("aeiouAEIOU", z[0]) ? "an" : "a";
}

/* calibration.c's per-row terms and equal-width bins, shared with the
** uncertainty family so that brier_ci & co. estimate exactly brier & co. */
typedef struct CalBin { ml_i64 n, npos; MlSum sp; } CalBin;   /* rows, positives, sum of p */
double ml_calib_brier_term(int y, double p);
double ml_calib_log_loss_term(int y, double p, double eps);
ml_i64 ml_calib_bin(double p, ml_i64 B);
double ml_calib_ece_term(const CalBin *c);
double ml_calib_ece_fold(const CalBin *aBin, ml_i64 nBin, ml_i64 n);
/* An occupied equal-width bin of a weighted twin: its index, and its
** weight, positive weight and sum of w p, each an exact sum rounded once. */
typedef struct CalWOcc { ml_i64 b; double w, wy, wp; } CalWOcc;
/* ece_w of a sorted weighted sample (key p, aux w; at least one row), B
** bins, with a[0..4) and o[0..min(B, rows)) the caller's scratch (nothing
** allocated): the twin's and ece_ci_w's one computation. */
double ml_calib_ece_w(const MlSamples *m, ml_i64 B, MlXsum *a, CalWOcc *o);

/* stratified.c: everything strat_pr_auc, strat_gap and strat_report
** report, and the weighted twins' computation (rule 6), shared with the
** replicates of uncertainty.c's strat_gap_ci_w. */
typedef struct MlStratResult {
  double full, trimmed, gap;     /* NaN when undefined */
  double ql, qh, thr;            /* the parameters */
  double lo, hi;                 /* the window [Q(ql), Q(qh)] */
  double n, pos, neg;            /* rows in the group; classes in the window
                                 ** (weighted twins: sums of weights) */
  char zReason[160];             /* why trimmed is undefined, or "" */
} MlStratResult;
/* Bytes of scratch ml_strat_compute_w needs for smp. */
uint64_t ml_strat_scratch_w(const MlSamples *smp);
/* strat_gap_w's window and folds on a weighted width-24 sample (s, w,
** strat; at least one row; sorted here if it is not): r->ql and r->qh in,
** the rest of *r out (zReason "" or why trimmed is NaN, in weights when
** weightTexts).  Allocates nothing. */
void ml_strat_compute_w(MlSamples *smp, MlStratResult *r, int weightTexts, void *scratch);

/* validation.c: calibration_summary's JSON from calibration's sorted sample
** (non-empty; it is sorted here), its Wald intervals at level.  Sets the
** result or an error; after an interrupt, nothing (ml_compute_end reports
** it). */
void ml_calib_summary_result(sqlite3_context *ctx, MlSamples *smp, double level);
/* validation.c: calibration_smooth's JSON (the lowess calibration curve)
** from calibration's sorted sample (non-empty; sorted here), unweighted or
** weighted (calibration_smooth_w, and states: counts as weights).  Sets
** the result or an error; after an interrupt, nothing. */
void ml_calib_smooth_result(sqlite3_context *ctx, MlSamples *smp);
/* The smoothed curve itself (validation.c rules 8-10), for the JSON above
** and plot_reliability's overlay: x[0..m) the distinct p ascending, ys[i]
** the curve at x[i]; W the total weight (rows, or the sum of weights); ici,
** e50, e90, emax; the other arrays the computation's.  ml_calib_smooth()
** takes a sorted, non-empty sample and returns ML_OK, ML_NOMEM or
** ML_SMOOTH_STOPPED (ml_stop_requested); x (one block with the others) is
** the caller's to free (ml_free) in every case, when not NULL. */
#define ML_SMOOTH_STOPPED 2
typedef struct MlSmooth {
  double *x, *ys, *c0, *c1, *cw, *lo, *hi, *t;
  ml_i64 m;
  double W, ici, e50, e90, emax;
} MlSmooth;
int ml_calib_smooth(const MlSamples *smp, MlSmooth *out);
/*
** Partial states (ml_state_sql.c): what a family supplies so that each of
** its functions takes a state BLOB in place of its data arguments.  The
** driver registers the family's own xStep; the step hands a BLOB first
** argument to ml_state_divert (ML_STATE_DIVERT), which decodes and
** validates it; the family's xStep then runs with NULL in the data slots,
** so it sets up and checks the parameters exactly as for a row and skips
** the (NULL) row; the states of a group are collected and, when a result
** is due, xAbsorb feeds them to the family's buffers.  Only the argument
** counts the state form alone has are registered with the wrappers
** (ml_state_xstep & co.), and every count's xFinal/xValue.
*/
struct MlState;
/* A family that takes states allocates its aggregate context with
** ml_agg_context: its own struct, rounded to 16 bytes, then room for the
** state wrapper's part (ml_state_sql.c), so that whichever call comes
** first in a group -- a row through the family, a state through the
** wrapper -- allocates the same size, and a row's step never asks for the
** wrapper's part. */
#define ML_STATE_PENDING_BYTES 64
#define ML_AGG_BYTES(n) ((((size_t)(n) + 15) & ~(size_t)15) + ML_STATE_PENDING_BYTES)
#define ml_agg_context(ctx, n) sqlite3_aggregate_context((ctx), (int)ML_AGG_BYTES(n))
typedef struct MlStateHooks {
  size_t szAgg;             /* the family's aggregate context, in bytes */
  signed char nData;        /* data arguments a state replaces: 2 (y, s),
                            ** 3 (y, s, strat); 0: y and every score (ordinal);
                            ** -1: every data argument, the parameters after the
                            ** state (multiclass: the family's step sees the JSON
                            ** form (y, probs, params) with NULL y and probs) */
  unsigned short kinds;     /* states accepted: bits 1 << ML_STATE_* */
  /* Adds (sign +1) or removes (sign -1) the rows of n states of one kind.
  ** Sets no error itself (xFinal must still free the family's buffers):
  ** returns ML_OK, ML_NOMEM, or ML_ERROR with the message in zErr. */
  int (*xAbsorb)(sqlite3_context*, const struct MlState *st, int n, int sign, char *zErr, int nErr);
} MlStateHooks;

/* The callbacks of one family (one aggregate state type). */
typedef struct MlFamily {
  const char *name;         /* "ranking", "calibration", ... (mleval_functions()) */
  void (*xStep)(sqlite3_context*, int, sqlite3_value**);
  void (*xFinal)(sqlite3_context*);
  void (*xValue)(sqlite3_context*);
  void (*xInverse)(sqlite3_context*, int, sqlite3_value**);
  const MlStateHooks *state;   /* 0: the family's functions take no state */
  /* Weighted twins (ML_FN_WEIGHTED): the driver reads and checks the weight
  ** (the argument after the data arguments' first two), removes it from
  ** argv and calls these with it: w > 0 a row's weight; w = 0 a row to skip
  ** (weight 0 or NULL: the parameters still count, the row does not);
  ** w < 0 the weight was invalid and the error is set (mark the group
  ** failed).  0: the family has no weighted twins. */
  void (*xStepW)(sqlite3_context*, int, sqlite3_value**, double w);
  void (*xInverseW)(sqlite3_context*, int, sqlite3_value**, double w);
  /* The state kinds (bits 1 << ML_STATE_*) its records' explicit state
  ** forms read -- the forms a signature writes after " | " whose first
  ** argument is a state (st, st_a, st_ref): "g, x [, bins] | st_ref, st_cur
  ** [, bins]" -- through ml_state_arg; 0: no such form.  (The one-state form
  ** of a family with state hooks reads state->kinds.) */
  unsigned formKinds;
} MlFamily;

/* Flags of a table row. */
#define ML_FN_JSON      0x01   /* returns JSON text, subtype 'J' */
#define ML_FN_NO_STATE  0x02   /* takes no state though its family does (ml_state) */
#define ML_FN_STATE_YS  0x04   /* a state replaces (y, s) whatever the family's nData */
#define ML_FN_BLOB      0x08   /* returns a BLOB (a state) */
#define ML_FN_SCALAR_MIN 0x10  /* called with nMin arguments it is a scalar (xFunc);
                               ** nMin+1..nMax, the family's aggregate (auroc_test) */
#define ML_FN_SIDE_EFFECTS 0x20 /* not a pure function of its arguments (mleval_build_info
                               ** loads modules): registered SQLITE_DIRECTONLY, neither
                               ** SQLITE_DETERMINISTIC nor SQLITE_INNOCUOUS */
#define ML_FN_WEIGHTED  0x40   /* has a weighted twin NAME_w(y, s, w, ...), made by the
                               ** driver from this record (docs/weights.md) */
#define ML_FN_TWIN      0x80   /* this record is such a twin (base: its function), or a
                               ** family's own twin record; its weight is argv[2] */
#define ML_FN_TWIN_W3   0x100  /* a twin record whose weight is argv[3], after three data
                               ** arguments (y, s_a, s_b, w): registration checks that
                               ** the signature's w is where the flags say */
#define ML_FN_TWIN_WLAST 0x200 /* a twin record whose scores are variadic (the multiclass
                               ** twins): the weight right after the scores, as in every
                               ** twin -- the last argument of the wide form
                               ** f_w(y, p_0, ..., p_k-1, w), argv[2] of the JSON form
                               ** f_w(y, probs, w [, params]) (argv[1] a JSON array,
                               ** ml_value_is_array) */
#define ML_FN_STATE_UNWEIGHTED 0x400 /* its state form reads no weighted state though its
                               ** family's does: no weighted definition (ece_l2_debiased,
                               ** ece_l2_kumar); the records' "forms" leave the kind out */
#define ML_FN_TWIN_W4   0x800  /* a twin record whose weight is argv[4], after four data
                               ** arguments (surv_ibs_w(time, event, horizon, p, w)).
                               ** On a record flagged ML_FN_WEIGHTED, TWIN_W3 or TWIN_W4
                               ** places its made twin's weight there (the survival
                               ** family's f_w(time, event, risk, w, ...)) */
#define ML_FN_BASE_NO_STATE 0x1000 /* a twin record whose function (its name less "_w")
                               ** takes no state though the family does: the driver sets
                               ** it on the twins it makes, a family's own twin record
                               ** says it itself (ml_twin_state_error reads it) */

/* One record: a function mleval provides.  Each family declares its own
** records next to its code (ml_ranking_functions in ranking.c, ...) and
** mleval.c registers every family's list: the loader registers from them,
** the arity errors quote the signature, the parameter checks read the specs,
** mleval_functions() shows them, and the tests derive their lists from that.
** A record is also the user data of every registration of its function.
** Adding a function to a family is one record and its code in the family's
** file; the kind is the family's own enum. */
typedef struct MlFuncDesc {
  const char *name;
  const char *signature;    /* the arguments as the docs show them: "y, p [, bins]" */
  signed char nMin, nMax;   /* accepted argument counts, each registered */
  const MlFamily *fam;      /* aggregate/window callbacks; 0 for a scalar */
  void (*xFunc)(sqlite3_context*, int, sqlite3_value**);   /* a scalar's body */
  int kind;                 /* family-specific selector */
  unsigned flags;           /* ML_FN_* */
  const MlParamSpec *const *aParam;   /* the parameter arguments, after the data
                            ** arguments, 0-terminated (ML_PARAMS); 0: none */
} MlFuncDesc;
/* ML_PARAMS(&psA, &psB): a record's parameter list. */
#define ML_PARAMS(...) ((const MlParamSpec *const[]){ __VA_ARGS__, 0 })

/* The most arguments a registered call is handed on with (a twin's argv
** without its weight, mleval.c; a state's call of the family's step,
** ml_state_sql.c): above every record's nMax. */
#define ML_MAX_ARGS 40

/* Each family's records, each list ending with a record whose name is 0. */
extern const MlFuncDesc ml_ranking_functions[], ml_calibration_functions[],
  ml_stratified_functions[], ml_ordinal_functions[], ml_uncertainty_functions[],
  ml_validation_functions[], ml_plot_functions[], ml_multiclass_functions[], ml_multiclass_long_functions[],
  ml_state_functions[], ml_drift_functions[], ml_disparity_functions[], ml_expected_functions[],
  ml_survival_functions[], ml_survival_clinical_functions[], ml_survival_boot_functions[], ml_plot_km_functions[];

/* Sets "fn(): expects (<signature>), got N arguments" (argc < 0: the count
** is unknown, "got a different number of arguments"): the one arity error,
** for the catch-all registration and for the families' own count checks. */
void ml_arity_error(sqlite3_context *ctx, const MlFuncDesc *d, int argc);
/* A state BLOB v given to a weighted twin d (pr_auc_w(st)): sets the error
** that sends it to the unweighted name (pr_auc(st)) and returns 1; else 0.
** From the record alone (ml_args.c): the family's, flags and name. */
int ml_twin_state_error(sqlite3_context *ctx, const MlFuncDesc *d, sqlite3_value *v);

/* True when the statement running on db has been interrupted
** (sqlite3_interrupt): sqlite3_is_interrupted() where the SQLite in use has
** it (3.41 and later), else a trivial statement prepared and stepped on the
** same connection, which fails with SQLITE_INTERRUPT while the flag is set.
** Costs microseconds: call it between chunks of work, not per row. */
int ml_interrupted(sqlite3 *db);

/* Rows from which a result routine asks whether its statement is being
** abandoned: below, the computation costs less than the question. */
#define ML_CHECK_ROWS 16384
/* An xValue over more rows than this logs, once a process, that a window's
** every row costs its whole frame (SQLITE_WARNING; issue 38). */
#define ML_WINDOW_WARN_ROWS 100000

/* Brackets the computation of an xFinal (isFinal 1) or xValue over nRows
** rows.  For an xFinal over ML_CHECK_ROWS rows or more, ml_compute_begin
** returns 1 when the statement is being abandoned (interrupted: SQLite calls
** xFinal to clean up after sqlite3_interrupt): compute nothing, set no
** result, only free.  (xValue is never called then, so it does not ask.)
** Else it installs the core's stop check (ml_stop_requested, asked only by
** loops over 2^18 rows or more), so that an interrupt during the sort or
** sweep stops them; ml_compute_end uninstalls it and returns 1 when they
** stopped, having set SQLITE_INTERRUPT as the result. */
int ml_compute_begin(sqlite3_context *ctx, int isFinal, ml_i64 nRows);
int ml_compute_end(sqlite3_context *ctx);
/* Fails the statement as interrupted: the message "interrupted" and
** SQLITE_INTERRUPT, whatever result was written before. */
void ml_result_interrupted(sqlite3_context *ctx);

int ml_register_svd_bench(sqlite3 *db);    /* svd_bench.c */
/* mleval_build_info()'s "backends": {"cpu": {"built", "loads", "path" or
** "error"}, "cuda": {...}}; loads each built back end to say whether it loads. */
void ml_svd_backends_json(MlJson *j);
/* Where svd_bench looks first for its back-end modules: for programs that
** link the core statically (the tests), which have no mleval.so to look
** next to.  The string must outlive every query; NULL: no such directory. */
void ml_svd_backend_dir(const char *zDir);

/* ml_state_sql.c: the wrappers registered for a function that takes states,
** the argument counts of its state form (0 when it has none), ml_merge, and
** the result of ml_state / ml_state_ordinal. */
void ml_state_xstep(sqlite3_context*, int, sqlite3_value**);
void ml_state_xinverse(sqlite3_context*, int, sqlite3_value**);
void ml_state_xvalue(sqlite3_context*);
void ml_state_xfinal(sqlite3_context*);
int ml_state_arity(const MlFuncDesc *d, int *lo, int *hi);
/* The NULL a state's call of its family's step puts in the data slots
** (ml_state_sql.c): each load holds it (ml_state_null_hold: prepares
** "SELECT NULL" on db once, SQLITE_OK or the prepare's code) and hands the
** hold to a registration's xDestroy (ml_state_null_release), so the last
** connection's close frees it. */
int ml_state_null_hold(sqlite3 *db);
void ml_state_null_release(void *pUnused);
/* The one-state form's signature (a family with state hooks): the row
** signature with its data arguments replaced by "state": "y, p [, bins]"
** -> "state [, bins]". */
void ml_state_signature(const MlFuncDesc *d, char *buf, int nBuf);
/*
** The state form inside a family's own step (docs/ARCHITECTURE.md, "the
** path of a state").  The driver registers the family's xStep and xInverse
** directly at every row argument count, so a row pays no wrapper; where a
** row count is also a state count (ece(y, p) and ece(state, 15)) the
** family's step starts with ML_STATE_DIVERT, which costs one compare of
** argv[0]'s type, read once for the row as well (t0): a BLOB there is a
** state and goes to the state path, a NULL there is a NULL state (skipped
** whole, as before).  Returns 1 when the call was taken (the step returns),
** 0 for a row.  Inside a state's own call of the family's step (its data
** slots NULL, so that the step reads the parameters) it answers 0.
*/
int ml_state_divert(sqlite3_context *ctx, int argc, sqlite3_value **argv, int t0, int inverse);
/* True inside a state's own call of the family's step (its data slots
** NULL, the state form's parameters after them): the multiclass family,
** whose parameters follow a JSON array, reads them there. */
int ml_state_nested(sqlite3_context *ctx);
#define ML_STATE_DIVERT(ctx, argc, argv, t0, inverse) \
  ((t0)>=SQLITE_BLOB && ml_state_divert((ctx), (argc), (argv), (t0), (inverse)))
/* Encodes the buffers as a state BLOB result: kind ML_STATE_BINARY (one
** width-8 buffer), ML_STATE_STRAT (one width-16), ML_STATE_ORDINAL (m + 1). */
void ml_result_state(sqlite3_context *ctx, MlSamples *const *smp, int nSmp, int kind);
/* Around an absorb: installs the stop check of ctx's statement (loops whose
** trip count comes from a blob ask it every 2^16 rows); ml_stop_end
** uninstalls it and returns 1 when it said stop. */
void ml_stop_begin(sqlite3_context *ctx);
int ml_stop_end(void);
/* ML_OK when every score of the n states lies in [0, 1], else ML_ERROR with
** "p must be a probability in [0, 1], got ... in a state" in zErr: the check
** every probability function makes of a state. */
int ml_state_probabilities(const struct MlState *st, int n, char *zErr, int nErr);
/* The same check on the lowest and highest score of merged states. */
int ml_state_probability_range(double lo, double hi, char *zErr, int nErr);
/* ml_state_sql.c: reads v, argument `name` of fn, as a state of one of the
** kinds in mask (bits 1 << ML_STATE_*; the family's formKinds): ML_ROW_OK
** (parsed into *st), ML_ROW_SKIP (NULL) or ML_ROW_ERR (the error set; any
** other kind refused by name).  The explicit state forms' one reader
** (auroc_test's and the drift functions' two states, group_disparity's st). */
int ml_state_arg(sqlite3_context *ctx, const char *fn, sqlite3_value *v, const char *name,
                 unsigned kinds, struct MlState *st);
/* The kinds record d's explicit state forms read: its family's formKinds,
** less the weighted distribution kind where d has no weighted twin in a
** family that has them (ks_test: its p-value needs counts).  What
** ml_state_arg is given and what mleval_functions()' "forms" lists. */
unsigned ml_form_kinds(const MlFuncDesc *d);
/* "ml_state(y, s) or ml_state_w(y, s, w)": the makers of the kinds in mask
** (what a reader of them wants), from the kinds' one list (ml_state_kinds). */
void ml_state_wanted(char *buf, int nBuf, unsigned kinds);
#define ML_ERROR 2                 /* xAbsorb: zErr says what */

#endif /* ML_SQL_H */
