# SPDX-License-Identifier: MIT
"""Differential suite: the ranking family against scikit-learn.

pr_auc  <-> average_precision_score      auroc <-> roc_auc_score
nap     <-> (AP - pi) / (1 - pi)
youden_j, tpr_at_fpr, sens_at_spec, roc_curve <-> roc_curve(drop_intermediate=False)
pr_curve <-> precision_recall_curve (its final (1, 0) point left out)
confusion <-> counts with numpy

Datasets: n from 2 to 100 000, prevalence 1 % to 90 %, ties, integer scores,
signed zeros, several groups (GROUP BY), and every frame shape of
mltest.FRAMES compared frame by frame.
"""
import json
import math

import numpy as np
from sklearn.metrics import (average_precision_score, precision_recall_curve,
                             roc_auc_score, roc_curve)

import mltest

SCALAR = ["pr_auc(y, s)", "auroc(y, s)", "nap(y, s)", "youden_j(y, s)",
          "tpr_at_fpr(y, s, 0.1)", "sens_at_spec(y, s, 0.95)", "tpr_at_fpr(y, s, 0.3)"]


def oracle(expr, y, s):
    """What each scalar function must return for rows (y, s); None = NULL."""
    y = np.asarray(y, dtype=int)
    s = np.asarray(s, dtype=float)
    if len(y) == 0 or y.min() == y.max():
        return None
    if expr.startswith("pr_auc"):
        return average_precision_score(y, s)
    if expr.startswith("auroc"):
        return roc_auc_score(y, s)
    if expr.startswith("nap"):
        pi = y.mean()
        return (average_precision_score(y, s) - pi) / (1 - pi)
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    if expr.startswith("youden_j"):
        return float(np.max(tpr - fpr))
    target = float(expr.split(",")[2].strip(" )"))
    if expr.startswith("tpr_at_fpr"):
        return float(np.max(tpr[fpr <= target]))
    if expr.startswith("sens_at_spec"):
        return float(np.max(tpr[1 - fpr >= target]))
    raise ValueError(expr)


def check_curves(ck, con, y, s, what):
    pr = con.execute("SELECT pr_curve(y, s), roc_curve(y, s) FROM t").fetchone()
    if len(set(y)) < 2:
        ck.equal(pr, (None, None), what + " curves on one class")
        return
    prc, roc = json.loads(pr[0]), json.loads(pr[1])
    p, r, th = precision_recall_curve(y, s)
    p, r, th = p[:-1][::-1], r[:-1][::-1], th[::-1]
    ck.equal(len(prc), len(th), what + " pr_curve length")
    for i, pt in enumerate(prc[:len(th)]):
        ck.close(pt["threshold"], th[i], what + " pr threshold %d" % i, rel=0, abs_=0)
        ck.close(pt["precision"], p[i], what + " pr precision %d" % i)
        ck.close(pt["recall"], r[i], what + " pr recall %d" % i)
    fpr, tpr, th = roc_curve(y, s, drop_intermediate=False)
    ck.equal(len(roc), len(th), what + " roc_curve length")
    ck.equal(roc[0], {"threshold": None, "fpr": 0, "tpr": 0}, what + " roc_curve origin")
    for i, pt in enumerate(roc[1:len(th)], start=1):
        ck.close(pt["threshold"], th[i], what + " roc threshold %d" % i, rel=0, abs_=0)
        ck.close(pt["fpr"], fpr[i], what + " roc fpr %d" % i)
        ck.close(pt["tpr"], tpr[i], what + " roc tpr %d" % i)


def confusion_oracle(y, s, t):
    y = np.asarray(y); s = np.asarray(s)
    pred = s >= t
    tp = int(np.sum(pred & (y == 1))); fp = int(np.sum(pred & (y == 0)))
    tn = int(np.sum(~pred & (y == 0))); fn = int(np.sum(~pred & (y == 1)))
    def r(a, b):
        return None if b == 0 else a / b
    out = {"tp": tp, "fp": fp, "tn": tn, "fn": fn, "sensitivity": r(tp, tp + fn),
           "specificity": r(tn, tn + fp), "ppv": r(tp, tp + fp), "npv": r(tn, tn + fn),
           "f1": r(2 * tp, 2 * tp + fp + fn), "accuracy": r(tp + tn, tp + tn + fp + fn)}
    # issue 24's keys, from their definitions (tests/test_clinical.py checks them against sklearn)
    P, N = tp + fn, tn + fp
    den = (tp + fp) * P * N * (tn + fn)
    out["mcc"] = None if den == 0 else (tp * tn - fp * fn) / math.sqrt(den)
    out["balanced_accuracy"] = None if P == 0 or N == 0 else (tp / P + tn / N) / 2
    out["kappa"] = r(2 * (tp * tn - fn * fp), (tp + fp) * (fp + tn) + P * (fn + tn))
    out["lr_pos"] = None if P == 0 or fp == 0 else r(tp * N, fp * P)
    out["lr_neg"] = None if P == 0 or tn == 0 else r(fn * N, tn * P)
    return out


def check_confusion(ck, got, want, what):
    if want["tp"] + want["fp"] + want["tn"] + want["fn"] == 0:
        ck.equal(got, None, what)
        return
    got = json.loads(got)
    ck.equal(sorted(got), sorted(want), what + " keys")
    for k, v in want.items():
        if v is None or isinstance(v, int):
            ck.equal(got.get(k), v, what + " " + k)
        else:
            ck.close(got.get(k), v, what + " " + k)


KINDS = ["uniform", "ties", "integer", "zeros", "normal"]


@mltest.covers("pr_auc", "auroc", "nap", "youden_j", "tpr_at_fpr", "sens_at_spec", "pr_curve", "roc_curve",
               "confusion")
def test_aggregates(ck, con, rng):
    """GROUP BY and whole-table aggregates on 240 random datasets against
    scikit-learn (confusion's counts and rates with numpy)."""
    kinds = KINDS
    for trial in range(240):
        if trial < 150:
            n = int(rng.integers(2, 400))
        elif trial < 230:
            n = int(rng.integers(400, 20000))
        else:
            n = int(rng.integers(20000, 100001))
        prev = float(rng.choice([0.01, 0.05, 0.2, 0.5, 0.9]))
        kind = kinds[trial % len(kinds)]
        y = (rng.random(n) < prev).astype(int)
        s = mltest.random_scores(rng, n, kind)
        ngroups = int(rng.integers(1, 6))
        g = rng.integers(0, ngroups, n)
        # some labels as REAL 0.0 / 1.0, some NULL rows that must be skipped
        rows = []
        for i in range(n):
            yi = float(y[i]) if i % 7 == 3 else int(y[i])
            rows.append((yi, float(s[i]), int(g[i])))
        nulls = [(None, 0.5, 0), (1, None, 0), (None, None, 1)]
        mltest.load(con, ["y", "s", "g"], rows + nulls)
        what = "trial %d (n=%d prev=%g %s)" % (trial, n, prev, kind)
        q = "SELECT g, %s FROM t WHERE id <= %d GROUP BY g ORDER BY g" % (", ".join(SCALAR), n)
        got = con.execute(q).fetchall()
        for row in got:
            gi = row[0]
            m = g == gi
            for expr, val in zip(SCALAR, row[1:]):
                ck.close(val, oracle(expr, y[m], s[m]), "%s group %d %s" % (what, gi, expr))
        allrow = con.execute("SELECT %s FROM t" % ", ".join(SCALAR)).fetchone()
        for expr, val in zip(SCALAR, allrow):
            ck.close(val, oracle(expr, y, s), "%s all %s" % (what, expr))
        if n <= 5000:
            check_curves(ck, con, y, s, what)
            t = float(np.quantile(s, 0.7))
            got = con.execute("SELECT confusion(y, s, ?) FROM t", (t,)).fetchone()[0]
            check_confusion(ck, got, confusion_oracle(y, s, t), what + " confusion")


@mltest.covers("pr_auc", "auroc", "nap", "youden_j", "tpr_at_fpr", "sens_at_spec", "confusion")
def test_windows(ck, con, rng):
    """Every frame shape, frame by frame, against scikit-learn over the
    frame's rows; a long sliding window (kept-sorted insert/remove)."""
    kinds = KINDS
    for trial in range(10):
        n = int(rng.integers(30, 160))
        prev = float(rng.choice([0.1, 0.3, 0.5]))
        y = (rng.random(n) < prev).astype(int)
        s = mltest.random_scores(rng, n, kinds[trial % len(kinds)])
        ts = np.sort(rng.integers(0, n // 2, n))       # ties in the ORDER BY column
        g = rng.integers(0, 3, n)
        mltest.load(con, ["y", "s", "ts", "g"],
                    [(int(y[i]), float(s[i]), int(ts[i]), int(g[i])) for i in range(n)])
        byid = {i + 1: i for i in range(n)}
        for frame in mltest.FRAMES:
            members = mltest.frames(con, frame, order="ts")
            for expr in SCALAR + ["confusion(y, s, 0.5)"]:
                got = mltest.window(con, expr, frame, order="ts")
                for rid, ids in members:
                    idx = [byid[k] for k in ids]
                    what = "window trial %d [%s] %s row %d" % (trial, frame, expr, rid)
                    if expr.startswith("confusion"):
                        check_confusion(ck, got[rid], confusion_oracle(y[idx], s[idx], 0.5), what)
                    else:
                        ck.close(got[rid], oracle(expr, y[idx], s[idx]), what)
            # curves over a frame are the aggregate's curves over the same rows
            got = mltest.window(con, "pr_curve(y, s)", frame, order="ts")
            for rid, ids in members[::17]:
                want = con.execute("SELECT pr_curve(y, s) FROM t WHERE id IN (%s)" %
                                   ",".join(map(str, ids) if ids else "0")).fetchone()[0]
                ck.equal(got[rid], want, "window trial %d [%s] pr_curve row %d" % (trial, frame, rid))

    # --- a long sliding window: kept-sorted insert/remove over many steps
    n = 3000
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.random(n), 2)
    mltest.load(con, ["y", "s", "g"], [(int(y[i]), float(s[i]), 0) for i in range(n)])
    got = con.execute("SELECT pr_auc(y, s) OVER (ORDER BY id ROWS BETWEEN 199 PRECEDING AND CURRENT ROW), "
                      "auroc(y, s) OVER (ORDER BY id ROWS BETWEEN 199 PRECEDING AND CURRENT ROW) "
                      "FROM t ORDER BY id").fetchall()
    for i in range(0, n, 37):
        lo = max(0, i - 199)
        ck.close(got[i][0], oracle("pr_auc", y[lo:i + 1], s[lo:i + 1]), "sliding pr_auc row %d" % i)
        ck.close(got[i][1], oracle("auroc", y[lo:i + 1], s[lo:i + 1]), "sliding auroc row %d" % i)


def main():
    ck = mltest.Checker("ranking")
    con = mltest.connect()
    rng = np.random.default_rng(20261121)
    test_aggregates(ck, con, rng)
    test_windows(ck, con, rng)
    running_and_wide_frames(ck, con, rng)
    extra = drop_intermediate_difference()
    ck.n += extra.n
    ck.failures += extra.failures
    mltest.require_family(ck, con, "ranking", __file__)
    ck.finish()


@mltest.covers("auroc", "pr_auc")
def running_and_wide_frames(ck, con, rng):
    """Growing frames (the default frame of OVER (ORDER BY ...)) and frames
    wide enough that auroc's counted sets split and merge their blocks: each
    value must equal the aggregate over the same rows exactly (auroc is the
    same integer count either way; pr_auc the same sweep), and the oracle
    closely.  Data: ties, +-Inf, -0.0 beside 0.0, 1 % and 40 % prevalence."""
    for trial, (n, prev, kind) in enumerate([(1500, 0.4, "ties"), (1200, 0.01, "uniform"),
                                             (1300, 0.2, "zeros"), (1100, 0.3, "normal")]):
        y = (rng.random(n) < prev).astype(int)
        y[rng.integers(0, n)] = 1                    # at least one positive
        s = mltest.random_scores(rng, n, kind)
        if trial == 0:
            s[rng.integers(0, n, 40)] = np.inf
            s[rng.integers(0, n, 40)] = -np.inf
        ts = np.sort(rng.integers(0, n // 3, n))     # RANGE peers share a frame end
        g = rng.integers(0, 2, n)
        mltest.load(con, ["y", "s", "ts", "g"], [(int(y[i]), float(s[i]), int(ts[i]), int(g[i])) for i in range(n)])
        shapes = ["ORDER BY id", "ORDER BY ts", "PARTITION BY g ORDER BY id",
                  "ORDER BY id ROWS BETWEEN 699 PRECEDING AND CURRENT ROW",
                  "ORDER BY id ROWS BETWEEN 300 PRECEDING AND 600 FOLLOWING"]
        for shape in shapes:
            members = dict(mltest.frames(con, shape))
            got = {e: mltest.window(con, e, shape, "id") for e in ["auroc(y, s)", "pr_auc(y, s)"]}
            for rid in list(members)[::23] + [n]:
                ids = members[rid]
                idl = ",".join(map(str, ids)) if ids else "0"
                idx = [i - 1 for i in ids]
                for e in ["auroc(y, s)", "pr_auc(y, s)"]:
                    what = "running trial %d [%s] %s row %d" % (trial, shape, e, rid)
                    agg = con.execute("SELECT %s FROM t WHERE id IN (%s)" % (e, idl)).fetchone()[0]
                    ck.equal(got[e][rid], agg, what + " (aggregate)")
                    if len(set(y[idx])) == 2 and np.isfinite(s[idx]).all():   # sklearn rejects Inf
                        ck.close(got[e][rid], oracle(e.split("(")[0], y[idx], s[idx]), what)

@mltest.covers("sens_at_spec", "tpr_at_fpr")
def drop_intermediate_difference():
    """SPEC: operating points over every threshold.  On this dataset the ROC
    has three collinear points (0, .5), (.05, .6), (.1, .7); roc_curve's
    default drop_intermediate=True drops the middle one, so code built on it
    (CeliacRisks' alpha_sensitivity_at_specificity) reports sensitivity 0.5
    at 95 % specificity where 0.6 is reachable.  We report 0.6."""
    ck = mltest.Checker("ranking: drop_intermediate")
    con = mltest.connect()
    y = [1] * 5 + [1] + [0] * 5 + [1] + [0] * 5 + [1] * 3 + [0] * 90
    s = [10.0] * 5 + [9.0] * 6 + [8.0] * 6 + [0.0] * 93
    mltest.load(con, ["y", "s"], list(zip(y, s)))
    fpr, tpr, _ = roc_curve(y, s)                       # default: drops points
    dropped = float(np.max(tpr[1 - fpr >= 0.95]))
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    full = float(np.max(tpr[1 - fpr >= 0.95]))
    ck.close(dropped, 0.5, "sklearn default roc_curve under-reports")
    ck.close(full, 0.6, "every threshold")
    got = con.execute("SELECT sens_at_spec(y, s, 0.95), tpr_at_fpr(y, s, 0.05) FROM t").fetchone()
    ck.close(got[0], 0.6, "sens_at_spec takes every threshold")
    ck.close(got[1], 0.6, "tpr_at_fpr takes every threshold")
    return ck


if __name__ == "__main__":
    main()
