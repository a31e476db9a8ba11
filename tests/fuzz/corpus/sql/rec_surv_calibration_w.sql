SELECT g, surv_calibration_w(z, y, p, z / 4, 1, 4) FROM t GROUP BY g;
SELECT surv_calibration_w(z, y, p, z / 4, 1, 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
