# SPDX-License-Identifier: MIT
"""make bench: partial states (docs/states.md).

1. Shards: the 10-million-row table split into 10 shards (id ranges, as 10
   shard files would hold them).  10 states (one ml_state per shard) plus
   pr_auc over them, against one pr_auc over the whole table
   (goal <= 1.3x).  Also the states' size.
2. Incremental: a year of daily states (365 days, ~27 400 rows a day) merged
   for the year's PR-AUC, against rescanning the year's rows: scores stored
   rounded to 4 decimals (goal >= 10x) and at full double precision.
Every pair of answers is checked equal before it is timed.
--markdown prints bench/RESULTS.md's table states-wall (bench/results.py).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402


def timeit(fn, repeat):
    return mlbench.wall_cpu(fn, repeat)


def year_db(src, n):
    """A cached copy of the bench table as a year: year(day, y, s4, sf),
    s4 the score rounded to 4 decimals, sf a full-precision double."""
    per_day = (n + 364) // 365

    def fill(con):
        con.execute("ATTACH ? AS src", (src,))
        con.executescript("""
          CREATE TABLE year(id INTEGER PRIMARY KEY, day INT, y INT, s4 REAL, sf REAL);
          INSERT INTO year SELECT id, (id - 1) / %d, y, round(s, 4),
                 0.75 * ((abs(random()) %% 9007199254740991) / 9007199254740991.0) + 0.25 * y FROM src.preds;
          CREATE INDEX year_day ON year(day);
        """ % per_day)
    return mlbench.cached_db("year_%d.db" % n, fill)


def shards(con, rows, repeat, say, md):
    k = 10
    per = rows // k
    bounds = [(i * per + 1, rows if i == k - 1 else (i + 1) * per) for i in range(k)]
    con.execute("CREATE TEMP TABLE st(b BLOB)")

    def states_then_merge():
        con.execute("DELETE FROM st")
        for lo, hi in bounds:
            con.execute("INSERT INTO st SELECT ml_state(y, s) FROM preds WHERE id BETWEEN ? AND ?", (lo, hi))
        return con.execute("SELECT pr_auc(b) FROM st").fetchone()[0]

    whole = lambda: con.execute("SELECT pr_auc(y, s) FROM preds").fetchone()[0]   # noqa: E731
    assert states_then_merge() == whole(), "states and rows disagree"
    t_whole, c_whole = timeit(whole, repeat)
    t_states, c_states = timeit(states_then_merge, repeat)
    t_merge, c_merge = timeit(lambda: con.execute("SELECT pr_auc(b) FROM st").fetchone(), repeat)
    t_ml_merge, c_ml_merge = timeit(lambda: con.execute("SELECT length(ml_merge(b)) FROM st").fetchone(), repeat)
    size = con.execute("SELECT sum(length(b)) FROM st").fetchone()[0]
    merged = con.execute("SELECT length(ml_merge(b)) FROM st").fetchone()[0]
    say("1. shards: %d rows in %d shards (scores with 6 decimals)" % (rows, k))
    say("  %-50s %8s %8s" % ("", "wall", "cpu"))
    say("  %-50s %8.3f %8.3f s" % ("SELECT pr_auc(y, s) over the whole table", t_whole, c_whole))
    say("  %-50s %8.3f %8.3f s   %5.2fx / %5.2fx the whole-table query (goal <= 1.3x)" %
          ("10 x ml_state(y, s) per shard + pr_auc(states)", t_states, c_states, t_states / t_whole, c_states / c_whole))
    say("  %-50s %8.3f %8.3f s" % ("  of which pr_auc over the 10 states", t_merge, c_merge))
    say("  %-50s %8.3f %8.3f s" % ("ml_merge of the 10 states", t_ml_merge, c_ml_merge))
    say("  states: %d bytes in all (%.2f bytes/row), merged state %d bytes" % (size, size / rows, merged))
    md.append(["`pr_auc(y, s)` over the whole table (%d rows)" % rows, "%.3f / %.3f s" % (t_whole, c_whole), "1"])
    md.append(["10 × `ml_state(y, s)` per shard + `pr_auc` over the 10 states (%.2f bytes/row of states)" % (size / rows),
               "%.3f / %.3f s" % (t_states, c_states),
               "%.2f× / **%.2f×** (goal ≤ 1.3×)" % (t_states / t_whole, c_states / c_whole)])
    md.append(["of which `pr_auc` over the 10 states", "%.3f / %.3f s" % (t_merge, c_merge), ""])
    md.append(["`ml_merge` of the 10 states", "%.3f / %.3f s" % (t_ml_merge, c_ml_merge), ""])


def incremental(con, repeat, say, md):
    say("2. incremental: a year of daily states against rescanning the year's rows")
    for col, label in (("s4", "scores rounded to 4 decimals"), ("sf", "full-precision double scores")):
        con.execute("DROP TABLE IF EXISTS temp.daily")
        t0 = time.perf_counter()
        con.execute("CREATE TEMP TABLE daily AS SELECT day, ml_state(y, %s) AS st FROM year GROUP BY day" % col)
        t_build = time.perf_counter() - t0
        days, size = con.execute("SELECT count(*), sum(length(st)) FROM daily").fetchone()
        rescan = lambda: con.execute("SELECT pr_auc(y, %s) FROM year WHERE day BETWEEN 0 AND 364" % col).fetchone()[0]  # noqa: E731
        merged = lambda: con.execute("SELECT pr_auc(st) FROM daily WHERE day BETWEEN 0 AND 364").fetchone()[0]  # noqa: E731
        assert rescan() == merged(), "states and rows disagree (%s)" % col
        t_rescan, c_rescan = timeit(rescan, repeat)
        t_merged, c_merged = timeit(merged, repeat)
        goal = " (goal >= 10x)" if col == "s4" else ""
        say("  %s: %d daily states, %d bytes (%.1f KiB a day); built once in %.1f s" %
              (label, days, size, size / days / 1024, t_build))
        say("  %-50s %8.3f %8.3f s" % ("  rescan: pr_auc(y, s) over the year's rows", t_rescan, c_rescan))
        say("  %-50s %8.3f %8.3f s   %5.1fx / %5.1fx faster%s" % (
            "  merge: pr_auc(st) over 365 daily states", t_merged, c_merged,
            t_rescan / t_merged, c_rescan / c_merged, goal))
        md.append(["a year's rows, %s: rescan `WHERE day BETWEEN 0 AND 364`" % label, "%.3f / %.3f s" % (t_rescan, c_rescan), "1"])
        md.append(["the same from 365 daily states (%.0f KiB a day)" % (size / days / 1024),
                   "%.3f / %.3f s" % (t_merged, c_merged),
                   "%.1f× / **%.1f× faster**%s" % (t_rescan / t_merged, c_rescan / c_merged,
                                                  " (goal ≥ 10×)" if col == "s4" else "")])


def main():
    a = mlbench.parse_args(__doc__)
    say = mlbench.console(a)
    md = []
    lib = os.path.abspath(a.lib)
    path = mlbench.bench_db(a.rows)
    con = mlbench.connect(lib, path)
    say("mleval partial-state benchmark, %d rows (%s), median of %d" % (a.rows, path, a.repeat))
    shards(con, a.rows, a.repeat, say, md)
    con.close()
    con = mlbench.connect(lib, year_db(path, a.rows))
    incremental(con, a.repeat, say, md)
    if a.markdown:
        mlbench.markdown("states-wall", ["query (median of %d)" % a.repeat, "wall / CPU", "ratio (wall / CPU)"], md)


if __name__ == "__main__":
    main()
