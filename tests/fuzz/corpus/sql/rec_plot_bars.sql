SELECT plot_bars(g, o, s, 'fuzz', 'ms') FROM t;
