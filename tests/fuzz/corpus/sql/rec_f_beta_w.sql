SELECT g, f_beta_w(y, s, z / 4, 0.5, 2) FROM t GROUP BY g;
SELECT f_beta_w(y, s, z / 4, 0.5, 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
