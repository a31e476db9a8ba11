-- SPDX-License-Identifier: MIT
-- uncertainty.sql -- the examples of docs/uncertainty.md with their output,
-- every function of the family once, and its edge cases.
.read ../../sql/demo_data.sql
.mode column
.headers on
SELECT fold, count(*) AS n, round(pr_auc(y, s), 4) AS ap,
       round(pr_auc_ci(y, s) ->> '$.lo', 4) AS ap_lo,
       round(pr_auc_ci(y, s) ->> '$.hi', 4) AS ap_hi,
       round(auroc_ci(y, s) ->> '$.estimate', 4) AS auroc,
       round(auroc_ci(y, s) ->> '$.lo', 4) AS auroc_lo,
       round(auroc_ci(y, s) ->> '$.hi', 4) AS auroc_hi,
       round(ece_ci(y, p) ->> '$.estimate', 4) AS ece,
       round(ece_ci(y, p) ->> '$.hi', 4) AS ece_hi
FROM preds GROUP BY fold;
.mode list
.headers off
SELECT mean_ci(ap) FROM (SELECT fold, pr_auc(y, s) AS ap FROM preds GROUP BY fold);
SELECT pr_auc_ci(y, s) FROM preds WHERE fold = 1;
SELECT nap_ci(y, s, 0.9, 200, 1) FROM preds WHERE fold = 1;
SELECT brier_ci(y, p, 0.9, 200, 2) FROM preds WHERE fold = 1;
SELECT log_loss_ci(y, p, 0.9, 200, 3) FROM preds WHERE fold = 1;
SELECT ece_ci(y, p, 15, 0.9, 200, 4) FROM preds WHERE fold = 1;
SELECT auroc_ci(y, s) FROM preds WHERE fold = 1;
SELECT auroc_diff(y, s, p) FROM preds;
SELECT pr_auc_diff_ci(y, s, p) FROM preds;
SELECT ece_diff_ci(y, p, 1/(1+exp(-s)), 10, 0.95, 200) FROM preds;
SELECT source, strat_gap_ci(y, s, len, 0.25, 0.75, 0.95, 200) FROM preds GROUP BY source;
-- the same rows in a window frame give the aggregate's text
SELECT count(DISTINCT v) FROM (SELECT pr_auc_ci(y, s, 0.9, 50) OVER (PARTITION BY fold) AS v FROM preds WHERE fold <= 2);
-- one class, one value, no rows
SELECT pr_auc_ci(y, s) IS NULL, auroc_ci(y, s) IS NULL, brier_ci(y, p, 0.9, 10) IS NOT NULL FROM preds WHERE y = 1;
SELECT mean_ci(0.5);
SELECT mean_ci(x) IS NULL FROM (SELECT 1 AS x) WHERE 0;
-- errors
SELECT strat_gap_ci(y, s, len, 0.25) FROM preds;
SELECT pr_auc_ci(y, s, 0.95, 5) FROM preds;
SELECT auroc_diff(y, s) FROM preds;
-- partial states (SPEC "Partial states"): the one-score functions and
-- strat_gap_ci take a state in place of their rows and give the row query's
-- result; a probability function checks the state's scores; the paired
-- functions take none
CREATE TABLE ps(g, y, s, z);
INSERT INTO ps SELECT value % 4, (value * 7919) % 3 = 0, ((value * 104729) % 1000) / 1000.0, value % 13 FROM generate_series(1, 400);
SELECT 'state = rows',
  (SELECT pr_auc_ci(y, s, 0.9, 50, 1) FROM ps) = (SELECT pr_auc_ci(st, 0.9, 50, 1) FROM (SELECT ml_state(y, s) AS st FROM ps GROUP BY g)),
  (SELECT strat_gap_ci(y, s, z, 0.1, 0.9, 0.9, 30) FROM ps) = (SELECT strat_gap_ci(st, 0.1, 0.9, 0.9, 30) FROM (SELECT ml_state(y, s, z) AS st FROM ps GROUP BY g));
SELECT brier_ci(st) FROM (SELECT ml_state(0, 3.0) AS st);
SELECT auroc_diff(st, 0.2, 0.3) FROM (SELECT ml_state(y, s) AS st FROM ps);
-- pr_auc_delta_ci: pr_auc's estimate, the delta method's se and logit
-- interval; the bootstrap's se beside it; over states; its weighted twin
SELECT fold, pr_auc_delta_ci(y, s), round(pr_auc_ci(y, s) ->> '$.se', 4) FROM preds GROUP BY fold;
SELECT (SELECT pr_auc_delta_ci(y, s, 0.9) FROM ps) = (SELECT pr_auc_delta_ci(st, 0.9) FROM (SELECT ml_state(y, s) AS st FROM ps GROUP BY g));
SELECT pr_auc_delta_ci_w(y, s, 1 + z % 3) FROM ps;
SELECT pr_auc_delta_ci(y, s) FROM (SELECT 1 AS y, 0.9 AS s UNION ALL SELECT 0, 0.1);
SELECT pr_auc_delta_ci(y, s, 1.5) FROM preds;
SELECT pr_auc_delta_ci(st) FROM (SELECT ml_state_w(y, s, 2) AS st FROM ps);
SELECT pr_auc_diff_delta(y, s, p) FROM preds;
SELECT pr_auc_diff_delta(y, s, s) ->> '$.p_value', pr_auc_diff_delta(y, s, p, 0) FROM preds;
