SELECT g, net_benefit_diff_ci(y, p, p * p, 0.2, 0.9, 20, 7) FROM t GROUP BY g;
SELECT net_benefit_diff_ci(y, p, p * p, 0.2, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
