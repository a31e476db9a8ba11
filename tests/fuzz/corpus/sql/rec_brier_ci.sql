SELECT g, brier_ci(y, p, 0.9, 20, 7) FROM t GROUP BY g;
SELECT brier_ci(y, p, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT brier_ci(st, 0.9, 20, 7) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
