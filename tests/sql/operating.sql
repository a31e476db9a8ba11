-- SPEC "Ranking metrics" (round 2): operating_point, precision_at_prior, partial_auroc.
.mode list
CREATE TABLE t(y, s);
-- 3 positives, 3 negatives; a positive and a negative tie at 0.5
INSERT INTO t VALUES (0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8), (0, 0.5), (1, 0.5);
-- max TPR with FPR <= 1/3: the threshold 0.5 (tp 2, fp 1)
SELECT 'fpr', operating_point(y, s, 'fpr', 0.34) FROM t;
-- FPR <= 0.3: only the thresholds above 0.5 qualify
SELECT 'fpr', operating_point(y, s, 'fpr', 0.3) ->> '$.threshold' FROM t;
SELECT 'specificity', operating_point(y, s, 'Specificity', 0.9) FROM t;
-- max specificity with TPR >= 0.5: the first threshold reaching 2 of 3 positives
SELECT 'sensitivity', operating_point(y, s, 'sensitivity', 0.5) FROM t;
SELECT 'precision', operating_point(y, s, 'precision', 0.5) FROM t;
-- F1 0.75 at 0.35 (tp 3, fp 2) beats 0.667 at 0.5
SELECT 'max_f1', operating_point(y, s, 'max_f1') FROM t;
-- Youden J = 1/3 at 0.8, at 0.5 and at 0.35: the highest threshold wins
SELECT 'youden', operating_point(y, s, 'youden') FROM t;
-- without the row at 0.8 no threshold reaches precision 0.99: the all-negative
-- point is reported with achieved false
SELECT 'not achieved', operating_point(y, s, 'precision', 0.99) FROM t WHERE s < 0.8;
-- a tie: the threshold 0.9 (a negative) meets FPR <= 0.4 with TPR 0, as the
-- all-negative point does; the all-negative point (threshold null) wins
SELECT 'all negative', operating_point(y, s, 'fpr', 0.4) FROM (SELECT 0 AS y, 0.9 AS s UNION ALL SELECT 0, 0.8 UNION ALL SELECT 1, 0.5 UNION ALL SELECT 0, 0.1);
-- FPR <= 0.2 and nothing but the all-negative point qualifies
SELECT 'all negative', operating_point(y, s, 'fpr', 0.2) ->> '$.threshold' IS NULL FROM (SELECT 0 AS y, 0.9 AS s UNION ALL SELECT 1, 0.9 UNION ALL SELECT 0, 0.1 UNION ALL SELECT 0, 0.2);
-- one class or no rows: NULL
SELECT 'one class', quote(operating_point(y, s, 'youden')), quote(precision_at_prior(y, s, 0.5, 0.1)), quote(partial_auroc(y, s, 0.5)) FROM t WHERE y = 1;
SELECT 'empty', quote(operating_point(y, s, 'youden')), quote(precision_at_prior(y, s, 0.5, 0.1)), quote(partial_auroc(y, s, 0.5)) FROM t WHERE 0;
-- precision projected to a 1 % prevalence: tpr 2/3, fpr 1/3 at s >= 0.45
SELECT 'prior', precision_at_prior(y, s, 0.45, 0.01) FROM t;
SELECT 'prior', precision_at_prior(y, s, 0.9, 0.01) FROM t;
-- sklearn roc_auc_score(max_fpr=0.5) = 0.7037037037037037; max_fpr = 1 is auroc
SELECT 'partial_auroc', printf('%!.16g', partial_auroc(y, s, 0.5)), partial_auroc(y, s, 1) = auroc(y, s) FROM t;
SELECT 'window', operating_point(y, s, 'youden') OVER (ORDER BY s ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) ->> '$.threshold' FROM t ORDER BY s;
-- errors
SELECT operating_point(y, s, 'f1') FROM t;
SELECT operating_point(y, s, 'fpr') FROM t;
SELECT operating_point(y, s, 'youden', 0.1) FROM t;
SELECT operating_point(y, s, 'specificity', 1) FROM t;
SELECT partial_auroc(y, s, 0) FROM t;
SELECT partial_auroc(y, s, 1.01) FROM t;
SELECT precision_at_prior(y, s, 0.5, 1) FROM t;
SELECT precision_at_prior(y, s, 0.5) FROM t;
