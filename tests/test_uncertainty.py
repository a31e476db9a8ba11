"""Uncertainty and comparison (SPEC "Uncertainty and comparison"): the
bootstrap CIs, DeLong, mean_ci, checked against independent references.

- reproduction: a numpy re-implementation of the documented generator
  (splitmix64 -> xoshiro256**, Lemire's draw) and canonical order rebuilds
  every replicate of pr_auc_ci and pr_auc_diff_ci (scikit-learn's AP on the
  repeated rows) and their se, percentile and BCa bounds to 1e-12, with ties
  and rows that differ only in the third argument;
- estimates: each *_ci "estimate" is the metric itself (pr_auc, nap, brier,
  log_loss, ece, strat_gap, auroc);
- DeLong against an O(n^2) structural-components implementation, to 1e-12;
- pr_auc_delta_ci(_w) and pr_auc_diff_delta: their derivatives against
  central differences of scikit-learn's weighted AP, se, bounds, z and p
  against numpy over 200 datasets (ties, 1 % prevalence, 2-row groups,
  weights), se against the bootstrap's (pr_auc_ci, pr_auc_diff_ci, and
  pr_auc_ci over the rows that pr_auc_delta_ci_w's integer weights repeat);
  pr_auc_delta_ci_w's integer weights equal the rows repeated, bit for bit,
  and its se scales as 1/sqrt(c) with the weights (frequency weights);
- mean_ci against scipy.stats.t, the t quantile to 1e-12 over df and levels;
- determinism: three insertion orders and GROUP BY vs WHERE give the same text;
- windows equal the aggregate over the frame;
- bad inputs: level, reps, seed out of range or varying by row (exact texts);
  one class -> NULL.
The coverage simulation and the KS test are in test_uncertainty_coverage.py.
"""
import json
import math
import os
import sqlite3
import threading
import time

import numpy as np
from scipy import special, stats
from sklearn.metrics import average_precision_score, roc_auc_score

import mltest

M64 = (1 << 64) - 1


# ------------------------------------------------ the documented generator

def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return x, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


class Rng:
    """xoshiro256** for replicate `rep` of `seed` (docs/uncertainty.md)."""

    def __init__(self, seed, rep):
        x = seed ^ ((0xD1B54A32D192ED03 * (rep + 1)) & M64)
        self.s = []
        for _ in range(4):
            x, z = splitmix64(x)
            self.s.append(z)

    def next(self):
        s = self.s
        out = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return out

    def below(self, n):
        m = self.next() * n
        lo = m & M64
        if lo < n:
            t = ((1 << 64) - n) % n
            while lo < t:
                m = self.next() * n
                lo = m & M64
        return m >> 64


def canonical(y, s, aux=None):
    """Indices of the rows in canonical order: score, then label, then aux."""
    keys = (np.asarray(s, float) + 0.0,) if aux is None else (np.asarray(aux, float) + 0.0,)
    if aux is None:
        return np.lexsort((y, s))
    return np.lexsort((keys[0], y, s))


def boot_reference(stat, n, reps, seed, level, est_fn, tie=1e-13):
    """Replicates, then se / percentile / BCa as docs/uncertainty.md defines
    them.  stat(weights) -> tuple of statistics or None when undefined.  A
    replicate within tie (relative) of the estimate counts as equal to it in
    BCa's z0 (the extension: exactly equal; 0 for a stat computed as the
    extension computes it, so that a replicate an ulp away is not equal)."""
    est = stat(np.ones(n, int))
    reps_v, redrawn = [], 0
    for b in range(reps):
        r = Rng(seed, b)
        while True:
            w = np.zeros(n, int)
            for _ in range(n):
                w[r.below(n)] += 1
            v = stat(w)
            if v is not None:
                break
            redrawn += 1
        reps_v.append(v)
    reps_v = np.array(reps_v)
    G = min(n, 200)
    jk = []
    for g in range(G):
        w = np.ones(n, int)
        w[g::G] = 0
        jk.append(stat(w))
    out = []
    for k in range(len(est)):
        t = reps_v[:, k]
        e = est[k]
        se = t.std(ddof=1)
        plo, phi = np.quantile(t, [(1 - level) / 2, (1 + level) / 2])
        jv = np.array([j[k] for j in jk if j is not None])
        d = jv.mean() - jv
        s2, s3 = (d * d).sum(), (d * d * d).sum()
        a = s3 / (6 * s2 ** 1.5) if s2 > 0 else 0.0
        eq = np.abs(t - e) <= tie * abs(e)
        prop = ((t < e) & ~eq).sum() + 0.5 * eq.sum()
        prop = min(max(prop / reps, 0.5 / reps), 1 - 0.5 / reps)
        z0 = stats.norm.ppf(prop)
        zl = stats.norm.ppf((1 - level) / 2)
        alphas = []
        for z in (zl, -zl):
            num = z0 + z
            den = 1 - a * num
            alphas.append(stats.norm.cdf(z0 + num / den) if den > 0 else (0.0 if z < 0 else 1.0))
        lo, hi = np.quantile(t, sorted(alphas))
        pv = min(1.0, 2 * min((t <= 0).sum(), (t >= 0).sum()) / reps)
        out.append(dict(estimate=e, se=se, plo=plo, phi=phi, lo=lo, hi=hi, p_value=pv))
    return out, redrawn


def ap_weighted(y, s, w):
    yy, ss = np.repeat(y, w), np.repeat(s, w)
    if yy.min() == yy.max():
        return None
    return average_precision_score(yy, ss)


@mltest.covers("pr_auc_ci", "pr_auc_diff_ci")
def check_reproduction(ck, con, rng):
    for trial in range(14):
        n = int(rng.integers(12, 45))
        y = (rng.random(n) < rng.uniform(0.2, 0.6)).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n) + 0.3 * y, 1)            # many ties
        sb = np.round(rng.random(n) + 0.2 * y, 1)
        # rows that differ only in the third argument
        k = int(rng.integers(2, 5))
        y[-k:], s[-k:] = y[0], s[0]
        reps = int(rng.choice([10, 25, 40]))
        seed = [2**63 - 1, 2**53 + 1, 0, 1, 12345][trial % 5]      # seeds beyond a double's 53 bits too
        level = float(rng.choice([0.9, 0.95, 0.8]))
        order = rng.permutation(n)
        mltest.load(con, ["y", "s", "sb"], [(int(y[i]), float(s[i]), float(sb[i])) for i in order])
        what = "reproduction %d (n %d, reps %d, seed %d)" % (trial, n, reps, seed)

        c = canonical(y, s)
        yc, sc = y[c], s[c]
        want, red = boot_reference(lambda w: (lambda v: None if v is None else (v,))(ap_weighted(yc, sc, w)),
                                   n, reps, seed, level, None)
        got = json.loads(con.execute("SELECT pr_auc_ci(y, s, ?, ?, ?) FROM t", (level, reps, seed)).fetchone()[0])
        w0 = want[0]
        for key, gkey in (("estimate", "estimate"), ("se", "se"), ("lo", "lo"), ("hi", "hi")):
            ck.close(got[gkey], w0[key], what + " pr_auc_ci " + key)
        ck.close(got["percentile"][0], w0["plo"], what + " pr_auc_ci percentile lo")
        ck.close(got["percentile"][1], w0["phi"], what + " pr_auc_ci percentile hi")
        ck.equal(got["redrawn"], red, what + " redrawn")
        ck.equal((got["reps"], got["seed"], got["n"], got["level"]), (reps, seed, n, level), what + " echo")

        c = canonical(y, s, sb)
        yc, sc, sbc = y[c], s[c], sb[c]

        def pair(w):
            a = ap_weighted(yc, sc, w)
            if a is None:
                return None
            b = ap_weighted(yc, sbc, w)
            return (a - b, a, b)
        want, red = boot_reference(pair, n, reps, seed, level, None)
        got = json.loads(con.execute("SELECT pr_auc_diff_ci(y, s, sb, ?, ?, ?) FROM t",
                                     (level, reps, seed)).fetchone()[0])
        ck.close(got["a"], want[1]["estimate"], what + " diff a")
        ck.close(got["b"], want[2]["estimate"], what + " diff b")
        ck.close(got["diff"], want[0]["estimate"], what + " diff")
        for key in ("se", "lo", "hi", "p_value"):
            ck.close(got[key], want[0][key], what + " diff " + key)
        ck.close(got["percentile"][0], want[0]["plo"], what + " diff percentile lo")
        ck.close(got["percentile"][1], want[0]["phi"], what + " diff percentile hi")
        ck.equal(got["redrawn"], red, what + " diff redrawn")


# ------------------------------------------------------------- estimates

def check_estimates(ck, con, rng):
    for trial in range(30):
        n = int(rng.integers(30, 300))
        y = (rng.random(n) < rng.uniform(0.1, 0.7)).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n) + 0.4 * y, int(rng.integers(1, 4)))
        p = np.clip(np.round(rng.random(n) * 0.7 + 0.3 * y, int(rng.integers(1, 4))), 0, 1)
        z = rng.integers(0, 6, n).astype(float)
        mltest.load(con, ["y", "s", "p", "z"], [(int(y[i]), float(s[i]), float(p[i]), float(z[i])) for i in range(n)])
        what = "estimate %d" % trial
        row = con.execute("""SELECT pr_auc(y, s), pr_auc_ci(y, s, 0.95, 10) ->> '$.estimate',
                                    nap(y, s), nap_ci(y, s, 0.95, 10) ->> '$.estimate',
                                    auroc(y, s), auroc_ci(y, s) ->> '$.estimate',
                                    brier(y, p), brier_ci(y, p, 0.95, 10) ->> '$.estimate',
                                    log_loss(y, p), log_loss_ci(y, p, 0.95, 10) ->> '$.estimate',
                                    ece(y, p, 7), ece_ci(y, p, 7, 0.95, 10) ->> '$.estimate',
                                    strat_gap(y, s, z), strat_gap_ci(y, s, z, 0.25, 0.75, 0.9, 10) ->> '$.estimate',
                                    strat_pr_auc(y, s, z), strat_gap_ci(y, s, z, 0.25, 0.75, 0.9, 10) ->> '$.trimmed_ci.estimate',
                                    pr_auc_diff_ci(y, s, p, 0.95, 10) ->> '$.b', pr_auc(y, p),
                                    ece_diff_ci(y, p, s / 2, 7, 0.95, 10) ->> '$.a',
                                    auroc_diff(y, s, p) ->> '$.b', auroc(y, p)
                             FROM t""").fetchone()
        # the ranking and stratified estimates are the same doubles
        for i, name in ((0, "pr_auc"), (2, "nap"), (4, "auroc"), (12, "strat_gap"), (14, "strat_pr_auc")):
            ck.equal(row[i + 1], row[i], what + " " + name + " estimate is the metric")
        ck.equal(row[16], row[17], what + " pr_auc_diff_ci b is pr_auc(s_b)")
        ck.equal(row[19], row[20], what + " auroc_diff b is auroc(s_b)")
        # the calibration sums share the metric's terms and bins
        for i, name in ((6, "brier"), (8, "log_loss"), (10, "ece")):
            ck.close(row[i + 1], row[i], what + " " + name + " estimate is the metric", rel=1e-13)
        ck.close(row[18], row[10], what + " ece_diff_ci a is ece(p_a)", rel=1e-13)


# ----------------------------------------------------------------- DeLong

def delong_reference(y, sa, sb=None):
    """O(n^2) structural components (DeLong et al. 1988)."""
    def comps(s):
        x, v = s[y == 1], s[y == 0]
        psi = (x[:, None] > v[None, :]) + 0.5 * (x[:, None] == v[None, :])
        return psi.mean(axis=1), psi.mean(axis=0)
    m, n = int(y.sum()), int((1 - y).sum())
    A10, A01 = comps(sa)
    if sb is None:
        auc = roc_auc_score(y, sa)
        var = np.var(A10, ddof=1) / m + np.var(A01, ddof=1) / n
        return auc, math.sqrt(var)
    B10, B01 = comps(sb)
    S10 = np.cov(np.vstack([A10, B10]))
    S01 = np.cov(np.vstack([A01, B01]))
    var = (S10[0, 0] + S10[1, 1] - 2 * S10[0, 1]) / m + (S01[0, 0] + S01[1, 1] - 2 * S01[0, 1]) / n
    return roc_auc_score(y, sa), roc_auc_score(y, sb), math.sqrt(max(var, 0.0))


@mltest.covers("auroc_ci", "auroc_diff")
def check_delong(ck, con, rng):
    for trial in range(80):
        n = int(rng.integers(4, 400))
        y = (rng.random(n) < rng.uniform(0.05, 0.8)).astype(int)
        y[0], y[1], y[2], y[3] = 0, 1, 0, 1
        kind = ["uniform", "ties", "integer", "zeros"][trial % 4]
        sa = mltest.random_scores(rng, n, kind) + rng.uniform(0, 1) * y
        sb = np.where(rng.random(n) < 0.3, sa, mltest.random_scores(rng, n, kind) + rng.uniform(0, 1) * y)
        level = float(rng.choice([0.95, 0.9, 0.99]))
        mltest.load(con, ["y", "sa", "sb"], [(int(y[i]), float(sa[i]), float(sb[i])) for i in range(n)])
        what = "delong %d (n %d, %s)" % (trial, n, kind)
        got = json.loads(con.execute("SELECT auroc_ci(y, sa, ?) FROM t", (level,)).fetchone()[0])
        auc, se = delong_reference(y, sa)
        z = stats.norm.isf((1 - level) / 2)
        ck.close(got["estimate"], auc, what + " auc")
        ck.close(got["se"], se, what + " se")
        ck.close(got["lo"], max(0.0, auc - z * se), what + " lo")
        ck.close(got["hi"], min(1.0, auc + z * se), what + " hi")
        ck.equal(got["method"], "delong", what + " method")
        got = json.loads(con.execute("SELECT auroc_diff(y, sa, sb, ?) FROM t", (level,)).fetchone()[0])
        a, b, se = delong_reference(y, sa, sb)
        ck.close(got["a"], a, what + " diff a")
        ck.close(got["b"], b, what + " diff b")
        ck.close(got["diff"], a - b, what + " diff", abs_=1e-15)
        ck.close(got["se"], se, what + " diff se", abs_=1e-15)
        if se > 1e-12:
            zz = (a - b) / se
            ck.close(got["z"], zz, what + " z", rel=1e-9, abs_=1e-12)
            ck.close(got["p_value"], 2 * stats.norm.sf(abs(zz)), what + " p", rel=1e-9, abs_=1e-14)
    # identical scores: diff 0, se 0, p 1, z null
    mltest.load(con, ["y", "sa"], [(i % 2, float(i % 5)) for i in range(20)])
    got = json.loads(con.execute("SELECT auroc_diff(y, sa, sa) FROM t").fetchone()[0])
    ck.equal((got["diff"], got["se"], got["z"], got["p_value"]), (0, 0, None, 1), "auroc_diff of identical scores")
    # one row of a class: the variance needs two: null se and bounds
    mltest.load(con, ["y", "sa"], [(1, 0.9), (0, 0.1), (0, 0.5)])
    got = json.loads(con.execute("SELECT auroc_ci(y, sa) FROM t").fetchone()[0])
    ck.equal((got["estimate"], got["se"], got["lo"], got["hi"]), (1, None, None, None), "auroc_ci with one positive")


# ------------------------------------------------------- pr_auc_delta_ci

def ap_derivatives(y, s, w=None):
    """d AP / d(weight of row i), from the tie groups (numpy, highest first)."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    keys, inv = np.unique(-s, return_inverse=True)      # group 0 holds the highest score
    a = np.bincount(inv, weights=w * y, minlength=len(keys))
    c = np.bincount(inv, weights=w, minlength=len(keys))
    T, C = np.cumsum(a), np.cumsum(c)
    P = T[-1]
    ap = float((a * T / C).sum() / P)
    t2 = np.cumsum((a * T / C ** 2)[::-1])[::-1]          # over the group and those below it
    t3 = np.cumsum((a * (C - T) / C ** 2)[::-1])[::-1]
    dpos = ((T / C - ap) + t3) / P
    dneg = -t2 / P
    return ap, np.where(y == 1, dpos[inv], dneg[inv])


def fd_derivatives(y, s, w):
    """The same by central differences of scikit-learn's weighted AP."""
    h = 1e-6
    out = np.empty(len(y))
    for i in range(len(y)):
        up, dn = w.copy(), w.copy()
        up[i] += h
        dn[i] -= h
        out[i] = (average_precision_score(y, s, sample_weight=up)
                  - average_precision_score(y, s, sample_weight=dn)) / (2 * h)
    return out


def logit_bounds(ap, se, level):
    if se == 0 or ap >= 1:
        return ap, ap
    z = stats.norm.isf((1 - level) / 2)
    eta, h = math.log(ap / (1 - ap)), z * se / (ap * (1 - ap))
    return float(special.expit(eta - h)), float(special.expit(eta + h))


@mltest.covers("pr_auc_delta_ci", "pr_auc_delta_ci_w", "pr_auc_diff_delta")
def check_delta_ap(ck, con, rng):
    kinds = ["uniform", "ties", "integer", "zeros", "normal"]
    # 1. the derivatives themselves against scikit-learn's weighted AP, moved
    #    by finite differences: an oracle that knows nothing of the formula
    for trial in range(30):
        n = int(rng.integers(3, 50))
        y = (rng.random(n) < rng.uniform(0.1, 0.7)).astype(int)
        y[0], y[1] = 0, 1
        s = mltest.random_scores(rng, n, kinds[trial % 5]) + rng.uniform(0, 1) * y
        w = np.where(rng.random(n) < 0.5, 1.0, rng.uniform(0.2, 3.0, n)) if trial % 2 else np.ones(n)
        mltest.load(con, ["y", "s", "w"], [(int(y[i]), float(s[i]), float(w[i])) for i in range(n)])
        what = "pr_auc_delta_ci fd %d (n %d)" % (trial, n)
        fd = fd_derivatives(y, s, w)                  # d AP / d (row i's weight)
        got = json.loads(one(con, "SELECT pr_auc_delta_ci_w(y, s, w) FROM t"))
        # a row of weight w is w units, each moving AP by fd: se^2 = sum w fd^2
        ck.close(got["se"], math.sqrt((w * fd ** 2).sum()), what + " se", rel=1e-5, abs_=1e-9)
        ck.close(got["estimate"], average_precision_score(y, s, sample_weight=w), what + " estimate")
        # paired: a second score, the derivatives of AP(s) - AP(s_b) in each row's weight
        sb = np.where(rng.random(n) < 0.3, s, mltest.random_scores(rng, n, kinds[(trial + 1) % 5]) + 0.5 * y)
        ones = np.ones(n)
        fda = fd_derivatives(y, s, ones) - fd_derivatives(y, sb, ones)
        con.execute("ALTER TABLE t ADD COLUMN sb")
        con.executemany("UPDATE t SET sb = ? WHERE id = ?", [(float(sb[i]), i + 1) for i in range(n)])
        got = json.loads(one(con, "SELECT pr_auc_diff_delta(y, s, sb) FROM t"))
        ck.close(got["se"], math.sqrt((fda ** 2).sum()), what + " paired se", rel=1e-5, abs_=1e-9)
    # 2. the formula in numpy over many shapes: ties, 1 % prevalence, tiny groups
    for trial in range(200):
        n = int(rng.choice([2, 3, 5, 20, 100, 1000, 3000]))
        prev = float(rng.choice([0.01, 0.1, 0.5, 0.9]))
        y = (rng.random(n) < prev).astype(int)
        y[0], y[1] = 0, 1
        s = mltest.random_scores(rng, n, kinds[trial % 5]) + rng.uniform(0, 2) * y * (trial % 3 > 0)
        level = float(rng.choice([0.95, 0.9, 0.5, 0.999]))
        weighted = trial % 4 == 3
        w = rng.choice([0.5, 1.0, 2.0, 1 / 3], n) if weighted else np.ones(n)
        mltest.load(con, ["y", "s", "w"], [(int(y[i]), float(s[i]), float(w[i])) for i in range(n)])
        what = "pr_auc_delta_ci %d (n %d, prevalence %g%s)" % (trial, n, prev, ", weighted" if weighted else "")
        if weighted:
            got = json.loads(one(con, "SELECT pr_auc_delta_ci_w(y, s, w, ?) FROM t", level))
            ck.equal(got["estimate"], one(con, "SELECT pr_auc_w(y, s, w) FROM t"), what + ": pr_auc_w's value")
        else:
            got = json.loads(one(con, "SELECT pr_auc_delta_ci(y, s, ?) FROM t", level))
            ck.equal(got["estimate"], one(con, "SELECT pr_auc(y, s) FROM t"), what + ": pr_auc's value")
        ap, d = ap_derivatives(y, s, w)
        se = math.sqrt((w * d ** 2).sum())          # frequency weights: w units of influence d
        ck.close(got["se"], se, what + " se", rel=1e-9, abs_=1e-15)
        lo, hi = logit_bounds(ap, se, level)
        ck.close(got["lo"], lo, what + " lo", rel=1e-9, abs_=1e-15)
        ck.close(got["hi"], hi, what + " hi", rel=1e-9, abs_=1e-15)
        # inside (0, 1], but for a perfect ranking, whose bounds are the estimate
        # (pr_auc_w's sum of weights may round it to 1 + 2e-16)
        inside = 0 < got["lo"] <= got["estimate"] <= got["hi"] <= 1
        perfect = got["estimate"] >= 1 and got["lo"] == got["hi"] == got["estimate"]
        ck.true(inside or perfect, what + ": lo <= estimate <= hi inside (0, 1]: %r" % got)
        ck.equal((got["level"], got["method"]), (level, "delta_logit"), what + " level, method")
        ck.close(got["n"], float(w.sum()), what + " n (the sum of the weights)", rel=1e-15)
        ck.close(abs((w * d).sum()), 0.0, what + ": the derivatives (times w) sum to 0", abs_=1e-9)
        if not weighted:
            sb = np.where(rng.random(n) < 0.4, s, mltest.random_scores(rng, n, kinds[(trial + 2) % 5]) + y)
            con.execute("ALTER TABLE t ADD COLUMN sb")
            con.executemany("UPDATE t SET sb = ? WHERE id = ?", [(float(sb[i]), i + 1) for i in range(n)])
            got = json.loads(one(con, "SELECT pr_auc_diff_delta(y, s, sb, ?) FROM t", level))
            apb, db = ap_derivatives(y, sb)
            sed = math.sqrt(((d - db) ** 2).sum())
            want_a, want_b = one(con, "SELECT pr_auc(y, s) FROM t"), one(con, "SELECT pr_auc(y, sb) FROM t")
            ck.equal((got["a"], got["b"], got["diff"]), (want_a, want_b, want_a - want_b), what + ": paired a, b are pr_auc's")
            ck.close(got["se"], sed, what + " paired se", rel=1e-9, abs_=1e-15)
            z = stats.norm.isf((1 - level) / 2)
            ck.close(got["lo"], max(-1.0, ap - apb - z * sed), what + " paired lo", rel=1e-9, abs_=1e-12)
            ck.close(got["hi"], min(1.0, ap - apb + z * sed), what + " paired hi", rel=1e-9, abs_=1e-12)
            if sed > 1e-12:
                zz = (ap - apb) / sed
                ck.close(got["z"], zz, what + " paired z", rel=1e-9, abs_=1e-12)
                ck.close(got["p_value"], 2 * stats.norm.sf(abs(zz)), what + " paired p", rel=1e-9, abs_=1e-14)
            ck.equal((got["method"], got["n"]), ("delta", n), what + " paired method, n")
    # 3. the bootstrap's standard error tends to it: 20 000 rows, 1000 replicates
    #    (their se carries about 2 % of Monte Carlo error)
    n = 20000
    y = (rng.random(n) < 0.1).astype(int)
    s = np.round(rng.normal(size=n) + 1.2 * y, 3)
    w = rng.uniform(0.5, 2.0, n)
    mltest.load(con, ["y", "s", "w"], [(int(y[i]), float(s[i]), float(w[i])) for i in range(n)])
    sb = np.round(rng.normal(size=n) + 0.8 * y + 0.5 * s, 3)
    con.execute("ALTER TABLE t ADD COLUMN sb")
    con.executemany("UPDATE t SET sb = ? WHERE id = ?", [(float(sb[i]), i + 1) for i in range(n)])
    got = json.loads(one(con, "SELECT pr_auc_diff_delta(y, s, sb) FROM t"))
    b = json.loads(one(con, "SELECT pr_auc_diff_ci(y, s, sb) FROM t"))
    ck.close(got["se"], b["se"], "pr_auc_diff_delta: se within 10 % of pr_auc_diff_ci's", rel=0.1)
    # the weighted twin's integer weights are repeated rows: its limit is the
    # bootstrap of those rows (pr_auc_ci_w resamples a row with its weight,
    # a unit of its own, and tends to sum (w D)^2 instead)
    con.execute("ALTER TABLE t ADD COLUMN k")
    con.execute("UPDATE t SET k = 1 + (w > 1.25)")
    rep = "t JOIN (SELECT 1 AS r UNION ALL SELECT 2) ON r <= k"
    for f, boot in (("pr_auc_delta_ci(y, s) FROM t", "pr_auc_ci(y, s) FROM t"),
                    ("pr_auc_delta_ci_w(y, s, k) FROM t", "pr_auc_ci(y, s) FROM " + rep)):
        got = json.loads(one(con, "SELECT %s" % f))
        b = json.loads(one(con, "SELECT %s" % boot))
        ck.close(got["se"], b["se"], "%s: se within 10 %% of %s's" % (f, boot), rel=0.1)
        ck.close(got["lo"], b["lo"], "%s: lo near %s's" % (f, boot), abs_=0.3 * b["se"])
        ck.close(got["hi"], b["hi"], "%s: hi near %s's" % (f, boot), abs_=0.3 * b["se"])
    # 4. integer weights are the rows repeated, bit for bit (SPEC's weights
    #    rule): estimate, se, lo and hi, over ties, small groups, weights to 7
    for trial in range(60):
        n = int(rng.choice([2, 3, 7, 30, 200]))
        y = (rng.random(n) < float(rng.choice([0.1, 0.5, 0.8]))).astype(int)
        y[0], y[1] = 0, 1
        s = mltest.random_scores(rng, n, kinds[trial % 5]) + rng.uniform(0, 1) * y
        w = rng.integers(0, 8, n) if trial % 2 else rng.choice([1, 2], n)
        w[0], w[1] = max(w[0], 1), max(w[1], 1)
        level = float(rng.choice([0.95, 0.9, 0.5]))
        mltest.load(con, ["y", "s", "w"], [(int(y[i]), float(s[i]), int(w[i])) for i in range(n)])
        got = json.loads(one(con, "SELECT pr_auc_delta_ci_w(y, s, w, ?) FROM t", level))
        rep = [(int(y[i]), float(s[i])) for i in range(n) for _ in range(int(w[i]))]
        rng.shuffle(rep)
        mltest.load(con, ["y", "s"], rep)
        want = json.loads(one(con, "SELECT pr_auc_delta_ci(y, s, ?) FROM t", level))
        what = "pr_auc_delta_ci_w, integer weights %d (n %d): the rows repeated" % (trial, n)
        for k in ("estimate", "se", "lo", "hi", "level", "method", "n"):
            ck.equal(got[k], want[k], what + ": " + k)
    # 5. edges: AP 1 has se 0 and lo = hi = 1; one class is NULL; weight 1 is the rows
    mltest.load(con, ["y", "s"], [(1, 0.9), (1, 0.8), (0, 0.1), (0, 0.2)])
    got = json.loads(one(con, "SELECT pr_auc_delta_ci(y, s) FROM t"))
    ck.equal((got["estimate"], got["se"], got["lo"], got["hi"]), (1, 0, 1, 1), "pr_auc_delta_ci of a perfect ranking")
    mltest.load(con, ["y", "s"], [(1, 0.9), (1, 0.8)])
    ck.equal(one(con, "SELECT pr_auc_delta_ci(y, s) FROM t"), None, "pr_auc_delta_ci of one class")
    mltest.load(con, ["y", "s"], [(i % 3 == 0, (i * 7 % 11) / 3) for i in range(200)])
    ck.equal(one(con, "SELECT pr_auc_delta_ci_w(y, s, 1) FROM t"), one(con, "SELECT pr_auc_delta_ci(y, s) FROM t"),
             "pr_auc_delta_ci_w with weight 1 is pr_auc_delta_ci")
    # the weighted twin's weights are frequencies: all of them times c is c
    # times the rows, so se / sqrt(c), even where the weights' squares or
    # their sums times a derivative would overflow or vanish (1e160, 1e-170);
    # a power of two gives the bits, and every scale its logit interval
    base = json.loads(one(con, "SELECT pr_auc_delta_ci_w(y, s, 1 + (id % 3)) FROM t"))
    for scale in (1e160, 1e-170, 2.0 ** -1000, 2.0 ** 999, 1e300 / 3):
        got = json.loads(one(con, "SELECT pr_auc_delta_ci_w(y, s, (1 + (id % 3)) * ?) FROM t", scale))
        what = "pr_auc_delta_ci_w, weights times %g" % scale
        ck.true(got["se"] is not None and got["lo"] is not None, what + ": defined")
        if got["se"] is not None:
            ck.close(got["se"] * math.sqrt(scale), base["se"], what + ": se / sqrt(c)", rel=1e-12)
            ck.close(got["estimate"], base["estimate"], what + ": the same estimate", rel=1e-15)
            if scale in (2.0 ** -1000, 2.0 ** 999):
                ck.equal(got["estimate"], base["estimate"], what + ": the same estimate, bit for bit")
                ck.equal(got["se"], base["se"] / math.sqrt(scale), what + ": se / sqrt(c), bit for bit")
            lo, hi = logit_bounds(got["estimate"], got["se"], 0.95)
            ck.close(got["lo"], lo, what + ": lo", rel=1e-12, abs_=1e-300)
            ck.close(got["hi"], hi, what + ": hi", rel=1e-12, abs_=1e-300)
    got = json.loads(one(con, "SELECT pr_auc_diff_delta(y, s, s) FROM t"))
    ck.equal((got["diff"], got["se"], got["z"], got["p_value"], got["lo"], got["hi"]), (0, 0, None, 1, 0, 0),
             "pr_auc_diff_delta of identical scores")
    mltest.load(con, ["y", "s"], [(i % 3 == 0, (i % 3 == 0) + (i * 7 % 11) / 20) for i in range(200)])
    got = json.loads(one(con, "SELECT pr_auc_diff_delta(y, s, -s) FROM t"))
    ck.true(got["diff"] > 0 and got["p_value"] < 1e-6, "pr_auc_diff_delta of a score and its reverse: %r" % got)


def one(con, sql, *args):
    return con.execute(sql, args).fetchone()[0]


# ---------------------------------------------------------------- mean_ci

def t_isf(q, df):
    """scipy's t quantile, polished: scipy 1.10's t.isf/t.ppf (cdflib's
    stdtrit) is accurate to only ~1e-9 (t.isf(0.25, 1) = 1.0000000000134,
    not 1), while its t.sf and t.pdf (cephes) are accurate to ~1e-15; three
    Newton steps on them give the quantile to the last bits."""
    t = stats.t.isf(q, df)
    for _ in range(3):
        t += (stats.t.sf(t, df) - q) / stats.t.pdf(t, df)
    return t


@mltest.covers("mean_ci")
def check_mean_ci(ck, con, rng):
    # the t quantile itself: symmetric data with mean 0 -> hi = t * sd / sqrt(n)
    for df in list(range(1, 61)) + [75, 99, 150, 199, 300, 499, 999, 4999]:
        n = df + 1
        v = np.arange(1, n // 2 + 1, dtype=float)
        x = np.concatenate([v, -v] + ([np.zeros(1)] if n % 2 else []))
        sd = x.std(ddof=1)
        mltest.load(con, ["x"], [(float(t),) for t in x])
        for level in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.9999999):
            got = json.loads(con.execute("SELECT mean_ci(x, ?) FROM t", (level,)).fetchone()[0])
            crit = got["hi"] * math.sqrt(n) / got["sd"]
            ck.close(crit, t_isf((1 - level) / 2, df), "t quantile df %d level %r" % (df, level))
            ck.close(got["sd"], sd, "sd df %d" % df)
    for trial in range(60):
        n = int(rng.integers(1, 40))
        x = rng.normal(rng.uniform(-5, 5), rng.uniform(0.01, 3), n)
        level = float(rng.choice([0.9, 0.95, 0.99]))
        rows = [(float(t),) for t in x] + [(None,)] * 3
        mltest.load(con, ["x"], rows)
        got = json.loads(con.execute("SELECT mean_ci(x, ?) FROM t", (level,)).fetchone()[0])
        what = "mean_ci %d (n %d)" % (trial, n)
        ck.close(got["mean"], x.mean(), what + " mean")
        ck.equal(got["n"], n, what + " n")
        ck.equal(got["level"], level, what + " level")
        if n < 2:
            ck.equal((got["sd"], got["lo"], got["hi"]), (None, None, None), what + " n < 2 gives null bounds")
            continue
        half = t_isf((1 - level) / 2, n - 1) * x.std(ddof=1) / math.sqrt(n)
        lo, hi = x.mean() - half, x.mean() + half
        ck.close(got["sd"], x.std(ddof=1), what + " sd")
        ck.close(got["lo"], lo, what + " lo", abs_=1e-12)
        ck.close(got["hi"], hi, what + " hi", abs_=1e-12)
    ck.equal(con.execute("SELECT mean_ci(x) FROM t WHERE 0").fetchone()[0], None, "mean_ci of no rows")


# ---------------------------------------------------- determinism, windows

CI_EXPRS = ["pr_auc_ci(y, s, 0.9, 30, 5)", "nap_ci(y, s, 0.9, 30)", "brier_ci(y, p, 0.9, 30, 9)",
            "log_loss_ci(y, p, 0.95, 30)", "ece_ci(y, p, 5, 0.95, 30)",
            "strat_gap_ci(y, s, z, 0.1, 0.9, 0.95, 30)", "pr_auc_diff_ci(y, s, z, 0.95, 30, 3)",
            "ece_diff_ci(y, p, q, 4, 0.9, 30)", "auroc_ci(y, s)", "auroc_diff(y, s, z)", "mean_ci(s)",
            "pr_auc_delta_ci(y, s, 0.9)", "pr_auc_diff_delta(y, s, z)"]


def check_determinism(ck, con, rng):
    for trial in range(4):
        n = int(rng.integers(60, 140))
        y = (rng.random(n) < 0.4).astype(int)
        s = np.round(rng.random(n) + 0.3 * y, 1)
        z = rng.integers(0, 4, n).astype(float)                  # ties in the third argument too
        p = np.round(rng.random(n), 1)
        q = np.where(rng.random(n) < 0.5, -0.0, np.round(rng.random(n), 1))
        g = rng.integers(0, 3, n)
        rows = [(int(y[i]), float(s[i]), float(z[i]), float(p[i]), float(q[i]), int(g[i])) for i in range(n)]
        results = []
        for order in (range(n), range(n - 1, -1, -1), rng.permutation(n)):
            mltest.load(con, ["y", "s", "z", "p", "q", "g"], [rows[i] for i in order])
            grouped = con.execute("SELECT g, %s FROM t GROUP BY g ORDER BY g" % ", ".join(CI_EXPRS)).fetchall()
            where = [con.execute("SELECT %d, %s FROM t WHERE g = ?" % (gg, ", ".join(CI_EXPRS)), (gg,)).fetchone()
                     for gg in sorted(set(g.tolist()))]
            ck.equal(grouped, where, "determinism %d: GROUP BY equals WHERE" % trial)
            results.append(grouped)
        ck.equal(results[1], results[0], "determinism %d: reversed insertion order" % trial)
        ck.equal(results[2], results[0], "determinism %d: shuffled insertion order" % trial)


def check_windows(ck, con, rng):
    n = 40
    y = (rng.random(n) < 0.5).astype(int)
    s = np.round(rng.random(n) + 0.3 * y, 1)
    z = rng.integers(0, 3, n).astype(float)
    p = np.round(rng.random(n), 1)
    q = np.round(rng.random(n), 2)
    ts = np.sort(rng.integers(0, 20, n))
    g = rng.integers(0, 2, n)
    mltest.load(con, ["y", "s", "z", "p", "q", "ts", "g"],
                [(int(y[i]), float(s[i]), float(z[i]), float(p[i]), float(q[i]), int(ts[i]), int(g[i])) for i in range(n)])
    shapes = [mltest.FRAMES[1], mltest.FRAMES[4], mltest.FRAMES[6], mltest.FRAMES[9], mltest.FRAMES[12]]
    exprs = [e.replace("strat_gap_ci(y, s, z, 0.1, 0.9", "strat_gap_ci(y, s, z, 0.0, 1.0") for e in CI_EXPRS]
    for frame, rid, idx, vals in mltest.each_frame(con, exprs, shapes):
        ids = ",".join(str(i + 1) for i in idx) or "NULL"
        want = con.execute("SELECT %s FROM t WHERE id IN (%s)" % (", ".join(exprs), ids)).fetchone()
        ck.equal(list(vals), list(want), "window [%s] row %d equals the aggregate over its frame" % (frame, rid))


# ---------------------------------------------------------- bad inputs

def check_bad_inputs(ck, con):
    mltest.load(con, ["y", "s", "z", "k"], [(i % 2, i / 10, i % 3, i) for i in range(12)])
    bad = [
        ("pr_auc_ci(y, s, 1.0)", "pr_auc_ci(): level must be a number in (0, 1), got 1.0"),
        ("pr_auc_ci(y, s, 0)", "pr_auc_ci(): level must be a number in (0, 1), got 0"),
        ("nap_ci(y, s, 0.9, 9)", "nap_ci(): reps must be an integer in 10..1000000, got 9"),
        ("brier_ci(y, s / 12, 0.9, 1000001)", "brier_ci(): reps must be an integer in 10..1000000, got 1000001"),
        ("log_loss_ci(y, s / 12, 0.9, 10.5)", "log_loss_ci(): reps must be an integer in 10..1000000, got 10.5"),
        ("pr_auc_ci(y, s, 0.9, 10, -1)", "pr_auc_ci(): seed must be an integer in 0..9223372036854775807, got -1"),
        ("pr_auc_ci(y, s, 0.9, 10, 'x')", "pr_auc_ci(): seed must be an integer in 0..9223372036854775807, got text 'x'"),
        ("ece_ci(y, s / 12, 0)", "ece_ci(): bins must be an integer in 1..100000, got 0"),
        ("ece_ci(y, s / 12, 10, 1.5)", "ece_ci(): level must be a number in (0, 1), got 1.5"),
        ("strat_gap_ci(y, s, z, 0.8, 0.2)", "strat_gap_ci(): ql must be less than qh, got ql = 0.8 and qh = 0.2"),
        ("strat_gap_ci(y, s, z, 0.1, 0.9, -0.5)", "strat_gap_ci(): level must be a number in (0, 1), got -0.5"),
        ("auroc_ci(y, s, 2)", "auroc_ci(): level must be a number in (0, 1), got 2"),
        ("auroc_diff(y, s, z, NULL)", "auroc_diff(): level must be a number in (0, 1), got NULL"),
        ("pr_auc_diff_ci(y, s, z, 0.9, 5)", "pr_auc_diff_ci(): reps must be an integer in 10..1000000, got 5"),
        ("ece_diff_ci(y, s / 12, z / 3, 10, 0.9, 10, -3)", "ece_diff_ci(): seed must be an integer in 0..9223372036854775807, got -3"),
        ("mean_ci(s, 1)", "mean_ci(): level must be a number in (0, 1), got 1"),
        ("mean_ci('abc')", "mean_ci(): x must be a number, got text 'abc'"),
        ("pr_auc_diff_ci(y, s, 'a')", "pr_auc_diff_ci(): s_b must be a number, got text 'a'"),
        ("ece_diff_ci(y, 1.5, s / 12)", "ece_diff_ci(): p_a must be a probability in [0, 1], got 1.5"),
        ("auroc_diff(2, s, z)", "auroc_diff(): y must be 0 or 1, got 2"),
        # varying by row
        ("pr_auc_ci(y, s, 0.9 + k / 100.0)", "pr_auc_ci(): level must be the same in every row of a group, got 0.9 and then 0.91"),
        ("pr_auc_ci(y, s, 0.9, 10 + k)", "pr_auc_ci(): reps must be the same in every row of a group, got 10 and then 11"),
        ("pr_auc_ci(y, s, 0.9, 10, k)", "pr_auc_ci(): seed must be the same in every row of a group, got 0 and then 1"),
        ("ece_diff_ci(y, s / 12, s / 12, 10, 0.9, 10, k)", "ece_diff_ci(): seed must be the same in every row of a group, got 0 and then 1"),
        ("pr_auc_ci(y, s, 0.9, 10, 9007199254740993 - (k % 2))",
         "pr_auc_ci(): seed must be the same in every row of a group, got 9007199254740993 and then 9007199254740992"),
        ("mean_ci(s, 0.5 + k / 100.0)", "mean_ci(): level must be the same in every row of a group, got 0.5 and then 0.51"),
    ]
    for expr, msg in bad:
        ck.error(con, "SELECT %s FROM t" % expr, (), msg, expr)
    # one class, or no rows: NULL
    for expr in ("pr_auc_ci(y, s)", "nap_ci(y, s)", "auroc_ci(y, s)", "auroc_diff(y, s, z)",
                 "pr_auc_diff_ci(y, s, z)", "strat_gap_ci(y, s, z)"):
        ck.equal(con.execute("SELECT %s FROM t WHERE y = 1" % expr).fetchone()[0], None, expr + " one class -> NULL")
        ck.equal(con.execute("SELECT %s FROM t WHERE 0" % expr).fetchone()[0], None, expr + " no rows -> NULL")
    # calibration CIs are defined with one class
    got = json.loads(con.execute("SELECT brier_ci(y, s / 12, 0.9, 10) FROM t WHERE y = 1").fetchone()[0])
    ck.true(got["estimate"] is not None and got["lo"] <= got["hi"], "brier_ci with one class is defined")
    # a window too thin in every replicate: NULL, not an endless loop
    ck.equal(con.execute("SELECT strat_gap_ci(y, s, z) FROM t").fetchone()[0], None, "strat_gap_ci thin window -> NULL")


# ------------------------------------------------------------ interrupt

def check_interrupt(ck, con):
    """sqlite3_interrupt from another thread stops a long bootstrap (1e10
    row-replicates, hours) within seconds, and the connection still works."""
    mltest.load(con, ["y", "s"], [(i % 2, (i * 7919 % 10007) / 10007.0) for i in range(10000)])
    for expr in ("pr_auc_ci(y, s, 0.95, 1000000)", "strat_gap_ci(y, s, s, 0.0, 1.0, 0.95, 1000000)"):
        timer = threading.Timer(0.3, con.interrupt)
        t0 = time.perf_counter()
        timer.start()
        try:
            con.execute("SELECT %s FROM t" % expr).fetchall()
            err = None
        except sqlite3.OperationalError as e:
            err = str(e)
        took = time.perf_counter() - t0
        timer.join()
        ck.equal(err, "interrupted", expr + " interrupted")
        ck.true(took < 20.0, "%s stopped %.1f s after the interrupt (limit 20 s on a loaded machine)" % (expr, took))
        ck.equal(con.execute("SELECT pr_auc(y, s) > 0 FROM t").fetchone()[0], 1, expr + ": the connection works after")


# ---------------------------------------------------------- p_adjust.sql

def check_p_adjust(ck, con, rng):
    from statsmodels.stats.multitest import multipletests
    src = os.environ.get("srcdir", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    with open(os.path.join(src, "sql", "p_adjust.sql"), encoding="utf-8") as f:
        script = "\n".join(l for l in f.read().splitlines() if not l.startswith("."))   # shell dot-commands
    for trial in range(60):
        m = int(rng.integers(1, 60))
        p = rng.random(m) ** rng.uniform(0.5, 4)
        if trial % 3 == 0:
            p = np.round(p, 2)                                          # ties
        if trial % 7 == 0:
            p[: m // 3] = rng.choice([0.0, 1.0], m // 3)                # the ends
        con.execute("DROP TABLE IF EXISTS pvals")
        con.execute("CREATE TABLE pvals(name TEXT, p REAL)")
        rows = [("t%03d" % i, float(p[i])) for i in range(m)] + [("missing", None)]
        con.executemany("INSERT INTO pvals VALUES (?, ?)", [rows[i] for i in rng.permutation(len(rows))])
        con.executescript(script)
        got = {r[0]: r[1:] for r in con.execute("SELECT name, bonferroni, holm, bh FROM p_adjusted")}
        ck.equal(len(got), m, "p_adjust %d: NULL p left out" % trial)
        for k, method in enumerate(("bonferroni", "holm", "fdr_bh")):
            want = multipletests(p, method=method)[1]
            for i in range(m):
                ck.close(got["t%03d" % i][k], float(want[i]), "p_adjust %d %s t%03d" % (trial, method, i))


def main():
    ck = mltest.Checker("test_uncertainty")
    con = mltest.connect()
    rng = np.random.default_rng(20260514)
    check_reproduction(ck, con, rng)
    check_estimates(ck, con, rng)
    check_delong(ck, con, rng)
    check_delta_ap(ck, con, rng)
    check_mean_ci(ck, con, rng)
    check_determinism(ck, con, rng)
    check_windows(ck, con, rng)
    check_bad_inputs(ck, con)
    check_p_adjust(ck, con, rng)
    check_interrupt(ck, con)
    mltest.require_family(ck, con, "uncertainty", __file__)
    ck.finish()


if __name__ == "__main__":
    main()
