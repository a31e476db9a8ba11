# SPDX-License-Identifier: MIT
"""bench_multiclass.py: the multiclass family's cost (issue 34, "Performance").

    /usr/bin/python3 bench/bench_multiclass.py [--lib L] [--floor F] [--rows N] [--sweep-rows M]
                                               [--repeat R] [--markdown] [--only PARTS]

Five parts (--only: a comma-separated subset of ir,sweep,wall,memory,long):
  ir      instructions (callgrind) of mc_auroc and mc_pr_auc at k = 3 over
          --rows rows, the wide form mc_auroc(y, p0, p1, p2) against the
          no-op floor4(y, p0, p1, p2) and the JSON form mc_auroc(y, probs)
          against floor_text(y, probs) (bench/floor.c: reads y and the text
          and its length), each Ir/row and its ratio to its floor (goal 1.5x)
  sweep   the same Ir/row and ratios for k = 2..16 (MC_MAX_K is 16, not
          the issue's 20) over --sweep-rows rows, the wide form against
          floorn(y, p0, ..., p_k-1)
  wall    wall time, best of --repeat: mc_auroc(y, p0, p1, p2) from Python's
          sqlite3 against pandas.read_sql of the same rows then scikit-learn's
          roc_auc_score(multi_class='ovr') and ('ovo'), and against
          roc_auc_score on in-memory numpy arrays
  memory  SQLite's own count of the memory in use (the sqlite3 shell's
          .stats: "Memory Used ... (max M)") above floorn's over the same rows
          (k = 3 over --rows, k = 2, 8, 16 over --sweep-rows), in bytes per
          row: the rows the aggregate holds (mc_top_k's peak: the same state,
          a result that allocates no scratch) and mc_auroc's peak; goal: rows
          held <= 16 k
  long    the long layout (issue 48 item 4): NAME_long(id, y, class, p)
          over --sweep-rows ids (k = 3, 5) against the wide form over the
          same ids, Ir per id, the long rows in (id, class) order and
          shuffled, and the pivot (json_group_array per id) they needed before
The data: mc_db(n, k), a cached table mc(id, y, p0..p{k-1}, probs) of n
rows, y drawn with class weights 1..k, the k scores a softmax of a noisy
one-hot, rounded to 6 decimals (many ties, as bench_db's s), probs the JSON
array SQLite's json_array(p0, ...) writes of them ('[0.2,0.5,0.3]').
--markdown prints bench/RESULTS.md's tables multiclass-ir, multiclass-k,
multiclass-wall, multiclass-memory and multiclass-long (bench/results.py multiclass writes them).
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402
import bench_instr  # noqa: E402

GOAL = 1.5


def mc_db(n, k):
    """Path of the cached table mc(id, y, p0..p{k-1}, probs) of n rows."""
    import numpy as np

    def fill(con):
        rng = np.random.default_rng(1000 * k + 34)
        y = rng.choice(k, size=n, p=np.arange(1, k + 1) / (k * (k + 1) / 2))
        z = rng.normal(size=(n, k))
        z[np.arange(n), y] += 1.5
        e = np.exp(z - z.max(axis=1, keepdims=True))
        p = np.round(e / e.sum(axis=1, keepdims=True), 6)
        cols = ", ".join("p%d REAL" % j for j in range(k))
        con.execute("CREATE TABLE mc(id INTEGER PRIMARY KEY, y INT, %s, probs TEXT)" % cols)
        con.executemany("INSERT INTO mc(id, y, %s) VALUES (?, ?, %s)" % (
            ", ".join("p%d" % j for j in range(k)), ", ".join("?" * k)),
            ((i + 1, int(y[i]), *map(float, p[i])) for i in range(n)))
        con.execute("UPDATE mc SET probs = json_array(%s)" % ", ".join("p%d" % j for j in range(k)))
    return mlbench.cached_db("mc_%d_%d.db" % (k, n), fill)


def wide(k):
    return ", ".join("p%d" % j for j in range(k))


def ir_part(lib, floor, rows, say, md):
    """mc_auroc and mc_pr_auc at k = 3, wide and JSON, against their floors."""
    db = mc_db(rows, 3)
    run = bench_instr.callgrind(lib, floor, db)
    start = run("SELECT 1;")
    say("multiclass: instructions per row (callgrind), k = 3, %d rows of %s" % (rows, db))
    ir, table = {}, []
    forms = [("floor4(y, p0, p1, p2)", None), ("mc_auroc(y, p0, p1, p2)", "floor4(y, p0, p1, p2)"),
             ("mc_pr_auc(y, p0, p1, p2)", "floor4(y, p0, p1, p2)"),
             ("floor_text(y, probs)", None), ("mc_auroc(y, probs)", "floor_text(y, probs)"),
             ("mc_pr_auc(y, probs)", "floor_text(y, probs)")]
    for expr, fl in forms:
        n = run("SELECT %s FROM mc;" % expr)
        if n is None:
            say("  %-28s failed (not in this build?)" % expr)
            continue
        ir[expr] = n - start
        if fl is None:
            say("  %-28s %8.1f Ir/row" % (expr, ir[expr] / rows))
            continue
        r = ir[expr] / ir[fl]
        met = r <= GOAL
        say("  %-28s %8.1f Ir/row  %5.2fx %s  goal <= %.1fx: %s" % (expr, ir[expr] / rows, r, fl.split("(")[0], GOAL,
                                                                    "met" if met else "not met"))
        table.append(["`%s`" % expr, "%.1f" % (ir[expr] / rows), "`%s` %.1f" % (fl, ir[fl] / rows),
                      "**%.2f×**" % r,
                      ("≤ %.1f×: %s" % (GOAL, "met" if met else "**not met**")) if "auroc" in expr else ""])
    if md:
        mlbench.markdown("multiclass-ir", ["query (k = 3, %d rows)" % rows, "Ir/row", "its floor, Ir/row",
                                           "× floor", "goal"], table)


def sweep_part(lib, floor, rows, say, md):
    """Ir/row of mc_auroc against k, wide and JSON."""
    say("multiclass: mc_auroc against k, instructions per row (callgrind), %d rows" % rows)
    table = []
    for k in range(2, 17):
        db = mc_db(rows, k)
        run = bench_instr.callgrind(lib, floor, db)
        start = run("SELECT 1;")
        v = [run("SELECT %s FROM mc;" % q) for q in ("floorn(y, %s)" % wide(k), "mc_auroc(y, %s)" % wide(k),
                                                     "floor_text(y, probs)", "mc_auroc(y, probs)")]
        if None in v:
            say("  k = %2d: failed" % k)
            continue
        fw, w, fj, j = [(x - start) / rows for x in v]
        say("  k = %2d: wide %7.1f Ir/row (floor %6.1f) %5.2fx   JSON %7.1f Ir/row (floor %6.1f) %5.2fx   "
            "wide per class %6.1f" % (k, w, fw, w / fw, j, fj, j / fj, w / k))
        table.append([str(k), "%.1f" % w, "%.1f" % fw, "%.2f×" % (w / fw), "%.1f" % (w / k),
                      "%.1f" % j, "%.1f" % fj, "%.2f×" % (j / fj)])
    if md:
        mlbench.markdown("multiclass-k", ["k", "wide Ir/row", "floorn", "× floor", "wide Ir/row per class",
                                          "JSON Ir/row", "floor_text", "× floor"], table)


def long_tables(db, k):
    """Adds the long layout of mc to db (once): mcl(id, y, class, p), one row
    per (id, class) in (id, class) order, as most long tables are written,
    and mcl_shuf, the same rows in random order (an id's rows scattered)."""
    import sqlite3
    con = sqlite3.connect(db)
    if con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'mcl_shuf'").fetchone()[0] == 0:
        con.execute("DROP TABLE IF EXISTS mcl")
        con.execute("CREATE TABLE mcl(id INT, y INT, class INT, p REAL)")
        con.execute("INSERT INTO mcl %s ORDER BY 1, 3" % " UNION ALL ".join(
            "SELECT id, y, %d AS class, p%d AS p FROM mc" % (j, j) for j in range(k)))
        con.execute("CREATE TABLE mcl_shuf(id INT, y INT, class INT, p REAL)")
        con.execute("INSERT INTO mcl_shuf SELECT * FROM mcl ORDER BY (id * 2654435761 + class * 40503) % 1000003,"
                    " id, class")
        con.commit()
    con.close()


def long_part(lib, floor, rows, say, md):
    """The long layout (issue 48 item 4): NAME_long(id, y, class, p) over the
    long rows against the wide form over the same ids, k = 3 and 5, Ir per
    id (k class-rows), each query with its own table scan; the pivot the long
    rows needed before (json_group_array per id in a subquery) beside them."""
    say("multiclass: the long layout, instructions per id (callgrind), %d ids" % rows)
    table = []
    for k in (3, 5):
        db = mc_db(rows, k)
        long_tables(db, k)
        run = bench_instr.callgrind(lib, floor, db)
        start = run("SELECT 1;")

        def ir(sql):
            v = run(sql)
            return None if v is None else (v - start) / rows
        fw = ir("SELECT floorn(y, %s) FROM mc;" % wide(k))
        fl = ir("SELECT floorn(id, y, class, p) FROM mcl;")
        say("  k = %d: floors: wide floorn %.1f Ir/id, long floorn(id, y, class, p) %.1f Ir/id (%.1f a class-row)"
            % (k, fw, fl, fl / k))
        for fn in ("mc_auroc", "mc_top_k", "mc_confusion"):      # (mc's 6-decimal rows do not sum to 1)
            w = ir("SELECT %s(y, %s) FROM mc;" % (fn, wide(k)))
            a = ir("SELECT %s_long(id, y, class, p) FROM mcl;" % fn)
            b = ir("SELECT %s_long(id, y, class, p) FROM mcl_shuf;" % fn)
            piv = ir("SELECT %s(y, probs) FROM (SELECT id, y, json_group_array(p) AS probs FROM "
                     "(SELECT * FROM mcl ORDER BY id, class) GROUP BY id);" % fn) if fn == "mc_auroc" else None
            if None in (w, a, b):
                say("  k = %d %s: failed" % (k, fn))
                continue
            own = (a - fl) / (w - fw)          # mleval's work: each query less its own floor
            say("  k = %d %-13s wide %7.1f  long in order %7.1f (%.2fx)  shuffled %7.1f (%.2fx)  above the floors "
                "%.2fx%s" % (k, fn, w, a, a / w, b, b / w, own, "  pivot %.1f (%.2fx)" % (piv, piv / w) if piv else ""))
            table.append([str(k), "`%s`" % fn, "%.0f" % w, "%.0f (**%.2f×**)" % (a, a / w),
                          "%.0f (**%.2f×**)" % (b, b / w), "%.0f / %.0f (**%.2f×**)" % (a - fl, w - fw, own),
                          "%.0f (%.2f×)" % (piv, piv / w) if piv else "", "%.0f / %.0f" % (fw, fl)])
    if md:
        mlbench.markdown("multiclass-long", ["k", "function", "wide, Ir/id", "`_long`, rows in (id, class) order",
                                             "`_long`, rows shuffled", "above the floors: long / wide",
                                             "pivot + JSON form (before)", "floors: `floorn` wide / long"], table,
                         note="Ir per id (k class-rows), %d ids, each query with its table scan; × the wide form "
                              "over the same ids; \"above the floors\": each query less the no-op `floorn` over "
                              "its own table (wide: y and k columns; long: the four columns of k rows)" % rows)


def best(fn, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def wall_part(lib, rows, repeat, say, md):
    """mc_auroc against pandas.read_sql + scikit-learn and scikit-learn on arrays."""
    import json
    import numpy as np
    import pandas as pd
    from sklearn.metrics import roc_auc_score
    db = mc_db(rows, 3)
    con = mlbench.connect(lib, db)
    sql = lambda e: con.execute("SELECT %s FROM mc" % e).fetchone()[0]  # noqa: E731
    cols = "SELECT y, p0, p1, p2 FROM mc"
    df = pd.read_sql(cols, con)
    y, P = df["y"].to_numpy(), df[["p0", "p1", "p2"]].to_numpy()
    res = json.loads(sql("mc_auroc(y, p0, p1, p2)"))
    ovr, ovo = roc_auc_score(y, P, multi_class="ovr"), roc_auc_score(y, P, multi_class="ovo")
    say("multiclass: wall time, best of %d, k = 3, %d rows of %s (mc_auroc ovr_macro %r ovo_macro %r; "
        "scikit-learn %r %r)" % (repeat, rows, db, res["ovr_macro"], res["ovo_macro"], ovr, ovo))
    t = {}
    t["mc_auroc(y, p0, p1, p2)"] = best(lambda: sql("mc_auroc(y, p0, p1, p2)"), repeat)
    t["mc_auroc(y, probs)"] = best(lambda: sql("mc_auroc(y, probs)"), repeat)
    t["read_sql"] = best(lambda: pd.read_sql(cols, con), repeat)
    for mc in ("ovr", "ovo"):
        t["sk " + mc] = best(lambda: roc_auc_score(y, P, multi_class=mc), repeat)

        def both(mc=mc):
            d = pd.read_sql(cols, con)
            roc_auc_score(d["y"].to_numpy(), d[["p0", "p1", "p2"]].to_numpy(), multi_class=mc)
        t["read_sql + sk " + mc] = best(both, repeat)
    con.close()
    table = []
    ref = t["mc_auroc(y, p0, p1, p2)"]
    for name, what in [("mc_auroc(y, p0, p1, p2)", "`mc_auroc(y, p0, p1, p2)` (every average and per class at once)"),
                       ("mc_auroc(y, probs)", "`mc_auroc(y, probs)`, the JSON form"),
                       ("read_sql + sk ovr", "`pandas.read_sql` + `roc_auc_score(multi_class='ovr')`"),
                       ("read_sql + sk ovo", "`pandas.read_sql` + `roc_auc_score(multi_class='ovo')`"),
                       ("sk ovr", "`roc_auc_score(multi_class='ovr')` on in-memory arrays"),
                       ("sk ovo", "`roc_auc_score(multi_class='ovo')` on in-memory arrays"),
                       ("read_sql", "`pandas.read_sql` of `y, p0, p1, p2` alone")]:
        say("  %-60s %7.3f s  %5.2fx mc_auroc wide" % (what.replace("`", ""), t[name], t[name] / ref))
        table.append([what, "%.3f" % t[name], "%.2f×" % (t[name] / ref)])
    if md:
        mlbench.markdown("multiclass-wall", ["k = 3, %d rows" % rows, "seconds (best of %d)" % repeat,
                                             "× `mc_auroc(y, p0, p1, p2)`"], table)


def peak(db, lib, floor, sql):
    """The max of SQLite's Memory Used (bytes) while the sqlite3 shell runs sql."""
    script = ".load %s\n.load %s\n.stats on\n%s\n" % (lib, floor, sql)
    out = subprocess.run(["sqlite3", db], input=script, text=True, capture_output=True, check=True).stdout
    return int(re.search(r"Memory Used:\s+\d+ \(max (\d+)\)", out).group(1))


def memory_part(lib, floor, rows, sweep_rows, say, md):
    """Bytes per row above floorn's peak: the rows mc_top_k holds (the
    family's aggregate state; its result allocates k sums) and mc_auroc's
    peak (the state and the result's scratch), against 16 k: k = 3 over rows
    rows, k = 2, 8, 16 over sweep_rows rows."""
    table = []
    say("multiclass: memory (sqlite3 .stats), bytes per row above floorn's peak")
    for k, n in ((3, rows), (2, sweep_rows), (8, sweep_rows), (16, sweep_rows)):
        db = mc_db(n, k)
        base = peak(db, lib, floor, "SELECT floorn(y, %s) FROM mc;" % wide(k))
        for form in (wide(k), "probs"):
            held = (peak(db, lib, floor, "SELECT mc_top_k(y, %s) FROM mc;" % form) - base) / n
            top = (peak(db, lib, floor, "SELECT mc_auroc(y, %s) FROM mc;" % form) - base) / n
            met = held <= 16 * k
            name = "wide" if form != "probs" else "JSON"
            say("  k = %2d, %d rows, %-4s: rows held %6.1f B/row (8 (k + 2) = %d), mc_auroc's peak %6.1f B/row; "
                "16 k = %d: %s" % (k, n, name, held, 8 * (k + 2), top, 16 * k, "met" if met else "not met"))
            table.append([str(k), str(n), name, "%.1f" % held, "%.1f" % top, "%d" % (16 * k),
                          "met" if met else "**not met**"])
    if md:
        mlbench.markdown("multiclass-memory", ["k", "rows", "form", "rows held, B/row", "`mc_auroc` peak, B/row",
                                               "goal 16 k", "held ≤ 16 k"], table)


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="ext/.libs/mleval")
    ap.add_argument("--floor", default="bench/.libs/floor")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--sweep-rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="ir,sweep,wall,memory,long")
    mlbench.add_markdown(ap)
    a = ap.parse_args()
    say = mlbench.console(a)
    lib, floor = os.path.abspath(a.lib), os.path.abspath(a.floor)
    parts = a.only.split(",")
    if "ir" in parts:
        ir_part(lib, floor, a.rows, say, a.markdown)
    if "sweep" in parts:
        sweep_part(lib, floor, a.sweep_rows, say, a.markdown)
    if "wall" in parts:
        wall_part(lib, a.rows, a.repeat, say, a.markdown)
    if "long" in parts:
        long_part(lib, floor, a.sweep_rows, say, a.markdown)
    if "memory" in parts:
        memory_part(lib, floor, a.rows, a.sweep_rows, say, a.markdown)


if __name__ == "__main__":
    main()
