# SPDX-License-Identifier: MIT
"""mleval-report --weight COLUMN (issue 37, report item 6): the report of
weighted rows, from the extension's weighted twins.

  1. Weight 1 on every row gives the unweighted report's numbers: every
     number of --json is the same double, but for the intervals whose
     weighted twin is another method (auroc_ci's DeLong interval vs
     auroc_ci_w's bootstrap, auroc_diff vs auroc_diff_w), where the
     estimates are the same doubles.  ICI and calibration_smooth are
     calibration_smooth_w's (count-based: weight 1 is the rows'), checked
     against calibration_smooth_w(y, p, w) over the rows per group and over
     all rows; the reliability diagram draws each series' smoothed curve.
  2. Integer weights (0 to 3) give the numbers of the rows repeated that
     many times (a weight of 0 drops the row, a NULL weight skips it): the
     counts (sums of weights), prevalences, AUROC, PR-AUC, curves, ECE,
     reliability, Brier, log loss, calibration_summary's O/E, CITL and slope,
     operating points, the means over groups, and the intervals' estimates.
  3. The page says it is weighted and by which column, and the comparison
     says which function has no weighted twin (pr_auc_diff_delta): with
     --reps 0 its cells are n/a (JSON null), never an unweighted number.
  4. --weight naming no column, or a negative weight, is exit 1 with a
     message naming --weight.
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
ck = mltest.Checker("report_weight")


def run(args):
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    return subprocess.run([REPORT] + args, capture_output=True, text=True, env=env)


def rows_of(seed, n_groups=4, n=90):
    rnd = random.Random(seed)
    out = []
    for g in range(n_groups):
        for i in range(n):
            y = 1 if rnd.random() < 0.3 else 0
            s = round(rnd.gauss(1.2 * y, 1.0), 3)          # ties on purpose
            s2 = rnd.gauss(0.4 * y, 1.0)
            p = min(1.0, max(0.0, 0.2 + 0.5 * y + rnd.gauss(0, 0.2)))
            w = rnd.choice([0, 1, 1, 2, 3])
            out.append((g + 1, y, s, s2, p, w))
    return out


def make_db(path, cols, rows):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE preds(%s)" % ", ".join(cols))
    con.executemany("INSERT INTO preds VALUES (%s)" % ",".join("?" * len(cols)), rows)
    con.commit()
    con.close()


def report(db, extra, tmp, name):
    out = os.path.join(tmp, name + ".html")
    js = os.path.join(tmp, name + ".json")
    r = run([db, "preds", "--label", "y", "--score", "s", "--score", "s2", "--prob", "p", "--by", "fold",
             "-o", out, "--json", js] + extra)
    ck.equal((r.returncode, r.stderr), (0, ""), "%s: the report runs" % name)
    if r.returncode:
        return None, None
    return open(out, encoding="utf-8").read(), json.load(open(js))


# Paths (key tuples, "*" any) where the weighted twin is another method:
# only the estimate (or diff) is compared there.
OTHER_METHOD = {("summary", "scores", "*", "all", "auroc_ci"): "estimate",
                ("summary", "scores", "*", "groups", "*", "auroc_ci"): "estimate",
                ("summary", "scores", "*", "mean", "auroc"): None,
                ("compare", "*", "auroc_diff"): "diff",
                ("compare", "*", "auroc_p_holm"): None}


def check_smooth_w(db, page, got, what):
    """With --weight, ICI and calibration_smooth (without its curve) are
    calibration_smooth_w(y, p, w)'s over the rows (NULL weights left out),
    per group and over all rows, and the reliability diagram draws one
    smoothed curve per group."""
    con = mltest.connect()
    con.execute("ATTACH ? AS d", (db,))
    rows = "FROM d.preds WHERE y IS NOT NULL AND p IS NOT NULL AND w IS NOT NULL"
    want = {None: con.execute("SELECT calibration_smooth_w(y, p, w) " + rows).fetchone()[0]}
    for g, sm in con.execute("SELECT fold, calibration_smooth_w(y, p, w) %s GROUP BY fold" % rows):
        want[str(g)] = sm
    con.close()
    prob = got["summary"]["probability"]
    for g, sm in sorted(want.items(), key=lambda kv: str(kv[0])):
        x = prob["all"] if g is None else prob["groups"].get(g, {})
        sm = json.loads(sm)
        ck.equal(x.get("ici"), sm["ici"], "%s: %s's ICI is calibration_smooth_w's" % (what, g or "all rows"))
        del sm["curve"]
        ck.equal(x.get("calibration_smooth"), sm,
                 "%s: %s's calibration_smooth is calibration_smooth_w's without its curve" % (what, g or "all rows"))
    i = page.index('<details id="calibration">')
    body = page[i:page.index("</details>", i)]
    ck.equal(len(re.findall(r'<polyline class="smooth"', body)), len(want) - 1,
             what + ": the reliability diagram draws each group's smoothed curve")
    ck.true("<code>calibration_smooth_w(y, p, w)</code>" in body, what + ": the caption names calibration_smooth_w")


def rule(path, rules):
    for pat, what in rules.items():
        if len(pat) == len(path) and all(p == "*" or p == q for p, q in zip(pat, path)):
            return True, what
    return False, None


def same(a, b, path, rules, diffs):
    hit, what = rule(path, rules)
    if hit:
        if what is not None and isinstance(a, dict) and isinstance(b, dict):
            same(a.get(what), b.get(what), path + (what,), {}, diffs)
        return
    if isinstance(a, dict) and isinstance(b, dict):
        if sorted(a) != sorted(b):
            diffs.append("%s: keys %s vs %s" % ("/".join(map(str, path)), sorted(a), sorted(b)))
            return
        for k in a:
            same(a[k], b[k], path + (k,), rules, diffs)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            diffs.append("%s: %d vs %d items" % ("/".join(map(str, path)), len(a), len(b)))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, path + ("*" if path and path[0] == "compare" and len(path) == 1 else i,), rules, diffs)
    elif a != b:
        diffs.append("%s: %r vs %r" % ("/".join(map(str, path)), a, b))


def compare_reports(got, want, rules, what):
    got = dict(got)
    want = dict(want)
    ck.equal(got.pop("weight"), "w", what + ": JSON names the weight")
    ck.equal(want.pop("weight"), None, what + ": the reference has no weight")
    diffs = []
    same(got, want, (), rules, diffs)
    ck.equal(diffs[:5], [], what + ": every number the same")


def test_weight_one(tmp):
    rows = [r[:5] + (1,) for r in rows_of(6)]
    db = os.path.join(tmp, "one.db")
    make_db(db, ["fold", "y", "s", "s2", "p", "w"], rows)
    page, got = report(db, ["--weight", "w"], tmp, "one_w")
    _, want = report(db, [], tmp, "one")
    if got and want:
        compare_reports(got, want, OTHER_METHOD, "weight 1")
        check_smooth_w(db, page, got, "weight 1")
        ck.true(want["summary"]["probability"]["all"]["ici"] is not None, "weight 1: the unweighted report has an ICI")


def test_repeated(tmp):
    rows = rows_of(7)
    rows.append((1, 1, 0.5, 0.5, 0.5, None))              # a NULL weight: skipped
    db = os.path.join(tmp, "w.db")
    make_db(db, ["fold", "y", "s", "s2", "p", "w"], rows)
    rep = [r[:5] for r in rows if r[5] for _ in range(r[5])]
    dbr = os.path.join(tmp, "rep.db")
    make_db(dbr, ["fold", "y", "s", "s2", "p"], rep)
    page, got = report(db, ["--weight", "w", "--reps", "0"], tmp, "int_w")
    _, want = report(dbr, ["--reps", "0"], tmp, "rep")
    if not (got and want):
        return
    rules = dict(OTHER_METHOD)
    rules[("rows",)] = None                                # the tables' rows differ: that is the point
    # --reps 0: no AUROC interval with weights (only a bootstrap gives one)
    rules[("summary", "scores", "*", "all", "auroc_ci")] = None
    rules[("summary", "scores", "*", "groups", "*", "auroc_ci")] = None
    # the delta method's interval of weighted rows is not the repeated rows'
    # (its variance counts rows); its estimate is the same double
    rules[("summary", "scores", "*", "all", "pr_auc_ci")] = "estimate"
    rules[("summary", "scores", "*", "groups", "*", "pr_auc_ci")] = "estimate"
    rules[("summary", "scores", "*", "mean", "pr_auc")] = "mean"
    rules[("summary", "scores", "*", "mean", "auroc")] = "mean"
    # no weighted twin of pr_auc_diff_delta: null (checked below)
    rules[("compare", "*", "pr_auc_diff_ci")] = None
    rules[("compare", "*", "pr_auc_p_holm")] = None
    rules[("compare", "*", "auroc_diff")] = None
    compare_reports(got, want, rules, "integer weights vs repeated rows")
    check_smooth_w(db, page, got, "integer weights")
    ck.equal(sorted({(str(s["all"]["auroc_ci"]), str(s["all"]["auroc"] is not None))
                     for s in got["summary"]["scores"].values()}), [("None", "True")],
             "--reps 0 with --weight: AUROC without an interval (null), not another method's")
    ck.equal(sorted({(c["auroc_diff"], c["pr_auc_diff_ci"]) for c in got["compare"]}), [(None, None)],
             "--reps 0 with --weight: the paired tests are null (no weighted delta method)")
    ck.true(re.search(r'<p class="pseudo">Weighted by <code>w</code> \(<code>--weight</code>\)', page) is not None,
            "the page says it is weighted, by w")
    i = page.index('<details id="compare">')
    body = page[i:page.index("</details>", i)]
    ck.true("No weighted twin:</span> <code>pr_auc_diff_delta</code>" in body,
            "the comparison names the function without a weighted twin")
    cells = re.findall(r"<td[^>]*>(.*?)</td>", body.split("<tbody>")[1].split("</tr>")[0])
    ck.equal((cells[4], cells[7]), ("n/a", "n/a"), "its cells are n/a, not an unweighted number")


def test_real_weights(tmp):
    """Issue 44 item 4: weights 0.5/1/2 with --prob.  The weighted
    reliability bins carry weight sums (n 84.5): the report runs, its
    reliability per group is reliability_w's over the rows, and the diagram
    is drawn with a weight histogram."""
    rnd = random.Random(44)
    rows = [r[:5] + (rnd.choice([0.5, 1.0, 2.0]),) for r in rows_of(8)]
    db = os.path.join(tmp, "real.db")
    make_db(db, ["fold", "y", "s", "s2", "p", "w"], rows)
    page, got = report(db, ["--weight", "w", "--reps", "0"], tmp, "real_w")
    if not got:
        return
    con = sqlite3.connect(db)
    con.enable_load_extension(True)
    con.load_extension(mltest.LIB)
    want = dict(con.execute("SELECT fold, reliability_w(y, p, w, 10) FROM preds GROUP BY fold"))
    ns = []
    for g, rel in sorted(got["reliability"]["p"].items()):
        ck.equal(rel, json.loads(want[int(g)]), "real weights: fold %s's reliability is reliability_w's" % g)
        ns += [b["n"] for b in rel]
    ck.true(any(n != int(n) for n in ns), "real weights: some bin's n is a weight sum, not a count: %r" % ns[:5])
    i = page.index('<details id="calibration">')
    body = page[i:page.index("</details>", i)]
    ck.true(body.count('class="hist"') > 0 and ">weight</text>" in body,
            "real weights: the reliability diagram is drawn, its histogram in weight")


def test_errors(tmp):
    db = os.path.join(tmp, "bad.db")
    make_db(db, ["fold", "y", "s", "w"], [(1, i % 2, i / 10.0, -1.0 if i == 3 else 1.0) for i in range(10)])
    r = run([db, "preds", "--label", "y", "--score", "s", "--weight", "ww", "-o", os.path.join(tmp, "e.html")])
    ck.equal((r.returncode, r.stderr.splitlines()[0] if r.stderr else ""),
             (1, "mleval-report: --weight ww: no such column in preds (its columns: fold, y, s, w)"),
             "--weight names no column")
    r = run([db, "preds", "--label", "y", "--score", "s", "--weight", "w", "-o", os.path.join(tmp, "e.html")])
    first = r.stderr.splitlines()[0] if r.stderr else ""
    ck.true(r.returncode == 1 and first.startswith("mleval-report: --weight w: ml_state_w(): w ") and "-1" in first,
            "a negative weight names --weight and the value: %r" % first)


def main():
    if not os.path.exists(REPORT):
        print("SKIP: %s is not built" % REPORT)
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="mleval-report-weight")
    test_weight_one(tmp)
    test_repeated(tmp)
    test_real_weights(tmp)
    test_errors(tmp)
    ck.finish()


if __name__ == "__main__":
    main()
