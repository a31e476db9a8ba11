# SPDX-License-Identifier: MIT
"""gen_test_map -- writes tests/README.md's function -> test table.

Provides: table(records), the table's markdown lines (one row per record of
mleval_functions(): function, family, each test that covers it as
"file :: test function"), and main(), which rewrites the lines of
tests/README.md between BEGIN and END with it.

Rules:
  1. The tests come from mltest.covers_map(): the @mltest.covers(...)
     decorators of the suites make check runs, read with the ast module; so
     the table says what the suites prove, and a family suite's
     mltest.require_family() fails for a record with no such test.
  2. Rows in the records' order (family by family, as mleval_functions()
     lists them); a record without a test shows "(none)" -- test_lists.py
     fails on it, and on a README whose table is not this one.
  3. Run it after adding or moving a differential test:
       make && MLEVAL_LIB=ext/.libs/mleval /usr/bin/python3 tests/gen_test_map.py
     (or `make test-map`).

Cost: one parse of each tests/test_*.py, no test is run.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mltest  # noqa: E402

README = os.path.join(mltest.TESTS_DIR, "README.md")
BEGIN = "<!-- BEGIN function -> test table: written by tests/gen_test_map.py, do not edit -->"
END = "<!-- END function -> test table -->"


def table(records):
    """The markdown lines of the function -> test table."""
    covered = mltest.covers_map()
    out = ["| function | family | differential tests (file :: test function) |", "| --- | --- | --- |"]
    for f in records:
        tests = covered.get(f["name"], [])
        cell = "<br>".join("%s :: %s" % t for t in tests) or "(none)"
        out.append("| `%s` | %s | %s |" % (f["name"], f["family"], cell))
    return out


def current(text):
    """The lines between BEGIN and END of tests/README.md's text, or None."""
    lines = text.split("\n")
    if BEGIN not in lines or END not in lines:
        return None
    return lines[lines.index(BEGIN) + 1:lines.index(END)]


def main():
    records = mltest.records(mltest.connect())
    with open(README, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    if BEGIN not in lines or END not in lines:
        sys.exit("%s: no %r ... %r lines to write between" % (README, BEGIN, END))
    lines[lines.index(BEGIN) + 1:lines.index(END)] = table(records)
    with open(README, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("%s: %d functions" % (README, len(records)))


if __name__ == "__main__":
    main()
