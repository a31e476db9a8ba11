SELECT g, expected_auroc(p) FROM t GROUP BY g;
SELECT expected_auroc(p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT expected_auroc(st) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
