# SPDX-License-Identifier: MIT
"""Differential suite: the calibration family's binned weighted twins
(docs/weights.md): reliability_w (both strategies), ece_equal_mass_w,
ece_l2_w, brier_decomposition_w.

Each is compared on random datasets -- ties, values on bin edges, one class,
weights real, integer, zero, from 1e-6 to 1e6 -- with a numpy reference
written here from docs/weights.md's rules, to 1e-12 relative:
  * 'uniform' reliability: equal-width bins, each bin's n, mean_p and
    frac_pos from its sums of w, w p and w y;
  * the cumulative-weight axis: rows ordered by p, ties by label (0 before
    1), weights added in that order;
  * 'quantile' reliability: edges numpy's linear quantile on that axis,
    h = q (W - 1) (0 when W < 1), the lowest and highest p at the ends, a
    value in bin searchsorted(edges[1:-1], p);
  * equal-mass parts: [floor(i W/B), floor((i+1) W/B)) of the axis (the last
    ends at W), a row's weight split between the parts it crosses; NULL when
    W < bins.
and checked for three exact properties: integer weights give bit for bit
the unweighted function over the rows repeated; every window frame shape
gives bit for bit the weighted aggregate over the frame's rows; GROUP BY
gives each group's aggregate.
"""
import json
import math

import numpy as np

import mltest

# (twin's base function, its parameters after w as SQL, bins, strategy)
VARIANTS = [
    ("reliability", "", 10, "uniform"),
    ("reliability", ", 7", 7, "uniform"),
    ("reliability", ", 5, 'quantile'", 5, "quantile"),
    ("reliability", ", 10, 'QUANTILE'", 10, "quantile"),
    ("ece_equal_mass", "", 10, None),
    ("ece_equal_mass", ", 3", 3, None),
    ("ece_l2", ", 4", 4, None),
    ("brier_decomposition", ", 5", 5, None),
]
CASES = sorted({v[0] for v in VARIANTS})
JSON = {"reliability", "brier_decomposition"}


def groups(y, p, w):
    """The cumulative-weight axis: distinct p ascending, each with the exact
    weight of its negatives and positives and where its rows start; W (the
    running sum of the weights in axis order) and P (of the positives')."""
    keep = w > 0
    y, p, w = y[keep], p[keep], w[keep]
    out, c, P = [], 0.0, 0.0
    for v in np.unique(p):
        w0 = math.fsum(w[(p == v) & (y == 0)])
        w1 = math.fsum(w[(p == v) & (y == 1)])
        out.append((float(v), w0, w1, c))
        c += w0
        c += w1
        P += w1
    return out, c, P


def ref_uniform(y, p, w, B):
    keep = w > 0
    y, p, w = y[keep], p[keep], w[keep]
    edges = np.linspace(0, 1, B + 1)
    b = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, B - 1)
    out = []
    for k in np.unique(b):
        m = b == k
        wb = math.fsum(w[m])
        out.append({"bin": int(k), "lo": float(edges[k]), "hi": float(edges[k + 1]), "n": wb,
                    "mean_p": math.fsum(w[m] * p[m]) / wb, "frac_pos": math.fsum(w[m] * y[m]) / wb})
    return out


def at_rank(G, r):
    """The p at rank r of the axis (the largest when r is past the end)."""
    i = 0
    while i + 1 < len(G) and G[i + 1][3] <= r:
        i += 1
    return G[i][0]


def lerp(a, b, g):
    d = b - a
    return b - d * (1.0 - g) if g >= 0.5 else a + d * g


def ref_quantile(y, p, w, B):
    G, W, _ = groups(y, p, w)
    edges = []
    for k in range(B + 1):
        if k == 0:
            edges.append(G[0][0])
            continue
        if k == B:
            edges.append(G[-1][0])
            continue
        q = (float(np.linspace(0, 1, B + 1)[k]) * 100.0) / 100.0
        h = max(q * (W - 1.0), 0.0)
        j = math.floor(h)
        edges.append(lerp(at_rank(G, j), at_rank(G, j + 1.0), h - j))
    inner = np.array(edges[1:-1])
    acc = {}
    for v, w0, w1, _ in G:
        k = int(np.searchsorted(inner, v, side="left"))
        a = acc.setdefault(k, [0.0, 0.0, 0.0])
        a[0] += w0 + w1
        a[1] += w1
        a[2] += (w0 + w1) * v
    return [{"bin": k, "lo": edges[k], "hi": edges[k + 1], "n": a[0], "mean_p": a[2] / a[0],
             "frac_pos": a[1] / a[0]} for k, a in sorted(acc.items())]


def mass_parts(y, p, w, B):
    """Each equal-mass part's (weight, positive weight, sum of w p), or None
    when W < B; and W, P, the Brier score."""
    G, W, P = groups(y, p, w)
    if W < B:
        return None
    edge = [math.floor(i * (W / B)) for i in range(B)] + [W]
    parts = [[0.0, 0.0, 0.0] for _ in range(B)]
    for v, w0, w1, below in G:
        for s, e, pos in ((below, below + w0, 0), (below + w0, below + w0 + w1, 1)):
            for i in range(B):
                ov = min(e, edge[i + 1]) - max(s, edge[i])
                if ov > 0:
                    parts[i][0] += ov
                    parts[i][1] += ov * pos
                    parts[i][2] += ov * v
    brier = math.fsum(w0 * v * v + w1 * (1 - v) * (1 - v) for v, w0, w1, _ in G) / W
    return parts, W, P, brier


def reference(name, y, p, w, B, strategy):
    if not (w > 0).any():
        return None
    if name == "reliability":
        return ref_uniform(y, p, w, B) if strategy == "uniform" else ref_quantile(y, p, w, B)
    m = mass_parts(y, p, w, B)
    if m is None:
        return None
    parts, W, P, brier = m
    terms = []
    for nb, npos, sp in parts:
        if nb > 0:
            pbar, ybar = sp / nb, npos / nb
            terms.append((nb / W, pbar, ybar))
    if name == "ece_equal_mass":
        return math.fsum(a * abs(yb - pb) for a, pb, yb in terms)
    if name == "ece_l2":
        return math.sqrt(math.fsum(a * (pb - yb) ** 2 for a, pb, yb in terms))
    ybar = P / W
    return {"brier": brier,
            "reliability": math.fsum(a * (pb - yb) ** 2 for a, pb, yb in terms),
            "resolution": math.fsum(a * (yb - ybar) ** 2 for a, pb, yb in terms),
            "uncertainty": ybar * (1 - ybar)}


def compare(ck, name, got, want, what):
    if want is None or got is None:
        ck.equal(got, want, what)
        return
    if name == "reliability":
        got = json.loads(got)
        ck.equal([g["bin"] for g in got], [b["bin"] for b in want], what + " bins")
        for g, b in zip(got, want):
            for k in ("lo", "hi", "n", "mean_p", "frac_pos"):
                ck.close(g[k], b[k], "%s bin %d %s" % (what, b["bin"], k))
    elif name == "brier_decomposition":
        got = json.loads(got)
        for k, v in want.items():
            ck.close(got[k], v, what + " " + k, abs_=1e-15)
    else:
        ck.close(got, want, what, abs_=1e-15)


def dataset(rng, i):
    n = int(rng.choice([1, 2, 5, 12, 30, 200, 1000]))
    prev = float(rng.choice([0.0, 0.01, 0.3, 0.5, 0.9, 1.0]))
    y = (rng.random(n) < prev).astype(int)
    kind = ["uniform", "ties", "edges"][i % 3]
    if kind == "edges":                 # values on the bins' edges
        p = rng.choice([0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.9, 1.0], n)
    else:
        p = np.clip(mltest.random_scores(rng, n, kind), 0.0, 1.0)
    w = mltest.random_weights(rng, n, y, mltest.WEIGHT_KINDS[i % 6])
    return y, p, w


@mltest.covers("brier_decomposition_w", "ece_equal_mass_w", "ece_l2_w", "reliability_w")
def test_twins(ck, con):
    """The binned calibration twins against their numpy references on the
    cumulative-weight axis; integer weights = rows repeated; frames; bad weights."""
    table = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    twins = {f["weighted_of"] for f in table if f["weighted_of"]}
    for name in CASES:
        ck.true(name in twins, name + " has a weighted twin")
    rng = np.random.default_rng(20261203)
    for i in range(300):
        y, p, w = dataset(rng, i)
        n = y.size
        rows = [(int(y[k]), float(p[k]), float(w[k]), k % 3) for k in range(n)]
        mltest.load(con, ["y", "p", "w", "g"], rows)
        for name, extra, B, strategy in VARIANTS:
            got = con.execute("SELECT %s_w(y, p, w%s) FROM t" % (name, extra)).fetchone()[0]
            compare(ck, name, got, reference(name, y, p, w, B, strategy),
                    "%s_w(y, p, w%s) dataset %d (n %d)" % (name, extra, i, n))
        # integer weights: the rows repeated, bit for bit
        if i % 6 == 1:
            rep = [(yy, pp, 1.0, g) for (yy, pp, ww, g) in rows for _ in range(int(ww))]
            mltest.load(con, ["y", "p", "w", "g"], rep, table="r")
            for name, extra, _, _ in VARIANTS:
                a = con.execute("SELECT %s_w(y, p, w%s) FROM t" % (name, extra)).fetchone()[0]
                b = con.execute("SELECT %s(y, p%s) FROM r" % (name, extra)).fetchone()[0]
                ck.equal(a, b, "%s_w(y, p, w%s) integer weights = rows repeated, dataset %d" % (name, extra, i))
        # GROUP BY and every window frame: the aggregate over the same rows, bit for bit
        if 5 <= n <= 60 and i % 2 == 0:
            for name, extra, _, _ in VARIANTS:
                mltest.same_as_aggregate(ck, con, "%s_w(y, p, w%s)" % (name, extra), "p", "dataset %d" % i)
    # weight 0 and NULL; weights that are not weights; numeric text
    mltest.load(con, ["y", "p", "w"], [(1, 0.9, 1.0), (0, 0.2, 1.0), (1, 0.4, 2.0), (0, 0.6, 3.0)])
    for name, extra, _, _ in VARIANTS:
        for wsql in ("0", "NULL"):
            ck.equal(con.execute("SELECT %s_w(y, p, %s%s) FROM t" % (name, wsql, extra)).fetchone()[0], None,
                     "%s_w weights all %s: NULL" % (name, wsql))
        # a row of weight 0 is left out, its parameter still checked
        a = con.execute("SELECT %s_w(y, p, CASE WHEN y = 1 AND p < 0.5 THEN 0 ELSE w END%s) FROM t"
                        % (name, extra)).fetchone()[0]
        b = con.execute("SELECT %s_w(y, p, w%s) FROM t WHERE NOT (y = 1 AND p < 0.5)" % (name, extra)).fetchone()[0]
        ck.equal(a, b, name + "_w a row of weight 0 is left out")
        for bad, shown in [("-1", "-1"), ("1e999", "Inf"), ("'x'", "text 'x'"), ("x'00'", "a blob")]:
            ck.error(con, "SELECT %s_w(y, p, CASE WHEN y = 1 THEN %s ELSE w END%s) FROM t" % (name, bad, extra), (),
                     "%s_w(): w must be a non-negative finite number, got %s" % (name, shown),
                     "%s_w bad weight %s" % (name, bad))
        a = con.execute("SELECT %s_w(y, p, '2'%s) FROM t" % (name, extra)).fetchone()[0]
        b = con.execute("SELECT %s_w(y, p, 2%s) FROM t" % (name, extra)).fetchone()[0]
        ck.equal(a, b, name + "_w numeric text weight reads as the number")
    # a zero-weight row's parameter must agree with the group's
    for name in ("reliability", "ece_equal_mass"):
        try:
            con.execute("SELECT %s_w(y, p, CASE WHEN y = 1 THEN 0 ELSE 1 END, CASE WHEN y = 1 THEN 3 ELSE 2 END) FROM t"
                        % name).fetchall()
            msg = None
        except Exception as e:
            msg = str(e)
        ck.true(msg is not None and msg.startswith(name + "_w(): bins"),
                "%s_w: a zero-weight row's bins disagreeing is an error (%r)" % (name, msg))


def main():
    ck = mltest.Checker("weights_calibration")
    con = mltest.connect()
    ck.equal(sorted(test_twins.covers), sorted(n + "_w" for n in CASES), "test_twins covers (mltest.covers) CASES' twins")
    test_twins(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
