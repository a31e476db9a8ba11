/*
** plot.h -- what the plot family's files share (plot.c reads the rows,
** plot_draw.c draws the four pictures, plot_km.c is plot_km's block): the
** aggregate (PlotAgg, one PlotRow a row), the row helpers and the drawing
** entry points.  The rules are plot.c's (1-8) and plot_km.c's.
** SPDX-License-Identifier: MIT
*/
#ifndef MLEVAL_PLOT_H
#define MLEVAL_PLOT_H

#include "ml_sql.h"

/* Which picture a record asks of the family's shared callbacks (MlFuncDesc.kind). */
enum { PK_CURVES, PK_RELIABILITY, PK_BARS, PK_LINES, PK_KM };

#define PLOT_MAX_SERIES 24
#define PLOT_MAX_CATEGORIES 60
/* plot_lines with text x: the most labels on its x axis (rule 8), and the
** widest its panel grows before labels are thinned out. */
#define PLOT_MAX_XLABELS 2000
#define XLABEL_PANEL_MAX 4000
#define XLABEL_MAX 16           /* bytes of a label drawn under the axis */
#define PLOT_W 640
#define PLOT_H 480

enum { CURVE_NONE, CURVE_PR, CURVE_ROC };

typedef struct PlotRow {
  int series;               /* index into PlotAgg.azSeries */
  int cat;                  /* plot_bars: index into azCat */
  double x, y;              /* bars: y is the value; lines: the point */
  double *pts;              /* curves: (x, y) pairs; reliability: 5 per bin */
  ml_i64 nPts;
  double *sm;               /* reliability: the smoothed curve's (p, curve) pairs, or NULL */
  ml_i64 nSm;
  double stat, base;        /* AP / AUROC / ECE; PR baseline (prevalence) */
  ml_i64 order;             /* row number, for a stable sort */
} PlotRow;

typedef struct PlotAgg {
  int init;
  int curve;                /* CURVE_PR or CURVE_ROC once known */
  PlotRow *a;
  ml_i64 n, cap;
  char *azSeries[PLOT_MAX_SERIES];
  int nSeries;
  char *azCat[PLOT_MAX_CATEGORIES];
  int nCat;
  char **azX;               /* plot_lines with text x: the labels, in order of first appearance */
  int nX, capX;
  int xKind;                /* plot_lines: 0 no row yet, 1 numbers, 2 text (rule 8) */
  char *title, *unit, *xlabel, *ylabel;
  int titleSet, unitSet, xlabelSet, ylabelSet;
} PlotAgg;

/* The legend, right of the plot panel (plot_draw.c). */
#define LEGEND_X 472
#define LEGEND_Y 56
#define LEGEND_NAME_MAX 28      /* bytes of a series name in the legend */
#define LEGEND_TEXT_X 28        /* the entries' text, right of LEGEND_X */
#define LEGEND_FONT 11          /* px */

/* plot.c: the rows. */
const char *plot_fn_name(int kind);
/* The first 40 bytes of z for a message, cut between characters, ill-formed
** UTF-8 as U+FFFD; free with plot_excerpt_free ("?" when out of memory). */
char *plot_excerpt(const char *z);
void plot_excerpt_free(char *z);
/* Frees everything p holds and zeroes it. */
void plot_clear(PlotAgg *p);
/* The index of v's text as a series (isCat 0) or category (1); mustBeNew:
** a name seen before is an error (rule 4).  -1 with the error set. */
int plot_intern(sqlite3_context *ctx, PlotAgg *p, int kind, sqlite3_value *v, int isCat, int mustBeNew);
/* A text parameter the same in every row (rule 6): held in *pz; 1 with the error set. */
int plot_text_param(sqlite3_context *ctx, int kind, const char *name, sqlite3_value *v, char **pz, int *pSet);
/* Room for one more row (not yet counted in p->n); 0 with the error set. */
PlotRow *plot_new_row(sqlite3_context *ctx, PlotAgg *p);
extern const MlParamSpec ml_plot_ps_title;
/* v's text as *pz when v is TEXT: ML_OK; else "name must be what JSON,
** got <v>" (ML_ERROR) or out of memory (ML_NOMEM), the error set. */
int plot_json_text(sqlite3_context *ctx, const char *fn, const char *name, const char *what,
                   sqlite3_value *v, const char **pz);

/* plot_draw.c: each picture into s; ML_OK or ML_NOMEM. */
int plot_draw_curves(MlStr *s, PlotAgg *p);
int plot_draw_reliability(MlStr *s, PlotAgg *p);
int plot_draw_bars(MlStr *s, PlotAgg *p);
int plot_draw_lines(MlStr *s, PlotAgg *p);
/* "name (AP 0.812)" (label 0: the name alone), cut as rule 7 says; sqlite3_free it. */
char *plot_legend_text(const char *name, const char *label, double v);
/* The image's width: PLOT_W, or wider when the longest legend entry needs it (rule 7). */
int plot_width(PlotAgg *p, const char *label, int perRow);
/* The legend at height y; boxes: filled boxes (bars) rather than lines.  ML_OK or ML_NOMEM. */
int plot_draw_legend(MlStr *s, PlotAgg *p, const char *label, int perRow, double y, int boxes);

#endif
