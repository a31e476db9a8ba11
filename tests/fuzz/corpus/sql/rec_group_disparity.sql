SELECT g, group_disparity(y, s, o, 0.5) FROM t GROUP BY g;
SELECT group_disparity(y, s, o, 0.5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
