SELECT g, expected_confusion(p, 0.5) FROM t GROUP BY g;
SELECT expected_confusion(p, 0.5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT expected_confusion(st, 0.5) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
