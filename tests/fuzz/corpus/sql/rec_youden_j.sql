SELECT g, youden_j(y, s) FROM t GROUP BY g;
SELECT youden_j(y, s) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT youden_j(st) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
