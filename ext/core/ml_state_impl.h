/*
** SPDX-License-Identifier: MIT
**
** ml_state_impl.h -- what the state files share and nothing outside them
** reads: the codec (varints, scaled integers), the section writer, the
** state's header and trailer, the error text, and the k-way merger.
** ml_state.h is the format and the interface; this header is private to
** ext/core/ml_state*.c.
**
** Provides: static inline codec and varint helpers (put_varint, get_varint,
** get_varint_fast, scaled_double, codec_put, codec_get, get3_small,
** top_bit_24, zcodec, codec_join), the SecWriter (ml_sw_*, ml_state.c),
** ml_state_begin / ml_state_end, ml_state_bad, ml_codec_widen,
** ml_cmp_zkey16 (ml_state.c), ml_mc_verify_section and ml_mc_merge_states
** (ml_state_mc.c), and the MlMerger (ml_state_merge.c).
**
** Rules:
**   1. Only the state files include it (ml_state.c, ml_state_merge.c,
**      ml_state_mc.c, ml_state_absorb.c); the helpers a payload's every
**      entry passes through are static inline here, so that each file's
**      loops inline them as the one file did.
**   2. Everything declared here has one definition, in the file named.
**
** Cost: no code of its own beyond the inline helpers.
*/
#ifndef ML_STATE_IMPL_H
#define ML_STATE_IMPL_H

#include <math.h>
#include <string.h>
#include "ml_state.h"

#define ML_NEED_RAW 3          /* internal: a scaled codec does not fit */
#define TOP_BIT 0x8000000000000000ULL

static const double aPow10[ML_STATE_MAX_SCALE+1] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12
};
#define SCALED_MAX 4503599627370496.0     /* 2^52 */

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

typedef struct SecWriter {
  MlBuf *b;
  uint64_t at;                  /* where the section header starts */
  int codec[2];                 /* codec[1] 255: no stratifier */
  ml_i64 nEntry, n[2];
  uint64_t prev[2];
} SecWriter;

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
# error "the state code reads state payloads as little-endian words (get3_small, check8)"
#endif

/* The weight column of a section in a merge whose result is weighted: a
** binary section's rows weigh 1, the integer 1 under the scaled codec 1 + 0,
** and its reader gives 1.0's zkey. */
static inline int zcodec(const MlSection *s, int weighted){
  return weighted && s->codec[1]==ML_CODEC_NONE ? 1 : s->codec[1];
}
/* The codec of a merged column: the wider scale; raw when either is raw;
** none (255) when the first column is none. */
static inline int codec_join(int a, int b){
  if( a==ML_CODEC_NONE ) return a;
  if( a==0 || b==0 ) return 0;
  return a>b ? a : b;
}

/* ml_state.c: the buffer, the codecs, the section writer. */
/* Room for extra more bytes: ML_OK, or ML_NOMEM (the buffer freed, oom set). */
int ml_buf_reserve(MlBuf *b, uint64_t extra);
/* The smallest codec >= c that fits key k (0 when none does). */
int ml_codec_widen(int c, ml_key k);
/* A section: begun (its header reserved), entries appended in ascending
** order (ML_NEED_RAW when a scaled codec does not fit, ML_NOMEM), ended
** (its header written). */
int ml_sw_begin(SecWriter *w, MlBuf *b, int cs, int cz);
int ml_sw_put(SecWriter *w, const MlEntry *e);
void ml_sw_end(SecWriter *w);
/* A state's header (nSec sections of kind, m) and its CRC-32C trailer. */
int ml_state_begin(MlBuf *b, int kind, int m, int nSec);
int ml_state_end(MlBuf *b);
/* Writes the message into zErr; returns ML_STATE_BAD. */
int ml_state_bad(char *zErr, int nErr, const char *zFmt, ...);
/* qsort comparator of 16-byte records by their stratifier's zkey. */
int ml_cmp_zkey16(const void *a, const void *b);

/* ml_state_mc.c: a multiclass section walked and checked (state_parse);
** ns multiclass states merged (ml_state_merge, ml_state_kmerge). */
int ml_mc_verify_section(const MlSection *s, int k, int weighted, char *zErr, int nErr, int iSec);
int ml_mc_merge_states(const MlState *st, int ns, int subtract, MlBuf *out, char *zErr, int nErr);

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

/* ml_state_merge.c: k sections merged into one ascending stream (without
** stratifier and unweighted, possibly by counting: MlMerger); the next
** combined entry, 0 at the end. */
int ml_merger_init(MlMerger *m, const MlSection *const *secs, int k, int weighted);
int ml_merger_next(MlMerger *m, MlEntry *e);
void ml_merger_free(MlMerger *m);

#endif /* ML_STATE_IMPL_H */
