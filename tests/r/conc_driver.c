/*
** SPDX-License-Identifier: MIT
**
** conc_driver.c -- ml_concordance over the datasets of tests/r/conc_check.R
** (a development tool, not part of make check).
**
** Usage: conc_driver DATA.csv SETS.csv OUT.csv DFBETA.csv
**   DATA.csv  ds,time,event,risk,w   (rows of each dataset, ds ascending)
**   SETS.csv  ds,tau,weighted        (tau: Inf or a number)
**   OUT.csv   ds,method,concordant,discordant,tied_risk,tied_time,tied_both,estimate,var
**             (tied_both as survival counts it: without the tied_self pairs)
**   DFBETA.csv ds,method,row,dfbeta  (per unit weight)
** method: harrell, uno (g_left = G(T-) by rule 2, computed here as survival's
** fastkm1 computes it; R uses timewt "n" when fewer than 2 event rows, and
** so does this driver).
** Build: gcc -O2 -Iext/core tests/r/conc_driver.c ext/core/ml_conc.c
**   ext/core/ml_sample.c ext/core/ml_xsum.c -lm (ml_malloc is defined here).
*/
#include <stdio.h>
#include <stdlib.h>
#include "ml_conc.h"

void *ml_malloc(uint64_t n){ return malloc(n ? n : 1); }
void *ml_realloc(void *p, uint64_t n){ return realloc(p, n ? n : 1); }
void ml_free(void *p){ free(p); }

typedef struct Row { int ds; double time; int event; double risk, w; } Row;

/* G(T-) per row, censorings after events at one time. */
static void g_left_of(int n, const double *t, const int *e, const double *w, double *g){
  int i, j;
  for(i=0; i<n; i++){
    double G = 1.0;
    /* distinct censoring times u < t[i], ascending */
    double u = -1.0;
    for(;;){
      double next = INFINITY, nrisk = 0.0, cens = 0.0;
      for(j=0; j<n; j++) if( !e[j] && t[j]>u && t[j]<t[i] && t[j]<next ) next = t[j];
      if( next==INFINITY ) break;
      for(j=0; j<n; j++){
        if( t[j]>next || (t[j]==next && !e[j]) ) nrisk += w ? w[j] : 1.0;
        if( t[j]==next && !e[j] ) cens += w ? w[j] : 1.0;
      }
      G = G*(nrisk - cens)/nrisk;
      u = next;
    }
    g[i] = G;
  }
}

int main(int argc, char **argv){
  FILE *fd, *fs, *fo, *fb;
  Row *r = 0;
  int nr = 0, cap = 0, ds, k;
  char line[512];
  if( argc<5 ) return 2;
  fd = fopen(argv[1], "r"); fs = fopen(argv[2], "r");
  fo = fopen(argv[3], "w"); fb = fopen(argv[4], "w");
  if( !fd || !fs || !fo || !fb ) return 2;
  if( !fgets(line, sizeof line, fd) ) return 2;
  while( fgets(line, sizeof line, fd) ){
    if( nr>=cap ){ cap = cap*2 + 1024; r = realloc(r, sizeof(Row)*cap); }
    if( sscanf(line, "%d,%lf,%d,%lf,%lf", &r[nr].ds, &r[nr].time, &r[nr].event, &r[nr].risk, &r[nr].w)==5 ) nr++;
  }
  fprintf(fo, "ds,method,concordant,discordant,tied_risk,tied_time,tied_both,estimate,var\n");
  fprintf(fb, "ds,method,row,dfbeta\n");
  if( !fgets(line, sizeof line, fs) ) return 2;
  k = 0;
  while( fgets(line, sizeof line, fs) ){
    char ztau[64];
    int weighted, n, i, m, nev = 0;
    double tau, *t, *risk, *w, *g, *df;
    int *e;
    if( sscanf(line, "%d,%63[^,],%d", &ds, ztau, &weighted)!=3 ) return 3;
    tau = (ztau[0]=='I' || ztau[0]=='"') ? INFINITY : atof(ztau);
    while( k<nr && r[k].ds<ds ) k++;
    for(n=0; k+n<nr && r[k+n].ds==ds; n++){}
    t = malloc(8*(n+1)); risk = malloc(8*(n+1)); w = malloc(8*(n+1)); g = malloc(8*(n+1));
    df = malloc(8*(n+1)); e = malloc(sizeof(int)*(n+1));
    for(i=0; i<n; i++){
      t[i] = r[k+i].time; e[i] = r[k+i].event; risk[i] = r[k+i].risk; w[i] = r[k+i].w;
      nev += e[i];
    }
    g_left_of(n, t, e, weighted ? w : 0, g);
    for(m=0; m<2; m++){
      MlConc c;
      const double *gl = m==1 && nev>=2 ? g : 0;
      if( ml_concordance(n, t, e, risk, weighted ? w : 0, gl, tau, &c, df)!=ML_OK ) return 4;
      fprintf(fo, "%d,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", ds, m ? "uno" : "harrell",
              c.concordant, c.discordant, c.tied_risk, c.tied_time, c.tied_both - c.tied_self, c.estimate, c.var);
      for(i=0; i<n; i++) fprintf(fb, "%d,%s,%d,%.17g\n", ds, m ? "uno" : "harrell", i+1, df[i]);
    }
    free(t); free(risk); free(w); free(g); free(df); free(e);
    k += n;
  }
  fclose(fo); fclose(fb);
  return 0;
}
