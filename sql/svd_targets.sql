-- SPDX-License-Identifier: MIT
-- SVD cost of the spectral metrics of a transformer's matrices, per target.
--   sqlite3 -cmd '.load ext/.libs/mleval' results.db < sql/svd_targets.sql
-- Sizes: w (the attention window) and d_model default to 128 and 512; set
-- them with the shell's parameters:
--   sqlite3 -cmd '.load ext/.libs/mleval' -cmd '.parameter set :w 256' \
--           -cmd '.parameter set :d_model 1024' results.db < sql/svd_targets.sql
-- :rank (default 32) is the randomized method's target rank.
DROP TABLE IF EXISTS svd_targets;
CREATE TABLE svd_targets(target TEXT, shape TEXT, rows INT, cols INT);
INSERT INTO svd_targets
  SELECT 'QK^T', '[w, w]', w, w FROM (SELECT coalesce(:w, 128) AS w, coalesce(:d_model, 512) AS d)
  UNION ALL SELECT 'WvWo', '[d_model, d_model]', d, d FROM (SELECT coalesce(:w, 128) AS w, coalesce(:d_model, 512) AS d)
  UNION ALL SELECT 'AVWo', '[w, d_model]', w, d FROM (SELECT coalesce(:w, 128) AS w, coalesce(:d_model, 512) AS d);

-- One row per target and method, kept next to the evaluation results.
CREATE TABLE IF NOT EXISTS svd_results(run_at TEXT, target TEXT, shape TEXT, method TEXT, device TEXT,
  driver TEXT, dtype TEXT, rows INT, cols INT, rank INT, warmup INT, iters INT, ms_mean REAL, ms_min REAL,
  ms_median REAL, ms_max REAL, sv_rel_error REAL, sv_correlation REAL, recon_rel_error REAL);
INSERT INTO svd_results
  SELECT datetime('now'), t.target, t.shape, b.method, b.device, b.driver, b.dtype, b.rows, b.cols, b.rank,
         b.warmup, b.iters, b.ms_mean, b.ms_min, b.ms_median, b.ms_max, b.sv_rel_error, b.sv_correlation,
         b.recon_rel_error
  FROM svd_targets t,
       svd_bench(t.rows, t.cols, min(coalesce(:rank, 32), t.rows, t.cols), 5, 20, 'cpu', 'float64', 0, 'decay') b;

.mode box
.print Cost per target and method (this run)
SELECT target, shape, method, round(ms_median, 3) AS ms_median, printf('%.2e', sv_rel_error) AS sv_rel_error,
       iif(recon_rel_error IS NULL, NULL, printf('%.2e', recon_rel_error)) AS recon_rel_error
FROM svd_results WHERE run_at = (SELECT max(run_at) FROM svd_results)
ORDER BY target, method;

.print
.print Randomized (target rank :rank, default 32) and values-only speed-up over the full SVD
SELECT target, shape,
       round(max(ms_median) FILTER (WHERE method = 'full'), 3) AS full_ms,
       round(max(ms_median) FILTER (WHERE method = 'full') / max(ms_median) FILTER (WHERE method = 'randomized'), 2) AS randomized_speedup,
       round(max(ms_median) FILTER (WHERE method = 'full') / max(ms_median) FILTER (WHERE method = 'values_only'), 2) AS values_only_speedup,
       printf('%.1e', max(sv_rel_error) FILTER (WHERE method = 'randomized')) AS randomized_sv_rel_error
FROM svd_results WHERE run_at = (SELECT max(run_at) FROM svd_results)
GROUP BY target ORDER BY target;
