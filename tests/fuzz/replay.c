/*
** SPDX-License-Identifier: MIT
**
** replay.c -- runs a fuzz target's LLVMFuzzerTestOneInput over every file of
** its committed corpus, without the fuzzer runtime (make check).
**   usage: replay DIR...     (default: $srcdir/tests/fuzz/corpus/FUZZ_CORPUS)
**          replay --list     the calls of a target whose byte 0 picks one
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
/* A target whose byte 0 picks one of several calls (fuzz_args.c) says how
** many; replay then runs every call, each on a few of the corpus's inputs
** (the call's bits rewritten, LLVMFuzzerSetCall), so that every call is replayed whatever bytes the
** committed inputs start with.  With list set it prints the calls. */
int LLVMFuzzerCallCount(int list) __attribute__((weak));
void LLVMFuzzerSetCall(uint8_t *buf, int c) __attribute__((weak));
#define CALL_SEEDS 8          /* inputs each call is replayed on */

/* Runs one input; for a target with calls, every call whose turn it is on
** input iFile of nFiles: the calls c with (c - iFile) mod nFiles below
** CALL_SEEDS.  Returns the runs made. */
static int run_bytes(uint8_t *buf, size_t n, int iFile, int nFiles){
  int nCall = LLVMFuzzerCallCount ? LLVMFuzzerCallCount(0) : 0, c, ran = 0;
  if( nCall==0 || n<2 ){ LLVMFuzzerTestOneInput(buf, n); return 1; }
  for(c=0; c<nCall; c++){
    if( ((c - iFile) % nFiles + nFiles) % nFiles >= CALL_SEEDS ) continue;
    LLVMFuzzerSetCall(buf, c);
    LLVMFuzzerTestOneInput(buf, n);
    ran++;
  }
  return ran;
}

static int run_file(const char *path, int iFile, int nFiles){
  FILE *f = fopen(path, "rb");
  uint8_t *buf;
  long n;
  int ran = 0;
  if( f==0 ) return 0;
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  buf = malloc(n>0 ? (size_t)n : 1);
  if( buf && fread(buf, 1, (size_t)n, f)==(size_t)n ) ran = run_bytes(buf, (size_t)n, iFile, nFiles);
  free(buf);
  fclose(f);
  return ran;
}

static int cmp_names(const void *a, const void *b){
  return strcmp(*(char *const*)a, *(char *const*)b);
}

/* Every file of dir, in name order. */
static int run_dir(const char *dir){
  DIR *d = opendir(dir);
  struct dirent *e;
  char **az = 0;
  int n = 0, cap = 0, i, ran = 0;
  if( d==0 ){ fprintf(stderr, "replay: cannot open %s\n", dir); return -1; }
  while( (e = readdir(d))!=0 ){
    if( e->d_name[0]=='.' ) continue;
    if( n==cap ){
      cap = cap ? 2*cap : 64;
      az = realloc(az, cap*sizeof(char*));
      if( az==0 ) abort();
    }
    az[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
    if( az[n]==0 ) abort();
    sprintf(az[n], "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  if( n ) qsort(az, n, sizeof(char*), cmp_names);
  for(i=0; i<n; i++){ ran += run_file(az[i], i, n); free(az[i]); }
  free(az);
  return ran;
}

int main(int argc, char **argv){
  int i, n = 0, r;
  if( argc==2 && strcmp(argv[1], "--list")==0 ){     /* the calls byte 0 picks from */
    if( LLVMFuzzerCallCount==0 ) return 1;
    LLVMFuzzerCallCount(1);
    return 0;
  }
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
