SELECT g, auroc_ci(y, s, 0.9) FROM t GROUP BY g;
SELECT auroc_ci(y, s, 0.9) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT auroc_ci(st, 0.9) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
