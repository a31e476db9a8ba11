SELECT g, gains(y, s, 2) FROM t GROUP BY g;
SELECT gains(y, s, 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT gains(st, 2) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
