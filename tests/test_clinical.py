# SPDX-License-Identifier: MIT
"""Differential suite: threshold and clinical-validation metrics (issue 24,
docs/clinical.md) against scikit-learn, statsmodels, scipy, and numpy
references written here from the definitions.

mcc          <-> sklearn matthews_corrcoef (NULL where its denominator is 0;
                 sklearn returns 0 there: asserted below as a difference)
f_beta       <-> sklearn fbeta_score (NULL when tp = fp = fn = 0; sklearn 0)
confusion    <-> its old keys as before; mcc, balanced_accuracy_score,
                 cohen_kappa_score, class_likelihood_ratios; and the exact
                 values as fractions (tighter than 1e-12)
confusion_ci <-> statsmodels proportion_confint(method='wilson' / 'beta');
                 for n = 10^6, where scipy's beta quantile is itself off by
                 1e-11, a 50-digit mpmath quantile
precision_at_k, recall_at_k <-> sklearn precision_score / recall_score on the
                 rows with the tie group at the cut split into a predicted-
                 positive and a predicted-negative copy weighted m/g and
                 1 - m/g (sample_weight): the expectation over every order
                 of the tied rows
gains        <-> numpy: each row carries its tie group's positive fraction
                 (the same expectation), parts cut at
                 numpy.linspace(0, n, B + 1, dtype=int)
ks           <-> scipy.stats.ks_2samp(...).statistic and max |TPR - FPR|
net_benefit, decision_curve <-> numpy from the definition (dcurves):
                 TP/n - FP/n * pt/(1 - pt), treat_all = pi - (1 - pi) pt/(1 - pt)

Datasets: 300 of them, n from 0 to 20 000, prevalence 1 % to 90 %, tied
scores, signed zeros, the threshold on a value of the data, one class, tiny
groups (GROUP BY), REAL labels and NULL rows; every frame shape of
mltest.FRAMES, each frame's value equal to the aggregate over its rows (and
to the oracle on a sample); and row order: a shuffled table gives the same
text.
"""
import json
import math
from fractions import Fraction

import mpmath
import numpy as np
from scipy import stats
from sklearn.metrics import (balanced_accuracy_score, class_likelihood_ratios, cohen_kappa_score,
                             fbeta_score, matthews_corrcoef, precision_score, recall_score)
from statsmodels.stats.proportion import proportion_confint

import mltest

KINDS = ["uniform", "ties", "integer", "zeros", "normal"]


# ------------------------------------------------------------------ oracles

def counts(y, s, t):
    pred = s >= t
    return (int(np.sum(pred & (y == 1))), int(np.sum(pred & (y == 0))),
            int(np.sum(~pred & (y == 0))), int(np.sum(~pred & (y == 1))))


def frac(a, b):
    return None if b == 0 else Fraction(a, b)


def confusion_exact(tp, fp, tn, fn):
    """Every confusion() ratio as an exact fraction (None: zero denominator)."""
    P, N = tp + fn, tn + fp
    d = {"sensitivity": frac(tp, P), "specificity": frac(tn, N), "ppv": frac(tp, tp + fp),
         "npv": frac(tn, tn + fn), "f1": frac(2 * tp, 2 * tp + fp + fn), "accuracy": frac(tp + tn, P + N),
         "kappa": frac(2 * (tp * tn - fn * fp), (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn)),
         "lr_pos": None if P == 0 or fp == 0 else Fraction(tp * N, fp * P),
         "lr_neg": None if P == 0 or tn == 0 else Fraction(fn * N, tn * P)}
    d["balanced_accuracy"] = None if P == 0 or N == 0 else (d["sensitivity"] + d["specificity"]) / 2
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    d["mcc"] = None if den == 0 else (tp * tn - fp * fn) / math.sqrt(den)   # sqrt of an exact integer
    return d


def confusion_sklearn(y, pred):
    """The new keys from scikit-learn, where it defines them."""
    out = {}
    both = len(set(y)) == 2
    out["balanced_accuracy"] = balanced_accuracy_score(y, pred) if both else None
    k = cohen_kappa_score(y, pred)
    out["kappa"] = None if math.isnan(k) else k
    if both:
        lp, ln = class_likelihood_ratios(y, pred)
        out["lr_pos"] = None if math.isnan(lp) else lp
        out["lr_neg"] = None if math.isnan(ln) else ln
    return out


def fbeta_oracle(y, s, t, beta):
    tp, fp, tn, fn = counts(y, s, t)
    if tp + fp + fn == 0:
        return None
    return fbeta_score(y, (s >= t).astype(int), beta=beta, zero_division=0)


def mcc_oracle(y, s, t):
    tp, fp, tn, fn = counts(y, s, t)
    if (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn) == 0:
        return None
    return matthews_corrcoef(y, (s >= t).astype(int))


def topk_oracle(y, s, k):
    """(precision, recall) at the top k by sklearn, the tie group at the cut
    split into weighted copies (module doc)."""
    n = len(y)
    if n == 0:
        return None, None
    k = min(k, n)
    sk = np.sort(s)[::-1][k - 1]
    above, tie = s > sk, s == sk
    g = int(tie.sum())
    m = k - int(above.sum())
    yy = np.concatenate([y[~tie], y[tie], y[tie]])
    pred = np.concatenate([above[~tie].astype(int), np.ones(g, int), np.zeros(g, int)])
    w = np.concatenate([np.ones(n - g), np.full(g, m / g), np.full(g, 1 - m / g)])
    prec = precision_score(yy, pred, sample_weight=w, zero_division=0)
    rec = recall_score(yy, pred, sample_weight=w) if y.sum() > 0 else None
    return prec, rec


def soft_labels(y, s):
    """Rows by descending score, each labelled with its tie group's positive
    fraction."""
    order = np.argsort(-s, kind="stable")
    ys, ss = y[order].astype(float), s[order]
    _, inv = np.unique(-ss, return_inverse=True)          # -0.0 and 0.0: one group
    frac_pos = np.bincount(inv, weights=ys) / np.bincount(inv)
    return frac_pos[inv]


def gains_oracle(y, s, B):
    n, P = len(y), int(y.sum())
    if n < B or P == 0:
        return None
    e = soft_labels(y, s)
    edges = np.linspace(0, n, B + 1, dtype=int)
    out = []
    for b in range(B):
        lo, hi = edges[b], edges[b + 1]
        pos, cum = e[lo:hi].sum(), e[:hi].sum()
        out.append({"bin": b + 1, "n": int(hi - lo), "positives": pos, "cum_positive_rate": cum / P,
                    "lift": (pos / (hi - lo)) / (P / n), "cum_lift": (cum / hi) / (P / n)})
    return out


def ks_oracle(y, s):
    pos, neg = np.sort(s[y == 1]), np.sort(s[y == 0])
    if len(pos) == 0 or len(neg) == 0:
        return None, None
    th = np.unique(s)
    tpr = (len(pos) - np.searchsorted(pos, th, "left")) / len(pos)
    fpr = (len(neg) - np.searchsorted(neg, th, "left")) / len(neg)
    return float(np.max(np.abs(tpr - fpr))), stats.ks_2samp(pos, neg).statistic


def net_benefit_ref(y, p, pt):
    """dcurves: tp_rate - fp_rate * pt / (1 - pt), rates over all n rows."""
    n = len(y)
    tp = np.sum((p >= pt) & (y == 1))
    fp = np.sum((p >= pt) & (y == 0))
    return tp / n - fp / n * (pt / (1 - pt))


def grid(frm, to, by):
    """decision_curve's thresholds as docs/clinical.md defines them; for
    parameters written as decimals the count is that of the decimal grid
    (Fractions of the decimal texts: the tolerance absorbs the rounding)."""
    T = int(math.floor((to - frm) / by + 1e-9)) + 1
    dec = (Fraction(repr(to)) - Fraction(repr(frm))) / Fraction(repr(by))
    assert T == math.floor(dec) + 1, (frm, to, by)
    return [frm + i * by for i in range(T)]


def decision_curve_oracle(y, p, frm, to, by):
    n = len(y)
    if n == 0:
        return None
    pi = y.sum() / n
    return [{"threshold": t, "net_benefit": net_benefit_ref(y, p, t), "treat_all": pi - (1 - pi) * (t / (1 - t)),
             "treat_none": 0.0} for t in grid(frm, to, by)]


# ------------------------------------------------------------ comparisons

def close_obj(ck, got, want, what, rel=1e-12, abs_=1e-14):
    """A JSON object or array against the oracle's, key by key."""
    if want is None:
        ck.equal(got, None, what)
        return
    if got is None:
        ck.true(False, what + ": got NULL, want %r" % (want,))
        return
    if isinstance(want, list):
        ck.equal(len(got), len(want), what + " length")
        for i, (g, w) in enumerate(zip(got, want)):
            close_obj(ck, g, w, "%s[%d]" % (what, i), rel, abs_)
        return
    for k, v in want.items():
        if v is None or isinstance(v, (int, str)):
            ck.equal(got.get(k), v, what + " " + k)
        else:
            ck.close(got.get(k), float(v), what + " " + k, rel=rel, abs_=abs_)


def check_confusion_keys(ck, got, y, s, t, what):
    tp, fp, tn, fn = counts(y, s, t)
    if tp + fp + tn + fn == 0:
        ck.equal(got, None, what)
        return
    got = json.loads(got)
    ck.equal(list(got), ["tp", "fp", "tn", "fn", "sensitivity", "specificity", "ppv", "npv", "f1", "accuracy",
                         "mcc", "balanced_accuracy", "kappa", "lr_pos", "lr_neg"], what + " keys in order")
    ck.equal([got["tp"], got["fp"], got["tn"], got["fn"]], [tp, fp, tn, fn], what + " counts")
    exact = confusion_exact(tp, fp, tn, fn)
    for k, v in exact.items():
        # two roundings and a division (mcc: and square roots): a few ulps
        ck.close(got[k], None if v is None else float(v), what + " exact " + k, rel=4e-16 * 8, abs_=0)
    sk = confusion_sklearn(y, (s >= t).astype(int))
    for k, v in sk.items():
        ck.close(got[k], v, what + " sklearn " + k)
    ck.close(got["mcc"], mcc_oracle(y, s, t), what + " sklearn mcc")


def check_confusion_ci(ck, got, y, s, t, level, method, what):
    tp, fp, tn, fn = counts(y, s, t)
    if tp + fp + tn + fn == 0:
        ck.equal(got, None, what)
        return
    got = json.loads(got)
    ck.equal([got["level"], got["method"], got["tp"], got["fp"], got["tn"], got["fn"]],
             [level, method, tp, fp, tn, fn], what + " header")
    sm = {"wilson": "wilson", "clopper-pearson": "beta"}[method]
    for k, (x, n) in {"sensitivity": (tp, tp + fn), "specificity": (tn, tn + fp), "ppv": (tp, tp + fp),
                      "npv": (tn, tn + fn), "accuracy": (tp + tn, tp + fp + tn + fn)}.items():
        if n == 0:
            ck.equal(got[k], None, what + " " + k + " undefined")
            continue
        lo, hi = proportion_confint(x, n, alpha=1 - level, method=sm)
        ck.equal(list(got[k]), ["estimate", "lo", "hi"], what + " " + k + " keys")
        ck.close(got[k]["estimate"], x / n, what + " " + k + " estimate")
        ck.close(got[k]["lo"], float(lo), what + " %s lo (%d of %d)" % (k, x, n))
        ck.close(got[k]["hi"], float(hi), what + " %s hi (%d of %d)" % (k, x, n))
        if x == 0:
            ck.equal(got[k]["lo"], 0, what + " " + k + " lo is 0 at x = 0")
        if x == n:
            ck.equal(got[k]["hi"], 1, what + " " + k + " hi is 1 at x = n")


class Params:
    """One dataset's parameters, and the SQL calls that use them."""

    def __init__(self, rng, s, n):
        self.t = float(rng.choice(s)) if n else 0.5            # on a value of the data
        self.beta = float(rng.choice([0.5, 1.0, 2.0, 0.1, 3.7]))
        self.level = float(rng.choice([0.95, 0.9, 0.99, 0.5]))
        self.k = int(rng.choice([1, 3, 10, max(1, n // 3), n + 5]))
        self.B = int(rng.choice([1, 3, 10, 7]))
        self.pt = float(rng.choice([0.1, 0.25, 0.5, 0.05, 0.8]))
        self.grid = [(0.01, 0.99, 0.01), (0.1, 0.9, 0.1), (0.05, 0.5, 0.05), (0.2, 0.2, 0.3), (0.3, 0.7, 0.07)][
            int(rng.integers(0, 5))]

    def exprs(self):
        """The calls; the threshold is column tt (a value of the data, bound
        as a double: SQL text of 17 digits may not read back exactly)."""
        g = self.grid
        return ["mcc(y, s, tt)", "f_beta(y, s, tt, %r)" % self.beta,
                "confusion(y, s, tt)",
                "confusion_ci(y, s, tt, %r, 'wilson')" % self.level,
                "confusion_ci(y, s, tt, %r, 'clopper-pearson')" % self.level,
                "net_benefit(y, p, %r)" % self.pt, "ks(y, s)", "precision_at_k(y, s, %d)" % self.k,
                "recall_at_k(y, s, %d)" % self.k, "gains(y, s, %d)" % self.B,
                "decision_curve(y, p, %r, %r, %r)" % g]

    def check(self, ck, got, y, s, p, what):
        """Each value of exprs() against its oracle on rows (y, s, p)."""
        mcc, fb, conf, ciw, cicp, nb, ks, pk, rk, gains, dc = got
        ck.close(mcc, mcc_oracle(y, s, self.t), what + " mcc")
        ck.close(fb, fbeta_oracle(y, s, self.t, self.beta), what + " f_beta")
        check_confusion_keys(ck, conf, y, s, self.t, what + " confusion")
        check_confusion_ci(ck, ciw, y, s, self.t, self.level, "wilson", what + " confusion_ci wilson")
        check_confusion_ci(ck, cicp, y, s, self.t, self.level, "clopper-pearson", what + " confusion_ci cp")
        ck.close(nb, None if len(y) == 0 else net_benefit_ref(y, p, self.pt), what + " net_benefit")
        want, scipy_ks = ks_oracle(y, s)
        ck.close(ks, want, what + " ks")
        if scipy_ks is not None and np.isfinite(s).all():
            ck.close(ks, scipy_ks, what + " ks vs scipy")
        prec, rec = topk_oracle(y, s, self.k)
        ck.close(pk, prec, what + " precision_at_k")
        ck.close(rk, rec, what + " recall_at_k")
        close_obj(ck, None if gains is None else json.loads(gains), gains_oracle(y, s, self.B), what + " gains")
        close_obj(ck, None if dc is None else json.loads(dc), decision_curve_oracle(y, p, *self.grid),
                  what + " decision_curve")


def dataset(rng, trial):
    if trial < 200:
        n = int(rng.integers(0, 300))
    elif trial < 290:
        n = int(rng.integers(300, 4000))
    else:
        n = int(rng.integers(10000, 20001))
    prev = float(rng.choice([0.01, 0.05, 0.2, 0.5, 0.9]))
    y = (rng.random(n) < prev).astype(int)
    if trial % 17 == 5:
        y[:] = trial % 2                        # one class
    s = mltest.random_scores(rng, n, KINDS[trial % len(KINDS)])
    # probabilities on a grid of 0.05 so that thresholds fall on values
    p = np.clip(np.round((rng.random(n) * 0.7 + 0.3 * y) * 20) / 20, 0, 1) if trial % 2 else rng.random(n)
    return y, s, p


@mltest.covers("mcc", "f_beta", "confusion", "confusion_ci", "net_benefit", "ks", "precision_at_k", "recall_at_k",
               "gains", "decision_curve")
def differential(ck, con, rng):
    for trial in range(300):
        y, s, p = dataset(rng, trial)
        n = len(y)
        ngroups = int(rng.integers(1, 6)) if n > 20 else 1
        g = rng.integers(0, ngroups, n)
        par = Params(rng, s, n)
        rows = [(float(y[i]) if i % 7 == 3 else int(y[i]), float(s[i]), float(p[i]), int(g[i]), par.t)
                for i in range(n)]
        rows += [(None, 0.5, 0.5, 0, par.t), (1, None, None, 0, par.t), (None, None, None, 1, par.t)]    # skipped
        mltest.load(con, ["y", "s", "p", "g", "tt"], rows)
        ex = par.exprs()
        what = "trial %d (n=%d %s)" % (trial, n, KINDS[trial % len(KINDS)])
        got = con.execute("SELECT %s FROM t WHERE id <= %d" % (", ".join(ex), n)).fetchone()
        par.check(ck, got, y, s, p, what + " all")
        for row in con.execute("SELECT g, %s FROM t WHERE id <= %d GROUP BY g ORDER BY g" % (", ".join(ex), n)):
            m = g == row[0]
            par.check(ck, row[1:], y[m], s[m], p[m], what + " group %d" % row[0])
        # the curve's points are net_benefit at the same thresholds, bit for bit
        dc = con.execute("SELECT %s FROM t" % ex[-1]).fetchone()[0]
        if dc is not None:
            pts = json.loads(dc)
            for pt in pts[:: max(1, len(pts) // 4)]:
                nb = con.execute("SELECT net_benefit(y, p, ?) FROM t", (pt["threshold"],)).fetchone()[0]
                ck.equal(pt["net_benefit"], nb, what + " decision_curve = net_benefit at %r" % pt["threshold"])


def order_independence(ck, con, rng):
    """Ties at a top-k or gains cut count with their positive fraction: the
    same multiset of rows in any order gives the same text."""
    for trial in range(40):
        n = int(rng.integers(5, 400))
        y = (rng.random(n) < 0.3).astype(int)
        s = rng.integers(0, 6, n).astype(float)           # few distinct scores: cuts inside tie groups
        p = np.round(rng.random(n) * 4) / 4
        k = int(rng.integers(1, n + 1))
        B = int(rng.integers(1, min(n, 12) + 1))
        ex = "precision_at_k(y, s, %d), recall_at_k(y, s, %d), gains(y, s, %d), ks(y, s), decision_curve(y, p)," \
             " confusion_ci(y, s, 2, 0.9, 'clopper-pearson'), mcc(y, s, 3)" % (k, k, B)
        seen = None
        for rep in range(4):
            perm = rng.permutation(n)
            mltest.load(con, ["y", "s", "p"], [(int(y[i]), float(s[i]), float(p[i])) for i in perm])
            got = con.execute("SELECT %s FROM t" % ex).fetchone()
            if seen is None:
                seen = got
            ck.equal(got, seen, "order trial %d: shuffle %d gives the same results" % (trial, rep))
            # and as a window over the whole partition, in another order
            win = con.execute("SELECT %s FROM (SELECT * FROM t ORDER BY random())" %
                              ", ".join(e + " OVER ()" for e in ex.replace("), ", ")|").split("|"))).fetchone()
            ck.equal(win, seen, "order trial %d: window over everything, shuffle %d" % (trial, rep))
        prec, rec = topk_oracle(y, s, k)
        ck.close(seen[0], prec, "order trial %d precision_at_k" % trial)
        ck.close(seen[1], rec, "order trial %d recall_at_k" % trial)


def windows(ck, con, rng):
    """Every frame shape: each frame's value equals the aggregate over the
    frame's rows (the same text), and the oracle on a sample of frames."""
    for trial in range(6):
        n = int(rng.integers(30, 120))
        y = (rng.random(n) < float(rng.choice([0.1, 0.3, 0.5]))).astype(int)
        s = mltest.random_scores(rng, n, KINDS[trial % len(KINDS)])
        p = np.round(rng.random(n) * 10) / 10
        ts = np.sort(rng.integers(0, n // 2, n))
        g = rng.integers(0, 3, n)
        par = Params(rng, s, n)
        mltest.load(con, ["y", "s", "p", "ts", "g", "tt"],
                    [(int(y[i]), float(s[i]), float(p[i]), int(ts[i]), int(g[i]), par.t) for i in range(n)])
        par.k = int(rng.choice([1, 4, 9]))
        par.B = int(rng.choice([1, 2, 3]))
        ex = par.exprs()
        for shape, rid, idx, vals in mltest.each_frame(con, ex, order="ts"):
            what = "window trial %d [%s] row %d" % (trial, shape, rid)
            ids = ",".join(str(i + 1) for i in idx) or "0"
            agg = con.execute("SELECT %s FROM t WHERE id IN (%s)" % (", ".join(ex), ids)).fetchone()
            ck.equal(list(vals), list(agg), what + " = the aggregate over its rows")
            if rid % 9 == 0:
                par.check(ck, vals, y[idx], s[idx], p[idx], what)


def documented_differences(ck, con):
    """docs/clinical.md, "Where we differ": each difference shown on data."""
    # mcc with a zero margin: nothing predicted positive
    y = np.array([0, 1, 0, 1]); s = np.array([0.1, 0.2, 0.3, 0.4])
    mltest.load(con, ["y", "s"], [(int(a), float(b)) for a, b in zip(y, s)])
    ck.equal(matthews_corrcoef(y, (s >= 0.5).astype(int)), 0.0, "sklearn: mcc 0 on a zero margin")
    ck.equal(con.execute("SELECT mcc(y, s, 0.5) FROM t").fetchone()[0], None, "mcc: NULL on a zero margin")
    ck.equal(con.execute("SELECT confusion(y, s, 0.5) ->> '$.mcc' FROM t").fetchone()[0], None,
             "confusion: mcc null on a zero margin")
    # f_beta with no positive and none predicted
    mltest.load(con, ["y", "s"], [(0, 0.1), (0, 0.2)])
    ck.equal(fbeta_score([0, 0], [0, 0], beta=2, zero_division=0), 0.0, "sklearn: f_beta 0 without positives")
    ck.equal(con.execute("SELECT f_beta(y, s, 0.5, 2) FROM t").fetchone()[0], None, "f_beta: NULL")
    ck.equal(con.execute("SELECT f_beta(y, s, 0.15, 2) FROM t").fetchone()[0], 0.0, "f_beta: 0 with a false positive")
    # balanced accuracy and likelihood ratios of one class
    mltest.load(con, ["y", "s"], [(1, 0.1), (1, 0.9)])
    ck.equal(balanced_accuracy_score([1, 1], [0, 1]), 0.5, "sklearn: balanced accuracy of one class")
    ck.equal(con.execute("SELECT confusion(y, s, 0.5) ->> '$.balanced_accuracy' FROM t").fetchone()[0], None,
             "confusion: balanced_accuracy null on one class")
    # a beta above 1e154: beta^2 overflows in sklearn (NaN), here the limit, recall
    mltest.load(con, ["y", "s"], [(1, 0.9), (0, 0.8), (1, 0.1)])
    ck.close(con.execute("SELECT f_beta(y, s, 0.5, 1e200) FROM t").fetchone()[0], 0.5, "f_beta: huge beta is recall")
    ck.close(con.execute("SELECT f_beta(y, s, 0.5, 1e-200) FROM t").fetchone()[0], 0.5, "f_beta: tiny beta is precision")
    # k above the rows: all rows
    ck.close(con.execute("SELECT precision_at_k(y, s, 100) FROM t").fetchone()[0], 2 / 3, "precision_at_k: k > n")
    ck.close(con.execute("SELECT recall_at_k(y, s, 100) FROM t").fetchone()[0], 1.0, "recall_at_k: k > n")
    # a tie straddling the cut: 4 rows at 0.5, 1 positive among them, k = 2
    mltest.load(con, ["y", "s"], [(1, 0.9), (0, 0.5), (1, 0.5), (0, 0.5), (0, 0.5), (1, 0.1)])
    ck.close(con.execute("SELECT precision_at_k(y, s, 2) FROM t").fetchone()[0], (1 + 0.25) / 2, "precision_at_k tie")
    ck.close(con.execute("SELECT recall_at_k(y, s, 2) FROM t").fetchone()[0], 1.25 / 3, "recall_at_k tie")


@mltest.covers("confusion_ci")
def exact_interval_large_n(ck, con):
    """Clopper-Pearson at n = 10^6, where scipy's beta.isf (under statsmodels)
    is off by ~1e-11: against a 50-digit quantile (the incomplete beta's
    continued fraction and mpmath's loggamma, Newton from scipy's value)."""
    mpmath.mp.dps = 50

    def lower(x, a, b):
        x, a, b = mpmath.mpf(x), mpmath.mpf(a), mpmath.mpf(b)
        lnB = mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b)
        if x < (a + 1) / (a + b + 2):
            return mpmath.exp(a * mpmath.log(x) + b * mpmath.log(1 - x) - lnB) * cf(x, a, b) / a
        return 1 - mpmath.exp(b * mpmath.log(1 - x) + a * mpmath.log(x) - lnB) * cf(1 - x, b, a) / b

    def cf(x, a, b):
        c, d = mpmath.mpf(1), 1 - (a + b) * x / (a + 1)
        d = 1 / d
        h, m = d, 1
        while True:
            for aa in (m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m)),
                       -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m))):
                d = 1 / (1 + aa * d)
                c = 1 + aa / c
                h *= d * c
            if abs(d * c - 1) < mpmath.mpf(10) ** -45:
                return h
            m += 1

    def quantile(upper, q, a, b, x0):
        x = mpmath.mpf(x0)
        lnB = mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b)
        for _ in range(60):
            f = (1 - lower(x, a, b) - q) if upper else (lower(x, a, b) - q)
            pdf = mpmath.exp((a - 1) * mpmath.log(x) + (b - 1) * mpmath.log(1 - x) - lnB)
            step = f / (-pdf if upper else pdf)
            x -= step
            if abs(step) < x * mpmath.mpf(10) ** -40:
                return x
        raise RuntimeError("no convergence")

    n = 10 ** 6
    for tp in (2, 3, 65):
        con.execute("DROP TABLE IF EXISTS big")
        con.execute("CREATE TABLE big AS WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < %d)"
                    " SELECT 1 AS y, CASE WHEN i < %d THEN 1.0 ELSE 0.0 END AS s FROM r" % (n - 1, tp))
        got = json.loads(con.execute("SELECT confusion_ci(y, s, 0.5, 0.95, 'clopper-pearson') FROM big").fetchone()[0])
        a2 = 0.05 / 2
        lo = quantile(False, a2, tp, n - tp + 1, stats.beta.ppf(a2, tp, n - tp + 1))
        hi = quantile(True, a2, tp + 1, n - tp, stats.beta.isf(a2, tp + 1, n - tp))
        ck.close(got["sensitivity"]["lo"], float(lo), "clopper-pearson lo, %d of 10^6" % tp, rel=1e-13, abs_=0)
        ck.close(got["sensitivity"]["hi"], float(hi), "clopper-pearson hi, %d of 10^6" % tp, rel=1e-13, abs_=0)


def main():
    ck = mltest.Checker("clinical")
    con = mltest.connect()
    rng = np.random.default_rng(20240524)
    differential(ck, con, rng)
    order_independence(ck, con, rng)
    windows(ck, con, rng)
    documented_differences(ck, con)
    exact_interval_large_n(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
