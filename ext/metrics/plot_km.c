/*
** plot_km.c -- plot_km(series, curve [, title]): Kaplan-Meier step curves
** (the survival family's picture; docs/plots.md), in the plot family: its
** record list (ml_plot_km_functions, family "plot"), step and final, on
** the family's helpers (plot.h).
** SPDX-License-Identifier: MIT
**
** Rules:
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
** Cost: 32 bytes a curve point; drawing O(points).
*/
#include <math.h>
#include <stdio.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "plot.h"

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
  if( (rc = plot_json_text(ctx, fn, "curve", "km()", v, &z))!=ML_OK ) return rc;
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
    char *e = plot_excerpt(z);
    ml_error(ctx, fn, "curve must be km() JSON, got '%s': %s", e, zErr);
    plot_excerpt_free(e);
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
  if( argc>2 && plot_text_param(ctx, PK_KM, "title", argv[2], &p->title, &p->titleSet) ) return;
  if( sqlite3_value_type(argv[1])==SQLITE_NULL ) return;
  if( (r = plot_new_row(ctx, p))==0 ) return;
  if( step_km(ctx, r, argv[1]) ) return;
  s = plot_intern(ctx, p, PK_KM, argv[0], 0, 1);
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
  if( plot_draw_legend(s, p, 0, 1, LEGEND_Y, 0) ){ ml_free(xy); return ML_NOMEM; }
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
      char *zName = plot_legend_text(p->azSeries[r->series], 0, 0);
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
  { "plot_km", "series, curve [, title]", 2, 3, &famPlotKm, 0, PK_KM, 0, ML_PARAMS(&ml_plot_ps_title) },
  { 0 }
};
