# SPDX-License-Identifier: MIT
"""Differential suite: calibration_summary and auroc_test (ext/metrics/validation.c).

calibration_summary <-> the definitions (rms::val.prob): numpy for the sums
    (math.fsum: the exact sums, so expected and brier must match bit for
    bit), statsmodels GLM Binomial with logit(p) as offset for citl and
    statsmodels Logit of y on [1, logit(p)] for intercept and slope, p clipped
    to [1e-15, 1 - 1e-15] for the logits; null with a reason exactly where
    the definitions say no finite estimate exists (one class, one distinct
    logit, a threshold on logit(p) separating the classes).
auroc_test <-> pROC's delong.unpaired.test written here in numpy: DeLong
    placements by all pairs (O(n^2), not the runs the C code walks), Welch-
    Satterthwaite df, p = 2 P(T_df > |t|) by scipy.stats.t.sf.
Datasets: hundreds, n from 1 to 3000, 1 % prevalence, one class, rounded p
with ties and p in {0, 1}, tiny groups, GROUP BY; every window frame shape
frame by frame (each frame equals the aggregate over its rows bit for bit,
and a sample of frames is checked against the reference); states (the
state forms equal the row queries bit for bit).
"""
import json
import math
import warnings

import numpy as np
import statsmodels.api as sm
from scipy import optimize, special, stats
from statsmodels.tools.sm_exceptions import PerfectSeparationError

import mltest

warnings.filterwarnings("ignore")
CLIP = 1e-15
SUMMARY_KEYS = ["n", "events", "expected", "oe_ratio", "citl", "citl_lo", "citl_hi", "intercept", "intercept_lo",
                "intercept_hi", "slope", "slope_lo", "slope_hi", "level",
                "spiegelhalter_z", "spiegelhalter_p", "brier", "scaled_brier", "reason"]
TEST_KEYS = ["auroc_0", "auroc_1", "diff", "se", "df", "statistic", "p_value", "reason"]


# ---------------------------------------------------------- calibration_summary

def logit(p):
    c = np.clip(p, CLIP, 1 - CLIP)
    return np.log(c / (1 - c))


FALLBACK = {"offset": 0, "slope": 0, "offset_wrong": 0}


def fit_offset(y, x):
    """citl: the root of the score equation sum(y - sigma(a + x)) = 0 (the
    maximum of the concave 1-parameter likelihood), monotone in a, by
    brentq with exact sums; statsmodels' GLM Binomial with x as offset is
    run beside it and counted where it disagrees: its IRLS diverges when
    clipped logits of +-34.5 make the working weights ~1e-15 (it returns
    citl = -5e14 there), and it refuses ('perfect separation') when every
    fitted probability is within 1e-10 of 0 or 1, which needs no separation."""
    def score(a):     # sum over y = 1 of 1 - sigma, minus over y = 0 of sigma: no 1 - (1 - tiny)
        eta = a + x
        return math.fsum(special.expit(-eta[y == 1])) - math.fsum(special.expit(eta[y == 0]))
    lo, hi = -1.0, 1.0
    while score(lo) < 0:
        lo *= 2
    while score(hi) > 0:
        hi *= 2
    a = optimize.brentq(score, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=500)
    try:
        m = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial(), offset=x).fit(tol=1e-15, maxiter=200)
        if not abs(float(m.params[0]) - a) <= 1e-9 * (1 + abs(a)):
            FALLBACK["offset_wrong"] += 1
    except PerfectSeparationError:
        FALLBACK["offset"] += 1
    return a


def fit_slope(y, x):
    """intercept, slope: statsmodels' Logit of y on [1, x] by Newton; where
    statsmodels declares 'perfect separation' (the same fitted-value test),
    Newton's method in numpy on the same likelihood, to a step of 1e-15."""
    X = np.column_stack([np.ones(len(y)), x])
    try:
        m = sm.Logit(y, X).fit(method="newton", tol=1e-14, maxiter=200, disp=0)
        return float(m.params[0]), float(m.params[1])
    except PerfectSeparationError:
        FALLBACK["slope"] += 1
        b = np.array([math.log(y.mean() / (1 - y.mean())), 0.0])
        for _ in range(200):
            mu = 1 / (1 + np.exp(-(X @ b)))
            step = np.linalg.solve(X.T @ (X * (mu * (1 - mu))[:, None]), X.T @ (y - mu))
            b = b + step
            if np.max(np.abs(step)) <= 1e-15 * (1 + np.max(np.abs(b))):
                break
        return float(b[0]), float(b[1])


def summary_ref(y, p):
    """The definitions; None for no rows.  Fits: statsmodels, run to
    convergence far below the 1e-9 compared."""
    n = len(y)
    if n == 0:
        return None
    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    ev = int(y.sum())
    expected = math.fsum(p)
    brier = math.fsum((p - y) ** 2) / n
    u = 1 - 2 * p
    zden = math.fsum(u * u * p * (1 - p))
    z = math.fsum((y - p) * u) / math.sqrt(zden) if zden > 0 else None
    r = {"n": n, "events": ev, "expected": expected, "oe_ratio": ev / expected if expected > 0 else None,
         "brier": brier, "spiegelhalter_z": z,
         "spiegelhalter_p": 2 * stats.norm.sf(abs(z)) if z is not None else None,
         "scaled_brier": 1 - brier / (ev / n * (1 - ev / n)) if 0 < ev < n else None,
         "citl": None, "intercept": None, "slope": None, "why": []}
    x = logit(p)
    if 0 < ev < n:
        r["citl"] = fit_offset(y, x)
        x0, x1 = x[y == 0], x[y == 1]
        if x.min() == x.max():          # R's glm(y ~ lp), lp aliased: y on the intercept alone, slope NA
            r["intercept"] = math.log(ev / (n - ev))
            r["why"].append("p is constant")
        elif x0.max() <= x1.min() or x1.max() <= x0.min():
            r["why"].append("separates the classes")
        else:
            r["intercept"], r["slope"] = fit_slope(y, x)
    else:
        r["why"].append("one class")
    if z is None:
        r["why"].append("Spiegelhalter's variance is 0")
    return r


def check_summary(ck, got, want, what, fits=True):
    if want is None:
        ck.equal(got, None, what + ": no rows gives NULL")
        return
    if got is None:
        ck.true(False, what + ": got NULL")
        return
    g = json.loads(got)
    ck.equal(list(g), SUMMARY_KEYS, what + ": keys")
    ck.equal((g["n"], g["events"]), (want["n"], want["events"]), what + ": n, events")
    ck.equal(g["expected"], want["expected"], what + ": expected is the exact sum")
    ck.equal(g["brier"], want["brier"], what + ": brier from the exact sum")
    ck.close(g["oe_ratio"], want["oe_ratio"], what + ": oe_ratio")
    ck.close(g["scaled_brier"], want["scaled_brier"], what + ": scaled_brier", rel=1e-12, abs_=1e-12)
    ck.close(g["spiegelhalter_z"], want["spiegelhalter_z"], what + ": spiegelhalter_z", rel=1e-10, abs_=1e-10)
    ck.close(g["spiegelhalter_p"], want["spiegelhalter_p"], what + ": spiegelhalter_p", rel=1e-9, abs_=1e-15)
    if fits:
        for k in ("citl", "intercept", "slope"):
            ck.close(g[k], want[k], "%s: %s" % (what, k), rel=1e-9, abs_=1e-9)
    reason = g["reason"] or ""
    for w in want["why"]:
        ck.true(w in reason, "%s: reason %r names %r" % (what, reason, w))
    if not want["why"]:
        ck.equal(g["reason"], None, what + ": no reason when everything is defined")


def random_probs(rng, n, kind):
    if kind == "uniform":
        return rng.random(n)
    if kind == "ties":
        return np.round(rng.random(n), 1)
    if kind == "edges":                      # exact 0 and 1 (clipped for the logits)
        return rng.choice([0.0, 0.0, 1.0, 0.3, 0.5, 0.7, 1e-300, 1 - 1e-16], n)
    if kind == "extreme":
        return 1 / (1 + np.exp(-rng.normal(0, 6, n)))
    raise ValueError(kind)


def labels_for(rng, p, how):
    if how == "calibrated":
        return (rng.random(len(p)) < p).astype(int)
    if how == "rare":                        # about 1 % prevalence
        return (rng.random(len(p)) < 0.01).astype(int)
    if how == "miscal":                      # overconfident: the truth is flatter
        return (rng.random(len(p)) < 0.3 + 0.4 * p).astype(int)
    if how == "one":
        return np.ones(len(p), dtype=int)
    raise ValueError(how)


@mltest.covers("calibration_summary")
def check_summary_datasets(ck, con, rng):
    n_fit = 0
    for trial in range(320):
        n = int(rng.choice([1, 2, 3, 5, 10, 40, 200, 1000, 3000]))
        kind = ["uniform", "ties", "edges", "extreme"][trial % 4]
        how = ["calibrated", "rare", "miscal", "one", "calibrated"][trial % 5]
        p = random_probs(rng, n, kind)
        y = labels_for(rng, p, how)
        rows = [(int(a), float(b)) for a, b in zip(y, p)] + [(None, 0.5), (1, None)]
        mltest.load(con, ["y", "p"], rows)
        got = con.execute("SELECT calibration_summary(y, p) FROM t").fetchone()[0]
        want = summary_ref(y, p)
        n_fit += want["slope"] is not None
        check_summary(ck, got, want, "summary %d (n %d, %s, %s, %s)" % (trial, n, kind, how,
                                                                        got and json.loads(got)["reason"]))
        if trial % 16 == 0:
            # brier equals brier() bit for bit; states equal rows bit for bit
            g = json.loads(got)
            ck.equal(g["brier"], con.execute("SELECT brier(y, p) FROM t").fetchone()[0], "summary %d: brier()" % trial)
            st = con.execute("SELECT calibration_summary(s) FROM (SELECT ml_state(y, p) AS s FROM t GROUP BY id % 3)").fetchone()[0]
            ck.equal(st, got, "summary %d: over states = over rows" % trial)
    ck.true(n_fit > 100, "slopes fitted on %d datasets" % n_fit)
    print("calibration_summary: %d datasets with a slope; statsmodels' GLM with offset refused %d citl fits"
          " ('perfect separation') and missed %d by more than 1e-9; its Logit refused %d slope fits (numpy's"
          " Newton served)" % (n_fit, FALLBACK["offset"], FALLBACK["offset_wrong"], FALLBACK["slope"]))
    mltest.load(con, ["y", "p"], [(1, 0.5)])
    ck.equal(con.execute("SELECT calibration_summary(y, p) FROM t WHERE 0").fetchone()[0], None, "no rows: NULL")


@mltest.covers("calibration_summary")
def check_summary_group_by(ck, con, rng):
    n = 900
    p = random_probs(rng, n, "ties")
    y = labels_for(rng, p, "miscal")
    g = rng.integers(0, 7, n)
    g[:5] = 6                                 # a tiny group
    keep = (g != 6) | (np.arange(n) < 5)
    rows = [(int(a), float(b), int(c)) for a, b, c, k in zip(y, p, g, keep) if k]
    mltest.load(con, ["y", "p", "g"], rows)
    for grp, got in con.execute("SELECT g, calibration_summary(y, p) FROM t GROUP BY g"):
        m = (g == grp) & keep
        check_summary(ck, got, summary_ref(y[m], p[m]), "GROUP BY g = %d" % grp)


@mltest.covers("calibration_summary")
def check_summary_windows(ck, con, rng):
    n = 50
    p = random_probs(rng, n, "ties")
    y = labels_for(rng, p, "miscal")
    ts = rng.integers(0, 20, n)
    g = rng.integers(0, 3, n)
    mltest.load(con, ["y", "p", "ts", "g"], [(int(a), float(b), int(c), int(d)) for a, b, c, d in zip(y, p, ts, g)])
    k = 0
    for shape, rid, idx, (got,) in mltest.each_frame(con, ["calibration_summary(y, p)"]):
        ids = ",".join(str(i + 1) for i in idx) or "NULL"
        agg = con.execute("SELECT calibration_summary(y, p) FROM t WHERE id IN (%s)" % ids).fetchone()[0]
        ck.equal(got, agg, "window %s row %d equals the aggregate over its frame" % (shape, rid))
        if k % 7 == 0:
            check_summary(ck, got, summary_ref(y[idx], p[idx]) if idx else None, "window %s row %d" % (shape, rid))
        k += 1


def check_summary_cases(ck, con):
    """Cases whose answer is known without a fit."""
    def one(rows):
        mltest.load(con, ["y", "p"], rows)
        return json.loads(con.execute("SELECT calibration_summary(y, p) FROM t").fetchone()[0])
    # a perfectly calibrated model: logit(p_k) = the log-odds of its group exactly
    rows = [(1, 0.25)] * 1 + [(0, 0.25)] * 3 + [(1, 0.75)] * 3 + [(0, 0.75)] * 1
    g = one(rows)
    ck.close(g["citl"], 0.0, "calibrated: citl 0", abs_=1e-15)
    ck.close(g["intercept"], 0.0, "calibrated: intercept 0", abs_=1e-15)
    ck.close(g["slope"], 1.0, "calibrated: slope 1", abs_=1e-15)
    ck.equal((g["oe_ratio"], g["spiegelhalter_z"], g["spiegelhalter_p"]), (1, 0, 1), "calibrated: O/E 1, z 0, p 1")
    # clipping: p = 0 is logit(1e-15) for the fits, not -inf; both classes at
    # both values overlap, so both fits are finite
    rows = [(1, 0.0), (0, 0.0), (0, 0.5), (1, 0.5), (0, 0.5)]
    g, want = one(rows), summary_ref(np.array([r[0] for r in rows]), np.array([r[1] for r in rows]))
    ck.true(g["citl"] is not None and g["slope"] is not None, "p = 0 clipped: finite fits %r" % (g,))
    for k in ("citl", "intercept", "slope"):
        ck.close(g[k], want[k], "p = 0 clipped: " + k, rel=1e-9, abs_=1e-9)
    # quasi-complete separation: the classes meet only at one p
    g = one([(0, 0.1), (0, 0.4), (1, 0.4), (1, 0.9)])
    ck.true(g["slope"] is None and "separates" in g["reason"], "quasi-separation: null slope, %r" % g["reason"])
    # overlapping classes: a finite fit
    g = one([(0, 0.1), (1, 0.2), (0, 0.4), (1, 0.9)])
    ck.true(g["slope"] is not None and g["reason"] is None, "overlap: a slope")


# ------------------------------------------------------------------ auroc_test

def placements(y, s):
    """pROC's delongPlacements by all pairs: X (cases), Y (controls), theta."""
    pos, neg = s[y == 1], s[y == 0]
    cmp = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return cmp.mean(axis=1), cmp.mean(axis=0), cmp.mean()


def auroc_test_ref(y, s, g):
    """pROC's delong.unpaired.test(roc1 = group 0, roc2 = group 1)."""
    V, S, ntot = [], [], []
    for k in (0, 1):
        yk, sk = y[g == k], s[g == k]
        if (yk == 1).sum() == 0 or (yk == 0).sum() == 0:
            return None
        X, Y, th = placements(yk, sk)
        m, nn = len(X), len(Y)
        V.append(th)
        ntot.append(m + nn)
        if m < 2 or nn < 2:
            S.append(None)
            continue
        S.append(np.sum((X - th) ** 2) / (m - 1) / m + np.sum((Y - th) ** 2) / (nn - 1) / nn)
    r = {"auroc_0": V[0], "auroc_1": V[1], "diff": V[0] - V[1], "se": None, "df": None, "statistic": None,
         "p_value": None}
    if S[0] is None or S[1] is None:
        return r
    r["se"] = math.sqrt(S[0] + S[1])
    if r["se"] == 0:
        r["p_value"] = 1.0 if r["diff"] == 0 else 0.0
        return r
    r["statistic"] = r["diff"] / r["se"]
    r["df"] = (S[0] + S[1]) ** 2 / (S[0] ** 2 / (ntot[0] - 1) + S[1] ** 2 / (ntot[1] - 1))
    r["p_value"] = 2 * stats.t.sf(abs(r["statistic"]), r["df"])
    return r


def check_test(ck, got, want, what):
    g = mltest.json_result(ck, got, want, TEST_KEYS, what, "a group without both classes gives NULL")
    if g is None:
        return
    for k in ("auroc_0", "auroc_1", "diff"):
        ck.close(g[k], want[k], "%s: %s" % (what, k), rel=1e-12, abs_=1e-15)
    for k in ("se", "df", "statistic"):
        ck.close(g[k], want[k], "%s: %s" % (what, k), rel=1e-9, abs_=1e-12)
    ck.close(g["p_value"], want["p_value"], what + ": p_value", rel=1e-9, abs_=1e-300)
    ck.equal(g["reason"] is None, want["se"] is not None, what + ": reason exactly when se is null")


def random_test_data(rng, n, trial):
    g = (rng.random(n) < [0.5, 0.1, 0.9][trial % 3]).astype(int)
    prev = [0.5, 0.2, 0.01, 0.05][trial % 4]
    y = (rng.random(n) < prev).astype(int)
    kind = ["uniform", "ties", "integer", "normal"][trial % 4]
    s = mltest.random_scores(rng, n, kind) + y * 0.3 * (g + 1)
    return y, s, g


@mltest.covers("auroc_test")
def check_test_datasets(ck, con, rng):
    n_def = 0
    for trial in range(300):
        n = int(rng.choice([4, 6, 10, 30, 100, 400, 2000]))
        y, s, g = random_test_data(rng, n, trial)
        rows = [(int(a), float(b), int(c)) for a, b, c in zip(y, s, g)] + [(None, 0.5, 1), (1, None, 0), (1, 0.5, None)]
        mltest.load(con, ["y", "s", "g"], rows)
        got = con.execute("SELECT auroc_test(y, s, g) FROM t").fetchone()[0]
        want = auroc_test_ref(y, s, g)
        n_def += want is not None and want["p_value"] is not None
        check_test(ck, got, want, "auroc_test %d (n %d)" % (trial, n))
        if got is not None:
            a = con.execute("SELECT auroc(y, s) FROM t WHERE g = 0").fetchone()[0]
            ck.equal(json.loads(got)["auroc_0"], a, "auroc_test %d: auroc_0 is auroc()" % trial)
        # the state form: ml_state per group (merged from shards) equals the row query
        st = con.execute("SELECT auroc_test((SELECT ml_merge(s) FROM (SELECT ml_state(y, s) AS s FROM t WHERE g = 0 GROUP BY id % 3)),"
                         " (SELECT ml_state(y, s) FROM t WHERE g = 1))").fetchone()[0]
        if want is None and (st is None):
            ck.equal(st, None, "auroc_test %d: states: NULL" % trial)
        else:
            ck.equal(st, got, "auroc_test %d: over states = over rows" % trial)
    ck.true(n_def > 80, "p-values on %d datasets" % n_def)


@mltest.covers("auroc_test")
def check_test_group_by_windows(ck, con, rng):
    n = 1200
    y, s, g = random_test_data(rng, n, 0)
    f = rng.integers(0, 5, n)
    mltest.load(con, ["y", "s", "g", "f"], [(int(a), float(b), int(c), int(d)) for a, b, c, d in zip(y, s, g, f)])
    for fold, got in con.execute("SELECT f, auroc_test(y, s, g) FROM t GROUP BY f"):
        m = f == fold
        check_test(ck, got, auroc_test_ref(y[m], s[m], g[m]), "GROUP BY f = %d" % fold)
    n = 60
    y, s, g = random_test_data(rng, n, 4)
    y[:8] = [0, 1, 0, 1, 0, 1, 0, 1]
    g[:8] = [0, 0, 1, 1, 0, 0, 1, 1]
    ts = rng.integers(0, 25, n)
    gg = rng.integers(0, 3, n)
    mltest.load(con, ["y", "s", "grp", "ts", "g"],
                [(int(a), float(b), int(c), int(d), int(e)) for a, b, c, d, e in zip(y, s, g, ts, gg)])
    k = 0
    for shape, rid, idx, (got,) in mltest.each_frame(con, ["auroc_test(y, s, grp)"]):
        ids = ",".join(str(i + 1) for i in idx) or "NULL"
        agg = con.execute("SELECT auroc_test(y, s, grp) FROM t WHERE id IN (%s)" % ids).fetchone()[0]
        ck.equal(got, agg, "window %s row %d equals the aggregate over its frame" % (shape, rid))
        if k % 5 == 0 and idx:
            check_test(ck, got, auroc_test_ref(y[idx], s[idx], g[idx]), "window %s row %d" % (shape, rid))
        k += 1


def check_test_cases(ck, con):
    def one(rows):
        mltest.load(con, ["y", "s", "g"], rows)
        r = con.execute("SELECT auroc_test(y, s, g) FROM t").fetchone()[0]
        return json.loads(r) if r is not None else None
    # both groups separate perfectly: no variance, no difference
    g = one([(0, 0.1, 0), (0, 0.2, 0), (1, 0.8, 0), (1, 0.9, 0), (0, 1, 1), (0, 2, 1), (1, 3, 1), (1, 4, 1)])
    ck.equal((g["auroc_0"], g["auroc_1"], g["se"], g["statistic"], g["df"], g["p_value"]), (1, 1, 0, None, None, 1),
             "se 0, diff 0: p 1")
    # one positive in group 1: the AUROCs, no variance
    g = one([(0, 0.1, 0), (0, 0.5, 0), (1, 0.4, 0), (1, 0.9, 0), (0, 1, 1), (0, 2, 1), (1, 1.5, 1)])
    ck.equal((g["auroc_0"], g["auroc_1"], g["se"], g["p_value"]), (0.75, 0.5, None, None), "one positive: null se")
    ck.true("group 1" in g["reason"], "one positive: the reason names the group")
    ck.equal(one([(0, 0.1, 0), (1, 0.5, 0), (1, 0.5, 1), (1, 0.7, 1)]), None, "group 1 without negatives: NULL")
    ck.equal(one([(0, 0.1, 0), (1, 0.5, 0)]), None, "no group 1: NULL")
    # pROC's own example shape (aSAH-like): a textbook value checked by hand
    # with the formulas: two groups of 4 with one tie across classes
    g = one([(0, 1, 0), (0, 2, 0), (1, 2, 0), (1, 4, 0), (0, 1, 1), (1, 1, 1), (0, 3, 1), (1, 5, 1)])
    ck.equal((g["auroc_0"], g["auroc_1"]), (0.875, 0.625), "hand example: AUROCs")
    # states: NULL state, errors
    ck.equal(con.execute("SELECT auroc_test(NULL, (SELECT ml_state(y, s) FROM t))").fetchone()[0], None,
             "a NULL state: NULL")
    ck.error(con, "SELECT auroc_test(1, 2)", (), "auroc_test(): st_a must be a state made by ml_state(y, s) or ml_state(y, s, strat), got 1")
    ck.error(con, "SELECT auroc_test((SELECT ml_state(y, s) FROM t), 'x')", (),
             "auroc_test(): st_b must be a state made by ml_state(y, s) or ml_state(y, s, strat), got text 'x'")
    ck.error(con, "SELECT auroc_test(x'00', x'00')", (),
             "auroc_test(): st_a: the blob is not an mleval state (no MLST header; make one with ml_state())")
    ck.error(con, "SELECT auroc_test((SELECT ml_state_ordinal(y, s) FROM t), (SELECT ml_state(y, s) FROM t))", (),
             "auroc_test(): st_a must be a state made by ml_state(y, s) or ml_state(y, s, strat), got an ordinal (m = 1) state")
    # a state with a stratifier is read without it
    mltest.load(con, ["y", "s", "g"], [(i % 2, (i * 7) % 5, i % 3 == 0) for i in range(40)])
    a = con.execute("SELECT auroc_test((SELECT ml_state(y, s, id % 4) FROM t WHERE g = 0),"
                    " (SELECT ml_state(y, s) FROM t WHERE g = 1))").fetchone()[0]
    ck.equal(a, con.execute("SELECT auroc_test(y, s, g) FROM t").fetchone()[0], "a stratified state: its scores")


def main():
    ck = mltest.Checker("validation")
    con = mltest.connect()
    rng = np.random.default_rng(24)
    check_summary_cases(ck, con)
    check_summary_datasets(ck, con, rng)
    check_summary_group_by(ck, con, rng)
    check_summary_windows(ck, con, rng)
    check_test_cases(ck, con)
    check_test_datasets(ck, con, rng)
    check_test_group_by_windows(ck, con, rng)
    # its functions' families: calibration_summary's, auroc_test's
    mltest.require_family(ck, con, "calibration", __file__)
    mltest.require_family(ck, con, "uncertainty", __file__)
    ck.finish()


if __name__ == "__main__":
    main()
