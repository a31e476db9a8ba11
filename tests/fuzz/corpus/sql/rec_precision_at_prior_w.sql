SELECT g, precision_at_prior_w(y, s, z / 4, 0.5, 0.1) FROM t GROUP BY g;
SELECT precision_at_prior_w(y, s, z / 4, 0.5, 0.1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
