SELECT g, mc_log_loss(y, p, 1 - p) FROM t GROUP BY g;
SELECT mc_log_loss(y, p, 1 - p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT mc_log_loss(st) FROM (SELECT ml_state_mc(y, p, 1 - p) AS st FROM t GROUP BY g);
