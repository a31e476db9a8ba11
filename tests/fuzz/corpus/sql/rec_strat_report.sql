SELECT g, strat_report(y, s, z, 0.25, 0.75, 0.05) FROM t GROUP BY g;
SELECT strat_report(y, s, z, 0.25, 0.75, 0.05) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT strat_report(st, 0.25, 0.75, 0.05) FROM (SELECT ml_state(y, s, z) AS st FROM t GROUP BY g);
