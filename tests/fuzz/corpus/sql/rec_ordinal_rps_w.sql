SELECT g, ordinal_rps_w(y, p, 1 - p, z / 4) FROM t GROUP BY g;
SELECT ordinal_rps_w(y, p, 1 - p, z / 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
