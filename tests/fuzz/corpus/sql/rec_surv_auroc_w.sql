SELECT g, surv_auroc_w(z, y, s, z / 4, 5) FROM t GROUP BY g;
SELECT surv_auroc_w(z, y, s, z / 4, 5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
