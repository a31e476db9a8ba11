# SPDX-License-Identifier: MIT
"""Weights are scale-free (issue 38): every weighted twin gives for c.w what it
gives for w, wherever c.w and the sums are finite -- but the twins that
docs/weights.md lists as reading weights as counts (read from it here).

For each twin of the records (the bad-input matrix's call shapes) over random
small datasets with real-valued weights in [0.5, 2]: the result at scale 2^k
(k from -1000 to 1000) equals the unit-scale result bit for bit -- for a JSON
result, every number equal, or (a sum of weights) equal to the unit value
times 2^k exactly -- and at non-powers (1e-300, 1e300/3) to 1e-12 relative,
the sums of weights to 1e-12 of the unit value times c.  Before the fix,
products of weights underflowed (auroc_w NULL at 2^-1000, a wrong value at
1e-160) or overflowed (1e155).
"""
import json
import math
import os
import random
import re

import mltest
import test_bad_inputs

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


def main():
    ck = mltest.Checker("weight scale")
    con = mltest.connect()
    rng = random.Random(38)
    doc = open(os.path.join(SRC, "docs", "weights.md"), encoding="utf-8").read()
    counted = set(re.findall(r"`([a-z0-9_]+_w)`", doc.split("<!-- count-based twins")[1].split("<!-- /count-based")[0]))
    twins = {n: v for n, v in test_bad_inputs.table().items() if v[0] in ("wscore", "wprob", "wstrat", "wpair", "wppair")}
    ck.true(counted <= set(twins) | {"ml_state_w"}, "docs/weights.md's count-based twins are twins: %s" % sorted(counted - set(twins)))
    twins = {n: v for n, v in twins.items() if n not in counted}
    ck.true(len(twins) >= 25, "the scale-free twins from the records (%d)" % len(twins))
    con.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, y, s, p, z, w)")
    for trial in range(4):
        n = rng.randrange(30, 80)
        rows = [(i, int(rng.random() < 0.4), round(rng.random(), 3), rng.random(), rng.randrange(20), rng.uniform(0.5, 2.0))
                for i in range(n)]
        con.execute("DELETE FROM t")
        con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", rows)
        for name, (shape, extra, _b, _v) in sorted(twins.items()):
            x = "p" if shape in ("wprob", "wppair") else "s"
            call = test_bad_inputs.call(name, shape, "y", x, extra).replace("w, 1, 3", "w, z")
            if shape in ("wscore", "wprob"):
                call = call.replace(", 1" + extra + ")", ", w * ?" + extra + ")", 1)
            elif shape == "wstrat":
                call = call.replace(", 1, 3" + extra + ")", ", w * ?, z" + extra + ")", 1)
            else:
                call = call.replace(", 1" + extra + ")", ", w * ?" + extra + ")", 1)
            if "?" not in call:
                ck.true(False, "%s: no weight in %s" % (name, call))
                continue
            sql = "SELECT %s FROM t" % call
            unit = numbers(con.execute(sql, (1.0,)).fetchone()[0])
            for k in POWERS + OTHERS:
                c = math.ldexp(1.0, k) if isinstance(k, int) else k
                got = numbers(con.execute(sql, (c,)).fetchone()[0])
                bad = [p for p in unit if not same(unit[p], got.get(p, "missing"), c, isinstance(k, int))]
                ck.true(not bad, "%s set %d, weights x %s: %s" % (
                    name, trial, "2^%d" % k if isinstance(k, int) else repr(k),
                    ", ".join("%s %r -> %r" % (p, unit[p], got.get(p)) for p in bad[:3])))
    ck.finish()


if __name__ == "__main__":
    main()
