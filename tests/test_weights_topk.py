# SPDX-License-Identifier: MIT
"""Differential suite: the weighted twins of the cuts at a rank
(docs/weights.md, "Cuts on cumulative weight"): precision_at_k_w,
recall_at_k_w, gains_w.

Each is compared on random datasets -- ties, 1 % prevalence, one class, k
above the total weight, weights real, integer, zero, from 1e-6 to 1e6,
inverse-probability, small -- with a reference written here from the
definition, to 1e-12 relative:
  * the axis from the top: the distinct scores descending, each tie group
    occupying [c, e) with c and e the running sums of the exact positive and
    negative weights (tp + fp) before and after it; W = P + N;
  * the top k: min(k, W) of the axis; a group partly inside counts its
    positive weight times (its length inside) / (its weight); precision is
    that over min(k, W), recall over P;
  * gains: part i is [floor(i W/B), floor((i+1) W/B)) of the axis (the last
    ends at W); its "n" is its length, its positives each group's share of
    the overlap; the cumulative values at the part's end; NULL when W < B or
    no positive weight;
the reference itself is checked, with every weight 1, against the
unweighted functions.  Three exact properties: integer weights give bit for
bit the unweighted function over the rows repeated (the JSON's very text);
every window frame shape gives bit for bit the weighted aggregate over the
frame's rows; GROUP BY gives each group's aggregate.
"""
import json
import math

import numpy as np

import mltest

CASES = ["gains", "precision_at_k", "recall_at_k"]


def axis(y, s, w):
    """[(c, e, dtp, d)] per tie group, highest score first, and W, P."""
    keep = w > 0
    y, s, w = y[keep], s[keep], w[keep]
    out, tp, fp = [], 0.0, 0.0
    for v in np.unique(s)[::-1]:
        dtp = math.fsum(w[(s == v) & (y == 1)])
        dfp = math.fsum(w[(s == v) & (y == 0)])
        c = tp + fp
        tp += dtp
        fp += dfp
        out.append((c, tp + fp, dtp, dtp + dfp))
    return out, tp + fp, tp


def share(c, e, dtp, d, lo, hi):
    """Positive weight of the group [c, e) lying in [lo, hi), and whether the
    group lies wholly there."""
    if lo <= c and e <= hi:
        return dtp, True
    inside = min(e, hi) - max(c, lo)
    if inside <= 0:
        return 0.0, False
    return (dtp if inside >= d else inside * dtp / d), False


def top_k(G, k):
    """Positive weight above k on the axis: whole groups summed top down,
    then the share of the one the cut splits."""
    whole, part = 0.0, 0.0
    for c, e, dtp, d in G:
        v, full = share(c, e, dtp, d, 0.0, k)
        if full:
            whole += v
        else:
            part += v
    return whole + part


def ref_top_k(name, y, s, w, k):
    if not (w > 0).any():
        return None
    G, W, P = axis(y, s, w)
    if name == "recall_at_k" and P == 0:
        return None
    kc = min(float(k), W)
    tp = top_k(G, kc)
    return tp / (kc if name == "precision_at_k" else P)


def ref_gains(y, s, w, B):
    if not (w > 0).any():
        return None
    G, W, P = axis(y, s, w)
    if P == 0 or W < B:
        return None
    edge = [float(math.floor(i * (W / B))) for i in range(B)] + [W]
    out = []
    for i in range(B):
        lo, hi = edge[i], edge[i + 1]
        whole, part = 0.0, 0.0
        for c, e, dtp, d in G:
            v, full = share(c, e, dtp, d, lo, hi)
            if full:
                whole += v
            else:
                part += v
        pos, cum, nb = whole + part, top_k(G, hi), hi - lo
        out.append({"bin": i + 1, "n": nb, "positives": pos, "cum_positive_rate": cum / P,
                    "lift": pos * W / (nb * P), "cum_lift": cum * W / (hi * P)})
    return out


def sql(name, par):
    return "%s_w(y, s, w%s)" % (name, "" if par is None else ", %d" % par)


def reference(name, y, s, w, par):
    if name == "gains":
        return ref_gains(y, s, w, 10 if par is None else par)
    return ref_top_k(name, y, s, w, par)


def compare(ck, name, got, want, what):
    if want is None:
        ck.equal(got, None, what + ": NULL")
        return
    if name != "gains":
        ck.close(got, want, what)
        return
    if got is None:
        ck.equal(got, want, what)
        return
    g = json.loads(got)
    ck.equal(len(g), len(want), what + " parts")
    for a, b in zip(g, want):
        for key in b:
            if key == "bin":
                ck.equal(a[key], b[key], what + " bin")
            else:
                ck.close(a[key], b[key], "%s part %d %s" % (what, b["bin"], key))


def dataset(rng, i):
    n = int(rng.choice([1, 2, 5, 12, 30, 200, 1000]))
    prev = float(rng.choice([0.0, 0.01, 0.3, 0.5, 0.9]))
    y = (rng.random(n) < prev).astype(int)
    s = mltest.random_scores(rng, n, ["uniform", "ties", "integer"][i % 3])
    w = mltest.random_weights(rng, n, y, mltest.WEIGHT_KINDS[i % 6])
    if i % 7 == 3:
        w = w * 40.0
    W = math.fsum(w)
    # k: small, a share of the total weight, and above it
    ks = [1, 3, int(W * float(rng.uniform(0.05, 0.95))) + 1, int(W) + 1 + int(rng.integers(0, 5)), 10 ** 12]
    return y, s, w, ks


def variants(ks):
    out = []
    for name in ("precision_at_k", "recall_at_k"):
        out += [(name, k) for k in ks]
    out += [("gains", None), ("gains", 3), ("gains", 7), ("gains", 1)]
    return out


@mltest.covers("gains", "precision_at_k", "recall_at_k")
def check_reference(ck, con, rng):
    """With every weight 1 the reference is the unweighted function."""
    for i in range(60):
        n = int(rng.choice([1, 4, 10, 33, 100]))
        y = (rng.random(n) < float(rng.choice([0.05, 0.4]))).astype(int)
        s = mltest.random_scores(rng, n, ["uniform", "ties", "integer"][i % 3])
        w = np.ones(n)
        mltest.load(con, ["y", "s"], [(int(y[k]), float(s[k])) for k in range(n)])
        for name, par in variants([1, 2, n // 2 + 1, n, n + 3]):
            got = con.execute("SELECT %s(y, s%s) FROM t" % (name, "" if par is None else ", %d" % par)).fetchone()[0]
            compare(ck, name, got, reference(name, y, s, w, par), "reference = %s(y, s, %s), n %d" % (name, par, n))


@mltest.covers("gains_w", "precision_at_k_w", "recall_at_k_w")
def test_twins(ck, con):
    """The cuts at a rank against their numpy reference on the weight axis;
    integer weights = rows repeated; frames; bad weights."""
    mltest.has_twins(ck, con, CASES)
    check_reference(ck, con, np.random.default_rng(11))
    rng = np.random.default_rng(20261128)
    for i in range(300):
        y, s, w, ks = dataset(rng, i)
        n = y.size
        rows = [(int(y[k]), float(s[k]), float(w[k]), k % 3) for k in range(n)]
        mltest.load(con, ["y", "s", "w", "g"], rows)
        V = variants(ks)
        for name, par in V:
            got = con.execute("SELECT %s FROM t" % sql(name, par)).fetchone()[0]
            compare(ck, name, got, reference(name, y, s, w, par),
                    "%s dataset %d (n %d, %s weights)" % (sql(name, par), i, n, mltest.WEIGHT_KINDS[i % 6]))
        # integer weights (and the ipw kind's 1, 2, 4, 10): the rows repeated, bit for bit
        if np.all(w == np.floor(w)) and w.sum() <= 20000:
            rep = [(yy, ss, 1.0, g) for (yy, ss, ww, g) in rows for _ in range(int(ww))]
            mltest.load(con, ["y", "s", "w", "g"], rep, table="r")
            for name, par in V:
                a = con.execute("SELECT %s FROM t" % sql(name, par)).fetchone()[0]
                b = con.execute("SELECT %s(y, s%s) FROM r" % (name, "" if par is None else ", %d" % par)).fetchone()[0]
                ck.equal(a, b, "%s integer weights = rows repeated, dataset %d" % (sql(name, par), i))
        # GROUP BY and every window frame: the aggregate over the same rows, bit for bit
        if 5 <= n <= 60 and i % 2 == 0:
            for name, par in [("precision_at_k", ks[0]), ("precision_at_k", ks[2]), ("recall_at_k", ks[2]),
                              ("gains", 3)]:
                mltest.same_as_aggregate(ck, con, sql(name, par), "s", "dataset %d" % i)
    # a tie group straddling the cut counts with its positive fraction, in any row order
    mltest.load(con, ["y", "s", "w"], [(1, 0.9, 1.5), (0, 0.5, 2.0), (1, 0.5, 0.5), (1, 0.5, 1.0), (0, 0.1, 4.0)])
    ck.equal(con.execute("SELECT precision_at_k_w(y, s, w, 3) FROM t").fetchone()[0], (1.5 + 1.5 * 1.5 / 3.5) / 3,
             "precision_at_k_w: the tie at the cut by its positive fraction")
    ck.equal(con.execute("SELECT recall_at_k_w(y, s, w, 100) FROM t").fetchone()[0], 1.0,
             "recall_at_k_w: k above the total weight takes it all")
    ck.equal(con.execute("SELECT precision_at_k_w(y, s, w, 100) FROM t").fetchone()[0], 3.0 / 9.0,
             "precision_at_k_w: k above the total weight is the weighted prevalence")
    # gains_w: W below the bins is NULL; fewer rows than bins is not
    ck.equal(con.execute("SELECT gains_w(y, s, w / 10, 2) FROM t").fetchone()[0], None, "gains_w W < bins: NULL")
    ck.true(con.execute("SELECT gains_w(y, s, w, 9) FROM t").fetchone()[0] is not None,
            "gains_w 5 rows of weight 9 in 9 bins")
    # weight 0 and NULL; weights that are not weights; numeric text; arity
    mltest.load(con, ["y", "s", "w"], [(k % 2, k / 40.0, 1.0 + k % 3) for k in range(40)])
    for name in CASES:
        call = "%s_w(y, s, %%s, 5)" % name
        for wsql in ("0", "NULL"):
            ck.equal(con.execute("SELECT %s FROM t" % (call % wsql)).fetchone()[0], None,
                     "%s_w weights all %s: NULL" % (name, wsql))
        a = con.execute("SELECT %s FROM t" % (call % "CASE WHEN id % 5 = 0 THEN 0 ELSE w END")).fetchone()[0]
        b = con.execute("SELECT %s FROM t WHERE id %% 5 <> 0" % (call % "w")).fetchone()[0]
        ck.equal(a, b, name + "_w a row of weight 0 is left out")
        for bad, shown in [("-1", "-1"), ("1e999", "Inf"), ("'x'", "text 'x'"), ("x'00'", "a blob")]:
            ck.error(con, "SELECT %s FROM t" % (call % ("CASE WHEN y = 1 THEN %s ELSE w END" % bad)), (),
                     "%s_w(): w must be a non-negative finite number, got %s" % (name, shown),
                     "%s_w bad weight %s" % (name, bad))
        ck.equal(con.execute("SELECT %s FROM t" % (call % "'2'")).fetchone()[0],
                 con.execute("SELECT %s FROM t" % (call % "2")).fetchone()[0],
                 name + "_w numeric text weight reads as the number")
        ck.error(con, "SELECT %s_w(y, s, w, 5, 1, 2) FROM t" % name, (),
                 "%s_w(): expects (y, s, w%s), got 6 arguments" % (name, " [, bins]" if name == "gains" else ", k"),
                 name + "_w arity")
        ck.error(con, "SELECT %s_w(y, s, w, CASE WHEN id = 3 THEN 4 ELSE 5 END) FROM t" % name, (),
                 "%s_w(): %s must be the same in every row of a group, got 5 and then 4"
                 % (name, "bins" if name == "gains" else "k"), name + "_w parameter disagreeing")


def main():
    ck = mltest.Checker("weights_topk")
    con = mltest.connect()
    ck.equal(sorted(test_twins.covers), sorted(n + "_w" for n in CASES), "test_twins covers (mltest.covers) CASES' twins")
    test_twins(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
