SELECT g, censoring_km(z, y) FROM t GROUP BY g;
SELECT censoring_km(z, y) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT censoring_km(st) FROM (SELECT ml_state_surv(z, y, s) AS st FROM t GROUP BY g);
