SELECT g, mc_log_loss(y, p, 1 - p) FROM t GROUP BY g;
SELECT mc_log_loss(y, p, 1 - p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
