/*
** mleval-report.c -- the evaluation report of a predictions table as one
** self-contained HTML file (inline SVG and CSS, no script, no network),
** and optionally the same numbers as JSON.  This file is the program's
** entry: it runs the stages of tools/report/ in order (report.h lists
** them; docs/ARCHITECTURE.md draws the path of a run).
** SPDX-License-Identifier: MIT
**
**   mleval-report DB TABLE --label y --score s [OPTION ...]
**
** Options: --label, --score, --prob, --weight, --by, --bins, --operating,
** --reps, --boot-rows, --svd, --svd-dims, --svd-iters, --drift-ref,
** --feature, --max-groups, --time, --event, --horizon, -o/--output, --json,
** --force, --help.  The list
** that counts is options.c's (parse_args, and zUsage, which --help prints);
** tests/test_report.py checks that each option --help names is named here.
**
** Sections, in order: the summary (always open), then each a <details>
** collapsed by default: AUROC, PR curves, Calibration, Compare models (two
** scores or more), Operating points, Drift (only with --drift-ref), SVD
** cost (only with --svd), Survival (only with --time, --event and
** --horizon; survival.c).  sections.c computes them, html_sections.c and
** json.c write them (report.h lists the stages).
**
** Rules:
**   1. DB is a SQLite database (recognised by its header) or a CSV file with
**      a header row, imported into an in-memory database as TABLE; a CSV
**      column whose every non-empty field is a decimal number is typed
**      INTEGER or REAL (0x10, inf, nan are text), an empty field is NULL;
**      records end at LF, CRLF or a CR alone.  A leading UTF-8 byte-order mark is
**      skipped; a NUL byte, an unclosed quote or a record whose field count
**      differs from the header's is an error naming the record (csv.c).
**   2. Every number comes from mleval's SQL functions and every picture from
**      its plot aggregates: the report is what SQL computes.  The extension
**      is loaded from $MLEVAL_LIB, else next to the program in the build
**      tree (../ext/.libs/mleval), else from the install directory.
**   3. A group with fewer than 2 rows of a class gets "not enough
**      positives/negatives" instead of a curve.  Without --prob there is no
**      calibration (a score is not a probability), and the section says so.
**      An AUROC below 0.5 is marked "inverted".
**   4. With --weight every number is its function's weighted twin (f_w:
**      scikit-learn's sample_weight; counts are sums of weights, integer
**      weights equal repeated rows); a section whose function has none says
**      so on the page.
**   5. The output is deterministic: no date, no path other than TABLE's name.
**   6. Exit status: 0 done, 2 bad arguments (with usage), 1 any other error
**      (DB unreadable, no such table or column, SQL error), with a message
**      "mleval-report: ..." on stderr.
**
** Cost: one GROUP BY pass over the table (a sort per score column into
** per-group states); every number after it reads the states; the pairs of
** scores read the rows again; bootstrap intervals on groups of at most
** --boot-rows rows (--reps replicates each).
*/
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* zText into zPath, or exit 1 saying why not. */
static void write_file(const char *zPath, const char *zText){
  FILE *f = fopen(zPath, "wb");
  if( f==0 || fputs(zText, f)<0 || fclose(f)!=0 ) die(1, "cannot write %s: %s", zPath, strerror(errno));
}

int main(int argc, char **argv){
  Report r;
  Sections s;
  char *zHtml, *zJson;
  int i;
  memset(&r, 0, sizeof(r));
  parse_args(&r.o, argc, argv);   /* options.c: argv -> Opts */
  progress_start(&r);             /* sql.c: progress lines of a long run */
  check_outputs(&r.o);
  open_db(&r);                    /* input.c: DB -> a database with TABLE */
  load_mleval(&r);
  check_columns(&r);
  if( r.o.driftOnly ) scan_drift_only(&r);   /* no --label: the Drift section alone */
  else scan_table(&r);            /* scan.c: one GROUP BY pass -> states */
  drift_resolve(&r);              /*         --drift-ref -> the reference periods */
  if( !r.o.driftOnly ) compute(&r);   /*     states -> results */
  sections_compute(&r, &s);       /* sections.c: results -> section structs */
  progress(&r, "writing the report");
  zJson = json_write(&r, &s);     /* json.c, html.c: structs -> outputs */
  zHtml = html_write(&r, &s);
  write_file(r.o.zOut, zHtml);
  if( r.o.zJson ) write_file(r.o.zJson, zJson);
  sqlite3_free(zHtml); sqlite3_free(zJson);
  sections_free(&r, &s);
  for(i=0; i<r.nGroup; i++) free(r.aGroup[i].zName);
  free(r.aGroup);
  sqlite3_free(r.zGroupExpr);
  free(r.o.zOpBuf);
  sqlite3_close(r.db);
  return 0;
}
