SELECT g, precision_at_k(y, s, 3) FROM t GROUP BY g;
SELECT precision_at_k(y, s, 3) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT precision_at_k(st, 3) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
