SELECT g, surv_ibs_w(z, y, 1 + g, p, z / 4) FROM t GROUP BY g;
SELECT surv_ibs_w(z, y, 1 + g, p, z / 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
