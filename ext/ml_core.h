/*
** SPDX-License-Identifier: MIT
**
** ml_core.h -- the pure-C core every mleval metric family folds over.
**
** Nothing here calls SQLite except the allocator (ml_malloc & co., which go
** through sqlite3_malloc64 so that fault injection reaches every byte).
**
**   MlSamples   the scored-sample buffer: one array of negatives and one of
**               positives, each record led by the order-preserving 64-bit key
**               of its score.  Splitting by label means a record needs no label
**               field: 8 bytes per row for ranking metrics, 16 when a second
**               double (the stratifier) rides along.
**   ml_samples_sort      LSD radix sort on the keys (ties: equal keys, so equal
**                        doubles, -0.0 == 0.0 folded at insertion).
**   ml_samples_add/remove     append, or kept-sorted insert/remove for window frames.
**   MlSweep     one walk over the distinct thresholds, highest first, yielding
**               cumulative TP/FP.  pr_auc, auroc, the operating points, the
**               curves, the stratified and the ordinal metrics all fold over it.
**   ml_quantile_pair     numpy-default (linear) quantiles by selection, O(n).
**   MlXsum, MlPSum      exact sums (superaccumulator; 128-bit fixed point for
**               probabilities) for every streaming sum.
**   MlJson      a small JSON writer: escaping, shortest round-trip doubles,
**               null for NaN/Inf.
*/
#ifndef ML_CORE_H
#define ML_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int64_t ml_i64;
typedef uint64_t ml_key;

/* Allocator: sqlite3_malloc64 and friends (ml_alloc.c). */
void *ml_malloc(uint64_t n);
void *ml_realloc(void *p, uint64_t n);
void ml_free(void *p);

/* Order-preserving key of a double: a < b  <=>  key(a) < key(b) for every
** non-NaN pair, and -0.0 is folded to +0.0 first so that equal doubles have
** equal keys (scikit-learn ties by ==). */
static inline ml_key ml_key_of(double d){
  uint64_t u;
  if( d==0.0 ) d = 0.0;
  memcpy(&u, &d, 8);
  return (u & 0x8000000000000000ULL) ? ~u : (u | 0x8000000000000000ULL);
}
static inline double ml_double_of(ml_key k){
  uint64_t u = (k & 0x8000000000000000ULL) ? (k & ~0x8000000000000000ULL) : ~k;
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* Neumaier compensated sum: error O(eps) instead of O(n eps), so AP over
** 10^7 thresholds and calibration sums over 10^7 rows keep ~16 digits.
** Subtracting (window xInverse) is adding the negation. */
typedef struct MlSum { double s, c; } MlSum;
static inline void ml_sum_add(MlSum *a, double x){
  double t = a->s + x;
  if( (a->s>=0 ? a->s : -a->s) >= (x>=0 ? x : -x) ) a->c += (a->s - t) + x;
  else a->c += (x - t) + a->s;
  a->s = t;
}
static inline double ml_sum_value(const MlSum *a){ return a->s + a->c; }

/* ------------------------------------------------------------ exact sums */

/* MlXsum (ml_xsum.c): the exact sum of any doubles, added and removed in any
** order; ml_xsum_round gives the correctly rounded sum.  Every streaming sum
** (brier, log_loss, ece and reliability bins, window xInverse) uses it, so
** a window frame's sum equals the aggregate's over the same rows bit for bit
** and a sum of non-negative terms is never negative.  A zeroed struct (as
** sqlite3_aggregate_context returns it) is an empty sum.  568 bytes; about
** 15 instructions per term.
**
**   MlXsum a; ml_xsum_init(&a);
**   ml_xsum_add(&a, x, +1);      add x
**   ml_xsum_add(&a, x, -1);      remove x (window xInverse)
**   ml_xsum_round(&a)            the correctly rounded sum (a is unchanged)
*/
#define ML_XSUM_CHUNKS 67
typedef struct MlXsum {
  int64_t chunk[ML_XSUM_CHUNKS];  /* chunk i counts units of 2^(32i - 1075) */
  int64_t nAdd;                   /* terms since the last carry pass */
  int64_t nPosInf, nNegInf, nNan; /* non-finite terms held */
} MlXsum;

void ml_xsum_init(MlXsum *a);
/* The rare path of ml_xsum_add: Inf/NaN terms, and the carry pass. */
void ml_xsum_add_slow(MlXsum *a, double x, int sign);
/* Adds sign * x for a finite x, with a carry pass due no sooner than now. */
static inline void ml_xsum_add_finite(MlXsum *a, double x, int sign){
  uint64_t u, m;
  unsigned e, l, h;
  int64_t s;
  memcpy(&u, &x, 8);
  e = (unsigned)(u>>52) & 0x7FF;
  m = u & 0x000FFFFFFFFFFFFFULL;
  if( e==0 ) e = 1; else m |= 1ULL<<52;      /* subnormal: no implicit bit */
  l = e & 31;
  h = e >> 5;
  s = (u>>63) ? -sign : sign;
  a->chunk[h]   += s * (int64_t)((m << l) & 0xFFFFFFFFULL);
  a->chunk[h+1] += s * (int64_t)(m >> (32 - l));
  a->nAdd++;
}
/* Adds x (sign +1) or removes it (sign -1), exactly. */
static inline void ml_xsum_add(MlXsum *a, double x, int sign){
  uint64_t u;
  memcpy(&u, &x, 8);
  if( ((u>>52) & 0x7FF)==0x7FF || a->nAdd>=1023 ) ml_xsum_add_slow(a, x, sign);
  else ml_xsum_add_finite(a, x, sign);
}
/* The sum rounded to nearest, ties to even (NaN, +-Inf as IEEE sums give). */
double ml_xsum_round(const MlXsum *a);
/* The sign of the exact sum: -1, 0 or 1 (0 for NaN). */
int ml_xsum_sign(const MlXsum *a);

/* MlPSum: the exact sum of probabilities (doubles in [0, 1]) in 24 bytes:
** a 128-bit fixed-point integer of units 2^-69 for p >= 2^-17, and an MlXsum
** allocated on first use for 0 < p < 2^-17.  A zeroed struct is empty. */
typedef struct MlPSum { uint64_t lo, hi; MlXsum *tiny; } MlPSum;
/* The rare path of ml_psum_add: p = 0 and p < 2^-17. */
int ml_psum_add_small(MlPSum *s, double p, int sign);
/* Adds (sign +1) or removes (sign -1) p in [0, 1].  ML_OK or ML_NOMEM
** (possible only when adding the first p < 2^-17; nothing changed then). */
static inline int ml_psum_add(MlPSum *s, double p, int sign){
  __extension__ typedef unsigned __int128 u128;
  uint64_t u;
  unsigned e;
  u128 v, acc;
  memcpy(&u, &p, 8);
  e = (unsigned)(u>>52) & 0x7FF;
  if( e < 1023-17 ) return ml_psum_add_small(s, p, sign);
  v = (u128)((u & 0x000FFFFFFFFFFFFFULL) | (1ULL<<52)) << (e - (1023-17));   /* p * 2^69 */
  acc = ((u128)s->hi << 64) | s->lo;
  acc = sign>0 ? acc + v : acc - v;
  s->lo = (uint64_t)acc;
  s->hi = (uint64_t)(acc >> 64);
  return 0;
}
double ml_psum_round(const MlPSum *s);      /* correctly rounded */
void ml_psum_clear(MlPSum *s);              /* frees; back to empty */

/* --------------------------------------------------------- cancellation */

/* Long core loops (radix passes, quantile partitions, threshold sweeps over
** 2^20 thresholds or more) ask ml_stop_requested() between chunks.  The SQL
** layer installs a check for the running statement around a computation
** (ml_stop_install, per thread); once it says stop, the answer stays 1 until
** the next install and the loops return early: a sort leaves its rows
** unsorted (never marked sorted), a fold returns garbage the caller discards. */
typedef int (*MlStopFn)(void *arg);
void ml_stop_install(MlStopFn fn, void *arg);      /* fn 0: uninstall */
int ml_stop_requested(void);
int ml_stop_happened(void);                       /* a stop was requested since install */

/* ---------------------------------------------------------------- samples */

/* One record: the key, then (width 16 only) one auxiliary double. */
typedef struct MlRec16 { ml_key key; double aux; } MlRec16;

typedef struct MlSamples {
  unsigned char *a[2];   /* a[0] negatives, a[1] positives */
  ml_i64 n[2];           /* rows held in each */
  ml_i64 cap[2];         /* rows allocated in each */
  unsigned width;        /* bytes per record: 8 (key) or 16 (key + aux) */
  int sorted;            /* both arrays are in ascending key order */
} MlSamples;

#define ML_OK     0
#define ML_NOMEM  1

void ml_samples_init(MlSamples *s, unsigned width);
void ml_samples_clear(MlSamples *s);          /* frees, back to init state */
static inline ml_i64 ml_samples_count(const MlSamples *s){ return s->n[0]+s->n[1]; }
static inline ml_key ml_samples_key(const MlSamples *s, int y, ml_i64 i){
  ml_key k; memcpy(&k, s->a[y] + (size_t)i*s->width, 8); return k;
}
static inline double ml_samples_aux(const MlSamples *s, int y, ml_i64 i){
  double d; memcpy(&d, s->a[y] + (size_t)i*s->width + 8, 8); return d;
}

/* Adds a row.  Appends while unsorted (O(1) amortised); once sorted, inserts
** at its place (binary search + memmove, O(w)).  ML_OK or ML_NOMEM (the buffer
** is left as it was). */
int ml_samples_add(MlSamples *s, int y, double score, double aux);

/* Removes one row equal to (y, score, aux).  Returns 1 if found, 0 if not. */
int ml_samples_remove(MlSamples *s, int y, double score, double aux);

/* Sorts both arrays by key if not already sorted.  ML_OK or ML_NOMEM (the
** scratch buffer is max(n0, n1) records, freed before returning). */
int ml_samples_sort(MlSamples *s);
/* The same with a caller's scratch area of ml_samples_scratch_size(s)
** bytes (0 when already sorted or small enough for insertion sort; callers
** that need a temporary buffer of their own first, such as the stratified
** quantiles, share one allocation with the sort). */
uint64_t ml_samples_scratch_size(const MlSamples *s);
void ml_samples_sort_using(MlSamples *s, void *scratch);

/* Radix sort of n records of width 8 or 16 by their leading key, using a
** caller-provided scratch area of n*width + ML_RADIX_EXTRA bytes (8-aligned).
** Exposed for unit tests. */
#define ML_RADIX_EXTRA (6*2048*8)
/* Returns 1 when stopped early (ml_stop_requested): the records are all
** there, not sorted. */
int ml_radix_sort(void *a, ml_i64 n, unsigned width, void *scratch);

/* ------------------------------------------------------------------ sweep */

/* Optional row filter: keep rows whose aux lies in [lo, hi]. */
typedef struct MlFilter { double lo, hi; } MlFilter;
static inline int ml_filter_keeps(const MlFilter *f, double aux){ return aux>=f->lo && aux<=f->hi; }

typedef struct MlSweep {
  const MlSamples *s;
  const MlFilter *f;
  ml_i64 i[2];          /* rows of each class not yet passed (from the top) */
  ml_i64 P, N;          /* positives and negatives that pass the filter */
  ml_i64 tp, fp;        /* rows with score >= current threshold */
  ml_i64 dtp, dfp;      /* of which at the current threshold exactly */
  ml_key key;           /* current threshold */
} MlSweep;

/* Starts a sweep over sorted samples (f may be NULL; it needs 16-byte
** records).  Counts P and N. */
void ml_sweep_init(MlSweep *w, const MlSamples *s, const MlFilter *f);
/* Advances to the next lower distinct threshold that holds a row (one
** that passes the filter).  Returns 0 when every row has been passed.
** Inline: the folds run it once per distinct score, and a window frame runs
** the folds once per row, so it is a tight merge of two strided arrays. */
static inline int ml_sweep_next(MlSweep *w){
  const ml_key *a0 = (const ml_key*)w->s->a[0], *a1 = (const ml_key*)w->s->a[1];
  const size_t st = w->s->width/8;          /* record stride in keys: 1 or 2 */
  const MlFilter *f = w->f;
  ml_i64 i0 = w->i[0], i1 = w->i[1];
  for(;;){
    ml_i64 d0 = 0, d1 = 0;
    ml_key k;
    if( i0==0 && i1==0 ){ w->i[0] = w->i[1] = 0; return 0; }
    if( i0==0 ) k = a1[(i1-1)*st];
    else if( i1==0 ) k = a0[(i0-1)*st];
    else{
      ml_key k0 = a0[(i0-1)*st], k1 = a1[(i1-1)*st];
      k = k0>k1 ? k0 : k1;
    }
    if( f==0 ){
      while( i0>0 && a0[(i0-1)*st]==k ){ i0--; d0++; }
      while( i1>0 && a1[(i1-1)*st]==k ){ i1--; d1++; }
    }else{
      /* a record is (key, aux): the stratifier follows its key */
      while( i0>0 && a0[(i0-1)*st]==k ){
        double z; i0--; memcpy(&z, &a0[i0*st+1], 8); d0 += ml_filter_keeps(f, z);
      }
      while( i1>0 && a1[(i1-1)*st]==k ){
        double z; i1--; memcpy(&z, &a1[i1*st+1], 8); d1 += ml_filter_keeps(f, z);
      }
      if( d0==0 && d1==0 ) continue;        /* no row of this threshold is in the window */
    }
    w->i[0] = i0; w->i[1] = i1;
    w->key = k;
    w->dtp = d1; w->dfp = d0;
    w->tp += d1; w->fp += d0;
    return 1;
  }
}

/* Folds over the sweep.  Each returns the metric; the caller has checked
** that both classes are present (P > 0 and N > 0). */
double ml_fold_average_precision(const MlSamples *s, const MlFilter *f);
/* AP folded over a sweep just started with ml_sweep_init (whose P and N the
** caller may have looked at first). */
double ml_fold_ap_sweep(MlSweep *w);
double ml_fold_auroc(const MlSamples *s);
double ml_fold_youden_j(const MlSamples *s);
/* Max TPR over the thresholds (and the all-negative point) with
** fpr <= target (bySpec 0) or 1 - fpr >= target (bySpec 1). */
double ml_fold_tpr_at_fpr(const MlSamples *s, double target, int bySpec);

/* Rows of each class that pass f (f may be NULL): O(n) when filtered. */
void ml_count_classes(const MlSamples *s, const MlFilter *f, ml_i64 *P, ml_i64 *N);

/* --------------------------------------------------------------- quantile */

/* numpy.quantile(a, q) (method 'linear') for q1 <= q2, found by selection on
** a (which is reordered).  n >= 1. */
void ml_quantile_pair(double *a, ml_i64 n, double q1, double q2, double *out1, double *out2);

/* ------------------------------------------------------------------- json */

typedef struct MlJson {
  char *z;          /* text, NUL-terminated when not oom */
  size_t n, cap;
  int oom;          /* an allocation failed: z is freed, everything else no-op */
  int depth;
  unsigned char first[32];  /* per nesting level: nothing written yet */
} MlJson;

void ml_json_init(MlJson *j);
void ml_json_free(MlJson *j);
/* Hands over the text (caller frees with ml_free); NULL when oom. */
char *ml_json_finish(MlJson *j, size_t *pn);
void ml_json_begin_object(MlJson *j);
void ml_json_end_object(MlJson *j);
void ml_json_begin_array(MlJson *j);
void ml_json_end_array(MlJson *j);
void ml_json_key(MlJson *j, const char *k);      /* writes "k": */
void ml_json_double(MlJson *j, double d);        /* null when NaN or +-Inf */
void ml_json_int(MlJson *j, ml_i64 v);
void ml_json_bool(MlJson *j, int b);
void ml_json_null(MlJson *j);
void ml_json_string(MlJson *j, const char *s);   /* NULL -> null */
/* Shortest "%.{15,16,17}g" text that reads back as d; buf >= 32 bytes. */
int ml_format_double(char *buf, double d);

#endif /* ML_CORE_H */
