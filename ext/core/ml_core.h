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
**   MlStr       the growable string builder under both writers below, and
**               locale-independent number text (ml_format_double/_fixed,
**               ml_parse_double).
**   MlJson      a small JSON writer: escaping, shortest round-trip doubles,
**               null for NaN/Inf.
**   MlRng, MlBootSpec, MlBootResult   the bootstrap (ml_boot.c, ml_boot_run):
**               a seeded xoshiro256** stream
**               per replicate, multinomial row weights over the canonical
**               order, the metric folded over a weighted sweep; BCa and
**               percentile intervals.
**   ml_delong_*     DeLong's structural components with midranks (ml_delong.c).
**   ml_logit_fit    maximum-likelihood logistic fits over runs (ml_logit.c).
**   ml_norm_*, ml_t_quantile   normal and Student-t distribution (ml_dist.c).
**   ml_beta_*   the regularized incomplete beta function and its inverse
**               (ml_beta.c), for Clopper-Pearson intervals.
**               null for NaN/Inf; ml_json_read_rows reads arrays of flat
**               objects back.
**   ml_svg_*    the SVG writer the plot family draws with.
*/
#ifndef ML_CORE_H
#define ML_CORE_H

#include <math.h>
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
/* The power of two 2^-e, e the exponent of x (x > 0 and finite; else 1):
** x times it lies in [1, 2).  Weighted computations multiply their weight
** sums by it before any product of two of them, so that the products
** neither underflow nor overflow whatever the weights' scale, and the
** result for c.w is the result for w bit for bit when c is a power of two
** (issue 38; a power-of-two scale is exact).  e is clamped to [-1022, 1022]. */
static inline double ml_pow2_scale(double x){
  int e;
  if( !(x>0.0) || !isfinite(x) ) return 1.0;
  e = ilogb(x);
  return ldexp(1.0, e<-1022 ? 1022 : e>1022 ? -1022 : -e);
}

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
/* The exact sum, correctly rounded, of n doubles stride doubles apart (a
** tie group's weights): whatever their order, the same double. */
double ml_exact_sum(const double *x, size_t stride, ml_i64 n);
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
/* Adds (sign +1) or removes (sign -1) the product x * y exactly: fma splits
** it into the rounded product and its rounding error, two doubles (exact
** unless the error underflows).  The weighted sums of w * term use it. */
static inline void ml_xsum_add_product(MlXsum *a, double x, double y, int sign){
  double hi = x*y;
  ml_xsum_add(a, hi, sign);
  ml_xsum_add(a, fma(x, y, -hi), sign);
}
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
/* n copies of x (sign +1) or their removal (-1), exactly and in O(1): a
** state's entry of n rows adds what its n rows would (n <= 2^53). */
void ml_xsum_add_n(MlXsum *a, double x, ml_i64 n, int sign);
int ml_psum_add_n(MlPSum *s, double p, ml_i64 n, int sign);   /* ML_OK / ML_NOMEM */
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

/* One record: the key, then (width 16) one auxiliary double, or (width 24)
** two. */
typedef struct MlRec16 { ml_key key; double aux; } MlRec16;
typedef struct MlRec24 { ml_key key; double aux, aux2; } MlRec24;

/* One distinct value of a sample and its rows of each class (n[0]
** negatives, n[1] positives): what a computation over ties needs, from
** rows (ml_samples_runs) or from a state's entries alike. */
typedef struct MlRun { ml_key key; ml_i64 n[2]; } MlRun;

/* The buffer has two forms.  Rows (run == NULL, the form every row query
** keeps): one record per row, a[y][0..n[y]).  Counted runs (run != NULL,
** width 8 only; what a ranking function that has absorbed a state keeps,
** ml_samples_absorb_counts): run[0..nRun) ascending by key, each with its
** class counts, none with both counts 0; the row arrays are then empty
** (a[y] NULL) and n[y] still counts the rows of class y, so that
** ml_samples_count, P and N read the same in either form.  A buffer in
** runs form is always sorted; a row added or removed (window frames)
** changes one count, or inserts/removes one run.  Its cost is O(distinct
** scores), whatever the counts. */
typedef struct MlSamples {
  unsigned char *a[2];   /* a[0] negatives, a[1] positives */
  ml_i64 n[2];           /* rows held in each */
  ml_i64 cap[2];         /* rows allocated in each */
  unsigned width;        /* bytes per record: 8 (key), 16 (key + aux) or 24 (key + aux + aux2) */
  int sorted;            /* both arrays are in ascending key order */
  MlRun *run;            /* runs form: the counted runs, ascending (else NULL) */
  ml_i64 nRun, capRun;   /* runs held, allocated */
  int weighted;          /* width 16 whose aux is each row's weight (> 0): the folds
                         ** below count sums of weights (ml_wsweep.c) */
} MlSamples;

#define ML_OK     0
#define ML_NOMEM  1
#define ML_ERROR  2   /* a reader's input is malformed: the message is in zErr */
#define ML_STOPPED 4  /* the statement is being abandoned (ml_stop_requested) */

void ml_samples_init(MlSamples *s, unsigned width);
/* A weighted sample: width 16, each record's aux its row's weight; every
** ml_fold_* below then folds the weighted sweep (the weighted twins). */
void ml_samples_init_weighted(MlSamples *s);
/* The share of the positives: P / (P + N), counts or sums of weights. */
double ml_samples_prevalence(const MlSamples *s);
void ml_samples_clear(MlSamples *s);          /* frees, back to init state */
static inline ml_i64 ml_samples_count(const MlSamples *s){ return s->n[0]+s->n[1]; }
static inline ml_key ml_samples_key(const MlSamples *s, int y, ml_i64 i){
  ml_key k; memcpy(&k, s->a[y] + (size_t)i*s->width, 8); return k;
}
static inline double ml_samples_aux(const MlSamples *s, int y, ml_i64 i){
  double d; memcpy(&d, s->a[y] + (size_t)i*s->width + 8, 8); return d;
}
static inline double ml_samples_aux2(const MlSamples *s, int y, ml_i64 i){   /* width 24 */
  double d; memcpy(&d, s->a[y] + (size_t)i*s->width + 16, 8); return d;
}

/* Adds a row.  Appends while unsorted (O(1) amortised); once sorted, inserts
** at its place (binary search + memmove, O(w)); in runs form, adds 1 to its
** run's count, or inserts a run.  ML_OK or ML_NOMEM (the buffer is left as
** it was). */
int ml_samples_add(MlSamples *s, int y, double score, double aux);
/* The same with the second auxiliary double of a width-24 record (the
** extra values are ignored past the record's width). */
int ml_samples_add2(MlSamples *s, int y, double score, double aux, double aux2);
/* Width 8 (key) to a weighted width 16 (key, w), or width 16 (key, aux) to
** a weighted width 24 (key, w, aux): every row held weighs w -- a buffer
** about to take counted state entries (ml_samples_absorb_counted).  Order
** kept.  ML_OK or ML_NOMEM (unchanged). */
int ml_samples_widen(MlSamples *s, double w);
/* Any width-8 buffer, rows or counted runs (a run's class count becomes one
** record weighing it), to a weighted width 16 whose rows weigh 1: the
** buffer a weighted state joins (ml_samples_absorb_weighted).  Already
** weighted: unchanged.  ML_OK or ML_NOMEM (unchanged). */
int ml_samples_weigh(MlSamples *s);

/* The common case of ml_samples_add, inline for the per-row path: an
** unsorted buffer with room appends the record.  1 if it did, 0 when the
** caller must call ml_samples_add.  ml_samples_append8 is the same for a
** buffer known to hold 8-byte records (the ranking family's rows): one
** test fewer on the row path. */
static inline int ml_samples_append8(MlSamples *s, int y, double score){
  ml_i64 n = s->n[y];
  if( s->sorted || n>=s->cap[y] ) return 0;
  ((ml_key*)s->a[y])[n] = ml_key_of(score);
  s->n[y] = n+1;
  return 1;
}
static inline int ml_samples_append(MlSamples *s, int y, double score, double aux){
  ml_i64 n = s->n[y];
  MlRec16 *r;
  /* width 24 never comes here: those buffers are filled by ml_samples_add2 */
  if( s->width==8 ) return ml_samples_append8(s, y, score);
  if( s->sorted || n>=s->cap[y] ) return 0;
  r = (MlRec16*)s->a[y] + n;
  r->key = ml_key_of(score);
  r->aux = aux;
  s->n[y] = n+1;
  return 1;
}

/* Gives back the rows form's growth slack: each array reallocated to the
** rows it holds (rule 5 of ml_sample.c).  Never fails: a shrink the
** allocator refuses leaves the array as it was.  The next add grows it
** again by half. */
void ml_samples_trim(MlSamples *s);

/* First index in class y's sorted array whose key is >= k (> k when
** upper): the one binary search over a buffer's rows (ml_sample.c). */
ml_i64 ml_samples_bound(const MlSamples *s, int y, ml_key k, int upper);

/* Removes one row equal to (y, score, aux) (runs form: takes 1 from its
** run's count, dropping a run left empty).  Returns 1 if found, 0 if not. */
int ml_samples_remove(MlSamples *s, int y, double score, double aux);
int ml_samples_remove2(MlSamples *s, int y, double score, double aux, double aux2);

/* A width-16 or -24 buffer in canonical order (ml_samples_sort_canonical:
** by key, ties by the key of aux; width 24, of aux2, then of aux) kept in
** it: add inserts (score, aux, aux2) after its equals, remove takes one
** record equal to it in those keys (aux2 ignored at width 16; -0.0 as
** +0.0); while unsorted, ml_samples_add2 / ml_samples_remove2.  O(log n)
** compares and one memmove.  add: ML_OK or ML_NOMEM (unchanged); remove:
** 1, or 0 when not held. */
int ml_samples_add_canonical(MlSamples *s, int y, double score, double aux, double aux2);
int ml_samples_remove_canonical(MlSamples *s, int y, double score, double aux, double aux2);

/* m keys (ascending, m <= ML_SAMPLES_MAX_KEYS) added to, or removed from,
** class y of a sorted width-8 buffer in rows form in one pass of memmoves:
** the buffer ml_samples_add / ml_samples_remove would leave, moving each
** key once rather than m times.  add: ML_OK or ML_NOMEM (the buffer is left
** as it was); remove: 1, or 0 when a key is not held (nothing removed). */
#define ML_SAMPLES_MAX_KEYS 16
int ml_samples_add_keys(MlSamples *s, int y, const ml_key *k, int m);
int ml_samples_remove_keys(MlSamples *s, int y, const ml_key *k, int m);

/* Sorts both arrays by key if not already sorted.  ML_OK or ML_NOMEM (the
** scratch buffer is max(n0, n1) records, freed before returning). */
int ml_samples_sort(MlSamples *s);
/* The same with a caller's scratch area of ml_samples_scratch_size(s)
** bytes (0 when already sorted or small enough for insertion sort; callers
** that need a temporary buffer of their own first, such as the stratified
** quantiles, share one allocation with the sort). */
uint64_t ml_samples_scratch_size(const MlSamples *s);
void ml_samples_sort_using(MlSamples *s, void *scratch);

/* The value at rank r (0-based, ascending) of the sorted samples, both
** classes merged: O(log n).  0 <= r < ml_samples_count(s).  Rows form. */
double ml_samples_at_rank(const MlSamples *s, ml_i64 r);

/* Radix sort of n records of width 8 or 16 by their leading key, using a
** caller-provided scratch area of n*width + ML_RADIX_EXTRA bytes (8-aligned).
** Exposed for unit tests. */
#define ML_RADIX_EXTRA ((6*2048 + 32769 + 2*2049)*8)
/* Returns 1 when stopped early (ml_stop_requested): the records are all
** there, not sorted. */
int ml_radix_sort(void *a, ml_i64 n, unsigned width, void *scratch);

/* The distinct keys of a sorted sample, ascending, with their counts, into
** out (room for ml_samples_count(s) runs).  Returns how many.  O(n). */
ml_i64 ml_samples_runs(const MlSamples *s, MlRun *out);
/* Turns a width-8 buffer into runs form (sorting its rows first) with room
** for `extra` more runs.  ML_OK or ML_NOMEM (the buffer is left as it was). */
int ml_samples_to_runs(MlSamples *s, ml_i64 extra);

/* ---------------------------------------------------------------- rankset */

/* A counted multiset of keys (ml_rankset.c): insert, remove and "how many
** keys below k" in O(log n), for statistics a window frame can update row by
** row (auroc's Mann-Whitney count).  Sorted blocks of at most 512 keys with
** a Fenwick tree over the block sizes. */
typedef struct MlRsBlock { ml_key *k; int n, cap; } MlRsBlock;
typedef struct MlRankSet {
  MlRsBlock *b;          /* nBlk blocks in key order, none empty */
  ml_i64 *fen;           /* Fenwick tree over b[].n, 1-based */
  ml_i64 nBlk, capBlk;
  ml_i64 n;              /* keys held */
} MlRankSet;
void ml_rankset_init(MlRankSet *r);
void ml_rankset_clear(MlRankSet *r);               /* frees, back to init state */
/* ML_OK or ML_NOMEM (the set is left as it was). */
int ml_rankset_insert(MlRankSet *r, ml_key k);
/* Removes one key equal to k: 1 if found, 0 if not. */
int ml_rankset_remove(MlRankSet *r, ml_key k);
ml_i64 ml_rankset_less(const MlRankSet *r, ml_key k);   /* keys < k */
ml_i64 ml_rankset_le(const MlRankSet *r, ml_key k);     /* keys <= k */
/* Both counts at once (one walk down the blocks when the ties of k end
** inside one block). */
void ml_rankset_count(const MlRankSet *r, ml_key k, ml_i64 *lt, ml_i64 *le);
/* Replaces the contents with n ascending keys a[0], a[stride], ...
** ML_OK or ML_NOMEM (the set is then empty). */
int ml_rankset_build(MlRankSet *r, const ml_key *a, ml_i64 n, unsigned stride);

/* ------------------------------------------------------------------ sweep */

/* Optional row filter: keep rows whose aux lies in [lo, hi]. */
typedef struct MlFilter { double lo, hi; } MlFilter;
static inline int ml_filter_keeps(const MlFilter *f, double aux){ return aux>=f->lo && aux<=f->hi; }

/* Row weights of a bootstrap replicate (how often each row was drawn). */
typedef uint32_t ml_weight;

/* The canonical order of a sample, flattened (ml_boot.c): position r holds
** the r-th row by (key, label, aux) -- for 24-byte records (key, label,
** aux2, aux).  A weighted sweep walks it. */
typedef struct MlCanon {
  ml_i64 n;
  ml_key *key;           /* ascending */
  unsigned char *lab;    /* 0 or 1 */
  double *aux;           /* the aux of 16- and 24-byte samples, else NULL */
  double *aux2;          /* the aux2 of 24-byte samples, else NULL */
} MlCanon;

typedef struct MlSweep {
  const MlSamples *s;
  const MlFilter *f;
  const MlCanon *cn;      /* weighted sweep: the canonical order it walks ... */
  const ml_weight *wc;    /* ... and the weight of each position (NULL: unweighted) */
  ml_i64 r;               /* weighted: canonical positions not yet passed */
  ml_i64 i[2];          /* rows of each class not yet passed (from the top) */
  ml_i64 P, N;          /* positives and negatives that pass the filter */
  ml_i64 tp, fp;        /* rows with score >= current threshold */
  ml_i64 dtp, dfp;      /* of which at the current threshold exactly */
  ml_key key;           /* current threshold */
  const MlRun *run;     /* runs form: the runs ... */
  ml_i64 iRun;          /* ... and how many are not yet passed (from the top) */
} MlSweep;

/* Starts a sweep over sorted samples (f may be NULL; it needs 16-byte
** records, so a buffer in runs form takes none).  Counts P and N. */
void ml_sweep_init(MlSweep *w, const MlSamples *s, const MlFilter *f);
/* Advances to the next lower distinct threshold that holds a row (one
** that passes the filter).  Returns 0 when every row has been passed.
** Inline: the folds run it once per distinct score, and a window frame runs
** the folds once per row, so it is a tight merge of two strided arrays. */
/* The weighted step: the rows of the next lower key in canonical order,
** their weights summed by label (branch-free; a key none of whose rows was
** drawn is visited with dtp = dfp = 0, which every fold ignores). */
#if defined(__GNUC__)
# define ML_ALWAYS_INLINE inline __attribute__((always_inline))
#else
# define ML_ALWAYS_INLINE inline
#endif
static ML_ALWAYS_INLINE int ml_sweep_next_weighted(MlSweep *w){
  const MlCanon *c = w->cn;
  const ml_weight *wc = w->wc;
  const MlFilter *f = w->f;
  ml_i64 r = w->r, d0 = 0, d1 = 0;
  ml_key k;
  if( r==0 ) return 0;
  k = c->key[r-1];
  if( f==0 ){
    do{
      ml_i64 wi = wc[r-1], y = c->lab[r-1];
      d1 += wi & -y;
      d0 += wi & (y-1);
      r--;
    }while( r>0 && c->key[r-1]==k );
  }else{
    do{
      double z = c->aux[r-1];
      ml_i64 wi = wc[r-1] * (ml_i64)(z>=f->lo && z<=f->hi), y = c->lab[r-1];
      d1 += wi & -y;
      d0 += wi & (y-1);
      r--;
    }while( r>0 && c->key[r-1]==k );
  }
  w->r = r;
  w->key = k;
  w->dtp = d1; w->dfp = d0;
  w->tp += d1; w->fp += d0;
  return 1;
}
/* The step over counted runs: one run is one threshold, its counts the
** rows there. */
static ML_ALWAYS_INLINE int ml_sweep_next_runs(MlSweep *w){
  const MlRun *r;
  if( w->iRun==0 ) return 0;
  r = &w->run[--w->iRun];
  w->key = r->key;
  w->dtp = r->n[1]; w->dfp = r->n[0];
  w->tp += r->n[1]; w->fp += r->n[0];
  return 1;
}
static ML_ALWAYS_INLINE int ml_sweep_next(MlSweep *w){
  if( w->wc ) return ml_sweep_next_weighted(w);
  if( w->run ) return ml_sweep_next_runs(w);
  {
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
}

/* A weighted sweep over a canonical order: the row at position r counts
** wc[r] times (0: not at all), so tp, fp are the counts of the resampled
** rows and the folds below compute the replicate's metric as on the rows
** repeated.  A filter (c->aux needed) keeps rows as in ml_sweep_init.  P
** and N are not counted up front (-1): a fold sets them when it ends, and a
** metric that needs both classes checks them then (a fold over one class
** returns NaN). */
void ml_sweep_init_weighted(MlSweep *w, const MlCanon *c, const MlFilter *f, const ml_weight *wc);

/* Folds over the sweep.  Each returns the metric; the caller has checked
** that both classes are present (P > 0 and N > 0). */
double ml_fold_average_precision(const MlSamples *s, const MlFilter *f);
/* The sum of AP's terms d tp / (tp + fp) (one per score holding a
** positive, from the highest) of an unweighted sorted buffer in rows form,
** added in plain double arithmetic and not divided by P: the multiclass
** sweeps' sum, bit for bit (multiclass_window.c rule 20).  O(n). */
double ml_fold_ap_sum_plain(const MlSamples *s);
/* AP folded over a sweep just started with ml_sweep_init (whose P and N the
** caller may have looked at first). */
double ml_fold_ap_sweep(MlSweep *w);
/* AP of a weighted canonical order by plan (ml_sweep.c rule 10): the
** scores that hold a positive, in ascending order, each as its rows
** [lo, hi) and its first positive plo.  ml_ap_plan allocates it (ml_free;
** NULL: no memory); ml_fold_ap_plan gives ml_fold_ap_sweep's double for
** the weights wc, and the weights of the positives and negatives. */
typedef struct MlApGroup { ml_i64 lo, plo, hi; } MlApGroup;
MlApGroup *ml_ap_plan(const MlCanon *c, ml_i64 *pN);
double ml_fold_ap_plan(const MlApGroup *a, ml_i64 m, const MlCanon *c, const ml_weight *wc,
                       uint64_t *pP, uint64_t *pN);
double ml_fold_auroc(const MlSamples *s);
/* AUROC folded over a started (possibly weighted) sweep. */
double ml_fold_auroc_sweep(MlSweep *w);
/* Twice the Mann-Whitney count: over every (positive, negative) pair, 2 when
** the positive scores higher, 1 when tied.  auroc = u2 / (2 P N). */
ml_i64 ml_fold_auroc_u2(const MlSamples *s);
double ml_fold_youden_j(const MlSamples *s);
/* Max TPR over the thresholds (and the all-negative point) with
** fpr <= target (bySpec 0) or 1 - fpr >= target (bySpec 1). */
double ml_fold_tpr_at_fpr(const MlSamples *s, double target, int bySpec);
/* The same over a started sweep whose P and N are set (a weighted sweep's
** caller sums them first: tpr_at_fpr_ci's replicates). */
double ml_fold_tpr_at_fpr_sweep(MlSweep *w, double target, int bySpec);

/* McClish-standardised partial AUC up to max_fpr in (0, 1), the ROC curve
** interpolated linearly at max_fpr (sklearn's roc_auc_score(max_fpr=...)). */
double ml_fold_partial_auroc(const MlSamples *s, double max_fpr);

/* operating_point's criteria, in the order of their names (ranking.c). */
enum { ML_OP_FPR, ML_OP_SPECIFICITY, ML_OP_SENSITIVITY, ML_OP_PRECISION, ML_OP_MAX_F1, ML_OP_YOUDEN };
/* The point a criterion picks among every distinct threshold and the
** all-negative point; among equal optima the highest threshold. */
typedef struct MlOpPoint {
  ml_i64 tp, fp;        /* rows with score >= threshold (0, 0 at the all-negative point) */
  ml_key key;           /* the threshold, unless allNegative */
  int allNegative;      /* nothing predicted positive: threshold null */
  int achieved;         /* some candidate met the target (always, without one) */
} MlOpPoint;
void ml_fold_operating_point(const MlSamples *s, int criterion, double target, MlOpPoint *out);

/* Rows of each class that pass f (f may be NULL): O(n) when filtered. */
void ml_count_classes(const MlSamples *s, const MlFilter *f, ml_i64 *P, ml_i64 *N);

/* Threshold metrics of issue 24 (ml_sweep.c; ranking.c's ks, precision_at_k,
** recall_at_k, gains, decision_curve).  Ranks count from the highest score.
** A tie group that straddles a cut at rank k counts with its positive
** fraction: the expectation over every order of its rows, so that no result
** depends on the order the rows came in. */

/* max over thresholds of |TPR - FPR|; both classes present. */
double ml_fold_ks(const MlSamples *s);
/* Expected positives among the k highest scores, 0 <= k <= n. */
double ml_fold_top_k(const MlSamples *s, ml_i64 k);
/* The same value, bit for bit, from an unsorted buffer of rows (8-byte
** records, not runs, not weighted) and 1 <= k <= its rows, without sorting
** it: the k-th largest key T by a k-entry min-heap (one compare per row
** when k is small against the rows; O(n log k) at worst), then one pass
** counting the keys above and at T in each class.  heap: k keys of
** scratch. */
double ml_top_k_select(const MlSamples *s, ml_i64 k, ml_key *heap);

/* Boundary i of n ranks cut into B equal-mass parts: floor(i * (n/B)) with
** n/B a double, n at i = B: numpy's linspace(0, n, B+1, dtype=int), the
** rule of SPEC's equal-mass bins (calibration.c keeps its own copy). */
static inline ml_i64 ml_mass_edge(ml_i64 i, ml_i64 n, ml_i64 B){
  return i>=B ? n : (ml_i64)((double)i * ((double)n/(double)B));
}
/* The same boundary on a cumulative-weight axis of length W (the weighted
** twins, docs/weights.md): floor(i * (W/B)) in doubles, W at i = B; for an
** integer W the double of ml_mass_edge(i, W, B). */
static inline double ml_mass_edge_w(ml_i64 i, double W, ml_i64 B){
  return i>=B ? W : floor((double)i * (W/(double)B));
}
/* Called for each of the B parts of the ranks, top first: its index b
** (0-based), its rows (a weighted sample: its weight), where it ends (the
** rows, or weight, of parts 0..b), its expected positives, and the
** expected positives of parts 0..b together (taken from the counts, not
** summed). */
typedef void (*MlGainsEmit)(void *arg, ml_i64 b, double n, double end, double positives, double cumPositives);
/* The B equal-mass parts (ml_mass_edge) of the ranks; 1 <= B <= n.  A
** weighted sample is handed to ml_wfold_gains. */
void ml_fold_gains(const MlSamples *s, ml_i64 B, MlGainsEmit emit, void *arg);

/* Rows of each class whose key is >= k, for keys k that never decrease
** from one call to the next: one cursor per class moves up the sorted
** arrays (runs form: one cursor over the runs and the rows it passed of
** each class), idx[ML_COUNT_CURSOR] zeroed before the first call; O(n),
** or O(runs), in all. */
#define ML_COUNT_CURSOR 3
void ml_count_at_least(const MlSamples *s, ml_i64 idx[ML_COUNT_CURSOR], ml_key k, ml_i64 *tp, ml_i64 *fp);

/* ------------------------------------------------------- weighted sweep */

/* The sweep over weighted rows (ml_wsweep.c): an MlSamples of width 16
** whose aux is each row's weight (> 0).  tp, fp: the weights of the rows with
** score >= key; dtp, dfp: of those at key exactly (exact sums of the tied
** rows); P, N: the totals, the sweep's own last tp and fp. */
typedef struct MlWSweep {
  const MlSamples *s;
  ml_i64 i[2];            /* rows of each class not yet passed (from the top) */
  double P, N, tp, fp, dtp, dfp;
  ml_key key;
} MlWSweep;
void ml_wsweep_init(MlWSweep *w, const MlSamples *s);
/* ml_wsweep_init without the totals (P and N are NaN): for a fold that reads
** them only after the sweep, as its own last tp and fp. */
void ml_wsweep_begin(MlWSweep *w, const MlSamples *s);
int ml_wsweep_next(MlWSweep *w);
/* The weighted folds: the unweighted fold's expression on weight sums (both
** classes present). */
double ml_wfold_ap(const MlSamples *s);
double ml_wfold_auroc(const MlSamples *s);
double ml_wfold_youden_j(const MlSamples *s);
double ml_wfold_tpr_at_fpr(const MlSamples *s, double target, int bySpec);
double ml_wfold_ks(const MlSamples *s);
double ml_wfold_partial_auroc(const MlSamples *s, double max_fpr);
/* Cuts on the cumulative-weight axis from the top (precision_at_k_w,
** recall_at_k_w, gains_w): a tie group occupies [c, c + its weight) of
** the axis, c the running sum tp + fp above it; one that a cut splits
** counts its positive weight in proportion to its weight on each side.
** ml_wfold_top_k: the positive weight among the top k, 0 <= k <= W.
** ml_wfold_gains: ml_fold_gains's B parts, edges ml_mass_edge_w; B <= W. */
double ml_wfold_top_k(const MlSamples *s, double k);
void ml_wfold_gains(const MlSamples *s, ml_i64 B, MlGainsEmit emit, void *arg);
/* operating_point on weight sums: the point a criterion picks (as
** ml_fold_operating_point), with the totals P and N. */
typedef struct MlWOpPoint {
  double tp, fp, P, N;
  ml_key key;
  int allNegative, achieved;
} MlWOpPoint;
void ml_wfold_operating_point(const MlSamples *s, int criterion, double target, MlWOpPoint *out);

/* --------------------------------------------------------------- quantile */

/* numpy.quantile(a, q) (method 'linear') for q1 <= q2, found by selection on
** a (which is reordered).  n >= 1. */
void ml_quantile_pair(double *a, ml_i64 n, double q1, double q2, double *out1, double *out2);
/* numpy's linear quantile q on a cumulative-weight axis (ml_quantile.c rule
** 3): n >= 1 values v[i * stride] ascending, value i occupying [below[i *
** stride], next below) of [0, W).  *at: where to start looking (0 at first;
** advanced, so that quantiles asked in ascending q walk the values once). */
double ml_wquantile(const double *v, const double *below, size_t stride, ml_i64 n, double W,
                    double q, ml_i64 *at);
/* The value at rank r of that axis: the first value whose interval ends
** above r (the largest when r >= W), looking from *at on (advanced). */
double ml_wrank(const double *v, const double *below, size_t stride, ml_i64 n, double r, ml_i64 *at);
/* The same quantiles of ascending v[0..n) where v[i] is repeated w[i] times
** (w NULL: once), the total weight >= 1: one O(n) walk, the same lerp, so
** with unit weights it returns ml_quantile_pair's doubles. */
void ml_quantile_pair_sorted(const double *v, const ml_weight *w, ml_i64 n,
                             double q1, double q2, double *out1, double *out2);
/* The pieces, for callers that hold sorted values: the virtual index
** (n-1)q split into j = floor and g = fraction (j = n-1, g = 0 at the top),
** and numpy's lerp (a + (b-a)g, or b - (b-a)(1-g) when g >= 0.5). */
void ml_quantile_index(ml_i64 n, double q, ml_i64 *j, double *g);
double ml_lerp_np(double a, double b, double g);

/* ------------------------------------------------------- string builder */

/* A growable string (ml_str.c): the JSON and SVG writers are built on it.
** After an allocation failure oom is set, the text is freed and every later
** append is a no-op; ml_str_finish() then returns NULL. */
typedef struct MlStr {
  char *z;          /* text, NUL-terminated when not oom */
  size_t n, cap;
  int oom;
} MlStr;

void ml_str_init(MlStr *s);
void ml_str_free(MlStr *s);
void ml_str_append(MlStr *s, const char *z, size_t n);
void ml_str_appendz(MlStr *s, const char *z);
void ml_str_int(MlStr *s, ml_i64 v);
void ml_str_double(MlStr *s, double d);            /* ml_format_double */
void ml_str_fixed(MlStr *s, double d, int decimals); /* ml_format_fixed */
void ml_str_xml(MlStr *s, const char *z);          /* XML-escaped text */
/* z's first max bytes or fewer, cut between characters, ill-formed UTF-8 as
** U+FFFD; escaped for XML (as ml_str_xml) when xml is set. */
void ml_str_text(MlStr *s, const char *z, size_t max, int xml);
/* Hands over the text (caller frees with ml_free); NULL when oom. */
char *ml_str_finish(MlStr *s, size_t *pn);

/* Numbers as text, the same in every C locale (decimal point '.').
** ml_format_double: shortest "%.{15,16,17}g" text that reads back as d,
** -0 written as 0 (JSON, SVG, messages: no text says "-0"); buf >= 32 bytes.  ml_format_fixed: "%.*f" (no "-0"); buf >= 64 bytes.
** ml_parse_double: strtod with '.' as the decimal point whatever the locale,
** over a number of any length; *pEnd (may be NULL) is set past the number,
** to z when there is none (NaN, *pEnd = z, when a number longer than 127
** bytes meets an allocation failure).  ml_parse_number: the same over
** exactly the n bytes z[0..n) (a number a caller has already delimited);
** ML_OK, or ML_NOMEM. */
int ml_format_double(char *buf, double d);
int ml_format_fixed(char *buf, double d, int decimals);
double ml_parse_double(const char *z, const char **pEnd);
int ml_parse_number(const char *z, size_t n, double *pOut);

/* ------------------------------------------------------------------- json */

typedef struct MlJson {
  MlStr s;
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
/* The n bytes at s as a JSON string, a NUL among them written \u0000 (a
** SQL TEXT value's bytes, which may hold one). */
void ml_json_string_n(MlJson *j, const char *s, size_t n);

/* Reads a JSON array of flat objects (ml_json_read.c): *paOut gets, for each
** element i, the value of field f at [i*nField + f] (NaN for null or
** missing); anPresent[f] counts the elements that have field f (nField <= 32).  ML_OK,
** ML_NOMEM, or ML_ERROR with the reason in zErr.  The caller frees *paOut. */
int ml_json_read_rows(const char *z, int nField, const char *const *azField,
                      double **paOut, ml_i64 *pnRow, ml_i64 *anPresent,
                      char *zErr, size_t nErr);
/* Reads a JSON array of numbers (null elements as NaN) into out, at most
** nMax of them; *pn gets how many.  ML_OK, ML_NOMEM, or ML_ERROR with the
** reason in zErr ("expected an array at byte 0", "more than 32 elements"). */
int ml_json_read_numbers(const char *z, double *out, int nMax, int *pn, char *zErr, size_t nErr);
/* Reads the field zKey of a JSON object, an array of [x, y] number pairs
** (calibration_smooth's "curve"): *paOut gets 2 doubles a pair, *pn the
** pairs.  ML_OK, ML_NOMEM, or ML_ERROR with the reason in zErr (the field
** missing: 'no "curve" field').  The caller frees *paOut. */
int ml_json_read_pairs(const char *z, const char *zKey, double **paOut, ml_i64 *pn, char *zErr, size_t nErr);
/* The same for a field that is an array of numbers (null elements are an
** error): censoring_km's "time" and "surv", which ipcw() reads. */
int ml_json_read_field(const char *z, const char *zKey, double **paOut, ml_i64 *pn, char *zErr, size_t nErr);

/* -------------------------------------------------------------------- svg */

/* Data range and pixel box of one panel (ml_svg.c). */
typedef struct MlPlotBox {
  double x0, x1, y0, y1;           /* data coordinates at the box's edges */
  double left, top, width, height; /* pixels */
} MlPlotBox;

const char *ml_svg_color(int k);          /* Okabe-Ito, cycling */
const char *ml_svg_dash(int k);           /* NULL for the first 8 series */
void ml_svg_begin(MlStr *s, int w, int h, const char *title);
void ml_svg_end(MlStr *s);
double ml_svg_px(const MlPlotBox *b, double x);
double ml_svg_py(const MlPlotBox *b, double y);
void ml_svg_text(MlStr *s, const char *cls, double x, double y, const char *anchor,
                 double size, const char *z);
void ml_svg_line(MlStr *s, const MlPlotBox *b, const char *cls, double x1, double y1,
                 double x2, double y2, const char *color, const char *dash, double width);
void ml_svg_rect(MlStr *s, const MlPlotBox *b, const char *cls, double x0, double y0,
                 double x1, double y1, const char *color, double opacity,
                 const char *tip);   /* tip: a <title> tooltip, or NULL */
/* xy: n (x, y) pairs in data coordinates.  Returns the points drawn. */
ml_i64 ml_svg_polyline(MlStr *s, const MlPlotBox *b, const char *cls, const double *xy,
                       ml_i64 n, const char *color, const char *dash, double width);
/* Frame, ticks (at most xTicks/yTicks each; 0: none) and axis labels. */
void ml_svg_axes(MlStr *s, const MlPlotBox *b, const char *xlabel, const char *ylabel,
                 int xTicks, int yTicks);
/* boxes: filled squares (bars) instead of line swatches. */
void ml_svg_legend(MlStr *s, double x, double y, int n, const char *const *azText,
                   const int *aColorIdx, int boxes);
/* Ticks at multiples of 1, 2 or 5 x 10^k covering lo..hi; the decimals
** their labels need.  ml_nice_range widens lo..hi to tick multiples. */
void ml_nice_ticks(double lo, double hi, int maxTicks, double *pStep, double *pFirst, int *pN,
                   int *pDecimals);
void ml_nice_range(double lo, double hi, int maxTicks, double *pLo, double *pHi);

/* -------------------------------------------------------------- bootstrap */

/* xoshiro256** (Blackman & Vigna 2018), its state filled by splitmix64. */
typedef struct MlRng { uint64_t s[4]; } MlRng;
/* The stream of replicate `rep` of `seed` (docs/uncertainty.md). */
void ml_rng_seed(MlRng *r, uint64_t seed, uint64_t rep);
uint64_t ml_rng_next(MlRng *r);
/* Uniform in [0, n), n >= 1, unbiased (Lemire 2019). */
uint64_t ml_rng_below(MlRng *r, uint64_t n);

/* Sorts the sample into the canonical order: by key, and for 16-byte
** records ties by the key of aux (after -0.0 -> +0.0), for 24-byte records
** ties by the key of aux2, then of aux (a weighted twin's (s, w, strat or
** s_b): the unweighted order, ties then by weight), so that the order is
** the same whatever order the rows came in.  Across the two arrays the
** canonical order puts, at one key, the negatives first.  ML_OK / ML_NOMEM. */
int ml_samples_sort_canonical(MlSamples *s);

/* Flattens a canonically sorted sample into c (merging the classes,
** negatives first at equal keys).  ML_OK / ML_NOMEM; ml_canon_free frees. */
int ml_canon_build(MlCanon *c, const MlSamples *s);
void ml_canon_free(MlCanon *c);

/* A statistic over weighted rows: wc[r] is the weight of the row at
** canonical position r.  Writes its K values to out[]; returns 1 when
** defined, 0 when not (the replicate is then drawn again). */
typedef int (*MlBootStat)(void *arg, const MlCanon *c, const ml_weight *wc, double *out);

#define ML_BOOT_MAXK 3
typedef struct MlBootSpec {
  double level;          /* (0, 1) */
  ml_i64 reps;           /* >= 2 */
  uint64_t seed;
  int K;                 /* statistics per replicate, 1..ML_BOOT_MAXK (ml_boot_run_k: any) */
  MlBootStat stat;
  void *arg;
  int (*stop)(void *stopArg);   /* optional: asked between chunks of work; true ends the run */
  void *stopArg;
  ml_i64 repCost;        /* the statistic's work a replicate beyond its n draws (0: none), in
                         ** row-sized units: the stop check comes every 2^20 units, so a
                         ** statistic over T >> n thresholds (decision_curve_ci_w) is asked
                         ** about every replicate, not every 2^20 / n */
} MlBootSpec;

typedef struct MlBootInterval {
  double estimate;       /* the statistic on the rows themselves */
  double se;             /* standard deviation of the replicates (ddof 1) */
  double lo, hi;         /* BCa */
  double plo, phi;       /* percentile */
  double p_value;        /* two-sided bootstrap p of "statistic = 0" */
  double z0, accel;      /* BCa's bias correction and acceleration */
} MlBootInterval;

typedef struct MlBootResult {
  ml_i64 redrawn;        /* replicates drawn again because undefined */
  MlBootInterval iv[ML_BOOT_MAXK];
} MlBootResult;

#define ML_BOOT_UNDEFINED 2    /* the statistic is undefined on the rows */
#define ML_BOOT_EXHAUSTED 3    /* more than ML_BOOT_MAX_REDRAW redraws per replicate */
#define ML_BOOT_STOPPED 4      /* spec->stop said so (an interrupted statement) */
#define ML_BOOT_MAX_REDRAW 100
#define ML_BOOT_JACK_GROUPS 200

/* Runs the bootstrap over a canonical order.  ML_OK, ML_NOMEM,
** ML_BOOT_UNDEFINED, ML_BOOT_EXHAUSTED or ML_BOOT_STOPPED (spec->stop is
** asked about every 2^20 rows of work).  Cost: O(reps * n) time,
** 4 bytes per row and 8 * K * (reps + 200) bytes of scratch. */
int ml_boot_run(const MlCanon *c, const MlBootSpec *spec, MlBootResult *r);
/* The same for any K >= 1 (decision_curve_ci: one statistic per
** threshold): iv[0..K) the intervals, *pRedrawn the redraws; scratch
** 8 * K * (reps + 202) bytes.  ml_boot_run is this with K <= ML_BOOT_MAXK. */
int ml_boot_run_k(const MlCanon *c, const MlBootSpec *spec, MlBootInterval *iv, ml_i64 *pRedrawn);

/* ----------------------------------------------------------------- delong */

/* DeLong's structural components for one score, O(n log n) with midranks:
** v10[i] = (#neg below + #neg tied / 2) / N for positive i,
** v01[j] = (#pos above + #pos tied / 2) / P for negative j, both in the
** order of the given keys.  Returns twice the sum of the v10 numerators
** (exact, so the AUC is that / (2 P N)), or -1 when out of memory. */
double ml_delong_components(const ml_key *kp, ml_i64 P, const ml_key *kn, ml_i64 N,
                            double *v10, double *v01);

/* DeLong over distinct-score runs (ascending, counts only; ml_delong.c):
** the same AUC and variance terms as ml_delong_components, O(runs).  P and
** N > 0.  auc = sum2 / (2 P N) (auroc's double); s10 = sum over positives
** of (V10 - auc)^2, s01 = sum over negatives of (V01 - auc)^2, so that
** var = s10 / ((P-1) P) + s01 / ((N-1) N). */
typedef struct MlDelong { ml_i64 P, N; double auc, s10, s01; } MlDelong;
void ml_delong_runs(const MlRun *r, ml_i64 nRun, MlDelong *out);

/* ----------------------------------------------------------- distributions */

double ml_norm_cdf(double x);
double ml_norm_quantile(double p);        /* p in (0, 1) */
/* Upper tail of Student's t with df degrees of freedom: P(T > t). */
double ml_t_sf(double t, double df);
double ml_t_quantile(double p, double df);   /* p in (0, 1), df > 0 */
double ml_t_isf(double q, double df);        /* t with P(T > t) = q */

/* --------------------------------------------------------------- logistic */

/* One run of a logistic fit: the rows sharing the covariate x, w[0] the
** weight of its rows of y = 0 and w[1] of y = 1 -- counts, or sums of
** frequency weights (a row of weight w stands for w rows); 0 where the
** class has no row. */
typedef struct MlLogitRun { double x, w[2]; } MlLogitRun;

/* Maximum-likelihood logistic fits over runs of rows sharing one x
** (ml_logit.c): P(y = 1) =
** sigma(a + b x) (slope 1), or sigma(a + x) with x an offset (slope 0: only
** a is fitted, *b is 1).  x must be finite.  Newton-Raphson, damped
** (steps halved until the log-likelihood does not fall, and capped), until
** the log-likelihood changes by at most 1e-12 relative, then one more step.
** start: (a, b) to start from, or NULL.  Returns ML_LOGIT_OK with
** *a, *b, or why no finite estimate exists: one class; x constant (slope
** only); the classes separated, completely or quasi-completely, by a
** threshold on x (slope only); no convergence in ML_LOGIT_MAX_ITER steps;
** or stopped (ml_stop_requested). */
enum { ML_LOGIT_OK, ML_LOGIT_ONE_CLASS, ML_LOGIT_CONSTANT, ML_LOGIT_SEPARATED,
       ML_LOGIT_NO_CONVERGENCE, ML_LOGIT_STOPPED };
#define ML_LOGIT_MAX_ITER 100
int ml_logit_fit(const MlLogitRun *r, ml_i64 nRun, int slope, const double *start,
                 double *a, double *b, int *nIter);
/* The Wald covariance of a fit's estimate (a, b) over the same runs: the
** inverse information at (a, b) (R's vcov of the glm, statsmodels'
** cov_params).  cov[0] = var(a); slope fit: cov[1] = var(b), cov[2] =
** cov(a, b); the offset fit sets those two NaN.  ML_LOGIT_OK, or the fit's
** reason when the data admit no estimate (ML_LOGIT_NO_CONVERGENCE when the
** information is not positive definite). */
int ml_logit_cov(const MlLogitRun *r, ml_i64 nRun, int slope, double a, double b, double *cov);
/* calibration_summary's two fits in one go (ml_logit.c rule 6): the
** offset fit (citl) from a0, its first Newton step from 0 (the caller's
** sums: a0 = sum w (y - p) / sum w p (1 - p)), then the slope fit from
** the offset fit's last evaluation, each with its Wald covariance.  rc*:
** ML_LOGIT_OK or why the fit has no estimate.  Returns ML_LOGIT_STOPPED
** when stopped, else ML_LOGIT_OK. */
typedef struct MlLogitCalib {
  int rcCitl, rcSlope;        /* ML_LOGIT_* of each fit */
  double citl, varCitl;       /* the offset fit (NaN without an estimate) */
  double a, b, cov[3];        /* the slope fit: var a, var b, cov(a, b) */
  int nEval;                  /* passes over the runs, both fits */
} MlLogitCalib;
int ml_logit_calib(const MlLogitRun *r, ml_i64 nRun, double a0, MlLogitCalib *o);

/* ------------------------------------------------------------------ beta */

/* The regularized incomplete beta function I_x(a, b) (ml_beta.c), a, b > 0:
** its lower tail, its upper tail 1 - I_x(a, b) (each accurate where small),
** and their inverses: the x with I_x(a, b) = p, and with 1 - I_x(a, b) = q
** (0 and 1 at p, q = 0 or 1).  Relative error below 1e-13. */
double ml_beta_cdf(double x, double a, double b);
double ml_beta_sf(double x, double a, double b);
double ml_beta_quantile(double p, double a, double b);
double ml_beta_isf(double q, double a, double b);
/* The continued fraction of I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * CF,
** for x < (a + 1)/(a + b + 2) (modified Lentz; ml_beta.c, ml_t_sf's too). */
double ml_beta_cf(double x, double a, double b);

#endif /* ML_CORE_H */
