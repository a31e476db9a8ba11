SELECT g, ece_l2_debiased(y, p, 2) FROM t GROUP BY g;
SELECT ece_l2_debiased(y, p, 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT ece_l2_debiased(st, 2) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
