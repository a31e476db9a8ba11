SELECT plot_km(g, c, 'fuzz') FROM (SELECT g, km(z, y) AS c FROM t GROUP BY g);
