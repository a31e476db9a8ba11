# SPDX-License-Identifier: MIT
"""decision_curve_ci(y, p [, from, to, by [, level, reps, seed]]) (issue 36;
ext/metrics/uncertainty.c rule 13): decision_curve with each point's
bootstrap interval, from ONE bootstrap whose replicate computes the whole
curve.

Each point's interval is net_benefit_ci's at that threshold with the same
level, reps and seed, text for text (estimate, lo, hi, se, percentile): the
replicates draw the same rows (the canonical order is (p, y) for both and the
streams are seeded per replicate), and a replicate's counts at p >= t are
net_benefit_ci's.  So the interval of every point is what net_benefit_ci
documents and test_boot_clinical.py checks (coverage of the 95 % interval,
BCa); here the agreement is checked exactly, and net_benefit / treat_all
against decision_curve's.  Over 40 random datasets (ties on a 0.05 grid, rows
exactly at the thresholds, one class, n from 1 to 400), windows = the
aggregate, errors.

decision_curve_ci_w(y, p, w, ...): each point is net_benefit_ci_w's at that
threshold text for text (the weighted bootstrap: rows the sampling units,
each drawn k times weighing k w), treat_all decision_curve_w's and the
estimate net_benefit_w's (decision_curve_w's net_benefit to 1e-12: it ends
in ml_net_benefit, net_benefit_w in ml_net_benefit_w); 30 datasets of
real, integer, zero and inverse-probability weights.
"""
import json

import numpy as np

import mltest


@mltest.covers("decision_curve_ci")
def test_unweighted(ck, con, rng):
    """Each point is decision_curve's and its interval net_benefit_ci's
    (test_boot_clinical.py rebuilds that bootstrap in numpy), text for text."""
    for trial in range(40):
        n = int(rng.choice([1, 3, 20, 150, 400]))
        p = np.round(rng.random(n) / 0.05) * 0.05 if trial % 2 else rng.random(n)
        y = (rng.random(n) < p).astype(int)
        if trial % 9 == 4:
            y[:] = 0
        mltest.load(con, ["y", "p"], [(int(a), float(b)) for a, b in zip(y, p)])
        grid = [(0.05, 0.5, 0.05), (0.1, 0.9, 0.2), (0.3, 0.3, 0.1)][trial % 3]
        level, reps, seed = [0.95, 0.9, 0.8][trial % 3], [50, 200][trial % 2], trial
        args = grid + (level, reps, seed)
        got = con.execute("SELECT decision_curve_ci(y, p, ?, ?, ?, ?, ?, ?) FROM t", args).fetchone()[0]
        g = json.loads(got)
        ck.equal(list(g), ["level", "reps", "seed", "method", "redrawn", "n", "curve"], "set %d: keys" % trial)
        ck.equal((g["level"], g["reps"], g["seed"], g["n"]), (level, reps, seed, n), "set %d: the run" % trial)
        dc = json.loads(con.execute("SELECT decision_curve(y, p, ?, ?, ?) FROM t", grid).fetchone()[0])
        ck.equal([c["threshold"] for c in g["curve"]], [c["threshold"] for c in dc],
                 "set %d: decision_curve's thresholds" % trial)
        for c, d in zip(g["curve"], dc):
            t = c["threshold"]
            ck.equal((c["net_benefit"], c["treat_all"], c["treat_none"]),
                     (d["net_benefit"], d["treat_all"], d["treat_none"]), "set %d t %r: decision_curve's point" % (trial, t))
            nb = json.loads(con.execute("SELECT net_benefit_ci(y, p, ?, ?, ?, ?) FROM t", (t, level, reps, seed)).fetchone()[0])
            ck.equal((c["net_benefit"], c["lo"], c["hi"], c["se"], c["percentile"]),
                     (nb["estimate"], nb["lo"], nb["hi"], nb["se"], nb["percentile"]),
                     "set %d t %r: the point's interval is net_benefit_ci's" % (trial, t))


@mltest.covers("decision_curve_ci_w")
def test_weighted(ck, con, rng):
    """Each point is decision_curve_w's and its interval net_benefit_ci_w's
    (rebuilt in numpy by test_boot_clinical.py), text for text."""
    kinds = ("exponential", "integer", "steps", "ipw", "log-uniform")
    for trial in range(30):
        n = int(rng.choice([2, 20, 150, 400]))
        p = np.round(rng.random(n) / 0.05) * 0.05 if trial % 2 else rng.random(n)
        y = (rng.random(n) < p).astype(int)
        w = mltest.random_weights(rng, n, y, kinds[trial % len(kinds)])
        mltest.load(con, ["y", "p", "w"], [(int(a), float(b), float(c)) for a, b, c in zip(y, p, w)])
        grid = [(0.05, 0.5, 0.05), (0.1, 0.9, 0.2), (0.3, 0.3, 0.1)][trial % 3]
        level, reps, seed = [0.95, 0.9][trial % 2], [50, 120][trial % 2], trial
        got = con.execute("SELECT decision_curve_ci_w(y, p, w, ?, ?, ?, ?, ?, ?) FROM t", grid + (level, reps, seed)).fetchone()[0]
        if not (w > 0).any():
            ck.equal(got, None, "weighted set %d: no positive weight, NULL" % trial)
            continue
        g = json.loads(got)
        ck.equal(g["n"], int((w > 0).sum()), "weighted set %d: n counts the rows of positive weight" % trial)
        dc = json.loads(con.execute("SELECT decision_curve_w(y, p, w, ?, ?, ?) FROM t", grid).fetchone()[0])
        ck.equal([c["threshold"] for c in g["curve"]], [c["threshold"] for c in dc],
                 "weighted set %d: decision_curve_w's thresholds" % trial)
        for c, d in zip(g["curve"], dc):
            t = c["threshold"]
            ck.equal((c["treat_all"], c["treat_none"]), (d["treat_all"], d["treat_none"]),
                     "weighted set %d t %r: decision_curve_w's treat_all" % (trial, t))
            ck.close(c["net_benefit"], d["net_benefit"], "weighted set %d t %r: decision_curve_w's net benefit" % (trial, t),
                     rel=1e-12, abs_=1e-15)
            nb = json.loads(con.execute("SELECT net_benefit_ci_w(y, p, w, ?, ?, ?, ?) FROM t",
                                        (t, level, reps, seed)).fetchone()[0])
            ck.equal((c["net_benefit"], c["lo"], c["hi"], c["se"], c["percentile"]),
                     (nb["estimate"], nb["lo"], nb["hi"], nb["se"], nb["percentile"]),
                     "weighted set %d t %r: the point's interval is net_benefit_ci_w's" % (trial, t))


def test_rules(ck, con, rng):
    """Weights all 0, the default grid, windows, errors."""
    mltest.load(con, ["y", "p", "w"], [(1, 0.5, 0.0), (0, 0.2, 0.0)])
    ck.equal(con.execute("SELECT decision_curve_ci_w(y, p, w) FROM t").fetchone()[0], None, "every weight 0: NULL")
    ck.error(con, "SELECT decision_curve_ci_w(y, p, w, 0.1) FROM t", (),
             "decision_curve_ci_w(): expects (y, p, w [, from, to, by [, level, reps, seed]]), got 4 arguments")
    # the default grid is decision_curve's
    g = json.loads(con.execute("SELECT decision_curve_ci(y, p) FROM t").fetchone()[0])
    dc = json.loads(con.execute("SELECT decision_curve(y, p) FROM t").fetchone()[0])
    ck.equal([c["threshold"] for c in g["curve"]], [c["threshold"] for c in dc], "default grid: decision_curve's 99")
    ck.equal((g["reps"], g["level"], g["seed"]), (1000, 0.95, 0), "defaults: 1000 reps, level 0.95, seed 0")
    # windows equal the aggregate
    n = 24
    p = np.round(rng.random(n), 1)
    mltest.load(con, ["y", "p", "ts", "g"], [(int(rng.random() < v), float(v), int(rng.integers(0, 8)), k % 3)
                                               for k, v in enumerate(p)])
    mltest.same_as_aggregate(ck, con, "decision_curve_ci(y, p, 0.2, 0.6, 0.2, 0.9, 20, 3)", "ts", "(window)")
    # errors
    ck.error(con, "SELECT decision_curve_ci(y, p, 0.1) FROM t", (),
             "decision_curve_ci(): expects (y, p [, from, to, by [, level, reps, seed]]), got 3 arguments")
    ck.error(con, "SELECT decision_curve_ci(y, p, 0.6, 0.4, 0.1) FROM t", (),
             "decision_curve_ci(): from must be at most to, got from = 0.6 and to = 0.4")
    ck.error(con, "SELECT decision_curve_ci(y, p, 0.01, 0.99, 0.01, 0.95, 1000000) FROM t", (),
             "decision_curve_ci(): thresholds x (reps + 202) must be at most 20000000 (the replicates kept,"
             " 8 bytes each), got 99 thresholds and reps = 1000000")
    ck.error(con, "SELECT decision_curve_ci(y, p, 0, 0.5, 0.1) FROM t", (),
             "decision_curve_ci(): from must be a number in (0, 1), got 0")
    ck.equal(con.execute("SELECT decision_curve_ci(y, p) FROM t WHERE 0").fetchone()[0], None, "no rows: NULL")


def main():
    ck = mltest.Checker("decision_curve_ci")
    con = mltest.connect()
    rng = np.random.default_rng(3613)
    test_unweighted(ck, con, rng)
    test_weighted(ck, con, rng)
    test_rules(ck, con, rng)
    ck.finish()


if __name__ == "__main__":
    main()
