/*
** plot.c -- SVG images drawn by aggregates: the plot family.
** SPDX-License-Identifier: MIT
**
**   plot_curves(series, curve [, title])          PR or ROC curves, one line a row
**   plot_reliability(series, bins [, title [, smooth]])  reliability diagram + histogram
**   plot_bars(category, series, value [, title [, unit]])   grouped bar chart
**   plot_lines(series, x, y [, title [, xlabel [, ylabel]]])   line chart, one line a series
**   plot_km(series, curve [, title])              Kaplan-Meier curves (the block at the end)
**
** Rules:
**   1. Aggregates only: a plot is drawn once, from every row of its group.
**      Used with OVER (...), SQLite refuses them ("may not be used as a
**      window function"); plot a window query's output instead
**      (docs/decisions.md).
**   2. curve is pr_curve() or roc_curve() JSON, bins is reliability() or
**      reliability_w() JSON (a bin's n a count or a sum of weights: any
**      finite n >= 0; the histogram's axis says "weight" when an n is not
**      an integer), read by the strict reader of ml_json_read.c; anything else is an error
**      naming the function, the argument and what is wrong.  The kind of a
**      curve is read from its fields (recall/precision or fpr/tpr); all rows
**      of one plot must be of one kind.
**   3. A row whose curve, bins, value, x or y is NULL is skipped (a fold with
**      one class has a NULL pr_curve); a NULL series or category is drawn
**      as "NULL".  No row left: NULL with a warning.
**   4. Series (and categories) are drawn in the order they first appear;
**      plot_curves and plot_reliability take one row per series (a name seen
**      twice is an error).  At most 24 series, 60 categories.
**   5. Numbers in the legend are computed from the JSON points: AP exactly
**      as pr_auc does (sum of (R_i - R_{i-1}) P_i, the points highest
**      threshold first), AUROC by the trapezoid rule over the ROC points,
**      ECE as sum_b n_b |frac_pos_b - mean_p_b| / sum_b n_b.  The no-skill
**      baseline of a PR curve is the precision of its last point, where
**      recall is 1 (everything predicted positive): the prevalence.
**   6. title, unit, xlabel and ylabel, when given, must be the same in every
**      row (text); plot_lines draws xlabel and ylabel under and beside its
**      axes (no label when NULL or not given).
**   6a. plot_reliability's smooth, per row (its series' own): NULL or absent
**      draws nothing more; else calibration_smooth() JSON, whose "curve"
**      ([p, curve(p)] pairs, p ascending in [0, 1]) is drawn over the bins
**      as a thin solid line in the series' colour (class "smooth"), a
**      value outside [0, 1] at the panel's edge.  Bins and title as before,
**      so a call without smooth draws the same image as before.
**   7. The image is 640 x 480 (reliability: 640 x 480 with the histogram in
**      the lower quarter), drawn by ml_svg.c.  A legend entry's name is cut
**      at 28 bytes ("..." added) and its value (AP, AUROC, ECE) kept after
**      it; the image is made wider (the plot panel unchanged) when its
**      longest entry would not fit in 640, so no entry is clipped.
**   8. plot_lines' x is numbers or text, one kind in one plot (mixing is
**      an error).  Text x is a label (a date, a month, a period's value as
**      text): the labels are placed on the x axis one pitch apart in the
**      order they first appear, each point at its label; a row with a text
**      x and a NULL y places its label and draws nothing (so a query can
**      set the axis' order before the points).  The pitch is the widest
**      label's (a label over 16 bytes is cut, "..." added), so the image
**      grows wider with the labels (the legend moves right with the panel);
**      past 4000 px of panel the pitch shrinks and every k-th label is
**      drawn.  At most 2000 labels.
**
** Cost: the JSON of each row is parsed once in xStep and kept as doubles
** (16 bytes a curve point, 40 a reliability bin, 24 a bar or line point);
** drawing is O(points).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"

/* Which picture a record asks of the family's shared callbacks (MlFuncDesc.kind). */
enum { PK_CURVES, PK_RELIABILITY, PK_BARS, PK_LINES, PK_KM };
#include "ml_utf8.h"

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

static const char *fn_name(int kind){
  switch( kind ){
    case PK_CURVES: return "plot_curves";
    case PK_RELIABILITY: return "plot_reliability";
    case PK_BARS: return "plot_bars";
    case PK_KM: return "plot_km";
    default: return "plot_lines";
  }
}

/* The first 40 bytes of z for a message, cut between characters, ill-formed
** UTF-8 as U+FFFD (a message is text that leaves the process); the caller
** ml_free()s it.  "?" (static: the caller must compare) when out of memory. */
static char zNoMem[] = "?";
static char *excerpt(const char *z){
  MlStr s;
  char *r;
  ml_str_init(&s);
  ml_str_text(&s, z, 40, 0);
  r = ml_str_finish(&s, 0);
  return r ? r : zNoMem;
}
static void excerpt_free(char *z){ if( z!=zNoMem ) ml_free(z); }

static char *dup_text(const char *z){
  size_t n = strlen(z);
  char *p = ml_malloc(n+1);
  if( p ) memcpy(p, z, n+1);
  return p;
}

static void plot_clear(PlotAgg *p){
  ml_i64 i;
  int k;
  for(i=0; i<p->n; i++){ ml_free(p->a[i].pts); ml_free(p->a[i].sm); }
  ml_free(p->a);
  for(k=0; k<p->nSeries; k++) ml_free(p->azSeries[k]);
  for(k=0; k<p->nCat; k++) ml_free(p->azCat[k]);
  for(k=0; k<p->nX; k++) ml_free(p->azX[k]);
  ml_free(p->azX);
  ml_free(p->title);
  ml_free(p->unit);
  ml_free(p->xlabel);
  ml_free(p->ylabel);
  memset(p, 0, sizeof(*p));
}

/* The text of a series or category value ("NULL" for NULL); -1 on OOM. */
static int intern(sqlite3_context *ctx, PlotAgg *p, int kind, sqlite3_value *v, int isCat,
                  int mustBeNew){
  const char *fn = fn_name(kind);
  const char *z = sqlite3_value_type(v)==SQLITE_NULL ? "NULL" : (const char*)sqlite3_value_text(v);
  char **az = isCat ? p->azCat : p->azSeries;
  int *pn = isCat ? &p->nCat : &p->nSeries;
  int max = isCat ? PLOT_MAX_CATEGORIES : PLOT_MAX_SERIES;
  int k;
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return -1; }
  for(k=0; k<*pn; k++){
    if( strcmp(az[k], z)==0 ){
      if( mustBeNew ){
        char *e = excerpt(z);
        ml_error(ctx, fn, "series '%s' appears in two rows; a plot takes one row per series", e);
        excerpt_free(e);
        return -1;
      }
      return k;
    }
  }
  if( *pn>=max ){
    ml_error(ctx, fn, "at most %d %s in one plot, got more", max, isCat ? "categories" : "series");
    return -1;
  }
  az[*pn] = dup_text(z);
  if( az[*pn]==0 ){ sqlite3_result_error_nomem(ctx); return -1; }
  return (*pn)++;
}

/* title / unit: text (or NULL), the same in every row. */
static int text_param(sqlite3_context *ctx, int kind, const char *name, sqlite3_value *v,
                      char **pz, int *pSet){
  const char *fn = fn_name(kind);
  const char *z;
  int t = sqlite3_value_type(v);
  if( t!=SQLITE_TEXT && t!=SQLITE_NULL ){
    char *d = ml_describe(v);
    ml_error(ctx, fn, "%s must be text, got %s", name, d ? d : "?");
    sqlite3_free(d);
    return 1;
  }
  z = t==SQLITE_NULL ? 0 : (const char*)sqlite3_value_text(v);
  if( t==SQLITE_TEXT && z==0 ){ sqlite3_result_error_nomem(ctx); return 1; }
  if( *pSet ){
    if( (z==0) != (*pz==0) || (z && strcmp(z, *pz)!=0) ){
      char *e1 = excerpt(z ? z : "NULL"), *e2 = excerpt(*pz ? *pz : "NULL");
      ml_error(ctx, fn, "%s must be the same in every row, got '%s' after '%s'", name, e1, e2);
      excerpt_free(e1); excerpt_free(e2);
      return 1;
    }
    return 0;
  }
  if( z ){
    *pz = dup_text(z);
    if( *pz==0 ){ sqlite3_result_error_nomem(ctx); return 1; }
  }
  *pSet = 1;
  return 0;
}

static PlotRow *new_row(sqlite3_context *ctx, PlotAgg *p){
  PlotRow *r;
  if( p->n==p->cap ){
    ml_i64 cNew = p->cap ? p->cap*2 : 16;
    PlotRow *a = ml_realloc(p->a, (uint64_t)cNew * sizeof(PlotRow));
    if( a==0 ){ sqlite3_result_error_nomem(ctx); return 0; }
    p->a = a; p->cap = cNew;
  }
  r = &p->a[p->n];
  memset(r, 0, sizeof(*r));
  r->order = p->n;
  return r;
}

/* plot_lines' text x (rule 8): the index of its label, added in order of
** first appearance; -1 on an error (reported). */
static int intern_x(sqlite3_context *ctx, PlotAgg *p, sqlite3_value *v){
  const char *z = (const char*)sqlite3_value_text(v);
  int k;
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return -1; }
  for(k=p->nX-1; k>=0; k--) if( strcmp(p->azX[k], z)==0 ) return k;
  if( p->nX>=PLOT_MAX_XLABELS ){
    ml_error(ctx, "plot_lines", "at most %d x labels (text x) in one plot, got more", PLOT_MAX_XLABELS);
    return -1;
  }
  if( p->nX==p->capX ){
    int cNew = p->capX ? p->capX*2 : 16;
    char **a = ml_realloc(p->azX, (uint64_t)cNew * sizeof(char*));
    if( a==0 ){ sqlite3_result_error_nomem(ctx); return -1; }
    p->azX = a; p->capX = cNew;
  }
  p->azX[p->nX] = dup_text(z);
  if( p->azX[p->nX]==0 ){ sqlite3_result_error_nomem(ctx); return -1; }
  return p->nX++;
}

/* Reads a JSON argument; on error sets "fn(): name must be WHAT JSON, got
** ...: reason".  ML_OK, ML_NOMEM (reported) or ML_ERROR (reported). */
static int read_json_arg(sqlite3_context *ctx, const char *fn, const char *name, const char *what,
                         sqlite3_value *v, int nField, const char *const *az,
                         double **pa, ml_i64 *pn, ml_i64 *anPresent){
  char zErr[96];
  int rc;
  const char *z;
  if( sqlite3_value_type(v)!=SQLITE_TEXT ){
    char *d = ml_describe(v);
    ml_error(ctx, fn, "%s must be %s JSON, got %s", name, what, d ? d : "?");
    sqlite3_free(d);
    return ML_ERROR;
  }
  z = (const char*)sqlite3_value_text(v);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return ML_NOMEM; }
  rc = ml_json_read_rows(z, nField, az, pa, pn, anPresent, zErr, sizeof(zErr));
  if( rc==ML_NOMEM ){ sqlite3_result_error_nomem(ctx); return rc; }
  if( rc==ML_ERROR ){
    char *e = excerpt(z);
    ml_error(ctx, fn, "%s must be %s JSON, got '%s': %s", name, what, e, zErr);
    excerpt_free(e);
  }
  return rc;
}

/* plot_curves: the (x, y) points of one curve, its kind, AP/AUROC, baseline. */
static int step_curve(sqlite3_context *ctx, PlotAgg *p, PlotRow *r, sqlite3_value *v){
  static const char *const az[] = {"recall", "precision", "fpr", "tpr"};
  static const char *const what = "pr_curve() or roc_curve()";
  const char *fn = "plot_curves";
  double *a = 0;
  ml_i64 n = 0, pres[4], i;
  int kind, rc;
  MlSum sum = {0, 0};
  rc = read_json_arg(ctx, fn, "curve", what, v, 4, az, &a, &n, pres);
  if( rc ) return rc;
  if( n>0 && pres[0]==n && pres[1]==n ) kind = CURVE_PR;
  else if( n>0 && pres[2]==n && pres[3]==n ) kind = CURVE_ROC;
  else{
    char *e = excerpt((const char*)sqlite3_value_text(v));
    ml_error(ctx, fn, "curve must be %s JSON, got '%s': %s", what, e,
             n==0 ? "no points" : "its points lack recall/precision or fpr/tpr");
    excerpt_free(e);
    ml_free(a);
    return ML_ERROR;
  }
  if( p->curve!=CURVE_NONE && p->curve!=kind ){
    ml_error(ctx, fn, "curve mixes %s and %s JSON in one plot; draw them in two plots",
             p->curve==CURVE_PR ? "pr_curve()" : "roc_curve()",
             kind==CURVE_PR ? "pr_curve()" : "roc_curve()");
    ml_free(a);
    return ML_ERROR;
  }
  p->curve = kind;
  /* Compact to (x, y) pairs, checking the range. */
  for(i=0; i<n; i++){
    double x = kind==CURVE_PR ? a[4*i] : a[4*i+2];
    double y = kind==CURVE_PR ? a[4*i+1] : a[4*i+3];
    if( !(x>=0.0 && x<=1.0) || !(y>=0.0 && y<=1.0) ){
      char bx[32], by[32];
      if( isnan(x) ) memcpy(bx, "null", 5); else ml_format_double(bx, x);
      if( isnan(y) ) memcpy(by, "null", 5); else ml_format_double(by, y);
      ml_error(ctx, fn, "curve must be %s JSON, got point %lld with %s %s, %s %s: not in [0, 1]",
               what, (long long)i, kind==CURVE_PR ? "recall" : "fpr", bx,
               kind==CURVE_PR ? "precision" : "tpr", by);
      ml_free(a);
      return ML_ERROR;
    }
    a[2*i] = x; a[2*i+1] = y;
  }
  if( kind==CURVE_PR ){
    double prev = 0.0;
    for(i=0; i<n; i++){
      ml_sum_add(&sum, (a[2*i] - prev) * a[2*i+1]);
      prev = a[2*i];
    }
    r->stat = ml_sum_value(&sum);
    r->base = a[2*(n-1)]==1.0 ? a[2*(n-1)+1] : NAN;
  }else{
    double px = 0.0, py = 0.0;
    for(i=0; i<n; i++){
      ml_sum_add(&sum, (a[2*i] - px) * (a[2*i+1] + py) / 2.0);
      px = a[2*i]; py = a[2*i+1];
    }
    r->stat = ml_sum_value(&sum);
    r->base = NAN;
  }
  r->pts = a; r->nPts = n;
  return ML_OK;
}

/* plot_reliability: lo, hi, n, mean_p, frac_pos per bin, and the ECE. */
static int step_reliability(sqlite3_context *ctx, PlotRow *r, sqlite3_value *v){
  static const char *const az[] = {"lo", "hi", "n", "mean_p", "frac_pos"};
  const char *fn = "plot_reliability";
  double *a = 0, tot = 0;
  ml_i64 n = 0, pres[5], i;
  MlSum sum = {0, 0};
  int rc = read_json_arg(ctx, fn, "bins", "reliability()", v, 5, az, &a, &n, pres);
  if( rc ) return rc;
  for(i=0; i<5 && n>0; i++){
    if( pres[i]!=n ){
      char *e = excerpt((const char*)sqlite3_value_text(v));
      ml_error(ctx, fn, "bins must be reliability() JSON, got '%s': a bin has no \"%s\"", e, az[i]);
      excerpt_free(e);
      ml_free(a);
      return ML_ERROR;
    }
  }
  if( n==0 ){
    char *e = excerpt((const char*)sqlite3_value_text(v));
    ml_error(ctx, fn, "bins must be reliability() JSON, got '%s': no bins", e);
    excerpt_free(e);
    ml_free(a);
    return ML_ERROR;
  }
  for(i=0; i<n; i++){
    double *b = a + 5*i;
    int ok = 1, f;
    for(f=0; f<5; f++) if( !(b[f]>=0.0) ) ok = 0;
    /* n is a count (reliability) or a sum of weights (reliability_w): any
    ** finite n >= 0 (rule 2) */
    if( !(b[0]<=b[1] && b[1]<=1.0 && b[3]<=1.0 && b[4]<=1.0 && isfinite(b[2])) ) ok = 0;
    if( !ok ){
      ml_error(ctx, fn, "bins must be reliability() JSON, got a bin %lld with lo %g, hi %g, n %g, "
               "mean_p %g, frac_pos %g", (long long)i, b[0], b[1], b[2], b[3], b[4]);
      ml_free(a);
      return ML_ERROR;
    }
    ml_sum_add(&sum, b[2] * fabs(b[4] - b[3]));
    tot += b[2];
  }
  r->stat = tot>0 ? ml_sum_value(&sum) / tot : NAN;
  r->pts = a; r->nPts = n;
  return ML_OK;
}

/* plot_reliability's smooth (rule 6a): calibration_smooth() JSON's curve,
** p ascending in [0, 1], curve values finite.  ML_OK, ML_NOMEM or ML_ERROR
** (reported). */
static int step_smooth(sqlite3_context *ctx, PlotRow *r, sqlite3_value *v){
  const char *fn = "plot_reliability";
  char zErr[96];
  const char *z;
  double *a = 0;
  ml_i64 n = 0, i;
  int rc;
  if( sqlite3_value_type(v)!=SQLITE_TEXT ){
    char *d = ml_describe(v);
    ml_error(ctx, fn, "smooth must be calibration_smooth() JSON, got %s", d ? d : "?");
    sqlite3_free(d);
    return ML_ERROR;
  }
  z = (const char*)sqlite3_value_text(v);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return ML_NOMEM; }
  rc = ml_json_read_pairs(z, "curve", &a, &n, zErr, sizeof(zErr));
  if( rc==ML_NOMEM ){ sqlite3_result_error_nomem(ctx); return rc; }
  for(i=0; rc==ML_OK && i<n; i++){
    if( !(a[2*i]>=0.0 && a[2*i]<=1.0 && isfinite(a[2*i+1])) || (i>0 && !(a[2*i]>a[2*i-2])) ){
      snprintf(zErr, sizeof(zErr), "point %lld is [%g, %g]", (long long)i, a[2*i], a[2*i+1]);
      rc = ML_ERROR;
    }
  }
  if( rc==ML_ERROR ){
    char *e = excerpt(z);
    ml_error(ctx, fn, "smooth must be calibration_smooth() JSON, got '%s': %s", e, zErr);
    excerpt_free(e);
    ml_free(a);
    return rc;
  }
  r->sm = a; r->nSm = n;
  return ML_OK;
}

/* A number argument of plot_bars/plot_lines: finite; NULL skips the row. */
static int number_arg(sqlite3_context *ctx, const char *fn, const char *name, sqlite3_value *v,
                      double *out){
  int rc = ml_arg_score(ctx, fn, name, v, out);
  if( rc!=ML_ROW_OK ) return rc;
  if( !isfinite(*out) ){
    ml_error(ctx, fn, "%s must be a finite number, got %s", name, *out>0 ? "Inf" : "-Inf");
    return ML_ROW_ERR;
  }
  return ML_ROW_OK;
}

/*
** SQL function: plot_curves(series, curve [, title])
** SQL function: plot_reliability(series, bins [, title [, smooth]])
** SQL function: plot_bars(category, series, value [, title [, unit]])
** SQL function: plot_lines(series, x, y [, title [, xlabel [, ylabel]]])
** Collects one row; the user data's kind says which plot.
*/
static void ml_plot_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  PlotAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  const char *fn = d->name;
  int nData = d->kind==PK_BARS || d->kind==PK_LINES ? 3 : 2;
  PlotRow *r;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  p->init = 1;
  if( argc>nData && text_param(ctx, d->kind, "title", argv[nData], &p->title, &p->titleSet) ) return;
  if( d->kind==PK_LINES ){
    if( argc>nData+1 && text_param(ctx, d->kind, "xlabel", argv[nData+1], &p->xlabel, &p->xlabelSet) ) return;
    if( argc>nData+2 && text_param(ctx, d->kind, "ylabel", argv[nData+2], &p->ylabel, &p->ylabelSet) ) return;
  }else if( d->kind==PK_BARS && argc>nData+1 && text_param(ctx, d->kind, "unit", argv[nData+1], &p->unit, &p->unitSet) ){
    return;
  }
  switch( d->kind ){
    case PK_CURVES:
    case PK_RELIABILITY: {
      int s;
      if( sqlite3_value_type(argv[1])==SQLITE_NULL ) return;
      r = new_row(ctx, p);
      if( r==0 ) return;
      if( (d->kind==PK_CURVES ? step_curve(ctx, p, r, argv[1]) : step_reliability(ctx, r, argv[1])) ) return;
      if( d->kind==PK_RELIABILITY && argc>3 && sqlite3_value_type(argv[3])!=SQLITE_NULL
       && step_smooth(ctx, r, argv[3]) ){
        ml_free(r->pts);
        return;
      }
      s = intern(ctx, p, d->kind, argv[0], 0, 1);
      if( s<0 ){ ml_free(r->pts); ml_free(r->sm); return; }
      r->series = s;
      p->n++;
      break;
    }
    case PK_BARS: {
      double v;
      int c, s;
      if( number_arg(ctx, fn, "value", argv[2], &v)!=ML_ROW_OK ) return;
      if( (c = intern(ctx, p, d->kind, argv[0], 1, 0))<0 ) return;
      if( (s = intern(ctx, p, d->kind, argv[1], 0, 0))<0 ) return;
      if( (r = new_row(ctx, p))==0 ) return;
      r->cat = c; r->series = s; r->y = v;
      p->n++;
      break;
    }
    default: {
      double x, y;
      int s;
      if( sqlite3_value_type(argv[1])==SQLITE_TEXT ){      /* rule 8: a label */
        int xi;
        if( p->xKind==1 ){
          char *e = excerpt((const char*)sqlite3_value_text(argv[1]));
          ml_error(ctx, fn, "x must be all numbers or all text in one plot, got text '%s' after numbers", e);
          excerpt_free(e);
          return;
        }
        if( (xi = intern_x(ctx, p, argv[1]))<0 ) return;
        p->xKind = 2;
        x = xi;
        if( sqlite3_value_type(argv[2])==SQLITE_NULL ) return;   /* the label placed, nothing drawn */
      }else{
        if( number_arg(ctx, fn, "x", argv[1], &x)!=ML_ROW_OK ) return;
        if( p->xKind==2 && sqlite3_value_type(argv[2])!=SQLITE_NULL ){
          char v[32];
          ml_format_double(v, x);
          ml_error(ctx, fn, "x must be all numbers or all text in one plot, got %s after text", v);
          return;
        }
      }
      if( number_arg(ctx, fn, "y", argv[2], &y)!=ML_ROW_OK ) return;
      if( p->xKind==0 ) p->xKind = 1;
      if( (s = intern(ctx, p, d->kind, argv[0], 0, 0))<0 ) return;
      if( (r = new_row(ctx, p))==0 ) return;
      r->series = s; r->x = x; r->y = y;
      p->n++;
      break;
    }
  }
}

/* ------------------------------------------------------------- drawing */

/* The plot panel left of the legend. */
static const MlPlotBox kBox = {0, 1, 0, 1, 72, 44, 380, 368};
#define LEGEND_X 472
#define LEGEND_Y 56

#define LEGEND_NAME_MAX 28      /* bytes of a series name in the legend */
#define LEGEND_TEXT_X 28        /* the entries' text, right of LEGEND_X */
#define LEGEND_FONT 11          /* px */

/* "name (AP 0.812)"; a name over LEGEND_NAME_MAX bytes is cut at a
** character boundary with "..." added, the value kept. */
static char *legend_text(const char *name, const char *label, double v){
  char buf[64];
  size_t n = strlen(name);
  int cut = n > LEGEND_NAME_MAX;
  if( cut ) n = ml_utf8_cut(name, LEGEND_NAME_MAX);
  if( label==0 ) return sqlite3_mprintf("%.*s%s", (int)n, name, cut ? "..." : "");
  if( isfinite(v) ) ml_format_fixed(buf, v, 3);
  else memcpy(buf, "n/a", 4);
  return sqlite3_mprintf("%.*s%s (%s %s)", (int)n, name, cut ? "..." : "", label, buf);
}

/* The advance widths of DejaVu Sans (the font the image asks for first),
** in 1/2048 em, of ' ' to '~'. */
static const unsigned short kAdvance[95] = {
  651,821,942,1716,1303,1946,1597,563,799,799,1024,1716,651,739,651,690,1303,1303,1303,1303,1303,1303,1303,1303,
  1303,1303,690,690,1716,1716,1716,1087,2048,1401,1405,1430,1577,1294,1178,1587,1540,604,604,1343,1141,1767,1532,
  1612,1235,1612,1423,1300,1251,1499,1401,2025,1403,1251,1403,799,690,799,1716,1024,1024,1255,1300,1126,1300,1260,
  721,1300,1298,569,569,1186,569,1995,1298,1253,1300,1300,842,1067,803,1298,1212,1675,1212,1212,1075,1303,690,1303,
  1716,
};

/* The width of z in em: DejaVu Sans' for ASCII, 1 em for any other
** character. */
static double text_em(const char *z){
  double w = 0;
  while( *z ){
    unsigned char c = (unsigned char)*z;
    if( c>=32 && c<127 ){ w += kAdvance[c-32] / 2048.0; z++; continue; }
    if( (c & 0xC0)!=0x80 ) w += 1.0;      /* a lead byte or a control: one character */
    z++;
  }
  return w;
}

/* The image's width: PLOT_W, or more when the longest legend entry (as
** draw_legend writes them), estimated 5 % wide, would run past it. */
static int plot_width_at(PlotAgg *p, const char *label, int perRow, int shift){
  int k, n = perRow ? (int)p->n : p->nSeries, w = PLOT_W + shift;
  for(k=0; k<n; k++){
    char *z = legend_text(p->azSeries[perRow ? p->a[k].series : k], label, perRow ? p->a[k].stat : 0);
    double need;
    if( z==0 ) continue;                  /* draw_legend reports the NOMEM */
    need = shift + LEGEND_X + LEGEND_TEXT_X + 1.05 * LEGEND_FONT * text_em(z) + 8;
    if( need>w ) w = (int)ceil(need);
    sqlite3_free(z);
  }
  return w;
}

static int plot_width(PlotAgg *p, const char *label, int perRow){ return plot_width_at(p, label, perRow, 0); }

/* The legend: one entry per row (curves, reliability) or series, at x. */
static int draw_legend_at(MlStr *s, PlotAgg *p, const char *label, int perRow, double x, double y, int boxes){
  char *az[PLOT_MAX_SERIES];
  int ac[PLOT_MAX_SERIES];
  int k, n = perRow ? (int)p->n : p->nSeries, rc = ML_OK;
  for(k=0; k<n; k++){
    int sidx = perRow ? p->a[k].series : k;
    az[k] = legend_text(p->azSeries[sidx], label, perRow ? p->a[k].stat : 0);
    ac[k] = sidx;
    if( az[k]==0 ) rc = ML_NOMEM;
  }
  if( rc==ML_OK ) ml_svg_legend(s, x, y, n, (const char *const*)az, ac, boxes);
  for(k=0; k<n; k++) sqlite3_free(az[k]);
  return rc;
}
static int draw_legend(MlStr *s, PlotAgg *p, const char *label, int perRow, double y, int boxes){
  return draw_legend_at(s, p, label, perRow, LEGEND_X, y, boxes);
}

static int draw_curves(MlStr *s, PlotAgg *p){
  MlPlotBox b = kBox;
  int isPr = p->curve==CURVE_PR;
  ml_i64 i;
  ml_svg_begin(s, plot_width(p, isPr ? "AP" : "AUROC", 1), PLOT_H,
               p->title ? p->title : isPr ? "Precision-recall curves" : "ROC curves");
  ml_svg_axes(s, &b, isPr ? "recall" : "false positive rate", isPr ? "precision" : "true positive rate", 6, 6);
  if( !isPr ) ml_svg_line(s, &b, "diagonal", 0, 0, 1, 1, "#888888", "4 4", 1);
  for(i=0; i<p->n; i++){
    PlotRow *r = &p->a[i];
    if( isPr && isfinite(r->base) ){
      ml_svg_line(s, &b, "baseline", 0, r->base, 1, r->base, ml_svg_color(r->series), "5 4", 1.2);
    }
  }
  for(i=0; i<p->n; i++){
    PlotRow *r = &p->a[i];
    ml_svg_polyline(s, &b, "curve", r->pts, r->nPts, ml_svg_color(r->series), ml_svg_dash(r->series), 2);
  }
  if( draw_legend(s, p, isPr ? "AP" : "AUROC", 1, LEGEND_Y, 0) ) return ML_NOMEM;
  ml_svg_text(s, "note", LEGEND_X, LEGEND_Y + 18*(int)p->n + 8, 0, 10,
              isPr ? "dashed: no skill (prevalence)" : "dashed: chance (AUROC 0.5)");
  ml_svg_end(s);
  return ML_OK;
}

static int draw_reliability(MlStr *s, PlotAgg *p){
  MlPlotBox top = {0, 1, 0, 1, 72, 44, 380, 250};
  MlPlotBox hist = {0, 1, 0, 1, 72, 330, 380, 82};
  double maxN = 0;
  ml_i64 i, j, nSmooth = 0;
  int K = p->nSeries, weighted = 0;
  for(i=0; i<p->n; i++){
    for(j=0; j<p->a[i].nPts; j++){
      double n = p->a[i].pts[5*j+2];
      if( n > maxN ) maxN = n;
      if( n!=floor(n) ) weighted = 1;
    }
  }
  ml_nice_range(0, maxN>0 ? maxN : 1, 4, &hist.y0, &hist.y1);
  hist.y0 = 0;
  ml_svg_begin(s, plot_width(p, "ECE", 1), PLOT_H, p->title ? p->title : "Reliability diagram");
  ml_svg_axes(s, &top, 0, "fraction of positives", 6, 6);
  ml_svg_axes(s, &hist, "predicted probability", weighted ? "weight" : "count", 6, 3);
  ml_svg_line(s, &top, "diagonal", 0, 0, 1, 1, "#888888", "4 4", 1);
  for(i=0; i<p->n; i++){
    PlotRow *r = &p->a[i];
    double *xy = ml_malloc((uint64_t)r->nPts * 16 + 16);
    if( xy==0 ) return ML_NOMEM;
    for(j=0; j<r->nPts; j++){
      double *bin = r->pts + 5*j;
      char tip[200], sn[32], sm[32], sf[32];
      const char *name = p->azSeries[r->series];
      ml_format_fixed(sm, bin[3], 3); ml_format_fixed(sf, bin[4], 3);
      if( bin[2]==floor(bin[2]) ) snprintf(sn, sizeof(sn), "%lld", (long long)bin[2]);
      else ml_format_double(sn, bin[2]);      /* reliability_w: a sum of weights */
      snprintf(tip, sizeof(tip), "%.*s: n %s, mean p %s, fraction positive %s",
               (int)ml_utf8_cut(name, 60), name, sn, sm, sf);
      xy[2*j] = bin[3]; xy[2*j+1] = bin[4];
      ml_svg_rect(s, &hist, "hist", bin[0] + (bin[1]-bin[0])*r->series/K, 0,
                  bin[0] + (bin[1]-bin[0])*(r->series+1)/K, bin[2],
                  ml_svg_color(r->series), 0.75, tip);
    }
    ml_svg_polyline(s, &top, "curve", xy, r->nPts, ml_svg_color(r->series), ml_svg_dash(r->series), 2);
    ml_free(xy);
    if( r->sm ){                    /* rule 6a: the smoothed curve, clamped to the panel */
      double *c = ml_malloc((uint64_t)r->nSm * 16 + 16);
      if( c==0 ) return ML_NOMEM;
      for(j=0; j<r->nSm; j++){
        c[2*j] = r->sm[2*j];
        c[2*j+1] = fmin(1.0, fmax(0.0, r->sm[2*j+1]));
      }
      ml_svg_polyline(s, &top, "smooth", c, r->nSm, ml_svg_color(r->series), 0, 1);
      ml_free(c);
      nSmooth++;
    }
  }
  if( draw_legend(s, p, "ECE", 1, LEGEND_Y, 0) ) return ML_NOMEM;
  ml_svg_text(s, "note", LEGEND_X, LEGEND_Y + 18*(int)p->n + 8, 0, 10, "dashed: perfect calibration");
  if( nSmooth ) ml_svg_text(s, "note", LEGEND_X, LEGEND_Y + 18*(int)p->n + 22, 0, 10, "thin: smoothed (lowess)");
  ml_svg_text(s, "note", LEGEND_X, hist.top + 12, 0, 10, "below: predictions per bin");
  ml_svg_end(s);
  return ML_OK;
}

static int draw_bars(MlStr *s, PlotAgg *p){
  MlPlotBox b = kBox;
  double lo = 0, hi = 0;
  ml_i64 i;
  int c;
  for(i=0; i<p->n; i++){
    if( p->a[i].y < lo ) lo = p->a[i].y;
    if( p->a[i].y > hi ) hi = p->a[i].y;
  }
  if( hi==lo ) hi = lo + 1;
  ml_nice_range(lo, hi, 6, &b.y0, &b.y1);
  if( lo>=0 ) b.y0 = 0;
  if( hi<=0 ) b.y1 = 0;
  b.x0 = 0; b.x1 = p->nCat;
  b.height = 340;
  ml_svg_begin(s, plot_width(p, 0, 0), PLOT_H, p->title ? p->title : "Bar chart");
  ml_svg_axes(s, &b, 0, p->unit ? p->unit : "value", 0, 6);
  for(c=0; c<p->nCat; c++){
    char buf[64];
    size_t len = strlen(p->azCat[c]);
    if( len>18 ){
      len = ml_utf8_cut(p->azCat[c], 15);
      memcpy(buf, p->azCat[c], len); memcpy(buf+len, "...", 4);
    }else{
      memcpy(buf, p->azCat[c], len+1);
    }
    ml_svg_text(s, "xcat", ml_svg_px(&b, c + 0.5), b.top + b.height + 18, "middle", 11, buf);
  }
  for(i=0; i<p->n; i++){
    PlotRow *r = &p->a[i];
    double w = 0.8 / p->nSeries, x = r->cat + 0.1 + w*r->series;
    char v[64], *tip;
    ml_format_double(v, r->y);
    tip = sqlite3_mprintf("%s / %s: %s%s%s", p->azCat[r->cat], p->azSeries[r->series], v,
                          p->unit ? " " : "", p->unit ? p->unit : "");
    if( tip==0 ) return ML_NOMEM;
    ml_svg_rect(s, &b, "bar", x, 0, x + w, r->y, ml_svg_color(r->series), 1, tip);
    sqlite3_free(tip);
  }
  if( b.y0<0 ) ml_svg_line(s, &b, "zero", 0, 0, b.x1, 0, "#333333", 0, 1);
  if( draw_legend(s, p, 0, 0, LEGEND_Y, 1) ) return ML_NOMEM;
  ml_svg_end(s);
  return ML_OK;
}

static int cmp_lines(const void *a, const void *b){
  const PlotRow *x = a, *y = b;
  if( x->series != y->series ) return x->series < y->series ? -1 : 1;
  if( x->x != y->x ) return x->x < y->x ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* plot_lines' x axis of text labels (rule 8): label i at x = i, one
** pitch apart, the pitch the widest drawn label's; the panel grows with the
** labels up to XLABEL_PANEL_MAX px, past which the pitch shrinks and every
** step-th label is drawn.  Sets b's x range and width. */
static void xlabel_layout(PlotAgg *p, MlPlotBox *b, int *pStep){
  double wLabel = 0, pitch;
  int k;
  for(k=0; k<p->nX; k++){
    size_t n = strlen(p->azX[k]);
    double w;
    char buf[XLABEL_MAX + 8];
    if( n>XLABEL_MAX ){ n = ml_utf8_cut(p->azX[k], XLABEL_MAX - 3); memcpy(buf, p->azX[k], n); memcpy(buf+n, "...", 4); }
    else memcpy(buf, p->azX[k], n+1);
    w = 1.05 * 11 * text_em(buf) + 10;
    if( w>wLabel ) wLabel = w;
  }
  pitch = wLabel;
  if( p->nX*pitch > XLABEL_PANEL_MAX ) pitch = (double)XLABEL_PANEL_MAX / p->nX;
  *pStep = (int)ceil(wLabel / pitch - 1e-9);
  if( *pStep<1 ) *pStep = 1;
  b->x0 = -0.5; b->x1 = p->nX - 0.5;
  b->width = fmax(kBox.width, ceil(p->nX * pitch));
}

/* The text labels under the axis (rule 8), each a tick and a grid line, in
** <g class="xtick"> as the number ticks are. */
static void draw_xlabels(MlStr *s, PlotAgg *p, const MlPlotBox *b, int step){
  int k;
  for(k=0; k<p->nX; k+=step){
    char buf[XLABEL_MAX + 8];
    size_t n = strlen(p->azX[k]);
    double px = ml_svg_px(b, k);
    if( n>XLABEL_MAX ){ n = ml_utf8_cut(p->azX[k], XLABEL_MAX - 3); memcpy(buf, p->azX[k], n); memcpy(buf+n, "...", 4); }
    else memcpy(buf, p->azX[k], n+1);
    ml_str_appendz(s, "<g class=\"xtick\">\n");
    ml_svg_line(s, b, "grid", k, b->y0, k, b->y1, "#e5e5e5", 0, 1);
    ml_svg_line(s, b, 0, k, b->y0, k, b->y0 - 5*(b->y1 - b->y0)/b->height, "#333333", 0, 1);
    ml_svg_text(s, 0, px, b->top + b->height + 18, "middle", 11, buf);
    ml_str_appendz(s, "</g>\n");
  }
}

static int draw_lines(MlStr *s, PlotAgg *p){
  MlPlotBox b = kBox;
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  double *xy;
  ml_i64 i, j;
  int k, step = 1, shift = 0;
  for(i=0; i<p->n; i++){
    PlotRow *r = &p->a[i];
    if( r->x<xlo ) xlo = r->x;
    if( r->x>xhi ) xhi = r->x;
    if( r->y<ylo ) ylo = r->y;
    if( r->y>yhi ) yhi = r->y;
  }
  ml_nice_range(ylo, yhi, 6, &b.y0, &b.y1);
  if( p->xKind==2 ){
    xlabel_layout(p, &b, &step);
    shift = (int)(b.width - kBox.width);
  }else{
    ml_nice_range(xlo, xhi, 6, &b.x0, &b.x1);
  }
  qsort(p->a, (size_t)p->n, sizeof(PlotRow), cmp_lines);
  xy = ml_malloc((uint64_t)p->n * 16 + 16);
  if( xy==0 ) return ML_NOMEM;
  ml_svg_begin(s, plot_width_at(p, 0, 0, shift), PLOT_H, p->title ? p->title : "Line chart");
  if( p->xKind==2 ) draw_xlabels(s, p, &b, step);
  ml_svg_axes(s, &b, p->xlabel, p->ylabel, p->xKind==2 ? 0 : 6, 6);
  for(k=0, i=0; k<p->nSeries; k++){
    ml_i64 n = 0;
    for(j=i; j<p->n && p->a[j].series==k; j++){
      xy[2*n] = p->a[j].x; xy[2*n+1] = p->a[j].y; n++;
    }
    ml_svg_polyline(s, &b, "curve", xy, n, ml_svg_color(k), ml_svg_dash(k), 2);
    i = j;
  }
  ml_free(xy);
  if( draw_legend_at(s, p, 0, 0, LEGEND_X + shift, LEGEND_Y, 0) ) return ML_NOMEM;
  ml_svg_end(s);
  return ML_OK;
}

static void ml_plot_final(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  PlotAgg *p = sqlite3_aggregate_context(ctx, 0);
  MlStr s;
  int rc;
  size_t n;
  char *z;
  if( p==0 || p->n==0 ){
    ml_result_null(ctx, d->name, "no rows to draw");
    if( p ) plot_clear(p);
    return;
  }
  ml_str_init(&s);
  switch( d->kind ){
    case PK_CURVES: rc = draw_curves(&s, p); break;
    case PK_RELIABILITY: rc = draw_reliability(&s, p); break;
    case PK_BARS: rc = draw_bars(&s, p); break;
    default: rc = draw_lines(&s, p); break;
  }
  plot_clear(p);
  if( rc ){ ml_str_free(&s); sqlite3_result_error_nomem(ctx); return; }
  z = ml_str_finish(&s, &n);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_text64(ctx, z, n, ml_free, SQLITE_UTF8);
}

/* ------------------------------------------------------------- records */

/* Text parameters, the same in every row like a title (rule 1); plot.c checks them itself. */
static const MlParamSpec psTitle = ML_PARAM_TEXT("title", "''", "'a title'");
static const MlParamSpec psUnit = ML_PARAM_TEXT("unit", "''", "'ms'");
static const MlParamSpec psXlabel = ML_PARAM_TEXT("xlabel", "'x'", "'day'");
static const MlParamSpec psYlabel = ML_PARAM_TEXT("ylabel", "'y'", "'auroc'");
/* plot_reliability's overlay (rule 6a): per row, not the same in every row */
static const MlParamSpec psSmooth = ML_PARAM_TEXT("smooth", "NULL", "'{\"curve\":[[0.1,0.2],[0.9,0.8]]}'");

/* Aggregates only: no xValue/xInverse, so SQLite refuses them with OVER (...). */
static const MlFamily famPlot = { "plot", ml_plot_step, ml_plot_final, 0, 0, 0, 0, 0, 0 };

const MlFuncDesc ml_plot_functions[] = {
  { "plot_curves",      "series, curve [, title]",  2,  3, &famPlot, 0, PK_CURVES, 0, ML_PARAMS(&psTitle) },
  { "plot_reliability", "series, bins [, title [, smooth]]", 2, 4, &famPlot, 0, PK_RELIABILITY, 0,
                                                    ML_PARAMS(&psTitle, &psSmooth) },
  { "plot_bars",        "category, series, value [, title [, unit]]", 3, 5, &famPlot, 0, PK_BARS, 0,
                                                    ML_PARAMS(&psTitle, &psUnit) },
  { "plot_lines",       "series, x, y [, title [, xlabel [, ylabel]]]", 3, 6, &famPlot, 0, PK_LINES, 0,
                                                    ML_PARAMS(&psTitle, &psXlabel, &psYlabel) },
  { 0 }
};

/* ------------------------------------------------------------------------
** plot_km(series, curve [, title]) -- Kaplan-Meier step curves (the survival
** family's picture; docs/plots.md).  A block of its own: its record list
** (ml_plot_km_functions, family "plot"), step and final, reusing the
** family's helpers above.
**   1. curve is km() JSON without t ({"time","n_risk","n_event","n_censor",
**      "surv","se"}: the whole curve), one row per series (a name seen twice
**      is an error), at most 24 series; a NULL curve skips the row.
**   2. Each series is drawn as the right-continuous step from (0, 1)
**      through (t_k, S_k), censoring ticks (short vertical marks) at the
**      times with n_censor > 0, at the curve's height there.
**   3. Under the x axis, the number at risk at each x tick, one line per
**      series: the n_risk of the first time >= the tick (the
**      rows still followed then), 0 past the last time; weights print as
**      the shortest double.
**   4. Deterministic bytes: the drawing depends only on the rows' JSON and
**      their order (series in the order they first appear).
** Cost: 40 bytes a curve point; drawing O(points).
*/
#define KM_ROW_H 14              /* px, a line of the number-at-risk table */

/* One curve: 4 doubles a point (time, n_risk, n_censor, surv). */
static int step_km(sqlite3_context *ctx, PlotRow *r, sqlite3_value *v){
  static const char *const az[] = {"time", "n_risk", "n_censor", "surv"};
  const char *fn = "plot_km";
  char zErr[96];
  const char *z;
  double *f[4] = {0, 0, 0, 0}, *a;
  ml_i64 n[4], i;
  int k, rc = ML_OK;
  if( sqlite3_value_type(v)!=SQLITE_TEXT ){
    char *d = ml_describe(v);
    ml_error(ctx, fn, "curve must be km() JSON, got %s", d ? d : "?");
    sqlite3_free(d);
    return ML_ERROR;
  }
  z = (const char*)sqlite3_value_text(v);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return ML_NOMEM; }
  zErr[0] = 0;
  for(k=0; k<4 && rc==ML_OK; k++) rc = ml_json_read_field(z, az[k], &f[k], &n[k], zErr, sizeof(zErr));
  if( rc==ML_OK && (n[1]!=n[0] || n[2]!=n[0] || n[3]!=n[0]) ){
    snprintf(zErr, sizeof(zErr), "\"time\", \"n_risk\", \"n_censor\" and \"surv\" differ in length");
    rc = ML_ERROR;
  }
  if( rc==ML_OK && n[0]==0 ){ snprintf(zErr, sizeof(zErr), "no times"); rc = ML_ERROR; }
  for(i=0; rc==ML_OK && i<n[0]; i++){
    if( !(f[0][i]>=0.0 && isfinite(f[0][i])) || (i>0 && !(f[0][i]>f[0][i-1])) || !(f[3][i]>=0.0 && f[3][i]<=1.0)
     || !(f[1][i]>=0.0 && isfinite(f[1][i])) || !(f[2][i]>=0.0 && isfinite(f[2][i])) ){
      snprintf(zErr, sizeof(zErr), "not a Kaplan-Meier curve at element %lld", (long long)i);
      rc = ML_ERROR;
    }
  }
  a = rc==ML_OK ? ml_malloc((uint64_t)n[0] * 4 * sizeof(double)) : 0;
  if( rc==ML_OK && a==0 ) rc = ML_NOMEM;
  if( rc==ML_OK ){
    for(i=0; i<n[0]; i++) for(k=0; k<4; k++) a[4*i+k] = f[k][i];
    r->pts = a; r->nPts = n[0];
  }
  for(k=0; k<4; k++) ml_free(f[k]);
  if( rc==ML_NOMEM ){ sqlite3_result_error_nomem(ctx); return rc; }
  if( rc==ML_ERROR ){
    char *e = excerpt(z);
    ml_error(ctx, fn, "curve must be km() JSON, got '%s': %s", e, zErr);
    excerpt_free(e);
  }
  return rc;
}

/*
** SQL function: plot_km(series, curve [, title]) -- xStep
*/
static void ml_plot_km_step(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  PlotAgg *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  PlotRow *r;
  int s;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  p->init = 1;
  if( argc>2 && text_param(ctx, PK_KM, "title", argv[2], &p->title, &p->titleSet) ) return;
  if( sqlite3_value_type(argv[1])==SQLITE_NULL ) return;
  if( (r = new_row(ctx, p))==0 ) return;
  if( step_km(ctx, r, argv[1]) ) return;
  s = intern(ctx, p, PK_KM, argv[0], 0, 1);
  if( s<0 ){ ml_free(r->pts); return; }
  r->series = s;
  p->n++;
}

/* The number at risk at x: n_risk of the first time >= x, 0 past the last. */
static double km_at_risk(const PlotRow *r, double x){
  ml_i64 i;
  for(i=0; i<r->nPts; i++) if( r->pts[4*i]>=x ) return r->pts[4*i+1];
  return 0.0;
}

static int draw_km(MlStr *s, PlotAgg *p){
  MlPlotBox b = {0, 1, 0, 1, 72, 44, 380, 300};
  double tmax = 0, step, first, *xy;
  ml_i64 i, j, m = 0;
  int nT, dec, k, h;
  for(i=0; i<p->n; i++){
    PlotRow *r = &p->a[i];
    if( r->pts[4*(r->nPts-1)]>tmax ) tmax = r->pts[4*(r->nPts-1)];
    if( r->nPts>m ) m = r->nPts;
  }
  ml_nice_range(0, tmax>0 ? tmax : 1, 6, &b.x0, &b.x1);
  b.x0 = 0;
  h = (int)(b.top + b.height) + 56 + KM_ROW_H*(int)p->n + 12;
  if( h<PLOT_H ) h = PLOT_H;
  xy = ml_malloc((uint64_t)(2*m + 2) * 16);
  if( xy==0 ) return ML_NOMEM;
  ml_svg_begin(s, plot_width(p, 0, 1), h, p->title ? p->title : "Kaplan-Meier curves");
  ml_svg_axes(s, &b, "time", "survival probability", 6, 6);
  for(i=0; i<p->n; i++){
    PlotRow *r = &p->a[i];
    const char *col = ml_svg_color(r->series);
    double prev = 1.0;
    ml_i64 q = 0;
    xy[0] = 0.0; xy[1] = 1.0; q = 1;
    for(j=0; j<r->nPts; j++){
      double t = r->pts[4*j], sv = r->pts[4*j+3];
      xy[2*q] = t; xy[2*q+1] = prev; q++;
      xy[2*q] = t; xy[2*q+1] = sv; q++;
      prev = sv;
    }
    ml_svg_polyline(s, &b, "curve", xy, q, col, ml_svg_dash(r->series), 2);
    for(j=0; j<r->nPts; j++){            /* rule 2: censoring ticks, 6 px tall */
      if( r->pts[4*j+2]>0.0 ){
        double t = r->pts[4*j], sv = r->pts[4*j+3], dy = 3.0 * (b.y1 - b.y0) / b.height;
        ml_svg_line(s, &b, "censor", t, sv - dy, t, sv + dy, col, 0, 1.2);
      }
    }
  }
  if( draw_legend(s, p, 0, 1, LEGEND_Y, 0) ){ ml_free(xy); return ML_NOMEM; }
  /* rule 3: the number at risk at the x ticks */
  ml_nice_ticks(b.x0, b.x1, 6, &step, &first, &nT, &dec);
  ml_svg_text(s, "note", 8, b.top + b.height + 56 - 4, 0, 10, "at risk");
  for(i=0; i<p->n; i++){
    PlotRow *r = &p->a[i];
    double y = b.top + b.height + 56 + KM_ROW_H*(double)(i + 1) - 2;
    for(k=0; k<nT; k++){
      char buf[40];
      double x = first + step*k;
      ml_format_double(buf, km_at_risk(r, x));
      ml_svg_text(s, "atrisk", ml_svg_px(&b, x), y, "middle", 10, buf);
    }
    {
      char *zName = legend_text(p->azSeries[r->series], 0, 0);
      if( zName==0 ){ ml_free(xy); return ML_NOMEM; }
      ml_svg_text(s, "atrisk", 8, y, 0, 10, zName);
      sqlite3_free(zName);
    }
  }
  ml_free(xy);
  ml_svg_end(s);
  return ML_OK;
}

static void ml_plot_km_final(sqlite3_context *ctx){
  const MlFuncDesc *d = sqlite3_user_data(ctx);
  PlotAgg *p = sqlite3_aggregate_context(ctx, 0);
  MlStr s;
  size_t n;
  char *z;
  int rc;
  if( p==0 || p->n==0 ){
    ml_result_null(ctx, d->name, "no rows to draw");
    if( p ) plot_clear(p);
    return;
  }
  ml_str_init(&s);
  rc = draw_km(&s, p);
  plot_clear(p);
  if( rc ){ ml_str_free(&s); sqlite3_result_error_nomem(ctx); return; }
  z = ml_str_finish(&s, &n);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_text64(ctx, z, n, ml_free, SQLITE_UTF8);
}

static const MlFamily famPlotKm = { "plot", ml_plot_km_step, ml_plot_km_final, 0, 0, 0, 0, 0, 0 };

const MlFuncDesc ml_plot_km_functions[] = {
  { "plot_km", "series, curve [, title]", 2, 3, &famPlotKm, 0, PK_KM, 0, ML_PARAMS(&psTitle) },
  { 0 }
};
