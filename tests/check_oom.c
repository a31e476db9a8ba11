/*
** SPDX-License-Identifier: MIT
**
** check_oom.c -- out-of-memory fault injection over every SQL function.
**
** A failing allocator is installed with SQLITE_CONFIG_MALLOC before
** sqlite3_initialize(), wrapping the default one (SQLITE_CONFIG_GETMALLOC).
** For each statement in aCase (every registered function, as GROUP BY and as
** a sliding window, and svd_bench), and for N = 1, 2, ... until the
** statement completes without reaching its Nth allocation, the statement
** runs on a fresh database with the Nth allocation failing, in two modes:
** only the Nth ("transient"), and the Nth and every one after ("persistent").
** Each run must end with the right answer (the text of all rows, as an
** unarmed run gives it) or SQLITE_NOMEM -- no other error, no crash -- and
** after sqlite3_close, sqlite3_memory_used() must be back where it started.
**
** $MLEVAL_OOM_POINTS = P (make check-sanitize sets it; unset or 0 in make
** check) samples the failure points: in each mode, the first P/2 allocations
** of the statement and P/2 more spread evenly over the rest (an offset that
** moves with the statement), and its last one.  Under AddressSanitizer a run
** costs 3-5 times more and the exhaustive loop is quadratic in a statement's
** allocations (a 120-row window of curves makes 1 800), so the sanitized
** build checks the same paths' memory safety on a sample while the plain
** build checks every point.
*/
#include <sqlite3.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_mleval_init(sqlite3*, char**, const void*);
/* The core is linked in statically: svd_bench finds its back-end modules
** through this directory (make check: $MLEVAL_BACKEND_DIR = ext/.libs). */
void ml_svd_backend_dir(const char *zDir);

static sqlite3_mem_methods defaultMem;
static int failAt = 0;        /* 0: never fail */
static int persistent = 0;
static int nAlloc = 0;        /* allocations since arming */
static int nFailed = 0;
static int nArmed = 0;        /* allocations of the last run while armed (or counted) */

static int should_fail(void){
  nAlloc++;
  if( failAt==0 ) return 0;
  if( nAlloc==failAt || (persistent && nAlloc>failAt) ){ nFailed++; return 1; }
  return 0;
}
static void *oomMalloc(int n){ return should_fail() ? 0 : defaultMem.xMalloc(n); }
static void *oomRealloc(void *p, int n){ return should_fail() ? 0 : defaultMem.xRealloc(p, n); }

static const char *zSchema =
  "CREATE TABLE t(id INTEGER PRIMARY KEY, g INT, y INT, s REAL, p REAL, z REAL, o INT);"
  "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<120)"
  " INSERT INTO t SELECT i, i%3, (i*7)%5 < 2, ((i*37)%101)/101.0 + ((i*7)%5 < 2)*0.3,"
  "  ((i*53)%97)/97.0, (i*13)%17, (i*11)%7 %3 FROM c;";

#define W " OVER (ORDER BY id ROWS BETWEEN 30 PRECEDING AND CURRENT ROW)"
static const char *aCase[] = {
  "SELECT g, pr_auc(y, s), auroc(y, s), nap(y, s) FROM t GROUP BY g",
  "SELECT pr_auc(y, s)" W ", auroc(y, s)" W " FROM t",
  /* auroc's counted sets: growing frame, and a frame wide enough that blocks split and merge */
  "SELECT auroc(y, s) OVER (ORDER BY id), pr_auc(y, s) OVER (ORDER BY id) FROM t",
  "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<1400)"
  " SELECT sum(a) FROM (SELECT auroc(i%3=0, (i*37)%1001) OVER (ORDER BY i ROWS BETWEEN 1099 PRECEDING AND CURRENT ROW) AS a FROM c)",
  "SELECT g, youden_j(y, s), tpr_at_fpr(y, s, 0.1), sens_at_spec(y, s, 0.9) FROM t GROUP BY g",
  "SELECT youden_j(y, s)" W ", sens_at_spec(y, s, 0.9)" W " FROM t",
  "SELECT g, confusion(y, s, 0.5), pr_curve(y, s), roc_curve(y, s) FROM t GROUP BY g",
  "SELECT confusion(y, s, 0.5)" W ", pr_curve(y, s)" W ", roc_curve(y, s)" W " FROM t",
  "SELECT g, brier(y, p), log_loss(y, p), ece(y, p, 7), reliability(y, p, 5) FROM t GROUP BY g",
  "SELECT brier(y, p)" W ", log_loss(y, p, 0.01)" W ", ece(y, p)" W ", reliability(y, p)" W " FROM t",
  /* more bins than CAL_DENSE_MAX: rows kept until they outnumber bins/4 */
  "SELECT g, ece(y, p, 2000), reliability(y, p, 100000), reliability(y, p, 120) FROM t GROUP BY g",
  "SELECT ece(y, p, 100)" W ", reliability(y, p, 1100)" W " FROM t",
  "SELECT g, ece_l2_debiased(y, p), ece_l2_kumar(y, p, 4) FROM t GROUP BY g",
  "SELECT ece_l2_debiased(y, p, 5)" W ", ece_l2_kumar(y, p, 5)" W " FROM t",
  "SELECT g, mce(y, p), ece_equal_mass(y, p, 4), ece_l2(y, p), brier_decomposition(y, p, 3) FROM t GROUP BY g",
  "SELECT mce(y, p, 5)" W ", ece_equal_mass(y, p, 3)" W ", ece_l2(y, p, 3)" W ", brier_decomposition(y, p)" W " FROM t",
  "SELECT g, reliability(y, p, 4, 'quantile'), reliability(y, p, 4, 'uniform') FROM t GROUP BY g",
  "SELECT reliability(y, p, 3, 'quantile')" W " FROM t",
  "SELECT g, partial_auroc(y, s, 0.3), operating_point(y, s, 'specificity', 0.95), operating_point(y, s, 'max_f1'),"
  " precision_at_prior(y, s, 0.5, 0.01) FROM t GROUP BY g",
  "SELECT partial_auroc(y, s, 0.2)" W ", operating_point(y, s, 'youden')" W ", precision_at_prior(y, s, 0.4, 0.1)" W " FROM t",
  "SELECT operating_point(y, s, 'f1') FROM t",       /* a choice error text under OOM */
  /* threshold and clinical-validation metrics (issue 24) */
  "SELECT g, mcc(y, s, 0.5), f_beta(y, s, 0.5, 2), confusion_ci(y, s, 0.5), confusion_ci(y, s, 0.6, 0.9, 'clopper-pearson'),"
  " net_benefit(y, p, 0.2) FROM t GROUP BY g",
  "SELECT mcc(y, s, 0.4)" W ", f_beta(y, s, 0.4, 0.5)" W ", confusion_ci(y, s, 0.4, 0.8, 'wilson')" W ","
  " net_benefit(y, p, 0.3)" W " FROM t",
  "SELECT g, ks(y, s), precision_at_k(y, s, 7), recall_at_k(y, s, 9), gains(y, s, 4), decision_curve(y, p, 0.05, 0.95, 0.05)"
  " FROM t GROUP BY g",
  "SELECT ks(y, s)" W ", precision_at_k(y, s, 5)" W ", recall_at_k(y, s, 500)" W ", gains(y, s, 3)" W ","
  " decision_curve(y, p, 0.1, 0.5, 0.1)" W " FROM t",
  "SELECT decision_curve(y, p, 0.5, 0.2) FROM t",    /* an error with numbers under OOM */
  "SELECT g, strat_pr_auc(y, s, z), strat_gap(y, s, z, 0.1, 0.9), strat_report(y, s, z) FROM t GROUP BY g",
  "SELECT strat_report(y, s, z, 0.0, 1.0, 0.05)" W " FROM t",
  "SELECT g, auprc_ge(o, s, 1), ordinal_auprc(o, s, p), ordinal_nap(o, s, p), ordinal_report(o, s, p) FROM t GROUP BY g",
  "SELECT ordinal_report(o, s, p)" W ", auprc_ge(o, p, 2)" W " FROM t",
  /* multiclass.c: k = 3 wide and as JSON, the twins, a window */
  "SELECT g, mc_auroc(o, s, p, z), mc_pr_auc(o, json_array(s, p, z)), mc_log_loss(o, p / 2, p / 2, 1 - p),"
  " mc_brier(o, json_array(p / 2, p / 2, 1 - p)), mc_auroc_w(o, s, p, z, z), mc_brier_w(o, p / 2, p / 2, 1 - p, s)"
  " FROM t GROUP BY g",
  "SELECT mc_auroc(o, s, p, z)" W ", mc_pr_auc_w(o, json_array(s, p, z), z)" W ", mc_log_loss(o, p / 2, p / 2, 1 - p)" W
  " FROM t",
  "SELECT mc_brier(o, p, 0.5, 0.5) FROM t",    /* an error with numbers under OOM */
  "SELECT g, mc_confusion(o, s, p, z), mc_confusion(o, y), mc_confusion_w(o, json_array(s, p, z), z),"
  " mc_top_k(o, s, p, z), ordinal_rps(o, p / 2, p / 2, 1 - p) FROM t GROUP BY g",
  "SELECT mc_confusion(o, y)" W ", mc_top_k_w(o, s, p, z, z)" W " FROM t",
  "SELECT g, mc_calibration(o, p / 2, p / 2, 1 - p), mc_calibration(o, json_array(p / 2, p / 2, 1 - p), 4),"
  " mc_calibration_w(o, json_array(p, 1 - p, 0), z, 3) FROM t GROUP BY g",
  "SELECT mc_calibration(o, json_array(p, 1 - p, 0), 5)" W " FROM t",
  "SELECT g, mc_auroc_ci(o, json_array(s, p, z), 0.9, 10, 3), mc_auroc_ci_w(o, s, p, z, z) FROM t GROUP BY g",
  /* multiclass states: made (wide, JSON, weighted), merged, read by every
  ** mc_* function (counted and expanded rows), over windows */
  "SELECT g, hex(ml_state_mc(o, s, p, z)), hex(ml_state_mc_w(o, json_array(p / 2, p / 2, 1 - p), z)) FROM t GROUP BY g",
  "WITH st AS (SELECT g, ml_state_mc(o, p / 2, p / 2, 1 - p) m, ml_state_mc_w(o, p / 2, p / 2, 1 - p, z) mw"
  " FROM t GROUP BY g)"
  " SELECT mc_auroc(m), mc_pr_auc(mw), mc_log_loss(m), mc_brier(mw), mc_confusion(m), mc_top_k(mw),"
  " ordinal_rps(m), mc_calibration(mw, 4), mc_auroc_ci(m, 0.9, 10, 1), hex(ml_merge(m)), hex(ml_merge(mw)) FROM st",
  "WITH st AS (SELECT g, ml_state_mc(o, p / 2, p / 2, 1 - p) m FROM t GROUP BY g)"
  " SELECT mc_auroc(m) OVER (ORDER BY g ROWS 1 PRECEDING), hex(ml_merge(m) OVER (ORDER BY g ROWS 1 PRECEDING)) FROM st",
  "SELECT g, pr_auc_ci(y, s, 0.9, 10), nap_ci(y, s, 0.9, 10, 3), auroc_ci(y, s), auroc_diff(y, s, p),"
  " pr_auc_delta_ci(y, s, 0.9), pr_auc_diff_delta(y, s, p, 0.9) FROM t GROUP BY g",
  "SELECT g, brier_ci(y, p, 0.9, 10), log_loss_ci(y, p, 0.9, 10), ece_ci(y, p, 5, 0.9, 10), mean_ci(s) FROM t GROUP BY g",
  "SELECT g, strat_gap_ci(y, s, z, 0.0, 1.0, 0.9, 10), pr_auc_diff_ci(y, s, p, 0.9, 10), ece_diff_ci(y, p, s / 2, 4, 0.9, 10) FROM t GROUP BY g",
  /* windows re-run the bootstrap per frame: a shorter table keeps the N loop short */
  "SELECT pr_auc_ci(y, s, 0.9, 10)" W ", auroc_diff(y, s, p)" W ", mean_ci(p)" W ", pr_auc_delta_ci(y, s)" W ", pr_auc_diff_delta(y, s, p)" W ","
  " ece_diff_ci(y, p, s / 2, 3, 0.9, 10)" W ", strat_gap_ci(y, s, z, 0.0, 1.0, 0.9, 10)" W
  " FROM t WHERE id <= 24",
  /* validation.c: the summary's fits and sums, the unpaired DeLong test, and
  ** the test's state form */
  "SELECT g, calibration_summary(y, p), calibration_summary(y, round(p, 1)), auroc_test(y, s, o % 2) FROM t GROUP BY g",
  "SELECT calibration_summary(y, p)" W ", auroc_test(y, s, id % 2)" W " FROM t WHERE id <= 60",
  "WITH st AS (SELECT g, ml_state(y, s) b, ml_state(y, p) c FROM t GROUP BY g)"
  " SELECT auroc_test((SELECT b FROM st WHERE g = 0), (SELECT b FROM st WHERE g = 1)), calibration_summary(c),"
  " calibration_smooth(c) FROM st",
  "SELECT auroc_test(y, s, 7) FROM t",                 /* an error text under OOM */
  "SELECT plot_curves('fold ' || g, c, 'PR') FROM (SELECT g, pr_curve(y, s) AS c FROM t GROUP BY g)",
  "SELECT plot_curves(g, c) FROM (SELECT g, roc_curve(y, s) AS c FROM t GROUP BY g)",
  "SELECT plot_reliability(g, r, 'calibration') FROM (SELECT g, reliability(y, p, 5) AS r FROM t GROUP BY g)",
  "SELECT plot_reliability(g, r, NULL, sm) FROM (SELECT g, reliability(y, p, 5) AS r, calibration_smooth(y, p) AS sm"
  " FROM t GROUP BY g)",
  "SELECT plot_bars(g, o, s, 'cost', 'ms'), plot_lines(g, id, s) FROM t",
  "SELECT plot_km('group ' || g, c, 'KM') FROM (SELECT g, km(z, y) AS c FROM t GROUP BY g)",
  /* the survival family's part 2 over survival states (entries as records; the bootstraps' as rows) */
  "WITH st AS (SELECT g, ml_state_surv(z, y, p) a, ml_state_surv_w(z, y, s, 1 + o % 3) b FROM t GROUP BY g)"
  " SELECT surv_calibration(a, 1, 3), surv_decision_curve(a, 1, 0.2, 0.8, 0.2), surv_net_benefit(a, 1, 0.3),"
  " surv_auroc_ci(b, 1, 0.9, 10, 1), surv_brier_ci(a, 1, 0.9, 10, 1) FROM st",
  "SELECT plot_curves('a', '[{\"recall\":2,\"precision\":1}]')",
  /* partial states: making, merging (ml_merge and every state-taking
  ** function's k-way merge into its buffer), windows of states */
  "SELECT g, hex(ml_state(y, s)), hex(ml_state(y, s, z)), hex(ml_state_ordinal(o, s, p)) FROM t GROUP BY g",
  "WITH st AS (SELECT g, ml_state(y, s) b, ml_state(y, s, z) sz, ml_state_ordinal(o, s, p) so FROM t GROUP BY g)"
  " SELECT pr_auc(b), ece(b, 7), brier(sz), confusion(b, 0.5), ece_l2_kumar(b, 4), strat_report(sz),"
  " confusion_ci(b, 0.5), gains(sz, 3), decision_curve(b, 0.2, 0.8, 0.2), net_benefit(b, 0.5), ks(b),"
  " ordinal_report(so), auprc_ge(so, 2), hex(ml_merge(b)), hex(ml_merge(so)), pr_auc_delta_ci(b) FROM st",
  "WITH st AS (SELECT g, ml_state(y, s) b, ml_state(y, s, z) sz FROM t GROUP BY g)"
  " SELECT pr_auc(b) OVER (ORDER BY g ROWS 1 PRECEDING), strat_pr_auc(sz) OVER (ORDER BY g ROWS 1 PRECEDING),"
  " hex(ml_merge(b) OVER (ORDER BY g ROWS 1 PRECEDING)) FROM st",
  "SELECT hex(ml_state(y, s)" W ") FROM t",
  /* weighted states: made, merged with unweighted ones, read by every
  ** family that takes them, over windows */
  "SELECT g, hex(ml_state_w(y, s, p + 0.25)) FROM t GROUP BY g",
  "WITH st AS (SELECT g, ml_state_w(y, p, s * s + 0.5) b FROM t GROUP BY g"
  " UNION ALL SELECT g + 10, ml_state(y, p) FROM t GROUP BY g)"
  " SELECT pr_auc(b), auroc(b), gains(b, 3), ece(b, 7), brier(b), log_loss(b), confusion(b, 0.5),"
  " ece_equal_mass(b, 3), reliability(b, 4, 'quantile'), calibration_summary(b), calibration_smooth(b),"
  " hex(ml_merge(b)) FROM st",
  "WITH st AS (SELECT g, ml_state_w(y, p, 1.5) b FROM t GROUP BY g)"
  " SELECT pr_auc(b) OVER (ORDER BY g ROWS 1 PRECEDING), ece(b) OVER (ORDER BY g ROWS 1 PRECEDING),"
  " hex(ml_merge(b) OVER (ORDER BY g ROWS 1 PRECEDING)) FROM st",
  "SELECT hex(ml_state_w(y, s, 2)" W ") FROM t",
  /* the monitoring family's state forms: the expected metrics over states,
  ** group_disparity over (state, group) rows, weighted too, two-state drift */
  "WITH st AS (SELECT g, ml_state(y, p) b, ml_state_w(y, s, p + 0.25) bw FROM t GROUP BY g)"
  " SELECT expected_auroc(b), expected_pr_auc(b), expected_confusion(b, 0.5), group_disparity(b, g % 2, 0.5),"
  " group_disparity(bw, g, 0.5), drift_report((SELECT b FROM st WHERE g = 0), b) FROM st",
  "WITH st AS (SELECT g, ml_state(y, p) b FROM t GROUP BY g)"
  " SELECT expected_auroc(b) OVER (ORDER BY g ROWS 1 PRECEDING), expected_confusion(b, 0.5) OVER (ORDER BY g ROWS 1 PRECEDING),"
  " group_disparity(b, g % 2, 0.5) OVER (ORDER BY g ROWS 1 PRECEDING) FROM st",
  /* the distribution states (labels or not): made, merged, drifted, over windows */
  "WITH st AS (SELECT g, ml_state_dist(s) d, ml_state_dist_w(p, z + 0.5) dw FROM t GROUP BY g)"
  " SELECT hex(ml_merge(d)), hex(ml_merge(dw)), psi((SELECT ml_merge(d) FROM st), d), ks_test((SELECT d FROM st WHERE g = 0), d),"
  " wasserstein((SELECT dw FROM st WHERE g = 0), dw), drift_report((SELECT d FROM st WHERE g = 1), d, 4) FROM st",
  "SELECT hex(ml_state_dist(s)" W "), hex(ml_state_dist_w(p, z)" W ") FROM t",
  "WITH st AS (SELECT g, ml_state_dist(s) d FROM t GROUP BY g)"
  " SELECT psi((SELECT d FROM st WHERE g = 0), d) OVER (ORDER BY g ROWS 1 PRECEDING) FROM st",
  "SELECT psi(ml_state_dist(s), NULL) FROM t",       /* the empty period's warning under OOM */
  "SELECT mleval_version(), mleval_build_info(), mleval_functions()",
  "SELECT pr_auc(3, 0.5)",                           /* an error text must survive OOM too */
  "SELECT method, driver, rank FROM svd_bench(12, 8, 3, 0, 1)",
  "SELECT method, driver FROM svd_bench(10, 6, 2, 0, 1, 'cpu', 'float32', 1, 'decay')",
  /* the accuracy paths (reconstruction error, singular-value comparison):
  ** an allocation failure there must be SQLITE_NOMEM, never a NULL value */
  "SELECT method, printf('%.4e', recon_rel_error), sv_rel_error < 1e-10, sv_correlation > 0.999"
  " FROM svd_bench(12, 8, 3, 0, 1)",
  "SELECT method, printf('%.2e', recon_rel_error), sv_rel_error < 1e-4"
  " FROM svd_bench(16, 9, 4, 0, 1, 'cpu', 'float32', 5, 'decay')",
  /* the survival family's scalar: censoring_km()'s curve read back */
  "SELECT sum(ipcw(c, z, y, 5)) FROM t, (SELECT censoring_km(z, y) AS c FROM t)",
  /* arguments from a join, read back from the hidden columns */
  "SELECT t.g, s.method, s.arg_rank, s.arg_device FROM (SELECT DISTINCT g FROM t) AS t,"
  " svd_bench(6, 5, t.g + 1, 0, 1) AS s ORDER BY 1, 2",
};

/* Cases generated from the records (mleval_functions()): every aggregate,
** with its data arguments from t's columns by role and its parameters at
** their spec's examples, over GROUP BY and over a sliding window (on a
** shorter table: windows re-run a result per frame).  So a new function is
** under fault injection from its record on; the hand-written cases above
** add the paths examples do not reach (states, errors, plots, svd_bench). */
#define MAX_CASES 1024
static const char *azCase[MAX_CASES];
static int nCase = 0;

static void build_cases(void){
  static const char *zGen =
    "WITH f AS (SELECT key AS i, value AS v FROM json_each(mleval_functions())"
    "            WHERE value->>'family' NOT IN ('scalar', 'plot', 'state')),"
    " c AS (SELECT i, v->>'name' AS name, (SELECT group_concat("
    /* the long layout (id, y, class, p [, w]): each id two rows of one g, its
    ** classes 0 and 1, one y and one w, probabilities summing to 1 */
    "   CASE WHEN instr(v->>'data', '\"class\"') THEN CASE r.value"
    "     WHEN 'id' THEN '((id - 1) % 3 + 3 * ((id - 1) / 6))' WHEN 'class' THEN '((id - 1) / 3 % 2)' WHEN 'y' THEN '((id - 1) % 3 + 3 * ((id - 1) / 6)) % 2'"
    "     WHEN 'p' THEN 'iif(((id - 1) / 3 % 2) = 0, (((id - 1) % 3 + 3 * ((id - 1) / 6)) * 37 % 101) / 101.0, 1 - (((id - 1) % 3 + 3 * ((id - 1) / 6)) * 37 % 101) / 101.0)' WHEN 'w' THEN '((id - 1) % 3 + 3 * ((id - 1) / 6)) % 4 / 2.0' END ELSE"
    "   CASE r.value WHEN 'y' THEN iif(v->>'family' = 'ordinal', 'o', 'y') WHEN 's' THEN 's' WHEN 'p' THEN 'p'"
    "     WHEN 'strat' THEN 'z' WHEN 's_a' THEN 's' WHEN 's_b' THEN 'p' WHEN 'p_a' THEN 'p'"
    "     WHEN 'p_b' THEN 'p * p' WHEN 'x' THEN 's' WHEN 'g' THEN 'o % 2' WHEN 's_1' THEN 's'"
    "     WHEN '...' THEN NULL WHEN 's_m' THEN 'p' WHEN 'w' THEN 'z / 4'"
    "     WHEN 's_0' THEN 's' WHEN 's_k-1' THEN 'p' WHEN 'p_0' THEN 'p' WHEN 'p_k-1' THEN '1 - p' WHEN 'group' THEN 'o'"
    "     WHEN 'time' THEN 'z' WHEN 'event' THEN 'y' WHEN 'risk' THEN 's' WHEN 'horizon' THEN '1 + o % 2'"
    "     WHEN 'risk_a' THEN 's' WHEN 'risk_b' THEN 'p'"
    "     END END, ', ') FROM json_each(v->'data') AS r)"
    "   || coalesce((SELECT group_concat(', ' || (p.value->>'example'), '') FROM json_each(v->'params') AS p), '')"
    "   AS args FROM f)"
    " SELECT printf('SELECT g, %s(%s) FROM t GROUP BY g', name, args) FROM c"
    " UNION ALL SELECT printf('SELECT %s(%s) OVER (ORDER BY id ROWS BETWEEN 9 PRECEDING AND CURRENT ROW)"
    " FROM t WHERE id <= 24', name, args) FROM c"
    /* and one of the other frame kinds each, in turn: GROUPS, RANGE with an
    ** offset, EXCLUDE (SQLite then steps and removes rows in other orders) */
    " UNION ALL SELECT printf('SELECT %s(%s) OVER (%s) FROM t WHERE id <= 24', name, args,"
    "   CASE i % 4 WHEN 0 THEN 'ORDER BY g GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW'"
    "     WHEN 1 THEN 'ORDER BY id RANGE BETWEEN 6 PRECEDING AND 2 FOLLOWING'"
    "     WHEN 2 THEN 'ORDER BY id ROWS BETWEEN 7 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW'"
    "     ELSE 'PARTITION BY o ORDER BY g GROUPS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE TIES' END)"
    " FROM c";
  sqlite3 *db = 0;
  sqlite3_stmt *st = 0;
  size_t i;
  for(i=0; i<sizeof(aCase)/sizeof(aCase[0]); i++) azCase[nCase++] = aCase[i];
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK || sqlite3_prepare_v2(db, zGen, -1, &st, 0)!=SQLITE_OK ){
    fprintf(stderr, "check_oom: cannot read the records: %s\n", sqlite3_errmsg(db));
    exit(EXIT_FAILURE);
  }
  while( sqlite3_step(st)==SQLITE_ROW ){
    if( nCase>=MAX_CASES ){ fprintf(stderr, "check_oom: more than %d cases\n", MAX_CASES); exit(EXIT_FAILURE); }
    azCase[nCase++] = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  if( nCase < (int)(sizeof(aCase)/sizeof(aCase[0])) + 50 ){
    fprintf(stderr, "check_oom: the records gave %d cases\n", nCase - (int)(sizeof(aCase)/sizeof(aCase[0])));
    exit(EXIT_FAILURE);
  }
}

/* The database every run starts from: t, built once, each run given a copy
** of its image (sqlite3_deserialize), kept to the end. */
static unsigned char *aImage = 0;
static sqlite3_int64 nImage = 0;

static void build_image(void){
  sqlite3 *db = 0;
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK || sqlite3_exec(db, zSchema, 0, 0, 0)!=SQLITE_OK
   || (aImage = sqlite3_serialize(db, "main", &nImage, 0))==0 ){
    fprintf(stderr, "check_oom: cannot build the table: %s\n", sqlite3_errmsg(db));
    exit(EXIT_FAILURE);
  }
  sqlite3_close(db);
}

/* Runs zSql on a fresh database; the rows' text (or "error: msg") in zOut.
** Returns the final sqlite3 result code. */
static int run_case(const char *zSql, int armAt, int persist, char *zOut, size_t nOut){
  sqlite3 *db = 0;
  sqlite3_stmt *st = 0;
  int rc;
  size_t k = 0;
  zOut[0] = 0;
  rc = sqlite3_open(":memory:", &db);
  ck_assert_int_eq(rc, SQLITE_OK);
  {
    unsigned char *a = sqlite3_malloc64(nImage);
    ck_assert_ptr_nonnull(a);
    memcpy(a, aImage, nImage);
    rc = sqlite3_deserialize(db, "main", a, nImage, nImage,
                             SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
    ck_assert_int_eq(rc, SQLITE_OK);
  }
  failAt = armAt; persistent = persist; nAlloc = 0;
  rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  while( rc==SQLITE_OK || rc==SQLITE_ROW ){
    if( (rc = sqlite3_step(st))!=SQLITE_ROW ) break;
    int i;
    for(i=0; i<sqlite3_column_count(st); i++){
      const char *z = (const char*)sqlite3_column_text(st, i);
      if( z==0 && sqlite3_column_type(st, i)!=SQLITE_NULL ){ rc = SQLITE_NOMEM; break; }
      k += snprintf(zOut + k, k<nOut ? nOut - k : 0, "%s|", z ? z : "NULL");
    }
    if( rc==SQLITE_NOMEM ) break;
    k += snprintf(zOut + k, k<nOut ? nOut - k : 0, "\n");
  }
  if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  else if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){
    rc = sqlite3_errcode(db);
    snprintf(zOut, nOut, "error %d: %s", rc, sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  nArmed = nAlloc;
  failAt = 0;
  sqlite3_close(db);
  return rc;
}

static int nPoint = 0;         /* $MLEVAL_OOM_POINTS: 0, every failure point */

/* The failure point after n in a sampled run of a statement making nTotal
** allocations (case i): 1..P/2, then P/2 points evenly spread, the last.
** Returns 0 when there is none. */
static int next_point(int n, int nTotal, int i){
  int half = nPoint/2, step = (nTotal - half + half - 1)/(half ? half : 1);
  if( n >= nTotal ) return 0;
  if( n < half ) return n + 1;
  if( step < 1 ) step = 1;
  n = n==half ? half + 1 + (i*7919) % step : n + step;   /* the offset moves with the case */
  return n < nTotal ? n : nTotal;
}

START_TEST(test_every_function_under_oom){
  static char zWant[1<<20], zGot[1<<20];
  const char *zSql = azCase[_i];
  int mode, n, nRun = 0, nTotal;
  sqlite3_int64 mem0 = sqlite3_memory_used();
  int rcWant = run_case(zSql, 0, 0, zWant, sizeof(zWant));
  nTotal = nArmed;
  ck_assert_msg(rcWant==SQLITE_OK || strncmp(zWant, "error 1:", 8)==0, "%s: %s", zSql, zWant);
  ck_assert_msg(sqlite3_memory_used()==mem0, "%s leaks %lld bytes unarmed", zSql,
                (long long)(sqlite3_memory_used() - mem0));
  for(mode=0; mode<2; mode++){
    for(n=1; n>0; n = nPoint ? next_point(n, nTotal, _i) : n + 1){
      int rc;
      nFailed = 0;
      rc = run_case(zSql, n, mode, zGot, sizeof(zGot));
      nRun++;
      ck_assert_msg(sqlite3_memory_used()==mem0, "%s: fail #%d (%s): %lld bytes leaked", zSql, n,
                    mode ? "persistent" : "transient", (long long)(sqlite3_memory_used() - mem0));
      if( rc==SQLITE_NOMEM ) continue;
      /* When the expected outcome is an error, SQLite's sqlite3_result_error()
      ** copies the message and ignores a failed copy: the statement then
      ** fails with SQLITE_ERROR and no message ("SQL logic error").  That is
      ** still the documented error class, just without its text. */
      if( rcWant!=SQLITE_OK && strcmp(zGot, "error 1: SQL logic error")==0 ) continue;
      ck_assert_msg(strcmp(zGot, zWant)==0, "%s: fail #%d (%s): got\n%.300s\nwant\n%.300s", zSql, n,
                    mode ? "persistent" : "transient", zGot, zWant);
      if( nFailed==0 ) break;     /* the Nth allocation never came: every N is covered */
    }
  }
  ck_assert_int_gt(nRun, 2);
  ck_assert_msg(nPoint || nRun >= 2*nTotal, "%s: %d runs for %d allocations", zSql, nRun, nTotal);
}
END_TEST

int main(int argc, char **argv){
  Suite *s = suite_create("oom");
  TCase *tc = tcase_create("fault injection");
  SRunner *sr;
  sqlite3_mem_methods m;
  int nFail;
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &defaultMem);
  m = defaultMem;
  m.xMalloc = oomMalloc;
  m.xRealloc = oomRealloc;
  sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
  sqlite3_initialize();
  sqlite3_auto_extension((void(*)(void))sqlite3_mleval_init);
  ml_svd_backend_dir(getenv("MLEVAL_BACKEND_DIR"));
  build_cases();
  build_image();
  if( getenv("MLEVAL_OOM_POINTS") ) nPoint = atoi(getenv("MLEVAL_OOM_POINTS"));
  if( nPoint<0 || nPoint==1 ){ fprintf(stderr, "check_oom: MLEVAL_OOM_POINTS must be 0 or at least 2\n"); exit(EXIT_FAILURE); }
  if( nPoint ) printf("check_oom: sampled: %d failure points a statement and mode ($MLEVAL_OOM_POINTS)\n", nPoint);
  if( argc==2 && strcmp(argv[1], "--list")==0 ){      /* the statements, for test_registry */
    int i;
    for(i=0; i<nCase; i++) printf("%s\n", azCase[i]);
    return 0;
  }
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_every_function_under_oom, 0, nCase);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  nFail = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nFail ? EXIT_FAILURE : EXIT_SUCCESS;
}
