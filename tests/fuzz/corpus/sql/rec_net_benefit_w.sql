SELECT g, net_benefit_w(y, p, z / 4, 0.2) FROM t GROUP BY g;
SELECT net_benefit_w(y, p, z / 4, 0.2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
