# SPDX-License-Identifier: MIT
"""Differential suite: calibration_summary's Wald intervals and its constant-p
rule (issue 36 item 1; ext/metrics/validation.c rule 3b, ext/core/ml_logit.c
ml_logit_cov).

calibration_summary(y, p [, level]) and calibration_summary_w(y, p, w [, level])
    citl_lo/hi, intercept_lo/hi, slope_lo/hi <-> statsmodels' GLM Binomial on
    the same two fits, conf_int(alpha = 1 - level): the slope fit
    GLM(y, add_constant(logit(p))) and the calibration-in-the-large fit
    GLM(y, ones, offset = logit(p)) (R's confint.default on glm: est +- se
    qnorm; statsmodels uses norm.ppf(1 - alpha/2), the same to 1e-15), with
    freq_weights for the twin (integer and non-integer weights: for a
    Binomial GLM freq_weights sum as rows, what the twin defines).  The
    interval ends must agree to 1e-9 relative (plus 1e-9 absolute for ends
    near 0), the estimates as well.  statsmodels' IRLS is run to tol 1e-14;
    where it refuses ("perfect separation") or reports a non-finite bse the
    dataset is skipped and counted.
    A check of the reference against R (glm + confint.default), made once on
    one dataset and written below (R_CHECK), keeps statsmodels honest.
A constant p: slope and its interval null with a reason naming it;
    intercept = logit(ybar) with the interval of the intercept-only glm
    (R's glm(y ~ lp) with lp aliased).
level: 0.95 by default and in the JSON; a bad level is an error naming it;
    integer weights = the rows repeated bit for bit; states = rows bit for bit.
Sampled: ~120 datasets, n 20..1500; runs in a few seconds.
"""
import json
import math
import warnings

import numpy as np
import statsmodels.api as sm
from statsmodels.tools.sm_exceptions import PerfectSeparationError

import mltest

warnings.filterwarnings("ignore")
CLIP = 1e-15
KEYS = ["n", "events", "expected", "oe_ratio", "citl", "citl_lo", "citl_hi", "intercept", "intercept_lo",
        "intercept_hi", "slope", "slope_lo", "slope_hi", "level", "spiegelhalter_z", "spiegelhalter_p",
        "brier", "scaled_brier", "reason"]
SKIP = {"refused": 0}

# R 4.2 (Debian 12), once, on the dataset r_check_data() makes (no p of 0 or 1):
#   d <- read.csv("r.csv"); lp <- qlogis(d$p); ctl <- glm.control(epsilon = 1e-14, maxit = 100)
#   confint.default(glm(y ~ lp, binomial, data = d, control = ctl), level = 0.9)
#   confint.default(glm(y ~ 1, offset = lp, binomial, data = d, control = ctl), level = 0.9)
R_CHECK = {"intercept": (-0.27140505497116180, 0.11998269531467839),
           "slope": (0.16787670784358855, 0.41182131359515028),
           "citl": (-0.35788367593051063, 0.099661922443705753)}


def r_check_data():
    rng = np.random.default_rng(2026)
    p = np.round(rng.random(300), 3)
    y = (rng.random(300) < 0.2 + 0.6 * p).astype(int)
    return y, p


def logit(p):
    c = np.clip(p, CLIP, 1 - CLIP)
    return np.log(c / (1 - c))


def glm_ci(y, x, w, level, offset):
    """(estimates, [(lo, hi)]) of statsmodels' GLM Binomial, or None when it
    refuses or its standard errors are not finite."""
    alpha = 1 - level
    try:
        if offset:
            glm = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial(), offset=x, freq_weights=w)
        else:
            glm = sm.GLM(y, sm.add_constant(x, has_constant="add"), family=sm.families.Binomial(), freq_weights=w)
        m = glm.fit(tol=1e-14, maxiter=300)
        # IRLS's covariance is the last weighted least squares' (its weights
        # from the iterate before the last): refit from the estimate, so that
        # it is the information at the estimate, as R's vcov(glm) is
        m2 = glm.fit(start_params=m.params, tol=1e-14, maxiter=300)
    except PerfectSeparationError:
        return None
    if not np.all(np.abs(m.params) < 1e3) or not np.allclose(m.params, m2.params, rtol=1e-12, atol=1e-12):
        return None          # IRLS diverged (citl -1e15 where clipped logits of +-34.5 stall it)
    m = m2
    ci = np.asarray(m.conf_int(alpha))
    if not np.all(np.isfinite(ci)) or not np.all(np.isfinite(m.bse)):
        return None
    return [float(v) for v in m.params], [(float(a), float(b)) for a, b in ci]


def close(ck, got, want, what):
    ck.close(got, want, what, rel=1e-9, abs_=1e-9)


def check_against_glm(ck, g, y, p, w, level, what):
    x = logit(p)
    keep = w > 0
    y, x, w = y[keep], x[keep], w[keep]
    fit = glm_ci(y, x, w, level, True)
    if fit is None:
        SKIP["refused"] += 1
    else:
        close(ck, g["citl"], fit[0][0], what + ": citl")
        close(ck, g["citl_lo"], fit[1][0][0], what + ": citl_lo")
        close(ck, g["citl_hi"], fit[1][0][1], what + ": citl_hi")
    fit = glm_ci(y, x, w, level, False)
    if fit is None:
        SKIP["refused"] += 1
        return 0
    for i, k in enumerate(("intercept", "slope")):
        close(ck, g[k], fit[0][i], "%s: %s" % (what, k))
        close(ck, g[k + "_lo"], fit[1][i][0], "%s: %s_lo" % (what, k))
        close(ck, g[k + "_hi"], fit[1][i][1], "%s: %s_hi" % (what, k))
    return 1


def random_data(rng, n, trial):
    kind = trial % 4
    if kind == 0:
        p = rng.random(n)
    elif kind == 1:
        p = np.round(rng.random(n), 2)                      # ties
    elif kind == 2:
        p = 1 / (1 + np.exp(-rng.normal(0, 2.5, n)))       # spread logits
    else:
        p = rng.uniform(0.02, 0.3, n)                       # low risk
    how = trial % 3
    if how == 0:
        y = (rng.random(n) < p).astype(int)
    elif how == 1:
        y = (rng.random(n) < 0.25 + 0.5 * p).astype(int)    # overconfident
    else:
        y = (rng.random(n) < p ** 1.5).astype(int)
    return y, p


@mltest.covers("calibration_summary", "calibration_summary_w")
def check_random(ck, con, rng):
    fitted = 0
    for trial in range(120):
        n = int(rng.choice([20, 60, 200, 700, 1500]))
        y, p = random_data(rng, n, trial)
        if y.min() == y.max():
            continue
        level = [0.95, 0.9, 0.5, 0.99, 0.999][trial % 5]
        weighted = trial % 2 == 1
        w = mltest.random_weights(rng, n, y, ["integer", "exponential", "steps", "ipw"][trial % 4]) \
            if weighted else np.ones(n)
        rows = [(int(a), float(b), float(c)) for a, b, c in zip(y, p, w)]
        mltest.load(con, ["y", "p", "w"], rows)
        if weighted:
            got = con.execute("SELECT calibration_summary_w(y, p, w, ?) FROM t", (level,)).fetchone()[0]
        elif level == 0.95 and trial % 10 == 0:
            got = con.execute("SELECT calibration_summary(y, p) FROM t").fetchone()[0]
        else:
            got = con.execute("SELECT calibration_summary(y, p, ?) FROM t", (level,)).fetchone()[0]
        g = mltest.json_result(ck, got, {}, KEYS, "dataset %d" % trial)
        if g is None:
            continue
        ck.equal(g["level"], level, "dataset %d: level" % trial)
        fitted += check_against_glm(ck, g, y, p, w, level, "dataset %d (n %d, level %g, %s)"
                                    % (trial, n, level, "weighted" if weighted else "rows"))
        if trial % 9 == 0 and not weighted:
            st = con.execute("SELECT calibration_summary(s, ?) FROM (SELECT ml_state(y, p) AS s FROM t"
                             " GROUP BY id % 3)", (level,)).fetchone()[0]
            ck.equal(st, got, "dataset %d: over states = over rows" % trial)
        if weighted and trial % 4 == 1:
            # integer weights: the rows repeated, bit for bit
            wi = rng.integers(0, 4, n)
            mltest.load(con, ["y", "p", "w"], [(int(a), float(b), int(c)) for a, b, c in zip(y, p, wi)])
            a = con.execute("SELECT calibration_summary_w(y, p, w, ?) FROM t", (level,)).fetchone()[0]
            mltest.load(con, ["y", "p"], [(int(a_), float(b_)) for a_, b_, c in zip(y, p, wi) for _ in range(c)])
            b = con.execute("SELECT calibration_summary(y, p, ?) FROM t", (level,)).fetchone()[0]
            if b is not None:
                b = json.loads(b)
                b["n"] = float(b["n"])
                b["events"] = float(b["events"])
                b = json.dumps(b, separators=(",", ":"))
            ca, cb = json.loads(a) if a else None, json.loads(b) if b else None
            ck.equal(ca, cb, "dataset %d: integer weights = rows repeated" % trial)
    ck.true(fitted >= 90, "intervals compared with statsmodels on %d datasets" % fitted)
    return fitted


@mltest.covers("calibration_summary")
def check_r(ck, con):
    """statsmodels' intervals and ours against the numbers R gave once."""
    y, p = r_check_data()
    mltest.load(con, ["y", "p"], [(int(a), float(b)) for a, b in zip(y, p)])
    g = json.loads(con.execute("SELECT calibration_summary(y, p, 0.9) FROM t").fetchone()[0])
    for k, (lo, hi) in R_CHECK.items():
        ck.close(g[k + "_lo"], lo, "R confint.default: " + k + "_lo", rel=1e-9, abs_=1e-12)
        ck.close(g[k + "_hi"], hi, "R confint.default: " + k + "_hi", rel=1e-9, abs_=1e-12)


def check_constant(ck, con):
    """A constant p: null slope and interval, with a reason; the intercept
    that of y on the intercept alone, and its Wald interval."""
    for pv, ev, n, w in ((0.3, 7, 20, None), (0.5, 10, 20, None), (1e-300, 3, 9, None), (0.8, 5, 12, 2.5)):
        rows = [(1 if i < ev else 0, pv, w if w else 1.0) for i in range(n)]
        mltest.load(con, ["y", "p", "w"], rows)
        q = "SELECT calibration_summary_w(y, p, w) FROM t" if w else "SELECT calibration_summary(y, p) FROM t"
        g = json.loads(con.execute(q).fetchone()[0])
        what = "constant p = %g" % pv
        ck.equal((g["slope"], g["slope_lo"], g["slope_hi"]), (None, None, None), what + ": null slope and interval")
        ck.true(g["reason"] is not None and "p is constant" in g["reason"], what + ": reason %r" % g["reason"])
        yy = np.array([r[0] for r in rows], dtype=float)
        ww = np.array([r[2] for r in rows])
        m = sm.GLM(yy, np.ones((n, 1)), family=sm.families.Binomial(), freq_weights=ww).fit(tol=1e-14)
        ci = np.asarray(m.conf_int(0.05))[0]
        close(ck, g["intercept"], float(m.params[0]), what + ": intercept of the intercept-only fit")
        close(ck, g["intercept_lo"], float(ci[0]), what + ": intercept_lo")
        close(ck, g["intercept_hi"], float(ci[1]), what + ": intercept_hi")
        fit = glm_ci(yy, logit(np.full(n, pv)), ww, 0.95, True)
        close(ck, g["citl_lo"], fit[1][0][0], what + ": citl_lo")
        close(ck, g["citl_hi"], fit[1][0][1], what + ": citl_hi")
    # one class: everything fitted is null, intervals too
    mltest.load(con, ["y", "p"], [(1, 0.2), (1, 0.7)])
    g = json.loads(con.execute("SELECT calibration_summary(y, p) FROM t").fetchone()[0])
    ck.equal([g[k] for k in KEYS[4:13]], [None] * 9, "one class: fits and intervals null")


def check_level_errors(ck, con):
    mltest.load(con, ["y", "p"], [(1, 0.2), (0, 0.7)])
    for bad, txt in (("0", "0"), ("1", "1"), ("1.5", "1.5"), ("'x'", "text 'x'")):
        ck.error(con, "SELECT calibration_summary(y, p, %s) FROM t" % bad, (),
                 "calibration_summary(): level must be a number in (0, 1), got %s" % txt)
    ck.error(con, "SELECT calibration_summary(y, p, CASE WHEN id = 1 THEN 0.9 ELSE 0.8 END) FROM t", (),
             "calibration_summary(): level must be the same in every row of a group, got 0.9 and then 0.8")


def main():
    ck = mltest.Checker("test_calsum_ci")
    con = mltest.connect()
    rng = np.random.default_rng(36)
    check_r(ck, con)
    fitted = check_random(ck, con, rng)
    check_constant(ck, con)
    check_level_errors(ck, con)
    print("intervals checked on %d datasets against statsmodels; %d fits refused by statsmodels (skipped)"
          % (fitted, SKIP["refused"]))
    ck.finish()


if __name__ == "__main__":
    main()
