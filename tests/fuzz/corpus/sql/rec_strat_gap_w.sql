SELECT g, strat_gap_w(y, s, z / 4, z, 0.25, 0.75) FROM t GROUP BY g;
SELECT strat_gap_w(y, s, z / 4, z, 0.25, 0.75) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
