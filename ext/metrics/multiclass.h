/*
** SPDX-License-Identifier: MIT
**
** multiclass.h -- what multiclass.c shares with multiclass_long.c: the
** family's kinds (MlFuncDesc.kind) and the entry points through which the
** long layout's reader hands each assembled id, as one row (y, w, k
** scores), to the wide form's own row store and results.  So a long
** function's result is its wide form's, computed by the same code.
*/
#ifndef ML_MULTICLASS_H
#define ML_MULTICLASS_H

#include "ml_sql.h"

/* Which metric a record asks of the family's callbacks (MlFuncDesc.kind). */
enum { MC_AUROC, MC_PR_AUC, MC_LOG_LOSS, MC_BRIER, MC_CONFUSION, MC_TOP_K, MC_RPS, MC_CALIB, MC_AUROC_CI,
       MC_STATE };

/* The kinds whose scores are probabilities (ml_arg_scores' isProb). */
#define MC_IS_PROB(kind) ((kind)==MC_LOG_LOSS || (kind)==MC_BRIER || (kind)==MC_RPS || (kind)==MC_CALIB)

#define MC_MAX_K 16

/* The wide form's aggregate (multiclass.c's McAgg), opaque here: its size
** (allocate it zeroed), its parameter slot i (the JSON form's parameters,
** e.g. mc_calibration's bins), and its release (buffers freed; the struct
** itself is the caller's). */
size_t ml_mc_agg_bytes(void);
MlParam *ml_mc_param(void *agg, int i);
void ml_mc_clear(void *agg);
/* One row of k scores (a checked class y in 0..k-1, weight w > 0; the
** probability rules already checked), added as the wide step adds its
** rows, under the function of ctx's record (its kind and flags).  Returns
** ML_OK; else the error (out of memory, the row limit) is set on ctx, the
** buffers are freed, and the caller stops. */
int ml_mc_add_row(sqlite3_context *ctx, void *agg, int k, int y, double w, const double *s);
/* The wide form's result over the rows added (NULL with a warning for none):
** xFinal (isFinal 1) or xValue. */
void ml_mc_result(sqlite3_context *ctx, void *agg, int isFinal);
/* The long layout's windows: removes a row that ml_mc_add_row added (the
** wide xInverse: a failure, out of memory turning the columns into rows,
** is set on ctx and marks the store failed, ml_mc_failed); a window
** frame's value (the wide xValue, its window structures started at the
** first frame), ML_OK or ML_ERROR (the store failed, its error set). */
void ml_mc_remove_row(sqlite3_context *ctx, void *agg, int y, double w, const double *s);
int ml_mc_value(sqlite3_context *ctx, void *agg);
int ml_mc_failed(const void *agg);

#endif /* ML_MULTICLASS_H */
