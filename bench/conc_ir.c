/*
** SPDX-License-Identifier: MIT
**
** conc_ir.c -- instructions per row of the concordance core alone
** (ml_concordance, ext/core/ml_conc.c), without SQLite: a development
** driver, not built by make.
**
**   gcc -std=c11 -D_GNU_SOURCE -O2 -g -Iext/core bench/conc_ir.c ext/core/ml_conc.c \
**       ext/core/ml_sample.c ext/core/ml_xsum.c -lm -o /tmp/conc_ir
**   valgrind --tool=callgrind --toggle-collect=run /tmp/conc_ir N MODE TIES [ORDERED]
**
** N rows (default 10^6); MODE 0 Harrell, 1 Harrell + dfbeta (var), 2 Uno,
** 3 Uno + dfbeta; TIES 0: continuous times and risks, 1: integer times
** (about 3650 distinct) and risks on a 0.001 grid; ORDERED 1: times
** 0, 1, ..., N-1 in row order (the path without the second sort).  Half the
** rows are events; Uno's G(T-) is a made-up decreasing function of time.
** "Collected" / N is the core's Ir per row (data generation excluded).
*/
#include <stdio.h>
#include <stdlib.h>
#include "ml_conc.h"

void *ml_malloc(uint64_t n){ return malloc(n ? n : 1); }
void *ml_realloc(void *p, uint64_t n){ return realloc(p, n ? n : 1); }
void ml_free(void *p){ free(p); }

static unsigned long long st = 88172645463325252ULL;
static double rnd(void){
  st ^= st >> 12; st ^= st << 25; st ^= st >> 27;
  return (double)((st * 2685821657736338717ULL) >> 11) * (1.0/9007199254740992.0);
}

/* What callgrind counts (--toggle-collect=run). */
__attribute__((noinline)) int run(ml_i64 n, const double *t, const int *e, const double *x,
                                  const double *g, double *df, MlConc *c){
  return ml_concordance(n, t, e, x, 0, g, INFINITY, c, df);
}

int main(int argc, char **argv){
  ml_i64 n = argc>1 ? atoll(argv[1]) : 1000000, i;
  int mode = argc>2 ? atoi(argv[2]) : 0;
  int ties = argc>3 ? atoi(argv[3]) : 0;
  int ordered = argc>4 ? atoi(argv[4]) : 0;
  double *t = malloc(8*n), *x = malloc(8*n), *g = malloc(8*n), *df = malloc(8*n);
  int *e = malloc(sizeof(int)*n);
  MlConc c;
  if( !t || !x || !g || !df || !e ) return 1;
  for(i=0; i<n; i++){
    double r = rnd()*2 - 1;
    x[i] = ties ? floor(r*1000)/1000 : r;
    t[i] = ordered ? (double)i : -log(rnd() + 1e-300)*(1.5 - r)*1000;
    if( ties && !ordered ) t[i] = floor(t[i]);
    e[i] = rnd() < 0.5;
    g[i] = 1.0/(1.0 + t[i]/3000.0);
  }
  if( run(n, t, e, x, mode>=2 ? g : 0, mode % 2 ? df : 0, &c) ) return 1;
  printf("n %lld  C %.6f  var %.3g\n", (long long)n, c.estimate, c.var);
  return 0;
}
