SELECT g, sens_at_spec(y, s, 0.9) FROM t GROUP BY g;
SELECT sens_at_spec(y, s, 0.9) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT sens_at_spec(st, 0.9) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
