# SPDX-License-Identifier: MIT
"""mleval-report's Survival section (issue 49): --time COL --event COL
--horizon T.

1. Every number of the section's JSON ("survival") is the SQL function's
   own text over the same rows: c_index_ci, uno_c, surv_auroc_ci (--reps
   replicates, seed 0) per --score and --prob column; surv_summary,
   surv_brier_ci, surv_calibration (--bins), surv_decision_curve for --prob;
   c_index_diff of the first two scores; with --weight their twins.  The
   data: docs/survival.md's gbsg example (tests/data/gbsg2_valid.csv).
2. The page has the section, with one Kaplan-Meier picture per column.
3. Without --time the report has no "survival" key and no section.
4. Errors naming the option: --horizon without --time/--event and the
   reverse (exit 2), a negative time, a horizon after every follow-up, a
   value the functions refuse (exit 1).
"""
import csv
import json
import os
import sqlite3
import subprocess
import tempfile

import mltest

if not hasattr(mltest, "covers"):       # a tree before mltest.covers (issue 45): the marks only
    mltest.covers = lambda *names: (lambda fn: fn)

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("MLEVAL_REPORT") or os.path.join(HERE, "..", "tools", "mleval-report")


def run(args):
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    return subprocess.run([REPORT] + args, capture_output=True, text=True, env=env)


def make_db(path, tweak=None):
    with open(os.path.join(HERE, "data", "gbsg2_valid.csv")) as f:
        rows = list(csv.DictReader(f))
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE gbsg(pid INTEGER, time REAL, event INTEGER, y INTEGER, risk_full REAL, p5_full REAL,"
                " risk_small REAL, w REAL)")
    data = []
    for i, r in enumerate(rows):
        t, e = float(r["time"]), int(r["event"])
        data.append((int(r["pid"]), t, e, int(e == 1 and t <= 5), float(r["risk_full"]), float(r["p5_full"]),
                     float(r["risk_small"]), 0.5 + (i % 4) * 0.5))
    if tweak:
        data = tweak(data)
    con.executemany("INSERT INTO gbsg VALUES (?, ?, ?, ?, ?, ?, ?, ?)", data)
    con.commit()
    con.close()


BASE = ["--label", "y", "--score", "risk_full", "--score", "risk_small", "--prob", "p5_full"]
SURV = ["--time", "time", "--event", "event", "--horizon", "5"]


@mltest.covers("surv_auroc_ci", "surv_brier_ci", "surv_calibration", "surv_decision_curve", "c_index_diff")
def check_numbers(ck, d, weighted):
    db = os.path.join(d, "g.db")
    out = os.path.join(d, "w.json" if weighted else "u.json")
    extra = ["--weight", "w"] if weighted else []
    p = run([db, "gbsg"] + BASE + SURV + extra + ["--reps", "50", "--bins", "5", "-o", out + ".html", "--json", out])
    ck.equal(p.returncode, 0, "report with --time (weighted %s): %s" % (weighted, p.stderr[-300:]))
    if p.returncode:
        return
    s = json.load(open(out))["survival"]
    con = mltest.connect()
    con.execute("ATTACH ? AS g", (db,))
    tw = "_w" if weighted else ""
    wa = ", w" if weighted else ""
    one = lambda sql: con.execute(sql + " FROM g.gbsg").fetchone()[0]
    ck.equal((s["time"], s["event"], s["horizon"], s["weighted"], s["rows"], s["bootstrap"]),
             ("time", "event", 5, weighted, 686, True), "the section's head")
    ck.equal([c["column"] for c in s["columns"]], ["risk_full", "risk_small", "p5_full"], "one entry per column")
    for c in s["columns"]:
        col = c["column"]
        what = "%s (weighted %s)" % (col, weighted)
        ck.equal(c["c_index_ci"], json.loads(one("SELECT c_index_ci%s(time, event, %s%s)" % (tw, col, wa))),
                 "c_index_ci " + what)
        ck.equal(c["uno_c"], one("SELECT uno_c%s(time, event, %s%s)" % (tw, col, wa)), "uno_c " + what)
        ck.equal(c["surv_auroc_ci"], json.loads(one("SELECT surv_auroc_ci%s(time, event, %s%s, 5, 0.95, 50, 0)"
                                                      % (tw, col, wa))), "surv_auroc_ci " + what)
    pr = s["prob"]
    ck.equal(pr["column"], "p5_full", "the --prob entry")
    for key, call in (("surv_summary", "surv_summary%s(time, event, p5_full%s, 5)"),
                      ("surv_brier_ci", "surv_brier_ci%s(time, event, p5_full%s, 5, 0.95, 50, 0)"),
                      ("surv_calibration", "surv_calibration%s(time, event, p5_full%s, 5, 5)"),
                      ("surv_decision_curve", "surv_decision_curve%s(time, event, p5_full%s, 5)")):
        ck.equal(pr[key], json.loads(one("SELECT " + call % (tw, wa))), "%s (weighted %s)" % (key, weighted))
    diff = s["c_index_diff"]
    ck.equal((diff["a"], diff["b"]), ("risk_full", "risk_small"), "c_index_diff's pair")
    ck.equal(diff["result"], json.loads(one("SELECT c_index_diff%s(time, event, risk_full, risk_small%s)" % (tw, wa))),
             "c_index_diff (weighted %s)" % weighted)
    html = open(out + ".html", encoding="utf-8").read()
    sec = html[html.index('<details id="survival">'):]
    sec = sec[:sec.index("</details>")]
    ck.equal(sec.count("<title>Kaplan-Meier by tertile of"), 3, "a Kaplan-Meier picture per column")
    if not weighted:
        # the tertiles: numpy's linear quantiles of the column at 1/3 and 2/3, ties together
        import numpy as np
        for c in s["columns"]:
            col = c["column"]
            v = np.array([x for (x,) in con.execute("SELECT %s FROM g.gbsg WHERE time IS NOT NULL AND event IS NOT NULL"
                                                    % col)])
            q1, q2 = np.quantile(v, 1 / 3), np.quantile(v, 2 / 3)
            svg = con.execute("SELECT plot_km(n, c, 'Kaplan-Meier by tertile of %s') FROM ("
                              "SELECT 1 AS o, 'tertile 1' AS n, km(time, event) AS c FROM g.gbsg WHERE %s <= ?1"
                              " UNION ALL SELECT 2, 'tertile 2', km(time, event) FROM g.gbsg WHERE %s > ?1 AND %s <= ?2"
                              " UNION ALL SELECT 3, 'tertile 3', km(time, event) FROM g.gbsg WHERE %s > ?2 ORDER BY o)"
                              % (col, col, col, col, col), (float(q1), float(q2))).fetchone()[0]
            ck.true(svg[svg.index("<svg"):] in sec, "the KM picture of %s is plot_km of km() by its tertiles" % col)
    ck.true("Decision curve at t = 5" in sec and "Calibration at t = 5" in sec, "the --prob pictures")
    summ = html[html.index("<p class=\"survival\">"):]
    summ = summ[:summ.index("</p>")]
    for c in s["columns"]:
        want = "<code>%s</code> C %.3f, AUC(t) %.3f" % (c["column"], c["c_index_ci"]["estimate"], c["surv_auroc_ci"]["estimate"])
        ck.true(want in summ, "the summary's survival line shows %r: %r" % (want, summ))


def check_no_boot(ck, d):
    """Over more than --boot-rows rows the point values alone (as the PR-AUC's delta rule)."""
    db = os.path.join(d, "g.db")
    out = os.path.join(d, "b.json")
    p = run([db, "gbsg"] + BASE + SURV + ["--boot-rows", "100", "-o", out + ".html", "--json", out])
    ck.equal(p.returncode, 0, "report with --boot-rows 100")
    s = json.load(open(out))["survival"]
    ck.equal((s["rows"], s["bootstrap"]), (686, False), "686 rows, no bootstrap")
    con = mltest.connect()
    con.execute("ATTACH ? AS g", (db,))
    for c in s["columns"]:
        ck.true("surv_auroc_ci" not in c, "no interval over more than --boot-rows rows")
        ck.equal(c["surv_auroc"], con.execute("SELECT surv_auroc(time, event, %s, 5) FROM g.gbsg" % c["column"]).fetchone()[0],
                 "surv_auroc of " + c["column"])
    ck.equal(s["prob"]["surv_brier_ci"], None, "no Brier interval over more than --boot-rows rows")


def check_absent(ck, d):
    db = os.path.join(d, "g.db")
    out = os.path.join(d, "n.json")
    p = run([db, "gbsg"] + BASE + ["--reps", "0", "-o", out + ".html", "--json", out])
    ck.equal(p.returncode, 0, "report without --time")
    ck.true("survival" not in json.load(open(out)), "no survival key without --time")
    ck.true('<details id="survival">' not in open(out + ".html").read(), "no section without --time")


def check_errors(ck, d):
    db = os.path.join(d, "g.db")
    o = ["-o", os.path.join(d, "e.html")]
    cases = [
        ([db, "gbsg"] + BASE + ["--horizon", "5"] + o, 2,
         "mleval-report: --horizon needs --time and --event (the follow-up time and event columns)"),
        ([db, "gbsg"] + BASE + ["--time", "time", "--event", "event"] + o, 2,
         "mleval-report: --time needs --horizon (the time t at which the Survival section evaluates)"),
        ([db, "gbsg"] + BASE + ["--time", "time", "--horizon", "5"] + o, 2, "mleval-report: --time and --event go together"),
        ([db, "gbsg"] + BASE + SURV[:-1] + ["0"] + o, 2, "mleval-report: --horizon must be a positive finite number, got '0'"),
        ([db, "gbsg"] + BASE + SURV[:-1] + ["100"] + o, 1,
         "mleval-report: --horizon 100 is after every follow-up: the last --time time is 7.27995"),
        ([db, "gbsg"] + BASE + ["--time", "tim", "--event", "event", "--horizon", "5"] + o, 1,
         "mleval-report: --time tim: no such column in gbsg"),
    ]
    for args, code, msg in cases:
        p = run(args)
        ck.equal(p.returncode, code, "exit status of: %s" % msg)
        ck.true(p.stderr.startswith(msg), "message %r, want %r" % (p.stderr[:200], msg))
    neg = os.path.join(d, "neg.db")
    make_db(neg, lambda rows: [(r[0], -1.0 if i == 3 else r[1]) + r[2:] for i, r in enumerate(rows)])
    p = run([neg, "gbsg"] + BASE + SURV + o)
    ck.equal((p.returncode, p.stderr.strip()), (1, "mleval-report: --time time: follow-up times must be >= 0, got -1"),
             "a negative time")
    bad = os.path.join(d, "bad.db")
    make_db(bad, lambda rows: [r[:2] + (2 if i == 5 else r[2],) + r[3:] for i, r in enumerate(rows)])
    p = run([bad, "gbsg", "--label", "y", "--score", "risk_full"] + SURV + ["--reps", "0"] + o)
    ck.equal(p.returncode, 1, "an event of 2: exit 1")
    ck.true("--time time, --event event: " in p.stderr and "event must be 0 or 1, got 2" in p.stderr,
            "an event of 2 names the options and the value: %r" % p.stderr[:300])


def main():
    ck = mltest.Checker("report survival")
    with tempfile.TemporaryDirectory() as d:
        make_db(os.path.join(d, "g.db"))
        check_numbers(ck, d, False)
        check_numbers(ck, d, True)
        check_no_boot(ck, d)
        check_absent(ck, d)
        check_errors(ck, d)
    ck.finish()


if __name__ == "__main__":
    main()
