# SPDX-License-Identifier: MIT
"""mleval-report --drift-ref (issue 35): the Drift section.

  1. --by PERIOD --drift-ref R: the reference is the period R (a value of
     --by as the report shows it) or the periods LO..HI (inclusive, in
     SQLite's order, a bound that is a number compared as one); every other
     period, in ascending order, gets per score and --prob column the
     drift_report of the reference's rows against its rows (rows with a
     label and the column set): the JSON's drift_report is the row query's
     text exactly (states = rows), and its PSI, KS and Wasserstein agree
     with numpy (SPEC's PSI rule) and scipy (ks_2samp, wasserstein_distance);
     a period without rows of a column has none (null, "no rows").
  2. The page: a collapsed <details id="drift"> after Operating points and
     before SVD cost, one table row per column and period with PSI flagged
     "moderate" from 0.1 and "major" from 0.25, and the PSI plot (valid SVG
     with the 0.1 and 0.25 lines); no section and no "drift" key without
     --drift-ref.
  3. Errors: --drift-ref without --by or with --weight is exit 2; a value
     that is no period, a range holding none, a range without an end, and a
     reference holding every period are exit 1, each message naming the
     option and the value.
  4. A --by of more than 24 periods reports (the per-group plots say they
     are not drawn: a plot draws at most 24 series) instead of failing.
"""
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import xml.dom.minidom

import numpy as np
from scipy import stats

import mltest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("MLEVAL_REPORT") or os.path.join(HERE, "..", "tools", "mleval-report")
ck = mltest.Checker("report_drift")


def run(args):
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    return subprocess.run([REPORT] + args, capture_output=True, text=True, env=env)


def make_db(path, periods, seed):
    """day 0..periods-1, mon '2026-01'..; s drifts upwards from day 5, s2
    does not; p = sigmoid(s); a few NULL labels and NULL scores; scores on a
    0.01 grid so that ties are many."""
    rnd = random.Random(seed)
    rows = []
    for day in range(periods):
        for i in range(rnd.randint(40, 90)):
            y = 1 if rnd.random() < 0.3 else 0
            shift = 0.15 * max(0, day - 4)
            s = round(y * 1.2 + rnd.gauss(0, 1) + shift, 2)
            s2 = round(y * 0.8 + rnd.gauss(0, 1), 2)
            p = round(1 / (1 + np.exp(-s)), 3)
            if rnd.random() < 0.03:
                y = None
            if rnd.random() < 0.03:
                s = None
            if day == 6:
                s2 = None                                      # a period without rows of s2
            rows.append((day, "2026-%02d" % (day + 1), y, s, s2, p, rnd.randint(1, 3)))
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE preds(day INT, mon TEXT, y INT, s REAL, s2 REAL, p REAL, w INT)")
    con.executemany("INSERT INTO preds VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return rows


def psi_ref(x0, x1, bins=10):
    """SPEC's PSI: edges at the reference's quantiles 1/B..(B-1)/B (numpy
    linear), duplicates removed, bins (-inf, e1], ..., (e_last, inf), a zero
    share counted as 1e-4."""
    edges = np.unique(np.quantile(np.asarray(x0, float), [k / bins for k in range(1, bins)]))
    i0 = np.searchsorted(edges, x0, side="left")
    i1 = np.searchsorted(edges, x1, side="left")
    r = np.bincount(i0, minlength=len(edges) + 1) / len(x0)
    c = np.bincount(i1, minlength=len(edges) + 1) / len(x1)
    r = np.where(r == 0, 1e-4, r)
    c = np.where(c == 0, 1e-4, c)
    return float(np.sum((c - r) * np.log(c / r)))


def close(a, b, tol=1e-12):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(b))


def check_numbers(ref, got, by, ref_periods, cols, what):
    dr = got.get("drift")
    ck.true(dr is not None, what + ": a drift key")
    if not dr:
        return
    ck.equal(dr["reference"], ref_periods, what + ": the reference periods")
    periods = [g["name"] for g in got["groups"] if g["name"] not in ref_periods and g["name"] != "NULL"]
    ck.equal(sorted(dr["columns"]), sorted(cols), what + ": one entry per score and --prob column")
    n_psi = n_exact = 0
    for col in cols:
        entries = dr["columns"].get(col, [])
        ck.equal([e["period"] for e in entries], periods, what + ": %s's periods in ascending order" % col)
        marks = ",".join("?" * len(ref_periods))
        for e in entries:
            want = ref.execute(
                "SELECT drift_report(CAST(%s AS TEXT) NOT IN (%s), %s) FROM preds"
                " WHERE (CAST(%s AS TEXT) IN (%s) OR CAST(%s AS TEXT) = ?) AND y IS NOT NULL AND %s IS NOT NULL"
                % (by, marks, col, by, marks, by, col), ref_periods + ref_periods + [e["period"]]).fetchone()[0]
            if want is None:
                ck.equal((col, e["period"], e["rows"], e["drift_report"]),
                         ("s2", "6" if by == "day" else "2026-07", 0, None),
                         what + ": a period without rows of the column has no drift_report")
                continue
            ck.equal(e["drift_report"], json.loads(want), what + ": %s %s is drift_report of the rows" % (col, e["period"]))
            x0 = [r[0] for r in ref.execute("SELECT %s FROM preds WHERE CAST(%s AS TEXT) IN (%s) AND y IS NOT NULL"
                                            " AND %s IS NOT NULL" % (col, by, marks, col), ref_periods)]
            x1 = [r[0] for r in ref.execute("SELECT %s FROM preds WHERE CAST(%s AS TEXT) = ? AND y IS NOT NULL"
                                            " AND %s IS NOT NULL" % (col, by, col), [e["period"]])]
            d = e["drift_report"]
            ck.equal(e["rows"], len(x1), what + ": %s %s rows" % (col, e["period"]))
            ck.true(close(d["psi"], psi_ref(x0, x1), 1e-10),
                    what + ": %s %s PSI %r vs numpy %r" % (col, e["period"], d["psi"], psi_ref(x0, x1)))
            ks = stats.ks_2samp(x0, x1, method="auto")
            ck.true(close(d["ks"], ks.statistic) and close(d["ks_p_value"], ks.pvalue, 1e-9),
                    what + ": %s %s KS %r %r vs scipy %r %r" % (col, e["period"], d["ks"], d["ks_p_value"],
                                                                 ks.statistic, ks.pvalue))
            ck.true(close(d["wasserstein"], stats.wasserstein_distance(x0, x1)),
                    what + ": %s %s Wasserstein vs scipy" % (col, e["period"]))
            n_psi += 1
            n_exact += d["ks_method"] == "exact"
    ck.true(n_psi > 0 and n_exact > 0, what + ": compared %d periods (%d exact KS)" % (n_psi, n_exact))


def check_page(page, got, cols, what):
    ids = re.findall(r'<details id="([a-z]+)"', page)
    ck.true("drift" in ids and ids.index("drift") == ids.index("operating") + 1,
            what + ": Drift follows Operating points: %r" % ids)
    ck.true('<details id="drift">' in page, what + ": Drift is collapsed")
    i = page.index('<details id="drift">')
    body = page[i:page.index("</details>", i)]
    rows = [t for t in re.findall(r"<tr>(.*?)</tr>", body, re.S) if "<td" in t]
    entries = [(c, e) for c in cols for e in got["drift"]["columns"][c]]
    ck.equal(len(rows), len(entries), what + ": a table row per column and period")
    for tr, (col, e) in zip(rows, entries):
        cells = re.findall(r"<td([^>]*)>(.*?)</td>", tr, re.S)
        if e["drift_report"] is None:
            ck.equal([c[1] for c in cells], [col, e["period"], "0", "no rows in the reference or the period"],
                     what + ": the row of %s %s says it has no rows" % (col, e["period"]))
            continue
        psi = e["drift_report"]["psi"]
        mark = " (major)" if psi >= 0.25 else " (moderate)" if psi >= 0.1 else ""
        ck.equal((cells[0][1], cells[1][1], cells[3][1]), (col, e["period"], "%.3f%s" % (psi, mark)),
                 what + ": the row of %s %s" % (col, e["period"]))
        ck.equal("worse" in cells[3][0], psi >= 0.1, what + ": PSI >= 0.1 flagged (%s %s)" % (col, e["period"]))
    svg = re.findall(r"<svg.*?</svg>", body, re.S)
    ck.equal(len(svg), 1, what + ": one PSI plot")
    if svg:
        xml.dom.minidom.parseString(svg[0])
        ck.true("PSI 0.1: moderate shift" in svg[0] and "PSI 0.25: major shift" in svg[0],
                what + ": the plot has the 0.1 and 0.25 lines")


def drift_body(page):
    i = page.index('<details id="drift">')
    return page[i:page.index("</details>", i)]


def check_period_axis(tmp):
    """Issue 46 item 5: the PSI plot's x axis is the compared periods' labels
    (their values as text, in order: 2026-04, or 5 for a day), not
    "day (position)" with ticks 2.0, 2.5; its width grows with the number of
    periods, and the page lets a wide one scroll instead of shrinking it."""
    widths = {}
    for n, by, ref, want in ((10, "day", "0..2", [str(d) for d in range(3, 10)]),
                             (10, "mon", "2026-01..2026-03", ["2026-%02d" % m for m in range(4, 11)]),
                             (40, "mon", "2026-01..2026-03", ["2026-%02d" % m for m in range(4, 41)])):
        db = os.path.join(tmp, "axis%d.db" % n)
        if not os.path.exists(db):
            make_db(db, n, 46)
        out = os.path.join(tmp, "axis.html")
        r = run([db, "preds", "--label", "y", "--score", "s", "--score", "s2", "--by", by, "--drift-ref", ref,
                 "--reps", "0", "-o", out])
        ck.equal((r.returncode, r.stderr), (0, ""), "axis %s x %d: the report runs" % (by, n))
        if r.returncode:
            continue
        body = drift_body(open(out, encoding="utf-8").read())
        svg = re.findall(r"<svg.*?</svg>", body, re.S)
        if not svg:
            ck.true(False, "axis %s x %d: a PSI plot" % (by, n))
            continue
        ticks = re.findall(r'<g class="xtick">.*?<text[^>]*>([^<]*)</text>', svg[0], re.S)
        ck.equal(ticks, want, "axis %s x %d: the x axis is the periods' labels" % (by, n))
        ck.true("(position)" not in svg[0], "axis %s x %d: no position axis" % (by, n))
        ck.true(re.search(r'class="xlabel"[^>]*>%s<' % by, svg[0]) is not None, "axis %s: named %s" % (by, by))
        ck.true('<figure class="wide"><svg' in body, "axis: the PSI plot keeps its width and scrolls")
        widths[(by, n)] = float(re.search(r'<svg[^>]* width="([0-9.]+)"', svg[0]).group(1))
    if len(widths) == 3:
        ck.true(widths[("mon", 40)] > widths[("mon", 10)] + 1000,
                "the plot grows with the periods: %r" % widths)


def main():
    if not os.path.exists(REPORT):
        print("SKIP: %s is not built" % REPORT)
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="mleval-report-drift")
    db = os.path.join(tmp, "preds.db")
    make_db(db, 10, 35)
    ref = mltest.connect()
    ref.execute("ATTACH ? AS d", (db,))
    ref.execute("CREATE TEMP VIEW preds AS SELECT * FROM d.preds")
    out, js = os.path.join(tmp, "r.html"), os.path.join(tmp, "r.json")
    base = [db, "preds", "--label", "y", "--score", "s", "--score", "s2", "--prob", "p", "--reps", "0",
            "-o", out, "--json", js]
    cases = [(["--by", "day", "--drift-ref", "0..2"], "day", ["0", "1", "2"], "range of numbers"),
             (["--by", "day", "--drift-ref", "0.5..2"], "day", ["1", "2"], "range with a real bound"),
             (["--by", "mon", "--drift-ref", "2026-04"], "mon", ["2026-04"], "one text value"),
             (["--by", "mon", "--drift-ref", "2026-01..2026-03"], "mon", ["2026-01", "2026-02", "2026-03"],
              "range of text"),
             (["--by", "day", "--drift-ref", "3"], "day", ["3"], "one number, periods before it too")]
    for extra, by, want_ref, what in cases:
        r = run(base + extra)
        ck.equal((r.returncode, r.stderr), (0, ""), what + ": the report runs")
        if r.returncode:
            continue
        got = json.load(open(js))
        page = open(out, encoding="utf-8").read()
        check_numbers(ref, got, by, want_ref, ["s", "s2", "p"], what)
        check_page(page, got, ["s", "s2", "p"], what)
        ck.equal(got["drift"]["drift_ref"], extra[3], what + ": drift_ref as given")
    # the drifting score drifts, the other does not (the data)
    got = json.load(open(js)) if os.path.exists(js) else None
    r = run(base + ["--by", "day", "--drift-ref", "0..2"])
    if r.returncode == 0:
        got = json.load(open(js))
        last = {c: got["drift"]["columns"][c][-1]["drift_report"]["psi"] for c in ("s", "s2")}
        ck.true(last["s"] > 0.25 and last["s2"] < last["s"], "the data: s drifts by day 9, s2 less: %r" % last)
    # --prob that is one of the scores: one entry
    r = run([db, "preds", "--label", "y", "--score", "p", "--prob", "p", "--by", "day", "--drift-ref", "0",
             "--reps", "0", "-o", out, "--json", js])
    ck.equal(r.returncode, 0, "--prob = --score: runs")
    if r.returncode == 0:
        ck.equal(sorted(json.load(open(js))["drift"]["columns"]), ["p"], "--prob = --score: one column")
    # without --drift-ref: no section, no key
    r = run(base + ["--by", "day"])
    if r.returncode == 0:
        ck.true('id="drift"' not in open(out, encoding="utf-8").read(), "no --drift-ref: no Drift section")
        ck.true("drift" not in json.load(open(js)), "no --drift-ref: no drift key")
    # errors
    short = [db, "preds", "--label", "y", "--score", "s", "-o", out]
    errors = [
        (["--drift-ref", "0"], 2, "mleval-report: --drift-ref needs --by, the period column whose values it names\n"
                                  "Try 'mleval-report --help'.\n"),
        (["--by", "day", "--drift-ref", "0", "--weight", "w"], 2,
         "mleval-report: --drift-ref cannot be used with --weight: drift_report has no weighted twin "
         "(the KS p-value needs counts)\nTry 'mleval-report --help'.\n"),
        (["--by", "day", "--drift-ref", "42"], 1,
         "mleval-report: --drift-ref 42: no period of --by day is 42 (its periods: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)\n"),
        (["--by", "mon", "--drift-ref", "2027-01..2027-12"], 1,
         "mleval-report: --drift-ref 2027-01..2027-12: no period of --by mon lies in 2027-01..2027-12 (its periods: "
         "2026-01, 2026-02, 2026-03, 2026-04, 2026-05, 2026-06, 2026-07, 2026-08, 2026-09, 2026-10)\n"),
        (["--by", "day", "--drift-ref", "3.."], 1, "mleval-report: --drift-ref 3..: a range needs both ends, as LO..HI\n"),
        (["--by", "day", "--drift-ref", "0..9"], 1,
         "mleval-report: --drift-ref 0..9: every period of --by day is in the reference; there is no period to "
         "compare with it\n"),
        (["--by", "day", "--drift-ref", ""], 2, "mleval-report: --drift-ref needs a value of --by or a range LO..HI, "
                                                 "got ''\nTry 'mleval-report --help'.\n"),
        (["--by", "day", "--drift-ref"], 2, "mleval-report: option --drift-ref needs a value\n"
                                             "Try 'mleval-report --help'.\n"),
    ]
    for extra, code, msg in errors:
        r = run(short + extra)
        ck.equal((r.returncode, r.stderr), (code, msg), "error: %s" % " ".join(extra))
    # names that need escaping: the table, --by, a score and the periods
    hdb = os.path.join(tmp, "hostile.db")
    con = sqlite3.connect(hdb)
    con.execute('CREATE TABLE "t<&>" ("p\'""d<b>" TEXT, y INT, "s&<x>" REAL)')
    rnd = random.Random(5)
    con.executemany('INSERT INTO "t<&>" VALUES (?, ?, ?)',
                    [(per, int(rnd.random() < 0.3), rnd.gauss(k, 1)) for k, per in enumerate(["a<1>", "b&2", 'c"3'])
                     for i in range(40)])
    con.commit()
    con.close()
    r = run([hdb, "t<&>", "--label", "y", "--score", "s&<x>", "--by", "p'\"d<b>", "--drift-ref", "a<1>", "--reps", "0",
             "-o", out, "--json", js])
    ck.equal((r.returncode, r.stderr), (0, ""), "odd names: the report runs")
    if r.returncode == 0:
        page = open(out, encoding="utf-8").read()
        xml.dom.minidom.parseString(page[page.index("<html"):])
        got = json.load(open(js))
        ck.equal([e["period"] for e in got["drift"]["columns"]["s&<x>"]], ["b&2", 'c"3'], "odd names: the periods")
        ck.true("<td>s&amp;&lt;x&gt;</td><td>c&quot;3</td>" in page, "odd names: escaped in the drift table")
    # more than 24 periods: the report runs; the per-group plots are not drawn, the drift plot is
    db30 = os.path.join(tmp, "p30.db")
    make_db(db30, 30, 36)
    r = run([db30, "preds", "--label", "y", "--score", "s", "--prob", "p", "--by", "day", "--drift-ref", "0..4",
             "--reps", "0", "-o", out, "--json", js])
    ck.equal((r.returncode, r.stderr), (0, ""), "30 periods: the report runs")
    if r.returncode == 0:
        page = open(out, encoding="utf-8").read()
        ck.true(page.count("more than 24 lines: not drawn") >= 3,
                "30 periods: ROC, PR and reliability say they are not drawn")
        i = page.index('<details id="drift">')
        ck.equal(len(re.findall(r"<svg", page[i:page.index("</details>", i)])), 1, "30 periods: the PSI plot is drawn")
        ck.equal(len(json.load(open(js))["drift"]["columns"]["s"]), 25, "30 periods: 25 compared")
    check_period_axis(tmp)
    ck.finish()


if __name__ == "__main__":
    main()
