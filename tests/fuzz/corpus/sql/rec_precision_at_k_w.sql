SELECT g, precision_at_k_w(y, s, z / 4, 3) FROM t GROUP BY g;
SELECT precision_at_k_w(y, s, z / 4, 3) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
