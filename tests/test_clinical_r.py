# SPDX-License-Identifier: MIT
"""Differential suite against R itself (issue 36's tests): the clinical
functions where R has the number.

R's side is tests/r/clinical_ref.R, run on the datasets this test writes
(hex floats in CSV, so R reads the doubles Python holds):
1. rms::val.prob(p, y, pl = FALSE)'s Eavg, E90, Emax (and E50 from the same
   curve: lowess(p, y, iter = 0) + approx(ties = mean)) <-> calibration_smooth's
   ici, e90, emax, e50, to 1e-9 absolute; val.prob's Intercept and Slope
   (lrm.fit's logistic recalibration, y ~ logit(p)) <-> calibration_summary's
   intercept and slope (the same fit; lrm.fit stops at its own tolerance, so
   to 1e-5); on pROC's aSAH data (y = outcome is "Poor", p the
   fitted probability of glm(y ~ s100b), made by R and kept in the golden
   file) and on 30 random sets with ties.
2. glm(y ~ offset(qlogis(p)), binomial) and glm(y ~ qlogis(p), binomial)
   (epsilon 1e-14, refitted from the estimate: glm's se are the
   information's at the start of its last iteration, one step short, which
   puts a single fit's interval ~1e-7 relative off) with confint.default at
   levels 0.9, 0.95, 0.99 <-> calibration_summary's citl, intercept, slope
   and their _lo/_hi, to 1e-8 relative (plus 1e-10 absolute for ends near
   0); the single fit's interval at 0.95 to 1e-5.
3. pROC, 400 binormal sets (300 rows, prevalence 0.4, positives N(1.2, 1),
   negatives N(0, 1)): ci.se(specificities = 0.8) and ci.sp(sensitivities =
   0.8), boot.n = 2000, against the true sensitivity at specificity 0.8 and
   the true specificity at sensitivity 0.8; mleval's sens_at_spec_ci(y, s,
   0.8), tpr_at_fpr_ci(y, s, 0.2) and, for ci.sp, sens_at_spec_ci(1 - y, -s,
   0.8) (labels swapped and the score reversed: its TPR is the specificity)
   with 2000 replicates.  Each of the five intervals must cover the truth in
   93-97 % of the sets; the mean widths are printed.  The point estimates:
   sens_at_spec(y, s, 0.8) = pROC's coords(x = 0.8, input = "specificity",
   ret = "sensitivity") exactly on those tie-free sets, and on 20 sets with
   ties at every specificity the ROC reaches and a few between: pROC's value
   is the linear interpolation along the ROC (checked from its definition),
   so it is above mleval's step (max TPR with 1 - FPR >= target) strictly
   inside a tie's diagonal and equal to it elsewhere -- but where pROC's
   TN/N equals the target and mleval's 1 - FP/N rounds one ulp below it
   (docs/decisions.md); each kind is counted.
The goldens: tests/golden/clinical_r.json is the script's output over these
datasets (and the CSVs' SHA-256, so a change of the data is seen).  With
Rscript on PATH the test runs R (the 400 pROC bootstraps only for the first 8
sets: 0.65 s each) and compares mleval with live R, and live R with the
goldens (drift in R, rms or pROC shows) at the tolerance R itself reproduces
across BLAS builds: 1e-10 relative plus 1e-12 absolute (R_DRIFT_REL/ABS below;
R on the reference BLAS and on OpenBLAS 0.3.21 differ by at most 9.8e-15
absolute on these numbers, and by 4% relative on the fitted values that are
zero up to rounding, ~1e-14, so no relative bound alone can hold); without it,
it says SKIP for the live run and compares with the goldens.  Regenerate (R needed):
    MLEVAL_LIB=ext/.libs/mleval /usr/bin/python3 tests/test_clinical_r.py --update
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from scipy import stats

import mltest

SRC = os.environ.get("srcdir", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SCRIPT = os.path.join(SRC, "tests", "r", "clinical_ref.R")
GOLDEN = os.path.join(SRC, "tests", "golden", "clinical_r.json")
N_COV, COV_N, COV_PREV, COV_MU, TARGET = 400, 300, 0.4, 1.2, 0.8
TRUE_SENS = float(stats.norm.sf(stats.norm.ppf(TARGET) - COV_MU))     # at specificity 0.8
TRUE_SPEC = float(stats.norm.cdf(COV_MU + stats.norm.ppf(1 - TARGET)))  # at sensitivity 0.8
MEASURED = {}


def measure(key, got, want):
    """The largest |got - want| seen under key (the report's numbers)."""
    if got is not None and want is not None:
        MEASURED[key] = max(MEASURED.get(key, 0.0), abs(got - want))


def datasets():
    """The calibration sets (ties), the binormal coverage sets and the tied
    point-estimate sets, from fixed seeds."""
    rng = np.random.default_rng(3601)
    cal = []
    for k in range(30):
        n = int(rng.choice([25, 60, 150, 400, 900]))
        p = np.clip(np.round(rng.beta(rng.uniform(0.8, 3), rng.uniform(1.5, 5), n), int(rng.choice([1, 2, 3]))),
                    0.005, 0.995)
        a, b = rng.uniform(-0.8, 0.8), rng.uniform(0.5, 1.6)                 # the truth: logit a + b logit(p)
        y = (rng.random(n) < 1 / (1 + np.exp(-(a + b * np.log(p / (1 - p)))))).astype(int)
        y[0], y[1] = 0, 1
        if np.unique(p).size < 3:
            p[:3] = [0.2, 0.5, 0.7]
        cal.append((y, p))
    rng = np.random.default_rng(3602)
    cov = []
    for k in range(N_COV):
        y = (rng.random(COV_N) < COV_PREV).astype(int)
        cov.append((y, rng.normal(size=COV_N) + COV_MU * y))
    rng = np.random.default_rng(3603)
    pts = []
    for k in range(20):
        n = int(rng.choice([12, 40, 200]))
        y = (rng.random(n) < 0.45).astype(int)
        y[0], y[1] = 0, 1
        pts.append((y, np.round(rng.normal(size=n) + y, int(rng.choice([0, 1])))))
    return cal, cov, pts


def write_csvs(d, cal, cov, pts):
    """The three CSVs of clinical_ref.R (hex floats: R reads them exactly);
    returns their SHA-256."""
    h = hashlib.sha256()
    texts = {"cal.csv": ["set,y,p"] + ["%d,%d,%s" % (k, y[i], float(p[i]).hex())
                                       for k, (y, p) in enumerate(cal) for i in range(len(y))],
             "cov.csv": ["set,y,s"] + ["%d,%d,%s" % (k, y[i], float(s[i]).hex())
                                       for k, (y, s) in enumerate(cov) for i in range(len(y))],
             "pts.csv": ["set,y,s,spec"] + ["%d,%d,%s,%s" % (k, y[i], float(s[i]).hex(), float(sp).hex())
                                            for k, (y, s, specs) in enumerate(pts) for i, sp in
                                            zip(range(len(y)), list(specs) + [specs[-1]] * len(y))]}
    for name in sorted(texts):
        text = "\n".join(texts[name]) + "\n"
        h.update(text.encode())
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    return h.hexdigest()


def specs_of(y, s):
    """Every specificity the ROC of (y, s) reaches, and a few between them."""
    neg = np.sort(s[y == 0])
    N = len(neg)
    at = sorted({float(np.sum(neg < t)) / N for t in np.unique(s)} - {0.0})
    between = [(a + b) / 2 for a, b in zip(at, at[1:])][:5]
    return sorted(set(at + between) - {0.0, 1.0}) or [0.5]


def r_available():
    """(True, None) when Rscript runs with rms and pROC, else (False, why)."""
    if os.environ.get("MLEVAL_NO_R"):
        return False, "MLEVAL_NO_R is set"
    if shutil.which("Rscript") is None:
        return False, "Rscript not found"
    r = subprocess.run(["Rscript", "-e", 'quit(status = !all(sapply(c("rms", "pROC"), requireNamespace, '
                        'quietly = TRUE)))'], capture_output=True, text=True, timeout=300)
    return (True, None) if r.returncode == 0 else (False, "R lacks rms or pROC")


def run_r(d, quick):
    r = subprocess.run(["Rscript", SCRIPT, d] + (["quick"] if quick else []), capture_output=True, text=True,
                       timeout=3000)
    if r.returncode != 0:
        raise RuntimeError("Rscript failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
    with open(os.path.join(d, "r.json")) as f:
        return json.load(f)


def one(con, sql, *args):
    return con.execute(sql, args).fetchone()[0]


# What R reproduces across BLAS builds (reference BLAS vs OpenBLAS, measured on
# these datasets: at most 9.8e-15 absolute); the mleval-vs-live-R comparisons
# below keep their own, stricter-where-it-can-be tolerances.
R_DRIFT_REL, R_DRIFT_ABS = 1e-10, 1e-12


def drift(ck, live, gold, path=""):
    """Live R against the goldens: every number to R_DRIFT_REL relative plus
    R_DRIFT_ABS absolute (a value zero up to rounding moves by its own size
    from one BLAS to another)."""
    if isinstance(live, dict):
        for k, v in live.items():
            if not isinstance(gold, dict) or k not in gold:
                ck.true(False, "R drift %s.%s: not in the goldens" % (path, k))
            else:
                drift(ck, v, gold[k], path + "." + k)
    elif isinstance(live, list):
        ck.equal(len(live), len(gold) if isinstance(gold, list) else None, "R drift %s: length" % path)
        for i, (a, b) in enumerate(zip(live, gold)):
            drift(ck, a, b, "%s[%d]" % (path, i))
    elif isinstance(live, str) or live is None:
        ck.equal(live, gold, "R drift " + path)
    else:
        ck.close(float(live), gold, "R drift " + path, rel=R_DRIFT_REL, abs_=R_DRIFT_ABS)


def check_calibration(ck, con, y, p, r, what):
    mltest.load(con, ["y", "p"], [(int(y[i]), float(p[i])) for i in range(len(y))])
    sm = json.loads(one(con, "SELECT calibration_smooth(y, p) FROM t"))
    for mine, theirs in (("ici", "eavg"), ("e50", "e50"), ("e90", "e90"), ("emax", "emax")):
        ck.close(sm[mine], r[theirs], "%s: calibration_smooth %s vs val.prob %s" % (what, mine, theirs),
                 rel=0, abs_=1e-9)
        measure("smooth " + mine, sm[mine], r[theirs])
    cs = json.loads(one(con, "SELECT calibration_summary(y, p) FROM t"))
    for mine, theirs in (("intercept", "vp_intercept"), ("slope", "vp_slope")):
        ck.close(cs[mine], r[theirs], "%s: calibration_summary %s vs val.prob %s" % (what, mine, theirs),
                 rel=1e-5, abs_=1e-5)
        measure("val.prob " + mine, cs[mine], r[theirs])
    for level in (0.9, 0.95, 0.99):
        cs = json.loads(one(con, "SELECT calibration_summary(y, p, ?) FROM t", level))
        ci = r["ci_%g" % level]
        for f in ("citl", "intercept", "slope"):
            ck.close(cs[f], r[f], "%s: %s vs glm's coefficient" % (what, f), rel=1e-8, abs_=1e-10)
            measure("glm " + f, cs[f], r[f])
            for end, i in (("lo", 0), ("hi", 1)):
                ck.close(cs[f + "_" + end], ci[f][i], "%s: %s_%s at %g vs confint.default" % (what, f, end, level),
                         rel=1e-8, abs_=1e-10)
                if ci[f][i] is not None and cs[f + "_" + end] is not None:
                    rel = abs(cs[f + "_" + end] - ci[f][i]) / max(abs(ci[f][i]), 1e-300)
                    MEASURED["confint rel"] = max(MEASURED.get("confint rel", 0.0), rel)
                if level == 0.95:
                    # glm's single fit: its se from one step short of the estimate
                    one_fit = r["ci_single_fit_0.95"][f][i]
                    ck.close(cs[f + "_" + end], one_fit, "%s: %s_%s vs the single glm fit's" % (what, f, end),
                             rel=1e-5, abs_=1e-8)
                    rel = abs(cs[f + "_" + end] - one_fit) / max(abs(one_fit), 1e-300)
                    MEASURED["confint rel, single fit"] = max(MEASURED.get("confint rel, single fit", 0.0), rel)


def interp_sens(y, s, spec):
    """pROC's coords at a specificity, from the definition: the ROC points
    (specificity, sensitivity) of every threshold, the largest sensitivity
    among those exactly at spec, else linear interpolation between the two
    points around it."""
    P, N = (y == 1).sum(), (y == 0).sum()
    th = np.concatenate(([-np.inf], (lambda u: (u[1:] + u[:-1]) / 2)(np.unique(s)), [np.inf]))
    se = np.array([(s[y == 1] > t).sum() / P for t in th])
    sp = np.array([(s[y == 0] <= t).sum() / N for t in th])
    exact = se[sp == spec]
    if exact.size:
        return float(exact.max())
    i = np.searchsorted(sp, spec)                       # sp is nondecreasing in th
    return float(se[i - 1] + (se[i] - se[i - 1]) * (spec - sp[i - 1]) / (sp[i] - sp[i - 1]))


def main():
    update = "--update" in sys.argv
    ck = mltest.Checker("clinical_r")
    con = mltest.connect()
    cal, cov, pts = datasets()
    pts = [(y, s, specs_of(y, s)) for y, s in pts]
    have_r, why = r_available()
    with tempfile.TemporaryDirectory() as d:
        sha = write_csvs(d, cal, cov, pts)
        if update:
            if not have_r:
                sys.exit("--update needs R with rms and pROC: " + why)
            r = run_r(d, False)
            with open(GOLDEN, "w") as f:
                json.dump({"note": "R's numbers over the datasets of tests/test_clinical_r.py, made by "
                                   "tests/r/clinical_ref.R; regenerate with "
                                   "tests/test_clinical_r.py --update", "data_sha256": sha, "r": r},
                          f, separators=(",", ":"))
                f.write("\n")
            print("wrote", GOLDEN)
        with open(GOLDEN) as f:
            gold = json.load(f)
        ck.equal(gold["data_sha256"], sha, "the datasets are the goldens' (else regenerate them: --update)")
        ref = gold["r"]
        if have_r and not update:
            live = run_r(d, True)
            drift(ck, live, ref)
            ref = dict(ref, asah=live["asah"], cal=live["cal"], pts=live["pts"], cov=dict(ref["cov"], **live["cov"]))
            print("live R: %s, rms %s, pROC %s (pROC's bootstraps for %d of %d sets; the rest from the goldens)"
                  % (live["versions"]["R"], live["versions"]["rms"], live["versions"]["pROC"],
                     len(live["cov"]), N_COV))
        elif not have_r:
            print("SKIP live R: %s; comparing with the goldens of %s, rms %s, pROC %s"
                  % (why, ref["versions"]["R"], ref["versions"]["rms"], ref["versions"]["pROC"]))

    # 1, 2: val.prob, glm + confint.default
    a = ref["asah"]
    ck.equal(len(a["y"]), 113, "aSAH: 113 rows")
    check_calibration(ck, con, np.array(a["y"]), np.array(a["p"]), a["r"], "aSAH")
    for k, (y, p) in enumerate(cal):
        check_calibration(ck, con, y, p, ref["cal"][str(k)], "calibration set %d (n %d)" % (k, len(y)))

    # 3a. point estimates: coords on tie-free sets, the tie convention
    for k, (y, s, specs) in enumerate(pts):
        mltest.load(con, ["y", "s"], [(int(y[i]), float(s[i])) for i in range(len(y))])
        rp = ref["pts"][str(k)]
        ck.equal(rp["spec"], specs, "set %d: pROC's specificities are the test's" % k)
        neg, pos = s[y == 0], s[y == 1]
        cuts = list(np.unique(s)) + [np.inf]                # a row is called positive at s >= cut
        for spec, theirs in zip(rp["spec"], rp["sens"]):
            mine = one(con, "SELECT sens_at_spec(y, s, ?) FROM t", spec)
            what = "tied set %d, specificity %r" % (k, spec)
            ck.close(theirs, interp_sens(y, s, spec), what + ": pROC's coords is the interpolation", rel=1e-12)
            # mleval's step, its specificity 1 - FP/N (docs/ranking.md rule 7), and
            # the step on pROC's TN/N: they differ only where 1 - FP/N rounds
            # below TN/N; pROC's coords is the latter step but inside a diagonal
            step = max(float((pos >= c).mean()) for c in cuts if 1 - (neg >= c).sum() / len(neg) >= spec)
            step_tn = max(float((pos >= c).mean()) for c in cuts if (neg < c).sum() / len(neg) >= spec)
            attained = any((neg < c).sum() / len(neg) == spec for c in cuts)
            ck.equal(mine, step, what + ": sens_at_spec is the step (max TPR with 1 - FPR >= target)")
            ulp = mine != step_tn
            ck.true(not ulp or attained, what + ": the specificities differ only at an attained one (1 ulp)")
            diagonal = not attained and theirs != step_tn
            ck.true(not diagonal or theirs > step_tn, what + ": pROC's interpolation above the step on a diagonal")
            ck.true(theirs == step_tn or diagonal, what + ": pROC's coords is the step on TN/N off the diagonals")
            for key, cond in (("tie points", True), ("tie points: the ulp of 1 - FP/N", ulp),
                              ("tie points: a diagonal (pROC interpolates)", diagonal)):
                MEASURED[key] = MEASURED.get(key, 0) + cond

    # 3b. coverage at specificity 0.8 and sensitivity 0.8
    cover = {k: [0, 0.0] for k in ("pROC ci.se", "pROC ci.sp", "sens_at_spec_ci", "tpr_at_fpr_ci",
                                    "sens_at_spec_ci (swapped, ci.sp's)")}
    for k, (y, s) in enumerate(cov):
        rc = ref["cov"][str(k)]
        mltest.load(con, ["y", "s"], [(int(y[i]), float(s[i])) for i in range(len(y))])
        got = {"sens_at_spec_ci": json.loads(one(con, "SELECT sens_at_spec_ci(y, s, 0.8, 0.95, 2000, ?) FROM t", k)),
               "tpr_at_fpr_ci": json.loads(one(con, "SELECT tpr_at_fpr_ci(y, s, 0.2, 0.95, 2000, ?) FROM t", k)),
               "sens_at_spec_ci (swapped, ci.sp's)":
                   json.loads(one(con, "SELECT sens_at_spec_ci(1 - y, -s, 0.8, 0.95, 2000, ?) FROM t", k))}
        ck.equal(got["sens_at_spec_ci"]["estimate"], rc["se_hat"], "coverage set %d: estimate = pROC's coords" % k)
        ck.equal(got["sens_at_spec_ci (swapped, ci.sp's)"]["estimate"], rc["sp_hat"],
                 "coverage set %d: swapped estimate = pROC's coords(input = 'sensitivity')" % k)
        for name, lo, hi, truth in [("pROC ci.se", rc["se"][0], rc["se"][2], TRUE_SENS),
                                    ("pROC ci.sp", rc["sp"][0], rc["sp"][2], TRUE_SPEC)] + \
                                   [(n, g["lo"], g["hi"], TRUE_SPEC if "swapped" in n else TRUE_SENS)
                                    for n, g in got.items()]:
            cover[name][0] += lo <= truth <= hi
            cover[name][1] += hi - lo
    for name, (c, w) in cover.items():
        print("coverage %-36s %5.1f %%  mean width %.4f  (%d sets)" % (name, 100.0 * c / N_COV, w / N_COV, N_COV))
        ck.true(0.93 <= c / N_COV <= 0.97, "%s: the 95 %% interval covers the truth in %d of %d sets" % (name, c, N_COV))
    print("truth: sensitivity %.6f at specificity 0.8, specificity %.6f at sensitivity 0.8" % (TRUE_SENS, TRUE_SPEC))
    for key in sorted(MEASURED):
        print("measured %-26s %.3g" % (key, MEASURED[key]))
    ck.finish()


if __name__ == "__main__":
    main()
