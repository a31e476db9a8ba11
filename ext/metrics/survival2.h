/*
** SPDX-License-Identifier: MIT
**
** survival2.h -- what the two files of the survival family's part 2 share:
** the group's rows and parameters (SxAgg), the family's callbacks (defined
** in survival_clinical.c) and the results survival_boot.c computes.  The
** rows are the core's buffer of ml_surv.h (16 or 24 bytes a row), read by the family's
** one argument checker (ml_arg_time_event); only c_index_diff, whose rows
** carry two risks, keeps plain records.
*/
#ifndef ML_SURVIVAL2_H
#define ML_SURVIVAL2_H

#include "ml_sql.h"
#include "ml_surv.h"

/* The records' kinds (MlFuncDesc.kind). */
enum { SX_CAL = 1, SX_NB, SX_DC, SX_AUROC_CI, SX_BRIER_CI, SX_CDIFF };

#define SX_MAX_PARAMS 4

/* c_index_diff's row. */
typedef struct SxRow { double time, a, b, w; int event; } SxRow;

typedef struct SxAgg {
  MlSamples smp;              /* the rows (ml_surv.h: time, w, p or risk) */
  SxRow *aRow;                /* c_index_diff: its rows */
  ml_i64 nRow, capRow;
  MlParam prm[SX_MAX_PARAMS]; /* the record's parameters, in its order */
  ml_i64 iprm[SX_MAX_PARAMS]; /* an integer parameter exactly (the slot holds a double: seed
                              ** may need 63 bits), as the group's first row gave it */
  int init;
  int failed;                 /* a step set an error: results only free */
} SxAgg;

/* The family's callbacks (survival_clinical.c); family name "survival". */
extern const MlFamily ml_fam_survival2;

/* The value of parameter i of d in the group: the rows' value, else the
** spec's default (NaN when it has none). */
double ml_sx_param(const SxAgg *p, const MlFuncDesc *d, int i);
/* The same for an integer parameter (reps, seed, bins): exact. */
ml_i64 ml_sx_iparam(const SxAgg *p, const MlFuncDesc *d, int i);

/* survival_boot.c: surv_auroc_ci, surv_brier_ci (f: the group's fit) and
** c_index_diff (rows in p->aRow). */
void ml_sx_boot_result(sqlite3_context *ctx, const MlFuncDesc *d, SxAgg *p, const MlSurvFit *f);
void ml_sx_cdiff_result(sqlite3_context *ctx, const MlFuncDesc *d, SxAgg *p);

extern const MlParamSpec ml_ps_surv_t;

/* survival.c: a row's data arguments, the one reader of both parts' steps:
** time and event (ml_arg_time_event), then (ML_SURV_ROW_RISK) argv[2] as
** "risk", any number, or (ML_SURV_ROW_P) as "p", a probability.  ML_ROW_OK,
** ML_ROW_SKIP or ML_ROW_ERR (the error set). */
#define ML_SURV_ROW_TE   0
#define ML_SURV_ROW_RISK 1
#define ML_SURV_ROW_P    2
int ml_surv_arg_row(sqlite3_context *ctx, const char *fn, sqlite3_value **argv, int what,
                    double *time, int *event, double *x);
/* Adds (sign +1) or removes (sign -1) a row of weight w to the rows smp:
** ML_OK or ML_NOMEM (adding only). */
int ml_surv_apply(MlSamples *smp, int event, double time, double w, double x, int sign);

/* survival_result.c: n survival states' entries into (sign +1) or out of (-1) the
** rows smp, each one record weighing its count (the rows' sums exactly). */
struct MlState;
int ml_surv_absorb(MlSamples *smp, const struct MlState *st, int n, int sign, int isProb, int expand,
                   char *zErr, int nErr);

#endif /* ML_SURVIVAL2_H */
