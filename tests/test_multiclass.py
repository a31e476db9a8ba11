# SPDX-License-Identifier: MIT
"""Differential tests of the multiclass family (multiclass.c) against
scikit-learn 1.2 and the numpy formulas of SPEC (Round 4, Multiclass).

Proves: mc_auroc (per class, OvR macro/weighted, micro, OvO macro/weighted),
mc_pr_auc, mc_log_loss, mc_brier, mc_confusion (argmax and pred forms),
mc_top_k and ordinal_rps equal the references for k = 2..8 with
rare classes, absent classes and heavy ties; the weighted twins equal
scikit-learn's sample_weight results, and with integer weights equal the
repeated rows bit for bit; the wide, JSON and long-row layouts give the same
bits; results do not depend on the rows' order; GROUP BY and every window
frame equal the aggregate over the same rows; the errors name the argument.
"""
import json
import math
import sqlite3

import numpy as np
from sklearn.metrics import (average_precision_score, balanced_accuracy_score, cohen_kappa_score,
                             confusion_matrix, f1_score, log_loss, matthews_corrcoef, precision_score,
                             recall_score, roc_auc_score, top_k_accuracy_score)

import mltest

FUNCS = ("mc_auroc", "mc_pr_auc", "mc_log_loss", "mc_brier", "mc_confusion", "mc_top_k", "ordinal_rps",
         "mc_calibration")
AUROC_KEYS = ["k", "n", "ovr_macro", "ovr_weighted", "micro", "ovo_macro", "ovo_weighted", "per_class"]
PR_KEYS = ["k", "n", "macro", "weighted", "micro", "per_class"]


def random_probs(rng, n, k, kind):
    """Rows of k probabilities summing to 1: continuous (Dirichlet), or
    heavy ties (tenths: integer counts over 10), or peaked."""
    if kind == "ties":
        c = np.array([rng.multinomial(10, np.ones(k) / k) for _ in range(n)], dtype=float)
        return c / 10.0
    if kind == "peaked":
        return rng.dirichlet(np.full(k, 0.3), n)
    return rng.dirichlet(np.ones(k), n)


def random_labels(rng, n, k, kind):
    if kind == "rare":                       # class k-1 rare (maybe absent)
        pr = np.ones(k); pr[-1] = 0.03
        return rng.choice(k, n, p=pr / pr.sum())
    if kind == "absent":                     # one class never appears
        miss = rng.integers(0, k)
        return np.array([c if c < miss else c + 1 for c in rng.integers(0, k - 1, n)])
    return rng.integers(0, k, n)


def wide(fn, k, w=False):
    return "%s%s(y, %s%s)" % (fn, "_w" if w else "", ", ".join("p%d" % j for j in range(k)), ", w" if w else "")


def auc_or_none(y, s, w=None):
    if len(set(y)) < 2:
        return None
    return roc_auc_score(y, s, sample_weight=w)


def ref_auroc(y, P, k, w=None):
    """Every field of mc_auroc from scikit-learn (per class, micro, and the
    multi_class forms where scikit-learn defines them)."""
    n = len(y)
    wt = np.ones(n) if w is None else w
    Y = np.eye(k)[y]
    per = [auc_or_none(Y[:, j], P[:, j], w) for j in range(k)]
    W = np.array([wt[y == j].sum() for j in range(k)])
    full = all(W > 0)
    r = {"k": k, "n": float(wt.sum()), "per_class": per,
         "micro": roc_auc_score(Y.ravel(), P.ravel(), sample_weight=np.repeat(wt, k))}
    if full:
        r["ovr_macro"] = float(np.mean(per))
        r["ovr_weighted"] = float(np.average(per, weights=W))
        if k >= 3:
            assert abs(r["ovr_macro"] - roc_auc_score(y, P, multi_class="ovr", average="macro",
                                                      sample_weight=w)) < 1e-12
            assert abs(r["ovr_weighted"] - roc_auc_score(y, P, multi_class="ovr", average="weighted",
                                                         sample_weight=w)) < 1e-12
        # OvO: Hand & Till over the weighted pairwise AUCs (scikit-learn's own call below)
        pairs, prev = [], []
        for a in range(k):
            for b in range(a + 1, k):
                m = (y == a) | (y == b)
                ab = roc_auc_score(y[m] == a, P[m, a], sample_weight=None if w is None else w[m])
                ba = roc_auc_score(y[m] == b, P[m, b], sample_weight=None if w is None else w[m])
                pairs.append((ab + ba) / 2)
                prev.append(wt[m].sum() / wt.sum())
        r["ovo_macro"] = float(np.mean(pairs))
        r["ovo_weighted"] = float(np.average(pairs, weights=prev))
        if k >= 3 and w is None:
            r["ovo_macro"] = roc_auc_score(y, P, multi_class="ovo", average="macro")
            r["ovo_weighted"] = roc_auc_score(y, P, multi_class="ovo", average="weighted")
    else:
        for key in ("ovr_macro", "ovr_weighted", "ovo_macro", "ovo_weighted"):
            r[key] = None
    return r


def ref_pr_auc(y, P, k, w=None):
    n = len(y)
    wt = np.ones(n) if w is None else w
    Y = np.eye(k)[y]
    W = np.array([wt[y == j].sum() for j in range(k)])
    pos = wt > 0                         # pr_auc's rule: a class needs a row of another class too
    per = [average_precision_score(Y[:, j], P[:, j], sample_weight=w)
           if (y[pos] == j).any() and (y[pos] != j).any() else None for j in range(k)]
    r = {"k": k, "n": float(wt.sum()), "per_class": per,
         "micro": average_precision_score(Y, P, average="micro", sample_weight=w)}
    if all(W > 0):
        r["macro"] = average_precision_score(Y, P, average="macro", sample_weight=w)
        r["weighted"] = average_precision_score(Y, P, average="weighted", sample_weight=w)
    else:
        r["macro"] = r["weighted"] = None
    return r


def ref_log_loss(y, P, w=None):
    """SPEC: mean of -ln(clip(p_y, 1e-15, 1)), weighted by w."""
    t = -np.log(np.clip(P[np.arange(len(y)), y], 1e-15, 1.0))
    return float(np.average(t, weights=w))


def ref_brier(y, P, k, w=None):
    return float(np.average(((np.eye(k)[y] - P) ** 2).sum(axis=1), weights=w))


def check_json(ck, got, want, keys, what):
    absent = any(v is None for v in want["per_class"]) and want.get("macro", want.get("ovr_macro")) is None
    g = mltest.json_result(ck, got, want, keys + ["reason"] if absent else keys, what)
    if g is None:
        return
    for key in keys:
        if key == "per_class":
            ck.equal(len(g[key]), len(want[key]), what + " per_class length")
            for j, (a, b) in enumerate(zip(g[key], want[key])):
                ck.close(a, b, "%s per_class[%d]" % (what, j))
        elif key in ("k",):
            ck.equal(g[key], want[key], what + " " + key)
        else:
            ck.close(g[key], want[key], what + " " + key)


CONF_KEYS = ["k", "n", "matrix", "accuracy", "balanced_accuracy", "precision", "recall", "f1", "support",
             "macro_f1", "weighted_f1", "micro_f1", "kappa", "kappa_linear", "kappa_quadratic", "mcc"]


def argmax_first(P):
    return np.argmax(P, axis=1)           # ties to the lowest index, as SPEC says


def nan_none(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def ref_confusion(y, pred, k, w=None):
    """mc_confusion's fields from scikit-learn (labels = 0..k-1)."""
    labels = list(range(k))
    C = confusion_matrix(y, pred, labels=labels, sample_weight=w)
    n = C.sum()
    rowS, colS, d = C.sum(axis=1), C.sum(axis=0), np.diag(C)
    with np.errstate(all="ignore"):
        prec = [float(d[i] / colS[i]) if colS[i] > 0 else None for i in range(k)]
        rec = [float(d[i] / rowS[i]) if rowS[i] > 0 else None for i in range(k)]
        f1 = [float(2 * d[i] / (2 * d[i] + colS[i] - d[i] + rowS[i] - d[i])) if rowS[i] + colS[i] > 0 else None
              for i in range(k)]
    # scikit-learn's own per-class numbers where defined (zero_division=0 elsewhere)
    sp = precision_score(y, pred, labels=labels, average=None, zero_division=0, sample_weight=w)
    sr = recall_score(y, pred, labels=labels, average=None, zero_division=0, sample_weight=w)
    sf = f1_score(y, pred, labels=labels, average=None, zero_division=0, sample_weight=w)
    for i in range(k):
        assert prec[i] is None or abs(prec[i] - sp[i]) < 1e-12
        assert rec[i] is None or abs(rec[i] - sr[i]) < 1e-12
        assert f1[i] is None or abs(f1[i] - sf[i]) < 1e-12
    defined = [v for v in f1 if v is not None]
    tv = float(n * n - (colS * colS).sum()) * float(n * n - (rowS * rowS).sum())
    kap = {}
    for key, wt in (("kappa", None), ("kappa_linear", "linear"), ("kappa_quadratic", "quadratic")):
        try:
            with np.errstate(all="ignore"):
                v = cohen_kappa_score(y, pred, labels=labels, weights=wt, sample_weight=w)
        except Exception:
            v = None
        kap[key] = nan_none(v)
    r = {"k": k, "n": float(n), "matrix": C.astype(float).tolist(), "accuracy": float(np.trace(C) / n),
         "balanced_accuracy": balanced_accuracy_score(y, pred, sample_weight=w) if w is None else
         float(np.mean([d[i] / rowS[i] for i in range(k) if rowS[i] > 0])),
         "precision": prec, "recall": rec, "f1": f1, "support": rowS.astype(float).tolist(),
         "macro_f1": float(np.mean(defined)) if defined else None,
         "weighted_f1": f1_score(y, pred, labels=labels, average="weighted", zero_division=0, sample_weight=w),
         "micro_f1": f1_score(y, pred, labels=labels, average="micro", zero_division=0, sample_weight=w),
         "mcc": matthews_corrcoef(y, pred, sample_weight=w) if tv > 0 else None}
    r.update(kap)
    return r


def check_confusion(ck, got, want, what):
    g = mltest.json_result(ck, got, want, CONF_KEYS, what)
    if g is None:
        return
    for key in CONF_KEYS:
        a, b = g[key], want[key]
        if key == "matrix":               # exact sums: the rounding of scikit-learn's running sums aside
            ck.equal(len(a), len(b), what + " matrix rows")
            for i, (ra, rb) in enumerate(zip(a, b)):
                for j, (u, v) in enumerate(zip(ra, rb)):
                    ck.close(u, v, "%s matrix[%d][%d]" % (what, i, j), abs_=0)
        elif isinstance(b, list):
            ck.equal(len(a), len(b), what + " " + key + " length")
            for j, (u, v) in enumerate(zip(a, b)):
                ck.close(u, v, "%s %s[%d]" % (what, key, j))
        elif key == "k":
            ck.equal(a, b, what + " k")
        else:
            ck.close(a, b, what + " " + key, rel=1e-12, abs_=1e-13)


def ref_top_k(y, P, k, w=None):
    """Our rule (a tie at the cut by its share of the tied places)."""
    wt = np.ones(len(y)) if w is None else w
    out = []
    for m in range(1, k):
        hits = []
        for i in range(len(y)):
            sy = P[i, y[i]]
            above = int((P[i] > sy).sum())
            tied = int((P[i] == sy).sum())
            hits.append(0.0 if above >= m else 1.0 if m >= above + tied else (m - above) / tied)
        out.append(float(np.average(hits, weights=wt)))
    return out


def ref_rps(y, P, k, w=None):
    """yardstick ranked_prob_score: mean of sum_j (F_j - O_j)^2 / (k - 1), j < k - 1."""
    F = np.cumsum(P, axis=1)[:, :k - 1]
    O = np.cumsum(np.eye(k)[y], axis=1)[:, :k - 1]
    return float(np.average(((F - O) ** 2).sum(axis=1) / (k - 1), weights=w))


def check_extras(ck, con, y, P, k, w, what):
    """mc_confusion (argmax and pred), mc_top_k, ordinal_rps on the loaded rows."""
    tw = w is not None
    pred = argmax_first(P)
    check_confusion(ck, one(con, wide("mc_confusion", k, tw)), ref_confusion(y, pred, k, w), what + " mc_confusion")
    got = json.loads(one(con, wide("mc_top_k", k, tw)))
    want = ref_top_k(y, P, k, w)
    ck.equal(len(got), k - 1, what + " mc_top_k length")
    for m, (a, b) in enumerate(zip(got, want)):
        ck.close(a, b, "%s mc_top_k[%d]" % (what, m))
    no_ties = all(len(set(row)) == k for row in P)
    if no_ties and k >= 3 and len(set(y)) == k:
        for m in range(1, k):
            ck.close(got[m - 1], top_k_accuracy_score(y, P, k=m, labels=list(range(k)), sample_weight=w),
                     "%s mc_top_k[%d] vs sklearn" % (what, m - 1))
    ck.close(one(con, wide("ordinal_rps", k, tw)), ref_rps(y, P, k, w), what + " ordinal_rps")
    # the pred form: the matrix of (y, pred) with k = 1 + the largest class seen
    con.execute("DROP TABLE IF EXISTS pr")
    con.execute("CREATE TABLE pr(y, w, pred)")
    con.executemany("INSERT INTO pr VALUES (?,?,?)", [(int(a), None if w is None else float(b), int(c))
                                                     for a, b, c in zip(y, wt_or_one(w, len(y)), pred)])
    kk = max(2, int(max(y.max(), pred.max())) + 1)
    q = "SELECT mc_confusion_w(y, pred, w) FROM pr" if tw else "SELECT mc_confusion(y, pred) FROM pr"
    check_confusion(ck, con.execute(q).fetchone()[0], ref_confusion(y, pred, kk, w), what + " mc_confusion(y, pred)")


def bin_of(p, B):
    """ece's equal-width bin of p: the edges are numpy's linspace(0, 1, B + 1)
    (as the binary ece's), p = 1 in the last bin."""
    return int(np.searchsorted(np.linspace(0, 1, B + 1)[1:-1], p, side="right"))


def ref_ece(lab, v, w, B):
    """The binary ece and mce: sum_b |W y_b - W p_b| / W, max_b |ybar_b - pbar_b|."""
    bins = {}
    for a, b, c in zip(lab, v, w):
        s = bins.setdefault(bin_of(b, B), [0.0, 0.0, 0.0])
        s[0] += c; s[1] += c * a; s[2] += c * b
    ece = sum(abs(s[1] - s[2]) for s in bins.values()) / sum(w)
    mce = max(abs(s[1] / s[0] - s[2] / s[0]) for s in bins.values())
    return ece, mce


def ref_calibration(y, P, k, w, B):
    wt = wt_or_one(w, len(y))
    per = [ref_ece((y == j).astype(float), P[:, j], wt, B)[0] for j in range(k)]
    pred = argmax_first(P)
    top, mce = ref_ece((pred == y).astype(float), P[np.arange(len(y)), pred], wt, B)
    return {"k": k, "bins": B, "top_label_ece": top, "classwise_ece": float(np.mean(per)), "per_class_ece": per,
            "mce": mce}


def check_calibration(ck, con, y, P, k, w, what):
    tw = w is not None
    for B in (10, 3, 25):
        if B == 10:
            got = one(con, wide("mc_calibration", k, tw))
        else:
            got = one(con, "mc_calibration%s(y, probs, %s%d)" % ("_w" if tw else "", "w, " if tw else "", B))
        want = ref_calibration(y, P, k, w, B)
        g = mltest.json_result(ck, got, want, ["k", "bins", "top_label_ece", "classwise_ece", "per_class_ece", "mce"],
                               "%s mc_calibration bins %d" % (what, B))
        if g is None:
            continue
        for key in ("top_label_ece", "classwise_ece", "mce"):
            ck.close(g[key], want[key], "%s mc_calibration bins %d %s" % (what, B, key), rel=1e-11, abs_=1e-14)
        for j in range(k):
            ck.close(g["per_class_ece"][j], want["per_class_ece"][j], "%s mc_calibration bins %d class %d"
                     % (what, B, j), rel=1e-11, abs_=1e-14)
        ck.equal([g["k"], g["bins"]], [k, B], what + " mc_calibration k, bins")


def wt_or_one(w, n):
    return np.ones(n) if w is None else w


def load_rows(con, y, P, k, w=None, g=None):
    cols = ["y", "w", "g", "ts"] + ["p%d" % j for j in range(k)] + ["probs"]
    n = len(y)
    rows = []
    for i in range(n):
        rows.append([int(y[i]), None if w is None else float(w[i]), 0 if g is None else int(g[i]), i]
                    + [float(v) for v in P[i]] + [json.dumps([float(v) for v in P[i]])])
    mltest.load(con, cols, rows)


def one(con, expr):
    return con.execute("SELECT %s FROM t" % expr).fetchone()[0]


def check_dataset(ck, con, y, P, k, w, what):
    load_rows(con, y, P, k, w)
    tw = w is not None
    check_json(ck, one(con, wide("mc_auroc", k, tw)), ref_auroc(y, P, k, w), AUROC_KEYS, what + " mc_auroc")
    check_json(ck, one(con, wide("mc_pr_auc", k, tw)), ref_pr_auc(y, P, k, w), PR_KEYS, what + " mc_pr_auc")
    ck.close(one(con, wide("mc_log_loss", k, tw)), ref_log_loss(y, P, w), what + " mc_log_loss")
    ck.close(one(con, wide("mc_brier", k, tw)), ref_brier(y, P, k, w), what + " mc_brier")
    if w is None:
        # scikit-learn's own log_loss clips to [eps, 1 - eps] and renormalises the
        # rows (SPEC clips p_y to [eps, 1]): equal to 1e-9 relative on these rows
        ck.close(one(con, wide("mc_log_loss", k)), log_loss(y, P, labels=list(range(k)), eps=1e-15),
                 what + " mc_log_loss vs sklearn", rel=1e-9, abs_=1e-13)
    check_extras(ck, con, y, P, k, w, what)
    check_calibration(ck, con, y, P, k, w, what)
    # the JSON layout gives the same bits as the wide one
    for fn in FUNCS:
        jf = "%s(y, probs%s)" % (fn + "_w" if tw else fn, ", w" if tw else "")
        ck.true(one(con, jf) is not None, what + " " + fn + ": a result")
        ck.equal(one(con, jf), one(con, wide(fn, k, tw)), what + " " + fn + " JSON layout = wide")


@mltest.covers("mc_auroc", "mc_pr_auc", "mc_log_loss", "mc_brier", "mc_confusion", "mc_top_k", "ordinal_rps",
               "mc_calibration", "mc_auroc_w", "mc_pr_auc_w", "mc_log_loss_w", "mc_brier_w", "mc_confusion_w",
               "mc_top_k_w", "ordinal_rps_w", "mc_calibration_w")
def test_sklearn(ck, rng):
    con = mltest.connect()
    for rep in range(160):
        k = 2 + rep % 7
        n = int(rng.integers(4, 60))
        y = random_labels(rng, n, k, ("uniform", "rare", "absent", "uniform")[rep % 4])
        P = random_probs(rng, n, k, ("dirichlet", "ties", "peaked")[rep % 3])
        what = "set %d (k=%d n=%d)" % (rep, k, n)
        check_dataset(ck, con, y, P, k, None, what)
        kind = ("exponential", "steps", "log-uniform", "small")[rep % 4]
        w = mltest.random_weights(rng, n, y, kind)
        keep = w > 0
        if keep.sum() == 0:
            continue
        # rows of weight 0 are dropped: the reference sees the rest
        load_rows(con, y, P, k, w)
        got = [one(con, wide(fn, k, True)) for fn in FUNCS]
        check_dataset(ck, con, y[keep], P[keep], k, w[keep], what + " weighted " + kind)
        load_rows(con, y, P, k, w)
        ck.equal([one(con, wide(fn, k, True)) for fn in FUNCS], got, what + " weight-0 rows change nothing")


def test_integer_weights(ck, rng):
    """Integer weights equal the rows repeated, bit for bit; and the rows'
    order never changes a result, whatever the weights."""
    con = mltest.connect()
    for rep in range(60):
        k = 2 + rep % 6
        n = int(rng.integers(3, 40))
        y = random_labels(rng, n, k, ("uniform", "rare")[rep % 2])
        P = random_probs(rng, n, k, ("ties", "dirichlet")[rep % 2])
        w = rng.integers(0, 4, n).astype(float)
        load_rows(con, y, P, k, w)
        weighted = [one(con, wide(fn, k, True)) for fn in FUNCS]
        idx = np.repeat(np.arange(n), w.astype(int))
        rng.shuffle(idx)
        load_rows(con, y[idx], P[idx], k)
        repeated = [one(con, wide(fn, k)) for fn in FUNCS]
        ck.equal(weighted, repeated, "set %d (k=%d): integer weights = repeated rows" % (rep, k))
        # fractional weights, rows shuffled: the same bits
        wf = mltest.random_weights(rng, n, y, "steps" if rep % 2 else "exponential")
        load_rows(con, y, P, k, wf)
        a = [one(con, wide(fn, k, True)) for fn in FUNCS]
        perm = rng.permutation(n)
        load_rows(con, y[perm], P[perm], k, wf[perm])
        ck.equal([one(con, wide(fn, k, True)) for fn in FUNCS], a, "set %d: row order (weighted)" % rep)


def long_probs_sql(con):
    """The long layout's subquery: json_group_array(p ORDER BY class) where
    SQLite has ordered aggregates (3.44), else over rows ordered by class."""
    if sqlite3_version(con) >= (3, 44, 0):
        return "SELECT id, json_group_array(p ORDER BY class) AS probs FROM long GROUP BY id"
    return "SELECT id, json_group_array(p) AS probs FROM (SELECT * FROM long ORDER BY id, class) GROUP BY id"


def sqlite3_version(con):
    return tuple(int(x) for x in con.execute("SELECT sqlite_version()").fetchone()[0].split("."))


def test_layouts(ck, rng):
    """Wide, JSON and long rows (json_group_array over (id, class, p) in a
    subquery) hold the same doubles, so they give the same bits.  SQLite's
    json_group_array writes a REAL with 15 significant digits, so the long
    rows hold values of 15 digits (as SPEC says, the layouts agree when the
    JSON text holds the same doubles)."""
    con = mltest.connect()
    for rep in range(30):
        k = 2 + rep % 7
        n = int(rng.integers(5, 40))
        y = random_labels(rng, n, k, "uniform")
        P = random_probs(rng, n, k, ("dirichlet", "ties")[rep % 2])
        P = np.vectorize(lambda v: float("%.15g" % v))(P)
        P[:, -1] = np.maximum(0.0, 1.0 - P[:, :-1].sum(axis=1))
        P = np.vectorize(lambda v: float("%.15g" % v))(P)
        load_rows(con, y, P, k)
        con.execute("DROP TABLE IF EXISTS long")
        con.execute("CREATE TABLE long(id, class, p)")
        order = [(i + 1, j, float(P[i, j])) for i in range(n) for j in range(k)]
        rng.shuffle(order)
        con.executemany("INSERT INTO long VALUES (?,?,?)", order)
        for fn in FUNCS:
            w = one(con, wide(fn, k))
            ck.true(w is not None, "set %d %s: a result" % (rep, fn))
            ck.equal(one(con, "%s(y, probs)" % fn), w, "set %d %s: JSON = wide" % (rep, fn))
            lg = con.execute("SELECT %s(t.y, l.probs) FROM t JOIN (%s) l USING (id)"
                             % (fn, long_probs_sql(con))).fetchone()[0]
            ck.equal(lg, w, "set %d %s: long rows = wide" % (rep, fn))


def test_windows(ck, rng):
    """GROUP BY and every frame shape equal the aggregate over the same rows."""
    con = mltest.connect()
    for rep, k in enumerate((2, 3, 5)):
        n = 24
        y = random_labels(rng, n, k, "uniform")
        P = random_probs(rng, n, k, "ties")
        w = mltest.random_weights(rng, n, y, "steps")
        load_rows(con, y, P, k, w, g=rng.integers(0, 3, n))
        exprs = [wide(fn, k) for fn in FUNCS] + ["mc_auroc(y, probs)", wide("mc_pr_auc", k, True),
                                                   "mc_brier_w(y, probs, w)"]
        for e in exprs:
            mltest.same_as_aggregate(ck, con, e, "ts", "k=%d" % k)


def test_rank_windows(ck, rng):
    """mc_pr_auc's window frames (kept-sorted keys, rule 20) and mc_auroc's
    (counted sets, rule 17) equal the aggregate over each frame bit for bit
    on scores with heavy ties, signed zeros and infinities, classes missing
    from some frames and NULL rows; so does every weighted twin's frame."""
    con = mltest.connect()
    for rep, k in enumerate((2, 4)):
        n = 30
        y = random_labels(rng, n, k, "rare")
        S = rng.choice([-math.inf, -1.0, -0.0, 0.0, 0.25, 0.5, 1.0, math.inf], (n, k))
        cols = ["y", "g", "ts"] + ["p%d" % j for j in range(k)]
        rows = [[int(y[i]), int(rng.integers(0, 3)), i] + [float(v) for v in S[i]] for i in range(n)]
        for i in rng.choice(n, 3, replace=False):
            rows[i][0 if i % 2 else 3] = None           # a NULL y or a NULL score: skipped
        mltest.load(con, cols, rows)
        for e in (wide("mc_pr_auc", k), wide("mc_auroc", k)):
            mltest.same_as_aggregate(ck, con, e, "ts", "scores, k=%d" % k)
    k = 3
    y = random_labels(rng, 24, k, "uniform")
    P = random_probs(rng, 24, k, "ties")
    w = mltest.random_weights(rng, 24, y, "steps")
    load_rows(con, y, P, k, w, g=rng.integers(0, 3, 24))
    for fn in FUNCS:
        mltest.same_as_aggregate(ck, con, wide(fn, k, True), "ts", "weighted, k=%d" % k)
    weighted_rank_windows(ck, con, rng)


# Weights whose sums round differently in another order (1/3 + 0.1 + 1000.1
# is not 1000.1 + 0.1 + 1/3), repeated ones (1/3, 7), weights that move rule
# 15's power-of-two scale, and 0 (the row skipped).
ORDER_WEIGHTS = [1 / 3, 0.1, 1e-3, 1000.1, 2 / 3, 7.0, 1 / 3, 1 / 3, 7.0, 0.0, 2.5e-7]


def weighted_rank_windows(ck, con, rng):
    """mc_auroc_w's and mc_pr_auc_w's window frames (rule 21: (score,
    weight)-sorted buffers kept between frames) equal the aggregate bit for
    bit in every frame shape: scores with heavy ties in every column (five
    values, signed zeros, infinities), each tie holding equal weights and
    unequal ones whose sum depends on the order they are added in, so that
    a frame adding a tie's weights in another order than the aggregate's
    (ascending weight, mc_order_ties) differs; the wide form and the JSON
    form."""
    for k in (2, 3, 5):
        n = 40
        y = random_labels(rng, n, k, "uniform")
        S = rng.choice([-math.inf, -0.0, 0.0, 0.5, math.inf], (n, k))
        w = rng.choice(ORDER_WEIGHTS, n)
        cols = ["y", "w", "g", "ts"] + ["p%d" % j for j in range(k)]
        mltest.load(con, cols, [[int(y[i]), float(w[i]), int(rng.integers(0, 3)), i] + [float(v) for v in S[i]]
                                for i in range(n)])
        for fn in ("mc_auroc", "mc_pr_auc"):
            mltest.same_as_aggregate(ck, con, wide(fn, k, True), "ts", "order-sensitive weights, k=%d" % k)
        P = np.round(rng.random((n, k)) * 2) / 2          # 0, 0.5, 1: heavy ties, finite for JSON
        load_rows(con, y, P, k, rng.choice(ORDER_WEIGHTS, n), g=rng.integers(0, 3, n))
        for fn in ("mc_auroc_w", "mc_pr_auc_w"):
            mltest.same_as_aggregate(ck, con, "%s(y, probs, w)" % fn, "ts", "JSON form, k=%d" % k)


def test_toy(ck):
    """scikit-learn's own toy data and expected values, computed as its tests
    compute them (test_ranking.py: test_multiclass_ovo_roc_auc_toydata,
    test_multiclass_ovr_roc_auc_toydata)."""
    con = mltest.connect()
    y = np.array([0, 1, 0, 2])
    P = np.array([[0.1, 0.8, 0.1], [0.3, 0.4, 0.3], [0.35, 0.5, 0.15], [0, 0.2, 0.8]])
    load_rows(con, y, P, 3)
    g = json.loads(one(con, wide("mc_auroc", 3)))
    a01 = (roc_auc_score([1, 0, 1], [0.1, 0.3, 0.35]) + roc_auc_score([0, 1, 0], [0.8, 0.4, 0.5])) / 2
    a02 = (roc_auc_score([1, 1, 0], [0.1, 0.35, 0]) + roc_auc_score([0, 0, 1], [0.1, 0.15, 0.8])) / 2
    a12 = (roc_auc_score([1, 0], [0.4, 0.2]) + roc_auc_score([0, 1], [0.3, 0.8])) / 2
    ck.close(g["ovo_macro"], (a01 + a02 + a12) / 3, "toy ovo macro (Hand & Till)")
    ck.close(g["ovo_weighted"], np.average([a01, a02, a12], weights=[0.75, 0.75, 0.50]), "toy ovo weighted")
    y = np.array([0, 1, 2, 2])
    P = np.array([[1.0, 0.0, 0.0], [0.1, 0.5, 0.4], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
    load_rows(con, y, P, 3)
    g = json.loads(one(con, wide("mc_auroc", 3)))
    out = [roc_auc_score([1, 0, 0, 0], P[:, 0]), roc_auc_score([0, 1, 0, 0], P[:, 1]),
           roc_auc_score([0, 0, 1, 1], P[:, 2])]
    for j in range(3):
        ck.close(g["per_class"][j], out[j], "toy ovr per class %d" % j)
    ck.close(g["ovr_macro"], sum(out) / 3.0, "toy ovr macro")
    ck.close(g["ovr_weighted"], np.average(out, weights=[0.25, 0.25, 0.5]), "toy ovr weighted (Provost & Domingos)")


def test_edges(ck):
    con = mltest.connect()
    con.execute("CREATE TABLE e(y, a, b, c)")
    for fn in FUNCS:
        ck.equal(con.execute("SELECT %s(y, a, b, c) FROM e" % fn).fetchone()[0], None, fn + ": no rows is NULL")
        ck.equal(con.execute("SELECT %s_w(y, a, b, c, 0) FROM (SELECT 1 y, .2 a, .3 b, .5 c)" % fn).fetchone()[0],
                 None, fn + "_w: no row of positive weight is NULL")
        ck.equal(con.execute("SELECT %s(y, a, b, c) FROM (SELECT NULL y, .2 a, .3 b, .5 c UNION ALL "
                             "SELECT 1, NULL, .5, .5)" % fn).fetchone()[0], None, fn + ": NULL rows skipped")
        ck.equal(con.execute("SELECT %s(y, p) FROM (SELECT 1 y, '[0.5, null, 0.5]' p UNION ALL "
                             "SELECT 0, NULL)" % fn).fetchone()[0], None, fn + ": a null element skips the row")
    err = [
        ("SELECT mc_auroc(y, p) FROM (SELECT 0 y, '[0.2, 0.8]' p UNION ALL SELECT 1, '[0.1, 0.2, 0.7]')",
         "mc_auroc(): k must be the same in every row of a group: a row with 3 scores after rows with 2"),
        ("SELECT mc_auroc(3, .2, .3, .5)", "mc_auroc(): y must be an integer in 0..2, got 3 (k = 3: 3 score arguments, "
         "so y in 0..2)"),
        ("SELECT mc_auroc(1, .2, 'x', .5)", "mc_auroc(): s_1 must be a number, got text 'x'"),
        ("SELECT mc_brier(1, .2, 1.3, .5)", "mc_brier(): p_1 must be a probability in [0, 1], got 1.3"),
        ("SELECT mc_log_loss(1, .2, .3, .4)",
         "mc_log_loss(): the probabilities of a row must sum to 1 (within 1e-6), got 0.9 over p_0..p_k-1"),
        ("SELECT mc_brier(1, '[0.2, 1.5, -0.7]')", "mc_brier(): probs[1] must be a probability in [0, 1], got 1.5"),
        ("SELECT mc_auroc(1, '[0.2, 0.5')",
         "mc_auroc(): scores must be a JSON array of 2..16 numbers, got text '[0.2, 0.5' (expected ',' or ']' at byte 9)"),
        ("SELECT mc_auroc(1, 0.5)", "mc_auroc(): scores must be a JSON array of 2..16 numbers, got 0.5"),
        ("SELECT mc_auroc(1, '[1]')",
         "mc_auroc(): scores must be a JSON array of 2..16 numbers, got text '[1]' (1 element)"),
        ("SELECT mc_auroc_w(1, .5, .5, -1)", "mc_auroc_w(): w must be a non-negative finite number, got -1"),
    ]
    for sql, msg in err:
        ck.error(con, sql, (), msg)
    # The same bad rows after a good one (the step's inline path, rule 13,
    # reads every row after the first): the same message as a first row.
    # 0.25 + 0.25 + 0.5009765625 sums exactly to 1 + 2^-10, off by more than
    # 1e-6 and less than 1e-3.
    later = [("mc_auroc", "3, .2, .3, .5"), ("mc_auroc", "-1, .2, .3, .5"), ("mc_auroc", "1, .2, 'x', .5"),
             ("mc_auroc", "1, .2, x'00', .5"), ("mc_brier", "1, .2, 1.3, .5"), ("mc_brier", "1, -.25, .75, .5"),
             ("mc_log_loss", "1, .2, .3, .4"), ("mc_log_loss", "1, .25, .25, .5009765625"),
             ("mc_calibration", "0, .25, .25, .5009765625"), ("ordinal_rps", "2, .25, .25, .4990234375"),
             ("mc_top_k", "1, 1e308, 'inf', 0"), ("mc_confusion", "2.5, .2, .3, .5"),
             # mc_top_k's and mc_confusion's counted rows (mc_count_fast): y out of range, a text or blob
             # score before or after s_y
             ("mc_top_k", "3, .2, .3, .5"), ("mc_top_k", "-1, .2, .3, .5"), ("mc_top_k", "1, 'x', .3, .5"),
             ("mc_top_k", "0, .2, .3, x'00'"), ("mc_confusion", "3, .2, .3, .5"), ("mc_confusion", "1, .2, .3, 'x'")]
    for fn, row in later:
        first = None
        try:
            con.execute("SELECT %s(%s)" % (fn, row)).fetchall()
        except sqlite3.Error as e:
            first = str(e)
        ck.true(first is not None, "%s(%s) is an error" % (fn, row))
        ck.error(con, "SELECT %s(y, a, b, c) FROM (SELECT 0 y, .25 a, .25 b, .5 c UNION ALL SELECT %s)" % (fn, row),
                 (), first, "%s: the bad row %s after a good one" % (fn, row))
        ck.error(con, "SELECT %s_w(y, a, b, c, w) FROM (SELECT 0 y, .25 a, .25 b, .5 c, 2 w UNION ALL "
                 "SELECT 1, .5, .25, .25, 1 UNION ALL SELECT %s, 3)" % (fn, row),
                 (), first.replace(fn + "()", fn + "_w()").replace(fn + "(y, probs", fn + "_w(y, probs, w"),
                 "%s_w: the bad row %s after good ones" % (fn, row))
    # after good rows, a NULL score skips its row and an integral REAL y or an
    # INTEGER score reads as the wide row's (mc_count_fast, then mc_step_w)
    base = "SELECT 0 y, .25 a, .25 b, .5 c UNION ALL SELECT 2, .5, .25, .25 UNION ALL SELECT 1, .1, .6, .3"
    for fn in ("mc_top_k", "mc_confusion"):
        want = con.execute("SELECT %s(y, a, b, c) FROM (%s)" % (fn, base)).fetchone()[0]
        ck.equal(con.execute("SELECT %s(y, a, b, c) FROM (%s UNION ALL SELECT 1, .2, NULL, .3)"
                             % (fn, base)).fetchone()[0], want, fn + ": a NULL score after good rows is skipped")
        ck.equal(con.execute("SELECT %s(y, a, b, c) FROM (%s UNION ALL SELECT 1.0, 0, 1, 0)" % (fn, base)).fetchone()[0],
                 con.execute("SELECT %s(y, a, b, c) FROM (%s UNION ALL SELECT 1, 0.0, 1.0, 0.0)"
                             % (fn, base)).fetchone()[0], fn + ": a REAL y and INTEGER scores read as the wide row's")
    # a class absent: the averages that need it are null, with the reason
    g = json.loads(con.execute("SELECT mc_auroc(y, a, b, c) FROM (SELECT 0 y, .2 a, .3 b, .5 c UNION ALL "
                               "SELECT 1, .1, .6, .3 UNION ALL SELECT 0, .5, .4, .1)").fetchone()[0])
    ck.equal([g["ovr_macro"], g["ovo_macro"], g["per_class"][2]], [None, None, None], "absent class: nulls")
    ck.equal(g["reason"], "class 2 has no row: ovr_macro, ovr_weighted, ovo_macro and ovo_weighted need every class",
             "absent class: reason")
    ck.true(g["micro"] is not None, "absent class: micro defined")
    # a twin's JSON form with parameters: a row whose probs is NULL cannot
    # be told from the wide form; it is skipped (its weight read as the wide
    # form's, the last argument), in an aggregate and a window
    rows = "FROM (SELECT 1 id, 0 y, '[0.2, 0.8]' p, 2 w UNION ALL SELECT 2, 1, NULL, 1 UNION ALL SELECT 3, 1, '[0.6, 0.4]', 1)"
    kept = "FROM (SELECT 1 id, 0 y, '[0.2, 0.8]' p, 2 w UNION ALL SELECT 3, 1, '[0.6, 0.4]', 1)"
    ck.equal(con.execute("SELECT mc_calibration_w(y, p, w, 5) " + rows).fetchone()[0],
             con.execute("SELECT mc_calibration_w(y, p, w, 5) " + kept).fetchone()[0], "a NULL probs row is skipped (twin, bins)")
    ck.equal([r[0] for r in con.execute("SELECT mc_calibration_w(y, p, w, 5) OVER (ORDER BY id ROWS 1 PRECEDING) " + rows)],
             [con.execute("SELECT mc_calibration_w(y, p, w, 5) %s WHERE id = %d" % (kept, i)).fetchone()[0] for i in (1, 1, 3)],
             "a NULL probs row is skipped (twin, bins, window)")
    # a class holding every row: its per_class value is null, as pr_auc's and
    # auroc's over one class are (issue 46), with the reason
    one_class = "FROM (SELECT 1 y, .2 a, .7 b, .1 c UNION ALL SELECT 1, .5, .4, .1 UNION ALL SELECT 1, .3, .3, .4)"
    ck.equal(con.execute("SELECT pr_auc(y = 1, b) " + one_class).fetchone()[0], None, "pr_auc over one class is NULL")
    for fn, binary in (("mc_pr_auc", "pr_auc"), ("mc_auroc", "auroc")):
        for tw in ("", "_w"):
            g = json.loads(con.execute("SELECT %s%s(y, a, b, c%s) %s" % (fn, tw, ", 2" if tw else "", one_class)).fetchone()[0])
            ck.equal(g["per_class"], [None, None, None], fn + tw + ": a class holding every row is null, as " + binary + "'s")
            ck.true(g["reason"].endswith("; class 1 holds every row: its per_class value is null, as %s over one class"
                                         % binary), fn + tw + ": the reason names the class holding every row: " + g["reason"])
            ck.true(g["micro"] is not None, fn + tw + ": one class: micro defined")


def test_records(ck):
    """This suite covers every function of the family and its twin (test_weights.py
    leaves the multiclass twins to it); test_mc_state.py the states (ml_state_mc,
    ml_state_mc_w) and mc_auroc_ci_w."""
    con = mltest.connect()
    table = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    # (the long layout's records, NAME_long and NAME_long_w, are test_mc_long.py's)
    fam = sorted(f["name"] for f in table if f["family"] == "multiclass" and "_long" not in f["name"])
    ck.equal(fam, sorted(list(FUNCS) + [f + "_w" for f in FUNCS]
                         + ["mc_auroc_ci", "mc_auroc_ci_w", "ml_state_mc", "ml_state_mc_w"]),
             "the multiclass records are the suite's functions")
    mltest.has_twins(ck, con, FUNCS)


def ovr_ovo_weighted(y, P, k, w):
    """(ovr_macro, ovo_macro) of the rows weighing w (0: not drawn), by
    scikit-learn; None when a class has no drawn row."""
    keep = w > 0
    yy, PP, ww = y[keep], P[keep], w[keep].astype(float)
    if len(set(yy)) < k:
        return None
    ovr = float(np.mean([roc_auc_score(yy == j, PP[:, j], sample_weight=ww) for j in range(k)]))
    pairs = []
    for a in range(k):
        for b in range(a + 1, k):
            m = (yy == a) | (yy == b)
            pairs.append((roc_auc_score(yy[m] == a, PP[m, a], sample_weight=ww[m])
                          + roc_auc_score(yy[m] == b, PP[m, b], sample_weight=ww[m])) / 2)
    return ovr, float(np.mean(pairs))


@mltest.covers("mc_auroc_ci")
def test_auroc_ci(ck, rng):
    """mc_auroc_ci: the bootstrap of docs/uncertainty.md (test_uncertainty.py's
    reference: the same generator, draws and BCa) over the canonical order
    (y, s_0, ...), its statistic by scikit-learn; the estimate is mc_auroc's,
    bit for bit; the rows' order does not matter; a class absent is NULL."""
    import test_uncertainty
    con = mltest.connect()
    for trial in range(6):
        k = 3 + trial % 2
        n = int(rng.integers(14, 30))
        y = rng.integers(0, k, n)
        y[:k] = np.arange(k)
        P = random_probs(rng, n, k, ("ties", "dirichlet")[trial % 2])
        reps, seed, level = (10, 25)[trial % 2], [0, 7, 2**53, 12345][trial % 4], (0.9, 0.95)[trial % 2]
        order = rng.permutation(n)
        load_rows(con, y[order], P[order], k)
        canon = sorted(range(n), key=lambda i: (int(y[i]), 1.0) + tuple(float(v) for v in P[i]))
        yc, Pc = y[canon], P[canon]
        want, red = test_uncertainty.boot_reference(lambda w: ovr_ovo_weighted(yc, Pc, k, w), n, reps, seed,
                                                    level, None)
        got = json.loads(one(con, "mc_auroc_ci(y, probs, %r, %d, %d)" % (level, reps, seed)))
        what = "mc_auroc_ci trial %d (k %d n %d reps %d seed %d)" % (trial, k, n, reps, seed)
        ck.equal(list(got), ["ovr_macro", "ovo_macro", "level", "reps", "seed", "method", "redrawn", "k", "n"],
                 what + " keys")
        for key, iv in (("ovr_macro", want[0]), ("ovo_macro", want[1])):
            for f in ("estimate", "se", "lo", "hi"):
                ck.close(got[key][f], iv[f], "%s %s %s" % (what, key, f), rel=1e-9, abs_=1e-12)
            ck.close(got[key]["percentile"][0], iv["plo"], what + " " + key + " percentile lo", rel=1e-9)
            ck.close(got[key]["percentile"][1], iv["phi"], what + " " + key + " percentile hi", rel=1e-9)
        ck.equal([got["level"], got["reps"], got["seed"], got["redrawn"], got["k"], got["n"]],
                 [level, reps, seed, red, k, n], what + " run fields")
        a = json.loads(one(con, wide("mc_auroc", k)))
        ck.equal([repr(got["ovr_macro"]["estimate"]), repr(got["ovo_macro"]["estimate"])],
                 [repr(a["ovr_macro"]), repr(a["ovo_macro"])], what + ": the estimate is mc_auroc's")
        perm = rng.permutation(n)
        load_rows(con, y[perm], P[perm], k)
        ck.equal(json.loads(one(con, "mc_auroc_ci(y, probs, %r, %d, %d)" % (level, reps, seed))), got,
                 what + ": the rows' order does not matter")
        ck.equal(one(con, "mc_auroc_ci(y, %s)" % ", ".join("p%d" % j for j in range(k))) is not None, True,
                 what + ": the wide form (defaults)")
    load_rows(con, np.array([0, 1, 0, 1]), np.array([[0.2, 0.3, 0.5]] * 4), 3)
    ck.equal(one(con, "mc_auroc_ci(y, p0, p1, p2)"), None, "mc_auroc_ci: a class absent is NULL")
    # windows: each frame the aggregate over its rows
    n = 16
    y = rng.integers(0, 3, n)
    load_rows(con, y, random_probs(rng, n, 3, "ties"), 3, g=rng.integers(0, 2, n))
    for shape, rid, idx, (v,) in mltest.each_frame(con, ["mc_auroc_ci(y, probs, 0.9, 10, 1)"],
                                                   shapes=mltest.FRAMES[:4], order="ts"):
        ids = ",".join(str(i + 1) for i in idx) or "NULL"
        agg = con.execute("SELECT mc_auroc_ci(y, probs, 0.9, 10, 1) FROM t WHERE id IN (%s)" % ids).fetchone()[0]
        ck.equal(v, agg, "mc_auroc_ci OVER (%s) row %d" % (shape, rid))


def main():
    ck = mltest.Checker("test_multiclass")
    rng = np.random.default_rng(20261128)
    test_records(ck)
    test_toy(ck)
    test_edges(ck)
    test_sklearn(ck, rng)
    test_integer_weights(ck, rng)
    test_layouts(ck, rng)
    test_windows(ck, rng)
    test_rank_windows(ck, rng)
    test_auroc_ci(ck, rng)
    mltest.require_family(ck, mltest.connect(), "multiclass", __file__)
    ck.finish()


if __name__ == "__main__":
    main()
