# SPDX-License-Identifier: MIT
"""mleval-report end to end: on a SQLite database and on the same rows as a
CSV file, with --by and several --score.

  - the HTML has the sections AUROC, PR curves, Calibration (and SVD cost with
    --svd) in that order, each a <details> without "open"; no script, no
    external reference; every inline SVG is valid XML;
  - --json's numbers are exactly what the SQL functions return (auroc,
    pr_auc, ece, pr_curve, roc_curve, reliability per score and group), for
    the database and for the CSV (imported with typed numeric columns);
  - a group with one positive says "not enough positives" and has no curve;
    a score with AUROC < 0.5 is marked inverted;
  - without --prob there is no calibration (no ECE, no diagram) and the
    section says why;
  - the summary's numbers are auroc_ci's, pr_auc_ci's and mean_ci's, overall
    and per group; the comparison's are auroc_diff's and pr_auc_diff_ci's,
    with Holm's adjustment equal to a Python reference of sql/p_adjust.sql;
    the operating points are operating_point's; with --prob the summary has
    brier and log_loss;
  - a group of 500 rows or more is drawn at <= 501 points that lie on its
    exact ROC curve, from (0, 0) to (1, 1), whose area is its AUROC;
  - the output is deterministic; --help, bad arguments (exit 2) and a
    missing table, column or file (exit 1) give the documented messages.
"""
import csv
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np

import mltest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("MLEVAL_REPORT") or os.path.join(HERE, "..", "tools", "mleval-report")
ck = mltest.Checker("report")


def run(args, env_lib=True):
    env = dict(os.environ)
    if env_lib:
        env["MLEVAL_LIB"] = mltest.LIB
    return subprocess.run([REPORT] + args, capture_output=True, text=True, env=env)


class Sections(HTMLParser):
    def __init__(self):
        super().__init__()
        self.details = []       # (id, attrs)
        self.summaries = []
        self.in_summary = False
        self.scripts = 0
        self.refs = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "details":
            self.details.append((a.get("id"), a))
        if tag == "summary":
            self.in_summary = True
            self.summaries.append("")
        if tag == "script":
            self.scripts += 1
        for k, v in attrs:
            if k in ("src", "href") or (k == "xlink:href"):
                self.refs.append((tag, k, v))

    def handle_endtag(self, tag):
        if tag == "summary":
            self.in_summary = False

    def handle_data(self, data):
        if self.in_summary:
            self.summaries[-1] += data


def check_html(html, want_sections, what):
    p = Sections()
    p.feed(html)
    ck.equal([s.strip() for s in p.summaries], want_sections, what + ": sections in order")
    ck.equal([d[0] for d in p.details], [{"AUROC": "auroc", "PR curves": "pr", "Calibration": "calibration",
                                          "Compare models": "compare", "Operating points": "operating",
                                          "SVD cost": "svd"}[s] for s in want_sections], what + ": section ids")
    ck.true(html.find('<section id="summary">') != -1 and html.find('<section id="summary">') < html.find("<details"),
            what + ": the summary comes first, outside any collapsed section")
    ck.true(all("open" not in d[1] for d in p.details), what + ": every section collapsed by default")
    ck.equal(p.scripts, 0, what + ": no script")
    ck.equal(p.refs, [], what + ": no external reference")
    svgs = re.findall(r"<svg.*?</svg>", html, flags=re.S)
    for s in svgs:
        ET.fromstring(s)        # raises on invalid XML
    ck.true(len(svgs) > 0, what + ": has SVG plots")
    ck.true("http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html,
            what + ": no network address")
    return svgs


def make_data(rng):
    rows = []
    for fold in range(1, 5):
        n = 300 if fold != 4 else 40
        y = (rng.random(n) < 0.2).astype(int)
        if fold == 4:                      # one positive only
            y[:] = 0
            y[3] = 1
        s1 = np.round(rng.normal(size=n) + 1.5 * y, 2)      # ties
        s2 = -s1 + rng.normal(size=n) * 0.1                  # inverted
        p = 1 / (1 + np.exp(-s1))
        for i in range(n):
            rows.append((fold, int(y[i]), float(s1[i]), float(s2[i]), float(p[i]), "src%d" % (i % 3)))
    rows.append((1, None, 0.5, 0.5, 0.5, "src0"))             # NULL label: skipped
    rows.append((2, 1, None, 0.3, None, "src1"))              # NULL score: skipped for s1
    return rows


def sql_numbers(con, table, by, scores, prob, bins):
    out = {"auroc": {}, "pr_auc": {}, "ece": {}, "curves": {}, "reliability": {}}
    g = by if by else "'all'"
    for s in scores:
        out["auroc"][s] = {}
        out["pr_auc"][s] = {}
        out["curves"][s] = {"roc_curve": {}, "pr_curve": {}}
        for grp, a, ap, roc, pr, npos, nneg in con.execute(
                "SELECT CAST(%s AS TEXT), auroc(y, %s), pr_auc(y, %s), roc_curve(y, %s), pr_curve(y, %s),"
                " sum(y = 1), sum(y = 0) FROM %s WHERE y IS NOT NULL AND %s IS NOT NULL GROUP BY 1"
                % (g, s, s, s, s, table, s)):
            few = npos < 2 or nneg < 2
            out["auroc"][s][grp] = None if few else a
            out["pr_auc"][s][grp] = None if few else ap
            out["curves"][s]["roc_curve"][grp] = None if few else json.loads(roc)
            out["curves"][s]["pr_curve"][grp] = None if few else json.loads(pr)
    if prob:
        out["ece"][prob] = {}
        out["reliability"][prob] = {}
        for grp, e, r in con.execute("SELECT CAST(%s AS TEXT), ece(y, %s, %d), reliability(y, %s, %d) FROM %s"
                                     " WHERE y IS NOT NULL AND %s IS NOT NULL GROUP BY 1"
                                     % (g, prob, bins, prob, bins, table, prob)):
            out["ece"][prob][grp] = e
            out["reliability"][prob][grp] = json.loads(r)
    return out


def compare(got, want, what):
    for key in ("auroc", "pr_auc", "ece"):
        for s, per in want[key].items():
            for grp, v in per.items():
                ck.equal(got[key][s][grp], v, "%s: %s[%s][%s]" % (what, key, s, grp))
    for s, per in want["curves"].items():
        for kind in ("roc_curve", "pr_curve"):
            for grp, v in per[kind].items():
                ck.equal(got["curves"][s][kind][grp], v, "%s: %s %s %s" % (what, kind, s, grp))
    for s, per in want["reliability"].items():
        for grp, v in per.items():
            ck.equal(got["reliability"][s][grp], v, "%s: reliability %s %s" % (what, s, grp))


def sql_json(con, sql, *args):
    v = con.execute(sql, args).fetchone()[0]
    return None if v is None else json.loads(v)


def fmt_ci(est, ci):
    return "%.3f <span class=\"ci\">[%.3f, %.3f]</span>" % (est, ci["lo"], ci["hi"])


def check_summary(ref, got, html):
    """The summary: overall and per fold, auroc_ci and pr_auc_ci (1000
    replicates, seed 0) as SQL gives them, mean_ci over the folds that have
    a value, Brier and log loss of p; the HTML shows them to 3 decimals."""
    summ = got["summary"]
    for s in ("s1", "s2"):
        base = "FROM preds WHERE y IS NOT NULL AND %s IS NOT NULL" % s
        want_all = (sql_json(ref, "SELECT auroc_ci(y, %s) %s" % (s, base)),
                    sql_json(ref, "SELECT pr_auc_ci(y, %s, 0.95, 1000, 0) %s" % (s, base)))
        ck.equal((summ["scores"][s]["all"]["auroc_ci"], summ["scores"][s]["all"]["pr_auc_ci"]), want_all,
                 "summary: %s over all rows is auroc_ci's and pr_auc_ci's" % s)
        ck.true(fmt_ci(want_all[0]["estimate"], want_all[0]) in html and
                fmt_ci(want_all[1]["estimate"], want_all[1]) in html, "summary HTML shows %s's intervals" % s)
        per = {}
        for fold in ("1", "2", "3"):
            a = sql_json(ref, "SELECT auroc_ci(y, %s) %s AND fold = ?" % (s, base), int(fold))
            p = sql_json(ref, "SELECT pr_auc_ci(y, %s, 0.95, 1000, 0) %s AND fold = ?" % (s, base), int(fold))
            ck.equal((summ["scores"][s]["groups"][fold]["auroc_ci"], summ["scores"][s]["groups"][fold]["pr_auc_ci"]),
                     (a, p), "summary: %s fold %s" % (s, fold))
            per[fold] = (a["estimate"], p["estimate"])
        ck.equal(summ["scores"][s]["groups"]["4"]["auroc_ci"], None, "summary: fold 4 (one positive) has no interval")
        ref.execute("CREATE TEMP TABLE IF NOT EXISTS m(s TEXT, a REAL, p REAL)")
        ref.executemany("INSERT INTO m VALUES (?, ?, ?)", [(s, a, p) for a, p in per.values()])
        want = ref.execute("SELECT mean_ci(a), mean_ci(p) FROM m WHERE s = ?", (s,)).fetchone()
        ck.equal(summ["scores"][s]["mean"], {"auroc": json.loads(want[0]), "pr_auc": json.loads(want[1])},
                 "summary: %s mean over folds is mean_ci of the folds' values" % s)
    b, ll = ref.execute("SELECT brier(y, p), log_loss(y, p) FROM preds WHERE y IS NOT NULL AND p IS NOT NULL").fetchone()
    ck.equal((summ["probability"]["all"]["brier"], summ["probability"]["all"]["log_loss"]), (b, ll),
             "summary: Brier and log loss of --prob")
    pi = got["groups"][0]["positives"] / got["groups"][0]["rows"]
    ck.close(summ["probability"]["groups"]["1"]["no_skill_brier"], pi * (1 - pi), "summary: no-skill Brier")


def check_boot_rows(ref, db, tmp):
    """--boot-rows M: a group of at most M labelled rows gets the bootstrap's
    PR-AUC interval (pr_auc_ci) and paired test (pr_auc_diff_ci), a larger
    one the delta method's (pr_auc_delta_ci, pr_auc_diff_delta), marked in
    the HTML; --reps 0 gives the delta method everywhere.  Folds 1 and 3 have
    300 labelled rows, fold 2 301, fold 4 40, all rows 941."""
    for extra, small in ((["--boot-rows", "300"], {"1", "3", "4"}), (["--reps", "0"], set()),
                         (["--boot-rows", "0"], set())):
        out, js = os.path.join(tmp, "b.html"), os.path.join(tmp, "b.json")
        r = run([db, "preds", "--label", "y", "--score", "s1", "--score", "s2", "--by", "fold",
                 "-o", out, "--json", js, "--force"] + extra)
        what = " ".join(extra)
        ck.equal((r.returncode, r.stderr), (0, ""), what + ": the run succeeds")
        got = json.load(open(js))
        html = open(out).read()
        ck.equal(got["boot_rows"], int(extra[1]) if extra[0] == "--boot-rows" else 20000, what + ": --json boot_rows")
        marks = 0
        for s in ("s1", "s2"):
            base = "FROM preds WHERE y IS NOT NULL AND %s IS NOT NULL" % s
            for g, entry in [(None, got["summary"]["scores"][s]["all"])] + \
                    sorted(got["summary"]["scores"][s]["groups"].items()):
                where = base + ("" if g is None else " AND fold = %s" % g)
                boot = g in small
                f = "pr_auc_ci(y, %s, 0.95, 1000, 0)" % s if boot else "pr_auc_delta_ci(y, %s)" % s
                want = None if g == "4" else sql_json(ref, "SELECT %s %s" % (f, where))   # one positive: none
                ck.equal(entry["pr_auc_ci"], want,
                         "%s: %s %s's PR-AUC interval is %s" % (what, s, g or "all rows", f))
                if entry["pr_auc_ci"] and not boot:
                    marks += 1
        for c in got["compare"]:
            where = "y IS NOT NULL AND s1 IS NOT NULL AND s2 IS NOT NULL" + \
                ("" if c["group"] is None else " AND fold = %s" % c["group"])
            boot = c["group"] in small
            f = "pr_auc_diff_ci(y, s1, s2, 0.95, 1000, 0)" if boot else "pr_auc_diff_delta(y, s1, s2)"
            ck.equal(c["pr_auc_diff_ci"], sql_json(ref, "SELECT %s FROM preds WHERE %s" % (f, where)),
                     "%s: compare %s is %s" % (what, c["group"] or "all rows", f))
            if c["pr_auc_diff_ci"] and c["pr_auc_diff_ci"]["lo"] is not None and not boot:
                marks += 1
        ck.equal(html.count('<sup class="m" title="delta method">&#948;</sup>'), marks,
                 what + ": every delta-method interval, and only those, is marked")
    r = run([db, "preds", "--label", "y", "--score", "s1", "--boot-rows", "-1", "-o", os.path.join(tmp, "b.html")])
    ck.equal((r.returncode, r.stderr.splitlines()[0]), (2, "mleval-report: --boot-rows must be an integer in 0..2000000000, got '-1'"),
             "--boot-rows -1 is a usage error")


def check_empty_column_group(tmp):
    """A group where a score (or --prob) is NULL in every row has no entry for
    that column -- as a GROUP BY over the column's rows has none -- and
    keeps its entries for the other columns."""
    db = os.path.join(tmp, "holes.db")
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t(fold INT, y INT, a REAL, b REAL)")
    rows = [(f, i % 2, None if f == 2 else i / 10, 1 - i / 10) for f in (1, 2) for i in range(10)]
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    js = os.path.join(tmp, "holes.json")
    r = run([db, "t", "--label", "y", "--score", "a", "--score", "b", "--prob", "a", "--by", "fold",
             "-o", os.path.join(tmp, "holes.html"), "--json", js, "--force"])
    ck.equal((r.returncode, r.stderr), (0, ""), "a score NULL in a whole group: the run succeeds")
    got = json.load(open(js))
    ck.equal((sorted(got["summary"]["scores"]["a"]["groups"]), sorted(got["summary"]["scores"]["b"]["groups"]),
              sorted(got["summary"]["probability"]["groups"])), (["1"], ["1", "2"], ["1"]),
             "fold 2 has no entry for a (NULL there), one for b")


def holm_reference(ps, names):
    """sql/p_adjust.sql's Holm: rank by (p, name), running max of (m - i + 1) p."""
    items = sorted((p, n, k) for k, (p, n) in enumerate(zip(ps, names)) if p is not None)
    m = len(items)
    out = [None] * len(ps)
    run_max = 0.0
    for i, (p, n, k) in enumerate(items, 1):
        run_max = max(run_max, (m - i + 1) * p)
        out[k] = min(1.0, run_max)
    return out


def check_compare(ref, got):
    cmp_ = got["compare"]
    ck.equal([(c["a"], c["b"], c["group"]) for c in cmp_],
             [("s1", "s2", None)] + [("s1", "s2", f) for f in ("1", "2", "3", "4")], "compare: all rows, then each fold")
    for c in cmp_:
        where = "y IS NOT NULL AND s1 IS NOT NULL AND s2 IS NOT NULL" + ("" if c["group"] is None else " AND fold = %s" % c["group"])
        ck.equal(c["auroc_diff"], sql_json(ref, "SELECT auroc_diff(y, s1, s2) FROM preds WHERE " + where),
                 "compare: auroc_diff, %s" % c["group"])
        ck.equal(c["pr_auc_diff_ci"], sql_json(ref, "SELECT pr_auc_diff_ci(y, s1, s2, 0.95, 1000, 0) FROM preds WHERE " + where),
                 "compare: pr_auc_diff_ci, %s" % c["group"])
    names = ["%s vs %s: %s" % (c["a"], c["b"], c["group"] or "all rows") for c in cmp_]
    for key, field in (("auroc_diff", "auroc_p_holm"), ("pr_auc_diff_ci", "pr_auc_p_holm")):
        ps = [c[key]["p_value"] if c[key] and c[key]["p_value"] is not None else None for c in cmp_]
        want = holm_reference(ps, names)
        for c, w in zip(cmp_, want):
            ck.equal(c[field], w, "compare: Holm %s, %s" % (key, c["group"]))
    # the reference is sql/p_adjust.sql itself, run on the same p-values
    pv = sqlite3.connect(":memory:")
    pv.execute("CREATE TABLE pvals(name TEXT, p REAL)")
    pv.executemany("INSERT INTO pvals VALUES (?, ?)", [(n, c["auroc_diff"]["p_value"] if c["auroc_diff"] else None)
                                                        for n, c in zip(names, cmp_)])
    script = open(os.path.join(os.environ.get("srcdir", os.path.join(HERE, "..")), "sql", "p_adjust.sql")).read()
    pv.executescript("\n".join(l for l in script.splitlines() if not l.startswith(".")))
    sql_holm = dict(pv.execute("SELECT name, holm FROM p_adjusted"))
    ck.equal([c["auroc_p_holm"] for c in cmp_], [sql_holm.get(n) for n in names], "compare: Holm equals sql/p_adjust.sql's")
    # Holm on ties and a NULL: the Python reference against hand values
    ck.equal(holm_reference([0.01, 0.04, 0.03, None, 0.03], list("abcde")), [0.04, 0.09, 0.09, None, 0.09],
             "the Holm reference on hand values")


def check_operating(ref, got):
    pts = got["operating_points"]
    ck.equal(sorted({p["point"]["criterion"] for p in pts if p["point"]}), ["max_f1", "specificity", "youden"],
             "operating points: the default criteria")
    for p in pts:
        if p["group"] not in (None, "1"):
            continue
        crit = p["point"]["criterion"]
        args = (p["score"], crit) + ((", 0.95",) if crit == "specificity" else ("",))
        where = "y IS NOT NULL AND %s IS NOT NULL" % p["score"] + ("" if p["group"] is None else " AND fold = 1")
        ck.equal(p["point"], sql_json(ref, "SELECT operating_point(y, %s, '%s'%s) FROM preds WHERE " % args + where),
                 "operating point %s %s %s" % (p["score"], crit, p["group"]))


def check_thinning(tmp):
    """A group of 3000 rows: its curves have at most 501 points (gains'
    500 equal-mass cuts, the ROC from (0, 0)), every ROC point lies on the
    exact ROC curve, the last ones are (1, 1) and (1, prevalence), and the
    ROC's trapezoid area is the AUROC (the cuts split ties as the curve's
    diagonal does)."""
    rng = np.random.default_rng(5)
    db = os.path.join(tmp, "big.db")
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t(y INT, s REAL)")
    y = (rng.random(3000) < 0.3).astype(int)
    s = np.round(rng.normal(size=3000) + y, 2)
    con.executemany("INSERT INTO t VALUES (?, ?)", zip(y.tolist(), s.tolist()))
    con.commit()
    con.close()
    js = os.path.join(tmp, "big.json")
    r = run([db, "t", "--label", "y", "--score", "s", "--reps", "0", "-o", os.path.join(tmp, "big.html"), "--json", js])
    ck.equal((r.returncode, r.stderr), (0, ""), "3000-row run succeeds")
    got = json.load(open(js))
    roc = got["curves"]["s"]["roc_curve"]["all"]
    pr = got["curves"]["s"]["pr_curve"]["all"]
    ck.true(len(roc) <= 501 and len(pr) <= 500, "thinned: %d ROC and %d PR points" % (len(roc), len(pr)))
    ck.equal((roc[0], roc[-1]), ({"fpr": 0, "tpr": 0}, {"fpr": 1, "tpr": 1}), "thinned ROC from (0, 0) to (1, 1)")
    ck.close(pr[-1]["precision"], y.mean(), "thinned PR ends at the prevalence")
    ck.close(pr[-1]["recall"], 1.0, "thinned PR ends at recall 1")
    ref = mltest.connect()
    ref.execute("ATTACH ? AS d", (db,))
    exact = json.loads(ref.execute("SELECT roc_curve(y, s) FROM d.t").fetchone()[0])
    ex = np.array([pt["fpr"] for pt in exact])
    ey = np.array([pt["tpr"] for pt in exact])
    worst = 0.0
    for pt in roc:
        f, t = pt["fpr"], pt["tpr"]
        cand = []
        for x0, y0, x1, y1 in zip(ex[:-1], ey[:-1], ex[1:], ey[1:]):
            if x0 - 1e-12 <= f <= x1 + 1e-12:
                if x1 - x0 < 1e-15:
                    cand += [min(y0, y1), max(y0, y1)]
                else:
                    cand.append(y0 + (f - x0) * (y1 - y0) / (x1 - x0))
        off = 1.0 if not cand else max(min(cand) - t, t - max(cand), 0.0)
        worst = max(worst, off)
    ck.true(worst < 1e-9, "every thinned ROC point lies on the exact curve (off by %.2g)" % worst)
    fx = np.array([pt["fpr"] for pt in roc])
    fy = np.array([pt["tpr"] for pt in roc])
    auc = float(np.sum((fx[1:] - fx[:-1]) * (fy[1:] + fy[:-1]) / 2))
    ck.close(auc, got["auroc"]["s"]["all"], "the thinned ROC's area is the AUROC", rel=0, abs_=2e-3)


def check_comments():
    """Issue 45 item 5: the report's sources say what the code has.  The
    header comment of tools/mleval-report.c names every option --help names
    and counts neither options nor sections (a count went stale: "16
    options" of 19, "7 sections" of 8); every file a comment of the report's
    sources names exists (options.c pointed to a drift.c there never was)."""
    src = os.path.abspath(os.environ.get("srcdir", os.path.join(HERE, "..")))
    main_c = open(os.path.join(src, "tools", "mleval-report.c"), encoding="utf-8").read()
    head = re.match(r"/\*.*?\*/", main_c, re.S).group(0)
    r = run(["--help"])
    opts = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-o)(?![\w-])", r.stdout)))
    ck.true(len(opts) >= 19, "--help names the options (%d)" % len(opts))
    ck.equal([o for o in opts if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), head)], [],
             "every option --help names is in mleval-report.c's header comment")
    ck.equal(re.findall(r"(?:Options|Sections) \(\d+\)", head), [], "the header comment counts nothing")
    flat = " ".join(re.sub(r"^\s*\*\*", " ", head, flags=re.M).split())
    for sec in ("AUROC", "PR curves", "Calibration", "Compare models", "Operating points", "Drift", "SVD cost"):
        ck.true(sec in flat, "the header comment names the section %s" % sec)
    have = set()
    for root, _, files in os.walk(src):
        if "/." in root[len(src):] or "/_" in root[len(src):]:
            continue
        for f in files:
            have.add(f)
            have.add(os.path.relpath(os.path.join(root, f), src))
    missing = []
    sources = [os.path.join(src, "tools", "mleval-report.c")] + sorted(
        os.path.join(src, "tools", "report", f) for f in os.listdir(os.path.join(src, "tools", "report"))
        if f.endswith((".c", ".h")))
    for path in sources:
        for c in re.findall(r"/\*.*?\*/", open(path, encoding="utf-8").read(), re.S):
            for name in re.findall(r"(?<![\w/.-])([\w/.-]+\.(?:c|h|md|sql|py))\b", c):
                if name not in have:
                    missing.append("%s: %s" % (os.path.basename(path), name))
    ck.equal(missing, [], "every file the report's comments name exists")


def main():
    if not os.path.exists(REPORT):
        print("SKIP: %s is not built" % REPORT)
        sys.exit(77)
    check_comments()
    rng = np.random.default_rng(11)
    rows = make_data(rng)
    tmp = tempfile.mkdtemp(prefix="mleval-report-test")
    db = os.path.join(tmp, "preds.db")
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE preds(fold INT, y INT, s1 REAL, s2 REAL, p REAL, src TEXT)")
    con.executemany("INSERT INTO preds VALUES (?,?,?,?,?,?)", rows)
    con.commit()
    con.close()
    csvp = os.path.join(tmp, "preds.csv")
    with open(csvp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["fold", "y", "s1", "s2", "p", "src"])
        for r in rows:
            w.writerow(["" if v is None else (repr(v) if isinstance(v, float) else v) for v in r])
    ref = mltest.connect()
    ref.execute("ATTACH ? AS d", (db,))
    ref.execute("CREATE TEMP VIEW preds AS SELECT * FROM d.preds")

    # 1. database, --by, two scores, --prob, --json
    out = os.path.join(tmp, "r.html")
    js = os.path.join(tmp, "r.json")
    r = run([db, "preds", "--label", "y", "--score", "s1", "--score", "s2", "--prob", "p", "--by", "fold",
             "-o", out, "--json", js])
    ck.equal((r.returncode, r.stderr), (0, ""), "database run succeeds")
    html = open(out).read()
    svgs = check_html(html, ["AUROC", "PR curves", "Calibration", "Compare models", "Operating points"], "database")
    ck.equal(len(svgs), 2 + 2 + 1 + 1 + 2,
             "one ROC and one PR plot per score, a reliability diagram, a decision curve, both scores on one ROC and one PR plot")
    got = json.load(open(js))
    want = sql_numbers(ref, "preds", "fold", ["s1", "s2"], "p", 10)
    compare(got, want, "database --json")
    ck.equal(got["rows"], len(rows), "--json rows")
    ck.true("not enough positives" in html, "fold 4 (one positive) says not enough positives")
    ck.true(re.search(r"<td class=\"inverted\">0\.\d+ \(inverted\)</td>", html) is not None,
            "an AUROC below 0.5 is marked inverted")
    ck.equal(sorted({(i["score"]) for i in got["inverted"]}), ["s2"], "--json lists the inverted score")
    ck.true("mleval %s" % ref.execute("SELECT mleval_version()").fetchone()[0] in html and
            "%d rows" % len(rows) in html, "footnote: version and row count")
    for s in svgs[:2]:
        ck.true(s.count('class="curve"') == 3, "three folds drawn (the fourth has no curve)")
    r2 = run([db, "preds", "--label", "y", "--score", "s1", "--score", "s2", "--prob", "p", "--by", "fold",
              "-o", out + "2", "--json", js + "2"])
    ck.equal(open(out + "2").read(), html, "the report is deterministic")
    check_summary(ref, got, html)
    check_compare(ref, got)
    check_boot_rows(ref, db, tmp)
    check_empty_column_group(tmp)
    check_operating(ref, got)
    check_thinning(tmp)

    # 2. the same rows as CSV: the same numbers
    out = os.path.join(tmp, "c.html")
    js = os.path.join(tmp, "c.json")
    r = run([csvp, "preds", "--label", "y", "--score", "s1", "--score", "s2", "--prob", "p", "--by", "fold",
             "-o", out, "--json", js])
    ck.equal((r.returncode, r.stderr), (0, ""), "CSV run succeeds")
    check_html(open(out).read(), ["AUROC", "PR curves", "Calibration", "Compare models", "Operating points"], "CSV")
    compare(json.load(open(js)), want, "CSV --json")

    # 3. no --prob: empirical CDF per group; --by a text column; --svd
    out = os.path.join(tmp, "e.html")
    js = os.path.join(tmp, "e.json")
    r = run([db, "preds", "--label", "y", "--score", "s1", "--by", "src", "--bins", "7", "--svd",
             "--svd-dims", "12,20", "--svd-iters", "2", "-o", out, "--json", js])
    ck.equal((r.returncode, r.stderr), (0, ""), "--svd run succeeds")
    html = open(out).read()
    svgs = check_html(html, ["AUROC", "PR curves", "Calibration", "Operating points", "SVD cost"], "--svd")
    ck.true("No calibration: no <code>--prob</code> column was given" in html, "without --prob the section says why")
    ck.true("empirical CDF" not in html and "plot_reliability" not in html and 'class="reliability"' not in html,
            "no pseudo-probability calibration without --prob")
    got = json.load(open(js))
    ck.equal((got["calibration"], got["ece"], got["reliability"]), (None, {}, {}), "--json: no calibration without --prob")
    ck.equal(len(got["svd_cost"]) >= 3 and sorted({c["target"] for c in got["svd_cost"]}), ["AVWo", "QK^T", "WvWo"],
             "SVD cost has the three targets of sql/svd_targets.sql")
    ck.true('class="bar"' in svgs[-1], "SVD cost has a bar chart")

    # 4. no --by: one group 'all'
    r = run([db, "preds", "--label", "y", "--score", "s1", "-o", os.path.join(tmp, "a.html"),
             "--json", os.path.join(tmp, "a.json")])
    ck.equal(r.returncode, 0, "no --by succeeds")
    got = json.load(open(os.path.join(tmp, "a.json")))
    ck.equal([g_["name"] for g_ in got["groups"]], ["all"], "no --by: one group")
    ck.equal(got["auroc"]["s1"]["all"], ref.execute("SELECT auroc(y, s1) FROM preds").fetchone()[0], "no --by: auroc")

    # 5. errors
    r = run(["--help"])
    ck.true(r.returncode == 0 and r.stdout.startswith("usage: mleval-report DB TABLE"), "--help prints usage")
    bad = [
        ([], 2, "mleval-report: DB and TABLE are required"),
        ([db, "preds", "--score", "s1"], 2, "mleval-report: --label is required"),
        ([db, "preds", "--label", "y"], 2, "mleval-report: at least one --score is required"),
        ([db, "preds", "--label", "y", "--score", "s1", "--bins", "0"], 2,
         "mleval-report: --bins must be an integer in 1..1000, got '0'"),
        ([db, "preds", "--label", "y", "--score", "s1", "--frobnicate"], 2, "mleval-report: unknown option '--frobnicate'"),
        ([db, "preds", "--label", "y", "--score"], 2, "mleval-report: option --score needs a value"),
        ([db, "preds", "extra", "--label", "y", "--score", "s1"], 2,
         "mleval-report: unexpected argument 'extra' (DB and TABLE are already given)"),
        ([db, "preds", "--label", "y", "--score", "s1", "--score", "s1"], 2, "mleval-report: --score s1 is given twice"),
        ([db, "nope", "--label", "y", "--score", "s1"], 1, "mleval-report: no table 'nope' in %s" % db),
        ([db, "preds", "--label", "y", "--score", "zz"], 1,
         "mleval-report: --score zz: no such column in preds (its columns: fold, y, s1, s2, p, src)"),
        ([db, "preds", "--label", "y", "--score", "s1", "--by", "folds"], 1,
         "mleval-report: --by folds: no such column in preds (its columns: fold, y, s1, s2, p, src)"),
        ([os.path.join(tmp, "missing.db"), "preds", "--label", "y", "--score", "s1"], 1,
         "mleval-report: cannot open %s: No such file or directory" % os.path.join(tmp, "missing.db")),
        ([db, "preds", "--label", "src", "--score", "s1", "-o", os.path.join(tmp, "x.html")], 1,
         "mleval-report: --label src: ml_state(): y must be 0 or 1, got text 'src0'"),
        ([db, "preds", "--label", "y", "--score", "s1", "--operating", "f1"], 2,
         "mleval-report: --operating: criterion must be one of max_f1, youden, fpr:T, specificity:T, "
         "sensitivity:T, precision:T, got 'f1'"),
        ([db, "preds", "--label", "y", "--score", "s1", "--operating", "specificity"], 2,
         "mleval-report: --operating: specificity needs a target in (0, 1), as specificity:0.95"),
        ([db, "preds", "--label", "y", "--score", "s1", "--operating", "youden:0.5"], 2,
         "mleval-report: --operating: youden takes no target, got '0.5'"),
        ([db, "preds", "--label", "y", "--score", "s1", "--operating", "fpr:1"], 2,
         "mleval-report: --operating: the target of fpr must be a number in (0, 1), got '1'"),
        ([db, "preds", "--label", "y", "--score", "s1", "--reps", "5"], 2,
         "mleval-report: --reps must be 0 or an integer in 10..100000, got '5'"),
    ]
    for args, code, msg in bad:
        r = run(args)
        first = r.stderr.splitlines()[0] if r.stderr else ""
        ck.equal((r.returncode, first), (code, msg), "error for %r" % (args,))
        if code == 2:
            ck.true("Try 'mleval-report --help'." in r.stderr, "usage errors point to --help")
    ck.finish()


if __name__ == "__main__":
    main()
