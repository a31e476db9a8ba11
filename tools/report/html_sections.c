/*
** html_sections.c -- one block of the page per section of mleval-report,
** each written from its struct (sections.c): the open summary, then the
** collapsed <details> sections AUROC, PR curves, Calibration, Compare
** models, Operating points, Drift and SVD cost.
** SPDX-License-Identifier: MIT
**
** Rules:
**   1. Every section but the summary is a <details> collapsed by default,
**      with an id (auroc, pr, calibration, compare, operating, drift, svd).
**   2. A value the section has not (a group with too few of a class, no
**      group for a mean) is a cell of class "na" saying why; an AUROC below
**      0.5 is marked "inverted".
**   3. The rows of all rows are of class "overall" and come first.
**   4. The writers compute nothing: every number is the struct's double.
**
** Cost: O(size of the page).
*/
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "report_html.h"

/* The summary's opening: what its numbers are. */
static void summary_intro(Report *r, sqlite3_str *h){
  sqlite3_str_appendall(h,
    "<section id=\"summary\">\n<h2>Summary</h2>\n<p>Per score, over all rows and per ");
  html_text(h, r->o.zBy ? r->o.zBy : "group");
  sqlite3_str_appendall(h,
    ": AUROC with its 95 % DeLong interval (<code>auroc_ci</code>) and PR-AUC (average precision)");
  if( r->o.reps && r->o.bootRows ){
    sqlite3_str_appendf(h, " with its 95 %% interval: in a group of at most %lld rows the BCa bootstrap's "
                        "(<code>pr_auc_ci</code>, %d replicates, seed 0), in a larger one the delta method's on the "
                        "logit scale (<code>pr_auc_delta_ci</code>, marked &#948;: the limit the bootstrap tends to, "
                        "without its cost; <code>--boot-rows</code>, <code>--reps</code>)",
                        (long long)r->o.bootRows, r->o.reps);
  }else{
    sqlite3_str_appendall(h, " with its 95 % interval by the delta method on the logit scale "
                          "(<code>pr_auc_delta_ci</code>, marked &#948;; no bootstrap: <code>--reps 0</code> "
                          "or <code>--boot-rows 0</code>)");
  }
  sqlite3_str_appendall(h, ". No skill: AUROC 0.5 and PR-AUC the prevalence.");
  if( r->o.zBy ){
    sqlite3_str_appendall(h, " The mean over the groups that have a value, with a Student t interval "
                          "(<code>mean_ci</code>), measures the spread between groups, not the error of one.");
  }
  sqlite3_str_appendall(h, "</p>\n");
}

/* One score's rows: all rows, each group, the mean over groups. */
static void summary_score(Report *r, sqlite3_str *h, const char *zScore, const SumScore *ss){
  int i;
  for(i=0; i<ss->nRow; i++){
    const SumRow *w = &ss->aRow[i];
    char pv[32], nb[32];
    sqlite3_str_appendall(h, w->zGroup ? "<tr>" : "<tr class=\"overall\">");
    td_name(h, zScore);
    td_name(h, w->zGroup ? w->zGroup : "all rows");
    fmt3(pv, w->prev);
    fmt_count(nb, w->n);
    sqlite3_str_appendf(h, "<td>%s</td><td>%s</td>", nb, pv);
    if( w->zWhy ){
      sqlite3_str_appendf(h, "<td class=\"na\">%s</td><td class=\"na\">%s</td>", w->zWhy, w->zWhy);
    }else{
      html_ci(h, &w->auroc);
      html_ci(h, &w->prAuc);
    }
    sqlite3_str_appendall(h, "</tr>\n");
  }
  if( r->o.zBy ){
    sqlite3_str_appendall(h, "<tr class=\"mean\">");
    td_name(h, zScore);
    sqlite3_str_appendall(h, "<td>mean over groups</td><td></td><td></td>");
    if( ss->meanAuroc.zJson ) html_ci(h, &ss->meanAuroc);
    else sqlite3_str_appendall(h, "<td class=\"na\">no group</td>");
    if( ss->meanPr.zJson ) html_ci(h, &ss->meanPr);
    else sqlite3_str_appendall(h, "<td class=\"na\">no group</td>");
    sqlite3_str_appendall(h, "</tr>\n");
  }
}

/* "est [lo, hi]" in a cell, or est alone when the interval is not finite. */
static void td_interval(sqlite3_str *h, double est, double lo, double hi){
  char b[32], l[32], u[32];
  fmt3(b, est);
  if( isfinite(est) && isfinite(lo) && isfinite(hi) ){
    fmt3(l, lo); fmt3(u, hi);
    sqlite3_str_appendf(h, "<td>%s <span class=\"ci\">[%s, %s]</span></td>", b, l, u);
  }else{
    sqlite3_str_appendf(h, "<td>%s</td>", b);
  }
}

/* With --prob: Brier and log loss next to the no-skill model's, and the
** calibration: O/E, CITL and slope with their intervals, ICI. */
static void summary_prob(Report *r, sqlite3_str *h, const Summary *s){
  int i, c;
  sqlite3_str_appendall(h, "<p>The probability <code>");
  html_text(h, r->o.zProb);
  sqlite3_str_appendall(h, "</code>: Brier score (<code>brier</code>) and log loss (<code>log_loss</code>), "
                        "lower is better, next to the no-skill model that predicts the prevalence &#960; for "
                        "every row: Brier &#960;(1 &#8722; &#960;), log loss "
                        "&#8722;&#960; ln &#960; &#8722; (1 &#8722; &#960;) ln(1 &#8722; &#960;). "
                        "A Brier score at or above the no-skill one is flagged <span class=\"worse\">&#9888; worse "
                        "than no skill</span> (&#8220;no better than no skill&#8221; when equal). "
                        "A small Brier score alone does not make probabilities right: "
                        "<code>calibration_summary(y, p)</code>'s observed/expected ratio O/E (1 when the "
                        "probabilities add up to the events), calibration-in-the-large CITL (0) and "
                        "calibration slope (1; below 1 the probabilities are too extreme, above 1 too "
                        "timid), each with its 95 % Wald interval (<code>citl_lo</code>, <code>slope_lo</code>, ...: "
                        "R's <code>confint.default</code> of the same <code>glm</code>), and the integrated "
                        "calibration index ICI (<code>calibration_smooth(y, p)</code>: the mean distance between "
                        "the lowess calibration curve and p, 0 when calibrated; rms <code>val.prob</code>'s Eavg) "
                        "say whether they are.");
  if( r->o.zWeight ){
    sqlite3_str_appendall(h, " With weights the ICI is <code>calibration_smooth_w(y, p, w)</code>'s (frequency "
                          "weights: an integer weight counts as that many rows).");
  }
  sqlite3_str_appendall(h, "</p>\n");
  table_open(r, h, "summary", "<th>probability</th>", "<th>rows</th><th>Brier</th><th>no-skill Brier</th>"
             "<th>log loss</th><th>no-skill log loss</th><th>O/E</th><th>CITL [95 % CI]</th>"
             "<th>slope [95 % CI]</th><th>ICI</th>");
  for(i=0; i<s->nProb; i++){
    const ProbRow *w = &s->aProb[i];
    double v[5];
    char b[32];
    v[0] = w->brier; v[1] = w->nsBrier; v[2] = w->logLoss; v[3] = w->nsLog; v[4] = w->oe;
    sqlite3_str_appendall(h, w->zGroup ? "<tr>" : "<tr class=\"overall\">");
    td_name(h, r->o.zProb);
    td_name(h, w->zGroup ? w->zGroup : "all rows");
    { char nb[32]; fmt_count(nb, w->n); sqlite3_str_appendf(h, "<td>%s</td>", nb); }
    for(c=0; c<5; c++){
      fmt3(b, v[c]);
      if( c==0 && w->worse ){
        sqlite3_str_appendf(h, "<td class=\"worse\">%s <span title=\"Brier at or above the no-skill Brier\">"
                            "&#9888;</span> (%s than no skill)</td>", b, w->worse==2 ? "worse" : "no better");
      }
      else sqlite3_str_appendf(h, "<td>%s</td>", b);
    }
    td_interval(h, w->citl, w->citlLo, w->citlHi);
    td_interval(h, w->slope, w->slopeLo, w->slopeHi);
    fmt3(b, w->ici);
    sqlite3_str_appendf(h, "<td>%s</td>", b);
    sqlite3_str_appendall(h, "</tr>\n");
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
}

/* The always-open summary: per score, the overall and per-group AUROC and
** PR-AUC with 95 % intervals, the mean across groups with its t interval,
** the no-skill baselines and, with --prob, Brier and log loss. */
/* With --drift-ref: the drift line of the summary, each column's worst
** period by PSI, flagged as the Drift section flags it. */
static void summary_drift(Report *r, sqlite3_str *h, const DriftSec *d){
  int i;
  sqlite3_str_appendall(h, "<p>Drift against the reference (<code>--drift-ref ");
  html_text(h, r->o.zDriftRef);
  sqlite3_str_appendall(h, "</code>: ");
  html_ref_periods(h, d);
  sqlite3_str_appendall(h, "): each column's largest PSI over the periods of <code>");
  html_text(h, r->o.zBy);
  sqlite3_str_appendall(h, "</code> and the period that has it, <span class=\"worse\">moderate</span> from 0.1, "
                        "<span class=\"worse\">major</span> from 0.25 (the Drift section has every period).</p>\n"
                        "<table class=\"summary drift-worst\">\n<thead><tr><th>column</th><th>largest PSI</th><th>");
  html_text(h, r->o.zBy);
  sqlite3_str_appendall(h, "</th></tr></thead>\n<tbody>\n");
  for(i=0; i<d->nWorst; i++){
    const DriftWorst *w = &d->aWorst[i];
    sqlite3_str_appendall(h, "<tr>");
    td_name(h, w->zCol);
    if( w->zPeriod==0 ){
      sqlite3_str_appendall(h, "<td class=\"na\" colspan=\"2\">no period with rows</td></tr>\n");
      continue;
    }
    html_flag_psi(h, w->psi);
    td_name(h, w->zPeriod);
    sqlite3_str_appendall(h, "</tr>\n");
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
}

/* The summary's survival line (--time): each column's C and AUC(t). */
static void summary_survival(Report *r, sqlite3_str *h, const SurvSec *s){
  int k;
  sqlite3_str_appendf(h, "<p class=\"survival\">Survival at t = %g, all rows (Harrell's C, AUC(t)):", r->o.horizon);
  for(k=0; k<s->nCol; k++){
    char c[32], a[32];
    fmt3(c, s->aCol[k].c.est); fmt3(a, s->aCol[k].auc.est);
    sqlite3_str_appendall(h, k ? "; <code>" : " <code>");
    html_text(h, s->aCol[k].zCol);
    sqlite3_str_appendf(h, "</code> C %s, AUC(t) %s", c, a);
  }
  sqlite3_str_appendall(h, " (<a href=\"#survival\">Survival</a>).</p>\n");
}

void html_summary(Report *r, sqlite3_str *h, const Summary *s, const DriftSec *d, const SurvSec *sv){
  int k;
  summary_intro(r, h);
  table_open(r, h, "summary", "<th>score</th>", "<th>rows</th><th>prevalence (no-skill PR-AUC)</th>"
             "<th>AUROC [95 % CI]</th><th>PR-AUC [95 % CI]</th>");
  for(k=0; k<r->o.nScore; k++) summary_score(r, h, r->o.azScore[k], &s->aScore[k]);
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
  if( r->o.zProb ) summary_prob(r, h, s);
  if( d->on ) summary_drift(r, h, d);
  if( sv->on ) summary_survival(r, h, sv);
  sqlite3_str_appendall(h, "</section>\n");
}

/* In place of a plot of more series than a plot aggregate draws. */
static void html_too_many(sqlite3_str *h){
  sqlite3_str_appendf(h, "<p class=\"na\">more than %d lines: not drawn (a plot draws at most %d series, "
                      "one colour each); the table has every group</p>\n", PLOT_MAX_SERIES, PLOT_MAX_SERIES);
}

/* One plot per score of its groups' curves (titled "zKind: score"), with
** the groups that have none listed under it. */
static void curve_plots(Report *r, sqlite3_str *h, const CurveSec *s, const char *zKind){
  int k;
  for(k=0; k<r->o.nScore; k++){
    const CurveScore *c = &s->aScore[k];
    char *zTitle = sqlite3_mprintf("%s: %s", zKind, r->o.azScore[k]);
    html_h3(h, zTitle);
    if( c->zSvg ) html_svg(h, c->zSvg);
    else if( c->tooMany ) html_too_many(h);
    else sqlite3_str_appendall(h, "<p class=\"na\">no group has 2 positives and 2 negatives: no curve</p>\n");
    html_missing(r, h, c->aCnt);
    sqlite3_free(zTitle);
  }
}

void html_auroc(Report *r, sqlite3_str *h, const CurveSec *s){
  int k, i;
  sqlite3_str_appendall(h,
    "<details id=\"auroc\">\n<summary>AUROC</summary>\n<div class=\"body\">\n"
    "<p>Area under the ROC curve per score and group (<code>auroc(y, s)</code>); "
    "a tie between a positive and a negative counts 1/2. An AUROC below 0.5 is marked "
    "<span class=\"inverted\">inverted</span>: the score ranks negatives higher.</p>\n");
  table_open(r, h, 0, "<th>score</th>", "<th>rows</th><th>positives</th><th>negatives</th><th>AUROC</th>");
  for(k=0; k<r->o.nScore; k++){
    const CurveScore *c = &s->aScore[k];
    for(i=0; i<r->nGroup; i++){
      char b[32];
      const Counts *n = &c->aCnt[i];
      const char *why = too_few(n->pos, n->neg);
      sqlite3_str_appendall(h, "<tr>");
      td_name(h, r->o.azScore[k]); td_name(h, r->aGroup[i].zName);
      char c1[32], c2[32], c3[32];
      fmt_count(c1, n->n); fmt_count(c2, n->pos); fmt_count(c3, n->neg);
      sqlite3_str_appendf(h, "<td>%s</td><td>%s</td><td>%s</td>", c1, c2, c3);
      fmt3(b, c->aValue[i]);
      if( why ) sqlite3_str_appendf(h, "<td class=\"na\">%s</td>", why);
      else if( c->aValue[i]<0.5 ) sqlite3_str_appendf(h, "<td class=\"inverted\">%s (inverted)</td>", b);
      else sqlite3_str_appendf(h, "<td>%s</td>", b);
      sqlite3_str_appendall(h, "</tr>\n");
    }
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
  curve_plots(r, h, s, "ROC curves");
  sqlite3_str_appendall(h, "</div>\n</details>\n");
}

void html_pr(Report *r, sqlite3_str *h, const CurveSec *s){
  int k, i;
  sqlite3_str_appendall(h,
    "<details id=\"pr\">\n<summary>PR curves</summary>\n<div class=\"body\">\n"
    "<p>Average precision (<code>pr_auc(y, s)</code>: the sum over distinct thresholds of "
    "(R<sub>i</sub> &#8722; R<sub>i&#8722;1</sub>) P<sub>i</sub>, no interpolation) and the "
    "prevalence, the AP of a score with no skill. In the plots, each distinct prevalence "
    "(to 3 decimals) is one horizontal no-skill line, labelled with its value and its "
    "groups.</p>\n");
  table_open(r, h, 0, "<th>score</th>", "<th>positives</th><th>prevalence</th><th>AUPRC</th><th>AUPRC &#8722; prevalence</th>");
  for(k=0; k<r->o.nScore; k++){
    const CurveScore *c = &s->aScore[k];
    for(i=0; i<r->nGroup; i++){
      char b[32], pv[32], lift[32];
      const Counts *n = &c->aCnt[i];
      const char *why = too_few(n->pos, n->neg);
      double prev = n->n ? (double)n->pos / (double)n->n : NAN;
      sqlite3_str_appendall(h, "<tr>");
      td_name(h, r->o.azScore[k]); td_name(h, r->aGroup[i].zName);
      fmt3(b, c->aValue[i]); fmt3(pv, prev); fmt3(lift, c->aValue[i] - prev);
      char c2[32];
      fmt_count(c2, n->pos);
      sqlite3_str_appendf(h, "<td>%s</td><td>%s</td>", c2, pv);
      if( why ) sqlite3_str_appendf(h, "<td class=\"na\">%s</td><td></td>", why);
      else sqlite3_str_appendf(h, "<td>%s</td><td>%s</td>", b, lift);
      sqlite3_str_appendall(h, "</tr>\n");
    }
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
  curve_plots(r, h, s, "PR curves");
  sqlite3_str_appendall(h, "</div>\n</details>\n");
}

void html_calibration(Report *r, sqlite3_str *h, const CalSec *s){
  int i, c;
  char *zTitle;
  sqlite3_str_appendall(h,
    "<details id=\"calibration\">\n<summary>Calibration</summary>\n<div class=\"body\">\n");
  if( !s->on ){
    sqlite3_str_appendall(h,
      "<p class=\"pseudo\">No calibration: no <code>--prob</code> column was given, and calibration "
      "describes probabilities. A score is not one, and mapping it to a pseudo-probability "
      "(its rank, say) gives every model the same calibration whatever it predicts, so this "
      "section shows nothing for scores; their ranking is in the AUROC and PR sections. "
      "Give the model's probability column with <code>--prob</code>.</p>\n");
    sqlite3_str_appendall(h, "</div>\n</details>\n");
    return;
  }
  sqlite3_str_appendall(h, "<p>Expected calibration error of the probability <code>");
  html_text(h, r->o.zProb);
  sqlite3_str_appendf(h, "</code> (<code>ece(y, p, %d)</code>: %d equal-width bins), "
                      "<code>calibration_summary(y, p)</code> (observed/expected, calibration-in-the-large, "
                      "calibration slope, Spiegelhalter's test, scaled Brier) and the reliability diagram, "
                      "with a histogram of the predicted probabilities below.</p>\n", r->o.bins, r->o.bins);
  table_open(r, h, 0, "<th>probability</th>", "<th>rows</th><th>ECE</th><th>O/E</th><th>CITL</th><th>slope</th>"
             "<th>Spiegelhalter p</th><th>scaled Brier</th>");
  for(i=0; i<s->nRow; i++){
    const CalRow *w = &s->aRow[i];
    double v[6];
    v[0] = w->ece; v[1] = w->oe; v[2] = w->citl; v[3] = w->slope; v[4] = w->spiegelP; v[5] = w->scaledBrier;
    sqlite3_str_appendall(h, w->zGroup ? "<tr>" : "<tr class=\"overall\">");
    td_name(h, r->o.zProb);
    td_name(h, w->zGroup ? w->zGroup : "all rows");
    { char nb[32]; fmt_count(nb, w->n); sqlite3_str_appendf(h, "<td>%s</td>", nb); }
    for(c=0; c<6; c++){
      char b[32];
      if( c==4 && v[c]<0.001 ) strcpy(b, "&lt; 0.001");      /* Spiegelhalter's p */
      else fmt3(b, v[c]);
      sqlite3_str_appendf(h, "<td>%s</td>", b);
    }
    sqlite3_str_appendall(h, "</tr>\n");
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
  zTitle = sqlite3_mprintf("Reliability: %s", r->o.zProb);
  html_h3(h, zTitle);
  if( s->zRelSvg ){
    html_svg(h, s->zRelSvg);
    sqlite3_str_appendf(h, "<p>Thick line: each bin's mean probability against its observed fraction of positives "
                        "(<code>reliability%s, %d)</code>). Thin line: the smoothed calibration curve, the lowess "
                        "of y on p (<code>calibration_smooth%s</code>; its mean distance from the diagonal is the "
                        "ICI).</p>\n", r->o.zWeight ? "_w(y, p, w" : "(y, p", r->o.bins,
                        r->o.zWeight ? "_w(y, p, w)" : "(y, p)");
  }
  else if( s->relTooMany ) html_too_many(h);
  sqlite3_free(zTitle);
  /* the decision curve over all rows: the model, treat all, treat none */
  zTitle = sqlite3_mprintf("Decision curve: %s (all rows)", r->o.zProb);
  sqlite3_str_appendall(h, "<h3>");
  html_text(h, zTitle);
  sqlite3_str_appendall(h, "</h3>\n<p>Net benefit of treating the rows whose probability is at "
                        "least the threshold (<code>decision_curve(y, p)</code>, thresholds 0.01 to 0.99), "
                        "against treating everyone (shown down to a net benefit of &#8722;0.05) "
                        "and no one.</p>\n");
  if( s->zDcSvg ) html_svg(h, s->zDcSvg);
  sqlite3_free(zTitle);
  sqlite3_str_appendall(h, "</div>\n</details>\n");
}

/* The comparison's opening: what its tests are. */
static void compare_note(sqlite3_str *h){
  sqlite3_str_appendall(h,
    "<details id=\"compare\">\n<summary>Compare models</summary>\n<div class=\"body\">\n"
    "<p>Each pair of scores on the rows where both are set: the AUROC difference a &#8722; b with "
    "DeLong's paired test (<code>auroc_diff(y, a, b)</code>) and the PR-AUC difference with a paired "
    "bootstrap (<code>pr_auc_diff_ci(y, a, b)</code>, the same resampled rows for both) in a group of at "
    "most <code>--boot-rows</code> rows, else the paired delta method (<code>pr_auc_diff_delta(y, a, b)</code>, "
    "marked &#948;). "
    "Holm's adjustment (as <code>sql/p_adjust.sql</code>) is taken over all the table's p-values of "
    "each kind.</p>\n");
}

/* The comparison's opening with --weight: its tests are the paired weighted
** bootstraps, and what has no weighted twin is said to have none. */
static void compare_weighted_note(Report *r, sqlite3_str *h){
  sqlite3_str_appendall(h,
    "<details id=\"compare\">\n<summary>Compare models</summary>\n<div class=\"body\">\n"
    "<p>Each pair of scores on the rows where both (and the weight <code>");
  html_text(h, r->o.zWeight);
  sqlite3_str_appendall(h, "</code>) are set, weighted: the AUROC difference a &#8722; b by the paired weighted "
    "bootstrap (<code>auroc_diff_w(y, a, b, w)</code>: DeLong's paired test has no standard weighted form) and the "
    "PR-AUC difference by the paired weighted bootstrap (<code>pr_auc_diff_ci_w(y, a, b, w)</code>), in a group of "
    "at most <code>--boot-rows</code> rows. <span class=\"worse\">No weighted twin:</span> "
    "<code>pr_auc_diff_delta</code>, the delta method that stands in for the bootstrap in a larger group (and with "
    "<code>--reps 0</code>), has none, so such a group shows n/a. "
    "Holm's adjustment (as <code>sql/p_adjust.sql</code>) is taken over all the table's p-values of "
    "each kind.</p>\n");
}

/* A p-value as the comparison table shows it: 3 significant digits, below
** 0.001 "< 0.001" (the digits of a tail that small say nothing the test can
** back); a bootstrap p-value of 0 (reps > 0: no replicate as extreme) is
** "< 1/reps", or "< bound" when the bound is given (Holm's of 1/reps). */
static void td_p(sqlite3_str *h, double p, int reps, double bound){
  char b[48];
  if( !isfinite(p) ) snprintf(b, sizeof(b), "n/a");
  else if( p==0 && reps>0 ) snprintf(b, sizeof(b), "&lt; %g", isfinite(bound) ? bound : 1.0 / reps);
  else if( p<0.001 ) snprintf(b, sizeof(b), "&lt; 0.001");
  else snprintf(b, sizeof(b), "%.3g", p);
  sqlite3_str_appendf(h, "<td>%s</td>", b);
}

void html_compare(Report *r, sqlite3_str *h, const CmpSec *s){
  int i;
  if( !s->on ) return;
  if( r->o.zWeight ) compare_weighted_note(r, h);
  else compare_note(h);
  table_open(r, h, 0, "<th>a</th><th>b</th>", "<th>rows</th><th>AUROC a &#8722; b [95 % CI]</th><th>p</th>"
             "<th>Holm p</th><th>PR-AUC a &#8722; b [95 % CI]</th><th>p</th><th>Holm p</th>");
  for(i=0; i<s->nRow; i++){
    const CmpRow *c = &s->aRow[i];
    sqlite3_str_appendall(h, c->zGroup ? "<tr>" : "<tr class=\"overall\">");
    td_name(h, c->zA); td_name(h, c->zB); td_name(h, c->zGroup ? c->zGroup : "all rows");
    { char nb[32]; fmt_count(nb, c->n); sqlite3_str_appendf(h, "<td>%s</td>", nb); }
    if( c->auDiff.zJson ) html_ci(h, &c->auDiff);
    else sqlite3_str_appendall(h, "<td class=\"na\">n/a</td>");
    td_p(h, c->pAu, c->auBoot ? r->o.reps : 0, NAN);
    td_p(h, c->holmAu, c->auBoot && c->pAu==0 ? r->o.reps : 0, c->holmAuBound);
    if( c->prDiff.zJson ) html_ci(h, &c->prDiff);
    else sqlite3_str_appendall(h, "<td class=\"na\">n/a</td>");
    td_p(h, c->pPr, c->prBoot ? r->o.reps : 0, NAN);
    td_p(h, c->holmPr, c->prBoot && c->pPr==0 ? r->o.reps : 0, c->holmPrBound);
    sqlite3_str_appendall(h, "</tr>\n");
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
  sqlite3_str_appendall(h, "<h3>ROC curves, all rows: every score</h3>\n");
  if( s->zRocSvg ) html_svg(h, s->zRocSvg);
  sqlite3_str_appendall(h, "<h3>PR curves, all rows: every score</h3>\n");
  if( s->zPrSvg ) html_svg(h, s->zPrSvg);
  else if( s->prTooMany ) html_too_many(h);
  sqlite3_str_appendall(h, "</div>\n</details>\n");
}

void html_operating(Report *r, sqlite3_str *h, const OpSec *s){
  int i;
  sqlite3_str_appendall(h,
    "<details id=\"operating\">\n<summary>Operating points</summary>\n<div class=\"body\">\n"
    "<p>The threshold each criterion picks (<code>operating_point(y, s, criterion [, target])</code>, "
    "positive when <code>s &gt;= threshold</code>, over every distinct threshold) and the rates "
    "there. Criteria: <code>");
  for(int j=0; j<r->o.nOp; j++){
    char t[40] = "";
    if( isfinite(r->o.aOpTarget[j]) ) snprintf(t, sizeof(t), ":%g", r->o.aOpTarget[j]);
    if( j ) sqlite3_str_appendall(h, ",");
    html_text(h, r->o.azOpCrit[j]);
    sqlite3_str_appendall(h, t);
  }
  sqlite3_str_appendall(h, "</code> (<code>--operating</code>). ");
  if( r->o.reps && r->o.bootRows ){
    sqlite3_str_appendf(h, "Where the criterion fixes the specificity or the false positive rate, the sensitivity "
                        "there has its 95 %% BCa bootstrap interval (<code>sens_at_spec_ci(y, s, target)</code>, "
                        "<code>tpr_at_fpr_ci(y, s, target)</code>, %d replicates, seed 0) in a group of at most "
                        "%lld rows; <code>max_f1</code>, <code>youden</code>, <code>sensitivity</code> and "
                        "<code>precision</code> pick their threshold from the data, and no function bootstraps "
                        "that choice, so they have none.</p>\n", r->o.reps, (long long)r->o.bootRows);
  }else{
    sqlite3_str_appendall(h, "No intervals: <code>--reps 0</code> or <code>--boot-rows 0</code>.</p>\n");
  }
  table_open(r, h, 0, "<th>score</th>", "<th>criterion</th><th>threshold</th><th>sensitivity [95 % CI]</th><th>specificity</th>"
             "<th>precision</th><th>F1</th><th>achieved</th>");
  for(i=0; i<s->nRow; i++){
    const OpRow *o = &s->aRow[i];
    char *zc = isnan(o->target) ? sqlite3_mprintf("%s", o->zCrit) : sqlite3_mprintf("%s %g", o->zCrit, o->target);
    sqlite3_str_appendall(h, o->zGroup ? "<tr>" : "<tr class=\"overall\">");
    td_name(h, o->zScore);
    td_name(h, o->zGroup ? o->zGroup : "all rows");
    td_name(h, zc ? zc : "?");
    sqlite3_free(zc);
    if( !o->ok ){
      sqlite3_str_appendall(h, "<td class=\"na\" colspan=\"6\">too few of a class</td></tr>\n");
    }else{
      double v[5];
      int c;
      v[0] = o->threshold; v[1] = o->tpr; v[2] = o->spec; v[3] = o->precision; v[4] = o->f1;
      for(c=0; c<5; c++){
        char b[32];
        if( c==1 && o->sens.zJson ){ html_ci(h, &o->sens); continue; }
        if( c==0 && !isnan(v[0]) ) snprintf(b, sizeof(b), "%.6g", v[0]);
        else fmt3(b, v[c]);
        sqlite3_str_appendf(h, "<td>%s</td>", b);
      }
      sqlite3_str_appendf(h, "<td>%s</td></tr>\n", o->achieved ? "yes" : "no");
    }
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n</div>\n</details>\n");
}

/* Drift (--drift-ref): the reference, the rule of thumb, the table of every
** column and period, the PSI plot. */
void html_drift(Report *r, sqlite3_str *h, const DriftSec *s){
  int i;
  if( !s->on ) return;
  sqlite3_str_appendall(h, "<details id=\"drift\">\n<summary>Drift</summary>\n<div class=\"body\">\n"
                        "<p>Each score's (and the probability's");
  if( r->o.nFeature ) sqlite3_str_appendall(h, ", and each <code>--feature</code> column's");
  sqlite3_str_appendall(h, ") distribution in every period of <code>");
  html_text(h, r->o.zBy);
  sqlite3_str_appendall(h, "</code> against the reference (<code>--drift-ref ");
  html_text(h, r->o.zDriftRef);
  sqlite3_str_appendall(h, "</code>: ");
  html_ref_periods(h, s);
  sqlite3_str_appendall(h, "), the periods in ascending order of their values, over every row, labelled or not (the "
    "performance sections read the labelled rows only): "
    "<code>drift_report(st_ref, st)</code> of the reference's state (its periods' <code>ml_state_dist</code>s "
    "merged) and the period's. PSI over 10 bins at the reference's deciles (a share of 0 counts as "
    "10<sup>&#8722;4</sup>); the usual reading: below 0.1 no real shift, 0.1 to 0.25 "
    "<span class=\"worse\">moderate</span>, 0.25 and above <span class=\"worse\">major</span>. "
    "The two-sample Kolmogorov&#8211;Smirnov statistic D and its p-value (scipy's <code>ks_2samp</code>, "
    "exact or asymptotic as it chooses), the Wasserstein-1 distance, the means, and the AUROC of "
    "telling the period's rows from the reference's by the score (0.5: no shift; above 0.5 the period runs "
    "higher).</p>\n");
  table_open(r, h, "drift", "<th>column</th>", "<th>rows</th><th>PSI</th><th>KS D</th><th>KS p</th><th>Wasserstein</th>"
             "<th>mean: reference &#8594; period</th><th>AUROC period vs reference</th>");
  for(i=0; i<s->nRow; i++){
    const DriftRow *d = &s->aRow[i];
    char b[32], c[32];
    sqlite3_str_appendall(h, "<tr>");
    td_name(h, d->zCol);
    td_name(h, d->zPeriod);
    fmt_count(b, d->n);
    if( isfinite(d->nLabelled) && d->nLabelled!=d->n ){   /* both counts: the drift's and the labelled */
      fmt_count(c, d->nLabelled);
      sqlite3_str_appendf(h, "<td>%s (%s labelled)</td>", b, c);
    }else{
      sqlite3_str_appendf(h, "<td>%s</td>", b);
    }
    if( d->zJson==0 ){
      sqlite3_str_appendall(h, "<td class=\"na\" colspan=\"6\">no rows in the reference or the period</td></tr>\n");
      continue;
    }
    html_flag_psi(h, d->psi);
    fmt3(b, d->ks);
    sqlite3_str_appendf(h, "<td>%s</td>", b);
    td_p(h, d->ksP, 0, NAN);
    fmt3(b, d->wass);
    sqlite3_str_appendf(h, "<td>%s</td>", b);
    fmt3(b, d->meanRef); fmt3(c, d->meanCur);
    sqlite3_str_appendf(h, "<td>%s &#8594; %s</td>", b, c);
    fmt3(b, d->aurocPeriod);
    sqlite3_str_appendf(h, "<td>%s</td></tr>\n", b);
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
  if( s->zSvg ){
    char *zT = sqlite3_mprintf("PSI against the reference, per %s", r->o.zBy);
    html_h3(h, zT);
    sqlite3_free(zT);
    html_svg_in(h, s->zSvg, 1);
  }else if( s->tooMany ){
    sqlite3_str_appendf(h, "<p class=\"na\">more than %d periods: no PSI plot (a plot's x axis holds at most %d "
                        "labels); the table has every period</p>\n", PLOT_MAX_XLABELS, PLOT_MAX_XLABELS);
  }
  sqlite3_str_appendall(h, "</div>\n</details>\n");
}

void html_svd(Report *r, sqlite3_str *h, const SvdSec *s){
  int i;
  if( !s->on ) return;
  sqlite3_str_appendf(h,
    "<details id=\"svd\">\n<summary>SVD cost</summary>\n<div class=\"body\">\n"
    "<p>Wall-clock cost of the SVD of each target's matrix (<code>svd_bench</code> on the CPU, "
    "float64, %d warmup and %d timed iterations, randomized rank 32; w = %d, d_model = %d, the "
    "shapes of <code>sql/svd_targets.sql</code>). Errors are relative to the full SVD.</p>\n",
    s->warm, r->o.svdIters, r->o.svdW, r->o.svdD);
  sqlite3_str_appendall(h, "<table>\n<thead><tr><th>target</th><th>shape</th><th>method</th>"
                        "<th>median ms</th><th>singular value rel. error</th><th>sv correlation</th></tr></thead>\n<tbody>\n");
  for(i=0; i<s->nRow; i++){
    const SvdRow *v = &s->aRow[i];
    char ms[32], err[32], cor[32];
    snprintf(ms, sizeof(ms), "%.3f", v->ms);
    if( isfinite(v->relErr) ) snprintf(err, sizeof(err), "%.2e", v->relErr); else strcpy(err, "n/a");
    if( isfinite(v->corr) ) snprintf(cor, sizeof(cor), "%.6f", v->corr); else strcpy(cor, "n/a");
    sqlite3_str_appendall(h, "<tr>");
    td_name(h, v->zTarget);
    td_name(h, v->zShape);
    td_name(h, v->zMethod);
    sqlite3_str_appendf(h, "<td>%s</td><td>%s</td><td>%s</td></tr>\n", ms, err, cor);
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
  html_svg(h, s->zSvg);
  sqlite3_str_appendall(h, "</div>\n</details>\n");
}

/* The Survival section (--time, --event, --horizon; survival.c computes it). */
void html_survival(Report *r, sqlite3_str *h, const SurvSec *s){
  int k;
  char b[32], b2[32];
  if( !s->on ) return;
  sqlite3_str_appendf(h, "<details id=\"survival\">\n<summary>Survival at t = %g</summary>\n<div class=\"body\">\n",
                      r->o.horizon);
  sqlite3_str_appendall(h, "<p>Follow-up <code>");
  html_text(h, r->o.zTime);
  sqlite3_str_appendall(h, "</code>, event <code>");
  html_text(h, r->o.zEvent);
  sqlite3_str_appendf(h, "</code>, all rows%s: Harrell's C with its infinitesimal-jackknife interval "
                      "(<code>c_index_ci</code>), Uno's C (<code>uno_c</code>), the cumulative/dynamic AUC at t "
                      "(<code>surv_auroc_ci</code>", r->o.zWeight ? " (weighted)" : "");
  if( s->boot ) sqlite3_str_appendf(h, ", %d BCa replicates, seed 0", r->o.reps);
  else sqlite3_str_appendf(h, "; no interval: %lld rows, more than --boot-rows %lld, or --reps 0",
                           (long long)s->rows, (long long)r->o.bootRows);
  sqlite3_str_appendall(h, "); higher score = earlier event (docs/survival.md).</p>\n");
  sqlite3_str_appendall(h, "<table>\n<thead><tr><th>column</th><th>Harrell's C [95 % CI]</th><th>Uno's C</th>"
                        "<th>AUC(t) [95 % CI]</th></tr></thead>\n<tbody>\n");
  for(k=0; k<s->nCol; k++){
    const SurvCol *c = &s->aCol[k];
    sqlite3_str_appendall(h, "<tr>");
    td_name(h, c->zCol);
    html_ci(h, &c->c);
    fmt3(b, c->uno);
    sqlite3_str_appendf(h, "<td>%s</td>", b);
    html_ci(h, &c->auc);
    sqlite3_str_appendall(h, "</tr>\n");
  }
  sqlite3_str_appendall(h, "</tbody>\n</table>\n");
  if( r->o.nScore>=2 && s->zDiff ){
    double d = query_double(r, s->zDiff, "$.diff"), se = query_double(r, s->zDiff, "$.se");
    double p = query_double(r, s->zDiff, "$.p_value");
    sqlite3_str_appendall(h, "<p>Paired difference of Harrell's C, <code>");
    html_text(h, r->o.azScore[0]);
    sqlite3_str_appendall(h, "</code> &#8722; <code>");
    html_text(h, r->o.azScore[1]);
    fmt3(b, d); fmt3(b2, se);
    sqlite3_str_appendf(h, "</code> (<code>c_index_diff</code>): %s, se %s, p %.3g.</p>\n", b, b2, p);
  }
  if( r->o.zProb && s->zSummary ){
    Ci ipa = {NAN, NAN, NAN, 0, 0}, oe = {NAN, NAN, NAN, 0, 0};
    ipa.est = query_double(r, s->zSummary, "$.ipa");
    oe.est = query_double(r, s->zSummary, "$.oe");
    sqlite3_str_appendall(h, "<p><code>");
    html_text(h, r->o.zProb);
    sqlite3_str_appendall(h, "</code> at t: Brier(t) (<code>surv_brier_ci</code>), IPA and O/E "
                          "(<code>surv_summary</code>).</p>\n<table>\n<thead><tr><th>Brier(t) [95 % CI]</th>"
                          "<th>IPA</th><th>O/E</th></tr></thead>\n<tbody>\n<tr>");
    if( s->brier.zJson ) html_ci(h, &s->brier);
    else{ fmt3(b, query_double(r, s->zSummary, "$.brier")); sqlite3_str_appendf(h, "<td>%s</td>", b); }
    html_ci(h, &ipa);
    html_ci(h, &oe);
    sqlite3_str_appendall(h, "</tr>\n</tbody>\n</table>\n");
    sqlite3_str_appendall(h, "<h3>Calibration at t: 1 &#8722; Kaplan&#8211;Meier in quantile groups of p "
                          "(surv_calibration)</h3>\n");
    if( s->zCalSvg ) html_svg(h, s->zCalSvg);
    sqlite3_str_appendall(h, "<h3>Decision curve at t (surv_decision_curve)</h3>\n");
    if( s->zDcSvg ) html_svg(h, s->zDcSvg);
  }
  for(k=0; k<s->nCol; k++){
    if( s->aCol[k].zKmSvg ) html_svg(h, s->aCol[k].zKmSvg);
  }
  sqlite3_str_appendall(h, "</div>\n</details>\n");
}
