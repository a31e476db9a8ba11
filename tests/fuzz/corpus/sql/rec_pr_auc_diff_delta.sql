SELECT g, pr_auc_diff_delta(y, s, p, 0.9) FROM t GROUP BY g;
SELECT pr_auc_diff_delta(y, s, p, 0.9) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
