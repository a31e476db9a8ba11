SELECT g, c_index(z, y, s, 10) FROM t GROUP BY g;
SELECT c_index(z, y, s, 10) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT c_index(st, 10) FROM (SELECT ml_state_surv(z, y, s) AS st FROM t GROUP BY g);
