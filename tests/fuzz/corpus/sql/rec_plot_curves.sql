SELECT plot_curves(g, c, 'fuzz') FROM (SELECT g, pr_curve(y, s) AS c FROM t GROUP BY g);
SELECT plot_curves(g, c) FROM (SELECT g, roc_curve(y, s) AS c FROM t GROUP BY g);
