# SPDX-License-Identifier: MIT
"""mleval-report's clinical numbers (issue 36, item 4).

  1. Operating points: a criterion that fixes the specificity or the FPR
     (specificity:T, fpr:T) shows the sensitivity there with its bootstrap
     interval, sens_at_spec_ci(y, s, T, 0.95, reps, 0) and
     tpr_at_fpr_ci(y, s, T, 0.95, reps, 0) (the _w twins with --weight),
     the JSON's sensitivity_ci that function's text exactly, its estimate
     operating_point's tpr bit for bit; the other criteria have none (null,
     a plain cell); a group larger than --boot-rows, and --reps 0, have none.
  2. The summary's Brier flag: a group whose Brier equals the no-skill Brier
     (a constant p at the prevalence) is "no better than no skill" (marked,
     no_better_than_no_skill true, worse_than_no_skill false); its slope is
     n/a (calibration_summary's null), its ICI calibration_smooth's.
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
ck = mltest.Checker("report_clinical")
OPS = "max_f1,specificity:0.9,fpr:0.2,sensitivity:0.8,youden"
FN = {"specificity": "sens_at_spec_ci", "fpr": "tpr_at_fpr_ci"}


def run(args):
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    return subprocess.run([REPORT] + args, capture_output=True, text=True, env=env)


def make_db(path, seed):
    rnd = random.Random(seed)
    rows = []
    for src, n in (("a", 300), ("b", 260)):
        for i in range(n):
            y = 1 if rnd.random() < 0.3 else 0
            s = round(y * 1.1 + rnd.gauss(0, 1), 1)            # ties
            rows.append((src, y, s, round(1 / (1 + 2.718281828 ** -s), 3), rnd.randint(1, 3)))
    for i in range(40):                                         # p constant at the prevalence 1/4
        rows.append(("flat", 1 if i % 4 == 0 else 0, rnd.random(), 0.25, 1))
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE preds(src TEXT, y INT, s REAL, p REAL, w INT)")
    con.executemany("INSERT INTO preds VALUES (?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()


def op_rows(page):
    i = page.index('<details id="operating">')
    body = page[i:page.index("</details>", i)]
    return [re.findall(r"<td[^>]*>(.*?)</td>", t, re.S) for t in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
            if "<td" in t]


def check_ops(ref, got, page, reps, boot_rows, weight, what):
    pts = got["operating_points"]
    rows = op_rows(page)
    ck.equal(len(rows), len(pts), what + ": a page row per point")
    sizes = dict(ref.execute("SELECT src, count(*) FROM preds GROUP BY src").fetchall())
    total = sum(sizes.values())
    n_ci = 0
    for p, cells in zip(pts, rows):
        crit = p["point"]["criterion"] if p["point"] else None
        where = "src = '%s'" % p["group"] if p["group"] else "1"
        n = sizes[p["group"]] if p["group"] else total
        fn = FN.get(crit)
        tag = "%s %s %s" % (what, crit, p["group"])
        if fn and reps and n <= boot_rows:
            wa = ", w" if weight else ""
            want = ref.execute("SELECT %s%s(y, s%s, %r, 0.95, %d, 0) FROM preds WHERE %s"
                               % (fn, "_w" if weight else "", wa, p["point"]["target"], reps, where)).fetchone()[0]
            ck.equal(p["sensitivity_ci"], json.loads(want) if want else None, tag + ": sensitivity_ci is %s's" % fn)
            if p["sensitivity_ci"]:
                ci = p["sensitivity_ci"]
                ck.equal(ci["estimate"], p["point"]["tpr"], tag + ": its estimate is the point's tpr")
                ck.equal(cells[4], '%.3f <span class="ci">[%.3f, %.3f]</span>' % (ci["estimate"], ci["lo"], ci["hi"]),
                         tag + ": the page's sensitivity [CI]")
                n_ci += 1
        else:
            ck.equal(p.get("sensitivity_ci", "absent"), None, tag + ": no interval")
            if p["point"] and len(cells) > 4:
                ck.true("[" not in cells[4], tag + ": a plain sensitivity cell: %r" % cells[4])
    return n_ci


def main():
    if not os.path.exists(REPORT):
        print("SKIP: %s is not built" % REPORT)
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="mleval-report-clinical")
    db = os.path.join(tmp, "preds.db")
    make_db(db, 36)
    ref = mltest.connect()
    ref.execute("ATTACH ? AS d", (db,))
    ref.execute("CREATE TEMP VIEW preds AS SELECT * FROM d.preds")
    out, js = os.path.join(tmp, "r.html"), os.path.join(tmp, "r.json")
    cases = [([], 200, 20000, False, "defaults", 2 * 4),
             (["--weight", "w"], 200, 20000, True, "--weight", 2 * 4),
             (["--boot-rows", "280"], 200, 280, False, "--boot-rows 280", 2 * 2),
             (["--reps", "0"], 0, 20000, False, "--reps 0", 0)]
    for extra, reps, boot_rows, weight, what, want_ci in cases:
        args = [db, "preds", "--label", "y", "--score", "s", "--prob", "p", "--by", "src", "--operating", OPS,
                "-o", out, "--json", js] + extra
        if reps and "--reps" not in extra:
            args += ["--reps", str(reps)]
        r = run(args)
        ck.equal((r.returncode, r.stderr), (0, ""), what + ": the report runs")
        if r.returncode:
            continue
        got = json.load(open(js))
        page = open(out, encoding="utf-8").read()
        n_ci = check_ops(ref, got, page, reps, boot_rows, weight, what)
        ck.true(n_ci >= want_ci, what + ": %d intervals shown (at least %d)" % (n_ci, want_ci))
        if reps == 0:
            ck.true("No intervals: <code>--reps 0</code>" in page, what + ": the page says there are none")
        if weight:
            continue
        flat = got["summary"]["probability"]["groups"]["flat"]
        ck.equal((flat["brier"], flat["no_skill_brier"]), (0.1875, 0.1875), what + ": the data: flat's Brier is no skill's")
        ck.equal((flat["no_better_than_no_skill"], flat["worse_than_no_skill"], flat["slope"]), (True, False, None),
                 what + ": flat is no better than no skill, not worse; no slope")
        sm = json.loads(ref.execute("SELECT calibration_smooth(y, p) FROM preds WHERE src = 'flat'").fetchone()[0])
        ck.equal(flat["ici"], sm["ici"], what + ": flat's ICI is calibration_smooth's")
        i = page.index('<section id="summary">')
        row = [t for t in re.findall(r"<tr>(.*?)</tr>", page[i:page.index("</section>", i)], re.S)
               if "<td>flat</td>" in t and "<td>p</td>" in t]
        ck.equal(len(row), 1, what + ": flat's probability row")
        if row:
            ck.true('class="worse">0.188 <span' in row[0] and "&#9888;" in row[0] and "(no better than no skill)" in row[0],
                    what + ": flat's Brier is flagged no better than no skill: %r" % row[0][:300])
            ck.true("<td>n/a</td>" in row[0], what + ": flat's slope is n/a")
    ck.finish()


if __name__ == "__main__":
    main()
