SELECT g, strat_report_w(y, s, z / 4, z, 0.25, 0.75, 0.05) FROM t GROUP BY g;
SELECT strat_report_w(y, s, z / 4, z, 0.25, 0.75, 0.05) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
