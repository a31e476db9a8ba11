SELECT g, confusion(y, s, 0.5) FROM t GROUP BY g;
SELECT confusion(y, s, 0.5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT confusion(st, 0.5) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
