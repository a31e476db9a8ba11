# SPDX-License-Identifier: MIT
"""bench_clinical.py: the cost of the clinical completion (issue 36).

    /usr/bin/python3 bench/bench_clinical.py [--lib L] [--rows N] [--repeat R] [--markdown]

Times, as wall and CPU seconds of this process (median of --repeat; the CPU
time is the steadier figure on a shared machine):
  calibration_smooth(y, p)     lowess (f 2/3, iter 0, delta 1 % of the range)
                               over N/10 and N rows of distinct p, and over N
                               rows of p rounded to 3 decimals (1001 distinct
                               values: the fit runs over distinct p);
  calibration_smooth(st)       over 10 ml_state shards of the N rows (the
                               states made beforehand, not timed);
  calibration_summary(y, p)    the two glm fits with their Wald intervals;
  R                            stats::lowess + approx(ties = mean), what
                               rms::val.prob computes Eavg/E90/Emax from, on
                               the same N/10 and N rows (system.time inside
                               Rscript, reading the data not timed), when
                               Rscript is installed;
  decision_curve_ci(y, p)      the 99-threshold curve with each point's BCa
                               interval (1000 replicates) on 6 000 rows, against
                               net_benefit_ci at one threshold times 99.
The data: p uniform in (0, 1) squeezed towards 0.5 (p' = 0.2 + 0.6 p), y ~
Bernoulli(p), numpy seed 36.  --markdown prints bench/RESULTS.md's table
clinical (bench/results.py clinical).
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402

R_CODE = r"""
d <- read.csv(Sys.getenv("MLEVAL_BENCH_CSV"))
n <- as.integer(Sys.getenv("MLEVAL_BENCH_N"))
d <- d[seq_len(n), ]
t <- system.time({
  sm <- lowess(d$p, d$y, iter = 0, delta = 0.01 * diff(range(d$p)))
  cal <- approx(sm, xout = d$p, ties = mean)$y
  e <- abs(cal - d$p)
  r <- c(mean(e), quantile(e, 0.9), max(e))
})
cat(sprintf("%.6f %.6f\n", t[["elapsed"]], t[["user.self"]] + t[["sys.self"]]))
"""


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lib", default="ext/.libs/mleval")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    mlbench.add_markdown(ap)
    a = ap.parse_args()
    say = mlbench.console(a)
    n = a.rows
    rng = np.random.default_rng(36)
    p = 0.2 + 0.6 * rng.random(n)
    y = (rng.random(n) < p).astype(int)
    con = mlbench.connect(os.path.abspath(a.lib), ":memory:")
    con.execute("CREATE TABLE preds(id INTEGER PRIMARY KEY, y INT, p REAL, p3 REAL)")
    con.executemany("INSERT INTO preds(y, p, p3) VALUES (?, ?, ?)",
                    zip(y.tolist(), p.tolist(), np.round(p, 3).tolist()))
    con.execute("CREATE TABLE shards AS SELECT id % 10 AS k, ml_state(y, p) AS st FROM preds GROUP BY id % 10")
    say("clinical benchmark: %d rows, median of %d" % (n, a.repeat))
    rows = []

    def clock(sql, what):
        con.execute(sql.replace("FROM preds", "FROM (SELECT * FROM preds LIMIT 100)")).fetchone()
        wall, cpu = mlbench.wall_cpu(lambda: con.execute(sql).fetchone(), a.repeat, warmup=False)
        say("  %-60s wall %.3f s  cpu %.3f s" % (what, wall, cpu))
        return wall, cpu

    tenth = n // 10
    ours = {}
    for what, sql, key in [
            ("`calibration_smooth(y, p)`, %d rows, distinct p" % tenth,
             "SELECT calibration_smooth(y, p) FROM preds WHERE id <= %d" % tenth, tenth),
            ("`calibration_smooth(y, p)`, %d rows, distinct p" % n, "SELECT calibration_smooth(y, p) FROM preds", n),
            ("`calibration_smooth(y, p3)`, %d rows, p of 3 decimals" % n,
             "SELECT calibration_smooth(y, p3) FROM preds", None),
            ("`calibration_smooth(st)` over 10 `ml_state` shards of the %d rows" % n,
             "SELECT calibration_smooth(st) FROM shards", None),
            ("`calibration_summary(y, p)`, %d rows" % n, "SELECT calibration_summary(y, p) FROM preds", None)]:
        wall, cpu = clock(sql, what)
        if key:
            ours[key] = cpu
        rows.append([what, "%.3f s" % wall, "%.3f s" % cpu, ""])

    rscript = shutil.which("Rscript")
    if rscript:
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "preds.csv")
            with open(csv, "w") as f:
                f.write("y,p\n")
                for yi, pi in zip(y.tolist(), p.tolist()):
                    f.write("%d,%r\n" % (yi, pi))
            for m in (tenth, n):
                env = dict(os.environ, MLEVAL_BENCH_CSV=csv, MLEVAL_BENCH_N=str(m))
                out = subprocess.run([rscript, "--vanilla", "-e", R_CODE], env=env, capture_output=True,
                                     text=True)
                try:
                    wall, cpu = (float(x) for x in out.stdout.split())
                except ValueError:
                    say("  R at %d rows failed: %s" % (m, out.stderr.strip()[-200:]))
                    continue
                say("  R lowess + approx(ties = mean), %d rows: wall %.3f s  cpu %.3f s" % (m, wall, cpu))
                rows.append(["R 4.2 `lowess` + `approx(ties = mean)` (val.prob's Eavg/E90/Emax), %d rows" % m,
                             "%.3f s" % wall, "%.3f s" % cpu,
                             "`calibration_smooth` %.2f× R's CPU" % (ours[m] / cpu) if cpu > 0 else ""])
    else:
        say("  Rscript not installed: no R timing")

    small = "(SELECT y, p FROM preds WHERE id <= 6000)"
    wall, cpu = clock("SELECT decision_curve_ci(y, p) FROM %s" % small, "decision_curve_ci, 6000 rows, 99 thresholds")
    w1, c1 = clock("SELECT net_benefit_ci(y, p, 0.2) FROM %s" % small, "net_benefit_ci at 0.2, 6000 rows")
    rows.append(["`decision_curve_ci(y, p)`: 99 thresholds, 1000 replicates, 6000 rows", "%.3f s" % wall,
                 "%.3f s" % cpu, "%.0f× faster than 99 × `net_benefit_ci` (%.3f s CPU each)" % (99 * c1 / cpu, c1)])
    if a.markdown:
        mlbench.markdown("clinical", ["query", "wall (median)", "CPU (median)", "against"], rows)


if __name__ == "__main__":
    main()
