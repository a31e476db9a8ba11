/*
** SPDX-License-Identifier: MIT
**
** ml_state_absorb.c -- a state's sections absorbed into a sample buffer
** (MlSamples), or removed from it (a window frame's xInverse): as rows, as
** counted runs, as counted records, or as weighted records; and the
** helpers each family's xAbsorb calls with its states (section iSec of n
** states).
**
** Provides: ml_samples_absorb (rows, one linear merge pass),
** ml_samples_absorb_counts (runs, not expanded), ml_samples_absorb_counted
** (a record per entry weighing its count), ml_samples_absorb_weighted and
** ml_count_weight; for the families (ext/metrics) ml_absorb_section,
** ml_absorb_section_counts, ml_absorb_section_counted,
** ml_samples_counted_begin, ml_absorb_weighted, ml_states_weighted and
** ml_state_rows.
**
** Rules:
**   1. Every count sum is checked against 2^53 (ml_state_add_counts) before
**      anything is written.
**   2. Adding is one merge pass: the held records move to the end of their
**      array and the merge writes from the front (the write position never
**      passes the read position); removing is one pass over both.
**   3. A buffer is at most one SQLite allocation per class (0x7fffff00
**      bytes): past it, an error naming the rows and the limit.
**   4. Expanding a state into rows asks ml_stop_requested every 2^16 rows
**      (the count comes from a blob): ML_STOPPED.
**   5. Any failure of the families' helpers clears the buffer; out of
**      memory returns ML_NOMEM and leaks nothing.
**
** Cost: absorb O(rows held + rows added); absorb counts O(runs held +
** entries log k), 24 bytes a distinct score; counted and weighted
** O(entries), 16 or 24 bytes a record.
*/
#include <stdio.h>
#include <stdlib.h>
#include "ml_state_impl.h"

/* ------------------------------------------------------------- absorb */

/* Appends count copies of one record; 0 when the statement is being
** abandoned (asked every 2^16 copies: the count comes from a blob). */
static inline unsigned char *put_copies(unsigned char *d, const unsigned char *rec, unsigned w, ml_i64 count,
                                        ml_i64 *pDone){
  while( count-- > 0 ){
    memcpy(d, rec, w); d += w;
    if( (++*pDone & 0xFFFF)==0 && ml_stop_requested() ) return 0;
  }
  return d;
}

/* Merges k sections' rows into the sorted arrays in one pass: each array's
** held records move to its end, then one forward merge writes from the
** front (the write position never passes the read position). */
static int absorb_runs(MlSamples *s, const MlSection *const *secs, int k, char *zErr, int nErr){
  unsigned w = s->width;
  ml_i64 n[2], m[2], i[2] = {0, 0}, done = 0;
  unsigned char *src[2], *dst[2], rec[16];
  MlMerger mg;
  MlEntry e;
  int y;
  m[0] = s->n[0]; m[1] = s->n[1];
  if( ml_state_add_counts(m, secs, k, zErr, nErr) ) return ML_ERROR;
  for(y=0; y<2; y++){
    n[y] = s->n[y];
    m[y] -= n[y];
    if( (uint64_t)(n[y] + m[y]) * w > 0x7fffff00u ){      /* SQLite allocates no more */
      return ml_state_bad(zErr, nErr, "the states hold %lld rows of one class: this function takes a state's rows"
                 " one by one and holds at most %lld", (long long)(n[y] + m[y]), (long long)(0x7fffff00u / w));
    }
    if( n[y] + m[y] > s->cap[y] ){
      unsigned char *a = ml_realloc(s->a[y], (uint64_t)(n[y] + m[y]) * w);
      if( a==0 ) return ML_NOMEM;
      s->a[y] = a;
      s->cap[y] = n[y] + m[y];
    }
  }
  if( ml_merger_init(&mg, secs, k, 0) ) return ML_NOMEM;
  for(y=0; y<2; y++){
    if( m[y] && n[y] ) memmove(s->a[y] + (size_t)m[y]*w, s->a[y], (size_t)n[y]*w);
    src[y] = s->a[y] ? s->a[y] + (size_t)m[y]*w : 0;   /* no array: no rows of this class */
    dst[y] = s->a[y];
  }
  while( ml_merger_next(&mg, &e) ){
    memcpy(rec, &e.key, 8);
    if( w==16 ){ double z = ml_double_of_zkey(e.zkey); memcpy(rec+8, &z, 8); }
    for(y=0; y<2; y++){
      if( e.n[y]==0 ) continue;
      while( i[y]<n[y] ){
        ml_key kk; memcpy(&kk, src[y], 8);
        if( kk > e.key ) break;
        if( dst[y]!=src[y] ) memcpy(dst[y], src[y], w);
        dst[y] += w; src[y] += w; i[y]++;
      }
      dst[y] = put_copies(dst[y], rec, w, e.n[y], &done);
      if( dst[y]==0 ){ ml_merger_free(&mg); return ML_STOPPED; }
    }
  }
  ml_merger_free(&mg);
  /* the held records after the last entry are in place already */
  s->n[0] = n[0] + m[0];
  s->n[1] = n[1] + m[1];
  return ML_OK;
}

/* Removes class y's rows of the section from sorted array y, in one pass.
** Width 16: a block of equal keys is sorted by stratifier when first met
** (the order inside a block is free), so the entries, in (key, strat)
** order, meet its records in order. */
static void remove_class(MlSamples *s, const MlSection *sec, int y){
  unsigned w = s->width;
  ml_i64 n = s->n[y], i = 0, out = 0;
  unsigned char *a = s->a[y];
  MlReader r;
  MlEntry e;
  ml_key blockKey = 0;
  int haveBlock = 0;
  ml_reader_init(&r, sec);
  while( ml_reader_next(&r, &e) ){
    ml_i64 need = e.n[y];
    if( need==0 ) continue;
    while( i<n ){
      ml_key k = ml_samples_key(s, y, i);
      int drop;
      if( k<e.key ) drop = 0;
      else if( k>e.key ) break;
      else if( w==8 ){
        if( need==0 ) break;
        drop = 1;
      }else{
        ml_key z;
        if( !haveBlock || blockKey!=k ){
          ml_i64 j = i;
          while( j<n && ml_samples_key(s, y, j)==k ) j++;
          qsort(a + (size_t)i*w, (size_t)(j-i), w, ml_cmp_zkey16);
          blockKey = k; haveBlock = 1;
        }
        z = ml_zkey_of(ml_samples_aux(s, y, i));
        if( z<e.zkey ) drop = 0;
        else if( z>e.zkey || need==0 ) break;
        else drop = 1;
      }
      if( drop ){ need--; i++; continue; }
      if( out!=i ) memcpy(a + (size_t)out*w, a + (size_t)i*w, w);
      out++; i++;
    }
  }
  if( out!=i ) memmove(a + (size_t)out*w, a + (size_t)i*w, (size_t)(n-i)*w);
  s->n[y] = out + (n - i);
}

int ml_samples_absorb(MlSamples *s, const MlSection *const *secs, int k, int sign, char *zErr, int nErr){
  int y, j, rc;
  if( s->run ) return ml_samples_absorb_counts(s, secs, k, sign, zErr, nErr);
  if( ml_samples_sort(s) ) return ML_NOMEM;
  if( sign<0 ){
    for(j=0; j<k; j++) for(y=0; y<2; y++) remove_class(s, secs[j], y);
    return ML_OK;
  }
  if( (rc = absorb_runs(s, secs, k, zErr, nErr))!=ML_OK ) return rc;
  s->sorted = 1;
  return ML_OK;
}

/* ----------------------------------------------------- absorb counted */

/* Room in both class arrays for per records of each of nEntry entries
** (the absorbs below write at most that many per class): ML_OK, ML_NOMEM,
** or ML_ERROR past one SQLite allocation, the text in entries. */
static int reserve_records(MlSamples *s, ml_i64 nEntry, int per, char *zErr, int nErr){
  int y;
  for(y=0; y<2; y++){
    ml_i64 need = s->n[y] + per*nEntry;
    if( (uint64_t)need * s->width > 0x7fffff00u ){    /* SQLite allocates no more */
      return ml_state_bad(zErr, nErr, "the states hold %lld entries of one class: this function holds"
                 " at most %lld", (long long)need/per, (long long)(0x7fffff00u / (s->width*per)));
    }
    if( need > s->cap[y] ){
      unsigned char *a = ml_realloc(s->a[y], (uint64_t)need * s->width);
      if( a==0 ) return ML_NOMEM;
      s->a[y] = a;
      s->cap[y] = need;
    }
  }
  return ML_OK;
}

/* Counted records by (stratifier key, count): a key block's order (width
** 24; width 16 records compare by count alone). */
static int cmp_counted24(const void *a, const void *b){
  const MlRec24 *x = a, *y = b;
  ml_key zx = ml_zkey_of(x->aux2), zy = ml_zkey_of(y->aux2);
  if( zx!=zy ) return zx<zy ? -1 : 1;
  return x->aux<y->aux ? -1 : x->aux>y->aux;
}
static int cmp_counted16(const void *a, const void *b){
  const MlRec16 *x = a, *y = b;
  return x->aux<y->aux ? -1 : x->aux>y->aux;
}

/* Removes from sorted array y one counted record (key, count [, strat])
** for each of the section's entries with class-y rows, in one pass: a
** block of equal keys is ordered by ([strat,] count) when first met, so the
** entries, in (key, strat) order, meet its records in order (width 16: the
** entries of one key, a stratified state's, come in any count order, so
** the block is searched). */
static void remove_counted(MlSamples *s, const MlSection *sec, int y, ml_i64 held[2]){
  const unsigned w = s->width;
  ml_i64 n = s->n[y], i = 0, out = 0, blockEnd = 0;
  unsigned char *a = s->a[y];
  MlReader r;
  MlEntry e;
  ml_reader_init(&r, sec);
#define REC_KEY(i) ml_samples_key(s, y, (i))
#define REC_CNT(i) ml_samples_aux(s, y, (i))
  while( ml_reader_next(&r, &e) ){
    double c = (double)e.n[y];
    ml_key zk = ml_zkey_of(ml_double_of_zkey(e.zkey));
    if( e.n[y]==0 ) continue;
    while( i<n ){
      int drop;
      if( REC_KEY(i)<e.key ) drop = 0;
      else if( REC_KEY(i)>e.key ) break;
      else{
        if( i>=blockEnd ){
          blockEnd = i;
          while( blockEnd<n && REC_KEY(blockEnd)==REC_KEY(i) ) blockEnd++;
          qsort(a + (size_t)i*w, (size_t)(blockEnd - i), w, w==24 ? cmp_counted24 : cmp_counted16);
        }
        if( w==16 ){
          /* the block's record of count c, swapped to its front */
          ml_i64 j = i;
          while( j<blockEnd && REC_CNT(j)!=c ) j++;
          if( j>=blockEnd ) break;
          if( j!=i ){ MlRec16 t = ((MlRec16*)a)[i]; ((MlRec16*)a)[i] = ((MlRec16*)a)[j]; ((MlRec16*)a)[j] = t; }
          drop = 1;
        }else{
          ml_key ak = ml_zkey_of(((MlRec24*)a)[i].aux2);
          if( ak<zk || (ak==zk && REC_CNT(i)<c) ) drop = 0;
          else if( ak==zk && REC_CNT(i)==c ) drop = 1;
          else break;
        }
      }
      if( drop ){ held[y] -= e.n[y]; i++; break; }
      if( out!=i ) memcpy(a + (size_t)out*w, a + (size_t)i*w, w);
      out++; i++;
    }
  }
#undef REC_KEY
#undef REC_CNT
  if( out!=i ) memmove(a + (size_t)out*w, a + (size_t)i*w, (size_t)(n-i)*w);
  s->n[y] = out + (n - i);
}

int ml_samples_absorb_counted(MlSamples *s, ml_i64 held[2], const MlSection *const *secs, int k, int sign,
                              char *zErr, int nErr){
  ml_i64 want[2], nEntry = 0;
  int j, y, rc;
  if( sign<0 ){
    if( ml_samples_sort(s) ) return ML_NOMEM;
    for(j=0; j<k; j++) for(y=0; y<2; y++) remove_counted(s, secs[j], y, held);
    return ML_OK;
  }
  want[0] = held[0]; want[1] = held[1];
  if( ml_state_add_counts(want, secs, k, zErr, nErr) ) return ML_ERROR;
  for(j=0; j<k; j++) nEntry += secs[j]->nEntry;
  if( (rc = reserve_records(s, nEntry, 1, zErr, nErr))!=ML_OK ) return rc;
  for(j=0; j<k; j++){
    MlReader r;
    MlEntry e;
    ml_reader_init(&r, secs[j]);
    while( ml_reader_next(&r, &e) ){
      double z = ml_double_of_zkey(e.zkey);
      for(y=0; y<2; y++){
        MlRec24 o;
        if( e.n[y]==0 ) continue;
        o.key = e.key;
        o.aux = (double)e.n[y];
        o.aux2 = z;
        memcpy(s->a[y] + (size_t)(s->n[y]++)*s->width, &o, s->width);
      }
    }
  }
  if( nEntry ) s->sorted = 0;
  held[0] = want[0]; held[1] = want[1];
  return ML_OK;
}

/* ---------------------------------------------------- absorb weighted */

/* The records of one entry's class-y rows: c rows of weight w weigh c w,
** written as hi = fl(c w) and, when that rounds, lo = c w - hi (exact by
** fma: c < 2^53 and w are doubles).  Returns how many (1 or 2). */
int ml_count_weight(ml_i64 c, double w, double part[2]){
  part[0] = (double)c * w;
  part[1] = fma((double)c, w, -part[0]);
  return part[1]==0.0 ? 1 : 2;
}

static int weighted_records(ml_key key, ml_i64 c, double w, MlRec16 *out){
  double part[2];
  int k = ml_count_weight(c, w, part), i;
  for(i=0; i<k; i++){ out[i].key = key; out[i].aux = part[i]; }
  return k;
}

/* Records by (key, the weight's bits): the order a removal pass walks. */
static int cmp_wrec(const void *a, const void *b){
  const MlRec16 *x = a, *y = b;
  uint64_t u, v;
  if( x->key!=y->key ) return x->key<y->key ? -1 : 1;
  memcpy(&u, &x->aux, 8); memcpy(&v, &y->aux, 8);
  return u<v ? -1 : u>v;
}

int ml_samples_absorb_weighted(MlSamples *s, ml_i64 held[2], const MlSection *sec, int weighted, int sign,
                               char *zErr, int nErr){
  MlReader r;
  MlEntry e;
  int y;
  if( sign>0 ){
    ml_i64 want[2] = {held[0], held[1]};
    int rc;
    if( ml_state_add_counts(want, &sec, 1, zErr, nErr) ) return ML_ERROR;
    if( (rc = reserve_records(s, sec->nEntry, 2, zErr, nErr))!=ML_OK ) return rc;
    ml_reader_init(&r, sec);
    while( ml_reader_next(&r, &e) ){
      double w = weighted ? ml_double_of_zkey(e.zkey) : 1.0;
      for(y=0; y<2; y++){
        MlRec16 o[2];
        int k;
        if( e.n[y]==0 ) continue;
        k = weighted_records(e.key, e.n[y], w, o);
        memcpy(s->a[y] + (size_t)s->n[y]*16, o, (size_t)k*16);
        s->n[y] += k;
      }
    }
    if( sec->nEntry ) s->sorted = 0;
    held[0] = want[0]; held[1] = want[1];
    return ML_OK;
  }
  /* Removal: the section's records and the buffer's, both ordered by (key,
  ** weight bits), walked together; each of the section's records must be
  ** there. */
  for(y=0; y<2; y++){
    MlRec16 *del, *a = (MlRec16*)s->a[y];
    ml_i64 nDel = 0, i, j = 0, out = 0, rows = 0;
    del = ml_malloc(sizeof(MlRec16) * (uint64_t)(2*sec->nEntry + 1));
    if( del==0 ) return ML_NOMEM;
    ml_reader_init(&r, sec);
    while( ml_reader_next(&r, &e) ){
      if( e.n[y]==0 ) continue;
      nDel += weighted_records(e.key, e.n[y], weighted ? ml_double_of_zkey(e.zkey) : 1.0, del + nDel);
      rows += e.n[y];
    }
    if( nDel>1 ) qsort(del, (size_t)nDel, 16, cmp_wrec);
    if( s->n[y]>1 ) qsort(a, (size_t)s->n[y], 16, cmp_wrec);
    for(i=0; i<s->n[y]; i++){
      if( j<nDel && cmp_wrec(&a[i], &del[j])==0 ){ j++; continue; }
      a[out++] = a[i];
    }
    ml_free(del);
    if( j<nDel ) return ml_state_bad(zErr, nErr, "the state removed holds rows the merged states do not");
    s->n[y] = out;
    held[y] -= rows;
  }
  s->sorted = 1;                  /* the pass ordered each array by key */
  return ML_OK;
}

/* -------------------------------------------------------- absorb counts */

/* Adds k sections' entries to a buffer in runs form: the held runs move to
** the end of the array, then one forward merge with the k-way merger writes
** from the front (the write position never passes the read position:
** every run written consumed a held run or an entry).  Entries with equal
** scores (a stratified state's (score, strat) pairs) add to one run. */
static int absorb_counts_add(MlSamples *s, const MlSection *const *secs, int k, char *zErr, int nErr){
  ml_i64 held[2], nEntry = 0, nHeld, i = 0, out = 0, t;
  MlRun *src;
  MlMerger mg;
  MlEntry e;
  int j;
  held[0] = s->n[0]; held[1] = s->n[1];
  if( ml_state_add_counts(held, secs, k, zErr, nErr) ) return ML_ERROR;
  for(j=0; j<k; j++) nEntry += secs[j]->nEntry;
  t = (s->run ? s->nRun : 0) + nEntry;
  if( (uint64_t)t * sizeof(MlRun) > 0x7fffff00u ){       /* SQLite allocates no more */
    return ml_state_bad(zErr, nErr, "the states hold %lld distinct scores: this function holds at most %lld",
               (long long)t, (long long)(0x7fffff00u / sizeof(MlRun)));
  }
  if( ml_samples_to_runs(s, nEntry) ) return ML_NOMEM;
  if( ml_merger_init(&mg, secs, k, 0) ) return ML_NOMEM;
  nHeld = s->nRun;
  src = s->run + nEntry;
  if( nHeld ) memmove(src, s->run, sizeof(MlRun) * (size_t)nHeld);
  while( ml_merger_next(&mg, &e) ){
    MlRun *r;
    while( i<nHeld && src[i].key<e.key ) s->run[out++] = src[i++];
    if( out>0 && s->run[out-1].key==e.key ) r = &s->run[out-1];
    else if( i<nHeld && src[i].key==e.key ){ s->run[out] = src[i++]; r = &s->run[out++]; }
    else{ r = &s->run[out++]; r->key = e.key; r->n[0] = r->n[1] = 0; }
    r->n[0] += e.n[0];
    r->n[1] += e.n[1];
  }
  ml_merger_free(&mg);
  while( i<nHeld ) s->run[out++] = src[i++];
  s->nRun = out;
  s->n[0] = held[0]; s->n[1] = held[1];
  return ML_OK;
}

/* Removes a section's entries from a buffer in runs form, in one pass
** (both ascend); a run left with no rows is dropped.  A count beyond the
** run's (never, for what a window frame added) takes what is there. */
static void absorb_counts_remove(MlSamples *s, const MlSection *sec){
  MlReader r;
  MlEntry e;
  ml_i64 i = 0, out = 0, n = s->nRun;
  int y;
  ml_reader_init(&r, sec);
  while( ml_reader_next(&r, &e) ){
    while( i<n && s->run[i].key<e.key ){
      if( out!=i ) s->run[out] = s->run[i];
      out++; i++;
    }
    if( i>=n ) break;
    if( s->run[i].key!=e.key ) continue;
    for(y=0; y<2; y++){
      ml_i64 c = e.n[y] < s->run[i].n[y] ? e.n[y] : s->run[i].n[y];
      s->run[i].n[y] -= c;
      s->n[y] -= c;
    }
    /* a stratified section may hold more entries of this key: the run
    ** stays current until they pass, and is dropped once empty then */
    if( s->run[i].n[0]==0 && s->run[i].n[1]==0 ) i++;
  }
  while( i<n ){
    if( out!=i ) s->run[out] = s->run[i];
    out++; i++;
  }
  s->nRun = out;
}

int ml_samples_absorb_counts(MlSamples *s, const MlSection *const *secs, int k, int sign,
                             char *zErr, int nErr){
  int j;
  if( s->width!=8 ) return ml_samples_absorb(s, secs, k, sign, zErr, nErr);
  if( sign>0 ) return absorb_counts_add(s, secs, k, zErr, nErr);
  if( s->run==0 && ml_samples_to_runs(s, 0) ) return ML_NOMEM;
  for(j=0; j<k; j++) absorb_counts_remove(s, secs[j]);
  return ML_OK;
}

/* ------------------------------------------------ the families' absorbs */

/* ml_absorb_section, _counts and _counted: mode picks the absorb (0 rows,
** 1 counted runs, 2 counted records with held). */
static int absorb_section(MlSamples *smp, ml_i64 *held, const MlState *st, int n, int iSec, int sign, int mode,
                          char *zErr, int nErr){
  const MlSection *one[1] = {0}, **secs = one;
  int j, rc;
  if( n>1 ){
    secs = ml_malloc(sizeof(*secs) * (uint64_t)n);
    if( secs==0 ){ ml_samples_clear(smp); return ML_NOMEM; }
  }
  for(j=0; j<n; j++) secs[j] = &st[j].sec[iSec];
  rc = mode==1 ? ml_samples_absorb_counts(smp, secs, n, sign, zErr, nErr)
     : mode==2 ? ml_samples_absorb_counted(smp, held, secs, n, sign, zErr, nErr)
     : ml_samples_absorb(smp, secs, n, sign, zErr, nErr);
  if( secs!=one ) ml_free(secs);
  if( rc ) ml_samples_clear(smp);
  return rc;
}

int ml_absorb_section(MlSamples *smp, const MlState *st, int n, int iSec, int sign, char *zErr, int nErr){
  return absorb_section(smp, 0, st, n, iSec, sign, 0, zErr, nErr);
}

int ml_absorb_section_counts(MlSamples *smp, const MlState *st, int n, int iSec, int sign,
                             char *zErr, int nErr){
  return absorb_section(smp, 0, st, n, iSec, sign, 1, zErr, nErr);
}

int ml_samples_counted_begin(MlSamples *smp, int *counted, ml_i64 held[2]){
  if( *counted ) return ML_OK;
  if( ml_samples_widen(smp, 1.0) ) return ML_NOMEM;
  held[0] = smp->n[0];
  held[1] = smp->n[1];
  *counted = 1;
  return ML_OK;
}

int ml_absorb_section_counted(MlSamples *smp, int *counted, ml_i64 held[2], const MlState *st, int n, int iSec,
                              int sign, char *zErr, int nErr){
  if( ml_samples_counted_begin(smp, counted, held) ) return ML_NOMEM;
  return absorb_section(smp, held, st, n, iSec, sign, 2, zErr, nErr);
}

int ml_absorb_weighted(MlSamples *smp, ml_i64 held[2], const MlState *st, int n, int sign, char *zErr, int nErr){
  int j, rc = ML_OK;
  /* Each state's own records, so that a window can remove them.  (Merging
  ** equal (score, weight) entries across states first costs a heap merge
  ** more than the records it saves: measured, bench/RESULTS.md.) */
  for(j=0; j<n && rc==ML_OK; j++){
    rc = ml_samples_absorb_weighted(smp, held, &st[j].sec[0], st[j].kind==ML_STATE_WEIGHTED, sign, zErr, nErr);
  }
  if( rc ) ml_samples_clear(smp);
  return rc;
}

int ml_states_weighted(const MlState *st, int n){
  int j;
  for(j=0; j<n; j++) if( st[j].kind==ML_STATE_WEIGHTED ) return 1;
  return 0;
}

int ml_state_rows(const MlState *st, int n, int iSec, ml_i64 held[2], char *zErr, int nErr){
  const MlSection *one[1] = {0}, **secs = one;
  int j, rc;
  if( n>1 ){
    secs = ml_malloc(sizeof(*secs) * (uint64_t)n);
    if( secs==0 ) return ML_NOMEM;
  }
  for(j=0; j<n; j++) secs[j] = &st[j].sec[iSec];
  rc = ml_state_add_counts(held, secs, n, zErr, nErr);
  if( secs!=one ) ml_free(secs);
  return rc;
}
