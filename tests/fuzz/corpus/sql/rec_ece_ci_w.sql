SELECT g, ece_ci_w(y, p, z / 4, 10, 0.9, 20, 7) FROM t GROUP BY g;
SELECT ece_ci_w(y, p, z / 4, 10, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
