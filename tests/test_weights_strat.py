# SPDX-License-Identifier: MIT
"""Differential suite: the stratified family's weighted twins
(docs/weights.md): strat_pr_auc_w, strat_gap_w, strat_report_w.

Each is compared on random datasets -- ties in the score and the stratifier,
1 % prevalence, one class, thin windows, weights real, integer, zero, from
1e-6 to 1e6, inverse-probability, small -- with a reference written here:
  * the window [Q(ql), Q(qh)]: numpy's linear quantile on the cumulative-
    weight axis of the stratifier (distinct values ascending, each occupying
    its weight; h = q (W - 1), 0 when W < 1; j = floor(h); lerp(value at rank
    j, value at rank j + 1, h - j), the value at rank r the one whose
    interval holds r, the largest when r >= W) -- with every weight 1 this is
    numpy.quantile, which the test also asserts;
  * full and trimmed: scikit-learn's average_precision_score with
    sample_weight over all rows and over the window's rows, to 1e-12;
  * trimmed NULL when a class's weight in the window is below 10; n,
    n_trimmed, pos_trimmed, neg_trimmed sums of weights;
and checked for three exact properties: integer weights give bit for bit
the unweighted function over the rows repeated; every window frame shape
gives bit for bit the weighted aggregate over the frame's rows; GROUP BY
gives each group's aggregate.
"""
import json
import math

import numpy as np
from sklearn.metrics import average_precision_score

import mltest

# (function, the parameters after strat as SQL, ql, qh, gap_threshold)
VARIANTS = [
    ("strat_pr_auc", "", 0.25, 0.75, None),
    ("strat_pr_auc", ", 0.1, 0.9", 0.1, 0.9, None),
    ("strat_gap", "", 0.25, 0.75, None),
    ("strat_gap", ", 0, 0.5", 0.0, 0.5, None),
    ("strat_report", "", 0.25, 0.75, 0.05),
    ("strat_report", ", 0.2, 1, 0.01", 0.2, 1.0, 0.01),
]
CASES = sorted({v[0] for v in VARIANTS})


def lerp(a, b, g):
    """numpy 1.24's lerp, as ml_lerp_np writes it."""
    d = b - a
    return b - d * (1.0 - g) if g >= 0.5 else a + d * g


def wquantile(z, w, q):
    """The linear quantile q on the cumulative-weight axis (rows of w > 0)."""
    vals, below, c = [], [], 0.0
    for v in np.unique(z):
        vals.append(float(v))
        below.append(c)
        c += math.fsum(w[z == v])
    W = c
    h = q * (W - 1.0)
    if not h > 0.0:
        h = 0.0
    j = math.floor(h)

    def at(r):
        i = 0
        while i + 1 < len(vals) and not below[i + 1] > r:
            i += 1
        return vals[i]
    return lerp(at(j), at(j + 1.0), h - j)


def reference(y, s, z, w, ql, qh):
    """{full, trimmed, lo, hi, n, pos, neg} or None (no row of positive weight)."""
    keep = w > 0
    y, s, z, w = y[keep], s[keep], z[keep], w[keep]
    if y.size == 0:
        return None
    lo, hi = wquantile(z, w, ql), wquantile(z, w, qh)
    full = average_precision_score(y, s, sample_weight=w) if 0 < y.sum() < y.size else None
    win = (z >= lo) & (z <= hi)
    pos, neg = math.fsum(w[win & (y == 1)]), math.fsum(w[win & (y == 0)])
    trimmed = None
    if pos >= 10 and neg >= 10:
        trimmed = average_precision_score(y[win], s[win], sample_weight=w[win])
    return {"full": full, "trimmed": trimmed, "lo": lo, "hi": hi, "n": math.fsum(w), "pos": pos, "neg": neg}


def dataset(rng, i):
    n = int(rng.choice([1, 2, 5, 12, 30, 200, 1000]))
    prev = float(rng.choice([0.0, 0.01, 0.3, 0.5, 0.9]))
    y = (rng.random(n) < prev).astype(int)
    s = mltest.random_scores(rng, n, ["uniform", "ties", "integer"][i % 3])
    z = [rng.random(n) * 100, rng.integers(0, 8, n).astype(float), np.round(rng.normal(0, 3, n), 1)][i % 3 - 1]
    w = mltest.random_weights(rng, n, y, mltest.WEIGHT_KINDS[i % 6])
    if i % 7 == 3:                        # heavy weights: windows that pass the 10-weight floor
        w = w * 40.0
    return y, s, z, w


def compare(ck, name, got, want, thr, what):
    if want is None:
        ck.equal(got, None, what + ": NULL")
        return
    if name == "strat_report":
        r = json.loads(got)
        ck.close(r["full"], want["full"], what + " full")
        ck.close(r["trimmed"], want["trimmed"], what + " trimmed")
        ck.close(r["stratifier_low"], want["lo"], what + " stratifier_low")
        ck.close(r["stratifier_high"], want["hi"], what + " stratifier_high")
        ck.close(r["n"], want["n"], what + " n")
        ck.close(r["pos_trimmed"], want["pos"], what + " pos_trimmed")
        ck.close(r["neg_trimmed"], want["neg"], what + " neg_trimmed")
        ck.close(r["n_trimmed"], want["pos"] + want["neg"], what + " n_trimmed")
        ck.true((r["reason"] is None) == (want["trimmed"] is not None), what + " reason iff trimmed is null")
        if want["full"] is not None and want["trimmed"] is not None:
            gap = want["full"] - want["trimmed"]
            ck.close(r["gap"], gap, what + " gap", abs_=1e-12)
            if abs(gap - thr) > 1e-9:
                ck.equal(r["gap_flag"], gap > thr, what + " gap_flag")
        else:
            ck.equal(r["gap"], None, what + " gap null")
    elif name == "strat_pr_auc":
        ck.close(got, want["trimmed"], what)
    else:
        if want["full"] is None or want["trimmed"] is None:
            ck.equal(got, None, what + ": NULL")
        else:
            ck.close(got, want["full"] - want["trimmed"], what, abs_=1e-12)


@mltest.covers("strat_gap_w", "strat_pr_auc_w", "strat_report_w")
def test_twins(ck, con):
    """The stratified twins against the weighted-quantile reference (scikit-learn's
    weighted AP per stratum); integer weights = rows repeated; frames; bad weights."""
    mltest.has_twins(ck, con, CASES)
    # the reference's quantile with unit weights is numpy's
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 10, 57):
        z = np.round(rng.normal(0, 2, n), 1)
        for q in (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0):
            ck.equal(wquantile(z, np.ones(n), q), float(np.quantile(z, q)), "reference quantile n %d q %g" % (n, q))
    rng = np.random.default_rng(20261127)
    for i in range(240):
        y, s, z, w = dataset(rng, i)
        n = y.size
        rows = [(int(y[k]), float(s[k]), float(w[k]), float(z[k]), k % 3) for k in range(n)]
        mltest.load(con, ["y", "s", "w", "z", "g"], rows)
        for name, extra, ql, qh, thr in VARIANTS:
            got = con.execute("SELECT %s_w(y, s, w, z%s) FROM t" % (name, extra)).fetchone()[0]
            compare(ck, name, got, reference(y, s, z, w, ql, qh), thr,
                    "%s_w(y, s, w, z%s) dataset %d (n %d)" % (name, extra, i, n))
        # integer weights: the rows repeated, bit for bit
        if mltest.WEIGHT_KINDS[i % 6] == "integer":
            rep = [(yy, ss, 1.0, zz, g) for (yy, ss, ww, zz, g) in rows for _ in range(int(ww))]
            mltest.load(con, ["y", "s", "w", "z", "g"], rep, table="r")
            for name, extra, _, _, _ in VARIANTS:
                a = con.execute("SELECT %s_w(y, s, w, z%s) FROM t" % (name, extra)).fetchone()[0]
                b = con.execute("SELECT %s(y, s, z%s) FROM r" % (name, extra)).fetchone()[0]
                what = "%s_w(y, s, w, z%s) integer weights = rows repeated, dataset %d" % (name, extra, i)
                if name == "strat_report" and a is not None and b is not None:
                    a, b = json.loads(a), json.loads(b)
                    ck.equal(a.pop("reason") is None, b.pop("reason") is None, what + " (reason)")
                    for k in a:                  # bit for bit: floats compare exactly
                        ck.equal(a[k], b[k], what + " " + k)
                else:
                    ck.equal(a, b, what)
        # GROUP BY and every window frame: the aggregate over the same rows, bit for bit
        if 5 <= n <= 60 and i % 2 == 0:
            for name, extra, _, _, _ in VARIANTS:
                mltest.same_as_aggregate(ck, con, "%s_w(y, s, w, z%s)" % (name, extra), "s", "dataset %d" % i)
    # weight 0 and NULL; weights that are not weights; numeric text; arity
    mltest.load(con, ["y", "s", "w", "z"], [(k % 2, k / 40.0, 1.0 + k % 3, float(k % 7)) for k in range(40)])
    for name in CASES:
        for wsql in ("0", "NULL"):
            ck.equal(con.execute("SELECT %s_w(y, s, %s, z) FROM t" % (name, wsql)).fetchone()[0], None,
                     "%s_w weights all %s: NULL" % (name, wsql))
        a = con.execute("SELECT %s_w(y, s, CASE WHEN id %% 5 = 0 THEN 0 ELSE w END, z) FROM t" % name).fetchone()[0]
        b = con.execute("SELECT %s_w(y, s, w, z) FROM t WHERE id %% 5 <> 0" % name).fetchone()[0]
        ck.equal(a, b, name + "_w a row of weight 0 is left out")
        for bad, shown in [("-1", "-1"), ("1e999", "Inf"), ("'x'", "text 'x'"), ("x'00'", "a blob")]:
            ck.error(con, "SELECT %s_w(y, s, CASE WHEN y = 1 THEN %s ELSE w END, z) FROM t" % (name, bad), (),
                     "%s_w(): w must be a non-negative finite number, got %s" % (name, shown),
                     "%s_w bad weight %s" % (name, bad))
        a = con.execute("SELECT %s_w(y, s, '2', z) FROM t" % name).fetchone()[0]
        b = con.execute("SELECT %s_w(y, s, 2, z) FROM t" % name).fetchone()[0]
        ck.equal(a, b, name + "_w numeric text weight reads as the number")
        ck.error(con, "SELECT %s_w(y, s, w, z, 0.25) FROM t" % name, (),
                 "%s_w(): expects (y, s, w, strat [, ql, qh%s]), got 5 arguments"
                 % (name, " [, gap_threshold]" if name == "strat_report" else ""), name + "_w ql without qh")
        # a zero-weight row's parameter must agree with the group's
        ck.error(con, "SELECT %s_w(y, s, CASE WHEN id = 3 THEN 0 ELSE w END, z, 0.25, "
                      "CASE WHEN id = 3 THEN 0.5 ELSE 0.75 END) FROM t" % name, (),
                 "%s_w(): qh must be the same in every row of a group, got 0.75 and then 0.5" % name,
                 name + "_w a zero-weight row's qh disagreeing")
    # a weighted thin window says so
    r = json.loads(con.execute("SELECT strat_report_w(y, s, 0.1, z) FROM t").fetchone()[0])
    ck.true(r["trimmed"] is None and r["reason"].startswith("positive and negative weights below 10 in the window"),
            "strat_report_w thin window reason (%r)" % r["reason"])


def main():
    ck = mltest.Checker("weights_strat")
    con = mltest.connect()
    ck.equal(sorted(test_twins.covers), sorted(n + "_w" for n in CASES), "test_twins covers (mltest.covers) CASES' twins")
    test_twins(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
