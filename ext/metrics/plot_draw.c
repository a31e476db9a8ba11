/*
** plot_draw.c -- the plot family's pictures: the legend (its width measured
** in DejaVu Sans' advances so no entry is clipped), the PR/ROC curves, the
** reliability diagram with its histogram and smoothed overlay, the grouped
** bars, the lines with numeric or text x.
** SPDX-License-Identifier: MIT
**
** Rules: plot.c's 4-8 (series order, legend numbers, labels, the image's
** size, text x); each function draws from the rows plot.c read, nothing
** is read from SQLite here.
**
** Cost: O(points) a picture (plot_lines sorts its points once:
** O(n log n)); the SVG text grows by ml_str.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "plot.h"
#include "ml_utf8.h"

/* The plot panel left of the legend. */
static const MlPlotBox kBox = {0, 1, 0, 1, 72, 44, 380, 368};


/* "name (AP 0.812)"; a name over LEGEND_NAME_MAX bytes is cut at a
** character boundary with "..." added, the value kept. */
char *plot_legend_text(const char *name, const char *label, double v){
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
    char *z = plot_legend_text(p->azSeries[perRow ? p->a[k].series : k], label, perRow ? p->a[k].stat : 0);
    double need;
    if( z==0 ) continue;                  /* draw_legend reports the NOMEM */
    need = shift + LEGEND_X + LEGEND_TEXT_X + 1.05 * LEGEND_FONT * text_em(z) + 8;
    if( need>w ) w = (int)ceil(need);
    sqlite3_free(z);
  }
  return w;
}

int plot_width(PlotAgg *p, const char *label, int perRow){ return plot_width_at(p, label, perRow, 0); }

/* The legend: one entry per row (curves, reliability) or series, at x. */
static int draw_legend_at(MlStr *s, PlotAgg *p, const char *label, int perRow, double x, double y, int boxes){
  char *az[PLOT_MAX_SERIES];
  int ac[PLOT_MAX_SERIES];
  int k, n = perRow ? (int)p->n : p->nSeries, rc = ML_OK;
  for(k=0; k<n; k++){
    int sidx = perRow ? p->a[k].series : k;
    az[k] = plot_legend_text(p->azSeries[sidx], label, perRow ? p->a[k].stat : 0);
    ac[k] = sidx;
    if( az[k]==0 ) rc = ML_NOMEM;
  }
  if( rc==ML_OK ) ml_svg_legend(s, x, y, n, (const char *const*)az, ac, boxes);
  for(k=0; k<n; k++) sqlite3_free(az[k]);
  return rc;
}
int plot_draw_legend(MlStr *s, PlotAgg *p, const char *label, int perRow, double y, int boxes){
  return draw_legend_at(s, p, label, perRow, LEGEND_X, y, boxes);
}

int plot_draw_curves(MlStr *s, PlotAgg *p){
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
  if( plot_draw_legend(s, p, isPr ? "AP" : "AUROC", 1, LEGEND_Y, 0) ) return ML_NOMEM;
  ml_svg_text(s, "note", LEGEND_X, LEGEND_Y + 18*(int)p->n + 8, 0, 10,
              isPr ? "dashed: no skill (prevalence)" : "dashed: chance (AUROC 0.5)");
  ml_svg_end(s);
  return ML_OK;
}

int plot_draw_reliability(MlStr *s, PlotAgg *p){
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
  if( plot_draw_legend(s, p, "ECE", 1, LEGEND_Y, 0) ) return ML_NOMEM;
  ml_svg_text(s, "note", LEGEND_X, LEGEND_Y + 18*(int)p->n + 8, 0, 10, "dashed: perfect calibration");
  if( nSmooth ) ml_svg_text(s, "note", LEGEND_X, LEGEND_Y + 18*(int)p->n + 22, 0, 10, "thin: smoothed (lowess)");
  ml_svg_text(s, "note", LEGEND_X, hist.top + 12, 0, 10, "below: predictions per bin");
  ml_svg_end(s);
  return ML_OK;
}

int plot_draw_bars(MlStr *s, PlotAgg *p){
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
  if( plot_draw_legend(s, p, 0, 0, LEGEND_Y, 1) ) return ML_NOMEM;
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

int plot_draw_lines(MlStr *s, PlotAgg *p){
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
