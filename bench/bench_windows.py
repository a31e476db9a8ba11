# SPDX-License-Identifier: MIT
"""make bench (third part): window frames and many small groups.

  * sliding frames of 5000 rows (ROWS BETWEEN 4999 PRECEDING AND CURRENT ROW):
    auroc (goal: >= 50x faster per row than the O(w) sweep of round 1, i.e.
    <= 0.8 us/row) and pr_auc (goal <= 10 us/row), beside the floor's own
    sliding frame;
  * growing frames (the default frame of OVER (ORDER BY id)): running auroc
    (O(log n) per row) and running pr_auc (O(n) per row: cost per row and per
    row of frame);
  * GROUP BY over 1 M groups of 1-10 rows (cached table): time per group
    above the floor's GROUP BY (goal <= 2x the floor), and
    reliability(y, p, 100000) on groups of 2 rows, whose cost must follow the
    rows, not the 100 000 bins.
--markdown prints bench/RESULTS.md's table windows (bench/results.py).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402


def groups_db(ngroups=1_000_000):
    """A cached table sg(g, i, y, s, p): ngroups groups of 1..10 rows, stored
    in (g, i) order so that GROUP BY g streams without a sort."""
    def fill(con):
        rng = np.random.default_rng(17)
        sizes = rng.integers(1, 11, ngroups)
        g = np.repeat(np.arange(ngroups), sizes)
        i = np.arange(len(g)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        y = (rng.random(len(g)) < 0.3).astype(int)
        p = np.round(np.clip(0.6 * rng.random(len(g)) + 0.4 * y, 0, 1), 4)
        con.execute("CREATE TABLE sg(g INT, i INT, y INT, s REAL, p REAL, PRIMARY KEY(g, i)) WITHOUT ROWID")
        con.executemany("INSERT INTO sg VALUES (?, ?, ?, ?, ?)",
                        zip(g.tolist(), i.tolist(), y.tolist(), p.tolist(), p.tolist()))
    return mlbench.cached_db("groups_%d.db" % ngroups, fill)


def main():
    a = mlbench.parse_args(__doc__)
    lib, floor = os.path.abspath(a.lib), os.path.abspath(a.floor)
    con = mlbench.connect(lib, mlbench.bench_db(a.rows), floor)
    rep = max(1, a.repeat // 2)
    t = lambda q: mlbench.timeit(lambda: con.execute(q).fetchone(), rep)[1]  # noqa: E731 (fastest run)
    only = os.environ.get("MLEVAL_BENCH_ONLY")
    say = mlbench.console(a)
    md = []

    say("mleval windows and small groups, fastest of %d" % rep)
    w, n = 5000, 200_000
    say("  sliding frame of %d rows over %d rows:" % (w, n))
    frame = "OVER (ORDER BY id ROWS BETWEEN %d PRECEDING AND CURRENT ROW)" % (w - 1)
    res = {}
    for f in ["floor2(y, s)", "auroc(y, s)", "pr_auc(y, s)"]:
        if only and only not in f and not f.startswith("floor"):
            continue
        sec = t("SELECT count(v) FROM (SELECT %s %s AS v FROM preds WHERE id <= %d)" % (f, frame, n))
        res[f] = sec / n * 1e6
        goal = {"auroc(y, s)": 0.8, "pr_auc(y, s)": 10.0}.get(f)
        say("    %-28s %8.3f s  %8.2f us/row%s" % (
            f, sec, res[f], "" if goal is None else "  goal <= %.1f us: %s" % (goal, "met" if res[f] <= goal else "NOT met")))
        md.append(["`%s` sliding, w = %d, %d rows" % (f, w, n), "%.3f s" % sec, "%.2f µs/row" % res[f],
                   "" if goal is None else "≤ %.1f µs/row: %s" % (goal, "met" if res[f] <= goal else "**not met**")])

    say("  growing frame OVER (ORDER BY id):")
    for f, n in [("floor2(y, s)", 200_000), ("auroc(y, s)", 200_000), ("pr_auc(y, s)", 20_000)]:
        if only and only not in f and not f.startswith("floor"):
            continue
        sec = t("SELECT count(v) FROM (SELECT %s OVER (ORDER BY id) AS v FROM preds WHERE id <= %d)" % (f, n))
        say("    %-28s %8.3f s  %8.2f us/row over %d rows, %6.2f ns per row of frame" % (
            f, sec, sec / n * 1e6, n, sec / (n * (n + 1) / 2) * 1e9))
        md.append(["`%s` running (`OVER (ORDER BY id)`), %d rows" % (f, n), "%.3f s" % sec,
                   "%.2f µs/row, %.2f ns per row of frame" % (sec / n * 1e6, sec / (n * (n + 1) / 2) * 1e9), ""])

    gcon = mlbench.connect(lib, groups_db(), floor)
    ng, nrows = gcon.execute("SELECT count(DISTINCT g), count(*) FROM sg").fetchone()
    tg = lambda q: mlbench.timeit(lambda: gcon.execute(q).fetchone(), rep)[1]  # noqa: E731
    say("  GROUP BY over %d groups of 1-10 rows (%d rows):" % (ng, nrows))
    base = tg("SELECT count(v) FROM (SELECT floor2(y, s) AS v FROM sg GROUP BY g)")
    say("    %-28s %8.3f s  %8.3f us/group" % ("floor2(y, s)", base, base / ng * 1e6))
    md.append(["`floor2(y, s)` GROUP BY, %d groups of 1–10 rows" % ng, "%.3f s" % base, "%.3f µs/group" % (base / ng * 1e6), ""])
    for f in ["pr_auc(y, s)", "auroc(y, s)", "brier(y, p)", "ece(y, p, 10)", "strat_report(y, s, p)"]:
        if only and only not in f:
            continue
        sec = tg("SELECT count(v) FROM (SELECT %s AS v FROM sg GROUP BY g)" % f)
        say("    %-28s %8.3f s  %8.3f us/group  %5.2fx floor  (+%.3f us/group)  goal <= 2.0x: %s" % (
            f, sec, sec / ng * 1e6, sec / base, (sec - base) / ng * 1e6, "met" if sec / base <= 2.0 else "NOT met"))
        md.append(["`%s` GROUP BY, the same groups" % f, "%.3f s" % sec,
                   "%.3f µs/group, %.2f× floor" % (sec / ng * 1e6, sec / base),
                   "≤ 2× floor: %s" % ("met" if sec / base <= 2.0 else "**not met**")])
    ng2 = 20_000
    q = "SELECT count(v) FROM (SELECT %s AS v FROM sg WHERE g < %d GROUP BY g)"
    small = tg(q % ("floor2(y, p)", ng2))
    for f in ["reliability(y, p, 10)", "reliability(y, p, 100000)"]:
        sec = tg(q % (f, ng2))
        say("    %-28s %8.3f s  %8.3f us/group over %d groups (floor %.3f us/group)" % (
            f, sec, sec / ng2 * 1e6, ng2, small / ng2 * 1e6))
        md.append(["`%s` GROUP BY, %d of the groups" % (f, ng2), "%.3f s" % sec,
                   "%.3f µs/group (floor %.3f)" % (sec / ng2 * 1e6, small / ng2 * 1e6),
                   "cost follows the rows" if "100000" in f else ""])
    if a.markdown:
        mlbench.markdown("windows", ["query (fastest of %d)" % rep, "time", "per row / group", "goal"], md)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
