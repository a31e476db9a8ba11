# SPDX-License-Identifier: MIT
"""Writes the deterministic 10^5-row predictions table of the report's golden
test (tests/test_report_golden.py) as CSV on stdout: fold 1..5, y, two
scores (s: informative, s2: weaker, with NULLs), a probability p, and a tiny
group 6 with a single positive.  Python's random with seed 20260101 (the
Mersenne Twister: the same numbers on every Python 3); every REAL is written
with repr(), the shortest text that reads back as the same double.

    /usr/bin/python3 tests/golden/make_report_table.py > report_table.csv
"""
import math
import random
import sys


def main():
    rnd = random.Random(20260101)
    out = sys.stdout
    out.write("id,fold,y,s,s2,p\n")
    for i in range(100000):
        fold = 1 + i % 5
        y = 1 if rnd.random() < 0.1 + 0.03 * fold else 0
        z = rnd.gauss(0.0, 1.0)
        s = 1.3 * y + z
        s2 = "" if rnd.random() < 0.01 else repr(0.5 * y + rnd.gauss(0.0, 1.0) + 0.3 * z)
        p = 1.0 / (1.0 + math.exp(-(s * 1.1 - 2.0)))
        out.write("%d,%d,%d,%r,%s,%r\n" % (i + 1, fold, y, s, s2, p))
    # group 6: one positive, nine negatives (no curve, "not enough positives")
    for j in range(10):
        out.write("%d,6,%d,%r,%r,%r\n" % (100001 + j, 1 if j == 0 else 0, j / 10.0, 1 - j / 10.0, j / 20.0))


if __name__ == "__main__":
    main()
