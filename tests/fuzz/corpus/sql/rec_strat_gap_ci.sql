SELECT g, strat_gap_ci(y, s, z, 0.25, 0.75, 0.9, 20, 7) FROM t GROUP BY g;
SELECT strat_gap_ci(y, s, z, 0.25, 0.75, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT strat_gap_ci(st, 0.25, 0.75, 0.9, 20, 7) FROM (SELECT ml_state(y, s, z) AS st FROM t GROUP BY g);
