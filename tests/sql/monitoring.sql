-- monitoring.c: psi, ks_test, wasserstein, drift_report (docs/monitoring.md)
.log stderr
CREATE TABLE scores(period, x);
INSERT INTO scores VALUES (0, 0.1), (0, 0.2), (0, 0.2), (0, 0.4), (0, 0.5), (0, 0.7),
  (1, 0.3), (1, 0.5), (1, 0.6), (1, 0.8), (1, 0.9), (NULL, 5), (1, NULL);
-- the docs' example
SELECT psi(period, x, 3), wasserstein(period, x) FROM scores;
SELECT ks_test(period, x) FROM scores;
SELECT drift_report(period, x, 3) FROM scores;
-- default 10 bins: duplicate edges removed
SELECT json_array_length(drift_report(period, x), '$.bins') FROM scores;
-- bins = 1: one bin, PSI 0
SELECT psi(period, x, 1) FROM scores;
-- the two-state form equals the rows
SELECT psi(a.st, b.st, 3), ks_test(a.st, b.st), wasserstein(a.st, b.st)
  FROM (SELECT ml_state(0, x) AS st FROM scores WHERE period = 0) a,
       (SELECT ml_state(1, x) AS st FROM scores WHERE period = 1) b;
-- a NULL state skips the pair: no pair, NULL with a warning
SELECT psi(NULL, st) FROM (SELECT ml_state(1, 0.5) AS st);
-- twins
SELECT psi_w(period, x, 2, 3), wasserstein_w(period, x, period + 1) FROM scores;
-- windows: running drift against everything before
SELECT rowid, round(psi(period, x, 2) OVER (ORDER BY rowid ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), 6)
  FROM scores WHERE rowid <= 9;
-- an empty period: NULL with a warning naming it
SELECT psi(period, x) FROM scores WHERE period = 0;
SELECT ks_test(period, x) FROM scores WHERE period = 1;
SELECT wasserstein(period, x) FROM scores WHERE 0;
-- distribution states (every row with an x, labelled or not): the same numbers as the rows
SELECT psi(a.st, b.st, 3), ks_test(a.st, b.st), wasserstein(a.st, b.st)
  FROM (SELECT ml_state_dist(x) AS st FROM scores WHERE period = 0) a,
       (SELECT ml_state_dist(x) AS st FROM scores WHERE period = 1) b;
SELECT psi(period, x, 3), ks_test(period, x), wasserstein(period, x) FROM scores;
-- a period whose state is NULL (a day with no rows yet): the warning names that period
SELECT psi(r.st, c.st) FROM (SELECT ml_state_dist(x) AS st FROM scores WHERE period = 0) r,
                            (SELECT ml_state_dist(x) AS st FROM scores WHERE 0) c;
SELECT wasserstein(NULL, st) FROM (SELECT ml_state_dist(x) AS st FROM scores WHERE period = 1);
SELECT ml_state_dist(x) IS NULL FROM scores WHERE 0;
SELECT ml_state_dist_w(x, 0) IS NULL FROM scores;
-- ks_test has no weighted twin: it reads no weighted distribution state
SELECT ks_test(st, st) FROM (SELECT ml_state_dist_w(x, 2) AS st FROM scores);
SELECT ml_state_dist_w(x, -1) FROM scores;
SELECT ml_state_dist('abc');
-- an infinite x: wasserstein NULL with a reason
SELECT wasserstein(period, x) FROM (SELECT 0 AS period, 1e999 AS x UNION ALL SELECT 1, 0);
-- errors
SELECT psi(2, 0.5);
SELECT psi(0.5, 0.5);
SELECT ks_test(1, 'abc');
SELECT psi(period, x, 0) FROM scores;
SELECT drift_report(period, x, 100001) FROM scores;
SELECT psi(period, x, CASE WHEN period = 0 THEN 3 ELSE 4 END) FROM scores;
SELECT psi_w(1, 0.5, -1);
SELECT wasserstein_w(1, 0.5, 'heavy');
SELECT ks_test(x'01', x'02');
SELECT ks_test(st, 0.5) FROM (SELECT ml_state(1, 0.5) AS st);
SELECT psi(1, 0.5, 3, 4);
SELECT ks_test(1, 0.5, 3);
-- a state of a kind group_disparity does not read is refused by name (issue 44 item 1: a multiclass
-- state was read as a binary one, n = 3.6e16 and an invented AUROC)
SELECT group_disparity(st, 'a', 0.5) FROM (SELECT ml_state_mc(c, 0.2, 0.3, 0.5) AS st FROM (SELECT 0 AS c UNION ALL SELECT 1 UNION ALL SELECT 2));
SELECT group_disparity(st, 'a', 0.5) FROM (SELECT ml_state_mc_w(c, 0.2, 0.3, 0.5, 2.0) AS st FROM (SELECT 0 AS c UNION ALL SELECT 1 UNION ALL SELECT 2));
SELECT psi(st, st) FROM (SELECT ml_state_ordinal(c % 2, 0.2, 0.3) AS st FROM (SELECT 0 AS c UNION ALL SELECT 1 UNION ALL SELECT 2));
-- text groups that differ only after a NUL stay two groups, printed apart (issue 44 item 6)
SELECT instr(r, '"group":"a\u0000x"') > 0, instr(r, '"group":"a\u0000y"') > 0
FROM (SELECT group_disparity(y, s, g, 0.5) AS r FROM (SELECT 1 y, 0.9 s, 'a' || char(0) || 'x' g UNION ALL SELECT 0, 0.2, 'a' || char(0) || 'y' UNION ALL SELECT 1, 0.4, 'a' || char(0) || 'x' UNION ALL SELECT 0, 0.7, 'a' || char(0) || 'y'));
-- a threshold in percent: no row predicted positive anywhere, a warning says why the ratios are null
SELECT group_disparity(y, s, g, 20) ->> '$.demographic_parity_ratio' IS NULL FROM (SELECT 1 y, 0.9 s, 'a' g UNION ALL SELECT 0, 0.2, 'b');
