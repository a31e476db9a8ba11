-- Incremental monitoring with partial states: one state per day, kept in a
-- table; "PR-AUC over any date range" merges the days' states instead of
-- rescanning the raw predictions (docs/states.md, bench/RESULTS.md).
--   sqlite3 -cmd '.load ext/.libs/mleval' monitor.db < sql/incremental.sql
.mode box

-- 90 days of predictions, 400 a day, probabilities stored to 4 decimals.
CREATE TABLE preds(day TEXT, y INTEGER, p REAL);
WITH RECURSIVE d(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM d WHERE k < 89),
     r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 399)
INSERT INTO preds
SELECT date('2026-01-01', '+' || k || ' days'),
       (abs(random()) % 100) < 20 + k / 9,                       -- prevalence drifts up
       NULL
FROM d, r;
UPDATE preds SET p = round(min(1.0, max(0.0, 0.35 * y + (abs(random()) % 10000) / 10000.0 * 0.7)), 4);

-- The nightly job: one state per day (INSERT OR REPLACE makes a re-run harmless).
CREATE TABLE daily_states(day TEXT PRIMARY KEY, n INTEGER, st BLOB NOT NULL);
INSERT OR REPLACE INTO daily_states
SELECT day, count(*), ml_state(y, p) FROM preds GROUP BY day;

.print Daily states: rows, and bytes (a day of 400 rows of 4-decimal scores)
SELECT count(*) AS days, sum(n) AS rows, sum(length(st)) AS state_bytes,
       round(avg(length(st)), 1) AS bytes_per_day FROM daily_states;

.print
.print PR-AUC, AUROC and ECE over 2026-02-01 .. 2026-02-28 from 28 states, and by rescanning the rows
SELECT 'states' AS from_, round(pr_auc(st), 6) AS pr_auc, round(auroc(st), 6) AS auroc, round(ece(st, 15), 6) AS ece
FROM daily_states WHERE day BETWEEN '2026-02-01' AND '2026-02-28'
UNION ALL
SELECT 'rows', round(pr_auc(y, p), 6), round(auroc(y, p), 6), round(ece(y, p, 15), 6)
FROM preds WHERE day BETWEEN '2026-02-01' AND '2026-02-28';

-- The two must agree exactly: json('...') fails the script (-bail) otherwise.
SELECT CASE WHEN (SELECT pr_auc(st) FROM daily_states WHERE day BETWEEN '2026-02-01' AND '2026-02-28')
              = (SELECT pr_auc(y, p) FROM preds WHERE day BETWEEN '2026-02-01' AND '2026-02-28')
            THEN 'exact' ELSE json('states and rows disagree') END AS check_;

.print
.print Rolling 7-day PR-AUC (a window over states), the last 5 days
SELECT day, round(pr_auc(st) OVER w, 4) AS pr_auc_7d, round(brier(st) OVER w, 4) AS brier_7d
FROM daily_states WINDOW w AS (ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW)
ORDER BY day DESC LIMIT 5;

.print
.print Monthly roll-ups: merge each month's states into one (kept, merged again later)
CREATE TABLE monthly_states AS
SELECT substr(day, 1, 7) AS month, sum(n) AS n, ml_merge(st) AS st FROM daily_states GROUP BY month;
SELECT month, n, length(st) AS bytes, round(pr_auc(st), 4) AS pr_auc FROM monthly_states GROUP BY month;
SELECT CASE WHEN (SELECT pr_auc(st) FROM monthly_states) = (SELECT pr_auc(y, p) FROM preds)
            THEN 'exact' ELSE json('monthly roll-ups and rows disagree') END AS quarter_from_rollups;
