SELECT g, mc_auroc(y, s, p) FROM t GROUP BY g;
SELECT mc_auroc(y, s, p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT mc_auroc(st) FROM (SELECT ml_state_mc(y, p, 1 - p) AS st FROM t GROUP BY g);
