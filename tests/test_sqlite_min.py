# SPDX-License-Identifier: MIT
"""The SQLite minimum is stated once and holds (issue 11): configure.ac's
mleval_sqlite_min, mleval_build_info()'s sqlite_minimum, the README and
docs/loading.md name the same version; the SQLite this process runs, and the
sqlite3 shell the golden tests use, are at least that; and that minimum is
no older than what the code and tests use (the ->> operator: 3.38.0)."""
import os
import re
import subprocess

import mltest

SRCDIR = os.environ.get("srcdir", os.path.join(os.path.dirname(__file__), ".."))


def version_tuple(v):
    return tuple(int(x) for x in v.split("."))


def main():
    ck = mltest.Checker("sqlite minimum")
    con = mltest.connect()
    stated = con.execute("SELECT mleval_build_info() ->> '$.sqlite_minimum'").fetchone()[0]
    ck.true(stated is not None and re.fullmatch(r"\d+\.\d+\.\d+", stated), "build info states a version: %r" % stated)
    with open(os.path.join(SRCDIR, "configure.ac")) as f:
        m = re.search(r"m4_define\(\[mleval_sqlite_min\], \[([0-9.]+)\]\)", f.read())
    ck.equal(m and m.group(1), stated, "configure.ac's minimum")
    for doc in ("README.md", os.path.join("docs", "loading.md")):
        with open(os.path.join(SRCDIR, doc)) as f:
            found = set(re.findall(r"SQLite ≥ ([0-9]+\.[0-9]+\.[0-9]+)", f.read()))
        ck.equal(found, {stated}, "%s states SQLite ≥ %s" % (doc, stated))
    lib = con.execute("SELECT sqlite_version()").fetchone()[0]
    ck.true(version_tuple(lib) >= version_tuple(stated), "this SQLite %s >= %s" % (lib, stated))
    shell = os.environ.get("SQLITE3", "sqlite3")
    out = subprocess.run([shell, "--version"], capture_output=True, text=True).stdout.split()
    ck.true(out and version_tuple(out[0]) >= version_tuple(stated), "the shell's SQLite %s >= %s" % (out[:1], stated))
    # the newest feature in use is no newer than the minimum
    ck.true(version_tuple(stated) >= (3, 38, 0), "the minimum covers ->> (3.38.0)")
    ck.equal(con.execute("SELECT '{\"a\": 2}' ->> '$.a'").fetchone()[0], 2, "->> works here")
    ck.finish()


if __name__ == "__main__":
    main()
