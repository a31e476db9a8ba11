SELECT g, mc_auroc_ci(y, json_array(s, p), 0.9, 20, 7) FROM t GROUP BY g;
SELECT mc_auroc_ci(y, json_array(s, p), 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT mc_auroc_ci(st, 0.9, 20, 7) FROM (SELECT ml_state_mc(y, p, 1 - p) AS st FROM t GROUP BY g);
