/*
** SPDX-License-Identifier: MIT
**
** ml_state.c -- partial states: the format.  The checksum, the codecs and
** the section writer, the parse that validates every blob before use, the
** reader of a binary section, and the encoding of sorted samples.  The
** format is described in ml_state.h; merging states is ml_state_merge.c,
** the multiclass kinds ml_state_mc.c, and absorbing a state's sections
** into a sample buffer ml_state_absorb.c.
**
** Provides: ml_state_encode (sorted samples -> blob; every kind but the
** tuples', the distribution kinds included), ml_state_parse (blob ->
** validated sections), ml_state_parse_own, ml_reader_* (entries of a
** section), ml_section_range, ml_state_kind_name, ml_state_kinds (the kinds' one list) and ml_state_kind_info, ml_zkey_of,
** ml_double_of_zkey, ml_buf_free and ml_crc32c; to the other state files
** (ml_state_impl.h) the buffer's growth, the section writer (ml_sw_*), the
** header and trailer (ml_state_begin, ml_state_end), ml_codec_widen and the
** error text (ml_state_bad).  No SQL function lives here (ml_state_sql.c).
**
** Rules:
**   1. Every blob is validated before use: magic, version (a newer one is
**      refused by name), length against the sections' sizes, CRC-32C, kind
**      and m, every varint, strictly ascending entries, counts that sum to
**      the totals, totals of at most 2^53 rows.  After that, readers trust it.
**   2. Equal doubles are one entry (-0.0 == 0.0 for scores, as scikit-learn
**      ties by ==); a stratifier keeps its sign bit so that quantiles come
**      back bit for bit.
**   3. A column whose every value is an integer over 10^d (d <= 12, |i| <=
**      2^52, checked by dividing back) is written as those integers: rounded
**      probabilities cost a byte or two.  Otherwise the raw 64-bit keys.
**   4. Out of memory returns ML_NOMEM and leaks nothing.
**
** Cost: encode O(n) after the sort; parse O(size).  Scaled binary sections
** (rounded probabilities) are validated 8 one-byte entries at a time: about
** 26 instructions an entry.  CRC-32C uses the SSE4.2 instruction where the
** CPU has it.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "ml_state_impl.h"

/* ------------------------------------------------------------------ crc */

static uint32_t aCrcTab[8][256];
static int crcReady = 0;

static void crc_init(void){
  uint32_t i, j, c;
  for(i=0; i<256; i++){
    c = i;
    for(j=0; j<8; j++) c = (c>>1) ^ (0x82F63B78u & (0u - (c & 1u)));
    aCrcTab[0][i] = c;
  }
  for(i=0; i<256; i++){
    c = aCrcTab[0][i];
    for(j=1; j<8; j++){ c = aCrcTab[0][c & 0xff] ^ (c >> 8); aCrcTab[j][i] = c; }
  }
  crcReady = 1;
}

static uint32_t crc_soft(uint32_t c, const unsigned char *p, uint64_t n){
  if( !crcReady ) crc_init();
  while( n>=8 ){
    uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1]<<8 | (uint32_t)p[2]<<16 | (uint32_t)p[3]<<24);
    uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5]<<8 | (uint32_t)p[6]<<16 | (uint32_t)p[7]<<24;
    c = aCrcTab[7][lo & 0xff] ^ aCrcTab[6][(lo>>8) & 0xff] ^ aCrcTab[5][(lo>>16) & 0xff]
      ^ aCrcTab[4][lo>>24] ^ aCrcTab[3][hi & 0xff] ^ aCrcTab[2][(hi>>8) & 0xff]
      ^ aCrcTab[1][(hi>>16) & 0xff] ^ aCrcTab[0][hi>>24];
    p += 8; n -= 8;
  }
  while( n-- ) c = aCrcTab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return c;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t c, const unsigned char *p, uint64_t n){
  uint64_t c64 = c;
  while( n>=8 ){
    uint64_t v; memcpy(&v, p, 8);
    c64 = __builtin_ia32_crc32di(c64, v);
    p += 8; n -= 8;
  }
  c = (uint32_t)c64;
  while( n-- ) c = __builtin_ia32_crc32qi(c, *p++);
  return c;
}
#endif

uint32_t ml_crc32c(const void *p, uint64_t n){
#if defined(__x86_64__) && defined(__GNUC__)
  static int hw = -1;
  if( hw<0 ){ __builtin_cpu_init(); hw = __builtin_cpu_supports("sse4.2") ? 1 : 0; }
  if( hw ) return ~crc_hw(0xffffffffu, p, n);
#endif
  return ~crc_soft(0xffffffffu, p, n);
}

/* --------------------------------------------------------------- buffer */

void ml_buf_free(MlBuf *b){
  ml_free(b->z);
  memset(b, 0, sizeof(*b));
}

int ml_buf_reserve(MlBuf *b, uint64_t extra){
  if( b->oom ) return ML_NOMEM;
  if( b->n + extra > b->cap ){
    uint64_t nNew = b->cap ? b->cap + b->cap/2 : 256;
    unsigned char *z;
    if( nNew < b->n + extra ) nNew = b->n + extra;
    z = ml_realloc(b->z, nNew);
    if( z==0 ){ ml_free(b->z); b->z = 0; b->oom = 1; return ML_NOMEM; }
    b->z = z;
    b->cap = nNew;
  }
  return ML_OK;
}

static void put_u64le(unsigned char *z, uint64_t v){
  int i; for(i=0; i<8; i++) z[i] = (unsigned char)(v >> (8*i));
}
static uint64_t get_u64le(const unsigned char *z){
  uint64_t v = 0; int i; for(i=7; i>=0; i--) v = (v<<8) | z[i];
  return v;
}

/* ---------------------------------------------------------------- codec */

ml_key ml_zkey_of(double d){
  uint64_t u;
  memcpy(&u, &d, 8);
  return (u & TOP_BIT) ? ~u : (u | TOP_BIT);
}
double ml_double_of_zkey(ml_key k){ return ml_double_of(k); }

/* The smallest codec >= c that fits key k (0 when none does). */
int ml_codec_widen(int c, ml_key k){
  uint64_t u;
  if( c==0 ) return 0;
  for(; c<=ML_STATE_MAX_SCALE+1; c++) if( codec_put(c, k, &u)==ML_OK ) return c;
  return 0;
}

/* ------------------------------------------------------- section writer */

int ml_sw_begin(SecWriter *w, MlBuf *b, int cs, int cz){
  memset(w, 0, sizeof(*w));
  w->b = b;
  w->at = b->n;
  w->codec[0] = cs; w->codec[1] = cz;
  if( ml_buf_reserve(b, ML_STATE_SECHDR) ) return ML_NOMEM;
  b->n += ML_STATE_SECHDR;
  return ML_OK;
}

int ml_sw_put(SecWriter *w, const MlEntry *e){
  uint64_t u, uz = 0;
  int rc = codec_put(w->codec[0], e->key, &u);
  if( rc ) return rc;
  if( w->codec[1]!=ML_CODEC_NONE ){
    rc = codec_put(w->codec[1], e->zkey, &uz);
    if( rc ) return rc;
  }
  if( ml_buf_reserve(w->b, 40) ) return ML_NOMEM;
  put_varint(w->b, u - w->prev[0]);
  if( w->codec[1]!=ML_CODEC_NONE ){
    int64_t dz = (int64_t)(uz - w->prev[1]);
    put_varint(w->b, ((uint64_t)dz << 1) ^ (uint64_t)(dz >> 63));
    w->prev[1] = uz;
  }
  w->prev[0] = u;
  put_varint(w->b, (uint64_t)e->n[0]);
  put_varint(w->b, (uint64_t)e->n[1]);
  w->nEntry++;
  w->n[0] += e->n[0];
  w->n[1] += e->n[1];
  return ML_OK;
}

void ml_sw_end(SecWriter *w){
  unsigned char *h = w->b->z + w->at;
  h[0] = (unsigned char)w->codec[0];
  h[1] = (unsigned char)w->codec[1];
  h[2] = h[3] = 0;
  put_u64le(h+4, (uint64_t)w->nEntry);
  put_u64le(h+12, (uint64_t)w->n[0]);
  put_u64le(h+20, (uint64_t)w->n[1]);
  put_u64le(h+28, w->b->n - w->at - ML_STATE_SECHDR);
}

int ml_state_begin(MlBuf *b, int kind, int m, int nSec){
  if( ml_buf_reserve(b, ML_STATE_HDR) ) return ML_NOMEM;
  memcpy(b->z, "MLST", 4);
  b->z[4] = kind==ML_STATE_WEIGHTED ? ML_STATE_VERSION_W : ML_STATE_IS_MC(kind) ? ML_STATE_VERSION_MC
          : ML_STATE_IS_SURV(kind) ? ML_STATE_VERSION_SURV : ML_STATE_IS_DIST(kind) ? ML_STATE_VERSION_DIST
          : ML_STATE_VERSION;
  b->z[5] = (unsigned char)kind;
  b->z[6] = (unsigned char)m;
  b->z[7] = (unsigned char)nSec;
  b->n = ML_STATE_HDR;
  return ML_OK;
}

int ml_state_end(MlBuf *b){
  uint32_t c;
  if( ml_buf_reserve(b, 4) ) return ML_NOMEM;
  c = ml_crc32c(b->z, b->n);
  b->z[b->n] = (unsigned char)c; b->z[b->n+1] = (unsigned char)(c>>8);
  b->z[b->n+2] = (unsigned char)(c>>16); b->z[b->n+3] = (unsigned char)(c>>24);
  b->n += 4;
  return ML_OK;
}

/* ------------------------------------------------------- parse / verify */

int ml_state_bad(char *zErr, int nErr, const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  vsnprintf(zErr, (size_t)nErr, zFmt, ap);
  va_end(ap);
  return ML_STATE_BAD;
}

const MlStateKind ml_state_kinds[] = {
  { ML_STATE_BINARY,   "binary",              "ml_state(y, s)" },
  { ML_STATE_STRAT,    "binary+strat",        "ml_state(y, s, strat)" },
  { ML_STATE_ORDINAL,  "ordinal",             "ml_state_ordinal(y, s_1, ..., s_m)" },
  { ML_STATE_WEIGHTED, "weighted",            "ml_state_w(y, s, w)" },
  { ML_STATE_MC,       "multiclass",          "ml_state_mc(y, p_0, ..., p_k-1)" },
  { ML_STATE_MC_W,     "multiclass weighted", "ml_state_mc_w(y, p_0, ..., p_k-1, w)" },
  { ML_STATE_SURV,     "survival",            "ml_state_surv(time, event, risk)" },
  { ML_STATE_SURV_W,   "survival weighted",   "ml_state_surv_w(time, event, risk, w)" },
  { ML_STATE_DIST,     "distribution",        "ml_state_dist(x)" },
  { ML_STATE_DIST_W,   "distribution weighted", "ml_state_dist_w(x, w)" },
  { 0, 0, 0 }
};

const MlStateKind *ml_state_kind_info(int kind){
  const MlStateKind *k;
  for(k=ml_state_kinds; k->kind; k++) if( k->kind==kind ) return k;
  return 0;
}

const char *ml_state_kind_name(const MlState *st, char *buf, int nBuf){
  if( st->kind==ML_STATE_BINARY ) return "binary";
  if( st->kind==ML_STATE_STRAT ) return "binary+strat";
  if( st->kind==ML_STATE_WEIGHTED ) return "weighted";
  if( ML_STATE_IS_SURV(st->kind) ) return st->kind==ML_STATE_SURV_W ? "survival weighted" : "survival";
  if( ML_STATE_IS_DIST(st->kind) ) return st->kind==ML_STATE_DIST_W ? "distribution weighted" : "distribution";
  if( ML_STATE_IS_MC(st->kind) ){
    snprintf(buf, (size_t)nBuf, "multiclass%s (k = %d)", st->kind==ML_STATE_MC_W ? " weighted" : "", st->m);
    return buf;
  }
  snprintf(buf, (size_t)nBuf, "ordinal (m = %d)", st->m);
  return buf;
}

static int codec_valid(int c){ return c>=0 && c<=ML_STATE_MAX_SCALE+1; }

/* One varint of a payload: the one-byte case inline (a rounded
** probability's delta and counts are nearly always one byte each). */
#define GET_VARINT_OR(p, end, v, fail) \
  do{ if( (p)<(end) && *(p)<0x80 ) (v) = *(p)++; else if( !get_varint(&(p), (end), &(v)) ) fail; }while(0)

/* Eight entries of one-byte varints (24 bytes at p, no top bit set),
** checked and summed as 64-bit words (SWAR) rather than byte by byte:
** entry k is bytes 3k (delta), 3k+1 (negatives), 3k+2 (positives), so the
** byte masks M0 = {0,3,6}, M1 = {1,4,7}, M2 = {2,5} of the three words
** gather each field's 8 bytes into one word.  Returns 0 when a delta is 0,
** an entry's counts are both 0, or a running integer u has the correction
** field 3 (the per-entry checks of verify_scaled_fast); else adds the
** deltas to *pu and the counts to *s0, *s1.  The running u's low two bits
** come from prefix sums: multiplying a word holding deltas at bytes 0, 3,
** 6 by 1 + 2^24 + 2^48 leaves d0, d0+d1, d0+d1+d2 in three 24-bit fields
** (each below 3 * 127, so no field spills into the next). */
#define M0 0x00FF0000FF0000FFULL
#define M1 0xFF0000FF0000FF00ULL
#define M2 0x0000FF0000FF0000ULL
#define F3 0x0001000001000001ULL
static inline uint64_t hsum8(uint64_t x){     /* the sum of x's 8 bytes, each < 128 */
  x = (x & 0x00FF00FF00FF00FFULL) + ((x >> 8) & 0x00FF00FF00FF00FFULL);
  return (x * 0x0001000100010001ULL) >> 48;
}
static inline int check8(const unsigned char *p, uint64_t *pu, uint64_t *s0, uint64_t *s1){
  uint64_t a, b, c, d, e, pa, pb, pc, va, vb, vc, ua, ub, bad;
  memcpy(&a, p, 8); memcpy(&b, p+8, 8); memcpy(&c, p+16, 8);
  d = (a & M0) | (b & M1) | (c & M2);                     /* the 8 deltas */
  /* byte 3k+1 of (stream | stream shifted one byte down): negatives | positives */
  e = ((a | (a >> 8) | (b << 56)) & M1) | ((b | (b >> 8) | (c << 56)) & M2) | ((c | (c >> 8)) & M0);
  /* a zero byte, and only a zero byte, sets a top bit of x - 0x0101... (bytes < 128) */
  bad = ((d - 0x0101010101010101ULL) | (e - 0x0101010101010101ULL)) & 0x8080808080808080ULL;
  pa = (a & M0) * F3;                        /* entries 0..2 */
  pb = ((b & M1) >> 8) * F3;                 /* entries 3..5 */
  pc = ((c & M2) >> 16) * F3;                /* entries 6, 7 (the third field unused) */
  va = pa + (*pu & 3) * F3;  ua = *pu + (pa >> 48);
  vb = pb + (ua & 3) * F3;   ub = ua + (pb >> 48);
  vc = pc + (ub & 3) * F3;
  bad |= ((va & (va >> 1)) | (vb & (vb >> 1))) & F3;
  bad |= (vc & (vc >> 1)) & 0x0000000001000001ULL;
  if( bad ) return 0;
  *pu = ub + ((pc >> 24) & 0xFFFFFF);
  *s0 += hsum8((a & M1) | (b & M2) | (c & M0));
  *s1 += hsum8((a & M2) | (b & M0) | (c & M1));
  return 1;
}
#undef M0
#undef M1
#undef M2
#undef F3

/* The common section, checked in one tight pass: binary (no stratifier),
** scaled scores, every integer below 2^48 in magnitude (where ascending
** integers are ascending distinct doubles, verify_section's fast case).
** Accepts exactly what verify_section accepts among such sections, and
** records the last integer; 0 when anything is wrong or the section is
** not of this shape: verify_section then decides, and words the error.
** The integers strictly ascend (no delta 0 after the first, no wrap), so
** the range [lo, hi) is checked on the first and the last; the counts'
** sums equal the totals at the end, so no partial sum passed them. */
static int verify_scaled_fast(MlSection *s){
  const unsigned char *p = s->p, *end = s->p + s->nByte;
  const uint64_t lo = (uint64_t)(SCALED_OFF - FAST_LIM + 1) << 2, hi = (uint64_t)(SCALED_OFF + FAST_LIM) << 2;
  const uint64_t t0 = (uint64_t)s->n[0], t1 = (uint64_t)s->n[1];
  uint64_t u = 0, d, c0, c1, sum0 = 0, sum1 = 0;
  ml_i64 i;
  const ml_i64 ne = s->nEntry;
  if( s->codec[0]==0 || s->codec[1]!=ML_CODEC_NONE || ne==0 ) return 0;
  /* the first entry (its integer is written whole: several bytes) */
  GET_VARINT_OR(p, end, u, return 0);
  GET_VARINT_OR(p, end, c0, return 0);
  GET_VARINT_OR(p, end, c1, return 0);
  if( u<lo || (u & 3)==3 || (c0 | c1)==0 || c0 > t0 || c1 > t1 ) return 0;
  sum0 = c0; sum1 = c1;
  for(i=1; i<ne; i++){
    if( ne - i >= 8 && end - p >= 24 && !top_bit_24(p) ){
      /* 8 entries of one-byte varints: nothing can wrap (check8) */
      if( !check8(p, &u, &sum0, &sum1) ) return 0;
      p += 24;
      i += 7;
      continue;
    }
    if( get3_small(p, end, &d, &c0, &c1) ){
      p += 3;
    }else{
      GET_VARINT_OR(p, end, d, return 0);
      GET_VARINT_OR(p, end, c0, return 0);
      GET_VARINT_OR(p, end, c1, return 0);
      /* large counts are checked at once, so that the sums never wrap:
      ** a partial sum past the total is final (sums only grow), and one-
      ** byte entries add less than 2^7 each */
      if( u + d < u || c0 > t0 || c1 > t1 || sum0 + c0 > t0 || sum1 + c1 > t1 ) return 0;
    }
    u += d;
    sum0 += c0; sum1 += c1;
    if( (d==0) | ((u & 3)==3) | ((c0 | c1)==0) ) return 0;
  }
  if( p!=end || u>=hi || sum0!=t0 || sum1!=t1 ) return 0;
  s->hasLast = 1;
  s->uLast = u;
  return 1;
}

/* Walks one section's payload checking every entry. */
static int verify_section(const MlSection *s, int isStrat, char *zErr, int nErr, int iSec){
  const unsigned char *p = s->p, *end = s->p + s->nByte;
  uint64_t prev[2] = {0, 0}, d, zz;
  ml_key lastKey = 0, lastZ = 0;
  int fast, lastFast = 0;
  ml_i64 i, sum[2] = {0, 0};
  for(i=0; i<s->nEntry; i++){
    uint64_t c[2], u, uz = 0;
    ml_key key, zk = 0;
    int y;
    GET_VARINT_OR(p, end, d, goto corrupt);
    u = prev[0] + d;
    if( u<prev[0] ) goto corrupt;                               /* wrapped */
    if( s->codec[0]>0 && !SCALED_OK(u) ) goto corrupt;
    /* Binary sections of small scaled integers: ascending integers are
    ** ascending distinct doubles (their spacing is far above an ulp), so
    ** the order is checked on them, without a division per entry. */
    fast = s->codec[0]>0 && !isStrat && SCALED_INT(u) < FAST_LIM && SCALED_INT(u) > -FAST_LIM;
    if( fast ){
      if( i>0 && d==0 ) goto order;
      lastFast = 1;
      goto counts;
    }
    /* The same for (score, strat) and (score, weight) pairs of small scaled
    ** integers: ascending by the pair of integers; a weight's integer > 0
    ** is a finite weight > 0. */
    if( isStrat ){
      GET_VARINT_OR(p, end, zz, goto corrupt);
      uz = prev[1] + (uint64_t)((int64_t)(zz>>1) ^ -(int64_t)(zz & 1));
      if( s->codec[1]>0 && !SCALED_OK(uz) ) goto corrupt;
      if( s->codec[0]>0 && s->codec[1]>0 && SCALED_INT(u) < FAST_LIM && SCALED_INT(u) > -FAST_LIM
       && SCALED_INT(uz) < FAST_LIM && SCALED_INT(uz) > (isStrat==2 ? 0 : -FAST_LIM) ){
        if( i>0 && d==0 && (int64_t)(uz - prev[1])<=0 ) goto order;
        lastFast = 1;
        goto counts;
      }
    }
    key = codec_get(s->codec[0], u, 0);
    /* A raw score key of -0.0: scores tie by ==, so every writer folds it
    ** to +0.0 (ml_key_of); beside a +0.0 it would make two thresholds. */
    if( s->codec[0]==0 && key==~TOP_BIT ) goto corrupt;
    if( lastFast ){
      lastKey = codec_get(s->codec[0], prev[0], 0);
      if( isStrat ) lastZ = codec_get(s->codec[1], prev[1], 1);
    }
    lastFast = 0;
    if( isStrat ){
      zk = codec_get(s->codec[1], uz, 1);
      /* a weighted state's weight: finite and > 0 (weight-0 rows are dropped) */
      if( isStrat==2 && !(ml_double_of(zk) > 0.0 && ml_double_of(zk) < INFINITY) ) goto corrupt;
    }
    if( ml_double_of(key)!=ml_double_of(key) || (isStrat && ml_double_of(zk)!=ml_double_of(zk)) ){
      goto corrupt;                                              /* NaN */
    }
    /* strictly ascending by (score, strat), as decoded */
    if( i>0 && (key<lastKey || (key==lastKey && (!isStrat || zk<=lastZ))) ) goto order;
    lastKey = key; lastZ = zk;
counts:
    GET_VARINT_OR(p, end, c[0], goto corrupt);
    GET_VARINT_OR(p, end, c[1], goto corrupt);
    if( c[0]==0 && c[1]==0 ) goto corrupt;
    for(y=0; y<2; y++){
      if( c[y] > (uint64_t)(s->n[y] - sum[y]) ){
        return ml_state_bad(zErr, nErr, "the state is inconsistent: the counts of section %d overflow its totals", iSec+1);
      }
      sum[y] += (ml_i64)c[y];
    }
    prev[0] = u; prev[1] = uz;
  }
  if( p!=end ) goto corrupt;
  if( sum[0]!=s->n[0] || sum[1]!=s->n[1] ){
    return ml_state_bad(zErr, nErr, "the state is inconsistent: the entries of section %d do not sum to its totals", iSec+1);
  }
  return ML_OK;
corrupt:
  return ml_state_bad(zErr, nErr, "the state is corrupted: bad entry %lld of section %d", (long long)i+1, iSec+1);
order:
  return ml_state_bad(zErr, nErr, "the state is corrupted: entries of section %d are not in ascending order", iSec+1);
}

/* An ordinal state's cuts and severity run agree with each other. */
static int ordinal_consistent(const MlState *st, char *zErr, int nErr){
  int i;
  ml_i64 tot = st->sec[0].n[0] + st->sec[0].n[1];
  for(i=1; i<st->m; i++){
    if( st->sec[i].n[0] + st->sec[i].n[1] != tot ){
      return ml_state_bad(zErr, nErr, "the state is inconsistent: its cuts hold different numbers of rows");
    }
  }
  for(i=1; i<st->m; i++){
    if( st->sec[i].n[1] > st->sec[i-1].n[1] ){
      return ml_state_bad(zErr, nErr, "the state is inconsistent: cut %d has more rows at or above its severity (%lld)"
                 " than cut %d (%lld)", i+1, (long long)st->sec[i].n[1], i, (long long)st->sec[i-1].n[1]);
    }
  }
  if( st->sec[st->m].n[0] + st->sec[st->m].n[1] != st->sec[0].n[1]
   || st->sec[st->m].n[1] != st->sec[st->m-1].n[1] ){
    return ml_state_bad(zErr, nErr, "the state is inconsistent: its severity run does not match its cuts");
  }
  return ML_OK;
}

/* The sections' announced sizes against the blob's n bytes. */
static int state_length(const unsigned char *z, uint64_t n, const MlState *st, char *zErr, int nErr){
  uint64_t at, need;
  int i;
  if( st->nSec>=1 && st->nSec<=ML_STATE_MAX_SEC ){
    at = ML_STATE_HDR;
    for(i=0; i<st->nSec; i++){
      uint64_t nb;
      if( n < at + ML_STATE_SECHDR ) goto truncated;
      nb = get_u64le(z + at + 28);
      if( nb > n - at - ML_STATE_SECHDR ) goto truncated;
      at += ML_STATE_SECHDR + nb;
    }
    need = at + 4;
    if( n < need ) goto truncated;
    if( n > need ){
      return ml_state_bad(zErr, nErr, "the state is corrupted: %llu bytes after its end", (unsigned long long)(n - need));
    }
  }else if( n < ML_STATE_HDR + 4 ){
    goto truncated;
  }
  return ML_OK;
truncated:
  return ml_state_bad(zErr, nErr, "the state is truncated (%llu bytes, shorter than its sections announce)",
             (unsigned long long)n);
}

/* The blob's header, length (state_length), checksum (verify), kind, then
** each section's header and entries (verify), then an ordinal state's cuts
** (ordinal_consistent).  One function with the entries' loop: split
** further, the fast check's loop (verify_scaled_fast) compiles to about 12 %
** more instructions. */
static int state_parse(const void *blob, uint64_t n, MlState *st, char *zErr, int nErr, int verify){
  const unsigned char *z = blob;
  uint64_t at, mcRows = 0;
  int i, version, rc;
  memset(st, 0, sizeof(*st));
  if( n<4 || memcmp(z, "MLST", 4)!=0 ){
    return ml_state_bad(zErr, nErr, "the blob is not an mleval state (no MLST header; make one with ml_state())");
  }
  if( n<ML_STATE_HDR ) return ml_state_bad(zErr, nErr, "the state is truncated (%llu bytes)", (unsigned long long)n);
  version = z[4];
  if( version>ML_STATE_VERSION_DIST ){
    return ml_state_bad(zErr, nErr, "the state has format version %d, newer than this mleval reads (%d): upgrade mleval",
               version, ML_STATE_VERSION_DIST);
  }
  if( version<1 ) return ml_state_bad(zErr, nErr, "the state has an unknown format version 0");
  st->kind = z[5]; st->m = z[6]; st->nSec = z[7];
  /* Length first: the sections announce their sizes. */
  if( (rc = state_length(z, n, st, zErr, nErr))!=ML_OK ) return rc;
  if( verify ){
    const unsigned char *t = z + n - 4;
    uint32_t want = (uint32_t)t[0] | (uint32_t)t[1]<<8 | (uint32_t)t[2]<<16 | (uint32_t)t[3]<<24;
    if( ml_crc32c(z, n - 4)!=want ) return ml_state_bad(zErr, nErr, "the state is corrupted (checksum mismatch)");
  }
  /* The checksum holds: now the meaning. */
  if( (version==ML_STATE_VERSION_W) != (st->kind==ML_STATE_WEIGHTED)
   || (version==ML_STATE_VERSION_MC) != ML_STATE_IS_MC(st->kind)
   || (version==ML_STATE_VERSION_SURV) != ML_STATE_IS_SURV(st->kind)
   || (version==ML_STATE_VERSION_DIST) != ML_STATE_IS_DIST(st->kind) ){
    return ml_state_bad(zErr, nErr, "the state is inconsistent: kind %d in format version %d", st->kind, version);
  }
  if( st->kind==ML_STATE_BINARY || st->kind==ML_STATE_STRAT || st->kind==ML_STATE_WEIGHTED || ML_STATE_IS_DIST(st->kind) ){
    if( st->m!=1 || st->nSec!=1 ) return ml_state_bad(zErr, nErr, "the state is inconsistent: kind %d with m = %d and %d sections", st->kind, st->m, st->nSec);
  }else if( st->kind==ML_STATE_ORDINAL ){
    if( st->m<1 || st->m>ML_STATE_MAX_CUTS || st->nSec!=st->m+1 ){
      return ml_state_bad(zErr, nErr, "the state is inconsistent: ordinal with m = %d and %d sections", st->m, st->nSec);
    }
  }else if( ML_STATE_IS_MC(st->kind) ){
    if( st->m<2 || st->m>ML_STATE_MAX_K || st->nSec!=st->m ){
      return ml_state_bad(zErr, nErr, "the state is inconsistent: multiclass with k = %d and %d sections", st->m, st->nSec);
    }
  }else if( ML_STATE_IS_SURV(st->kind) ){
    if( st->m!=2 || st->nSec!=2 ){
      return ml_state_bad(zErr, nErr, "the state is inconsistent: survival with %d columns and %d sections", st->m, st->nSec);
    }
  }else{
    return ml_state_bad(zErr, nErr, "the state has an unknown kind %d", st->kind);
  }
  at = ML_STATE_HDR;
  for(i=0; i<st->nSec; i++){
    MlSection *s = &st->sec[i];
    const unsigned char *h = z + at;
    uint64_t ne = get_u64le(h+4), n0 = get_u64le(h+12), n1 = get_u64le(h+20);
    int isStrat = st->kind==ML_STATE_STRAT || ML_STATE_TUPLE_W(st->kind) ? 1 : ML_STATE_IS_WLAYOUT(st->kind) ? 2 : 0;
    int mc = ML_STATE_IS_TUPLE(st->kind);
    s->codec[0] = h[0]; s->codec[1] = h[1];
    if( !codec_valid(s->codec[0]) || h[2] || h[3]
     || (isStrat ? !codec_valid(s->codec[1]) : s->codec[1]!=ML_CODEC_NONE) ){
      return ml_state_bad(zErr, nErr, "the state is corrupted: unknown codec in section %d", i+1);
    }
    if( n0 > (uint64_t)ML_STATE_MAX_ROWS || n1 > (uint64_t)ML_STATE_MAX_ROWS
     || n0 + n1 > (uint64_t)ML_STATE_MAX_ROWS ){
      return ml_state_bad(zErr, nErr, "the state's counts overflow: section %d claims more than 2^53 rows", i+1);
    }
    s->nByte = get_u64le(h+28);
    if( mc && n0!=0 ){
      return ml_state_bad(zErr, nErr, "the state is inconsistent: section %d of a multiclass state counts negatives", i+1);
    }
    if( ML_STATE_IS_DIST(st->kind) && n1!=0 ){
      return ml_state_bad(zErr, nErr, "the state is inconsistent: section %d of a distribution state counts positives", i+1);
    }
    if( (mc ? ne > s->nByte/(uint64_t)(st->m + 1) : ne > s->nByte/3) || (ne==0) != (n0+n1==0) || ne > n0+n1 ){
      return ml_state_bad(zErr, nErr, "the state is inconsistent: section %d has %llu entries for %llu rows",
                 i+1, (unsigned long long)ne, (unsigned long long)(n0+n1));
    }
    s->nEntry = (ml_i64)ne; s->n[0] = (ml_i64)n0; s->n[1] = (ml_i64)n1;
    s->p = h + ML_STATE_SECHDR;
    if( mc ){
      if( verify ){
        rc = ml_mc_verify_section(s, st->m, ML_STATE_TUPLE_W(st->kind), zErr, nErr, i);
        if( rc==ML_OK && ML_STATE_IS_SURV(st->kind) ) rc = ml_surv_verify_section(s, st->kind==ML_STATE_SURV_W, zErr, nErr, i);
        if( rc ) return rc;
      }
      mcRows += n1;
      if( mcRows > (uint64_t)ML_STATE_MAX_ROWS ){
        return ml_state_bad(zErr, nErr, "the state's counts overflow: its sections claim more than 2^53 rows");
      }
    }else if( verify && (isStrat || !verify_scaled_fast(s)) ){
      rc = verify_section(s, isStrat, zErr, nErr, i);
      if( rc ) return rc;
    }
    at += ML_STATE_SECHDR + s->nByte;
  }
  if( st->kind==ML_STATE_ORDINAL ) return ordinal_consistent(st, zErr, nErr);
  return ML_OK;
}

int ml_state_parse(const void *blob, uint64_t n, MlState *st, char *zErr, int nErr){
  return state_parse(blob, n, st, zErr, nErr, 1);
}

void ml_state_parse_own(const void *blob, uint64_t n, MlState *st){
  char zErr[8];
  state_parse(blob, n, st, zErr, sizeof(zErr), 0);
}

/* --------------------------------------------------------------- reader */

void ml_reader_init(MlReader *r, const MlSection *sec){
  r->sec = sec;
  r->p = sec->p;
  r->left = sec->nEntry;
  r->prev[0] = r->prev[1] = 0;
  r->zNone = 0;
}

int ml_reader_next(MlReader *r, MlEntry *e){
  const MlSection *s = r->sec;
  if( r->left==0 ) return 0;
  r->left--;
  r->prev[0] += get_varint_fast(&r->p);
  e->key = codec_get(s->codec[0], r->prev[0], 0);
  if( s->codec[1]!=ML_CODEC_NONE ){
    uint64_t zz = get_varint_fast(&r->p);
    r->prev[1] += (uint64_t)((int64_t)(zz>>1) ^ -(int64_t)(zz & 1));
    e->zkey = codec_get(s->codec[1], r->prev[1], 1);
  }else{
    e->zkey = r->zNone;
  }
  e->n[0] = (ml_i64)get_varint_fast(&r->p);
  e->n[1] = (ml_i64)get_varint_fast(&r->p);
  return 1;
}

/* --------------------------------------------------------------- encode */

/* Entries of sorted samples: the two class arrays merged by (key, zkey). */
typedef struct SmpIter { const MlSamples *s; ml_i64 i[2]; int strat; } SmpIter;

static inline ml_key smp_zkey(const MlSamples *s, int y, ml_i64 i){
  return s->width==16 ? ml_zkey_of(ml_samples_aux(s, y, i)) : 0;
}

static int smp_next(SmpIter *it, MlEntry *e){
  const MlSamples *s = it->s;
  int y, have = 0;
  for(y=0; y<2; y++){
    if( it->i[y] < s->n[y] ){
      ml_key k = ml_samples_key(s, y, it->i[y]), z = smp_zkey(s, y, it->i[y]);
      if( !have || k<e->key || (k==e->key && z<e->zkey) ){ e->key = k; e->zkey = z; }
      have = 1;
    }
  }
  if( !have ) return 0;
  for(y=0; y<2; y++){
    ml_i64 i = it->i[y];
    while( i < s->n[y] && ml_samples_key(s, y, i)==e->key && smp_zkey(s, y, i)==e->zkey ) i++;
    e->n[y] = i - it->i[y];
    it->i[y] = i;
  }
  return 1;
}

int ml_cmp_zkey16(const void *a, const void *b){
  double x, y;
  ml_key kx, ky;
  memcpy(&x, (const char*)a + 8, 8); memcpy(&y, (const char*)b + 8, 8);
  kx = ml_zkey_of(x); ky = ml_zkey_of(y);
  return kx<ky ? -1 : kx>ky;
}

/* Sorts each block of equal score keys by stratifier (16-byte records). */
static void sort_blocks_by_aux(MlSamples *s){
  int y;
  for(y=0; y<2; y++){
    ml_i64 i = 0, n = s->n[y];
    while( i<n ){
      ml_i64 j = i+1;
      ml_key k = ml_samples_key(s, y, i);
      while( j<n && ml_samples_key(s, y, j)==k ) j++;
      if( j-i>1 ) qsort(s->a[y] + (size_t)i*16, (size_t)(j-i), 16, ml_cmp_zkey16);
      i = j;
    }
  }
}

/* Writes one section from sorted samples, choosing the codecs first. */
static int encode_section(MlSamples *s, int strat, MlBuf *b){
  SmpIter it;
  MlEntry e;
  SecWriter w;
  int c[2] = {1, strat ? 1 : ML_CODEC_NONE}, rc;
  uint64_t at = b->n;
  int k;
  /* The codecs from the first entries; an entry that does not fit widens
  ** them and restarts the section (each restart widens or goes raw). */
  memset(&it, 0, sizeof(it)); it.s = s;
  for(k=0; k<32 && (c[0] || (strat && c[1])) && smp_next(&it, &e); k++){
    if( c[0] ) c[0] = ml_codec_widen(c[0], e.key);
    if( strat && c[1] ) c[1] = ml_codec_widen(c[1], e.zkey);
  }
  for(;;){
    int n0, n1;
    if( ml_sw_begin(&w, b, c[0], c[1]) ) return ML_NOMEM;
    memset(&it, 0, sizeof(it)); it.s = s;
    rc = ML_OK;
    while( rc==ML_OK && smp_next(&it, &e) ) rc = ml_sw_put(&w, &e);
    if( rc==ML_NOMEM ) return rc;
    if( rc==ML_OK ){ ml_sw_end(&w); return ML_OK; }
    b->n = at;                                       /* entry e did not fit */
    n0 = c[0] ? ml_codec_widen(c[0], e.key) : 0;
    n1 = strat && c[1] ? ml_codec_widen(c[1], e.zkey) : c[1];
    if( n0==c[0] && n1==c[1] ){ n0 = 0; if( strat ) n1 = 0; }
    c[0] = n0; c[1] = n1;
  }
}

void ml_section_range(const MlSection *sec, double *lo, double *hi){
  MlReader r;
  MlEntry e;
  int first = 1;
  *lo = *hi = 0.0;
  ml_reader_init(&r, sec);
  while( ml_reader_next(&r, &e) ){
    if( first ){ *lo = ml_double_of(e.key); first = 0; }
    *hi = ml_double_of(e.key);
  }
}

int ml_state_encode(MlSamples *const *smp, int nSmp, int kind, MlBuf *out){
  int i;
  memset(out, 0, sizeof(*out));
  if( ml_state_begin(out, kind, kind==ML_STATE_ORDINAL ? nSmp-1 : 1, nSmp) ) return ML_NOMEM;
  for(i=0; i<nSmp; i++){
    if( ml_samples_sort(smp[i]) ){ ml_buf_free(out); return ML_NOMEM; }
    if( kind==ML_STATE_STRAT || ML_STATE_IS_WLAYOUT(kind) ) sort_blocks_by_aux(smp[i]);
    if( encode_section(smp[i], kind==ML_STATE_STRAT || ML_STATE_IS_WLAYOUT(kind), out) ){ ml_buf_free(out); return ML_NOMEM; }
  }
  if( ml_state_end(out) ){ ml_buf_free(out); return ML_NOMEM; }
  return ML_OK;
}
