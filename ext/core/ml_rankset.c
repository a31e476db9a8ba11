/*
** SPDX-License-Identifier: MIT
**
** ml_rankset.c -- a counted multiset of keys: rank queries in O(log n).
**
** Provides: ml_rankset_* (insert, remove, count below / at or below a key,
** bulk build from a sorted array).  Caller: ranking.c, which keeps auroc's
** Mann-Whitney count over a window frame with it: a row entering or leaving
** changes the count by the rows of the other class below / above it (ties
** 1/2), two rank queries.
**
** Rules:
**   1. Keys are ml_key (ml_key_of: -0.0 is +0.0, +-Inf are ordinary keys);
**      duplicates are kept, each counted.
**   2. The keys live in sorted blocks of at most ML_RS_MAX keys (a B-tree of
**      height two), with a Fenwick tree over the blocks' sizes: a rank query
**      is a binary search over the blocks, a Fenwick prefix and a binary
**      search inside one block.
**   3. A block that fills up splits in two; a block that falls under
**      ML_RS_MIN keys is merged into a neighbour when the two fit in one; an
**      empty block is freed.  Blocks shrink their allocation when less than
**      two thirds full.
**   4. Out of memory leaves the set as it was and returns ML_NOMEM.
**
** Cost: insert and remove O(log n + ML_RS_MAX) (the memmove inside a block,
** at most 4 KiB), plus O(n / ML_RS_MAX) for the Fenwick rebuild when a block
** splits or goes away, which happens at most once every ML_RS_MIN operations;
** rank queries O(log n).  Memory: about 8 to 13 bytes per key.
*/
#include "ml_core.h"

#define ML_RS_MAX 512
#define ML_RS_MIN 64

void ml_rankset_init(MlRankSet *r){ memset(r, 0, sizeof(*r)); }

void ml_rankset_clear(MlRankSet *r){
  ml_i64 i;
  for(i=0; i<r->nBlk; i++) ml_free(r->b[i].k);
  ml_free(r->b);
  ml_free(r->fen);
  ml_rankset_init(r);
}

/* Fenwick tree over the block sizes, rebuilt after the blocks change. */
static void fen_rebuild(MlRankSet *r){
  ml_i64 i;
  for(i=1; i<=r->nBlk; i++) r->fen[i] = r->b[i-1].n;
  for(i=1; i<=r->nBlk; i++){
    ml_i64 j = i + (i & -i);
    if( j<=r->nBlk ) r->fen[j] += r->fen[i];
  }
}
static void fen_add(MlRankSet *r, ml_i64 blk, ml_i64 d){
  ml_i64 i;
  for(i=blk+1; i<=r->nBlk; i += i & -i) r->fen[i] += d;
}
/* Keys in blocks 0..blk-1. */
static ml_i64 fen_prefix(const MlRankSet *r, ml_i64 blk){
  ml_i64 s = 0, i;
  for(i=blk; i>0; i -= i & -i) s += r->fen[i];
  return s;
}

/* Room for one more block header (and Fenwick slot). */
static int reserve_blocks(MlRankSet *r){
  if( r->nBlk>=r->capBlk ){
    ml_i64 nNew = r->capBlk ? r->capBlk*2 : 4;
    MlRsBlock *b = ml_realloc(r->b, (uint64_t)nNew*sizeof(MlRsBlock));
    ml_i64 *f;
    if( b==0 ) return ML_NOMEM;
    r->b = b;
    f = ml_realloc(r->fen, (uint64_t)(nNew+1)*sizeof(ml_i64));
    if( f==0 ) return ML_NOMEM;     /* b grew, which is harmless */
    r->fen = f;
    r->capBlk = nNew;
  }
  return ML_OK;
}

/* First block whose last key is >= k (upper 0) or > k (upper 1); nBlk if none. */
static ml_i64 find_block(const MlRankSet *r, ml_key k, int upper){
  ml_i64 lo = 0, hi = r->nBlk;
  while( lo<hi ){
    ml_i64 mid = lo + (hi-lo)/2;
    ml_key last = r->b[mid].k[r->b[mid].n-1];
    if( last<k || (upper && last==k) ) lo = mid+1; else hi = mid;
  }
  return lo;
}

/* First index in a[0..n) whose key is >= k (upper 0) or > k (upper 1). */
static int bound(const ml_key *a, int n, ml_key k, int upper){
  int lo = 0, hi = n;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( a[mid]<k || (upper && a[mid]==k) ) lo = mid+1; else hi = mid;
  }
  return lo;
}

static ml_i64 count_below(const MlRankSet *r, ml_key k, int upper){
  ml_i64 i = find_block(r, k, upper);
  if( i>=r->nBlk ) return r->n;
  return fen_prefix(r, i) + bound(r->b[i].k, r->b[i].n, k, upper);
}
ml_i64 ml_rankset_less(const MlRankSet *r, ml_key k){ return count_below(r, k, 0); }

void ml_rankset_count(const MlRankSet *r, ml_key k, ml_i64 *lt, ml_i64 *le){
  ml_i64 i = find_block(r, k, 0), pre;
  const MlRsBlock *b;
  if( i>=r->nBlk ){ *lt = *le = r->n; return; }
  b = &r->b[i];
  pre = fen_prefix(r, i);
  *lt = pre + bound(b->k, b->n, k, 0);
  /* the keys equal to k usually end inside this block: one search, no
  ** second walk down the blocks */
  *le = b->k[b->n-1]>k ? pre + bound(b->k, b->n, k, 1) : count_below(r, k, 1);
}
ml_i64 ml_rankset_le(const MlRankSet *r, ml_key k){ return count_below(r, k, 1); }

/* Splits full block i into two halves (the upper half becomes block i+1). */
static int split_block(MlRankSet *r, ml_i64 i){
  int half = r->b[i].n/2, cap = ML_RS_MAX*3/4;
  ml_key *hi = ml_malloc((uint64_t)cap*sizeof(ml_key));
  if( hi==0 ) return ML_NOMEM;
  if( reserve_blocks(r) ){ ml_free(hi); return ML_NOMEM; }
  memcpy(hi, r->b[i].k + half, (size_t)(r->b[i].n-half)*sizeof(ml_key));
  memmove(&r->b[i+2], &r->b[i+1], (size_t)(r->nBlk-i-1)*sizeof(MlRsBlock));
  r->b[i+1].k = hi;
  r->b[i+1].n = r->b[i].n - half;
  r->b[i+1].cap = cap;
  r->b[i].n = half;
  r->nBlk++;
  fen_rebuild(r);
  return ML_OK;
}

int ml_rankset_insert(MlRankSet *r, ml_key k){
  ml_i64 i;
  MlRsBlock *b;
  int at;
  if( r->nBlk==0 ){
    ml_key *a = ml_malloc(16*sizeof(ml_key));
    if( a==0 ) return ML_NOMEM;
    if( reserve_blocks(r) ){ ml_free(a); return ML_NOMEM; }
    r->b[0].k = a; r->b[0].n = 0; r->b[0].cap = 16;
    r->nBlk = 1;
    r->fen[1] = 0;
  }
  i = find_block(r, k, 1);
  if( i>=r->nBlk ) i = r->nBlk-1;          /* above every key: the last block */
  if( r->b[i].n>=r->b[i].cap ){
    if( r->b[i].cap<ML_RS_MAX ){
      int cap = r->b[i].cap + r->b[i].cap/2;
      ml_key *a;
      if( cap>ML_RS_MAX ) cap = ML_RS_MAX;
      a = ml_realloc(r->b[i].k, (uint64_t)cap*sizeof(ml_key));
      if( a==0 ) return ML_NOMEM;
      r->b[i].k = a; r->b[i].cap = cap;
    }else{
      if( split_block(r, i) ) return ML_NOMEM;
      if( k>=r->b[i+1].k[0] ) i++;          /* goes to the upper half */
    }
  }
  b = &r->b[i];
  at = bound(b->k, b->n, k, 1);
  memmove(b->k + at + 1, b->k + at, (size_t)(b->n-at)*sizeof(ml_key));
  b->k[at] = k;
  b->n++;
  r->n++;
  fen_add(r, i, 1);
  return ML_OK;
}

/* Drops block i (its keys have moved or it is empty). */
static void drop_block(MlRankSet *r, ml_i64 i){
  ml_free(r->b[i].k);
  memmove(&r->b[i], &r->b[i+1], (size_t)(r->nBlk-i-1)*sizeof(MlRsBlock));
  r->nBlk--;
  fen_rebuild(r);
}

/* Block i has fallen under ML_RS_MIN keys: merge it into a neighbour when
** the two fit in one block (best effort: without memory it stays as is). */
static void maybe_merge(MlRankSet *r, ml_i64 i){
  ml_i64 lo;
  int n;
  ml_key *a;
  if( i>0 && (i+1>=r->nBlk || r->b[i-1].n<=r->b[i+1].n) ) lo = i-1;
  else if( i+1<r->nBlk ) lo = i;
  else return;
  n = r->b[lo].n + r->b[lo+1].n;
  if( n>ML_RS_MAX ) return;
  if( n>r->b[lo].cap ){
    a = ml_realloc(r->b[lo].k, (uint64_t)n*sizeof(ml_key));
    if( a==0 ) return;
    r->b[lo].k = a; r->b[lo].cap = n;
  }
  memcpy(r->b[lo].k + r->b[lo].n, r->b[lo+1].k, (size_t)r->b[lo+1].n*sizeof(ml_key));
  r->b[lo].n = n;
  drop_block(r, lo+1);
}

int ml_rankset_remove(MlRankSet *r, ml_key k){
  ml_i64 i = find_block(r, k, 0);
  MlRsBlock *b;
  int at;
  if( i>=r->nBlk ) return 0;
  b = &r->b[i];
  at = bound(b->k, b->n, k, 0);
  if( at>=b->n || b->k[at]!=k ) return 0;
  memmove(b->k + at, b->k + at + 1, (size_t)(b->n-at-1)*sizeof(ml_key));
  b->n--;
  r->n--;
  fen_add(r, i, -1);
  if( b->n==0 ){
    drop_block(r, i);
  }else if( b->n<ML_RS_MIN ){
    maybe_merge(r, i);
  }else if( b->n*3 < b->cap*2 ){
    int cap = b->n + b->n/4;
    ml_key *a = ml_realloc(b->k, (uint64_t)cap*sizeof(ml_key));
    if( a ){ b->k = a; b->cap = cap; }     /* without memory it stays larger */
  }
  return 1;
}

int ml_rankset_build(MlRankSet *r, const ml_key *a, ml_i64 n, unsigned stride){
  ml_i64 nBlk = (n + ML_RS_MAX/2 - 1)/(ML_RS_MAX/2), i, j;
  ml_rankset_clear(r);
  if( n==0 ) return ML_OK;
  r->b = ml_malloc((uint64_t)nBlk*sizeof(MlRsBlock));
  r->fen = ml_malloc((uint64_t)(nBlk+1)*sizeof(ml_i64));
  if( r->b==0 || r->fen==0 ){ ml_rankset_clear(r); return ML_NOMEM; }
  r->capBlk = nBlk;
  for(i=0; i<nBlk; i++){
    ml_i64 lo = i*(ML_RS_MAX/2), hi = lo + ML_RS_MAX/2 < n ? lo + ML_RS_MAX/2 : n;
    int cap = (int)(hi-lo) + ML_RS_MAX/4;
    ml_key *k = ml_malloc((uint64_t)cap*sizeof(ml_key));
    if( k==0 ){ ml_rankset_clear(r); return ML_NOMEM; }
    for(j=lo; j<hi; j++) k[j-lo] = a[(size_t)j*stride];
    r->b[i].k = k; r->b[i].n = (int)(hi-lo); r->b[i].cap = cap;
    r->nBlk = i+1;
  }
  r->n = n;
  fen_rebuild(r);
  return ML_OK;
}
