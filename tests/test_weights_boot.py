# SPDX-License-Identifier: MIT
"""The weighted bootstrap intervals (docs/weights.md, "Weighted bootstrap"):
pr_auc_ci_w, nap_ci_w, brier_ci_w, log_loss_ci_w, ece_ci_w and auroc_ci_w;
strat_gap_ci_w(y, s, w, strat, ...) and the paired pr_auc_diff_ci_w(y, s_a,
s_b, w, ...) and ece_diff_ci_w(y, p_a, p_b, w, ...) (check_three below: the
same properties, on three data arguments).

The twins are read from mleval_functions() (every "*_ci_w" with a
"weighted_of"); each must have a case here, or the test fails.  Checked:

- reproduction: the documented generator and canonical order (score, label,
  weight), re-implemented in numpy (test_uncertainty.py's Rng and
  boot_reference), rebuild every replicate -- the rows drawn k times weigh
  k w, scored by scikit-learn's sample_weight metrics -- and the se,
  percentile and BCa bounds, to 1e-12, with ties, duplicate rows that differ
  only in their weight, and rows of weight 0;
- the estimate is the point twin (pr_auc_w & co.) bit for bit on random
  datasets of every shape test_weights.py draws (NULL alike where it is NULL);
- weights all equal to c > 0: for a power of two the very text of the
  unweighted function's JSON (pr_auc_ci, nap_ci; the calibration CIs'
  replicates sum exactly where theirs use compensated sums: the estimate and
  every count equal, the rest to 1e-12), for other c to 1e-12;
- rows of weight 0 are dropped before resampling: the result is the query's
  over the rows of positive weight; none -> NULL;
- row order does not matter (three insertion orders, the same text);
- every window frame gives the aggregate over the frame's rows, GROUP BY each
  group's;
- the interval is about the estimate: lo <= estimate <= hi on moderate data,
  a width comparable to the se;
- coverage: a case-control sample (all cases, a quarter of the controls,
  weight 4) of a binormal population, about 780 rows each; the 95 %
  intervals of pr_auc_ci_w, auroc_ci_w and brier_ci_w cover the
  population's value 92-98 % of the time, their mean se is the spread of
  the estimates over the samples within 15 %, and the unweighted pr_auc_ci
  on the same samples almost never covers it;
- bad weights: the twins' error texts;
- the unweighted bootstraps (pr_auc_ci, nap_ci, brier_ci, log_loss_ci,
  ece_ci, strat_gap_ci, pr_auc_diff_ci, ece_diff_ci) rebuilt the same way,
  a row drawn k times counted k times (check_unweighted_reproduction).
"""
import json
import math

import numpy as np
from scipy import integrate, stats
from sklearn import metrics as skm

import mltest
import test_uncertainty
import test_weights

# each twin: its base function, the parameters before level/reps/seed as SQL,
# whether the metric needs both classes
CASES = {
    "pr_auc_ci": ("", True), "nap_ci": ("", True), "auroc_ci": ("", True),
    "brier_ci": ("", False), "log_loss_ci": ("", False), "ece_ci": (", 10", False),
}
BINS = 10


# The weight kinds of the estimate checks: test_weights' first four (its
# log-uniform weights, 1e-6..1e6, are covered there against scikit-learn),
# so that these datasets stay the ones this file's checks were written on.
BOOT_KINDS = ("exponential", "integer", "steps", "ipw")

def metric(name, y, s, w):
    """The weighted metric of rows (y, s) weighing w (> 0), or None."""
    if CASES[name][1] and y.min() == y.max():
        return None
    if name == "pr_auc_ci":
        return skm.average_precision_score(y, s, sample_weight=w)
    if name == "nap_ci":
        pi = w[y == 1].sum() / w.sum()
        return (skm.average_precision_score(y, s, sample_weight=w) - pi) / (1 - pi)
    if name == "auroc_ci":
        return skm.roc_auc_score(y, s, sample_weight=w)
    if name == "brier_ci":
        return math.fsum(w * (s - y) ** 2) / math.fsum(w)
    if name == "log_loss_ci":
        return skm.log_loss(y, s, sample_weight=w, labels=[0, 1], eps=1e-15)
    return test_weights.ref_calibration("ece", y, s, w, BINS)


def call(name, extra=""):
    return "%s_w(y, s, w%s%s)" % (name, CASES[name][0], extra)


def check_registry(ck, con):
    table = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    twins = {f["weighted_of"]: f for f in table if f["weighted_of"] and f["family"] == "uncertainty"}
    # pr_auc_delta_ci_w resamples nothing: test_uncertainty.py's check_delta_ap
    # checks it (against finite differences of the weighted AP, and its se
    # against pr_auc_ci_w's)
    delta = twins.pop("pr_auc_delta_ci", {})
    ck.equal((delta.get("name"), delta.get("data"), delta.get("signature")),
             ("pr_auc_delta_ci_w", ["y", "s", "w"], "y, s, w [, level]"), "pr_auc_delta_ci_w, no bootstrap parameters")
    # the clinical bootstraps' twins (issue 36) have their cases in
    # test_boot_clinical.py (estimates bit for bit, integer weights, row order,
    # frames, coverage); here their names, data arguments and parameters
    clinical = {"tpr_at_fpr_ci": ["y", "s", "w"], "sens_at_spec_ci": ["y", "s", "w"],
                "net_benefit_ci": ["y", "p", "w"], "net_benefit_diff_ci": ["y", "p_a", "p_b", "w"],
                "decision_curve_ci": ["y", "p", "w"]}     # its cases: test_decision_curve_ci.py
    for base, data in clinical.items():
        f = twins.pop(base, {})
        ck.equal((f.get("name"), f.get("data")), (base + "_w", data), base + "_w: name and data arguments")
        ck.equal([p["name"] for p in f.get("params", [])][-3:], ["level", "reps", "seed"], base + "_w parameters")
    ck.equal(sorted(twins), sorted(list(CASES) + list(THREE)), "every weighted bootstrap twin has a case here")
    ck.equal(sorted(check_reproduction.covers), sorted(n + "_w" for n in CASES),
             "check_reproduction covers (mltest.covers) the twins of CASES")
    ck.equal(sorted(check_three_reproduction.covers), sorted(n + "_w" for n in THREE),
             "check_three_reproduction covers (mltest.covers) the twins of THREE")
    for base, (data, sig) in THREE.items():
        f = twins.get(base, {})
        ck.equal((f.get("name"), f.get("data"), f.get("signature")), (base + "_w", data, sig),
                 base + "_w name, data arguments, signature")
    for base, f in twins.items():
        if base in THREE:
            continue
        ck.equal(f["name"], base + "_w", base + "'s twin is named " + base + "_w")
        ck.equal(f["data"], ["y", "p" if base in ("brier_ci", "log_loss_ci", "ece_ci") else "s", "w"],
                 f["name"] + " data arguments")
        ck.equal([p["name"] for p in f["params"]][-3:], ["level", "reps", "seed"], f["name"] + " parameters")
    ck.equal(twins["auroc_ci"]["signature"], "y, s, w [, level, reps, seed]", "auroc_ci_w signature")
    # the multiclass family's bootstrap twin has its cases in test_mc_state.py
    # (estimate = mc_auroc_w bit for bit, equal weights = mc_auroc_ci, row
    # order, frames, weighted states); here its name and parameters
    mc = {f["weighted_of"]: f for f in table
          if f["weighted_of"] and f["family"] == "multiclass" and f["weighted_of"].endswith("_ci")}
    ck.equal(sorted(mc), ["mc_auroc_ci"], "the multiclass bootstrap twins")
    f = mc.get("mc_auroc_ci", {})
    ck.equal(f.get("name"), "mc_auroc_ci_w", "mc_auroc_ci's twin is named mc_auroc_ci_w")
    ck.equal([p["name"] for p in f.get("params", [])], ["level", "reps", "seed"], "mc_auroc_ci_w parameters")


# ------------------------------------------------------------ reproduction

@mltest.covers("pr_auc_ci_w", "nap_ci_w", "auroc_ci_w", "brier_ci_w", "log_loss_ci_w", "ece_ci_w")
def check_reproduction(ck, con, rng):
    for trial in range(12):
        n = int(rng.integers(12, 40))
        y = (rng.random(n) < rng.uniform(0.25, 0.6)).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n) * 0.7 + 0.3 * y, 1)          # many ties, in [0, 1]
        w = rng.choice([0.0, 0.5, 1.0, 1.5, 3.25, 0.1], n)
        w[0], w[1] = 1.0, 2.0
        k = int(rng.integers(2, 5))                               # rows that differ only in w
        y[-k:], s[-k:] = y[0], s[0]
        reps = int(rng.choice([10, 20, 30]))
        seed = [2**63 - 1, 0, 12345, 2**53 + 1][trial % 4]
        level = float(rng.choice([0.9, 0.95]))
        order = rng.permutation(n)
        mltest.load(con, ["y", "s", "w"], [(int(y[i]), float(s[i]), float(w[i])) for i in order])
        keep = w > 0
        yk, sk, wk = y[keep], s[keep], w[keep]
        m = int(keep.sum())
        c = np.lexsort((wk, yk, sk))                              # score, label, weight
        yc, sc, wc = yk[c], sk[c], wk[c]
        for name in CASES:
            what = "reproduction %d %s_w (n %d of %d, reps %d, seed %d)" % (trial, name, m, n, reps, seed)

            def stat(kk):
                d = kk > 0
                v = metric(name, yc[d], sc[d], kk[d] * wc[d]) if d.any() else None
                return None if v is None else (v,)
            want, red = test_uncertainty.boot_reference(stat, m, reps, seed, level, None)
            got = json.loads(con.execute("SELECT %s FROM t" % call(name, ", ?, ?, ?"),
                                         (level, reps, seed)).fetchone()[0])
            w0 = want[0]
            for key in ("estimate", "se", "lo", "hi"):
                ck.close(got[key], w0[key], what + " " + key)
            ck.close(got["percentile"][0], w0["plo"], what + " percentile lo")
            ck.close(got["percentile"][1], w0["phi"], what + " percentile hi")
            ck.equal((got["redrawn"], got["n"], got["reps"], got["seed"], got["level"], got["method"]),
                     (red, m, reps, seed, level, "bca"), what + " redrawn, n, echo")


# --------------------------------------------------------------- estimates

POINT = {"pr_auc_ci": "pr_auc_w(y, s, w)", "nap_ci": "nap_w(y, s, w)", "auroc_ci": "auroc_w(y, s, w)",
         "brier_ci": "brier_w(y, s, w)", "log_loss_ci": "log_loss_w(y, s, w)", "ece_ci": "ece_w(y, s, w, 10)"}


def check_estimates(ck, con, rng):
    for i in range(160):
        y, s, w = test_weights.dataset(rng, i, BOOT_KINDS)
        mltest.load(con, ["y", "s", "w"], [(int(y[k]), float(s[k]), float(w[k])) for k in range(y.size)])
        for name in CASES:
            got, want = con.execute("SELECT %s, %s FROM t" % (call(name, ", 0.9, 10, %d" % i),
                                                                POINT[name])).fetchone()
            what = "%s_w estimate = %s, dataset %d (n %d)" % (name, POINT[name], i, y.size)
            if want is None or got is None:
                ck.true(want is None and got is None, what + ": NULL alike (%r, %r)" % (got, want))
            else:
                ck.equal(json.loads(got)["estimate"], want, what)


# --------------------------------------------------------- equal weights

def check_equal_weights(ck, con, rng):
    for i in range(24):
        n = int(rng.choice([8, 30, 150]))
        y = (rng.random(n) < 0.35).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n), int(rng.choice([1, 3])))
        c = [1.0, 0.5, 4.0, 2.0 ** -20, 0.3, 7.0][i % 6]
        mltest.load(con, ["y", "s", "w"], [(int(y[k]), float(s[k]), c) for k in range(n)])
        for name in CASES:
            if name == "auroc_ci":
                continue                        # auroc_ci is DeLong's: no unweighted bootstrap to match
            extra = CASES[name][0] + ", 0.9, 40, %d" % (i * 7)
            a = con.execute("SELECT %s_w(y, s, w%s) FROM t" % (name, extra)).fetchone()[0]
            b = con.execute("SELECT %s(y, s%s) FROM t" % (name, extra)).fetchone()[0]
            what = "%s_w weights all %r = %s, dataset %d (n %d)" % (name, c, name, i, n)
            exact = math.frexp(c)[0] == 0.5
            if exact and name in ("pr_auc_ci", "nap_ci"):
                ck.equal(a, b, what + ": the same text")
                continue
            ja, jb = json.loads(a), json.loads(b)
            ck.equal(sorted(ja), sorted(jb), what + ": keys")
            for key in ("reps", "seed", "n", "redrawn", "level", "method"):
                ck.equal(ja[key], jb[key], what + " " + key)
            if exact:
                ck.equal(ja["estimate"], jb["estimate"], what + " estimate")
            else:
                ck.close(ja["estimate"], jb["estimate"], what + " estimate")
            for key in ("lo", "hi", "se"):
                ck.close(ja[key], jb[key], what + " " + key)
            for k in (0, 1):
                ck.close(ja["percentile"][k], jb["percentile"][k], what + " percentile %d" % k)


# ------------------------------------------- weight 0, row order, windows

def check_zero_and_order(ck, con, rng):
    for i in range(10):
        n = int(rng.integers(20, 80))
        y = (rng.random(n) < 0.4).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n), 1)
        w = rng.choice([0.0, 0.25, 1.0, 2.0, 5.5], n)
        w[0] = w[1] = 1.0
        k = int(rng.integers(3, 7))                       # duplicates that differ only in w
        y[-k:], s[-k:] = y[2], s[2]
        rows = [(int(y[j]), float(s[j]), float(w[j])) for j in range(n)]
        texts = {}
        for o in range(3):
            perm = rng.permutation(n) if o else np.arange(n)
            mltest.load(con, ["y", "s", "w"], [rows[j] for j in perm])
            for name in CASES:
                texts.setdefault(name, []).append(
                    con.execute("SELECT %s FROM t" % call(name, ", 0.95, 25, 3")).fetchone()[0])
        mltest.load(con, ["y", "s", "w"], [r for r in rows if r[2] > 0], table="pos")
        for name in CASES:
            what = "%s_w dataset %d" % (name, i)
            ck.true(texts[name][0] is not None, what + ": a result")
            ck.equal(texts[name][1], texts[name][0], what + ": insertion order 2 = order 1")
            ck.equal(texts[name][2], texts[name][0], what + ": insertion order 3 = order 1")
            pos = con.execute("SELECT %s FROM pos" % call(name, ", 0.95, 25, 3")).fetchone()[0]
            ck.equal(texts[name][0], pos, what + ": rows of weight 0 dropped = the rows of positive weight alone")
            ck.equal(json.loads(pos)["n"], int((w > 0).sum()), what + ": n counts the rows of positive weight")
    mltest.load(con, ["y", "s", "w"], [(1, 0.9, 0.0), (0, 0.2, 0.0), (1, 0.4, None)])
    for name in CASES:
        ck.equal(con.execute("SELECT %s FROM t" % call(name)).fetchone()[0], None,
                 name + "_w all weights 0 or NULL: NULL")
    mltest.load(con, ["y", "s", "w"], [(1, 0.9, 1.0), (1, 0.2, 2.0), (0, 0.4, 0.0)])
    for name in CASES:
        v = con.execute("SELECT %s FROM t" % call(name)).fetchone()[0]
        if CASES[name][1]:
            ck.equal(v, None, name + "_w one class of positive weight: NULL")
        else:
            ck.true(v is not None and json.loads(v)["n"] == 2, name + "_w one class: defined, n 2 (%r)" % v)


def check_windows(ck, con, rng):
    n = 24
    y = (rng.random(n) < 0.5).astype(int)
    y[0], y[1] = 0, 1
    s = np.round(rng.random(n), 1)
    w = rng.choice([0.0, 0.5, 1.0, 3.0], n)
    rows = [(int(y[k]), float(s[k]), float(w[k]), k, k % 3) for k in range(n)]
    mltest.load(con, ["y", "s", "w", "ts", "g"], rows)
    exprs = [call(name, ", 0.9, 12, 5") for name in CASES]
    for shape, rid, idx, vals in mltest.each_frame(con, exprs):
        ids = ",".join(str(k + 1) for k in idx) or "NULL"
        for expr, v in zip(exprs, vals):
            agg = con.execute("SELECT %s FROM t WHERE id IN (%s)" % (expr, ids)).fetchone()[0]
            ck.equal(v, agg, "%s OVER (%s) row %d" % (expr, shape, rid))
    for expr in exprs:
        for g, v in con.execute("SELECT g, %s FROM t GROUP BY g" % expr):
            ck.equal(v, con.execute("SELECT %s FROM t WHERE g = ?" % expr, (g,)).fetchone()[0],
                     "%s GROUP BY group %d" % (expr, g))


# --------------------------------------------------- interval and coverage

def check_interval(ck, con, rng):
    for i in range(6):
        n = 400
        y = (rng.random(n) < 0.3).astype(int)
        s = 1 / (1 + np.exp(-rng.normal(1.5 * y - 1, 1)))
        w = rng.choice([0.5, 1.0, 4.0], n)
        mltest.load(con, ["y", "s", "w"], [(int(y[k]), float(s[k]), float(w[k])) for k in range(n)])
        for name in CASES:
            r = json.loads(con.execute("SELECT %s FROM t" % call(name, ", 0.95, 400, %d" % i)).fetchone()[0])
            what = "%s_w dataset %d: " % (name, i)
            ck.true(r["se"] > 0, what + "se > 0 (%r)" % r["se"])
            ck.true(r["lo"] <= r["estimate"] <= r["hi"], what + "lo <= estimate <= hi (%r)" % r)
            ck.true(r["percentile"][0] <= r["estimate"] <= r["percentile"][1], what + "percentile interval holds the estimate")
            width = (r["hi"] - r["lo"]) / (2 * 1.959964 * r["se"])
            ck.true(0.6 < width < 1.6, what + "BCa width / (2 z se) = %.3f, not near 1" % width)


PI, MU, KEEP0 = 0.1, 1.2, 0.25      # prevalence, separation, share of the controls labelled


def calibrated(s):
    """P(y = 1 | s) in the population: the scores are calibrated probabilities there."""
    lr = np.exp(MU * s - MU * MU / 2)
    return PI * lr / (PI * lr + 1 - PI)


def true_brier():
    def part(y):
        f = (lambda t: (calibrated(t) - 1) ** 2) if y else (lambda t: calibrated(t) ** 2)
        return integrate.quad(lambda t: f(t) * stats.norm.pdf(t - MU * y), -12, 12 + MU, epsabs=1e-13, limit=200)[0]
    return PI * part(1) + (1 - PI) * part(0)


def check_coverage(ck, con):
    rng = np.random.default_rng(11)          # its own stream: the samples do not move with the checks above
    sets, pop, reps = 300, 2400, 400
    rows = []
    for g in range(sets):
        y = (rng.random(pop) < PI).astype(int)
        s = rng.normal(MU * y, 1.0)
        keep = (y == 1) | (rng.random(pop) < KEEP0)       # every case, a quarter of the controls
        for yy, ss in zip(y[keep], s[keep]):
            rows.append((g, int(yy), float(ss), float(calibrated(ss)), 1.0 if yy else 1.0 / KEEP0))
    mltest.load(con, ["g", "y", "s", "p", "w"], rows)
    truth = {"pr_auc_ci_w(y, s, w, 0.95, %d)" % reps: test_uncertainty_coverage_ap(),
             "auroc_ci_w(y, s, w, 0.95, %d)" % reps: stats.norm.cdf(MU / math.sqrt(2)),
             "brier_ci_w(y, p, w, 0.95, %d)" % reps: true_brier()}
    for expr, t in truth.items():
        got = [json.loads(r[0]) for r in con.execute("SELECT %s FROM t GROUP BY g" % expr)]
        cov = sum(1 for r in got if r["lo"] <= t <= r["hi"]) / len(got)
        # the bootstrap's se against the spread of the estimates over the samples
        ratio = np.mean([r["se"] for r in got]) / np.std([r["estimate"] for r in got], ddof=1)
        print("%s: 95 %% interval covers the population's %.4f in %.1f %% of %d samples; mean se / sd of the "
              "estimates %.3f" % (expr, t, 100 * cov, len(got), ratio))
        ck.true(0.92 <= cov <= 0.98, "%s coverage %.3f outside 0.92..0.98" % (expr, cov))
        ck.true(0.85 <= ratio <= 1.15, "%s mean se / sd of the estimates %.3f outside 0.85..1.15" % (expr, ratio))
    # unweighted, the same samples estimate the labelled set's AP, not the population's
    t = truth["pr_auc_ci_w(y, s, w, 0.95, %d)" % reps]
    got = con.execute("SELECT pr_auc_ci(y, s, 0.95, %d) ->> '$.lo', pr_auc_ci(y, s, 0.95, %d) ->> '$.hi' "
                      "FROM t GROUP BY g" % (reps, reps)).fetchall()
    cov = sum(1 for a, b in got if a <= t <= b) / len(got)
    ck.true(cov < 0.2, "the unweighted pr_auc_ci covers the population's AP in %.3f of samples" % cov)


def test_uncertainty_coverage_ap():
    import test_uncertainty_coverage
    return test_uncertainty_coverage.true_ap(PI, MU)


# ------------------------------------------- the twins of three data arguments

# base: (data arguments, signature).  Columns: y, s (s_a, p_a), s2 (s_b, p_b), w, z (strat).
THREE = {
    "strat_gap_ci": (["y", "s", "w", "strat"], "y, s, w, strat [, ql, qh [, level, reps, seed]]"),
    "pr_auc_diff_ci": (["y", "s_a", "s_b", "w"], "y, s_a, s_b, w [, level, reps, seed]"),
    "ece_diff_ci": (["y", "p_a", "p_b", "w"], "y, p_a, p_b, w [, bins, level, reps, seed]"),
    # auroc_diff is DeLong's paired test; its weighted counterpart is the weighted paired bootstrap
    "auroc_diff": (["y", "s_a", "s_b", "w"], "y, s_a, s_b, w [, level, reps, seed]"),
}
QL, QH = 0.25, 0.75
# the weighted call, the unweighted call (boot: ", level, reps, seed" or "")
CALL3 = {
    "strat_gap_ci": ("strat_gap_ci_w(y, s, w, z, %r, %r{0})" % (QL, QH), "strat_gap_ci(y, s, z, %r, %r{0})" % (QL, QH)),
    "pr_auc_diff_ci": ("pr_auc_diff_ci_w(y, s, s2, w{0})", "pr_auc_diff_ci(y, s, s2{0})"),
    "ece_diff_ci": ("ece_diff_ci_w(y, s, s2, w, %d{0})" % BINS, "ece_diff_ci(y, s, s2, %d{0})" % BINS),
    "auroc_diff": ("auroc_diff_w(y, s, s2, w{0})", None),          # no unweighted bootstrap to equal
}
# the point twins in SQL: each JSON path of the estimates and its expression
POINT3 = {
    "strat_gap_ci": {"$.estimate": "strat_gap_w(y, s, w, z, %r, %r)" % (QL, QH),
                     "$.full_ci.estimate": "pr_auc_w(y, s, w)",
                     "$.trimmed_ci.estimate": "strat_pr_auc_w(y, s, w, z, %r, %r)" % (QL, QH)},
    "pr_auc_diff_ci": {"$.diff": "pr_auc_w(y, s, w) - pr_auc_w(y, s2, w)",
                       "$.a": "pr_auc_w(y, s, w)", "$.b": "pr_auc_w(y, s2, w)"},
    "ece_diff_ci": {"$.diff": "ece_w(y, s, w, %d) - ece_w(y, s2, w, %d)" % (BINS, BINS),
                    "$.a": "ece_w(y, s, w, %d)" % BINS, "$.b": "ece_w(y, s2, w, %d)" % BINS},
    "auroc_diff": {"$.diff": "auroc_w(y, s, w) - auroc_w(y, s2, w)",
                   "$.a": "auroc_w(y, s, w)", "$.b": "auroc_w(y, s2, w)"},
}
EST3 = {"strat_gap_ci": "estimate", "pr_auc_diff_ci": "diff", "ece_diff_ci": "diff", "auroc_diff": "diff"}
COLS3 = ["y", "s", "s2", "w", "z"]


def call3(name, boot=""):
    return CALL3[name][0].format(boot)


def second_columns(rng, y, s):
    """A second score in [0, 1] with ties, correlated with s, and a stratifier with ties."""
    n = y.size
    s2 = np.clip(np.round(0.6 * s + 0.4 * rng.random(n) + 0.1 * y, int(rng.choice([1, 2]))), 0.0, 1.0)
    z = [rng.integers(0, 6, n).astype(float), np.round(rng.normal(0, 2, n), 1)][int(rng.integers(0, 2))]
    return s2, z


def rows3(y, s, s2, w, z):
    return [(int(y[k]), float(s[k]), float(s2[k]), float(w[k]), float(z[k])) for k in range(y.size)]


def ref3(name, y, s, s2, z, w):
    """(estimate, then a, b or full, trimmed) of rows of weight w > 0, or None where undefined."""
    if name == "strat_gap_ci":
        import test_weights_strat
        r = test_weights_strat.reference(y, s, z, w, QL, QH)
        if r is None or r["full"] is None or r["trimmed"] is None:
            return None
        return (r["full"] - r["trimmed"], r["full"], r["trimmed"])
    if name in ("pr_auc_diff_ci", "auroc_diff"):
        if y.min() == y.max():
            return None
        f = skm.average_precision_score if name == "pr_auc_diff_ci" else skm.roc_auc_score
        a = f(y, s, sample_weight=w)
        b = f(y, s2, sample_weight=w)
    else:
        a = test_weights.ref_calibration("ece", y, s, w, BINS)
        b = test_weights.ref_calibration("ece", y, s2, w, BINS)
    return (a - b, a, b)


@mltest.covers("strat_gap_ci_w", "pr_auc_diff_ci_w", "ece_diff_ci_w", "auroc_diff_w")
def check_three_reproduction(ck, con, rng):
    """Every replicate rebuilt in numpy: canonical order (s, label, s2 or strat, w)."""
    for trial in range(9):
        n = int(rng.integers(20, 50))
        y = (rng.random(n) < rng.uniform(0.3, 0.6)).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n) * 0.7 + 0.3 * y, 1)
        s2, z = second_columns(rng, y, s)
        w = rng.choice([0.0, 0.5, 1.0, 1.5, 3.25, 0.1], n) * 8.0      # windows that pass the 10-weight floor
        w[0], w[1] = 8.0, 16.0
        k = int(rng.integers(2, 5))                                   # rows that differ only in w
        y[-k:], s[-k:], s2[-k:], z[-k:] = y[0], s[0], s2[0], z[0]
        reps, seed, level = int(rng.choice([10, 20])), [0, 12345, 2**63 - 1][trial % 3], 0.9
        mltest.load(con, COLS3, [rows3(y, s, s2, w, z)[i] for i in rng.permutation(n)])
        keep = w > 0
        for name in THREE:
            aux = z if name == "strat_gap_ci" else s2
            c = np.lexsort((w[keep], aux[keep], y[keep], s[keep]))
            yc, sc, s2c, zc, wc = (v[keep][c] for v in (y, s, s2, z, w))
            what = "reproduction %d %s_w (n %d, reps %d, seed %d)" % (trial, name, c.size, reps, seed)

            def stat(kk):
                d = kk > 0
                return ref3(name, yc[d], sc[d], s2c[d], zc[d], kk[d] * wc[d])
            want, red = test_uncertainty.boot_reference(stat, c.size, reps, seed, level, None)
            got = json.loads(con.execute("SELECT %s FROM t" % call3(name, ", ?, ?, ?"),
                                         (level, reps, seed)).fetchone()[0])
            parts = [(got, want[0])]
            if name == "strat_gap_ci":
                parts += [(got["full_ci"], want[1]), (got["trimmed_ci"], want[2])]
            else:
                ck.close(got["a"], want[1]["estimate"], what + " a")
                ck.close(got["b"], want[2]["estimate"], what + " b")
                ck.close(got["p_value"], want[0]["p_value"], what + " p_value")
            for g, wv in parts:
                ck.close(g[EST3[name]] if g is got else g["estimate"], wv["estimate"], what + " estimate")
                for key in ("se", "lo", "hi"):
                    ck.close(g[key], wv[key], what + " " + key)
                ck.close(g["percentile"][0], wv["plo"], what + " percentile lo")
                ck.close(g["percentile"][1], wv["phi"], what + " percentile hi")
            ck.equal((got["redrawn"], got["n"], got["reps"], got["seed"]), (red, c.size, reps, seed),
                     what + " redrawn, n, echo")


def check_three_estimates(ck, con, rng):
    """The estimates are the point twins' values bit for bit, NULL alike."""
    defined = {name: 0 for name in THREE}
    for i in range(120):
        y, s, w = test_weights.dataset(rng, i, BOOT_KINDS)
        if i % 3 == 1:
            w = w * 40.0                                  # windows that pass the 10-weight floor
        s2, z = second_columns(rng, y, s)
        mltest.load(con, COLS3, rows3(y, s, s2, w, z))
        for name in THREE:
            paths = POINT3[name]
            sql = "SELECT %s, %s FROM t" % (call3(name, ", 0.9, 10, %d" % i), ", ".join(paths.values()))
            got, *want = con.execute(sql).fetchone()
            what = "%s_w estimate, dataset %d (n %d)" % (name, i, y.size)
            if got is None or want[0] is None:
                ck.true(got is None and want[0] is None, what + ": NULL alike (%r, %r)" % (got, want[0]))
                continue
            defined[name] += 1
            for path, v in zip(paths, want):
                ck.equal(con.execute("SELECT ? ->> ?", (got, path)).fetchone()[0], v, what + " " + path)
    for name, k in defined.items():
        ck.true(k >= 30, "%s_w: %d of 120 datasets defined (>= 30 wanted)" % (name, k))


def check_three_equal_weights(ck, con, rng):
    """Weights all 1 (and, for the paired twins, powers of two): the unweighted bootstrap."""
    for i in range(18):
        n = int(rng.choice([120, 200]))
        y = (rng.random(n) < 0.4).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n), int(rng.choice([1, 3])))
        s2, z = second_columns(rng, y, s)
        c = [1.0, 0.5, 4.0][i % 3]
        mltest.load(con, COLS3, rows3(y, s, s2, np.full(n, c), z))
        for name in THREE:
            if name == "strat_gap_ci" and c != 1.0:
                continue      # the window's quantile is on the weight axis: scaling moves it (docs/weights.md)
            if CALL3[name][1] is None:
                continue      # auroc_diff_w: no unweighted bootstrap (its estimates are auroc_w's, above)
            boot = ", 0.9, 30, %d" % (i * 7)
            a, b = con.execute("SELECT %s, %s FROM t" % (call3(name, boot), CALL3[name][1].format(boot))).fetchone()
            what = "%s_w weights all %r = %s, dataset %d (n %d)" % (name, c, name, i, n)
            if name != "ece_diff_ci":
                ck.true(a is not None, what + ": defined")
                ck.equal(a, b, what + ": the same text")
                continue
            ja, jb = json.loads(a), json.loads(b)
            ck.equal(sorted(ja), sorted(jb), what + ": keys")
            for key in ("reps", "seed", "n", "redrawn", "level", "method", "a", "b", "diff"):
                ck.equal(ja[key], jb[key], what + " " + key)
            for key in ("lo", "hi", "se"):
                ck.close(ja[key], jb[key], what + " " + key)
            # the p-value counts the replicates' signs: one whose two ECEs tie is 0 with exact sums and
            # may be an ulp off 0 with compensated ones (2/reps apiece); allow two such replicates
            ck.true(abs(ja["p_value"] - jb["p_value"]) <= 4 / 30 + 1e-12,
                    what + " p_value %r, unweighted %r" % (ja["p_value"], jb["p_value"]))


def check_three_zero_order_windows(ck, con, rng):
    for i in range(6):
        n = int(rng.integers(30, 80))
        y = (rng.random(n) < 0.45).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n), 1)
        s2, z = second_columns(rng, y, s)
        w = rng.choice([0.0, 2.5, 10.0, 20.0, 55.0], n)
        w[0] = w[1] = 10.0
        k = int(rng.integers(3, 7))                       # duplicates that differ only in w
        y[-k:], s[-k:], s2[-k:], z[-k:] = y[2], s[2], s2[2], z[2]
        rows = rows3(y, s, s2, w, z)
        texts = {name: [] for name in THREE}
        for o in range(3):
            perm = rng.permutation(n) if o else np.arange(n)
            mltest.load(con, COLS3, [rows[j] for j in perm])
            for name in THREE:
                texts[name].append(con.execute("SELECT %s FROM t" % call3(name, ", 0.95, 20, 3")).fetchone()[0])
        mltest.load(con, COLS3, [r for r in rows if r[3] > 0], table="pos")
        for name in THREE:
            what = "%s_w dataset %d" % (name, i)
            ck.true(texts[name][0] is not None, what + ": a result")
            ck.equal(texts[name][1], texts[name][0], what + ": insertion order 2 = order 1")
            ck.equal(texts[name][2], texts[name][0], what + ": insertion order 3 = order 1")
            pos = con.execute("SELECT %s FROM pos" % call3(name, ", 0.95, 20, 3")).fetchone()[0]
            ck.equal(texts[name][0], pos, what + ": rows of weight 0 dropped = the rows of positive weight alone")
            ck.equal(json.loads(pos)["n"], int((w > 0).sum()), what + ": n counts the rows of positive weight")
    mltest.load(con, COLS3, [(1, 0.9, 0.5, 0.0, 1.0), (0, 0.2, 0.1, 0.0, 2.0), (1, 0.4, 0.3, None, 3.0)])
    for name in THREE:
        ck.equal(con.execute("SELECT %s FROM t" % call3(name)).fetchone()[0], None, name + "_w all weights 0 or NULL: NULL")
    mltest.load(con, COLS3, [(1, 0.9, 0.5, 30.0, 1.0), (1, 0.2, 0.1, 20.0, 2.0), (0, 0.4, 0.3, 0.0, 3.0)])
    for name in THREE:
        v = con.execute("SELECT %s FROM t" % call3(name)).fetchone()[0]
        if name == "ece_diff_ci":
            ck.true(v is not None and json.loads(v)["n"] == 2, name + "_w one class: defined, n 2 (%r)" % v)
        else:
            ck.equal(v, None, name + "_w one class of positive weight: NULL")
    # windows and GROUP BY: heavy weights, so that strat_gap's window holds 10 of each class in most frames
    n = 30
    y = (rng.random(n) < 0.5).astype(int)
    s = np.round(rng.random(n), 1)
    s2, z = second_columns(rng, y, s)
    w = rng.choice([0.0, 5.0, 10.0, 30.0], n)
    mltest.load(con, COLS3 + ["ts", "g"], [r + (k, k % 3) for k, r in enumerate(rows3(y, s, s2, w, z))])
    for name in THREE:
        expr = call3(name, ", 0.9, 10, 5")
        mltest.same_as_aggregate(ck, con, expr, "ts", "")
        nonnull = con.execute("SELECT count(v) FROM (SELECT %s OVER (ORDER BY ts) AS v FROM t)" % expr).fetchone()[0]
        ck.true(nonnull >= 5, "%s OVER (ORDER BY ts): %d frames defined (>= 5 wanted)" % (expr, nonnull))


def check_three_interval(ck, con, rng):
    for i in range(4):
        n = 400
        y = (rng.random(n) < 0.3).astype(int)
        s = 1 / (1 + np.exp(-rng.normal(1.5 * y - 1, 1)))
        s2 = 1 / (1 + np.exp(-rng.normal(0.8 * y - 0.8, 1)))
        z = np.round(rng.normal(0, 1, n), 2)
        w = rng.choice([0.5, 1.0, 4.0], n)
        mltest.load(con, COLS3, rows3(y, s, s2, w, z))
        for name in THREE:
            r = json.loads(con.execute("SELECT %s FROM t" % call3(name, ", 0.95, 300, %d" % i)).fetchone()[0])
            est = r[EST3[name]]
            what = "%s_w dataset %d: " % (name, i)
            ck.true(r["se"] > 0, what + "se > 0 (%r)" % r["se"])
            ck.true(r["lo"] <= est <= r["hi"], what + "lo <= estimate <= hi (%r)" % r)
            ck.true(r["percentile"][0] <= est <= r["percentile"][1], what + "percentile interval holds the estimate")
            width = (r["hi"] - r["lo"]) / (2 * 1.959964 * r["se"]) if r["se"] > 0 else math.nan
            ck.true(0.6 < width < 1.6, what + "BCa width / (2 z se) = %.3f, not near 1" % width)


def check_three_bad(ck, con):
    mltest.load(con, COLS3, [(1, 0.9, 0.5, 1.0, 1.0), (0, 0.2, 0.3, 1.0, 2.0)])
    for bad, shown in [("-1", "-1"), ("1e999", "Inf"), ("'x'", "text 'x'")]:
        for name in THREE:
            sql = "SELECT %s FROM t" % call3(name).replace(", w", ", CASE WHEN y = 1 THEN %s ELSE w END" % bad, 1)
            ck.error(con, sql, (), "%s_w(): w must be a non-negative finite number, got %s" % (name, shown),
                     name + "_w bad weight " + bad)
    ck.error(con, "SELECT strat_gap_ci_w(y, s, w, z, 0.25) FROM t", (),
             "strat_gap_ci_w(): expects (y, s, w, strat [, ql, qh [, level, reps, seed]]), got 5 arguments",
             "strat_gap_ci_w ql without qh")
    ck.error(con, "SELECT pr_auc_diff_ci_w(y, s, s2, w, 0.95, 9) FROM t", (),
             "pr_auc_diff_ci_w(): reps must be an integer in 10..1000000, got 9", "pr_auc_diff_ci_w reps")
    ck.error(con, "SELECT ece_diff_ci_w(y, s, 1.5, w) FROM t", (),
             "ece_diff_ci_w(): p_b must be a probability in [0, 1], got 1.5", "ece_diff_ci_w p_b")


@mltest.covers("pr_auc_ci", "nap_ci", "brier_ci", "log_loss_ci", "ece_ci", "strat_gap_ci", "pr_auc_diff_ci",
               "ece_diff_ci")
def check_unweighted_reproduction(ck, con):
    """The unweighted bootstraps rebuilt in numpy as their twins are above:
    canonical order (score, label [, s_b or strat]), a row drawn k times
    counted k times, each replicate the same reference (metric(), ref3())
    with the counts as weights -- for strat_gap_ci integer weights are the
    rows repeated (test_weights_strat.py)."""
    rng = np.random.default_rng(20261130)      # its own stream: the checks above keep theirs
    defined = {}
    for trial in range(6):
        n = int(rng.integers(60, 100))
        y = (rng.random(n) < rng.uniform(0.3, 0.6)).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n) * 0.7 + 0.3 * y, 1)
        s2, z = second_columns(rng, y, s)
        k = int(rng.integers(2, 5))                               # rows that differ only in s2 and z
        y[-k:], s[-k:] = y[0], s[0]
        reps, seed, level = int(rng.choice([10, 20])), [0, 12345, 2**63 - 1][trial % 3], float(rng.choice([0.9, 0.95]))
        mltest.load(con, COLS3, [rows3(y, s, s2, np.ones(n), z)[i] for i in rng.permutation(n)])
        boot = ", %r, %d, %d" % (level, reps, seed)
        for name in [c for c in CASES if c != "auroc_ci"] + [c for c in THREE if CALL3[c][1] is not None]:
            three = name in THREE
            aux = z if name == "strat_gap_ci" else s2
            c = np.lexsort((aux, y, s)) if three else np.lexsort((y, s))
            yc, sc, s2c, zc = y[c], s[c], s2[c], z[c]

            def stat(kk):
                d = kk > 0
                if three:
                    return ref3(name, yc[d], sc[d], s2c[d], zc[d], kk[d].astype(float))
                v = metric(name, yc[d], sc[d], kk[d].astype(float))
                return None if v is None else (v,)
            expr = CALL3[name][1].format(boot) if three else "%s(y, s%s%s)" % (name, CASES[name][0], boot)
            got = con.execute("SELECT %s FROM t" % expr).fetchone()[0]
            what = "unweighted reproduction %d %s (n %d, reps %d, seed %d)" % (trial, name, n, reps, seed)
            if stat(np.ones(n, int)) is None:
                ck.equal(got, None, what + ": undefined, NULL")
                continue
            defined[name] = defined.get(name, 0) + 1
            want, red = test_uncertainty.boot_reference(stat, n, reps, seed, level, None)
            got = json.loads(got)
            if name == "ece_diff_ci":
                # a replicate whose ECEs differ from the estimate's by an ulp of the
                # sums ties with it (BCa's z0) or not as the rounding of each side
                # falls: lo and hi are then the reference's under one tie rule or the other
                exact = test_uncertainty.boot_reference(stat, n, reps, seed, level, None, tie=0)[0][0]
                def near(a, b):
                    return abs(a - b) <= 1e-12 * abs(b) + 1e-15
                if not near(got["lo"], want[0]["lo"]) and near(got["lo"], exact["lo"]):
                    want[0]["lo"], want[0]["hi"] = exact["lo"], exact["hi"]
            parts = [(got, want[0], EST3[name] if three else "estimate")]
            if name == "strat_gap_ci":
                parts += [(got["full_ci"], want[1], "estimate"), (got["trimmed_ci"], want[2], "estimate")]
            elif three:
                ck.close(got["a"], want[1]["estimate"], what + " a")
                ck.close(got["b"], want[2]["estimate"], what + " b")
                ck.close(got["p_value"], want[0]["p_value"], what + " p_value")
            for g, wv, est in parts:
                ck.close(g[est], wv["estimate"], what + " estimate")
                for key in ("se", "lo", "hi"):
                    ck.close(g[key], wv[key], what + " " + key)
                ck.close(g["percentile"][0], wv["plo"], what + " percentile lo")
                ck.close(g["percentile"][1], wv["phi"], what + " percentile hi")
            ck.equal((got["redrawn"], got["n"], got["reps"], got["seed"]), (red, n, reps, seed), what + " redrawn, n, echo")
    for name, m in sorted(defined.items()):
        ck.true(m >= 4, "%s: %d of 6 datasets defined (4 wanted)" % (name, m))
    ck.equal(len(defined), 8, "every unweighted bootstrap reproduced (%s)" % sorted(defined))


def check_three(ck, con, rng):
    check_three_reproduction(ck, con, rng)
    check_three_estimates(ck, con, rng)
    check_three_equal_weights(ck, con, rng)
    check_three_zero_order_windows(ck, con, rng)
    check_three_interval(ck, con, rng)
    check_three_bad(ck, con)



def check_bad_weights(ck, con):
    mltest.load(con, ["y", "s", "w"], [(1, 0.9, 1.0), (0, 0.2, 1.0)])
    for bad, shown in [("-1", "-1"), ("1e999", "Inf"), ("'x'", "text 'x'")]:
        for name in CASES:
            ck.error(con, "SELECT %s_w(y, s, CASE WHEN y = 1 THEN %s ELSE w END%s) FROM t" % (name, bad, CASES[name][0]),
                     (), "%s_w(): w must be a non-negative finite number, got %s" % (name, shown),
                     name + "_w bad weight " + bad)
    ck.error(con, "SELECT auroc_ci_w(y, s, w, 0.95, 9) FROM t", (),
             "auroc_ci_w(): reps must be an integer in 10..1000000, got 9", "auroc_ci_w reps")


def main():
    ck = mltest.Checker("weights_boot")
    con = mltest.connect()
    rng = np.random.default_rng(20261128)
    check_registry(ck, con)
    check_reproduction(ck, con, rng)
    check_estimates(ck, con, rng)
    check_equal_weights(ck, con, rng)
    check_zero_and_order(ck, con, rng)
    check_windows(ck, con, rng)
    check_interval(ck, con, rng)
    check_coverage(ck, con)
    check_bad_weights(ck, con)
    check_three(ck, con, np.random.default_rng(20261129))    # its own stream: the checks above keep theirs
    check_unweighted_reproduction(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
