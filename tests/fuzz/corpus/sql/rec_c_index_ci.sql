SELECT g, c_index_ci(z, y, s, 10, 0.9) FROM t GROUP BY g;
SELECT c_index_ci(z, y, s, 10, 0.9) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT c_index_ci(st, 10, 0.9) FROM (SELECT ml_state_surv(z, y, s) AS st FROM t GROUP BY g);
