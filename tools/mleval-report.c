/*
** mleval-report.c -- the evaluation report of a predictions table as one
** self-contained HTML file (inline SVG and CSS, no script, no network),
** and optionally the same numbers as JSON.
** SPDX-License-Identifier: MIT
**
**   mleval-report DB TABLE --label y --score s [--score s2 ...] [--prob p]
**                 [--by fold] [--svd] [--bins 10] [-o report.html]
**                 [--json result.json]
**
** Rules:
**   1. DB is a SQLite database (recognised by its header) or a CSV file with
**      a header row, imported into an in-memory database as TABLE; a CSV
**      column whose every non-empty field is a number is typed INTEGER or
**      REAL, an empty field is NULL.  A leading UTF-8 byte-order mark is
**      skipped; a NUL byte, an unclosed quote or a record whose field count
**      differs from the header's is an error naming the record.
**   2. Every number comes from mleval's SQL functions (auroc, pr_auc, ece,
**      roc_curve, pr_curve, reliability, svd_bench) and every picture from
**      its plot aggregates: the report is what SQL computes.  The extension
**      is loaded from $MLEVAL_LIB, else next to the program in the build
**      tree (../ext/.libs/mleval), else from the install directory.
**   3. Sections, in order, each a <details> collapsed by default: AUROC, PR
**      curves, Calibration, SVD cost (only with --svd).  A group with fewer
**      than 2 rows of a class gets "not enough positives/negatives" instead
**      of a curve.  Without --prob, calibration uses each score's empirical
**      CDF within its group (rank / n, ties averaged) as a pseudo-probability
**      and says so.  An AUROC below 0.5 is marked "inverted".
**   4. The output is deterministic: no date, no path other than TABLE's name.
**   5. Exit status: 0 done, 2 bad arguments (with usage), 1 any other error
**      (DB unreadable, no such table or column, SQL error), with a message
**      "mleval-report: ..." on stderr.
**
** Cost: per score, one pass of each SQL function over the table per group
** (GROUP BY); the CDF pseudo-probabilities add a sort per score.
*/
#include "config.h"
#include <sqlite3.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <libgen.h>
#include <sys/stat.h>
#include "ml_utf8.h"

#ifndef MLEVAL_EXTDIR
# define MLEVAL_EXTDIR "/usr/local/lib"
#endif

#define MAX_SCORES 16

/* The report's own tables live in the temp schema under names of their own,
** and the user's table is always read as main."TABLE": a predictions table
** named res, grp or _mleval_report_res is never shadowed (SQLite resolves
** an unqualified name in temp first). */
#define T_GRP "temp._mleval_report_grp"
#define T_RES "temp._mleval_report_res"
#define T_CAL "temp._mleval_report_cal"
#define T_CMP "temp._mleval_report_cmp"
#define T_ST "temp._mleval_report_states"
#define MAX_OPS 16
/* Curves of a group with at least this many rows are drawn (and written to
** --json) at this many equal-mass cuts of its ranked rows: gains(y, s, 500). */
#define CURVE_POINTS 500
#define T_SVD_TARGETS "temp._mleval_report_svd_targets"
#define T_SVD_COST "temp._mleval_report_svd_cost"

typedef struct Opts {
  const char *zDb, *zTable, *zLabel, *zProb, *zBy, *zOut, *zJson;
  const char *zOutOpt;   /* how the user spelled the HTML option: "-o" or "--output" */
  const char *azScore[MAX_SCORES];
  int nScore, svd, bins, svdW, svdD, svdIters, force, reps;
  sqlite3_int64 bootRows;  /* --boot-rows: the largest group the PR-AUC bootstrap runs on */
  /* --operating: criteria and targets (NAN: none) */
  const char *azOpCrit[MAX_OPS];
  double aOpTarget[MAX_OPS];
  int nOp;
} Opts;

typedef struct Group {
  char *zName;           /* the --by value as text ("all" without --by) */
  sqlite3_int64 n, pos, neg;
} Group;

typedef struct Report {
  Opts o;
  sqlite3 *db;
  sqlite3_str *html, *json;
  Group *aGroup;
  int nGroup;
  char *zGroupExpr;      /* SQL expression of the group, e.g. "fold" */
  sqlite3_int64 nRow;    /* rows in the table */
} Report;

static const char *zUsage =
  "usage: mleval-report DB TABLE --label COL --score COL [--score COL ...]\n"
  "                     [--prob COL] [--by COL] [--svd] [--bins N]\n"
  "                     [--operating LIST] [--reps N] [--boot-rows M]\n"
  "                     [-o report.html] [--json result.json]\n"
  "\n"
  "Writes the evaluation report of TABLE (AUROC, PR curves, calibration and,\n"
  "with --svd, the SVD cost) as one self-contained HTML file.\n"
  "\n"
  "  DB              a SQLite database, or a CSV file with a header row\n"
  "  TABLE           the predictions table (the name given to a CSV's rows)\n"
  "  --label COL     the 0/1 label column (required)\n"
  "  --score COL     a score column, higher = more positive (required; repeat\n"
  "                  for several models or metrics, at most 16)\n"
  "  --prob COL      a probability column: Brier, log loss, calibration and the\n"
  "                  decision curve (without it there is no calibration section:\n"
  "                  a score is not a probability)\n"
  "  --by COL        group by this column (fold, lookback, source): one curve\n"
  "                  per group\n"
  "  --bins N        reliability bins, 1..1000 (default 10)\n"
  "  --operating L   operating points, comma-separated criteria of\n"
  "                  operating_point(): max_f1, youden, or fpr, specificity,\n"
  "                  sensitivity, precision with :TARGET in (0, 1)\n"
  "                  (default max_f1,youden,specificity:0.95)\n"
  "  --reps N        bootstrap replicates of the PR-AUC intervals, 0 or\n"
  "                  10..100000 (default 1000; 0: no bootstrap, every PR-AUC\n"
  "                  interval by the delta method)\n"
  "  --boot-rows M   the PR-AUC intervals of a group of at most M rows are the\n"
  "                  bootstrap's (pr_auc_ci, pr_auc_diff_ci), of a larger one\n"
  "                  the delta method's (pr_auc_delta_ci, pr_auc_diff_delta)\n"
  "                  (default 20000)\n"
  "  --svd           add the SVD cost section (svd_bench over the shapes of\n"
  "                  sql/svd_targets.sql: w = 128, d_model = 512)\n"
  "  --svd-dims W,D  the shapes' w and d_model (default 128,512)\n"
  "  --svd-iters N   timed iterations per method (default 20; warmup 5)\n"
  "  -o FILE         the HTML report (default report.html)\n"
  "  --json FILE     also write the numbers as JSON\n"
  "  --force         replace an existing -o or --json file that mleval-report\n"
  "                  did not write (the input is never replaced)\n"
  "  --help          this text\n"
  "\n"
  "Environment: MLEVAL_LIB, the extension to load (default: the build tree\n"
  "next to this program, else " MLEVAL_EXTDIR "/mleval).\n";

static void die(int code, const char *fmt, ...){
  va_list ap;
  fprintf(stderr, "mleval-report: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  if( code==2 ) fprintf(stderr, "Try 'mleval-report --help'.\n");
  exit(code);
}

static void *xmalloc(size_t n){
  void *p = malloc(n ? n : 1);
  if( p==0 ) die(1, "out of memory");
  return p;
}
static char *xstrdup(const char *z){
  size_t n = strlen(z);
  char *p = xmalloc(n+1);
  memcpy(p, z, n+1);
  return p;
}

static int parse_int(const char *zOpt, const char *z, int lo, int hi){
  char *end;
  long v;
  errno = 0;
  v = strtol(z, &end, 10);
  if( errno || end==z || *end || v<lo || v>hi ){
    die(2, "%s must be an integer in %d..%d, got '%s'", zOpt, lo, hi, z);
  }
  return (int)v;
}

/* --operating's list "max_f1,youden,specificity:0.95" into o->azOpCrit and
** o->aOpTarget (the text is split in place).  The criteria and their
** targets are operating_point()'s (docs/ranking.md). */
static void parse_operating(Opts *o, char *z){
  static const char *const azNeed[] = {"fpr", "specificity", "sensitivity", "precision"};
  static const char *const azNone[] = {"max_f1", "youden"};
  o->nOp = 0;
  while( z ){
    char *comma = strchr(z, ',');
    char *colon;
    int need = -1;
    size_t j;
    if( comma ) *comma = 0;
    colon = strchr(z, ':');
    if( colon ) *colon = 0;
    for(j=0; j<4; j++) if( strcmp(z, azNeed[j])==0 ) need = 1;
    for(j=0; j<2; j++) if( strcmp(z, azNone[j])==0 ) need = 0;
    if( need<0 ){
      die(2, "--operating: criterion must be one of max_f1, youden, fpr:T, specificity:T, "
             "sensitivity:T, precision:T, got '%s'", z);
    }
    if( o->nOp>=MAX_OPS ) die(2, "--operating: at most %d criteria", MAX_OPS);
    if( need && colon==0 ) die(2, "--operating: %s needs a target in (0, 1), as %s:0.95", z, z);
    if( !need && colon ) die(2, "--operating: %s takes no target, got '%s'", z, colon+1);
    o->azOpCrit[o->nOp] = z;
    o->aOpTarget[o->nOp] = NAN;
    if( need ){
      char *end;
      double t;
      errno = 0;
      t = strtod(colon+1, &end);
      if( errno || end==colon+1 || *end || !(t>0 && t<1) ){
        die(2, "--operating: the target of %s must be a number in (0, 1), got '%s'", z, colon+1);
      }
      o->aOpTarget[o->nOp] = t;
    }
    o->nOp++;
    z = comma ? comma+1 : 0;
  }
}

static void parse_args(Opts *o, int argc, char **argv){
  int i, nPos = 0;
  memset(o, 0, sizeof(*o));
  o->bins = 10; o->reps = 1000; o->bootRows = 20000; o->zOut = "report.html"; o->zOutOpt = "-o"; o->svdW = 128; o->svdD = 512; o->svdIters = 20;
  for(i=1; i<argc; i++){
    const char *a = argv[i];
    const char *v = i+1<argc ? argv[i+1] : 0;
#define NEEDV() do{ if( v==0 ) die(2, "option %s needs a value", a); i++; }while(0)
    if( strcmp(a, "--help")==0 || strcmp(a, "-h")==0 ){ fputs(zUsage, stdout); exit(0); }
    else if( strcmp(a, "--label")==0 ){ NEEDV(); o->zLabel = v; }
    else if( strcmp(a, "--score")==0 ){
      NEEDV();
      if( o->nScore>=MAX_SCORES ) die(2, "at most %d --score options", MAX_SCORES);
      for(int k=0; k<o->nScore; k++){
        if( strcmp(o->azScore[k], v)==0 ) die(2, "--score %s is given twice", v);
      }
      o->azScore[o->nScore++] = v;
    }
    else if( strcmp(a, "--prob")==0 ){ NEEDV(); o->zProb = v; }
    else if( strcmp(a, "--by")==0 ){ NEEDV(); o->zBy = v; }
    else if( strcmp(a, "--bins")==0 ){ NEEDV(); o->bins = parse_int(a, v, 1, 1000); }
    else if( strcmp(a, "--reps")==0 ){
      NEEDV();
      o->reps = parse_int(a, v, 0, 100000);
      if( o->reps>0 && o->reps<10 ) die(2, "--reps must be 0 or an integer in 10..100000, got '%s'", v);
    }
    else if( strcmp(a, "--boot-rows")==0 ){ NEEDV(); o->bootRows = parse_int(a, v, 0, 2000000000); }
    else if( strcmp(a, "--operating")==0 ){ NEEDV(); parse_operating(o, xstrdup(v)); }
    else if( strcmp(a, "--svd")==0 ){ o->svd = 1; }
    else if( strcmp(a, "--svd-dims")==0 ){
      char *comma;
      NEEDV();
      comma = strchr(v, ',');
      if( comma==0 ) die(2, "--svd-dims must be W,D, got '%s'", v);
      *comma = 0;
      o->svdW = parse_int("--svd-dims W", v, 2, 4096);
      o->svdD = parse_int("--svd-dims D", comma+1, 2, 4096);
      o->svd = 1;
    }
    else if( strcmp(a, "--svd-iters")==0 ){ NEEDV(); o->svdIters = parse_int(a, v, 1, 1000); o->svd = 1; }
    else if( strcmp(a, "-o")==0 || strcmp(a, "--output")==0 ){ NEEDV(); o->zOut = v; o->zOutOpt = a; }
    else if( strcmp(a, "--json")==0 ){ NEEDV(); o->zJson = v; }
    else if( strcmp(a, "--force")==0 ){ o->force = 1; }
    else if( a[0]=='-' && a[1] ){ die(2, "unknown option '%s'", a); }
    else if( nPos==0 ){ o->zDb = a; nPos++; }
    else if( nPos==1 ){ o->zTable = a; nPos++; }
    else die(2, "unexpected argument '%s' (DB and TABLE are already given)", a);
#undef NEEDV
  }
  if( o->nOp==0 ){
    static char zDefault[] = "max_f1,youden,specificity:0.95";
    parse_operating(o, zDefault);
  }
  if( nPos<2 ) die(2, "DB and TABLE are required");
  if( o->zLabel==0 ) die(2, "--label is required");
  if( o->nScore==0 ) die(2, "at least one --score is required");
}

/* ------------------------------------------------------------- outputs */

/* The first bytes of every file mleval-report writes (and of the HTML and
** JSON of the versions before the generator mark). */
static const char *const azOurHead[] = {
  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
    "<meta name=\"generator\" content=\"mleval-report\"/>\n",
  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Evaluation report: ",
  "{\"generator\":\"mleval-report\",",
  "{\"mleval_version\":",
};

/* 1 when the regular file zPath begins as a file mleval-report wrote. */
static int written_by_report(const char *zPath){
  char head[256];
  size_t n, k;
  FILE *f = fopen(zPath, "rb");
  if( f==0 ) return 0;
  n = fread(head, 1, sizeof(head), f);
  fclose(f);
  for(k=0; k<sizeof(azOurHead)/sizeof(azOurHead[0]); k++){
    size_t m = strlen(azOurHead[k]);
    if( n>=m && memcmp(head, azOurHead[k], m)==0 ) return 1;
  }
  return 0;
}

/* 1 when paths a and b name one file: the same inode when both exist, the
** same directory (resolved) and name when neither does. */
static int same_file(const char *a, const char *b){
  struct stat sa, sb;
  int ea = stat(a, &sa)==0, eb = stat(b, &sb)==0;
  if( ea && eb ) return sa.st_dev==sb.st_dev && sa.st_ino==sb.st_ino;
  if( ea || eb ) return 0;
  {
    char *ca = xstrdup(a), *cb = xstrdup(b), *da = xstrdup(a), *db = xstrdup(b);
    char ra[PATH_MAX], rb[PATH_MAX];
    int same = strcmp(basename(ca), basename(cb))==0
            && realpath(dirname(da), ra) && realpath(dirname(db), rb) && strcmp(ra, rb)==0;
    free(ca); free(cb); free(da); free(db);
    return same;
  }
}

/* Rules for -o and --json, checked before anything is read or written:
** neither may be the input (not even with --force: the input is only ever
** read), they may not be one file, and an existing regular file that no
** report wrote is replaced only with --force. */
static void check_output(const Opts *o, const char *zOpt, const char *zPath){
  struct stat st;
  if( same_file(zPath, o->zDb) ){
    die(1, "%s %s is the input file %s; refusing to overwrite it", zOpt, zPath, o->zDb);
  }
  if( !o->force && stat(zPath, &st)==0 && S_ISREG(st.st_mode) && !written_by_report(zPath) ){
    die(1, "%s %s exists and was not written by mleval-report; refusing to overwrite it "
           "(--force to replace it)", zOpt, zPath);
  }
}

static void check_outputs(const Opts *o){
  check_output(o, o->zOutOpt, o->zOut);
  if( o->zJson ){
    if( same_file(o->zOut, o->zJson) ) die(1, "%s and --json name the same file %s", o->zOutOpt, o->zJson);
    check_output(o, "--json", o->zJson);
  }
}

/* ------------------------------------------------------------- SQL helpers */

static sqlite3_stmt *prep(Report *r, const char *zSql){
  sqlite3_stmt *st = 0;
  if( sqlite3_prepare_v2(r->db, zSql, -1, &st, 0)!=SQLITE_OK ){
    die(1, "%s\n  in: %s", sqlite3_errmsg(r->db), zSql);
  }
  return st;
}

static void step_done(Report *r, sqlite3_stmt *st, int rc){
  if( rc!=SQLITE_DONE && rc!=SQLITE_ROW ) die(1, "%s", sqlite3_errmsg(r->db));
  (void)st;
}

static void exec(Report *r, const char *zSql){
  char *zErr = 0;
  if( sqlite3_exec(r->db, zSql, 0, 0, &zErr)!=SQLITE_OK ) die(1, "%s", zErr);
}

/* exec() of a query over the label column and one other column (zOpt zCol:
** "--score s1"), whose errors name the option the user gave: a function's
** message "auroc(): y must be 0 or 1, ..." is about the label, any other
** argument ("s", "p") is about zCol. */
static void exec_cols(Report *r, const char *zSql, const char *zOpt, const char *zCol){
  char *zErr = 0;
  if( sqlite3_exec(r->db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    const char *arg = zErr ? strstr(zErr, "(): ") : 0;
    if( arg && strncmp(arg+4, "y ", 2)==0 ) die(1, "--label %s: %s", r->o.zLabel, zErr);
    if( arg ) die(1, "%s %s: %s", zOpt, zCol, zErr);
    die(1, "--label %s, %s %s: %s", r->o.zLabel, zOpt, zCol, zErr ? zErr : "?");
  }
}

/* ------------------------------------------------------------- CSV import */

/* The reader of a CSV file: nul is set when a field held a NUL byte (the
** field would be cut there: a binary file is not a CSV file), unclosed when
** a quoted field ran to the end of the file. */
typedef struct Csv { FILE *f; int nul; int unclosed; } Csv;

/* One field into *pz (malloc'd); returns the character that ended it:
** ',', '\n' or EOF. */
static int csv_field(Csv *c, char **pz, int *pQuoted){
  size_t n = 0, cap = 64;
  char *z = xmalloc(cap);
  int ch = fgetc(c->f);
  *pQuoted = 0;
  if( ch=='"' ){
    *pQuoted = 1;
    for(;;){
      ch = fgetc(c->f);
      if( ch==EOF ){ c->unclosed = 1; break; }
      if( ch==0 ) c->nul = 1;
      if( ch=='"' ){
        ch = fgetc(c->f);
        if( ch!='"' ) break;
      }
      if( n+2>cap ){ cap *= 2; z = realloc(z, cap); if( !z ) die(1, "out of memory"); }
      z[n++] = (char)ch;
    }
  }
  while( ch!=',' && ch!='\n' && ch!=EOF ){
    if( ch==0 ) c->nul = 1;
    if( ch!='\r' ){
      if( n+2>cap ){ cap *= 2; z = realloc(z, cap); if( !z ) die(1, "out of memory"); }
      z[n++] = (char)ch;
    }
    ch = fgetc(c->f);
  }
  z[n] = 0;
  *pz = z;
  return ch;
}

/* One record: its fields into *paz and whether each was quoted into
** *paQuoted (both malloc'd); returns the count, or -1 at the end of the file
** (then *paz and *paQuoted are left as they were). */
static int csv_record(Csv *c, char ***paz, int **paQuoted){
  int n = 0, cap = 16, end;
  char **az;
  int *aq;
  int ch = fgetc(c->f);
  if( ch==EOF ) return -1;
  ungetc(ch, c->f);
  az = xmalloc(sizeof(char*)*cap);
  aq = xmalloc(sizeof(int)*cap);
  do{
    if( n==cap ){
      cap *= 2;
      az = realloc(az, sizeof(char*)*cap); aq = realloc(aq, sizeof(int)*cap);
      if( !az || !aq ) die(1, "out of memory");
    }
    end = csv_field(c, &az[n], &aq[n]);
    n++;
  }while( end==',' );
  *paz = az; *paQuoted = aq;
  return n;
}

/* 0: not a number, 1: an integer, 2: a real. */
static int numeric_kind(const char *z){
  char *end;
  while( *z==' ' ) z++;
  if( *z==0 ) return 0;
  errno = 0;
  (void)strtoll(z, &end, 10);
  while( *end==' ' ) end++;
  if( *end==0 && errno==0 ) return 1;
  (void)strtod(z, &end);
  while( *end==' ' ) end++;
  if( *end==0 && end!=z ) return 2;
  return 0;
}

/* Dies when the record iRec just read held a NUL byte or an unclosed quote. */
static void csv_check(Csv *c, const char *zPath, int iRec){
  if( c->nul ) die(1, "%s: record %d holds a NUL byte (a CSV file is text)", zPath, iRec);
  if( c->unclosed ) die(1, "%s: record %d: a quoted field is not closed before the end of the file", zPath, iRec);
}

static void import_csv(Report *r, const char *zPath){
  Csv c;
  char **azHead = 0, **az;
  int *aq = 0, nCol, i, nRec = 0, capRec = 1024, iRec = 1;
  char ***aRec;
  int *aKind;
  sqlite3_str *sql;
  sqlite3_stmt *st;
  memset(&c, 0, sizeof(c));
  c.f = fopen(zPath, "rb");
  if( c.f==0 ) die(1, "cannot open %s: %s", zPath, strerror(errno));
  {
    /* a UTF-8 byte-order mark (a spreadsheet's "CSV UTF-8") is no part of
    ** the first column's name */
    unsigned char bom[3];
    if( fread(bom, 1, 3, c.f)!=3 || memcmp(bom, "\xef\xbb\xbf", 3)!=0 ) rewind(c.f);
  }
  nCol = csv_record(&c, &azHead, &aq);
  if( nCol<=0 ) die(1, "%s: empty CSV file (a header row is needed)", zPath);
  free(aq);
  csv_check(&c, zPath, iRec);
  if( nCol>sqlite3_limit(r->db, SQLITE_LIMIT_COLUMN, -1) ){
    die(1, "%s: the header has %d columns, more than SQLite's limit of %d", zPath, nCol,
        sqlite3_limit(r->db, SQLITE_LIMIT_COLUMN, -1));
  }
  aRec = xmalloc(sizeof(char**)*capRec);
  aKind = xmalloc(sizeof(int)*nCol);
  for(i=0; i<nCol; i++) aKind[i] = 1;           /* integer until shown otherwise */
  for(;;){
    int n = csv_record(&c, &az, &aq);
    if( n<0 ) break;
    iRec++;
    csv_check(&c, zPath, iRec);
    if( n==1 && az[0][0]==0 && !aq[0] ){ free(az[0]); free(az); free(aq); continue; }  /* blank line */
    if( n!=nCol ){
      die(1, "%s: record %d has %d field%s, the header has %d", zPath, iRec, n, n==1 ? "" : "s", nCol);
    }
    for(i=0; i<nCol; i++){
      if( az[i][0]==0 && !aq[i] ) continue;      /* empty: NULL */
      {
        int k = numeric_kind(az[i]);
        if( k==0 ) aKind[i] = 0;
        else if( k==2 && aKind[i]==1 ) aKind[i] = 2;
      }
    }
    free(aq);
    if( nRec==capRec ){ capRec *= 2; aRec = realloc(aRec, sizeof(char**)*capRec); if( !aRec ) die(1, "out of memory"); }
    aRec[nRec++] = az;
  }
  fclose(c.f);
  sql = sqlite3_str_new(r->db);
  sqlite3_str_appendf(sql, "CREATE TABLE main.\"%w\"(", r->o.zTable);
  for(i=0; i<nCol; i++){
    sqlite3_str_appendf(sql, "%s\"%w\" %s", i ? ", " : "", azHead[i],
                        aKind[i]==1 ? "INTEGER" : aKind[i]==2 ? "REAL" : "TEXT");
  }
  sqlite3_str_appendall(sql, ")");
  {
    char *z = sqlite3_str_finish(sql);
    exec(r, z);
    sqlite3_free(z);
  }
  sql = sqlite3_str_new(r->db);
  sqlite3_str_appendf(sql, "INSERT INTO main.\"%w\" VALUES(", r->o.zTable);
  for(i=0; i<nCol; i++) sqlite3_str_appendall(sql, i ? ",?" : "?");
  sqlite3_str_appendall(sql, ")");
  {
    char *z = sqlite3_str_finish(sql);
    st = prep(r, z);
    sqlite3_free(z);
  }
  exec(r, "BEGIN");
  for(int k=0; k<nRec; k++){
    for(i=0; i<nCol; i++){
      const char *f = aRec[k][i];
      if( f[0]==0 ) sqlite3_bind_null(st, i+1);
      else if( aKind[i]==1 ) sqlite3_bind_int64(st, i+1, strtoll(f, 0, 10));
      else if( aKind[i]==2 ) sqlite3_bind_double(st, i+1, strtod(f, 0));
      else sqlite3_bind_text(st, i+1, f, -1, SQLITE_TRANSIENT);
    }
    step_done(r, st, sqlite3_step(st));
    sqlite3_reset(st);
    for(i=0; i<nCol; i++) free(aRec[k][i]);
    free(aRec[k]);
  }
  exec(r, "COMMIT");
  sqlite3_finalize(st);
  for(i=0; i<nCol; i++) free(azHead[i]);
  free(azHead); free(aRec); free(aKind);
}

/* DB as a database (by its header) or a CSV file.  A 0-byte file is
** either an empty database (what `sqlite3 fresh.db "select 1"` leaves) or
** an empty CSV file: its name decides which the message says.  A database
** is read once here, so that a locked or corrupt one says so at once. */
static void open_db(Report *r){
  FILE *f = fopen(r->o.zDb, "rb");
  char head[16];
  size_t nHead;
  int isDb;
  if( f==0 ) die(1, "cannot open %s: %s", r->o.zDb, strerror(errno));
  nHead = fread(head, 1, 16, f);
  if( ferror(f) ) die(1, "cannot read %s: %s", r->o.zDb, strerror(errno));
  fclose(f);
  isDb = nHead==16 && memcmp(head, "SQLite format 3", 16)==0;
  if( nHead==0 ){
    size_t n = strlen(r->o.zDb);
    if( n<4 || sqlite3_stricmp(r->o.zDb+n-4, ".csv")!=0 ){
      die(1, "%s: empty file: not a database or an empty one (a CSV file needs a header row)", r->o.zDb);
    }
  }
  if( isDb ){
    sqlite3_stmt *st = 0;
    int rc;
    if( sqlite3_open_v2(r->o.zDb, &r->db, SQLITE_OPEN_READONLY, 0)!=SQLITE_OK ){
      die(1, "cannot open %s: %s", r->o.zDb, sqlite3_errmsg(r->db));
    }
    rc = sqlite3_prepare_v2(r->db, "SELECT count(*) FROM main.sqlite_schema", -1, &st, 0);
    if( rc==SQLITE_OK ) rc = sqlite3_step(st);
    if( rc!=SQLITE_ROW ) die(1, "cannot read %s: %s", r->o.zDb, sqlite3_errmsg(r->db));
    sqlite3_finalize(st);
  }else{
    if( sqlite3_open(":memory:", &r->db)!=SQLITE_OK ) die(1, "cannot open an in-memory database");
    import_csv(r, r->o.zDb);
  }
}

/* ------------------------------------------------------------- extension */

static int try_load(Report *r, const char *zPath, char **pzErr){
  char *zErr = 0;
  if( sqlite3_load_extension(r->db, zPath, 0, &zErr)==SQLITE_OK ) return 1;
  if( pzErr && *pzErr==0 ) *pzErr = sqlite3_mprintf("%s: %s", zPath, zErr ? zErr : "?");
  sqlite3_free(zErr);
  return 0;
}

static void load_mleval(Report *r){
  char zExe[PATH_MAX], *zErr = 0;
  ssize_t n;
  sqlite3_enable_load_extension(r->db, 1);
  if( getenv("MLEVAL_LIB") && getenv("MLEVAL_LIB")[0] ){
    if( try_load(r, getenv("MLEVAL_LIB"), &zErr) ) goto loaded;
    die(1, "cannot load the mleval extension from MLEVAL_LIB=%s", zErr);
  }
  n = readlink("/proc/self/exe", zExe, sizeof(zExe)-1);
  if( n>0 ){
    char *slash, *zTry;
    zExe[n] = 0;
    slash = strrchr(zExe, '/');
    if( slash ){
      *slash = 0;
      static const char *const azRel[] = {
        "%s/../ext/.libs/mleval",     /* the build tree: tools/mleval-report */
        "%s/../lib/mleval",           /* an install moved as a whole */
      };
      size_t j;
      for(j=0; j<sizeof(azRel)/sizeof(azRel[0]); j++){
        char *zSo;
        int ok;
        zTry = sqlite3_mprintf(azRel[j], zExe);
        zSo = sqlite3_mprintf("%s.so", zTry);
        ok = zTry && zSo && access(zSo, R_OK)==0 && try_load(r, zTry, &zErr);
        sqlite3_free(zSo);
        sqlite3_free(zTry);
        if( ok ) goto loaded;
      }
    }
  }
  if( try_load(r, MLEVAL_EXTDIR "/mleval", &zErr) ) goto loaded;
  die(1, "cannot load the mleval extension (%s); set MLEVAL_LIB to its path", zErr ? zErr : "not found");
loaded:
  sqlite3_free(zErr);
  sqlite3_enable_load_extension(r->db, 0);
}

/* ------------------------------------------------------------- output helpers */

/* Text into HTML (or an attribute): & < > " ' escaped, ill-formed UTF-8 and
** characters XML 1.0 forbids (U+FFFE, U+FFFF, controls) written as U+FFFD,
** so the page stays well-formed UTF-8 and XML whatever the names are. */
static void html_text(sqlite3_str *s, const char *z){
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

/* The shortest %.{15,16,17}g text that reads back as d (the program never
** calls setlocale, so '.' is the decimal point); null when not finite. */
static void json_num(sqlite3_str *s, double d){
  char buf[40];
  int p;
  if( !isfinite(d) ){ sqlite3_str_appendall(s, "null"); return; }
  for(p=15; p<=17; p++){
    snprintf(buf, sizeof(buf), "%.*g", p, d);
    if( strtod(buf, 0)==d ) break;
  }
  sqlite3_str_appendall(s, buf);
}

/* A JSON string: quote, backslash and controls escaped, ill-formed UTF-8 as
** U+FFFD (the same rule as the extension's JSON writer, ml_json.c). */
static void json_str(sqlite3_str *s, const char *z){
  sqlite3_str_appendchar(s, 1, '"');
  while( z && *z ){
    unsigned char c = (unsigned char)*z;
    unsigned cp;
    int k;
    if( c=='"' || c=='\\' ){ sqlite3_str_appendf(s, "\\%c", c); z++; continue; }
    if( c<0x20 ){ sqlite3_str_appendf(s, "\\u%04x", c); z++; continue; }
    k = ml_utf8_char(z, &cp);
    if( k<0 ){ sqlite3_str_appendall(s, ML_UTF8_REPLACEMENT); z += -k; }
    else{ sqlite3_str_append(s, z, k); z += k; }
  }
  sqlite3_str_appendchar(s, 1, '"');
}

static void fmt3(char *buf, double d){
  if( isfinite(d) ) snprintf(buf, 32, "%.3f", d);
  else snprintf(buf, 32, "n/a");
}

/* Appends an SVG without its XML declaration (inline SVG in HTML). */
static void html_svg(sqlite3_str *s, const char *zSvg){
  const char *p;
  if( zSvg==0 ) return;
  p = strstr(zSvg, "<svg");
  sqlite3_str_appendall(s, "<figure>");
  sqlite3_str_appendall(s, p ? p : zSvg);
  sqlite3_str_appendall(s, "</figure>\n");
}

/* ------------------------------------------------------------- groups */

static void check_columns(Report *r){
  const char *azCol[MAX_SCORES+3];
  const char *azRole[MAX_SCORES+3];
  int n = 0, i;
  sqlite3_stmt *st;
  int found = 0;
  st = prep(r, "SELECT name FROM pragma_table_info(?1, 'main')");
  sqlite3_bind_text(st, 1, r->o.zTable, -1, SQLITE_STATIC);
  while( sqlite3_step(st)==SQLITE_ROW ) found++;
  sqlite3_finalize(st);
  if( found==0 ) die(1, "no table '%s' in %s", r->o.zTable, r->o.zDb);
  azCol[n] = r->o.zLabel; azRole[n++] = "--label";
  for(i=0; i<r->o.nScore; i++){ azCol[n] = r->o.azScore[i]; azRole[n++] = "--score"; }
  if( r->o.zProb ){ azCol[n] = r->o.zProb; azRole[n++] = "--prob"; }
  if( r->o.zBy ){ azCol[n] = r->o.zBy; azRole[n++] = "--by"; }
  for(i=0; i<n; i++){
    int ok = 0;
    sqlite3_str *cols = sqlite3_str_new(r->db);
    st = prep(r, "SELECT name FROM pragma_table_info(?1, 'main')");
    sqlite3_bind_text(st, 1, r->o.zTable, -1, SQLITE_STATIC);
    while( sqlite3_step(st)==SQLITE_ROW ){
      const char *z = (const char*)sqlite3_column_text(st, 0);
      if( sqlite3_stricmp(z, azCol[i])==0 ) ok = 1;
      sqlite3_str_appendf(cols, "%s%s", sqlite3_str_length(cols) ? ", " : "", z);
    }
    sqlite3_finalize(st);
    if( !ok ){
      char *z = sqlite3_str_finish(cols);
      die(1, "%s %s: no such column in %s (its columns: %s)", azRole[i], azCol[i], r->o.zTable, z);
    }
    sqlite3_free(sqlite3_str_finish(cols));
  }
}

/* Rows of (group, y, x) for the column zCol, NULLs left out: the FROM
** clause every section's queries read. */
static char *base_from(Report *r, const char *zCol){
  return sqlite3_mprintf("(SELECT coalesce(CAST(%s AS TEXT), 'NULL') AS g, \"%w\" AS y, \"%w\" AS x"
                         " FROM main.\"%w\" WHERE \"%w\" IS NOT NULL AND \"%w\" IS NOT NULL)",
                         r->zGroupExpr, r->o.zLabel, zCol, r->o.zTable, r->o.zLabel, zCol);
}

/* The index of the score that --prob names (the same column), else -1. */
static int prob_score(Report *r){
  int k;
  if( r->o.zProb==0 ) return -1;
  for(k=0; k<r->o.nScore; k++) if( sqlite3_stricmp(r->o.azScore[k], r->o.zProb)==0 ) return k;
  return -1;
}

/* The columns the report keeps a state of: the scores, then --prob (index
** nScore) unless it is one of the scores, whose state it shares. */
static int n_state_cols(Report *r){ return r->o.nScore + (r->o.zProb && prob_score(r)<0 ? 1 : 0); }
static const char *state_col(Report *r, int k){ return k<r->o.nScore ? r->o.azScore[k] : r->o.zProb; }

/* One pass over the table, one sort of its labelled rows by group: the
** groups (in the order of their values, not their text: fold 2 before 10),
** their rows, positives and negatives, and per group a partial state of
** every score column and of --prob (ml_state: docs/states.md) with that
** column's counts, into T_GRP and T_ST (k: the column's index, gn: the
** group's labelled rows).  Every later number reads the states, which give
** the rows' results bit for bit; all rows' state is the groups' merge.
** A failing pass is re-run column by column, so that its error names the
** option the user gave. */
static void scan_table(Report *r){
  sqlite3_str *q = sqlite3_str_new(r->db);
  sqlite3_stmt *st, *ins, *insg;
  char *zSql;
  int nCol = n_state_cols(r), k, rc, cap = 16;
  const char *zY = r->o.zLabel;
  r->zGroupExpr = r->o.zBy ? sqlite3_mprintf("\"%w\"", r->o.zBy) : sqlite3_mprintf("'all'");
  zSql = sqlite3_mprintf("SELECT count(*) FROM main.\"%w\"", r->o.zTable);
  st = prep(r, zSql);
  sqlite3_free(zSql);
  if( sqlite3_step(st)==SQLITE_ROW ) r->nRow = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_str_appendf(q, "SELECT coalesce(CAST(%s AS TEXT), 'NULL'), count(*), sum(\"%w\" = 1), sum(\"%w\" = 0)",
                      r->zGroupExpr, zY, zY);
  for(k=0; k<nCol; k++){
    const char *x = state_col(r, k);
    sqlite3_str_appendf(q, ", count(\"%w\"), sum(\"%w\" = 1 AND \"%w\" IS NOT NULL), sum(\"%w\" = 0 AND \"%w\" IS NOT NULL),"
                        " ml_state(\"%w\", \"%w\")", x, zY, x, zY, x, zY, x);
  }
  sqlite3_str_appendf(q, " FROM main.\"%w\" WHERE \"%w\" IS NOT NULL GROUP BY 1 ORDER BY min(%s)",
                      r->o.zTable, zY, r->zGroupExpr);
  zSql = sqlite3_str_finish(q);
  if( sqlite3_prepare_v2(r->db, zSql, -1, &st, 0)!=SQLITE_OK ) die(1, "%s\n  in: %s", sqlite3_errmsg(r->db), zSql);
  exec(r, "CREATE TABLE " T_GRP "(g TEXT PRIMARY KEY, idx INT, n INT)");
  exec(r, "CREATE TABLE " T_ST "(k INT, g TEXT, gn INT, n INT, pos INT, neg INT, st BLOB)");
  insg = prep(r, "INSERT INTO " T_GRP " VALUES (?1, ?2, ?3)");
  ins = prep(r, "INSERT INTO " T_ST " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  r->aGroup = xmalloc(sizeof(Group)*cap);
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    Group *g;
    if( r->nGroup==cap ){ cap *= 2; r->aGroup = realloc(r->aGroup, sizeof(Group)*cap); if( !r->aGroup ) die(1, "out of memory"); }
    g = &r->aGroup[r->nGroup];
    g->zName = xstrdup((const char*)sqlite3_column_text(st, 0));
    g->n = sqlite3_column_int64(st, 1);
    g->pos = sqlite3_column_int64(st, 2);
    g->neg = sqlite3_column_int64(st, 3);
    sqlite3_bind_text(insg, 1, g->zName, -1, SQLITE_STATIC);
    sqlite3_bind_int(insg, 2, r->nGroup);
    sqlite3_bind_int64(insg, 3, g->n);
    step_done(r, insg, sqlite3_step(insg));
    sqlite3_reset(insg);
    for(k=0; k<nCol; k++){
      int c = 4 + 4*k;
      sqlite3_bind_int(ins, 1, k);
      sqlite3_bind_text(ins, 2, g->zName, -1, SQLITE_STATIC);
      sqlite3_bind_int64(ins, 3, g->n);
      sqlite3_bind_value(ins, 4, sqlite3_column_value(st, c));
      sqlite3_bind_value(ins, 5, sqlite3_column_value(st, c+1));
      sqlite3_bind_value(ins, 6, sqlite3_column_value(st, c+2));
      sqlite3_bind_value(ins, 7, sqlite3_column_value(st, c+3));
      step_done(r, ins, sqlite3_step(ins));
      sqlite3_reset(ins);
    }
    r->nGroup++;
  }
  if( rc!=SQLITE_DONE ){
    char *zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
    sqlite3_finalize(st);
    for(k=0; k<nCol; k++){
      char *zFrom = base_from(r, state_col(r, k));
      char *zOne = sqlite3_mprintf("SELECT ml_state(y, x) FROM %s GROUP BY g", zFrom);
      exec_cols(r, zOne, k<r->o.nScore ? "--score" : "--prob", state_col(r, k));
      sqlite3_free(zOne);
      sqlite3_free(zFrom);
    }
    die(1, "%s", zErr);
  }
  sqlite3_finalize(st);
  sqlite3_finalize(ins);
  sqlite3_finalize(insg);
  sqlite3_free(zSql);
  /* all rows' state: the groups' merge (no second sort); one group's state
  ** is all rows' as it is */
  for(k=0; k<nCol; k++){
    zSql = sqlite3_mprintf("INSERT INTO " T_ST " SELECT %d, NULL, sum(gn), sum(n), sum(pos), sum(neg), %s FROM " T_ST
                           " WHERE k = %d", k, r->o.zBy ? "ml_merge(st)" : "max(st)", k);
    exec(r, zSql);
    sqlite3_free(zSql);
  }
  if( !r->o.zBy ) exec(r, "DELETE FROM " T_ST " WHERE g IS NOT NULL");
}

/* The groups of a column with fewer than 2 rows of a class, as a note. */
static const char *too_few(sqlite3_int64 pos, sqlite3_int64 neg){
  if( pos<2 ) return "not enough positives";
  if( neg<2 ) return "not enough negatives";
  return 0;
}

/* Calibration needs probabilities: only --prob has a calibration column. */
static int n_calib(Report *r){ return r->o.zProb ? 1 : 0; }
static const char *calib_col(Report *r, int k){ (void)k; return r->o.zProb; }

/* operating_point() calls for --operating, as one JSON array per group. */
static char *ops_sql(Report *r, const char *zY, const char *zX){
  sqlite3_str *q = sqlite3_str_new(r->db);
  int j;
  sqlite3_str_appendall(q, "json_array(");
  for(j=0; j<r->o.nOp; j++){
    sqlite3_str_appendf(q, "%soperating_point(%s%s%s, %Q", j ? ", " : "", zY, zX[0] ? ", " : "", zX, r->o.azOpCrit[j]);
    if( isfinite(r->o.aOpTarget[j]) ) sqlite3_str_appendf(q, ", %!.17g", r->o.aOpTarget[j]);
    sqlite3_str_appendall(q, ")");
  }
  sqlite3_str_appendall(q, ")");
  return sqlite3_str_finish(q);
}


/* Curves of groups with CURVE_POINTS rows or more, from their gains() JSON:
** the ROC point (FPR, TPR) and the PR point (recall, precision) at each
** equal-mass cut of the rows ranked by score (ties counted with their
** positive fraction, as gains does), the ROC from (0, 0); gains writes a
** rate of 1 as the integer 1, hence the casts (no integer division); rounding that
** would step outside [0, 1] is clamped. */
static void curves_from_gains(Report *r){
  exec(r,
    "UPDATE " T_RES " SET"
    " roc = (SELECT json_group_array(json_object('fpr', fpr, 'tpr', tpr)) FROM ("
    "   SELECT -1 AS k, 0.0 AS fpr, 0.0 AS tpr UNION ALL"
    "   SELECT key, max(0.0, min(1.0, (sum(value ->> 'n') OVER w - CAST(value ->> 'cum_positive_rate' AS REAL) * pos) / neg)),"
    "          max(0.0, min(1.0, CAST(value ->> 'cum_positive_rate' AS REAL)))"
    "   FROM json_each(gains) WINDOW w AS (ORDER BY key) ORDER BY k)),"
    " pr = (SELECT json_group_array(json_object('recall', rec, 'precision', prec)) FROM ("
    "   SELECT key AS k, max(0.0, min(1.0, CAST(value ->> 'cum_positive_rate' AS REAL))) AS rec,"
    "          max(0.0, min(1.0, CAST(value ->> 'cum_positive_rate' AS REAL) * pos / sum(value ->> 'n') OVER w)) AS prec"
    "   FROM json_each(gains) WINDOW w AS (ORDER BY key) ORDER BY k))"
    " WHERE gains IS NOT NULL");
}

/* A PR-AUC interval (zBoot pr_auc_ci, zDelta pr_auc_delta_ci) or paired
** test (pr_auc_diff_ci, pr_auc_diff_delta) of zArgs: the bootstrap's where
** zSmall holds -- a group of at most --boot-rows rows -- the delta method's
** elsewhere, and everywhere with --reps 0 or --boot-rows 0.  An aggregate's
** FILTER keeps the other from running. */
static char *interval_sql(Report *r, const char *zBoot, const char *zDelta, const char *zArgs, const char *zSmall){
  if( r->o.reps==0 || r->o.bootRows==0 ) return sqlite3_mprintf("%s(%s)", zDelta, zArgs);
  return sqlite3_mprintf("coalesce(%s(%s, 0.95, %d, 0) FILTER (WHERE %s), %s(%s) FILTER (WHERE NOT (%s)))",
                         zBoot, zArgs, r->o.reps, zSmall, zDelta, zArgs, zSmall);
}

/* The score k's numbers from its states (auroc and pr_auc are their
** intervals' estimates, the same doubles: auroc_ci's is auroc's, pr_auc_ci's
** and pr_auc_delta_ci's pr_auc's; one reading of the state fewer each): res
** holds per group that has rows of the score (as the rows' GROUP BY had),
** and in the
** overall row with g NULL, the counts, auroc, pr_auc, their intervals, the
** operating points and both curves.  A function given a state is an
** aggregate over states: GROUP BY rowid evaluates each state alone.  The
** curves come from roc_curve and pr_curve for groups under CURVE_POINTS
** rows, else from gains(y, s, 500): a full curve of 10^6 points costs more
** than the rest of the report. */
static void compute_score(Report *r, int k){
  const char *zCol = r->o.azScore[k];
  char *zOps = ops_sql(r, "st", "");
  char *zSmall = sqlite3_mprintf("gn <= %lld", (long long)r->o.bootRows);
  char *zPrci = interval_sql(r, "pr_auc_ci", "pr_auc_delta_ci", "st", zSmall);
  char *zSql = sqlite3_mprintf(
    "INSERT INTO " T_RES "(col, g, n, pos, neg, auroc, pr_auc, auroc_ci, pr_auc_ci, ops)"
    " SELECT %Q, g, n, pos, neg, ac ->> '$.estimate', pc ->> '$.estimate', ac, pc, ops FROM ("
    "  SELECT rowid AS id, g, n, pos, neg, auroc_ci(st) AS ac, %s AS pc, %s AS ops"
    "  FROM " T_ST " WHERE k = %d AND (g IS NULL OR n > 0) GROUP BY rowid)"
    " ORDER BY g IS NOT NULL, id",
    zCol, zPrci, zOps, k);
  exec_cols(r, zSql, "--score", zCol);
  sqlite3_free(zSql);
  /* curves: the exact ones of small groups, gains' cuts of large ones */
  zSql = sqlite3_mprintf(
    "UPDATE " T_RES " SET (roc, pr) = (SELECT roc_curve(s.st), pr_curve(s.st) FROM " T_ST " s"
    " WHERE s.k = %d AND s.g IS " T_RES ".g) WHERE col = %Q AND n < %d AND pos >= 2 AND neg >= 2;"
    "UPDATE " T_RES " SET gains = (SELECT gains(s.st, %d) FROM " T_ST " s WHERE s.k = %d AND s.g IS " T_RES ".g)"
    " WHERE col = %Q AND n >= %d AND pos >= 1",
    k, zCol, CURVE_POINTS, CURVE_POINTS, k, zCol, CURVE_POINTS);
  exec_cols(r, zSql, "--score", zCol);
  sqlite3_free(zSql);
  if( !r->o.zBy ){
    zSql = sqlite3_mprintf("INSERT INTO " T_RES " SELECT col, 'all', n, pos, neg, auroc, pr_auc, auroc_ci,"
                           " pr_auc_ci, ops, gains, roc, pr FROM " T_RES " WHERE col = %Q", zCol);
    exec(r, zSql);
    sqlite3_free(zSql);
  }
  sqlite3_free(zOps); sqlite3_free(zPrci); sqlite3_free(zSmall);
}

/* Rows of (group, y, a, b) where the label and both scores are set. */
static char *pair_from(Report *r, const char *zA, const char *zB){
  return sqlite3_mprintf("(SELECT coalesce(CAST(%s AS TEXT), 'NULL') AS g, \"%w\" AS y, \"%w\" AS a, \"%w\" AS b"
                         " FROM main.\"%w\" WHERE \"%w\" IS NOT NULL AND \"%w\" IS NOT NULL AND \"%w\" IS NOT NULL)",
                         r->zGroupExpr, r->o.zLabel, zA, zB, r->o.zTable, r->o.zLabel, zA, zB);
}

/* Calibration of --prob from its states (cal: per group and overall, ece,
** reliability, brier, log_loss, calibration_summary, and over all rows the
** decision curve).  A state holds the rows' p, and the calibration
** functions check them there; should one fail, the rows' own query names
** the row in its error. */
static void compute_calibration(Report *r){
  int k = prob_score(r) >= 0 ? prob_score(r) : r->o.nScore;
  char *zSql = sqlite3_mprintf(
    "INSERT INTO " T_CAL " SELECT %Q, g, n, pos, neg, ece(st, %d), reliability(st, %d), brier(st), log_loss(st),"
    " calibration_summary(st), decision_curve(st) FILTER (WHERE g IS NULL)"
    " FROM " T_ST " WHERE k = %d AND (g IS NULL OR n > 0) GROUP BY rowid ORDER BY g IS NOT NULL, rowid",
    r->o.zProb, r->o.bins, r->o.bins, k);
  char *zErr = 0;
  if( sqlite3_exec(r->db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    char *zFrom = base_from(r, r->o.zProb);
    char *zRows = sqlite3_mprintf("SELECT ece(y, x, %d), reliability(y, x, %d), brier(y, x), log_loss(y, x),"
                                  " calibration_summary(y, x) FROM %s", r->o.bins, r->o.bins, zFrom);
    exec_cols(r, zRows, "--prob", r->o.zProb);
    die(1, "--prob %s: %s", r->o.zProb, zErr ? zErr : "?");
  }
  sqlite3_free(zSql);
  if( !r->o.zBy ){
    exec(r, "INSERT INTO " T_CAL " SELECT col, 'all', n, pos, neg, ece, rel, brier, log_loss, summary, NULL"
            " FROM " T_CAL " WHERE g IS NULL");
  }
}

static void compute(Report *r){
  int k, j, i;
  sqlite3_int64 nAll = 0;        /* labelled rows: the size of the all-rows group */
  exec(r, "CREATE TABLE " T_RES "(col TEXT, g TEXT, n INT, pos INT, neg INT, auroc REAL, pr_auc REAL,"
          " auroc_ci TEXT, pr_auc_ci TEXT, ops TEXT, gains TEXT, roc TEXT, pr TEXT)");
  exec(r, "CREATE TABLE " T_CAL "(col TEXT, g TEXT, n INT, pos INT, neg INT, ece REAL, rel TEXT,"
          " brier REAL, log_loss REAL, summary TEXT, dcurve TEXT)");
  exec(r, "CREATE TABLE " T_CMP "(a TEXT, b TEXT, g TEXT, n INT, pos INT, neg INT, auroc_diff TEXT, pr_diff TEXT)");
  for(i=0; i<r->nGroup; i++) nAll += r->aGroup[i].n;
  for(k=0; k<r->o.nScore; k++) compute_score(r, k);
  curves_from_gains(r);
  /* pairs of scores: the rows themselves (a state holds one score) */
  for(k=0; k<r->o.nScore; k++) for(j=k+1; j<r->o.nScore; j++){
    int overall;
    for(overall=0; overall<=(r->o.zBy ? 1 : 0); overall++){
      int whole = overall || !r->o.zBy;
      char *zFrom = pair_from(r, r->o.azScore[k], r->o.azScore[j]);
      char *zSmall, *zPr, *zSql;
      zSmall = whole ? sqlite3_mprintf("%d", nAll <= r->o.bootRows)
                     : sqlite3_mprintf("g IN (SELECT g FROM " T_GRP " WHERE n <= %lld)", (long long)r->o.bootRows);
      zPr = interval_sql(r, "pr_auc_diff_ci", "pr_auc_diff_delta", "y, a, b", zSmall);
      zSql = sqlite3_mprintf(
        "INSERT INTO " T_CMP " SELECT %Q, %Q, %s, count(*), sum(y = 1), sum(y = 0), auroc_diff(y, a, b), %s"
        " FROM %s %s", r->o.azScore[k], r->o.azScore[j], whole ? "NULL" : "g", zPr, zFrom,
        whole ? "" : "GROUP BY g");
      exec_cols(r, zSql, "--score", r->o.azScore[k]);
      sqlite3_free(zSql); sqlite3_free(zFrom); sqlite3_free(zPr); sqlite3_free(zSmall);
    }
  }
  if( r->o.zProb ) compute_calibration(r);
}

/* Per (column, group): n, positives, negatives among the rows where the
** column is not NULL, from res or cal. */
typedef struct Counts { sqlite3_int64 n, pos, neg; } Counts;

static int group_index(Report *r, const char *g){
  int i;
  for(i=0; i<r->nGroup && strcmp(r->aGroup[i].zName, g)!=0; i++){}
  return i;
}

static Counts *count_rows(Report *r, const char *zTab, const char *zCol){
  Counts *a = xmalloc(sizeof(Counts)*(r->nGroup+1));
  char *zSql = sqlite3_mprintf("SELECT g, n, pos, neg FROM %s WHERE col = %Q AND g IS NOT NULL", zTab, zCol);
  sqlite3_stmt *st = prep(r, zSql);
  memset(a, 0, sizeof(Counts)*(r->nGroup+1));
  while( sqlite3_step(st)==SQLITE_ROW ){
    int i = group_index(r, (const char*)sqlite3_column_text(st, 0));
    a[i].n = sqlite3_column_int64(st, 1);
    a[i].pos = sqlite3_column_int64(st, 2);
    a[i].neg = sqlite3_column_int64(st, 3);
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  return a;
}

/* The doubles of one result column by group; NaN where NULL, or where the
** group has too few of a class and needBoth is set. */
static double *per_group(Report *r, const char *zTab, const char *zField, const char *zCol, int needBoth){
  double *a = xmalloc(sizeof(double)*(r->nGroup+1));
  char *zSql = sqlite3_mprintf("SELECT g, %s, pos, neg FROM %s WHERE col = %Q AND g IS NOT NULL", zField, zTab, zCol);
  sqlite3_stmt *st = prep(r, zSql);
  int i;
  for(i=0; i<r->nGroup; i++) a[i] = NAN;
  while( sqlite3_step(st)==SQLITE_ROW ){
    i = group_index(r, (const char*)sqlite3_column_text(st, 0));
    if( sqlite3_column_type(st, 1)!=SQLITE_NULL
     && !(needBoth && too_few(sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3))) ){
      a[i] = sqlite3_column_double(st, 1);
    }
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  return a;
}

/* One SVG from a query returning one text value (NULL when nothing to draw). */
static char *query_text(Report *r, const char *zSql){
  sqlite3_stmt *st = prep(r, zSql);
  char *z = 0;
  int rc = sqlite3_step(st);
  step_done(r, st, rc);
  if( rc==SQLITE_ROW && sqlite3_column_type(st, 0)!=SQLITE_NULL ){
    z = xstrdup((const char*)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  return z;
}

/* "key":{"group":JSON or null, ...} from a text field of res or cal. */
static void json_texts(Report *r, const char *zKey, const char *zTab, const char *zField, const char *zCol,
                       int needBoth){
  char *zSql = sqlite3_mprintf("SELECT t.g, t.%s, t.pos, t.neg FROM %s t JOIN " T_GRP " grp USING (g)"
                               " WHERE t.col = %Q ORDER BY grp.idx", zField, zTab, zCol);
  sqlite3_stmt *st = prep(r, zSql);
  int first = 1, rc;
  sqlite3_str_appendf(r->json, "\"%s\":{", zKey);
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    const char *c = (const char*)sqlite3_column_text(st, 1);
    if( needBoth && too_few(sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)) ) c = 0;
    if( !first ) sqlite3_str_appendchar(r->json, 1, ',');
    first = 0;
    json_str(r->json, (const char*)sqlite3_column_text(st, 0));
    sqlite3_str_appendf(r->json, ":%s", c ? c : "null");
  }
  step_done(r, st, rc);
  sqlite3_str_appendall(r->json, "}");
  sqlite3_finalize(st);
  sqlite3_free(zSql);
}

/* The groups without a curve, as a list under the plot. */
static int html_missing(Report *r, const Counts *cnt){
  int i, n = 0;
  for(i=0; i<r->nGroup; i++){
    const char *why = too_few(cnt[i].pos, cnt[i].neg);
    if( why==0 ) continue;
    if( n++==0 ) sqlite3_str_appendall(r->html, "<ul class=\"missing\">\n");
    sqlite3_str_appendall(r->html, "<li>");
    html_text(r->html, r->aGroup[i].zName);
    sqlite3_str_appendf(r->html, ": %s (%lld positive%s, %lld negative%s): no curve</li>\n", why,
                        cnt[i].pos, cnt[i].pos==1 ? "" : "s", cnt[i].neg, cnt[i].neg==1 ? "" : "s");
  }
  if( n ) sqlite3_str_appendall(r->html, "</ul>\n");
  return n;
}

/* A series' name in a plot: "fold 3" with --by fold, else "all". */
static char *series_expr(Report *r){
  return r->o.zBy ? sqlite3_mprintf("(%Q || ' ' || g)", r->o.zBy) : sqlite3_mprintf("g");
}

/* A plot of one column's groups (those with enough of both classes for a
** curve), in the groups' order. */
static char *plot_query(Report *r, const char *zPlot, const char *zTab, const char *zField,
                        const char *zCol, int needBoth, const char *zTitle){
  char *zSeries = series_expr(r);
  char *zSql = sqlite3_mprintf(
    "SELECT %s(%s, c, %Q) FROM (SELECT t.g AS g, t.%s AS c FROM %s t JOIN " T_GRP " grp USING (g)"
    " WHERE t.col = %Q%s ORDER BY grp.idx)",
    zPlot, zSeries, zTitle, zField, zTab, zCol, needBoth ? " AND t.pos >= 2 AND t.neg >= 2" : "");
  char *z = query_text(r, zSql);
  sqlite3_free(zSeries);
  sqlite3_free(zSql);
  return z;
}

/* A table's opening and head: <table> (with class zClass, or none), the
** leading header cells zLead, the grouping column named as --by names it,
** then the cells zCols. */
static void table_open(Report *r, const char *zClass, const char *zLead, const char *zCols){
  if( zClass ) sqlite3_str_appendf(r->html, "<table class=\"%s\">\n", zClass);
  else sqlite3_str_appendall(r->html, "<table>\n");
  sqlite3_str_appendf(r->html, "<thead><tr>%s<th>", zLead);
  html_text(r->html, r->o.zBy ? r->o.zBy : "group");
  sqlite3_str_appendf(r->html, "</th>%s</tr></thead>\n<tbody>\n", zCols);
}
static void table_head(Report *r, const char *zCols){
  table_open(r, 0, "<th>score</th>", zCols);
}

static void td_name(Report *r, const char *z){
  sqlite3_str_appendall(r->html, "<td>");
  html_text(r->html, z);
  sqlite3_str_appendall(r->html, "</td>");
}

/* ------------------------------------------------------------- sections */

static char *pr_lines(Report *r, const char *zTitle, const char *zSel, const char *zWhere);
static double query_double(Report *r, const char *zJson, const char *zPath);

/* "0.803 [0.800, 0.805]" from an interval's JSON (keys zEst, "lo", "hi"),
** or the estimate alone, or "n/a". */
static void html_ci(Report *r, double est, const char *zJson, const char *zLo, const char *zHi){
  char b[32], lo[32], hi[32];
  fmt3(b, est);
  if( zJson ){
    double l = NAN, h = NAN;
    int delta = 0;
    char *zSql = sqlite3_mprintf("SELECT %Q ->> %Q, %Q ->> %Q, %Q ->> '$.method' GLOB 'delta*'",
                                 zJson, zLo, zJson, zHi, zJson);
    sqlite3_stmt *st = prep(r, zSql);
    if( sqlite3_step(st)==SQLITE_ROW ){
      if( sqlite3_column_type(st, 0)!=SQLITE_NULL ) l = sqlite3_column_double(st, 0);
      if( sqlite3_column_type(st, 1)!=SQLITE_NULL ) h = sqlite3_column_double(st, 1);
      delta = sqlite3_column_int(st, 2);
    }
    sqlite3_finalize(st);
    sqlite3_free(zSql);
    if( isfinite(l) && isfinite(h) ){
      /* an interval by the delta method (pr_auc_delta_ci, pr_auc_diff_delta) is marked */
      fmt3(lo, l); fmt3(hi, h);
      sqlite3_str_appendf(r->html, "<td>%s <span class=\"ci\">[%s, %s]</span>%s</td>", b, lo, hi,
                          delta ? "<sup class=\"m\" title=\"delta method\">&#948;</sup>" : "");
      return;
    }
  }
  sqlite3_str_appendf(r->html, "<td>%s</td>", b);
}

static double col_double(sqlite3_stmt *st, int i){
  return sqlite3_column_type(st, i)==SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}
static const char *col_text(sqlite3_stmt *st, int i){
  return (const char*)sqlite3_column_text(st, i);
}

/* The always-open summary: per score, the overall and per-group AUROC and
** PR-AUC with 95 % intervals, the mean across groups with its t interval,
** the no-skill baselines and, with --prob, Brier and log loss.  The same
** numbers go to --json's "summary". */
static void section_summary(Report *r){
  int k;
  sqlite3_str_appendall(r->html,
    "<section id=\"summary\">\n<h2>Summary</h2>\n<p>Per score, over all rows and per ");
  html_text(r->html, r->o.zBy ? r->o.zBy : "group");
  sqlite3_str_appendall(r->html,
    ": AUROC with its 95 % DeLong interval (<code>auroc_ci</code>) and PR-AUC (average precision)");
  if( r->o.reps && r->o.bootRows ){
    sqlite3_str_appendf(r->html, " with its 95 %% interval: in a group of at most %lld rows the BCa bootstrap's "
                        "(<code>pr_auc_ci</code>, %d replicates, seed 0), in a larger one the delta method's on the "
                        "logit scale (<code>pr_auc_delta_ci</code>, marked &#948;: the limit the bootstrap tends to, "
                        "without its cost; <code>--boot-rows</code>, <code>--reps</code>)",
                        (long long)r->o.bootRows, r->o.reps);
  }else{
    sqlite3_str_appendall(r->html, " with its 95 % interval by the delta method on the logit scale "
                          "(<code>pr_auc_delta_ci</code>, marked &#948;; no bootstrap: <code>--reps 0</code> "
                          "or <code>--boot-rows 0</code>)");
  }
  sqlite3_str_appendall(r->html, ". No skill: AUROC 0.5 and PR-AUC the prevalence.");
  if( r->o.zBy ){
    sqlite3_str_appendall(r->html, " The mean over the groups that have a value, with a Student t interval "
                          "(<code>mean_ci</code>), measures the spread between groups, not the error of one.");
  }
  sqlite3_str_appendall(r->html, "</p>\n");
  table_open(r, "summary", "<th>score</th>", "<th>rows</th><th>prevalence (no-skill PR-AUC)</th>"
             "<th>AUROC [95 % CI]</th><th>PR-AUC [95 % CI]</th>");
  sqlite3_str_appendall(r->json, ",\"summary\":{\"scores\":{");
  for(k=0; k<r->o.nScore; k++){
    char *zSql = sqlite3_mprintf(
      "SELECT t.g, t.n, t.pos, t.neg, t.auroc, t.pr_auc, t.auroc_ci, t.pr_auc_ci"
      " FROM " T_RES " t LEFT JOIN " T_GRP " grp USING (g) WHERE t.col = %Q ORDER BY t.g IS NOT NULL, grp.idx",
      r->o.azScore[k]);
    sqlite3_stmt *st = prep(r, zSql);
    int rc, first = 1;
    if( k ) sqlite3_str_appendchar(r->json, 1, ',');
    json_str(r->json, r->o.azScore[k]);
    sqlite3_str_appendall(r->json, ":{");
    while( (rc = sqlite3_step(st))==SQLITE_ROW ){
      int overall = sqlite3_column_type(st, 0)==SQLITE_NULL;
      sqlite3_int64 n = sqlite3_column_int64(st, 1), pos = sqlite3_column_int64(st, 2), neg = sqlite3_column_int64(st, 3);
      const char *why = too_few(pos, neg);
      double prev = n ? (double)pos / (double)n : NAN;
      double au = why ? NAN : col_double(st, 4), ap = why ? NAN : col_double(st, 5);
      const char *zAuCi = why ? 0 : col_text(st, 6), *zApCi = why ? 0 : col_text(st, 7);
      char pv[32];
      if( !r->o.zBy && !overall ) continue;      /* one group: it is all rows */
      if( overall ) sqlite3_str_appendall(r->json, "\"all\":");
      else{
        if( first ) sqlite3_str_appendall(r->json, ",\"groups\":{");
        else sqlite3_str_appendchar(r->json, 1, ',');
        first = 0;
        json_str(r->json, col_text(st, 0));
        sqlite3_str_appendchar(r->json, 1, ':');
      }
      sqlite3_str_appendf(r->json, "{\"rows\":%lld,\"positives\":%lld,\"prevalence\":", n, pos);
      json_num(r->json, prev);
      sqlite3_str_appendall(r->json, ",\"auroc\":"); json_num(r->json, au);
      sqlite3_str_appendf(r->json, ",\"auroc_ci\":%s", zAuCi ? zAuCi : "null");
      sqlite3_str_appendall(r->json, ",\"pr_auc\":"); json_num(r->json, ap);
      sqlite3_str_appendf(r->json, ",\"pr_auc_ci\":%s}", zApCi ? zApCi : "null");
      sqlite3_str_appendall(r->html, overall ? "<tr class=\"overall\">" : "<tr>");
      td_name(r, r->o.azScore[k]);
      td_name(r, overall ? "all rows" : col_text(st, 0));
      fmt3(pv, prev);
      sqlite3_str_appendf(r->html, "<td>%lld</td><td>%s</td>", n, pv);
      if( why ){
        sqlite3_str_appendf(r->html, "<td class=\"na\">%s</td><td class=\"na\">%s</td>", why, why);
      }else{
        html_ci(r, au, zAuCi, "$.lo", "$.hi");
        html_ci(r, ap, zApCi, "$.lo", "$.hi");
      }
      sqlite3_str_appendall(r->html, "</tr>\n");
    }
    step_done(r, st, rc);
    sqlite3_finalize(st);
    sqlite3_free(zSql);
    if( !first ) sqlite3_str_appendall(r->json, "}");
    if( r->o.zBy ){
      /* mean over the groups with a value */
      zSql = sqlite3_mprintf(
        "SELECT mean_ci(auroc), mean_ci(pr_auc) FROM (SELECT * FROM " T_RES " WHERE col = %Q AND g IS NOT NULL"
        " AND pos >= 2 AND neg >= 2 AND auroc IS NOT NULL)", r->o.azScore[k]);
      st = prep(r, zSql);
      rc = sqlite3_step(st);
      step_done(r, st, rc);
      {
        const char *a = rc==SQLITE_ROW ? col_text(st, 0) : 0;
        const char *b = rc==SQLITE_ROW ? col_text(st, 1) : 0;
        char *zA = a ? sqlite3_mprintf("%s", a) : 0, *zB = b ? sqlite3_mprintf("%s", b) : 0;
        sqlite3_finalize(st);
        sqlite3_str_appendf(r->json, ",\"mean\":{\"auroc\":%s,\"pr_auc\":%s}", zA ? zA : "null", zB ? zB : "null");
        sqlite3_str_appendall(r->html, "<tr class=\"mean\">");
        td_name(r, r->o.azScore[k]);
        sqlite3_str_appendall(r->html, "<td>mean over groups</td><td></td><td></td>");
        if( zA ) html_ci(r, query_double(r, zA, "$.mean"), zA, "$.lo", "$.hi");
        else sqlite3_str_appendall(r->html, "<td class=\"na\">no group</td>");
        if( zB ) html_ci(r, query_double(r, zB, "$.mean"), zB, "$.lo", "$.hi");
        else sqlite3_str_appendall(r->html, "<td class=\"na\">no group</td>");
        sqlite3_str_appendall(r->html, "</tr>\n");
        sqlite3_free(zA); sqlite3_free(zB);
      }
      sqlite3_free(zSql);
    }
    sqlite3_str_appendall(r->json, "}");
  }
  sqlite3_str_appendall(r->json, "}");
  sqlite3_str_appendall(r->html, "</tbody>\n</table>\n");
  if( r->o.zProb ){
    char *zSql = sqlite3_mprintf(
      "SELECT t.g, t.n, t.pos, t.brier, t.log_loss FROM " T_CAL " t LEFT JOIN " T_GRP " grp USING (g)"
      " ORDER BY t.g IS NOT NULL, grp.idx");
    sqlite3_stmt *st = prep(r, zSql);
    int rc, first = 1;
    sqlite3_str_appendall(r->html, "<p>The probability <code>");
    html_text(r->html, r->o.zProb);
    sqlite3_str_appendall(r->html, "</code>: Brier score (<code>brier</code>) and log loss (<code>log_loss</code>), "
                          "lower is better, next to the no-skill model that predicts the prevalence &#960; for "
                          "every row: Brier &#960;(1 &#8722; &#960;), log loss "
                          "&#8722;&#960; ln &#960; &#8722; (1 &#8722; &#960;) ln(1 &#8722; &#960;).</p>\n");
    table_open(r, "summary", "<th>probability</th>", "<th>rows</th><th>Brier</th><th>no-skill Brier</th>"
               "<th>log loss</th><th>no-skill log loss</th>");
    sqlite3_str_appendall(r->json, ",\"probability\":{");
    while( (rc = sqlite3_step(st))==SQLITE_ROW ){
      int overall = sqlite3_column_type(st, 0)==SQLITE_NULL;
      sqlite3_int64 n = sqlite3_column_int64(st, 1), pos = sqlite3_column_int64(st, 2);
      double pi = n ? (double)pos / (double)n : NAN;
      double nsBrier = pi * (1 - pi);
      double nsLog = (pi<=0 || pi>=1) ? 0 : -(pi * log(pi) + (1 - pi) * log1p(-pi));
      double v[4];
      int c;
      if( !r->o.zBy && !overall ) continue;
      v[0] = col_double(st, 3); v[1] = nsBrier; v[2] = col_double(st, 4); v[3] = nsLog;
      if( overall ) sqlite3_str_appendall(r->json, "\"all\":");
      else{
        if( first ) sqlite3_str_appendall(r->json, ",\"groups\":{");
        else sqlite3_str_appendchar(r->json, 1, ',');
        first = 0;
        json_str(r->json, col_text(st, 0));
        sqlite3_str_appendchar(r->json, 1, ':');
      }
      sqlite3_str_appendf(r->json, "{\"rows\":%lld,\"brier\":", n);
      json_num(r->json, v[0]);
      sqlite3_str_appendall(r->json, ",\"no_skill_brier\":"); json_num(r->json, v[1]);
      sqlite3_str_appendall(r->json, ",\"log_loss\":"); json_num(r->json, v[2]);
      sqlite3_str_appendall(r->json, ",\"no_skill_log_loss\":"); json_num(r->json, v[3]);
      sqlite3_str_appendall(r->json, "}");
      sqlite3_str_appendall(r->html, overall ? "<tr class=\"overall\">" : "<tr>");
      td_name(r, r->o.zProb);
      td_name(r, overall ? "all rows" : col_text(st, 0));
      sqlite3_str_appendf(r->html, "<td>%lld</td>", n);
      for(c=0; c<4; c++){ char b[32]; fmt3(b, v[c]); sqlite3_str_appendf(r->html, "<td>%s</td>", b); }
      sqlite3_str_appendall(r->html, "</tr>\n");
    }
    step_done(r, st, rc);
    sqlite3_finalize(st);
    sqlite3_free(zSql);
    if( !first ) sqlite3_str_appendall(r->json, "}");
    sqlite3_str_appendall(r->json, "}");
    sqlite3_str_appendall(r->html, "</tbody>\n</table>\n");
  }
  sqlite3_str_appendall(r->json, "}");
  sqlite3_str_appendall(r->html, "</section>\n");
}

/* Holm's step-down adjustment of a[0..n-1] (NAN: left out of m) into adj,
** exactly as sql/p_adjust.sql computes it: with the m p-values ranked by
** (p, name), holm_(i) = min(1, max over j <= i of (m - j + 1) p_(j)). */
typedef struct PItem { double p; const char *zName; int idx; } PItem;
static int pitem_cmp(const void *a, const void *b){
  const PItem *x = a, *y = b;
  if( x->p < y->p ) return -1;
  if( x->p > y->p ) return 1;
  return strcmp(x->zName, y->zName);
}
static void holm(int n, const double *a, const char *const *azName, double *adj){
  PItem *v = xmalloc(sizeof(PItem)*(n+1));
  int m = 0, i;
  double run = 0;
  for(i=0; i<n; i++){
    adj[i] = NAN;
    if( isfinite(a[i]) ){ v[m].p = a[i]; v[m].zName = azName[i]; v[m].idx = i; m++; }
  }
  qsort(v, m, sizeof(PItem), pitem_cmp);
  for(i=0; i<m; i++){
    double t = (double)(m - i) * v[i].p;       /* (m - j + 1) p_(j), j = i + 1 */
    if( t > run ) run = t;
    adj[v[i].idx] = run < 1.0 ? run : 1.0;
  }
  free(v);
}

/* With two or more scores: each pair on the same rows, per group and over
** all rows -- DeLong's paired test of the AUROCs (auroc_diff) and the
** paired bootstrap of the PR-AUCs (pr_auc_diff_ci) -- with Holm-adjusted
** p-values over the table's tests of each kind, and every score's ROC and
** PR curve over all rows on one pair of axes. */
static void section_compare(Report *r){
  sqlite3_stmt *st;
  int rc, n = 0, cap = 16, i;
  double *aAu, *aPr, *hAu, *hPr;
  char **azName, **azA, **azB, **azG, **azAuJ, **azPrJ;
  sqlite3_int64 *aN;
  if( r->o.nScore<2 ) return;
  aAu = xmalloc(sizeof(double)*cap); aPr = xmalloc(sizeof(double)*cap);
  azName = xmalloc(sizeof(char*)*cap); azA = xmalloc(sizeof(char*)*cap); azB = xmalloc(sizeof(char*)*cap);
  azG = xmalloc(sizeof(char*)*cap); azAuJ = xmalloc(sizeof(char*)*cap); azPrJ = xmalloc(sizeof(char*)*cap);
  aN = xmalloc(sizeof(sqlite3_int64)*cap);
  st = prep(r, "SELECT c.a, c.b, c.g, c.n, c.auroc_diff, c.pr_diff, c.auroc_diff ->> 'p_value', c.pr_diff ->> 'p_value'"
               " FROM " T_CMP " c LEFT JOIN " T_GRP " grp USING (g) ORDER BY c.rowid IS NULL, c.g IS NOT NULL, grp.idx, c.rowid");
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    if( n==cap ){
      cap *= 2;
      aAu = realloc(aAu, sizeof(double)*cap); aPr = realloc(aPr, sizeof(double)*cap);
      azName = realloc(azName, sizeof(char*)*cap); azA = realloc(azA, sizeof(char*)*cap);
      azB = realloc(azB, sizeof(char*)*cap); azG = realloc(azG, sizeof(char*)*cap);
      azAuJ = realloc(azAuJ, sizeof(char*)*cap); azPrJ = realloc(azPrJ, sizeof(char*)*cap);
      aN = realloc(aN, sizeof(sqlite3_int64)*cap);
      if( !aAu || !aPr || !azName || !azA || !azB || !azG || !azAuJ || !azPrJ || !aN ) die(1, "out of memory");
    }
    azA[n] = xstrdup(col_text(st, 0));
    azB[n] = xstrdup(col_text(st, 1));
    azG[n] = sqlite3_column_type(st, 2)==SQLITE_NULL ? 0 : xstrdup(col_text(st, 2));
    aN[n] = sqlite3_column_int64(st, 3);
    azAuJ[n] = sqlite3_column_type(st, 4)==SQLITE_NULL ? 0 : xstrdup(col_text(st, 4));
    azPrJ[n] = sqlite3_column_type(st, 5)==SQLITE_NULL ? 0 : xstrdup(col_text(st, 5));
    aAu[n] = col_double(st, 6);
    aPr[n] = col_double(st, 7);
    {
      char *z = sqlite3_mprintf("%s vs %s: %s", azA[n], azB[n], azG[n] ? azG[n] : "all rows");
      azName[n] = xstrdup(z);
      sqlite3_free(z);
    }
    n++;
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
  hAu = xmalloc(sizeof(double)*(n+1)); hPr = xmalloc(sizeof(double)*(n+1));
  holm(n, aAu, (const char *const*)azName, hAu);
  holm(n, aPr, (const char *const*)azName, hPr);

  sqlite3_str_appendall(r->html,
    "<details id=\"compare\">\n<summary>Compare models</summary>\n<div class=\"body\">\n"
    "<p>Each pair of scores on the rows where both are set: the AUROC difference a &#8722; b with "
    "DeLong's paired test (<code>auroc_diff(y, a, b)</code>) and the PR-AUC difference with a paired "
    "bootstrap (<code>pr_auc_diff_ci(y, a, b)</code>, the same resampled rows for both) in a group of at "
    "most <code>--boot-rows</code> rows, else the paired delta method (<code>pr_auc_diff_delta(y, a, b)</code>, "
    "marked &#948;). "
    "Holm's adjustment (as <code>sql/p_adjust.sql</code>) is taken over all the table's p-values of "
    "each kind.</p>\n");
  table_open(r, 0, "<th>a</th><th>b</th>", "<th>rows</th><th>AUROC a &#8722; b [95 % CI]</th><th>p</th>"
             "<th>Holm p</th><th>PR-AUC a &#8722; b [95 % CI]</th><th>p</th><th>Holm p</th>");
  sqlite3_str_appendall(r->json, ",\"compare\":[");
  for(i=0; i<n; i++){
    char p1[32], p2[32], p3[32], p4[32];
    sqlite3_str_appendall(r->html, azG[i] ? "<tr>" : "<tr class=\"overall\">");
    td_name(r, azA[i]); td_name(r, azB[i]); td_name(r, azG[i] ? azG[i] : "all rows");
    sqlite3_str_appendf(r->html, "<td>%lld</td>", aN[i]);
    if( azAuJ[i] ) html_ci(r, query_double(r, azAuJ[i], "$.diff"), azAuJ[i], "$.lo", "$.hi");
    else sqlite3_str_appendall(r->html, "<td class=\"na\">n/a</td>");
    snprintf(p1, sizeof(p1), isfinite(aAu[i]) ? "%.3g" : "n/a", aAu[i]);
    snprintf(p2, sizeof(p2), isfinite(hAu[i]) ? "%.3g" : "n/a", hAu[i]);
    sqlite3_str_appendf(r->html, "<td>%s</td><td>%s</td>", p1, p2);
    if( azPrJ[i] ) html_ci(r, query_double(r, azPrJ[i], "$.diff"), azPrJ[i], "$.lo", "$.hi");
    else sqlite3_str_appendall(r->html, "<td class=\"na\">n/a</td>");
    snprintf(p3, sizeof(p3), isfinite(aPr[i]) ? "%.3g" : "n/a", aPr[i]);
    snprintf(p4, sizeof(p4), isfinite(hPr[i]) ? "%.3g" : "n/a", hPr[i]);
    sqlite3_str_appendf(r->html, "<td>%s</td><td>%s</td></tr>\n", p3, p4);
    if( i ) sqlite3_str_appendchar(r->json, 1, ',');
    sqlite3_str_appendall(r->json, "{\"a\":"); json_str(r->json, azA[i]);
    sqlite3_str_appendall(r->json, ",\"b\":"); json_str(r->json, azB[i]);
    sqlite3_str_appendall(r->json, ",\"group\":");
    if( azG[i] ) json_str(r->json, azG[i]); else sqlite3_str_appendall(r->json, "null");
    sqlite3_str_appendf(r->json, ",\"rows\":%lld,\"auroc_diff\":%s,\"auroc_p_holm\":", aN[i], azAuJ[i] ? azAuJ[i] : "null");
    json_num(r->json, hAu[i]);
    sqlite3_str_appendf(r->json, ",\"pr_auc_diff_ci\":%s,\"pr_auc_p_holm\":", azPrJ[i] ? azPrJ[i] : "null");
    json_num(r->json, hPr[i]);
    sqlite3_str_appendall(r->json, "}");
    free(azA[i]); free(azB[i]); free(azG[i]); free(azAuJ[i]); free(azPrJ[i]); free(azName[i]);
  }
  sqlite3_str_appendall(r->json, "]");
  sqlite3_str_appendall(r->html, "</tbody>\n</table>\n");
  free(aAu); free(aPr); free(hAu); free(hPr); free(azName); free(azA); free(azB); free(azG);
  free(azAuJ); free(azPrJ); free(aN);
  {
    char *zSvg = query_text(r, "SELECT plot_curves(col, roc, 'ROC curves, all rows: every score') FROM ("
                               "SELECT col, roc FROM " T_RES " WHERE g IS NULL AND pos >= 2 AND neg >= 2 ORDER BY rowid)");
    char *zPr = pr_lines(r, "PR curves, all rows: every score", "t.col, t.g, t.rowid", "t.g IS NULL");
    sqlite3_str_appendall(r->html, "<h3>ROC curves, all rows: every score</h3>\n");
    if( zSvg ) html_svg(r->html, zSvg);
    sqlite3_str_appendall(r->html, "<h3>PR curves, all rows: every score</h3>\n");
    if( zPr ) html_svg(r->html, zPr);
    free(zSvg); free(zPr);
  }
  sqlite3_str_appendall(r->html, "</div>\n</details>\n");
}

/* Operating points: operating_point() at each --operating criterion, per
** score, over all rows and per group. */
static void section_operating(Report *r){
  sqlite3_stmt *st;
  int rc, first = 1;
  sqlite3_str_appendall(r->html,
    "<details id=\"operating\">\n<summary>Operating points</summary>\n<div class=\"body\">\n"
    "<p>The threshold each criterion picks (<code>operating_point(y, s, criterion [, target])</code>, "
    "positive when <code>s &gt;= threshold</code>, over every distinct threshold) and the rates "
    "there. Criteria: <code>");
  for(int j=0; j<r->o.nOp; j++){
    char t[40] = "";
    if( isfinite(r->o.aOpTarget[j]) ) snprintf(t, sizeof(t), ":%g", r->o.aOpTarget[j]);
    if( j ) sqlite3_str_appendall(r->html, ",");
    html_text(r->html, r->o.azOpCrit[j]);
    sqlite3_str_appendall(r->html, t);
  }
  sqlite3_str_appendall(r->html, "</code> (<code>--operating</code>).</p>\n");
  table_head(r, "<th>criterion</th><th>threshold</th><th>sensitivity</th><th>specificity</th>"
             "<th>precision</th><th>F1</th><th>achieved</th>");
  sqlite3_str_appendall(r->json, ",\"operating_points\":[");
  st = prep(r, "SELECT t.col, t.g, j.value, j.value ->> 'criterion', j.value ->> 'target', j.value ->> 'threshold',"
               " j.value ->> 'tpr', j.value ->> 'specificity', j.value ->> 'precision', j.value ->> 'f1',"
               " j.value ->> 'achieved', t.pos >= 2 AND t.neg >= 2"
               " FROM " T_RES " t LEFT JOIN " T_GRP " grp USING (g), json_each(t.ops) j"
               " ORDER BY (SELECT min(rowid) FROM " T_RES " x WHERE x.col = t.col), t.g IS NOT NULL, grp.idx, j.key");
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    int overall = sqlite3_column_type(st, 1)==SQLITE_NULL;
    int c;
    if( !r->o.zBy && !overall ) continue;
    sqlite3_str_appendall(r->html, overall ? "<tr class=\"overall\">" : "<tr>");
    td_name(r, col_text(st, 0));
    td_name(r, overall ? "all rows" : col_text(st, 1));
    {
      char *zc = sqlite3_column_type(st, 4)==SQLITE_NULL ? sqlite3_mprintf("%s", col_text(st, 3))
                 : sqlite3_mprintf("%s %g", col_text(st, 3), sqlite3_column_double(st, 4));
      td_name(r, zc ? zc : "?");
      sqlite3_free(zc);
    }
    if( sqlite3_column_type(st, 2)==SQLITE_NULL || !sqlite3_column_int(st, 11) ){
      sqlite3_str_appendall(r->html, "<td class=\"na\" colspan=\"6\">too few of a class</td></tr>\n");
    }else{
      for(c=5; c<=9; c++){
        char b[32];
        if( c==5 && sqlite3_column_type(st, c)!=SQLITE_NULL ) snprintf(b, sizeof(b), "%.6g", sqlite3_column_double(st, c));
        else fmt3(b, col_double(st, c));
        sqlite3_str_appendf(r->html, "<td>%s</td>", b);
      }
      sqlite3_str_appendf(r->html, "<td>%s</td></tr>\n", sqlite3_column_int(st, 10) ? "yes" : "no");
    }
    if( !first ) sqlite3_str_appendchar(r->json, 1, ',');
    first = 0;
    sqlite3_str_appendall(r->json, "{\"score\":"); json_str(r->json, col_text(st, 0));
    sqlite3_str_appendall(r->json, ",\"group\":");
    if( overall ) sqlite3_str_appendall(r->json, "null"); else json_str(r->json, col_text(st, 1));
    sqlite3_str_appendf(r->json, ",\"point\":%s}", col_text(st, 2) ? col_text(st, 2) : "null");
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
  sqlite3_str_appendall(r->json, "]");
  sqlite3_str_appendall(r->html, "</tbody>\n</table>\n</div>\n</details>\n");
}

/* One double from a JSON text and a path. */
static double query_double(Report *r, const char *zJson, const char *zPath){
  char *zSql = sqlite3_mprintf("SELECT %Q ->> %Q", zJson, zPath);
  sqlite3_stmt *st = prep(r, zSql);
  double d = NAN;
  if( sqlite3_step(st)==SQLITE_ROW ) d = col_double(st, 0);
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  return d;
}

/* One plot of curves per score (column `which` of the results: "roc" or
** "pr"), titled "<title>: <score>", with the groups that have no curve. */
static void curve_plots(Report *r, const char *which, const char *title){
  int k;
  for(k=0; k<r->o.nScore; k++){
    char *zTitle = sqlite3_mprintf("%s: %s", title, r->o.azScore[k]);
    char *zSvg = plot_query(r, "plot_curves", T_RES, which, r->o.azScore[k], 1, zTitle);
    Counts *cnt = count_rows(r, T_RES, r->o.azScore[k]);
    sqlite3_str_appendall(r->html, "<h3>");
    html_text(r->html, zTitle);
    sqlite3_str_appendall(r->html, "</h3>\n");
    if( zSvg ) html_svg(r->html, zSvg);
    else sqlite3_str_appendall(r->html, "<p class=\"na\">no group has 2 positives and 2 negatives: no curve</p>\n");
    html_missing(r, cnt);
    free(zSvg); free(cnt);
    sqlite3_free(zTitle);
  }
}

static void section_auroc(Report *r, double **aAuroc){
  int k, i;
  sqlite3_str_appendall(r->html,
    "<details id=\"auroc\">\n<summary>AUROC</summary>\n<div class=\"body\">\n"
    "<p>Area under the ROC curve per score and group (<code>auroc(y, s)</code>); "
    "a tie between a positive and a negative counts 1/2. An AUROC below 0.5 is marked "
    "<span class=\"inverted\">inverted</span>: the score ranks negatives higher.</p>\n");
  table_head(r, "<th>rows</th><th>positives</th><th>negatives</th><th>AUROC</th>");
  for(k=0; k<r->o.nScore; k++){
    Counts *cnt = count_rows(r, T_RES, r->o.azScore[k]);
    for(i=0; i<r->nGroup; i++){
      char b[32];
      const char *why = too_few(cnt[i].pos, cnt[i].neg);
      sqlite3_str_appendall(r->html, "<tr>");
      td_name(r, r->o.azScore[k]); td_name(r, r->aGroup[i].zName);
      sqlite3_str_appendf(r->html, "<td>%lld</td><td>%lld</td><td>%lld</td>", cnt[i].n, cnt[i].pos, cnt[i].neg);
      fmt3(b, aAuroc[k][i]);
      if( why ) sqlite3_str_appendf(r->html, "<td class=\"na\">%s</td>", why);
      else if( aAuroc[k][i]<0.5 ) sqlite3_str_appendf(r->html, "<td class=\"inverted\">%s (inverted)</td>", b);
      else sqlite3_str_appendf(r->html, "<td>%s</td>", b);
      sqlite3_str_appendall(r->html, "</tr>\n");
    }
    free(cnt);
  }
  sqlite3_str_appendall(r->html, "</tbody>\n</table>\n");
  curve_plots(r, "roc", "ROC curves");
  sqlite3_str_appendall(r->html, "</div>\n</details>\n");
}

static void section_pr(Report *r, double **aAp){
  int k, i;
  sqlite3_str_appendall(r->html,
    "<details id=\"pr\">\n<summary>PR curves</summary>\n<div class=\"body\">\n"
    "<p>Average precision (<code>pr_auc(y, s)</code>: the sum over distinct thresholds of "
    "(R<sub>i</sub> &#8722; R<sub>i&#8722;1</sub>) P<sub>i</sub>, no interpolation) and the "
    "prevalence, the AP of a score with no skill. In the plots, each distinct prevalence "
    "(to 3 decimals) is one horizontal no-skill line, labelled with its value and its "
    "groups.</p>\n");
  table_head(r, "<th>positives</th><th>prevalence</th><th>AUPRC</th><th>AUPRC &#8722; prevalence</th>");
  for(k=0; k<r->o.nScore; k++){
    Counts *cnt = count_rows(r, T_RES, r->o.azScore[k]);
    for(i=0; i<r->nGroup; i++){
      char b[32], pv[32], lift[32];
      const char *why = too_few(cnt[i].pos, cnt[i].neg);
      double prev = cnt[i].n ? (double)cnt[i].pos / (double)cnt[i].n : NAN;
      sqlite3_str_appendall(r->html, "<tr>");
      td_name(r, r->o.azScore[k]); td_name(r, r->aGroup[i].zName);
      fmt3(b, aAp[k][i]); fmt3(pv, prev); fmt3(lift, aAp[k][i] - prev);
      sqlite3_str_appendf(r->html, "<td>%lld</td><td>%s</td>", cnt[i].pos, pv);
      if( why ) sqlite3_str_appendf(r->html, "<td class=\"na\">%s</td><td></td>", why);
      else sqlite3_str_appendf(r->html, "<td>%s</td><td>%s</td>", b, lift);
      sqlite3_str_appendall(r->html, "</tr>\n");
    }
    free(cnt);
  }
  sqlite3_str_appendall(r->html, "</tbody>\n</table>\n");
  for(k=0; k<r->o.nScore; k++){
    char *zTitle = sqlite3_mprintf("PR curves: %s", r->o.azScore[k]);
    char *zSeries = series_expr(r);
    char *zSel = sqlite3_mprintf("%s, t.g, grp.idx", zSeries);
    char *zWhere = sqlite3_mprintf("t.col = %Q AND t.g IS NOT NULL", r->o.azScore[k]);
    char *zSvg = pr_lines(r, zTitle, zSel, zWhere);
    Counts *cnt = count_rows(r, T_RES, r->o.azScore[k]);
    sqlite3_str_appendall(r->html, "<h3>");
    html_text(r->html, zTitle);
    sqlite3_str_appendall(r->html, "</h3>\n");
    if( zSvg ) html_svg(r->html, zSvg);
    else sqlite3_str_appendall(r->html, "<p class=\"na\">no group has 2 positives and 2 negatives: no curve</p>\n");
    html_missing(r, cnt);
    free(zSvg); free(cnt);
    sqlite3_free(zTitle); sqlite3_free(zSeries); sqlite3_free(zSel); sqlite3_free(zWhere);
  }
  sqlite3_str_appendall(r->html, "</div>\n</details>\n");
}

/* PR curves as plot_lines: one series per curve of res (zSel gives its
** name, its group and its order: "name, g, idx" over res t LEFT JOIN grp),
** named with its AP, and one no-skill line per distinct prevalence (to 3
** decimals) named "no skill 0.200 (fold 1, fold 2)", so that five folds of
** one prevalence draw one labelled line, not five on top of each other. */
static char *pr_lines(Report *r, const char *zTitle, const char *zSel, const char *zWhere){
  char *zSql = sqlite3_mprintf(
    "WITH c(name, g, idx, pr, ap, prev) AS (SELECT %s, t.pr, t.pr_auc, printf('%%.3f', 1.0 * t.pos / t.n)"
    "   FROM " T_RES " t LEFT JOIN " T_GRP " grp USING (g)"
    "   WHERE %s AND t.pos >= 2 AND t.neg >= 2 AND t.pr IS NOT NULL),"
    " pts(series, o, k, x, y) AS ("
    "   SELECT c.name || ' (AP ' || printf('%%.3f', c.ap) || ')', c.idx, j.key, j.value ->> 'recall', j.value ->> 'precision'"
    "   FROM c, json_each(c.pr) j"
    "   UNION ALL"
    "   SELECT 'no skill ' || prev || ' (' || group_concat(name, ', ') || ')', 1e9 + min(idx), e.x, e.x, prev + 0"
    "   FROM (SELECT * FROM c ORDER BY idx), (SELECT 0 AS x UNION ALL SELECT 1) e GROUP BY prev, e.x)"
    " SELECT plot_lines(series, x, y, %Q, 'recall', 'precision') FROM (SELECT * FROM pts ORDER BY o, series, k)",
    zSel, zWhere, zTitle);
  char *z = query_text(r, zSql);
  sqlite3_free(zSql);
  return z;
}

static void section_calibration(Report *r, double **aEce){
  int k;
  sqlite3_str_appendall(r->html,
    "<details id=\"calibration\">\n<summary>Calibration</summary>\n<div class=\"body\">\n");
  if( !r->o.zProb ){
    sqlite3_str_appendall(r->html,
      "<p class=\"pseudo\">No calibration: no <code>--prob</code> column was given, and calibration "
      "describes probabilities. A score is not one, and mapping it to a pseudo-probability "
      "(its rank, say) gives every model the same calibration whatever it predicts, so this "
      "section shows nothing for scores; their ranking is in the AUROC and PR sections. "
      "Give the model's probability column with <code>--prob</code>.</p>\n");
    sqlite3_str_appendall(r->html, "</div>\n</details>\n");
    return;
  }
  sqlite3_str_appendall(r->html, "<p>Expected calibration error of the probability <code>");
  html_text(r->html, r->o.zProb);
  sqlite3_str_appendf(r->html, "</code> (<code>ece(y, p, %d)</code>: %d equal-width bins), "
                      "<code>calibration_summary(y, p)</code> (observed/expected, calibration-in-the-large, "
                      "calibration slope, Spiegelhalter's test, scaled Brier) and the reliability diagram, "
                      "with a histogram of the predicted probabilities below.</p>\n", r->o.bins, r->o.bins);
  table_open(r, 0, "<th>probability</th>", "<th>rows</th><th>ECE</th><th>O/E</th><th>CITL</th><th>slope</th>"
             "<th>Spiegelhalter p</th><th>scaled Brier</th>");
  for(k=0; k<n_calib(r); k++){
    char *zSql = sqlite3_mprintf(
      "SELECT coalesce(t.g, ''), t.n, t.ece, t.summary ->> 'oe_ratio', t.summary ->> 'citl', t.summary ->> 'slope',"
      " t.summary ->> 'spiegelhalter_p', t.summary ->> 'scaled_brier', t.g IS NULL"
      " FROM " T_CAL " t LEFT JOIN " T_GRP " grp USING (g) WHERE t.col = %Q"
      " ORDER BY t.g IS NOT NULL, grp.idx", calib_col(r, k));
    sqlite3_stmt *st = prep(r, zSql);
    int rc;
    (void)aEce;
    while( (rc = sqlite3_step(st))==SQLITE_ROW ){
      int c;
      sqlite3_str_appendall(r->html, sqlite3_column_int(st, 8) ? "<tr class=\"overall\">" : "<tr>");
      td_name(r, calib_col(r, k));
      td_name(r, sqlite3_column_int(st, 8) ? "all rows" : (const char*)sqlite3_column_text(st, 0));
      sqlite3_str_appendf(r->html, "<td>%lld</td>", sqlite3_column_int64(st, 1));
      for(c=2; c<=7; c++){
        char b[32];
        fmt3(b, sqlite3_column_type(st, c)==SQLITE_NULL ? NAN : sqlite3_column_double(st, c));
        sqlite3_str_appendf(r->html, "<td>%s</td>", b);
      }
      sqlite3_str_appendall(r->html, "</tr>\n");
    }
    step_done(r, st, rc);
    sqlite3_finalize(st);
    sqlite3_free(zSql);
  }
  sqlite3_str_appendall(r->html, "</tbody>\n</table>\n");
  for(k=0; k<n_calib(r); k++){
    char *zTitle = sqlite3_mprintf("Reliability: %s", calib_col(r, k));
    char *zSvg = plot_query(r, "plot_reliability", T_CAL, "rel", calib_col(r, k), 0, zTitle);
    sqlite3_str_appendall(r->html, "<h3>");
    html_text(r->html, zTitle);
    sqlite3_str_appendall(r->html, "</h3>\n");
    if( zSvg ) html_svg(r->html, zSvg);
    free(zSvg);
    sqlite3_free(zTitle);
  }
  {
    /* The decision curve over all rows: the model, treat all, treat none. */
    char *zTitle = sqlite3_mprintf("Decision curve: %s (all rows)", r->o.zProb);
    char *zSql = sqlite3_mprintf(
      "SELECT plot_lines(series, x, y, %Q, 'threshold probability', 'net benefit') FROM ("
      " SELECT %Q AS series, 0 AS o, j.value ->> 'threshold' AS x, j.value ->> 'net_benefit' AS y"
      "  FROM " T_CAL " t, json_each(t.dcurve) j WHERE t.g IS NULL"
      " UNION ALL SELECT 'treat all', 1, j.value ->> 'threshold', j.value ->> 'treat_all'"
      "  FROM " T_CAL " t, json_each(t.dcurve) j WHERE t.g IS NULL AND j.value ->> 'treat_all' >= -0.05"
      " UNION ALL SELECT 'treat none', 2, j.value ->> 'threshold', 0"
      "  FROM " T_CAL " t, json_each(t.dcurve) j WHERE t.g IS NULL ORDER BY o, x)", zTitle, r->o.zProb);
    char *zSvg = query_text(r, zSql);
    sqlite3_str_appendall(r->html, "<h3>");
    html_text(r->html, zTitle);
    sqlite3_str_appendall(r->html, "</h3>\n<p>Net benefit of treating the rows whose probability is at "
                          "least the threshold (<code>decision_curve(y, p)</code>, thresholds 0.01 to 0.99), "
                          "against treating everyone (shown down to a net benefit of &#8722;0.05) "
                          "and no one.</p>\n");
    if( zSvg ) html_svg(r->html, zSvg);
    free(zSvg);
    sqlite3_free(zSql);
    sqlite3_free(zTitle);
  }
  sqlite3_str_appendall(r->html, "</div>\n</details>\n");
}

static void section_svd(Report *r){
  char *zSql;
  sqlite3_stmt *st;
  char *zSvg;
  int rc, first = 1, w = r->o.svdW, d = r->o.svdD, warm = r->o.svdIters < 5 ? r->o.svdIters : 5;
  /* The shapes of sql/svd_targets.sql. */
  zSql = sqlite3_mprintf(
    "CREATE TABLE " T_SVD_TARGETS "(target TEXT, shape TEXT, rows INT, cols INT);"
    "INSERT INTO " T_SVD_TARGETS " VALUES ('QK^T', '[w, w]', %d, %d), ('WvWo', '[d_model, d_model]', %d, %d),"
    " ('AVWo', '[w, d_model]', %d, %d);"
    "CREATE TABLE " T_SVD_COST " AS SELECT t.target, t.shape, b.method, b.rows, b.cols, b.rank,"
    " b.ms_median, b.sv_rel_error, b.sv_correlation FROM " T_SVD_TARGETS " t,"
    " svd_bench(t.rows, t.cols, min(32, t.rows, t.cols), %d, %d, 'cpu', 'float64', 0, 'decay') b;",
    w, w, d, d, w, d, warm, r->o.svdIters);
  exec(r, zSql);
  sqlite3_free(zSql);
  sqlite3_str_appendf(r->html,
    "<details id=\"svd\">\n<summary>SVD cost</summary>\n<div class=\"body\">\n"
    "<p>Wall-clock cost of the SVD of each target's matrix (<code>svd_bench</code> on the CPU, "
    "float64, %d warmup and %d timed iterations, randomized rank 32; w = %d, d_model = %d, the "
    "shapes of <code>sql/svd_targets.sql</code>). Errors are relative to the full SVD.</p>\n",
    warm, r->o.svdIters, w, d);
  sqlite3_str_appendall(r->html, "<table>\n<thead><tr><th>target</th><th>shape</th><th>method</th>"
                        "<th>median ms</th><th>singular value rel. error</th><th>sv correlation</th></tr></thead>\n<tbody>\n");
  sqlite3_str_appendall(r->json, ",\"svd_cost\":[");
  st = prep(r, "SELECT target, shape, method, ms_median, sv_rel_error, sv_correlation, rows, cols, rank"
               " FROM " T_SVD_COST " ORDER BY rowid");
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    char ms[32], err[32], cor[32];
    double e = sqlite3_column_type(st, 4)==SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
    double c = sqlite3_column_type(st, 5)==SQLITE_NULL ? NAN : sqlite3_column_double(st, 5);
    snprintf(ms, sizeof(ms), "%.3f", sqlite3_column_double(st, 3));
    if( isfinite(e) ) snprintf(err, sizeof(err), "%.2e", e); else strcpy(err, "n/a");
    if( isfinite(c) ) snprintf(cor, sizeof(cor), "%.6f", c); else strcpy(cor, "n/a");
    sqlite3_str_appendall(r->html, "<tr>");
    td_name(r, (const char*)sqlite3_column_text(st, 0));
    td_name(r, (const char*)sqlite3_column_text(st, 1));
    td_name(r, (const char*)sqlite3_column_text(st, 2));
    sqlite3_str_appendf(r->html, "<td>%s</td><td>%s</td><td>%s</td></tr>\n", ms, err, cor);
    if( !first ) sqlite3_str_appendchar(r->json, 1, ',');
    first = 0;
    sqlite3_str_appendall(r->json, "{\"target\":");
    json_str(r->json, (const char*)sqlite3_column_text(st, 0));
    sqlite3_str_appendall(r->json, ",\"method\":");
    json_str(r->json, (const char*)sqlite3_column_text(st, 2));
    sqlite3_str_appendf(r->json, ",\"rows\":%d,\"cols\":%d,\"rank\":%d,\"ms_median\":",
                        sqlite3_column_int(st, 6), sqlite3_column_int(st, 7), sqlite3_column_int(st, 8));
    json_num(r->json, sqlite3_column_double(st, 3));
    sqlite3_str_appendall(r->json, ",\"sv_rel_error\":");
    json_num(r->json, e);
    sqlite3_str_appendall(r->json, ",\"sv_correlation\":");
    json_num(r->json, c);
    sqlite3_str_appendall(r->json, "}");
  }
  step_done(r, st, rc);
  sqlite3_finalize(st);
  sqlite3_str_appendall(r->json, "]");
  sqlite3_str_appendall(r->html, "</tbody>\n</table>\n");
  zSvg = query_text(r, "SELECT plot_bars(target, method, ms_median, 'SVD cost per target (median)', 'ms')"
                       " FROM (SELECT * FROM " T_SVD_COST " ORDER BY rowid)");
  html_svg(r->html, zSvg);
  free(zSvg);
  sqlite3_str_appendall(r->html, "</div>\n</details>\n");
}

/* JSON: "name":{"group":value,...} for a table of per-group doubles. */
static void json_table(Report *r, const char *zKey, int nCol, const char *(*colName)(Report*, int),
                       double **a){
  int k, i;
  sqlite3_str_appendf(r->json, ",\"%s\":{", zKey);
  for(k=0; k<nCol; k++){
    if( k ) sqlite3_str_appendchar(r->json, 1, ',');
    json_str(r->json, colName(r, k));
    sqlite3_str_appendall(r->json, ":{");
    for(i=0; i<r->nGroup; i++){
      if( i ) sqlite3_str_appendchar(r->json, 1, ',');
      json_str(r->json, r->aGroup[i].zName);
      sqlite3_str_appendchar(r->json, 1, ':');
      json_num(r->json, a[k][i]);
    }
    sqlite3_str_appendall(r->json, "}");
  }
  sqlite3_str_appendall(r->json, "}");
}
static const char *score_name(Report *r, int k){ return r->o.azScore[k]; }

static const char *zCss =
  "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;margin:1.5em auto;max-width:60em;color:#222;padding:0 1em}"
  "h1{font-size:1.5em}h3{font-size:1.05em;margin:1.2em 0 .3em}"
  "details{border:1px solid #ccc;border-radius:4px;margin:.8em 0;padding:0 .8em}"
  "summary{font-size:1.2em;font-weight:bold;padding:.5em 0;cursor:pointer}"
  "table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right}"
  "th{background:#f3f3f3}td:first-child,td:nth-child(2){text-align:left}"
  ".inverted{color:#D55E00;font-weight:bold}.na{color:#777;font-style:italic}"
  ".pseudo{background:#fff8e0;padding:.4em .6em;border-left:4px solid #E69F00}"
  "#summary{border:2px solid #0072B2;border-radius:4px;padding:0 .8em .5em;margin:.8em 0}"
  "h2{font-size:1.25em;margin:.5em 0}.ci{color:#555;font-size:.9em}"
  "tr.overall td{font-weight:bold}tr.mean td{font-style:italic}"
  "figure{margin:.5em 0}figure svg{max-width:100%;height:auto}"
  "footer{margin-top:2em;font-size:.85em;color:#555;border-top:1px solid #ccc;padding-top:.5em}";

int main(int argc, char **argv){
  Report r;
  double *aAuroc[MAX_SCORES], *aAp[MAX_SCORES], *aEce[MAX_SCORES];
  char *zVersion, *zHtml, *zJson;
  int k, i;
  FILE *f;
  memset(&r, 0, sizeof(r));
  parse_args(&r.o, argc, argv);
  check_outputs(&r.o);
  open_db(&r);
  load_mleval(&r);
  check_columns(&r);
  scan_table(&r);
  zVersion = query_text(&r, "SELECT mleval_version()");
  r.html = sqlite3_str_new(r.db);
  r.json = sqlite3_str_new(r.db);

  /* The numbers. */
  compute(&r);
  for(k=0; k<r.o.nScore; k++){
    aAuroc[k] = per_group(&r, T_RES, "auroc", r.o.azScore[k], 1);
    aAp[k] = per_group(&r, T_RES, "pr_auc", r.o.azScore[k], 1);
  }
  for(k=0; k<n_calib(&r); k++) aEce[k] = per_group(&r, T_CAL, "ece", calib_col(&r, k), 0);

  /* JSON head. */
  sqlite3_str_appendall(r.json, azOurHead[2]);
  sqlite3_str_appendall(r.json, "\"mleval_version\":");
  json_str(r.json, zVersion);
  sqlite3_str_appendall(r.json, ",\"table\":");
  json_str(r.json, r.o.zTable);
  sqlite3_str_appendf(r.json, ",\"rows\":%lld,\"label\":", r.nRow);
  json_str(r.json, r.o.zLabel);
  sqlite3_str_appendall(r.json, ",\"by\":");
  if( r.o.zBy ) json_str(r.json, r.o.zBy); else sqlite3_str_appendall(r.json, "null");
  sqlite3_str_appendall(r.json, ",\"prob\":");
  if( r.o.zProb ) json_str(r.json, r.o.zProb); else sqlite3_str_appendall(r.json, "null");
  sqlite3_str_appendf(r.json, ",\"bins\":%d,\"reps\":%d,\"boot_rows\":%lld,\"calibration\":%s,\"curve_points\":%d,"
                      "\"groups\":[", r.o.bins, r.o.reps, (long long)r.o.bootRows, r.o.zProb ? "\"probability\"" : "null",
                      CURVE_POINTS);
  for(i=0; i<r.nGroup; i++){
    if( i ) sqlite3_str_appendchar(r.json, 1, ',');
    sqlite3_str_appendall(r.json, "{\"name\":");
    json_str(r.json, r.aGroup[i].zName);
    sqlite3_str_appendf(r.json, ",\"rows\":%lld,\"positives\":%lld,\"negatives\":%lld,\"prevalence\":",
                        r.aGroup[i].n, r.aGroup[i].pos, r.aGroup[i].neg);
    json_num(r.json, r.aGroup[i].n ? (double)r.aGroup[i].pos / (double)r.aGroup[i].n : NAN);
    sqlite3_str_appendall(r.json, "}");
  }
  sqlite3_str_appendall(r.json, "]");
  json_table(&r, "auroc", r.o.nScore, score_name, aAuroc);
  json_table(&r, "pr_auc", r.o.nScore, score_name, aAp);
  sqlite3_str_appendall(r.json, ",\"inverted\":[");
  {
    int first = 1;
    for(k=0; k<r.o.nScore; k++) for(i=0; i<r.nGroup; i++){
      if( isfinite(aAuroc[k][i]) && aAuroc[k][i]<0.5 ){
        if( !first ) sqlite3_str_appendchar(r.json, 1, ',');
        first = 0;
        sqlite3_str_appendall(r.json, "{\"score\":");
        json_str(r.json, r.o.azScore[k]);
        sqlite3_str_appendall(r.json, ",\"group\":");
        json_str(r.json, r.aGroup[i].zName);
        sqlite3_str_appendall(r.json, "}");
      }
    }
  }
  sqlite3_str_appendall(r.json, "]");
  json_table(&r, "ece", n_calib(&r), calib_col, aEce);
  sqlite3_str_appendall(r.json, ",\"curves\":{");
  for(k=0; k<r.o.nScore; k++){
    if( k ) sqlite3_str_appendchar(r.json, 1, ',');
    json_str(r.json, r.o.azScore[k]);
    sqlite3_str_appendall(r.json, ":{");
    json_texts(&r, "roc_curve", T_RES, "roc", r.o.azScore[k], 1);
    sqlite3_str_appendchar(r.json, 1, ',');
    json_texts(&r, "pr_curve", T_RES, "pr", r.o.azScore[k], 1);
    sqlite3_str_appendall(r.json, "}");
  }
  sqlite3_str_appendall(r.json, "},\"reliability\":{");
  for(k=0; k<n_calib(&r); k++){
    if( k ) sqlite3_str_appendchar(r.json, 1, ',');
    json_str(r.json, calib_col(&r, k));
    sqlite3_str_appendchar(r.json, 1, ':');
    /* json_texts writes "key":{...}: here the key is the column itself */
    {
      char *zSql = sqlite3_mprintf("SELECT t.g, t.rel FROM " T_CAL " t JOIN " T_GRP " grp USING (g)"
                                   " WHERE t.col = %Q ORDER BY grp.idx", calib_col(&r, k));
      sqlite3_stmt *st = prep(&r, zSql);
      int first = 1, rc;
      sqlite3_str_appendchar(r.json, 1, '{');
      while( (rc = sqlite3_step(st))==SQLITE_ROW ){
        const char *c = (const char*)sqlite3_column_text(st, 1);
        if( !first ) sqlite3_str_appendchar(r.json, 1, ',');
        first = 0;
        json_str(r.json, (const char*)sqlite3_column_text(st, 0));
        sqlite3_str_appendf(r.json, ":%s", c ? c : "null");
      }
      step_done(&r, st, rc);
      sqlite3_finalize(st);
      sqlite3_free(zSql);
      sqlite3_str_appendchar(r.json, 1, '}');
    }
  }
  sqlite3_str_appendall(r.json, "}");

  /* HTML. */
  sqlite3_str_appendall(r.html, azOurHead[0]);
  sqlite3_str_appendall(r.html, "<title>");
  sqlite3_str_appendall(r.html, "Evaluation report: ");
  html_text(r.html, r.o.zTable);
  sqlite3_str_appendf(r.html, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Evaluation report: ", zCss);
  html_text(r.html, r.o.zTable);
  sqlite3_str_appendall(r.html, "</h1>\n<p>Label <code>");
  html_text(r.html, r.o.zLabel);
  sqlite3_str_appendall(r.html, "</code>; scores");
  for(k=0; k<r.o.nScore; k++){
    sqlite3_str_appendall(r.html, k ? ", <code>" : " <code>");
    html_text(r.html, r.o.azScore[k]);
    sqlite3_str_appendall(r.html, "</code>");
  }
  if( r.o.zBy ){
    sqlite3_str_appendall(r.html, "; grouped by <code>");
    html_text(r.html, r.o.zBy);
    sqlite3_str_appendf(r.html, "</code> (%d groups)", r.nGroup);
  }
  sqlite3_str_appendall(r.html, ". The summary is below; each section after it opens with a click.</p>\n");
  section_summary(&r);
  section_auroc(&r, aAuroc);
  section_pr(&r, aAp);
  section_calibration(&r, aEce);
  section_compare(&r);
  section_operating(&r);
  if( r.o.svd ) section_svd(&r);
  sqlite3_str_appendall(r.html, "<footer>Made by mleval-report with mleval ");
  html_text(r.html, zVersion);
  sqlite3_str_appendall(r.html, " from table <code>");
  html_text(r.html, r.o.zTable);
  {
    sqlite3_int64 nLabelled = 0;
    for(i=0; i<r.nGroup; i++) nLabelled += r.aGroup[i].n;
    sqlite3_str_appendf(r.html, "</code>: %lld rows, %lld with a label", r.nRow, nLabelled);
  }
  sqlite3_str_appendall(r.html, " (");
  for(i=0; i<r.nGroup; i++){
    if( i ) sqlite3_str_appendall(r.html, ", ");
    html_text(r.html, r.aGroup[i].zName);
    sqlite3_str_appendf(r.html, ": %lld rows, %lld positive", r.aGroup[i].n, r.aGroup[i].pos);
  }
  sqlite3_str_appendall(r.html, ").</footer>\n</body>\n</html>\n");
  sqlite3_str_appendall(r.json, "}\n");

  if( sqlite3_str_errcode(r.html) || sqlite3_str_errcode(r.json) ) die(1, "out of memory");
  zHtml = sqlite3_str_finish(r.html);
  zJson = sqlite3_str_finish(r.json);
  f = fopen(r.o.zOut, "wb");
  if( f==0 || fputs(zHtml, f)<0 || fclose(f)!=0 ) die(1, "cannot write %s: %s", r.o.zOut, strerror(errno));
  if( r.o.zJson ){
    f = fopen(r.o.zJson, "wb");
    if( f==0 || fputs(zJson, f)<0 || fclose(f)!=0 ) die(1, "cannot write %s: %s", r.o.zJson, strerror(errno));
  }
  sqlite3_free(zHtml); sqlite3_free(zJson);
  for(k=0; k<r.o.nScore; k++){ free(aAuroc[k]); free(aAp[k]); }
  for(k=0; k<n_calib(&r); k++) free(aEce[k]);
  for(i=0; i<r.nGroup; i++) free(r.aGroup[i].zName);
  free(r.aGroup);
  free(zVersion);
  sqlite3_free(r.zGroupExpr);
  sqlite3_close(r.db);
  return 0;
}
