SELECT g, ml_state_surv(z, y, s) FROM t GROUP BY g;
SELECT ml_state_surv(z, y, s) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
