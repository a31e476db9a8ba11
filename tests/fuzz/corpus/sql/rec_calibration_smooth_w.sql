SELECT g, calibration_smooth_w(y, p, z / 4) FROM t GROUP BY g;
SELECT calibration_smooth_w(y, p, z / 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
