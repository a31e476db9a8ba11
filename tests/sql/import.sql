-- SPEC Rules (round 2): text that SQLite reads in full as a number counts as
-- that number, so a table made by the shell's .import --csv (every column
-- TEXT) gives the same results as the typed table; other text is an error.
.mode list
.headers off
.import --csv preds.csv preds_csv
SELECT 'column types', group_concat(DISTINCT typeof(y) || '/' || typeof(s)) FROM preds_csv;
CREATE TABLE preds(fold INTEGER, y INTEGER, s REAL, p REAL, len INTEGER);
INSERT INTO preds SELECT CAST(fold AS INTEGER), CAST(y AS REAL), CAST(s AS REAL), CAST(p AS REAL), CAST(len AS INTEGER) FROM preds_csv;
-- every family, typed against imported, per fold: all 1 (identical results)
SELECT 'same', a.fold,
       a.pr_auc IS b.pr_auc, a.auroc IS b.auroc, a.sens IS b.sens, a.conf IS b.conf,
       a.brier IS b.brier, a.ece IS b.ece, a.rel IS b.rel, a.strat IS b.strat, a.ord IS b.ord
FROM (SELECT fold, pr_auc(y, s) AS pr_auc, auroc(y, s) AS auroc, sens_at_spec(y, s, '0.5') AS sens,
             confusion(y, s, '0.5') AS conf, brier(y, p) AS brier, ece(y, p, '5') AS ece,
             reliability(y, p, 4) AS rel, strat_report(y, s, len, '0.1', 0.9) AS strat,
             ordinal_auprc(y, s) AS ord
      FROM preds_csv GROUP BY fold) AS a
JOIN (SELECT fold, pr_auc(y, s) AS pr_auc, auroc(y, s) AS auroc, sens_at_spec(y, s, 0.5) AS sens,
             confusion(y, s, 0.5) AS conf, brier(y, p) AS brier, ece(y, p, 5) AS ece,
             reliability(y, p, 4) AS rel, strat_report(y, s, len, 0.1, 0.9) AS strat,
             ordinal_auprc(y, s) AS ord
      FROM preds GROUP BY fold) AS b USING (fold);
SELECT 'values', fold, round(pr_auc(y, s), 6), round(auroc(y, s), 6), round(brier(y, p), 6) FROM preds_csv GROUP BY fold;
-- windows over text columns equal windows over typed ones
SELECT 'window', count(*) FROM
  (SELECT rowid AS r, pr_auc(y, s) OVER (ORDER BY rowid ROWS 3 PRECEDING) AS a FROM preds_csv) AS x
  JOIN (SELECT rowid AS r, pr_auc(y, s) OVER (ORDER BY rowid ROWS 3 PRECEDING) AS b FROM preds) AS z USING (r)
  WHERE a IS b;
-- text accepted as a number: surrounding spaces, exponents, integral REAL text as a label
SELECT 'text numbers', auroc(' 1 ', '1e0'), pr_auc('1.0', ' 0.25 ') IS NULL;
-- text that is not a number in full stays an error
SELECT pr_auc('1x', 0.5);
SELECT pr_auc('yes', 0.5);
SELECT pr_auc(1, '0.5 high');
SELECT brier(1, '1.5');
SELECT ece(1, 0.5, '10 bins');
SELECT pr_auc(1, '');
