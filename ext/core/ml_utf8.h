/*
** ml_utf8.h -- reading UTF-8 for the writers (SVG, HTML, JSON, messages):
** what a well-formed character is, and where text may be cut.
** SPDX-License-Identifier: MIT
**
** Header-only (static inline), so that mleval-report, which loads the
** extension at run time and links none of it, writes text by the same rules
** as the extension's writers (ml_str.c, ml_json.c, plot.c).
**
** Rules:
**   1. A well-formed character is what RFC 3629 allows: no overlong form, no
**      surrogate (U+D800..U+DFFF), nothing above U+10FFFF.
**   2. Anything else is replaced by U+FFFD, one per maximal ill-formed
**      subpart (Unicode 15, section 3.9, "U+FFFD Substitution of Maximal
**      Subparts": what Python's and the browsers' decoders do).
**   3. Text is cut only between characters.
**
** Cost: O(1) per character, no allocation.
*/
#ifndef ML_UTF8_H
#define ML_UTF8_H

#include <stddef.h>

#define ML_UTF8_REPLACEMENT "\xEF\xBF\xBD"     /* U+FFFD */

/* The character at z (NUL-terminated): its length in bytes (1..4) with its
** code point in *pCp when well-formed; minus the length of the maximal
** ill-formed subpart (-1..-3) otherwise.  Never reads past a NUL. */
static inline int ml_utf8_char(const char *zIn, unsigned *pCp){
  const unsigned char *z = (const unsigned char*)zIn;
  unsigned c = z[0], lo = 0x80, hi = 0xBF, cp;
  int n, i;
  if( c<0x80 ){ *pCp = c; return 1; }
  if( c<0xC2 || c>0xF4 ) return -1;        /* continuation, overlong lead, > U+10FFFF */
  if( c<0xE0 ){ n = 2; cp = c & 0x1F; }
  else if( c<0xF0 ){
    n = 3; cp = c & 0x0F;
    if( c==0xE0 ) lo = 0xA0;                /* overlong */
    if( c==0xED ) hi = 0x9F;                /* surrogates */
  }else{
    n = 4; cp = c & 0x07;
    if( c==0xF0 ) lo = 0x90;                /* overlong */
    if( c==0xF4 ) hi = 0x8F;                /* above U+10FFFF */
  }
  for(i=1; i<n; i++){
    unsigned b = z[i];
    if( b<lo || b>hi ) return -i;
    lo = 0x80; hi = 0xBF;
    cp = (cp<<6) | (b & 0x3F);
  }
  *pCp = cp;
  return n;
}

/* 1 when code point cp may appear in XML 1.0 text (and so in HTML and SVG):
** tab, newline, carriage return, U+0020..U+D7FF, U+E000..U+FFFD, and
** U+10000..U+10FFFF. */
static inline int ml_utf8_xml_char(unsigned cp){
  if( cp<0x20 ) return cp=='\t' || cp=='\n' || cp=='\r';
  return cp<0xD800 || (cp>=0xE000 && cp<=0xFFFD) || cp>=0x10000;
}

/* The length of the longest prefix of z that has at most max bytes and ends
** between two characters (an ill-formed byte counts as one character). */
static inline size_t ml_utf8_cut(const char *z, size_t max){
  size_t n = 0;
  while( z[n] ){
    unsigned cp;
    int k = ml_utf8_char(z + n, &cp);
    size_t len = (size_t)(k<0 ? -k : k);
    if( n + len > max ) break;
    n += len;
  }
  return n;
}

#endif /* ML_UTF8_H */
