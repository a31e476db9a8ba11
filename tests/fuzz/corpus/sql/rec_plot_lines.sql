SELECT plot_lines(g, id, s, 'fuzz') FROM t;
