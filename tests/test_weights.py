# SPDX-License-Identifier: MIT
"""Differential suite: the weighted twins f_w(y, s, w, ...) (docs/weights.md).

The twins are read from the extension's records (mleval_functions()'s
"weighted_of"); each must be covered here, or the test fails (the calibration
family's binned twins in test_weights_calibration.py, the stratified
family's in test_weights_strat.py, calibration_summary_w in
test_weights_calsum.py, the cuts at a rank (precision_at_k,
recall_at_k, gains) in test_weights_topk.py, calibration_smooth_w in
test_calsmooth_w.py, the weighted bootstrap's *_ci_w twins in
test_weights_boot.py, which asserts the same).  On random
datasets -- ties, 1 % prevalence, one class, weights real, integer and zero,
tiny and large groups -- every twin is compared with
  * scikit-learn 1.2's sample_weight results where it has the metric
    (average_precision_score, roc_auc_score, roc_curve, brier_score_loss,
    log_loss, confusion_matrix, matthews_corrcoef, fbeta_score), to 1e-12
    relative;
  * a numpy reference written from the definition elsewhere (nap, youden_j,
    ks, tpr_at_fpr, sens_at_spec, pr_curve, ece, mce, net_benefit,
    precision_at_prior);
and checked for three exact properties:
  * integer weights give bit for bit the unweighted function over the rows
    repeated that many times (weight 0: the row left out);
  * every window frame shape gives bit for bit the weighted aggregate over
    the frame's rows;
  * GROUP BY gives each group's aggregate.
"""
import json
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
from sklearn import metrics as skm

import mltest
import test_weights_calibration
import test_weights_calsum
import test_calsmooth_w
import test_weights_strat
import test_weights_topk

BINS = 10


def curve(y, s, w):
    """scikit-learn's _binary_clf_curve with weights, rows of weight 0 dropped:
    (fps, tps, thresholds), highest threshold first."""
    keep = w > 0
    y, s, w = y[keep], s[keep], w[keep]
    order = np.argsort(-s, kind="mergesort")
    y, s, w = y[order], s[order], w[order]
    idx = np.r_[np.where(np.diff(s))[0], y.size - 1]
    tps = np.cumsum(w * y)[idx]
    fps = np.cumsum(w * (1 - y))[idx]
    return fps, tps, s[idx]


def ref_rank(name, y, s, w, param):
    fps, tps, thr = curve(y, s, w)
    P, N = tps[-1], fps[-1]
    tpr, fpr = tps / P, fps / N
    if name == "pr_auc":
        return skm.average_precision_score(y, s, sample_weight=w)
    if name == "auroc":
        return skm.roc_auc_score(y, s, sample_weight=w)
    if name == "nap":
        pi = np.sum(w * y) / np.sum(w)
        return (skm.average_precision_score(y, s, sample_weight=w) - pi) / (1 - pi)
    if name == "youden_j":
        return max(0.0, float(np.max(tpr - fpr)))
    if name == "ks":
        return float(np.max(np.abs(tpr - fpr)))
    if name == "tpr_at_fpr":
        ok = fpr <= param
        return max([0.0] + list(tpr[ok]))
    if name == "sens_at_spec":
        ok = 1 - fpr >= param
        return max([0.0] + list(tpr[ok]))
    if name == "partial_auroc":
        return skm.roc_auc_score(y, s, sample_weight=w, max_fpr=param)
    if name == "operating_point":      # 'youden': the first (highest) threshold of max TPR - FPR > 0
        j = tpr - fpr
        k = int(np.argmax(j))
        if j[k] <= 0:
            return {"threshold": None, "tp": 0.0, "fp": 0.0}
        return {"threshold": float(thr[k]), "tp": float(tps[k]), "fp": float(fps[k])}
    if name == "roc_curve":
        f, t, _ = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
        return list(zip(f, t))
    if name == "pr_curve":
        return list(zip(tps / (tps + fps), tps / P))
    raise ValueError(name)


def ref_confusion(name, y, s, w, t, extra):
    pred = (s >= t).astype(int)
    tn, fp, fn, tp = skm.confusion_matrix(y, pred, labels=[0, 1], sample_weight=w).ravel()
    n = tn + fp + fn + tp
    if name == "confusion":
        return {"tp": tp, "fp": fp, "tn": tn, "fn": fn}
    if name == "mcc":
        if min(tp + fp, tp + fn, tn + fp, tn + fn) == 0:
            return None
        # The exact MCC of the exact weighted cells (rationals, a 60-digit
        # square root): scikit-learn's n_correct * n - t . p cancels when
        # weights span 1e-6..1e6 and MCC is near 0 (1e-9 relative off; a
        # documented difference, docs/weights.md).  Where the cells are
        # well-conditioned the two agree to 1e-12 (checked below).
        c = {}
        for yy in (0, 1):
            for pp in (0, 1):
                c[yy, pp] = sum((Fraction(float(x)) for x in w[(y == yy) & (pred == pp)]), Fraction(0))
        num = c[1, 1] * c[0, 0] - c[0, 1] * c[1, 0]
        den = (c[1, 1] + c[0, 1]) * (c[1, 1] + c[1, 0]) * (c[0, 0] + c[0, 1]) * (c[0, 0] + c[1, 0])
        with localcontext() as ctx:
            ctx.prec = 60
            exact = float((Decimal(num.numerator) / Decimal(num.denominator))
                          / (Decimal(den.numerator) / Decimal(den.denominator)).sqrt())
        sk = skm.matthews_corrcoef(y, pred, sample_weight=w)
        if w.max() / max(w[w > 0].min(), 1e-300) < 1e3:
            assert abs(sk - exact) <= 1e-12 * max(abs(exact), 1e-300) + 1e-15, (sk, exact)
        return exact
    if name == "f_beta":
        if tp + fp + fn == 0:
            return None
        return skm.fbeta_score(y, pred, beta=extra, sample_weight=w, zero_division=0)
    if name == "net_benefit":
        return tp / n - fp / n * (t / (1 - t))
    if name == "precision_at_prior":
        P, N = tp + fn, tn + fp
        if P == 0 or N == 0:
            return None
        tpr, fpr = tp / P, fp / N
        return tpr * extra / (tpr * extra + fpr * (1 - extra)) if tpr + fpr > 0 else None
    raise ValueError(name)


def ref_calibration(name, y, p, w, bins):
    keep = w > 0
    y, p, w = y[keep], p[keep], w[keep]
    if name == "brier":
        return skm.brier_score_loss(y, p, sample_weight=w)
    if name == "log_loss":
        return skm.log_loss(y, p, sample_weight=w, labels=[0, 1], eps=1e-15)
    edges = np.linspace(0, 1, bins + 1)
    b = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, bins - 1)
    ece, mce = 0.0, 0.0
    for k in np.unique(b):
        m = b == k
        wb = w[m].sum()
        ece += abs((w[m] * y[m]).sum() - (w[m] * p[m]).sum())
        mce = max(mce, abs((w[m] * y[m]).sum() / wb - (w[m] * p[m]).sum() / wb))
    return ece / w.sum() if name == "ece" else mce


# Each twin: (its base function's family of reference, parameters after w as SQL, the parameter value)
CASES = {
    "pr_auc": ("rank", "", None), "auroc": ("rank", "", None), "nap": ("rank", "", None),
    "youden_j": ("rank", "", None), "ks": ("rank", "", None),
    "tpr_at_fpr": ("rank", ", 0.2", 0.2), "sens_at_spec": ("rank", ", 0.8", 0.8),
    "partial_auroc": ("rank", ", 0.3", 0.3), "decision_curve": ("dc", ", 0.1, 0.9, 0.2", None), "operating_point": ("rank", ", 'youden'", None),
    "roc_curve": ("rank", "", None), "pr_curve": ("rank", "", None),
    "confusion": ("conf", ", 0.5", None), "mcc": ("conf", ", 0.5", None),
    "f_beta": ("conf", ", 0.5, 2", 2.0), "net_benefit": ("conf", ", 0.3", None),
    "precision_at_prior": ("conf", ", 0.5, 0.1", 0.1),
    "brier": ("cal", "", None), "log_loss": ("cal", "", None),
    "ece": ("cal", "", None), "mce": ("cal", ", 5", 5),
}
PROB = {"net_benefit", "decision_curve", "brier", "log_loss", "ece", "mce"}


# The weights of dataset i: KINDS[i % 5] (mltest.random_weights), 1e-6..1e6 included.
KINDS = ("exponential", "integer", "steps", "ipw", "log-uniform")


def dataset(rng, i, kinds=KINDS):
    n = int(rng.choice([1, 2, 5, 30, 200, 1000]))
    prev = float(rng.choice([0.01, 0.2, 0.5, 0.9]))
    y = (rng.random(n) < prev).astype(int)
    kind = ["uniform", "ties", "edges"][i % 3]
    if kind == "edges":                 # values on the bins' edges and thresholds
        s = rng.choice([0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0], n)
    else:
        s = mltest.random_scores(rng, n, kind)
        s = np.clip(s, 0.0, 1.0)
    w = mltest.random_weights(rng, n, y, kinds[i % len(kinds)])
    return y, s, w


def value(name, got):
    return json.loads(got) if got is not None and name in ("roc_curve", "pr_curve", "confusion",
                                                           "precision_at_prior", "operating_point", "decision_curve") else got


def check_one(ck, name, got, want, what):
    if want is None and name in ("roc_curve", "pr_curve", "confusion", "operating_point", "decision_curve"):
        ck.equal(got, None, what)
        return
    if name in ("roc_curve", "pr_curve"):
        if want is None:
            ck.equal(got, None, what)
            return
        keys = ("fpr", "tpr") if name == "roc_curve" else ("precision", "recall")
        ck.equal(len(got), len(want), what + " points")
        for g, (a, b) in zip(got, want):
            ck.close(g[keys[0]], float(a), what + " " + keys[0])
            ck.close(g[keys[1]], float(b), what + " " + keys[1])
    elif name == "decision_curve":
        ck.equal(len(got), len(want), what + " points")
        for g, (t, nb, ta) in zip(got, want):
            ck.close(g["threshold"], t, what + " threshold")
            ck.close(g["net_benefit"], nb, what + " net benefit", abs_=1e-12)
            ck.close(g["treat_all"], ta, what + " treat all", abs_=1e-12)
    elif name == "operating_point":
        ck.equal(got["threshold"], want["threshold"], what + " threshold")
        ck.close(got["tp"], want["tp"], what + " tp")
        ck.close(got["fp"], want["fp"], what + " fp")
    elif name == "confusion":
        for k, v in want.items():
            ck.close(got[k], float(v), what + " " + k)
    elif name == "precision_at_prior":
        ck.close(None if got is None else got["precision_at_assumed_prior"], want, what)
    else:
        ck.close(got, None if want is None else float(want), what)


def reference(name, y, s, w):
    fam, _, par = CASES[name]
    keep = w > 0
    if not keep.any():
        return None
    yk = y[keep]
    if fam == "rank":
        if yk.min() == yk.max():
            return None
        return ref_rank(name, y, s, w, par)
    if fam == "dc":                     # dcurves' net benefit on weight sums, the grid 0.1, 0.3, ... 0.9
        yk, sk, wk = y[keep], s[keep], w[keep]
        n = wk.sum()
        out = []
        for i in range(int(np.floor((0.9 - 0.1) / 0.2 + 1e-9)) + 1):
            t = 0.1 + i * 0.2
            pos = sk >= t
            out.append((t, (wk * yk * pos).sum() / n - (wk * (1 - yk) * pos).sum() / n * (t / (1 - t)),
                        (wk * yk).sum() / n - (wk * (1 - yk)).sum() / n * (t / (1 - t))))
        return out
    if fam == "conf":
        t = 0.3 if name == "net_benefit" else 0.5
        return ref_confusion(name, y[keep], s[keep], w[keep], t, par)
    return ref_calibration(name, y, s, w, par or BINS)


def main():
    ck = mltest.Checker("weights")
    con = mltest.connect()
    table = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    twins = {f["weighted_of"]: f for f in table if f["weighted_of"]}
    # the calibration family's binned twins are test_weights_calibration.py's,
    # the weighted bootstrap's (*_ci_w) test_weights_boot.py's, the monitoring
    # family's (psi_w, wasserstein_w, group_disparity_w) test_monitoring.py's, the
    # survival family's (f_w(time, event, risk, w, ...)) test_survival.py's
    elsewhere = set(test_weights_calibration.CASES) | set(test_weights_strat.CASES) \
        | set(test_weights_calsum.CASES) | set(test_weights_topk.CASES) | set(test_calsmooth_w.CASES) \
        | {b for b, f in twins.items() if f["family"] in ("uncertainty", "monitoring", "multiclass", "survival")} \
        | {"ml_state"}
    # the multiclass twins (y, w, s_0, ...) are test_multiclass.py's: scikit-learn's
    # sample_weight, integer weights = rows repeated, row order, frames, bad weights
    ck.equal(sorted(set(twins) - elsewhere), sorted(CASES),
             "every weighted twin has a case here, in test_weights_calibration.py, test_weights_strat.py, "
             "test_survival.py, "
             "test_weights_calsum.py, test_weights_topk.py, test_calsmooth_w.py, test_weights_boot.py, test_monitoring.py, "
             "test_multiclass.py or (ml_state_w) test_states_w.py")
    for base, f in twins.items():
        ck.equal(f["name"], base + "_w", base + "'s twin is named " + base + "_w")
    rng = np.random.default_rng(20261127)
    for i in range(240):
        y, s, w = dataset(rng, i)
        n = y.size
        rows = [(int(y[k]), float(s[k]), float(w[k]), k % 3) for k in range(n)]
        mltest.load(con, ["y", "s", "w", "g"], rows)
        for name in CASES:
            extra = CASES[name][1]
            got = value(name, con.execute("SELECT %s_w(y, s, w%s) FROM t" % (name, extra)).fetchone()[0])
            want = reference(name, y, s, w)
            check_one(ck, name, got, want, "%s_w dataset %d (n %d)" % (name, i, n))
        # integer weights: the rows repeated, bit for bit
        if KINDS[i % len(KINDS)] == "integer":
            rep = [(yy, ss, 1.0, g) for (yy, ss, ww, g) in rows for _ in range(int(ww))]
            mltest.load(con, ["y", "s", "w", "g"], rep, table="r")
            for name in CASES:
                extra = CASES[name][1]
                a = con.execute("SELECT %s_w(y, s, w%s) FROM t" % (name, extra)).fetchone()[0]
                b = con.execute("SELECT %s(y, s%s) FROM r" % (name, extra)).fetchone()[0]
                if a is None or b is None:
                    ck.true(a is None and b is None, "%s_w integer weights dataset %d: NULL alike (%r, %r)" % (name, i, a, b))
                else:
                    ck.equal(a, b, "%s_w integer weights = rows repeated, dataset %d" % (name, i))
        # GROUP BY and every window frame: the aggregate over the same rows, bit for bit
        if 5 <= n <= 60 and i % 3 == 0:
            for name in CASES:
                extra = CASES[name][1]
                mltest.same_as_aggregate(ck, con, "%s_w(y, s, w%s)" % (name, extra), "s", "dataset %d" % i)
    # weights that are not weights
    mltest.load(con, ["y", "s", "w"], [(1, 0.9, 1.0), (0, 0.2, 1.0)])
    for bad, shown in [("-1", "-1"), ("-0.5", "-0.5"), ("1e999", "Inf"), ("'x'", "text 'x'"), ("x'00'", "a blob")]:
        for name in CASES:
            extra = CASES[name][1]
            ck.error(con, "SELECT %s_w(y, s, CASE WHEN y = 1 THEN %s ELSE w END%s) FROM t" % (name, bad, extra), (),
                     "%s_w(): w must be a non-negative finite number, got %s" % (name, shown), name + " bad weight " + bad)
    for name in CASES:
        extra = CASES[name][1]
        ck.equal(con.execute("SELECT %s_w(y, s, 0%s) FROM t" % (name, extra)).fetchone()[0], None,
                 name + "_w all weights zero: NULL")
        ck.equal(con.execute("SELECT %s_w(y, s, NULL%s) FROM t" % (name, extra)).fetchone()[0], None,
                 name + "_w NULL weights: NULL")
        a = con.execute("SELECT %s_w(y, s, '2'%s) FROM t" % (name, extra)).fetchone()[0]
        b = con.execute("SELECT %s_w(y, s, 2%s) FROM t" % (name, extra)).fetchone()[0]
        ck.equal(a, b, name + "_w numeric text weight reads as the number")
    ck.finish()


if __name__ == "__main__":
    main()
