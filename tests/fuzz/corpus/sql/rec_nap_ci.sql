SELECT g, nap_ci(y, s, 0.9, 20, 7) FROM t GROUP BY g;
SELECT nap_ci(y, s, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT nap_ci(st, 0.9, 20, 7) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
