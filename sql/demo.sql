-- SPDX-License-Identifier: MIT
-- mleval demo: run with `make demo` (or, from the top of the tree,
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/demo.sql)
.read sql/demo_data.sql
.mode box
.print
.print mleval, loaded:
SELECT mleval_version() AS version, mleval_build_info() ->> '$.cuda' AS cuda;

.print
.print Ranking per fold: average precision, ROC AUC, chance-normalised AP
SELECT fold, count(*) AS n, sum(y) AS positives,
       round(pr_auc(y, s), 4) AS pr_auc,
       round(auroc(y, s), 4)  AS auroc,
       round(nap(y, s), 4)    AS nap
FROM preds GROUP BY fold ORDER BY fold;

.print
.print Ranking per source
SELECT source, count(*) AS n, round(avg(y), 3) AS prevalence,
       round(pr_auc(y, s), 4) AS pr_auc,
       round(auroc(y, s), 4)  AS auroc,
       round(nap(y, s), 4)    AS nap
FROM preds GROUP BY source ORDER BY source;

.print
.print Drift: PR-AUC over the last 1000 predictions, sampled every 1000 rows
SELECT id, ts AS day, round(w_pr_auc, 4) AS pr_auc_last_1000, round(w_auroc, 4) AS auroc_last_1000
FROM (SELECT id, ts,
             pr_auc(y, s) OVER w AS w_pr_auc,
             auroc(y, s)  OVER w AS w_auroc
      FROM preds WINDOW w AS (ORDER BY id ROWS BETWEEN 999 PRECEDING AND CURRENT ROW))
WHERE id % 1000 = 0;

.print
.print Operating points per fold (sql/operating_points.sql has more)
SELECT fold, round(sens_at_spec(y, s, 0.95), 4) AS sens_at_95spec, round(youden_j(y, s), 4) AS youden_j,
       confusion(y, s, 0.0) ->> '$.tp' AS tp_at_0, confusion(y, s, 0.0) ->> '$.fp' AS fp_at_0
FROM preds GROUP BY fold ORDER BY fold;

.print
.print Calibration per source (sql/calibration_audit.sql has more)
SELECT source, round(brier(y, p), 4) AS brier, round(log_loss(y, p), 4) AS log_loss,
       round(ece(y, p, 10), 4) AS ece, round(ece_l2_debiased(y, p), 4) AS ece_l2_debiased
FROM preds GROUP BY source ORDER BY source;

.print
.print Does the model ride text length? Stratified PR-AUC per source (sql/confound_audit.sql)
SELECT source, round(r ->> '$.full', 4) AS full, round(r ->> '$.trimmed', 4) AS trimmed,
       round(r ->> '$.gap', 4) AS gap, r ->> '$.gap_flag' AS flag, coalesce(r ->> '$.reason', '') AS reason
FROM (SELECT source, strat_report(y, s, len) AS r FROM preds GROUP BY source) ORDER BY source;

.print
.print Ordinal severities (Low/High/Critical, sql/ordinal_audit.sql)
.read sql/ordinal_data.sql
SELECT fold, round(ordinal_auprc(y, p_high + p_crit, p_crit), 3) AS ordinal_auprc,
       round(ordinal_nap(y, p_high + p_crit, p_crit), 3) AS ordinal_nap
FROM severity GROUP BY fold ORDER BY fold;

.print
.print The cost of an SVD here (svd_bench, docs/svd_bench.md)
SELECT method, device, driver, round(ms_median, 3) AS ms_median, printf('%.1e', sv_rel_error) AS sv_rel_error
FROM svd_bench(128, 512, 16, 2, 5, 'cpu', 'float64', 0, 'decay');
