/*
** plot.c -- SVG images drawn by aggregates: the plot family.  This file
** reads the rows (each row's JSON parsed once) and holds the records;
** plot_draw.c draws the pictures, plot_km.c is plot_km's own block.
** SPDX-License-Identifier: MIT
**
**   plot_curves(series, curve [, title])          PR or ROC curves, one line a row
**   plot_reliability(series, bins [, title [, smooth]])  reliability diagram + histogram
**   plot_bars(category, series, value [, title [, unit]])   grouped bar chart
**   plot_lines(series, x, y [, title [, xlabel [, ylabel]]])   line chart, one line a series
**   plot_km(series, curve [, title])              Kaplan-Meier curves (plot_km.c)
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
#include "plot.h"
#include "ml_utf8.h"

const char *plot_fn_name(int kind){
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
char *plot_excerpt(const char *z){
  MlStr s;
  char *r;
  ml_str_init(&s);
  ml_str_text(&s, z, 40, 0);
  r = ml_str_finish(&s, 0);
  return r ? r : zNoMem;
}
void plot_excerpt_free(char *z){ if( z!=zNoMem ) ml_free(z); }

static char *dup_text(const char *z){
  size_t n = strlen(z);
  char *p = ml_malloc(n+1);
  if( p ) memcpy(p, z, n+1);
  return p;
}

void plot_clear(PlotAgg *p){
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
int plot_intern(sqlite3_context *ctx, PlotAgg *p, int kind, sqlite3_value *v, int isCat,
                  int mustBeNew){
  const char *fn = plot_fn_name(kind);
  const char *z = sqlite3_value_type(v)==SQLITE_NULL ? "NULL" : (const char*)sqlite3_value_text(v);
  char **az = isCat ? p->azCat : p->azSeries;
  int *pn = isCat ? &p->nCat : &p->nSeries;
  int max = isCat ? PLOT_MAX_CATEGORIES : PLOT_MAX_SERIES;
  int k;
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return -1; }
  for(k=0; k<*pn; k++){
    if( strcmp(az[k], z)==0 ){
      if( mustBeNew ){
        char *e = plot_excerpt(z);
        ml_error(ctx, fn, "series '%s' appears in two rows; a plot takes one row per series", e);
        plot_excerpt_free(e);
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
int plot_text_param(sqlite3_context *ctx, int kind, const char *name, sqlite3_value *v,
                      char **pz, int *pSet){
  const char *fn = plot_fn_name(kind);
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
      char *e1 = plot_excerpt(z ? z : "NULL"), *e2 = plot_excerpt(*pz ? *pz : "NULL");
      ml_error(ctx, fn, "%s must be the same in every row, got '%s' after '%s'", name, e1, e2);
      plot_excerpt_free(e1); plot_excerpt_free(e2);
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

PlotRow *plot_new_row(sqlite3_context *ctx, PlotAgg *p){
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
int plot_json_text(sqlite3_context *ctx, const char *fn, const char *name, const char *what,
                   sqlite3_value *v, const char **pz){
  if( sqlite3_value_type(v)!=SQLITE_TEXT ){
    char *d = ml_describe(v);
    ml_error(ctx, fn, "%s must be %s JSON, got %s", name, what, d ? d : "?");
    sqlite3_free(d);
    return ML_ERROR;
  }
  *pz = (const char*)sqlite3_value_text(v);
  if( *pz==0 ){ sqlite3_result_error_nomem(ctx); return ML_NOMEM; }
  return ML_OK;
}

static int read_json_arg(sqlite3_context *ctx, const char *fn, const char *name, const char *what,
                         sqlite3_value *v, int nField, const char *const *az,
                         double **pa, ml_i64 *pn, ml_i64 *anPresent){
  char zErr[96];
  int rc;
  const char *z;
  if( (rc = plot_json_text(ctx, fn, name, what, v, &z))!=ML_OK ) return rc;
  rc = ml_json_read_rows(z, nField, az, pa, pn, anPresent, zErr, sizeof(zErr));
  if( rc==ML_NOMEM ){ sqlite3_result_error_nomem(ctx); return rc; }
  if( rc==ML_ERROR ){
    char *e = plot_excerpt(z);
    ml_error(ctx, fn, "%s must be %s JSON, got '%s': %s", name, what, e, zErr);
    plot_excerpt_free(e);
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
    char *e = plot_excerpt((const char*)sqlite3_value_text(v));
    ml_error(ctx, fn, "curve must be %s JSON, got '%s': %s", what, e,
             n==0 ? "no points" : "its points lack recall/precision or fpr/tpr");
    plot_excerpt_free(e);
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
      char *e = plot_excerpt((const char*)sqlite3_value_text(v));
      ml_error(ctx, fn, "bins must be reliability() JSON, got '%s': a bin has no \"%s\"", e, az[i]);
      plot_excerpt_free(e);
      ml_free(a);
      return ML_ERROR;
    }
  }
  if( n==0 ){
    char *e = plot_excerpt((const char*)sqlite3_value_text(v));
    ml_error(ctx, fn, "bins must be reliability() JSON, got '%s': no bins", e);
    plot_excerpt_free(e);
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
  if( (rc = plot_json_text(ctx, fn, "smooth", "calibration_smooth()", v, &z))!=ML_OK ) return rc;
  rc = ml_json_read_pairs(z, "curve", &a, &n, zErr, sizeof(zErr));
  if( rc==ML_NOMEM ){ sqlite3_result_error_nomem(ctx); return rc; }
  for(i=0; rc==ML_OK && i<n; i++){
    if( !(a[2*i]>=0.0 && a[2*i]<=1.0 && isfinite(a[2*i+1])) || (i>0 && !(a[2*i]>a[2*i-2])) ){
      snprintf(zErr, sizeof(zErr), "point %lld is [%g, %g]", (long long)i, a[2*i], a[2*i+1]);
      rc = ML_ERROR;
    }
  }
  if( rc==ML_ERROR ){
    char *e = plot_excerpt(z);
    ml_error(ctx, fn, "smooth must be calibration_smooth() JSON, got '%s': %s", e, zErr);
    plot_excerpt_free(e);
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
  if( argc>nData && plot_text_param(ctx, d->kind, "title", argv[nData], &p->title, &p->titleSet) ) return;
  if( d->kind==PK_LINES ){
    if( argc>nData+1 && plot_text_param(ctx, d->kind, "xlabel", argv[nData+1], &p->xlabel, &p->xlabelSet) ) return;
    if( argc>nData+2 && plot_text_param(ctx, d->kind, "ylabel", argv[nData+2], &p->ylabel, &p->ylabelSet) ) return;
  }else if( d->kind==PK_BARS && argc>nData+1 && plot_text_param(ctx, d->kind, "unit", argv[nData+1], &p->unit, &p->unitSet) ){
    return;
  }
  switch( d->kind ){
    case PK_CURVES:
    case PK_RELIABILITY: {
      int s;
      if( sqlite3_value_type(argv[1])==SQLITE_NULL ) return;
      r = plot_new_row(ctx, p);
      if( r==0 ) return;
      if( (d->kind==PK_CURVES ? step_curve(ctx, p, r, argv[1]) : step_reliability(ctx, r, argv[1])) ) return;
      if( d->kind==PK_RELIABILITY && argc>3 && sqlite3_value_type(argv[3])!=SQLITE_NULL
       && step_smooth(ctx, r, argv[3]) ){
        ml_free(r->pts);
        return;
      }
      s = plot_intern(ctx, p, d->kind, argv[0], 0, 1);
      if( s<0 ){ ml_free(r->pts); ml_free(r->sm); return; }
      r->series = s;
      p->n++;
      break;
    }
    case PK_BARS: {
      double v;
      int c, s;
      if( number_arg(ctx, fn, "value", argv[2], &v)!=ML_ROW_OK ) return;
      if( (c = plot_intern(ctx, p, d->kind, argv[0], 1, 0))<0 ) return;
      if( (s = plot_intern(ctx, p, d->kind, argv[1], 0, 0))<0 ) return;
      if( (r = plot_new_row(ctx, p))==0 ) return;
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
          char *e = plot_excerpt((const char*)sqlite3_value_text(argv[1]));
          ml_error(ctx, fn, "x must be all numbers or all text in one plot, got text '%s' after numbers", e);
          plot_excerpt_free(e);
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
      if( (s = plot_intern(ctx, p, d->kind, argv[0], 0, 0))<0 ) return;
      if( (r = plot_new_row(ctx, p))==0 ) return;
      r->series = s; r->x = x; r->y = y;
      p->n++;
      break;
    }
  }
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
    case PK_CURVES: rc = plot_draw_curves(&s, p); break;
    case PK_RELIABILITY: rc = plot_draw_reliability(&s, p); break;
    case PK_BARS: rc = plot_draw_bars(&s, p); break;
    default: rc = plot_draw_lines(&s, p); break;
  }
  plot_clear(p);
  if( rc ){ ml_str_free(&s); sqlite3_result_error_nomem(ctx); return; }
  z = ml_str_finish(&s, &n);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_text64(ctx, z, n, ml_free, SQLITE_UTF8);
}

/* ------------------------------------------------------------- records */

/* Text parameters, the same in every row like a title (rule 1); plot.c checks them itself. */
const MlParamSpec ml_plot_ps_title = ML_PARAM_TEXT("title", "''", "'a title'");
static const MlParamSpec psUnit = ML_PARAM_TEXT("unit", "''", "'ms'");
static const MlParamSpec psXlabel = ML_PARAM_TEXT("xlabel", "'x'", "'day'");
static const MlParamSpec psYlabel = ML_PARAM_TEXT("ylabel", "'y'", "'auroc'");
/* plot_reliability's overlay (rule 6a): per row, not the same in every row */
static const MlParamSpec psSmooth = ML_PARAM_TEXT("smooth", "NULL", "'{\"curve\":[[0.1,0.2],[0.9,0.8]]}'");

/* Aggregates only: no xValue/xInverse, so SQLite refuses them with OVER (...). */
static const MlFamily famPlot = { "plot", ml_plot_step, ml_plot_final, 0, 0, 0, 0, 0, 0 };

const MlFuncDesc ml_plot_functions[] = {
  { "plot_curves",      "series, curve [, title]",  2,  3, &famPlot, 0, PK_CURVES, 0, ML_PARAMS(&ml_plot_ps_title) },
  { "plot_reliability", "series, bins [, title [, smooth]]", 2, 4, &famPlot, 0, PK_RELIABILITY, 0,
                                                    ML_PARAMS(&ml_plot_ps_title, &psSmooth) },
  { "plot_bars",        "category, series, value [, title [, unit]]", 3, 5, &famPlot, 0, PK_BARS, 0,
                                                    ML_PARAMS(&ml_plot_ps_title, &psUnit) },
  { "plot_lines",       "series, x, y [, title [, xlabel [, ylabel]]]", 3, 6, &famPlot, 0, PK_LINES, 0,
                                                    ML_PARAMS(&ml_plot_ps_title, &psXlabel, &psYlabel) },
  { 0 }
};
