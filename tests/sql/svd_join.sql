-- svd_bench's arguments from a join (SPEC: "the arguments may come from a
-- join"), whichever way the join is written, and the hidden argument columns
-- return the arguments (the values used, where an argument is left out).
.mode list
CREATE TABLE t(k INTEGER);
INSERT INTO t VALUES (1), (2);
SELECT 'comma', t.k, count(*) FROM t, svd_bench(8, 8, t.k, 0, 1) GROUP BY t.k;
SELECT 'cross join', t.k, count(*) FROM t CROSS JOIN svd_bench(8, 8, t.k, 0, 1) GROUP BY t.k;
SELECT 'join', t.k, count(*) FROM t JOIN svd_bench(8, 8, t.k, 0, 1) GROUP BY t.k;
SELECT 'left join', t.k, count(*) FROM t LEFT JOIN svd_bench(8, 8, t.k, 0, 1) GROUP BY t.k;
SELECT 'function first', t.k, count(*) FROM svd_bench(8, 8, t.k, 0, 1), t GROUP BY t.k;
SELECT 'subquery', k, (SELECT count(*) FROM svd_bench(8, 8, t.k, 0, 1)) FROM t;
SELECT 'rank follows t.k', t.k, s.method, s.rank FROM t, svd_bench(6, 4, t.k, 0, 1) AS s ORDER BY 2, 3;
CREATE TABLE shapes(m INTEGER, n INTEGER);
INSERT INTO shapes VALUES (4, 3), (3, 5);
SELECT 'shapes', m, n, s.rows, s.cols, s.rank FROM shapes, svd_bench(shapes.m, shapes.n, NULL, 0, 1) AS s
 WHERE s.method = 'full' ORDER BY m;
-- the hidden columns: the arguments as given
SELECT 'given', arg_rows, arg_cols, arg_rank, arg_warmup, arg_iters, arg_device, arg_dtype, arg_seed, arg_spectrum
  FROM svd_bench(6, 4, 2, 0, 1, 'CPU', 'float32', 9, 'decay') WHERE method = 'full';
SELECT 'left out', arg_rows, arg_cols, arg_rank, arg_warmup, arg_iters, arg_device, arg_dtype, arg_seed, arg_spectrum
  FROM svd_bench(6, 4) WHERE method = 'full';
SELECT 'rank NULL', typeof(arg_rank), rank FROM svd_bench(6, 4, NULL, 0, 1) WHERE method = 'full';
SELECT 'filter on a hidden column', count(*) FROM svd_bench(6, 4, 2, 0, 1) WHERE arg_rank = 2 AND arg_cols > 3;
-- the schema: the result columns, then one hidden column per argument
SELECT group_concat(name || ':' || hidden, ' ') FROM pragma_table_xinfo('svd_bench');
