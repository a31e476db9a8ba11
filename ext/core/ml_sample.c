/*
** SPDX-License-Identifier: MIT
**
** ml_sample.c -- the scored-sample buffer shared by every sorted metric.
**
** Provides: ml_samples_* (append, kept-sorted insert/remove, sort, the
** value at a rank of the merged order, the distinct values with their class
** counts); the sort itself is ml_sort.c's.  No SQL function lives here; ranking.c, stratified.c,
** ordinal.c and calibration.c keep one MlSamples in their aggregate context.
**
** Rules:
**   1. A row is (label y in {0,1}, score, optional aux doubles).  The label
**      picks the array, so a record is just the score's order-preserving key
**      (8 bytes), key + aux (16 bytes), or key + aux + aux2 (24 bytes: the
**      stratified family's weighted twins, weight and stratifier).  The
**      memory bound of the aggregate state, 16 bytes per row (24 for a
**      weighted twin), follows.
**   2. -0.0 is stored as +0.0: equal doubles have equal keys, so ties are
**      decided by == as in scikit-learn.
**   3. Until the first sort, rows are appended (amortised O(1), arrays grow
**      by half again with sqlite3_realloc64).  Once sorted, a window frame
**      keeps them sorted: insert and remove by binary search + memmove, O(w),
**      never a re-sort; several keys of one class at once (ml_samples_add_keys,
**      ml_samples_remove_keys: width 8) in one pass of memmoves, O(w + m log w).
**      A width-16 or -24 buffer sorted in the canonical order
**      (ml_samples_sort_canonical, ml_boot.c: ties by the key of aux; of
**      aux2, then aux) keeps it with ml_samples_add_canonical /
**      ml_samples_remove_canonical, whose binary search compares those
**      keys: equal scores stay ordered by weight (the multiclass twins'
**      windows sum a tie's weights in that order).
**   4. Out of memory leaves the buffer as it was and returns ML_NOMEM.
**   5. ml_samples_trim gives back the growth slack (realloc down to the
**      rows held): a result about to sort or copy a buffer whose rows are
**      all in (the survival family's), so that the slack is not held
**      beside the sort's scratch.  A failed shrink keeps the buffer.
**   6. Runs form (ml_core.h, MlSamples): a ranking buffer that absorbed a
**      state holds counted runs instead of records, 24 bytes per distinct
**      score whatever its count; a row added or removed moves one count
**      (binary search), and inserts or removes a run (memmove, O(runs)).
**      ml_samples_to_runs turns rows into runs once; nothing turns them back.
**
** Cost: appends amortised O(1); kept-sorted insert and remove O(w) (a
** binary search and a memmove); sort: ml_sort.c's ml_radix_sort, with one
** scratch array of max(n0, n1) records plus ML_RADIX_EXTRA.
*/
#include "ml_core.h"

void ml_samples_init(MlSamples *s, unsigned width){
  memset(s, 0, sizeof(*s));
  s->width = width;
}

void ml_samples_init_weighted(MlSamples *s){
  ml_samples_init(s, 16);
  s->weighted = 1;
}

void ml_samples_clear(MlSamples *s){
  unsigned w = s->width;
  int weighted = s->weighted;
  ml_free(s->a[0]);
  ml_free(s->a[1]);
  ml_free(s->run);
  ml_samples_init(s, w);
  s->weighted = weighted;
}

/* First run whose key is >= k. */
static ml_i64 runs_bound(const MlSamples *s, ml_key k){
  ml_i64 lo = 0, hi = s->nRun;
  while( lo<hi ){
    ml_i64 mid = lo + (hi-lo)/2;
    if( s->run[mid].key<k ) lo = mid+1; else hi = mid;
  }
  return lo;
}

/* Runs form: one row of class y at key k. */
static int runs_add(MlSamples *s, int y, ml_key k){
  ml_i64 at = runs_bound(s, k);
  if( at>=s->nRun || s->run[at].key!=k ){
    if( s->nRun>=s->capRun ){
      ml_i64 nNew = s->capRun + s->capRun/2 + 16;
      MlRun *r = ml_realloc(s->run, sizeof(MlRun) * (uint64_t)nNew);
      if( r==0 ) return ML_NOMEM;
      s->run = r;
      s->capRun = nNew;
    }
    memmove(s->run + at + 1, s->run + at, sizeof(MlRun) * (size_t)(s->nRun - at));
    s->run[at].key = k;
    s->run[at].n[0] = s->run[at].n[1] = 0;
    s->nRun++;
  }
  s->run[at].n[y]++;
  s->n[y]++;
  return ML_OK;
}

/* Runs form: removes one row of class y at key k; 1 if there was one. */
static int runs_remove(MlSamples *s, int y, ml_key k){
  ml_i64 at = runs_bound(s, k);
  MlRun *r = s->run + at;
  if( at>=s->nRun || r->key!=k || r->n[y]==0 ) return 0;
  r->n[y]--;
  s->n[y]--;
  if( r->n[0]==0 && r->n[1]==0 ){
    memmove(r, r + 1, sizeof(MlRun) * (size_t)(s->nRun - at - 1));
    s->nRun--;
  }
  return 1;
}

/* Ensures room for one more row in array y. */
static int samples_reserve(MlSamples *s, int y){
  if( s->n[y] >= s->cap[y] ){
    /* at least 64: a trimmed or widened array may hold 1 (1 + 1/2 is 1) */
    ml_i64 nNew = s->cap[y]>=64 ? s->cap[y] + s->cap[y]/2 : 64;
    void *p = ml_realloc(s->a[y], (uint64_t)nNew * s->width);
    if( p==0 ) return ML_NOMEM;
    s->a[y] = p;
    s->cap[y] = nNew;
  }
  return ML_OK;
}

ml_i64 ml_samples_bound(const MlSamples *s, int y, ml_key k, int upper){
  ml_i64 lo = 0, hi = s->n[y];
  while( lo<hi ){
    ml_i64 mid = lo + (hi-lo)/2;
    ml_key km = ml_samples_key(s, y, mid);
    if( km<k || (upper && km==k) ) lo = mid+1; else hi = mid;
  }
  return lo;
}

int ml_samples_add2(MlSamples *s, int y, double score, double aux, double aux2){
  unsigned char rec[24];
  ml_key k = ml_key_of(score);
  ml_i64 at;
  if( s->run ) return runs_add(s, y, k);
  if( samples_reserve(s, y) ) return ML_NOMEM;
  memcpy(rec, &k, 8);
  memcpy(rec+8, &aux, 8);
  memcpy(rec+16, &aux2, 8);
  if( s->sorted ){
    at = ml_samples_bound(s, y, k, 1);
    memmove(s->a[y] + (size_t)(at+1)*s->width, s->a[y] + (size_t)at*s->width,
            (size_t)(s->n[y]-at)*s->width);
  }else{
    at = s->n[y];
  }
  memcpy(s->a[y] + (size_t)at*s->width, rec, s->width);
  s->n[y]++;
  return ML_OK;
}

int ml_samples_add_keys(MlSamples *s, int y, const ml_key *k, int m){
  ml_i64 at[ML_SAMPLES_MAX_KEYS], n = s->n[y], hi = n;
  ml_key *a;
  int i;
  if( m<=0 ) return ML_OK;
  if( s->n[y] + m > s->cap[y] ){
    ml_i64 nNew = s->cap[y] + s->cap[y]/2;
    void *p;
    if( nNew < s->n[y] + m ) nNew = s->n[y] + m + 64;
    if( (p = ml_realloc(s->a[y], (uint64_t)nNew * 8))==0 ) return ML_NOMEM;
    s->a[y] = p;
    s->cap[y] = nNew;
  }
  for(i=0; i<m; i++) at[i] = ml_samples_bound(s, y, k[i], 1);
  a = (ml_key*)s->a[y];
  for(i=m-1; i>=0; i--){               /* from the top: each segment moves once */
    memmove(a + at[i] + i + 1, a + at[i], (size_t)(hi - at[i])*8);
    a[at[i] + i] = k[i];
    hi = at[i];
  }
  s->n[y] = n + m;
  return ML_OK;
}

int ml_samples_remove_keys(MlSamples *s, int y, const ml_key *k, int m){
  ml_i64 at[ML_SAMPLES_MAX_KEYS], n = s->n[y], dst;
  ml_key *a = (ml_key*)s->a[y];
  int i;
  if( m<=0 ) return 1;
  for(i=0; i<m; i++){
    at[i] = ml_samples_bound(s, y, k[i], 0);
    if( i>0 && at[i]<=at[i-1] ) at[i] = at[i-1] + 1;     /* a repeated key: the next copy */
    if( at[i]>=n || a[at[i]]!=k[i] ) return 0;
  }
  dst = at[0];
  for(i=0; i<m; i++){                  /* from the bottom: each segment moves once */
    ml_i64 from = at[i] + 1, to = i+1<m ? at[i+1] : n;
    memmove(a + dst, a + from, (size_t)(to - from)*8);
    dst += to - from;
  }
  s->n[y] = n - m;
  return 1;
}

/* The canonical order's keys of a record (ml_samples_sort_canonical):
** width 16, (key, key of aux); width 24, (key, key of aux2, key of aux). */
static void canon_keys(const unsigned char *r, unsigned width, ml_key *o){
  double d1, d2;
  memcpy(&o[0], r, 8);
  memcpy(&d1, r + 8, 8);
  if( width==24 ){
    memcpy(&d2, r + 16, 8);
    o[1] = ml_key_of(d2);
    o[2] = ml_key_of(d1);
  }else{
    o[1] = ml_key_of(d1);
    o[2] = 0;
  }
}

/* -1, 0 or 1 as the keys a come before, with or after b. */
static int canon_cmp(const ml_key *a, const ml_key *b){
  int i;
  for(i=0; i<3; i++) if( a[i]!=b[i] ) return a[i]<b[i] ? -1 : 1;
  return 0;
}

/* First index of class y's canonically sorted array whose record comes at
** or after (after, when upper) the record of keys o. */
static ml_i64 canon_bound(const MlSamples *s, int y, const ml_key *o, int upper){
  ml_i64 lo = 0, hi = s->n[y];
  while( lo<hi ){
    ml_i64 mid = lo + (hi-lo)/2;
    ml_key km[3];
    int c;
    canon_keys(s->a[y] + (size_t)mid*s->width, s->width, km);
    c = canon_cmp(km, o);
    if( c<0 || (upper && c==0) ) lo = mid+1; else hi = mid;
  }
  return lo;
}

/* The record of (score, aux, aux2), as ml_samples_add2 writes it, and its
** keys (-0.0 and +0.0 one key). */
static void canon_record(unsigned char *rec, unsigned width, double score, double aux, double aux2, ml_key *o){
  ml_key k = ml_key_of(score);
  memcpy(rec, &k, 8);
  memcpy(rec + 8, &aux, 8);
  memcpy(rec + 16, &aux2, 8);
  canon_keys(rec, width, o);
}

int ml_samples_add_canonical(MlSamples *s, int y, double score, double aux, double aux2){
  unsigned char rec[24];
  ml_key o[3];
  unsigned w = s->width;
  ml_i64 at;
  if( !s->sorted ) return ml_samples_add2(s, y, score, aux, aux2);
  if( samples_reserve(s, y) ) return ML_NOMEM;
  canon_record(rec, w, score, aux, aux2, o);
  at = canon_bound(s, y, o, 1);
  memmove(s->a[y] + (size_t)(at+1)*w, s->a[y] + (size_t)at*w, (size_t)(s->n[y] - at)*w);
  memcpy(s->a[y] + (size_t)at*w, rec, w);
  s->n[y]++;
  return ML_OK;
}

int ml_samples_remove_canonical(MlSamples *s, int y, double score, double aux, double aux2){
  unsigned char rec[24];
  ml_key o[3], h[3];
  unsigned w = s->width;
  ml_i64 at;
  if( !s->sorted ) return ml_samples_remove2(s, y, score, aux, aux2);
  canon_record(rec, w, score, aux, aux2, o);
  at = canon_bound(s, y, o, 0);
  if( at>=s->n[y] ) return 0;
  canon_keys(s->a[y] + (size_t)at*w, w, h);
  if( canon_cmp(h, o)!=0 ) return 0;
  memmove(s->a[y] + (size_t)at*w, s->a[y] + (size_t)(at+1)*w, (size_t)(s->n[y] - at - 1)*w);
  s->n[y]--;
  return 1;
}

void ml_samples_trim(MlSamples *s){
  int y;
  for(y=0; y<2; y++){
    ml_i64 n = s->n[y] ? s->n[y] : 1;
    void *p;
    if( s->a[y]==0 || s->cap[y]<=n ) continue;
    p = ml_realloc(s->a[y], (uint64_t)n * s->width);
    if( p==0 ) continue;                /* a shrink that fails: the buffer as it was */
    s->a[y] = p;
    s->cap[y] = n;
  }
}

int ml_samples_add(MlSamples *s, int y, double score, double aux){
  return ml_samples_add2(s, y, score, aux, 0.0);
}

int ml_samples_widen(MlSamples *s, double w){
  const unsigned from = s->width, to = from + 8;
  unsigned char *b[2];
  ml_i64 i;
  int y;
  if( from==24 || s->run ) return ML_OK;
  for(y=0; y<2; y++){
    b[y] = ml_malloc((uint64_t)(s->n[y] ? s->n[y] : 1) * to);
    if( b[y]==0 ){ if( y ) ml_free(b[0]); return ML_NOMEM; }
  }
  for(y=0; y<2; y++){
    for(i=0; i<s->n[y]; i++){
      MlRec24 o;
      o.key = ml_samples_key(s, y, i);
      o.aux = w;
      if( from==16 ) o.aux2 = ml_samples_aux(s, y, i);
      memcpy(b[y] + (size_t)i*to, &o, to);
    }
    ml_free(s->a[y]);
    s->a[y] = b[y];
    s->cap[y] = s->n[y] ? s->n[y] : 1;
  }
  s->width = to;
  s->weighted = 1;
  return ML_OK;
}

int ml_samples_weigh(MlSamples *s){
  unsigned char *b[2];
  ml_i64 i, n[2] = {0, 0};
  int y;
  if( s->weighted ) return ML_OK;
  if( s->run==0 ) return s->width==8 ? ml_samples_widen(s, 1.0) : ML_OK;
  for(i=0; i<s->nRun; i++) for(y=0; y<2; y++) n[y] += s->run[i].n[y]>0;
  for(y=0; y<2; y++){
    b[y] = ml_malloc((uint64_t)(n[y] ? n[y] : 1) * 16);
    if( b[y]==0 ){ if( y ) ml_free(b[0]); return ML_NOMEM; }
  }
  n[0] = n[1] = 0;
  for(i=0; i<s->nRun; i++){
    for(y=0; y<2; y++){
      MlRec16 o;
      if( s->run[i].n[y]==0 ) continue;
      o.key = s->run[i].key;
      o.aux = (double)s->run[i].n[y];           /* < 2^53: exact */
      memcpy(b[y] + (size_t)(n[y]++)*16, &o, 16);
    }
  }
  ml_samples_clear(s);
  ml_samples_init_weighted(s);
  for(y=0; y<2; y++){ s->a[y] = b[y]; s->n[y] = n[y]; s->cap[y] = n[y] ? n[y] : 1; }
  s->sorted = 1;
  return ML_OK;
}

int ml_samples_remove2(MlSamples *s, int y, double score, double aux, double aux2){
  double rest[2] = { aux, aux2 };     /* the record's bytes after the key */
  ml_key k = ml_key_of(score);
  ml_i64 i, n = s->n[y];
  unsigned w = s->width;
  unsigned char *a = s->a[y];
  if( s->run ) return runs_remove(s, y, k);
  if( s->sorted ){
    /* Among the equal keys, find the record whose aux matches too. */
    for(i=ml_samples_bound(s, y, k, 0); i<n && ml_samples_key(s, y, i)==k; i++){
      if( w==8 || memcmp(a + (size_t)i*w + 8, rest, w-8)==0 ) break;
    }
    if( i>=n || ml_samples_key(s, y, i)!=k ) return 0;
    memmove(a + (size_t)i*w, a + (size_t)(i+1)*w, (size_t)(n-i-1)*w);
  }else{
    for(i=0; i<n; i++){
      if( ml_samples_key(s, y, i)==k
       && (w==8 || memcmp(a + (size_t)i*w + 8, rest, w-8)==0) ) break;
    }
    if( i>=n ) return 0;
    memcpy(a + (size_t)i*w, a + (size_t)(n-1)*w, w);   /* order is free */
  }
  s->n[y]--;
  return 1;
}

int ml_samples_remove(MlSamples *s, int y, double score, double aux){
  return ml_samples_remove2(s, y, score, aux, 0.0);
}

uint64_t ml_samples_scratch_size(const MlSamples *s){
  ml_i64 nMax = s->n[0] > s->n[1] ? s->n[0] : s->n[1];
  if( s->sorted || nMax<=48 ) return 0;     /* insertion sort needs no scratch */
  return (uint64_t)nMax * s->width + ML_RADIX_EXTRA;
}

void ml_samples_sort_using(MlSamples *s, void *scratch){
  if( s->sorted ) return;
  if( ml_radix_sort(s->a[0], s->n[0], s->width, scratch) ) return;      /* stopped */
  if( ml_radix_sort(s->a[1], s->n[1], s->width, scratch) ) return;
  s->sorted = 1;
}

/* ---------------------------------------------------------- cancellation */

/* Per thread (each connection's statement runs on its caller's thread).
** initial-exec: no __tls_get_addr, so mleval.so needs only libc and libm
** (tests/test_backends.py); three words fit glibc's static TLS reserve for
** dlopen'ed modules. */
#define ML_TLS static _Thread_local __attribute__((tls_model("initial-exec")))
ML_TLS MlStopFn stopFn = 0;
ML_TLS void *stopArg = 0;
ML_TLS int stopped = 0;

void ml_stop_install(MlStopFn fn, void *arg){
  stopFn = fn;
  stopArg = arg;
  stopped = 0;
}

int ml_stop_requested(void){
  if( !stopped && stopFn ) stopped = stopFn(stopArg)!=0;
  return stopped;
}

int ml_stop_happened(void){ return stopped; }

int ml_samples_sort(MlSamples *s){
  void *scratch;
  uint64_t nScratch = ml_samples_scratch_size(s);
  if( s->sorted ) return ML_OK;
  scratch = nScratch ? ml_malloc(nScratch) : 0;
  if( nScratch && scratch==0 ) return ML_NOMEM;
  ml_samples_sort_using(s, scratch);
  ml_free(scratch);
  return ML_OK;
}

/* Two-array selection: with k = r+1 smallest rows split as i from the
** negatives and k-i from the positives, the split is right when neither
** side's last taken key exceeds the other side's first untaken one.  A
** binary search on i finds it in O(log n). */
double ml_samples_at_rank(const MlSamples *s, ml_i64 r){
  ml_i64 n0 = s->n[0], n1 = s->n[1], k = r+1;
  ml_i64 lo = k>n1 ? k-n1 : 0, hi = k<n0 ? k : n0;
  for(;;){
    ml_i64 i = lo + (hi-lo)/2, j = k - i;
    if( i>0 && j<n1 && ml_samples_key(s, 0, i-1) > ml_samples_key(s, 1, j) ){
      hi = i-1;                        /* took too many negatives */
    }else if( j>0 && i<n0 && ml_samples_key(s, 1, j-1) > ml_samples_key(s, 0, i) ){
      lo = i+1;                        /* took too few */
    }else{
      ml_key a = i>0 ? ml_samples_key(s, 0, i-1) : 0, b = j>0 ? ml_samples_key(s, 1, j-1) : 0;
      return ml_double_of(a>b ? a : b);
    }
  }
}

ml_i64 ml_samples_runs(const MlSamples *s, MlRun *out){
  const size_t st = s->width/8;
  const ml_key *a0 = (const ml_key*)s->a[0], *a1 = (const ml_key*)s->a[1];
  ml_i64 i0 = 0, i1 = 0, n = 0;
  if( s->run ){
    memcpy(out, s->run, sizeof(MlRun) * (size_t)s->nRun);
    return s->nRun;
  }
  while( i0<s->n[0] || i1<s->n[1] ){
    ml_key k;
    if( i0>=s->n[0] ) k = a1[i1*st];
    else if( i1>=s->n[1] ) k = a0[i0*st];
    else k = a0[i0*st] < a1[i1*st] ? a0[i0*st] : a1[i1*st];
    out[n].key = k;
    out[n].n[0] = out[n].n[1] = 0;
    while( i0<s->n[0] && a0[i0*st]==k ){ i0++; out[n].n[0]++; }
    while( i1<s->n[1] && a1[i1*st]==k ){ i1++; out[n].n[1]++; }
    n++;
  }
  return n;
}

/* The distinct keys of a sorted width-8 buffer, both classes together. */
static ml_i64 samples_distinct(const MlSamples *s){
  const ml_key *a0 = (const ml_key*)s->a[0], *a1 = (const ml_key*)s->a[1];
  ml_i64 i0 = 0, i1 = 0, n = 0;
  while( i0<s->n[0] || i1<s->n[1] ){
    ml_key k;
    if( i0>=s->n[0] ) k = a1[i1];
    else if( i1>=s->n[1] ) k = a0[i0];
    else k = a0[i0] < a1[i1] ? a0[i0] : a1[i1];
    while( i0<s->n[0] && a0[i0]==k ) i0++;
    while( i1<s->n[1] && a1[i1]==k ) i1++;
    n++;
  }
  return n;
}

int ml_samples_to_runs(MlSamples *s, ml_i64 extra){
  ml_i64 cap;
  MlRun *r;
  if( s->run ){
    if( s->nRun + extra <= s->capRun ) return ML_OK;
    cap = s->nRun + extra;
    r = ml_realloc(s->run, sizeof(MlRun) * (uint64_t)cap);
    if( r==0 ) return ML_NOMEM;
    s->run = r;
    s->capRun = cap;
    return ML_OK;
  }
  if( ml_samples_sort(s) ) return ML_NOMEM;
  cap = samples_distinct(s) + extra;
  r = ml_malloc(sizeof(MlRun) * (uint64_t)(cap>0 ? cap : 1));
  if( r==0 ) return ML_NOMEM;
  s->nRun = ml_samples_runs(s, r);
  s->run = r;
  s->capRun = cap>0 ? cap : 1;
  ml_free(s->a[0]); ml_free(s->a[1]);
  s->a[0] = s->a[1] = 0;
  s->cap[0] = s->cap[1] = 0;
  s->sorted = 1;
  return ML_OK;
}
