# SPDX-License-Identifier: MIT
"""Differential suite: calibration_summary_w(y, p, w), calibration_summary's
weighted twin (docs/weights.md, docs/validation.md).

The weights are frequency weights: a row of weight w stands for w rows.  On
random datasets -- n from 1 to 3000, ties, p of exactly 0 and 1 (clipped for
the logits), extreme p, 1 % prevalence, one class, classes separated by a
threshold on p, weights real, integer, zero, from 1e-6 to 1e6,
inverse-probability, small -- each field is compared with a reference
written here:
  * n, events, expected, brier and Spiegelhalter's sums: the exact sums
    (fractions.Fraction) of w, w y, w p, w (p - y)^2, w (y - p)(1 - 2p) and
    w (1 - 2p)^2 p (1 - p) over the rows of positive weight, each term t
    computed in doubles as the definition writes it, then rounded once: n,
    events, expected and brier bit for bit; oe_ratio, scaled_brier, z and
    its p-value from them to 1e-12;
  * intercept and slope: statsmodels' GLM(y, [1, logit(p)], Binomial,
    freq_weights=w) (IRLS) -- var_weights gives the same estimates, which
    the suite checks; calibration_summary_w reports no standard errors, the
    one place the two differ -- and where statsmodels refuses ('perfect
    separation': every fitted probability within 1e-10 of 0 or 1, which
    needs no separation) Newton's method in numpy on the same weighted
    likelihood;
  * citl: the root of the weighted score equation
    sum w (y - sigma(a + logit p)) = 0 by brentq (monotone in a), because
    statsmodels' GLM with an offset does not converge when clipped logits of
    +-34.54 make its working weights 1e-15 (test_validation.py has the
    story); the GLM with offset and freq_weights runs beside it and its
    misses are counted;
  * null fits and their reasons exactly where the definitions say no finite
    estimate exists (one class, one distinct logit, a threshold on logit(p)
    separating the classes, all over the rows of positive weight).
The fits are compared to 1e-9 relative + 1e-9 absolute, as in
test_validation.py: both sides stop on a relative criterion (ours: the
log-likelihood changing by at most 1e-12 of itself, then one more Newton
step; statsmodels' IRLS: the deviance changing by at most 1e-14 of itself
(the tol passed), its result kept only where the weighted score equations
hold to 1e-9 of the total weight, else Newton; brentq to 1e-15).  Measured
on these datasets the largest difference is 5e-14 (slope), 8e-15
(intercept) and 1.4e-11 (citl, where brentq's bracket on the flat score of
clipped logits is the coarser side); the 1e-9 is test_validation.py's, the
margin for the conditioning of likelihoods whose weights span twelve
orders of magnitude (a few rows of weight 1e6 beside thousands of 1e-6).

And checked for exact properties: integer weights give the text of
calibration_summary over the rows repeated, bit for bit (and every field
equal after parsing); weights times 4 give the same fits and ratios bit for
bit (every tolerance of the fit is relative) and n, events, expected times
4; brier is brier_w's double; every window frame shape and GROUP BY give
the weighted aggregate over the same rows; bad weights' error texts; all
weights 0 or NULL give NULL; a row of weight 0 is left out.
"""
import json
import math
import warnings
from fractions import Fraction

import numpy as np
import statsmodels.api as sm
from scipy import optimize, special
from statsmodels.tools.sm_exceptions import PerfectSeparationError

import mltest

warnings.filterwarnings("ignore")
CASES = ["calibration_summary"]
CLIP = 1e-15
KEYS = ["n", "events", "expected", "oe_ratio", "citl", "citl_lo", "citl_hi", "intercept", "intercept_lo",
        "intercept_hi", "slope", "slope_lo", "slope_hi", "level", "spiegelhalter_z", "spiegelhalter_p", "brier", "scaled_brier", "reason"]
FIT_REL = FIT_ABS = 1e-9
COUNT = {"glm_slope": 0, "newton_slope": 0, "glm_offset_refused": 0, "glm_offset_missed": 0,
         "var_weights_checked": 0}


def logit(p):
    c = np.clip(p, CLIP, 1 - CLIP)
    return np.log(c / (1 - c))


def exact_sum(w, t):
    """The exact sum of w * t over the rows, rounded once."""
    return float(sum((Fraction(float(a)) * Fraction(float(b)) for a, b in zip(w, t)), Fraction(0)))


def fit_offset(y, x, w):
    """citl: the root of sum w (y - sigma(a + x)) = 0, by brentq on exact-ish
    sums (fsum); statsmodels' GLM with offset and freq_weights is run beside
    it and counted where it refuses or misses by more than 1e-9."""
    def score(a):
        eta = a + x
        return math.fsum(w[y == 1] * special.expit(-eta[y == 1])) - math.fsum(w[y == 0] * special.expit(eta[y == 0]))
    lo, hi = -1.0, 1.0
    while score(lo) < 0:
        lo *= 2
    while score(hi) > 0:
        hi *= 2
    a = optimize.brentq(score, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=500)
    try:
        m = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial(), offset=x,
                   freq_weights=w).fit(tol=1e-15, maxiter=200)
        if not abs(float(m.params[0]) - a) <= 1e-9 * (1 + abs(a)):
            COUNT["glm_offset_missed"] += 1
    except PerfectSeparationError:
        COUNT["glm_offset_refused"] += 1
    return a


def newton(y, X, w):
    """Newton's method on the weighted log-likelihood (the fallback)."""
    ybar = math.fsum(w * y) / math.fsum(w)
    b = np.array([math.log(ybar / (1 - ybar)), 0.0])
    for _ in range(200):
        mu = special.expit(X @ b)
        step = np.linalg.solve(X.T @ (X * (w * mu * (1 - mu))[:, None]), X.T @ (w * (y - mu)))
        b = b + step
        if np.max(np.abs(step)) <= 1e-15 * (1 + np.max(np.abs(b))):
            break
    return float(b[0]), float(b[1])


def fit_slope(y, x, w, check_var_weights):
    """intercept, slope: statsmodels' GLM Binomial with freq_weights."""
    X = np.column_stack([np.ones(len(y)), x])
    try:
        m = sm.GLM(y, X, family=sm.families.Binomial(), freq_weights=w).fit(tol=1e-14, maxiter=300)
        a, b = float(m.params[0]), float(m.params[1])
        COUNT["glm_slope"] += 1
        if check_var_weights:
            v = sm.GLM(y, X, family=sm.families.Binomial(), var_weights=w).fit(tol=1e-14, maxiter=300)
            COUNT["var_weights_checked"] += 1
            if not (abs(float(v.params[0]) - a) <= 1e-9 * (1 + abs(a)) and abs(float(v.params[1]) - b) <= 1e-9 * (1 + abs(b))):
                raise AssertionError("var_weights and freq_weights disagree: %r %r" % (v.params, m.params))
        # GLM's IRLS can stop short on flat likelihoods: keep it only where its
        # score equations hold, else Newton finishes from it
        mu = special.expit(X @ m.params)
        g = X.T @ (w * (y - mu))
        if np.max(np.abs(g)) <= 1e-9 * max(1.0, math.fsum(w)):
            return a, b
    except PerfectSeparationError:
        pass
    COUNT["newton_slope"] += 1
    return newton(y, X, w)


def reference(y, p, w, check_var_weights=False):
    """Every field of calibration_summary_w, or None (no row of positive weight)."""
    keep = w > 0
    y, p, w = y[keep].astype(float), p[keep], w[keep]
    if y.size == 0:
        return None
    q, u = 1.0 - p, 1.0 - 2.0 * p
    n = exact_sum(w, np.ones_like(p))
    ev = exact_sum(w[y == 1], np.ones(int((y == 1).sum())))
    nonev = exact_sum(w[y == 0], np.ones(int((y == 0).sum())))
    expected = exact_sum(w, p)
    brier = exact_sum(w, np.where(y == 1, q * q, p * p)) / n
    znum = exact_sum(w, np.where(y == 1, q * u, -(p * u)))
    zden = exact_sum(w, u * u * (p * q))
    z = znum / math.sqrt(zden) if zden > 0 else None
    ybar = ev / n
    r = {"n": n, "events": ev, "expected": expected, "oe_ratio": ev / expected if expected > 0 else None,
         "brier": brier, "spiegelhalter_z": z,
         "spiegelhalter_p": math.erfc(abs(z) / math.sqrt(2)) if z is not None else None,
         "scaled_brier": 1 - brier / (ybar * (1 - ybar)) if ev > 0 and nonev > 0 else None,
         "citl": None, "intercept": None, "slope": None, "why": []}
    x = logit(p)
    if ev > 0 and nonev > 0:
        r["citl"] = fit_offset(y, x, w)
        x0, x1 = x[y == 0], x[y == 1]
        if x.min() == x.max():          # y on the intercept alone; the slope is not identifiable
            r["intercept"] = math.log(ev / nonev)
            r["why"].append("p is constant")
        elif x0.max() <= x1.min() or x1.max() <= x0.min():
            r["why"].append("a threshold on p separates the classes")
        else:
            r["intercept"], r["slope"] = fit_slope(y, x, w, check_var_weights)
    else:
        r["why"].append("one class")
    if z is None:
        r["why"].append("Spiegelhalter's variance is 0")
    return r


def check(ck, got, want, what):
    g = mltest.json_result(ck, got, want, KEYS, what)
    if g is None:
        return
    for k in ("n", "events", "expected", "brier"):
        ck.equal(g[k], want[k], "%s: %s is the exact sum" % (what, k))
    ck.close(g["oe_ratio"], want["oe_ratio"], what + ": oe_ratio")
    ck.close(g["scaled_brier"], want["scaled_brier"], what + ": scaled_brier", abs_=1e-12)
    ck.close(g["spiegelhalter_z"], want["spiegelhalter_z"], what + ": spiegelhalter_z", abs_=1e-12)
    ck.close(g["spiegelhalter_p"], want["spiegelhalter_p"], what + ": spiegelhalter_p", abs_=1e-15)
    for k in ("citl", "intercept", "slope"):
        ck.close(g[k], want[k], "%s: %s" % (what, k), rel=FIT_REL, abs_=FIT_ABS)
    reason = g["reason"] or ""
    for w in want["why"]:
        ck.true(w in reason, "%s: reason %r names %r" % (what, reason, w))
    if not want["why"]:
        ck.equal(g["reason"], None, what + ": no reason when every field is defined")


def dataset(rng, i):
    n = int(rng.choice([1, 2, 3, 5, 10, 40, 200, 1000, 3000]))
    kind = ["uniform", "ties", "edges", "extreme", "separated"][i % 5]
    if kind == "uniform":
        p = rng.random(n)
    elif kind == "ties":
        p = np.round(rng.random(n), 1)
    elif kind == "edges":                    # exact 0 and 1 (clipped for the logits)
        p = rng.choice([0.0, 0.0, 1.0, 0.3, 0.5, 0.7, 1e-300, 1 - 1e-16], n)
    else:
        p = special.expit(rng.normal(0, 6, n))
    how = ["calibrated", "rare", "miscal", "one", "calibrated", "miscal"][i % 6]
    if kind == "separated":                  # a threshold on p: the slope is infinite
        y = (p > 0.5).astype(int)
    elif how == "calibrated":
        y = (rng.random(n) < p).astype(int)
    elif how == "rare":                      # about 1 % prevalence
        y = (rng.random(n) < 0.01).astype(int)
    elif how == "miscal":                    # overconfident: the truth is flatter
        y = (rng.random(n) < 0.3 + 0.4 * p).astype(int)
    else:
        y = np.ones(n, dtype=int)
    w = mltest.random_weights(rng, n, y, mltest.WEIGHT_KINDS[i % 6])
    return y, p, w, kind, how


@mltest.covers("calibration_summary_w")
def test_twins(ck, con):
    """calibration_summary_w against statsmodels' weighted GLM (numpy's Newton where
    it refuses) and the weighted sums; weights scaled; integer weights; frames."""
    table = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    twins = {f["weighted_of"]: f for f in table if f["weighted_of"]}
    ck.equal(twins.get("calibration_summary", {}).get("name"), "calibration_summary_w",
             "calibration_summary has a weighted twin")
    ck.equal(twins.get("calibration_summary", {}).get("signature"), "y, p, w [, level]",
             "calibration_summary_w's signature")
    rng = np.random.default_rng(20260314)
    n_fit = n_int = 0
    for i in range(420):
        y, p, w, kind, how = dataset(rng, i)
        n = y.size
        rows = [(int(y[k]), float(p[k]), float(w[k]), k % 3) for k in range(n)]
        rows += [(None, 0.5, 1.0, 0), (1, None, 1.0, 1), (1, 0.5, None, 2)]      # skipped rows
        mltest.load(con, ["y", "p", "w", "g"], rows)
        what = "dataset %d (n %d, %s, %s, %s weights)" % (i, n, kind, how, mltest.WEIGHT_KINDS[i % 6])
        got = con.execute("SELECT calibration_summary_w(y, p, w) FROM t").fetchone()[0]
        want = reference(y, p, w, check_var_weights=i % 10 == 0)
        check(ck, got, want, what)
        if got is None:
            continue
        g = json.loads(got)
        n_fit += g["slope"] is not None
        ck.equal(g["brier"], con.execute("SELECT brier_w(y, p, w) FROM t").fetchone()[0], what + ": brier is brier_w")
        # weights times 4: the fits and ratios bit for bit (every tolerance is
        # relative), the sums times 4 exactly
        g4 = json.loads(con.execute("SELECT calibration_summary_w(y, p, 4 * w) FROM t").fetchone()[0])
        for k in ("oe_ratio", "citl", "intercept", "slope", "brier", "scaled_brier", "spiegelhalter_p", "reason"):
            if k != "spiegelhalter_p" or g[k] is None:
                ck.equal(g4[k], g[k], what + ": weights x 4 keep " + k)
        for k in ("n", "events", "expected"):
            ck.equal(g4[k], 4 * g[k], what + ": weights x 4 multiply " + k)
        if g["spiegelhalter_z"] is not None:
            ck.close(g4["spiegelhalter_z"], 2 * g["spiegelhalter_z"], what + ": weights x 4 double z")
        # integer weights: calibration_summary over the rows repeated, bit for bit
        if mltest.WEIGHT_KINDS[i % 6] == "integer":
            n_int += 1
            rep = [(yy, pp, 1.0, gg) for (yy, pp, ww, gg) in rows[:n] for _ in range(int(ww))]
            mltest.load(con, ["y", "p", "w", "g"], rep, table="r")
            b = con.execute("SELECT calibration_summary(y, p) FROM r").fetchone()[0]
            ck.equal(got, b, what + ": integer weights = the rows repeated (text)")
            if b is not None:
                b = json.loads(b)
                for k in KEYS:
                    ck.equal(g[k], b[k], what + ": integer weights = the rows repeated, " + k)
        # GROUP BY and every window frame: the aggregate over the same rows, bit for bit
        if 5 <= n <= 40 and i % 3 == 0:
            mltest.same_as_aggregate(ck, con, "calibration_summary_w(y, p, w)", "p", what)
    ck.true(n_fit > 100, "slopes fitted on %d datasets" % n_fit)
    ck.true(n_int > 40, "integer weights on %d datasets" % n_int)
    ck.true(COUNT["var_weights_checked"] > 10, "var_weights = freq_weights checked %d times" % COUNT["var_weights_checked"])
    print("calibration_summary_w: %d datasets with a fitted slope; statsmodels' GLM(freq_weights) served %d slope fits,"
          " numpy's Newton %d; its GLM with offset refused %d citl fits and missed %d by more than 1e-9 (brentq served);"
          " var_weights = freq_weights on %d" % (n_fit, COUNT["glm_slope"], COUNT["newton_slope"],
                                                 COUNT["glm_offset_refused"], COUNT["glm_offset_missed"],
                                                 COUNT["var_weights_checked"]))

    # known answers: a calibrated model by weights (each p's weighted event rate is p)
    mltest.load(con, ["y", "p", "w"], [(1, 0.25, 0.5), (0, 0.25, 1.5), (1, 0.75, 2.25), (0, 0.75, 0.75)])
    g = json.loads(con.execute("SELECT calibration_summary_w(y, p, w) FROM t").fetchone()[0])
    ck.close(g["citl"], 0.0, "calibrated by weights: citl 0", abs_=1e-15)
    ck.close(g["intercept"], 0.0, "calibrated by weights: intercept 0", abs_=1e-15)
    ck.close(g["slope"], 1.0, "calibrated by weights: slope 1", abs_=1e-15)
    ck.equal((g["n"], g["events"], g["oe_ratio"]), (5, 2.75, 1), "calibrated by weights: n, events, O/E")
    # a weight of 0 takes a class away: one class, the fits null
    mltest.load(con, ["y", "p", "w"], [(1, 0.2, 0), (0, 0.4, 1.5), (0, 0.6, 2)])
    g = json.loads(con.execute("SELECT calibration_summary_w(y, p, w) FROM t").fetchone()[0])
    ck.true(g["citl"] is None and g["slope"] is None and g["scaled_brier"] is None
            and g["reason"].startswith("one class"), "weight 0 on the only positive: one class (%r)" % (g,))
    # ... and a zero-weight row's p no longer separates or overlaps
    mltest.load(con, ["y", "p", "w"], [(0, 0.1, 1), (0, 0.9, 0), (1, 0.5, 1), (1, 0.8, 2)])
    g = json.loads(con.execute("SELECT calibration_summary_w(y, p, w) FROM t").fetchone()[0])
    ck.true(g["slope"] is None and "separates the classes" in g["reason"], "weight 0 row out of the separation test (%r)" % (g,))

    # weight 0 and NULL; weights that are not weights; numeric text; arity
    mltest.load(con, ["y", "p", "w"], [(k % 2, (k % 9 + 0.5) / 10, 1.0 + k % 3) for k in range(40)])
    for wsql in ("0", "NULL", "CASE WHEN id > 0 THEN 0 END"):
        ck.equal(con.execute("SELECT calibration_summary_w(y, p, %s) FROM t" % wsql).fetchone()[0], None,
                 "weights all %s: NULL" % wsql)
    ck.equal(con.execute("SELECT calibration_summary_w(y, p, w) FROM t WHERE 0").fetchone()[0], None, "no rows: NULL")
    a = con.execute("SELECT calibration_summary_w(y, p, CASE WHEN id % 5 = 0 THEN 0 ELSE w END) FROM t").fetchone()[0]
    b = con.execute("SELECT calibration_summary_w(y, p, w) FROM t WHERE id % 5 <> 0").fetchone()[0]
    ck.equal(a, b, "a row of weight 0 is left out")
    a = con.execute("SELECT calibration_summary_w(y, p, CASE WHEN id % 5 = 0 THEN NULL ELSE w END) FROM t").fetchone()[0]
    ck.equal(a, b, "a row of NULL weight is skipped")
    for bad, shown in [("-1", "-1"), ("-0.5", "-0.5"), ("1e999", "Inf"), ("-1e999", "-Inf"), ("'x'", "text 'x'"),
                       ("x'00'", "a blob")]:
        ck.error(con, "SELECT calibration_summary_w(y, p, CASE WHEN id = 7 THEN %s ELSE w END) FROM t" % bad, (),
                 "calibration_summary_w(): w must be a non-negative finite number, got %s" % shown,
                 "bad weight %s" % bad)
    ck.equal(con.execute("SELECT calibration_summary_w(y, p, '2') FROM t").fetchone()[0],
             con.execute("SELECT calibration_summary_w(y, p, 2) FROM t").fetchone()[0],
             "numeric text weight reads as the number")
    ck.error(con, "SELECT calibration_summary_w(y, p) FROM t", (),
             "calibration_summary_w(): expects (y, p, w [, level]), got 2 arguments", "two arguments")
    ck.error(con, "SELECT calibration_summary_w(y, p, w, 0.9, 1) FROM t", (),
             "calibration_summary_w(): expects (y, p, w [, level]), got 5 arguments", "five arguments")
    ck.error(con, "SELECT calibration_summary_w(y, p, w, 10) FROM t", (),
             "calibration_summary_w(): level must be a number in (0, 1), got 10", "level out of range")
    ck.error(con, "SELECT calibration_summary_w(y, 1.5, w) FROM t", (),
             "calibration_summary_w(): p must be a probability in [0, 1], got 1.5", "p out of range")


def main():
    ck = mltest.Checker("weights_calsum")
    con = mltest.connect()
    ck.equal(sorted(test_twins.covers), sorted(n + "_w" for n in CASES), "test_twins covers (mltest.covers) CASES' twins")
    test_twins(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
