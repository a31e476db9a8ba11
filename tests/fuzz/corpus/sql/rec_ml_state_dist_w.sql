SELECT g, ml_state_dist_w(s, z / 4) FROM t GROUP BY g;
SELECT ml_state_dist_w(s, z / 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
