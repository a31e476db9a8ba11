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
  - without --prob the calibration section says it uses the empirical CDF,
    and its ECE equals ece() over (rank + (ties - 1)/2) / n computed here;
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
                                          "SVD cost": "svd"}[s] for s in want_sections], what + ": section ids")
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


def main():
    if not os.path.exists(REPORT):
        print("SKIP: %s is not built" % REPORT)
        sys.exit(77)
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
    svgs = check_html(html, ["AUROC", "PR curves", "Calibration"], "database")
    ck.equal(len(svgs), 2 + 2 + 1, "one ROC and one PR plot per score, one reliability diagram")
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

    # 2. the same rows as CSV: the same numbers
    out = os.path.join(tmp, "c.html")
    js = os.path.join(tmp, "c.json")
    r = run([csvp, "preds", "--label", "y", "--score", "s1", "--score", "s2", "--prob", "p", "--by", "fold",
             "-o", out, "--json", js])
    ck.equal((r.returncode, r.stderr), (0, ""), "CSV run succeeds")
    check_html(open(out).read(), ["AUROC", "PR curves", "Calibration"], "CSV")
    compare(json.load(open(js)), want, "CSV --json")

    # 3. no --prob: empirical CDF per group; --by a text column; --svd
    out = os.path.join(tmp, "e.html")
    js = os.path.join(tmp, "e.json")
    r = run([db, "preds", "--label", "y", "--score", "s1", "--by", "src", "--bins", "7", "--svd",
             "--svd-dims", "12,20", "--svd-iters", "2", "-o", out, "--json", js])
    ck.equal((r.returncode, r.stderr), (0, ""), "--svd run succeeds")
    html = open(out).read()
    svgs = check_html(html, ["AUROC", "PR curves", "Calibration", "SVD cost"], "--svd")
    ck.true("empirical CDF" in html and "pseudo-probability" in html, "calibration says it uses the empirical CDF")
    got = json.load(open(js))
    ck.equal(got["calibration"], "empirical_cdf", "--json says empirical_cdf")
    data = [r_ for r_ in rows if r_[1] is not None and r_[2] is not None]
    cdf = sqlite3.connect(":memory:")
    cdf.enable_load_extension(True)
    cdf.load_extension(mltest.LIB)
    cdf.execute("CREATE TABLE c(g TEXT, y INT, p REAL)")
    for src in sorted({r_[5] for r_ in data}):
        grp = [r_ for r_ in data if r_[5] == src]
        s = np.array([r_[2] for r_ in grp])
        n = len(s)
        for (row, v) in zip(grp, s):
            rank = int((s < v).sum()) + 1
            ties = int((s == v).sum())
            cdf.execute("INSERT INTO c VALUES (?,?,?)", (src, row[1], (rank + (ties - 1) / 2.0) / n))
    for src, e in cdf.execute("SELECT g, ece(y, p, 7) FROM c GROUP BY g"):
        ck.close(got["ece"]["s1"][src], e, "CDF ECE of %s" % src)
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
         "mleval-report: --label src: auroc(): y must be 0 or 1, got text 'src0'"),
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
