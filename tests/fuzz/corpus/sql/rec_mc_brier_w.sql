SELECT g, mc_brier_w(y, z / 4, p, 1 - p) FROM t GROUP BY g;
SELECT mc_brier_w(y, z / 4, p, 1 - p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
