SELECT g, mc_auroc_ci_w(y, json_array(s, p), z / 4, 0.9, 20, 7) FROM t GROUP BY g;
SELECT mc_auroc_ci_w(y, json_array(s, p), z / 4, 0.9, 20, 7) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
