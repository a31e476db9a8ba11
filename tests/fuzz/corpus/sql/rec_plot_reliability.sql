SELECT plot_reliability(g, r, 'fuzz') FROM (SELECT g, reliability(y, p, 5) AS r FROM t GROUP BY g);
