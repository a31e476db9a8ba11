# SPDX-License-Identifier: MIT
"""mleval-report's outputs, byte for byte, against committed golden files
(tests/golden/*.gz): the HTML and the JSON of

  demo      make demo's report of sql/demo_data.sql (--label y --score s
            --prob p --by fold), without --svd: the SVD section holds
            wall-clock times, which no two runs share;
  table     the 10^5-row table of tests/golden/make_report_table.py, as CSV
            (the importer is on the path): two scores, --prob, --by fold,
            a group of 10 rows with one positive, NULL scores;
  table_nb  the same table without --by, the scores in the other order,
            --reps 0 (every PR-AUC interval by the delta method) and
            --operating max_f1,sensitivity:0.9.

A change of the report's code that is not meant to change what it writes
must leave these bytes as they are.  A change that is meant to rewrites the
golden files in the same commit, saying why:

    MLEVAL_LIB=ext/.libs/mleval MLEVAL_REPORT=tools/mleval-report \\
      /usr/bin/python3 tests/test_report_golden.py --update
"""
import gzip
import os
import subprocess
import sys
import tempfile

import mltest

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.environ.get("srcdir") or os.path.join(HERE, "..")
GOLDEN = os.path.join(SRCDIR, "tests", "golden")
REPORT = os.environ.get("MLEVAL_REPORT") or os.path.join(HERE, "..", "tools", "mleval-report")
SQLITE3 = os.environ.get("SQLITE3") or "sqlite3"
ck = mltest.Checker("report_golden")

RUNS = [
    ("demo", "demo-preds.db", ["preds", "--label", "y", "--score", "s", "--prob", "p", "--by", "fold"]),
    ("table", "report_table.csv", ["preds", "--label", "y", "--score", "s", "--score", "s2", "--prob", "p",
                                   "--by", "fold"]),
    ("table_nb", "report_table.csv", ["preds", "--label", "y", "--score", "s2", "--score", "s", "--prob", "p",
                                      "--reps", "0", "--operating", "max_f1,sensitivity:0.9"]),
]


def inputs(tmp):
    db = os.path.join(tmp, "demo-preds.db")
    with open(os.path.join(SRCDIR, "sql", "demo_data.sql"), "rb") as f:
        subprocess.run([SQLITE3, "-bail", db], stdin=f, check=True)
    with open(os.path.join(tmp, "report_table.csv"), "wb") as f:
        subprocess.run([sys.executable, os.path.join(GOLDEN, "make_report_table.py")], stdout=f, check=True)


def first_difference(want, got, what):
    """Where got first leaves want, with some bytes of each around it."""
    i = 0
    while i < min(len(want), len(got)) and want[i] == got[i]:
        i += 1
    return "%s differs (%d bytes golden, %d now) at byte %d: golden %r, now %r" % (
        what, len(want), len(got), i, want[max(0, i - 60):i + 60], got[max(0, i - 60):i + 60])


def main():
    if not os.path.exists(REPORT):
        print("SKIP: %s is not built" % REPORT)
        sys.exit(77)
    update = "--update" in sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix="mleval-report-golden")
    inputs(tmp)
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    for name, src, args in RUNS:
        html = os.path.join(tmp, name + ".html")
        js = os.path.join(tmp, name + ".json")
        r = subprocess.run([REPORT, os.path.join(tmp, src)] + args + ["-o", html, "--json", js],
                           capture_output=True, env=env)
        ck.equal((r.returncode, r.stderr.decode("utf-8", "replace")[-300:]), (0, ""), "%s: the report runs" % name)
        if r.returncode:
            continue
        for path, ext in ((html, "html"), (js, "json")):
            got = open(path, "rb").read()
            gold = os.path.join(GOLDEN, "report_%s.%s.gz" % (name, ext))
            if update:
                with open(gold, "wb") as f:
                    # mtime 0 and no name: the same bytes give the same .gz
                    with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as g:
                        g.write(got)
                print("wrote", gold)
                continue
            want = gzip.open(gold).read() if os.path.exists(gold) else b""
            ck.true(got == want, first_difference(want, got, "%s.%s" % (name, ext)))
    ck.finish()


if __name__ == "__main__":
    main()
