-- SPDX-License-Identifier: MIT
-- Ordinal (cumulative) AUPRC audit: Low (0) < High (1) < Critical (2).
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/ordinal_audit.sql
-- sql/ordinal_data.sql: 2000 rows, 78 / 21 / 1 per 100, with class probabilities.
.read sql/ordinal_data.sql
.mode box
.print Per fold: s_1 = p_high + p_crit ("at least High?"), s_2 = p_crit ("Critical?")
SELECT fold, n, critical,
       round(r ->> '$.auprc_ge_1', 3) AS auprc_ge_1, round(r ->> '$.auprc_ge_2', 3) AS auprc_ge_2,
       round(r ->> '$.ordinal_auprc', 3) AS ordinal_auprc, round(r ->> '$.ordinal_nap', 3) AS ordinal_nap,
       round(r ->> '$.severity_ordering_ap', 3) AS severity_ordering_ap
FROM (SELECT fold, count(*) AS n, sum(y = 2) AS critical, ordinal_report(y, p_high + p_crit, p_crit) AS r
      FROM severity GROUP BY fold) ORDER BY fold;

.print
.print Expected values on this class mix (all 2000 rows)
WITH s AS (SELECT y, p_high + p_crit AS m1, p_crit AS m2,
                  ((id * 2654435761) % 1000003) / 1000003.0 AS r1,
                  ((id * 40503 + 7) % 1000033) / 1000033.0 AS r2 FROM severity)
SELECT 'perfect' AS scenario, round(ordinal_auprc(y, y >= 1, y >= 2), 3) AS ordinal_auprc,
       round(ordinal_nap(y, y >= 1, y >= 2), 3) AS ordinal_nap FROM s
UNION ALL
SELECT 'the model', round(ordinal_auprc(y, m1, m2), 3), round(ordinal_nap(y, m1, m2), 3) FROM s
UNION ALL
SELECT 'random', round(ordinal_auprc(y, r1, r2), 3), round(ordinal_nap(y, r1, r2), 3) FROM s
UNION ALL
SELECT 'inverted model', round(ordinal_auprc(y, -m1, -m2), 3), round(ordinal_nap(y, -m1, -m2), 3) FROM s;

.print
.print One shared severity score (expected severity), passed once per cut
SELECT round(ordinal_auprc(y, e, e), 3) AS ordinal_auprc, round(ordinal_nap(y, e, e), 3) AS ordinal_nap,
       round(auprc_ge(y, e, 2), 3) AS auprc_ge_2
FROM (SELECT y, p_high + 2 * p_crit AS e FROM severity);
