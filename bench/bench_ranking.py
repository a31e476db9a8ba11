# SPDX-License-Identifier: MIT
"""make bench: ranking functions against a bare scan and against scikit-learn.

Prints, for a cached 10-million-row table:
  * pr_auc / auroc time over the floor (bench/floor.c's floor2(y, s), a no-op
    aggregate of the same two columns; goal <= 1.3x) and over SELECT sum(s);
  * scikit-learn fed by a fetch from SQLite, and scikit-learn alone on numpy
    arrays already in memory, over pr_auc (goal: faster than sklearn alone);
  * a 1000-row sliding window over 1M rows against a correlated subquery per
    row (timed on the first 50 000 rows), per-row cost ratio (goal >= 20x);
  * peak RSS of pr_auc over sum(s) in the sqlite3 shell, per row (goal <= 16 B).
--markdown prints bench/RESULTS.md's table ranking-wall (bench/results.py).
"""
import os
import sys

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402


def main():
    a = mlbench.parse_args(__doc__)
    lib = os.path.abspath(a.lib)
    path = mlbench.bench_db(a.rows)
    con = mlbench.connect(lib, path, os.path.abspath(a.floor))
    say = mlbench.console(a)
    md = []
    one = lambda q: (lambda: con.execute(q).fetchone())  # noqa: E731

    say("mleval ranking benchmark, %d rows (%s), median of %d" % (a.rows, path, a.repeat))
    scan, _ = mlbench.timeit(one("SELECT sum(s) FROM preds"), a.repeat)
    say("  %-44s %8.3f s" % ("SELECT sum(s)", scan))
    floor, _ = mlbench.timeit(one("SELECT floor2(y, s) FROM preds"), a.repeat)
    say("  %-44s %8.3f s   %5.2fx scan" % ("SELECT floor2(y, s)", floor, floor / scan))
    md.append(["`SELECT sum(s)`", "%.3f s" % scan, "1.00×"])
    md.append(["`SELECT floor2(y, s)`", "%.3f s" % floor, "%.2f× `sum(s)`" % (floor / scan)])
    res = {}
    for f in ["pr_auc(y, s)", "auroc(y, s)"]:
        t, _ = mlbench.timeit(one("SELECT %s FROM preds" % f), a.repeat)
        res[f] = t
        say("  %-44s %8.3f s   %5.2fx floor2  %5.2fx scan" % ("SELECT " + f, t, t / floor, t / scan))
        md.append(["`SELECT %s`" % f, "%.3f s" % t, "%.2f× floor2 (goal ≤ 1.3×)" % (t / floor)])

    def fetch_sklearn():
        rows = con.execute("SELECT y, s FROM preds").fetchall()
        arr = np.array(rows, dtype=float)
        return average_precision_score(arr[:, 0], arr[:, 1])
    t_fetch, _ = mlbench.timeit(fetch_sklearn, max(1, a.repeat // 2))
    arr = np.array(con.execute("SELECT y, s FROM preds").fetchall(), dtype=float)
    y, s = arr[:, 0].astype(int), arr[:, 1]
    t_sk, _ = mlbench.timeit(lambda: average_precision_score(y, s), a.repeat)
    t_sk_roc, _ = mlbench.timeit(lambda: roc_auc_score(y, s), a.repeat)
    ours = con.execute("SELECT pr_auc(y, s), auroc(y, s) FROM preds").fetchone()
    assert abs(ours[0] - average_precision_score(y, s)) < 1e-9 and abs(ours[1] - roc_auc_score(y, s)) < 1e-9
    say("  %-44s %8.3f s   pr_auc is %5.2fx faster" % ("fetch (y, s) + average_precision_score", t_fetch, t_fetch / res["pr_auc(y, s)"]))
    say("  %-44s %8.3f s   pr_auc is %5.2fx faster" % ("average_precision_score on numpy arrays", t_sk, t_sk / res["pr_auc(y, s)"]))
    say("  %-44s %8.3f s   auroc  is %5.2fx faster" % ("roc_auc_score on numpy arrays", t_sk_roc, t_sk_roc / res["auroc(y, s)"]))
    md.append(["fetch `(y, s)` into numpy + `average_precision_score`", "%.3f s" % t_fetch,
               "pr_auc %.2f× faster" % (t_fetch / res["pr_auc(y, s)"])])
    md.append(["`average_precision_score` on arrays already in numpy", "%.3f s" % t_sk,
               "pr_auc **%.2f× faster** (goal > 1×)" % (t_sk / res["pr_auc(y, s)"])])
    md.append(["`roc_auc_score` on arrays already in numpy", "%.3f s" % t_sk_roc,
               "auroc %.2f× faster" % (t_sk_roc / res["auroc(y, s)"])])

    # sliding window, 1M rows, frame of 1000
    win = ("SELECT count(v) FROM (SELECT pr_auc(y, s) OVER (ORDER BY id ROWS BETWEEN 999 PRECEDING "
           "AND CURRENT ROW) AS v FROM preds WHERE id <= 1000000)")
    t_win, _ = mlbench.timeit(one(win), 1)
    sub = ("SELECT count(v) FROM (SELECT (SELECT pr_auc(y, s) FROM preds q WHERE q.id BETWEEN p.id - 999 AND p.id) AS v "
           "FROM preds p WHERE p.id <= 50000)")
    t_sub, _ = mlbench.timeit(one(sub), 1)
    per_win, per_sub = t_win / 1e6, t_sub / 5e4
    say("  %-44s %8.3f s   %6.2f us/row" % ("window ROWS 999 PRECEDING, 1M rows", t_win, per_win * 1e6))
    say("  %-44s %8.3f s   %6.2f us/row  window is %5.1fx faster per row" %
          ("correlated subquery, first 50k rows", t_sub, per_sub * 1e6, per_sub / per_win))
    md.append(["`pr_auc OVER (ORDER BY id ROWS BETWEEN 999 PRECEDING AND CURRENT ROW)`, 10^6 rows", "%.3f s" % t_win,
               "%.2f µs/row" % (per_win * 1e6)])
    md.append(["correlated subquery per row, first 50 000 rows", "%.3f s" % t_sub,
               "%.2f µs/row: window **%.1f× faster** (goal ≥ 20×)" % (per_sub * 1e6, per_sub / per_win)])

    # peak memory in the sqlite3 shell
    sh = ["sqlite3", "-cmd", ".load " + lib, path]
    base = mlbench.peak_rss_kb(sh, "SELECT sum(s) FROM preds;\n")
    peak = mlbench.peak_rss_kb(sh, "SELECT pr_auc(y, s) FROM preds;\n")
    say("  %-44s %8d KiB" % ("peak RSS, SELECT sum(s)", base))
    say("  %-44s %8d KiB   %5.1f bytes/row above the scan" %
          ("peak RSS, SELECT pr_auc(y, s)", peak, (peak - base) * 1024.0 / a.rows))
    md.append(["peak RSS, `SELECT sum(s)` (sqlite3 shell)", "%d KiB" % base, ""])
    md.append(["peak RSS, `SELECT pr_auc(y, s)`", "%d KiB" % peak,
               "**%.1f bytes/row** above the scan (goal ≤ 16)" % ((peak - base) * 1024.0 / a.rows)])
    if a.markdown:
        mlbench.markdown("ranking-wall", ["query (%d rows, median of %d)" % (a.rows, a.repeat), "time", "ratio"], md)


if __name__ == "__main__":
    main()
