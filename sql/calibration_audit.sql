-- SPDX-License-Identifier: MIT
-- Calibration audit on the demo data.
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/calibration_audit.sql
.read sql/demo_data.sql
.mode box
.print Calibration per source (p is the model's probability)
SELECT source, count(*) AS n,
       round(brier(y, p), 4)           AS brier,
       round(log_loss(y, p), 4)        AS log_loss,
       round(ece(y, p, 10), 4)         AS ece_10,
       round(ece_l2_debiased(y, p), 4) AS ece_l2_debiased,
       round(ece_l2_kumar(y, p), 4)    AS ece_l2_kumar
FROM preds GROUP BY source ORDER BY source;

.print
.print Reliability diagram, source = 'app' (10 equal-width bins)
SELECT value ->> 'bin' AS bin, value ->> 'lo' AS lo, value ->> 'hi' AS hi, value ->> 'n' AS n,
       round(value ->> 'mean_p', 4) AS mean_p, round(value ->> 'frac_pos', 4) AS frac_pos
FROM json_each((SELECT reliability(y, p, 10) FROM preds WHERE source = 'app'));

.print
.print Running calibration over time: the last 1500 predictions, every 1000 rows
SELECT id, ts AS day, round(b, 4) AS brier_last_1500, round(e, 4) AS ece_last_1500
FROM (SELECT id, ts, brier(y, p) OVER w AS b, ece(y, p, 10) OVER w AS e
      FROM preds WINDOW w AS (ORDER BY id ROWS BETWEEN 1499 PRECEDING AND CURRENT ROW))
WHERE id % 1000 = 0;
