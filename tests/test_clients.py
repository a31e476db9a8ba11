# SPDX-License-Identifier: MIT
"""docs/clients.md's examples, run as written (issue 37 item 8): the r,
python and sh blocks are read from the file, so doc and test cannot drift,
and run in a scratch folder holding preds.db (preds(fold, y, s), and the
same rows as preds_csv, imported as text by the shell's .import --csv) and
ext/.libs -> the build's library folder.  Their output must equal the
extension's own numbers:

  R (RSQLite, Rscript)   per-fold pr_auc and auroc, 15 significant digits
  pandas                 the same to the bit; operating_point's threshold
                         by ->> and tpr by json.loads; the CSV table's
                         columns object as read and int64/float64 typed
  sqlite-utils           the same to the bit, from its JSON

Rscript (r-cran-rsqlite), sqlite-utils and pandas are installed by
./bootstrap: a missing one fails the test.
"""
import csv
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import mltest

SRC = os.environ.get("srcdir", os.path.join(os.path.dirname(__file__), ".."))
DOC = os.path.join(SRC, "docs", "clients.md")
SRC_PY = os.path.abspath(os.path.join(SRC, "python"))


def blocks():
    """{language: text} of the fenced blocks of docs/clients.md (one each)."""
    text = open(DOC, encoding="utf-8").read()
    out = {}
    for lang, body in re.findall(r"```(r|python|sh)\n(.*?)```", text, re.S):
        assert lang not in out, "docs/clients.md: two %s blocks" % lang
        out[lang] = body
    return out


def run(argv, cwd, **env):
    e = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **env)
    p = subprocess.run(argv, cwd=cwd, env=e, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def main():
    ck = mltest.Checker("clients")
    code = blocks()
    ck.equal(sorted(code), ["python", "r", "sh"], "docs/clients.md has an r, a python and a sh block")
    scratch = tempfile.mkdtemp(prefix="mleval_clients_")
    try:
        rng = random.Random(8)
        rows = [(f, int(rng.random() < 0.4), round(rng.random() + 0.3 * f, 6)) for f in range(3) for _ in range(150)]
        for k in range(0, len(rows), 7):                         # labels that matter for the scores
            f, y, s = rows[k]
            rows[k] = (f, 1, s + 0.5)
        db = os.path.join(scratch, "preds.db")
        con = mltest.connect()
        con.execute("ATTACH ? AS d", (db,))
        con.execute("CREATE TABLE d.preds(fold INTEGER, y INTEGER, s REAL)")
        con.executemany("INSERT INTO d.preds VALUES (?, ?, ?)", rows)
        con.commit()
        with open(os.path.join(scratch, "preds.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["fold", "y", "s"])
            w.writerows(rows)
        sh = os.environ.get("SQLITE3", "sqlite3")
        rc, out, err = run([sh, "-bail", db, ".import --csv preds.csv preds_csv"], scratch)
        ck.equal((rc, err), (0, ""), "sqlite3 .import --csv preds.csv preds_csv")
        os.makedirs(os.path.join(scratch, "ext"))
        os.symlink(os.path.dirname(os.path.abspath(mltest.LIB)), os.path.join(scratch, "ext", ".libs"))

        want = con.execute("SELECT fold, pr_auc(y, s), auroc(y, s) FROM d.preds GROUP BY fold").fetchall()
        want_csv = con.execute("SELECT fold, pr_auc(y, s), auroc(y, s) FROM d.preds_csv GROUP BY fold").fetchall()
        ck.equal([tuple(map(str, r)) for r in want_csv], [tuple(map(str, (int(r[0]),) + r[1:])) for r in want],
                 "the extension reads the imported text table as the typed one")
        want_op = [(f, json.loads(op)["threshold"], json.loads(op)["tpr"]) for f, op in con.execute(
            "SELECT fold, operating_point(y, s, 'youden') FROM d.preds GROUP BY fold")]

        # R
        with open(os.path.join(scratch, "example.R"), "w") as f:
            f.write(code["r"])
        rscript = shutil.which("Rscript")
        ck.true(rscript is not None, "Rscript is installed (./bootstrap: r-cran-rsqlite)")
        if rscript:
            rc, out, err = run([rscript, "example.R"], scratch)
            ck.equal(rc, 0, "R example runs: %s" % err[-300:])
            got = [(int(r["fold"]), float(r["ap"]), float(r["auc"])) for r in csv.DictReader(io.StringIO(out))]
            ck.equal(len(got), len(want), "R: one row per fold")
            for (f, ap, auc), (wf, wap, wauc) in zip(got, want):
                ck.equal(f, wf, "R: fold")
                ck.close(ap, wap, "R: pr_auc of fold %d" % f, rel=1e-14)
                ck.close(auc, wauc, "R: auroc of fold %d" % f, rel=1e-14)

        # pandas (the helper from this tree, the library from MLEVAL_LIB)
        with open(os.path.join(scratch, "example.py"), "w") as f:
            f.write(code["python"])
        rc, out, err = run([sys.executable, "example.py"], scratch, PYTHONPATH=SRC_PY)
        ck.equal(rc, 0, "pandas example runs: %s" % err[-300:])
        parts = out.split("fold,threshold,tpr\n")
        if rc == 0 and len(parts) == 2:
            got = [(int(r["fold"]), float(r["ap"]), float(r["auc"])) for r in csv.DictReader(io.StringIO(parts[0]))]
            ck.equal(got, want, "pandas: per-fold pr_auc and auroc, to the bit")
            lines = parts[1].splitlines()
            got_op = [(int(a), float(b), float(c)) for a, b, c in csv.reader(lines[:-1])]
            ck.equal(got_op, want_op, "pandas: operating_point's threshold (->>) and tpr (json.loads)")
            ck.equal(lines[-1], "{'y': 'object', 's': 'object'} {'y': 'int64', 's': 'float64'}",
                     "pandas: the imported table's columns are object as read, typed with dtype=")
        else:
            ck.true(False, "pandas example's output: %r" % out[-300:])

        # sqlite-utils
        cmd = code["sh"].strip()
        ck.true(cmd.startswith("sqlite-utils ") and "\n" not in cmd, "the sh block is one sqlite-utils command")
        ck.true(shutil.which("sqlite-utils") is not None, "sqlite-utils is installed (./bootstrap)")
        rc, out, err = run(["sh", "-c", cmd], scratch)
        ck.equal(rc, 0, "sqlite-utils example runs: %s" % err[-300:])
        if rc == 0:
            got = [(r["fold"], r["ap"], r["auc"]) for r in json.loads(out)]
            ck.equal(got, want, "sqlite-utils: per-fold pr_auc and auroc, to the bit")
    finally:
        shutil.rmtree(scratch)
    ck.finish()


if __name__ == "__main__":
    main()
