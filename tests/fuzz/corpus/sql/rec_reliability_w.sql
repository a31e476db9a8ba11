SELECT g, reliability_w(y, p, z / 4, 10, 'quantile') FROM t GROUP BY g;
SELECT reliability_w(y, p, z / 4, 10, 'quantile') OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
