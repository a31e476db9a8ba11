/*
** SPDX-License-Identifier: MIT
**
** ml_sort.c -- the one sort of the product: ml_radix_sort, records of 8, 16
** or 24 bytes ordered by their leading key (ml_key_of: a double's
** order-preserving bits).  The sample buffer (ml_sample.c), the
** concordance, the bootstraps, DeLong and the multiclass columns call it.
**
** Rules:
**   1. Stable: records of equal keys keep their input order (the families
**      sum a tie group in the order its rows came; check_sort proves it at
**      every width and on every path).
**   2. The caller gives the scratch: n records plus ML_RADIX_EXTRA bytes
**      (the histograms), 8-aligned; nothing is allocated here.
**   3. From 2^18 records it asks ml_stop_requested() between passes and
**      returns 1 when stopped: every record is then in the array, not sorted.
**
** Cost: a distribution sort by value (value_sort: buckets by
** (x - min) / (max - min), n/4 of them, at most 32768 at the first level
** and 2048 below it, recursively, each level scattering into the other
** array so that nothing is copied back; a bucket of at most 16 records is
** insertion-sorted as it is copied to its place), falling back to an LSD
** radix sort over six 11-bit digits of the key -- skipping every digit
** where all keys agree -- for infinite, subnormal or still-wide ranges;
** ML_RADIX_EXTRA is 384 KiB; O(n) time for the scores met in practice.
** Uniform scores, 10^5 keys: one level, ~75 instructions a key (~126 with
** 2048 first-level buckets, which needed a second level everywhere).
*/
#include "ml_core.h"

/* Insertion sort for short runs, where radix passes cost more than they
** save: the n records of src inserted one by one into dst (src may be dst:
** record i is read before any write reaches it), so that a bucket is sorted
** as it is copied to its place; stable.  One loop per record width, so that
** every move is a fixed-size load and store rather than a call to memcpy. */
static void insertion_sort_to(unsigned char *dst, const unsigned char *src, ml_i64 n, unsigned w){
  ml_i64 i, j;
  if( w==8 ){
    ml_key *k = (ml_key*)dst;
    const ml_key *f = (const ml_key*)src;
    for(i=0; i<n; i++){
      ml_key v = f[i];
      for(j=i; j>0 && k[j-1]>v; j--) k[j] = k[j-1];
      k[j] = v;
    }
  }else if( w==16 ){
    MlRec16 *r = (MlRec16*)dst;
    const MlRec16 *f = (const MlRec16*)src;
    for(i=0; i<n; i++){
      MlRec16 v = f[i];
      for(j=i; j>0 && r[j-1].key>v.key; j--) r[j] = r[j-1];
      r[j] = v;
    }
  }else{
    MlRec24 *r = (MlRec24*)dst;
    const MlRec24 *f = (const MlRec24*)src;
    for(i=0; i<n; i++){
      MlRec24 v = f[i];
      for(j=i; j>0 && r[j-1].key>v.key; j--) r[j] = r[j-1];
      r[j] = v;
    }
  }
}
static void insertion_sort(unsigned char *a, ml_i64 n, unsigned w){ insertion_sort_to(a, a, n, w); }

/* 11-bit digits: six passes over a 64-bit key (the last one 9 bits), with
** 2048-entry histograms that stay in L1/L2. */
#define RADIX_BITS   11
#define RADIX_SIZE   (1<<RADIX_BITS)
#define RADIX_PASSES 6
/* Value buckets: at most VB_MAX0 at the first level, VB_MAX at each level
** below it, VB_DEPTH levels, then LSD. */
#ifndef VB_MAX0
# define VB_MAX0     32768
#endif
#define VB_MAX       2048
/* A bucket of at most VB_INSERTION records is insertion-sorted; a larger one
** is distributed again (n/4 buckets).  16: a bucket of 40 insertion-sorted
** cost about 11 moves a record, distributed again about 3. */
#ifndef VB_INSERTION
# define VB_INSERTION 16
#endif
#define VB_DEPTH     3
#if (RADIX_PASSES*RADIX_SIZE + (VB_MAX0+1) + (VB_DEPTH-1)*(VB_MAX+1))*8 != ML_RADIX_EXTRA
# error ML_RADIX_EXTRA does not match the radix geometry
#endif
#define KEY_AT(a, i, w) (*(const ml_key*)((a) + (size_t)(i)*(w)))

/* LSD radix sort of a[0..n) into a, with tmp (n records) and cnt
** (RADIX_PASSES x RADIX_SIZE counters).  Returns 1 when stopped between
** passes (ml_stop_requested, asked from 2^18 rows): the records are all in
** a, not sorted. */
static int lsd_sort(unsigned char *base, ml_i64 n, unsigned width, unsigned char *tmp,
                     ml_i64 (*cnt)[RADIX_SIZE]){
  ml_i64 i;
  int b;
  unsigned char *src = base, *dst = tmp;
  int halt = 0;
  memset(cnt, 0, (size_t)RADIX_PASSES*RADIX_SIZE*8);
  /* One pass builds every digit's histogram. */
#define DIGIT(v, b) (((v) >> (RADIX_BITS*(b))) & (RADIX_SIZE-1))
  for(i=0; i<n; i++){
    ml_key v = KEY_AT(base, i, width);
    for(b=0; b<RADIX_PASSES; b++) cnt[b][DIGIT(v, b)]++;
  }
  for(b=0; b<RADIX_PASSES; b++){
    ml_i64 sum = 0, *c = cnt[b];
    int d, trivial = 0;
    for(d=0; d<RADIX_SIZE; d++){
      if( c[d]==n ){ trivial = 1; break; }
      if( c[d] ){ ml_i64 t = c[d]; c[d] = sum; sum += t; }
    }
    if( trivial ) continue;      /* every key has the same digit here */
    if( n>=(1<<18) && ml_stop_requested() ){ halt = 1; break; }
    if( width==8 ){
      const ml_key *s8 = (const ml_key*)src;
      ml_key *d8 = (ml_key*)dst;
      for(i=0; i<n; i++){ ml_key v = s8[i]; d8[c[DIGIT(v, b)]++] = v; }
    }else if( width==16 ){
      const MlRec16 *s16 = (const MlRec16*)src;
      MlRec16 *d16 = (MlRec16*)dst;
      for(i=0; i<n; i++){ d16[c[DIGIT(s16[i].key, b)]++] = s16[i]; }
    }else{
      const MlRec24 *s24 = (const MlRec24*)src;
      MlRec24 *d24 = (MlRec24*)dst;
      for(i=0; i<n; i++){ d24[c[DIGIT(s24[i].key, b)]++] = s24[i]; }
    }
    { unsigned char *t = src; src = dst; dst = t; }
  }
#undef DIGIT
  if( src!=base ) memcpy(base, src, (size_t)n*width);
  return halt;
}

/* The value bucket of key k: floor((x - min) * scale), the top one clamped. */
static inline ml_i64 vb_bucket(ml_key k, double dmin, double scale, ml_i64 nb){
  ml_i64 b = (ml_i64)((ml_double_of(k) - dmin) * scale);
  return b<nb ? b : nb-1;
}

/* Sorts the records of a[0..n) into a (into 0) or into tmp (into 1), the
** other array serving as scratch: a distribution pass by value (bucket =
** floor((x - min) * B / (max - min)), monotone in x because IEEE
** subtraction and multiplication by a positive constant are) from a into
** tmp, then each bucket the same way, one level down, into the array the
** result belongs in -- the levels alternate direction, so no bucket is
** copied back.  Buckets of uniform-ish scores are small enough for
** insertion sort after one or two levels, all but the first pass in cache;
** a range that is not finite (+-Inf), subnormal, or still wide after
** VB_DEPTH levels falls back to LSD.  Returns 1 when stopped
** (ml_stop_requested: after the distribution pass and every 2^18 rows of
** buckets, from 2^18 rows): every record is then in the result array, not
** sorted. */
static int value_sort(unsigned char *a, unsigned char *tmp, ml_i64 n, unsigned w,
                       ml_i64 *hist, ml_i64 (*lsdCnt)[RADIX_SIZE], int depth, int into){
  unsigned char *res = into ? tmp : a;
  ml_key kmin, kmax;
  double dmin, range, scale;
  ml_i64 i, nb, *c = hist, done = 0;
  const int ask = n>=(1<<18);
  if( n<=VB_INSERTION || depth>=VB_DEPTH ){
    if( n<=VB_INSERTION ){ insertion_sort_to(res, a, n, w); return 0; }
    if( into ) memcpy(tmp, a, (size_t)n*w);
    return lsd_sort(res, n, w, into ? a : tmp, lsdCnt);
  }
  kmin = kmax = KEY_AT(a, 0, w);
  for(i=1; i<n; i++){
    ml_key k = KEY_AT(a, i, w);
    if( k<kmin ) kmin = k;
    if( k>kmax ) kmax = k;
  }
  dmin = ml_double_of(kmin);
  range = ml_double_of(kmax) - dmin;
  nb = n/4 < (depth ? VB_MAX : VB_MAX0) ? n/4 : (depth ? VB_MAX : VB_MAX0);
  scale = (double)nb / range;
  if( kmin==kmax || !(range>0.0 && range<=1.7e308 && scale<=1e300) ){
    if( into ) memcpy(tmp, a, (size_t)n*w);
    return kmin==kmax ? 0 : lsd_sort(res, n, w, into ? a : tmp, lsdCnt);
  }
#define BUCKET(k) vb_bucket(k, dmin, scale, nb)
  memset(c, 0, (size_t)(nb+1)*sizeof(ml_i64));
  for(i=0; i<n; i++) c[BUCKET(KEY_AT(a, i, w))+1]++;
  for(i=1; i<=nb; i++) c[i] += c[i-1];          /* c[b]: first slot of bucket b */
  if( w==8 ){
    const ml_key *s8 = (const ml_key*)a;
    ml_key *d8 = (ml_key*)tmp;
    for(i=0; i<n; i++){ ml_key v = s8[i]; d8[c[BUCKET(v)]++] = v; }
  }else if( w==16 ){
    const MlRec16 *s16 = (const MlRec16*)a;
    MlRec16 *d16 = (MlRec16*)tmp;
    for(i=0; i<n; i++) d16[c[BUCKET(s16[i].key)]++] = s16[i];
  }else{
    const MlRec24 *s24 = (const MlRec24*)a;
    MlRec24 *d24 = (MlRec24*)tmp;
    for(i=0; i<n; i++) d24[c[BUCKET(s24[i].key)]++] = s24[i];
  }
#undef BUCKET
  if( ask && ml_stop_requested() ){
    if( !into ) memcpy(a, tmp, (size_t)n*w);
    return 1;
  }
  /* now c[b] is one past bucket b, in tmp: sort each into the result array
  ** (in place in tmp when that is the result, a as scratch) */
  for(i=0; i<nb; i++){
    ml_i64 lo = i ? c[i-1] : 0, m = c[i] - lo;
    unsigned char *seg = tmp + (size_t)lo*w, *other = a + (size_t)lo*w;
    int halt = 0;
    if( m==0 ) continue;
    if( m<=VB_INSERTION ){
      insertion_sort_to(into ? seg : other, seg, m, w);
    }else{
      halt = value_sort(seg, other, m, w, hist + (depth ? VB_MAX : VB_MAX0) + 1, lsdCnt, depth+1, !into);
    }
    if( ask && (done += m)>=(1<<18) ){ done = 0; halt = halt || ml_stop_requested(); }
    if( halt ){                     /* the buckets not yet sorted go to the result */
      if( !into ) memcpy(a + (size_t)(lo+m)*w, tmp + (size_t)(lo+m)*w, (size_t)(n - lo - m)*w);
      return 1;
    }
  }
  return 0;
}

int ml_radix_sort(void *base, ml_i64 n, unsigned width, void *scratch){
  unsigned char *extra;
  if( n<2 ) return 0;
  if( n<=48 ){ insertion_sort(base, n, width); return 0; }
  /* the counters live after the n records of scratch (ML_RADIX_EXTRA) */
  extra = (unsigned char*)scratch + (size_t)n*width;
  return value_sort(base, scratch, n, width, (ml_i64*)(extra + (size_t)RADIX_PASSES*RADIX_SIZE*8),
             (ml_i64(*)[RADIX_SIZE])extra, 0, 0);
}
