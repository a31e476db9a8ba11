-- SPEC Round 4, Multiclass: scikit-learn's own toy data, the layouts, the
-- twins, a class absent, NULL rows, windows and the argument errors.
.mode list
-- scikit-learn test_ranking.py, test_multiclass_ovo_roc_auc_toydata:
-- y = [0, 1, 0, 2]; A(0|1) = 0.5, A(1|0) = 0, A(0|2) = 1, A(2|0) = 1,
-- A(1|2) = 1, A(2|1) = 1: ovo_macro = (0.25 + 1 + 1) / 3 = 0.75,
-- ovo_weighted by the pairs' prevalence (0.75, 0.75, 0.5): 0.71875
CREATE TABLE ovo(y, p0, p1, p2);
INSERT INTO ovo VALUES (0, 0.1, 0.8, 0.1), (1, 0.3, 0.4, 0.3), (0, 0.35, 0.5, 0.15), (2, 0, 0.2, 0.8);
SELECT 'ovo toy', round(mc_auroc(y, p0, p1, p2) ->> '$.ovo_macro', 12), round(mc_auroc(y, p0, p1, p2) ->> '$.ovo_weighted', 12) FROM ovo;
-- test_multiclass_ovr_roc_auc_toydata: y = [0, 1, 2, 2]; per class 1, 1, 0.875
-- (class 2: 0.8 beats 0 and 0.4; 0.4 beats 0, ties 0.4: 3.5/4); macro 0.9583,
-- weighted by prevalence (1, 1, 2)/4: 0.9375
CREATE TABLE ovr(y, p0, p1, p2);
INSERT INTO ovr VALUES (0, 1.0, 0.0, 0.0), (1, 0.1, 0.5, 0.4), (2, 0.1, 0.1, 0.8), (2, 0.3, 0.3, 0.4);
SELECT 'ovr toy', mc_auroc(y, p0, p1, p2) FROM ovr;
SELECT 'pr toy', mc_pr_auc(y, p0, p1, p2) FROM ovr;
SELECT 'log loss toy', round(mc_log_loss(y, p0, p1, p2), 12), round(mc_brier(y, p0, p1, p2), 12) FROM ovr;
-- the JSON layout, and long rows gathered in a subquery, give the same bits
SELECT 'json = wide', mc_auroc(y, json_array(p0, p1, p2)) = mc_auroc(y, p0, p1, p2),
       mc_log_loss(y, '[' || p0 || ',' || p1 || ',' || p2 || ']') = mc_log_loss(y, p0, p1, p2) FROM ovr;
CREATE TABLE long(id, class, p);
INSERT INTO long SELECT rowid, 0, p0 FROM ovr UNION ALL SELECT rowid, 1, p1 FROM ovr UNION ALL SELECT rowid, 2, p2 FROM ovr;
SELECT 'long = wide', (SELECT mc_pr_auc(o.y, l.probs) FROM ovr o JOIN (SELECT id, json_group_array(p) AS probs
       FROM (SELECT * FROM long ORDER BY id, class) GROUP BY id) l ON l.id = o.rowid) = (SELECT mc_pr_auc(y, p0, p1, p2) FROM ovr);
-- weights: 2 everywhere is the rows twice; 0 drops a row
SELECT 'twins', json_remove(mc_auroc_w(y, p0, p1, p2, 2), '$.n') = json_remove(mc_auroc(y, p0, p1, p2), '$.n'),
       json_remove(mc_pr_auc_w(y, p0, p1, p2, 2), '$.n') = json_remove(mc_pr_auc(y, p0, p1, p2), '$.n') FROM ovr;
SELECT 'twin n', mc_auroc_w(y, p0, p1, p2, 2) ->> '$.n', mc_brier_w(y, p0, p1, p2, 2) = mc_brier(y, p0, p1, p2) FROM ovr;
SELECT 'twin w=0', mc_log_loss_w(y, p0, p1, p2, iif(y = 1, 0, 1)) = (SELECT mc_log_loss(y, p0, p1, p2) FROM ovr WHERE y <> 1) FROM ovr;
-- a class absent: its averages null, with the reason; micro defined
SELECT 'absent', mc_auroc(y, p0, p1, p2) FROM ovr WHERE y < 2;
SELECT 'absent pr', mc_pr_auc(y, p0, p1, p2) FROM ovr WHERE y < 2;
-- NULL rows are skipped; no rows is NULL
SELECT 'null rows', mc_brier(y, p0, p1, p2) = (SELECT mc_brier(y, p0, p1, p2) FROM ovr)
FROM (SELECT * FROM ovr UNION ALL SELECT NULL, 0.2, 0.3, 0.5 UNION ALL SELECT 1, NULL, 0.5, 0.5);
SELECT 'empty', quote(mc_auroc(y, p0, p1, p2)), quote(mc_log_loss(y, p0, p1, p2)) FROM ovr WHERE 0;
-- a window: a three-row frame
SELECT 'window', rowid, round(mc_brier(y, p0, p1, p2) OVER (ORDER BY rowid ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), 12) FROM ovr;
-- errors: the argument and the value
SELECT mc_auroc(3, 0.2, 0.3, 0.5);
SELECT mc_auroc(1, 0.2, 'x', 0.5);
SELECT mc_brier(1, 0.2, 1.3, 0.5);
SELECT mc_log_loss(1, 0.2, 0.3, 0.4);
SELECT mc_brier(1, '[0.2, 1.5, -0.7]');
SELECT mc_auroc(1, '[0.2, 0.5');
SELECT mc_auroc(1, 0.5);
SELECT mc_auroc(y, p) FROM (SELECT 0 AS y, '[0.5, 0.5]' AS p UNION ALL SELECT 1, '[0.2, 0.3, 0.5]');
SELECT mc_auroc_w(1, 0.5, 0.5, -1);
SELECT mc_auroc(1);
-- a score column missing: y past the scores names k; a parameter in the wide form
SELECT mc_auroc(4, 0.1, 0.2, 0.3, 0.4);
SELECT mc_auroc(4, '[0.1, 0.2, 0.3, 0.4]');
SELECT mc_calibration(1, 0.2, 0.3, 0.5, 15);
SELECT mc_calibration(1, 0.2, 0.3, 0.5, 1);
SELECT mc_calibration_w(1, '[0.2, 0.3, 0.5]', 1, 15) IS NOT NULL;
-- a class holding every row: its per_class value null, as pr_auc's over one class
SELECT 'one class', mc_pr_auc(y, p0, p1, p2), quote(pr_auc(y = 1, p1)) FROM ovr WHERE y = 1;
-- mc_confusion: argmax (ties to the lowest index) and the (y, pred) form; top k; RPS
SELECT 'confusion', mc_confusion(y, p0, p1, p2) FROM ovr;
SELECT 'confusion pred', mc_confusion(y, pred) FROM (SELECT 0 AS y, 0 AS pred UNION ALL SELECT 1, 2 UNION ALL SELECT 2, 2 UNION ALL SELECT 1, 1);
SELECT 'confusion twin', json_remove(mc_confusion_w(y, json_array(p0, p1, p2), 3), '$.n', '$.matrix', '$.support')
       = json_remove(mc_confusion(y, p0, p1, p2), '$.n', '$.matrix', '$.support') FROM ovr;
-- top k: row 4 (0.3, 0.3, 0.4), y = 2: top-1 1; row 2 (0.1, 0.5, 0.4), y = 1: 1
SELECT 'top k', mc_top_k(y, p0, p1, p2) FROM ovr;
SELECT 'top k tie', mc_top_k(1, '[0.5, 0.5]'), mc_top_k(0, 0.2, 0.4, 0.4), mc_top_k(1, 0.2, 0.4, 0.4);
SELECT 'rps', round(ordinal_rps(y, p0, p1, p2), 12), ordinal_rps(0, 1, 0, 0), ordinal_rps(2, 1, 0, 0) FROM ovr;
SELECT mc_confusion(1, 0.5);
SELECT mc_confusion(y, pred) FROM (SELECT 0 AS y, 1 AS pred UNION ALL SELECT 1, '[0.5, 0.5]');
-- mc_calibration: per class the binary ece of (p_j, y = j); bins only in the JSON form
SELECT 'calibration', mc_calibration(y, p0, p1, p2) FROM ovr;
SELECT 'calibration = ece', round(mc_calibration(y, p0, p1, p2) ->> '$.per_class_ece[2]', 12) = round(ece(y = 2, p2), 12),
       mc_calibration(y, json_array(p0, p1, p2), 3) ->> '$.bins' FROM ovr;
SELECT mc_calibration(y, json_array(p0, p1, p2), 0) FROM ovr;
