"""Bootstrap intervals of the clinical operating points (SPEC round 4,
"Bootstrap intervals"): tpr_at_fpr_ci, sens_at_spec_ci, net_benefit_ci, the
paired net_benefit_diff_ci, and the weighted twins tpr_at_fpr_ci_w,
sens_at_spec_ci_w, net_benefit_ci_w and net_benefit_diff_ci_w.

- estimate: "estimate" (and net_benefit_diff_ci's "a", "b", "diff") is the
  plain function's value bit for bit (tpr_at_fpr, sens_at_spec,
  net_benefit, net_benefit(p_a) - net_benefit(p_b); the twins' is
  tpr_at_fpr_w's, net_benefit_w's, and with integer weights the plain
  function's on the rows repeated), over ties, tiny groups, one class (net benefit);
- reproducibility: the same seed gives the same text, shuffled row order
  gives the same text, another seed another interval;
- shape: lo <= estimate <= hi, the keys of pr_auc_ci (pr_auc_diff_ci for
  the paired one), widths shrink as n grows (n = 200 against 3200);
- coverage: y ~ Bernoulli(0.4), s | y ~ N(1.2 y, 1), p the true posterior
  P(y = 1 | s); over 1000 datasets of 300 rows (reps 1000) each 95 %
  interval covers the population value 93-97 % of the time (with reps 200
  and 400 datasets net_benefit_ci sat near 94 % +- 1.2, too close to the
  band: Monte Carlo error of both, not of the method): TPR at FPR 0.2 is
  1 - Phi(z_0.8 - 1.2) (sens_at_spec at 0.8 the same), net benefit at pt
  0.3 is pi S1(t) - (1 - pi) S0(t) pt / (1 - pt) with t the score where the
  posterior is pt, and the paired difference against a weaker model (mu
  0.6) the difference of two such values;
- errors: targets, level, reps, seed out of range or varying by row
  (exact texts; the record-derived matrix in test_bad_inputs.py has more);
  one class gives NULL for the TPR intervals, a value for net benefit;
- windows equal the aggregate over the frame;
- reproduction: every replicate of the eight functions rebuilt in numpy
  (test_uncertainty.py's generator and BCa, test_weights.py's references),
  estimate, se, lo, hi, percentile, p_value to 1e-12 (test_reproduction).
"""
import json
import math
from fractions import Fraction

import numpy as np
from scipy import stats

import mltest

KEYS = ["estimate", "lo", "hi", "se", "level", "reps", "seed", "method", "redrawn", "n", "percentile"]
DIFF_KEYS = ["a", "b", "diff", "lo", "hi", "se", "p_value", "level", "reps", "seed", "method", "redrawn", "n",
             "percentile"]
PI, MU, MU_B, N_SETS, N_ROWS = 0.4, 1.2, 0.6, 1000, 300
FPR, SPEC, PT = 0.2, 0.8, 0.3


def posterior(s, mu, pi=PI):
    """P(y = 1 | s) when s | y ~ N(mu y, 1)."""
    return 1.0 / (1.0 + np.exp(-(math.log(pi / (1 - pi)) + mu * s - mu * mu / 2)))


def true_nb(mu, pt, pi=PI):
    t = (math.log(pt / (1 - pt)) - math.log(pi / (1 - pi)) + mu * mu / 2) / mu
    return pi * stats.norm.sf(t - mu) - (1 - pi) * stats.norm.sf(t) * pt / (1 - pt)


def dataset(rng, n, ties=False):
    y = (rng.random(n) < PI).astype(int)
    s = rng.normal(MU * y, 1.0)
    sb = rng.normal(MU_B * y, 1.0)
    if ties:
        s = np.round(s, 1)
        sb = np.round(sb, 1)
    return y, s, posterior(s, MU), posterior(sb, MU_B)


def calls(seed=0, reps=200):
    """(name, interval expression, its plain counterparts) of each function."""
    b = ", 0.95, %d, %d" % (reps, seed)
    return [("tpr_at_fpr_ci", "tpr_at_fpr_ci(y, s, 0.2%s)" % b, ["tpr_at_fpr(y, s, 0.2)"]),
            ("sens_at_spec_ci", "sens_at_spec_ci(y, s, 0.8%s)" % b, ["sens_at_spec(y, s, 0.8)"]),
            ("net_benefit_ci", "net_benefit_ci(y, p, 0.3%s)" % b, ["net_benefit(y, p, 0.3)"]),
            ("net_benefit_diff_ci", "net_benefit_diff_ci(y, p, q, 0.3%s)" % b,
             ["net_benefit(y, p, 0.3)", "net_benefit(y, q, 0.3)"]),
            ("tpr_at_fpr_ci_w", "tpr_at_fpr_ci_w(y, s, w, 0.2%s)" % b, ["tpr_at_fpr_w(y, s, w, 0.2)"]),
            ("sens_at_spec_ci_w", "sens_at_spec_ci_w(y, s, w, 0.8%s)" % b, ["sens_at_spec_w(y, s, w, 0.8)"]),
            ("net_benefit_ci_w", "net_benefit_ci_w(y, p, w, 0.3%s)" % b, ["net_benefit_w(y, p, w, 0.3)"]),
            ("net_benefit_diff_ci_w", "net_benefit_diff_ci_w(y, p, q, w, 0.3%s)" % b,
             ["net_benefit_w(y, p, w, 0.3)", "net_benefit_w(y, q, w, 0.3)"])]


def load(con, y, s, p, q, w=None, order=None, table="t"):
    n = len(y)
    w = np.ones(n) if w is None else w
    idx = range(n) if order is None else order
    mltest.load(con, ["g", "ts", "y", "s", "p", "q", "w"],
                [(0, int(i), int(y[i]), float(s[i]), float(p[i]), float(q[i]), float(w[i])) for i in idx],
                table=table)


def check_estimates(ck, con, what):
    """Each interval's estimate against its plain function, bit for bit."""
    for name, expr, plain in calls():
        row = con.execute("SELECT %s, %s FROM t" % (expr, ", ".join(plain))).fetchone()
        if row[0] is None:
            ck.true(False, "%s %s: NULL" % (name, what))
            continue
        g = json.loads(row[0])
        if name.startswith("net_benefit_diff_ci"):
            ck.equal(list(g), DIFF_KEYS, name + " keys")
            ck.equal(g["a"], row[1], "%s %s: a is net_benefit(p_a)" % (name, what))
            ck.equal(g["b"], row[2], "%s %s: b is net_benefit(p_b)" % (name, what))
            ck.equal(g["diff"], row[1] - row[2], "%s %s: diff is a - b" % (name, what))
            est = g["diff"]
            ck.true(0.0 <= g["p_value"] <= 1.0, "%s %s: p_value in [0, 1]" % (name, what))
        else:
            ck.equal(list(g), KEYS, name + " keys")
            ck.equal(g["estimate"], row[1], "%s %s: estimate is %s" % (name, what, plain[0]))
            est = g["estimate"]
        ck.true(g["lo"] <= est <= g["hi"], "%s %s: lo %r <= estimate %r <= hi %r"
                % (name, what, g["lo"], est, g["hi"]))
        ck.true(g["percentile"][0] <= g["percentile"][1], "%s %s: percentile ordered" % (name, what))


def test_estimates(ck, con, rng):
    for n, ties in ((400, False), (400, True), (37, True), (1000, False)):
        y, s, p, q = dataset(rng, n, ties)
        load(con, y, s, p, q)
        check_estimates(ck, con, "n %d ties %s" % (n, ties))
    # probabilities on a 0.1 grid: rows exactly at pt (p >= pt counts them)
    y, s, p, q = dataset(rng, 300, True)
    load(con, y, s, np.round(p, 1), np.round(q, 1))
    ck.true(con.execute("SELECT count(*) FROM t WHERE p = 0.3").fetchone()[0] > 0, "rows at p = pt")
    check_estimates(ck, con, "p on a 0.1 grid")
    # weighted twins: estimate is the point twin's, and integer weights
    # are the rows repeated (the plain function on the repeated rows)
    y, s, p, q = dataset(rng, 300, True)
    for kind in ("exponential", "steps", "log-uniform", "ipw"):
        w = mltest.random_weights(rng, 300, y, kind)
        load(con, y, s, p, q, w)
        for name, expr, plain in calls()[4:]:
            key = "$.diff" if name == "net_benefit_diff_ci_w" else "$.estimate"
            got, want = con.execute("SELECT %s ->> '%s', %s FROM t" % (expr, key, " - ".join(plain))).fetchone()
            ck.equal(got, want, "%s weights %s: estimate is %s" % (name, kind, " - ".join(plain)))
    w = rng.integers(0, 4, 300)
    load(con, y, s, p, q, w.astype(float))
    rep = np.repeat(np.arange(300), w)
    load(con, y[rep], s[rep], p[rep], q[rep], table="r")
    for name, expr, plain in calls()[4:]:
        key = "$.diff" if name == "net_benefit_diff_ci_w" else "$.estimate"
        got = con.execute("SELECT %s ->> '%s' FROM t" % (expr, key)).fetchone()[0]
        base = " - ".join(plain).replace("_w(y, s, w,", "(y, s,").replace("_w(y, p, w,", "(y, p,") \
                                .replace("_w(y, q, w,", "(y, q,")
        want = con.execute("SELECT %s FROM r" % base).fetchone()[0]
        ck.equal(got, want, "%s integer weights: estimate is %s on the rows repeated" % (name, base))
    # one class: net benefit is defined (its estimate still net_benefit's)
    load(con, np.ones(20, int), s[:20], p[:20], q[:20])
    for name, expr, plain in calls():
        got = con.execute("SELECT %s FROM t" % expr).fetchone()[0]
        if name.startswith("net_benefit"):
            key = "$.diff" if name.startswith("net_benefit_diff_ci") else "$.estimate"
            want = con.execute("SELECT %s FROM t" % " - ".join(plain)).fetchone()[0]
            ck.equal(None if got is None else json.loads(got)[key[2:]], want, name + " one class: defined")
        else:
            ck.equal(got, None, name + " one class: NULL")


def nb_exact(y, p, w, pt=0.3):
    """Net benefit TP/n - FP/n pt/(1 - pt) at p >= pt (SPEC) in doubles, as
    ranking.c's expression, from exact sums of the weights (binary fractions
    here): a replicate then ties with the estimate, and two scores' values
    with each other, exactly where the extension's do (BCa's z0, p_value)."""
    pos = p >= pt
    tp = float(sum(map(Fraction, w[pos & (y == 1)]), Fraction(0)))
    fp = float(sum(map(Fraction, w[pos & (y == 0)]), Fraction(0)))
    n = float(sum(map(Fraction, w), Fraction(0)))
    return tp / n - fp / n * (pt / (1.0 - pt))


@mltest.covers("tpr_at_fpr_ci", "sens_at_spec_ci", "net_benefit_ci", "net_benefit_diff_ci", "tpr_at_fpr_ci_w",
               "sens_at_spec_ci_w", "net_benefit_ci_w", "net_benefit_diff_ci_w")
def test_reproduction(ck, con):
    """Every replicate rebuilt in numpy: test_uncertainty.py's generator,
    canonical order (score, label [, p_b] [, w]), jackknife and BCa, each
    replicate the point function's reference on the drawn rows
    (test_weights.py's: the weighted ROC sweep, scikit-learn's weighted
    confusion matrix), a row drawn k times weighing k (k w for a twin);
    estimate, se, lo, hi, percentile, p_value and redrawn to 1e-12."""
    import test_uncertainty
    import test_weights
    rng = np.random.default_rng(3636)          # its own stream: the checks above keep theirs
    for trial in range(8):
        n = int(rng.integers(14, 36))
        y = (rng.random(n) < rng.uniform(0.3, 0.6)).astype(int)
        y[0], y[1] = 0, 1
        s = np.round(rng.random(n) + 0.4 * y, 1)                    # ties
        p = np.round(np.clip(rng.random(n) * 0.7 + 0.3 * y, 0, 1), 1)  # rows at pt = 0.3
        q = np.round(np.clip(rng.random(n) * 0.8 + 0.1 * y, 0, 1), 1)
        w = rng.choice([0.0, 0.5, 1.0, 1.5, 3.25], n)
        w[0], w[1] = 1.0, 2.0
        k = int(rng.integers(2, 4))                                  # rows that differ only in w
        y[-k:], s[-k:], p[-k:], q[-k:] = y[0], s[0], p[0], q[0]
        reps, seed, level = int(rng.choice([10, 20])), [0, 12345, 2**63 - 1][trial % 3], float(rng.choice([0.9, 0.95]))
        load(con, y, s, p, q, w, order=rng.permutation(n))
        for name, expr, _ in calls(seed, reps):
            expr = expr.replace("0.95, %d, %d" % (reps, seed), "%r, %d, %d" % (level, reps, seed))
            weighted = name.endswith("_w")
            keep = w > 0 if weighted else np.ones(n, bool)
            score = s if name.startswith(("tpr", "sens")) else p
            paired = name.startswith("net_benefit_diff")
            keys = [score[keep], y[keep]] + ([q[keep]] if paired else []) + ([w[keep]] if weighted else [])
            c = np.lexsort(keys[::-1])
            yc, sc, qc = y[keep][c], score[keep][c], q[keep][c]
            wc = w[keep][c] if weighted else np.ones(c.size)

            def stat(kk):
                d = kk > 0
                yy, ss, ww = yc[d], sc[d], kk[d] * wc[d]
                if name.startswith(("tpr", "sens")):
                    if yy.min() == yy.max():
                        return None
                    return (test_weights.ref_rank(name.split("_ci")[0], yy, ss, ww, 0.2 if name[0] == "t" else 0.8),)
                # exact sums (the weights are binary fractions): a replicate ties
                # with the estimate exactly where the extension's does (BCa's z0)
                a = nb_exact(yy, ss, ww)
                if not paired:
                    return (a,)
                b = nb_exact(yy, qc[d], ww)
                return (a - b, a, b)
            # net benefit's replicates are the extension's doubles: ties with the estimate exact
            want, red = test_uncertainty.boot_reference(stat, c.size, reps, seed, level, None,
                                                        tie=0 if name.startswith("net") else 1e-13)
            got = json.loads(con.execute("SELECT %s FROM t" % expr).fetchone()[0])
            what = "reproduction %d %s (n %d, reps %d, seed %d)" % (trial, name, c.size, reps, seed)
            w0 = want[0]
            if paired:
                ck.close(got["diff"], w0["estimate"], what + " diff", abs_=1e-15)
                ck.close(got["a"], want[1]["estimate"], what + " a")
                ck.close(got["b"], want[2]["estimate"], what + " b")
                ck.close(got["p_value"], w0["p_value"], what + " p_value")
            else:
                ck.close(got["estimate"], w0["estimate"], what + " estimate")
            for key in ("se", "lo", "hi"):
                ck.close(got[key], w0[key], what + " " + key, abs_=1e-15)
            ck.close(got["percentile"][0], w0["plo"], what + " percentile lo", abs_=1e-15)
            ck.close(got["percentile"][1], w0["phi"], what + " percentile hi", abs_=1e-15)
            ck.equal((got["redrawn"], got["n"], got["reps"], got["seed"], got["level"]),
                     (red, c.size, reps, seed, level), what + " redrawn, n, echo")


def test_reproducible(ck, con, rng):
    y, s, p, q = dataset(rng, 250, True)
    w = mltest.random_weights(rng, 250, y, "exponential")
    load(con, y, s, p, q, w)
    first = {name: con.execute("SELECT %s FROM t" % expr).fetchone()[0] for name, expr, _ in calls(seed=11)}
    other = {name: con.execute("SELECT %s FROM t" % expr).fetchone()[0] for name, expr, _ in calls(seed=12)}
    for k in range(3):
        load(con, y, s, p, q, w, order=rng.permutation(250))
        for name, expr, _ in calls(seed=11):
            ck.equal(con.execute("SELECT %s FROM t" % expr).fetchone()[0], first[name],
                     "%s: shuffled rows (%d) give the same text" % (name, k))
    for name, expr, _ in calls(seed=11):
        ck.equal(con.execute("SELECT %s FROM t" % expr).fetchone()[0], first[name],
                 name + ": the same seed again gives the same text")
        a, b = json.loads(first[name]), json.loads(other[name])
        ck.true((a["lo"], a["hi"]) != (b["lo"], b["hi"]), name + ": another seed, another interval")


def test_widths(ck, con, rng):
    width = {}
    for n in (200, 3200):
        y, s, p, q = dataset(rng, n)
        load(con, y, s, p, q, mltest.random_weights(rng, n, y, "exponential"))
        for name, expr, _ in calls(reps=200):
            g = json.loads(con.execute("SELECT %s FROM t" % expr).fetchone()[0])
            width[name, n] = g["hi"] - g["lo"]
    for name, _, _ in calls():
        # 16 times the rows: about a quarter of the width; half is a safe margin
        ck.true(width[name, 3200] < 0.5 * width[name, 200], "%s: width %g at n 3200 not under half of %g at n 200"
                % (name, width[name, 3200], width[name, 200]))


def test_coverage(ck, con):
    rng = np.random.default_rng(20261128)
    n = N_SETS * N_ROWS
    g = np.repeat(np.arange(N_SETS), N_ROWS)
    y = (rng.random(n) < PI).astype(int)
    s = rng.normal(MU * y, 1.0)
    sb = rng.normal(MU_B * y, 1.0)
    p, q = posterior(s, MU), posterior(sb, MU_B)
    mltest.load(con, ["g", "y", "s", "p", "q"],
                [(int(g[i]), int(y[i]), float(s[i]), float(p[i]), float(q[i])) for i in range(n)], table="c")
    tpr_true = stats.norm.sf(stats.norm.isf(FPR) - MU)
    truth = {"tpr_at_fpr_ci": tpr_true, "sens_at_spec_ci": tpr_true, "net_benefit_ci": true_nb(MU, PT),
             "net_benefit_diff_ci": true_nb(MU, PT) - true_nb(MU_B, PT)}
    for name, expr, _ in calls(reps=1000)[:4]:
        rows = con.execute("SELECT %s ->> '$.lo', %s ->> '$.hi' FROM c GROUP BY g" % (expr, expr)).fetchall()
        cov = sum(1 for a, b in rows if a <= truth[name] <= b) / len(rows)
        print("%s: 95 %% interval covers the truth %.4f in %.1f %% of %d datasets"
              % (name, truth[name], 100 * cov, len(rows)))
        ck.true(len(rows) == N_SETS and 0.93 <= cov <= 0.97, "%s coverage %.3f outside 0.93..0.97" % (name, cov))


def test_errors(ck, con):
    mltest.load(con, ["y", "s", "p", "q"], [(i % 2, i * 0.3, i / 10, 1 - i / 10) for i in range(10)])
    for sql, want in (
            ("SELECT tpr_at_fpr_ci(y, s, 0) FROM t", "tpr_at_fpr_ci(): target_fpr must be a number in (0, 1), got 0"),
            ("SELECT sens_at_spec_ci(y, s, 1.0) FROM t",
             "sens_at_spec_ci(): target_spec must be a number in (0, 1), got 1.0"),
            ("SELECT net_benefit_ci(y, p, 'x') FROM t", "net_benefit_ci(): pt must be a number in (0, 1), got text 'x'"),
            ("SELECT net_benefit_diff_ci(y, p, q, 0.3, 1) FROM t",
             "net_benefit_diff_ci(): level must be a number in (0, 1), got 1"),
            ("SELECT tpr_at_fpr_ci(y, s, 0.1, 0.9, 9) FROM t",
             "tpr_at_fpr_ci(): reps must be an integer in 10..1000000, got 9"),
            ("SELECT net_benefit_ci(y, p, 0.3, 0.9, 20, -1) FROM t",
             "net_benefit_ci(): seed must be an integer in 0..9223372036854775807, got -1"),
            ("SELECT net_benefit_ci(y, s, 0.3) FROM t", "net_benefit_ci(): p must be a probability in [0, 1], got 1.2"),
            ("SELECT net_benefit_diff_ci(y, p, s, 0.3) FROM t",
             "net_benefit_diff_ci(): p_b must be a probability in [0, 1], got 1.2"),
            ("SELECT tpr_at_fpr_ci(y, s, CASE WHEN id = 3 THEN 0.2 ELSE 0.1 END) FROM t",
             "tpr_at_fpr_ci(): target_fpr must be the same in every row of a group, got 0.1 and then 0.2"),
            ("SELECT net_benefit_ci(y, p, 0.3, 0.9, 20, id) FROM t",
             "net_benefit_ci(): seed must be the same in every row of a group, got 1 and then 2"),
            ("SELECT tpr_at_fpr_ci(y, s) FROM t",
             "tpr_at_fpr_ci(): expects (y, s, target_fpr [, level, reps, seed]), got 2 arguments"),
            ("SELECT net_benefit_diff_ci(y, p, q) FROM t",
             "net_benefit_diff_ci(): expects (y, p_a, p_b, pt [, level, reps, seed]), got 3 arguments")):
        ck.error(con, sql, (), want)


def test_windows(ck, con, rng):
    y, s, p, q = dataset(rng, 40, True)
    load(con, y, s, p, q, mltest.random_weights(rng, 40, y, "steps"))
    con.execute("UPDATE t SET g = id % 2")
    for name, expr, _ in calls(seed=3, reps=20):
        mltest.same_as_aggregate(ck, con, expr, "ts", name)


def main():
    ck = mltest.Checker("test_boot_clinical")
    con = mltest.connect()
    rng = np.random.default_rng(36)
    test_estimates(ck, con, rng)
    test_reproducible(ck, con, rng)
    test_widths(ck, con, rng)
    test_errors(ck, con)
    test_windows(ck, con, rng)
    test_coverage(ck, con)
    test_reproduction(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
