SELECT g, surv_decision_curve(z, y, p, 1, 0.1, 0.9, 0.1) FROM t GROUP BY g;
SELECT surv_decision_curve(z, y, p, 1, 0.1, 0.9, 0.1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT surv_decision_curve(st, 1, 0.1, 0.9, 0.1) FROM (SELECT ml_state_surv(z, y, s) AS st FROM t GROUP BY g);
