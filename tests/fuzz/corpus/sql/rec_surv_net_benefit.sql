SELECT g, surv_net_benefit(z, y, p, 1, 0.2) FROM t GROUP BY g;
SELECT surv_net_benefit(z, y, p, 1, 0.2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT surv_net_benefit(st, 1, 0.2) FROM (SELECT ml_state_surv(z, y, s) AS st FROM t GROUP BY g);
