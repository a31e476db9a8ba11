-- SPDX-License-Identifier: MIT
-- The length-confound audit (eval_toolkit's canonical example) in SQL.
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/confound_audit.sql
-- sql/confound.csv: 500 rows, y ~ Bernoulli(0.3), length = U{20..99} + 80 y,
-- score = clip(0.5 y + N(0, 0.25) + 0.2 z(length), 0, 1), numpy seed 42
-- (sql/make_confound_data.py).
CREATE TABLE confound(y INT, length INT, score REAL);
.import --csv --skip 1 sql/confound.csv confound
.mode box
.print Length-confound example: does the model still rank inside the central 50 % of lengths?
SELECT (SELECT count(*) FROM confound) AS n,
       round(r ->> '$.full', 4)    AS full,
       round(r ->> '$.trimmed', 4) AS trimmed,
       round(r ->> '$.gap', 4)     AS gap,
       r ->> '$.gap_flag'          AS gap_flag,
       r ->> '$.stratifier_low'    AS len_low,
       r ->> '$.stratifier_high'   AS len_high,
       r ->> '$.pos_trimmed'       AS pos_in_window,
       r ->> '$.neg_trimmed'       AS neg_in_window
FROM (SELECT strat_report(y, score, length) AS r FROM confound);

.print
.print The same audit per source on the demo data (stratifier: text length)
.read sql/demo_data.sql
SELECT source,
       round(r ->> '$.full', 4)    AS full,
       round(r ->> '$.trimmed', 4) AS trimmed,
       round(r ->> '$.gap', 4)     AS gap,
       r ->> '$.gap_flag'          AS gap_flag,
       r ->> '$.stratifier_low' || '..' || (r ->> '$.stratifier_high') AS window,
       coalesce(r ->> '$.reason', '') AS reason
FROM (SELECT source, strat_report(y, s, len) AS r FROM preds GROUP BY source) ORDER BY source;

.print
.print Per fold and source, only the flagged ones
SELECT fold, source, round(strat_gap(y, s, len), 4) AS gap
FROM preds GROUP BY fold, source
HAVING strat_report(y, s, len) ->> '$.gap_flag'
ORDER BY gap DESC LIMIT 5;
