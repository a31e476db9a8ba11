-- SPEC Rules for the calibration family.
.mode list
CREATE TABLE c(g INT, y, p);
INSERT INTO c VALUES (1,0,0.1),(1,1,0.8),(1,1,0.6),(1,0,0.3),(2,1,1.0),(2,1,0.9),(2,0,0.0),(3,1,0.7);
-- values worked by hand: group 1 brier = (0.01+0.04+0.16+0.09)/4 = 0.075
SELECT 'brier', g, round(brier(y, p), 12) FROM c GROUP BY g;
SELECT 'log_loss', g, round(log_loss(y, p), 12), round(log_loss(y, p, 0.01), 12) FROM c GROUP BY g;
-- ece, 2 bins: group 1 bins [0,.5): p .1 .3 y 0 0 -> |0-.2|; [.5,1]: p .8 .6 y 1 1 -> |1-.7|; (2*.2+2*.3)/4 = .25
SELECT 'ece', g, round(ece(y, p, 2), 12), round(ece(y, p), 12) FROM c GROUP BY g;
-- one class is fine for calibration (group 3); only empty groups are NULL
SELECT 'one class', brier(y, p), round(log_loss(y, p), 12), ece(y, p) FROM c WHERE g = 3;
SELECT 'empty', quote(brier(y, p)), quote(log_loss(y, p)), quote(ece(y, p)), quote(reliability(y, p)), quote(ece_l2_debiased(y, p)) FROM c WHERE 0;
-- the debiased estimators need at least bins rows
SELECT 'few rows', quote(ece_l2_debiased(y, p)), quote(ece_l2_kumar(y, p)), ece_l2_debiased(y, p, 8) IS NOT NULL, ece_l2_kumar(y, p, 9) IS NULL FROM c;
-- edges: b/B in bin b, p = 1 in the last bin, p = 0 in the first
SELECT 'edges', reliability(y, p, 4) FROM (SELECT 0 AS y, 0.0 AS p UNION ALL SELECT 0, 0.25 UNION ALL SELECT 1, 0.5 UNION ALL SELECT 1, 0.75 UNION ALL SELECT 1, 1.0);
SELECT 'reliability', g, reliability(y, p, 2) FROM c GROUP BY g;
SELECT 'json', json_extract(reliability(y, p, 2), '$[1].frac_pos') FROM c WHERE g = 1;
-- window equals aggregate
SELECT 'window', g, round(brier(y, p) OVER (PARTITION BY g), 12) = round((SELECT brier(y, p) FROM c c2 WHERE c2.g = c.g), 12) FROM c;
-- errors
SELECT brier(1, 1.5);
SELECT brier(1, -0.1);
SELECT log_loss(0, 'x');
SELECT ece(2, 0.5);
SELECT ece(1, 0.5, 0);
SELECT ece(1, 0.5, 100001);
SELECT ece(1, 0.5, 2.5);
SELECT reliability(1, 0.5, 'ten');
SELECT ece_l2_debiased(1, 0.5, NULL);
SELECT ece_l2_kumar(1, 0.5, -3);
SELECT log_loss(1, 0.5, 0);
SELECT log_loss(1, 0.5, 0.5);
SELECT ece(y, p, g) FROM c;
SELECT log_loss(y, p, CASE WHEN g = 1 THEN 1e-15 ELSE 1e-7 END) FROM c;
