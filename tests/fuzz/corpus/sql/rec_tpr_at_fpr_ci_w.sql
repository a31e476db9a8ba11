SELECT g, tpr_at_fpr_ci_w(y, s, z / 4, 0.1, 0.9, 20, 7) FROM t GROUP BY g;
SELECT tpr_at_fpr_ci_w(y, s, z / 4, 0.1, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
