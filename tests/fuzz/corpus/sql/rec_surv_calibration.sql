SELECT g, surv_calibration(z, y, p, 1, 4) FROM t GROUP BY g;
SELECT surv_calibration(z, y, p, 1, 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT surv_calibration(st, 1, 4) FROM (SELECT ml_state_surv(z, y, s) AS st FROM t GROUP BY g);
