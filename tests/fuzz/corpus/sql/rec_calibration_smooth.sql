SELECT g, calibration_smooth(y, p) FROM t GROUP BY g;
SELECT calibration_smooth(y, p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT calibration_smooth(st) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
