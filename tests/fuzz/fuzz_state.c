/*
** SPDX-License-Identifier: MIT
**
** fuzz_state.c -- libFuzzer target: arbitrary blobs fed as partial states to
** every function that takes states, and to ml_merge, as an aggregate, with
** GROUP BY, nested (a function over ml_merge's result) and over a window.
**
** Byte 0 and byte 1's top two bits pick the call (the calls are derived
** from the records: every state form of every function, fuzz_build_calls), byte 1's
** low bits the flags: bit 0 reseals every blob with a correct CRC-32C, so
** that mutations of the committed valid states get past the checksum and
** reach the entry decoder; bits 1-3 the window size.  Then
** blobs, each a 2-byte little-endian length and its bytes.  Any outcome but
** a crash, a sanitizer report or a leak is fine: hostile states must fail
** with an error.
*/
#include <stdio.h>
#define FUZZ_WITH_CALLS
#include "fuzz_common.h"

uint32_t ml_crc32c(const void *p, uint64_t n);

/* Calls beyond the records': the merge's bytes and a few parameter
** combinations. */
static const char *azFixed[] = {
  "hex(ml_merge(b))", "log_loss(b, 0.01)", "ece(b, 7)", "reliability(b, 4, 'quantile')",
  "strat_gap(b, 0.1, 0.9)", "strat_report(b, 0.2, 0.8, 0.01)", "auprc_ge(b, 2)",
};

/* The call of one state form from its signature ("st_ref, st_cur [, bins]",
** "st, group, threshold", "state [, level, reps, seed]"): the first state
** argument the fuzzed blobs b, a second one their merge, group the column g,
** each parameter its spec's example (zEx: the record's params JSON); the
** optional part only when full.  0 when an argument has no value. */
static char *form_call(sqlite3 *db, const char *zName, const char *zSig, const char *zParams, int full){
  sqlite3_stmt *ex = 0;
  char *zCall = sqlite3_mprintf("%s(", zName);
  const char *z = zSig;
  int nArg = 0, nSt = 0, optional = 0;
  if( sqlite3_prepare_v2(db, "SELECT p.value->>'example' FROM json_each(?1) AS p WHERE p.value->>'name' = ?2",
                         -1, &ex, 0)!=SQLITE_OK ){ sqlite3_free(zCall); return 0; }
  while( zCall && *z ){
    char zArg[32];
    int n = 0;
    const char *zVal = 0;
    while( *z==' ' || *z==',' || *z==']' ) z++;
    if( *z=='[' ){ optional = 1; z++; continue; }
    if( *z==0 ) break;
    while( z[n] && z[n]!=',' && z[n]!=' ' && z[n]!='[' && z[n]!=']' ) n++;
    snprintf(zArg, sizeof(zArg), "%.*s", n, z);
    z += n;
    if( optional && !full ) break;
    if( strcmp(zArg, "st")==0 || strcmp(zArg, "state")==0 || strncmp(zArg, "st_", 3)==0 ){   /* not strategy */
      zVal = nSt++==0 ? "b" : "(SELECT ml_merge(b) FROM f)";
    }else if( strcmp(zArg, "group")==0 ){
      zVal = "g";
    }else{
      sqlite3_reset(ex);
      sqlite3_bind_text(ex, 1, zParams, -1, SQLITE_STATIC);
      sqlite3_bind_text(ex, 2, zArg, -1, SQLITE_STATIC);
      if( sqlite3_step(ex)==SQLITE_ROW ) zVal = (const char*)sqlite3_column_text(ex, 0);
      if( zVal==0 ){ sqlite3_free(zCall); zCall = 0; break; }
    }
    zCall = sqlite3_mprintf("%z%s%s", zCall, nArg++ ? ", " : "", zVal);
  }
  sqlite3_finalize(ex);
  return zCall ? sqlite3_mprintf("%z)", zCall) : 0;
}

/* Fills fuzzCall (fuzz_common.h): the fixed calls, then every state form of
** every record (mleval_functions()' "forms": one state, two states, a state
** beside a group column), at its required arguments and with every
** parameter.  So every state-taking form is fuzzed from its record on
** (issues 40, 45). */
static void fuzz_build_calls(sqlite3 *db){
  static const char *zGen =
    "SELECT r.value->>'name', fm.value->>'signature', r.value->>'params'"
    " FROM json_each(mleval_functions()) AS r, json_each(r.value->'forms') AS fm"
    " WHERE fm.value->>'form' IN ('state', 'two_states')";
  sqlite3_stmt *st = 0;
  size_t i;
  for(i=0; i<sizeof(azFixed)/sizeof(azFixed[0]); i++) fuzz_add_call(sqlite3_mprintf("%s", azFixed[i]));
  if( sqlite3_prepare_v2(db, zGen, -1, &st, 0)==SQLITE_OK ){
    while( sqlite3_step(st)==SQLITE_ROW ){
      const char *zName = (const char*)sqlite3_column_text(st, 0);
      const char *zSig = (const char*)sqlite3_column_text(st, 1);
      const char *zParams = (const char*)sqlite3_column_text(st, 2);
      int full;
      for(full=0; full<2 && zName && zSig; full++){
        fuzz_add_call(form_call(db, zName, zSig, zParams ? zParams : "[]", full));   /* a repeat is dropped */
      }
    }
  }
  sqlite3_finalize(st);
  if( nFuzzCall<=(int)(sizeof(azFixed)/sizeof(azFixed[0])) ) abort();   /* the records gave no call */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  int steps, k;
  sqlite3 *db;
  sqlite3_stmt *st = 0;
  size_t at = 2;
  const char *call;
  char q[512];
  if( size<2 || size>65536 ) return 0;
  call = fuzzCall[FUZZ_CALL_OF(data) % LLVMFuzzerCallCount(0)];
  db = fuzz_open(&steps);
  if( db==0 ) return 0;
  sqlite3_exec(db, "CREATE TABLE f(k INTEGER PRIMARY KEY, g, b)", 0, 0, 0);
  if( sqlite3_prepare_v2(db, "INSERT INTO f(g, b) VALUES (?, ?)", -1, &st, 0)==SQLITE_OK ){
    for(k=0; k<16 && at+2<=size; k++){
      size_t len = (size_t)data[at] | (size_t)data[at+1]<<8;
      uint8_t *blob;
      at += 2;
      if( len > size-at ) len = size-at;
      blob = malloc(len ? len : 1);
      if( blob==0 ) break;
      memcpy(blob, data+at, len);
      at += len;
      if( (data[1] & 1) && len>=12 ){              /* reseal: a correct checksum */
        uint32_t c = ml_crc32c(blob, len-4);
        blob[len-4] = (uint8_t)c; blob[len-3] = (uint8_t)(c>>8);
        blob[len-2] = (uint8_t)(c>>16); blob[len-1] = (uint8_t)(c>>24);
      }
      sqlite3_bind_int(st, 1, k % 2);
      sqlite3_bind_blob(st, 2, blob, (int)len, SQLITE_TRANSIENT);
      sqlite3_step(st);
      sqlite3_reset(st);
      free(blob);
    }
  }
  sqlite3_finalize(st);
  snprintf(q, sizeof(q), "SELECT %s FROM f", call);
  sqlite3_exec(db, q, 0, 0, 0);
  snprintf(q, sizeof(q), "SELECT g, %s FROM f GROUP BY g", call);
  sqlite3_exec(db, q, 0, 0, 0);
  snprintf(q, sizeof(q), "SELECT %s OVER (ORDER BY k ROWS BETWEEN %d PRECEDING AND CURRENT ROW) FROM f",
           call, (data[1] >> 1) % 8);
  sqlite3_exec(db, q, 0, 0, 0);
  if( strstr(call, "ml_merge")==0 ){
    const char *paren = strchr(call, '(');
    char fn[64];
    size_t n = paren ? (size_t)(paren - call) : 0;
    if( n>0 && n<sizeof(fn) ){
      memcpy(fn, call, n); fn[n] = 0;
      snprintf(q, sizeof(q), "SELECT %s(m%s FROM (SELECT ml_merge(b) AS m FROM f GROUP BY g)",
               fn, strchr(call, ',') ? strchr(call, ',') : ")");
      sqlite3_exec(db, q, 0, 0, 0);
    }
  }
  sqlite3_close(db);
  return 0;
}
