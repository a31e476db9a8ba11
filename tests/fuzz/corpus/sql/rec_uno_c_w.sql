SELECT g, uno_c_w(z, y, s, z / 4, 10) FROM t GROUP BY g;
SELECT uno_c_w(z, y, s, z / 4, 10) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
