SELECT g, auroc_test(y, s, o % 2) FROM t GROUP BY g;
SELECT auroc_test(y, s, o % 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
