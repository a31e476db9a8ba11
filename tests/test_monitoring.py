# SPDX-License-Identifier: MIT
"""test_monitoring -- the monitoring family (docs/monitoring.md) against its
oracles: psi from SPEC's rule in numpy, ks_test against
scipy.stats.ks_2samp(method='auto') (statistic, the exact p-value, and the
method scipy picks), wasserstein(_w) against scipy.stats.wasserstein_distance
(u_weights/v_weights), drift_report's fields against each of them and
auroc_period against scikit-learn's roc_auc_score(g, x).  Then: the
two-state form equals the rows bit for bit, integer weights equal repeated
rows bit for bit, every window frame equals the aggregate over its rows,
and the errors and NULLs of the rules.  The window test's calls come from
the family's records (window_calls), and the suite fails for a record of the
family that no test compares with a reference (mltest.require_family).
"""
import json
import math
import sys

import numpy as np
from scipy import stats
from sklearn.metrics import roc_auc_score

import mltest

# the window test's columns for each data argument of a record
COLUMN = {"g": "per", "x": "x", "w": "w", "y": "per", "s": "x", "group": "grp", "p": "p"}


def window_calls(con):
    """(unweighted, weighted) calls of every monitoring record, from the
    records (mleval_functions()): the data arguments as COLUMN's columns, then
    no optional parameter and each parameter's example (a new function of the
    family is in the window test with no change here)."""
    plain, weighted = [], []
    for f in mltest.records(con):
        if f["family"] != "monitoring":
            continue
        cols = [COLUMN[d] for d in f["data"]]
        ex = [p["example"] for p in f["params"]]
        need = sum(p["default"] is None for p in f["params"])     # the parameters without a default
        for k in sorted({need, len(ex)}):
            call = "%s(%s)" % (f["name"], ", ".join(cols + ex[:k]))
            (weighted if f["weighted_of"] else plain).append(call)
    return plain, weighted


def psi_oracle(ref, cur, B=10, wr=None, wc=None):
    """SPEC's PSI: edges numpy.quantile (linear) of the reference at i/B,
    unique; bins (-inf, e1], ..., (e_last, inf); zero shares -> 1e-4."""
    if wr is None:
        e = np.unique(np.quantile(ref, np.arange(1, B) / B))
        wr = np.ones(len(ref))
        wc = np.ones(len(cur))
    else:   # integer weights: the rows repeated
        e = np.unique(np.quantile(np.repeat(ref, wr.astype(int)), np.arange(1, B) / B))

    def shares(a, w):
        idx = np.searchsorted(e, a, side="left")
        return np.bincount(idx, weights=w, minlength=len(e) + 1) / w.sum()
    r, c = shares(ref, wr), shares(cur, wc)
    rr, cc = np.where(r == 0, 1e-4, r), np.where(c == 0, 1e-4, c)
    return float(np.sum((cc - rr) * np.log(cc / rr))), e, r, c


def values(rng, n, kind):
    if kind == "normal":
        return rng.normal(0, 1, n)
    if kind == "ties":
        return rng.integers(0, 5, n).astype(float)
    if kind == "shifted":
        return rng.normal(0.7, 2, n)
    return np.round(rng.uniform(-3, 3, n), 1)


@mltest.covers("psi", "ks_test", "wasserstein", "drift_report", "psi_w", "wasserstein_w")
def test_drift(ck, con, rng):
    """psi against SPEC's rule in numpy, ks_test against scipy's ks_2samp,
    wasserstein(_w) against scipy's wasserstein_distance, drift_report's
    fields against each and roc_auc_score; the two-state form equals the
    rows; integer weights equal repeated rows."""
    kinds = ["normal", "ties", "shifted", "round"]
    for it in range(300):
        n0, n1 = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        if it % 10 == 0:
            n1 = n0
        ref = values(rng, n0, kinds[it % 4])
        cur = values(rng, n1, kinds[(it // 4) % 4])
        rows = [(0, float(v)) for v in ref] + [(1, float(v)) for v in cur]
        rng.shuffle(rows)
        mltest.load(con, ["per", "x"], rows)
        B = int(rng.integers(1, 12))
        what = "set %d (n0 %d, n1 %d, bins %d)" % (it, n0, n1, B)
        p, e, r, c = psi_oracle(ref, cur, B)
        got = con.execute("SELECT psi(per, x, ?), ks_test(per, x), wasserstein(per, x), drift_report(per, x, ?)"
                          " FROM t", (B, B)).fetchone()
        ck.close(got[0], p, what + " psi")
        ks = stats.ks_2samp(ref, cur, method="auto")
        k = json.loads(got[1])
        ck.equal(list(k), ["statistic", "p_value", "method"], what + " ks keys")
        ck.close(k["statistic"], float(ks.statistic), what + " ks statistic", rel=0, abs_=0)
        ck.close(k["p_value"], float(ks.pvalue), what + " ks p_value", rel=1e-12, abs_=0)
        ck.equal(k["method"], "exact", what + " ks method")
        ck.close(got[2], float(stats.wasserstein_distance(ref, cur)), what + " wasserstein")
        rep = json.loads(got[3])
        ck.equal(list(rep), ["n_ref", "n_cur", "psi", "bins", "ks", "ks_p_value", "ks_method", "wasserstein",
                             "mean_ref", "mean_cur", "auroc_period"], what + " report keys")
        ck.equal((rep["n_ref"], rep["n_cur"]), (n0, n1), what + " report n")
        ck.equal(rep["psi"], got[0], what + " report psi is psi")
        ck.equal(len(rep["bins"]), len(e) + 1, what + " report bins")
        for b, bin_ in enumerate(rep["bins"]):
            ck.equal(bin_["lo"], None if b == 0 else float(e[b - 1]), what + " bin lo")
            ck.equal(bin_["hi"], None if b == len(e) else float(e[b]), what + " bin hi")
            ck.close(bin_["ref"], float(r[b]), what + " bin ref")
            ck.close(bin_["cur"], float(c[b]), what + " bin cur")
        ck.close(sum(b_["contribution"] for b_ in rep["bins"]), p, what + " contributions sum", rel=1e-12)
        ck.equal((rep["ks"], rep["ks_p_value"], rep["ks_method"]), (k["statistic"], k["p_value"], "exact"),
                 what + " report ks")
        ck.equal(rep["wasserstein"], got[2], what + " report wasserstein")
        ck.close(rep["mean_ref"], float(np.mean(ref)), what + " mean_ref")
        ck.close(rep["mean_cur"], float(np.mean(cur)), what + " mean_cur")
        y = np.r_[np.zeros(n0), np.ones(n1)]
        ck.close(rep["auroc_period"], float(roc_auc_score(y, np.r_[ref, cur])), what + " auroc_period")
        auroc = con.execute("SELECT auroc(per, x) FROM t").fetchone()[0]
        ck.equal(rep["auroc_period"], auroc, what + " auroc_period is auroc(g, x)")
        # ------------------------------------------------ the two-state form
        con.execute("DROP TABLE IF EXISTS s")
        con.execute("CREATE TABLE s AS SELECT per, ml_state(abs(random()) % 2, x) AS st FROM t GROUP BY per")
        sg = con.execute("SELECT psi(a.st, b.st, ?), ks_test(a.st, b.st), wasserstein(a.st, b.st),"
                         " drift_report(a.st, b.st, ?) FROM s a, s b WHERE a.per = 0 AND b.per = 1",
                         (B, B)).fetchone()
        ck.equal(sg, got, what + " two states equal the rows")
        # ------------------------------------------------ weighted twins
        wr = rng.integers(0, 4, n0).astype(float)
        wc = rng.integers(0, 4, n1).astype(float)
        if wr.sum() > 0 and wc.sum() > 0:
            wrows = [(0, float(v), float(w)) for v, w in zip(ref, wr)] + \
                    [(1, float(v), float(w)) for v, w in zip(cur, wc)]
            mltest.load(con, ["per", "x", "w"], wrows, table="tw")
            rep_rows = [(g_, x_) for g_, x_, w_ in wrows for _ in range(int(w_))]
            mltest.load(con, ["per", "x"], rep_rows, table="tr")
            gw = con.execute("SELECT psi_w(per, x, w, ?), wasserstein_w(per, x, w) FROM tw", (B,)).fetchone()
            gr = con.execute("SELECT psi(per, x, ?), wasserstein(per, x) FROM tr", (B,)).fetchone()
            ck.equal(gw, gr, what + " integer weights are repeated rows")
            ck.close(gw[0], psi_oracle(ref, cur, B, wr, wc)[0], what + " psi_w")
            ck.close(gw[1], float(stats.wasserstein_distance(ref, cur, wr, wc)), what + " wasserstein_w")
        wr, wc = rng.exponential(1, n0), rng.exponential(1, n1)
        wrows = [(0, float(v), float(w)) for v, w in zip(ref, wr)] + [(1, float(v), float(w)) for v, w in zip(cur, wc)]
        mltest.load(con, ["per", "x", "w"], wrows, table="tw")
        ww = con.execute("SELECT wasserstein_w(per, x, w) FROM tw").fetchone()[0]
        ck.close(ww, float(stats.wasserstein_distance(ref, cur, wr, wc)), what + " wasserstein_w real weights",
                 rel=1e-11)


@mltest.covers("ks_test")
def test_ks_method(ck, con, rng):
    """scipy's choice of method (exact, asymp) and its p-value, branch for branch."""
    # asymp covers kstwo.sf's branches: Ruben-Gambino (n = 1, 2), Durbin's
    # matrix (n <= 140), 2 smirnov (upper tail), Durbin or Pelz-Good (below)
    for n0, n1 in [(10000, 3), (10001, 1), (10001, 3), (3, 10001), (10500, 60), (10200, 200), (12000, 15000)]:
        ref, cur = rng.normal(0, 1, n0), rng.normal(0.05, 1, n1)
        mltest.load(con, ["per", "x"], [(0, float(v)) for v in ref] + [(1, float(v)) for v in cur])
        k = json.loads(con.execute("SELECT ks_test(per, x) FROM t").fetchone()[0])
        ks = stats.ks_2samp(ref, cur)
        what = "ks n0 %d n1 %d" % (n0, n1)
        ck.equal(k["method"], "exact" if max(n0, n1) <= 10000 else "asymp", what + " method")
        ck.close(k["statistic"], float(ks.statistic), what + " statistic", rel=0, abs_=0)
        # asymp: scipy's kstwo.sf(D, en) followed branch for branch
        # (docs/monitoring.md: the measured difference, from lgamma terms)
        ck.close(k["p_value"], float(ks.pvalue), what + " p_value",
                 rel=1e-12 if max(n0, n1) <= 10000 else 1e-11, abs_=0)


def test_windows(ck, con, rng):
    """Every record of the family, every frame: the aggregate over its rows."""
    FNS, FNS_W = window_calls(con)
    ck.true(len(FNS) >= 4 and len(FNS_W) >= 3, "window calls from the records: %s %s" % (FNS, FNS_W))
    for it in range(6):
        n = 40
        rows = [(int(rng.integers(0, 2)), float(np.round(rng.normal(), 1)), int(rng.integers(0, 3)), i // 3,
                 float(rng.choice([0.0, 0.5, 1.0, 2.0]))) for i in range(n)]
        rows = [r + (float(np.round(rng.uniform(0, 1), 1)),) for r in rows]
        mltest.load(con, ["per", "x", "grp", "ts", "w", "p"], rows)
        shapes = [s.replace("PARTITION BY g", "PARTITION BY grp") for s in mltest.FRAMES]
        fns = FNS + FNS_W if it < 3 else FNS
        for shape, rid, idx, vals in mltest.each_frame(con, fns, shapes=shapes, order="ts"):
            ids = ",".join(str(k + 1) for k in idx) or "NULL"
            for f, v in zip(fns, vals):
                agg = con.execute("SELECT %s FROM t WHERE id IN (%s)" % (f, ids)).fetchone()[0]
                ck.equal(v, agg, "%s OVER (%s) row %d" % (f, shape, rid))
        for g_, v in con.execute("SELECT grp, drift_report(per, x) FROM t GROUP BY grp"):
            ck.equal(v, con.execute("SELECT drift_report(per, x) FROM t WHERE grp = ?", (g_,)).fetchone()[0],
                     "GROUP BY grp %d" % g_)


@mltest.covers("group_disparity", "group_disparity_w")
def test_disparity(ck, con, rng):
    """group_disparity(_w): Fairlearn's group metrics in numpy (scikit-learn's
    roc_auc_score per group), integer weights equal repeated rows; every frame;
    the group limit."""
    for it in range(150):
        n = int(rng.integers(1, 60))
        y = rng.integers(0, 2, n)
        sc = np.round(rng.uniform(0, 1, n), 1)
        labels = [int(v) for v in rng.integers(-2, 3, n)] if it % 2 else \
            [str(rng.choice(["a", "b", "B", "ab", "é"])) for _ in range(n)]
        w = rng.integers(0, 3, n).astype(float) if it % 3 == 0 else np.ones(n)
        t = float(rng.choice([0.0, 0.3, 0.5, 0.8]))
        mltest.load(con, ["y", "s", "grp", "w"], [(int(a), float(b), c, float(d)) for a, b, c, d in zip(y, sc, labels, w)])
        what = "disparity set %d (n %d, t %g)" % (it, n, t)
        got = con.execute("SELECT group_disparity_w(y, s, w, grp, ?) FROM t" if it % 3 == 0 else
                          "SELECT group_disparity(y, s, grp, ?) FROM t", (t,)).fetchone()[0]
        keep = w > 0
        if not keep.any():
            ck.equal(got, None, what + " no weight: NULL")
            continue
        g = json.loads(got)
        # Fairlearn's group metrics in numpy (weighted: sample_weight), groups in SQLite's order
        keys = sorted({c for c, k in zip(labels, keep) if k},
                      key=lambda v: (1, v.encode()) if isinstance(v, str) else (0, v))
        ck.equal([e["group"] for e in g["groups"]], keys, what + " groups in order")
        rates = {}
        for e, k in zip(g["groups"], keys):
            m = np.array([c == k for c in labels]) & keep
            yy, ss, ww = y[m], sc[m], w[m]
            pred = ss >= t
            P, N = ww[yy == 1].sum(), ww[yy == 0].sum()
            want = {"n": ww.sum(), "positives": P, "selection_rate": ww[pred].sum() / ww.sum(),
                    "tpr": ww[pred & (yy == 1)].sum() / P if P > 0 else None,
                    "fpr": ww[pred & (yy == 0)].sum() / N if N > 0 else None,
                    "precision": ww[pred & (yy == 1)].sum() / ww[pred].sum() if ww[pred].sum() > 0 else None,
                    "auroc": float(roc_auc_score(yy, ss, sample_weight=ww)) if P > 0 and N > 0 else None}
            for f, v in want.items():
                ck.close(e[f], None if v is None else float(v), "%s group %r %s" % (what, k, f))
            rates[k] = want
        for f, dk, rk in [("selection_rate", "demographic_parity_difference", "demographic_parity_ratio"),
                          ("tpr", "equal_opportunity_difference", None), ("auroc", "auroc_difference", None)]:
            vals = [r[f] for r in rates.values() if r[f] is not None]
            ck.equal(g["summary_groups"][f], [k for k in keys if rates[k][f] is not None], what + " groups of " + f)
            ck.close(g[dk], max(vals) - min(vals) if vals else None, what + " " + dk)
            if rk:
                ck.close(g[rk], min(vals) / max(vals) if vals and max(vals) > 0 else None, what + " " + rk)
        tp = [r["tpr"] for r in rates.values() if r["tpr"] is not None]
        fp = [r["fpr"] for r in rates.values() if r["fpr"] is not None]
        ck.close(g["equalized_odds_difference"], max(max(tp) - min(tp), max(fp) - min(fp)) if tp and fp else None,
                 what + " equalized_odds_difference")
        rt = min(tp) / max(tp) if tp and max(tp) > 0 else None
        rf = min(fp) / max(fp) if fp and max(fp) > 0 else None
        ck.close(g["equalized_odds_ratio"], min(rt, rf) if rt is not None and rf is not None else None,
                 what + " equalized_odds_ratio")
        if it % 3 == 0:
            mltest.load(con, ["y", "s", "grp"], [(int(a), float(b), c) for a, b, c, d in zip(y, sc, labels, w)
                                                 for _ in range(int(d))], table="tr")
            ck.equal(got, con.execute("SELECT group_disparity(y, s, grp, ?) FROM tr", (t,)).fetchone()[0],
                     what + " integer weights are repeated rows")
    rows = [(int(rng.integers(0, 2)), float(np.round(rng.uniform(), 1)), int(rng.integers(0, 4)), i // 2)
            for i in range(30)]
    mltest.load(con, ["y", "s", "grp", "ts"], rows)
    shapes = [s_.replace("PARTITION BY g", "PARTITION BY y") for s_ in mltest.FRAMES]
    for shape, rid, idx, (v,) in mltest.each_frame(con, ["group_disparity(y, s, grp, 0.5)"], shapes=shapes, order="ts"):
        ids = ",".join(str(k + 1) for k in idx) or "NULL"
        agg = con.execute("SELECT group_disparity(y, s, grp, 0.5) FROM t WHERE id IN (%s)" % ids).fetchone()[0]
        ck.equal(v, agg, "group_disparity OVER (%s) row %d" % (shape, rid))
    ck.error(con, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10001)"
             " SELECT group_disparity(i % 2, 0.5, i, 0.5) FROM c", (),
             "group_disparity(): group: more than 10000 groups in one result")
    ck.equal(con.execute("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000)"
                         " SELECT json_array_length(group_disparity(i % 2, 0.5, i, 0.5), '$.groups') FROM c")
             .fetchone()[0], 10000, "10000 groups are allowed")
    ck.error(con, "SELECT group_disparity(1, 0.5, 0.5, 0.5)", (),
             "group_disparity(): group must be an integer or text, got 0.5")


@mltest.covers("expected_auroc", "expected_pr_auc", "expected_confusion")
def test_expected(ck, con, rng):
    """expected_* against scikit-learn's weighted roc_auc_score and
    average_precision_score over the rows doubled (y = 1 weighing p, y = 0
    weighing 1 - p) and the expected counts in numpy; every frame."""
    for it in range(150):
        n = int(rng.integers(1, 40))
        p = np.round(rng.uniform(0, 1, n), int(rng.integers(1, 4)))
        if it % 5 == 0:
            p[: min(n, 2)] = rng.choice([0.0, 1.0], min(n, 2))
        t = float(rng.choice([0.0, 0.25, 0.5, 0.7, 1.0]))
        mltest.load(con, ["p"], [(float(v),) for v in p])
        what = "expected set %d (n %d, t %g)" % (it, n, t)
        got = con.execute("SELECT expected_auroc(p), expected_pr_auc(p), expected_confusion(p, ?) FROM t",
                          (t,)).fetchone()
        y = np.r_[np.ones(n), np.zeros(n)]
        sc, w = np.r_[p, p], np.r_[p, 1 - p]
        keep = w > 0
        if len(set(y[keep])) == 2:
            ck.close(got[0], float(roc_auc_score(y[keep], sc[keep], sample_weight=w[keep])), what + " expected_auroc")
            from sklearn.metrics import average_precision_score
            ck.close(got[1], float(average_precision_score(y[keep], sc[keep], sample_weight=w[keep])),
                     what + " expected_pr_auc")
        else:
            ck.equal(got[:2], (None, None), what + " one class: NULL")
        c = json.loads(got[2])
        hi = p >= t
        tp, fp, fn, tn = p[hi].sum(), (1 - p[hi]).sum(), p[~hi].sum(), (1 - p[~hi]).sum()
        for k, v in [("tp", tp), ("fp", fp), ("fn", fn), ("tn", tn),
                     ("sensitivity", tp / (tp + fn) if tp + fn > 0 else None),
                     ("specificity", tn / (tn + fp) if tn + fp > 0 else None),
                     ("ppv", tp / (tp + fp) if tp + fp > 0 else None),
                     ("npv", tn / (tn + fn) if tn + fn > 0 else None),
                     ("accuracy", (tp + tn) / n)]:
            ck.close(c[k], None if v is None else float(v), what + " " + k, rel=1e-12, abs_=1e-12)
        ck.equal(c["n"], n, what + " n")
    for it in range(3):
        rows = [(float(np.round(rng.uniform(0, 1), 1)), i // 2, int(rng.integers(0, 2))) for i in range(30)]
        mltest.load(con, ["p", "ts", "grp"], rows)
        shapes = [s_.replace("PARTITION BY g", "PARTITION BY grp") for s_ in mltest.FRAMES]
        exprs = ["expected_auroc(p)", "expected_pr_auc(p)", "expected_confusion(p, 0.5)"]
        for shape, rid, idx, vals in mltest.each_frame(con, exprs, shapes=shapes, order="ts"):
            ids = ",".join(str(k + 1) for k in idx) or "NULL"
            for f, v in zip(exprs, vals):
                agg = con.execute("SELECT %s FROM t WHERE id IN (%s)" % (f, ids)).fetchone()[0]
                ck.equal(v, agg, "%s OVER (%s) row %d" % (f, shape, rid))
    ck.error(con, "SELECT expected_auroc(1.5)", (), "expected_auroc(): p must be a probability in [0, 1], got 1.5")


def test_errors(ck, con):
    """The NULLs and errors of the rules."""
    mltest.load(con, ["per", "x"], [(0, 1.0), (0, 2.0), (None, 3.0), (1, None)])
    for f in ["psi(per, x)", "ks_test(per, x)", "wasserstein(per, x)", "drift_report(per, x)"]:
        ck.equal(con.execute("SELECT %s FROM t" % f).fetchone()[0], None, f + " with an empty current period")
    ck.error(con, "SELECT psi(per, x) FROM (SELECT 2 AS per, 1.0 AS x)", (), "psi(): g must be 0 or 1, got 2")
    ck.error(con, "SELECT wasserstein(per, x) FROM (SELECT 1 AS per, 'abc' AS x)", (),
             "wasserstein(): x must be a number, got text 'abc'")
    ck.error(con, "SELECT psi(per, x, 0) FROM (SELECT 1 AS per, 1.0 AS x)", (),
             "psi(): bins must be an integer in 1..100000, got 0")
    ck.error(con, "SELECT psi_w(per, x, -1) FROM (SELECT 1 AS per, 1.0 AS x)", (),
             "psi_w(): w must be a non-negative finite number, got -1")
    ck.error(con, "SELECT ks_test(st, 0.5) FROM (SELECT ml_state(1, 0.5) AS st)", (),
             "ks_test(): st_cur must be a state made by ml_state(y, s), ml_state(y, s, strat) or ml_state_dist(x), got 0.5")
    ck.equal(con.execute("SELECT wasserstein(per, x) FROM (SELECT 0 AS per, 1e999 AS x UNION ALL SELECT 1, 0)")
             .fetchone()[0], None, "wasserstein with an infinite x is NULL")


def main():
    ck = mltest.Checker("test_monitoring")
    con = mltest.connect()
    rng = np.random.default_rng(20261128)
    test_drift(ck, con, rng)
    test_ks_method(ck, con, rng)
    test_windows(ck, con, rng)
    test_disparity(ck, con, rng)
    test_expected(ck, con, rng)
    test_errors(ck, con)
    mltest.require_family(ck, con, "monitoring", __file__)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
