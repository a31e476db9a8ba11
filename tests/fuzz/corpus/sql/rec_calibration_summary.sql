SELECT g, calibration_summary(y, p, 0.9) FROM t GROUP BY g;
SELECT calibration_summary(y, p, 0.9) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT calibration_summary(st, 0.9) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
