# SPDX-License-Identifier: MIT
"""Wall time and page faults at 10 M rows (issue 22): each query run by the
sqlite3 shell under /usr/bin/time -v, fastest of --repeat runs, with the
floor of the same columns in the same process-per-run fashion.  With
--base-lib (an older build of mleval.so, with its own floor) the two builds
run interleaved, each in its own process (SQLite loads extensions with
RTLD_GLOBAL, so two builds must not share one), so that load on a shared
machine touches both alike.  Minor page faults count the pages the query
first touches: the sort's scratch array and the sample buffer's growth.

  /usr/bin/python3 bench/bench_faults.py --lib ext/.libs/mleval \\
      --floor bench/.libs/floor [--base-lib OLD/ext/.libs/mleval --base-floor OLD/bench/.libs/floor]
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402

QUERIES = [("floor2(y, s)", 2), ("floor3(y, s, len)", 3), ("pr_auc(y, s)", 2), ("auroc(y, s)", 2),
           ("brier(y, p)", 2), ("log_loss(y, p)", 2), ("ece(y, p, 10)", 2),
           ("strat_report(y, s, len)", 3)]


def run(lib, floor, db, expr):
    """(seconds, minor page faults, max RSS KiB) of one query in its own sqlite3 shell."""
    script = ".load %s\n.load %s\nSELECT length(%s) FROM preds;\n" % (lib, floor, expr)
    p = subprocess.run(["/usr/bin/time", "-v", "sqlite3", db], input=script, text=True, capture_output=True)
    if p.returncode != 0 or "Error" in p.stdout:
        raise SystemExit("%s failed: %s %s" % (expr, p.stdout, p.stderr[-400:]))
    err = p.stderr
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", err)
    secs = (int(m.group(1) or 0) * 3600) + int(m.group(2)) * 60 + float(m.group(3))
    faults = int(re.search(r"Minor \(reclaiming a frame\) page faults: (\d+)", err).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    return secs, faults, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--base-lib")
    ap.add_argument("--base-floor")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    db = mlbench.bench_db(a.rows)
    builds = [("after", os.path.abspath(a.lib), os.path.abspath(a.floor))]
    if a.base_lib:
        builds.insert(0, ("before", os.path.abspath(a.base_lib), os.path.abspath(a.base_floor or a.floor)))
    best = {}
    for _ in range(a.repeat):
        for expr, _nf in QUERIES:
            for name, lib, floor in builds:
                r = run(lib, floor, db, expr)
                k = (name, expr)
                if k not in best or r[0] < best[k][0]:
                    best[k] = r
    print("wall time (fastest of %d), minor page faults and peak RSS, %d rows of %s" % (a.repeat, a.rows, db))
    for name, _lib, _floor in builds:
        for expr, nf in QUERIES:
            secs, faults, rss = best[(name, expr)]
            fl = best[(name, "floor2(y, s)" if nf == 2 else "floor3(y, s, len)")][0]
            print("  %-6s %-26s %7.3f s  %5.2fx floor%d  %9d minor faults  %9d KiB" % (
                name, expr, secs, secs / fl, nf, faults, rss))


if __name__ == "__main__":
    main()
