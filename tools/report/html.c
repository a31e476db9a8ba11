/*
** html.c -- the page of mleval-report: its head, style, title, footer and
** the helpers every section's block uses (html_sections.c writes the
** sections themselves from the structs of sections.c).
** SPDX-License-Identifier: MIT
**
** Rules:
**   1. One self-contained file: inline CSS and SVG, no script, no external
**      reference; written as polyglot XHTML (well-formed XML).
**   2. Text is escaped (& < > " '), and ill-formed UTF-8 and characters XML
**      1.0 forbids are written as U+FFFD (html_text), whatever the names.
**   3. Deterministic: no date, no path other than TABLE's name.
**   4. Numbers are shown to 3 decimals ("n/a" when not finite; never
**      "-0.000": what rounds to zero is "0.000"); an interval
**      by the delta method is marked with a superscript delta.
**
** Cost: O(size of the page).
*/
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "report_html.h"
#include "ml_utf8.h"

/* Text into HTML (or an attribute): & < > " ' escaped, ill-formed UTF-8 and
** characters XML 1.0 forbids (U+FFFE, U+FFFF, controls) written as U+FFFD,
** so the page stays well-formed UTF-8 and XML whatever the names are. */
void html_text(sqlite3_str *s, const char *z){
  while( z && *z ){
    unsigned char c = (unsigned char)*z;
    unsigned cp;
    int k;
    switch( c ){
      case '&': sqlite3_str_appendall(s, "&amp;"); z++; continue;
      case '<': sqlite3_str_appendall(s, "&lt;"); z++; continue;
      case '>': sqlite3_str_appendall(s, "&gt;"); z++; continue;
      case '"': sqlite3_str_appendall(s, "&quot;"); z++; continue;
      case '\'': sqlite3_str_appendall(s, "&#39;"); z++; continue;
    }
    k = ml_utf8_char(z, &cp);
    if( k<0 || !ml_utf8_xml_char(cp) ){
      sqlite3_str_appendall(s, ML_UTF8_REPLACEMENT);
      z += k<0 ? -k : k;
    }else{
      sqlite3_str_append(s, z, k);
      z += k;
    }
  }
}

/* d to 3 decimals; a value that rounds to zero is "0.000", never "-0.000"
** (a CITL of -1e-15 is no sign of anything). */
void fmt3(char *buf, double d){
  if( !isfinite(d) ){ snprintf(buf, 32, "n/a"); return; }
  snprintf(buf, 32, "%.3f", d);
  if( strcmp(buf, "-0.000")==0 ) memmove(buf, buf+1, strlen(buf));
}

/* A count (a sum of weights with --weight): an integer as %lld writes it,
** else 6 significant digits. */
void fmt_count(char *buf, double d){
  if( d==floor(d) && fabs(d)<9007199254740992.0 ) snprintf(buf, 32, "%.0f", d);
  else snprintf(buf, 32, "%.6g", d);
}

/* Appends an SVG without its XML declaration (inline SVG in HTML), in a
** <figure> that scales it down to the page's width; a wide one (wide: the
** PSI plot, as wide as its periods need) keeps its size and scrolls. */
void html_svg_in(sqlite3_str *s, const char *zSvg, int wide){
  const char *p;
  if( zSvg==0 ) return;
  p = strstr(zSvg, "<svg");
  sqlite3_str_appendall(s, wide ? "<figure class=\"wide\">" : "<figure>");
  sqlite3_str_appendall(s, p ? p : zSvg);
  sqlite3_str_appendall(s, "</figure>\n");
}
void html_svg(sqlite3_str *s, const char *zSvg){ html_svg_in(s, zSvg, 0); }

/* <h3>zTitle</h3> */
void html_h3(sqlite3_str *h, const char *zTitle){
  sqlite3_str_appendall(h, "<h3>");
  html_text(h, zTitle);
  sqlite3_str_appendall(h, "</h3>\n");
}

/* A table's opening and head: <table> (with class zClass, or none), the
** leading header cells zLead, the grouping column named as --by names it,
** then the cells zCols. */
void table_open(Report *r, sqlite3_str *h, const char *zClass, const char *zLead, const char *zCols){
  if( zClass ) sqlite3_str_appendf(h, "<table class=\"%s\">\n", zClass);
  else sqlite3_str_appendall(h, "<table>\n");
  sqlite3_str_appendf(h, "<thead><tr>%s<th>", zLead);
  html_text(h, r->o.zBy ? r->o.zBy : "group");
  sqlite3_str_appendf(h, "</th>%s</tr></thead>\n<tbody>\n", zCols);
}

void td_name(sqlite3_str *h, const char *z){
  sqlite3_str_appendall(h, "<td>");
  html_text(h, z);
  sqlite3_str_appendall(h, "</td>");
}

/* "0.803 [0.800, 0.805]" from an interval, or the estimate alone, or "n/a". */
void html_ci(sqlite3_str *h, const Ci *c){
  char b[32], lo[32], hi[32];
  fmt3(b, c->est);
  if( c->zJson && isfinite(c->lo) && isfinite(c->hi) ){
    /* an interval by the delta method (pr_auc_delta_ci, pr_auc_diff_delta) is marked */
    fmt3(lo, c->lo); fmt3(hi, c->hi);
    sqlite3_str_appendf(h, "<td>%s <span class=\"ci\">[%s, %s]</span>%s</td>", b, lo, hi,
                        c->delta ? "<sup class=\"m\" title=\"delta method\">&#948;</sup>" : "");
    return;
  }
  sqlite3_str_appendf(h, "<td>%s</td>", b);
}

/* The groups without a curve, as a list under the plot. */
void html_missing(Report *r, sqlite3_str *h, const Counts *cnt){
  int i, n = 0;
  for(i=0; i<r->nGroup; i++){
    const char *why = too_few(cnt[i].pos, cnt[i].neg);
    if( why==0 ) continue;
    if( n++==0 ) sqlite3_str_appendall(h, "<ul class=\"missing\">\n");
    sqlite3_str_appendall(h, "<li>");
    html_text(h, r->aGroup[i].zName);
    char p[32], n[32];
    fmt_count(p, cnt[i].pos); fmt_count(n, cnt[i].neg);
    sqlite3_str_appendf(h, ": %s (%s positive%s, %s negative%s): no curve</li>\n", why,
                        p, cnt[i].pos==1 ? "" : "s", n, cnt[i].neg==1 ? "" : "s");
  }
  if( n ) sqlite3_str_appendall(h, "</ul>\n");
}

static const char *const zCss =
  "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;margin:1.5em auto;max-width:60em;color:#222;padding:0 1em}"
  "h1{font-size:1.5em}h3{font-size:1.05em;margin:1.2em 0 .3em}"
  "details{border:1px solid #ccc;border-radius:4px;margin:.8em 0;padding:0 .8em}"
  "summary{font-size:1.2em;font-weight:bold;padding:.5em 0;cursor:pointer}"
  "table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right}"
  "th{background:#f3f3f3}td:first-child,td:nth-child(2){text-align:left}"
  ".inverted,.worse{color:#D55E00;font-weight:bold}.na{color:#777;font-style:italic}"
  ".pseudo{background:#fff8e0;padding:.4em .6em;border-left:4px solid #E69F00}"
  "#summary{border:2px solid #0072B2;border-radius:4px;padding:0 .8em .5em;margin:.8em 0;overflow-x:auto}"
  "table.summary th,table.summary td{padding:.25em .4em}table.drift td{white-space:nowrap}"
  "table.drift{font-size:.9em}table.drift th,table.drift td{padding:.25em .35em}"
  "h2{font-size:1.25em;margin:.5em 0}.ci{color:#555;font-size:.9em;white-space:nowrap}"
  "tr.overall td{font-weight:bold}tr.mean td{font-style:italic}"
  "figure{margin:.5em 0}figure svg{max-width:100%;height:auto}"
  "figure.wide{overflow-x:auto}figure.wide svg{max-width:none}details>.body{overflow-x:auto}"
  "footer{margin-top:2em;font-size:.85em;color:#555;border-top:1px solid #ccc;padding-top:.5em}";

/* The reference periods of --drift-ref as the page names them: "--drift-ref
** R: 2 periods, 0, 1" (the first 8 and the last of more than 10). */
void html_ref_periods(sqlite3_str *h, const DriftSec *s){
  int i;
  sqlite3_str_appendf(h, "%d period%s, ", s->nRef, s->nRef==1 ? "" : "s");
  for(i=0; i<s->nRef; i++){
    if( i==8 && s->nRef>10 ){ sqlite3_str_appendf(h, ", ... (%d more), ", s->nRef - 9); i = s->nRef - 1; }
    else if( i ) sqlite3_str_appendall(h, ", ");
    html_text(h, s->azRef[i]);
  }
}

/* A PSI cell, flagged as the Drift section reads it: "0.412 (major)" from
** 0.25, "0.130 (moderate)" from 0.1 (class "worse"). */
void html_flag_psi(sqlite3_str *h, double psi){
  char b[32];
  fmt3(b, psi);
  if( psi>=0.25 ) sqlite3_str_appendf(h, "<td class=\"worse\">%s (major)</td>", b);
  else if( psi>=0.1 ) sqlite3_str_appendf(h, "<td class=\"worse\">%s (moderate)</td>", b);
  else sqlite3_str_appendf(h, "<td>%s</td>", b);
}

static void html_head(Report *r, sqlite3_str *h, const Sections *sec){
  int k;
  sqlite3_str_appendall(h, azOurHead[0]);
  sqlite3_str_appendall(h, "<title>");
  sqlite3_str_appendall(h, "Evaluation report: ");
  html_text(h, r->o.zTable);
  sqlite3_str_appendf(h, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Evaluation report: ", zCss);
  html_text(h, r->o.zTable);
  if( r->o.zLabel ){
    sqlite3_str_appendall(h, "</h1>\n<p>Label <code>");
    html_text(h, r->o.zLabel);
    sqlite3_str_appendall(h, "</code>; scores");
  }else{
    sqlite3_str_appendall(h, "</h1>\n<p>No label (a drift-only report: every row of a period drifts); scores");
  }
  for(k=0; k<r->o.nScore; k++){
    sqlite3_str_appendall(h, k ? ", <code>" : " <code>");
    html_text(h, r->o.azScore[k]);
    sqlite3_str_appendall(h, "</code>");
  }
  if( r->o.zBy ){
    sqlite3_str_appendall(h, "; grouped by <code>");
    html_text(h, r->o.zBy);
    sqlite3_str_appendf(h, "</code> (%d groups)", r->nGroup);
  }
  if( r->o.nFeature ){
    sqlite3_str_appendall(h, "; feature");
    sqlite3_str_appendall(h, r->o.nFeature>1 ? "s" : "");
    for(k=0; k<r->o.nFeature; k++){
      sqlite3_str_appendall(h, k ? ", <code>" : " <code>");
      html_text(h, r->o.azFeature[k]);
      sqlite3_str_appendall(h, "</code>");
    }
    sqlite3_str_appendall(h, " (<code>--feature</code>: drift only)");
  }
  if( sec->drift.on ){
    sqlite3_str_appendall(h, "; drift against the reference <code>--drift-ref ");
    html_text(h, r->o.zDriftRef);
    sqlite3_str_appendall(h, "</code> (");
    html_ref_periods(h, &sec->drift);
    sqlite3_str_appendall(h, ")");
  }
  sqlite3_str_appendall(h, ". The summary is below; each section after it opens with a click.</p>\n");
  if( r->o.zWeight ){
    sqlite3_str_appendall(h, "<p class=\"pseudo\">Weighted by <code>");
    html_text(h, r->o.zWeight);
    sqlite3_str_appendall(h, "</code> (<code>--weight</code>): every number is its function's weighted twin "
      "(<code>ml_state_w</code>, <code>auroc_w</code>, <code>pr_auc_ci_w</code>, <code>pr_auc_delta_ci_w</code>, "
      "<code>operating_point_w</code>, <code>ece_w</code>, <code>calibration_summary_w</code>, ...: "
      "scikit-learn's <code>sample_weight</code>), so rows, positives and negatives are sums of weights and "
      "integer weights give the numbers of the rows repeated; a row whose weight is NULL is left out. "
      "AUROC intervals are the weighted bootstrap's (<code>auroc_ci_w</code>; DeLong has no weighted form), in a "
      "group of at most <code>--boot-rows</code> rows: a larger group shows AUROC without one. "
      "The mean over groups weighs each group alike.</p>\n");
  }
}

static void html_footer(Report *r, sqlite3_str *h, const char *zVersion){
  double nLabelled = 0;
  char b1[32], b2[32];
  int i;
  sqlite3_str_appendall(h, "<footer>Made by mleval-report with mleval ");
  html_text(h, zVersion);
  sqlite3_str_appendall(h, " from table <code>");
  html_text(h, r->o.zTable);
  for(i=0; i<r->nGroup; i++) nLabelled += r->aGroup[i].n;
  fmt_count(b1, nLabelled);
  sqlite3_str_appendf(h, "</code>: %lld rows, %s with a label", r->nRow, b1);
  sqlite3_str_appendall(h, " (");
  for(i=0; i<r->nGroup; i++){
    if( i ) sqlite3_str_appendall(h, ", ");
    html_text(h, r->aGroup[i].zName);
    fmt_count(b1, r->aGroup[i].n); fmt_count(b2, r->aGroup[i].pos);
    sqlite3_str_appendf(h, ": %s rows, %s positive", b1, b2);
  }
  sqlite3_str_appendall(h, ").</footer>\n</body>\n</html>\n");
}

/* The whole page (sqlite3_free it): the sections in their order. */
char *html_write(Report *r, const Sections *s){
  sqlite3_str *h = sqlite3_str_new(r->db);
  html_head(r, h, s);
  if( r->o.driftOnly ){           /* no --label: the Drift section alone */
    html_drift(r, h, &s->drift);
    html_footer(r, h, s->zVersion);
    if( sqlite3_str_errcode(h) ) die(1, "out of memory");
    return sqlite3_str_finish(h);
  }
  html_summary(r, h, &s->sum, &s->drift, &s->surv);
  html_auroc(r, h, &s->auroc);
  html_pr(r, h, &s->pr);
  html_calibration(r, h, &s->cal);
  html_compare(r, h, &s->cmp);
  html_operating(r, h, &s->op);
  html_drift(r, h, &s->drift);
  html_svd(r, h, &s->svd);
  html_survival(r, h, &s->surv);
  html_footer(r, h, s->zVersion);
  if( sqlite3_str_errcode(h) ) die(1, "out of memory");
  return sqlite3_str_finish(h);
}
