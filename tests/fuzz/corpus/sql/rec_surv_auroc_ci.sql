SELECT g, surv_auroc_ci(z, y, s, 1, 0.9, 20, 7) FROM t GROUP BY g;
SELECT surv_auroc_ci(z, y, s, 1, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT surv_auroc_ci(st, 1, 0.9, 20, 7) FROM (SELECT ml_state_surv(z, y, s) AS st FROM t GROUP BY g);
