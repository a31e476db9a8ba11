SELECT g, ordinal_rps(y, p, 1 - p) FROM t GROUP BY g;
SELECT ordinal_rps(y, p, 1 - p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT ordinal_rps(st) FROM (SELECT ml_state_mc(y, p, 1 - p) AS st FROM t GROUP BY g);
