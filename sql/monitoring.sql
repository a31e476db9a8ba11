-- SPDX-License-Identifier: MIT
-- Monitoring the demo's second model (column pm of sql/demo_data.sql): is its
-- score drifting, does it treat the sources alike, and what AUROC should it
-- have before the labels arrive.  pm is calibrated until day 60; from day 61
-- an upstream change shifts its input (labels unchanged; the generator,
-- sql/make_demo_data.py, says how).  Reference period: days 0-29.
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/monitoring.sql
-- Functions: docs/monitoring.md, docs/states.md (ml_state, ml_state_dist, ml_merge),
-- docs/validation.md (calibration_summary).  make check
-- (tests/sql_scripts.sh) compares this script's whole output with
-- sql/monitoring.expected; docs/monitoring.md quotes it.
.read sql/demo_data.sql
.mode box

.print 1. Daily drift of the last 7 days against days 0-29, from the rows (every 7th day shown)
-- A day has about 16 rows, too few for 10 PSI bins: each day compares its
-- trailing week (about 115 rows) with the reference (about 500).  g = 0 for
-- the reference rows, 1 for the week's rows.
CREATE TEMP TABLE drift_rows AS
  SELECT d.ts AS day,
         (SELECT psi(ts > d.ts - 7, pm) FROM preds WHERE ts < 30 OR ts BETWEEN d.ts - 6 AND d.ts) AS psi,
         (SELECT ks_test(ts > d.ts - 7, pm) FROM preds WHERE ts < 30 OR ts BETWEEN d.ts - 6 AND d.ts) AS ks
  FROM (SELECT DISTINCT ts FROM preds WHERE ts >= 36) d;
SELECT day, round(psi, 3) AS psi, round(ks ->> '$.statistic', 3) AS ks,
       printf('%.1e', ks ->> '$.p_value') AS ks_p, ks ->> '$.method' AS method
FROM drift_rows WHERE day % 7 = 1 ORDER BY day;

.print
.print 2. The same from one ml_state_dist per day against one reference state
-- The daily states are what a monitoring job keeps (one small BLOB a day):
-- ml_state_dist(pm) holds every row's pm, labelled or not (ml_state(y, pm)
-- would hold the labelled rows only, and a day without labels would be no
-- state at all); the reference is the merge of days 0-29, each trailing
-- week the merge of its 7 days.  The results equal the row query bit for bit.
CREATE TEMP TABLE daily AS SELECT ts AS day, ml_state_dist(pm) AS st FROM preds GROUP BY ts;
CREATE TEMP TABLE ref AS SELECT ml_merge(st) AS st FROM daily WHERE day < 30;
CREATE TEMP TABLE trailing AS
  SELECT d.day, (SELECT ml_merge(st) FROM daily WHERE day BETWEEN d.day - 6 AND d.day) AS st
  FROM daily d WHERE d.day >= 36;
CREATE TEMP TABLE drift_states AS
  SELECT w.day, psi(ref.st, w.st) AS psi, ks_test(ref.st, w.st) AS ks, drift_report(ref.st, w.st) AS rep
  FROM trailing w, ref GROUP BY w.day;
SELECT s.day, s.rep ->> '$.n_cur' AS n_cur, round(s.psi, 3) AS psi, round(s.ks ->> '$.statistic', 3) AS ks,
       round(s.rep ->> '$.wasserstein', 3) AS wasserstein, round(s.rep ->> '$.mean_cur', 3) AS mean_cur,
       round(s.rep ->> '$.auroc_period', 3) AS auroc_period, s.psi = r.psi AND s.ks = r.ks AS "= rows"
FROM drift_states s JOIN drift_rows r USING (day) WHERE s.day % 7 = 1 ORDER BY s.day;
SELECT count(*) AS days, sum(s.psi = r.psi AND s.ks = r.ks) AS "equal to the rows",
       sum(s.psi > 0.25) AS "psi > 0.25", min(s.day) FILTER (WHERE s.psi > 0.25) AS "first day psi > 0.25",
       sum(s.ks ->> '$.p_value' < 0.001) AS "ks p < 0.001",
       min(s.day) FILTER (WHERE s.ks ->> '$.p_value' < 0.001) AS "first day ks p < 0.001"
FROM drift_states s JOIN drift_rows r USING (day);

.print
.print 3. Subgroups: group_disparity(y, pm, source, 0.5), reference and last 30 days
CREATE TEMP TABLE disp AS
  SELECT 'days 0-29' AS period, group_disparity(y, pm, source, 0.5) AS j FROM preds WHERE ts < 30
  UNION ALL
  SELECT 'days 335-364', group_disparity(y, pm, source, 0.5) FROM preds WHERE ts >= 335;
SELECT period, g.value ->> '$.group' AS source, g.value ->> '$.n' AS n, g.value ->> '$.positives' AS positives,
       round(g.value ->> '$.selection_rate', 3) AS selection_rate, round(g.value ->> '$.tpr', 3) AS tpr,
       round(g.value ->> '$.fpr', 3) AS fpr, round(g.value ->> '$.precision', 3) AS precision,
       round(g.value ->> '$.auroc', 3) AS auroc
FROM disp, json_each(disp.j, '$.groups') g ORDER BY period, source;
SELECT period, round(j ->> '$.demographic_parity_difference', 3) AS dp_diff,
       round(j ->> '$.demographic_parity_ratio', 3) AS dp_ratio,
       round(j ->> '$.equalized_odds_difference', 3) AS eo_diff,
       round(j ->> '$.equal_opportunity_difference', 3) AS eopp_diff,
       round(j ->> '$.auroc_difference', 3) AS auroc_diff
FROM disp ORDER BY period;

.print
.print 4. Expected AUROC (no labels) against the realised one, per week
SELECT ts / 7 AS week, count(*) AS n, round(expected_auroc(pm), 3) AS expected_auroc,
       round(auroc(y, pm), 3) AS auroc, round(avg(pm), 3) AS mean_pm, round(avg(y), 3) AS prevalence
FROM preds GROUP BY week ORDER BY week;
-- A week holds about 14 positives, so its realised AUROC moves by +-0.04
-- from noise alone; over longer periods the gap is the calibration's.
SELECT period, count(*) AS n, round(expected_auroc(pm), 3) AS expected_auroc, round(auroc(y, pm), 3) AS auroc,
       round(expected_pr_auc(pm), 3) AS expected_pr_auc, round(pr_auc(y, pm), 3) AS pr_auc,
       round(expected_confusion(pm, 0.5) ->> '$.tp', 1) AS expected_tp,
       sum(y = 1 AND pm >= 0.5) AS tp
FROM (SELECT CASE WHEN ts < 60 THEN 'days 0-59' WHEN ts < 120 THEN 'days 60-119' ELSE 'days 120-364' END AS period, ts, y, pm
      FROM preds)
GROUP BY period ORDER BY min(ts);

.print
.print 5. Is pm calibrated? calibration_summary(y, pm) on labelled periods
SELECT period, c ->> '$.n' AS n, c ->> '$.events' AS events, round(c ->> '$.expected', 1) AS expected,
       round(c ->> '$.oe_ratio', 3) AS "O/E", round(c ->> '$.intercept', 3) AS intercept,
       round(c ->> '$.intercept_lo', 3) AS int_lo, round(c ->> '$.intercept_hi', 3) AS int_hi,
       round(c ->> '$.slope', 3) AS slope, round(c ->> '$.slope_lo', 3) AS slope_lo,
       round(c ->> '$.slope_hi', 3) AS slope_hi
FROM (SELECT 'days 0-29' AS period, calibration_summary(y, pm) AS c FROM preds WHERE ts < 30
      UNION ALL SELECT 'days 0-59', calibration_summary(y, pm) FROM preds WHERE ts < 60
      UNION ALL SELECT 'days 120-364', calibration_summary(y, pm) FROM preds WHERE ts >= 120)
ORDER BY period;
