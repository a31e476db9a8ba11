-- survival.c: km, censoring_km, ipcw, surv_auroc, surv_brier, surv_summary, surv_ibs,
-- c_index, c_index_ci, uno_c and their twins (docs/survival.md; SPEC "Round 5")
.log stderr
-- the seven rows of scikit-survival #428 (an event and a censoring tied at 11)
CREATE TABLE s428(time, event, risk);
INSERT INTO s428 VALUES (11, 1, -0.02), (11, 0, 1.20), (26, 0, -0.56), (89, 1, -1.33),
  (128, 0, -0.81), (299, 1, 1.02), (300, 0, -1.29);
SELECT km(time, event) FROM s428;
SELECT km(time, event, 100) FROM s428;
SELECT censoring_km(time, event) FROM s428;
SELECT c_index(time, event, risk), c_index(time, event, risk, 299), uno_c(time, event, risk, 299) FROM s428;
SELECT c_index_ci(time, event, risk) FROM s428;
SELECT surv_auroc(time, event, risk, 50), surv_auroc(time, event, risk, 100), surv_auroc(time, event, risk, 299) FROM s428;
-- the weights themselves: auroc_w over them is surv_auroc
SELECT ipcw(g, time, event, 100) FROM s428, (SELECT censoring_km(time, event) AS g FROM s428) ORDER BY s428.rowid;
SELECT auroc_w(time <= 100 AND event = 1, risk, ipcw(g, time, event, 100)) = surv_auroc(time, event, risk, 100)
  FROM s428, (SELECT censoring_km(time, event) AS g FROM s428);
-- probabilities at a horizon
CREATE TABLE d(time, event, p);
INSERT INTO d VALUES (1, 1, 0.8), (2, 0, 0.3), (2, 1, 0.6), (3, 1, 0.4), (4, 0, 0.2), (5, 1, 0.7),
  (6, 0, 0.1), (6, 1, 0.5), (NULL, 1, 0.5), (7, NULL, 0.5), (7, 1, NULL);
SELECT surv_brier(time, event, p, 3.5) FROM d;
SELECT surv_summary(time, event, p, 3.5) FROM d;
SELECT surv_ibs(time, event, h, p) FROM d, (SELECT 2 AS h UNION ALL SELECT 4 UNION ALL SELECT 5);
-- twins: integer weights are the rows repeated, bit for bit
CREATE VIEW s428x3 AS SELECT * FROM s428 UNION ALL SELECT * FROM s428 UNION ALL SELECT * FROM s428;
CREATE VIEW dx2 AS SELECT * FROM d UNION ALL SELECT * FROM d;
SELECT (SELECT c_index_w(time, event, risk, 3) FROM s428) = (SELECT c_index(time, event, risk) FROM s428x3),
       (SELECT uno_c_w(time, event, risk, 3, 299) FROM s428) = (SELECT uno_c(time, event, risk, 299) FROM s428x3),
       (SELECT surv_auroc_w(time, event, risk, 3, 100) FROM s428) = (SELECT surv_auroc(time, event, risk, 100) FROM s428x3),
       (SELECT c_index_ci_w(time, event, risk, 3) FROM s428) = (SELECT c_index_ci(time, event, risk) FROM s428x3);
SELECT (SELECT km_w(time, event, 2, 4) FROM d) = (SELECT km(time, event, 4) FROM dx2),
       (SELECT censoring_km_w(time, event, 2) FROM d) = (SELECT censoring_km(time, event) FROM dx2),
       (SELECT surv_summary_w(time, event, p, 2, 3.5) FROM d) = (SELECT surv_summary(time, event, p, 3.5) FROM dx2);
SELECT surv_brier_w(time, event, p, 2, 3.5), surv_ibs_w(time, event, 3, p, 0.5) FROM d;
-- windows: a frame equals the aggregate over its rows
SELECT rowid, c_index(time, event, risk) OVER (ORDER BY rowid ROWS BETWEEN 1 PRECEDING AND 4 FOLLOWING)
  FROM s428;
SELECT (SELECT c_index(time, event, risk) FROM s428 WHERE rowid BETWEEN 2 AND 6)
     = (SELECT c FROM (SELECT rowid AS r, c_index(time, event, risk) OVER (ORDER BY rowid ROWS BETWEEN 1 PRECEDING AND 3 FOLLOWING) AS c FROM s428) WHERE r = 3);
-- undefined: NULL with a warning
SELECT surv_auroc(time, event, risk, 5) FROM s428;
SELECT surv_auroc(time, event, risk, 300) FROM s428;
SELECT c_index(time, event, risk) FROM s428 WHERE event = 0;
SELECT km(time, event) FROM s428 WHERE 0;
-- errors name the function, the argument and the value
SELECT km(-1, 1);
SELECT km(1, 2);
SELECT km('abc', 1);
SELECT c_index(1, 1, 'x');
SELECT surv_brier(1, 1, 1.5, 3);
SELECT surv_brier(1, 1, 0.5, 0);
SELECT surv_auroc(time, event, risk, rowid) FROM s428;
SELECT surv_ibs(1, 1, 0, 0.5);
SELECT surv_ibs(time, event, h, 0.5) FROM s428, (SELECT 50 AS h UNION ALL SELECT 100) WHERE h = 50 OR time > 11;
SELECT c_index_ci(time, event, risk, 10, 1.5) FROM s428;
SELECT ipcw('{"time":[1]}', 1, 1, 2);
SELECT ipcw('{"time":[1],"surv":[0]}', 2, 1, 3), ipcw('{"time":[1],"surv":[0.5]}', 2, 0, 1);
SELECT surv_auroc_w(1, 1, 0.5, -1, 3);
-- states: ml_state_surv(time, event, risk) in place of the data arguments, the rows' bits
CREATE TABLE shards AS SELECT rowid % 3 AS g, ml_state_surv(time, event, risk) AS st FROM s428 GROUP BY rowid % 3;
SELECT (SELECT c_index(st) FROM (SELECT ml_merge(st) AS st FROM shards)) = (SELECT c_index(time, event, risk) FROM s428);
SELECT (SELECT c_index_ci(st) FROM (SELECT ml_merge(st) AS st FROM shards)) = (SELECT c_index_ci(time, event, risk) FROM s428),
       (SELECT uno_c(st, 299) FROM shards) = (SELECT uno_c(time, event, risk, 299) FROM s428),
       (SELECT km(st, 100) FROM shards) = (SELECT km(time, event, 100) FROM s428),
       (SELECT censoring_km(st) FROM shards) = (SELECT censoring_km(time, event) FROM s428),
       (SELECT surv_auroc(st, 100) FROM shards) = (SELECT surv_auroc(time, event, risk, 100) FROM s428);
SELECT g, c_index(st) OVER (ORDER BY g ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM shards;
SELECT (SELECT surv_brier(st, 3.5) FROM (SELECT ml_state_surv_w(time, event, p, 2) AS st FROM d))
     = (SELECT surv_brier_w(time, event, p, 2, 3.5) FROM d);
-- other readers refuse the survival kinds by name, and the family refuses others
SELECT pr_auc(st) FROM shards;
SELECT mc_auroc(st) FROM shards;
SELECT c_index(st) FROM (SELECT ml_state(1, 0.5) AS st);
SELECT ml_merge(st) FROM (SELECT st FROM shards UNION ALL SELECT ml_state(1, 0.5));
SELECT c_index_w(st) FROM shards;
SELECT surv_ibs(st, 5, 0.5) FROM shards;
-- a state's risk column read as p is a probability, as a row's p
SELECT surv_brier(st, 3) FROM (SELECT ml_state_surv(1, 1, 0.5) AS st);
SELECT surv_brier(st, 3) FROM (SELECT ml_state_surv(1, 1, 2.5) AS st);
-- windows with real weights and ties: every frame equals the aggregate over its rows (0 differences)
CREATE TABLE tw AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 40)
  SELECT i AS id, (i * 7) % 5 + 1.0 AS time, (i * 3 / 2) % 2 AS event, (i * 11) % 4 * 1.0 AS risk,
         0.1 + ((i * 13) % 7) / 3.0 AS w FROM c;
SELECT count(*) FROM (SELECT id, c_index_w(time, event, risk, w) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS v,
                             uno_c_w(time, event, risk, w) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS u,
                             surv_summary_w(time, event, risk / 4, w, 3) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS s,
                             km_w(time, event, w) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS k FROM tw) a
  WHERE v IS NOT (SELECT c_index_w(time, event, risk, w) FROM tw b WHERE b.id BETWEEN a.id - 3 AND a.id + 2)
     OR u IS NOT (SELECT uno_c_w(time, event, risk, w) FROM tw b WHERE b.id BETWEEN a.id - 3 AND a.id + 2)
     OR s IS NOT (SELECT surv_summary_w(time, event, risk / 4, w, 3) FROM tw b WHERE b.id BETWEEN a.id - 3 AND a.id + 2)
     OR k IS NOT (SELECT km_w(time, event, w) FROM tw b WHERE b.id BETWEEN a.id - 3 AND a.id + 2);
SELECT count(*) FROM (SELECT id, time, c_index_w(time, event, risk, w) OVER (ORDER BY time RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS v FROM tw) a
  WHERE v IS NOT (SELECT c_index_w(time, event, risk, w) FROM tw b WHERE b.time BETWEEN a.time - 1 AND a.time);
