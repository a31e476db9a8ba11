# SPDX-License-Identifier: MIT
"""make bench (second part): every metric's aggregate over the cached
10-million-row table, as a ratio to the floor and to SELECT sum(s).

The floor (bench/floor.c) is a no-op aggregate that reads its two (floor2)
or three (floor3) arguments through sqlite3_value_* and adds them: what any
aggregate of those columns must pay SQLite.  Goals (issue 17), as ratios to
the floor of the same number of columns:
  pr_auc, auroc, nap, youden_j, sens_at_spec   <= 1.3x floor2
  brier, log_loss, ece, mce                    <= 1.1x floor2
  strat_report, ordinal_auprc (two cuts)       <= 2.0x floor3
--markdown prints bench/RESULTS.md's tables families-ranking and
families-calibration (bench/results.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402

# (label, query, floor it is compared with, goal ratio or None)
QUERIES = [
    ("sum(y*p): SQLite's own, two columns", "SELECT sum(y*p) FROM preds", 2, None),
    ("floor2_keep(y, s): floor + 8 B/row kept", "SELECT floor2_keep(y, s) FROM preds", 2, None),
    ("pr_auc(y, s)", "SELECT pr_auc(y, s) FROM preds", 2, 1.3),
    ("auroc(y, s)", "SELECT auroc(y, s) FROM preds", 2, 1.3),
    ("nap(y, s)", "SELECT nap(y, s) FROM preds", 2, 1.3),
    ("youden_j(y, s)", "SELECT youden_j(y, s) FROM preds", 2, 1.3),
    ("sens_at_spec(y, s, 0.95)", "SELECT sens_at_spec(y, s, 0.95) FROM preds", 2, 1.3),
    ("brier(y, p)", "SELECT brier(y, p) FROM preds", 2, 1.1),
    ("log_loss(y, p)", "SELECT log_loss(y, p) FROM preds", 2, 1.1),
    ("ece(y, p, 10)", "SELECT ece(y, p, 10) FROM preds", 2, 1.1),
    ("mce(y, p, 10)", "SELECT mce(y, p, 10) FROM preds", 2, 1.1),
    ("plain-SQL Brier: avg((p-y)*(p-y))", "SELECT avg((p-y)*(p-y)) FROM preds", 2, None),
    ("ece_equal_mass(y, p)", "SELECT ece_equal_mass(y, p) FROM preds", 2, None),
    ("brier_decomposition(y, p)", "SELECT brier_decomposition(y, p) FROM preds", 2, None),
    ("reliability(y, p, 10, 'quantile')", "SELECT reliability(y, p, 10, 'quantile') FROM preds", 2, None),
    ("ece_l2_debiased(y, p)", "SELECT ece_l2_debiased(y, p) FROM preds", 2, None),
    ("ece_l2_kumar(y, p)", "SELECT ece_l2_kumar(y, p) FROM preds", 2, None),
    ("operating_point(y, s, 'specificity', 0.95)", "SELECT operating_point(y, s, 'specificity', 0.95) FROM preds", 2, None),
    ("operating_point(y, s, 'max_f1')", "SELECT operating_point(y, s, 'max_f1') FROM preds", 2, None),
    ("partial_auroc(y, s, 0.1)", "SELECT partial_auroc(y, s, 0.1) FROM preds", 2, None),
    ("precision_at_prior(y, s, 0.5, 0.01)", "SELECT precision_at_prior(y, s, 0.5, 0.01) FROM preds", 2, None),
    ("strat_report(y, s, len)", "SELECT strat_report(y, s, len) FROM preds", 3, 2.0),
    ("ordinal_auprc(y, s, s) (two cuts)", "SELECT ordinal_auprc(y, s, s) FROM preds", 3, 2.0),
]


# the rows of RESULTS.md's calibration table (the others are the ranking table's)
CALIBRATION = ("brier", "log_loss", "ece", "mce", "plain-SQL Brier", "reliability", "sum(y*p)")


def md_label(name):
    """A QUERIES label for markdown: the SQL in backticks, the words not."""
    if name.startswith("plain-SQL "):
        return "Brier in plain SQL: `%s`" % name.split(": ", 1)[1]
    for sep in (": ", " ("):
        if sep in name:
            code, rest = name.split(sep, 1)
            return "`%s`%s%s" % (code, sep, rest)
    return "`%s`" % name


def main():
    a = mlbench.parse_args(__doc__)
    say = mlbench.console(a)
    path = mlbench.bench_db(a.rows)
    con = mlbench.connect(os.path.abspath(a.lib), path, os.path.abspath(a.floor))
    only = os.environ.get("MLEVAL_BENCH_ONLY")      # a substring: run just those rows
    # The fastest of the runs: on a shared machine the other runs measure the
    # neighbours; the medians are in bench/RESULTS.md's notes when quoted.
    run = lambda q: mlbench.timeit(lambda: con.execute(q).fetchone(), a.repeat)[1]  # noqa: E731
    say("mleval aggregates, %d rows, fastest of %d" % (a.rows, a.repeat))
    scan = run("SELECT sum(s) FROM preds")
    floors = {2: run("SELECT floor2(y, s) FROM preds"), 3: run("SELECT floor3(y, s, len) FROM preds")}
    say("  %-40s %8.3f s" % ("SELECT sum(s)", scan))
    say("  %-40s %8.3f s   %5.2fx sum(s)" % ("floor2(y, s)", floors[2], floors[2] / scan))
    say("  %-40s %8.3f s   %5.2fx sum(s)" % ("floor3(y, s, len)", floors[3], floors[3] / scan))
    head = [["`sum(s)`", "%.3f s" % scan, "", "1.00×"],
            ["`floor2(y, s)`", "%.3f s" % floors[2], "1.00×", "%.2f×" % (floors[2] / scan)],
            ["`floor3(y, s, len)`", "%.3f s" % floors[3], "1.00×", "%.2f×" % (floors[3] / scan)]]
    md = {"families-ranking": list(head), "families-calibration": head[:2]}   # no calibration function reads 3 columns
    for name, q, nf, goal in QUERIES:
        if only and only not in name:
            continue
        try:
            con.execute(q.replace("FROM preds", "FROM preds WHERE id <= 10")).fetchone()
        except Exception as e:            # a function this build does not have yet
            say("  %-40s  skipped (%s)" % (name, e))
            continue
        t = run(q)
        verdict = "" if goal is None else ("  goal <= %.1fx: %s" % (goal, "met" if t / floors[nf] <= goal else "NOT met"))
        say("  %-40s %8.3f s   %5.2fx floor%d  %5.2fx sum(s)%s" % (name, t, t / floors[nf], nf, t / scan, verdict))
        cell = "%.2f× floor%d" % (t / floors[nf], nf)
        if goal is not None:
            cell += " (goal ≤ %.1f×: %s)" % (goal, "met" if t / floors[nf] <= goal else "**not met**")
        label = md_label(name)
        md["families-calibration" if name.startswith(CALIBRATION) else "families-ranking"].append(
            [label, "%.3f s" % t, cell, "%.2f×" % (t / scan)])
    if a.markdown:
        for sec, rows in md.items():
            mlbench.markdown(sec, ["query (%d rows, fastest of %d)" % (a.rows, a.repeat), "time", "× floor",
                                   "× `sum(s)`"], rows)


if __name__ == "__main__":
    main()
