/*
** SPDX-License-Identifier: MIT
**
** ml_xsum.c -- exact sums of doubles: every streaming sum in mleval (brier,
** log_loss, the per-bin sums of ece and reliability) goes through here, so a
** window frame's sum is the correctly rounded sum of the frame's terms,
** whatever entered and left before, and equals the aggregate over the same
** rows bit for bit.
**
** MlXsum is R. M. Neal's "small superaccumulator" (Fast exact summation using
** small and large superaccumulators, arXiv:1505.05571), written afresh:
**
**   1. A finite double is m * 2^(e-1075) with m its 53-bit mantissa (no
**      implicit bit, and e taken as 1, for subnormals).  Writing e = 32h + l,
**      m << l (at most 84 bits) splits into a low 32-bit part, added to
**      chunk[h], and a high part (< 2^52), added to chunk[h+1]: chunk i
**      counts units of 2^(32i - 1075).  Subtracting adds the negated parts.
**   2. The chunks are int64: 1023 adds or subtracts leave every chunk below
**      2^62 in magnitude, so a carry pass (each chunk reduced to 0..2^32-1,
**      the rest carried up; the top chunk keeps the sign) runs once per 1023
**      terms.  Every state is an exact integer multiple of 2^-1075: the value
**      is the exact sum of the terms held, independent of their order.
**   3. Rounding (ml_xsum_round) takes the top 65..96 bits and a sticky bit,
**      and rounds to nearest, ties to even: the correctly rounded sum.  The
**      result is exact when the sum is subnormal; beyond DBL_MAX it is +-Inf.
**   4. +-Inf and NaN terms are counted apart (removable too): any NaN, or
**      both infinities, gives NaN; one infinity gives it.
**
** MlPSum is the compact exact sum of probabilities (doubles in [0, 1]) that
** the per-bin sums use: a probability p >= 2^-17 is an integer multiple of
** 2^-69 below 2^70, so those terms sum exactly in a 128-bit fixed-point
** integer (no overflow below 2^58 terms); the rarer 0 < p < 2^-17 go to an
** MlXsum allocated on first use.  With bins <= 100000 < 2^17 only bin 0 can
** ever hold such a p.
**
** Cost: ml_xsum_add is a handful of integer operations and no branch
** taken in the common case (about 15 instructions), plus a carry pass of 67
** chunks every 1023 terms.  sizeof(MlXsum) = 67*8 + 32 = 568 bytes, held once
** per brier / log_loss aggregate.  ml_xsum_round is O(67).  MlPSum: 24 bytes
** per bin (+ 568 bytes in a bin that sees a p < 2^-17), one shift and a
** 128-bit add per term; ece's 100000 bins take 2.4 MB rather than the 57 MB
** a superaccumulator per bin would.
*/
#include <math.h>
#include <float.h>
#include "ml_core.h"

#define XS_LOW_MASK   0xFFFFFFFFLL
#define XS_MANT_MASK  0x000FFFFFFFFFFFFFULL

__extension__ typedef unsigned __int128 xs_u128;

/* Reduces every chunk but the top one to 0..2^32-1, carrying the rest up. */
static void xsum_carry(MlXsum *a){
  int i;
  for(i=0; i<ML_XSUM_CHUNKS-1; i++){
    int64_t c = a->chunk[i];
    a->chunk[i+1] += c >> 32;          /* arithmetic shift: floor(c / 2^32) */
    a->chunk[i] = c & XS_LOW_MASK;
  }
  a->nAdd = 0;
}

void ml_xsum_init(MlXsum *a){
  memset(a, 0, sizeof(*a));
}

void ml_xsum_add_slow(MlXsum *a, double x, int sign){
  uint64_t u;
  memcpy(&u, &x, 8);
  if( ((u>>52) & 0x7FF)==0x7FF ){                 /* Inf or NaN */
    if( u & XS_MANT_MASK ) a->nNan += sign;
    else if( u>>63 ) a->nNegInf += sign;
    else a->nPosInf += sign;
    return;
  }
  xsum_carry(a);
  ml_xsum_add_finite(a, x, sign);
}

/* Copies the value of a into b as a sign and a magnitude in normalised
** chunks.  Returns -1, 0 or 1. */
static int xsum_magnitude(const MlXsum *a, MlXsum *b){
  int i;
  *b = *a;
  xsum_carry(b);
  if( b->chunk[ML_XSUM_CHUNKS-1] < 0 ){
    for(i=0; i<ML_XSUM_CHUNKS; i++) b->chunk[i] = -b->chunk[i];
    xsum_carry(b);
    return -1;
  }
  for(i=ML_XSUM_CHUNKS-1; i>=0; i--) if( b->chunk[i] ) return 1;
  return 0;
}

double ml_xsum_round(const MlXsum *a){
  MlXsum b;
  int sign, t, i, len, shift;
  xs_u128 w, rem, half;
  uint64_t mant;
  int sticky = 0;
  double r;
  if( a->nNan || (a->nPosInf && a->nNegInf) ) return NAN;
  if( a->nPosInf ) return INFINITY;
  if( a->nNegInf ) return -INFINITY;
  sign = xsum_magnitude(a, &b);
  if( sign==0 ) return 0.0;
  for(t=ML_XSUM_CHUNKS-1; b.chunk[t]==0; t--){}
  if( t==ML_XSUM_CHUNKS-1 ) return sign * INFINITY;    /* >= 2^1037 */
  /* w = the top three chunks (t-2 may be negative: missing chunks are 0) */
  w = 0;
  for(i=t; i>=t-2; i--) w = (w<<32) | (xs_u128)(i>=0 ? (uint64_t)b.chunk[i] : 0);
  for(i=t-3; i>=0 && !sticky; i--) sticky = b.chunk[i]!=0;
  for(len=0; (w>>len)!=0; len++){}
  /* w's unit is 2^(32(t-2) - 1075); its top bit has weight 2^(len-1) units */
  shift = len - 53;
  if( shift<=0 ){
    mant = (uint64_t)w;                                /* exact */
    shift = 0;
  }else{
    mant = (uint64_t)(w >> shift);
    rem = w & (((xs_u128)1 << shift) - 1);
    half = (xs_u128)1 << (shift-1);
    if( rem>half || (rem==half && (sticky || (mant & 1))) ) mant++;
  }
  /* A subnormal result is exact (every term is a multiple of 2^-1074), and
  ** ldexp of a 53-bit integer into the normal range is exact too; above
  ** DBL_MAX it gives Inf, as rounding to nearest does. */
  r = ldexp((double)mant, shift + 32*(t-2) - 1075);
  return sign<0 ? -r : r;
}

int ml_xsum_sign(const MlXsum *a){
  MlXsum b;
  if( a->nNan || (a->nPosInf && a->nNegInf) ) return 0;
  if( a->nPosInf ) return 1;
  if( a->nNegInf ) return -1;
  return xsum_magnitude(a, &b);
}

/* ------------------------------------------------------ probability sums */

int ml_psum_add_small(MlPSum *s, double p, int sign){
  if( p==0.0 ) return ML_OK;
  if( s->tiny==0 ){
    s->tiny = ml_malloc(sizeof(MlXsum));
    if( s->tiny==0 ) return ML_NOMEM;
    ml_xsum_init(s->tiny);
  }
  ml_xsum_add(s->tiny, p, sign);
  return ML_OK;
}

double ml_psum_round(const MlPSum *s){
  xs_u128 acc = ((xs_u128)s->hi << 64) | s->lo;
  MlXsum x;
  int k;
  if( s->tiny==0 || ml_xsum_sign(s->tiny)==0 ){
    /* the conversion rounds correctly; the scaling is exact (>= 2^-69) */
    return ldexp((double)acc, -69);
  }
  x = *s->tiny;
  for(k=0; k<3 && acc!=0; k++){                     /* 52-bit pieces are exact doubles */
    ml_xsum_add(&x, ldexp((double)(uint64_t)(acc & XS_MANT_MASK), 52*k - 69), 1);
    acc >>= 52;
  }
  return ml_xsum_round(&x);
}

void ml_psum_clear(MlPSum *s){
  ml_free(s->tiny);
  memset(s, 0, sizeof(*s));
}

/* n copies of x, exactly: x * n is hi + lo exactly (n < 2^53 is an exact
** double, and fma gives the product's low part), so the sum is the one n
** separate additions make, in two.  A product that overflows is split. */
void ml_xsum_add_n(MlXsum *a, double x, ml_i64 n, int sign){
  double hi, lo;
  uint64_t u;
  if( n<=0 ) return;
  if( n==1 ){ ml_xsum_add(a, x, sign); return; }
  memcpy(&u, &x, 8);
  if( ((u>>52) & 0x7FF)==0x7FF ){                 /* Inf or NaN: counted */
    if( u & XS_MANT_MASK ) a->nNan += sign * n;
    else if( u>>63 ) a->nNegInf += sign * n;
    else a->nPosInf += sign * n;
    return;
  }
  hi = x * (double)n;
  if( !isfinite(hi) ){
    ml_xsum_add_n(a, x, n/2, sign);
    ml_xsum_add_n(a, x, n - n/2, sign);
    return;
  }
  lo = fma(x, (double)n, -hi);
  ml_xsum_add(a, hi, sign);
  ml_xsum_add(a, lo, sign);
}

int ml_psum_add_n(MlPSum *s, double p, ml_i64 n, int sign){
  uint64_t u;
  unsigned e;
  xs_u128 v, acc;
  if( n<=0 ) return ML_OK;
  if( n==1 ) return ml_psum_add(s, p, sign);
  memcpy(&u, &p, 8);
  e = (unsigned)(u>>52) & 0x7FF;
  if( e < 1023-17 ){
    if( p==0.0 ) return ML_OK;
    if( s->tiny==0 ){
      s->tiny = ml_malloc(sizeof(MlXsum));
      if( s->tiny==0 ) return ML_NOMEM;
      ml_xsum_init(s->tiny);
    }
    ml_xsum_add_n(s->tiny, p, n, sign);
    return ML_OK;
  }
  /* p * 2^69 < 2^70 times n <= 2^53: below 2^123, no wrap */
  v = ((xs_u128)((u & 0x000FFFFFFFFFFFFFULL) | (1ULL<<52)) << (e - (1023-17))) * (xs_u128)(uint64_t)n;
  acc = ((xs_u128)s->hi << 64) | s->lo;
  acc = sign>0 ? acc + v : acc - v;
  s->lo = (uint64_t)acc;
  s->hi = (uint64_t)(acc >> 64);
  return ML_OK;
}

/* The exact sum, correctly rounded, of x[0], x[stride], ..., x[(n-1)
** stride].  Fast path: a two-double running sum (hi, lo).  Each addition to
** hi is split by TwoSum (Knuth) into its rounded value and its exact error,
** and the errors are added to lo, each of these additions checked exact by
** TwoSum too.  While they are, hi + lo is the exact sum, and one rounding of
** hi + lo is the correctly rounded one.  Real-valued weights of similar size
** lie on one grid of 2^-k, so their errors add exactly: integer weights and
** such weights never leave the fast path (issue 38: weights in [0.5, 2] fell
** back at every tie group whose sum rounded).  When an addition to lo rounds
** (weights spanning many orders of magnitude, or an overflow: NaN), the sum
** starts over in an MlXsum (568 bytes, exact). */
double ml_exact_sum(const double *x, size_t stride, ml_i64 n){
  MlXsum a;
  ml_i64 r;
  double t = 0.0, lo = 0.0;
  for(r=0; r<n; r++){
    double b = x[(size_t)r*stride], u = t + b, bp = u - t;
    double e = (t - (u - bp)) + (b - bp);               /* the rounding error of t + b */
    t = u;
    if( e!=0.0 ){
      double v = lo + e, ep = v - lo;
      if( (lo - (v - ep)) + (e - ep)!=0.0 ) break;      /* lo + e rounds (or NaN): exact path */
      lo = v;
    }
  }
  if( r==n ) return t + lo;
  ml_xsum_init(&a);
  for(r=0; r<n; r++) ml_xsum_add(&a, x[(size_t)r*stride], 1);
  return ml_xsum_round(&a);
}
