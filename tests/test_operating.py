# SPDX-License-Identifier: MIT
"""Differential suite: operating points, precision at a prior, partial AUROC.

operating_point <-> a reference written here from SPEC over
                    sklearn.metrics.roc_curve(drop_intermediate=False): the
                    candidates are the all-negative point and every distinct
                    threshold; the criterion's test written as SPEC writes it;
                    max_f1 and youden compared exactly (integers); among
                    equal optima the highest threshold.  Precision at each
                    threshold is checked against precision_recall_curve.
precision_at_prior <-> numpy from SPEC (tpr pi / (tpr pi + fpr (1 - pi))).
partial_auroc   <-> sklearn.metrics.roc_auc_score(max_fpr=...).

Datasets: n from 1 to 50 000, prevalence 1 % to 90 %, ties, integer scores,
signed zeros, one class, targets exactly on achievable rates (k/N), as
aggregate, GROUP BY, and every frame shape of mltest.FRAMES frame by frame.
"""
import json
import numpy as np
from sklearn.metrics import precision_recall_curve, roc_auc_score, roc_curve

import mltest

CRITERIA = ["fpr", "specificity", "sensitivity", "precision", "max_f1", "youden"]


def candidates(y, s):
    """[(threshold or None, tp, fp)]: the all-negative point, then one point
    per distinct score, highest first, from roc_curve's counts."""
    P, N = int(y.sum()), int(len(y) - y.sum())
    fpr, tpr, thr = roc_curve(y, s, drop_intermediate=False)
    pts = [(None, 0, 0)]
    for f, t, th in zip(fpr[1:], tpr[1:], thr[1:]):
        pts.append((float(th), int(round(t * P)), int(round(f * N))))
    return pts


_memo = {}


def op_ref(y, s, criterion, target):
    """SPEC's operating point, or None (NULL) without both classes."""
    y = np.asarray(y, dtype=int)
    s = np.asarray(s, dtype=float)
    if len(y) == 0 or y.min() == y.max():
        return None
    P, N = int(y.sum()), int(len(y) - y.sum())
    key = (y.tobytes(), s.tobytes())
    if key not in _memo:
        _memo.clear()
        _memo[key] = candidates(y, s)
    pts = _memo[key]

    def meets(tp, fp):
        if criterion == "fpr":
            return fp / N <= target
        if criterion == "specificity":
            return 1 - fp / N >= target
        if criterion == "sensitivity":
            return tp / P >= target
        if criterion == "precision":
            return tp + fp > 0 and tp / (tp + fp) >= target
        return True

    def value(tp, fp):
        """The criterion's objective as an exact fraction (numerator, denominator)."""
        if criterion in ("fpr", "specificity", "precision"):
            return tp, 1
        if criterion == "sensitivity":
            return -fp, 1
        if criterion == "max_f1":
            return 2 * tp, tp + fp + P
        return tp * N - fp * P, P * N

    best, bv = None, None
    for th, tp, fp in pts:                  # highest threshold first: strict > keeps it
        if meets(tp, fp):
            v = value(tp, fp)
            if best is None or v[0] * bv[1] > bv[0] * v[1]:
                best, bv = (th, tp, fp), v
    achieved = best is not None
    if best is None:
        best = pts[0]
    th, tp, fp = best
    fn, tn = P - tp, N - fp
    return {"criterion": criterion, "target": target if criterion not in ("max_f1", "youden") else None,
            "threshold": th, "tp": tp, "fp": fp, "tn": tn, "fn": fn,
            "tpr": tp / P, "fpr": fp / N, "specificity": tn / N,
            "precision": tp / (tp + fp) if tp + fp else None,
            "f1": 2 * tp / (2 * tp + fp + fn), "youden_j": tp / P - fp / N, "achieved": achieved}


def prior_ref(y, s, thr, prior):
    y = np.asarray(y, dtype=int)
    s = np.asarray(s, dtype=float)
    if len(y) == 0 or y.min() == y.max():
        return None
    P, N = int(y.sum()), int(len(y) - y.sum())
    pred = s >= thr
    tpr, fpr = int((pred & (y == 1)).sum()) / P, int((pred & (y == 0)).sum()) / N
    pe = P / len(y)

    def prec(pi):
        den = tpr * pi + fpr * (1 - pi)
        return None if den == 0 else tpr * pi / den
    return {"tpr": tpr, "fpr": fpr, "eval_prior": pe, "assumed_prior": prior,
            "precision_at_eval_prior": prec(pe), "precision_at_assumed_prior": prec(prior), "threshold": thr}


def pauc_ref(y, s, m):
    y = np.asarray(y, dtype=int)
    if len(y) == 0 or y.min() == y.max():
        return None
    return roc_auc_score(y, np.asarray(s, dtype=float), max_fpr=m)


def same_json(ck, got, want, what, exact=("criterion", "target", "threshold", "tp", "fp", "tn", "fn", "achieved")):
    """JSON text from SQL against a dict: counts, threshold and flags exactly,
    rates to 1e-12."""
    if want is None or got is None:
        ck.equal(got, want, what)
        return
    d = json.loads(got)
    ck.equal(list(d), list(want), what + " fields")
    for k, v in want.items():
        if k in exact or v is None:
            ck.equal(d.get(k), v, "%s %s" % (what, k))
        else:
            ck.close(d.get(k), v, "%s %s" % (what, k))


def gen(rng, n, trial):
    kinds = ["uniform", "ties", "integer", "zeros", "normal"]
    s = mltest.random_scores(rng, n, kinds[trial % len(kinds)])
    prev = [0.01, 0.1, 0.3, 0.5, 0.9][trial % 5]
    y = (rng.random(n) < prev).astype(int)
    if trial % 11 == 0:
        y[:] = trial % 2                       # one class
    return y, s


def targets(rng, y):
    """Targets in (0, 1): round ones, and ones exactly on an achievable rate."""
    N, P = max(int(len(y) - y.sum()), 1), max(int(y.sum()), 1)
    out = [0.05, 0.5, 0.95, float(np.round(rng.uniform(0.01, 0.99), 2))]
    k = int(rng.integers(1, N + 1))
    if 0 < k / N < 1:
        out.append(k / N)
    k = int(rng.integers(1, P + 1))
    if 0 < k / P < 1:
        out.append(k / P)
    return out


@mltest.covers("operating_point", "partial_auroc", "precision_at_prior")
def test_operating_points(ck, con, rng):
    """operating_point, partial_auroc and precision_at_prior against their
    references (scikit-learn's roc_curve and precision_recall_curve, SPEC's
    rules in numpy), GROUP BY and every window frame."""
    for trial in range(240):
        n = int(rng.integers(1, 40)) if trial < 80 else int(rng.integers(40, 1500)) if trial < 236 else int(rng.integers(3000, 50001))
        y, s = gen(rng, n, trial)
        g = rng.integers(0, int(rng.integers(1, 4)), n)
        mltest.load(con, ["y", "s", "g"], [(int(y[i]), float(s[i]), int(g[i])) for i in range(n)] + [(None, 0.5, 0), (1, None, 0)])
        what = "trial %d (n=%d)" % (trial, n)
        calls = []
        for c in CRITERIA:
            if c in ("max_f1", "youden"):
                calls.append(("operating_point(y, s, '%s')" % c, c, None))
            else:
                for t in targets(rng, y)[:4 if n > 3000 else 6]:
                    calls.append(("operating_point(y, s, '%s', %r)" % (c, t), c, t))
        maxfprs = [0.05, 0.3, 1.0, float(np.round(rng.uniform(0.01, 0.99), 3))]
        N = int(len(y) - y.sum())
        if N > 1:
            maxfprs.append(int(rng.integers(1, N)) / N)   # max_fpr on a ROC point
        thr = float(s[int(rng.integers(0, n))])           # a threshold on a score (ties)
        prior = float(np.round(rng.uniform(0.001, 0.999), 3))
        exprs = [c[0] for c in calls] + ["partial_auroc(y, s, %r)" % m for m in maxfprs] + \
            ["precision_at_prior(y, s, %r, %r)" % (thr, prior)]
        rows = con.execute("SELECT g, %s FROM t GROUP BY g" % ", ".join(exprs)).fetchall()
        rows.append(("all",) + con.execute("SELECT %s FROM t" % ", ".join(exprs)).fetchone())
        for row in rows:
            m = np.ones(n, bool) if row[0] == "all" else (g == row[0])
            w = "%s g=%s " % (what, row[0])
            vals = list(row[1:])
            for (expr, c, t), v in zip(calls, vals):
                same_json(ck, v, op_ref(y[m], s[m], c, t), w + expr)
            for mf, v in zip(maxfprs, vals[len(calls):]):
                ck.close(v, pauc_ref(y[m], s[m], mf), w + "partial_auroc %r" % mf)
            same_json(ck, vals[-1], prior_ref(y[m], s[m], thr, prior), w + "precision_at_prior",
                      exact=("tp", "threshold", "assumed_prior"))
        # precision at every threshold agrees with precision_recall_curve
        if 0 < y.sum() < n:
            pr, rc, th = precision_recall_curve(y, s)
            at = dict(zip(th.tolist(), pr[:-1].tolist()))
            for th_, tp, fp in candidates(y, s)[1:]:
                if th_ in at:
                    ck.close(tp / (tp + fp), at[th_], what + " precision at %r" % th_)
        # the sweep agrees with sklearn on the chosen point's threshold
        if 0 < y.sum() < n:
            got = json.loads(con.execute("SELECT operating_point(y, s, 'youden') FROM t").fetchone()[0])
            fpr, tpr, th = roc_curve(y, s, drop_intermediate=False)
            ck.close(got["youden_j"], float(np.max(tpr - fpr)), what + " youden_j at the chosen point", abs_=1e-15)

    # window frames, frame by frame
    exprs = ["operating_point(y, s, 'fpr', 0.2)", "operating_point(y, s, 'specificity', 0.9)",
             "operating_point(y, s, 'sensitivity', 0.5)", "operating_point(y, s, 'precision', 0.6)",
             "operating_point(y, s, 'max_f1')", "operating_point(y, s, 'youden')",
             "partial_auroc(y, s, 0.25)", "partial_auroc(y, s, 1)", "precision_at_prior(y, s, 0.5, 0.05)"]
    for trial in range(8):
        n = int(rng.integers(30, 120))
        y, s = gen(rng, n, trial + 1)
        s = np.round(s, 1)
        ts = np.sort(rng.integers(0, n // 2, n))
        g = rng.integers(0, 3, n)
        mltest.load(con, ["y", "s", "ts", "g"], [(int(y[i]), float(s[i]), int(ts[i]), int(g[i])) for i in range(n)])
        for shape, rid, idx, got in mltest.each_frame(con, exprs):
            w = "window %d [%s] row %d " % (trial, shape, rid)
            yy, ss = y[idx], s[idx]
            for e, v in zip(exprs[:6], got[:6]):
                c = e.split("'")[1]
                t = float(e.split(",")[3].strip(" )")) if c not in ("max_f1", "youden") else None
                same_json(ck, v, op_ref(yy, ss, c, t), w + e)
            ck.close(got[6], pauc_ref(yy, ss, 0.25), w + "partial_auroc 0.25")
            ck.close(got[7], pauc_ref(yy, ss, 1.0), w + "partial_auroc 1")
            same_json(ck, got[8], prior_ref(yy, ss, 0.5, 0.05), w + "precision_at_prior",
                      exact=("threshold", "assumed_prior"))


def main():
    ck = mltest.Checker("operating")
    con = mltest.connect()
    rng = np.random.default_rng(13)
    test_operating_points(ck, con, rng)
    ck.finish()


if __name__ == "__main__":
    main()
