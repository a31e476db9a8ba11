SELECT g, wasserstein(o % 2, s) FROM t GROUP BY g;
SELECT wasserstein(o % 2, s) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
