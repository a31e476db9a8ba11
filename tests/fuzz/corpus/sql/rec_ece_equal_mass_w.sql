SELECT g, ece_equal_mass_w(y, p, z / 4, 2) FROM t GROUP BY g;
SELECT ece_equal_mass_w(y, p, z / 4, 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
