SELECT g, reliability(y, p, 10, 'quantile') FROM t GROUP BY g;
SELECT reliability(y, p, 10, 'quantile') OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT reliability(st, 10, 'quantile') FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
