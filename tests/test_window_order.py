# SPDX-License-Identifier: MIT
"""Windows ordered by time, for each kind of timestamp (docs/usage.md,
issue 37 item 1): the queries of docs/usage.md's block (read from the
file, so doc and test cannot drift) run on a column of the kind each one
names -- numbers, numbers stored as TEXT, ISO-8601 text in one format, ISO-8601
text in mixed formats -- inserted in random order, and every row's result
equals the same window ordered by the true time (an INTEGER column t):

  numbers                       ORDER BY ts
  numbers stored as TEXT        ORDER BY CAST(ts AS REAL)
  ISO-8601 text                 ORDER BY ts
  ISO-8601 text, formats mixed  ORDER BY julianday(ts), ORDER BY unixepoch(ts)
  the last 7 days               ORDER BY julianday(ts) RANGE BETWEEN 7 PRECEDING ...

and the advice the docs warn against gives other numbers, so the test can
fail: ts + 0 and CAST(ts AS REAL) on ISO-8601 text (the year: every row of
2024 ties, the frame follows insertion order), plain ORDER BY ts on numbers
stored as TEXT ('10' < '9') and on mixed ISO-8601 formats (' ' < 'T').
"""
import datetime
import os
import random
import re

import mltest

DOC = os.path.join(os.environ.get("srcdir", os.path.join(os.path.dirname(__file__), "..")), "docs", "usage.md")
MARK = "<!-- tests/test_window_order.py"
N = 2500
WEEK = 7 * 86400


def documented_queries():
    """[(kind, query)] of the sql block after MARK in docs/usage.md."""
    text = open(DOC, encoding="utf-8").read()
    block = re.search(re.escape(MARK) + r".*?\n```sql\n(.*?)```", text, re.S)
    assert block, "docs/usage.md: no sql block after %s" % MARK
    out = []
    for line in block.group(1).splitlines():
        if line.strip():
            q, kind = line.split("--", 1)
            out.append((kind.strip(), q.strip()))
    return out


def iso(t, style):
    d = datetime.datetime(2024, 1, 1) + datetime.timedelta(seconds=t)
    return {0: d.strftime("%Y-%m-%d %H:%M:%S"), 1: d.strftime("%Y-%m-%dT%H:%M:%S"),
            2: d.strftime("%Y-%m-%dT%H:%M:%SZ"), 3: d.strftime("%Y-%m-%d %H:%M:%S.000")}[style]


def main():
    ck = mltest.Checker("window order")
    rng = random.Random(37)
    # unique times over about 115 days of 2024, no two exactly a week apart
    # (a RANGE frame's edge then depends on no rounding)
    times = set()
    while len(times) < N:
        t = rng.randrange(1, 10_000_000)
        if t - WEEK not in times and t + WEEK not in times:
            times.add(t)
    times = sorted(times)
    rows = [(t, int(rng.random() < 0.3 + 0.4 * k / N), rng.random() + 0.5 * (k % 7 == 0))
            for k, t in enumerate(times)]
    rng.shuffle(rows)                                   # inserted in random order
    kinds = {
        "numbers": lambda t: t,
        "numbers stored as TEXT": str,
        "ISO-8601 text": lambda t: iso(t, 0),
        "ISO-8601 text, formats mixed": lambda t: iso(t, rng.randrange(4)),
        "ISO-8601 text: the last 7 days": lambda t: iso(t, rng.randrange(4)),
    }
    con = mltest.connect()

    def table(kind):
        con.execute("DROP TABLE IF EXISTS preds")
        con.execute("CREATE TABLE preds(ts, t INTEGER, y INTEGER, s REAL)")
        con.executemany("INSERT INTO preds VALUES (?, ?, ?, ?)", [(kinds[kind](t), t, y, s) for t, y, s in rows])
        return dict(con.execute("SELECT ts, t FROM preds"))

    def by_time(frame):
        return dict(con.execute("SELECT t, pr_auc(y, s) OVER (ORDER BY t %s) FROM preds" % frame))

    def differing(query, ts_to_t, want):
        return sum(1 for ts, v in con.execute(query) if v != want[ts_to_t[ts]])

    rows_frame = "ROWS BETWEEN 999 PRECEDING AND CURRENT ROW"
    queries = documented_queries()
    ck.equal(sorted({k for k, _ in queries}), sorted(kinds), "docs/usage.md's block names each kind")
    for kind, query in queries:
        ts_to_t = table(kind)
        ck.equal(con.execute("SELECT typeof(ts) FROM preds LIMIT 1").fetchone()[0],
                 "integer" if kind == "numbers" else "text", "%s: the column's type" % kind)
        frame = "RANGE BETWEEN %d PRECEDING AND CURRENT ROW" % WEEK if "RANGE" in query else rows_frame
        want = by_time(frame)
        got = list(con.execute(query))
        ck.equal(len(got), N, "%s: one result per row" % kind)
        bad = [(ts, v, want[ts_to_t[ts]]) for ts, v in got
               if not (v is None and want[ts_to_t[ts]] is None)
               and (v is None or want[ts_to_t[ts]] is None or abs(v - want[ts_to_t[ts]]) > 1e-12 * abs(v))]
        ck.equal(bad[:3], [], "%s: %s equals the window ordered by time" % (kind, query))

    # what the docs warn against differs from time order, on most rows
    win = "pr_auc(y, s) OVER (ORDER BY %s " + rows_frame + ")"
    for kind, order in (("ISO-8601 text", "ts + 0"), ("ISO-8601 text", "CAST(ts AS REAL)"),
                        ("numbers stored as TEXT", "ts"), ("ISO-8601 text, formats mixed", "ts")):
        ts_to_t = table(kind)
        n = differing("SELECT ts, %s FROM preds" % (win % order), ts_to_t, by_time(rows_frame))
        ck.true(n > N // 2, "%s: ORDER BY %s is not time order (%d of %d rows differ)" % (kind, order, n, N))
    ck.equal(con.execute("SELECT '2024-01-05 10:00' + 0, unixepoch('2024-01-05 10:00')").fetchone(),
             (2024, 1704448800), "'2024-01-05 10:00' + 0 is the year; unixepoch() exists here")
    ck.finish()


if __name__ == "__main__":
    main()
