# SPDX-License-Identifier: MIT
"""Differential suite: strat_pr_auc, strat_gap, strat_report against numpy
(np.quantile window, inclusive) + sklearn's average_precision_score.

Random ql < qh, integer stratifiers with many ties at the quantile values,
the score itself as the stratifier, thin windows (the < 10 per class rule),
GROUP BY and every window frame shape.
"""
import json

import numpy as np
from sklearn.metrics import average_precision_score

import mltest


def ap(y, s):
    return None if len(y) == 0 or y.min() == y.max() else average_precision_score(y, s)


def reference(y, s, z, ql, qh, thr=0.05):
    y = np.asarray(y, int); s = np.asarray(s, float); z = np.asarray(z, float)
    if len(y) == 0:
        return None
    lo, hi = np.quantile(z, ql), np.quantile(z, qh)
    m = (z >= lo) & (z <= hi)
    pos, neg = int(y[m].sum()), int((1 - y[m]).sum())
    full = ap(y, s)
    trimmed = None if pos < 10 or neg < 10 else average_precision_score(y[m], s[m])
    gap = None if full is None or trimmed is None else full - trimmed
    return {"full": full, "trimmed": trimmed, "gap": gap,
            "gap_flag": None if gap is None else bool(gap > thr),
            "stratifier_low": float(lo), "stratifier_high": float(hi), "q_low": ql, "q_high": qh,
            "n": len(y), "n_trimmed": pos + neg, "pos_trimmed": pos, "neg_trimmed": neg}


def check_report(ck, got, want, what):
    if want is None:
        ck.equal(got, None, what)
        return
    got = json.loads(got)
    for k in ["full", "trimmed", "gap", "stratifier_low", "stratifier_high", "q_low", "q_high"]:
        ck.close(got.get(k), want[k], what + " " + k)
    for k in ["gap_flag", "n", "n_trimmed", "pos_trimmed", "neg_trimmed"]:
        ck.equal(got.get(k), want[k], what + " " + k)
    ck.equal(got.get("reason") is None, want["trimmed"] is not None, what + " reason iff trimmed is null")
    if want["trimmed"] is None and got.get("reason"):
        ck.true(got["reason"].startswith("fewer than 10 "), what + " reason text: " + got["reason"])


@mltest.covers("strat_pr_auc", "strat_gap", "strat_report")
def test_stratified(ck, con):
    """strat_pr_auc, strat_gap and strat_report against the reference (scikit-learn's
    average_precision_score on numpy's quantile strata), GROUP BY and every frame."""
    rng = np.random.default_rng(5)
    for trial in range(220):
        n = int(rng.integers(5, 400)) if trial < 150 else int(rng.integers(400, 30000))
        prev = float(rng.choice([0.05, 0.2, 0.3, 0.5]))
        y = (rng.random(n) < prev).astype(int)
        kind = trial % 4
        if kind == 0:                       # the canonical length confound
            z = rng.integers(20, 100, n) + 80 * y
        elif kind == 1:                     # few distinct values: ties at the quantiles
            z = rng.integers(0, 6, n)
        elif kind == 2:
            z = rng.normal(0, 1, n)
        s = np.clip(0.5 * y + rng.normal(0, 0.25, n), 0, 1)
        if kind == 3:                       # the score itself
            z = s
        z = z.astype(float)
        if trial % 3 == 0:
            ql, qh = 0.25, 0.75
        else:
            ql, qh = sorted(rng.random(2))
            if trial % 7 == 0:
                ql, qh = 0.0, 1.0
        thr = float(rng.choice([0.05, 0.0, -0.1]))
        g = rng.integers(0, int(rng.integers(1, 4)), n)
        mltest.load(con, ["y", "s", "z", "g"], [(int(y[i]), float(s[i]), float(z[i]), int(g[i])) for i in range(n)] +
                    [(1, 0.5, None, 0), (None, 0.5, 1.0, 0)])
        what = "trial %d (n=%d kind=%d q=[%g,%g])" % (trial, n, kind, ql, qh)
        if trial % 3 == 0:
            q = "SELECT g, strat_pr_auc(y, s, z), strat_gap(y, s, z), strat_report(y, s, z) FROM t GROUP BY g"
            args = ()
        else:
            q = ("SELECT g, strat_pr_auc(y, s, z, ?, ?), strat_gap(y, s, z, ?, ?), strat_report(y, s, z, ?, ?, ?) "
                 "FROM t GROUP BY g")
            args = (ql, qh, ql, qh, ql, qh, thr)
        for gi, spa, gap, rep in con.execute(q, args):
            m = g == gi
            want = reference(y[m], s[m], z[m], ql, qh, thr if args else 0.05)
            ck.close(spa, want["trimmed"], what + " strat_pr_auc g=%d" % gi)
            ck.close(gap, want["gap"], what + " strat_gap g=%d" % gi)
            check_report(ck, rep, want, what + " strat_report g=%d" % gi)

    # window frames
    for trial in range(6):
        n = int(rng.integers(60, 160))
        y = (rng.random(n) < 0.4).astype(int)
        s = np.round(rng.random(n) * 0.6 + 0.4 * y, 2)
        z = (rng.integers(0, 8, n) + 3 * y).astype(float)
        ts = np.sort(rng.integers(0, n // 2, n))
        g = rng.integers(0, 2, n)
        mltest.load(con, ["y", "s", "z", "ts", "g"], [(int(y[i]), float(s[i]), float(z[i]), int(ts[i]), int(g[i])) for i in range(n)])
        shapes = mltest.FRAMES + ["ORDER BY {o} ROWS BETWEEN 40 PRECEDING AND 40 FOLLOWING"]
        for frame, rid, idx, (rep, spa) in mltest.each_frame(
                con, ["strat_report(y, s, z, 0.1, 0.9, 0.02)", "strat_pr_auc(y, s, z)"], shapes):
            what = "window %d [%s] row %d" % (trial, frame, rid)
            check_report(ck, rep, reference(y[idx], s[idx], z[idx], 0.1, 0.9, 0.02), what)
            want = reference(y[idx], s[idx], z[idx], 0.25, 0.75)
            ck.close(spa, want["trimmed"] if want else None, what + " strat_pr_auc")


def main():
    ck = mltest.Checker("stratified")
    con = mltest.connect()
    test_stratified(ck, con)
    mltest.require_family(ck, con, "stratified", __file__)
    ck.finish()


if __name__ == "__main__":
    main()
