/*
** options.c -- mleval-report's command line: argv into Opts, the checks of
** every option, the rules for the files it writes, and the one way out on
** an error (die).
** SPDX-License-Identifier: MIT
**
** Rules:
**   1. A bad option, value or argument count is exit 2 with a message naming
**      the option and the bad value, then "Try 'mleval-report --help'.";
**      --help prints the usage (every option) on stdout, exit 0.
**   2. --operating is a comma-separated list of operating_point() criteria:
**      max_f1 and youden take no target, fpr, specificity, sensitivity and
**      precision need one in (0, 1) (CRIT:TARGET); default
**      max_f1,youden,specificity:0.95.
**   3. -o and --json are checked before anything is read: neither may be the
**      input (the input is only ever read), they may not be one file, and a
**      file no report wrote (by its first bytes, azOurHead) is replaced only
**      with --force.
**   4. Every other error is exit 1 with "mleval-report: MESSAGE" on stderr.
**   5. --drift-ref needs --by (its values are the periods) and refuses
**      --weight (drift_report has no weighted twin): both usage errors; its
**      value is checked against the periods after the scan (drift_resolve
**      in scan.c, exit 1; what the drift functions compute:
**      docs/monitoring.md).  --feature needs --drift-ref and may not name a
**      --score or --prob column (usage errors).  Without --label (with
**      --drift-ref) the report is its Drift section alone (driftOnly):
**      --time, --event and --svd then need --label (usage errors).
**   6. --max-groups N (default 1000): a --by of more groups is exit 1 after
**      the scan, naming the count and the option (scan.c).
**
** Cost: nothing but argv and two stat() per output.
*/
#include "config.h"
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "report.h"

static const char *const zUsage =
  "usage: mleval-report DB TABLE --label COL --score COL [--score COL ...]\n"
  "                     [--prob COL] [--weight COL] [--by COL] [--bins N]\n"
  "                     [--operating LIST]\n"
  "                     [--reps N] [--boot-rows M] [--svd] [--svd-dims W,D]\n"
  "                     [--svd-iters N] [--drift-ref VALUE|LO..HI]\n"
  "                     [--feature COL ...] [--max-groups N]\n"
  "                     [--time COL --event COL --horizon T]\n"
  "                     [-o report.html] [--json result.json]\n"
  "                     [--force]\n"
  "\n"
  "Writes the evaluation report of TABLE as one self-contained HTML file: an\n"
  "open summary, then the sections AUROC, PR curves, Calibration, Compare\n"
  "models (two scores or more), Operating points, Drift (--drift-ref) and,\n"
  "with --svd, SVD cost.\n"
  "\n"
  "  DB              a SQLite database, or a CSV file with a header row\n"
  "  TABLE           the predictions table (the name given to a CSV's rows)\n"
  "  --label COL     the 0/1 label column (required; without it, with\n"
  "                  --drift-ref, the report is its Drift section alone)\n"
  "  --score COL     a score column, higher = more positive (required; repeat\n"
  "                  for several models or metrics, at most 16)\n"
  "  --prob COL      a probability column: Brier, log loss, calibration and the\n"
  "                  decision curve (without it there is no calibration section:\n"
  "                  a score is not a probability)\n"
  "  --weight COL    a row weight column (>= 0; NULL skips the row): every\n"
  "                  number is its function's weighted twin (auroc_w, ...,\n"
  "                  ml_state_w); counts become sums of weights\n"
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
  "  --drift-ref R   with --by a period column (day, week, month: its values\n"
  "                  in ascending order are the periods), the Drift section:\n"
  "                  each score's and --prob's drift_report (PSI, KS, Wasserstein)\n"
  "                  over every row, labelled or not,\n"
  "                  of every other period against the reference R, a value of\n"
  "                  --by, or LO..HI, the periods from LO to HI inclusive\n"
  "  --feature COL   with --drift-ref, a column drifted and nothing else (no\n"
  "                  AUROC, operating points or comparison): its rows in the\n"
  "                  Drift section; repeat for several (at most 64)\n"
  "  --max-groups N  the most groups --by may make, 1..10000000 (default 1000):\n"
  "                  more is an error (a --by ts of one group per row is a\n"
  "                  mistake more often than a plan)\n"
  "  --time COL      with --event and --horizon, the Survival section: the\n"
  "                  follow-up time column (>= 0, any unit)\n"
  "  --event COL     1 for an event seen at the time, 0 for a censoring there\n"
  "  --horizon T     the time t of the Survival section (> 0, at most the last\n"
  "                  follow-up): each score's Harrell's C, Uno's C and AUC(t)\n"
  "                  with intervals and KM curves by tertile; --prob's Brier(t),\n"
  "                  IPA, O/E, calibration and decision curve at t; the paired\n"
  "                  C difference of the first two scores\n"
  "  -o FILE         the HTML report (default report.html)\n"
  "  --json FILE     also write the numbers as JSON\n"
  "  --force         replace an existing -o or --json file that mleval-report\n"
  "                  did not write (the input is never replaced)\n"
  "  --help          this text\n"
  "\n"
  "Environment: MLEVAL_LIB, the extension to load (default: the build tree\n"
  "next to this program, else " MLEVAL_EXTDIR "/mleval).\n";

/* The message "mleval-report: ..." on stderr and exit(code); a usage error
** (code 2) points to --help. */
_Noreturn void die(int code, const char *fmt, ...){
  va_list ap;
  fprintf(stderr, "mleval-report: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  if( code==2 ) fprintf(stderr, "Try 'mleval-report --help'.\n");
  exit(code);
}

/* malloc, realloc and strdup that end the run when memory is out. */
void *xmalloc(size_t n){
  void *p = malloc(n ? n : 1);
  if( p==0 ) die(1, "out of memory");
  return p;
}
void *xrealloc(void *p, size_t n){
  p = realloc(p, n ? n : 1);
  if( p==0 ) die(1, "out of memory");
  return p;
}
char *xstrdup(const char *z){
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

void parse_args(Opts *o, int argc, char **argv){
  int i, nPos = 0;
  memset(o, 0, sizeof(*o));
  o->maxGroups = DEFAULT_MAX_GROUPS;
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
    else if( strcmp(a, "--weight")==0 ){ NEEDV(); o->zWeight = v; }
    else if( strcmp(a, "--by")==0 ){ NEEDV(); o->zBy = v; }
    else if( strcmp(a, "--bins")==0 ){ NEEDV(); o->bins = parse_int(a, v, 1, 1000); }
    else if( strcmp(a, "--reps")==0 ){
      NEEDV();
      o->reps = parse_int(a, v, 0, 100000);
      if( o->reps>0 && o->reps<10 ) die(2, "--reps must be 0 or an integer in 10..100000, got '%s'", v);
    }
    else if( strcmp(a, "--boot-rows")==0 ){ NEEDV(); o->bootRows = parse_int(a, v, 0, 2000000000); }
    else if( strcmp(a, "--operating")==0 ){ NEEDV(); free(o->zOpBuf); o->zOpBuf = xstrdup(v); parse_operating(o, o->zOpBuf); }
    else if( strcmp(a, "--drift-ref")==0 ){
      NEEDV();
      if( v[0]==0 ) die(2, "--drift-ref needs a value of --by or a range LO..HI, got ''");
      o->zDriftRef = v;
    }
    else if( strcmp(a, "--feature")==0 ){
      NEEDV();
      if( o->nFeature>=MAX_FEATURES ) die(2, "at most %d --feature options", MAX_FEATURES);
      for(int k=0; k<o->nFeature; k++){
        if( strcmp(o->azFeature[k], v)==0 ) die(2, "--feature %s is given twice", v);
      }
      o->azFeature[o->nFeature++] = v;
    }
    else if( strcmp(a, "--time")==0 ){ NEEDV(); o->zTime = v; }
    else if( strcmp(a, "--event")==0 ){ NEEDV(); o->zEvent = v; }
    else if( strcmp(a, "--horizon")==0 ){
      char *end;
      NEEDV();
      errno = 0;
      o->horizon = strtod(v, &end);
      if( errno || end==v || *end || !(o->horizon>0 && o->horizon<HUGE_VAL) ){
        die(2, "--horizon must be a positive finite number, got '%s'", v);
      }
    }
    else if( strcmp(a, "--max-groups")==0 ){ NEEDV(); o->maxGroups = parse_int(a, v, 1, 10000000); }
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
  if( o->zLabel==0 && o->zDriftRef==0 ) die(2, "--label is required");
  o->driftOnly = o->zLabel==0;      /* a table without labels: its drift alone */
  if( o->driftOnly && (o->zTime || o->zEvent || o->svd) ){
    die(2, "without --label the report is its Drift section alone (--drift-ref); %s needs --label",
        o->zTime ? "--time" : o->zEvent ? "--event" : "--svd");
  }
  if( o->nScore==0 ) die(2, "at least one --score is required");
  if( o->zDriftRef && o->zBy==0 ) die(2, "--drift-ref needs --by, the period column whose values it names");
  if( (o->zTime==0)!=(o->zEvent==0) ) die(2, "--time and --event go together");
  if( o->horizon>0 && (o->zTime==0 || o->zEvent==0) ){
    die(2, "--horizon needs --time and --event (the follow-up time and event columns)");
  }
  if( (o->zTime || o->zEvent) && !(o->horizon>0) ){
    die(2, "%s needs --horizon (the time t at which the Survival section evaluates)", o->zTime ? "--time" : "--event");
  }
  if( o->nFeature && o->zDriftRef==0 ){
    die(2, "--feature %s needs --drift-ref: a feature is drifted and nothing else (its only section is Drift)",
        o->azFeature[0]);
  }
  for(i=0; i<o->nFeature; i++){
    for(int k=0; k<o->nScore; k++){
      if( sqlite3_stricmp(o->azFeature[i], o->azScore[k])==0 ){
        die(2, "--feature %s is also a --score (a score's drift is in the Drift section already)", o->azFeature[i]);
      }
    }
    if( o->zProb && sqlite3_stricmp(o->azFeature[i], o->zProb)==0 ){
      die(2, "--feature %s is also --prob (its drift is in the Drift section already)", o->azFeature[i]);
    }
  }
  if( o->zDriftRef && o->zWeight ){
    die(2, "--drift-ref cannot be used with --weight: drift_report has no weighted twin (the KS p-value needs counts)");
  }
}

/* ------------------------------------------------------------- outputs */

/* The first bytes of every file mleval-report writes (and of the HTML and
** JSON of the versions before the generator mark). */
const char *const azOurHead[4] = {
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

void check_outputs(const Opts *o){
  check_output(o, o->zOutOpt, o->zOut);
  if( o->zJson ){
    if( same_file(o->zOut, o->zJson) ) die(1, "%s and --json name the same file %s", o->zOutOpt, o->zJson);
    check_output(o, "--json", o->zJson);
  }
}
