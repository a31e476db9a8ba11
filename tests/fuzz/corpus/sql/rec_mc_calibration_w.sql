SELECT g, mc_calibration_w(y, json_array(p, 1 - p), z / 4, 10) FROM t GROUP BY g;
SELECT mc_calibration_w(y, json_array(p, 1 - p), z / 4, 10) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
