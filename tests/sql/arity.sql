-- SPEC Rules (round 2): a call with the wrong number of arguments fails with
-- the function's signature, also on empty input and as a window function.
.mode list
.headers off
CREATE TABLE t(y, s, z);
INSERT INTO t VALUES (0, 0.1, 1), (1, 0.9, 2);
SELECT sens_at_spec(y, s) FROM t;
SELECT pr_auc(y) FROM t;
SELECT pr_auc(y, s, 0.5) FROM t;
SELECT ece(y, s, 10, 4) FROM t;
SELECT strat_report(y, s, z, 0.1, 0.9, 0.05, 1) FROM t;
SELECT ordinal_auprc(y) FROM t;
SELECT auprc_ge(y, s) FROM t;
SELECT confusion(y, s) FROM t;
SELECT mleval_version(1);
SELECT pr_auc() FROM t;
-- on empty input the count never reaches the function: the message says so
SELECT sens_at_spec(y, s) FROM t WHERE 0;
SELECT ordinal_nap(y) FROM t WHERE 0;
-- as a window function
SELECT pr_auc(y) OVER (ORDER BY z) FROM t;
-- every accepted count still works
SELECT 'ok', sens_at_spec(y, s, 0.5), ece(y, s), ece(y, s, 5), strat_pr_auc(y, s, z), ordinal_auprc(y, s, s, s) FROM t;
