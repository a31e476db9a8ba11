SELECT g, f_beta(y, s, 0.5, 2) FROM t GROUP BY g;
SELECT f_beta(y, s, 0.5, 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT f_beta(st, 0.5, 2) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
