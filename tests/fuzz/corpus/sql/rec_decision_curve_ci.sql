SELECT g, decision_curve_ci(y, p, 0.1, 0.9, 0.1, 0.9, 20, 7) FROM t GROUP BY g;
SELECT decision_curve_ci(y, p, 0.1, 0.9, 0.1, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
