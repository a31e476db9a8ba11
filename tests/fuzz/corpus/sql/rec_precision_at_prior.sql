SELECT g, precision_at_prior(y, s, 0.5, 0.1) FROM t GROUP BY g;
SELECT precision_at_prior(y, s, 0.5, 0.1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT precision_at_prior(st, 0.5, 0.1) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
