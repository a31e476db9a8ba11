-- Sharded files with partial states: each shard database computes its own
-- state; one query ATTACHes the shards and merges their states.  Here the
-- shards are in-memory databases; with files, ATTACH 'shard_1.db' AS s1.
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/shards.sql
.mode box
ATTACH ':memory:' AS s1;
ATTACH ':memory:' AS s2;
ATTACH ':memory:' AS s3;

-- Three shards of one model's predictions (y, s) and a stratifier (text length).
CREATE TABLE s1.preds(y INTEGER, s REAL, len INTEGER);
CREATE TABLE s2.preds(y INTEGER, s REAL, len INTEGER);
CREATE TABLE s3.preds(y INTEGER, s REAL, len INTEGER);
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 3000)
INSERT INTO s1.preds SELECT i % 4 = 0, (abs(random()) % 1000000) / 1e6 + (i % 4 = 0) * 0.25, 20 + i % 180 FROM r;
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2000)
INSERT INTO s2.preds SELECT i % 3 = 0, (abs(random()) % 1000000) / 1e6 + (i % 3 = 0) * 0.20, 20 + i % 240 FROM r;
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 500)
INSERT INTO s3.preds SELECT i % 5 = 0, (abs(random()) % 1000000) / 1e6 + (i % 5 = 0) * 0.30, 20 + i % 90 FROM r;

.print Each shard's state: one query over the attached shards, states merged by the outer aggregate
WITH states(shard, st) AS (
  SELECT 's1', ml_state(y, s, len) FROM s1.preds UNION ALL
  SELECT 's2', ml_state(y, s, len) FROM s2.preds UNION ALL
  SELECT 's3', ml_state(y, s, len) FROM s3.preds)
SELECT count(*) AS shards, sum(length(st)) AS state_bytes,
       round(pr_auc(st), 6) AS pr_auc, round(auroc(st), 6) AS auroc,
       round(strat_report(st, 0.25, 0.75) ->> '$.gap', 6) AS strat_gap
FROM states;

.print
.print The same over all rows at once (what a single database would give)
WITH rows_(y, s, len) AS (SELECT * FROM s1.preds UNION ALL SELECT * FROM s2.preds UNION ALL SELECT * FROM s3.preds)
SELECT round(pr_auc(y, s), 6) AS pr_auc, round(auroc(y, s), 6) AS auroc,
       round(strat_report(y, s, len, 0.25, 0.75) ->> '$.gap', 6) AS strat_gap
FROM rows_;

-- Exactly equal, or json() fails the script (-bail).
WITH states(st) AS (SELECT ml_state(y, s, len) FROM s1.preds UNION ALL
                    SELECT ml_state(y, s, len) FROM s2.preds UNION ALL
                    SELECT ml_state(y, s, len) FROM s3.preds),
     rows_(y, s, len) AS (SELECT * FROM s1.preds UNION ALL SELECT * FROM s2.preds UNION ALL SELECT * FROM s3.preds)
SELECT CASE WHEN (SELECT strat_report(st, 0.25, 0.75) FROM states) = (SELECT strat_report(y, s, len, 0.25, 0.75) FROM rows_)
            THEN 'exact' ELSE json('shards and rows disagree') END AS check_;

.print
.print Per-shard states stored back into each shard (what a nightly job would keep), merged with ml_merge
CREATE TABLE s1.state AS SELECT ml_state(y, s, len) AS st FROM s1.preds;
CREATE TABLE s2.state AS SELECT ml_state(y, s, len) AS st FROM s2.preds;
CREATE TABLE s3.state AS SELECT ml_state(y, s, len) AS st FROM s3.preds;
SELECT length(m) AS merged_bytes, round(pr_auc(m), 6) AS pr_auc FROM (
  SELECT ml_merge(st) AS m FROM (SELECT st FROM s1.state UNION ALL SELECT st FROM s2.state UNION ALL SELECT st FROM s3.state));
