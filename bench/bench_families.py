# SPDX-License-Identifier: MIT
"""make bench (second part): every family's aggregate over the cached
10-million-row table, as a ratio to SELECT sum(s) on the same table.
Goals: brier, log_loss, ece <= 1.2x; strat_report <= 3x."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402

QUERIES = [
    ("floor, two columns: sum(y*p)", "SELECT sum(y*p) FROM preds"),
    ("plain-SQL Brier: avg((p-y)*(p-y))", "SELECT avg((p-y)*(p-y)) FROM preds"),
    ("brier(y, p)", "SELECT brier(y, p) FROM preds"),
    ("log_loss(y, p)", "SELECT log_loss(y, p) FROM preds"),
    ("ece(y, p, 10)", "SELECT ece(y, p, 10) FROM preds"),
    ("ece_l2_debiased(y, p)", "SELECT ece_l2_debiased(y, p) FROM preds"),
    ("ece_l2_kumar(y, p)", "SELECT ece_l2_kumar(y, p) FROM preds"),
    ("youden_j(y, s)", "SELECT youden_j(y, s) FROM preds"),
    ("sens_at_spec(y, s, 0.95)", "SELECT sens_at_spec(y, s, 0.95) FROM preds"),
    ("strat_report(y, s, len)", "SELECT strat_report(y, s, len) FROM preds"),
    ("ordinal_auprc(y, s, s)", "SELECT ordinal_auprc(y, s, s) FROM preds"),
]


def main():
    a = mlbench.parse_args(__doc__)
    path = mlbench.bench_db(a.rows)
    con = mlbench.connect(os.path.abspath(a.lib), path)
    print("mleval families benchmark, %d rows, median of %d" % (a.rows, a.repeat))
    scan, _ = mlbench.timeit(lambda: con.execute("SELECT sum(s) FROM preds").fetchone(), a.repeat)
    print("  %-36s %8.3f s" % ("SELECT sum(s)", scan))
    for name, q in QUERIES:
        try:
            con.execute(q.replace("FROM preds", "FROM preds WHERE id <= 10")).fetchone()
        except Exception as e:            # a function this build does not have yet
            print("  %-36s  skipped (%s)" % (name, e))
            continue
        t, _ = mlbench.timeit(lambda: con.execute(q).fetchone(), a.repeat)
        print("  %-36s %8.3f s   %5.2fx scan" % (name, t, t / scan))


if __name__ == "__main__":
    main()
