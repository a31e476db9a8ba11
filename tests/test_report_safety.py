# SPDX-License-Identifier: MIT
"""mleval-report does no harm, whatever the table and the options:

  1. Names reach the page as text: a --by column, a score column and group
     values made of markup (<script>, <img onerror=...>, quotes, &) are
     escaped; the page is well-formed XML (it is written as polyglot XHTML)
     with no script element.
  2. The report's own temporary tables cannot shadow the user's: a
     predictions table named res, cal, grp -- the names the report once used
     -- or after any of the report's own names gives the numbers SQL gives.
  3. Outputs: -o or --json naming the input database (by path, by another
     path to the same file, by a symlink), naming each other, or naming an
     existing file that no report wrote is refused with a message; --force
     allows the last (never the first two); a previous report is replaced.
     The input database is byte-identical after every run, and no journal
     or WAL file is left next to it.
  4. Errors name the option the user gave: --score model_c: no such column,
     --label src: auroc(): y must be 0 or 1, ...
"""
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import mltest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("MLEVAL_REPORT") or os.path.join(HERE, "..", "tools", "mleval-report")
ck = mltest.Checker("report_safety")


def run(args):
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    return subprocess.run([REPORT] + args, capture_output=True, env=env)


def first_err(r):
    lines = r.stderr.decode("utf-8", "replace").splitlines()
    return lines[0] if lines else ""


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
        self.handlers = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.handlers += [k for k, _ in attrs if k.startswith("on")]


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def make_db(path, table, cols, rows):
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE "%s"(%s)' % (table.replace('"', '""'),
                                          ", ".join('"%s"' % c.replace('"', '""') for c in cols)))
    con.executemany('INSERT INTO "%s" VALUES (%s)' % (table.replace('"', '""'), ",".join("?" * len(cols))), rows)
    con.commit()
    con.close()


def rows_of(n_groups=3, n=60, groups=None):
    import random
    rnd = random.Random(5)
    out = []
    for g in range(n_groups):
        name = groups[g] if groups else g + 1
        for i in range(n):
            y = 1 if i % 4 == 0 else 0
            s = round(rnd.random() + 0.8 * y, 3)
            out.append((name, y, s, 1 - s / 2, min(1.0, max(0.0, s / 1.8))))
    return out


def test_escaping(tmp):
    hostile_by = "<script>alert('by')</script>"
    hostile_s = 's"><img src=x onerror=alert(1)>&amp;'
    groups = ["<script>alert(1)</script>", "a&b \"q\" 'x'", "</td></tr></table><b>x"]
    db = os.path.join(tmp, "esc.db")
    make_db(db, "pr<e>ds", [hostile_by, "y", hostile_s, "s2", "p"], rows_of(3, 60, groups))
    out = os.path.join(tmp, "esc.html")
    js = os.path.join(tmp, "esc.json")
    r = run([db, "pr<e>ds", "--label", "y", "--score", hostile_s, "--score", "s2", "--prob", "p",
             "--by", hostile_by, "-o", out, "--json", js])
    ck.equal((r.returncode, r.stderr.decode()), (0, ""), "hostile names: the report is written")
    if r.returncode:
        return
    html = open(out, encoding="utf-8").read()
    p = Tags()
    p.feed(html)
    ck.equal([t for t in p.tags if t in ("script", "img", "b", "iframe")], [], "no markup from names becomes a tag")
    ck.equal(p.handlers, [], "no event handler attribute from names")
    try:
        ET.fromstring(html)
        ok = True
    except ET.ParseError as e:
        ok = False
        ck.true(False, "hostile names: the report is well-formed XML: %s" % e)
    ck.true(ok, "hostile names: the report parses as XML")
    for g in groups:
        esc = g.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        ck.true(esc in html or esc.replace('"', "&quot;").replace("'", "&#39;") in html,
                "group %r appears escaped" % g)
    got = json.load(open(js, encoding="utf-8"))
    ck.equal([g["name"] for g in got["groups"]], sorted(groups), "JSON keeps the names as they are")
    ck.equal(got["by"], hostile_by, "JSON: --by name")


def test_hostile_bytes(tmp):
    """Column names and group values with ill-formed UTF-8, U+FFFE/U+FFFF and
    control characters: the page is well-formed UTF-8 and XML, the JSON
    well-formed UTF-8 with the names as Python decodes them ('replace')."""
    sqlite3_shell = os.environ.get("SQLITE3") or "sqlite3"
    db = os.path.join(tmp, "bytes.db")
    by = b"g\xff\xef\xbf\xbe\x01"
    score = b"s\xc3(\xed\xa0\x80\xef\xbf\xbf"
    groups = [b"\xff\xfe", b"a\xe2\x82", b"\xef\xbf\xbe\x02<x>", "\u00e9".encode() * 40]
    sql = b'CREATE TABLE preds("' + by + b'", y INT, "' + score + b'" REAL, p REAL);\n'
    for k, g in enumerate(groups):
        for i in range(40):
            y = 1 if i % 4 == 0 else 0
            sql += b"INSERT INTO preds VALUES (CAST(x'%s' AS TEXT), %d, %r, %r);\n" % (
                g.hex().encode(), y, (i * 7 % 13) / 13.0 + 0.5 * y, (i * 7 % 13) / 26.0 + 0.3 * y)
    r = subprocess.run([sqlite3_shell, db], input=sql, capture_output=True)
    ck.equal(r.returncode, 0, "the hostile database is made (%s)" % r.stderr[-200:])
    out = os.path.join(tmp, "bytes.html")
    js = os.path.join(tmp, "bytes.json")
    r = run([db, "preds", "--label", "y", "--score", score, "--prob", "p", "--by", by, "-o", out, "--json", js])
    ck.equal((r.returncode, first_err(r)), (0, ""), "hostile bytes: the report is written")
    if r.returncode:
        return
    page = open(out, "rb").read()
    try:
        page.decode("utf-8")
        ET.fromstring(page)
        ok = True
    except (UnicodeDecodeError, ET.ParseError) as e:
        ok = False
        ck.true(False, "hostile bytes: the page is well-formed UTF-8 and XML: %s" % e)
    ck.true(ok, "hostile bytes: the page parses")
    ck.true("\ufffe" not in page.decode("utf-8", "replace") and "\uffff" not in page.decode("utf-8", "replace"),
            "hostile bytes: no U+FFFE/U+FFFF on the page")
    try:
        got = json.loads(open(js, "rb").read().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        ck.true(False, "hostile bytes: the JSON is well-formed UTF-8 and JSON: %s" % e)
        return
    ck.equal(sorted(g["name"] for g in got["groups"]), sorted(g.decode("utf-8", "replace") for g in groups),
             "hostile bytes: JSON group names as decoded with U+FFFD")
    ck.equal(got["by"], by.decode("utf-8", "replace"), "hostile bytes: JSON --by name")


def test_shadowing(tmp):
    ref = mltest.connect()
    for table in ("res", "cal", "grp", "temp_res", "mleval_report", "_mleval_report_res",
                  "_mleval_report_cal", "_mleval_report_grp", "_mleval_report_cmp", "_mleval_report_op",
                  "_mleval_report_sum"):
        db = os.path.join(tmp, "shadow_%s.db" % table)
        rows = rows_of(3, 50)
        make_db(db, table, ["fold", "y", "s", "s2", "p"], rows)
        js = os.path.join(tmp, "shadow_%s.json" % table)
        r = run([db, table, "--label", "y", "--score", "s", "--score", "s2", "--prob", "p", "--by", "fold",
                 "-o", os.path.join(tmp, "shadow_%s.html" % table), "--json", js])
        ck.equal((r.returncode, first_err(r)), (0, ""), "a table named %s: the report runs" % table)
        if r.returncode:
            continue
        got = json.load(open(js))
        ck.equal(got["rows"], len(rows), "a table named %s: all its rows are reported" % table)
        ref.execute("ATTACH ? AS d", (db,))
        for g, a, ap in ref.execute('SELECT CAST(fold AS TEXT), auroc(y, s), pr_auc(y, s) FROM d."%s" GROUP BY fold'
                                    % table):
            ck.equal(got["auroc"]["s"][g], a, "a table named %s: auroc of fold %s" % (table, g))
            ck.equal(got["pr_auc"]["s"][g], ap, "a table named %s: pr_auc of fold %s" % (table, g))
        ref.execute("DETACH d")


def test_outputs(tmp):
    db = os.path.join(tmp, "in.db")
    make_db(db, "preds", ["fold", "y", "s", "s2", "p"], rows_of(2, 40))
    before = sha(db)
    link = os.path.join(tmp, "link.db")
    os.symlink(db, link)
    dotted = os.path.join(tmp, ".", "in.db")
    foreign = os.path.join(tmp, "notes.txt")
    open(foreign, "w").write("my notes\n")
    base = [db, "preds", "--label", "y", "--score", "s"]
    out = os.path.join(tmp, "r.html")
    js = os.path.join(tmp, "r.json")
    cases = [
        (["-o", db], "mleval-report: -o %s is the input file %s; refusing to overwrite it" % (db, db)),
        (["-o", dotted], "mleval-report: -o %s is the input file %s; refusing to overwrite it" % (dotted, db)),
        (["-o", link], "mleval-report: -o %s is the input file %s; refusing to overwrite it" % (link, db)),
        (["-o", out, "--json", db],
         "mleval-report: --json %s is the input file %s; refusing to overwrite it" % (db, db)),
        (["-o", db, "--force"], "mleval-report: -o %s is the input file %s; refusing to overwrite it" % (db, db)),
        (["-o", out, "--json", out], "mleval-report: -o and --json name the same file %s" % out),
        (["-o", out, "--json", os.path.join(tmp, ".", "r.html"), "--force"],
         "mleval-report: -o and --json name the same file %s" % os.path.join(tmp, ".", "r.html")),
        (["-o", foreign], "mleval-report: -o %s exists and was not written by mleval-report; "
                          "refusing to overwrite it (--force to replace it)" % foreign),
        (["-o", out, "--json", foreign], "mleval-report: --json %s exists and was not written by mleval-report; "
                                         "refusing to overwrite it (--force to replace it)" % foreign),
    ]
    for extra, msg in cases:
        r = run(base + extra)
        ck.equal((r.returncode, first_err(r)), (1, msg), "refused: %r" % (extra,))
        ck.equal(sha(db), before, "the input database is byte-identical after %r" % (extra,))
    ck.equal(open(foreign).read(), "my notes\n", "a refused foreign file is untouched")
    ck.true(not os.path.exists(out), "nothing written when refused")
    # a previous report is replaced without --force
    r = run(base + ["-o", out, "--json", js])
    ck.equal((r.returncode, first_err(r)), (0, ""), "first report")
    r = run(base + ["--score", "s2", "-o", out, "--json", js])
    ck.equal((r.returncode, first_err(r)), (0, ""), "a previous report and its JSON are replaced without --force")
    ck.true(r.returncode == 0 and "s2" in json.load(open(js))["auroc"], "the JSON was replaced")
    # --force replaces a foreign file
    r = run(base + ["-o", foreign, "--force"])
    ck.equal((r.returncode, first_err(r)), (0, ""), "--force replaces a file no report wrote")
    ck.true(open(foreign).read().startswith("<!DOCTYPE html>"), "--force wrote the report")
    # the CSV input is protected too
    csvp = os.path.join(tmp, "in.csv")
    open(csvp, "w").write("fold,y,s\n1,0,0.1\n1,1,0.9\n1,0,0.3\n1,1,0.7\n")
    csv_before = sha(csvp)
    r = run([csvp, "preds", "--label", "y", "--score", "s", "-o", csvp, "--force"])
    ck.equal((r.returncode, first_err(r)),
             (1, "mleval-report: -o %s is the input file %s; refusing to overwrite it" % (csvp, csvp)),
             "-o the input CSV is refused")
    ck.equal(sha(csvp), csv_before, "the input CSV is byte-identical")
    # byte-identical after full runs, also with the report's every option
    r = run(base + ["--score", "s2", "--prob", "p", "--by", "fold", "-o", out, "--json", js])
    ck.equal(r.returncode, 0, "a full run")
    ck.equal(sha(db), before, "the input database is byte-identical after full runs")
    ck.equal(sorted(f for f in os.listdir(tmp) if f.startswith("in.db")), ["in.db"],
             "no journal, WAL or shm file left next to the input")
    # a database in WAL mode: read, never written (SQLite's reader may leave
    # an empty -wal and a -shm beside it, as any reader does)
    wal = os.path.join(tmp, "wal.db")
    make_db(wal, "preds", ["fold", "y", "s"], [r_[:3] for r_ in rows_of(2, 40)])
    con = sqlite3.connect(wal)
    con.execute("PRAGMA journal_mode=WAL")
    con.close()
    wal_before = sha(wal)
    r = run([wal, "preds", "--label", "y", "--score", "s", "--by", "fold", "-o", os.path.join(tmp, "w.html")])
    ck.equal((r.returncode, first_err(r)), (0, ""), "a WAL database is reported")
    ck.equal(sha(wal), wal_before, "a WAL database is byte-identical after the run")
    ck.true(not os.path.exists(wal + "-wal") or os.path.getsize(wal + "-wal") == 0, "nothing was written to its WAL")


def test_option_errors(tmp):
    db = os.path.join(tmp, "err.db")
    rows = [(1, 0, 0.1, "a", 0.2), (1, 1, 0.9, "b", 0.8), (1, 0, 0.3, "c", 0.4), (1, 1, 0.7, "d", 1.5)]
    make_db(db, "preds", ["fold", "y", "s", "src", "p"], rows)
    cols = "fold, y, s, src, p"
    cases = [
        (["--label", "y", "--score", "model_c"],
         "mleval-report: --score model_c: no such column in preds (its columns: %s)" % cols),
        (["--label", "yy", "--score", "s"], "mleval-report: --label yy: no such column in preds (its columns: %s)" % cols),
        (["--label", "y", "--score", "s", "--prob", "q"],
         "mleval-report: --prob q: no such column in preds (its columns: %s)" % cols),
        (["--label", "y", "--score", "s", "--by", "folds"],
         "mleval-report: --by folds: no such column in preds (its columns: %s)" % cols),
        (["--label", "src", "--score", "s"], "mleval-report: --label src: ml_state(): y must be 0 or 1, got text 'a'"),
        (["--label", "y", "--score", "src"], "mleval-report: --score src: ml_state(): s must be a number, got text 'a'"),
        (["--label", "y", "--score", "s", "--prob", "p"],
         "mleval-report: --prob p: ece(): p must be a probability in [0, 1], got 1.5"),
    ]
    for args, msg in cases:
        r = run([db, "preds"] + args + ["-o", os.path.join(tmp, "err.html")])
        ck.equal((r.returncode, first_err(r)), (1, msg), "error names the option: %r" % (args,))


def main():
    if not os.path.exists(REPORT):
        print("SKIP: %s is not built" % REPORT)
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="mleval-report-safety")
    test_escaping(tmp)
    test_hostile_bytes(tmp)
    test_shadowing(tmp)
    test_outputs(tmp)
    test_option_errors(tmp)
    ck.finish()


if __name__ == "__main__":
    main()
