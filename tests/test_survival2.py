# SPDX-License-Identifier: MIT
"""Differential suite of the survival family's part 2 (issue 49) against R.

R's side is tests/r/survival2_ref.R, run ONCE over every cohort this test
writes (hex floats in CSV: R reads the doubles Python holds).  The cohorts
are simulated with heavy ties: integer and half-integer times, censorings
tied with events, administrative censoring, p of two decimals (tied
quantile breaks) or continuous, horizons at, between and past observed
times.

1. surv_calibration against plotCalibration's rule written with survfit per
   group (breaks = quantile(type 7) of seq(0, 1, 1/bins), unique, cut
   include.lowest; n, mean p, 1 - S(t), Greenwood's std.err), and against
   riskRegression::plotCalibration(method = "quantile", cens.method =
   "local")$plotFrames where cut accepts the breaks (no duplicates).
2. surv_decision_curve (and surv_net_benefit at each threshold) against
   dcurves' survival rule computed from survfit among p >= pt; treat_all
   from the overall survfit; the twins with real weights against
   survfit(weights =).
3. c_index_diff against concordance(..., influence = 1)$dfbeta of each
   score: c_a, c_b, se = sqrt(sum (dfbeta_a - dfbeta_b)^2), z, p; tau too.
4. surv_auroc_ci and surv_brier_ci: the estimate is surv_auroc's and
   surv_brier's value bit for bit (rows and twins); the result does not
   depend on the order rows are inserted.
5. Every decision-curve point is surv_net_benefit at that threshold bit for
   bit.
6. Integer weights = the rows repeated, text for text (the bootstrap
   twins: the estimate; a row is resampled as one unit).
7. Windows over every frame shape of mltest.FRAMES, and GROUP BY, equal the
   aggregate over the same rows bit for bit.
8. Bad inputs: the exact error texts (tests/sql/survival2.sql holds more).
9. plot_km draws km()'s numbers: a drop per event time at the curve's
   values, a censoring tick per censored time, the number at risk at each
   x tick (n_risk of the first time at or after it), the same bytes twice.
10. Every record of survival_clinical.c and survival_boot.c (the functions
   of family "survival" named below, and their twins) is tested here: the
   suite fails when mleval_functions() shows one that is not in its list.

Tolerance against R: relative 1e-10 plus an absolute 1e-13.  Without
Rscript the R parts print SKIP and the rest runs.
"""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import mltest

if not hasattr(mltest, "covers"):       # a tree before mltest.covers (issue 45): the marks only
    mltest.covers = lambda *names: (lambda fn: fn)

HERE = os.path.dirname(os.path.abspath(__file__))
FUNCS = ["surv_calibration", "surv_net_benefit", "surv_decision_curve", "surv_auroc_ci", "surv_brier_ci",
         "c_index_diff"]
PLOTS = ["plot_km"]
REL, ABS = 1e-10, 1e-13
GRID = (0.05, 0.95, 0.05)
MAXDIFF = {}


def close(ck, got, want, what):
    if got is not None and want is not None:
        d = abs(got - want)
        MAXDIFF[what.split(":")[0]] = max(MAXDIFF.get(what.split(":")[0], 0.0), d)
    return ck.close(got, want, what, rel=REL, abs_=ABS)


def grid_points(g):
    T = int(math.floor((g[1] - g[0]) / g[2] + 1e-9)) + 1
    pts = [g[0] + k * g[2] for k in range(T)]
    return [x for x in pts if x < 1.0]


def cohort(rng, k):
    n = int(rng.choice([12, 30, 60, 120, 250]))
    half = rng.random() < 0.5
    time = rng.integers(0, 16, n) / (2.0 if half else 1.0)
    event = (rng.random(n) < rng.uniform(0.3, 0.85)).astype(int)
    if rng.random() < 0.4:                       # administrative censoring at the end
        cap = np.quantile(time, 0.8)
        event[time > cap] = 0
        time = np.minimum(time, cap)
    lin = 0.15 * (8 - time) + rng.normal(0, 1, n)
    p = 1 / (1 + np.exp(-lin))
    if rng.random() < 0.6:
        p = np.round(p, 2)                       # tied p: tied quantile breaks
    risk = np.round(lin + rng.normal(0, 0.5, n), 1)
    risk_b = np.round(rng.normal(0, 1, n), 1) if rng.random() < 0.5 else np.round(lin, 0)
    w = np.round(rng.uniform(0.2, 3.0, n), 3)
    obs = np.unique(time)
    choice = rng.random()
    if choice < 0.4:
        t = float(rng.choice(obs[obs > 0])) if (obs > 0).any() else 1.0
    elif choice < 0.85:
        t = float(np.median(time)) + 0.25
    else:
        t = float(time.max()) + 1.0              # past every follow-up: NULL
    if t <= 0:
        t = 0.5
    bins = int(rng.choice([1, 2, 3, 4, 5, 10]))
    tau = float(rng.choice(obs)) if rng.random() < 0.3 and obs.max() > 0 else math.inf
    if tau <= 0:
        tau = math.inf
    return dict(set=k, time=time, event=event, p=p, risk=risk, risk_b=risk_b, w=w, t=t, bins=bins, tau=tau)


def write_inputs(d, sets):
    h = float.hex
    with open(os.path.join(d, "cohorts.csv"), "w") as f:
        f.write("set,time,event,p,risk,risk_b,w\n")
        for s in sets:
            for i in range(len(s["time"])):
                f.write("s%d,%s,%d,%s,%s,%s,%s\n" % (s["set"], h(float(s["time"][i])), s["event"][i], h(float(s["p"][i])),
                                                   h(float(s["risk"][i])), h(float(s["risk_b"][i])), h(float(s["w"][i]))))
    with open(os.path.join(d, "params.csv"), "w") as f:
        f.write("set,t,bins,tau\n")
        for s in sets:
            f.write("s%d,%s,%d,%s\n" % (s["set"], h(s["t"]), s["bins"], "Inf" if math.isinf(s["tau"]) else h(s["tau"])))
    with open(os.path.join(d, "thresholds.csv"), "w") as f:
        f.write("set,pt\n")
        for s in sets:
            for pt in grid_points(GRID):
                f.write("s%d,%s\n" % (s["set"], h(pt)))


def r_available():
    if os.environ.get("MLEVAL_NO_R"):
        return False, "MLEVAL_NO_R is set"
    if shutil.which("Rscript") is None:
        return False, "Rscript not found"
    r = subprocess.run(["Rscript", "-e", 'quit(status = !all(sapply(c("survival", "riskRegression", "prodlim"), '
                        'requireNamespace, quietly = TRUE)))'], capture_output=True, text=True, timeout=300)
    return (True, None) if r.returncode == 0 else (False, "R lacks survival, riskRegression or prodlim")


def run_r(d):
    r = subprocess.run(["Rscript", os.path.join(HERE, "r", "survival2_ref.R"), d], capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0:
        raise RuntimeError("Rscript failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
    with open(os.path.join(d, "r.json")) as f:
        return json.load(f)


def load_set(con, s, table="t"):
    rows = [(float(s["time"][i]), int(s["event"][i]), float(s["p"][i]), float(s["risk"][i]), float(s["risk_b"][i]),
             float(s["w"][i]), i % 3) for i in range(len(s["time"]))]
    mltest.load(con, ["time", "event", "p", "risk", "risk_b", "w", "g"], rows, table)


def one(con, sql, *args):
    return con.execute(sql, args).fetchone()[0]


# ------------------------------------------------------------------ vs R

@mltest.covers("surv_calibration")
def check_calibration(ck, con, s, r):
    what = "set %d surv_calibration(t=%r, bins=%d)" % (s["set"], s["t"], s["bins"])
    got = one(con, "SELECT surv_calibration(time, event, p, ?, ?) FROM t", s["t"], s["bins"])
    if s["t"] > float(s["time"].max()):
        ck.equal(got, None, what + ": NULL past the last follow-up")
        return
    g = json.loads(got)
    ck.equal(list(g), ["t", "n", "km_risk", "mean_p", "oe", "bins"], what + ": keys")
    close(ck, g["km_risk"], r["km_all"], "km_risk: " + what)
    close(ck, g["mean_p"], r["mean_p"], "mean_p: " + what)
    close(ck, g["oe"], r["km_all"] / r["mean_p"] if r["mean_p"] else None, "oe: " + what)
    ck.equal(len(g["bins"]), len(r["cal"]), what + ": bins")
    for b, rb in zip(g["bins"], r["cal"]):
        ck.equal(list(b), ["lo", "hi", "n", "pred", "obs", "obs_se"], what + ": bin keys")
        ck.equal((b["lo"], b["hi"]), (rb["lo"], rb["hi"]), what + ": breaks (R's doubles)")
        ck.equal(b["n"], rb["n"], what + ": n")
        close(ck, b["pred"], rb["pred"], "pred: " + what)
        close(ck, b["obs"], rb["obs"], "obs: " + what)
        close(ck, b["obs_se"], rb["obs_se"], "obs_se: " + what)
    if isinstance(r["rr"], dict):
        pred = [x for x in r["rr"]["pred"] if x is not None]
        obs = [o for x, o in zip(r["rr"]["pred"], r["rr"]["obs"]) if x is not None]
        ck.equal(len(pred), len(g["bins"]), what + ": plotCalibration's levels")
        for b, pp, oo in zip(g["bins"], pred, obs):
            close(ck, b["pred"], pp, "plotCalibration Pred: " + what)
            close(ck, b["obs"], oo, "plotCalibration Obs: " + what)
        MAXDIFF["plotCalibration frames compared"] = MAXDIFF.get("plotCalibration frames compared", 0) + 1


@mltest.covers("surv_decision_curve", "surv_net_benefit", "surv_decision_curve_w", "surv_net_benefit_w")
def check_net_benefit(ck, con, s, r):
    t = s["t"]
    pts = grid_points(GRID)
    for twin, key in (("", "nb"), ("_w", "nb_w")):
        wa = ", w" if twin else ""
        what = "set %d surv_decision_curve%s(t=%r)" % (s["set"], twin, t)
        got = one(con, "SELECT surv_decision_curve%s(time, event, p%s, ?, ?, ?, ?) FROM t" % (twin, wa), t, *GRID)
        if t > float(s["time"].max()):
            ck.equal(got, None, what + ": NULL past the last follow-up")
            continue
        g = json.loads(got)
        ck.equal(len(g), len(pts), what + ": points")
        for pt, pnt, rr in zip(pts, g, r[key]):
            ck.equal(list(pnt), ["threshold", "net_benefit", "treat_all", "treat_none"], what + ": keys")
            ck.equal(pnt["threshold"], pt, what + ": threshold")
            want = 0.0 if rr["pos"] == 0 else rr["nb"]
            close(ck, pnt["net_benefit"], want, "net_benefit: %s pt=%r" % (what, pt))
            if not twin:
                ka = r["km_all"]
                close(ck, pnt["treat_all"], ka - (1 - ka) * pt / (1 - pt), "treat_all: %s pt=%r" % (what, pt))
            ck.equal(pnt["treat_none"], 0, what + ": treat_none")
            # rule 7: the point is surv_net_benefit at its threshold, bit for bit
            nb = one(con, "SELECT surv_net_benefit%s(time, event, p%s, ?, ?) FROM t" % (twin, wa), t, pt)
            ck.equal(nb, pnt["net_benefit"], "surv_net_benefit%s = the curve's point: %s pt=%r" % (twin, what, pt))


@mltest.covers("c_index_diff")
def check_cdiff(ck, con, s, r):
    what = "set %d c_index_diff(tau=%r)" % (s["set"], s["tau"])
    if math.isinf(s["tau"]):
        got = one(con, "SELECT c_index_diff(time, event, risk, risk_b) FROM t")
    else:
        got = one(con, "SELECT c_index_diff(time, event, risk, risk_b, ?) FROM t", s["tau"])
    rc = r["cdiff"]
    if not isinstance(rc, dict) or rc["c_a"] is None or rc["c_b"] is None:
        ck.equal(got, None, what + ": NULL where R has no concordance")
        return
    g = json.loads(got)
    ck.equal(list(g), ["c_a", "c_b", "diff", "se", "z", "p_value"], what + ": keys")
    close(ck, g["c_a"], rc["c_a"], "c_a: " + what)
    close(ck, g["c_b"], rc["c_b"], "c_b: " + what)
    close(ck, g["diff"], rc["c_a"] - rc["c_b"], "diff: " + what)
    close(ck, g["se"], rc["se"], "se: " + what)
    if rc["se"] and rc["se"] > 1e-12:
        z = (rc["c_a"] - rc["c_b"]) / rc["se"]
        close(ck, g["z"], z, "z: " + what)
        close(ck, g["p_value"], math.erfc(abs(z) / math.sqrt(2)), "p_value: " + what)


# -------------------------------------------------------- self-consistency

@mltest.covers("surv_auroc_ci", "surv_brier_ci", "surv_auroc_ci_w", "surv_brier_ci_w")
def check_boot(ck, con, s):
    t = s["t"]
    for f, point, score in (("surv_auroc_ci", "surv_auroc", "risk"), ("surv_brier_ci", "surv_brier", "p")):
        for twin, wa in (("", ""), ("_w", ", w")):
            what = "set %d %s%s(t=%r)" % (s["set"], f, twin, t)
            want = one(con, "SELECT %s%s(time, event, %s%s, ?) FROM t" % (point, twin, score, wa), t)
            got = one(con, "SELECT %s%s(time, event, %s%s, ?, 0.9, 30, 5) FROM t" % (f, twin, score, wa), t)
            if want is None:
                ck.equal(got, None, what + ": NULL where the point function is NULL")
                continue
            g = json.loads(got)
            ck.equal(list(g), ["estimate", "lo", "hi", "se", "level", "reps", "seed", "method", "redrawn", "n",
                               "percentile"], what + ": keys (pr_auc_ci's)")
            ck.equal(g["estimate"], want, what + ": estimate = %s bit for bit" % point)
            ck.true(g["lo"] is None or g["lo"] <= g["hi"], what + ": lo <= hi")
            # the order rows come in does not matter
            got2 = one(con, "SELECT %s%s(time, event, %s%s, ?, 0.9, 30, 5) FROM (SELECT * FROM t ORDER BY random())"
                       % (f, twin, score, wa), t)
            ck.equal(got2, got, what + ": the same text whatever the row order")


@mltest.covers("surv_calibration_w", "surv_net_benefit_w", "surv_decision_curve_w", "surv_auroc_ci_w",
                "surv_brier_ci_w", "c_index_diff_w")
def check_repeated(ck, con, s):
    """Integer weights = the rows repeated (rule 6)."""
    rng = np.random.default_rng(s["set"])
    wi = rng.integers(0, 4, len(s["time"]))
    rows, rep = [], []
    for i in range(len(s["time"])):
        row = (float(s["time"][i]), int(s["event"][i]), float(s["p"][i]), float(s["risk"][i]), float(s["risk_b"][i]))
        rows.append(row + (float(wi[i]), 0))
        rep += [row + (1.0, 0)] * int(wi[i])
    mltest.load(con, ["time", "event", "p", "risk", "risk_b", "w", "g"], rows, "tw")
    mltest.load(con, ["time", "event", "p", "risk", "risk_b", "w", "g"], rep, "tr")
    t = s["t"]
    calls = [("surv_calibration", "p", ", %r, %d" % (t, s["bins"]), None),
             ("surv_net_benefit", "p", ", %r, 0.3" % t, None),
             ("surv_decision_curve", "p", ", %r, 0.1, 0.9, 0.1" % t, None),
             ("surv_auroc_ci", "risk", ", %r, 0.95, 20, 1" % t, "estimate"),
             ("surv_brier_ci", "p", ", %r, 0.95, 20, 1" % t, "estimate"),
             ("c_index_diff", "risk, risk_b", "", None)]
    for f, score, par, field in calls:
        a = one(con, "SELECT %s_w(time, event, %s, w%s) FROM tw" % (f, score, par))
        b = one(con, "SELECT %s(time, event, %s%s) FROM tr" % (f, score, par))
        if field and a is not None and b is not None:
            a, b = json.loads(a)[field], json.loads(b)[field]
        ck.equal(a, b, "set %d %s_w with integer weights = the rows repeated" % (s["set"], f))


@mltest.covers("surv_calibration", "surv_net_benefit", "surv_decision_curve", "surv_auroc_ci", "surv_brier_ci")
def check_states(ck, con, s):
    """ml_state_surv (and _w) in place of the three data arguments gives the
    rows' text; ml_merge of the groups' states gives all rows'."""
    t = s["t"]
    calls = [("surv_calibration", "p", ", %r, %d" % (t, s["bins"])), ("surv_net_benefit", "p", ", %r, 0.3" % t),
             ("surv_decision_curve", "p", ", %r, 0.1, 0.9, 0.1" % t), ("surv_auroc_ci", "risk", ", %r, 0.9, 20, 3" % t),
             ("surv_brier_ci", "p", ", %r, 0.9, 20, 3" % t)]
    for f, x, par in calls:
        rows = one(con, "SELECT %s(time, event, %s%s) FROM t" % (f, x, par))
        st = one(con, "SELECT %s(st%s) FROM (SELECT ml_state_surv(time, event, %s) AS st FROM t)" % (f, par, x))
        ck.equal(st, rows, "set %d %s(state) = the rows" % (s["set"], f))
        merged = one(con, "SELECT %s(m%s) FROM (SELECT ml_merge(st) AS m FROM (SELECT ml_state_surv(time, event, %s) AS st"
                     " FROM t GROUP BY g))" % (f, par, x))
        ck.equal(merged, rows, "set %d %s(ml_merge of the groups' states) = the rows" % (s["set"], f))
        wrows = one(con, "SELECT %s_w(time, event, %s, w%s) FROM t" % (f, x, par))
        wst = one(con, "SELECT %s(st%s) FROM (SELECT ml_state_surv_w(time, event, %s, w) AS st FROM t)" % (f, par, x))
        ck.equal(wst, wrows, "set %d %s(weighted state) = %s_w over the rows" % (s["set"], f, f))


def check_windows(ck, con):
    rng = np.random.default_rng(49)
    n = 36
    time = rng.integers(1, 8, n).astype(float)
    event = (rng.random(n) < 0.6).astype(int)
    p = np.round(rng.random(n), 1)
    risk = np.round(rng.normal(0, 1, n), 1)
    risk_b = np.round(rng.normal(0, 1, n), 0)
    w = rng.integers(1, 4, n).astype(float)
    rows = [(float(time[i]), int(event[i]), float(p[i]), float(risk[i]), float(risk_b[i]), float(w[i]), i % 3, i // 2)
            for i in range(n)]
    mltest.load(con, ["time", "event", "p", "risk", "risk_b", "w", "g", "ts"], rows, "t")
    for expr in ["surv_calibration(time, event, p, 3, 3)", "surv_net_benefit(time, event, p, 3, 0.4)",
                 "surv_decision_curve(time, event, p, 3, 0.2, 0.8, 0.2)", "surv_auroc_ci(time, event, risk, 3, 0.9, 10, 2)",
                 "surv_brier_ci(time, event, p, 3, 0.9, 10, 2)", "c_index_diff(time, event, risk, risk_b)",
                 "c_index_diff_w(time, event, risk, risk_b, w, 5)", "surv_decision_curve_w(time, event, p, w, 3, 0.3, 0.6, 0.3)",
                 "surv_calibration_w(time, event, p, w, 3, 2)"]:
        mltest.same_as_aggregate(ck, con, expr, "ts", "(windows)")


def check_errors(ck, con):
    mltest.load(con, ["time", "event", "p", "risk", "risk_b", "w"], [(1.0, 1, 0.5, 0.1, 0.2, 1.0)], "e")
    cases = [
        ("SELECT surv_calibration(-1, 1, 0.5, 2) FROM e", "surv_calibration(): time must be a non-negative finite number, got -1"),
        ("SELECT surv_calibration(time, 2, p, 2) FROM e", "surv_calibration(): event must be 0 or 1, got 2"),
        ("SELECT surv_calibration(time, event, 1.5, 2) FROM e", "surv_calibration(): p must be a probability in [0, 1], got 1.5"),
        ("SELECT surv_calibration(time, event, p, 0) FROM e", "surv_calibration(): t must be a number in (0, Inf), got 0"),
        ("SELECT surv_calibration(time, event, p, 2, 0) FROM e", "surv_calibration(): bins must be an integer in 1..10000, got 0"),
        ("SELECT surv_net_benefit(time, event, p, 2, 1) FROM e", "surv_net_benefit(): pt must be a number in (0, 1), got 1"),
        ("SELECT surv_decision_curve(time, event, p, 2, 0.5, 0.2) FROM e",
         "surv_decision_curve(): from must be at most to, got from = 0.5 and to = 0.2"),
        ("SELECT surv_auroc_ci(time, event, risk, 2, 0.95, 5) FROM e", "surv_auroc_ci(): reps must be an integer in 10..1000000, got 5"),
        ("SELECT c_index_diff(time, event, risk, 'x') FROM e", "c_index_diff(): risk_b must be a number, got text 'x'"),
        ("SELECT surv_brier_ci_w(time, event, p, -1, 2) FROM e", "surv_brier_ci_w(): w must be a non-negative finite number, got -1"),
    ]
    for sql, msg in cases:
        ck.error(con, sql, (), msg)
    # a NULL row is skipped; no rows: NULL
    ck.equal(one(con, "SELECT surv_net_benefit(NULL, 1, 0.5, 2, 0.3) FROM e"), None, "a NULL time skips the row")


@mltest.covers("plot_km")
def check_plot_km(ck, con):
    """plot_km draws km()'s numbers: each event time's drop, the censoring
    ticks, the number at risk at the x ticks; valid XML, the same bytes twice."""
    import xml.etree.ElementTree as ET
    rng = np.random.default_rng(7)
    n = 80
    rows = [(float(rng.integers(0, 20)) / 2, int(rng.random() < 0.6), "abc"[i % 3], float(rng.integers(1, 4)))
            for i in range(n)]
    mltest.load(con, ["time", "event", "grp", "w"], rows, "k")
    for fn in ("km", "km_w"):
        wa = ", w" if fn == "km_w" else ""
        q = ("SELECT plot_km('risk ' || grp, c, 'KM') FROM (SELECT grp, %s(time, event%s) AS c FROM k GROUP BY grp "
             "ORDER BY grp)" % (fn, wa))
        svg = one(con, q)
        ck.equal(one(con, q), svg, "plot_km: the same bytes twice")
        root = ET.fromstring(svg)
        ns = "{http://www.w3.org/2000/svg}"
        curves = {g: json.loads(c) for g, c in con.execute(
            "SELECT grp, %s(time, event%s) FROM k GROUP BY grp ORDER BY grp" % (fn, wa))}
        polys = [e for e in root.iter(ns + "polyline") if e.get("class") == "curve"]
        ck.equal(len(polys), 3, "plot_km %s: one curve per series" % fn)
        xt = [float(t.text) for g in root.iter(ns + "g") if g.get("class") == "xtick" for t in g.iter(ns + "text")]
        x1 = max(xt)
        px = lambda t: 72 + t * 380 / x1
        py = lambda v: 44 + (1 - v) * 300
        ticks = [e for e in root.iter(ns + "line") if e.get("class") == "censor"]
        for (g, c), poly in zip(sorted(curves.items()), polys):
            pts = [tuple(map(float, xy.split(","))) for xy in poly.get("points").split()]
            vert = [(a, b) for a, b in zip(pts, pts[1:]) if abs(a[0] - b[0]) < 1e-9 and abs(a[1] - b[1]) > 1e-9]
            prev, want = 1.0, []
            for t, ne, sv in zip(c["time"], c["n_event"], c["surv"]):
                if ne > 0 and sv != prev:
                    want.append((px(t), py(prev), py(sv)))
                prev = sv
            ck.equal(len(vert), len(want), "plot_km %s %s: a drop per event time" % (fn, g))
            for (a, b), (x, y0, y1) in zip(vert, want):
                ck.true(abs(a[0] - x) < 0.006 and abs(a[1] - y0) < 0.006 and abs(b[1] - y1) < 0.006,
                        "plot_km %s %s: the drop at %r is km()'s" % (fn, g, (x, y0, y1)))
            col = poly.get("stroke")
            mine = sorted(round(float(e.get("x1")), 2) for e in ticks if e.get("stroke") == col)
            ck.equal(mine, sorted(round(px(t), 2) for t, nc in zip(c["time"], c["n_censor"]) if nc > 0),
                     "plot_km %s %s: a censoring tick per censored time" % (fn, g))
        atrisk = [e for e in root.iter(ns + "text") if e.get("class") == "atrisk"]
        rowsy = sorted({float(e.get("y")) for e in atrisk})
        ck.equal(len(rowsy), 3, "plot_km %s: a number-at-risk line per series" % fn)
        for (g, c), y in zip(sorted(curves.items()), rowsy):
            nums = [float(e.text) for e in atrisk if float(e.get("y")) == y and e.get("text-anchor") == "middle"]
            want = []
            for t in xt:
                later = [nr for tt, nr in zip(c["time"], c["n_risk"]) if tt >= t]
                want.append(later[0] if later else 0.0)
            ck.equal(nums, want, "plot_km %s %s: the number at risk at the ticks" % (fn, g))
    ck.error(con, "SELECT plot_km('a', c) FROM (SELECT km(time, event) AS c FROM k UNION ALL SELECT km(time, event) FROM k)",
             (), "plot_km(): series 'a' appears in two rows; a plot takes one row per series")
    ck.equal(one(con, "SELECT plot_km('a', NULL)"), None, "plot_km: a NULL curve is skipped; nothing to draw: NULL")


def load_gbsg(con):
    """tests/data/gbsg2_valid.csv into table gbsg; the same rows as a cohort."""
    with open(os.path.join(HERE, "data", "gbsg2_valid.csv")) as f:
        rows = [(int(r["pid"]), float(r["time"]), int(r["event"]), float(r["risk_full"]), float(r["p5_full"]),
                 float(r["risk_small"]), float(r["p5_small"])) for r in csv.DictReader(f)]
    con.execute("DROP TABLE IF EXISTS gbsg")
    con.execute("CREATE TABLE gbsg(pid, time, event, risk_full, p5_full, risk_small, p5_small)")
    con.executemany("INSERT INTO gbsg VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    a = np.array([r[1:] for r in rows])
    return dict(set=99, time=a[:, 0], event=a[:, 1].astype(int), p=a[:, 3], risk=a[:, 2], risk_b=a[:, 4],
                w=np.ones(len(rows)), t=5.0, bins=5, tau=math.inf)


def shell_text(v):
    """A value as the sqlite3 shell prints it in list mode."""
    if v is None:
        return ""
    if isinstance(v, float):
        z = "%.15g" % v
        return z if any(c in z for c in ".eni") else z + ".0"
    return str(v)


def check_gbsg_doc(ck, con):
    """docs/survival.md's worked example: every statement's output is the
    text the doc shows, and the picture is docs/img/km_gbsg.svg."""
    doc = open(os.path.join(HERE, "..", "docs", "survival.md"), encoding="utf-8").read()
    block = doc.split("<!-- gbsg example -->")[1].split("<!-- /gbsg example -->")[0]
    stmts, cur = [], None
    for line in block.strip().strip("`").strip().split("\n"):
        if line.startswith("sqlite> "):
            cur = [line[8:], []]
            stmts.append(cur)
        elif line.startswith("   ...> "):
            cur[0] += "\n" + line[8:]
        elif cur is not None:
            cur[1].append(line)
    ck.true(len(stmts) >= 5, "the worked example has its statements")
    for sql, want in stmts:
        got = ["|".join(shell_text(v) for v in r) for r in con.execute(sql).fetchall()]
        ck.equal(got, want, "docs/survival.md gbsg: " + sql.split("\n")[0])
    m = re.search(r"SELECT writefile\('km_gbsg.svg', (.*?)\)\s*\nFROM (.*?);", doc, re.S)
    svg = one(con, "SELECT %s FROM %s" % (m.group(1), m.group(2)))
    with open(os.path.join(HERE, "..", "docs", "img", "km_gbsg.svg"), encoding="utf-8") as f:
        ck.equal(svg, f.read(), "docs/img/km_gbsg.svg is plot_km's picture of the example")


def check_records(ck, con):
    table = json.loads(one(con, "SELECT mleval_functions()"))
    names = {f["name"]: f for f in table}
    for f in FUNCS:
        ck.true(f in names, "%s is registered" % f)
        ck.true(f + "_w" in names, "%s has its twin" % f)
    for f in PLOTS:
        ck.true(f in names and names[f]["family"] == "plot", "%s is registered in the plot family" % f)
    # every survival-family function not in part 1's list is tested here
    part1 = {"km", "censoring_km", "ipcw", "surv_auroc", "surv_brier", "surv_summary", "surv_ibs", "c_index",
             "c_index_ci", "uno_c", "ml_state_surv", "ml_state_surv_w"}
    for f in table:
        base = f.get("weighted_of") or f["name"]
        if f.get("family") == "survival" and base not in part1:
            ck.true(base in FUNCS, "%s (family survival) has no test in test_survival2.py" % f["name"])


def main():
    ck = mltest.Checker("test_survival2")
    con = mltest.connect()
    check_records(ck, con)
    check_errors(ck, con)
    check_plot_km(ck, con)
    rng = np.random.default_rng(20261207)
    sets = [cohort(rng, k) for k in range(24)]
    gbsg = load_gbsg(con)
    check_gbsg_doc(ck, con)
    sets.append(gbsg)                       # the worked example's rows against R too
    ok, why = r_available()
    if ok:
        with tempfile.TemporaryDirectory() as d:
            write_inputs(d, sets)
            R = run_r(d)
        for s in sets:
            load_set(con, s)
            r = R["s%d" % s["set"]]
            check_calibration(ck, con, s, r)
            check_net_benefit(ck, con, s, r)
            check_cdiff(ck, con, s, r)
        print("R comparisons done; max |mleval - R|:",
              ", ".join("%s %.3g" % kv for kv in sorted(MAXDIFF.items())))
    else:
        print("SKIP the R comparisons:", why)
    for s in sets[:12]:
        load_set(con, s)
        check_boot(ck, con, s)
        check_repeated(ck, con, s)
        check_states(ck, con, s)
    check_windows(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
