SELECT g, surv_summary_w(z, y, p, z / 4, 5) FROM t GROUP BY g;
SELECT surv_summary_w(z, y, p, z / 4, 5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
