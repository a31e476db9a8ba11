SELECT g, surv_ibs(z, y, 1 + g, p) FROM t GROUP BY g;
SELECT surv_ibs(z, y, 1 + g, p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
