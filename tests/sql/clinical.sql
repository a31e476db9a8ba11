-- Issue 24: threshold and clinical-validation metrics (docs/clinical.md).
.mode list
CREATE TABLE t(y, s);
-- 4 positives, 4 negatives; four rows tie at 0.5 (two of each class)
INSERT INTO t VALUES (0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8), (0, 0.5), (1, 0.5), (1, 0.5), (0, 0.5);
-- at 0.45: tp 3, fp 2, tn 2, fn 1
SELECT 'confusion', confusion(y, s, 0.45) FROM t;
SELECT 'mcc', printf('%!.16g', mcc(y, s, 0.45)), 'f_beta', printf('%!.16g', f_beta(y, s, 0.45, 2)), printf('%!.16g', f_beta(y, s, 0.45, 1)) FROM t;
SELECT 'wilson', confusion_ci(y, s, 0.45) FROM t;
SELECT 'clopper-pearson', confusion_ci(y, s, 0.45, 0.9, 'Clopper-Pearson') FROM t;
-- the tie at 0.5 straddles k = 2 and k = 3: it counts with its positive fraction 1/2
SELECT 'top k', precision_at_k(y, s, 1), precision_at_k(y, s, 2), precision_at_k(y, s, 3), recall_at_k(y, s, 3), precision_at_k(y, s, 100), recall_at_k(y, s, 100) FROM t;
SELECT 'ks', ks(y, s) FROM t;
SELECT 'gains', gains(y, s, 4) FROM t;
SELECT 'net_benefit', printf('%!.16g', net_benefit(y, s, 0.45)), printf('%!.16g', net_benefit(y, s, 0.5)) FROM t;
SELECT 'decision_curve', decision_curve(y, s, 0.1, 0.5, 0.2) FROM t;
SELECT 'grid', json_array_length(decision_curve(y, s)), decision_curve(y, s) ->> '$[0].threshold', decision_curve(y, s) ->> '$[98].threshold' FROM t;
-- undefined: NULL (or a null field); defined on one class
SELECT 'zero margin', quote(mcc(y, s, 0.9)), confusion(y, s, 0.9) ->> '$.mcc' IS NULL FROM t;
SELECT 'all negative', quote(f_beta(y, s, 0.5, 1)), quote(mcc(y, s, 0.5)), quote(ks(y, s)), quote(recall_at_k(y, s, 1)), quote(gains(y, s, 1)), precision_at_k(y, s, 1) FROM t WHERE y = 0;
SELECT 'one class', confusion_ci(y, s, 0.45) FROM t WHERE y = 1;
SELECT 'empty', quote(mcc(y, s, 0.5)), quote(confusion_ci(y, s, 0.5)), quote(net_benefit(y, s, 0.5)), quote(decision_curve(y, s)), quote(precision_at_k(y, s, 1)) FROM t WHERE 0;
SELECT 'few rows', quote(gains(y, s)) FROM t;
-- a window: each frame is the aggregate over its rows
SELECT 'window', precision_at_k(y, s, 2) OVER (ORDER BY rowid ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t;
-- states: the same results from ml_state
SELECT 'state', gains(st, 4) = (SELECT gains(y, s, 4) FROM t), confusion_ci(st, 0.45) = (SELECT confusion_ci(y, s, 0.45) FROM t) FROM (SELECT ml_state(y, s) AS st FROM t);
-- errors
SELECT mcc(y, s, 'half') FROM t;
SELECT mcc(y, s, rowid) FROM t;
SELECT f_beta(y, s, 0.5, 0) FROM t;
SELECT f_beta(y, s, 0.5, -2) FROM t;
SELECT f_beta(y, s, 0.5) FROM t;
SELECT confusion_ci(y, s, 0.5, 1.5) FROM t;
SELECT confusion_ci(y, s, 0.5, 0.95, 'exact') FROM t;
SELECT confusion_ci(y, s, 0.5, 0.95, NULL) FROM t;
SELECT net_benefit(y, s, 0) FROM t;
SELECT net_benefit(y, s * 2, 0.5) FROM t;
SELECT net_benefit(st, 0.5) FROM (SELECT ml_state(y, s * 2) AS st FROM t);
SELECT precision_at_k(y, s, 0) FROM t;
SELECT recall_at_k(y, s, 1.5) FROM t;
SELECT precision_at_k(y, s, rowid) FROM t;
SELECT gains(y, s, 0) FROM t;
SELECT gains(y, s, 100001) FROM t;
SELECT decision_curve(y, s, 0) FROM t;
SELECT decision_curve(y, s, 0.5, 1) FROM t;
SELECT decision_curve(y, s, 0.6, 0.4) FROM t;
SELECT decision_curve(y, s, 0.995) FROM t;
SELECT decision_curve(y, s, 0.01, 0.99, 0) FROM t;
SELECT decision_curve(y, s, 0.01, 0.99, 0.00001) FROM t;
SELECT decision_curve(y, s * 1.5) FROM t;
SELECT ks(y) FROM t;
SELECT decision_curve(y, s, 0.1, 0.2, 0.3, 0.4) FROM t;
