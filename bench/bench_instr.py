# SPDX-License-Identifier: MIT
"""make bench-instr: instruction counts (valgrind --tool=callgrind) of each
aggregate over the first --rows rows of the cached table, as ratios to the
floor of the same number of columns.  Instruction counts repeat to the
instruction on a noisy shared machine where wall time does not; they do not
see cache misses (the sort's scatter pass), so they complement make bench.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402

QUERIES = [("floor2(y, s)", 2), ("floor3(y, s, len)", 3), ("sum(s)", 2),
           ("pr_auc(y, s)", 2), ("auroc(y, s)", 2), ("nap(y, s)", 2), ("youden_j(y, s)", 2),
           ("sens_at_spec(y, s, 0.95)", 2), ("operating_point(y, s, 'specificity', 0.95)", 2),
           ("operating_point(y, s, 'max_f1')", 2), ("partial_auroc(y, s, 0.1)", 2), ("brier(y, p)", 2), ("log_loss(y, p)", 2),
           ("ece(y, p, 10)", 2), ("mce(y, p, 10)", 2),
           ("strat_report(y, s, len)", 3), ("ordinal_auprc(y, s, s)", 3)]


def callgrind(lib, floor, db):
    """A function that returns the Ir of the sqlite3 shell loading both
    modules and running sql (None when the query fails)."""
    def run(sql):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "cg.out")
            script = ".load %s\n.load %s\n%s\n" % (lib, floor, sql)
            p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "sqlite3", db],
                               input=script, text=True, capture_output=True)
            if p.returncode != 0 or "Error" in p.stdout + p.stderr.split("==")[-1]:
                return None
            with open(out) as f:
                m = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
            return int(m.group(1))
    return run


def main():
    a = mlbench.parse_args(__doc__)
    rows = min(a.rows, 1_000_000)
    db = mlbench.bench_db()
    lib, floor = os.path.abspath(a.lib), os.path.abspath(a.floor)
    print("instructions per row (callgrind), first %d rows of %s" % (rows, db))
    ir = {}
    run = callgrind(lib, floor, db)
    start = run("SELECT 1;")            # start-up and loading, subtracted
    for expr, nf in QUERIES:
        n = run("SELECT %s FROM preds WHERE id <= %d;" % (expr, rows))
        if n is not None:
            n -= start
        if n is None:
            print("  %-28s  skipped (not in this build)" % expr)
            continue
        ir[expr] = n
        fl = ir.get("floor2(y, s)" if nf == 2 else "floor3(y, s, len)")
        print("  %-28s %8.1f Ir/row  %5.2fx floor%d" % (expr, n / rows, n / fl, nf))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
