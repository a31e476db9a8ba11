SELECT g, brier_decomposition(y, p, 2) FROM t GROUP BY g;
SELECT brier_decomposition(y, p, 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT brier_decomposition(st, 2) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
