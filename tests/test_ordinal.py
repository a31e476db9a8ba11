# SPDX-License-Identifier: MIT
"""Differential suite: the ordinal family against sklearn's
average_precision_score per cut.

auprc_ge(y, s, k)    <-> AP(y >= k, s)
ordinal_auprc/nap    <-> mean over k of AP(y >= k, s_k) and of its nAP
ordinal_report       <-> every field, severity_ordering_ap = AP(y == m, s_m | y >= 1)
Datasets: m from 1 to 5, rare top classes (down to 1 %), ties, GROUP BY and
every window frame shape.
"""
import json

import numpy as np
from sklearn.metrics import average_precision_score

import mltest


def ap(y, s):
    y = np.asarray(y, int)
    return None if len(y) == 0 or y.min() == y.max() else average_precision_score(y, s)


def report(y, S):
    """The reference ordinal_report for labels y and score columns S[k-1]."""
    y = np.asarray(y, int)
    m = len(S)
    if len(y) == 0:
        return None
    out = {}
    aps, naps = [], []
    for k in range(1, m + 1):
        b = (y >= k).astype(int)
        a = ap(b, S[k - 1])
        pi = b.mean()
        out["auprc_ge_%d" % k] = a
        out["nap_ge_%d" % k] = None if a is None else (a - pi) / (1 - pi)
        out["prevalence_ge_%d" % k] = pi
        aps.append(a)
        naps.append(out["nap_ge_%d" % k])
    ok = all(a is not None for a in aps)
    out["ordinal_auprc"] = float(np.mean(aps)) if ok else None
    out["ordinal_nap"] = float(np.mean(naps)) if ok else None
    r = y >= 1
    out["severity_ordering_ap"] = ap((y[r] == m).astype(int), np.asarray(S[m - 1])[r])
    return out


def check_report(ck, got, want, what):
    if want is None:
        ck.equal(got, None, what)
        return
    got = json.loads(got)
    ck.equal(sorted(got), sorted(want), what + " keys")
    for k, v in want.items():
        ck.close(got.get(k), v, what + " " + k)


def gen(rng, n, m):
    probs = rng.dirichlet(np.ones(m + 1) * 0.7)
    probs = np.sort(probs)[::-1]            # higher severities rarer
    if rng.random() < 0.5:
        probs = np.array([0.78, 0.21, 0.01] if m == 2 else probs)
    y = rng.choice(m + 1, n, p=probs / probs.sum())
    S = []
    for k in range(1, m + 1):
        sk = (y >= k) * rng.random() + rng.normal(0, 1, n)
        if rng.random() < 0.3:
            sk = np.round(sk, 1)                # ties
        S.append(sk)
    return y, S


@mltest.covers("auprc_ge", "ordinal_auprc", "ordinal_nap", "ordinal_report")
def test_ordinal(ck, con):
    """auprc_ge, ordinal_auprc, ordinal_nap and ordinal_report against scikit-learn's
    average_precision_score per cumulative split, GROUP BY and every frame."""
    rng = np.random.default_rng(6)
    for trial in range(200):
        m = int(rng.integers(1, 6))
        n = int(rng.integers(2, 500)) if trial < 150 else int(rng.integers(500, 20000))
        y, S = gen(rng, n, m)
        g = rng.integers(0, int(rng.integers(1, 4)), n)
        cols = ["y", "g"] + ["s%d" % (k + 1) for k in range(m)]
        rows = [(int(y[i]), int(g[i])) + tuple(float(S[k][i]) for k in range(m)) for i in range(n)]
        rows.append((None, 0) + (0.5,) * m)
        rows.append((1, 0) + (None,) * m)
        mltest.load(con, cols, rows)
        ss = ", ".join("s%d" % (k + 1) for k in range(m))
        what = "trial %d (n=%d m=%d)" % (trial, n, m)
        q = ("SELECT g, ordinal_auprc(y, {s}), ordinal_nap(y, {s}), ordinal_report(y, {s}), "
             "auprc_ge(y, s1, 1), auprc_ge(y, s{m}, {m}) FROM t GROUP BY g").format(s=ss, m=m)
        for gi, oa, on, rep, ge1, gem in con.execute(q):
            mk = g == gi
            want = report(y[mk], [sk[mk] for sk in S])
            ck.close(oa, want["ordinal_auprc"], what + " ordinal_auprc g=%d" % gi)
            ck.close(on, want["ordinal_nap"], what + " ordinal_nap g=%d" % gi)
            check_report(ck, rep, want, what + " ordinal_report g=%d" % gi)
            ck.close(ge1, ap((y[mk] >= 1).astype(int), S[0][mk]), what + " auprc_ge 1")
            ck.close(gem, ap((y[mk] >= m).astype(int), S[m - 1][mk]), what + " auprc_ge m")

    # window frames, m = 2 with a rare top class
    for trial in range(6):
        n = int(rng.integers(60, 160))
        y = rng.choice(3, n, p=[0.6, 0.3, 0.1])
        S = [(y >= 1) * 0.8 + rng.normal(0, 1, n), (y >= 2) * 0.8 + np.round(rng.normal(0, 1, n), 1)]
        ts = np.sort(rng.integers(0, n // 2, n))
        g = rng.integers(0, 2, n)
        mltest.load(con, ["y", "s1", "s2", "ts", "g"],
                    [(int(y[i]), float(S[0][i]), float(S[1][i]), int(ts[i]), int(g[i])) for i in range(n)])
        for frame, rid, idx, (rep, ge2) in mltest.each_frame(
                con, ["ordinal_report(y, s1, s2)", "auprc_ge(y, s2, 2)"]):
            what = "window %d [%s] row %d" % (trial, frame, rid)
            check_report(ck, rep, report(y[idx], [S[0][idx], S[1][idx]]), what)
            ck.close(ge2, ap((y[idx] >= 2).astype(int), S[1][idx]), what + " auprc_ge")


def main():
    ck = mltest.Checker("ordinal")
    con = mltest.connect()
    test_ordinal(ck, con)
    mltest.require_family(ck, con, "ordinal", __file__)
    ck.finish()


if __name__ == "__main__":
    main()
