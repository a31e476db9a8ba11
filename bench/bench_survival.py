# SPDX-License-Identifier: MIT
"""bench_survival.py: the cost of the survival family's part 1 (issue 47),
against its floor and against R.

    /usr/bin/python3 bench/bench_survival.py [--lib L] [--floor F] [--ir-rows N]
        [--rows N] [--repeat R] [--score-limit S] [--no-r] [--markdown]

The functions are taken from the records (mleval_functions(), family
"survival"), less part 2's (issue 49, bench_survival2.py) and the plot; each
is called in its rows form with its required arguments (km and km_w also
with t: Kaplan-Meier at t and the whole curve as JSON).  For each:
  Ir a row     valgrind --tool=callgrind of the sqlite3 shell over --ir-rows
               rows of a database file (start-up and loading subtracted), and
               the same for the floor (bench/floor.c's no-op aggregate of as
               many arguments: floor3(time, event, risk) for c_index(time,
               event, risk), floorn for five), and their ratio;
  CPU          this process's CPU seconds (median of --repeat) at 10^5 and
               --rows rows, the table in memory (SQLite's scan included);
  bytes a row  SQLite's own count (sqlite3_status64 MEMORY_USED high-water
               above the start) at --rows rows.
The peers (--no-r: none), R's CPU time inside R (proc.time, user + system,
the CSV read not counted; mleval's time includes its table scan):
survival::concordance(reverse = TRUE) against c_index, and
riskRegression::Score(list(p), Hist(time, event) ~ 1, times = 10, metrics =
c("auc", "brier"), cens.model = "km", conf.int = FALSE, null.model = FALSE)
against surv_auroc + surv_brier, at 10^5 and --rows rows; Score at --rows is
stopped after --score-limit seconds of wall time (the table then says so).
Each peer's value is checked against mleval's (1e-9 relative).

The data (numpy seed 47): x ~ N(0, 1), event time ~ Exp(0.1 exp(x)),
censoring ~ U(0, 30), time rounded to 0.1 (ties: about 300 distinct times,
half the rows censored), risk = x + N(0, 0.5) rounded to 1e-4, p = 1 -
exp(-0.1 exp(risk) 10) (the risk at t = 10), w uniform in [0.5, 2] (3
decimals).  surv_ibs's long rows: N/4 subjects at the horizons 2.5, 5, 7.5,
10 (N rows), p at each horizon the same model's.  --markdown prints
bench/RESULTS.md's tables survival-ir and survival-peers.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402
from bench_instr import callgrind  # noqa: E402

T = 10.0
HORIZONS = (2.5, 5.0, 7.5, 10.0)
# issue 49's functions (bench_survival2.py) and the plot are not part 1's
PART2 = ("surv_calibration", "surv_net_benefit", "surv_decision_curve", "surv_auroc_ci", "surv_brier_ci",
         "c_index_diff", "plot_km")
# issue 47's goals, as a ratio to the floor in instructions at 10^6 rows
GOALS = {"c_index": 2.0, "uno_c": 2.0, "surv_auroc": 2.0, "surv_brier": 2.0, "km": 1.5}
FLOOR = {2: "floor2", 3: "floor3", 4: "floor4"}
COLUMN = {"time": "time", "event": "event", "risk": "risk", "p": "p", "w": "w", "t": "10", "horizon": "horizon"}


def queries(con):
    """[(name, expr, floor expr, table)] from the records: each part-1
    survival function in its rows form with its required arguments."""
    out = []
    for rec in json.loads(con.execute("SELECT mleval_functions()").fetchone()[0]):
        name = rec["name"]
        if rec["family"] != "survival" or name.replace("_w", "") in PART2 or name in PART2:
            continue
        rows = [f["signature"] for f in rec["forms"] if f.get("form", "rows") == "rows"] or [rec["signature"]]
        sig = rows[0]
        req = [a.strip() for a in sig.split("[")[0].split(",") if a.strip()]
        forms = [req] + ([req + ["t"]] if name in ("km", "km_w") else [])
        for args in forms:
            cols = [COLUMN[a] for a in args]
            expr = "%s(%s)" % (name, ", ".join(cols))
            if name.startswith("ml_state_surv"):
                expr = "length(%s)" % expr
            fl = "%s(%s)" % (FLOOR.get(len(cols), "floorn"), ", ".join(cols))
            out.append((name, expr, fl, "long" if "horizon" in args else "c"))
    return out


def cohort(rng, n):
    x = rng.normal(0, 1, n)
    et = rng.exponential(1.0 / (0.1 * np.exp(x)))
    ct = rng.uniform(0, 30, n)
    time_ = np.round(np.minimum(et, ct), 1)
    event = (et <= ct).astype(int)
    risk = np.round(x + rng.normal(0, 0.5, n), 4)
    p = 1 - np.exp(-0.1 * np.exp(risk) * T)
    w = np.round(0.5 + 1.5 * rng.uniform(0, 1, n), 3)
    return time_, event, risk, p, w


def load(con, rng, n):
    """Tables c(time, event, risk, p, w) of n rows and long(time, event,
    horizon, p, w) of n rows (n/4 subjects x 4 horizons); returns c's columns."""
    cols = cohort(rng, n)
    con.execute("DROP TABLE IF EXISTS c")
    con.execute("CREATE TABLE c(time REAL, event INT, risk REAL, p REAL, w REAL)")
    con.executemany("INSERT INTO c VALUES (?, ?, ?, ?, ?)", zip(*[a.tolist() for a in cols]))
    k = n // len(HORIZONS)
    tt, ee, rr, _, ww = (a[:k] for a in cols)
    con.execute("DROP TABLE IF EXISTS long")
    con.execute("CREATE TABLE long(time REAL, event INT, horizon REAL, p REAL, w REAL)")
    for h in HORIZONS:
        ph = 1 - np.exp(-0.1 * np.exp(rr) * h)
        con.executemany("INSERT INTO long VALUES (?, ?, ?, ?, ?)",
                        zip(tt.tolist(), ee.tolist(), [h] * k, ph.tolist(), ww.tolist()))
    con.commit()
    return cols




R_CODE = r"""
suppressMessages({library(survival); library(riskRegression)})
a <- commandArgs(TRUE); d <- read.csv(a[1]); what <- a[2]
cpu <- function(t) unname(t[1] + t[2])
if (what == "concordance") {
  t0 <- proc.time(); v <- concordance(Surv(time, event) ~ risk, data = d, reverse = TRUE)$concordance
  t1 <- proc.time() - t0; cat(sprintf("%.17g %.4f %.4f\n", v, cpu(t1), t1[3]))
} else {
  t0 <- proc.time()
  s <- Score(list(m = d$p), Hist(time, event) ~ 1, data = d, times = 10, metrics = c("auc", "brier"),
             cens.model = "km", conf.int = FALSE, null.model = FALSE)
  t1 <- proc.time() - t0
  cat(sprintf("%.17g %.17g %.4f %.4f\n", as.data.frame(s$AUC$score)$AUC[1], as.data.frame(s$Brier$score)$Brier[1],
              cpu(t1), t1[3]))
}
"""


def r_peer(csv, what, limit):
    """(values, CPU s, wall s) of R's peer on csv, or None after limit s of wall."""
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as f:
        f.write(R_CODE)
    try:
        out = subprocess.run(["/usr/bin/Rscript", f.name, csv, what], capture_output=True, text=True,
                             timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    finally:
        os.remove(f.name)
    if out.returncode != 0:
        raise RuntimeError("R %s failed: %s" % (what, out.stderr[-2000:]))
    v = [float(x) for x in out.stdout.split()]
    return v[:-2], v[-2], v[-1]


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="ext/.libs/mleval")
    ap.add_argument("--floor", default="bench/.libs/floor")
    ap.add_argument("--ir-rows", type=int, default=200_000)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--small-rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--score-limit", type=float, default=180.0)
    ap.add_argument("--no-r", action="store_true")
    mlbench.add_markdown(ap)
    a = ap.parse_args()
    say = mlbench.console(a)
    lib, floor = os.path.abspath(a.lib), os.path.abspath(a.floor)
    rng = np.random.default_rng(47)
    tmp = tempfile.mkdtemp(prefix="bench_survival.")
    small = a.small_rows

    # instructions: a database file for the sqlite3 shell under callgrind
    dbf = os.path.join(tmp, "ir.db")
    con = mlbench.connect(lib, dbf)
    load(con, rng, a.ir_rows)
    qs = queries(con)
    con.close()
    say("survival part 1: %d functions/forms; callgrind over %d rows of %s" % (len(qs), a.ir_rows, dbf))
    run = callgrind(lib, floor, dbf)
    start = run("SELECT 1;")
    floors = {}
    res = {}
    for name, expr, fl, table in qs:
        if (fl, table) not in floors:
            floors[fl, table] = run("SELECT %s FROM %s;" % (fl, table)) - start
        ir = run("SELECT %s FROM %s;" % (expr, table))
        if ir is None:
            raise SystemExit("bench_survival.py: %s failed under the sqlite3 shell" % expr)
        ir -= start
        res[expr] = {"ir": ir / a.ir_rows, "floor": floors[fl, table] / a.ir_rows, "fl": fl}
        say("  %-44s %8.1f Ir/row  %-36s %7.1f  %.2fx" % (expr, ir / a.ir_rows, fl, floors[fl, table] / a.ir_rows,
                                                          ir / floors[fl, table]))

    # CPU at 10^5 and --rows, memory at --rows; the cohorts kept for R
    csvs = {}
    ours = {}
    for n in (small, a.rows):
        con = mlbench.connect(lib, ":memory:")
        cols = load(con, rng, n)
        csv = os.path.join(tmp, "c%d.csv" % n)
        with open(csv, "w") as f:
            f.write("time,event,risk,p\n")
            for r in zip(*[c.tolist() for c in cols[:4]]):
                f.write("%r,%d,%r,%r\n" % r)
        csvs[n] = csv
        for name, expr, fl, table in qs:
            sql = "SELECT %s FROM %s" % (expr, table)
            _, cpu = mlbench.wall_cpu(lambda: con.execute(sql).fetchall(), a.repeat)
            res[expr]["cpu%d" % n] = cpu
            if n == a.rows:
                res[expr]["mem"] = mlbench.peak_bytes(con, sql) / n
            say("  %-44s n=%-8d cpu %.4f s%s" % (expr, n, cpu, "  %.2f bytes/row" % res[expr]["mem"]
                                                  if n == a.rows else ""))
        ours[n] = con.execute("SELECT c_index(time, event, risk), surv_auroc(time, event, risk, 10), "
                              "surv_brier(time, event, p, 10) FROM c").fetchone()
        con.close()

    peers = []
    if not a.no_r:
        for n in (small, a.rows):
            r = r_peer(csvs[n], "concordance", 600)
            if not close(r[0][0], ours[n][0]):
                raise SystemExit("concordance %r != c_index %r at %d rows" % (r[0][0], ours[n][0], n))
            c = res["c_index(time, event, risk)"]["cpu%d" % n]
            say("  survival::concordance n=%d: cpu %.3f s (wall %.3f s); c_index %.4f s" % (n, r[1], r[2], c))
            peers.append(["`survival::concordance(reverse = TRUE)` (Harrell)", "%d" % n, "%.3f s" % r[1],
                          "`c_index` %.4f s" % c, "%.0f×" % (r[1] / c)])
            lim = a.score_limit if n == a.rows else 600
            r = r_peer(csvs[n], "score", lim)
            c = (res["surv_auroc(time, event, risk, 10)"]["cpu%d" % n]
                 + res["surv_brier(time, event, p, 10)"]["cpu%d" % n])
            if r is None:
                say("  riskRegression::Score n=%d: stopped after %.0f s of wall time" % (n, lim))
                peers.append(["`riskRegression::Score` (AUC(10) and Brier(10))", "%d" % n,
                              "not finished: stopped after %.0f s (wall)" % lim,
                              "`surv_auroc` + `surv_brier` %.4f s" % c, "> %.0f× (wall against CPU)" % (lim / c)])
                continue
            if not (close(r[0][0], ours[n][1]) and close(r[0][1], ours[n][2])):
                raise SystemExit("Score %r != surv_auroc, surv_brier %r at %d rows" % (r[0], ours[n][1:], n))
            say("  riskRegression::Score n=%d: cpu %.3f s (wall %.3f s); surv_auroc + surv_brier %.4f s"
                % (n, r[1], r[2], c))
            peers.append(["`riskRegression::Score` (AUC(10) and Brier(10))", "%d" % n, "%.3f s" % r[1],
                          "`surv_auroc` + `surv_brier` %.4f s" % c, "%.0f×" % (r[1] / c)])
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)

    if a.markdown:
        rows = []
        for name, expr, fl, table in qs:
            r = res[expr]
            base = name[:-2] if name.endswith("_w") else name
            goal = GOALS.get(base)
            ratio = r["ir"] / r["floor"]
            rows.append(["`%s`%s" % (expr, " (long rows)" if table == "long" else ""), "%.0f" % r["ir"],
                         "`%s` %.0f" % (fl, r["floor"]), "**%.2f×**" % ratio if goal and not name.endswith("_w")
                         else "%.2f×" % ratio,
                         ("≤ %.1f× (%s)" % (goal, "met" if ratio <= goal else "not met")) if goal and name == base
                         else "none stated", "%.4f s" % r["cpu%d" % small], "%.3f s" % r["cpu%d" % a.rows],
                         "%.1f" % r["mem"]])
        mlbench.markdown("survival-ir", ["query", "Ir a row (%d rows)" % a.ir_rows, "floor, Ir a row", "× floor",
                                         "goal (issue 47)", "CPU, %d rows" % small, "CPU, %d rows" % a.rows,
                                         "bytes a row, high-water (%d rows)" % a.rows], rows)
        if peers:
            mlbench.markdown("survival-peers", ["peer (CPU inside R, the CSV read not counted)", "rows",
                                                "peer's CPU", "mleval's CPU (its scan included)", "peer / mleval"],
                             peers)


if __name__ == "__main__":
    main()
