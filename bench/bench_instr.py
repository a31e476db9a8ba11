# SPDX-License-Identifier: MIT
"""make bench-instr: instruction counts (valgrind --tool=callgrind) of each
aggregate over the first --rows rows of the cached table, as ratios to the
floor of the same number of columns (with MLEVAL_BENCH_STATES=1: the
ranking and calibration functions over a year of 365 daily states against
rescanning its rows, issue 22).  Instruction counts repeat to the
instruction on a noisy shared machine where wall time does not; they do not
see cache misses (the sort's scatter pass), so they complement make bench.
The table is mlbench.bench_db(rows) (12 % positives, s = p in [0, 1]);
each line says whether the query meets its issue's goal (issue 22 for the
round-3 rows, issue 24 for the threshold and clinical ones).
MLEVAL_BENCH_ONLY=substring runs only the matching queries (and the floors);
"a|b" runs the queries matching either.  MLEVAL_BENCH_REALW=1: the weighted
twins on real-valued weights (issue 38) over --rows rows of bench_db_w.
The table is mlbench.bench_db(rows) itself (--rows 100000: a table of
10^5 rows), scanned whole: a WHERE on the rowid would add ~100 Ir a row.
--markdown prints bench/RESULTS.md's tables instead (ranking-ir,
calibration-ir, weighted-ir, states-ir; with MLEVAL_BENCH_STATES, states-365),
the console lines going to stderr; bench/results.py writes them into the file.
MLEVAL_BENCH_MONITORING=1 (issue 35): drift_report and group_disparity over
--rows rows of the table against auroc(y, s), and drift_report over the 365
daily states of year365_db against rescanning its rows (markdown: monitoring).
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402

# (query, columns of its floor, goal as a ratio to that floor or None).
# Goals: issue 22 for the round-3 rows, issue 24 for the clinical ones.
QUERIES = [("floor2(y, s)", 2, None), ("floor3(y, s, len)", 3, None), ("sum(s)", 2, None),
           ("pr_auc(y, s)", 2, 1.25), ("auroc(y, s)", 2, 1.25), ("nap(y, s)", 2, 1.25), ("youden_j(y, s)", 2, None),
           ("sens_at_spec(y, s, 0.95)", 2, None), ("operating_point(y, s, 'specificity', 0.95)", 2, 1.25),
           ("operating_point(y, s, 'max_f1')", 2, None), ("partial_auroc(y, s, 0.1)", 2, None),
           ("brier(y, p)", 2, 1.10), ("log_loss(y, p)", 2, 1.10),
           ("ece(y, p, 10)", 2, 1.25), ("mce(y, p, 10)", 2, 1.25),
           ("strat_report(y, s, len)", 3, 1.5), ("ordinal_auprc(y, s, s)", 3, 1.5),
           ("mcc(y, s, 0.5)", 2, 1.3), ("f_beta(y, s, 0.5, 2)", 2, 1.3), ("confusion_ci(y, s, 0.5)", 2, 1.3),
           ("net_benefit(y, p, 0.2)", 2, 1.3), ("ks(y, s)", 2, 1.3), ("precision_at_k(y, s, 100)", 2, 1.3),
           ("recall_at_k(y, s, 100)", 2, 1.3), ("gains(y, s)", 2, 1.3), ("decision_curve(y, p)", 2, 1.3),
           ("calibration_summary(y, p)", 2, 1.5),
           # issue 23: the weighted twins, weight len (a positive integer column); the
           # goal is 1.15x the unweighted function, here as a ratio to floor3 (one
           # column more) against the unweighted ratio to floor2
           ("pr_auc_w(y, s, len)", 3, None), ("auroc_w(y, s, len)", 3, None), ("brier_w(y, p, len)", 3, None),
           ("log_loss_w(y, p, len)", 3, None), ("ece_w(y, p, len, 10)", 3, None), ("mcc_w(y, s, len, 0.5)", 3, None),
           ("precision_at_k_w(y, s, len, 100)", 3, None), ("recall_at_k_w(y, s, len, 100)", 3, None),
           ("gains_w(y, s, len)", 3, None), ("strat_report_w(y, s, len, len)", 3, None),
           ("calibration_summary_w(y, p, len)", 3, None),
           # partial states made from the rows: ml_state and the weighted ml_state_w
           ("length(ml_state(y, s))", 2, None), ("length(ml_state_w(y, s, len))", 3, None)]


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


def year365_db(src, n):
    """A cached year of n rows of src over 365 days (~2 740 rows a day),
    scores rounded to 4 decimals, and one ml_state per day: year(day, y, s4)
    indexed on day (as bench_states.py's year) and daily(day, st).  The daily states are made by the sqlite3 shell with
    lib loaded (the state format does not depend on the build)."""
    per_day = (n + 364) // 365
    path = os.path.join(mlbench.CACHE, "year365_%d.db" % n)
    if not os.path.exists(path):
        tmp = path + ".tmp"
        if os.path.exists(tmp):
            os.remove(tmp)
        sql = ("ATTACH '%s' AS src;\n"
               "CREATE TABLE year(id INTEGER PRIMARY KEY, day INT, y INT, s4 REAL);\n"
               "INSERT INTO year SELECT id, (id - 1) / %d, y, round(s, 4) FROM src.preds WHERE id <= %d;\n"
               "CREATE INDEX year_day ON year(day);\n"
               "CREATE TABLE daily(day INTEGER PRIMARY KEY, st BLOB);\n"
               "INSERT INTO daily SELECT day, ml_state(y, s4) FROM year GROUP BY day;\n" % (src, per_day, n))
        subprocess.run(["sqlite3", "-bail", "-cmd", ".load " + mleval_lib[0], tmp], input=sql, text=True, check=True)
        os.rename(tmp, path)
    # weighted daily states (issue 23): inverse-probability weights of
    # controls downsampled to 1 in 10, made once beside the others
    has = subprocess.run(["sqlite3", path, "SELECT count(*) FROM sqlite_master WHERE name = 'daily_w';"],
                         capture_output=True, text=True, check=True).stdout.strip()
    if has != "1":
        sql = ("CREATE TABLE daily_w(day INTEGER PRIMARY KEY, st BLOB);\n"
               "INSERT INTO daily_w SELECT day, ml_state_w(y, s4, %s) FROM year GROUP BY day;\n" % IPW)
        subprocess.run(["sqlite3", "-bail", "-cmd", ".load " + mleval_lib[0], path], input=sql, text=True, check=True)
    return path


IPW = "CASE y WHEN 1 THEN 1.0 ELSE 10.0 END"


mleval_lib = [None]


def states365(lib, floor, src, rows, say, md=False):
    """Issue 22's "365 daily states against rescanning": each function over
    the year's rows and over its 365 daily states, in instructions."""
    mleval_lib[0] = lib
    db = year365_db(src, rows)
    run = callgrind(lib, floor, db)
    start = run("SELECT 1;")
    table = []
    say("365 daily states against rescanning (%d rows, scores with 4 decimals, %s)" % (rows, db))
    say("  rescan = f(y, s4) FROM year, states = f(st) FROM daily (round 3's queries); then both with"
        " WHERE day BETWEEN 0 AND 364, the rescan by a full scan (NOT INDEXED) and by the day index")
    # MLEVAL_BENCH_STATES=w: the weighted states alone
    for f in (("pr_auc", "auroc", "ece") if os.environ.get("MLEVAL_BENCH_STATES") != "w" else ()):
        rescan = run("SELECT %s(y, s4) FROM year;" % f) - start
        merged = run("SELECT %s(st) FROM daily;" % f) - start
        scan = run("SELECT %s(y, s4) FROM year NOT INDEXED WHERE day BETWEEN 0 AND 364;" % f) - start
        indexed = run("SELECT %s(y, s4) FROM year WHERE day BETWEEN 0 AND 364;" % f) - start
        mwhere = run("SELECT %s(st) FROM daily WHERE day BETWEEN 0 AND 364;" % f) - start
        say("  %-7s %7.1f / %6.1f M Ir: %5.1fx   where: %7.1f (indexed %7.1f) / %6.1f M Ir: %5.1fx (%5.1fx)" % (
            f, rescan / 1e6, merged / 1e6, rescan / merged, scan / 1e6, indexed / 1e6, mwhere / 1e6,
            scan / mwhere, indexed / mwhere))
        table.append(["`%s(y, s4)` / `%s(st)`" % (f, f), "%.1f M" % (rescan / 1e6), "%.1f M" % (merged / 1e6),
                      "**%.1f×**" % (rescan / merged), "%.1f× (by the day index %.1f×)" % (scan / mwhere, indexed / mwhere)])
    say("365 weighted daily states (ml_state_w, weights %s) against the twin rescanning" % IPW)
    for f in ("pr_auc", "auroc", "ece"):
        rescan = run("SELECT %s_w(y, s4, %s) FROM year;" % (f, IPW)) - start
        merged = run("SELECT %s(st) FROM daily_w;" % f) - start
        say("  %-7s %7.1f / %6.1f M Ir: %5.1fx" % (f, rescan / 1e6, merged / 1e6, rescan / merged))
        table.append(["`%s_w(y, s4, w)` / `%s(st)`, weighted states" % (f, f), "%.1f M" % (rescan / 1e6),
                      "%.1f M" % (merged / 1e6), "%.1f×" % (rescan / merged), ""])
    if md:
        mlbench.markdown("states-365", ["rows / states", "rescan, Ir", "365 states, Ir", "speed-up (goal ≥ 20×)",
                                        "both `WHERE day BETWEEN 0 AND 364`"], table)


# issue 35: the monitoring family.  (query, what it is measured against,
# goal as a ratio to it).  g = y makes drift_report's two periods the very
# columns auroc(y, s) reads (12 % current rows); group_disparity's 100 groups
# are id % 100 (the expression's VDBE cost counts against it).
MONITORING = [("drift_report(y, s)", "auroc(y, s)", 1.5),
              ("group_disparity(y, s, id % 100, 0.5)", "auroc(y, s)", 2.0)]


def monitoring(lib, floor, src, rows, say, md=False):
    """MLEVAL_BENCH_MONITORING=1: MONITORING over the first `rows` rows of
    src (bench_db(rows)), then drift_report over year365_db's 365 daily
    states (days 0-181 against days 182-364, each period the ml_merge of its
    states) against the same report from the year's rows."""
    run = callgrind(lib, floor, src)
    start = run("SELECT 1;")
    say("monitoring: instructions (callgrind), %d rows of %s" % (rows, src))
    ir, table = {}, []
    for expr in ["floor2(y, s)", "auroc(y, s)"] + [q for q, _, _ in MONITORING]:
        n = run("SELECT %s FROM preds;" % expr)
        if n is None:
            say("  %-40s  failed (not in this build?)" % expr)
            continue
        ir[expr] = n - start
        say("  %-40s %8.1f Ir/row  %5.2fx floor2" % (expr, ir[expr] / rows, ir[expr] / ir["floor2(y, s)"]))
    for expr, base, goal in MONITORING:
        if expr in ir and base in ir:
            r = ir[expr] / ir[base]
            say("  %s / %s: %.2fx  goal <= %.1fx: %s" % (expr, base, r, goal, "met" if r <= goal else "not met"))
            table.append(["`%s` / `%s`, %d rows" % (expr, base, rows), "%.1f M" % (ir[expr] / 1e6),
                          "%.1f M" % (ir[base] / 1e6), "**%.2f×**" % r,
                          "≤ %.1f×: %s" % (goal, "met" if r <= goal else "**not met**")])
    mleval_lib[0] = lib
    db = year365_db(src, rows)
    run = callgrind(lib, floor, db)
    start = run("SELECT 1;")
    rescan = run("SELECT drift_report(day >= 182, s4) FROM year;")
    states = run("SELECT drift_report(r.st, c.st) FROM (SELECT ml_merge(st) AS st FROM daily WHERE day < 182) r, "
                 "(SELECT ml_merge(st) AS st FROM daily WHERE day >= 182) c;")
    if rescan is None or states is None:
        say("  drift_report over the 365 daily states: failed")
    else:
        rescan, states = rescan - start, states - start
        r = rescan / states
        say("  drift_report, days 0-181 against 182-364: rows %.1f M Ir, 365 states %.1f M Ir: %.1fx  goal >= 20x: %s" % (
            rescan / 1e6, states / 1e6, r, "met" if r >= 20 else "not met"))
        table.append(["`drift_report(st_ref, st_cur)`, each period the `ml_merge` of its days' states (365 in "
                      "all) / `drift_report(day >= 182, s4)` over the year's %d rows" % rows, "%.1f M" % (states / 1e6),
                      "%.1f M" % (rescan / 1e6), "%.3f× (**%.1f× faster**)" % (1 / r, r),
                      "≥ 20× faster: %s" % ("met" if r >= 20 else "**not met**")])
    if md:
        mlbench.markdown("monitoring", ["query / against", "Ir", "Ir against", "ratio", "goal"], table)


# RESULTS.md's instruction tables, by area (bench/results.py writes them)
CALIBRATION = ("brier(", "log_loss(", "ece(", "mce(", "net_benefit(", "decision_curve(", "calibration_summary(")


def area(expr):
    """The RESULTS.md table a query of QUERIES belongs to (None: a floor)."""
    if expr.startswith("floor") or expr.startswith("sum("):
        return None
    if expr.startswith("length(ml_state"):
        return "states-ir"
    if "_w(" in expr:
        return "weighted-ir"
    return "calibration-ir" if expr.startswith(CALIBRATION) else "ranking-ir"


def unweighted(expr):
    """The unweighted function of a twin's query: pr_auc_w(y, s, len) ->
    pr_auc(y, s) (the weight is every twin's third argument)."""
    name, args = expr.split("(", 1)
    args = args.rstrip(")").split(", ")
    return "%s(%s)" % (name[:-2], ", ".join(args[:2] + args[3:]))


def markdown_tables(ir, rows):
    """Print the instruction tables of RESULTS.md from ir (query -> Ir)."""
    fl = {2: ir["floor2(y, s)"], 3: ir["floor3(y, s, len)"]}
    floors = "Floors: `floor2(y, s)` %.1f Ir/row, `floor3(y, s, len)` %.1f, `sum(s)` %.1f; a table of %d rows." % (
        fl[2] / rows, fl[3] / rows, ir.get("sum(s)", 0) / rows, rows)
    per = {}
    for expr, nf, goal in QUERIES:
        a = area(expr)
        if a is None or expr not in ir:
            continue
        cells = ["`%s`" % expr, "%.1f" % (ir[expr] / rows), "%.2f× floor%d" % (ir[expr] / fl[nf], nf)]
        if a == "weighted-ir":
            base = unweighted(expr)
            cells.append("%.2f× `%s`" % (ir[expr] / ir[base], base) if base in ir else "")
        elif a == "states-ir":
            pass
        else:
            cells.append("" if goal is None else "≤ %.2f×: %s" % (goal, "met" if ir[expr] / fl[nf] <= goal else "**not met**"))
        per.setdefault(a, []).append(cells)
    heads = {"ranking-ir": ["query", "Ir/row", "× floor", "goal"],
             "calibration-ir": ["query", "Ir/row", "× floor", "goal"],
             "weighted-ir": ["twin (weight `len`)", "Ir/row", "× floor", "× its unweighted function (goal ≤ 1.15×)"],
             "states-ir": ["query", "Ir/row", "× floor"]}
    for a in ("ranking-ir", "calibration-ir", "weighted-ir", "states-ir"):
        if a in per:
            mlbench.markdown(a, heads[a], per[a], floors)


# issue 38: the weighted twins on real-valued weights (w uniform in [0.5, 2],
# scores of 6 decimals: a tie group's weight sum rounds), against floor3 of
# the same three columns
REALW = [("floor3(y, s, w)", None), ("pr_auc_w(y, s, w)", 1.35), ("auroc_w(y, s, w)", None),
         ("nap_w(y, s, w)", None), ("youden_j_w(y, s, w)", None), ("ks_w(y, s, w)", None),
         ("brier_w(y, p, w)", None), ("log_loss_w(y, p, w)", None), ("ece_w(y, p, w, 10)", None),
         ("operating_point_w(y, s, w, 'specificity', 0.95)", None), ("calibration_summary_w(y, p, w)", None)]


def realw(lib, floor, rows, only):
    """MLEVAL_BENCH_REALW=1: REALW over predsw of `rows` rows, Ir/row and ratio to floor3."""
    db = mlbench.bench_db_w(rows)
    run = callgrind(lib, floor, db)
    start = run("SELECT 1;")
    print("real-valued weights: instructions per row (callgrind), %d rows of %s" % (rows, db))
    fl = None
    for expr, goal in REALW:
        if only and not any(o in expr for o in only.split("|")) and not expr.startswith("floor"):
            continue
        n = run("SELECT %s FROM predsw;" % expr)
        if n is None:
            print("  %-48s  skipped (not in this build)" % expr)
            continue
        n -= start
        fl = fl or n
        verdict = "" if goal is None else "  goal <= %.2fx: %s" % (goal, "met" if n / fl <= goal else "not met")
        print("  %-48s %8.1f Ir/row  %5.2fx floor3%s" % (expr, n / rows, n / fl, verdict))
        sys.stdout.flush()


def main():
    a = mlbench.parse_args(__doc__)
    if os.environ.get("MLEVAL_BENCH_REALW"):
        realw(os.path.abspath(a.lib), os.path.abspath(a.floor), a.rows, os.environ.get("MLEVAL_BENCH_ONLY"))
        return
    say = mlbench.console(a)
    rows = min(a.rows, 1_000_000)
    only = os.environ.get("MLEVAL_BENCH_ONLY")   # a substring: run the matching queries (and the floors)
    lib, floor = os.path.abspath(a.lib), os.path.abspath(a.floor)
    if os.environ.get("MLEVAL_BENCH_MONITORING"):
        monitoring(lib, floor, mlbench.bench_db(rows), rows, say, a.markdown)
        return
    if os.environ.get("MLEVAL_BENCH_STATES"):
        states365(lib, floor, mlbench.bench_db(rows), rows, say, a.markdown)
        return
    # A table of exactly `rows` rows, scanned whole: a WHERE on the rowid
    # costs ~100 Ir a row in the VDBE (the floor rises from 633 to 739
    # Ir/row), which would add to every query and understate each ratio.
    db = mlbench.bench_db(rows)
    say("instructions per row (callgrind), %d rows of %s" % (rows, db))
    ir = {}
    run = callgrind(lib, floor, db)
    start = run("SELECT 1;")            # start-up and loading, subtracted
    for expr, nf, goal in QUERIES:
        if only and not any(o in expr for o in only.split("|")) and not expr.startswith("floor"):
            continue
        n = run("SELECT %s FROM preds;" % expr)
        if n is not None:
            n -= start
        if n is None:
            say("  %-44s  skipped (not in this build)" % expr)
            continue
        ir[expr] = n
        fl = ir.get("floor2(y, s)" if nf == 2 else "floor3(y, s, len)")
        verdict = "" if goal is None else "  goal <= %.2fx: %s" % (goal, "met" if n / fl <= goal else "not met")
        say("  %-44s %8.1f Ir/row  %5.2fx floor%d%s" % (expr, n / rows, n / fl, nf, verdict))
    if a.markdown:
        markdown_tables(ir, rows)


if __name__ == "__main__":
    main()
