SELECT g, pr_auc_diff_ci(y, s, p, 0.9, 20, 7) FROM t GROUP BY g;
SELECT pr_auc_diff_ci(y, s, p, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
