SELECT g, strat_gap(y, s, z, 0.25, 0.75) FROM t GROUP BY g;
SELECT strat_gap(y, s, z, 0.25, 0.75) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT strat_gap(st, 0.25, 0.75) FROM (SELECT ml_state(y, s, z) AS st FROM t GROUP BY g);
