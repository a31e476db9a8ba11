SELECT g, c_index_ci(z, y, s, 10, 0.9) FROM t GROUP BY g;
SELECT c_index_ci(z, y, s, 10, 0.9) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
