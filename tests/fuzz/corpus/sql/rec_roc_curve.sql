SELECT g, roc_curve(y, s) FROM t GROUP BY g;
SELECT roc_curve(y, s) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT roc_curve(st) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
