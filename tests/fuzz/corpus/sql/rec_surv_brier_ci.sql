SELECT g, surv_brier_ci(z, y, p, 1, 0.9, 20, 7) FROM t GROUP BY g;
SELECT surv_brier_ci(z, y, p, 1, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT surv_brier_ci(st, 1, 0.9, 20, 7) FROM (SELECT ml_state_surv(z, y, s) AS st FROM t GROUP BY g);
