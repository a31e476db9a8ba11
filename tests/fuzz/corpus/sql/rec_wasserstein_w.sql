SELECT g, wasserstein_w(o % 2, s, z / 4) FROM t GROUP BY g;
SELECT wasserstein_w(o % 2, s, z / 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
