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
