# SPDX-License-Identifier: MIT
"""mleval-report's summary and p-values say what the numbers mean (issue 37,
report items 4 and 5).

  1. The open summary's probability table holds, per row, calibration-in-the-
     large (citl), the calibration slope and O/E from calibration_summary(y,
     p) next to Brier and log loss, in the page and in --json's
     summary.probability; a row whose Brier is worse than the no-skill
     model's (prevalence * (1 - prevalence)) is flagged "worse than no skill"
     (class "worse"; JSON "worse_than_no_skill": true), a better one is not.
  2. p-values: a bootstrap p-value of 0 (pr_auc_diff_ci, and its Holm
     adjustment) is shown as "< 1/reps" (< 0.001 with 1000 replicates,
     < 0.005 with 200), any other p-value below 0.001 as "< 0.001"
     (DeLong's, Spiegelhalter's), never "0" or "0.000"; the JSON keeps the
     exact values (0 stays 0).
  3. ICI and calibration_smooth (without its curve) are calibration_smooth(y,
     p)'s over the rows, per group and over all rows, though the report
     computes them from its states; the Calibration section's reliability
     diagram is plot_reliability(series, reliability(y, p, 10), title,
     calibration_smooth(y, p)) over the rows, byte for byte: each series with
     its smoothed curve (class "smooth"), and a caption says what the thin
     line is.
"""
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile

import mltest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("MLEVAL_REPORT") or os.path.join(HERE, "..", "tools", "mleval-report")
ck = mltest.Checker("report_summary")


def run(args):
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    return subprocess.run([REPORT] + args, capture_output=True, text=True, env=env)


def make_db(path):
    """src good: p is the true probability; src bad: p is its mirror image
    (Brier worse than no skill, Spiegelhalter p ~ 0); score a ranks far better
    than score b (bootstrap p of the PR-AUC difference 0)."""
    rnd = random.Random(37)
    rows = []
    for src in ("good", "bad"):
        for i in range(400):
            t = rnd.random()
            y = 1 if rnd.random() < t * t else 0
            p = t * t if src == "good" else 1 - t * t
            a = t + rnd.gauss(0, 0.05)
            b = rnd.random()
            rows.append((src, y, a, b, p))
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE preds(src TEXT, y INT, a REAL, b REAL, p REAL)")
    con.executemany("INSERT INTO preds VALUES (?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()


def tables(page, start):
    """The tables (each a list of rows of cell texts and classes) of the
    block that opens with start."""
    i = page.index(start)
    j = page.index("</section>" if start.startswith("<section") else "</details>", i)
    out = []
    for t in re.findall(r"<table.*?</table>", page[i:j], re.S):
        rows = []
        for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", t, re.S):
            rows.append(re.findall(r"<t[dh]([^>]*)>(.*?)</t[dh]>", tr, re.S))
        out.append(rows)
    return out


def f3(x):
    return "%.3f" % x


def check_summary(ref, page, got):
    t = tables(page, '<section id="summary">')
    ck.equal(len(t), 2, "summary: two tables (scores, probability)")
    if len(t) < 2:
        return
    head = [c[1] for c in t[1][0]]
    ck.equal(head[-4:], ["O/E", "CITL [95 % CI]", "slope [95 % CI]", "ICI"],
             "summary: the probability table ends with O/E, CITL, slope (with intervals), ICI")
    prob = got["summary"]["probability"]
    for src in ("good", "bad"):
        cs = json.loads(ref.execute("SELECT calibration_summary(y, p) FROM preds WHERE src = ?", (src,)).fetchone()[0])
        sm = json.loads(ref.execute("SELECT calibration_smooth(y, p) FROM preds WHERE src = ?", (src,)).fetchone()[0])
        g = prob["groups"][src]
        ck.equal((g.get("oe_ratio"), g.get("citl"), g.get("slope")), (cs["oe_ratio"], cs["citl"], cs["slope"]),
                 "summary JSON: %s's O/E, CITL, slope are calibration_summary's" % src)
        ck.equal(tuple(g.get(k) for k in ("citl_lo", "citl_hi", "slope_lo", "slope_hi")),
                 tuple(cs[k] for k in ("citl_lo", "citl_hi", "slope_lo", "slope_hi")),
                 "summary JSON: %s's CITL and slope intervals are calibration_summary's" % src)
        ck.equal(g.get("ici"), sm["ici"], "summary JSON: %s's ICI is calibration_smooth's" % src)
        del sm["curve"]
        ck.equal(g.get("calibration_smooth"), sm, "summary JSON: %s's calibration_smooth without its curve" % src)
        worse = g["brier"] > g["no_skill_brier"]
        ck.equal(worse, src == "bad", "the data: only bad is worse than no skill")
        ck.equal(g.get("worse_than_no_skill"), worse, "summary JSON: %s worse_than_no_skill" % src)
        row = [r for r in t[1][1:] if len(r) > 1 and r[1][1] == src]
        ck.equal(len(row), 1, "summary: a probability row for %s" % src)
        if not row:
            continue
        cells = row[0]

        def ci3(e, lo, hi):
            return '%s <span class="ci">[%s, %s]</span>' % (f3(e), f3(lo), f3(hi))
        ck.equal([c[1] for c in cells[-4:]], [f3(cs["oe_ratio"]), ci3(cs["citl"], cs["citl_lo"], cs["citl_hi"]),
                                              ci3(cs["slope"], cs["slope_lo"], cs["slope_hi"]), f3(sm["ici"])],
                 "summary page: %s's O/E, CITL [CI], slope [CI], ICI" % src)
        brier_attr, brier_text = cells[3]
        ck.equal(("worse" in brier_attr, "worse than no skill" in brier_text, "&#9888;" in brier_text),
                 (worse, worse, worse),
                 "summary page: %s's Brier is flagged (marker and text) exactly when worse than no skill: %r"
                 % (src, cells[3]))
        ck.equal(g.get("no_better_than_no_skill"), g["brier"] >= g["no_skill_brier"],
                 "summary JSON: %s no_better_than_no_skill is Brier >= no-skill Brier" % src)
    cs = json.loads(ref.execute("SELECT calibration_summary(y, p) FROM preds").fetchone()[0])
    ck.equal((prob["all"].get("oe_ratio"), prob["all"].get("citl"), prob["all"].get("slope")),
             (cs["oe_ratio"], cs["citl"], cs["slope"]), "summary JSON: all rows' O/E, CITL, slope")
    sm = json.loads(ref.execute("SELECT calibration_smooth(y, p) FROM preds").fetchone()[0])
    ck.equal(prob["all"].get("ici"), sm["ici"], "summary JSON: all rows' ICI is calibration_smooth's")
    del sm["curve"]
    ck.equal(prob["all"].get("calibration_smooth"), sm, "summary JSON: all rows' calibration_smooth without its curve")


def check_overlay(ref, page):
    """The reliability diagram is the SQL call over the rows, with each
    series' smoothed curve; the caption names the thin line."""
    want = ref.execute("SELECT plot_reliability(s, r, 'Reliability: p', sm) FROM (SELECT 'src ' || src AS s,"
                       " reliability(y, p, 10) AS r, calibration_smooth(y, p) AS sm FROM preds GROUP BY src"
                       " ORDER BY src)").fetchone()[0]
    i = page.index('<details id="calibration">')
    body = page[i:page.index("</details>", i)]
    svgs = re.findall(r"<svg.*?</svg>", body, re.S)
    ck.true(len(svgs) >= 1, "calibration: a reliability diagram")
    if not svgs:
        return
    want = want[want.index("<svg"):].rstrip("\n")
    ck.true(svgs[0] == want, "calibration: the reliability diagram is plot_reliability(..., calibration_smooth(y, p))"
            " over the rows (%d vs %d bytes)" % (len(svgs[0]), len(want)))
    ck.equal(len(re.findall(r'<polyline class="smooth"', svgs[0])), 2,
             "calibration: one smoothed curve per series (good, bad)")
    ck.true("thin: smoothed (lowess)" in svgs[0], "calibration: the legend names the thin line")
    ck.true(re.search(r"<p>Thick line: [^<]*<code>reliability\(y, p, 10\)</code>\)\. Thin line: the smoothed "
                      r"calibration curve, the lowess of y on p \(<code>calibration_smooth\(y, p\)</code>", body)
            is not None, "calibration: the caption says what the thin line is")


def check_p_values(page, got, reps):
    bound = "&lt; %s" % ("%g" % (1.0 / reps))
    cmp_rows = [r for r in tables(page, '<details id="compare">')[0][1:]]
    ck.true(len(cmp_rows) >= 1, "compare: rows")
    for row, js in zip(cmp_rows, got["compare"]):
        cells = [c[1] for c in row]
        pr = js["pr_auc_diff_ci"]
        what = "compare %s: " % js["group"]
        ck.equal(pr["p_value"], 0, what + "the bootstrap p-value is 0 in JSON (exact)")
        ck.equal(js["pr_auc_p_holm"], 0, what + "its Holm adjustment is 0 in JSON (exact)")
        ck.equal(cells[8], bound, what + "a bootstrap p of 0 shows as < 1/reps")
        ck.true(cells[9].startswith("&lt; "), what + "its Holm p shows as a bound: %r" % cells[9])
        au_p = js["auroc_diff"]["p_value"]
        ck.true(au_p < 0.001, what + "the data: DeLong's p < 0.001")
        ck.equal((cells[5], cells[6]), ("&lt; 0.001", "&lt; 0.001"), what + "DeLong's tiny p shows as < 0.001")
        ck.true(not any(c in ("0", "0.000") for c in cells), what + "no p-value shows as 0: %r" % cells)
    cal = tables(page, '<details id="calibration">')[0]
    bad = [r for r in cal[1:] if r[1][1] == "bad"][0]
    ck.equal(bad[7][1], "&lt; 0.001", "calibration: Spiegelhalter's tiny p shows as < 0.001")


def check_no_negative_zero(tmp):
    """Issue 46 item 8: a CITL of -0.0002 (rounds to zero) prints 0.000,
    never -0.000, in the summary and everywhere on the page; the JSON keeps
    the exact value.  The probabilities are shifted on the logit scale so
    that calibration-in-the-large is -0.0002 by construction (the intercept
    of logit P(y) = a + logit p moves by exactly the shift)."""
    import math
    rnd = random.Random(46)
    rows = []
    for i in range(600):
        t = min(0.95, max(0.05, rnd.random()))
        rows.append((i % 2, 1 if rnd.random() < t else 0, t + rnd.gauss(0, 0.1), t))
    con = mltest.connect()
    con.execute("CREATE TABLE t(g INT, y INT, s REAL, p REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
    a = json.loads(con.execute("SELECT calibration_summary(y, p) FROM t").fetchone()[0])["citl"]
    c = a + 0.0002
    rows = [(g, y, s, 1 / (1 + math.exp(-(math.log(p / (1 - p)) + c)))) for g, y, s, p in rows]
    db = os.path.join(tmp, "negzero.db")
    dc = sqlite3.connect(db)
    dc.execute("CREATE TABLE preds(g INT, y INT, s REAL, p REAL)")
    dc.executemany("INSERT INTO preds VALUES (?, ?, ?, ?)", rows)
    dc.commit()
    dc.close()
    out, js = os.path.join(tmp, "negzero.html"), os.path.join(tmp, "negzero.json")
    r = run([db, "preds", "--label", "y", "--score", "s", "--prob", "p", "--reps", "0", "-o", out, "--json", js])
    ck.equal((r.returncode, r.stderr), (0, ""), "negative zero: the report runs")
    if r.returncode:
        return
    got = json.load(open(js))
    citl = got["summary"]["probability"]["all"]["citl"]
    ck.true(-0.0005 < citl < 0, "negative zero: the CITL is a tiny negative number (%r)" % citl)
    page = open(out, encoding="utf-8").read()
    ck.equal(re.findall(r"(?:-|\u2212|&#8722;)0\.000\b", page), [], "no -0.000 on the page")
    i = page.index('<section id="summary">')
    summary = page[i:page.index("</section>", i)]
    ck.true(re.search(r'<td>0\.000 <span class="ci">\[-0\.\d\d\d, 0\.\d\d\d\]</span></td>', summary) is not None,
            "the summary's CITL prints 0.000 with its interval")


def main():
    if not os.path.exists(REPORT):
        print("SKIP: %s is not built" % REPORT)
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="mleval-report-summary")
    db = os.path.join(tmp, "preds.db")
    make_db(db)
    ref = mltest.connect()
    ref.execute("ATTACH ? AS d", (db,))
    ref.execute("CREATE TEMP VIEW preds AS SELECT * FROM d.preds")
    for reps in (1000, 200):
        out = os.path.join(tmp, "r%d.html" % reps)
        js = os.path.join(tmp, "r%d.json" % reps)
        r = run([db, "preds", "--label", "y", "--score", "a", "--score", "b", "--prob", "p", "--by", "src",
                 "--reps", str(reps), "-o", out, "--json", js])
        ck.equal((r.returncode, r.stderr), (0, ""), "the report runs (--reps %d)" % reps)
        if r.returncode:
            continue
        page = open(out, encoding="utf-8").read()
        got = json.load(open(js))
        if reps == 1000:
            check_summary(ref, page, got)
            check_overlay(ref, page)
        check_p_values(page, got, reps)
    check_no_negative_zero(tmp)
    ck.finish()


if __name__ == "__main__":
    main()
