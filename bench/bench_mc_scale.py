# SPDX-License-Identifier: MIT
"""bench_mc_scale.py: the multiclass family at scale (issue 48), before and after.

    /usr/bin/python3 bench/bench_mc_scale.py [--lib L] [--before B] [--floor F] [--only PARTS]

--before: another build of mleval (the branch point's ext/.libs/mleval) run
beside --lib in the same process, so both see the same machine.  The machine
is shared (2 cores, 8 sessions): every time here is CPU time
(time.process_time, best of 3) and the sizes are kept small; the old
library's windows are timed at 10^4 rows only (its mc_pr_auc sorted each
frame: quadratic).

Parts (--only: a comma-separated subset of window,memory,topk,expected,topkir,longwin):
  window    per-row CPU time of a running frame (UNBOUNDED PRECEDING) and a
            sliding frame (ROWS 999 PRECEDING) over 10^4 and 10^5 rows,
            k = 3, each multiclass function against the binary one in the
            same frame (log_loss(y = 0, p0), auroc(y = 0, p0)); the twins
            mc_auroc_w, mc_pr_auc_w against auroc_w, pr_auc_w over a weight
            column w (--fns: only the named functions)
  memory    SQLite's own count (sqlite3_status64 MEMORY_USED high-water,
            the process's libsqlite3) above the start, per row, at 10^6 rows
            of a table and at 10^7 rows of a recursive CTE (streaming kinds)
  topk      mc_top_k(y, p0, p1, p2) over 10^6 rows against scikit-learn's
            top_k_accuracy_score(k = 1 and 2) on numpy arrays in memory
  expected  expected_auroc(p) against the no-op floorn(p), callgrind Ir/row
            over 10^5 rows (wall time is too noisy here)
  topkir    mc_top_k(y, p0, p1, p2) against floor4(y, p0, p1, p2), callgrind
            Ir/row over 10^5 rows of the table of fill
  longwin   the long layout's windows: NAME_long(id, y, class, p) OVER (ORDER
            BY id RANGE ...) over the class-rows of 10^3 and 10^4 ids (k = 3,
            rows shuffled in the table) against the wide NAME OVER the same
            frame of ids, CPU µs an id, running (UNBOUNDED PRECEDING) and
            sliding (RANGE 99 PRECEDING); the old library at 10^3 ids only
            (it assembled every frame afresh: quadratic when running)
"""
import argparse
import ctypes
import ctypes.util
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mlbench  # noqa: E402


def connect(lib):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(lib)
    return con


def fill(con, n, k=3, seed=48):
    rng = np.random.default_rng(seed)
    y = rng.choice(k, size=n, p=np.arange(1, k + 1) / (k * (k + 1) / 2))
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.5
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = np.round(e / e.sum(axis=1, keepdims=True), 6)
    p[:, -1] = np.round(1.0 - p[:, :-1].sum(axis=1), 6)
    cols = ", ".join("p%d REAL" % j for j in range(k))
    con.execute("DROP TABLE IF EXISTS mc")
    con.execute("CREATE TABLE mc(id INTEGER PRIMARY KEY, y INT, %s)" % cols)
    con.executemany("INSERT INTO mc VALUES (?, ?, %s)" % ", ".join("?" * k),
                    ((i + 1, int(y[i]), *map(float, p[i])) for i in range(n)))
    return y, p


def cpu(con, sql, repeat=3):
    best = None
    for _ in range(repeat):
        t = time.process_time()
        con.execute(sql).fetchall()
        t = time.process_time() - t
        best = t if best is None else min(best, t)
    return best


def add_weights(con, n, seed=49):
    """A weight column w for the twins: the steps 0.25, 0.5, 1, 2, 3 (ties of
    equal and unequal weights within the scores' ties)."""
    rng = np.random.default_rng(seed)
    w = rng.choice([0.25, 0.5, 1.0, 2.0, 3.0], n)
    con.execute("ALTER TABLE mc ADD COLUMN w REAL")
    con.executemany("UPDATE mc SET w = ? WHERE id = ?", ((float(w[i]), i + 1) for i in range(n)))


def window_part(libs, say, rows_out, fns_only=None):
    frames = [("running", "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"),
              ("sliding 1000", "ROWS BETWEEN 999 PRECEDING AND CURRENT ROW")]
    fns = [("mc_log_loss(y, p0, p1, p2)", "log_loss(y = 0, p0)"), ("mc_brier(y, p0, p1, p2)", "log_loss(y = 0, p0)"),
           ("ordinal_rps(y, p0, p1, p2)", "log_loss(y = 0, p0)"), ("mc_top_k(y, p0, p1, p2)", "log_loss(y = 0, p0)"),
           ("mc_confusion(y, p0, p1, p2)", "log_loss(y = 0, p0)"),
           ("mc_calibration(y, p0, p1, p2)", "log_loss(y = 0, p0)"),
           ("mc_auroc(y, p0, p1, p2)", "auroc(y = 0, p0)"), ("mc_pr_auc(y, p0, p1, p2)", "pr_auc(y = 0, p0)"),
           ("mc_auroc_w(y, p0, p1, p2, w)", "auroc_w(y = 0, p0, w)"),
           ("mc_pr_auc_w(y, p0, p1, p2, w)", "pr_auc_w(y = 0, p0, w)")]
    if fns_only:
        fns = [(f, b) for f, b in fns if f.split("(")[0] in fns_only]
    for n in (10 ** 4, 10 ** 5):
        for name, lib in libs:
            if name == "before" and n > 10 ** 4:
                continue
            con = connect(lib)
            fill(con, n)
            add_weights(con, n)
            for fname, frame in frames:
                base = {}
                for f, b in fns:
                    if b not in base:
                        base[b] = cpu(con, "SELECT %s OVER (ORDER BY id %s) FROM mc" % (b, frame), 1)
                    t = cpu(con, "SELECT %s OVER (ORDER BY id %s) FROM mc" % (f, frame), 1)
                    say("window %-6s n=%-6d %-12s %-32s %8.2f us/row  (%s %.2f us/row, %.1fx)" % (
                        name, n, fname, f, 1e6 * t / n, b.split("(")[0], 1e6 * base[b] / n, t / base[b]))
                    rows_out.append(("window", name, n, fname, f, 1e6 * t / n, 1e6 * base[b] / n))




def memory_part(libs, say, rows_out):
    fns = ["mc_log_loss", "mc_brier", "ordinal_rps", "mc_top_k", "mc_confusion", "mc_calibration", "mc_auroc"]
    n = 10 ** 6
    for name, lib in libs:
        con = connect(lib)
        fill(con, n)
        for f in fns:
            b = mlbench.peak_bytes(con, "SELECT %s(y, p0, p1, p2) FROM mc" % f)
            say("memory %-6s n=10^6 %-16s %8.2f bytes/row" % (name, f, b / n))
            rows_out.append(("memory", name, n, f, b / n))
        cte = ("WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < %d) " % (10 ** 7 - 1)
               + "SELECT {f}(i % 3, 0.2, 0.3, 0.5) FROM c")
        for f in fns[:3] if name == "after" else fns[:1]:
            b = mlbench.peak_bytes(con, cte.format(f=f))
            say("memory %-6s n=10^7 %-16s %8.2f bytes/row (CTE)" % (name, f, b / 10 ** 7))
            rows_out.append(("memory", name, 10 ** 7, f, b / 10 ** 7))
        # the columns form at 10^5..10^7 rows of distinct scores (a CTE): peak and CPU a row
        spread = ("WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < {n}) "
                  "SELECT {f}(i % 3, ((i * 7919) % 1000003) / 1000003.0, ((i * 104729) % 999983) / 999983.0,"
                  " ((i * 1299709) % 1000033) / 1000033.0) FROM c")
        for f in ("mc_auroc", "mc_pr_auc") if name == "after" else ():
            for e in (5, 6, 7):
                c0 = time.process_time()
                b = mlbench.peak_bytes(con, spread.format(f=f, n=10 ** e - 1))
                c0 = time.process_time() - c0
                say("memory %-6s n=10^%d %-16s %8.2f bytes/row (CTE, distinct scores), %.3f us/row CPU"
                    % (name, e, f, b / 10 ** e, c0 / 10 ** e * 1e6))
                rows_out.append(("memory", name, 10 ** e, f + " (distinct)", b / 10 ** e))


def topk_part(libs, floor, say, rows_out):
    from sklearn.metrics import top_k_accuracy_score
    n = 10 ** 6
    for name, lib in libs:
        con = connect(lib)
        con.load_extension(floor)
        y, p = fill(con, n)
        t = cpu(con, "SELECT mc_top_k(y, p0, p1, p2) FROM mc")
        fl = cpu(con, "SELECT floor4(y, p0, p1, p2) FROM mc")
        s1 = s2 = None
        for kk in (1, 2):
            best = None
            for _ in range(3):
                c = time.process_time()
                top_k_accuracy_score(y, p, k=kk, labels=[0, 1, 2])
                c = time.process_time() - c
                best = c if best is None else min(best, c)
            if kk == 1:
                s1 = best
            else:
                s2 = best
        say("top_k  %-6s n=10^6 mc_top_k %.3f s (floor4 %.3f s); sklearn top_k_accuracy_score k=1 %.3f s "
            "(%.2fx), k=2 %.3f s (%.2fx); both k from one call here" % (name, t, fl, s1, s1 / t, s2, s2 / t))
        rows_out.append(("topk", name, n, t, s1, s2, fl))


def callgrind(lib, floor, db, sql):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        script = ".load %s\n.load %s\n%s\n" % (lib, floor, sql)
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "sqlite3", db],
                           input=script, text=True, capture_output=True)
        with open(out) as f:
            return int(re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M).group(1))


def expected_part(libs, floor, say, rows_out):
    n = 10 ** 5
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "e.db")
        con = sqlite3.connect(db)
        rng = np.random.default_rng(6)
        con.execute("CREATE TABLE e(p REAL)")
        con.executemany("INSERT INTO e VALUES (?)", [(float(x),) for x in np.round(rng.random(n), 6)])
        con.commit()
        con.close()
        for name, lib in libs:
            start = callgrind(lib, floor, db, "SELECT 1;")
            fl = (callgrind(lib, floor, db, "SELECT floorn(p) FROM e;") - start) / n
            ea = (callgrind(lib, floor, db, "SELECT expected_auroc(p) FROM e;") - start) / n
            say("expected %-6s n=10^5 expected_auroc %.0f Ir/row, floorn(p) %.0f: %.2fx" % (name, ea, fl, ea / fl))
            rows_out.append(("expected", name, n, ea, fl))


def topkir_part(libs, floor, say, rows_out):
    n = 10 ** 5
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "t.db")
        con = sqlite3.connect(db)
        fill(con, n)
        con.commit()
        con.close()
        for name, lib in libs:
            start = callgrind(lib, floor, db, "SELECT 1;")
            fl = (callgrind(lib, floor, db, "SELECT floor4(y, p0, p1, p2) FROM mc;") - start) / n
            tk = (callgrind(lib, floor, db, "SELECT mc_top_k(y, p0, p1, p2) FROM mc;") - start) / n
            say("topkir %-6s n=10^5 mc_top_k %.0f Ir/row, floor4 %.0f: %.2fx" % (name, tk, fl, tk / fl))
            rows_out.append(("topkir", name, n, tk, fl))


def longwin_part(libs, say, rows_out):
    frames = (("running", "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"),
              ("sliding 100", "RANGE BETWEEN 99 PRECEDING AND CURRENT ROW"))
    for n in (10 ** 3, 10 ** 4):
        rng = np.random.default_rng(7)
        for name, lib in libs:
            if name == "before" and n > 10 ** 3:
                continue
            con = connect(lib)
            fill(con, n)
            con.execute("CREATE TABLE lg(id INT, y INT, class INT, p REAL)")
            rows = [(i, y, c, p) for i, y, *ps in con.execute("SELECT rowid, y, p0, p1, p2 FROM mc")
                    for c, p in enumerate(ps)]
            con.executemany("INSERT INTO lg VALUES (?,?,?,?)", [rows[i] for i in rng.permutation(len(rows))])
            for fn in ("mc_log_loss", "mc_top_k", "mc_auroc"):
                for fname, frame in frames:
                    ql = "SELECT id, %s_long(id, y, class, p) OVER (ORDER BY id %s) FROM lg" % (fn, frame)
                    qw = "SELECT id, %s(y, p0, p1, p2) OVER (ORDER BY id %s) FROM mc" % (fn, frame)
                    assert dict(con.execute(ql).fetchall()) == dict(con.execute(qw).fetchall()), (fn, fname)
                    tl, tw = cpu(con, ql, 1), cpu(con, qw, 1)
                    say("longwin %-6s n=%-6d %-12s %-12s long %8.1f us/id, wide %6.1f us/id: %.1fx"
                        % (name, n, fn, fname, tl / n * 1e6, tw / n * 1e6, tl / tw))
                    rows_out.append(("longwin", name, n, fn, fname, tl / n * 1e6, tw / n * 1e6))
            con.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", default=os.path.join(HERE, "..", "ext", ".libs", "mleval"))
    ap.add_argument("--before", default=None)
    ap.add_argument("--floor", default=os.path.join(HERE, ".libs", "floor"))
    ap.add_argument("--only", default="window,memory,topk,expected,topkir")
    ap.add_argument("--fns", default=None, help="window part: only these functions (comma-separated names, "
                    "e.g. mc_auroc_w,mc_pr_auc_w)")
    a = ap.parse_args()
    libs = ([("before", a.before)] if a.before else []) + [("after", a.lib)]
    only = a.only.split(",")
    out = []

    def say(s):
        print(s, flush=True)
    if "expected" in only:
        expected_part(libs, a.floor, say, out)
    if "topk" in only:
        topk_part(libs, a.floor, say, out)
    if "topkir" in only:
        topkir_part(libs, a.floor, say, out)
    if "memory" in only:
        memory_part(libs, say, out)
    if "window" in only:
        window_part(libs, say, out, a.fns.split(",") if a.fns else None)
    if "longwin" in only:
        longwin_part(libs, say, out)


if __name__ == "__main__":
    main()
