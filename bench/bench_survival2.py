# SPDX-License-Identifier: MIT
"""bench_survival2.py: the cost of the survival family's part 2 (issue 49),
and the coverage of its bootstrap intervals.

    /usr/bin/python3 bench/bench_survival2.py [--lib L] [--rows N] [--repeat R]
                                              [--coverage K] [--markdown]

Times, as wall and CPU seconds of this process (median of --repeat):
  surv_decision_curve(time, event, p, t)   99 thresholds in one pass (one sort
                               by p, the rows joining a per-time table as the
                               threshold falls) over N and N/10 rows, against
                               99 calls of surv_net_benefit (one Kaplan-Meier
                               fit each) over the N/10 rows;
  surv_calibration(time, event, p, t)      10 quantile groups, a fit each;
  c_index_diff(time, event, risk_a, risk_b)  two concordance runs with dfbeta;
  surv_auroc_ci, surv_brier_ci             1000 replicates over N/100 rows.
Coverage (--coverage K cohorts, 0: none): K cohorts of 300 rows drawn from
one population (exponential event times with hazard exp(x), uniform
censoring), surv_auroc_ci and surv_brier_ci (reps 500) at t = the median
event time; the share of intervals holding the population's value, which is
surv_auroc / surv_brier over 10^6 rows of the same population.

The data: x ~ N(0, 1), event time ~ Exp(0.1 exp(x)), censoring ~ U(0, 30),
time rounded to 0.1 (ties), p = 1 - exp(-0.1 exp(x) t) at t = 10, numpy
seed 49.  --markdown prints bench/RESULTS.md's table survival2.
"""
import os
import sys
import json

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402

T = 10.0


def cohort(rng, n):
    x = rng.normal(0, 1, n)
    et = rng.exponential(1.0 / (0.1 * np.exp(x)))
    ct = rng.uniform(0, 30, n)
    time = np.round(np.minimum(et, ct), 1)
    event = (et <= ct).astype(int)
    p = 1 - np.exp(-0.1 * np.exp(x) * T)
    xb = x + rng.normal(0, 1, n)
    return time, event, p, x, xb


def load(con, table, rows):
    con.execute("DROP TABLE IF EXISTS %s" % table)
    con.execute("CREATE TABLE %s(time REAL, event INT, p REAL, risk REAL, risk_b REAL)" % table)
    con.executemany("INSERT INTO %s VALUES (?, ?, ?, ?, ?)" % table, zip(*[a.tolist() for a in rows]))


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lib", default="ext/.libs/mleval")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--coverage", type=int, default=200)
    mlbench.add_markdown(ap)
    a = ap.parse_args()
    say = mlbench.console(a)
    rng = np.random.default_rng(49)
    con = mlbench.connect(os.path.abspath(a.lib), ":memory:")
    n = a.rows
    load(con, "c", cohort(rng, n))
    load(con, "m", cohort(rng, n // 10))
    load(con, "s", cohort(rng, n // 100))
    say("survival part 2 benchmark: %d rows, median of %d" % (n, a.repeat))
    rows = []

    def clock(sql, what, table="c"):
        wall, cpu = mlbench.wall_cpu(lambda: con.execute(sql).fetchall(), a.repeat, warmup=False)
        say("  %-64s wall %.3f s  cpu %.3f s" % (what, wall, cpu))
        rows.append([what, "%.3f s" % wall, "%.3f s" % cpu])
        return cpu

    clock("SELECT surv_decision_curve(time, event, p, 10) FROM c", "surv_decision_curve, 99 thresholds, %d rows" % n)
    dc = clock("SELECT surv_decision_curve(time, event, p, 10) FROM m",
               "surv_decision_curve, 99 thresholds, %d rows" % (n // 10))
    nb = clock("SELECT " + ", ".join("surv_net_benefit(time, event, p, 10, %r)" % (0.01 * k) for k in range(1, 100))
               + " FROM m", "99 x surv_net_benefit, %d rows" % (n // 10))
    rows[-1].append("%.1fx the curve's CPU" % (nb / dc))
    clock("SELECT surv_calibration(time, event, p, 10) FROM c", "surv_calibration, 10 bins, %d rows" % n)
    clock("SELECT c_index_diff(time, event, risk, risk_b) FROM c", "c_index_diff, %d rows" % n)
    clock("SELECT surv_auroc_ci(time, event, risk, 10) FROM s", "surv_auroc_ci, 1000 replicates, %d rows" % (n // 100))
    clock("SELECT surv_brier_ci(time, event, p, 10) FROM s", "surv_brier_ci, 1000 replicates, %d rows" % (n // 100))
    for r in rows:
        while len(r) < 4:
            r.append("")
    cov = []
    if a.coverage:
        tt = float(con.execute("SELECT time FROM c WHERE event = 1 ORDER BY time LIMIT 1 OFFSET "
                               "(SELECT count(*) / 2 FROM c WHERE event = 1)").fetchone()[0])
        truth = con.execute("SELECT surv_auroc(time, event, risk, ?), surv_brier(time, event, p, ?) FROM c",
                            (tt, tt)).fetchone()
        hit = [0, 0]
        for k in range(a.coverage):
            load(con, "k", cohort(rng, 300))
            for j, (f, sc) in enumerate((("surv_auroc_ci", "risk"), ("surv_brier_ci", "p"))):
                v = con.execute("SELECT %s(time, event, %s, ?, 0.95, 500, ?) FROM k" % (f, sc), (tt, k)).fetchone()[0]
                g = json.loads(v)
                hit[j] += g["lo"] <= truth[j] <= g["hi"]
        for j, f in enumerate(("surv_auroc_ci", "surv_brier_ci")):
            say("  coverage of %s (95 %%, BCa, 500 replicates, 300 rows, t = %g): %d / %d = %.1f %% (truth %.4f)"
                % (f, tt, hit[j], a.coverage, 100.0 * hit[j] / a.coverage, truth[j]))
            cov.append([f, "%d / %d" % (hit[j], a.coverage), "%.1f %%" % (100.0 * hit[j] / a.coverage), "%.4f" % truth[j]])
    if a.markdown:
        mlbench.markdown("survival2", ["query", "wall (median)", "CPU (median)", "against"], rows)
        if cov:
            mlbench.markdown("survival2_coverage", ["interval", "held the truth", "coverage", "truth (10^6 rows)"], cov)


if __name__ == "__main__":
    main()
