SELECT g, surv_summary(z, y, p, 5) FROM t GROUP BY g;
SELECT surv_summary(z, y, p, 5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
