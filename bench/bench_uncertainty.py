# SPDX-License-Identifier: MIT
"""make bench (third part): bootstrap confidence intervals in SQL against the
Python loop they replace, on 100 000 rows (12 % positives, continuous scores).

  pr_auc_ci(y, s) with 1000 replicates   vs   1000 x average_precision_score
                                              on resampled numpy arrays
  auroc_ci(y, s) (DeLong, no resampling) vs   1000 x roc_auc_score on resamples

Goals (SPEC, issue 14): pr_auc_ci <= 1 s and >= 20x faster than the loop;
auroc_ci >= 50x faster than the bootstrap it replaces.  The SQL side is the
median of --repeat runs; the Python loops run once (each takes seconds).
Each line gives wall-clock and CPU seconds of this process (on a shared,
loaded machine the CPU time is the steadier figure; both sides are
single-threaded).  The other *_ci functions are timed for the record, and
the delta-method functions (pr_auc_delta_ci, pr_auc_diff_delta) beside the
bootstrap they stand in for.
--markdown prints bench/RESULTS.md's table uncertainty (bench/results.py).
"""
import os
import sys

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lib", default="ext/.libs/mleval")
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    mlbench.add_markdown(ap)
    a = ap.parse_args()
    say = mlbench.console(a)
    md = []

    rng = np.random.default_rng(14)
    n = a.rows
    y = (rng.random(n) < 0.12).astype(int)
    s = np.round(0.75 * rng.random(n) + 0.25 * y, 6)
    s2 = np.round(0.8 * rng.random(n) + 0.2 * y, 6)
    z = (20 + rng.integers(0, 80, n) + 60 * y).astype(float)
    con = mlbench.connect(os.path.abspath(a.lib), ":memory:")
    con.execute("CREATE TABLE preds(y INT, s REAL, s2 REAL, p REAL, len REAL)")
    con.executemany("INSERT INTO preds VALUES (?, ?, ?, ?, ?)",
                    zip(y.tolist(), s.tolist(), s2.tolist(), s.tolist(), z.tolist()))

    say("mleval uncertainty benchmark, %d rows, %d replicates, SQL median of %d" % (n, a.reps, a.repeat))

    def clock(fn, repeat):
        return mlbench.wall_cpu(fn, repeat, warmup=False)

    def sql(expr):
        q = "SELECT %s FROM preds" % expr
        con.execute(q.replace("FROM preds", "FROM (SELECT * FROM preds LIMIT 100)")).fetchone()
        return clock(lambda: con.execute(q).fetchone(), a.repeat)

    def loop(metric):
        r = np.random.default_rng(0)

        def run():
            for _ in range(a.reps):
                idx = r.integers(0, n, n)
                metric(y[idx], s[idx])
        return clock(run, 1)

    def show(name, t, extra="", cell="", label=None):
        say("  %-48s %8.3f s wall %8.3f s cpu%s" % (name, t[0], t[1], extra))
        code, paren, rest = name.partition(" (")
        md.append([label or "`%s`%s%s" % (code, paren, rest), "%.3f s" % t[0], "%.3f s" % t[1], cell])

    t_ci = sql("pr_auc_ci(y, s, 0.95, %d)" % a.reps)
    t_py = loop(average_precision_score)
    show("pr_auc_ci(y, s, 0.95, %d)" % a.reps, t_ci)
    show("python: %d x average_precision_score" % a.reps, t_py,
         "   pr_auc_ci %.1fx faster wall, %.1fx cpu (goal >= 20x, <= 1 s)"
         % (t_py[0] / t_ci[0], t_py[1] / t_ci[1]),
         "`pr_auc_ci` **%.1f×** faster wall, **%.1f×** CPU (goal ≥ 20×, ≤ 1 s)" % (t_py[0] / t_ci[0], t_py[1] / t_ci[1]),
         "Python: %d × `average_precision_score` on resamples" % a.reps)
    t_dl = sql("auroc_ci(y, s)")
    t_pa = loop(roc_auc_score)
    show("auroc_ci(y, s) (DeLong)", t_dl)
    show("python: %d x roc_auc_score" % a.reps, t_pa,
         "   auroc_ci %.0fx faster wall, %.0fx cpu (goal >= 50x)" % (t_pa[0] / t_dl[0], t_pa[1] / t_dl[1]),
         "`auroc_ci` **%.0f×** faster wall, **%.0f×** CPU (goal ≥ 50×)" % (t_pa[0] / t_dl[0], t_pa[1] / t_dl[1]),
         "Python: %d × `roc_auc_score` on resamples" % a.reps)
    for expr in ("nap_ci(y, s, 0.95, %d)", "brier_ci(y, p, 0.95, %d)", "log_loss_ci(y, p, 0.95, %d)",
                 "ece_ci(y, p, 10, 0.95, %d)", "strat_gap_ci(y, s, len, 0.25, 0.75, 0.95, %d)",
                 "pr_auc_diff_ci(y, s, s2, 0.95, %d)", "ece_diff_ci(y, p, s2, 10, 0.95, %d)"):
        e = expr % a.reps
        show(e, sql(e))
    show("auroc_diff(y, s, s2)", sql("auroc_diff(y, s, s2)"))
    # the delta method: pr_auc_ci's se without resampling
    t_d = sql("pr_auc_delta_ci(y, s)")
    show("pr_auc_delta_ci(y, s) (delta method)", t_d,
         "   %.0fx faster than pr_auc_ci wall, %.0fx cpu" % (t_ci[0] / t_d[0], t_ci[1] / t_d[1]),
         "%.0f× faster than `pr_auc_ci` (CPU)" % (t_ci[1] / t_d[1]))
    show("pr_auc_diff_delta(y, s, s2)", sql("pr_auc_diff_delta(y, s, s2)"))
    if a.markdown:
        mlbench.markdown("uncertainty", ["query (%d rows, %d replicates; SQL median of %d)" % (n, a.reps, a.repeat),
                                         "wall", "CPU", ""], md)


if __name__ == "__main__":
    main()
