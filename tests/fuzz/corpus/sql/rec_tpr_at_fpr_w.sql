SELECT g, tpr_at_fpr_w(y, s, z / 4, 0.1) FROM t GROUP BY g;
SELECT tpr_at_fpr_w(y, s, z / 4, 0.1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
