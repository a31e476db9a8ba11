# SPDX-License-Identifier: MIT
"""Differential suite: the calibration family.

brier     <-> sklearn.metrics.brier_score_loss (numpy mean when one class)
log_loss  <-> sklearn.metrics.log_loss(eps=..., labels=[0, 1])
reliability <-> sklearn.calibration.calibration_curve (data with no value on a
              bin edge: sklearn's bins are (a, b], ours [a, b)); the edges
              themselves against SPEC's rule with numpy
ece, ece_l2_debiased, ece_l2_kumar <-> numpy written here from SPEC's formulas
Datasets: n from 1 to 100 000, calibrated and miscalibrated, ties at bin
edges, GROUP BY and every window frame shape.
"""
import json
import math

import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, log_loss

import mltest


def np_bin(p, B):
    """SPEC: bin b holds b/B <= p < (b+1)/B, p = 1 in the last bin."""
    edges = np.arange(B + 1) / B
    return np.minimum(np.searchsorted(edges, p, side="right") - 1, B - 1)


def ece_ref(y, p, B):
    if len(y) == 0:
        return None
    b = np_bin(p, B)
    tot = 0.0
    for k in np.unique(b):
        m = b == k
        tot += m.sum() / len(y) * abs(y[m].mean() - p[m].mean())
    return tot


def l2_debiased_sq(y, p, B):
    """eval_toolkit's estimator per SPEC, before the sqrt/max."""
    n = len(y)
    if n == 0 or n < B:
        return None
    o = np.lexsort((y, p))
    ys, ps = y[o].astype(float), p[o]
    tot = 0.0
    for i in range(B):
        lo, hi = (i * n) // B, ((i + 1) * n) // B
        if hi <= lo:
            continue
        nb = hi - lo
        pb, yb = ps[lo:hi].mean(), ys[lo:hi].mean()
        tot += nb / n * ((pb - yb) ** 2 - pb * (1 - pb) / nb)
    return tot


def kumar_sq(y, p, B):
    """Kumar, Liang & Ma's debiased L2 error per SPEC, before the sqrt/max."""
    n = len(y)
    if n == 0 or n < B:
        return None
    ps = np.sort(p)
    k = int(math.ceil(n / B))
    parts = [ps[i:i + k] for i in range(0, n, k)]
    edges = [(parts[i][-1] + parts[i + 1][0]) / 2.0 for i in range(len(parts) - 1)] + [1.0]
    b = np.searchsorted(np.array(edges), p, side="left")
    tot = 0.0
    for i in range(len(edges)):
        m = b == i
        nb = int(m.sum())
        if nb < 2:
            continue
        yb, pb = y[m].mean(), p[m].mean()
        tot += nb / n * ((pb - yb) ** 2 - yb * (1 - yb) / (nb - 1))
    return tot


def sq_close(ck, got, want_sq, what):
    """Compares a sqrt(max(0, x)) result on x: the sqrt amplifies the last
    bits of a sum that cancels to ~0, so the comparison is made before it."""
    if want_sq is None:
        ck.equal(got, None, what)
        return
    if got is None:
        ck.equal(got, "a number", what)
        return
    ck.close(got * got, max(want_sq, 0.0), what, rel=1e-12, abs_=1e-15)


def same_reliability(got, want):
    """The window's reliability JSON equals the aggregate's over the same
    rows: the same text, or -- its sums were added in another order -- the
    same bins with mean_p equal to 1e-12."""
    if got == want:
        return True
    a, b = json.loads(got) if got else None, json.loads(want) if want else None
    return a is not None and b is not None and len(a) == len(b) and all(
        x["n"] == z["n"] and abs(x["mean_p"] - z["mean_p"]) <= 1e-12 * abs(z["mean_p"]) + 1e-15 for x, z in zip(a, b))


def oracle(expr, y, p):
    y = np.asarray(y, dtype=int)
    p = np.asarray(p, dtype=float)
    fn, rest = expr.split("(", 1)
    args = [a.strip(" )") for a in rest.split(",")]
    par = args[2] if len(args) > 2 else None
    if len(y) == 0:
        return None
    if fn == "brier":
        if y.min() != y.max():
            return brier_score_loss(y, p)
        return float(np.mean((p - y) ** 2))
    if fn == "log_loss":
        return log_loss(y, p, eps=float(par) if par else 1e-15, labels=[0, 1])
    if fn == "ece":
        return ece_ref(y, p, int(par) if par else 10)
    raise ValueError(expr)


SCALAR = ["brier(y, p)", "log_loss(y, p)", "log_loss(y, p, 0.001)", "ece(y, p)", "ece(y, p, 7)"]
SORTED = [("ece_l2_debiased(y, p)", l2_debiased_sq, 10), ("ece_l2_debiased(y, p, 4)", l2_debiased_sq, 4),
          ("ece_l2_kumar(y, p)", kumar_sq, 15), ("ece_l2_kumar(y, p, 5)", kumar_sq, 5)]


def gen(rng, n, shape):
    if shape == "calibrated":
        p = rng.random(n)
        y = (rng.random(n) < p).astype(int)
    elif shape == "overconfident":
        q = rng.random(n)
        y = (rng.random(n) < q).astype(int)
        p = np.clip(0.5 + 1.6 * (q - 0.5), 0, 1)
    elif shape == "edges":        # many values exactly on bin edges of 10, 0 and 1
        p = rng.integers(0, 11, n) / 10
        y = (rng.random(n) < 0.4).astype(int)
    elif shape == "ties":
        p = np.round(rng.random(n), 2)
        y = (rng.random(n) < p).astype(int)
    else:                         # rare positives, small probabilities
        p = rng.random(n) * 0.05
        y = (rng.random(n) < 0.02).astype(int)
    return y, p


def main():
    ck = mltest.Checker("calibration")
    con = mltest.connect()
    rng = np.random.default_rng(4)
    shapes = ["calibrated", "overconfident", "edges", "ties", "rare"]
    for trial in range(220):
        if trial < 140:
            n = int(rng.integers(1, 300))
        elif trial < 215:
            n = int(rng.integers(300, 20000))
        else:
            n = int(rng.integers(20000, 100001))
        shape = shapes[trial % len(shapes)]
        y, p = gen(rng, n, shape)
        g = rng.integers(0, int(rng.integers(1, 5)), n)
        mltest.load(con, ["y", "p", "g"], [(int(y[i]), float(p[i]), int(g[i])) for i in range(n)] +
                    [(None, 0.5, 0), (1, None, 0)])
        what = "trial %d (n=%d %s)" % (trial, n, shape)
        exprs = SCALAR + [e for e, _, _ in SORTED]
        rows = con.execute("SELECT g, %s FROM t GROUP BY g" % ", ".join(exprs)).fetchall()
        rows.append(("all",) + con.execute("SELECT %s FROM t" % ", ".join(exprs)).fetchone())
        for row in rows:
            m = np.ones(n, bool) if row[0] == "all" else (g == row[0])
            for e, v in zip(SCALAR, row[1:1 + len(SCALAR)]):
                ck.close(v, oracle(e, y[m], p[m]), "%s g=%s %s" % (what, row[0], e), rel=1e-12 if n < 20000 else 1e-10)
            for (e, ref, B), v in zip(SORTED, row[1 + len(SCALAR):]):
                sq_close(ck, v, ref(y[m], p[m], B), "%s g=%s %s" % (what, row[0], e))
        # reliability against sklearn where no value is on an edge
        for B in (10, 4):
            rel = con.execute("SELECT reliability(y, p, ?) FROM t", (B,)).fetchone()[0]
            bins = json.loads(rel) if rel else []
            b = np_bin(p, B)
            ck.equal([x["bin"] for x in bins], sorted(set(b.tolist())), what + " reliability bins B=%d" % B)
            for x in bins:
                mb = b == x["bin"]
                ck.equal(x["n"], int(mb.sum()), what + " reliability n")
                ck.close(x["mean_p"], p[mb].mean(), what + " reliability mean_p")
                ck.close(x["frac_pos"], y[mb].mean(), what + " reliability frac_pos")
                ck.close(x["lo"], x["bin"] / B, what + " lo", rel=0, abs_=0)
                ck.close(x["hi"], (x["bin"] + 1) / B, what + " hi", rel=0, abs_=0)
            on_edge = np.any(np.isclose(p * B, np.round(p * B), rtol=0, atol=1e-9))
            if not on_edge and n > 0:
                prob_true, prob_pred = calibration_curve(y, p, n_bins=B)
                ck.equal(len(bins), len(prob_true), what + " calibration_curve bins B=%d" % B)
                for x, t_, p_ in zip(bins, prob_true, prob_pred):
                    ck.close(x["frac_pos"], t_, what + " calibration_curve frac_pos")
                    ck.close(x["mean_p"], p_, what + " calibration_curve mean_p")

    # edges against SPEC: 0, 1 and exactly b/B for many B
    for B in (1, 2, 3, 7, 10, 49, 100, 1000):
        p = np.array([b / B for b in range(B + 1)] + [0.0, 1.0])
        y = np.zeros(len(p), int)
        mltest.load(con, ["y", "p", "g"], [(0, float(v), 0) for v in p])
        bins = json.loads(con.execute("SELECT reliability(y, p, ?) FROM t", (B,)).fetchone()[0])
        counts = {x["bin"]: x["n"] for x in bins}
        want = {}
        for b in range(B + 1):
            k = min(b, B - 1)
            want[k] = want.get(k, 0) + 1
        want[0] += 1
        want[B - 1] += 1
        ck.equal(counts, want, "edges B=%d: b/B in bin b, 1 in the last" % B)
        ck.close(con.execute("SELECT ece(y, p, ?) FROM t", (B,)).fetchone()[0], ece_ref(y, p, B), "ece edges B=%d" % B)

    # a perfectly calibrated large sample: debiased ~ 0, plug-in ECE is not
    n = 20000
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    mltest.load(con, ["y", "p", "g"], [(int(y[i]), float(p[i]), 0) for i in range(n)])
    e, d, k = con.execute("SELECT ece(y, p, 100), ece_l2_debiased(y, p, 100), ece_l2_kumar(y, p, 100) FROM t").fetchone()
    print("calibrated n=%d, 100 bins: ece %.5f, ece_l2_debiased %.5f, ece_l2_kumar %.5f" % (n, e, d, k))
    ck.true(e > 0.015, "plug-in ECE on calibrated data is biased upwards (%g)" % e)
    ck.true(d < 0.005 and k < 0.005, "debiased estimators near 0 on calibrated data (%g, %g)" % (d, k))

    # window frames, frame by frame
    for trial in range(8):
        n = int(rng.integers(30, 140))
        y, p = gen(rng, n, shapes[trial % len(shapes)])
        ts = np.sort(rng.integers(0, n // 2, n))
        g = rng.integers(0, 3, n)
        mltest.load(con, ["y", "p", "ts", "g"], [(int(y[i]), float(p[i]), int(ts[i]), int(g[i])) for i in range(n)])
        for frame in mltest.FRAMES:
            members = mltest.frames(con, frame, order="ts")
            for expr in SCALAR:
                got = mltest.window(con, expr, frame, order="ts")
                for rid, ids in members:
                    idx = [i - 1 for i in ids]
                    ck.close(got[rid], oracle(expr, y[idx], p[idx]), "window %d [%s] %s row %d" % (trial, frame, expr, rid))
            for expr, ref, B in SORTED[1::2]:
                got = mltest.window(con, expr, frame, order="ts")
                for rid, ids in members:
                    idx = [i - 1 for i in ids]
                    sq_close(ck, got[rid], ref(y[idx], p[idx], B), "window %d [%s] %s row %d" % (trial, frame, expr, rid))
            got = mltest.window(con, "reliability(y, p, 5)", frame, order="ts")
            for rid, ids in members[::11]:
                want = con.execute("SELECT reliability(y, p, 5) FROM t WHERE id IN (%s)" % ",".join(map(str, ids or [0]))).fetchone()[0]
                ck.true(same_reliability(got[rid], want),
                        "window %d [%s] reliability row %d: %s vs %s" % (trial, frame, rid, got[rid], want))
    ck.finish()


if __name__ == "__main__":
    main()
