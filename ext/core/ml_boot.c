/*
** ml_boot.c -- the bootstrap every *_ci function of the uncertainty family
** (uncertainty.c) folds its metric over.  SPDX-License-Identifier: MIT
**
** Provides: the seeded generator (ml_rng_*), the canonical order
** (ml_samples_sort_canonical, ml_canon_build) and ml_boot_run, which
** draws the replicates, runs the jackknife and writes the BCa and percentile
** intervals, the standard error and the bootstrap p-value.  Pure C: no SQL.
**
** Rules (docs/uncertainty.md writes them out for a re-implementation):
**   1. Canonical order: rows sorted by score key, ties by label (negatives
**      first), then by the key of the auxiliary argument (the stratifier, or
**      the second score or probability of a paired comparison; a weighted
**      twin's weight).  A weighted twin of a three-argument function keeps
**      24-byte records (score, w, stratifier or second score): ties by the
**      stratifier or second score, then by the weight, so that equal weights
**      give the unweighted order.  Rows equal in all of these are
**      interchangeable, so the replicates depend only on the multiset of
**      rows, never on insertion order or the query plan.
**   2. Replicate b (0-based) uses its own xoshiro256** stream, seeded by four
**      outputs of splitmix64 started at seed XOR (0xD1B54A32D192ED03 * (b+1))
**      mod 2^64.  It draws n indices r in [0, n) by Lemire's method and adds
**      1 to the weight of the row at canonical position r.  A replicate on
**      which the statistic is undefined continues the same stream: n more
**      draws, counted in `redrawn`; more than ML_BOOT_MAX_REDRAW redraws for
**      one replicate ends the run (ML_BOOT_EXHAUSTED).
**   3. The statistic folds over the weights (a weighted sweep): O(n) per
**      replicate, the sample is never re-sorted.  A paired statistic reads
**      both of its scores under the same weights.
**   4. se is the standard deviation of the replicates (ddof 1); the
**      percentile interval is numpy.quantile (linear) of the replicates at
**      (1 -+ level)/2; BCa (Efron 1987) uses z0 = Phi^-1((#{t* < t} +
**      #{t* == t}/2) / reps), clamped to [0.5/reps, 1 - 0.5/reps], and the
**      acceleration a = sum d^3 / (6 (sum d^2)^1.5), d = mean(t_g) - t_g over
**      a jackknife of G = min(n, 200) groups (row at canonical position r in
**      group r mod G; delete-one when n <= 200); jackknife values that are
**      undefined are left out, and a = 0 when sum d^2 = 0.
**   5. p_value = min(1, 2 min(#{t* <= 0}, #{t* >= 0}) / reps).
**
** Cost: O(reps * n) time; scratch 4 bytes per row (the weights), the
** flattened canonical order (9, 17 or 25 bytes per row) and 8 * K * (reps + 200)
** bytes; the state itself is the caller's MlSamples.
*/
#include <math.h>
#include <stdlib.h>
#include "ml_core.h"

/* ------------------------------------------------------------- generator */

static uint64_t splitmix64(uint64_t *x){
  uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void ml_rng_seed(MlRng *r, uint64_t seed, uint64_t rep){
  uint64_t x = seed ^ (0xD1B54A32D192ED03ULL * (rep + 1));
  int i;
  for(i=0; i<4; i++) r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k){ return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(MlRng *r){
  uint64_t *s = r->s;
  uint64_t out = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return out;
}

/* Lemire, "Fast random integer generation in an interval" (2019): the high
** word of x * n, rejecting x whose low word falls below 2^64 mod n. */
static inline uint64_t rng_below(MlRng *r, uint64_t n){
  unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
  uint64_t lo = (uint64_t)m;
  if( lo < n ){
    uint64_t t = (0 - n) % n;
    while( lo < t ){
      m = (unsigned __int128)rng_next(r) * n;
      lo = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

uint64_t ml_rng_next(MlRng *r){ return rng_next(r); }
uint64_t ml_rng_below(MlRng *r, uint64_t n){ return rng_below(r, n); }

/* ------------------------------------------------------- canonical order */

/* Sorts n 16-byte records by (key, key of aux): aux first into the leading
** slot and sorted, then back and sorted stably by key (LSD over two keys). */
static void sort_by_key_then_aux(MlRec16 *a, ml_i64 n, void *scratch){
  ml_i64 i;
  for(i=0; i<n; i++){
    ml_key ka = ml_key_of(a[i].aux);
    double kd;
    memcpy(&kd, &a[i].key, 8);
    a[i].key = ka;
    a[i].aux = kd;
  }
  ml_radix_sort(a, n, 16, scratch);
  for(i=0; i<n; i++){
    ml_key k;
    memcpy(&k, &a[i].aux, 8);
    a[i].aux = ml_double_of(a[i].key);
    a[i].key = k;
  }
  ml_radix_sort(a, n, 16, scratch);
}

/* 24-byte records at one key: by the key of aux2, then of aux. */
static int cmp_aux2_aux(const void *pa, const void *pb){
  const MlRec24 *a = pa, *b = pb;
  ml_key a2 = ml_key_of(a->aux2), b2 = ml_key_of(b->aux2), a1, b1;
  if( a2!=b2 ) return a2<b2 ? -1 : 1;
  a1 = ml_key_of(a->aux); b1 = ml_key_of(b->aux);
  return a1<b1 ? -1 : a1>b1;
}

/* Orders each run of equal keys of a key-sorted 24-byte array by
** cmp_aux2_aux (a comparison sort per tie run: ties are what it sorts). */
static void sort_ties_by_aux2_aux(MlRec24 *a, ml_i64 n){
  ml_i64 i = 0;
  while( i<n ){
    ml_i64 j = i + 1;
    while( j<n && a[j].key==a[i].key ) j++;
    if( j - i > 1 ) qsort(a + i, (size_t)(j - i), sizeof(MlRec24), cmp_aux2_aux);
    i = j;
  }
}

int ml_samples_sort_canonical(MlSamples *s){
  int y;
  void *scratch = 0;
  ml_i64 nMax = s->n[0] > s->n[1] ? s->n[0] : s->n[1];
  if( ml_samples_sort(s) ) return ML_NOMEM;
  if( s->width==24 ){
    for(y=0; y<2; y++) sort_ties_by_aux2_aux((MlRec24*)s->a[y], s->n[y]);
    return ML_OK;
  }
  if( s->width!=16 ) return ML_OK;
  for(y=0; y<2; y++){
    MlRec16 *a = (MlRec16*)s->a[y];
    ml_i64 i;
    int tied = 0;
    for(i=1; i<s->n[y] && !tied; i++) tied = a[i].key==a[i-1].key;
    if( !tied ) continue;
    if( scratch==0 ){
      scratch = ml_malloc((uint64_t)nMax*16 + ML_RADIX_EXTRA);
      if( scratch==0 ) return ML_NOMEM;
    }
    sort_by_key_then_aux(a, s->n[y], scratch);
  }
  ml_free(scratch);
  return ML_OK;
}

void ml_canon_free(MlCanon *c){
  ml_free(c->key);
  memset(c, 0, sizeof(*c));
}

int ml_canon_build(MlCanon *c, const MlSamples *s){
  ml_i64 i0 = 0, i1 = 0, r = 0, n0 = s->n[0], n1 = s->n[1], n = n0 + n1;
  int nAux = s->width>=16 ? (int)(s->width/8) - 1 : 0;    /* 0, 1 or 2 doubles */
  memset(c, 0, sizeof(*c));
  /* one block: keys, aux and aux2 (16- and 24-byte samples), labels */
  c->key = ml_malloc((uint64_t)(n ? n : 1) * (8 + 8*(uint64_t)nAux + 1));
  if( c->key==0 ) return ML_NOMEM;
  c->n = n;
  c->aux = nAux>=1 ? (double*)(c->key + n) : 0;
  c->aux2 = nAux==2 ? (double*)(c->key + 2*n) : 0;
  c->lab = (unsigned char*)(c->key + (1 + nAux)*n);
  while( i0<n0 || i1<n1 ){
    /* at equal keys the negative comes first */
    int y = !(i1>=n1 || (i0<n0 && ml_samples_key(s, 0, i0) <= ml_samples_key(s, 1, i1)));
    ml_i64 i = y ? i1++ : i0++;
    c->key[r] = ml_samples_key(s, y, i);
    c->lab[r] = (unsigned char)y;
    if( nAux>=1 ) c->aux[r] = ml_samples_aux(s, y, i);
    if( nAux==2 ) c->aux2[r] = ml_samples_aux2(s, y, i);
    r++;
  }
  return ML_OK;
}

/* ------------------------------------------------------------- intervals */

static int cmp_double(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

/* numpy.quantile(v, q) (linear) of sorted v. */
static double quantile_sorted(const double *v, ml_i64 n, double q){
  double h = (double)(n-1)*q, g, a, b, d;
  ml_i64 j = (ml_i64)floor(h);
  if( j>=n-1 ) return v[n-1];
  if( j<0 ) return v[0];
  g = h - (double)j;
  a = v[j]; b = v[j+1]; d = b - a;
  return g>=0.5 ? b - d*(1.0-g) : a + d*g;     /* as numpy writes its lerp */
}

/* One statistic's interval from its replicates t[0..B) (sorted here) and
** its jackknife values jk[0..G) (NaN where undefined). */
static void make_interval(MlBootInterval *iv, double est, double *t, ml_i64 B,
                          const double *jk, ml_i64 G, double level){
  ml_i64 i, less = 0, eq = 0, le = 0, ge = 0, nj = 0;
  double mean = 0.0, ss = 0.0, jm = 0.0, s2 = 0.0, s3 = 0.0;
  double prop, zl, z[2], alpha[2];
  int k;
  iv->estimate = est;
  for(i=0; i<B; i++){
    mean += t[i];
    less += t[i] < est;
    eq += t[i] == est;
    le += t[i] <= 0.0;
    ge += t[i] >= 0.0;
  }
  mean /= (double)B;
  for(i=0; i<B; i++) ss += (t[i]-mean)*(t[i]-mean);
  iv->se = sqrt(ss / (double)(B-1));
  iv->p_value = 2.0 * (double)(le<ge ? le : ge) / (double)B;
  if( iv->p_value>1.0 ) iv->p_value = 1.0;
  qsort(t, (size_t)B, sizeof(double), cmp_double);
  iv->plo = quantile_sorted(t, B, (1.0-level)/2.0);
  iv->phi = quantile_sorted(t, B, (1.0+level)/2.0);
  /* acceleration from the jackknife */
  for(i=0; i<G; i++) if( !isnan(jk[i]) ){ jm += jk[i]; nj++; }
  if( nj>0 ){
    jm /= (double)nj;
    for(i=0; i<G; i++) if( !isnan(jk[i]) ){
      double d = jm - jk[i];
      s2 += d*d; s3 += d*d*d;
    }
  }
  iv->accel = s2>0.0 ? s3 / (6.0 * pow(s2, 1.5)) : 0.0;
  prop = ((double)less + 0.5*(double)eq) / (double)B;
  if( prop < 0.5/(double)B ) prop = 0.5/(double)B;
  if( prop > 1.0 - 0.5/(double)B ) prop = 1.0 - 0.5/(double)B;
  iv->z0 = ml_norm_quantile(prop);
  zl = ml_norm_quantile((1.0-level)/2.0);
  z[0] = zl; z[1] = -zl;
  for(k=0; k<2; k++){
    double num = iv->z0 + z[k], den = 1.0 - iv->accel*num;
    alpha[k] = den>0.0 ? ml_norm_cdf(iv->z0 + num/den) : (k==0 ? 0.0 : 1.0);
  }
  if( alpha[0]>alpha[1] ){ double x = alpha[0]; alpha[0] = alpha[1]; alpha[1] = x; }
  iv->lo = quantile_sorted(t, B, alpha[0]);
  iv->hi = quantile_sorted(t, B, alpha[1]);
}

/* ----------------------------------------------------------------- driver */

int ml_boot_run(const MlCanon *c, const MlBootSpec *spec, MlBootResult *r){
  memset(r, 0, sizeof(*r));
  return ml_boot_run_k(c, spec, r->iv, &r->redrawn);
}

int ml_boot_run_k(const MlCanon *c, const MlBootSpec *spec, MlBootInterval *iv, ml_i64 *pRedrawn){
  ml_i64 n = c->n, B = spec->reps, b, i, g;
  ml_i64 G = n < ML_BOOT_JACK_GROUPS ? n : ML_BOOT_JACK_GROUPS;
  ml_i64 work = 0;        /* rows processed since stop was last asked */
  ml_i64 K = spec->K, k;
  int rc = ML_OK;
  ml_weight *wc;
  double *rep, *jk, *est, *out;
  *pRedrawn = 0;
  memset(iv, 0, sizeof(*iv)*(size_t)K);
  wc = ml_malloc(sizeof(ml_weight)*(uint64_t)(n ? n : 1));
  /* est and out: room for ML_BOOT_MAXK at least (a statistic may write
  ** all three of its slots whatever K it runs under) */
  rep = ml_malloc(sizeof(double)*((uint64_t)K*(uint64_t)(B + G) + 2*(uint64_t)(K > ML_BOOT_MAXK ? K : ML_BOOT_MAXK)));
  if( wc==0 || rep==0 ){ ml_free(wc); ml_free(rep); return ML_NOMEM; }
  jk = rep + (size_t)K*(size_t)B;
  est = jk + (size_t)K*(size_t)G;
  out = est + (K > ML_BOOT_MAXK ? K : ML_BOOT_MAXK);

  /* the estimate: every row once */
  for(i=0; i<n; i++) wc[i] = 1;
  if( !spec->stat(spec->arg, c, wc, est) ){ rc = ML_BOOT_UNDEFINED; goto done; }

  /* the replicates */
  for(b=0; b<B; b++){
    MlRng rng;
    int tries = 0;
    ml_rng_seed(&rng, spec->seed, (uint64_t)b);
    for(;;){
      memset(wc, 0, sizeof(ml_weight)*(size_t)n);
      for(i=0; i<n; i++) wc[rng_below(&rng, (uint64_t)n)]++;
      work += n + spec->repCost;
      if( work >= (1<<20) ){
        work = 0;
        if( spec->stop && spec->stop(spec->stopArg) ){ rc = ML_BOOT_STOPPED; goto done; }
      }
      if( spec->stat(spec->arg, c, wc, out) ) break;
      (*pRedrawn)++;
      if( ++tries > ML_BOOT_MAX_REDRAW ){ rc = ML_BOOT_EXHAUSTED; goto done; }
    }
    for(k=0; k<K; k++) rep[(size_t)k*B + b] = out[k];
  }

  /* the jackknife over G groups, round-robin in canonical order */
  for(g=0; g<G; g++){
    work += n + spec->repCost;
    if( work >= (1<<20) ){
      work = 0;
      if( spec->stop && spec->stop(spec->stopArg) ){ rc = ML_BOOT_STOPPED; goto done; }
    }
    for(i=0; i<n; i++) wc[i] = 1;
    for(i=g; i<n; i+=G) wc[i] = 0;
    if( spec->stat(spec->arg, c, wc, out) ){
      for(k=0; k<K; k++) jk[(size_t)k*G + g] = out[k];
    }else{
      for(k=0; k<K; k++) jk[(size_t)k*G + g] = NAN;
    }
  }

  for(k=0; k<K; k++){
    make_interval(&iv[k], est[k], rep + (size_t)k*B, B, jk + (size_t)k*G, G, spec->level);
    work += B*8;                  /* a sort of the B replicates */
    if( work >= (1<<20) ){
      work = 0;
      if( spec->stop && spec->stop(spec->stopArg) ){ rc = ML_BOOT_STOPPED; goto done; }
    }
  }
done:
  ml_free(wc);
  ml_free(rep);
  return rc;
}
