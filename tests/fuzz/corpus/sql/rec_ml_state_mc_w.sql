SELECT g, ml_state_mc_w(y, z / 4, s, p) FROM t GROUP BY g;
SELECT ml_state_mc_w(y, z / 4, s, p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
