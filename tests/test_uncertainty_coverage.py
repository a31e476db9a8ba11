"""Statistical validity of the uncertainty family: coverage and null p-values.

A known model: y ~ Bernoulli(0.4), s | y ~ N(1.2 y, 1) (binormal), so the
true AUROC is Phi(1.2 / sqrt 2) and the true average precision is the
integral of the population precision over the positives' scores.  400
datasets of n = 300 rows; the 95 % intervals of pr_auc_ci (BCa, 1000
replicates), pr_auc_delta_ci (delta method, logit scale), auroc_ci (DeLong)
and mean_ci (Student t, 5 "fold" values from
N(0.7, 0.05^2)) must cover the truth 93-97 % of the time.  auroc_diff's and
pr_auc_diff_delta's p-values under the null (two scores with the same distribution, independent
noise) must look uniform: Kolmogorov-Smirnov p > 0.001.

The data come from a fixed numpy seed, so the run is deterministic.  Sizes
keep it near 10 s on a loaded 2-core machine: one GROUP BY query per
function over 120 000 rows.
"""
import json
import math

import numpy as np
from scipy import integrate, stats

import mltest

N_SETS, N_ROWS, PI, MU = 400, 300, 0.4, 1.2


def true_ap(pi, mu):
    def precision_density(t):
        s1, s0 = stats.norm.sf(t - mu), stats.norm.sf(t)
        return pi * s1 / (pi * s1 + (1 - pi) * s0) * stats.norm.pdf(t - mu)
    return integrate.quad(precision_density, -12, 12 + mu, epsabs=1e-12, limit=200)[0]


def coverage(con, expr, truth, lo="$.lo", hi="$.hi"):
    rows = con.execute("SELECT %s ->> '%s', %s ->> '%s' FROM t GROUP BY g" % (expr, lo, expr, hi)).fetchall()
    return sum(1 for a, b in rows if a <= truth <= b) / len(rows), len(rows)


def main():
    ck = mltest.Checker("test_uncertainty_coverage")
    con = mltest.connect()
    rng = np.random.default_rng(777)
    g = np.repeat(np.arange(N_SETS), N_ROWS)
    y = (rng.random(N_SETS * N_ROWS) < PI).astype(int)
    s = rng.normal(MU * y, 1.0)
    sa = s
    sb = rng.normal(MU * y, 1.0)                # same distribution: H0 of auroc_diff holds
    mltest.load(con, ["g", "y", "s", "sb"],
                [(int(g[i]), int(y[i]), float(sa[i]), float(sb[i])) for i in range(len(g))])

    auc_true = stats.norm.cdf(MU / math.sqrt(2))
    ap_true = true_ap(PI, MU)
    for name, expr, truth in (("pr_auc_ci", "pr_auc_ci(y, s)", ap_true),
                              ("pr_auc_delta_ci", "pr_auc_delta_ci(y, s)", ap_true),
                              ("auroc_ci", "auroc_ci(y, s)", auc_true)):
        cov, k = coverage(con, expr, truth)
        print("%s: 95 %% interval covers the truth %.4f in %.1f %% of %d datasets" % (name, truth, 100 * cov, k))
        ck.true(0.93 <= cov <= 0.97, "%s coverage %.3f outside 0.93..0.97" % (name, cov))

    # mean_ci: 5 folds' metric values per dataset
    folds = rng.normal(0.7, 0.05, (N_SETS, 5))
    mltest.load(con, ["g", "x"], [(i, float(v)) for i in range(N_SETS) for v in folds[i]], table="f")
    rows = con.execute("SELECT mean_ci(x) ->> '$.lo', mean_ci(x) ->> '$.hi' FROM f GROUP BY g").fetchall()
    cov = sum(1 for a, b in rows if a <= 0.7 <= b) / len(rows)
    print("mean_ci: 95 %% interval covers 0.7 in %.1f %% of %d datasets" % (100 * cov, len(rows)))
    ck.true(0.93 <= cov <= 0.97, "mean_ci coverage %.3f outside 0.93..0.97" % cov)

    # auroc_diff and pr_auc_diff_delta under the null
    for name in ("auroc_diff", "pr_auc_diff_delta"):
        p = np.array([json.loads(r[0])["p_value"]
                      for r in con.execute("SELECT %s(y, s, sb) FROM t GROUP BY g" % name)])
        ks = stats.kstest(p, "uniform")
        print("%s under H0: KS statistic %.4f, p = %.3f (%d p-values); rejections at 5 %%: %.1f %%"
              % (name, ks.statistic, ks.pvalue, len(p), 100 * (p < 0.05).mean()))
        ck.true(ks.pvalue > 0.001, "%s null p-values not uniform: KS p = %g" % (name, ks.pvalue))
    ck.finish()


if __name__ == "__main__":
    main()
