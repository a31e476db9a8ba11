-- plots.sql -- golden SVG for small fixed inputs: a change in drawing is a
-- reviewed diff of plots.expected (UPDATE=1 tests/sql_golden.sh rewrites it).
.mode list
CREATE TABLE t(f INT, y INT, s REAL);
INSERT INTO t VALUES (1,0,0.1),(1,1,0.4),(1,0,0.35),(1,1,0.8),(2,0,0.2),(2,1,0.6),(2,1,0.7),(2,0,0.65),(2,0,0.3);
SELECT plot_curves('fold ' || f, c, 'PR <golden> & "fixed"') FROM (SELECT f, pr_curve(y, s) AS c FROM t GROUP BY f ORDER BY f);
SELECT plot_curves('fold ' || f, c) FROM (SELECT f, roc_curve(y, s) AS c FROM t GROUP BY f ORDER BY f);
SELECT plot_reliability('fold ' || f, r) FROM (SELECT f, reliability(y, s, 4) AS r FROM t GROUP BY f ORDER BY f);
SELECT plot_bars(column1, column2, column3, 'SVD cost', 'ms')
  FROM (VALUES ('QK^T','full',3.5),('QK^T','randomized',1.25),('WvWo','full',10),('WvWo','values_only',-2));
SELECT plot_lines(column1, column2, column3)
  FROM (VALUES ('web',1,0.7),('web',3,0.75),('app',2,0.6),('web',2,0.72),('app',1,0.65));
-- Errors and NULLs
SELECT plot_curves('a', '[1,2]');
SELECT plot_curves('a', 3);
SELECT plot_curves('a', '[{"threshold":1,"fpr":0,"tpr":0.5}] x');
SELECT plot_curves(n, c) FROM (SELECT 'a' AS n, pr_curve(y, s) AS c FROM t UNION ALL SELECT 'b', roc_curve(y, s) FROM t);
SELECT plot_curves('a', c) FROM (SELECT pr_curve(y, s) AS c FROM t GROUP BY f);
SELECT plot_curves('a', '[{"recall":1.5,"precision":0.5}]');
SELECT plot_reliability('a', '[{"lo":0,"hi":0.5,"n":3,"mean_p":0.2}]');
SELECT plot_reliability('a', '[]');
SELECT plot_bars('c', 's', 'x');
SELECT plot_bars('c', 's', 1, 'title', 2);
SELECT plot_lines('s', 1, 2, column1) FROM (VALUES ('a'), ('b'));
SELECT plot_lines('s', x, 1) OVER (ORDER BY x) FROM (SELECT 1 AS x);
SELECT plot_lines('s', 1e999, 1);
SELECT plot_lines('s', NULL, 1) IS NULL, plot_curves('a', NULL) IS NULL;

