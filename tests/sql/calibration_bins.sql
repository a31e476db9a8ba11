-- SPEC "Bins" (round 2): the seed toolkits' exact binning, as golden values.
.mode list
-- Equal-width edges are numpy's linspace doubles: e_3 = 3 * (1/10) =
-- 0.30000000000000004, so p = 0.3 is in bin 2 and p = 0.35 in bin 3.
-- eval_toolkit and CeliacRisks: 0.475 (k/B edges gave 0.175).
CREATE TABLE a(y, p);
INSERT INTO a VALUES (0, 0.3), (1, 0.35);
SELECT 'ece', ece(y, p, 10), mce(y, p, 10) FROM a;
SELECT 'reliability', reliability(y, p, 10) FROM a;
SELECT 'edge', printf('%!.17g', reliability(y, p, 10) ->> '$[1].lo') FROM a;
-- Kumar, Liang & Ma's library test: parts as numpy.array_split cuts them
-- (3, 2, 2 values), edges 0.55, 0.75, 1.0
CREATE TABLE k(p, y);
INSERT INTO k VALUES (0.3, 1), (0.4, 1), (0.5, 1), (0.6, 0), (0.7, 0), (0.8, 0), (0.9, 0);
SELECT 'kumar', printf('%!.16g', ece_l2_kumar(y, p, 3)), ece_l2_kumar(y, p, 3) = 0.6938505396903367 FROM k;
-- 10 rows: every bin count from 5 to 9 cuts differently (ceil-sized parts gave 0.685565 for all)
CREATE TABLE ten(y, p);
INSERT INTO ten VALUES (1,0.05),(1,0.15),(1,0.25),(1,0.35),(1,0.45),(0,0.55),(0,0.65),(0,0.75),(0,0.85),(0,0.95);
SELECT 'kumar 10 rows', b.value, round(ece_l2_kumar(y, p, b.value), 6) FROM ten, generate_series(5, 9) AS b GROUP BY b.value;
-- Equal-mass parts b_i = floor(i * (n/B)) in doubles: for n = 30, B = 22
-- part 11 starts at rank 14 (integer floor(11*30/22) = 15)
CREATE TABLE m(y, p);
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < 29)
INSERT INTO m SELECT i % 3 = 0, i / 30.0 FROM c;
SELECT 'equal mass', printf('%!.17g', ece_equal_mass(y, p, 22)), printf('%!.17g', ece_l2(y, p, 22)),
       printf('%!.17g', ece_l2_debiased(y, p, 22)) FROM m;
SELECT 'decomposition', brier_decomposition(y, p, 3) FROM k;
SELECT 'quantile', reliability(y, p, 3, 'quantile') FROM k;
SELECT 'quantile', reliability(y, p, 2, 'Quantile') FROM a;
-- n < bins: the equal-mass functions are NULL; one class is fine
SELECT 'few rows', quote(ece_equal_mass(y, p, 8)), quote(ece_l2(y, p, 8)), quote(brier_decomposition(y, p, 8)),
       ece_equal_mass(y, p, 7) IS NOT NULL FROM k;
SELECT 'one class', mce(y, p), ece_equal_mass(y, p, 2), brier_decomposition(y, p, 2) FROM k WHERE y = 1;
