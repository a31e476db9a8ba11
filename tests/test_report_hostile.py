# SPDX-License-Identifier: MIT
"""mleval-report on hostile input files: every one ends with exit 1 and a
message that names the file and what is wrong with it, or -- where the input
is valid after all -- with a correct report; never with a signal, a
sanitizer report or a silent misreading.

  1. An empty (0-byte) file named *.csv: "empty CSV file (a header row is
     needed)"; any other 0-byte file (what `sqlite3 fresh.db "select 1"`
     leaves): "not a database or an empty one".  (Both once freed a pointer
     the CSV reader never set: ASan's "attempting free on address which was
     not malloc()-ed", exit 134.)
  2. A header row alone is a valid table of 0 rows: the report is written and
     says 0 rows; a --label it lacks is "no such column".
  3. A record with more or fewer fields than the header, a quoted field that
     is never closed, a NUL byte (a binary file is not a CSV file), a header
     of 10^6 columns (over SQLite's column limit): exit 1, naming the record.
  4. A UTF-8 byte-order mark (what a spreadsheet's "CSV UTF-8" writes) is
     not part of the first column's name: --label y finds the column y, and
     the report equals the one of the same file without the mark; a file
     holding only the mark is an empty CSV file.
  5. A file that starts as a SQLite database but is not one, a database that
     another connection holds an exclusive lock on, a directory: exit 1,
     "cannot read".

Run under check-sanitize (the report built with ASan and UBSan, the
runtimes' abort_on_error set), a memory error is a signal and fails here.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

import mltest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("MLEVAL_REPORT") or os.path.join(HERE, "..", "tools", "mleval-report")
ck = mltest.Checker("report_hostile")


def run(args, timeout=120):
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    return subprocess.run([REPORT] + args, capture_output=True, env=env, timeout=timeout)


def stderr_of(r):
    return r.stderr.decode("utf-8", "replace")


def first_err(r):
    lines = stderr_of(r).splitlines()
    return lines[0] if lines else ""


def clean(r, what):
    """No signal, no sanitizer report: whatever the exit, the process ended by itself."""
    err = stderr_of(r)
    ck.true(r.returncode >= 0, "%s: ended by signal %d" % (what, -r.returncode))
    ck.true("Sanitizer" not in err and "runtime error" not in err,
            "%s: sanitizer report: %s" % (what, err[-600:]))


def write(tmp, name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def expect_error(tmp, name, data, msg, extra=()):
    path = data if data is None else write(tmp, name, data)
    return expect_error_at(tmp, path, msg, extra)


def expect_error_at(tmp, path, msg, extra=()):
    r = run([path, "t", "--label", "y", "--score", "s", "-o", os.path.join(tmp, "out.html")] + list(extra))
    clean(r, os.path.basename(path))
    ck.equal((r.returncode, first_err(r)), (1, "mleval-report: " + msg), "%s: exit 1 and its message" % os.path.basename(path))
    return r


def test_errors(tmp):
    expect_error(tmp, "empty.csv", b"", "%s/empty.csv: empty CSV file (a header row is needed)" % tmp)
    expect_error(tmp, "fresh.db", b"",
                 "%s/fresh.db: empty file: not a database or an empty one (a CSV file needs a header row)" % tmp)
    # the file the sqlite3 shell leaves for `sqlite3 fresh2.db "select 1"` (0 bytes)
    fresh = os.path.join(tmp, "fresh2.db")
    sqlite3.connect(fresh).execute("select 1").fetchall()
    ck.equal(os.path.getsize(fresh), 0, "a fresh database file is 0 bytes")
    expect_error_at(tmp, fresh, "%s: empty file: not a database or an empty one (a CSV file needs a header row)" % fresh)
    expect_error(tmp, "ragged_long.csv", b"y,s\n0,0.1\n1,0.9,3\n", "%s/ragged_long.csv: record 3 has 3 fields, the header has 2" % tmp)
    expect_error(tmp, "ragged_short.csv", b"y,s\n0,0.1\n1\n0,0.2\n", "%s/ragged_short.csv: record 3 has 1 field, the header has 2" % tmp)
    expect_error(tmp, "quote.csv", b'y,s\n0,0.1\n1,"0.9\n0,0.2\n',
                 "%s/quote.csv: record 3: a quoted field is not closed before the end of the file" % tmp)
    expect_error(tmp, "nul.csv", b"y,s\n0,0.1\n1,0.\x009\n",
                 "%s/nul.csv: record 3 holds a NUL byte (a CSV file is text)" % tmp)
    expect_error(tmp, "binary.bin", bytes(range(256)) * 64,
                 "%s/binary.bin: record 1 holds a NUL byte (a CSV file is text)" % tmp)
    wide = b",".join(b"c%d" % i for i in range(10 ** 6)) + b"\n"
    expect_error(tmp, "wide.csv", wide,
                     "%s/wide.csv: the header has 1000000 columns, more than SQLite's limit of %d" % (tmp, column_limit()))
    bad = write(tmp, "notadb.db", b"SQLite format 3\x00" + bytes(range(256)) * 16)
    expect_error_at(tmp, bad, "cannot read %s: file is not a database" % bad)
    d = os.path.join(tmp, "adir.csv")
    os.mkdir(d)
    expect_error_at(tmp, d, "cannot read %s: Is a directory" % d)


def column_limit():
    """SQLite's column limit (SQLITE_MAX_COLUMN: 2000 in Debian's build)."""
    return sqlite3.connect(":memory:").getlimit(sqlite3.SQLITE_LIMIT_COLUMN)


def test_locked(tmp):
    db = os.path.join(tmp, "locked.db")
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("CREATE TABLE t(y INT, s REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(i % 2, i / 10) for i in range(10)])
    con.execute("BEGIN EXCLUSIVE")
    con.execute("INSERT INTO t VALUES (1, 0.5)")
    try:
        expect_error_at(tmp, db, "cannot read %s: database is locked" % db)
    finally:
        con.execute("ROLLBACK")
        con.close()
    r = run([db, "t", "--label", "y", "--score", "s", "-o", os.path.join(tmp, "unlocked.html")])
    clean(r, "unlocked")
    ck.equal((r.returncode, first_err(r)), (0, ""), "the same database, unlocked, is reported on")


def test_header_only(tmp):
    path = write(tmp, "header.csv", b"y,s\r\n")
    js = os.path.join(tmp, "header.json")
    r = run([path, "t", "--label", "y", "--score", "s", "-o", os.path.join(tmp, "header.html"), "--json", js])
    clean(r, "header only")
    ck.equal((r.returncode, first_err(r)), (0, ""), "header only: a report of 0 rows")
    if r.returncode == 0:
        got = json.load(open(js))
        ck.equal((got["rows"], got["groups"]), (0, []), "header only: 0 rows, no group")
    expect_error_at(tmp, path, "--label z: no such column in t (its columns: y, s)", ["--label", "z"])


def test_bom(tmp):
    body = b"y,s,fold\r\n" + b"".join(b"%d,%r,%d\r\n" % (i % 3 == 0, (i * 37 % 101) / 101.0 + 0.3 * (i % 3 == 0), i % 2)
                                      for i in range(60))
    outs = {}
    for name, data in (("plain.csv", body), ("bom.csv", b"\xef\xbb\xbf" + body)):
        path = write(tmp, name, data)
        js = os.path.join(tmp, name + ".json")
        r = run([path, "t", "--label", "y", "--score", "s", "--by", "fold", "-o", os.path.join(tmp, name + ".html"),
                 "--json", js])
        clean(r, name)
        ck.equal((r.returncode, first_err(r)), (0, ""), "%s: the report is written" % name)
        outs[name] = open(js, "rb").read() if r.returncode == 0 else None
    ck.true(outs["bom.csv"] is not None and outs["bom.csv"] == outs["plain.csv"],
            "a byte-order mark changes nothing in the report")
    path = write(tmp, "bom_only.csv", b"\xef\xbb\xbf")
    expect_error_at(tmp, path, "%s: empty CSV file (a header row is needed)" % path)
    # the mark names no column: the message lists y as y
    path = write(tmp, "bom_label.csv", b"\xef\xbb\xbfy,s\n0,0.1\n1,0.9\n")
    expect_error_at(tmp, path, "--label z: no such column in t (its columns: y, s)", ["--label", "z"])


def test_line_ends(tmp):
    """Issue 44 item 6: a CSV with CR-only line ends (old Mac files) is read
    as records, not one header line; LF, CRLF and CR give the same report;
    a quoted field keeps its line end."""
    recs = [b"y,s,fold,note"] + [b'%d,%r,%d,"a\r\nb"' % (i % 3 == 0, (i * 37 % 101) / 101.0 + 0.3 * (i % 3 == 0), i % 2)
                                 for i in range(40)]
    outs = {}
    for name, end in (("lf.csv", b"\n"), ("crlf.csv", b"\r\n"), ("cr.csv", b"\r")):
        path = write(tmp, name, end.join(recs) + end)
        js = os.path.join(tmp, name + ".json")
        r = run([path, "t", "--label", "y", "--score", "s", "--by", "fold", "-o", os.path.join(tmp, name + ".html"),
                 "--json", js])
        clean(r, name)
        ck.equal((r.returncode, first_err(r)), (0, ""), "%s: the report is written" % name)
        outs[name] = open(js, "rb").read() if r.returncode == 0 else None
    ck.true(outs["cr.csv"] is not None and outs["cr.csv"] == outs["lf.csv"] == outs["crlf.csv"],
            "CR, LF and CRLF line ends give the same report")
    if outs["cr.csv"]:
        ck.equal(json.loads(outs["cr.csv"])["rows"], 40, "CR line ends: 40 rows, not one header line")


def test_not_decimal(tmp):
    """Issue 44 item 6: a CSV number is a decimal one.  0x10 (hex), inf and
    nan are text, never 16: a score column holding one is refused as a
    number, with a message naming the option and the column; as a group's
    value it is the text itself."""
    for bad in (b"0x10", b"inf", b"nan", b"1e", b"+"):
        body = b"y,s\n0,0.1\n1,%s\n0,0.3\n1,0.7\n" % bad
        expect_error(tmp, "hex.csv", body, "--score s: ml_state(): s must be a number, got text '%s'" % bad.decode())
    body = b"y,s,src\n" + b"".join(b"%d,%r,%s\n" % (i % 2, i / 20.0, [b"0x10", b"16", b"1e1"][i % 3])
                                     for i in range(30))
    path = write(tmp, "hexgroup.csv", body)
    js = os.path.join(tmp, "hexgroup.json")
    r = run([path, "t", "--label", "y", "--score", "s", "--by", "src", "-o", os.path.join(tmp, "hexgroup.html"),
             "--json", js])
    clean(r, "hexgroup")
    ck.equal((r.returncode, first_err(r)), (0, ""), "a hex group value: the report is written")
    if r.returncode == 0:
        ck.equal(sorted(g["name"] for g in json.load(open(js))["groups"]), ["0x10", "16", "1e1"],
                 "0x10 is a group of its own, the text 0x10 (not 16)")
    # decimal forms are numbers: sign, leading dot, exponent, spaces
    body = b"y,s\n0, 0.1\n1,+.9\n0,-1e-1\n1,2E0 \n"
    path = write(tmp, "dec.csv", body)
    js = os.path.join(tmp, "dec.json")
    r = run([path, "t", "--label", "y", "--score", "s", "-o", os.path.join(tmp, "dec.html"), "--json", js])
    ck.equal((r.returncode, first_err(r)), (0, ""), "decimal numbers in every form are numbers")


def main():
    if not os.path.exists(REPORT):
        print("SKIP: %s is not built" % REPORT)
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="mleval-report-hostile")
    test_errors(tmp)
    test_locked(tmp)
    test_header_only(tmp)
    test_bom(tmp)
    test_line_ends(tmp)
    test_not_decimal(tmp)
    ck.finish()


if __name__ == "__main__":
    main()
