SELECT g, mc_top_k_w(y, s, p, z / 4) FROM t GROUP BY g;
SELECT mc_top_k_w(y, s, p, z / 4) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
