SELECT g, censoring_km_w(z, y, z / 4) FROM t GROUP BY g;
SELECT censoring_km_w(z, y, z / 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
