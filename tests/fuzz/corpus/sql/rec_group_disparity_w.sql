SELECT g, group_disparity_w(y, s, z / 4, o, 0.5) FROM t GROUP BY g;
SELECT group_disparity_w(y, s, z / 4, o, 0.5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
