SELECT g, tpr_at_fpr(y, s, 0.1) FROM t GROUP BY g;
SELECT tpr_at_fpr(y, s, 0.1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT tpr_at_fpr(st, 0.1) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
