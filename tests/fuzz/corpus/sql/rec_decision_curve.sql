SELECT g, decision_curve(y, p, 0.1, 0.9, 0.1) FROM t GROUP BY g;
SELECT decision_curve(y, p, 0.1, 0.9, 0.1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT decision_curve(st, 0.1, 0.9, 0.1) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
