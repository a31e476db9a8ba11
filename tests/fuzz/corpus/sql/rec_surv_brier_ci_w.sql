SELECT g, surv_brier_ci_w(z, y, p, z / 4, 1, 0.9, 20, 7) FROM t GROUP BY g;
SELECT surv_brier_ci_w(z, y, p, z / 4, 1, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
