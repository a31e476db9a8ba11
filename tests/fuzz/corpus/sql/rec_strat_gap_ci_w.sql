SELECT g, strat_gap_ci_w(y, s, z / 4, z, 0.25, 0.75, 0.9, 20, 7) FROM t GROUP BY g;
SELECT strat_gap_ci_w(y, s, z / 4, z, 0.25, 0.75, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
