SELECT g, c_index_diff(z, y, s, p, 10) FROM t GROUP BY g;
SELECT c_index_diff(z, y, s, p, 10) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
