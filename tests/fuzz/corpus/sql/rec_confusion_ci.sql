SELECT g, confusion_ci(y, s, 0.5, 0.9, 'clopper-pearson') FROM t GROUP BY g;
SELECT confusion_ci(y, s, 0.5, 0.9, 'clopper-pearson') OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT confusion_ci(st, 0.5, 0.9, 'clopper-pearson') FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
