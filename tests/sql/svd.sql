-- svd_bench: shape, columns and every bad argument.  (Timings vary, so only
-- deterministic columns are printed.)
.mode list
SELECT method, device, driver, dtype, rows, cols, rank, warmup, iters, ms_min <= ms_median AND ms_median <= ms_max,
       recon_rel_error IS NULL FROM svd_bench(20, 12, 4, 0, 3);
SELECT count(*), min(rank), max(rank) FROM svd_bench(7, 9);
SELECT method, dtype FROM svd_bench(8, 8, 8, 0, 1, 'CPU', 'float32', 3, 'decay');
SELECT * FROM svd_bench;
SELECT * FROM svd_bench(10);
SELECT * FROM svd_bench(0, 10);
SELECT * FROM svd_bench(10, 16385);
SELECT * FROM svd_bench(5000, 5000);
SELECT * FROM svd_bench(10, 5, 6);
SELECT * FROM svd_bench(10, 5, 0);
SELECT * FROM svd_bench(10, 5, 2, -1);
SELECT * FROM svd_bench(10, 5, 2, 1, 0);
SELECT * FROM svd_bench(10, 5, 2, 1, 1, 'tpu');
SELECT * FROM svd_bench(10, 5, 2, 1, 1, 'cpu', 'float16');
SELECT * FROM svd_bench(10, 5, 2, 1, 1, 'cpu', 'float64', -4);
SELECT * FROM svd_bench(10, 5, 2, 1, 1, 'cpu', 'float64', 0, 'flat');
SELECT * FROM svd_bench('ten', 5);
SELECT * FROM svd_bench(2.5, 5);
-- direct only: not from a trigger or a view
CREATE TABLE log(x);
CREATE VIEW v AS SELECT method FROM svd_bench(4, 4);
SELECT * FROM v;
