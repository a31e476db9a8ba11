-- SPEC "Rules every function follows", for the ranking family.
.mode list
.headers off
CREATE TABLE p(fold INT, y, s, ts INT);
INSERT INTO p VALUES (1,0,0.1,1),(1,0,0.4,2),(1,1,0.35,3),(1,1,0.8,4),
                     (2,1,0.9,5),(2,0,0.2,6),(2,1.0,0.7,7),(2,0.0,0.7,8),
                     (3,1,0.3,9),(3,1,0.6,10);
-- 1. aggregate with GROUP BY, with no grouping, and as a window
SELECT 'group', fold, pr_auc(y, s), auroc(y, s), nap(y, s) FROM p GROUP BY fold;
SELECT 'all', pr_auc(y, s), auroc(y, s) FROM p;
SELECT 'window', ts, quote(round(pr_auc(y, s) OVER (ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW), 6)) FROM p;
-- a window result equals the aggregate over the same rows
SELECT 'window=agg', (SELECT pr_auc(y, s) OVER (ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM p ORDER BY ts LIMIT 1 OFFSET 6)
                   = (SELECT pr_auc(y, s) FROM p WHERE ts BETWEEN 4 AND 7);
-- 2. labels: INTEGER 0/1 and REAL 0.0/1.0 accepted (fold 2 has both)
SELECT 'real labels', pr_auc(y, s) FROM p WHERE fold = 2;
-- 3. NULL label or score: the row is skipped, as avg() skips it
SELECT 'nulls skipped', pr_auc(y, s) = (SELECT pr_auc(y, s) FROM p) FROM
  (SELECT y, s FROM p UNION ALL SELECT NULL, 0.99 UNION ALL SELECT 1, NULL UNION ALL SELECT NULL, NULL);
-- 4. empty input and one class: NULL, never an error
SELECT 'empty', quote(pr_auc(y, s)), quote(auroc(y, s)), quote(nap(y, s)) FROM p WHERE 0;
SELECT 'one class', fold, quote(pr_auc(y, s)), quote(auroc(y, s)), quote(roc_curve(y, s)) FROM p WHERE fold = 3 GROUP BY fold;
-- 5. infinite scores are scores
SELECT 'inf', pr_auc(y, s), auroc(y, s) FROM (SELECT 1 AS y, 9e999 AS s UNION ALL SELECT 0, -9e999 UNION ALL SELECT 0, 9e999);
-- 6. -0.0 and 0.0 are one threshold
SELECT 'signed zero', auroc(y, s) FROM (SELECT 1 AS y, -0.0 AS s UNION ALL SELECT 0, 0.0);
-- 7. bad labels: errors that name the function, the argument and the value
SELECT pr_auc(2, 0.5);
SELECT auroc(-1, 0.5);
SELECT nap(0.5, 0.5);
SELECT pr_auc('1x', 0.5);
SELECT pr_auc(x'01', 0.5);
-- 8. bad scores
SELECT pr_auc(1, 'high');
SELECT auroc(0, x'00ff');
-- 9. parameters: valid, and the same in every row
SELECT tpr_at_fpr(1, 0.5, 0);
SELECT tpr_at_fpr(1, 0.5, 1);
SELECT sens_at_spec(1, 0.5, 1.5);
SELECT sens_at_spec(1, 0.5, NULL);
SELECT sens_at_spec(1, 0.5, 'x');
SELECT tpr_at_fpr(y, s, CASE WHEN ts < 5 THEN 0.1 ELSE 0.2 END) FROM p;
SELECT confusion(y, s, 'half') FROM p;
SELECT confusion(y, s, ts) FROM p;
-- 10. an error leaves the connection and the database untouched
CREATE TABLE kept(x);
INSERT INTO kept VALUES (1), (2);
INSERT INTO kept SELECT pr_auc(7, 0);
SELECT 'kept', count(*), sum(x) FROM kept;
SELECT 'still works', pr_auc(y, s) FROM p WHERE fold = 1;
-- 12. mleval_version() is the version; mleval_build_info() is JSON naming the build's options
SELECT 'version', mleval_version();
SELECT 'build_info', json_valid(mleval_build_info()), mleval_build_info() ->> '$.version' = mleval_version(),
       json_type(mleval_build_info(), '$.lapacke'), json_type(mleval_build_info(), '$.openblas'),
       json_type(mleval_build_info(), '$.cuda') IN ('true', 'false'), json_type(mleval_build_info(), '$.commit'),
       json_type(mleval_build_info(), '$.compiler');
-- 11. JSON results carry subtype J and are valid JSON
SELECT 'confusion', confusion(y, s, 0.5) FROM p WHERE fold = 1;
SELECT 'json', json_extract(confusion(y, s, 0.5), '$.tp'), confusion(y, s, 0.5) ->> '$.f1' FROM p;
SELECT 'subtype', json_array(confusion(y, s, 0.9)) FROM p WHERE fold = 3;
SELECT 'zero denominators', confusion(y, s, 0.5) FROM p WHERE fold = 3;
SELECT 'valid', json_valid(pr_curve(y, s)), json_valid(roc_curve(y, s)), json_array_length(roc_curve(y, s)) FROM p;
