/*
** SPDX-License-Identifier: MIT
**
** fuzz_svd.c -- libFuzzer target: svd_bench's arguments with small shapes
** (rows, cols up to 24, rank -1..25, warmup 0..2, iters 0..3, the valid and
** some invalid devices, dtypes and spectra, any seed).
*/
#include <stdio.h>
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  static const char *azDev[] = {"cpu", "CPU", "gpu", "cuda"};
  static const char *azType[] = {"float64", "float32", "int8", "FLOAT32"};
  static const char *azSpec[] = {"gaussian", "decay", "flat", "DECAY"};
  int steps;
  sqlite3 *db;
  char q[512];
  uint64_t seed = 0;
  if( size<7 ) return 0;
  if( size>=15 ) memcpy(&seed, data+7, 8);
  snprintf(q, sizeof(q), "SELECT * FROM svd_bench(%d, %d, %d, %d, %d, '%s', '%s', %lld, '%s')",
           data[0] % 25, data[1] % 25, (int)(data[2] % 27) - 1, data[3] % 3, data[4] % 4,
           azDev[data[5] % 3], azType[data[6] % 4], (long long)(seed >> 17), azSpec[(data[6]/4) % 4]);
  db = fuzz_open(&steps);
  if( db==0 ) return 0;
  sqlite3_exec(db, q, 0, 0, 0);
  sqlite3_close(db);
  return 0;
}
