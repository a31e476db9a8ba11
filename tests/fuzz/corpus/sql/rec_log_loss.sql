SELECT g, log_loss(y, p, 1e-15) FROM t GROUP BY g;
SELECT log_loss(y, p, 1e-15) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT log_loss(st, 1e-15) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
