SELECT g, log_loss_w(y, p, z / 4, 1e-15) FROM t GROUP BY g;
SELECT log_loss_w(y, p, z / 4, 1e-15) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
