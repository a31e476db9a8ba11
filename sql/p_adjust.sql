-- SPDX-License-Identifier: MIT
-- p_adjust.sql -- adjusting many p-values in plain SQL: Bonferroni, Holm
-- (step-down) and Benjamini-Hochberg (step-up FDR), as window arithmetic.
--
--   sqlite3 -cmd '.load ext/.libs/mleval' db.sqlite < sql/p_adjust.sql
--
-- Input: a table pvals(name TEXT, p REAL), one row per test (for example one
-- auroc_diff p_value per fold or per model pair).  If it does not exist, a
-- small example is made.  Output: the temporary view p_adjusted(name, p, m,
-- rank, bonferroni, holm, bh), then its rows by p.  With m tests and p_(i)
-- the i-th smallest:
--   bonferroni_i = min(1, m p_i)
--   holm_(i)     = min(1, max over j <= i of (m - j + 1) p_(j))     running max
--   bh_(i)       = min(1, min over j >= i of m p_(j) / j)           running min from the top
-- statsmodels.stats.multitest.multipletests(p, method='bonferroni' | 'holm' |
-- 'fdr_bh') gives the same numbers (tests/test_uncertainty.py checks it).
-- Tied p-values get the same adjusted value whatever their order.  NULL p
-- values are left out of m.

CREATE TABLE IF NOT EXISTS pvals(name TEXT, p REAL);
INSERT INTO pvals(name, p)
  SELECT * FROM (VALUES ('model_a vs baseline', 0.001), ('model_b vs baseline', 0.012),
                        ('model_c vs baseline', 0.030), ('model_d vs baseline', 0.030),
                        ('model_e vs baseline', 0.210), ('model_f vs baseline', 0.640))
  WHERE NOT EXISTS (SELECT 1 FROM pvals);

DROP VIEW IF EXISTS temp.p_adjusted;
CREATE TEMP VIEW p_adjusted AS
WITH ranked AS (
  SELECT name, p,
         count(*) OVER () AS m,
         row_number() OVER (ORDER BY p, name) AS i
  FROM pvals
  WHERE p IS NOT NULL
)
SELECT name, p, m, i AS rank,
       min(1.0, CAST(m AS REAL) * p) AS bonferroni,
       min(1.0, max(CAST(m - i + 1 AS REAL) * p) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) AS holm,
       min(1.0, min(CAST(m AS REAL) * p / i) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)) AS bh
FROM ranked;

.mode column
.headers on
SELECT name, p, bonferroni, holm, bh FROM p_adjusted ORDER BY rank;
