# SPDX-License-Identifier: MIT
"""Hand-written lists of functions agree with the records (issue 40, item 4).

The registration records (mleval_functions()) are the one list of functions;
the fuzz targets, the OOM injection and the bad-input matrix derive theirs
from them (test_registry).  Three lists stay written by hand because people
read them, and this test compares each with the records, so that a new
function fails here until it is listed:
  1. ext/sql/mleval.c's header: the functions each family file provides
     (the records ext/metrics/<file>.c declares, weighted twins aside);
  2. README.md's "Functions" table: every registered function, and no name
     that is not one;
  3. docs/weights.md: every weighted twin, and no `*_w(` that is not one;
  4. tests/README.md's function -> test table: the one tests/gen_test_map.py
     writes from the suites' @mltest.covers (so `grep mc_top_k tests/README.md`
     finds its test and stays true), with a test for every record;
  5. tests/README.md's rooms: every test make check runs (Makefile.am's
     TESTS) named once;
  6. docs/ARCHITECTURE.md's file list: every ext/*/*.c named by its path,
     and no ext/ path, nor a bare file name, that does not exist; "The
     report" names every section struct of tools/report/report.h;
  7. docs/ARCHITECTURE.md's families: every family of the records named
     ("the ranking family"), every function a family file's entry lists is
     a record, and every record that is not a twin is listed under one;
  8. the layering ARCHITECTURE draws: ext/sql/ml_args.c uses no symbol of
     ml_state_sql.c or mleval.c, ml_state_sql.c none of mleval.c, ext/core
     none of ext/sql or ext/metrics, ext/metrics none of mleval.c (on the
     built objects, when they are there).
"""
import glob
import json
import os
import re
import subprocess

import gen_test_map
import mltest

SRC = os.environ.get("srcdir", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def read(*parts):
    with open(os.path.join(SRC, *parts), encoding="utf-8") as f:
        return f.read()


def header_lists(text):
    """{family: set of names} from mleval.c's '**     ranking.c   pr_auc auroc ...' lines."""
    out, cur = {}, None
    for line in text.split("*/", 1)[0].splitlines():
        body = re.sub(r"\([^)]*\)", "", line.lstrip("*").strip())
        m = re.match(r"([a-z_]+)\.c\s+(.*)$", body)
        if m and os.path.exists(os.path.join(SRC, "ext", "metrics", m.group(1) + ".c")):
            cur = m.group(1)
            out[cur] = set(m.group(2).split())
        elif cur and re.fullmatch(r"[a-z0-9_ ]+", body or "-"):
            out[cur] |= set(body.split())
        else:
            cur = None
    return out


def main():
    ck = mltest.Checker("lists")
    con = mltest.connect()
    records = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    names = {f["name"] for f in records}
    # 1. the driver's header
    lists = header_lists(read("ext", "sql", "mleval.c"))
    ck.true(len(lists) >= 7, "mleval.c's header lists the family files (%s)" % sorted(lists))
    twin = {f["name"] for f in records if f["weighted_of"]}
    for fam, listed in sorted(lists.items()):
        # the records a family file declares: its table's rows { "name", ...
        declared = set(re.findall(r'^\s*\{\s*"([a-z][a-z0-9_]*)",', read("ext", "metrics", fam + ".c"), re.M))
        want = (declared & names) - twin
        ck.true(len(want) > 0, "%s.c declares records" % fam)
        ck.equal(sorted(listed), sorted(want), "mleval.c's header, %s.c: the functions it declares" % fam)
    # 2. the README's table
    readme = read("README.md")
    table = readme[readme.index("## Functions"):]
    table = table[:table.index("\n## ", 5)]
    shown = set(re.findall(r"`([a-z][a-z0-9_]*)(?:\(\))?`", table)) | set(re.findall(r"`([a-z][a-z0-9_]*)\(", table))
    for n in sorted(names):
        ck.true(n in shown, "README's Functions table lists %s" % n)
    for n in sorted(shown - names - {"svd_bench", "mleval", "f_w", "sample_weight"}):
        ck.true(False, "README's Functions table names %s, which is not a function" % n)
    # 3. docs/weights.md
    weights = read("docs", "weights.md")
    twins = {f["name"] for f in records if f["weighted_of"] and f["name"].endswith("_w")}
    for n in sorted(twins):
        ck.true(re.search(r"\b%s\(" % n, weights) is not None, "docs/weights.md shows %s(" % n)
    for n in sorted(set(re.findall(r"\b([a-z][a-z0-9_]*_w)\(", weights)) - names - {"f_w"}):
        ck.true(False, "docs/weights.md shows %s(, which is not a function" % n)
    # 4. tests/README.md's function -> test table
    text = read("tests", "README.md")
    got = gen_test_map.current(text)
    want = gen_test_map.table(records)
    ck.true(got is not None, "tests/README.md has the function -> test table's BEGIN and END lines")
    got = got or []
    for row in [r for r in want if r not in got]:
        ck.true(False, "tests/README.md's function -> test table lacks %s (run make test-map)" % row)
    for row in [r for r in got if r not in want]:
        ck.true(False, "tests/README.md's function -> test table has %s, not gen_test_map.py's (run make test-map)" % row)
    ck.equal(got == want, True, "tests/README.md's function -> test table is gen_test_map.py's, in its order")
    for row in want[2:]:
        ck.true(not row.endswith("| (none) |"), "a differential test for each record: " + row)
    # 5. tests/README.md's rooms name every test of make check, once
    mk = read("Makefile.am")
    tests = []
    for m in re.finditer(r"^TESTS\s*\+?=((?:.*\\\n)*.*)$", mk, re.M):
        tests += re.findall(r"tests/([\w.]+)", m.group(1))
    rooms = text[text.index("## Suites by room"):text.index("\n## ", text.index("## Suites by room") + 5)]
    named = re.findall(r"`([\w.]+)`", rooms)
    ck.true(len(tests) > 60, "Makefile.am's TESTS read (%d)" % len(tests))
    for t in sorted(set(tests)):
        ck.equal(named.count(t), 1, "tests/README.md's rooms name %s once" % t)
    for t in sorted(set(n for n in named if re.fullmatch(r"(test_|check_|fuzz_|sql_|cuda_)\w+(\.py|\.sh)?", n))
                    - set(tests)):
        ck.true(False, "tests/README.md's rooms name %s, which make check does not run" % t)
    check_architecture(ck, records)
    check_layering(ck)
    ck.finish()


def check_architecture(ck, records):
    """Items 6 and 7: docs/ARCHITECTURE.md's files and families."""
    arch = read("docs", "ARCHITECTURE.md")
    files = arch[arch.index("## Files"):]
    files = files[:files.index("\n## ", 5)]
    have = sorted(os.path.relpath(p, SRC) for p in glob.glob(os.path.join(SRC, "ext", "*", "*.c")))
    ck.true(len(have) > 40, "ext/*/*.c read (%d files)" % len(have))
    named = set(re.findall(r"\b(ext/[a-z]+/[\w.]+\.[ch])\b", files))
    for f in have:
        ck.true(f in named, "docs/ARCHITECTURE.md's Files names %s" % f)
    for f in sorted(set(re.findall(r"\b(ext/[a-z]+/[\w.]+\.[ch])\b", arch))):
        ck.true(os.path.exists(os.path.join(SRC, f)), "docs/ARCHITECTURE.md names %s, which exists" % f)
    bare = set(os.path.basename(p) for p in glob.glob(os.path.join(SRC, "**", "*.[ch]"), recursive=True))
    for f in sorted(set(re.findall(r"(?<![\w/.-])([a-z][\w]*\.[ch])\b", arch))):
        ck.true(f in bare, "docs/ARCHITECTURE.md names %s, a file of the tree" % f)
    # the report's sections: report.h's *Sec structs, the ones "The report" names
    rep = read("tools", "report", "report.h")
    secs = set(re.findall(r"^\}\s*(\w+Sec)\s*;", rep, re.M)) | set(re.findall(r"typedef struct (\w+Sec)\b", rep))
    ck.true(len(secs) >= 5, "tools/report/report.h's section structs read (%s)" % sorted(secs))
    ck.equal(sorted(set(re.findall(r"\b([A-Z]\w+Sec)\b", arch))), sorted(secs),
             "docs/ARCHITECTURE.md's report names each section struct of report.h")
    # 7. the families and their functions
    fams = {f["family"] for f in records if f["family"] not in ("scalar", "state")}
    for fam in sorted(fams):
        ck.true(re.search(r"\b%s\s+family\b" % fam, arch) is not None,
                "docs/ARCHITECTURE.md names the %s family" % fam)
    names = {f["name"] for f in records}
    listed = set()
    entries = re.split(r"\n(?=ext/|tools/|python/)", files)
    for e in entries:
        m = re.match(r"ext/(?:metrics|sql)/(\w+)\.c\s", e)
        if not m:
            continue
        words = set(re.findall(r"(?<![\w.(/'])([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+)(?![\w.(/])", e))
        fn = {w for w in words if "_" in w or w in names}
        listed |= fn & names
        for w in sorted(w for w in fn - names if re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", w)
                        and not w.startswith(("ml_", "mc_step", "sv_"))):
            ck.true(w in names or w.endswith("_of") or w.startswith("f_"),
                    "docs/ARCHITECTURE.md lists %s under %s.c: a record" % (w, m.group(1)))
    for n in sorted(n for n in names if not any(f["name"] == n and (f["weighted_of"] or f["family"] in ("scalar",))
                                                for f in records)):
        ck.true(n in listed, "docs/ARCHITECTURE.md lists %s under its family's file" % n)


def check_layering(ck):
    """Item 8: no call up the layers, read from the built objects."""
    objs = {os.path.basename(p).split("-", 1)[-1][:-2]: p
            for p in glob.glob(os.path.join("ext", "*", ".libs", "*.o"))}
    if "ml_args" not in objs or "mleval" not in objs:
        print("# layering: no built objects under ext/*/.libs, not checked")
        return

    def syms(path, defined):
        out = subprocess.run(["nm", "--defined-only" if defined else "-u", path],
                             capture_output=True, text=True).stdout.split()
        if defined:
            return {out[i + 2] for i in range(0, len(out) - 2, 3) if out[i + 1] in "TDRB"}
        return {w for w in out if w != "U"}

    def layer(name):
        d = os.path.basename(os.path.dirname(os.path.dirname(objs[name])))
        return d

    above = {"ml_args": {"ml_state_sql", "mleval"}, "ml_state_sql": {"mleval"}}
    for name in objs:
        if layer(name) == "core":
            above[name] = {o for o in objs if layer(o) in ("sql", "metrics")}
        elif layer(name) == "metrics":
            above[name] = {"mleval"}
    for name, ups in sorted(above.items()):
        if name not in objs:
            continue
        used = syms(objs[name], False) - {"sqlite3_api"}
        for up in sorted(ups):
            bad = sorted(used & syms(objs[up], True) - {"sqlite3_api"})
            ck.true(not bad, "%s.c calls nothing of %s.c (calls up the layers: %s)" % (name, up, bad))


if __name__ == "__main__":
    main()
