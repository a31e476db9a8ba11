/*
** SPDX-License-Identifier: MIT
**
** ml_state_merge.c -- merging partial states of the binary kinds (binary,
** stratified, ordinal, weighted): two at a time (ml_state_merge, sign -1
** subtracts), k at a time (a heap of readers, or counting for rounded
** scores: MlMerger), and a group's states collected and merged at once
** (MlStateAcc).  The multiclass kinds merge in ml_state_mc.c, which these
** entry points hand them to.
**
** Provides: ml_state_merge, ml_state_kmerge, ml_state_kinds_join,
** ml_state_add_counts, MlStateAcc (ml_acc_*), and to ml_state_absorb.c the
** MlMerger (ml_merger_init, _next, _free; ml_state_impl.h).
**
** Rules:
**   1. Merging never re-sorts: each merge is one pass over both runs,
**      repeated keys add their counts, so merging k daily states of
**      rounded scores stays as small as one day.
**   2. States merge only with states of a kind they join (the same kind,
**      binary with weighted, distribution with distribution weighted: the
**      result weighted) and of the same m;
**      the message names both kinds.
**   3. Every count sum goes through ml_state_add_counts: a merged state
**      holds at most 2^53 rows.  A subtraction of rows the state does not
**      hold is an error ("the state removed holds rows ...").
**   4. A merged column keeps the wider scale of its inputs; an entry that
**      does not fit it makes the section raw (written again).
**   5. Out of memory returns ML_NOMEM and leaks nothing.
**
** Cost: merge O(size of both); k states through MlStateAcc O(total log k)
** at most; k >= 3 sections of rounded scores whose integers span a range
** near their number of entries are count-merged in one pass (about 15
** instructions an entry), O(entries + range) time and 16 bytes a slot.
*/
#include <stdio.h>
#include "ml_state_impl.h"

/* ---------------------------------------------------------------- merge */

int ml_state_kinds_join(int a, int b){
  return a==b || (a==ML_STATE_BINARY && b==ML_STATE_WEIGHTED) || (a==ML_STATE_WEIGHTED && b==ML_STATE_BINARY)
      || (ML_STATE_IS_MC(a) && ML_STATE_IS_MC(b)) || (ML_STATE_IS_SURV(a) && ML_STATE_IS_SURV(b))
      || (ML_STATE_IS_DIST(a) && ML_STATE_IS_DIST(b));
}

/* The kind of a weighted merge of states of kind a: the weighted one of its pair. */
static int weighted_kind(int a){ return ML_STATE_IS_DIST(a) ? ML_STATE_DIST_W : ML_STATE_WEIGHTED; }

/* A binary section read as weighted weighs 1 (zcodec). */
static void reader_init_as(MlReader *r, const MlSection *sec, int weighted){
  ml_reader_init(r, sec);
  if( weighted && sec->codec[1]==ML_CODEC_NONE ) r->zNone = ml_zkey_of(1.0);
}

static inline int entry_cmp(const MlEntry *a, const MlEntry *b){
  if( a->key!=b->key ) return a->key<b->key ? -1 : 1;
  if( a->zkey!=b->zkey ) return a->zkey<b->zkey ? -1 : 1;
  return 0;
}

/* One merged section; ML_NEED_RAW when a scaled codec does not fit. */
static int merge_section(const MlSection *a, const MlSection *b, int sign, int c0, int c1, int weighted,
                         MlBuf *out, char *zErr, int nErr){
  MlReader ra, rb;
  MlEntry ea, eb, e;
  SecWriter w;
  int ha, hb, rc = ML_OK;
  if( ml_sw_begin(&w, out, c0, c1) ) return ML_NOMEM;
  reader_init_as(&ra, a, weighted); reader_init_as(&rb, b, weighted);
  ha = ml_reader_next(&ra, &ea); hb = ml_reader_next(&rb, &eb);
  while( rc==ML_OK && (ha || hb) ){
    int c = !ha ? 1 : !hb ? -1 : entry_cmp(&ea, &eb);
    if( c<0 ){ e = ea; ha = ml_reader_next(&ra, &ea); }
    else if( c>0 ){
      if( sign<0 ) return ml_state_bad(zErr, nErr, "the state removed holds rows the merged states do not");
      e = eb; hb = ml_reader_next(&rb, &eb);
    }else{
      e = ea;
      e.n[0] += sign*eb.n[0]; e.n[1] += sign*eb.n[1];
      if( e.n[0]<0 || e.n[1]<0 ) return ml_state_bad(zErr, nErr, "the state removed holds rows the merged states do not");
      ha = ml_reader_next(&ra, &ea); hb = ml_reader_next(&rb, &eb);
      if( e.n[0]+e.n[1]==0 ) continue;
    }
    rc = ml_sw_put(&w, &e);
  }
  if( rc ) return rc;
  ml_sw_end(&w);
  return ML_OK;
}



int ml_state_merge(const MlState *a, const MlState *b, int sign, MlBuf *out, char *zErr, int nErr){
  int i, rc, weighted = ML_STATE_IS_WLAYOUT(a->kind) || ML_STATE_IS_WLAYOUT(b->kind);
  memset(out, 0, sizeof(*out));
  if( ML_STATE_IS_TUPLE(a->kind) ){
    MlState *two = ml_malloc(2*sizeof(MlState));
    if( two==0 ) return ML_NOMEM;
    two[0] = *a; two[1] = *b;
    rc = ml_mc_merge_states(two, 2, sign<0, out, zErr, nErr);
    ml_free(two);
    return rc;
  }
  if( !ml_state_kinds_join(a->kind, b->kind) || a->m!=b->m ){
    char b1[32], b2[32];
    return ml_state_bad(zErr, nErr, "states of different kinds in one group: %s and then %s",
               ml_state_kind_name(a, b1, sizeof(b1)), ml_state_kind_name(b, b2, sizeof(b2)));
  }
  for(i=0; i<a->nSec; i++){
    if( sign>0 && (a->sec[i].n[0] + b->sec[i].n[0] > ML_STATE_MAX_ROWS
                || a->sec[i].n[1] + b->sec[i].n[1] > ML_STATE_MAX_ROWS
                || a->sec[i].n[0] + b->sec[i].n[0] + a->sec[i].n[1] + b->sec[i].n[1] > ML_STATE_MAX_ROWS) ){
      return ml_state_bad(zErr, nErr, "counts overflow: the merged state would hold more than 2^53 rows");
    }
  }
  if( ml_state_begin(out, weighted ? weighted_kind(a->kind) : a->kind, a->m, a->nSec) ) return ML_NOMEM;
  for(i=0; i<a->nSec; i++){
    const MlSection *sa = &a->sec[i], *sb = &b->sec[i];
    uint64_t at = out->n;
    int c0 = codec_join(sa->codec[0], sb->codec[0]), c1 = codec_join(zcodec(sa, weighted), zcodec(sb, weighted));
    rc = merge_section(sa, sb, sign, c0, c1, weighted, out, zErr, nErr);
    if( rc==ML_NEED_RAW ){
      out->n = at;
      rc = merge_section(sa, sb, sign, 0, c1==ML_CODEC_NONE ? c1 : 0, weighted, out, zErr, nErr);
    }
    if( rc ){ ml_buf_free(out); return rc; }
  }
  if( ml_state_end(out) ){ ml_buf_free(out); return ML_NOMEM; }
  return ML_OK;
}

/* --------------------------------------------------------- k-way merge */

static inline int merger_less(const MlMerger *m, int a, int b){
  return entry_cmp(&m->head[a], &m->head[b]) < 0;
}

static void merger_sift(MlMerger *m, int i){
  for(;;){
    int l = 2*i+1, r = l+1, s = i, t;
    if( l<m->nHeap && merger_less(m, m->heap[l], m->heap[s]) ) s = l;
    if( r<m->nHeap && merger_less(m, m->heap[r], m->heap[s]) ) s = r;
    if( s==i ) return;
    t = m->heap[i]; m->heap[i] = m->heap[s]; m->heap[s] = t;
    i = s;
  }
}

/* The integers of a scaled section, first and last (entries ascend). */
static void section_int_range(const MlSection *s, int64_t *first, int64_t *last){
  const unsigned char *p = s->p;
  uint64_t u = 0;
  ml_i64 i;
  if( s->hasLast ){                /* validation found the last one */
    *first = SCALED_INT(get_varint_fast(&p));
    *last = SCALED_INT(s->uLast);
    return;
  }
  for(i=0; i<s->nEntry; i++){
    u += get_varint_fast(&p);
    if( i==0 ) *first = SCALED_INT(u);
    get_varint_fast(&p); get_varint_fast(&p);
  }
  *last = SCALED_INT(u);
}

/* Tries the counting mode; ML_OK with m->cnt set, ML_OK without (not
** applicable), or ML_NOMEM. */
static int merger_counting(MlMerger *m, const MlSection *const *secs, int k){
  int64_t lo = 0, hi = 0;
  ml_i64 nEntry = 0;
  int j, scale = 0, any = 0;
  if( k<3 ) return ML_OK;
  for(j=0; j<k; j++){
    if( secs[j]->codec[0]==0 || secs[j]->codec[1]!=ML_CODEC_NONE ) return ML_OK;
    if( secs[j]->codec[0]-1 > scale ) scale = secs[j]->codec[0]-1;
    nEntry += secs[j]->nEntry;
  }
  for(j=0; j<k; j++){
    int64_t a = 0, b = 0, mul = 1;
    int d;
    if( secs[j]->nEntry==0 ) continue;
    for(d=secs[j]->codec[0]-1; d<scale; d++) mul *= 10;
    section_int_range(secs[j], &a, &b);
    /* Only below 2^48 at the common scale is (integer, correction) one
    ** double's only spelling, ordered as the doubles are (an ulp is under
    ** 1/16 of a step there): above it, nextafter(i / 10^d) may also be
    ** (i + 1) / 10^d, and a lower scale's (i, +1) would land in a slot
    ** apart from the same double written at the higher scale. */
    if( a <= -FAST_LIM/mul || b >= FAST_LIM/mul ) return ML_OK;
    a *= mul; b *= mul;
    if( !any || a<lo ) lo = a;
    if( !any || b>hi ) hi = b;
    any = 1;
  }
  if( !any || hi - lo >= 2*nEntry + 4096 ) return ML_OK;
  m->nSlot = ((hi - lo) << 2) + 4;            /* 4 slots per integer: the correction */
  m->cnt = ml_malloc(sizeof(m->cnt[0]) * (uint64_t)m->nSlot);
  if( m->cnt==0 ) return ML_NOMEM;
  memset(m->cnt, 0, sizeof(m->cnt[0]) * (size_t)m->nSlot);
  m->lo = lo;
  m->scale = scale;
  for(j=0; j<k; j++){
    /* locals: the counts' stores could alias anything reached through m or secs */
    ml_i64 (*cnt)[2] = m->cnt, i, ne = secs[j]->nEntry;
    const unsigned char *p = secs[j]->p, *end = p + secs[j]->nByte;
    uint64_t u = 0, dd, c0, c1;
    /* at the common scale (mul 1) the slot ((int - lo) << 2) | (u & 3) is u - bias */
    const uint64_t bias = ((uint64_t)(SCALED_OFF + lo)) << 2;
    int64_t mul = 1;
    int d;
    for(d=secs[j]->codec[0]-1; d<scale; d++) mul *= 10;
    for(i=0; i<ne; i++){
      ml_i64 *c;
      if( mul==1 && i>0 && ne - i >= 8 && end - p >= 24 && !top_bit_24(p) ){
        int k;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
        for(k=0; k<8; k++, p+=3){
          u += p[0];
          c = cnt[u - bias];
          c[0] += p[1];
          c[1] += p[2];
        }
        i += 7;
        continue;
      }
      if( get3_small(p, end, &dd, &c0, &c1) ){
        p += 3;
      }else{
        dd = get_varint_fast(&p);
        c0 = get_varint_fast(&p);
        c1 = get_varint_fast(&p);
      }
      u += dd;
      c = cnt[mul==1 ? (int64_t)(u - bias) : ((SCALED_INT(u)*mul - lo) << 2) | (int64_t)(u & 3)];
      c[0] += (ml_i64)c0;
      c[1] += (ml_i64)c1;
    }
  }
  return ML_OK;
}

int ml_merger_init(MlMerger *m, const MlSection *const *secs, int k, int weighted){
  int i;
  memset(m, 0, sizeof(*m));
  if( !weighted && merger_counting(m, secs, k) ) return ML_NOMEM;
  if( m->cnt ) return ML_OK;
  m->r = ml_malloc((sizeof(MlReader) + sizeof(MlEntry) + sizeof(int)) * (uint64_t)(k>0 ? k : 1));
  if( m->r==0 ) return ML_NOMEM;
  m->head = (MlEntry*)(m->r + k);
  m->heap = (int*)(m->head + k);
  m->k = k;
  for(i=0; i<k; i++){
    reader_init_as(&m->r[i], secs[i], weighted);
    if( ml_reader_next(&m->r[i], &m->head[i]) ) m->heap[m->nHeap++] = i;
  }
  for(i=m->nHeap/2-1; i>=0; i--) merger_sift(m, i);
  return ML_OK;
}

void ml_merger_free(MlMerger *m){ ml_free(m->r); m->r = 0; ml_free(m->cnt); m->cnt = 0; }

/* The next combined entry; 0 at the end. */
int ml_merger_next(MlMerger *m, MlEntry *e){
  int first = 1;
  if( m->cnt ){
    while( m->at < m->nSlot ){
      ml_i64 *c = m->cnt[m->at++];
      if( c[0]==0 && c[1]==0 ) continue;
      e->key = ml_key_of(scaled_double(m->lo + ((m->at - 1) >> 2), (int)((m->at - 1) & 3) - 1, m->scale));
      e->zkey = 0;
      e->n[0] = c[0]; e->n[1] = c[1];
      return 1;
    }
    return 0;
  }
  while( m->nHeap>0 ){
    int t = m->heap[0];
    if( first ){ *e = m->head[t]; first = 0; }
    else if( entry_cmp(&m->head[t], e)==0 ){ e->n[0] += m->head[t].n[0]; e->n[1] += m->head[t].n[1]; }
    else break;
    if( ml_reader_next(&m->r[t], &m->head[t]) ) merger_sift(m, 0);
    else{ m->heap[0] = m->heap[--m->nHeap]; merger_sift(m, 0); }
  }
  return !first;
}

/* One section merged from k; ML_NEED_RAW when a scaled codec does not fit. */
static int kmerge_section(const MlSection *const *secs, int k, int c0, int c1, int weighted, MlBuf *out){
  MlMerger m;
  MlEntry e;
  SecWriter w;
  int rc = ML_OK;
  if( ml_sw_begin(&w, out, c0, c1) ) return ML_NOMEM;
  if( ml_merger_init(&m, secs, k, weighted) ) return ML_NOMEM;
  while( rc==ML_OK && ml_merger_next(&m, &e) ) rc = ml_sw_put(&w, &e);
  ml_merger_free(&m);
  if( rc ) return rc;
  ml_sw_end(&w);
  return ML_OK;
}

/* k states of one kind (validated, checked alike) merged into one. */
static int kmerge_states(const MlState *st, int k, MlBuf *out, char *zErr, int nErr){
  const MlSection **secs;
  int i, j, rc = ML_OK, kind = st[0].kind, weighted;
  if( ML_STATE_IS_TUPLE(kind) ) return ml_mc_merge_states(st, k, 0, out, zErr, nErr);
  memset(out, 0, sizeof(*out));
  for(j=1; j<k; j++) if( ML_STATE_IS_WLAYOUT(st[j].kind) ) kind = weighted_kind(kind);
  weighted = ML_STATE_IS_WLAYOUT(kind);
  secs = ml_malloc(sizeof(*secs) * (uint64_t)k);
  if( secs==0 ) return ML_NOMEM;
  for(i=0; i<st[0].nSec; i++){
    ml_i64 t[2] = {0, 0};
    for(j=0; j<k; j++) secs[j] = &st[j].sec[i];
    if( ml_state_add_counts(t, secs, k, zErr, nErr) ){ ml_free(secs); return ML_STATE_BAD; }
  }
  if( ml_state_begin(out, kind, st[0].m, st[0].nSec) ){ ml_free(secs); return ML_NOMEM; }
  for(i=0; rc==ML_OK && i<st[0].nSec; i++){
    uint64_t at = out->n;
    int c0 = st[0].sec[i].codec[0], c1 = zcodec(&st[0].sec[i], weighted);
    for(j=0; j<k; j++){
      secs[j] = &st[j].sec[i];
      c0 = codec_join(c0, secs[j]->codec[0]);
      c1 = codec_join(c1, zcodec(secs[j], weighted));
    }
    rc = kmerge_section(secs, k, c0, c1, weighted, out);
    if( rc==ML_NEED_RAW ){
      out->n = at;
      rc = kmerge_section(secs, k, 0, c1==ML_CODEC_NONE ? c1 : 0, weighted, out);
    }
  }
  ml_free(secs);
  if( rc==ML_OK ) rc = ml_state_end(out);
  if( rc ) ml_buf_free(out);
  return rc;
}

int ml_state_kmerge(const MlState *st, int n, MlBuf *out, char *zErr, int nErr){
  return kmerge_states(st, n, out, zErr, nErr);
}

/* ---------------------------------------------------------- accumulator */

void ml_acc_clear(MlStateAcc *acc){
  int i;
  for(i=0; i<acc->n; i++) ml_free(acc->a[i].z);
  ml_free(acc->a);
  memset(acc, 0, sizeof(*acc));
}

int ml_acc_add(MlStateAcc *acc, const void *blob, uint64_t n, const MlState *st, char *zErr, int nErr){
  unsigned char *z;
  int i;
  if( acc->n>0 && (!ml_state_kinds_join(acc->kind, st->kind) || acc->m!=st->m) ){
    MlState first;
    char b1[40], b2[40];
    first.kind = acc->kind; first.m = acc->m;
    if( ML_STATE_IS_MC(acc->kind) && ML_STATE_IS_MC(st->kind) ){
      return ml_state_bad(zErr, nErr, "multiclass states with different k in one group: k = %d and then k = %d",
                 acc->m, st->m);
    }
    return ml_state_bad(zErr, nErr, "states of different kinds in one group: %s and then %s",
               ml_state_kind_name(&first, b1, sizeof(b1)), ml_state_kind_name(st, b2, sizeof(b2)));
  }
  if( acc->n>=acc->cap ){
    int nNew = acc->cap ? acc->cap*2 : 8;
    void *p = ml_realloc(acc->a, sizeof(acc->a[0]) * (uint64_t)nNew);
    if( p==0 ) return ML_NOMEM;
    acc->a = p;
    acc->cap = nNew;
  }
  z = ml_malloc(n);
  if( z==0 ) return ML_NOMEM;
  memcpy(z, blob, n);
  if( acc->n==0 || ML_STATE_IS_WLAYOUT(st->kind) || ML_STATE_TUPLE_W(st->kind) ) acc->kind = st->kind;   /* binary + weighted: weighted */
  acc->m = st->m;
  acc->a[acc->n].z = z;
  acc->a[acc->n].n = n;
  acc->a[acc->n].lastMask = 0;
  for(i=0; i<st->nSec; i++){
    if( st->sec[i].hasLast ){
      acc->a[acc->n].lastMask |= 1u<<i;
      acc->a[acc->n].aLast[i] = st->sec[i].uLast;
    }
  }
  acc->n++;
  return ML_OK;
}

int ml_acc_states(const MlStateAcc *acc, MlState **pSt){
  MlState *st;
  int i;
  *pSt = 0;
  if( acc->n==0 ) return ML_OK;
  st = ml_malloc(sizeof(MlState) * (uint64_t)acc->n);
  if( st==0 ) return ML_NOMEM;
  for(i=0; i<acc->n; i++){
    int j;
    ml_state_parse_own(acc->a[i].z, acc->a[i].n, &st[i]);
    for(j=0; j<st[i].nSec; j++){
      if( acc->a[i].lastMask & (1u<<j) ){ st[i].sec[j].hasLast = 1; st[i].sec[j].uLast = acc->a[i].aLast[j]; }
    }
  }
  *pSt = st;
  return ML_OK;
}

int ml_acc_collapse(MlStateAcc *acc, const unsigned char **pz, uint64_t *pn, char *zErr, int nErr){
  *pz = 0; *pn = 0;
  if( acc->n>1 ){
    MlState *st;
    MlBuf out;
    int i, rc = ml_acc_states(acc, &st);
    if( rc ) return rc;
    rc = kmerge_states(st, acc->n, &out, zErr, nErr);
    ml_free(st);
    if( rc ) return rc;
    for(i=0; i<acc->n; i++) ml_free(acc->a[i].z);
    acc->a[0].z = out.z;
    acc->a[0].n = out.n;
    acc->a[0].lastMask = 0;           /* not walked: a merge finds its range itself */
    acc->n = 1;
  }
  if( acc->n==1 ){ *pz = acc->a[0].z; *pn = acc->a[0].n; }
  return ML_OK;
}

int ml_acc_remove(MlStateAcc *acc, const MlState *st, char *zErr, int nErr){
  const unsigned char *z;
  uint64_t nz;
  MlState sa;
  MlBuf out;
  int rc = ml_acc_collapse(acc, &z, &nz, zErr, nErr);
  if( rc ) return rc;
  if( z==0 ) return ml_state_bad(zErr, nErr, "the state removed holds rows the merged states do not");
  ml_state_parse_own(z, nz, &sa);
  rc = ml_state_merge(&sa, st, -1, &out, zErr, nErr);
  if( rc ) return rc;
  ml_free(acc->a[0].z);
  acc->a[0].z = out.z;
  acc->a[0].n = out.n;
  acc->a[0].lastMask = 0;
  return ML_OK;
}

/* ------------------------------------------------------------- counts */

int ml_state_add_counts(ml_i64 held[2], const MlSection *const *secs, int k, char *zErr, int nErr){
  uint64_t t[2];
  int j, y;
  for(y=0; y<2; y++) t[y] = (uint64_t)held[y];
  for(j=0; j<k; j++){
    for(y=0; y<2; y++) t[y] += (uint64_t)secs[j]->n[y];     /* each <= 2^53: no wrap before the test */
    if( t[0] > (uint64_t)ML_STATE_MAX_ROWS || t[1] > (uint64_t)ML_STATE_MAX_ROWS
     || t[0] + t[1] > (uint64_t)ML_STATE_MAX_ROWS ){
      return ml_state_bad(zErr, nErr, "counts overflow: the merged state would hold more than 2^53 rows");
    }
  }
  for(y=0; y<2; y++) held[y] = (ml_i64)t[y];
  return ML_OK;
}
