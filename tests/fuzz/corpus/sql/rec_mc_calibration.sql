SELECT g, mc_calibration(y, json_array(p, 1 - p), 10) FROM t GROUP BY g;
SELECT mc_calibration(y, json_array(p, 1 - p), 10) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT mc_calibration(st, 10) FROM (SELECT ml_state_mc(y, p, 1 - p) AS st FROM t GROUP BY g);
