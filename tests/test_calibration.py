# SPDX-License-Identifier: MIT
"""Differential suite: the calibration family.

brier     <-> sklearn.metrics.brier_score_loss (numpy mean when one class)
log_loss  <-> sklearn.metrics.log_loss(eps=..., labels=[0, 1])
reliability <-> sklearn.calibration.calibration_curve (data with no value on a
              bin edge: sklearn's bins are (a, b], ours [a, b)); the edges
              themselves against SPEC's rule with numpy's linspace
reliability(..., 'quantile') <-> calibration_curve(strategy='quantile') on
              every dataset, its edges against numpy.percentile bit for bit
ece, mce  <-> numpy from SPEC: edges np.linspace(0, 1, B+1)
ece_equal_mass, ece_l2, ece_l2_debiased, brier_decomposition <-> numpy from
              SPEC: parts np.linspace(0, n, B+1, dtype=int) of the rows sorted
              by (p, y)
ece_l2_kumar <-> numpy from SPEC: parts np.array_split, edges deduplicated,
              bisect_left
Datasets: n from 1 to 100 000 (n < bins, n = 1, one class included),
calibrated and miscalibrated, p rounded to 1 and 2 decimals so values land on
edges, GROUP BY and every window frame shape, frame by frame.
"""
import json
import math

import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, log_loss

import mltest


def np_bin(p, B):
    """SPEC: bin b holds e_b <= p < e_{b+1}, e = np.linspace(0, 1, B+1), p = 1
    in the last bin."""
    edges = np.linspace(0, 1, B + 1)
    return np.minimum(np.searchsorted(edges, p, side="right") - 1, B - 1)


def width_bins(y, p, B):
    """[(n_b, mean p, mean y)] over the non-empty equal-width bins."""
    b = np_bin(p, B)
    return [(int((b == k).sum()), p[b == k].mean(), y[b == k].mean()) for k in np.unique(b)]


def ece_ref(y, p, B):
    if len(y) == 0:
        return None
    return sum(nb / len(y) * abs(yb - pb) for nb, pb, yb in width_bins(y, p, B))


def mce_ref(y, p, B):
    if len(y) == 0:
        return None
    return max(abs(yb - pb) for nb, pb, yb in width_bins(y, p, B))


def mass_bins(y, p, B):
    """SPEC's equal-mass parts: rows sorted by (p, y), part i = ranks
    b_i .. b_{i+1} - 1 with b = np.linspace(0, n, B+1, dtype=int); empty
    parts skipped.  [(n_b, mean p, mean y)]; None when n < B."""
    n = len(y)
    if n == 0 or n < B:
        return None
    o = np.lexsort((y, p))
    ys, ps = y[o].astype(float), p[o]
    b = np.linspace(0, n, B + 1, dtype=int)
    return [(hi - lo, ps[lo:hi].mean(), ys[lo:hi].mean()) for lo, hi in zip(b[:-1], b[1:]) if hi > lo]


def ece_mass_ref(y, p, B):
    bins = mass_bins(y, p, B)
    return None if bins is None else sum(nb / len(y) * abs(yb - pb) for nb, pb, yb in bins)


def l2_sq(y, p, B):
    """eval_toolkit's plug-in L2 error before the sqrt."""
    bins = mass_bins(y, p, B)
    return None if bins is None else sum(nb / len(y) * (pb - yb) ** 2 for nb, pb, yb in bins)


def l2_debiased_sq(y, p, B):
    """eval_toolkit's estimator per SPEC, before the sqrt/max."""
    bins = mass_bins(y, p, B)
    if bins is None:
        return None
    return sum(nb / len(y) * ((pb - yb) ** 2 - pb * (1 - pb) / nb) for nb, pb, yb in bins)


def brier_decomposition_ref(y, p, B):
    bins = mass_bins(y, p, B)
    if bins is None:
        return None
    n, ybar = len(y), y.mean()
    return {"brier": float(np.mean((p - y) ** 2)),
            "reliability": sum(nb / n * (pb - yb) ** 2 for nb, pb, yb in bins),
            "resolution": sum(nb / n * (yb - ybar) ** 2 for nb, pb, yb in bins),
            "uncertainty": ybar * (1 - ybar)}


def kumar_edges(p, B):
    """The authors' library (>= 0.1.2): np.array_split parts of the sorted p,
    midpoints between neighbouring parts, then 1.0, duplicates removed."""
    parts = np.array_split(np.sort(p), B)
    edges = [(parts[i][-1] + parts[i + 1][0]) / 2.0 for i in range(B - 1)] + [1.0]
    return sorted(set(edges))


def kumar_sq(y, p, B):
    """Kumar, Liang & Ma's debiased L2 error per SPEC, before the sqrt/max."""
    n = len(y)
    if n == 0 or n < B:
        return None
    edges = kumar_edges(p, B)
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
    if fn == "mce":
        return mce_ref(y, p, int(par) if par else 10)
    if fn == "ece_equal_mass":
        return ece_mass_ref(y, p, int(par) if par else 10)
    raise ValueError(expr)


SCALAR = ["brier(y, p)", "log_loss(y, p)", "log_loss(y, p, 0.001)", "ece(y, p)", "ece(y, p, 7)",
          "mce(y, p)", "mce(y, p, 7)", "ece_equal_mass(y, p)", "ece_equal_mass(y, p, 3)"]
# sqrt(max(0, x)) results, compared on x
SORTED = [("ece_l2_debiased(y, p)", l2_debiased_sq, 10), ("ece_l2_debiased(y, p, 4)", l2_debiased_sq, 4),
          ("ece_l2_kumar(y, p)", kumar_sq, 15), ("ece_l2_kumar(y, p, 5)", kumar_sq, 5),
          ("ece_l2(y, p)", l2_sq, 10), ("ece_l2(y, p, 3)", l2_sq, 3)]


def decomposition_close(ck, got, y, p, B, what):
    want = brier_decomposition_ref(y, p, B)
    if want is None or got is None:
        ck.equal(got, want, what)
        return
    d = json.loads(got)
    ck.equal(sorted(d), sorted(want), what + " fields")
    for k in want:
        ck.close(d[k], want[k], what + " " + k, rel=1e-12 if len(y) < 20000 else 1e-10, abs_=1e-15)


def check_quantile_reliability(ck, got, y, p, B, what):
    """reliability(y, p, B, 'quantile') against sklearn's calibration_curve and
    SPEC's edges: numpy.percentile(p, linspace(0, 1, B+1) * 100), bit for bit."""
    if len(y) == 0:
        ck.equal(got, None, what)
        return
    bins = json.loads(got)
    edges = np.percentile(p, np.linspace(0, 1, B + 1) * 100)
    b = np.searchsorted(edges[1:-1], p)
    ck.equal([x["bin"] for x in bins], sorted(set(b.tolist())), what + " bins")
    for x in bins:
        m = b == x["bin"]
        ck.equal((x["lo"], x["hi"]), (edges[x["bin"]], edges[x["bin"] + 1]), what + " edges")
        ck.equal(x["n"], int(m.sum()), what + " n")
    prob_true, prob_pred = calibration_curve(y, p, n_bins=B, strategy="quantile")
    ck.equal(len(bins), len(prob_true), what + " calibration_curve bins")
    for x, t_, p_ in zip(bins, prob_true, prob_pred):
        ck.close(x["frac_pos"], t_, what + " calibration_curve frac_pos")
        ck.close(x["mean_p"], p_, what + " calibration_curve mean_p")


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
    elif shape == "ties":         # 2 decimals: values on the edges of 4, 5, 10, 20, 25, 50, 100 bins
        p = np.round(rng.random(n), 2)
        y = (rng.random(n) < p).astype(int)
    elif shape == "round1":       # 1 decimal, one class
        p = np.round(rng.random(n), 1)
        y = np.full(n, int(rng.integers(0, 2)))
    else:                         # rare positives, small probabilities
        p = rng.random(n) * 0.05
        y = (rng.random(n) < 0.02).astype(int)
    return y, p


@mltest.covers("brier", "log_loss", "ece", "mce", "reliability", "ece_equal_mass", "ece_l2", "ece_l2_debiased",
               "ece_l2_kumar", "brier_decomposition")
def test_calibration(ck, con):
    """The binned and sorted calibration functions against scikit-learn (brier_score_loss,
    log_loss, calibration_curve) and numpy references written from SPEC, GROUP BY,
    the bin edges and every window frame."""
    rng = np.random.default_rng(4)
    shapes = ["calibrated", "overconfident", "edges", "ties", "rare", "round1"]
    for trial in range(220):
        if trial < 30:
            n = int(rng.integers(1, 16))          # n < bins, n = 1
        elif trial < 140:
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
        exprs = SCALAR + [e for e, _, _ in SORTED] + ["brier_decomposition(y, p)", "brier_decomposition(y, p, 3)",
                                                      "reliability(y, p, 10, 'quantile')", "reliability(y, p, 3, 'QUANTILE')"]
        rows = con.execute("SELECT g, %s FROM t GROUP BY g" % ", ".join(exprs)).fetchall()
        rows.append(("all",) + con.execute("SELECT %s FROM t" % ", ".join(exprs)).fetchone())
        for row in rows:
            m = np.ones(n, bool) if row[0] == "all" else (g == row[0])
            w = "%s g=%s " % (what, row[0])
            for e, v in zip(SCALAR, row[1:1 + len(SCALAR)]):
                ck.close(v, oracle(e, y[m], p[m]), w + e, rel=1e-12 if n < 20000 else 1e-10)
            for (e, ref, B), v in zip(SORTED, row[1 + len(SCALAR):]):
                sq_close(ck, v, ref(y[m], p[m], B), w + e)
            rest = row[1 + len(SCALAR) + len(SORTED):]
            decomposition_close(ck, rest[0], y[m], p[m], 10, w + "brier_decomposition")
            decomposition_close(ck, rest[1], y[m], p[m], 3, w + "brier_decomposition 3")
            check_quantile_reliability(ck, rest[2], y[m], p[m], 10, w + "reliability quantile 10")
            check_quantile_reliability(ck, rest[3], y[m], p[m], 3, w + "reliability quantile 3")
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
                ck.equal((x["lo"], x["hi"]), tuple(np.linspace(0, 1, B + 1)[x["bin"]:x["bin"] + 2]), what + " lo, hi")
            on_edge = np.any(np.isclose(p * B, np.round(p * B), rtol=0, atol=1e-9))
            if not on_edge and n > 0:
                prob_true, prob_pred = calibration_curve(y, p, n_bins=B)
                ck.equal(len(bins), len(prob_true), what + " calibration_curve bins B=%d" % B)
                for x, t_, p_ in zip(bins, prob_true, prob_pred):
                    ck.close(x["frac_pos"], t_, what + " calibration_curve frac_pos")
                    ck.close(x["mean_p"], p_, what + " calibration_curve mean_p")

    # edges against SPEC: the linspace edges e_b themselves (in bin b), the
    # quotients b/B (which are a different double for some b: 3/10 < e_3),
    # 0 and 1 (in the last bin), for many B
    for B in (1, 2, 3, 7, 10, 49, 100, 1000):
        e = np.linspace(0, 1, B + 1)
        p = np.array(list(e) + [b / B for b in range(B + 1)] + [0.0, 1.0])
        y = np.arange(len(p)) % 2
        mltest.load(con, ["y", "p", "g"], [(int(y[i]), float(v), 0) for i, v in enumerate(p)])
        bins = json.loads(con.execute("SELECT reliability(y, p, ?) FROM t", (B,)).fetchone()[0])
        counts = {x["bin"]: x["n"] for x in bins}
        b = np_bin(p, B)
        ck.equal(counts, {int(k): int((b == k).sum()) for k in np.unique(b)}, "edges B=%d: counts" % B)
        ck.true(all(np_bin(e[:-1], B) == np.arange(B)), "edges B=%d: e_b in bin b (the reference itself)" % B)
        for expr, ref in (("ece", ece_ref), ("mce", mce_ref)):
            ck.close(con.execute("SELECT %s(y, p, ?) FROM t" % expr, (B,)).fetchone()[0], ref(y, p, B), "%s edges B=%d" % (expr, B))
    shifted = [(B, b) for B in range(1, 200) for b in range(1, B) if b / B < np.linspace(0, 1, B + 1)[b]]
    print("b/B below the linspace edge e_b (so in bin b-1) for %d of the inner edges of 1..199 bins" % len(shifted))
    ck.true(len(shifted) > 100, "the linspace edges differ from b/B often enough to be tested")
    for B, b in shifted[::7]:
        mltest.load(con, ["y", "p", "g"], [(1, b / B, 0)])
        got = json.loads(con.execute("SELECT reliability(y, p, ?) FROM t", (B,)).fetchone()[0])[0]["bin"]
        ck.equal(got, b - 1, "p = %d/%d lies below e_%d: bin %d" % (b, B, b, b - 1))

    # equal-mass boundaries: floor(i * (n/B)) in doubles differs from integer
    # floor(i*n/B) for some (n, B); ece_equal_mass must follow numpy there
    differ = [(n, B) for n in range(2, 160) for B in range(1, n + 1)
              if any(np.linspace(0, n, B + 1, dtype=int) != (np.arange(B + 1) * n) // B)]
    print("equal-mass boundaries differ from integer floor(i n / B) for %d (n, B) pairs with n < 160" % len(differ))
    ck.true((30, 22) in differ, "n = 30, B = 22 is one of them")
    for n, B in differ[::5]:
        p = np.round(rng.random(n), 2)
        y = (rng.random(n) < p).astype(int)
        mltest.load(con, ["y", "p", "g"], [(int(y[i]), float(p[i]), 0) for i in range(n)])
        got = con.execute("SELECT ece_equal_mass(y, p, ?), ece_l2(y, p, ?), ece_l2_debiased(y, p, ?) FROM t", (B, B, B)).fetchone()
        ck.close(got[0], ece_mass_ref(y, p, B), "ece_equal_mass n=%d B=%d" % (n, B))
        sq_close(ck, got[1], l2_sq(y, p, B), "ece_l2 n=%d B=%d" % (n, B))
        sq_close(ck, got[2], l2_debiased_sq(y, p, B), "ece_l2_debiased n=%d B=%d" % (n, B))

    # Kumar: array_split parts give exactly B parts; ceil-sized ones gave
    # fewer (10 rows: 5..9 bins all cut the same way)
    n = 10
    p = np.round(rng.random(n), 3)
    y = (rng.random(n) < p).astype(int)
    mltest.load(con, ["y", "p", "g"], [(int(y[i]), float(p[i]), 0) for i in range(n)])
    vals = [con.execute("SELECT ece_l2_kumar(y, p, ?) FROM t", (B,)).fetchone()[0] for B in range(1, 11)]
    for B, v in zip(range(1, 11), vals):
        sq_close(ck, v, kumar_sq(y, p, B), "ece_l2_kumar 10 rows, %d bins" % B)
    ck.true(len(set(vals[4:9])) > 1, "ece_l2_kumar on 10 rows differs across 5..9 bins (%r)" % vals[4:9])

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
            got = mltest.window(con, "brier_decomposition(y, p, 3)", frame, order="ts")
            for rid, ids in members:
                idx = [i - 1 for i in ids]
                decomposition_close(ck, got[rid], y[idx], p[idx], 3, "window %d [%s] brier_decomposition row %d" % (trial, frame, rid))
            got = mltest.window(con, "reliability(y, p, 4, 'quantile')", frame, order="ts")
            for rid, ids in members[::3]:
                idx = [i - 1 for i in ids]
                check_quantile_reliability(ck, got[rid], y[idx], p[idx], 4, "window %d [%s] reliability quantile row %d" % (trial, frame, rid))
            for strat in ("", ", 'uniform'", ", 'quantile'"):
                expr = "reliability(y, p, 5%s)" % strat
                got = mltest.window(con, expr, frame, order="ts")
                for rid, ids in members[::11]:
                    want = con.execute("SELECT %s FROM t WHERE id IN (%s)" % (expr, ",".join(map(str, ids or [0])))).fetchone()[0]
                    ck.true(same_reliability(got[rid], want),
                            "window %d [%s] %s row %d: %s vs %s" % (trial, frame, expr, rid, got[rid], want))
    many_bins(ck, con, rng)


def main():
    ck = mltest.Checker("calibration")
    con = mltest.connect()
    test_calibration(ck, con)
    mltest.require_family(ck, con, "calibration", __file__)
    ck.finish()


def reliability_ref(y, p, B):
    """[(bin, n, mean_p, frac_pos)] for the non-empty bins, ascending."""
    b = np_bin(p, B)
    return [(int(k), int((b == k).sum()), float(p[b == k].mean()), float(y[b == k].mean())) for k in np.unique(b)]


@mltest.covers("ece", "mce", "reliability")
def many_bins(ck, con, rng):
    """More bins than CAL_DENSE_MAX (1024): a group keeps its rows until they
    outnumber bins/4, then moves to the bins.  Groups on both sides of the
    switch, values on bin edges, and sliding frames that cross it."""
    for trial in range(12):
        B = [1025, 5000, 100000][trial % 3]
        n = int(rng.integers(50, 4000))
        y, p = gen(rng, n, ["calibrated", "edges", "ties", "rare"][trial % 4])
        if trial % 4 == 1:
            p = rng.integers(0, B + 1, n) / B            # every value on an edge of B
        g = np.where(rng.random(n) < 0.5, rng.integers(0, 400, n), 400)   # small groups and a big one
        mltest.load(con, ["y", "p", "g"], [(int(y[i]), float(p[i]), int(g[i])) for i in range(n)])
        rows = con.execute("SELECT g, ece(y, p, ?), reliability(y, p, ?), mce(y, p, ?) FROM t GROUP BY g",
                           (B, B, B)).fetchall()
        for gid, e, rel, mc in rows:
            m = g == gid
            what = "many bins trial %d B=%d g=%d (n=%d)" % (trial, B, gid, m.sum())
            ck.close(e, ece_ref(y[m], p[m], B), what + " ece")
            ck.close(mc, mce_ref(y[m], p[m], B), what + " mce")
            got = [(x["bin"], x["n"], x["mean_p"], x["frac_pos"]) for x in json.loads(rel)]
            want = reliability_ref(y[m], p[m], B)
            ck.equal([x[:2] for x in got], [x[:2] for x in want], what + " reliability bins")
            for a, b in zip(got, want):
                ck.close(a[2], b[2], what + " mean_p")
                ck.close(a[3], b[3], what + " frac_pos")
    # a frame that grows past bins/4 and shrinks back under it
    n, B = 900, 2000
    y, p = gen(rng, n, "calibrated")
    mltest.load(con, ["y", "p"], [(int(y[i]), float(p[i])) for i in range(n)])
    for frame in ["ORDER BY id ROWS BETWEEN 599 PRECEDING AND CURRENT ROW", "ORDER BY id"]:
        got_m = mltest.window(con, "mce(y, p, %d)" % B, frame)
        got_e = mltest.window(con, "ece(y, p, %d)" % B, frame)
        got_r = mltest.window(con, "reliability(y, p, %d)" % B, frame)
        members = mltest.frames(con, frame)
        for rid, ids in members[::7]:
            idx = [i - 1 for i in ids]
            ck.close(got_e[rid], ece_ref(y[idx], p[idx], B), "many bins frame [%s] ece row %d" % (frame, rid))
            ck.close(got_m[rid], mce_ref(y[idx], p[idx], B), "many bins frame [%s] mce row %d" % (frame, rid))
            want = con.execute("SELECT reliability(y, p, %d) FROM t WHERE id IN (%s)" % (B, ",".join(map(str, ids)))).fetchone()[0]
            ck.true(same_reliability(got_r[rid], want), "many bins frame [%s] reliability row %d" % (frame, rid))


if __name__ == "__main__":
    main()
