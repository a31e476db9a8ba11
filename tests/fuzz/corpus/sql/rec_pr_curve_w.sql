SELECT g, pr_curve_w(y, s, z / 4) FROM t GROUP BY g;
SELECT pr_curve_w(y, s, z / 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
