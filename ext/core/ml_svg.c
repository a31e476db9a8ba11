/*
** ml_svg.c -- the SVG writer the plot family (plot.c) draws with, built on
** the string builder of ml_str.c (the JSON writer's builder).
** SPDX-License-Identifier: MIT
**
** Provides: the document (ml_svg_begin/end), a plot box mapping data to
** pixels, axes with "nice" ticks and labels, polylines simplified for
** drawing, rectangles, lines, text, a legend, the Okabe-Ito palette.
**
** Rules:
**   1. Output is SVG 1.1, valid XML, self-contained (no script, no external
**      reference, no CSS file: presentation attributes only), deterministic.
**   2. Every number goes through ml_format_fixed: '.' in every C locale;
**      pixel coordinates have 2 decimals, so a drawn point is within 0.005 px
**      of its exact position.
**   3. Every text is XML-escaped (ml_str_xml), and written as well-formed
**      UTF-8 and XML whatever it was (ill-formed sequences, U+FFFE, U+FFFF
**      become U+FFFD); a legend name longer than 28 bytes is cut between
**      characters and ends in "...".
**   4. Classes name what each element shows, so tests and stylesheets can
**      find it: "frame", "xtick", "ytick", "xlabel", "ylabel", "title",
**      "legend", "curve", "baseline", "diagonal", "bar", "hist", "point".
**   5. A polyline drops every point closer than one pixel (Euclidean, in
**      pixels) to the last point kept; the first and last points are always
**      kept.  A curve of 10^5 points is then at most a few thousand.
**      Non-finite points are skipped.
**
** Cost: O(points) time; the text is about 14 bytes per drawn point.
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include "ml_core.h"
#include "ml_utf8.h"

/* Okabe & Ito (2008), black last-but-one and yellow last (weak on white). */
static const char *const aColor[] = {
  "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"
};
/* After the eight colours, the cycle repeats with a dash pattern. */
static const char *const aDash[] = { 0, "6 3", "2 2", "8 3 2 3" };

const char *ml_svg_color(int k){ return aColor[k % 8]; }
const char *ml_svg_dash(int k){ return aDash[(k/8) % 4]; }

static void num(MlStr *s, double d){ ml_str_fixed(s, d, 2); }

static void attr(MlStr *s, const char *name, double d){
  ml_str_appendz(s, " ");
  ml_str_appendz(s, name);
  ml_str_appendz(s, "=\"");
  num(s, d);
  ml_str_appendz(s, "\"");
}

static void attrz(MlStr *s, const char *name, const char *v){
  if( v==0 ) return;
  ml_str_appendz(s, " ");
  ml_str_appendz(s, name);
  ml_str_appendz(s, "=\"");
  ml_str_xml(s, v);
  ml_str_appendz(s, "\"");
}

void ml_svg_begin(MlStr *s, int w, int h, const char *title){
  ml_str_appendz(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"");
  attr(s, "width", w); attr(s, "height", h);
  ml_str_appendz(s, " viewBox=\"0 0 ");
  ml_str_int(s, w); ml_str_appendz(s, " "); ml_str_int(s, h);
  ml_str_appendz(s, "\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\" font-size=\"12\">\n<title>");
  ml_str_xml(s, title);
  ml_str_appendz(s, "</title>\n<rect x=\"0\" y=\"0\"");
  attr(s, "width", w); attr(s, "height", h);
  ml_str_appendz(s, " fill=\"#ffffff\"/>\n");
  ml_svg_text(s, "title", w/2.0, 22, "middle", 15, title);
}

void ml_svg_end(MlStr *s){
  ml_str_appendz(s, "</svg>\n");
}

/* Data to pixels.  The differences are taken of halves, so that a box
** spanning -DBL_MAX..DBL_MAX maps finite data to finite pixels (for normal
** numbers, halving is exact and the result is the plain formula's). */
double ml_svg_px(const MlPlotBox *b, double x){
  return b->left + (x*0.5 - b->x0*0.5) / (b->x1*0.5 - b->x0*0.5) * b->width;
}
double ml_svg_py(const MlPlotBox *b, double y){
  return b->top + b->height - (y*0.5 - b->y0*0.5) / (b->y1*0.5 - b->y0*0.5) * b->height;
}

void ml_svg_text(MlStr *s, const char *cls, double x, double y, const char *anchor,
                 double size, const char *z){
  ml_str_appendz(s, "<text");
  attrz(s, "class", cls);
  attr(s, "x", x); attr(s, "y", y);
  if( anchor ) attrz(s, "text-anchor", anchor);
  if( size>0 && size!=12 ) attr(s, "font-size", size);
  ml_str_appendz(s, ">");
  ml_str_xml(s, z);
  ml_str_appendz(s, "</text>\n");
}

/* Pixel-space line. */
static void line_px(MlStr *s, const char *cls, double x1, double y1, double x2, double y2,
                    const char *color, const char *dash, double width){
  ml_str_appendz(s, "<line");
  attrz(s, "class", cls);
  attr(s, "x1", x1); attr(s, "y1", y1); attr(s, "x2", x2); attr(s, "y2", y2);
  attrz(s, "stroke", color);
  if( width!=1 ) attr(s, "stroke-width", width);
  attrz(s, "stroke-dasharray", dash);
  ml_str_appendz(s, "/>\n");
}

void ml_svg_line(MlStr *s, const MlPlotBox *b, const char *cls, double x1, double y1,
                 double x2, double y2, const char *color, const char *dash, double width){
  line_px(s, cls, ml_svg_px(b, x1), ml_svg_py(b, y1), ml_svg_px(b, x2), ml_svg_py(b, y2),
          color, dash, width);
}

void ml_svg_rect(MlStr *s, const MlPlotBox *b, const char *cls, double x0, double y0,
                 double x1, double y1, const char *color, double opacity, const char *tip){
  double px0 = ml_svg_px(b, x0 < x1 ? x0 : x1), px1 = ml_svg_px(b, x0 < x1 ? x1 : x0);
  double py0 = ml_svg_py(b, y0 > y1 ? y0 : y1), py1 = ml_svg_py(b, y0 > y1 ? y1 : y0);
  ml_str_appendz(s, "<rect");
  attrz(s, "class", cls);
  attr(s, "x", px0); attr(s, "y", py0); attr(s, "width", px1-px0); attr(s, "height", py1-py0);
  attrz(s, "fill", color);
  if( opacity<1 ) attr(s, "fill-opacity", opacity);
  if( tip ){
    ml_str_appendz(s, "><title>");
    ml_str_xml(s, tip);
    ml_str_appendz(s, "</title></rect>\n");
  }else{
    ml_str_appendz(s, "/>\n");
  }
}

ml_i64 ml_svg_polyline(MlStr *s, const MlPlotBox *b, const char *cls, const double *xy,
                       ml_i64 n, const char *color, const char *dash, double width){
  ml_i64 i, last = -1, nDrawn = 0;
  double lx = 0, ly = 0;
  ml_str_appendz(s, "<polyline");
  attrz(s, "class", cls);
  attrz(s, "stroke", color);
  attr(s, "stroke-width", width);
  attrz(s, "stroke-dasharray", dash);
  ml_str_appendz(s, " stroke-linejoin=\"round\" fill=\"none\" points=\"");
  for(i=0; i<n; i++){
    double px, py;
    if( !isfinite(xy[2*i]) || !isfinite(xy[2*i+1]) ) continue;
    px = ml_svg_px(b, xy[2*i]); py = ml_svg_py(b, xy[2*i+1]);
    if( last>=0 ){
      ml_i64 k;
      int isLast = 1;
      for(k=i+1; k<n; k++) if( isfinite(xy[2*k]) && isfinite(xy[2*k+1]) ){ isLast = 0; break; }
      if( !isLast && (px-lx)*(px-lx) + (py-ly)*(py-ly) < 1.0 ) continue;
      ml_str_appendz(s, " ");
    }
    num(s, px); ml_str_appendz(s, ","); num(s, py);
    lx = px; ly = py; last = i; nDrawn++;
  }
  ml_str_appendz(s, "\"/>\n");
  return nDrawn;
}

void ml_nice_ticks(double lo, double hi, int maxTicks, double *pStep, double *pFirst, int *pN,
                   int *pDecimals){
  double half = hi*0.5 - lo*0.5, lraw, e, f, mag, step, first, nf;
  int dec;
  /* half the range: finite for any finite lo and hi, where hi - lo is not */
  if( !(half>0) || !isfinite(half) || maxTicks<2 ){ *pStep = 1; *pFirst = lo; *pN = 1; *pDecimals = 0; return; }
  lraw = log10(half) + log10(2.0) - log10((double)(maxTicks-1));   /* log10(range/(maxTicks-1)) */
  e = floor(lraw);
  f = pow(10.0, lraw - e);
  mag = pow(10.0, e);
  if( f <= 1.0 + 1e-12 ) step = mag;
  else if( f <= 2.0 + 1e-12 ) step = 2*mag;
  else if( f <= 5.0 + 1e-12 ) step = 5*mag;
  else step = 10*mag;
  if( !(step>0) || !isfinite(step) ){ *pStep = 1; *pFirst = lo; *pN = 1; *pDecimals = 0; return; }
  first = ceil(lo/step - 1e-9) * step;
  nf = floor(hi/step - first/step + 1e-9) + 1;
  dec = (int)-floor(log10(step) + 1e-9);
  if( dec<0 ) dec = 0;
  *pStep = step; *pFirst = first; *pN = nf>=1 && nf<=1000 ? (int)nf : 1; *pDecimals = dec;
}

void ml_nice_range(double lo, double hi, int maxTicks, double *pLo, double *pHi){
  double step, first, c = lo*0.5 + hi*0.5, a, b;
  int n, dec;
  /* A point, or a range too narrow to tick (below 1e-300, or 1e-12 of its
  ** magnitude), is widened around its centre: by 1 near zero, by 1e-6 of
  ** the centre beyond 1e6, clamped to the finite doubles. */
  if( !isfinite(c) ) c = 0;
  if( !(hi>lo) || hi - lo < 1e-300 || hi - lo < fabs(c)*1e-12 ){
    double w = fabs(c)*1e-6;
    if( w<1 ) w = 1;
    lo = c - w; hi = c + w;
    if( !isfinite(lo) ) lo = -DBL_MAX;
    if( !isfinite(hi) ) hi = DBL_MAX;
  }
  ml_nice_ticks(lo, hi, maxTicks, &step, &first, &n, &dec);
  a = floor(lo/step + 1e-9) * step;
  b = ceil(hi/step - 1e-9) * step;
  *pLo = isfinite(a) ? a : lo;
  *pHi = isfinite(b) ? b : hi;
}

/* Ticks on one axis: a short line, a light grid line and the value. */
static void ticks(MlStr *s, const MlPlotBox *b, int isX, int maxTicks){
  double step, first;
  int n, dec, i;
  double lo = isX ? b->x0 : b->y0, hi = isX ? b->x1 : b->y1;
  ml_nice_ticks(lo, hi, maxTicks, &step, &first, &n, &dec);
  for(i=0; i<n; i++){
    double v = first + i*step, p;
    char buf[64];
    if( !isfinite(v) ) v = (first/step + i) * step;   /* near DBL_MAX, i*step overflows */
    if( fabs(v) < step*1e-9 ) v = 0;
    ml_format_fixed(buf, v, dec);
    ml_str_appendz(s, isX ? "<g class=\"xtick\">\n" : "<g class=\"ytick\">\n");
    if( isX ){
      p = ml_svg_px(b, v);
      line_px(s, "grid", p, b->top, p, b->top + b->height, "#e5e5e5", 0, 1);
      line_px(s, 0, p, b->top + b->height, p, b->top + b->height + 5, "#333333", 0, 1);
      ml_svg_text(s, 0, p, b->top + b->height + 18, "middle", 11, buf);
    }else{
      p = ml_svg_py(b, v);
      line_px(s, "grid", b->left, p, b->left + b->width, p, "#e5e5e5", 0, 1);
      line_px(s, 0, b->left - 5, p, b->left, p, "#333333", 0, 1);
      ml_svg_text(s, 0, b->left - 8, p + 4, "end", 11, buf);
    }
    ml_str_appendz(s, "</g>\n");
  }
}

void ml_svg_axes(MlStr *s, const MlPlotBox *b, const char *xlabel, const char *ylabel,
                 int xTicks, int yTicks){
  if( xTicks ) ticks(s, b, 1, xTicks);
  if( yTicks ) ticks(s, b, 0, yTicks);
  ml_str_appendz(s, "<rect class=\"frame\"");
  attr(s, "x", b->left); attr(s, "y", b->top); attr(s, "width", b->width); attr(s, "height", b->height);
  ml_str_appendz(s, " fill=\"none\" stroke=\"#333333\"/>\n");
  if( xlabel ){
    ml_svg_text(s, "xlabel", b->left + b->width/2, b->top + b->height + 36, "middle", 12, xlabel);
  }
  if( ylabel ){
    double x = b->left - 46, y = b->top + b->height/2;
    ml_str_appendz(s, "<text class=\"ylabel\"");
    attr(s, "x", x); attr(s, "y", y);
    ml_str_appendz(s, " text-anchor=\"middle\" transform=\"rotate(-90 ");
    num(s, x); ml_str_appendz(s, " "); num(s, y);
    ml_str_appendz(s, ")\">");
    ml_str_xml(s, ylabel);
    ml_str_appendz(s, "</text>\n");
  }
}

/* Copies z into buf (size n), cut between characters (ml_utf8_cut) with
** "..." when it has more than max bytes. */
static void shorten(char *buf, size_t n, const char *z, size_t max){
  size_t len = strlen(z);
  if( max > n-4 ) max = n-4;
  if( len<=max ){ memcpy(buf, z, len+1); return; }
  len = ml_utf8_cut(z, max);
  memcpy(buf, z, len);
  memcpy(buf+len, "...", 4);
}

void ml_svg_legend(MlStr *s, double x, double y, int n, const char *const *azText,
                   const int *aColorIdx, int boxes){
  int k;
  ml_str_appendz(s, "<g class=\"legend\">\n");
  for(k=0; k<n; k++){
    char buf[128];
    double yy = y + k*18;
    shorten(buf, sizeof(buf), azText[k], 64);   /* plot.c cuts names at 28 bytes, values kept */
    ml_str_appendz(s, "<g class=\"legend-entry\">\n");
    if( boxes ){               /* bar charts: a filled square */
      ml_str_appendz(s, "<rect class=\"swatch\"");
      attr(s, "x", x+6); attr(s, "y", yy-5); attr(s, "width", 10); attr(s, "height", 10);
      attrz(s, "fill", ml_svg_color(aColorIdx[k]));
      ml_str_appendz(s, "/>\n");
    }else{
      line_px(s, "swatch", x, yy, x+22, yy, ml_svg_color(aColorIdx[k]), ml_svg_dash(aColorIdx[k]), 2.5);
    }
    ml_svg_text(s, 0, x+28, yy+4, 0, 11, buf);
    ml_str_appendz(s, "</g>\n");
  }
  ml_str_appendz(s, "</g>\n");
}
