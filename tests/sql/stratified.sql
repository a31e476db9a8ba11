-- SPEC Stratified section: the canonical example, the thin-window rule, errors.
.mode list
CREATE TABLE confound(y INT, length INT, score REAL);
.import --csv --skip 1 ../../sql/confound.csv confound
-- numpy + sklearn give full 0.96048818811552, trimmed 0.711071946012556, window [49, 110.5]
SELECT 'canonical', round(strat_pr_auc(y, score, length), 12), round(strat_gap(y, score, length), 12) FROM confound;
SELECT 'report', strat_report(y, score, length) FROM confound;
SELECT 'fields', json_extract(strat_report(y, score, length, 0.25, 0.75, 0.3), '$.gap_flag'),
       strat_report(y, score, length, 0.1, 0.9) ->> '$.stratifier_low' FROM confound;
-- gap_flag is strict: gap > threshold; with the threshold equal to the gap it is false
SELECT 'strict', strat_report(y, score, length, 0.25, 0.75, (SELECT strat_gap(y, score, length) FROM confound)) ->> '$.gap_flag',
       strat_report(y, score, length, 0.25, 0.75, (SELECT strat_gap(y, score, length) FROM confound) - 1e-9) ->> '$.gap_flag'
FROM confound;
-- a thin window: NULL with a reason, never an error
SELECT 'thin', quote(strat_pr_auc(y, score, length)), quote(strat_gap(y, score, length)),
       strat_report(y, score, length) ->> '$.reason' FROM confound WHERE rowid <= 40;
SELECT 'empty', quote(strat_pr_auc(y, score, length)), quote(strat_report(y, score, length)) FROM confound WHERE 0;
-- NULL stratifier skips the row
SELECT 'null strat', strat_pr_auc(y, score, length) = strat_pr_auc(y, score, CASE WHEN rowid > 500 THEN NULL ELSE length END)
FROM (SELECT rowid, * FROM confound UNION ALL SELECT 501, 1, 0.99, 10);
-- errors
SELECT strat_pr_auc(1, 0.5, 3, -0.1, 0.5);
SELECT strat_pr_auc(1, 0.5, 3, 0.5, 1.5);
SELECT strat_gap(1, 0.5, 3, 0.6, 0.4);
SELECT strat_gap(1, 0.5, 3, 0.5, 0.5);
SELECT strat_report(1, 0.5, 'long');
SELECT strat_report(1, 0.5, 3, 0.25, 0.75, 'x');
SELECT strat_pr_auc(y, score, length, CASE WHEN y THEN 0.1 ELSE 0.2 END, 0.9) FROM confound;
SELECT strat_pr_auc(2, 0.5, 3);
-- ql without qh is an arity error (the window needs both ends), not ignored
SELECT strat_pr_auc(y, score, length, 0.1) FROM confound;
SELECT strat_report(y, score, length, 0.1) FROM confound;
