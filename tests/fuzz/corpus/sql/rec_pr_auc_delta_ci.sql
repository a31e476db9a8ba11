SELECT g, pr_auc_delta_ci(y, s, 0.9) FROM t GROUP BY g;
SELECT pr_auc_delta_ci(y, s, 0.9) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT pr_auc_delta_ci(st, 0.9) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
