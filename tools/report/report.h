/*
** report.h -- what the stages of mleval-report share: the options, the run
** (its database and groups), and the plain structs one computation per
** section fills and the two writers (HTML, JSON) read.
** SPDX-License-Identifier: MIT
**
** The stages of a run, each in its own file:
**
**   options.c   argv -> Opts (every check of an option), the rules for -o
**               and --json, die()
**   input.c     DB -> a database: a SQLite file opened read-only or a CSV
**               file imported into an in-memory one (csv.c); the extension
**               loaded; the columns the options name checked
**   scan.c      the table -> one GROUP BY pass: the groups and one ml_state
**               per group and column (temp tables), then the per-score,
**               per-pair and calibration results from the states
**   sections.c  results -> one plain struct per section (numbers, JSON
**               texts of the functions, SVGs of the plot aggregates): no
**               HTML, no JSON of the report's own is written there
**   html.c, html_sections.c   the structs -> the page
**   json.c      the structs -> --json
**   sql.c       the SQL helpers every stage uses (errors end in die())
**
** Rules every stage keeps:
**   1. A number shown twice (page and JSON) is read once, into a struct; both
**      writers format that one double, so they cannot disagree.
**   2. The user's table is read as main."TABLE"; the report's own tables are
**      temp._mleval_report_* (never shadowing a user's table).
**   3. Memory: the strings and arrays of the section structs are xmalloc'd
**      (free() them; out of memory ends the run with exit 1); SQL text built
**      with sqlite3_mprintf is sqlite3_free'd where it is built.
*/
#ifndef MLEVAL_REPORT_H
#define MLEVAL_REPORT_H

#include <sqlite3.h>
#include <stdio.h>

#ifndef MLEVAL_EXTDIR
# define MLEVAL_EXTDIR "/usr/local/lib"
#endif

#define MAX_SCORES 16
#define MAX_FEATURES 64
/* --max-groups' default: more groups than this is an error (issue 46). */
#define DEFAULT_MAX_GROUPS 1000
#define MAX_OPS 16
/* Curves of a group with at least this many rows are drawn (and written to
** --json) at this many equal-mass cuts of its ranked rows: gains(y, s, 500). */
#define CURVE_POINTS 500
/* The most series a plot aggregate draws (plot.c's PLOT_MAX_SERIES): a plot
** of more groups is left out, and the page says so. */
#define PLOT_MAX_SERIES 24
/* The most text labels plot_lines puts on an x axis (plot.c's
** PLOT_MAX_XLABELS): a PSI plot of more periods is left out. */
#define PLOT_MAX_XLABELS 2000

/* The report's own tables live in the temp schema under names of their own,
** and the user's table is always read as main."TABLE": a predictions table
** named res, grp or _mleval_report_res is never shadowed (SQLite resolves
** an unqualified name in temp first). */
#define T_GRP "temp._mleval_report_grp"
#define T_RES "temp._mleval_report_res"
#define T_CAL "temp._mleval_report_cal"
#define T_CMP "temp._mleval_report_cmp"
#define T_ST "temp._mleval_report_states"
#define T_DRIFT "temp._mleval_report_drift"
/* --drift-ref's own scan of every row, labelled or not: the periods and per
** column its ml_state_dist (drift_resolve, scan.c) */
#define T_DGRP "temp._mleval_report_drift_grp"
#define T_DST "temp._mleval_report_drift_states"
#define T_SVD_TARGETS "temp._mleval_report_svd_targets"
#define T_SVD_COST "temp._mleval_report_svd_cost"

typedef struct Opts {
  const char *zDb, *zTable, *zLabel, *zProb, *zBy, *zOut, *zJson;
  const char *zWeight;   /* --weight: the weight column, NULL: none */
  const char *zDriftRef; /* --drift-ref: a --by value or LO..HI, NULL: no Drift section */
  int driftOnly;         /* no --label (with --drift-ref): the Drift section alone */
  const char *zTime, *zEvent;  /* --time, --event: the Survival section's columns, NULL: none */
  double horizon;        /* --horizon: the time t of the Survival section (> 0) */
  const char *zOutOpt;   /* how the user spelled the HTML option: "-o" or "--output" */
  const char *azScore[MAX_SCORES];
  const char *azFeature[MAX_FEATURES];  /* --feature: columns drifted and nothing else */
  int nFeature;
  int maxGroups;         /* --max-groups: the most groups --by may make */
  int nScore, svd, bins, svdW, svdD, svdIters, force, reps;
  sqlite3_int64 bootRows;  /* --boot-rows: the largest group the PR-AUC bootstrap runs on */
  /* --operating: criteria and targets (NAN: none) */
  const char *azOpCrit[MAX_OPS];
  double aOpTarget[MAX_OPS];
  int nOp;
  char *zOpBuf;          /* --operating's text, split in place (free() it) */
} Opts;

/* Counts of rows are doubles: with --weight they are sums of weights (the
** rows' count for weights of 1, and of the repeated rows for integer
** weights), printed as integers when they are (fmt_count, json_count). */
typedef struct Group {
  char *zName;           /* the --by value as text ("all" without --by) */
  double n, pos, neg;    /* labelled rows, positives, negatives (or their weights) */
  sqlite3_int64 rows;    /* labelled rows (the cost: --boot-rows compares it) */
} Group;

typedef struct Report {
  Opts o;
  sqlite3 *db;
  Group *aGroup;
  int nGroup;
  char *zGroupExpr;      /* SQL expression of the group, e.g. "fold" */
  sqlite3_int64 nRow;    /* rows in the table */
  double t0, tLast;      /* progress(): the run's start and the last line's time (s) */
  int progress;          /* progress(): 1 stderr is a terminal (or MLEVAL_REPORT_PROGRESS=1) */
  char zStage[160];      /* progress(): the stage the run is in, for the SQL progress handler */
} Report;

/* ------------------------------------------------------------ section structs */

/* An estimate and its interval: est as the section reads it, lo and hi from
** the function's JSON (NAN when absent), delta when the JSON's method is the
** delta method's; zJson is that JSON as the function wrote it (NULL: none). */
typedef struct Ci { double est, lo, hi; int delta; char *zJson; } Ci;

/* Rows, positives, negatives of one column in one group (0 when absent). */
typedef struct Counts { double n, pos, neg; } Counts;

/* The summary: per score, rows of (group or all rows) with AUROC and PR-AUC
** and their intervals, the mean over groups (with --by); with --prob, Brier
** and log loss per row next to their no-skill values. */
typedef struct SumRow {
  char *zGroup;              /* NULL: all rows */
  double n, pos;
  const char *zWhy;          /* too few of a class: no AUROC, no PR-AUC */
  double prev;
  Ci auroc, prAuc;
} SumRow;
typedef struct SumScore {
  SumRow *aRow; int nRow;
  Ci meanAuroc, meanPr;      /* with --by; zJson NULL: no group has a value */
} SumScore;
typedef struct ProbRow {
  char *zGroup;              /* NULL: all rows */
  double n;
  double brier, nsBrier, logLoss, nsLog;
  double oe, citl, slope;    /* calibration_summary's oe_ratio, citl, slope */
  double citlLo, citlHi, slopeLo, slopeHi;  /* their 95 % Wald intervals (citl_lo, ...) */
  double ici;                /* calibration_smooth's ici (NAN: none, as with --weight) */
  char *zSmooth;             /* calibration_smooth's JSON without its curve (NULL: none) */
  int worse;                 /* Brier at or above the no-skill model's: 1 equal, 2 above */
} ProbRow;
typedef struct Summary {
  SumScore aScore[MAX_SCORES];
  ProbRow *aProb; int nProb; /* with --prob */
} Summary;

/* AUROC or PR: per score, per group the counts, the value (NAN: none or too
** few of a class), the curve's JSON (NULL: none) and whether the group has a
** row of the score at all; one SVG of the groups' curves. */
typedef struct CurveScore {
  Counts *aCnt;
  double *aValue;
  char **azCurve;
  unsigned char *aHas;
  char *zSvg;
  int tooMany;               /* more than PLOT_MAX_SERIES curves: no plot */
} CurveScore;
typedef struct CurveSec { CurveScore aScore[MAX_SCORES]; } CurveSec;

/* Calibration of --prob: per row (all rows first) the counts, ECE and
** calibration_summary's fields; per group the ECE and reliability JSON;
** the reliability diagram and the decision curve. */
typedef struct CalRow {
  char *zGroup;              /* NULL: all rows */
  double n;
  double ece, oe, citl, slope, spiegelP, scaledBrier;
} CalRow;
typedef struct CalSec {
  int on;                    /* --prob given */
  CalRow *aRow; int nRow;
  double *aEce;              /* per group */
  char **azRel; unsigned char *aHas;  /* per group */
  char *zRelSvg, *zDcSvg;
  int relTooMany;            /* more than PLOT_MAX_SERIES groups: no reliability diagram */
} CalSec;

/* Pairs of scores: per (a, b, group) the paired tests with Holm-adjusted
** p-values; the curves of every score over all rows. */
typedef struct CmpRow {
  char *zA, *zB, *zGroup;    /* zGroup NULL: all rows */
  double n;
  Ci auDiff, prDiff;         /* zJson NULL: n/a */
  double pAu, pPr, holmAu, holmPr;
  int auBoot, prBoot;        /* the p-value is the bootstrap's (a multiple of 1/reps) */
  double holmAuBound, holmPrBound;  /* with a bootstrap p of 0: Holm's adjustment of p < 1/reps */
} CmpRow;
typedef struct CmpSec {
  int on;                    /* two scores or more */
  CmpRow *aRow; int nRow;
  char *zRocSvg, *zPrSvg;
  int prTooMany;             /* more than PLOT_MAX_SERIES lines: no PR plot */
} CmpSec;

/* Operating points: per score, row (all rows first) and criterion. */
typedef struct OpRow {
  char *zScore, *zGroup;     /* zGroup NULL: all rows */
  char *zCrit; double target;  /* target NAN: none */
  char *zPoint;              /* operating_point's JSON, NULL: none */
  int ok;                    /* a point and both classes */
  double threshold, tpr, spec, precision, f1;
  int achieved;
  Ci sens;                   /* the sensitivity's bootstrap interval (sens_at_spec_ci,
                             ** tpr_at_fpr_ci); zJson NULL: none */
} OpRow;
typedef struct OpSec { OpRow *aRow; int nRow; } OpSec;

/* Drift (--drift-ref): per state column (scores, then --prob) and period
** other than the reference, drift_report(reference state, period state). */
typedef struct DriftRow {
  char *zCol, *zPeriod;
  double n;                  /* the period's rows of the column, labelled or not */
  double nLabelled;          /* those with a label (NaN: a drift-only run) */
  double nRef, psi, ks, ksP, wass, meanRef, meanCur, aurocPeriod;
  char *zKsMethod;
  char *zJson;               /* drift_report's JSON (NULL: a period without rows) */
} DriftRow;
/* The summary's drift line: per state column, its worst period. */
typedef struct DriftWorst {
  char *zCol;
  char *zPeriod;             /* NULL: no period with a PSI */
  double psi;                /* the largest PSI over the periods (NAN: none) */
} DriftWorst;
typedef struct DriftSec {
  int on;
  char **azRef; int nRef;    /* the reference periods */
  DriftRow *aRow; int nRow;
  DriftWorst *aWorst; int nWorst;  /* per state column, in the table's order */
  char *zSvg;                /* PSI over the periods (their labels on x), with the 0.1 and 0.25 lines */
  int tooMany;               /* more than PLOT_MAX_XLABELS compared periods: no plot */
} DriftSec;

/* SVD cost (--svd). */
typedef struct SvdRow {
  char *zTarget, *zShape, *zMethod;
  double ms, relErr, corr;
  int rows, cols, rank;
} SvdRow;
typedef struct SvdSec {
  int on, warm;
  SvdRow *aRow; int nRow;
  char *zSvg;
} SvdSec;

/* The Survival section (--time, --event, --horizon; survival.c): each
** function's text as it wrote it, the intervals read from them. */
typedef struct SurvCol {
  const char *zCol;          /* a --score or the --prob column */
  Ci c, auc;                 /* c_index_ci, surv_auroc_ci (zJson their texts) */
  double uno;
  char *zUno, *zAuc;         /* uno_c's value, surv_auroc's (--reps 0) as text */
  char *zKmSvg;              /* plot_km by tertile of the column */
} SurvCol;
typedef struct SurvSec {
  int on;
  int boot;                  /* the intervals are the bootstrap's (rows <= --boot-rows, --reps > 0) */
  sqlite3_int64 rows;        /* rows with a time and an event */
  SurvCol *aCol; int nCol;
  char *zSummary, *zCal, *zDc, *zCalSvg, *zDcSvg;   /* --prob */
  Ci brier;                  /* surv_brier_ci (--prob) */
  char *zDiff;               /* c_index_diff of the first two --score columns */
} SurvSec;

/* Everything the writers read. */
typedef struct Sections {
  char *zVersion;
  Summary sum;
  CurveSec auroc, pr;
  CalSec cal;
  CmpSec cmp;
  OpSec op;
  DriftSec drift;
  SvdSec svd;
  SurvSec surv;
} Sections;

/* ------------------------------------------------------------ options.c */
extern const char *const azOurHead[4];
_Noreturn void die(int code, const char *fmt, ...);
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *z);
void parse_args(Opts *o, int argc, char **argv);
void check_outputs(const Opts *o);

/* ------------------------------------------------------------ sql.c */
sqlite3_stmt *prep(Report *r, const char *zSql);
void step_done(Report *r, sqlite3_stmt *st, int rc);
void exec(Report *r, const char *zSql);
void exec_cols(Report *r, const char *zSql, const char *zOpt, const char *zCol);
char *query_text(Report *r, const char *zSql);
double query_double(Report *r, const char *zJson, const char *zPath);
double col_double(sqlite3_stmt *st, int i);
const char *col_text(sqlite3_stmt *st, int i);
char *col_dup(sqlite3_stmt *st, int i);
const char *too_few(double pos, double neg);
void progress_start(Report *r);
void progress(Report *r, const char *fmt, ...);
int group_index(Report *r, const char *g);

/* ------------------------------------------------------------ csv.c */
int csv_import(sqlite3 *db, const char *zTable, FILE *f, const char *zPath, char **pzErr);

/* ------------------------------------------------------------ input.c */
void open_db(Report *r);
void load_mleval(Report *r);
void check_columns(Report *r);

/* ------------------------------------------------------------ scan.c */
void scan_table(Report *r);
void compute(Report *r);
void drift_resolve(Report *r);
/* A drift-only run (no --label): the rows counted and the --by expression
** set, as scan_table does, without its pass over labelled rows. */
void scan_drift_only(Report *r);
int prob_score(Report *r);
int n_state_cols(Report *r);
const char *state_col(Report *r, int k);
const char *state_opt(Report *r, int k);

/* ------------------------------------------------------------ sections.c */
void sections_compute(Report *r, Sections *s);
void sections_free(Report *r, Sections *s);

/* ------------------------------------------------------------ survival.c */
void survival_compute(Report *r, SurvSec *s);
void survival_free(SurvSec *s);

/* ------------------------------------------------------------ writers */
char *html_write(Report *r, const Sections *s);
char *json_write(Report *r, const Sections *s);
void html_text(sqlite3_str *s, const char *z);

#endif
