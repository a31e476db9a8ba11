SELECT g, surv_decision_curve_w(z, y, p, z / 4, 1, 0.1, 0.9, 0.1) FROM t GROUP BY g;
SELECT surv_decision_curve_w(z, y, p, z / 4, 1, 0.1, 0.9, 0.1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
