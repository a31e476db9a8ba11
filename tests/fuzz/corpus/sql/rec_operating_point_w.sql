SELECT g, operating_point_w(y, s, z / 4, 'fpr', 0.1) FROM t GROUP BY g;
SELECT operating_point_w(y, s, z / 4, 'fpr', 0.1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
