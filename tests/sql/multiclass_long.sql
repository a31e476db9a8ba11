-- issue 48 item 4: the long layout NAME_long(id, y, class, p), one row per
-- (id, class), read as stored: each equals its wide form; the errors of the
-- layout name the function, the argument, the bad value and the id.
.mode list
CREATE TABLE wide(id INTEGER PRIMARY KEY, fold INT, y INT, p_cat REAL, p_dog REAL, p_fox REAL);
INSERT INTO wide(fold, y, p_cat, p_dog, p_fox) VALUES
 (1, 0, 0.7, 0.2, 0.1), (1, 1, 0.3, 0.5, 0.2), (1, 2, 0.2, 0.3, 0.5), (1, 1, 0.4, 0.4, 0.2),
 (1, 0, 0.5, 0.25, 0.25), (2, 2, 0.1, 0.1, 0.8), (2, 0, 0.6, 0.3, 0.1), (2, 1, 0.2, 0.6, 0.2),
 (2, 2, 0.3, 0.4, 0.3), (2, 1, 0.5, 0.4, 0.1);
-- the long rows in no particular order: an id's rows are not adjacent
CREATE TABLE long(id, fold INT, y INT, class INT, p REAL, w REAL);
INSERT INTO long SELECT id, fold, y, 2, p_fox, 1 + id % 2 FROM wide UNION ALL SELECT id, fold, y, 0, p_cat, 1 + id % 2 FROM wide
                 UNION ALL SELECT id, fold, y, 1, p_dog, 1 + id % 2 FROM wide;
SELECT 'mc_auroc_long', mc_auroc_long(id, y, class, p) FROM long;
SELECT 'mc_pr_auc_long', mc_pr_auc_long(id, y, class, p) FROM long;
SELECT 'means', fold, round(mc_log_loss_long(id, y, class, p), 12), round(mc_brier_long(id, y, class, p), 12),
       round(ordinal_rps_long(id, y, class, p), 12) FROM long GROUP BY fold;
SELECT 'mc_confusion_long', mc_confusion_long(id, y, class, p) FROM long;
SELECT 'mc_top_k_long', mc_top_k_long(id, y, class, p) FROM long;
SELECT 'mc_calibration_long', mc_calibration_long(id, y, class, p, 4) FROM long;
SELECT 'the wide forms', (SELECT mc_auroc_long(id, y, class, p) FROM long) = mc_auroc(y, p_cat, p_dog, p_fox),
       (SELECT mc_confusion_long(id, y, class, p) FROM long) = mc_confusion(y, p_cat, p_dog, p_fox),
       (SELECT mc_calibration_long(id, y, class, p, 4) FROM long) = mc_calibration(y, json_array(p_cat, p_dog, p_fox), 4),
       (SELECT mc_auroc_ci_long(id, y, class, p, 0.9, 50, 7) FROM long) = mc_auroc_ci(y, json_array(p_cat, p_dog, p_fox), 0.9, 50, 7)
  FROM wide;
-- the twins: the weight right after p, the same in every row of an id
SELECT 'twins', (SELECT mc_auroc_long_w(id, y, class, p, w) FROM long) = mc_auroc_w(y, p_cat, p_dog, p_fox, 1 + id % 2),
       (SELECT mc_log_loss_long_w(id, y, class, p, w) FROM long) = mc_log_loss_w(y, p_cat, p_dog, p_fox, 1 + id % 2)
  FROM wide;
-- ids of any type: 1 and 1.0 are one id, '1' another; NULL ids skip their rows
SELECT 'ids', mc_confusion_long(column1, column2, column3, column4) ->> '$.matrix' FROM (VALUES (1, 0, 0, 0.7),
  (1.0, 0, 1, 0.3), ('1', 1, 0, 0.2), ('1', 1, 1, 0.8), (NULL, 1, 0, 0.1), (x'01', 1, 1, 0.6), (x'01', 1, 0, 0.4));
-- a NULL y, class or p skips its id, as a NULL score skips a wide row
SELECT 'NULL p', round(mc_log_loss_long(id, y, class, iif(id = 2 AND class = 1, NULL, p)), 12),
       (SELECT round(mc_log_loss(y, p_cat, p_dog, p_fox), 12) FROM wide WHERE id <> 2) FROM long;
SELECT 'no rows', mc_auroc_long(id, y, class, p) IS NULL FROM long WHERE 0;
-- a window whose frames keep ids whole: ordered by fold, RANGE
SELECT DISTINCT 'window', fold, round(mc_log_loss_long(id, y, class, p) OVER (ORDER BY fold RANGE CURRENT ROW), 12) FROM long;
-- the errors of the layout
SELECT mc_auroc_long(id, y, class, p) FROM long WHERE NOT (id = 3 AND class = 1);
SELECT mc_auroc_long(id, y, class, p) FROM (SELECT id, y, class, p FROM long UNION ALL SELECT 3, 2, 1, 0.3);
SELECT mc_auroc_long(id, iif(id = 4 AND class = 2, 0, y), class, p) FROM long;
SELECT mc_auroc_long(id, y, class, p) FROM (SELECT id, y, class, p FROM long UNION ALL SELECT 11, 0, 0, 0.5
  UNION ALL SELECT 11, 0, 1, 0.5);
SELECT mc_auroc_long(id, y, class, p) FROM (SELECT id, y, class, p FROM long UNION ALL SELECT 'x', 0, 0, 0.5);
SELECT mc_top_k_long(id, y + 1, class, p) FROM long;
SELECT mc_log_loss_long(id, y, class, p / 2) FROM long;
SELECT mc_log_loss_long(id, y, class, p * 2) FROM long;
SELECT mc_brier_long_w(id, y, class, p, iif(id = 5 AND class = 0, 0.5, w)) FROM long;
SELECT mc_auroc_long(id, y, class + 14, p) FROM long;
SELECT mc_auroc_long(id, 'a', class, p) FROM long;
SELECT mc_auroc_long(id, y, class, 'p') FROM long;
SELECT mc_calibration_long(id, y, class, p, 0) FROM long;
SELECT mc_auroc_long_w(id, y, class, p, -1) FROM long;
SELECT mc_auroc_long(id, y, class) FROM long;
SELECT mc_log_loss_long(id, y, class, p) OVER (ORDER BY rowid ROWS 1 PRECEDING) FROM long;
