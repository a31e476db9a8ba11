# SPDX-License-Identifier: MIT
"""bench_mc_window.py: a multiclass window two ways (issue 46 item 3,
docs/multiclass.md "Windows"): a sliding frame over the rows against daily
ml_state_mc states merged over a window of days.

    /usr/bin/python3 bench/bench_mc_window.py [--lib L] [--rows N] [--days D] [--window W]

N rows (default 50 000, k = 5 classes, probabilities of 3 decimals) over D
days (default 100, so 500 rows a day); the window is W days (default 10:
5 000 rows).  Timed (CPU, time.process_time, best of 3; the machine is
shared):
  range     f(y, p0..p4) OVER (ORDER BY day RANGE BETWEEN W-1 PRECEDING AND
            CURRENT ROW) over the rows: the window of days (SQLite asks a
            value once per day: a day's rows are peers)
  sliding   f(y, p0..p4) OVER (ORDER BY id ROWS BETWEEN R-1 PRECEDING AND
            CURRENT ROW), R = the window's rows: a result per row (--slide-rows
            limits the table it runs on; 0 skips it)
  states    CREATE the daily states (one GROUP BY), then f(st) OVER (ORDER
            BY day ROWS W-1 PRECEDING): one result per day
and checks that the last row of each day's sliding result equals the day's
state result (the same rows, bit for bit).  f is mc_auroc and mc_pr_auc.
"""
import argparse
import os
import sqlite3
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def best(fn, reps=3):
    t = []
    for _ in range(reps):
        t0 = time.process_time()
        out = fn()
        t.append(time.process_time() - t0)
    return min(t), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.path.join(HERE, "..", "ext", ".libs", "mleval"))
    ap.add_argument("--rows", type=int, default=50000)
    ap.add_argument("--days", type=int, default=100)
    ap.add_argument("--window", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--slide-rows", type=int, default=50000)
    a = ap.parse_args()
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(a.lib)
    rng = np.random.default_rng(46)
    k = 5
    y = rng.integers(0, k, a.rows)
    logits = rng.normal(0, 1, (a.rows, k))
    logits[np.arange(a.rows), y] += 1.5
    p = np.exp(logits)
    p = np.round(p / p.sum(1, keepdims=True), 3)
    day = np.sort(rng.integers(0, a.days, a.rows))
    con.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, day INT, y INT, p0, p1, p2, p3, p4)")
    con.executemany("INSERT INTO t(day, y, p0, p1, p2, p3, p4) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(int(day[i]), int(y[i])) + tuple(float(v) for v in p[i]) for i in range(a.rows)])
    w = a.window - 1
    print("%d rows, %d days, k = %d, a window of %d days (about %d rows)"
          % (a.rows, a.days, k, a.window, a.rows * a.window // a.days))
    for f in ("mc_auroc", "mc_pr_auc"):
        def by_range():
            return con.execute("SELECT day, %s(y, p0, p1, p2, p3, p4) OVER (ORDER BY day RANGE BETWEEN %d PRECEDING"
                               " AND CURRENT ROW) FROM t ORDER BY id" % (f, w)).fetchall()

        def sliding():
            return con.execute("SELECT %s(y, p0, p1, p2, p3, p4) OVER (ORDER BY id ROWS BETWEEN %d PRECEDING"
                               " AND CURRENT ROW) FROM t WHERE id <= %d" % (f, a.rows * a.window // a.days - 1,
                                                                            a.slide_rows)).fetchall()

        def states():
            con.execute("DROP TABLE IF EXISTS daily")
            con.execute("CREATE TABLE daily AS SELECT day, ml_state_mc(y, p0, p1, p2, p3, p4) AS st FROM t GROUP BY day")
            return con.execute("SELECT day, %s(st) OVER (ORDER BY day ROWS %d PRECEDING) FROM daily ORDER BY day"
                               % (f, w)).fetchall()
        ts, by_state = best(states, a.reps)
        tr, by_row = best(by_range, a.reps)
        last = dict(by_row)          # the last row of each day: its frame is the window's days
        same = sum(last[d] == v for d, v in by_state)
        print("%-10s daily states %6.3f s CPU (%d results) | RANGE frame over the rows %6.3f s (equal on %d of %d days)"
              % (f, ts, len(by_state), tr, same, len(by_state)))
        if a.slide_rows > 0:
            tsl, out = best(sliding, 1)
            print("%-10s sliding ROWS frame of %d rows over %d rows: %.3f s CPU (%d results, %.2f ms a result)"
                  % (f, a.rows * a.window // a.days, min(a.rows, a.slide_rows), tsl, len(out), 1e3 * tsl / len(out)))


if __name__ == "__main__":
    main()
