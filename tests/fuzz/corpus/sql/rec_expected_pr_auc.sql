SELECT g, expected_pr_auc(p) FROM t GROUP BY g;
SELECT expected_pr_auc(p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT expected_pr_auc(st) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
