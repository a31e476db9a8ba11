SELECT g, mc_pr_auc_w(y, z / 4, s, p) FROM t GROUP BY g;
SELECT mc_pr_auc_w(y, z / 4, s, p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
