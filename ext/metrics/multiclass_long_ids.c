/*
** SPDX-License-Identifier: MIT
**
** multiclass_long_ids.c -- what an id of the long layout is (multiclass_long.c
** rules 2 and 6): its tag, and how an error message names it.
**
** Rules (numbered as in multiclass_long.c):
**   2. An id is what GROUP BY id would make of it: INTEGER and REAL ids of
**      equal value are one id, TEXT and BLOB ids compare by their bytes, a
**      TEXT id never equals a number.
**   6. The tag of an INTEGER id (or integral REAL) in [-2^43, 2^43) is the
**      id plus 2^43, nothing held; any other id is interned once (its bytes
**      and 32 bytes of entry and hash slots), its tag 2^44 plus its index.
**
** Cost: O(1) a direct id; an interned id one FNV-1a hash of its bytes and
** one probe of an open-addressing table kept at most half full.
*/
#include <float.h>
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "ml_utf8.h"
#include "multiclass_long_impl.h"

static uint64_t lg_hash(int type, const unsigned char *z, int n){
  uint64_t h = 1469598103934665603ULL ^ (uint64_t)type;
  int i;
  for(i=0; i<n; i++){ h ^= z[i]; h *= 1099511628211ULL; }
  return h ^ (h>>29);
}

/* The tag of an interned id (type, bytes): found, or added (add 1).
** -1: out of memory; -2: not found (add 0); -3: too many ids. */
static ml_i64 lg_intern(LgAgg *L, int type, const unsigned char *z, int n, int add){
  uint64_t h = lg_hash(type, z, n);
  ml_i64 m, i;
  if( L->nSlot ){
    m = L->nSlot - 1;
    for(i=(ml_i64)(h & (uint64_t)m); L->slot[i]; i=(i+1) & m){
      const LgId *e = &L->ids[L->slot[i]-1];
      if( e->h==h && e->type==type && e->n==n && (n==0 || memcmp(L->arena + e->off, z, (size_t)n)==0) ){
        return LG_INTERNED + (L->slot[i]-1);
      }
    }
  }
  if( !add ) return -2;
  if( L->nId>=0xFFFFFFFE || L->nId>=LG_MAX_IDS ) return -3;
  if( 2*(L->nId + 1) > L->nSlot ){                 /* grow the slots: load at most 1/2 */
    ml_i64 ns = L->nSlot ? 2*L->nSlot : 64, j;
    uint32_t *s = ml_malloc((uint64_t)ns*sizeof(uint32_t));
    if( s==0 ) return -1;
    memset(s, 0, (size_t)ns*sizeof(uint32_t));
    for(j=0; j<L->nId; j++){
      ml_i64 t = (ml_i64)(L->ids[j].h & (uint64_t)(ns-1));
      while( s[t] ) t = (t+1) & (ns-1);
      s[t] = (uint32_t)(j+1);
    }
    ml_free(L->slot);
    L->slot = s;
    L->nSlot = ns;
  }
  if( L->nId>=L->capId ){
    ml_i64 c = L->capId ? L->capId + L->capId/2 : 64;
    LgId *e = ml_realloc(L->ids, (uint64_t)c*sizeof(LgId));
    if( e==0 ) return -1;
    L->ids = e;
    L->capId = c;
  }
  if( L->nArena + n > L->capArena ){
    ml_i64 c = L->capArena + L->capArena/2 + n + 256;
    unsigned char *a = ml_realloc(L->arena, (uint64_t)c);
    if( a==0 ) return -1;
    L->arena = a;
    L->capArena = c;
  }
  if( n ) memcpy(L->arena + L->nArena, z, (size_t)n);
  L->ids[L->nId].h = h;
  L->ids[L->nId].off = L->nArena;
  L->ids[L->nId].n = n;
  L->ids[L->nId].type = type;
  L->nArena += n;
  m = L->nSlot - 1;
  for(i=(ml_i64)(h & (uint64_t)m); L->slot[i]; i=(i+1) & m){}
  L->slot[i] = (uint32_t)(L->nId + 1);
  return LG_INTERNED + L->nId++;
}

/* The tag of the id v (rule 2, 6); -1 out of memory, -2 not held (add 0),
** -3 too many ids. */
ml_i64 ml_mcl_tag(LgAgg *L, sqlite3_value *v, int add){
  int t = sqlite3_value_type(v);
  ml_i64 iv;
  unsigned char b[8];
  if( t==SQLITE_INTEGER || t==SQLITE_FLOAT ){
    if( t==SQLITE_INTEGER ) iv = sqlite3_value_int64(v);
    else{
      double d = sqlite3_value_double(v);
      if( !(d==floor(d) && d>=-9223372036854775808.0 && d<9223372036854775808.0) ){
        memcpy(b, &d, 8);                          /* a fraction, or beyond int64: the REAL itself */
        return lg_intern(L, SQLITE_FLOAT, b, 8, add);
      }
      iv = (ml_i64)d;                              /* 1.0 is the id 1 (rule 2) */
    }
    if( iv>=-LG_DIRECT && iv<LG_DIRECT ) return iv + LG_DIRECT;
    memcpy(b, &iv, 8);
    return lg_intern(L, SQLITE_INTEGER, b, 8, add);
  }
  if( t==SQLITE_TEXT ){
    const unsigned char *z = sqlite3_value_text(v);
    if( z==0 ) return -1;
    return lg_intern(L, SQLITE_TEXT, z, sqlite3_value_bytes(v), add);
  }
  {
    const unsigned char *z = sqlite3_value_blob(v);
    int n = sqlite3_value_bytes(v);
    if( z==0 && n>0 ) return -1;
    return lg_intern(L, SQLITE_BLOB, z ? z : (const unsigned char*)"", n, add);
  }
}

/* The id of tag t as a message shows it: 7, 'a7', 1.5, a blob of 3 bytes. */
void ml_mcl_describe(const LgAgg *L, ml_i64 t, char *z, int nz){
  const LgId *e;
  const unsigned char *a;
  if( t<LG_INTERNED ){ sqlite3_snprintf(nz, z, "%lld", (long long)(t - LG_DIRECT)); return; }
  e = &L->ids[t - LG_INTERNED];
  a = L->arena + e->off;
  if( e->type==SQLITE_INTEGER ){
    ml_i64 iv;
    memcpy(&iv, a, 8);
    sqlite3_snprintf(nz, z, "%lld", (long long)iv);
  }else if( e->type==SQLITE_FLOAT ){
    double d;
    memcpy(&d, a, 8);
    ml_num(z, d);
  }else if( e->type==SQLITE_BLOB ){
    sqlite3_snprintf(nz, z, "a blob of %d bytes", e->n);
  }else{
    /* text: quoted, cut between characters at 40 bytes, ill-formed bytes as U+FFFD */
    char buf[64];
    unsigned cp;
    int i = 0, o = 0;
    char tmp[8];
    while( i<e->n && o<40 ){
      int len;
      memset(tmp, 0, sizeof(tmp));
      memcpy(tmp, a + i, (size_t)(e->n - i < 4 ? e->n - i : 4));
      len = ml_utf8_char(tmp, &cp);
      if( tmp[0]==0 ){ buf[o++] = '?'; i++; continue; }            /* a NUL byte */
      if( len<0 ){ memcpy(buf + o, ML_UTF8_REPLACEMENT, 3); o += 3; i += -len; continue; }
      memcpy(buf + o, a + i, (size_t)len);
      o += len;
      i += len;
    }
    buf[o] = 0;
    sqlite3_snprintf(nz, z, "'%s'%s", buf, i<e->n ? "..." : "");
  }
}
