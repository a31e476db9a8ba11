/*
** SPDX-License-Identifier: MIT
**
** replay.c -- runs a fuzz target's LLVMFuzzerTestOneInput over every file of
** its committed corpus, without the fuzzer runtime (make check).
**   usage: replay DIR...     (default: $srcdir/tests/fuzz/corpus/FUZZ_CORPUS)
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#ifndef FUZZ_CORPUS
# define FUZZ_CORPUS "sql"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path){
  FILE *f = fopen(path, "rb");
  uint8_t *buf;
  long n;
  if( f==0 ) return 0;
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  buf = malloc(n>0 ? (size_t)n : 1);
  if( buf && fread(buf, 1, (size_t)n, f)==(size_t)n ) LLVMFuzzerTestOneInput(buf, (size_t)n);
  free(buf);
  fclose(f);
  return 1;
}

static int run_dir(const char *dir){
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  if( d==0 ){ fprintf(stderr, "replay: cannot open %s\n", dir); return -1; }
  while( (e = readdir(d))!=0 ){
    char path[4096];
    if( e->d_name[0]=='.' ) continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    n += run_file(path);
  }
  closedir(d);
  return n;
}

int main(int argc, char **argv){
  int i, n = 0, r;
  if( argc<2 ){
    const char *srcdir = getenv("srcdir");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", srcdir ? srcdir : ".", FUZZ_CORPUS);
    r = run_dir(dir);
    if( r<0 ) return 1;
    n = r;
  }
  for(i=1; i<argc; i++){
    r = run_dir(argv[i]);
    if( r<0 ) return 1;
    n += r;
  }
  printf("replayed %d inputs\n", n);
  return n>0 ? 0 : 1;
}
