/*
** SPDX-License-Identifier: MIT
**
** check_svd_cuda.c -- svd_bench's CUDA rows on a real GPU.
**
** Built whenever configure found the CUDA toolkit.  Loads the extension
** ($MLEVAL_LIB) and runs svd_bench(..., device='cuda') on tall, wide and
** square matrices in float64 and float32, checking the same bounds as the
** CPU tests.  With no GPU it prints "skipped: no CUDA device" and exits 77,
** which automake reports as SKIP -- never a silent pass.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nFail = 0, nCheck = 0;

static void expect(int ok, const char *what, double v){
  nCheck++;
  if( !ok ){ nFail++; printf("FAIL %s (%g)\n", what, v); }
}

int main(void){
  static const int shape[][2] = {{256, 256}, {512, 128}, {128, 512}, {1024, 1024}};
  const char *lib = getenv("MLEVAL_LIB");
  sqlite3 *db;
  char *err = 0;
  size_t i;
  int f32;
  if( lib==0 ) lib = "ext/.libs/mleval";
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) return 99;
  sqlite3_enable_load_extension(db, 1);
  if( sqlite3_load_extension(db, lib, 0, &err)!=SQLITE_OK ){
    printf("cannot load %s: %s\n", lib, err);
    return 99;
  }
  for(f32=0; f32<2; f32++){
    for(i=0; i<sizeof(shape)/sizeof(shape[0]); i++){
      sqlite3_stmt *st;
      int rc, m = shape[i][0], n = shape[i][1];
      char q[256], what[128];
      snprintf(q, sizeof(q), "SELECT method, device, sv_rel_error, recon_rel_error, ms_median FROM "
               "svd_bench(%d, %d, NULL, 2, 5, 'cuda', '%s', 1)", m, n, f32 ? "float32" : "float64");
      if( sqlite3_prepare_v2(db, q, -1, &st, 0)!=SQLITE_OK ){ printf("prepare: %s\n", sqlite3_errmsg(db)); return 99; }
      while( (rc = sqlite3_step(st))==SQLITE_ROW ){
        const char *meth = (const char*)sqlite3_column_text(st, 0);
        double sv = sqlite3_column_double(st, 2), rec = sqlite3_column_double(st, 3);
        double tol = f32 ? 1e-5 : 1e-10;
        printf("%s %dx%d %s: sv_rel_error %.3g recon_rel_error %.3g ms_median %.3f\n",
               f32 ? "float32" : "float64", m, n, meth, sv, rec, sqlite3_column_double(st, 4));
        snprintf(what, sizeof(what), "%dx%d %s %s", m, n, meth, f32 ? "float32" : "float64");
        expect(strcmp((const char*)sqlite3_column_text(st, 1), "cuda")==0, what, 0);
        expect(sv < tol, what, sv);
        if( strcmp(meth, "values_only")!=0 ) expect(rec < (f32 ? 1e-5 : 1e-12), what, rec);
      }
      if( rc!=SQLITE_DONE ){
        const char *msg = sqlite3_errmsg(db);
        if( strstr(msg, "no CUDA device found") ){
          printf("skipped: no CUDA device\n");
          sqlite3_finalize(st);
          sqlite3_close(db);
          return 77;
        }
        printf("FAIL %s: %s\n", q, msg);
        return 1;
      }
      sqlite3_finalize(st);
    }
  }
  sqlite3_close(db);
  printf("check_svd_cuda: %d checks, %d failures\n", nCheck, nFail);
  return nFail ? 1 : 0;
}
