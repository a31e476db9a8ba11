SELECT g, surv_auroc(z, y, s, 5) FROM t GROUP BY g;
SELECT surv_auroc(z, y, s, 5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
