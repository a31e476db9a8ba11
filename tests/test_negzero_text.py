# SPDX-License-Identifier: MIT
"""No number written into text reads "-0" (issue 37, item 3).

-0.0 and 0.0 are one value to every metric, but a quantile of stratifiers
holding both could come out as either, and strat_report's `reason` text
("fewer than 10 positives in the window [-0, 2]") once printed the sign:
the text then differed between row orders and between the state and the row
forms.  Over random small sets with stratifiers and scores drawn from
{-0.0, 0.0, +-1, 2} (fed in two row orders, as rows and as states, and as
the weighted twin), every JSON text must be free of "-0" as a number and the
three forms must give the same text.
"""
import random
import re
import sqlite3

import mltest

NEG_ZERO = re.compile(r"(?<![0-9.eE])-0(?:\.0+)?(?![0-9.eE])")


def main():
    ck = mltest.Checker("-0 in text")
    con = mltest.connect()
    rng = random.Random(37)
    con.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, y, s, z)")
    for trial in range(600):
        n = rng.randrange(3, 30)
        rows = [(rng.randrange(2), rng.choice([-0.0, 0.0, 1.0, -1.0, 2.0]), rng.choice([-0.0, 0.0, -1.0, 2.0]))
                for _ in range(n)]
        con.execute("DELETE FROM t")
        con.executemany("INSERT INTO t(y, s, z) VALUES (?, ?, ?)", rows)
        texts = {}
        for what, sql in (("rows", "SELECT strat_report(y, s, z) FROM (SELECT * FROM t ORDER BY id)"),
                          ("reversed", "SELECT strat_report(y, s, z) FROM (SELECT * FROM t ORDER BY id DESC)"),
                          ("state", "SELECT strat_report(st) FROM (SELECT ml_state(y, s, z) AS st FROM t)"),
                          ("weighted", "SELECT strat_report_w(y, s, 1, z) FROM t")):
            got = con.execute(sql).fetchone()[0]
            texts[what] = got
            ck.true(got is None or NEG_ZERO.search(got) is None, "set %d, %s: no -0 in %r" % (trial, what, got))
        for what in ("reversed", "state"):
            ck.equal(texts[what], texts["rows"], "set %d: %s = rows" % (trial, what))
        reason = lambda t: None if t is None else re.search(r'"reason":("[^"]*"|null)', t).group(1)
        ck.equal(reason(texts["weighted"]) is None, reason(texts["rows"]) is None, "set %d: weighted twin's reason" % trial)
    # ml_num in error messages: a -0.0 parameter reads as 0.0
    ck.error(con, "SELECT ece(1, 0.5, ?)", (-0.0,), "ece(): bins must be an integer in 1..100000, got 0.0")
    ck.finish()


if __name__ == "__main__":
    main()
