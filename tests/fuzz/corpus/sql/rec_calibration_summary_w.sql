SELECT g, calibration_summary_w(y, p, z / 4, 0.9) FROM t GROUP BY g;
SELECT calibration_summary_w(y, p, z / 4, 0.9) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
