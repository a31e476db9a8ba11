/*
** SPDX-License-Identifier: MIT
**
** ml_state.c -- partial states: encoding, validation, merging, and the
** sample buffer's absorption of a sorted run.  The format is in ml_state.h.
**
** Provides: ml_state_encode (sorted samples -> blob), ml_state_parse (blob ->
** validated sections), ml_reader_* (entries of a section), ml_state_merge
** (two states -> one, a linear merge of sorted runs, sign -1 subtracts),
** MlStateAcc (many states -> one, pairwise like a binary counter),
** ml_samples_absorb (a section's rows into an MlSamples in one linear pass),
** ml_samples_absorb_counts (its entries into counted runs, not expanded)
** and ml_crc32c; for multiclass states (kinds 5, 6) ml_state_encode_mc
** (rows -> blob, a merge sort by (class, tuple)), ml_mc_reader_* (entries
** of a section, every value checked) and their merges (a heap over the
** states' sections, ml_state_merge, MlStateAcc and ml_state_kmerge).  No SQL function lives here (ml_state_sql.c).
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
**   4. Merging never re-sorts: each merge is one pass over both runs,
**      repeated keys add their counts, so merging k daily states of
**      rounded scores stays as small as one day.
**   5. Out of memory returns ML_NOMEM and leaks nothing.
**
** Cost: encode O(n) after the sort; parse O(size); merge O(size of both);
** k states through MlStateAcc O(total log k) at most; absorb O(rows held +
** rows added), absorb counts O(runs held + entries); multiclass: encode
** O(n log n), merge O(entries k log states), validation O(size).  Scaled binary
** sections (rounded probabilities) are validated and count-merged 8
** one-byte entries at a time: about 26 + 15 instructions an entry.  CRC-32C
** uses the SSE4.2 instruction where the CPU has it.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "ml_state.h"

#define ML_NEED_RAW 3          /* internal: a scaled codec does not fit */
#define TOP_BIT 0x8000000000000000ULL

static const double aPow10[ML_STATE_MAX_SCALE+1] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12
};
#define SCALED_MAX 4503599627370496.0     /* 2^52 */

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

static int buf_reserve(MlBuf *b, uint64_t extra){
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

/* Appends a LEB128 varint; the caller reserved 10 bytes. */
static inline void put_varint(MlBuf *b, uint64_t v){
  unsigned char *z = b->z + b->n;
  while( v>=0x80 ){ *z++ = (unsigned char)(v | 0x80); v >>= 7; }
  *z++ = (unsigned char)v;
  b->n = (uint64_t)(z - b->z);
}
/* Reads a varint from [*pp, end): 1, or 0 when it runs off the end or
** takes more than 64 bits. */
static inline int get_varint(const unsigned char **pp, const unsigned char *end, uint64_t *out){
  const unsigned char *p = *pp;
  uint64_t v = 0;
  int sh = 0;
  for(;;){
    unsigned char c;
    if( p>=end || sh>63 ) return 0;
    c = *p++;
    if( sh==63 && c>1 ) return 0;
    v |= (uint64_t)(c & 0x7f) << sh;
    if( (c & 0x80)==0 ) break;
    sh += 7;
  }
  *pp = p;
  *out = v;
  return 1;
}
/* The same without checks, for validated payloads. */
static inline uint64_t get_varint_fast(const unsigned char **pp){
  const unsigned char *p = *pp;
  uint64_t v = *p & 0x7f;
  int sh = 7;
  while( *p++ & 0x80 ){ v |= (uint64_t)(*p & 0x7f) << sh; sh += 7; }
  *pp = p;
  return v;
}

/* ---------------------------------------------------------------- codec */

ml_key ml_zkey_of(double d){
  uint64_t u;
  memcpy(&u, &d, 8);
  return (u & TOP_BIT) ? ~u : (u | TOP_BIT);
}
double ml_double_of_zkey(ml_key k){ return ml_double_of(k); }

/* A scaled value: the double nearest i / 10^d, moved by corr (-1, 0, +1)
** ulps.  The correction keeps doubles that are one ulp off the nearest --
** SQLite's round() makes some, its text-to-double conversion is not always
** correctly rounded -- in the scaled codec, bit for bit. */
static inline double scaled_double(int64_t i, int corr, int d){
  double s = (double)i / aPow10[d];
  if( corr>0 ) s = nextafter(s, INFINITY);
  else if( corr<0 ) s = nextafter(s, -INFINITY);
  return s;
}
/* A scaled column value as written: ((i + 2^52) << 2) | (corr + 1),
** ascending with the value. */
#define SCALED_OFF     4503599627370496LL      /* 2^52 */
#define SCALED_INT(u)  ((int64_t)((u) >> 2) - SCALED_OFF)
#define SCALED_CORR(u) ((int)((u) & 3) - 1)
#define SCALED_OK(u)   (((u) & 3)!=3 && ((u) >> 2) <= (uint64_t)(2*SCALED_OFF))
#define FAST_LIM       (1LL<<48)

/* The unsigned order-preserving integer written for a column value (score
** key, or stratifier zkey) under codec c; ML_NEED_RAW when the value is not
** within an ulp of an integer over 10^d. */
static inline int codec_put(int c, ml_key k, uint64_t *u){
  double s, x, back;
  long long i;
  int corr;
  if( c==0 ){ *u = k; return ML_OK; }
  s = ml_double_of(k);
  x = s * aPow10[c-1];
  if( !(fabs(x) <= SCALED_MAX) ) return ML_NEED_RAW;
  i = llround(x);
  for(corr=0; corr<3; corr++){
    int dc = corr==0 ? 0 : corr==1 ? 1 : -1;
    back = scaled_double(i, dc, c-1);
    if( memcmp(&back, &s, 8)==0 ){
      *u = ((uint64_t)(i + SCALED_OFF) << 2) | (uint64_t)(dc + 1);
      return ML_OK;
    }
  }
  return ML_NEED_RAW;
}
/* Value from its written integer: the score key (fold -0.0) or the zkey. */
static inline ml_key codec_get(int c, uint64_t u, int isStrat){
  double s;
  if( c==0 ) return u;
  s = scaled_double(SCALED_INT(u), SCALED_CORR(u), c-1);
  return isStrat ? ml_zkey_of(s) : ml_key_of(s);
}

/* The smallest codec >= c that fits key k (0 when none does). */
static int codec_widen(int c, ml_key k){
  uint64_t u;
  if( c==0 ) return 0;
  for(; c<=ML_STATE_MAX_SCALE+1; c++) if( codec_put(c, k, &u)==ML_OK ) return c;
  return 0;
}

/* ------------------------------------------------------- section writer */

typedef struct SecWriter {
  MlBuf *b;
  uint64_t at;                  /* where the section header starts */
  int codec[2];                 /* codec[1] 255: no stratifier */
  ml_i64 nEntry, n[2];
  uint64_t prev[2];
} SecWriter;

static int sw_begin(SecWriter *w, MlBuf *b, int cs, int cz){
  memset(w, 0, sizeof(*w));
  w->b = b;
  w->at = b->n;
  w->codec[0] = cs; w->codec[1] = cz;
  if( buf_reserve(b, ML_STATE_SECHDR) ) return ML_NOMEM;
  b->n += ML_STATE_SECHDR;
  return ML_OK;
}

static inline int sw_put(SecWriter *w, const MlEntry *e){
  uint64_t u, uz = 0;
  int rc = codec_put(w->codec[0], e->key, &u);
  if( rc ) return rc;
  if( w->codec[1]!=ML_CODEC_NONE ){
    rc = codec_put(w->codec[1], e->zkey, &uz);
    if( rc ) return rc;
  }
  if( buf_reserve(w->b, 40) ) return ML_NOMEM;
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

static void sw_end(SecWriter *w){
  unsigned char *h = w->b->z + w->at;
  h[0] = (unsigned char)w->codec[0];
  h[1] = (unsigned char)w->codec[1];
  h[2] = h[3] = 0;
  put_u64le(h+4, (uint64_t)w->nEntry);
  put_u64le(h+12, (uint64_t)w->n[0]);
  put_u64le(h+20, (uint64_t)w->n[1]);
  put_u64le(h+28, w->b->n - w->at - ML_STATE_SECHDR);
}

static int state_begin(MlBuf *b, int kind, int m, int nSec){
  if( buf_reserve(b, ML_STATE_HDR) ) return ML_NOMEM;
  memcpy(b->z, "MLST", 4);
  b->z[4] = kind==ML_STATE_WEIGHTED ? ML_STATE_VERSION_W : ML_STATE_IS_MC(kind) ? ML_STATE_VERSION_MC
          : ML_STATE_VERSION;
  b->z[5] = (unsigned char)kind;
  b->z[6] = (unsigned char)m;
  b->z[7] = (unsigned char)nSec;
  b->n = ML_STATE_HDR;
  return ML_OK;
}

static int state_end(MlBuf *b){
  uint32_t c;
  if( buf_reserve(b, 4) ) return ML_NOMEM;
  c = ml_crc32c(b->z, b->n);
  b->z[b->n] = (unsigned char)c; b->z[b->n+1] = (unsigned char)(c>>8);
  b->z[b->n+2] = (unsigned char)(c>>16); b->z[b->n+3] = (unsigned char)(c>>24);
  b->n += 4;
  return ML_OK;
}

/* ------------------------------------------------------- parse / verify */

static int bad(char *zErr, int nErr, const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  vsnprintf(zErr, (size_t)nErr, zFmt, ap);
  va_end(ap);
  return ML_STATE_BAD;
}

const char *ml_state_kind_name(const MlState *st, char *buf, int nBuf){
  if( st->kind==ML_STATE_BINARY ) return "binary";
  if( st->kind==ML_STATE_STRAT ) return "binary+strat";
  if( st->kind==ML_STATE_WEIGHTED ) return "weighted";
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

/* Three one-byte varints at p (a rounded probability's delta and counts
** nearly always are): 1 with them in d, c0, c1, when 4 bytes can be read. */
static inline int get3_small(const unsigned char *p, const unsigned char *end,
                             uint64_t *d, uint64_t *c0, uint64_t *c1){
  uint32_t w;
  if( end - p < 4 ) return 0;
  memcpy(&w, p, 4);
  if( w & 0x808080u ) return 0;
  *d = w & 0xff; *c0 = (w >> 8) & 0xff; *c1 = (w >> 16) & 0xff;
  return 1;
}

/* The common section, checked in one tight pass: binary (no stratifier),
** scaled scores, every integer below 2^48 in magnitude (where ascending
** integers are ascending distinct doubles, verify_section's fast case).
** Accepts exactly what verify_section accepts among such sections, and
** records the last integer; 0 when anything is wrong or the section is
** not of this shape: verify_section then decides, and words the error.
** The integers strictly ascend (no delta 0 after the first, no wrap), so
** the range [lo, hi) is checked on the first and the last; the counts'
** sums equal the totals at the end, so no partial sum passed them. */
/* Does any of the 24 bytes at p have its top bit set?  When none does,
** the next 8 entries of a section without stratifier are 3 one-byte
** varints each (the common case of rounded probabilities, whose deltas
** and counts are small): the loops below take them 8 at a time. */
static inline int top_bit_24(const unsigned char *p){
  uint64_t a, b, c;
  memcpy(&a, p, 8); memcpy(&b, p+8, 8); memcpy(&c, p+16, 8);
  return ((a | b | c) & 0x8080808080808080ULL)!=0;
}

/* get3_small and check8 read a section's bytes as little-endian words. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__!=__ORDER_LITTLE_ENDIAN__
# error "ml_state.c reads state payloads as little-endian words (get3_small, check8)"
#endif

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
        return bad(zErr, nErr, "the state is inconsistent: the counts of section %d overflow its totals", iSec+1);
      }
      sum[y] += (ml_i64)c[y];
    }
    prev[0] = u; prev[1] = uz;
  }
  if( p!=end ) goto corrupt;
  if( sum[0]!=s->n[0] || sum[1]!=s->n[1] ){
    return bad(zErr, nErr, "the state is inconsistent: the entries of section %d do not sum to its totals", iSec+1);
  }
  return ML_OK;
corrupt:
  return bad(zErr, nErr, "the state is corrupted: bad entry %lld of section %d", (long long)i+1, iSec+1);
order:
  return bad(zErr, nErr, "the state is corrupted: entries of section %d are not in ascending order", iSec+1);
}

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
static int verify_mc_section(const MlSection *s, int k, int weighted, char *zErr, int nErr, int iSec){
  MlMcReader r;
  MlMcEntry e, last;
  ml_i64 i, sum = 0;
  int rc;
  ml_mc_reader_init(&r, s, k, weighted);
  for(i=0; i<s->nEntry; i++){
    rc = ml_mc_reader_next(&r, &e);
    if( rc<=0 ){
      return bad(zErr, nErr, "the state is corrupted: bad entry %lld of section %d", (long long)i+1, iSec+1);
    }
    if( i>0 && mc_entry_cmp(&last, &e, k)>=0 ){
      return bad(zErr, nErr, "the state is corrupted: entries of section %d are not in ascending order", iSec+1);
    }
    if( e.n > s->n[1] - sum ){
      return bad(zErr, nErr, "the state is inconsistent: the counts of section %d overflow its totals", iSec+1);
    }
    sum += e.n;
    last = e;
  }
  if( r.p!=r.end ){
    return bad(zErr, nErr, "the state is corrupted: %llu bytes after the last entry of section %d",
               (unsigned long long)(r.end - r.p), iSec+1);
  }
  if( sum!=s->n[1] ){
    return bad(zErr, nErr, "the state is inconsistent: the entries of section %d do not sum to its totals", iSec+1);
  }
  return ML_OK;
}

static int state_parse(const void *blob, uint64_t n, MlState *st, char *zErr, int nErr, int verify){
  const unsigned char *z = blob;
  uint64_t at, need, mcRows = 0;
  int i, version;
  memset(st, 0, sizeof(*st));
  if( n<4 || memcmp(z, "MLST", 4)!=0 ){
    return bad(zErr, nErr, "the blob is not an mleval state (no MLST header; make one with ml_state())");
  }
  if( n<ML_STATE_HDR ) return bad(zErr, nErr, "the state is truncated (%llu bytes)", (unsigned long long)n);
  version = z[4];
  if( version>ML_STATE_VERSION_MC ){
    return bad(zErr, nErr, "the state has format version %d, newer than this mleval reads (%d): upgrade mleval",
               version, ML_STATE_VERSION_MC);
  }
  if( version<1 ) return bad(zErr, nErr, "the state has an unknown format version 0");
  st->kind = z[5]; st->m = z[6]; st->nSec = z[7];
  /* Length first: the sections announce their sizes. */
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
      return bad(zErr, nErr, "the state is corrupted: %llu bytes after its end", (unsigned long long)(n - need));
    }
  }else if( n < ML_STATE_HDR + 4 ){
    goto truncated;
  }
  if( verify ){
    const unsigned char *t = z + n - 4;
    uint32_t want = (uint32_t)t[0] | (uint32_t)t[1]<<8 | (uint32_t)t[2]<<16 | (uint32_t)t[3]<<24;
    if( ml_crc32c(z, n - 4)!=want ) return bad(zErr, nErr, "the state is corrupted (checksum mismatch)");
  }
  /* The checksum holds: now the meaning. */
  if( (version==ML_STATE_VERSION_W) != (st->kind==ML_STATE_WEIGHTED)
   || (version==ML_STATE_VERSION_MC) != ML_STATE_IS_MC(st->kind) ){
    return bad(zErr, nErr, "the state is inconsistent: kind %d in format version %d", st->kind, version);
  }
  if( st->kind==ML_STATE_BINARY || st->kind==ML_STATE_STRAT || st->kind==ML_STATE_WEIGHTED ){
    if( st->m!=1 || st->nSec!=1 ) return bad(zErr, nErr, "the state is inconsistent: kind %d with m = %d and %d sections", st->kind, st->m, st->nSec);
  }else if( st->kind==ML_STATE_ORDINAL ){
    if( st->m<1 || st->m>ML_STATE_MAX_CUTS || st->nSec!=st->m+1 ){
      return bad(zErr, nErr, "the state is inconsistent: ordinal with m = %d and %d sections", st->m, st->nSec);
    }
  }else if( ML_STATE_IS_MC(st->kind) ){
    if( st->m<2 || st->m>ML_STATE_MAX_K || st->nSec!=st->m ){
      return bad(zErr, nErr, "the state is inconsistent: multiclass with k = %d and %d sections", st->m, st->nSec);
    }
  }else{
    return bad(zErr, nErr, "the state has an unknown kind %d", st->kind);
  }
  at = ML_STATE_HDR;
  for(i=0; i<st->nSec; i++){
    MlSection *s = &st->sec[i];
    const unsigned char *h = z + at;
    uint64_t ne = get_u64le(h+4), n0 = get_u64le(h+12), n1 = get_u64le(h+20);
    int isStrat = st->kind==ML_STATE_STRAT || st->kind==ML_STATE_MC_W ? 1 : st->kind==ML_STATE_WEIGHTED ? 2 : 0, rc;
    int mc = ML_STATE_IS_MC(st->kind);
    s->codec[0] = h[0]; s->codec[1] = h[1];
    if( !codec_valid(s->codec[0]) || h[2] || h[3]
     || (isStrat ? !codec_valid(s->codec[1]) : s->codec[1]!=ML_CODEC_NONE) ){
      return bad(zErr, nErr, "the state is corrupted: unknown codec in section %d", i+1);
    }
    if( n0 > (uint64_t)ML_STATE_MAX_ROWS || n1 > (uint64_t)ML_STATE_MAX_ROWS
     || n0 + n1 > (uint64_t)ML_STATE_MAX_ROWS ){
      return bad(zErr, nErr, "the state's counts overflow: section %d claims more than 2^53 rows", i+1);
    }
    s->nByte = get_u64le(h+28);
    if( mc && n0!=0 ){
      return bad(zErr, nErr, "the state is inconsistent: section %d of a multiclass state counts negatives", i+1);
    }
    if( (mc ? ne > s->nByte/(uint64_t)(st->m + 1) : ne > s->nByte/3) || (ne==0) != (n0+n1==0) || ne > n0+n1 ){
      return bad(zErr, nErr, "the state is inconsistent: section %d has %llu entries for %llu rows",
                 i+1, (unsigned long long)ne, (unsigned long long)(n0+n1));
    }
    s->nEntry = (ml_i64)ne; s->n[0] = (ml_i64)n0; s->n[1] = (ml_i64)n1;
    s->p = h + ML_STATE_SECHDR;
    if( mc ){
      if( verify ){
        rc = verify_mc_section(s, st->m, st->kind==ML_STATE_MC_W, zErr, nErr, i);
        if( rc ) return rc;
      }
      mcRows += n1;
      if( mcRows > (uint64_t)ML_STATE_MAX_ROWS ){
        return bad(zErr, nErr, "the state's counts overflow: its sections claim more than 2^53 rows");
      }
    }else if( verify && (isStrat || !verify_scaled_fast(s)) ){
      rc = verify_section(s, isStrat, zErr, nErr, i);
      if( rc ) return rc;
    }
    at += ML_STATE_SECHDR + s->nByte;
  }
  if( st->kind==ML_STATE_ORDINAL ){
    ml_i64 tot = st->sec[0].n[0] + st->sec[0].n[1];
    for(i=1; i<st->m; i++){
      if( st->sec[i].n[0] + st->sec[i].n[1] != tot ){
        return bad(zErr, nErr, "the state is inconsistent: its cuts hold different numbers of rows");
      }
    }
    for(i=1; i<st->m; i++){
      if( st->sec[i].n[1] > st->sec[i-1].n[1] ){
        return bad(zErr, nErr, "the state is inconsistent: cut %d has more rows at or above its severity (%lld)"
                   " than cut %d (%lld)", i+1, (long long)st->sec[i].n[1], i, (long long)st->sec[i-1].n[1]);
      }
    }
    if( st->sec[st->m].n[0] + st->sec[st->m].n[1] != st->sec[0].n[1]
     || st->sec[st->m].n[1] != st->sec[st->m-1].n[1] ){
      return bad(zErr, nErr, "the state is inconsistent: its severity run does not match its cuts");
    }
  }
  return ML_OK;
truncated:
  return bad(zErr, nErr, "the state is truncated (%llu bytes, shorter than its sections announce)",
             (unsigned long long)n);
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

static int cmp_zkey16(const void *a, const void *b){
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
      if( j-i>1 ) qsort(s->a[y] + (size_t)i*16, (size_t)(j-i), 16, cmp_zkey16);
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
    if( c[0] ) c[0] = codec_widen(c[0], e.key);
    if( strat && c[1] ) c[1] = codec_widen(c[1], e.zkey);
  }
  for(;;){
    int n0, n1;
    if( sw_begin(&w, b, c[0], c[1]) ) return ML_NOMEM;
    memset(&it, 0, sizeof(it)); it.s = s;
    rc = ML_OK;
    while( rc==ML_OK && smp_next(&it, &e) ) rc = sw_put(&w, &e);
    if( rc==ML_NOMEM ) return rc;
    if( rc==ML_OK ){ sw_end(&w); return ML_OK; }
    b->n = at;                                       /* entry e did not fit */
    n0 = c[0] ? codec_widen(c[0], e.key) : 0;
    n1 = strat && c[1] ? codec_widen(c[1], e.zkey) : c[1];
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
  if( state_begin(out, kind, kind==ML_STATE_ORDINAL ? nSmp-1 : 1, nSmp) ) return ML_NOMEM;
  for(i=0; i<nSmp; i++){
    if( ml_samples_sort(smp[i]) ){ ml_buf_free(out); return ML_NOMEM; }
    if( kind==ML_STATE_STRAT || kind==ML_STATE_WEIGHTED ) sort_blocks_by_aux(smp[i]);
    if( encode_section(smp[i], kind==ML_STATE_STRAT || kind==ML_STATE_WEIGHTED, out) ){ ml_buf_free(out); return ML_NOMEM; }
  }
  if( state_end(out) ){ ml_buf_free(out); return ML_NOMEM; }
  return ML_OK;
}

/* ---------------------------------------------------------------- merge */

int ml_state_kinds_join(int a, int b){
  return a==b || (a==ML_STATE_BINARY && b==ML_STATE_WEIGHTED) || (a==ML_STATE_WEIGHTED && b==ML_STATE_BINARY)
      || (ML_STATE_IS_MC(a) && ML_STATE_IS_MC(b));
}

/* The weight column of a section in a merge whose result is weighted: a
** binary section's rows weigh 1, the integer 1 under the scaled codec 1 + 0,
** and its reader gives 1.0's zkey. */
static int zcodec(const MlSection *s, int weighted){
  return weighted && s->codec[1]==ML_CODEC_NONE ? 1 : s->codec[1];
}
static void reader_init_as(MlReader *r, const MlSection *sec, int weighted){
  ml_reader_init(r, sec);
  if( weighted && sec->codec[1]==ML_CODEC_NONE ) r->zNone = ml_zkey_of(1.0);
}

static int codec_join(int a, int b){
  if( a==ML_CODEC_NONE ) return a;
  if( a==0 || b==0 ) return 0;
  return a>b ? a : b;
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
  if( sw_begin(&w, out, c0, c1) ) return ML_NOMEM;
  reader_init_as(&ra, a, weighted); reader_init_as(&rb, b, weighted);
  ha = ml_reader_next(&ra, &ea); hb = ml_reader_next(&rb, &eb);
  while( rc==ML_OK && (ha || hb) ){
    int c = !ha ? 1 : !hb ? -1 : entry_cmp(&ea, &eb);
    if( c<0 ){ e = ea; ha = ml_reader_next(&ra, &ea); }
    else if( c>0 ){
      if( sign<0 ) return bad(zErr, nErr, "the state removed holds rows the merged states do not");
      e = eb; hb = ml_reader_next(&rb, &eb);
    }else{
      e = ea;
      e.n[0] += sign*eb.n[0]; e.n[1] += sign*eb.n[1];
      if( e.n[0]<0 || e.n[1]<0 ) return bad(zErr, nErr, "the state removed holds rows the merged states do not");
      ha = ml_reader_next(&ra, &ea); hb = ml_reader_next(&rb, &eb);
      if( e.n[0]+e.n[1]==0 ) continue;
    }
    rc = sw_put(&w, &e);
  }
  if( rc ) return rc;
  sw_end(&w);
  return ML_OK;
}

static int mc_merge_states(const MlState *st, int ns, int subtract, MlBuf *out, char *zErr, int nErr);

int ml_state_merge(const MlState *a, const MlState *b, int sign, MlBuf *out, char *zErr, int nErr){
  int i, rc, weighted = a->kind==ML_STATE_WEIGHTED || b->kind==ML_STATE_WEIGHTED;
  memset(out, 0, sizeof(*out));
  if( ML_STATE_IS_MC(a->kind) ){
    MlState *two = ml_malloc(2*sizeof(MlState));
    if( two==0 ) return ML_NOMEM;
    two[0] = *a; two[1] = *b;
    rc = mc_merge_states(two, 2, sign<0, out, zErr, nErr);
    ml_free(two);
    return rc;
  }
  if( !ml_state_kinds_join(a->kind, b->kind) || a->m!=b->m ){
    char b1[32], b2[32];
    return bad(zErr, nErr, "states of different kinds in one group: %s and then %s",
               ml_state_kind_name(a, b1, sizeof(b1)), ml_state_kind_name(b, b2, sizeof(b2)));
  }
  for(i=0; i<a->nSec; i++){
    if( sign>0 && (a->sec[i].n[0] + b->sec[i].n[0] > ML_STATE_MAX_ROWS
                || a->sec[i].n[1] + b->sec[i].n[1] > ML_STATE_MAX_ROWS
                || a->sec[i].n[0] + b->sec[i].n[0] + a->sec[i].n[1] + b->sec[i].n[1] > ML_STATE_MAX_ROWS) ){
      return bad(zErr, nErr, "counts overflow: the merged state would hold more than 2^53 rows");
    }
  }
  if( state_begin(out, weighted ? ML_STATE_WEIGHTED : a->kind, a->m, a->nSec) ) return ML_NOMEM;
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
  if( state_end(out) ){ ml_buf_free(out); return ML_NOMEM; }
  return ML_OK;
}

/* --------------------------------------------------------- k-way merge */

/* Merges k sections' entries into one ascending stream, equal (key, zkey)
** entries combined: a binary heap of readers, O(log k) per entry. */
typedef struct MlMerger {
  int k, nHeap;
  MlReader *r;
  MlEntry *head;
  int *heap;
  /* Counting mode: every section holds scaled scores (integers over 10^d)
  ** and no stratifier, and the integers span a range not much wider than
  ** the entries: the counts of each integer are added in a table indexed
  ** by it, then read back in order.  O(entries + range), no comparisons:
  ** merging many states of rounded probabilities costs one pass. */
  ml_i64 (*cnt)[2];
  int64_t lo, nSlot, at;
  int scale;
} MlMerger;

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

static int merger_init(MlMerger *m, const MlSection *const *secs, int k, int weighted){
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

static void merger_free(MlMerger *m){ ml_free(m->r); m->r = 0; ml_free(m->cnt); m->cnt = 0; }

/* The next combined entry; 0 at the end. */
static int merger_next(MlMerger *m, MlEntry *e){
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
  if( sw_begin(&w, out, c0, c1) ) return ML_NOMEM;
  if( merger_init(&m, secs, k, weighted) ) return ML_NOMEM;
  while( rc==ML_OK && merger_next(&m, &e) ) rc = sw_put(&w, &e);
  merger_free(&m);
  if( rc ) return rc;
  sw_end(&w);
  return ML_OK;
}

/* k states of one kind (validated, checked alike) merged into one. */
static int kmerge_states(const MlState *st, int k, MlBuf *out, char *zErr, int nErr){
  const MlSection **secs;
  int i, j, rc = ML_OK, kind = st[0].kind, weighted;
  if( ML_STATE_IS_MC(kind) ) return mc_merge_states(st, k, 0, out, zErr, nErr);
  memset(out, 0, sizeof(*out));
  for(j=1; j<k; j++) if( st[j].kind==ML_STATE_WEIGHTED ) kind = ML_STATE_WEIGHTED;
  weighted = kind==ML_STATE_WEIGHTED;
  secs = ml_malloc(sizeof(*secs) * (uint64_t)k);
  if( secs==0 ) return ML_NOMEM;
  for(i=0; i<st[0].nSec; i++){
    ml_i64 t[2] = {0, 0};
    for(j=0; j<k; j++) secs[j] = &st[j].sec[i];
    if( ml_state_add_counts(t, secs, k, zErr, nErr) ){ ml_free(secs); return ML_STATE_BAD; }
  }
  if( state_begin(out, kind, st[0].m, st[0].nSec) ){ ml_free(secs); return ML_NOMEM; }
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
  if( rc==ML_OK ) rc = state_end(out);
  if( rc ) ml_buf_free(out);
  return rc;
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
  return sw_begin(&w->sw, b, cs, weighted ? cw : ML_CODEC_NONE);
}

/* Appends an entry; ML_NEED_RAW when a scaled codec does not fit. */
static int mw_put(McWriter *w, const MlMcEntry *e){
  uint64_t u[ML_STATE_MAX_K+1];
  int j, n = w->k + (w->weighted ? 1 : 0), rc;
  for(j=0; j<n; j++){
    rc = codec_put(j<w->k ? w->sw.codec[0] : w->sw.codec[1], j<w->k ? e->p[j] : e->w, &u[j]);
    if( rc ) return rc;
  }
  if( buf_reserve(w->sw.b, 10*(uint64_t)(n + 1)) ) return ML_NOMEM;
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
  if( state_begin(out, weighted ? ML_STATE_MC_W : ML_STATE_MC, k, k) ){ ml_free(ix); return ML_NOMEM; }
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
      for(j=0; j<k && cs; j++) cs = codec_widen(cs, e.p[j]);
      if( cw ) cw = codec_widen(cw, e.w);
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
    if( rc==ML_OK ) sw_end(&mw.sw);
    lo = hi;
  }
  ml_free(ix);
  if( rc==ML_OK ) rc = state_end(out);
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
      rc = bad(zErr, nErr, "the state removed holds rows the merged states do not");
      break;
    }
    e.n = pos - neg;
    if( e.n>0 ) rc = mw_put(&mw, &e);
  }
#undef MC_LESS
  ml_free(r);
  if( rc==ML_OK ) sw_end(&mw.sw);
  return rc;
}

/* ns multiclass states (validated, of one k) merged into one, or (subtract,
** ns = 2) the second's rows removed from the first. */
static int mc_merge_states(const MlState *st, int ns, int subtract, MlBuf *out, char *zErr, int nErr){
  int i, j, rc = ML_OK, k = st[0].m, weighted = 0;
  uint64_t tot = 0;
  memset(out, 0, sizeof(*out));
  for(j=0; j<ns; j++){
    if( !ML_STATE_IS_MC(st[j].kind) || st[j].m!=k ){
      char b1[40], b2[40];
      if( ML_STATE_IS_MC(st[j].kind) ){
        return bad(zErr, nErr, "multiclass states with different k in one group: k = %d and then k = %d",
                   k, st[j].m);
      }
      return bad(zErr, nErr, "states of different kinds in one group: %s and then %s",
                 ml_state_kind_name(&st[0], b1, sizeof(b1)), ml_state_kind_name(&st[j], b2, sizeof(b2)));
    }
    if( st[j].kind==ML_STATE_MC_W ) weighted = 1;
    if( !subtract ) for(i=0; i<k; i++) tot += (uint64_t)st[j].sec[i].n[1];
  }
  if( tot > (uint64_t)ML_STATE_MAX_ROWS ){
    return bad(zErr, nErr, "counts overflow: the merged state would hold more than 2^53 rows");
  }
  if( subtract && st[1].kind==ML_STATE_MC_W && st[0].kind!=ML_STATE_MC_W ){
    return bad(zErr, nErr, "the state removed holds rows the merged states do not");
  }
  if( subtract ) weighted = st[0].kind==ML_STATE_MC_W;
  if( state_begin(out, weighted ? ML_STATE_MC_W : ML_STATE_MC, k, k) ) return ML_NOMEM;
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
  if( rc==ML_OK ) rc = state_end(out);
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
      return bad(zErr, nErr, "multiclass states with different k in one group: k = %d and then k = %d",
                 acc->m, st->m);
    }
    return bad(zErr, nErr, "states of different kinds in one group: %s and then %s",
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
  if( acc->n==0 || st->kind==ML_STATE_WEIGHTED || st->kind==ML_STATE_MC_W ) acc->kind = st->kind;   /* binary + weighted: weighted */
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
  if( z==0 ) return bad(zErr, nErr, "the state removed holds rows the merged states do not");
  ml_state_parse_own(z, nz, &sa);
  rc = ml_state_merge(&sa, st, -1, &out, zErr, nErr);
  if( rc ) return rc;
  ml_free(acc->a[0].z);
  acc->a[0].z = out.z;
  acc->a[0].n = out.n;
  acc->a[0].lastMask = 0;
  return ML_OK;
}

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

int ml_state_add_counts(ml_i64 held[2], const MlSection *const *secs, int k, char *zErr, int nErr){
  uint64_t t[2];
  int j, y;
  for(y=0; y<2; y++) t[y] = (uint64_t)held[y];
  for(j=0; j<k; j++){
    for(y=0; y<2; y++) t[y] += (uint64_t)secs[j]->n[y];     /* each <= 2^53: no wrap before the test */
    if( t[0] > (uint64_t)ML_STATE_MAX_ROWS || t[1] > (uint64_t)ML_STATE_MAX_ROWS
     || t[0] + t[1] > (uint64_t)ML_STATE_MAX_ROWS ){
      return bad(zErr, nErr, "counts overflow: the merged state would hold more than 2^53 rows");
    }
  }
  for(y=0; y<2; y++) held[y] = (ml_i64)t[y];
  return ML_OK;
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
      return bad(zErr, nErr, "the states hold %lld rows of one class: this function takes a state's rows"
                 " one by one and holds at most %lld", (long long)(n[y] + m[y]), (long long)(0x7fffff00u / w));
    }
    if( n[y] + m[y] > s->cap[y] ){
      unsigned char *a = ml_realloc(s->a[y], (uint64_t)(n[y] + m[y]) * w);
      if( a==0 ) return ML_NOMEM;
      s->a[y] = a;
      s->cap[y] = n[y] + m[y];
    }
  }
  if( merger_init(&mg, secs, k, 0) ) return ML_NOMEM;
  for(y=0; y<2; y++){
    if( m[y] && n[y] ) memmove(s->a[y] + (size_t)m[y]*w, s->a[y], (size_t)n[y]*w);
    src[y] = s->a[y] ? s->a[y] + (size_t)m[y]*w : 0;   /* no array: no rows of this class */
    dst[y] = s->a[y];
  }
  while( merger_next(&mg, &e) ){
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
      if( dst[y]==0 ){ merger_free(&mg); return ML_STOPPED; }
    }
  }
  merger_free(&mg);
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
          qsort(a + (size_t)i*w, (size_t)(j-i), w, cmp_zkey16);
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
      return bad(zErr, nErr, "the states hold %lld entries of one class: this function holds"
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
    if( j<nDel ) return bad(zErr, nErr, "the state removed holds rows the merged states do not");
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
    return bad(zErr, nErr, "the states hold %lld distinct scores: this function holds at most %lld",
               (long long)t, (long long)(0x7fffff00u / sizeof(MlRun)));
  }
  if( ml_samples_to_runs(s, nEntry) ) return ML_NOMEM;
  if( merger_init(&mg, secs, k, 0) ) return ML_NOMEM;
  nHeld = s->nRun;
  src = s->run + nEntry;
  if( nHeld ) memmove(src, s->run, sizeof(MlRun) * (size_t)nHeld);
  while( merger_next(&mg, &e) ){
    MlRun *r;
    while( i<nHeld && src[i].key<e.key ) s->run[out++] = src[i++];
    if( out>0 && s->run[out-1].key==e.key ) r = &s->run[out-1];
    else if( i<nHeld && src[i].key==e.key ){ s->run[out] = src[i++]; r = &s->run[out++]; }
    else{ r = &s->run[out++]; r->key = e.key; r->n[0] = r->n[1] = 0; }
    r->n[0] += e.n[0];
    r->n[1] += e.n[1];
  }
  merger_free(&mg);
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
