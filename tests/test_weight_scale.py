# SPDX-License-Identifier: MIT
"""Weights are scale-free (issues 38, 44): every weighted twin gives for c.w
what it gives for w, wherever c.w and the sums are finite -- but the twins
that docs/weights.md lists as reading weights as counts (read from it here).

Every twin is taken from the records (mleval_functions()'s "weighted_of"),
whatever its call shape: each call form of its signature (the alternatives
split by '|': the binary (y, s, w, ...), the pairs, the stratified, the
monitoring family's (g, x, w), group_disparity's, the multiclass family's
wide (y, p_0, ..., p_k-1, w), JSON (y, probs, w [, params]) and pred forms,
and any form whose roles tests/test_twin_order.py knows, the survival
family's (time, event, risk, w, ...) included) is called with its data
arguments from a table by role and its parameters at their examples.  A twin
that makes a state (ml_state_w, ml_state_mc_w: its bytes hold the weights)
is read through every function that takes its state and whose own twin is
scale-free.  Over random small datasets with real-valued weights in
[0.5, 2]: the result at scale 2^k (k from -1000 to 1000) equals the
unit-scale result bit for bit -- for a JSON result, every number equal, or
(a sum of weights) equal to the unit value times 2^k exactly -- and at
non-powers (1e-300, 1e300/3, 1e-160) to 1e-12 relative, the sums of weights
to 1e-12 of the unit value times c.  Before the fix, products of weights
underflowed (auroc_w NULL at 2^-1000, a wrong value at 1e-160) or
overflowed (1e155); the multiclass twins' mcc, kappa and AUROCs, and
mc_auroc_ci_w, likewise (issue 44 item 2).
"""
import json
import math
import os
import random
import re

import sqlite3

import mltest
import test_twin_order

SRC = os.environ.get("srcdir", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
POWERS = [-1000, -600, -300, -100, 100, 300, 600, 1000]
OTHERS = [1e-300, 1e300 / 3, 1e-160]


def numbers(v, path=""):
    """{path: number or None} of a result (JSON flattened)."""
    if isinstance(v, str) and v[:1] in "[{":
        v = json.loads(v)
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            out.update(numbers(x, path + "." + k))
        return out
    if isinstance(v, list):
        out = {}
        for i, x in enumerate(v):
            out.update(numbers(x, "%s[%d]" % (path, i)))
        return out
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return {path: v}
    return {path: float(v)}


def same(a, b, c, exact):
    if a is None or b is None or not isinstance(a, float) or not isinstance(b, float):
        return a == b
    for want in (a, a * c):
        if exact and b == want:
            return True
        if not exact and math.isfinite(want) and abs(b - want) <= 1e-12 * abs(want) + 1e-300:
            return True
    return False


# The data arguments by role: a binary form's and a multiclass form's (k = 3).
BINARY = {"y": "y", "s": "s", "p": "p", "x": "s", "g": "y", "s_a": "s", "s_b": "p", "p_a": "p", "p_b": "p * p",
          "strat": "z", "group": "z % 3", "time": "t", "event": "y", "risk": "s", "risk_a": "s", "risk_b": "p", "horizon": "5", "w": "w * ?"}
MULTI = {"y": "c", "s_0": "q0", "...": "q1", "s_k-1": "q2", "p_0": "q0", "p_k-1": "q2", "scores": "qj",
         "probs": "qj", "pred": "pr", "w": "w * ?"}


# The long layout (id, y, class, p, w): row i is class i % 3 of id i / 3, its y,
# p and w those of the id's first row (q0, q1, q2 sum to 1); a last id with
# fewer than 3 rows is left out (a NULL id skips its row).
LEAD_ROW = "(SELECT %s FROM t AS u WHERE u.id = t.id / 3 * 3)"
LONG = {"id": "iif(t.id / 3 * 3 + 2 < (SELECT count(*) FROM t), t.id / 3, NULL)", "y": LEAD_ROW % "c",
        "class": "t.id % 3", "p": LEAD_ROW % "CASE t.id % 3 WHEN 0 THEN q0 WHEN 1 THEN q1 ELSE q2 END",
        "w": LEAD_ROW % "w" + " * ?"}


def roles(names):
    if "class" in names:
        return LONG
    return MULTI if set(names) & {"s_k-1", "p_k-1", "scores", "probs", "pred"} else BINARY


def compare(ck, con, sql, what, unit=None):
    """sql (one ? for the scale) at every scale against scale 1; the number
    of calls made."""
    if unit is None:
        unit = numbers(con.execute(sql, (1.0,)).fetchone()[0])
    for k in POWERS + OTHERS:
        c = math.ldexp(1.0, k) if isinstance(k, int) else k
        got = numbers(con.execute(sql, (c,)).fetchone()[0])
        bad = [p for p in unit if not same(unit[p], got.get(p, "missing"), c, isinstance(k, int))]
        ck.true(not bad, "%s, weights x %s: %s" % (
            what, "2^%d" % k if isinstance(k, int) else repr(k),
            ", ".join("%s %r -> %r" % (p, unit[p], got.get(p)) for p in bad[:3])))
    return len(POWERS + OTHERS) + 1


def main():
    ck = mltest.Checker("weight scale")
    con = mltest.connect()
    rng = random.Random(38)
    doc = open(os.path.join(SRC, "docs", "weights.md"), encoding="utf-8").read()
    counted = set(re.findall(r"`([a-z0-9_]+_w)`", doc.split("<!-- count-based twins")[1].split("<!-- /count-based")[0]))
    records = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    twins = {f["name"]: f for f in records if f["weighted_of"]}
    ck.true(counted <= set(twins), "docs/weights.md's count-based twins are twins: %s" % sorted(counted - set(twins)))
    # the functions that read states, each with its state form's parameters
    readers = [(f, "".join(", " + ps["example"] for ps in f["params"][:f["state_args"][1] - 1]))
               for f in records if f["state_args"] and f["name"] + "_w" not in counted]
    con.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, y, s, p, z, t, c, q0, q1, q2, qj, pr, w)")
    calls = 0
    shapes = set()
    checked = set()
    states = set()
    for trial in range(4):
        n = rng.randrange(30, 80)
        rows = []
        for i in range(n):
            q0 = rng.random() * 0.6
            q1 = rng.random() * (1 - q0)
            q = [q0, q1, 1.0 - q0 - q1]
            rows.append((i, int(rng.random() < 0.4), round(rng.random(), 3), rng.random(), rng.randrange(20),
                         round(rng.uniform(0.1, 10.0), 2), rng.randrange(3), q[0], q[1], q[2], json.dumps(q),
                         rng.randrange(3), rng.uniform(0.5, 2.0)))
        con.execute("DELETE FROM t")
        con.executemany("INSERT INTO t VALUES (%s)" % ",".join("?" * 13), rows)
        for name, f in sorted(twins.items()):
            for names, optional in test_twin_order.forms(f):
                try:
                    sql = "SELECT %s FROM t" % test_twin_order.call(f, names, roles(names), optional)
                except ValueError as e:              # a role no table column stands for: teach BINARY/MULTI
                    ck.true(False, str(e))
                    continue
                if "?" not in sql:
                    ck.true(False, "%s: no weight in %s" % (name, sql))
                    continue
                unit = con.execute(sql, (1.0,)).fetchone()[0]
                if isinstance(unit, bytes):          # a state: read through the functions that take it
                    for rd, params in readers:
                        q = "SELECT %s(st%s) FROM (%s)" % (rd["name"], params, sql.replace(" FROM t", " AS st FROM t"))
                        try:
                            con.execute(q, (1.0,)).fetchall()
                        except sqlite3.Error:         # a state of another kind
                            continue
                        calls += compare(ck, con, q, "%s set %d: %s(%s)" % (name, trial, rd["name"], name))
                        shapes.add(tuple(names))
                        checked.add(name)
                        states.add(name)
                    continue
                if name in counted:
                    continue
                calls += compare(ck, con, sql, "%s set %d (%s)" % (name, trial, ", ".join(names)), numbers(unit))
                shapes.add(tuple(names))
                checked.add(name)
    ck.true(len(checked) >= 45, "the twins checked, from the records (%d)" % len(checked))
    ck.true(set(twins) - counted <= checked, "every scale-free twin checked: %s" % sorted(set(twins) - counted - checked))
    print("weight scale: %d twins checked (%d of them states, read through the functions that take them; %d "
          "count-based left out), %d call forms, %d calls" % (len(checked), len(states), len(counted - states),
                                                             len(shapes), calls))
    ck.finish()


if __name__ == "__main__":
    main()
