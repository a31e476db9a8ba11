SELECT g, operating_point(y, s, 'fpr', 0.1) FROM t GROUP BY g;
SELECT operating_point(y, s, 'fpr', 0.1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT operating_point(st, 'fpr', 0.1) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
