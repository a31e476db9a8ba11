SELECT g, surv_net_benefit_w(z, y, p, z / 4, 1, 0.2) FROM t GROUP BY g;
SELECT surv_net_benefit_w(z, y, p, z / 4, 1, 0.2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
