# SPDX-License-Identifier: MIT
"""bench_report.py -- mleval-report's size and time on a large table.

    /usr/bin/python3 bench/bench_report.py [--rows 1000000] [--folds 5] [--keep DIR]

Writes a predictions table preds(fold, y, s, p) of --rows rows in --folds
folds (y ~ Bernoulli(0.2), s = N(0, 1) + 1.2 y rounded to 6 digits, p =
the logistic of s; numpy seed 25) into a scratch database, then runs
$MLEVAL_REPORT (default tools/mleval-report) on it with --by fold -- one
score at the defaults (every group is larger than --boot-rows, so its PR-AUC
interval is the delta method's), with --prob, two scores with --prob, and
with --bootstrap also the bootstrap in every group -- and prints, for each
run,
the wall time and the sizes of the HTML and the --json file.  The numbers
in docs/report.md ("Size and time") come from it.  --markdown prints
bench/RESULTS.md's table report instead (bench/results.py), the console
lines going to stderr.
"""
import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def make_db(path, rows, folds):
    rng = np.random.default_rng(25)
    y = (rng.random(rows) < 0.2).astype(int)
    s = np.round(rng.normal(size=rows) + 1.2 * y, 6)
    p = 1 / (1 + np.exp(-s))
    fold = rng.integers(1, folds + 1, rows)
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE preds(fold INT, y INT, s REAL, p REAL)")
    con.executemany("INSERT INTO preds VALUES (?, ?, ?, ?)",
                    zip(fold.tolist(), y.tolist(), s.tolist(), p.tolist()))
    con.commit()
    con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--keep", help="directory to keep the database and the outputs in")
    ap.add_argument("--bootstrap", action="store_true",
                    help="also time the PR-AUC bootstrap in every group (--boot-rows above the rows: about a minute)")
    ap.add_argument("--markdown", action="store_true", help="print only bench/RESULTS.md's table (bench/results.py)")
    a = ap.parse_args()
    out = sys.stderr if a.markdown else sys.stdout
    md = []
    report = os.environ.get("MLEVAL_REPORT") or os.path.join(HERE, "..", "tools", "mleval-report")
    tmp = a.keep or tempfile.mkdtemp(prefix="mleval-bench-report-")
    os.makedirs(tmp, exist_ok=True)
    db = os.path.join(tmp, "preds.db")
    if not os.path.exists(db):
        make_db(db, a.rows, a.folds)
    runs = [("one score", []), ("one score, --prob", ["--prob", "p"]),
            ("two scores, --prob", ["--score", "p", "--prob", "p"])]
    if a.bootstrap:
        runs.append(("one score, bootstrap in every group", ["--boot-rows", "2000000000"]))
    for label, extra in runs:
        html, js = os.path.join(tmp, "r.html"), os.path.join(tmp, "r.json")
        t0 = time.perf_counter()
        r = subprocess.run([report, db, "preds", "--label", "y", "--score", "s", "--by", "fold",
                            "-o", html, "--json", js, "--force"] + extra, capture_output=True, text=True)
        t = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit("mleval-report failed: %s" % r.stderr)
        print("%-20s %d rows, %d folds: %.2f s, HTML %.1f kB, JSON %.1f kB"
              % (label, a.rows, a.folds, t, os.path.getsize(html) / 1e3, os.path.getsize(js) / 1e3), file=out, flush=True)
        md.append("| %s | %.2f s | %.0f kB | %.0f kB |" % (label, t, os.path.getsize(html) / 1e3, os.path.getsize(js) / 1e3))
    if a.markdown:
        print("<!-- bench:report -->")
        print("| `mleval-report`, %d rows, %d folds (`--by fold`) | time | HTML | JSON |" % (a.rows, a.folds))
        print("| --- | --- | --- | --- |")
        print("\n".join(md))
        print("<!-- /bench:report -->")


if __name__ == "__main__":
    main()
