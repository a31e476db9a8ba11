SELECT g, ece_ci(y, p, 10, 0.9, 20, 7) FROM t GROUP BY g;
SELECT ece_ci(y, p, 10, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT ece_ci(st, 10, 0.9, 20, 7) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
