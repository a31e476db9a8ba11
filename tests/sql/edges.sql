-- Numeric edge cases (robustness): infinities, huge and subnormal scores,
-- signed zeros, ten million identical scores, and a group larger than the
-- memory allowed: a clean "out of memory", never a crash.
.mode list
CREATE TABLE e(y INT, s REAL);
INSERT INTO e VALUES (1, 9e999), (0, -9e999), (1, 1e308), (0, -1e308), (1, 5e-324), (0, -5e-324),
                     (1, 0.0), (0, -0.0), (1, 2.2250738585072014e-308), (0, 1e308);
SELECT 'edges', pr_auc(y, s), auroc(y, s), nap(y, s), youden_j(y, s), sens_at_spec(y, s, 0.5) FROM e;
-- +-Inf thresholds are written null in JSON; -0.0 and 0.0 are one threshold
SELECT 'roc', roc_curve(y, s) FROM e;
SELECT 'zeros', json_array_length(pr_curve(y, s)) FROM (SELECT 1 AS y, 0.0 AS s UNION ALL SELECT 0, -0.0 UNION ALL SELECT 1, -0.0);
-- 10^7 identical scores: one threshold, AP = prevalence, AUROC = 1/2
SELECT 'ties', pr_auc(i % 2, 0.25), auroc(i % 2, 0.25), ece(i % 2, 0.5, 10)
FROM (WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000000) SELECT i FROM c);
-- a group larger than memory allows: SQLITE_NOMEM, then the connection works
PRAGMA hard_heap_limit = 40000000;
SELECT 'too big', pr_auc(i % 2, i) FROM (WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000000) SELECT i FROM c);
PRAGMA hard_heap_limit = 0;
SELECT 'after', pr_auc(y, s) FROM e;
