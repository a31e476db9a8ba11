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
     TESTS) named once.
"""
import json
import os
import re

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
        m = re.match(r"([a-z]+)\.c\s+(.*)$", body)
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
    ck.finish()


if __name__ == "__main__":
    main()
