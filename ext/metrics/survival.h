/*
** SPDX-License-Identifier: MIT
**
** survival.h -- what the two files of the survival family's part 1 share:
** the records' kinds, the group's rows (SvAgg: ml_surv.h's width-24
** buffer, surv_ibs's per horizon) and the callbacks survival_result.c
** defines for survival.c's family.  Private to survival.c and
** survival_result.c; part 2 shares survival2.h.
*/
#ifndef ML_SURVIVAL_H
#define ML_SURVIVAL_H

#include "ml_sql.h"
#include "ml_state.h"
#include "ml_surv.h"

enum { SV_KM = 1, SV_CENS, SV_AUROC, SV_BRIER, SV_SUMMARY, SV_IBS, SV_CINDEX, SV_CINDEX_CI, SV_UNO, SV_STATE };

#define SV_MAX_HORIZONS 10000


/* surv_ibs's rows of one horizon. */
typedef struct SvHorizon { double h; MlSamples smp; } SvHorizon;

typedef struct SvAgg {
  MlSamples smp;        /* the rows (ml_surv.h); surv_ibs: unused */
  SvHorizon *aH;        /* surv_ibs: the horizons, ascending */
  int nH, capH, lastH;
  MlParam t;            /* t or tau */
  MlParam level;
  int init;
  int failed;           /* a step set an error: results only free */
} SvAgg;

static inline SvAgg *sv_agg(sqlite3_context *ctx){
  SvAgg *p = ml_agg_context(ctx, sizeof(*p));     /* room for a state's part (rule 9) */
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return 0; }
  if( !p->init ){ ml_surv_init(&p->smp); p->init = 1; }
  return p;
}

static inline void sv_clear(SvAgg *p){
  int i;
  if( p==0 || !p->init ) return;
  ml_samples_clear(&p->smp);
  for(i=0; i<p->nH; i++) ml_samples_clear(&p->aH[i].smp);
  ml_free(p->aH);
  p->aH = 0; p->nH = p->capH = 0;
}

/* The data arguments of a kind. */
static inline int sv_ndata(int kind){
  return kind<=SV_CENS ? 2 : kind==SV_IBS ? 4 : 3;    /* SV_STATE: time, event, risk */
}
static inline int sv_is_prob(int kind){
  return kind==SV_BRIER || kind==SV_SUMMARY || kind==SV_IBS;
}

/* survival_result.c: the family's xValue, xFinal and xAbsorb. */
void ml_sv_value(sqlite3_context *ctx);
void ml_sv_final(sqlite3_context *ctx);
int ml_sv_absorb(sqlite3_context *ctx, const MlState *st, int n, int sign, char *zErr, int nErr);

#endif /* ML_SURVIVAL_H */
