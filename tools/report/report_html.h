/*
** report_html.h -- what html.c (the page and its helpers) and
** html_sections.c (one block per section) share.
** SPDX-License-Identifier: MIT
*/
#ifndef MLEVAL_REPORT_HTML_H
#define MLEVAL_REPORT_HTML_H

#include "report.h"

void fmt3(char *buf, double d);
void fmt_count(char *buf, double d);
void html_svg(sqlite3_str *s, const char *zSvg);
void html_svg_in(sqlite3_str *s, const char *zSvg, int wide);
void html_h3(sqlite3_str *h, const char *zTitle);
void table_open(Report *r, sqlite3_str *h, const char *zClass, const char *zLead, const char *zCols);
void td_name(sqlite3_str *h, const char *z);
void html_ci(sqlite3_str *h, const Ci *c);
void html_missing(Report *r, sqlite3_str *h, const Counts *cnt);

void html_summary(Report *r, sqlite3_str *h, const Summary *s, const DriftSec *d, const SurvSec *sv);
void html_flag_psi(sqlite3_str *h, double psi);
void html_ref_periods(sqlite3_str *h, const DriftSec *s);
void html_auroc(Report *r, sqlite3_str *h, const CurveSec *s);
void html_pr(Report *r, sqlite3_str *h, const CurveSec *s);
void html_calibration(Report *r, sqlite3_str *h, const CalSec *s);
void html_compare(Report *r, sqlite3_str *h, const CmpSec *s);
void html_operating(Report *r, sqlite3_str *h, const OpSec *s);
void html_drift(Report *r, sqlite3_str *h, const DriftSec *s);
void html_svd(Report *r, sqlite3_str *h, const SvdSec *s);
void html_survival(Report *r, sqlite3_str *h, const SurvSec *s);

#endif
