# SPDX-License-Identifier: MIT
"""The registration table is the one list of functions, and every list the
tests keep follows it.

mleval_functions() shows the table (ext/sql/mleval.c).  This test checks that
  1. pragma_function_list holds exactly the table's functions, each with its
     accepted argument counts and the catch-all (-1) that reports arity errors;
  1a. each function is registered with its record's flags, and every
     parameter spec is complete;
  2. every function is covered: in the bad-input matrix (derived from the
     records), in the OOM injection and the fuzz target (the statements and
     calls `check_oom --list` and `fuzz_args_replay --list` print, mostly
     generated from the records; the SQL fuzz corpus for scalars) and in a
     reference page under docs/;
  3. a call with a count outside the table's range fails with the signature
     (SPEC Rules, arity), as an aggregate, on empty input and as a window;
  4. JSON functions return subtype 'J' text that json_valid() accepts.
So a new function without tests fails make check.
"""
import glob
import json
import os
import re
import sqlite3
import subprocess

import mltest
import test_bad_inputs

SRC = os.environ.get("srcdir", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def read(*parts):
    with open(os.path.join(SRC, *parts), encoding="utf-8") as f:
        return f.read()


@mltest.covers("mleval_version", "mleval_build_info", "mleval_functions")
def check_scalars(ck, con):
    """The build's own functions against what they describe: mleval_version()
    and build_info's version are configure.ac's AC_INIT version; build_info's
    sqlite_library is the SQLite this process runs (Python's
    sqlite3.sqlite_version) and each back end that loads names a file that
    exists; mleval_functions()' names are the functions SQLite has registered
    beyond its own (pragma_function_list)."""
    m = re.search(r"AC_INIT\(\[mleval\],\s*\[([^\]]+)\]", read("configure.ac"))
    version = con.execute("SELECT mleval_version()").fetchone()[0]
    ck.equal(version, m and m.group(1), "mleval_version() is configure.ac's AC_INIT version")
    info = json.loads(con.execute("SELECT mleval_build_info()").fetchone()[0])
    ck.equal(info["version"], version, "mleval_build_info()'s version is mleval_version()")
    ck.equal(info["sqlite_library"], sqlite3.sqlite_version, "build_info's sqlite_library is the running SQLite")
    for name, b in sorted(info["backends"].items()):
        ck.true(not b["loads"] or (b["built"] and os.path.exists(b["path"])),
                "back end %s: loads only when built, from a file that exists (%r)" % (name, b))
    plain = sqlite3.connect(":memory:")
    base = {r[0] for r in plain.execute("SELECT name FROM pragma_function_list")}
    mine = {r[0] for r in con.execute("SELECT name FROM pragma_function_list")} - base
    listed = [f["name"] for f in json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])]
    ck.equal(sorted(listed), sorted(mine), "mleval_functions() lists what SQLite registered")


def main():
    ck = mltest.Checker("registry")
    con = mltest.connect()
    table = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    names = [f["name"] for f in table]
    ck.equal(len(names), len(set(names)), "each function has one row")

    # 1. what SQLite has registered is exactly the table
    plain = sqlite3.connect(":memory:")
    base = {(r[0], r[1]) for r in plain.execute("SELECT name, narg FROM pragma_function_list")}
    got = {}
    for name, narg in con.execute("SELECT name, narg FROM pragma_function_list"):
        if (name, narg) not in base:
            got.setdefault(name, set()).add(narg)
    ck.equal(sorted(got), sorted(names), "pragma_function_list names = the table")
    for f in table:
        want = set(range(f["min_args"], f["max_args"] + 1)) | {-1}
        if f.get("state_args"):      # the state form: a state BLOB in place of the data arguments
            want |= set(range(f["state_args"][0], f["state_args"][1] + 1))
        ck.equal(got.get(f["name"], set()), want, f["name"] + " registered counts")

    # 1a. flags from the record: pure functions are deterministic and innocuous;
    # one with side effects (mleval_build_info loads modules) is direct-only
    DETERMINISTIC, DIRECTONLY, INNOCUOUS = 0x800, 0x80000, 0x200000
    flags = {}
    for name, narg, fl in con.execute("SELECT name, narg, flags FROM pragma_function_list"):
        if name in got:
            flags.setdefault(name, set()).add(fl & (DETERMINISTIC | DIRECTONLY | INNOCUOUS))
    for f in table:
        want = DETERMINISTIC | INNOCUOUS if f["deterministic"] else DIRECTONLY
        ck.equal(flags.get(f["name"]), {want}, f["name"] + " registered with its record's flags")
    ck.equal(sorted(f["name"] for f in table if not f["deterministic"]), ["mleval_build_info"],
             "only mleval_build_info has side effects")
    con.execute("CREATE VIEW v_info AS SELECT mleval_build_info() AS b")
    ck.error(con, "SELECT b FROM v_info", (), "unsafe use of mleval_build_info()",
             "mleval_build_info is direct-only: refused inside a view")
    # every parameter spec is complete and its example is accepted
    for f in table:
        for ps in f["params"]:
            ck.true(ps["type"] in ("real", "integer", "choice", "text") and ps["example"],
                    f["name"] + "." + ps["name"] + " has a type and an example")

    # 2. coverage: the bad-input matrix derives its list from the records
    ck.equal(sorted(test_bad_inputs.functions(con)), sorted(names), "bad-input matrix covers every record")
    # the OOM injection and the fuzz target list the statements and calls they
    # run (both derive most of them from the records); the SQL fuzz corpus
    # covers the scalars
    build = os.environ.get("abs_top_builddir", SRC)
    env = dict(os.environ, MLEVAL_BACKEND_DIR=os.path.join(build, "ext", ".libs"))
    oom = subprocess.run([os.path.join(build, "tests", "check_oom"), "--list"], env=env,
                         capture_output=True, text=True, check=True).stdout
    fuzz_args = subprocess.run([os.path.join(build, "tests", "fuzz_args_replay"), "--list"], env=env,
                               capture_output=True, text=True, check=True).stdout
    fuzz_state = subprocess.run([os.path.join(build, "tests", "fuzz_state_replay"), "--list"], env=env,
                                capture_output=True, text=True, check=True).stdout
    fuzz_sql = "".join(read(os.path.relpath(p, SRC)) for p in sorted(glob.glob(os.path.join(SRC, "tests", "fuzz", "corpus", "sql", "*"))))
    docs = "".join(read(os.path.relpath(p, SRC)) for p in sorted(glob.glob(os.path.join(SRC, "docs", "*.md"))))
    for f in table:
        call = re.compile(r"\b%s\(" % re.escape(f["name"]))
        ck.true(call.search(oom) is not None, f["name"] + " is in the OOM injection (check_oom --list)")
        fuzz = fuzz_args if f["family"] != "scalar" else fuzz_sql
        ck.true(call.search(fuzz) is not None, f["name"] + " is in a fuzz target")
        # the SQL target's corpus seeds every function (tests/fuzz/seed_sql.py)
        ck.true(call.search(fuzz_sql) is not None, f["name"] + " is called by the SQL fuzz corpus (run tests/fuzz/seed_sql.py)")
        for form in f.get("forms") or []:       # every state form, one state or two (issue 45)
            if form["form"] in ("state", "two_states"):
                two = r"b, \(SELECT ml_merge\(b\) FROM f\)" if form["form"] == "two_states" else r"b\b"
                ck.true(re.search(r"^%s\(%s" % (re.escape(f["name"]), two), fuzz_state, re.M) is not None,
                        "%s(%s): in the state fuzz target (fuzz_state_replay --list)" % (f["name"], form["signature"]))
        ck.true(call.search(docs) is not None, f["name"] + " is documented under docs/")

    # 3. arity errors name the signature
    con.execute("CREATE TABLE t(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s)")
    con.execute("INSERT INTO t VALUES (0, 0.1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),"
                " (1, 0.9, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)")
    cols = "abcdefghijklmnopqrs"
    for f in table:
        bad = [f["max_args"] + 1] + ([f["min_args"] - 1] if f["min_args"] > 0 else [])
        if f.get("state_args"):      # counts the state form takes are not arity errors
            bad = [n for n in bad if not f["state_args"][0] <= n <= f["state_args"][1]]
        for n in bad:
            args = ", ".join(cols[:n])
            msg = "%s(): expects (%s), got %d argument%s" % (f["name"], f["signature"], n, "" if n == 1 else "s")
            if f["family"] == "scalar":
                ck.error(con, "SELECT %s(%s) FROM t" % (f["name"], args), (), msg, f["name"] + " arity %d" % n)
                continue
            ck.error(con, "SELECT %s(%s) FROM t" % (f["name"], args), (), msg, f["name"] + " arity %d" % n)
            ck.error(con, "SELECT %s(%s) OVER (ORDER BY a) FROM t" % (f["name"], args), (), msg,
                     f["name"] + " arity %d as a window" % n)
            ck.error(con, "SELECT %s(%s) FROM t WHERE 0" % (f["name"], args), (),
                     "%s(): expects (%s), got a different number of arguments" % (f["name"], f["signature"]),
                     f["name"] + " arity %d on empty input" % n)

    # 4. JSON results are JSON with subtype 'J' (json() keeps them as objects)
    funcs = test_bad_inputs.functions(con)
    for f in table:
        if not f["json"]:
            continue
        if f["family"] == "scalar":
            v = con.execute("SELECT json_valid(%s()), json_type(json_array(%s()), '$[0]')" % (f["name"], f["name"])).fetchone()
        else:
            # the call from the record: data arguments by role, parameters at their examples
            shape, extra = funcs[f["name"]][0], funcs[f["name"]][1]
            if shape in ("mean", "pone"):     # one data argument: x, or a probability p
                args = "b" + extra
            elif shape == "te":               # survival: an event at 1 before a censoring at 2
                roles = {"time": "3 - c", "event": "a", "risk": "b", "p": "b", "horizon": "5", "w": "c",
                         "risk_a": "b", "risk_b": "1 - b"}
                args = ", ".join([roles[r] for r in extra[0]] + list(extra[1]))
            else:
                args = test_bad_inputs.call(f["name"], shape, "a", "b", extra)
                args = args[args.index("(") + 1:-1]
            if f["name"] in ("brier_decomposition", "gains"):  # NULL on fewer rows than bins
                args = "a, b, 1"
            src = "t"
            if f["name"] == "auroc_test":          # (y, s, g): both classes in both groups
                args = "a, b, c"
                src = "(WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 7)" \
                      " SELECT i % 2 AS a, i / 10.0 AS b, i / 4 AS c FROM r)"
            if f["name"] in ("mc_auroc_ci_long", "mc_auroc_ci_long_w"):   # 8 ids of both classes, 2 rows each
                args = "i / 2, i / 2 % 2, i % 2, iif(i % 2, 0.3 + i / 40.0, 0.7 - i / 40.0)" + \
                    (", 1" if f["name"].endswith("_w") else "") + extra
                src = "(WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 15) SELECT i FROM r)"
            if f["name"] == "mc_auroc_ci":         # the bootstrap redraws replicates missing a class: 8 rows
                src = "(WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 7)" \
                      " SELECT i % 2 AS a, i / 10.0 AS b FROM r)"
            if f["name"] in ("strat_gap_ci", "strat_gap_ci_w"):
                # its window needs 10 rows (weight 10) of each class: 60 rows of weight 1, one stratum
                src = "(WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 59)" \
                      " SELECT i % 2 AS a, i / 60.0 AS b FROM r)"
            # a subquery column drops subtypes: call it inside json_array itself
            v = con.execute("SELECT json_valid(%s(%s)), json_type(json_array(%s(%s)), '$[0]') FROM %s"
                            % (f["name"], args, f["name"], args, src)).fetchone()
        ck.equal(v[0], 1, f["name"] + " returns valid JSON")
        ck.true(v[1] in ("object", "array"), f["name"] + " has subtype 'J' (json_array embeds it as JSON, got %r)" % (v[1],))
    check_scalars(ck, mltest.connect())
    mltest.require_family(ck, con, "scalar", __file__)
    ck.finish()


if __name__ == "__main__":
    main()
