SELECT g, surv_auroc(z, y, s, 5) FROM t GROUP BY g;
SELECT surv_auroc(z, y, s, 5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT surv_auroc(st, 5) FROM (SELECT ml_state_surv(z, y, s) AS st FROM t GROUP BY g);
