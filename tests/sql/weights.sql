-- Weighted twins (docs/weights.md): the examples with their output, and
-- every bad weight's error text.
.mode list
CREATE TABLE t(y, s, w);
INSERT INTO t VALUES (1, 0.9, 2), (0, 0.8, 1), (1, 0.7, 0.5), (0, 0.3, 3), (1, 0.3, 1), (0, 0.1, 0);
SELECT pr_auc_w(y, s, w), auroc_w(y, s, w), nap_w(y, s, w), ks_w(y, s, w), youden_j_w(y, s, w) FROM t;
SELECT tpr_at_fpr_w(y, s, w, 0.3), sens_at_spec_w(y, s, w, 0.7) FROM t;
SELECT roc_curve_w(y, s, w) FROM t;
SELECT pr_curve_w(y, s, w) FROM t;
SELECT confusion_w(y, s, w, 0.5) FROM t;
SELECT mcc_w(y, s, w, 0.5), f_beta_w(y, s, w, 0.5, 2), net_benefit_w(y, s, w, 0.5) FROM t;
SELECT precision_at_prior_w(y, s, w, 0.5, 0.1) FROM t;
SELECT brier_w(y, s, w), log_loss_w(y, s, w), ece_w(y, s, w), mce_w(y, s, w, 5) FROM t;
-- integer weights are the rows repeated
SELECT pr_auc_w(y, s, 2) = pr_auc(y, s), ece_w(y, s, 3) = ece(y, s) FROM t;
-- a window over weighted rows
SELECT s, round(auroc_w(y, s, w) OVER (ORDER BY s ROWS BETWEEN 3 PRECEDING AND CURRENT ROW), 6) FROM t;
-- weight 0 or NULL drops the row; no row of positive weight: NULL
SELECT pr_auc_w(y, s, NULL), brier_w(y, s, 0), confusion_w(y, s, 0, 0.5) FROM t;
SELECT auroc_w(y, s, CASE WHEN y = 1 THEN w END) FROM t;
-- bad weights
SELECT pr_auc_w(y, s, -1) FROM t;
SELECT auroc_w(y, s, 1e999) FROM t;
SELECT brier_w(y, s, 'heavy') FROM t;
SELECT ece_w(y, s, x'01') FROM t;
SELECT confusion_w(y, s, -0.5, 0.5) FROM t;
SELECT mcc_w(y, s, w) FROM t;
SELECT pr_auc_w(y, s) FROM t;
SELECT tpr_at_fpr_w(y, s, w, 1.5) FROM t;
SELECT pr_auc_w(2, s, w) FROM t;
-- twins take no state
SELECT pr_auc_w(st, 1, 1) FROM (SELECT ml_state(y, s) AS st FROM t);
-- partial AUROC and operating points on weighted rates
SELECT partial_auroc_w(y, s, w, 0.5) FROM t;
SELECT operating_point_w(y, s, w, 'youden') FROM t;
SELECT operating_point_w(y, s, w, 'specificity', 0.7) FROM t;
SELECT operating_point_w(y, s, w, 'fpr') FROM t;
-- decision curve on weight sums
SELECT decision_curve_w(y, s, w, 0.1, 0.9, 0.2) FROM t;
SELECT decision_curve_w(y, s, 2) = decision_curve(y, s) FROM t;
-- the calibration family's binned twins: bins of weight, quantile and equal-mass cuts on cumulative weight
SELECT reliability_w(y, s, w, 3) FROM t;
SELECT reliability_w(y, s, w, 2, 'quantile') FROM t;
SELECT ece_equal_mass_w(y, s, w, 2), ece_l2_w(y, s, w, 2) FROM t;
SELECT brier_decomposition_w(y, s, w, 2) FROM t;
SELECT (SELECT reliability_w(y, s, 3, 2, 'quantile') FROM t)
     = (SELECT reliability(y, s, 2, 'quantile') FROM t, (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3));
SELECT ece_equal_mass_w(y, s, 0.1, 2) FROM t;
SELECT reliability_w(y, s, -2, 3, 'quantile') FROM t;
-- the stratified twins: the window on the stratifier's cumulative-weight axis, counts as weight sums
SELECT strat_report_w(y, s, 5, s) FROM t;
SELECT strat_report_w(y, s, w, s, 0.2, 0.8, 0.01) FROM t;
SELECT strat_pr_auc_w(y, s, w, s, 0, 1) IS strat_pr_auc(y, s, s, 0, 1), strat_gap_w(y, s, 0, s) FROM t;
SELECT strat_gap_w(y, s, w, s, 0.25) FROM t;
SELECT strat_pr_auc_w(y, s, 1e999, s) FROM t;
-- calibration_summary's twin: sums of weights, the logistic fits with frequency weights
SELECT calibration_summary_w(y, s, w) FROM t;
SELECT (SELECT calibration_summary_w(y, s, 2) FROM t) = (SELECT calibration_summary(y, s) FROM t, (SELECT 1 UNION ALL SELECT 2));
SELECT calibration_summary_w(y, s, CASE WHEN w > 1 THEN -w ELSE w END) FROM t;
-- top k and gains on the cumulative weight from the top: a tie group at a cut by its positive fraction
SELECT precision_at_k_w(y, s, w, 3), recall_at_k_w(y, s, w, 3), precision_at_k_w(y, s, w, 100) FROM t;
SELECT gains_w(y, s, w, 3) FROM t;
SELECT (SELECT precision_at_k_w(y, s, 3, 5) FROM t)
     = (SELECT precision_at_k(y, s, 5) FROM t, (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3)),
       (SELECT gains_w(y, s, 3, 4) FROM t)
     = (SELECT gains(y, s, 4) FROM t, (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3));
SELECT gains_w(y, s, 0.5, 4) FROM t;
SELECT precision_at_k_w(y, s, -1, 2) FROM t;
SELECT recall_at_k_w(y, s, 'x', 2) FROM t;
SELECT gains_w(y, s, w, 0) FROM t;
-- the weighted bootstrap of strat_gap_w, and the paired differences: the weight after both scores
SELECT strat_gap_ci_w(y, s, 10 * w, s, 0, 0.7, 0.9, 10), strat_gap_w(y, s, 10 * w, s, 0, 0.7) FROM t;
SELECT pr_auc_diff_ci_w(y, s, s * s + 0.1 * y, w, 0.9, 10, 1) FROM t;
SELECT ece_diff_ci_w(y, s, 1 - s, w, 2, 0.9, 10, 1) ->> '$.diff' = ece_w(y, s, w, 2) - ece_w(y, 1 - s, w, 2) FROM t;
SELECT pr_auc_diff_ci_w(y, s, s, -1) FROM t;
SELECT strat_gap_ci_w(y, s, 'x', s) FROM t;
-- auroc_diff's weighted counterpart: the weighted paired bootstrap (DeLong has no weighted form)
SELECT auroc_diff_w(y, s, 1 - s, w, 0.9, 20, 3) ->> '$.diff' = auroc_w(y, s, w) - auroc_w(y, 1 - s, w) FROM t;
SELECT auroc_diff_w(y, s, s, -w) FROM t;
-- weighted partial states: ml_state_w, read by the unweighted functions as their twins
CREATE TABLE ws AS SELECT s > 0.5 AS half, ml_state_w(y, s, w) AS st FROM t GROUP BY s > 0.5;
SELECT pr_auc(st) = (SELECT pr_auc_w(y, s, w) FROM t), ece(st, 5) = (SELECT ece_w(y, s, w, 5) FROM t),
       confusion(st, 0.5) = (SELECT confusion_w(y, s, w, 0.5) FROM t) FROM ws;
SELECT pr_auc(m), brier(m), reliability(m, 3) FROM (SELECT ml_merge(st) AS m FROM ws);
SELECT half, round(auroc(st) OVER (ORDER BY half ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), 6) FROM ws;
-- a binary state beside them weighs 1
SELECT pr_auc(b) = (SELECT pr_auc_w(y, s, CASE WHEN s > 0.5 THEN 1 ELSE w END) FROM t)
FROM (SELECT st AS b FROM ws WHERE NOT half UNION ALL SELECT ml_state(y, s) FROM t WHERE s > 0.5);
SELECT hex(substr(st, 1, 8)) FROM ws LIMIT 1;
SELECT ml_state_w(y, s, 0) IS NULL, ml_state_w(y, s, NULL) IS NULL FROM t;
SELECT ml_state_w(y, s, -1) FROM t;
SELECT ml_state_w(y, s, 'heavy') FROM t;
SELECT pr_auc_ci(st) FROM ws;
SELECT ece_l2_kumar(st, 2) FROM ws;
SELECT strat_report(st) FROM ws;
