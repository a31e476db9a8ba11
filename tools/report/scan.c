/*
** scan.c -- the numbers of mleval-report, as SQL computes them: one pass
** over the table into per-group states, then every score's, pair's and the
** probability's results from those states, into the report's temp tables.
** SPDX-License-Identifier: MIT
**
** The path of a run (docs/ARCHITECTURE.md):
**   scan_table  one GROUP BY pass over main."TABLE": the groups (T_GRP) and
**               per group and column an ml_state with its counts (T_ST);
**               all rows' state is the groups' ml_merge (no second sort)
**   compute     per score from its states: auroc_ci, the PR-AUC interval
**               (bootstrap or delta method, interval_sql), operating points,
**               curves (T_RES); per pair of scores from the rows: auroc_diff
**               and the PR-AUC difference (T_CMP); with --prob from its
**               state: ece, reliability, brier, log_loss,
**               calibration_summary, calibration_smooth, decision_curve
**               (T_CAL), and from the rows the operating points'
**               sens_at_spec_ci / tpr_at_fpr_ci (res.opsci)
**   drift_resolve  --drift-ref: a second GROUP BY pass over every row,
**               labelled or not: the periods (T_DGRP) and per period and
**               column an ml_state_dist with its rows (T_DST); then the
**               reference periods (T_DGRP.ref), from each period's value
**               (T_DGRP.v, the pass's min of --by)
**
** Rules:
**   1. Every number is an mleval SQL function's: the report is what SQL
**      computes (a function over a state equals it over the rows, bit for
**      bit).
**   2. Rows whose label is NULL are left out everywhere but the drift (a
**      score drifts whether or not its label has arrived: the drift pass
**      reads every row); rows whose column is NULL are left out of that
**      column's numbers.
**   3. An error names the option the user gave (exec_cols): a failing pass is
**      run again column by column to find which.
**   4. Groups are ordered by their values (fold 2 before 10), not their text.
**
** Cost: one sort of the labelled rows per state column (the GROUP BY's
** ml_state); every later function reads states, O(distinct scores) each;
** the pairs of scores read the rows again (a state holds one score), and the
** bootstrap (--reps) runs on groups of at most --boot-rows rows.
*/
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* Rows of (group, y, x) for the column zCol, and w with --weight, NULLs
** left out: the FROM clause of the queries that read rows. */
static char *base_from(Report *r, const char *zCol){
  const char *zW = r->o.zWeight;
  return sqlite3_mprintf("(SELECT coalesce(CAST(%s AS TEXT), 'NULL') AS g, \"%w\" AS y, \"%w\" AS x%s%w%s"
                         " FROM main.\"%w\" WHERE \"%w\" IS NOT NULL AND \"%w\" IS NOT NULL%s%w%s)",
                         r->zGroupExpr, r->o.zLabel, zCol, zW ? ", \"" : "", zW ? zW : "", zW ? "\" AS w" : "",
                         r->o.zTable, r->o.zLabel, zCol, zW ? " AND \"" : "", zW ? zW : "", zW ? "\" IS NOT NULL" : "");
}

/* The index of the score that --prob names (the same column), else -1. */
int prob_score(Report *r){
  int k;
  if( r->o.zProb==0 ) return -1;
  for(k=0; k<r->o.nScore; k++) if( sqlite3_stricmp(r->o.azScore[k], r->o.zProb)==0 ) return k;
  return -1;
}

/* The columns the report keeps a state of: the scores, then --prob (index
** nScore) unless it is one of the scores, whose state it shares, then the
** --feature columns (drifted and nothing else); state_opt names the option
** that gave column k, for a message. */
static int n_base_cols(Report *r){ return r->o.nScore + (r->o.zProb && prob_score(r)<0 ? 1 : 0); }
int n_state_cols(Report *r){ return n_base_cols(r) + r->o.nFeature; }
const char *state_col(Report *r, int k){
  if( k<r->o.nScore ) return r->o.azScore[k];
  if( k<n_base_cols(r) ) return r->o.zProb;
  return r->o.azFeature[k - n_base_cols(r)];
}
const char *state_opt(Report *r, int k){
  return k<r->o.nScore ? "--score" : k<n_base_cols(r) ? "--prob" : "--feature";
}

/* The scan's columns: per group, its labelled rows, then the count (or
** weight) of them, of their positives and negatives; per state column x,
** the count (or weight) of the rows where x is set, of their positives and
** negatives, the state, and the rows where x is set. */
static void scan_columns(Report *r, sqlite3_str *q, int nCol){
  const char *zY = r->o.zLabel, *zW = r->o.zWeight;
  int k;
  if( zW ){
    sqlite3_str_appendf(q, "SELECT coalesce(CAST(%s AS TEXT), 'NULL'), total(\"%w\"), total(\"%w\" * (\"%w\" = 1)),"
                        " total(\"%w\" * (\"%w\" = 0)), count(*)", r->zGroupExpr, zW, zW, zY, zW, zY);
  }else{
    sqlite3_str_appendf(q, "SELECT coalesce(CAST(%s AS TEXT), 'NULL'), count(*), sum(\"%w\" = 1), sum(\"%w\" = 0),"
                        " count(*)", r->zGroupExpr, zY, zY);
  }
  for(k=0; k<nCol; k++){
    const char *x = state_col(r, k);
    if( zW ){
      sqlite3_str_appendf(q, ", total(\"%w\" * (\"%w\" IS NOT NULL)), total(\"%w\" * (\"%w\" = 1 AND \"%w\" IS NOT NULL)),"
                          " total(\"%w\" * (\"%w\" = 0 AND \"%w\" IS NOT NULL)), ml_state_w(\"%w\", \"%w\", \"%w\"),"
                          " count(\"%w\")", zW, x, zW, zY, x, zW, zY, x, zY, x, zW, x);
    }else{
      sqlite3_str_appendf(q, ", count(\"%w\"), sum(\"%w\" = 1 AND \"%w\" IS NOT NULL), sum(\"%w\" = 0 AND \"%w\" IS NOT NULL),"
                          " ml_state(\"%w\", \"%w\"), count(\"%w\")", x, zY, x, zY, x, zY, x, x);
    }
  }
  sqlite3_str_appendf(q, ", min(%s)", r->zGroupExpr);   /* the group's value (a period's, for --drift-ref) */
  sqlite3_str_appendf(q, " FROM main.\"%w\" WHERE \"%w\" IS NOT NULL%s%w%s GROUP BY 1 ORDER BY min(%s)",
                      r->o.zTable, zY, zW ? " AND \"" : "", zW ? zW : "", zW ? "\" IS NOT NULL" : "", r->zGroupExpr);
}

/* One pass over the table, one sort of its labelled rows by group: the
** groups (in the order of their values, not their text: fold 2 before 10),
** their rows, positives and negatives, and per group a partial state of
** every score column and of --prob (ml_state: docs/states.md) with that
** column's counts, into T_GRP and T_ST (k: the column's index, gn: the
** group's labelled rows).  Every later number reads the states, which give
** the rows' results bit for bit; all rows' state is the groups' merge.
** A failing pass is re-run column by column, so that its error names the
** option the user gave. */
void scan_table(Report *r){
  sqlite3_str *q = sqlite3_str_new(r->db);
  sqlite3_stmt *st, *ins, *insg;
  char *zSql;
  int nCol = n_state_cols(r), k, rc, cap = 16;
  r->zGroupExpr = r->o.zBy ? sqlite3_mprintf("\"%w\"", r->o.zBy) : sqlite3_mprintf("'all'");
  zSql = sqlite3_mprintf("SELECT count(*) FROM main.\"%w\"", r->o.zTable);
  st = prep(r, zSql);
  sqlite3_free(zSql);
  if( sqlite3_step(st)==SQLITE_ROW ) r->nRow = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  scan_columns(r, q, nCol);
  zSql = sqlite3_str_finish(q);
  progress(r, "scan: reading and sorting %lld rows", (long long)r->nRow);
  if( sqlite3_prepare_v2(r->db, zSql, -1, &st, 0)!=SQLITE_OK ) die(1, "%s\n  in: %s", sqlite3_errmsg(r->db), zSql);
  exec(r, "CREATE TABLE " T_GRP "(g TEXT PRIMARY KEY, idx INT, n INT, v, ref INT DEFAULT 0)");
  exec(r, "CREATE TABLE " T_ST "(k INT, g TEXT, gn INT, n INT, pos INT, neg INT, st BLOB, rows INT)");
  insg = prep(r, "INSERT INTO " T_GRP "(g, idx, n, v) VALUES (?1, ?2, ?3, ?4)");
  ins = prep(r, "INSERT INTO " T_ST " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  r->aGroup = xmalloc(sizeof(Group)*cap);
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    Group *g;
    if( r->nGroup>=r->o.maxGroups ){
      die(1, "--by %s: more than %d groups (--max-groups %d): a group per timestamp or per row is rarely "
          "meant; group by a coarser column (day, week), or raise --max-groups", r->o.zBy, r->o.maxGroups,
          r->o.maxGroups);
    }
    if( r->nGroup>0 && r->nGroup%1000==0 ) progress(r, "scan: %d groups read", r->nGroup);
    if( r->nGroup==cap ){ cap *= 2; r->aGroup = realloc(r->aGroup, sizeof(Group)*cap); if( !r->aGroup ) die(1, "out of memory"); }
    g = &r->aGroup[r->nGroup];
    g->zName = xstrdup((const char*)sqlite3_column_text(st, 0));
    g->n = sqlite3_column_double(st, 1);
    g->pos = sqlite3_column_double(st, 2);
    g->neg = sqlite3_column_double(st, 3);
    g->rows = sqlite3_column_int64(st, 4);
    sqlite3_bind_text(insg, 1, g->zName, -1, SQLITE_STATIC);
    sqlite3_bind_int(insg, 2, r->nGroup);
    sqlite3_bind_int64(insg, 3, g->rows);
    sqlite3_bind_value(insg, 4, sqlite3_column_value(st, 5 + 5*nCol));
    step_done(r, insg, sqlite3_step(insg));
    sqlite3_reset(insg);
    for(k=0; k<nCol; k++){
      int c = 5 + 5*k;
      sqlite3_bind_int(ins, 1, k);
      sqlite3_bind_text(ins, 2, g->zName, -1, SQLITE_STATIC);
      sqlite3_bind_int64(ins, 3, g->rows);
      sqlite3_bind_value(ins, 4, sqlite3_column_value(st, c));
      sqlite3_bind_value(ins, 5, sqlite3_column_value(st, c+1));
      sqlite3_bind_value(ins, 6, sqlite3_column_value(st, c+2));
      sqlite3_bind_value(ins, 7, sqlite3_column_value(st, c+3));
      sqlite3_bind_value(ins, 8, sqlite3_column_value(st, c+4));
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
      char *zOne = sqlite3_mprintf("SELECT %s FROM %s GROUP BY g", r->o.zWeight ? "ml_state_w(y, x, w)" : "ml_state(y, x)",
                                   zFrom);
      exec_cols(r, zOne, state_opt(r, k), state_col(r, k));
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
    zSql = sqlite3_mprintf("INSERT INTO " T_ST " SELECT %d, NULL, sum(gn), sum(n), sum(pos), sum(neg), %s, sum(rows)"
                           " FROM " T_ST " WHERE k = %d", k, r->o.zBy ? "ml_merge(st)" : "max(st)", k);
    exec(r, zSql);
    sqlite3_free(zSql);
  }
  if( !r->o.zBy ) exec(r, "DELETE FROM " T_ST " WHERE g IS NOT NULL");
}

static char *small_sql(Report *r, int whole, sqlite3_int64 nAll);

/* The periods' names, for a message: "1, 2, 3, ..." (the first 10; sqlite3_free it). */
static char *period_list(Report *r){
  sqlite3_str *q = sqlite3_str_new(r->db);
  sqlite3_stmt *st = prep(r, "SELECT g FROM " T_DGRP " WHERE v IS NOT NULL ORDER BY idx");
  int n = 0;
  while( sqlite3_step(st)==SQLITE_ROW ){
    if( n==10 ){ sqlite3_str_appendall(q, ", ..."); break; }
    sqlite3_str_appendf(q, "%s%s", n ? ", " : "", col_text(st, 0));
    n++;
  }
  sqlite3_finalize(st);
  return sqlite3_str_finish(q);
}

/* Binds the bound z of --drift-ref's range: a number when the whole text is
** one (as SQLite's numeric affinity reads it), else the text. */
static void bind_bound(sqlite3_stmt *st, int i, const char *z){
  char *end;
  double d = strtod(z, &end);
  if( end!=z && *end==0 && isfinite(d) ){
    if( d==floor(d) && fabs(d)<9007199254740992.0 ) sqlite3_bind_int64(st, i, (sqlite3_int64)d);
    else sqlite3_bind_double(st, i, d);
  }else{
    sqlite3_bind_text(st, i, z, -1, SQLITE_STATIC);
  }
}

/* --drift-ref: the reference periods, marked in T_GRP (ref = 1).  A value of
** --by names that period (its text as the report shows it); otherwise LO..HI
** names the periods whose value v has LO <= v <= HI in SQLite's order
** (numbers before text; a bound that is a number compares as one).  A NULL
** --by value is no period.  No reference period, or no period left to
** compare, is exit 1 naming the value and the periods. */
/* --drift-ref's pass over every row, labelled or not (rule 2): per period
** (in the order of its values) its rows, and per state column the rows
** where it is set and their ml_state_dist (docs/states.md), into T_DGRP
** and T_DST.  A drift needs no label: the periods whose labels have not
** arrived drift as the others. */
static void drift_scan(Report *r){
  sqlite3_str *q = sqlite3_str_new(r->db);
  sqlite3_stmt *st, *ins, *insg;
  char *zSql;
  int nCol = n_state_cols(r), k, rc, idx = 0;
  sqlite3_str_appendf(q, "SELECT coalesce(CAST(%s AS TEXT), 'NULL'), count(*), min(%s)", r->zGroupExpr, r->zGroupExpr);
  for(k=0; k<nCol; k++){
    const char *x = state_col(r, k);
    sqlite3_str_appendf(q, ", count(\"%w\"), ml_state_dist(\"%w\")", x, x);
  }
  sqlite3_str_appendf(q, " FROM main.\"%w\" GROUP BY 1 ORDER BY min(%s)", r->o.zTable, r->zGroupExpr);
  zSql = sqlite3_str_finish(q);
  progress(r, "drift: reading every row, labelled or not");
  exec(r, "CREATE TABLE " T_DGRP "(g TEXT PRIMARY KEY, idx INT, n INT, v, ref INT DEFAULT 0)");
  exec(r, "CREATE TABLE " T_DST "(k INT, g TEXT, n INT, st BLOB)");
  if( sqlite3_prepare_v2(r->db, zSql, -1, &st, 0)!=SQLITE_OK ) die(1, "%s\n  in: %s", sqlite3_errmsg(r->db), zSql);
  insg = prep(r, "INSERT INTO " T_DGRP "(g, idx, n, v) VALUES (?1, ?2, ?3, ?4)");
  ins = prep(r, "INSERT INTO " T_DST " VALUES (?1, ?2, ?3, ?4)");
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    sqlite3_bind_value(insg, 1, sqlite3_column_value(st, 0));
    sqlite3_bind_int(insg, 2, idx++);
    sqlite3_bind_value(insg, 3, sqlite3_column_value(st, 1));
    sqlite3_bind_value(insg, 4, sqlite3_column_value(st, 2));
    step_done(r, insg, sqlite3_step(insg));
    sqlite3_reset(insg);
    for(k=0; k<nCol; k++){
      sqlite3_bind_int(ins, 1, k);
      sqlite3_bind_value(ins, 2, sqlite3_column_value(st, 0));
      sqlite3_bind_value(ins, 3, sqlite3_column_value(st, 3 + 2*k));
      sqlite3_bind_value(ins, 4, sqlite3_column_value(st, 4 + 2*k));
      step_done(r, ins, sqlite3_step(ins));
      sqlite3_reset(ins);
    }
  }
  if( rc!=SQLITE_DONE ){
    char *zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
    sqlite3_finalize(st);
    for(k=0; k<nCol; k++){
      char *zOne = sqlite3_mprintf("SELECT ml_state_dist(\"%w\") FROM main.\"%w\"", state_col(r, k), r->o.zTable);
      exec_cols(r, zOne, state_opt(r, k), state_col(r, k));
      sqlite3_free(zOne);
    }
    die(1, "%s", zErr);
  }
  sqlite3_finalize(st);
  sqlite3_finalize(ins);
  sqlite3_finalize(insg);
  sqlite3_free(zSql);
}

void scan_drift_only(Report *r){
  sqlite3_stmt *st;
  char *zSql;
  r->zGroupExpr = sqlite3_mprintf("\"%w\"", r->o.zBy);
  zSql = sqlite3_mprintf("SELECT count(*) FROM main.\"%w\"", r->o.zTable);
  st = prep(r, zSql);
  sqlite3_free(zSql);
  if( sqlite3_step(st)==SQLITE_ROW ) r->nRow = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
}

void drift_resolve(Report *r){
  const char *z = r->o.zDriftRef, *dots;
  sqlite3_stmt *st;
  char *zList;
  int n;
  if( z==0 ) return;
  drift_scan(r);
  st = prep(r, "UPDATE " T_DGRP " SET ref = 1 WHERE g = ?1 AND v IS NOT NULL");
  sqlite3_bind_text(st, 1, z, -1, SQLITE_STATIC);
  step_done(r, st, sqlite3_step(st));
  sqlite3_finalize(st);
  n = sqlite3_changes(r->db);
  dots = strstr(z, "..");
  if( n==0 && dots ){
    char *zLo = xstrdup(z);
    zLo[dots - z] = 0;
    if( zLo[0]==0 || dots[2]==0 ){
      free(zLo);
      die(1, "--drift-ref %s: a range needs both ends, as LO..HI", z);
    }
    st = prep(r, "UPDATE " T_DGRP " SET ref = 1 WHERE v IS NOT NULL AND v >= ?1 AND v <= ?2");
    bind_bound(st, 1, zLo);
    bind_bound(st, 2, dots + 2);
    step_done(r, st, sqlite3_step(st));
    sqlite3_finalize(st);
    free(zLo);
    n = sqlite3_changes(r->db);
    if( n==0 ){
      zList = period_list(r);
      die(1, "--drift-ref %s: no period of --by %s lies in %s (its periods: %s)", z, r->o.zBy, z, zList);
    }
  }
  if( n==0 ){
    zList = period_list(r);
    die(1, "--drift-ref %s: no period of --by %s is %s (its periods: %s)", z, r->o.zBy, z, zList);
  }
  st = prep(r, "SELECT count(*) FROM " T_DGRP " WHERE v IS NOT NULL AND NOT ref");
  sqlite3_step(st);
  n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  if( n==0 ){
    die(1, "--drift-ref %s: every period of --by %s is in the reference; there is no period to compare with it",
        z, r->o.zBy);
  }
}

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


/* The bootstrap intervals of the operating points whose criterion fixes
** its target (docs/report.md): specificity:T -> sens_at_spec_ci(y, s, T),
** fpr:T -> tpr_at_fpr_ci(y, s, T) (the _w twins with --weight), the
** sensitivity at that target with pr_auc_ci's BCa bootstrap (--reps, seed 0)
** in a group of at most --boot-rows rows (zSmall); NULL for the other
** criteria (max_f1, youden, sensitivity:T, precision:T pick their threshold
** from the data, and no function bootstraps that choice).  One JSON array
** per group, parallel to ops_sql's; NULL (no query) when no criterion has one. */
static char *ops_ci_sql(Report *r, const char *zSmall){
  sqlite3_str *q;
  int j, any = 0;
  if( r->o.reps==0 || r->o.bootRows==0 ) return 0;
  for(j=0; j<r->o.nOp; j++){
    if( strcmp(r->o.azOpCrit[j], "specificity")==0 || strcmp(r->o.azOpCrit[j], "fpr")==0 ) any = 1;
  }
  if( !any ) return 0;
  q = sqlite3_str_new(r->db);
  sqlite3_str_appendall(q, "json_array(");
  for(j=0; j<r->o.nOp; j++){
    const char *zC = r->o.azOpCrit[j];
    const char *zF = strcmp(zC, "specificity")==0 ? "sens_at_spec_ci" : strcmp(zC, "fpr")==0 ? "tpr_at_fpr_ci" : 0;
    if( j ) sqlite3_str_appendall(q, ", ");
    if( zF==0 ){ sqlite3_str_appendall(q, "NULL"); continue; }
    sqlite3_str_appendf(q, "json(%s%s(y, x%s, %!.17g, 0.95, %d, 0) FILTER (WHERE %s))", zF, r->o.zWeight ? "_w" : "",
                        r->o.zWeight ? ", w" : "", r->o.aOpTarget[j], r->o.reps, zSmall);
  }
  sqlite3_str_appendall(q, ")");
  return sqlite3_str_finish(q);
}

/* Score k's operating-point intervals (ops_ci_sql) into res.opsci, per
** group and over all rows, from the rows (the functions have no state form). */
static void compute_ops_ci(Report *r, int k, sqlite3_int64 nAll){
  const char *zCol = r->o.azScore[k];
  char *zFrom = base_from(r, zCol), *azSmall[2], *azCi[2], *zSql;
  int whole;
  for(whole=0; whole<2; whole++){
    azSmall[whole] = small_sql(r, whole, nAll);
    azCi[whole] = ops_ci_sql(r, azSmall[whole]);
  }
  if( azCi[1] ){
    zSql = sqlite3_mprintf("UPDATE " T_RES " SET opsci = v.c FROM (SELECT %s AS c FROM %s) v"
                           " WHERE col = %Q AND g IS NULL", azCi[1], zFrom, zCol);
    exec_cols(r, zSql, "--score", zCol);
    sqlite3_free(zSql);
    if( r->o.zBy ){
      zSql = sqlite3_mprintf("UPDATE " T_RES " SET opsci = v.c FROM (SELECT g, %s AS c FROM %s GROUP BY g) v"
                             " WHERE col = %Q AND " T_RES ".g = v.g", azCi[0], zFrom, zCol);
      exec_cols(r, zSql, "--score", zCol);
      sqlite3_free(zSql);
    }
  }
  for(whole=0; whole<2; whole++){ sqlite3_free(azSmall[whole]); sqlite3_free(azCi[whole]); }
  sqlite3_free(zFrom);
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

/* The condition "a group of at most --boot-rows rows" over rows grouped
** by g (whole: all rows, of which there are nAll). */
static char *small_sql(Report *r, int whole, sqlite3_int64 nAll){
  return whole ? sqlite3_mprintf("%d", nAll <= r->o.bootRows)
               : sqlite3_mprintf("g IN (SELECT g FROM " T_GRP " WHERE n <= %lld)", (long long)r->o.bootRows);
}

/* With --weight, an interval that only a bootstrap gives (auroc_ci_w):
** the bootstrap where zSmall holds, elsewhere (and with --reps 0 or
** --boot-rows 0) NULL, no interval. */
static char *boot_only_sql(Report *r, const char *zBoot, const char *zArgs, const char *zSmall){
  if( r->o.reps==0 || r->o.bootRows==0 ) return sqlite3_mprintf("NULL");
  return sqlite3_mprintf("%s(%s, 0.95, %d, 0) FILTER (WHERE %s)", zBoot, zArgs, r->o.reps, zSmall);
}

/* With --weight, the INSERT of score k's results: a weighted state gives
** auroc, pr_auc, curves and operating points, but no interval (it keeps the
** rows' weights summed), so the intervals are the weighted twins' over the
** rows, per group (GROUP BY g) and over all rows, joined to the states'.
** (auroc and pr_auc are the states', not read back from an interval's JSON:
** the same doubles as the intervals' estimates, and there without one.) */
static char *weighted_score_sql(Report *r, int k, const char *zOps){
  const char *zCol = r->o.azScore[k];
  sqlite3_int64 nAll = 0;
  char *zFrom = base_from(r, zCol), *zSql, *zV, *azAc[2], *azPc[2], *azSmall[2];
  sqlite3_str *q;
  int i, whole;
  for(i=0; i<r->nGroup; i++) nAll += r->aGroup[i].rows;
  for(whole=0; whole<2; whole++){
    azSmall[whole] = small_sql(r, whole, nAll);
    azAc[whole] = boot_only_sql(r, "auroc_ci_w", "y, x, w", azSmall[whole]);
    azPc[whole] = interval_sql(r, "pr_auc_ci_w", "pr_auc_delta_ci_w", "y, x, w", azSmall[whole]);
  }
  q = sqlite3_str_new(r->db);
  sqlite3_str_appendf(q, "SELECT NULL AS g, %s AS ac, %s AS pc FROM %s", azAc[1], azPc[1], zFrom);
  if( r->o.zBy ) sqlite3_str_appendf(q, " UNION ALL SELECT g, %s, %s FROM %s GROUP BY g", azAc[0], azPc[0], zFrom);
  zV = sqlite3_str_finish(q);
  zSql = sqlite3_mprintf(
    "INSERT INTO " T_RES "(col, g, n, pos, neg, auroc, pr_auc, auroc_ci, pr_auc_ci, ops)"
    " SELECT %Q, s.g, s.n, s.pos, s.neg, s.au, s.ap, v.ac, v.pc, s.ops FROM ("
    "  SELECT rowid AS id, g, n, pos, neg, auroc(st) AS au, pr_auc(st) AS ap, %s AS ops FROM " T_ST
    "  WHERE k = %d AND (g IS NULL OR n > 0) GROUP BY rowid) s"
    " LEFT JOIN (%s) v ON v.g IS s.g ORDER BY s.g IS NOT NULL, s.id", zCol, zOps, k, zV);
  sqlite3_free(zV);
  for(whole=0; whole<2; whole++){ sqlite3_free(azSmall[whole]); sqlite3_free(azAc[whole]); sqlite3_free(azPc[whole]); }
  sqlite3_free(zFrom);
  return zSql;
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
static void compute_score(Report *r, int k, sqlite3_int64 nAll){
  const char *zCol = r->o.azScore[k];
  char *zOps = ops_sql(r, "st", "");
  char *zSmall = sqlite3_mprintf("gn <= %lld", (long long)r->o.bootRows);
  char *zPrci = interval_sql(r, "pr_auc_ci", "pr_auc_delta_ci", "st", zSmall);
  /* the rows of the group (without weights, its count n is that) */
  char *zRows = r->o.zWeight ? sqlite3_mprintf("(SELECT s.rows FROM " T_ST " s WHERE s.k = %d AND s.g IS " T_RES ".g)", k)
                             : sqlite3_mprintf("n");
  char *zSql = r->o.zWeight ? weighted_score_sql(r, k, zOps) : sqlite3_mprintf(
    "INSERT INTO " T_RES "(col, g, n, pos, neg, auroc, pr_auc, auroc_ci, pr_auc_ci, ops)"
    " SELECT %Q, g, n, pos, neg, ac ->> '$.estimate', pc ->> '$.estimate', ac, pc, ops FROM ("
    "  SELECT rowid AS id, g, n, pos, neg, auroc_ci(st) AS ac, %s AS pc, %s AS ops"
    "  FROM " T_ST " WHERE k = %d AND (g IS NULL OR n > 0) GROUP BY rowid)"
    " ORDER BY g IS NOT NULL, id",
    zCol, zPrci, zOps, k);
  exec_cols(r, zSql, "--score", zCol);
  sqlite3_free(zSql);
  /* curves: the exact ones of small groups, gains' cuts of large ones (by
  ** the rows of the group, whatever their weights) */
  zSql = sqlite3_mprintf(
    "UPDATE " T_RES " SET (roc, pr) = (SELECT roc_curve(s.st), pr_curve(s.st) FROM " T_ST " s"
    " WHERE s.k = %d AND s.g IS " T_RES ".g) WHERE col = %Q AND %s < %d AND pos >= 2 AND neg >= 2;"
    "UPDATE " T_RES " SET gains = (SELECT gains(s.st, %d) FROM " T_ST " s WHERE s.k = %d AND s.g IS " T_RES ".g)"
    " WHERE col = %Q AND %s >= %d AND pos >= 1",
    k, zCol, zRows, CURVE_POINTS, CURVE_POINTS, k, zCol, zRows, CURVE_POINTS);
  exec_cols(r, zSql, "--score", zCol);
  sqlite3_free(zSql);
  compute_ops_ci(r, k, nAll);
  if( !r->o.zBy ){
    zSql = sqlite3_mprintf("INSERT INTO " T_RES " SELECT col, 'all', n, pos, neg, auroc, pr_auc, auroc_ci,"
                           " pr_auc_ci, ops, gains, roc, pr, opsci FROM " T_RES " WHERE col = %Q", zCol);
    exec(r, zSql);
    sqlite3_free(zSql);
  }
  sqlite3_free(zOps); sqlite3_free(zPrci); sqlite3_free(zSmall); sqlite3_free(zRows);
}

/* Rows of (group, y, a, b) where the label and both scores are set (and
** w, the weight, with --weight). */
static char *pair_from(Report *r, const char *zA, const char *zB){
  const char *zW = r->o.zWeight;
  return sqlite3_mprintf("(SELECT coalesce(CAST(%s AS TEXT), 'NULL') AS g, \"%w\" AS y, \"%w\" AS a, \"%w\" AS b%s%w%s"
                         " FROM main.\"%w\" WHERE \"%w\" IS NOT NULL AND \"%w\" IS NOT NULL AND \"%w\" IS NOT NULL%s%w%s)",
                         r->zGroupExpr, r->o.zLabel, zA, zB, zW ? ", \"" : "", zW ? zW : "", zW ? "\" AS w" : "",
                         r->o.zTable, r->o.zLabel, zA, zB, zW ? " AND \"" : "", zW ? zW : "", zW ? "\" IS NOT NULL" : "");
}

/* The counts and the two paired tests of a pair's INSERT: DeLong's
** auroc_diff and the PR-AUC difference (interval_sql); with --weight their
** weighted twins, both bootstraps (auroc_diff_w, pr_auc_diff_ci_w) where
** zSmall holds, and NULL elsewhere: pr_auc_diff_delta has no weighted twin,
** and DeLong's paired test no standard weighted form. */
static char *pair_tests_sql(Report *r, const char *zSmall){
  char *zPr, *z;
  if( r->o.zWeight==0 ){
    zPr = interval_sql(r, "pr_auc_diff_ci", "pr_auc_diff_delta", "y, a, b", zSmall);
    z = sqlite3_mprintf("count(*), sum(y = 1), sum(y = 0), auroc_diff(y, a, b), %s", zPr);
    sqlite3_free(zPr);
    return z;
  }
  if( r->o.reps==0 || r->o.bootRows==0 ) return sqlite3_mprintf("total(w), total(w * (y = 1)), total(w * (y = 0)), NULL, NULL");
  return sqlite3_mprintf("total(w), total(w * (y = 1)), total(w * (y = 0)),"
                         " auroc_diff_w(y, a, b, w, 0.95, %d, 0) FILTER (WHERE %s),"
                         " pr_auc_diff_ci_w(y, a, b, w, 0.95, %d, 0) FILTER (WHERE %s)",
                         r->o.reps, zSmall, r->o.reps, zSmall);
}

/* Calibration of --prob from its states (cal: per group and overall, ece,
** reliability, brier, log_loss, calibration_summary, calibration_smooth
** (ICI, E50, E90, Emax and the lowess curve: over an ml_state it is the
** rows', over an ml_state_w calibration_smooth_w's), and over all rows the
** decision curve).  A state holds the rows' p, and the calibration
** functions check them there; should one fail, the rows' own query names
** the row in its error. */
static void compute_calibration(Report *r){
  int k = prob_score(r) >= 0 ? prob_score(r) : r->o.nScore;
  char *zSql = sqlite3_mprintf(
    "INSERT INTO " T_CAL "(col, g, n, pos, neg, ece, rel, brier, log_loss, summary, dcurve, smooth)"
    " SELECT %Q, g, n, pos, neg, ece(st, %d), reliability(st, %d), brier(st), log_loss(st),"
    " calibration_summary(st), decision_curve(st) FILTER (WHERE g IS NULL), calibration_smooth(st)"
    " FROM " T_ST " WHERE k = %d AND (g IS NULL OR n > 0) GROUP BY rowid ORDER BY g IS NOT NULL, rowid",
    r->o.zProb, r->o.bins, r->o.bins, k);
  char *zErr = 0;
  if( sqlite3_exec(r->db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    char *zFrom = base_from(r, r->o.zProb);
    const char *zW = r->o.zWeight ? "_w" : "", *zA = r->o.zWeight ? "y, x, w" : "y, x";
    char *zRows = sqlite3_mprintf("SELECT ece%s(%s, %d), reliability%s(%s, %d), brier%s(%s), log_loss%s(%s),"
                                  " calibration_summary%s(%s), calibration_smooth%s(%s) FROM %s", zW, zA, r->o.bins,
                                  zW, zA, r->o.bins, zW, zA, zW, zA, zW, zA, zW, zA, zFrom);
    exec_cols(r, zRows, "--prob", r->o.zProb);
    die(1, "--prob %s: %s", r->o.zProb, zErr ? zErr : "?");
  }
  sqlite3_free(zSql);
  if( !r->o.zBy ){
    exec(r, "INSERT INTO " T_CAL " SELECT col, 'all', n, pos, neg, ece, rel, brier, log_loss, summary, NULL, smooth"
            " FROM " T_CAL " WHERE g IS NULL");
  }
}

void compute(Report *r){
  int k, j, i;
  sqlite3_int64 nAll = 0;        /* labelled rows: the size of the all-rows group */
  exec(r, "CREATE TABLE " T_RES "(col TEXT, g TEXT, n INT, pos INT, neg INT, auroc REAL, pr_auc REAL,"
          " auroc_ci TEXT, pr_auc_ci TEXT, ops TEXT, gains TEXT, roc TEXT, pr TEXT, opsci TEXT)");
  exec(r, "CREATE TABLE " T_CAL "(col TEXT, g TEXT, n INT, pos INT, neg INT, ece REAL, rel TEXT,"
          " brier REAL, log_loss REAL, summary TEXT, dcurve TEXT, smooth TEXT)");
  exec(r, "CREATE TABLE " T_CMP "(a TEXT, b TEXT, g TEXT, n INT, pos INT, neg INT, auroc_diff TEXT, pr_diff TEXT)");
  for(i=0; i<r->nGroup; i++) nAll += r->aGroup[i].rows;
  for(k=0; k<r->o.nScore; k++){
    progress(r, "score %s (%d of %d): AUROC, PR-AUC, curves, operating points", r->o.azScore[k], k+1, r->o.nScore);
    compute_score(r, k, nAll);
  }
  curves_from_gains(r);
  /* pairs of scores: the rows themselves (a state holds one score) */
  for(k=0; k<r->o.nScore; k++) for(j=k+1; j<r->o.nScore; j++){
    int overall;
    for(overall=0; overall<=(r->o.zBy ? 1 : 0); overall++){
      int whole = overall || !r->o.zBy;
      progress(r, "compare %s and %s", r->o.azScore[k], r->o.azScore[j]);
      char *zFrom = pair_from(r, r->o.azScore[k], r->o.azScore[j]);
      char *zSmall = small_sql(r, whole, nAll), *zTests = pair_tests_sql(r, zSmall);
      char *zSql = sqlite3_mprintf("INSERT INTO " T_CMP " SELECT %Q, %Q, %s, %s FROM %s %s", r->o.azScore[k],
                                   r->o.azScore[j], whole ? "NULL" : "g", zTests, zFrom, whole ? "" : "GROUP BY g");
      exec_cols(r, zSql, "--score", r->o.azScore[k]);
      sqlite3_free(zSql); sqlite3_free(zFrom); sqlite3_free(zTests); sqlite3_free(zSmall);
    }
  }
  if( r->o.zProb ){
    progress(r, "calibration of %s", r->o.zProb);
    compute_calibration(r);
  }
}
