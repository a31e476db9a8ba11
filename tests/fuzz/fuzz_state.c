/*
** SPDX-License-Identifier: MIT
**
** fuzz_state.c -- libFuzzer target: arbitrary blobs fed as partial states to
** every function that takes states, and to ml_merge, as an aggregate, with
** GROUP BY, nested (a function over ml_merge's result) and over a window.
**
** Byte 0 picks the call, byte 1 the flags: bit 0 reseals every blob with a
** correct CRC-32C, so that mutations of the committed valid states get past
** the checksum and reach the entry decoder; bits 1-3 the window size.  Then
** blobs, each a 2-byte little-endian length and its bytes.  Any outcome but
** a crash, a sanitizer report or a leak is fine: hostile states must fail
** with an error.
*/
#include <stdio.h>
#include "fuzz_common.h"

uint32_t ml_crc32c(const void *p, uint64_t n);

static const char *azCall[] = {
  "pr_auc(b)", "auroc(b)", "nap(b)", "youden_j(b)", "tpr_at_fpr(b, 0.1)", "sens_at_spec(b, 0.9)",
  "confusion(b, 0.5)", "pr_curve(b)", "roc_curve(b)", "brier(b)", "log_loss(b)", "log_loss(b, 0.01)",
  "ece(b)", "ece(b, 7)", "reliability(b, 4)", "ece_l2_debiased(b, 3)", "ece_l2_kumar(b, 3)",
  "strat_pr_auc(b)", "strat_gap(b, 0.1, 0.9)", "strat_report(b, 0.2, 0.8, 0.01)",
  "auprc_ge(b, 1)", "auprc_ge(b, 2)", "ordinal_auprc(b)", "ordinal_nap(b)", "ordinal_report(b)",
  "hex(ml_merge(b))", "calibration_summary(b)", "auroc_test(b, (SELECT ml_merge(b) FROM f))",
  /* the families' weighted-state paths (ml_state_w; seeds fz70 on) */
  "gains(b, 3)", "reliability(b, 4, 'quantile')", "ece_equal_mass(b, 3)", "mcc(b, 0.5)",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  int steps, k;
  sqlite3 *db;
  sqlite3_stmt *st = 0;
  size_t at = 2;
  const char *call;
  char q[512];
  if( size<2 || size>65536 ) return 0;
  call = azCall[data[0] % (sizeof(azCall)/sizeof(azCall[0]))];
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
