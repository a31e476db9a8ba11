# SPDX-License-Identifier: MIT
"""A window frame over more than 10^5 rows says, once, what it costs (issue 38).

Functions that sort their rows compute each row's result over its whole
frame; past a frame of 100 000 rows the extension logs one SQLITE_WARNING a
process naming the function, the frame's size and the alternative (visible
in the shell after `.log stderr`).  One frame of all the rows (every row a
peer of the others: ORDER BY a constant) makes one such result cheaply.
"""
import os
import subprocess

import mltest

SHELL = os.environ.get("SQLITE3", "sqlite3")


def run(sql):
    script = ".load %s\n.log stderr\n%s\n" % (mltest.LIB, sql)
    p = subprocess.run([SHELL, ":memory:"], input=script, capture_output=True, text=True, timeout=120)
    return p.stdout, p.stderr


def frame(fn, n):
    return ("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d)"
            " SELECT count(v) FROM (SELECT %s OVER (ORDER BY 0) AS v FROM c);" % (n, fn))


def main():
    ck = mltest.Checker("window warning")
    out, err = run(frame("pr_auc(i % 2, (i * 37) % 1000)", 100001))
    ck.equal(out.strip(), "100001", "the frame's rows")
    warn = [l for l in err.splitlines() if "a window frame of" in l]
    ck.equal(len(warn), 1, "one warning for 100001 rows (%r)" % err[:300])
    ck.true(bool(warn) and "pr_auc(): a window frame of 100001 rows" in warn[0] and "ml_state" in warn[0],
            "it names the function, the frame and the alternative: %r" % warn[:1])
    # twice in one process: said once
    out, err = run(frame("pr_auc(i % 2, (i * 37) % 1000)", 100001) + "\n" + frame("ece(i % 2, (i % 97) / 97.0)", 100002))
    ck.equal(sum("a window frame of" in l for l in err.splitlines()), 1, "said once a process")
    # 10^5 rows or fewer, an aggregate, or auroc's live frame (O(log w)): nothing
    for sql in (frame("pr_auc(i % 2, (i * 37) % 1000)", 100000),
                "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100001)"
                " SELECT pr_auc(i % 2, (i * 37) % 1000) FROM c;",
                frame("auroc(i % 2, (i * 37) % 1000)", 100001)):
        out, err = run(sql)
        ck.true("a window frame of" not in err, "no warning: %s" % sql[-60:])
    ck.finish()


if __name__ == "__main__":
    main()
