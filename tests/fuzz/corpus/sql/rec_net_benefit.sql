SELECT g, net_benefit(y, p, 0.2) FROM t GROUP BY g;
SELECT net_benefit(y, p, 0.2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT net_benefit(st, 0.2) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
