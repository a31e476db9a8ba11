SELECT g, gains_w(y, s, z / 4, 2) FROM t GROUP BY g;
SELECT gains_w(y, s, z / 4, 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
