SELECT g, pr_curve(y, s) FROM t GROUP BY g;
SELECT pr_curve(y, s) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT pr_curve(st) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
