/*
** SPDX-License-Identifier: MIT
**
** ml_state_mc.c -- the multiclass kinds of partial state (5 multiclass, 6
** multiclass weighted; the format in ml_state.h, "Multiclass entries"):
** reading and checking a section's entries, writing a state from rows,
** and merging states.
**
** Provides: ml_mc_reader_init, ml_mc_reader_next, ml_state_encode_mc (rows
** -> blob, a merge sort by (class, tuple)), and to the other state files
** ml_mc_verify_section (state_parse) and ml_mc_merge_states (a heap over
** the states' sections, for ml_state_merge, MlStateAcc and
** ml_state_kmerge).
**
** Rules:
**   1. Every value read is checked (a scaled integer in range, a raw key
**      of a finite double other than -0.0, a weight > 0, a count >= 1);
**      the tuples of a section ascend strictly, column by column.
**   2. Rows with equal (class, tuple [, weight]) are one entry with their
**      count; a weighted state keeps each row's weight, so rows come back
**      exactly.
**   3. Multiclass states merge only with multiclass states of the same k
**      (the message names both k); a merge with a weighted one is weighted.
**   4. Out of memory returns ML_NOMEM and leaks nothing.
**
** Cost: encode O(n log n) time and 16 bytes a row; merge O(entries k log
** states); validation O(size).
*/
#include <stdio.h>
#include "ml_state_impl.h"

/* ------------------------------------------------- multiclass entries */

void ml_mc_reader_init(MlMcReader *r, const MlSection *sec, int k, int weighted){
  memset(r, 0, sizeof(*r));
  r->sec = sec;
  r->p = sec->p;
  r->end = sec->p + sec->nByte;
  r->left = sec->nEntry;
  r->k = k;
  r->weighted = weighted;
}

/* A column value from its written integer under codec c: its key, checked
** (a scaled integer in range; a raw key of a finite double other than
** -0.0).  0 when bad. */
static int mc_value(int c, uint64_t u, ml_key *key){
  double x;
  if( c>0 ){
    if( !SCALED_OK(u) ) return 0;
    *key = codec_get(c, u, 0);
    return 1;
  }
  x = ml_double_of(u);
  if( !(x - x==0.0) || u==~TOP_BIT ) return 0;                 /* NaN, infinite, -0.0 */
  *key = u;
  return 1;
}

int ml_mc_reader_next(MlMcReader *r, MlMcEntry *e){
  const MlSection *s = r->sec;
  uint64_t v, u;
  int j;
  if( r->left<=0 ) return 0;
  for(j=0; j<=r->k; j++){
    int c = j<r->k ? s->codec[0] : s->codec[1];
    if( j==r->k ){
      if( !r->weighted ){ e->w = 0; break; }
      if( c==ML_CODEC_NONE ){ e->w = ml_key_of(1.0); break; }
    }
    if( !get_varint(&r->p, r->end, &v) ) return -1;
    if( j==0 ){
      u = r->prev[0] + v;
      if( u<r->prev[0] ) return -1;                            /* wrapped */
    }else{
      u = r->prev[j] + (uint64_t)((int64_t)(v>>1) ^ -(int64_t)(v & 1));
    }
    r->prev[j] = u;
    if( !mc_value(c, u, j<r->k ? &e->p[j] : &e->w) ) return -1;
    if( j==r->k && !(ml_double_of(e->w)>0.0) ) return -1;      /* a weight > 0 */
  }
  if( !get_varint(&r->p, r->end, &v) || v==0 || v>(uint64_t)ML_STATE_MAX_ROWS ) return -1;
  e->n = (ml_i64)v;
  r->left--;
  return 1;
}

/* -1, 0, 1 as tuple a is before, equal to, after tuple b. */
static int mc_entry_cmp(const MlMcEntry *a, const MlMcEntry *b, int k){
  int j;
  for(j=0; j<k; j++) if( a->p[j]!=b->p[j] ) return a->p[j]<b->p[j] ? -1 : 1;
  if( a->w!=b->w ) return a->w<b->w ? -1 : 1;
  return 0;
}

/* Walks a multiclass section: every entry, strictly ascending, counts
** summing to the section's rows, the bytes ending with the last entry. */
int ml_mc_verify_section(const MlSection *s, int k, int weighted, char *zErr, int nErr, int iSec){
  MlMcReader r;
  MlMcEntry e, last;
  ml_i64 i, sum = 0;
  int rc;
  ml_mc_reader_init(&r, s, k, weighted);
  for(i=0; i<s->nEntry; i++){
    rc = ml_mc_reader_next(&r, &e);
    if( rc<=0 ){
      return ml_state_bad(zErr, nErr, "the state is corrupted: bad entry %lld of section %d", (long long)i+1, iSec+1);
    }
    if( i>0 && mc_entry_cmp(&last, &e, k)>=0 ){
      return ml_state_bad(zErr, nErr, "the state is corrupted: entries of section %d are not in ascending order", iSec+1);
    }
    if( e.n > s->n[1] - sum ){
      return ml_state_bad(zErr, nErr, "the state is inconsistent: the counts of section %d overflow its totals", iSec+1);
    }
    sum += e.n;
    last = e;
  }
  if( r.p!=r.end ){
    return ml_state_bad(zErr, nErr, "the state is corrupted: %llu bytes after the last entry of section %d",
               (unsigned long long)(r.end - r.p), iSec+1);
  }
  if( sum!=s->n[1] ){
    return ml_state_bad(zErr, nErr, "the state is inconsistent: the entries of section %d do not sum to its totals", iSec+1);
  }
  return ML_OK;
}

/* ------------------------------------------ multiclass write and merge */

typedef struct McWriter {
  SecWriter sw;
  int k, weighted;
  uint64_t prev[ML_STATE_MAX_K+1];
} McWriter;

static int mw_begin(McWriter *w, MlBuf *b, int k, int weighted, int cs, int cw){
  memset(w, 0, sizeof(*w));
  w->k = k;
  w->weighted = weighted;
  return ml_sw_begin(&w->sw, b, cs, weighted ? cw : ML_CODEC_NONE);
}

/* Appends an entry; ML_NEED_RAW when a scaled codec does not fit. */
static int mw_put(McWriter *w, const MlMcEntry *e){
  uint64_t u[ML_STATE_MAX_K+1];
  int j, n = w->k + (w->weighted ? 1 : 0), rc;
  for(j=0; j<n; j++){
    rc = codec_put(j<w->k ? w->sw.codec[0] : w->sw.codec[1], j<w->k ? e->p[j] : e->w, &u[j]);
    if( rc ) return rc;
  }
  if( ml_buf_reserve(w->sw.b, 10*(uint64_t)(n + 1)) ) return ML_NOMEM;
  for(j=0; j<n; j++){
    if( j==0 ){
      put_varint(w->sw.b, u[0] - w->prev[0]);
    }else{
      int64_t d = (int64_t)(u[j] - w->prev[j]);
      put_varint(w->sw.b, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
    }
    w->prev[j] = u[j];
  }
  put_varint(w->sw.b, (uint64_t)e->n);
  w->sw.nEntry++;
  w->sw.n[1] += e->n;
  return ML_OK;
}

/* Rows i before j: by class, then the tuple (p_0, ..., p_k-1, w). */
typedef struct McSortCtx { const double *rows; int k, weighted; } McSortCtx;
static int mc_row_cmp(const McSortCtx *c, ml_i64 a, ml_i64 b){
  const double *ra = c->rows + (size_t)a*(c->k + 2), *rb = c->rows + (size_t)b*(c->k + 2);
  int j;
  if( ra[0]!=rb[0] ) return ra[0]<rb[0] ? -1 : 1;
  for(j=2; j<c->k + 2; j++){
    ml_key x = ml_key_of(ra[j]), y = ml_key_of(rb[j]);
    if( x!=y ) return x<y ? -1 : 1;
  }
  if( c->weighted && ra[1]!=rb[1] ) return ra[1]<rb[1] ? -1 : 1;
  return 0;
}

/* The entry of rows ix[at ..) equal to ix[at]: its tuple and count; the
** index after them. */
static ml_i64 mc_entry_at(const McSortCtx *cx, const ml_i64 *ix, ml_i64 at, ml_i64 n, MlMcEntry *e){
  const double *r = cx->rows + (size_t)ix[at]*(cx->k + 2);
  ml_i64 t = at + 1;
  int j;
  while( t<n && mc_row_cmp(cx, ix[at], ix[t])==0 ) t++;
  for(j=0; j<cx->k; j++) e->p[j] = ml_key_of(r[2 + j]);
  e->w = cx->weighted ? ml_key_of(r[1]) : 0;
  e->n = t - at;
  return t;
}

int ml_state_encode_mc(const double *rows, ml_i64 n, int k, int weighted, MlBuf *out){
  return ml_state_encode_tuples(rows, n, k, weighted ? ML_STATE_MC_W : ML_STATE_MC, out);
}

int ml_state_encode_tuples(const double *rows, ml_i64 n, int k, int kind, MlBuf *out){
  int weighted = ML_STATE_TUPLE_W(kind);
  McSortCtx cx;
  ml_i64 *ix, *tmp, w, i, lo;
  int c, rc = ML_OK;
  memset(out, 0, sizeof(*out));
  cx.rows = rows; cx.k = k; cx.weighted = weighted;
  ix = ml_malloc((uint64_t)n*2*sizeof(ml_i64) + 1);
  if( ix==0 ) return ML_NOMEM;
  tmp = ix + n;
  for(i=0; i<n; i++) ix[i] = i;
  for(w=1; w<n; w*=2){                              /* a bottom-up merge sort */
    for(i=0; i<n; i+=2*w){
      ml_i64 a = i, m = i+w<n ? i+w : n, b = m, e = i+2*w<n ? i+2*w : n, o = i;
      while( a<m || b<e ){
        if( b>=e || (a<m && mc_row_cmp(&cx, ix[a], ix[b])<=0) ) tmp[o++] = ix[a++];
        else tmp[o++] = ix[b++];
      }
    }
    memcpy(ix, tmp, (size_t)n*sizeof(ml_i64));
  }
  if( ml_state_begin(out, kind, k, k) ){ ml_free(ix); return ML_NOMEM; }
  for(c=0, lo=0; c<k && rc==ML_OK; c++){
    ml_i64 hi, at;
    McWriter mw;
    MlMcEntry e;
    int cs = 1, cw = 1, j, pass;
    uint64_t start = out->n;
    for(hi=lo; hi<n && rows[(size_t)ix[hi]*(k + 2)]==(double)c; hi++){}
    /* the codecs every value of the class fits, then the entries */
    for(at=lo; at<hi; ){
      at = mc_entry_at(&cx, ix, at, hi, &e);
      for(j=0; j<k && cs; j++) cs = ml_codec_widen(cs, e.p[j]);
      if( cw ) cw = ml_codec_widen(cw, e.w);
    }
    for(pass=0; pass<2; pass++){
      out->n = start;
      rc = mw_begin(&mw, out, k, weighted, pass ? 0 : cs, pass ? 0 : cw);
      for(at=lo; at<hi && rc==ML_OK; ){
        at = mc_entry_at(&cx, ix, at, hi, &e);
        rc = mw_put(&mw, &e);
      }
      if( rc!=ML_NEED_RAW ) break;                   /* (a scaled codec fits by construction) */
    }
    if( rc==ML_OK ) ml_sw_end(&mw.sw);
    lo = hi;
  }
  ml_free(ix);
  if( rc==ML_OK ) rc = ml_state_end(out);
  if( rc ) ml_buf_free(out);
  return rc;
}

/* Merges section i of ns states into out: a heap of readers, equal tuples
** adding their counts; subtract (ns = 2): the second state's rows are
** removed from the first's.  ML_NEED_RAW when a scaled codec does not fit. */
static int mc_merge_section(const MlState *st, int ns, int i, int k, int weighted, int subtract, int cs, int cw,
                            MlBuf *out, char *zErr, int nErr){
  MlMcReader *r;
  MlMcEntry *head;
  int *heap, nh = 0, j, rc = ML_OK;
  McWriter mw;
  r = ml_malloc((uint64_t)ns*(sizeof(*r) + sizeof(*head) + sizeof(int)));
  if( r==0 ) return ML_NOMEM;
  head = (MlMcEntry*)(r + ns);
  heap = (int*)(head + ns);
  if( mw_begin(&mw, out, k, weighted, cs, cw) ){ ml_free(r); return ML_NOMEM; }
  /* the heap: heap[0] is the reader whose head is least (ties: lower index) */
#define MC_LESS(a, b) (mc_entry_cmp(&head[a], &head[b], k)<0 \
                       || (mc_entry_cmp(&head[a], &head[b], k)==0 && (a)<(b)))
  for(j=0; j<ns; j++){
    ml_mc_reader_init(&r[j], &st[j].sec[i], k, weighted);
    if( ml_mc_reader_next(&r[j], &head[j])==1 ){
      int at = nh++;
      heap[at] = j;
      while( at>0 && MC_LESS(heap[at], heap[(at-1)/2]) ){
        int t = heap[at]; heap[at] = heap[(at-1)/2]; heap[(at-1)/2] = t; at = (at-1)/2;
      }
    }
  }
  while( nh>0 && rc==ML_OK ){
    MlMcEntry e = head[heap[0]];
    ml_i64 pos = 0, neg = 0;
    for(;;){
      int top = heap[0], at = 0;
      if( nh==0 || mc_entry_cmp(&head[top], &e, k)!=0 ) break;
      if( subtract && top==1 ) neg += head[top].n; else pos += head[top].n;
      if( ml_mc_reader_next(&r[top], &head[top])!=1 ) heap[0] = heap[--nh];
      for(;;){                                       /* sift down */
        int l = 2*at + 1, m = at;
        if( l<nh && MC_LESS(heap[l], heap[m]) ) m = l;
        if( l+1<nh && MC_LESS(heap[l+1], heap[m]) ) m = l+1;
        if( m==at ) break;
        j = heap[at]; heap[at] = heap[m]; heap[m] = j; at = m;
      }
    }
    if( neg>pos ){
      rc = ml_state_bad(zErr, nErr, "the state removed holds rows the merged states do not");
      break;
    }
    e.n = pos - neg;
    if( e.n>0 ) rc = mw_put(&mw, &e);
  }
#undef MC_LESS
  ml_free(r);
  if( rc==ML_OK ) ml_sw_end(&mw.sw);
  return rc;
}

/* ns multiclass states (validated, of one k) merged into one, or (subtract,
** ns = 2) the second's rows removed from the first. */
int ml_mc_merge_states(const MlState *st, int ns, int subtract, MlBuf *out, char *zErr, int nErr){
  int i, j, rc = ML_OK, k = st[0].m, weighted = 0, surv = ML_STATE_IS_SURV(st[0].kind);
  uint64_t tot = 0;
  memset(out, 0, sizeof(*out));
  for(j=0; j<ns; j++){
    if( !ML_STATE_IS_TUPLE(st[j].kind) || ML_STATE_IS_SURV(st[j].kind)!=surv || st[j].m!=k ){
      char b1[40], b2[40];
      if( ML_STATE_IS_MC(st[j].kind) && !surv ){
        return ml_state_bad(zErr, nErr, "multiclass states with different k in one group: k = %d and then k = %d",
                   k, st[j].m);
      }
      return ml_state_bad(zErr, nErr, "states of different kinds in one group: %s and then %s",
                 ml_state_kind_name(&st[0], b1, sizeof(b1)), ml_state_kind_name(&st[j], b2, sizeof(b2)));
    }
    if( ML_STATE_TUPLE_W(st[j].kind) ) weighted = 1;
    if( !subtract ) for(i=0; i<k; i++) tot += (uint64_t)st[j].sec[i].n[1];
  }
  if( tot > (uint64_t)ML_STATE_MAX_ROWS ){
    return ml_state_bad(zErr, nErr, "counts overflow: the merged state would hold more than 2^53 rows");
  }
  if( subtract && ML_STATE_TUPLE_W(st[1].kind) && !ML_STATE_TUPLE_W(st[0].kind) ){
    return ml_state_bad(zErr, nErr, "the state removed holds rows the merged states do not");
  }
  if( subtract ) weighted = ML_STATE_TUPLE_W(st[0].kind);
  if( ml_state_begin(out, surv ? (weighted ? ML_STATE_SURV_W : ML_STATE_SURV) : weighted ? ML_STATE_MC_W : ML_STATE_MC,
                     k, k) ) return ML_NOMEM;
  for(i=0; i<k && rc==ML_OK; i++){
    uint64_t at = out->n;
    int cs = st[0].sec[i].codec[0], cw = zcodec(&st[0].sec[i], weighted);
    for(j=1; j<ns; j++){
      cs = codec_join(cs, st[j].sec[i].codec[0]);
      cw = codec_join(cw, zcodec(&st[j].sec[i], weighted));
    }
    if( !weighted ) cw = ML_CODEC_NONE;
    rc = mc_merge_section(st, ns, i, k, weighted, subtract, cs, cw, out, zErr, nErr);
    if( rc==ML_NEED_RAW ){
      out->n = at;
      rc = mc_merge_section(st, ns, i, k, weighted, subtract, 0, 0, out, zErr, nErr);
    }
  }
  if( rc==ML_OK ) rc = ml_state_end(out);
  if( rc ) ml_buf_free(out);
  return rc;
}
