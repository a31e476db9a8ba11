# SPDX-License-Identifier: MIT
"""Differential suite of the survival family (issue 47) against live R.

R's side is tests/r/survival_ref.R, run ONCE over every cohort this test
writes (hex floats in CSV: R reads the doubles Python holds).  The cohorts
are sampled, not exhausted: sizes 1..150, heavy ties in time (integer and
half-integer times) and in risk, censorings tied with events,
administrative censoring at the end, 0-5 events in the small ones, horizons
before the first time, at observed times, between them and past the last,
truncations tau at and between event times.

1. R against SPEC: survfit (+ summary(times =)), prodlim(reverse = TRUE),
   concordance(reverse = TRUE [, ymax], timewt = "n" / "n/G2", weights =),
   riskRegression::Score (AUC, Brier, null Brier, IPA; IBS), pec::ibs agree
   with tests/survref.py, the numpy formulas of SPEC's eleven conventions
   (so the conventions are R's, and the formulas are the fallback oracle
   when R is absent).
2. mleval against R, for every function of the family present in the
   records: km (curve and at t), censoring_km, ipcw (auroc_w over its
   weights = surv_auroc), c_index, c_index_ci (estimate, counts, se =
   sqrt(var) of influence = 1, the Wald interval), uno_c, surv_auroc,
   surv_brier, surv_summary, surv_ibs; the weighted twins with real weights
   against R's weights = (km, c_index, uno_c: R's oracle; the twins' se by
   the frequency rule: integer weights = the repeated rows, bit for bit).
   Tolerance: relative 1e-10 plus an absolute floor of 1e-13 (values zero up
   to rounding); never stored R numbers.
3. Windows: every frame shape of mltest.FRAMES, frame by frame, equals the
   aggregate over the frame's rows bit for bit; GROUP BY the same.
4. States: ml_state_surv(time, event, risk) (and _w) in place of the rows
   gives the rows' bits; ml_merge of the groups' states = all rows.
5. scikit-survival #428's seven rows: every anchor's number (survival,
   scikit-survival's formula, survAUC's, lifelines' convention, pec,
   riskRegression's AUC(t)) and mleval's; the table is docs/survival.md's.
6. docs/survival.md's worked example (gbsg validated with a Cox model fitted
   on rotterdam; tests/data/gbsg_valid.csv, made by
   tests/r/survival_gbsg.R): every SQL block's output is the text the doc
   shows after it.
7. The suite fails when a record of the family has no test here.

Without Rscript (or a package) the R parts print SKIP with the reason and
the formulas of tests/survref.py stand in for R; exit 77 only when nothing
else can run.  Regenerate the doc's outputs and tables (review the diff):
    MLEVAL_LIB=ext/.libs/mleval /usr/bin/python3 tests/test_survival.py --update-doc

Cost: one Rscript run over all cohorts (~35 s of CPU; Score is most of it)
plus two small ones (#428, gbsg: ~5 s), and ~20 s of Python and SQLite (the
window frames of 8 cohorts, the rest one query per function and horizon).
"""
import csv
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time as _time

import numpy as np

import mltest
import survref

SRC = os.environ.get("srcdir", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SCRIPT = os.path.join(SRC, "tests", "r", "survival_ref.R")
REL, ABS = 1e-10, 1e-13
MEASURED = {}      # key -> [comparisons, max |diff|]
DIS = {}           # kind -> [count, first example]: where a reference has no number (printed)


def note(kind, example):
    d = DIS.setdefault(kind, [0, example])
    d[0] += 1

# The functions this suite tests (their twins _w with them); a record of the
# family outside this set fails test_records.
TESTED = {"km", "censoring_km", "ipcw", "c_index", "c_index_ci", "uno_c", "surv_auroc", "surv_brier",
          "surv_summary", "surv_ibs", "ml_state_surv"}


def measure(key, got, want):
    m = MEASURED.setdefault(key, [0, 0.0])
    m[0] += 1
    if got is not None and want is not None and math.isfinite(got) and math.isfinite(want):
        m[1] = max(m[1], abs(got - want))


def close(ck, got, want, what, key, rel=REL, abs_=ABS):
    ok = ck.close(got, want, what, rel=rel, abs_=abs_)
    measure(key, got, want)
    return ok


# ------------------------------------------------------------------ cohorts

def cohort(rng, n):
    """(time, event, risk, p, w) of n subjects with the ties SPEC's rules
    are about."""
    tk = rng.choice(["int", "half", "cont", "few"])
    if tk == "int":
        time = rng.integers(1, max(2, n // 3) + 1, n).astype(float)
    elif tk == "half":
        time = rng.integers(1, 2 * max(2, n // 2), n) / 2.0
    elif tk == "few":
        time = rng.choice([1.0, 2.0, 3.5], n)
    else:
        time = np.round(rng.exponential(10.0, n), 3) + 0.001
    event = (rng.random(n) < rng.uniform(0.2, 0.9)).astype(int)
    if rng.random() < 0.4:                                   # administrative censoring at the end
        end = float(np.quantile(time, rng.uniform(0.6, 0.95)))
        event[time > end] = 0
        time = np.minimum(time, end)
    if n >= 3 and rng.random() < 0.3:                         # few events (1..5)
        k = int(rng.integers(1, 6))
        event[:] = 0
        event[rng.choice(n, min(k, n), replace=False)] = 1
    rk = rng.choice(["int", "tenth", "cont", "const"], p=[0.35, 0.3, 0.3, 0.05])
    lin = -0.1 * time + rng.normal(0, 1, n)
    if rk == "int":
        risk = np.round(lin).astype(float)
    elif rk == "tenth":
        risk = np.round(lin, 1)
    elif rk == "const":
        risk = np.zeros(n)
    else:
        risk = lin
    p = 1 / (1 + np.exp(-risk))
    if rng.random() < 0.5:
        p = np.round(p, 1)
    w = np.round(rng.exponential(1.0, n), 3) + 0.125
    return time, event, risk, p, w


def horizons(rng, time, event):
    """Horizons at observed times, between, before the first, past the last."""
    u = np.unique(time)
    cand = list(rng.choice(u, min(3, len(u)), replace=False))
    if len(u) > 1:
        k = int(rng.integers(0, len(u) - 1))
        cand.append((u[k] + u[k + 1]) / 2)
    if rng.random() < 0.3:
        cand.append(u[0] / 2)
    if rng.random() < 0.2:
        cand.append(u[-1] + 1)
    return sorted({float(c) for c in cand if c > 0})


def datasets():
    rng = np.random.default_rng(4701)
    sets = []
    sizes = [1, 2, 3, 4, 5, 7, 10, 15, 25, 40, 60, 100, 150]
    for k in range(260):
        n = int(rng.choice(sizes, p=[0.03, 0.05, 0.06, 0.06, 0.08, 0.1, 0.12, 0.12, 0.12, 0.1, 0.07, 0.05, 0.04]))
        time, event, risk, p, w = cohort(rng, n)
        o = np.lexsort((-event, time))          # by time, events first (neither R nor mleval
        time, event, risk, p, w = time[o], event[o], risk[o], p[o], w[o]   # depends on it; SQL gets a shuffle)
        ts = horizons(rng, time, event)
        ev = np.unique(time[event == 1])
        taus = sorted({float(x) for x in (list(rng.choice(ev, min(2, len(ev)), replace=False)) if len(ev) else [])
                       + ([float(np.median(time)) + 0.25] if rng.random() < 0.5 else [])})
        d = {"time": time, "event": event, "risk": risk, "p": p, "w": w, "t": ts, "tau": taus}
        hz = [h for h in ts if h <= time.max()]
        if k % 3 == 0 and n >= 2 and hz:                     # long rows for the integrated Brier score
            P = np.clip(np.round(np.outer(p, np.ones(len(hz))) * (0.5 + 0.5 * np.arange(1, len(hz) + 1) / len(hz))
                                 + rng.normal(0, 0.05, (n, len(hz))), 2), 0, 1)
            d["hz"], d["P"] = hz, P
        sets.append(d)
    return sets


def features(ck, sets):
    """The sampler exercises what the docstring promises: counted and
    required."""
    c = dict.fromkeys(("event tied with a censoring", "two events at one time", "risk ties", "1-5 events",
                       "no event", "censorings tied at the last time", "horizon at an observed time",
                       "horizon between times", "horizon before the first time", "horizon past the last time",
                       "tau at an event time", "n <= 3", "long rows (surv_ibs)"), 0)
    for s in sets:
        t, e, r = s["time"], s["event"], s["risk"]
        ev, ce = set(t[e == 1]), set(t[e == 0])
        c["event tied with a censoring"] += bool(ev & ce)
        c["two events at one time"] += len(ev) < int(e.sum())
        c["risk ties"] += len(set(r)) < len(r)
        c["1-5 events"] += 1 <= int(e.sum()) <= 5
        c["no event"] += int(e.sum()) == 0
        c["censorings tied at the last time"] += int(((t == t.max()) & (e == 0)).sum()) >= 2
        u = set(t)
        c["horizon at an observed time"] += any(h in u for h in s["t"])
        c["horizon between times"] += any(t.min() < h < t.max() and h not in u for h in s["t"])
        c["horizon before the first time"] += any(h < t.min() for h in s["t"])
        c["horizon past the last time"] += any(h > t.max() for h in s["t"])
        c["tau at an event time"] += any(x in ev for x in s["tau"])
        c["n <= 3"] += len(t) <= 3
        c["long rows (surv_ibs)"] += "hz" in s
    print("cohorts: %d; " % len(sets) + ", ".join("%s %d" % kv for kv in c.items()))
    for k, v in c.items():
        ck.true(v >= 5, "the cohorts include %s (%d)" % (k, v))


def write_csvs(d, sets):
    h = float.hex
    with open(os.path.join(d, "cohorts.csv"), "w") as f:
        f.write("set,time,event,risk,p,w\n")
        for k, s in enumerate(sets):
            for i in range(len(s["time"])):
                f.write("%d,%s,%d,%s,%s,%s\n" % (k, h(float(s["time"][i])), s["event"][i], h(float(s["risk"][i])),
                                                 h(float(s["p"][i])), h(float(s["w"][i]))))
    with open(os.path.join(d, "params.csv"), "w") as f:
        f.write("set,kind,value\n")
        for k, s in enumerate(sets):
            for kind in ("t", "tau"):
                for v in s[kind]:
                    f.write("%d,%s,%s\n" % (k, kind, h(float(v))))
    with open(os.path.join(d, "long.csv"), "w") as f:
        f.write("set,row,horizon,p\n")
        for k, s in enumerate(sets):
            if "hz" in s:
                for i in range(len(s["time"])):
                    for j, hz in enumerate(s["hz"]):
                        f.write("%d,%d,%s,%s\n" % (k, i + 1, h(float(hz)), h(float(s["P"][i, j]))))


def r_available(pkgs=("survival", "prodlim", "riskRegression", "pec")):
    if os.environ.get("MLEVAL_NO_R"):
        return False, "MLEVAL_NO_R is set"
    if shutil.which("Rscript") is None:
        return False, "Rscript not found"
    r = subprocess.run(["Rscript", "-e", 'quit(status = !all(sapply(c(%s), requireNamespace, quietly = TRUE)))'
                        % ", ".join('"%s"' % p for p in pkgs)], capture_output=True, text=True, timeout=300,
                       env=r_env())
    return (True, None) if r.returncode == 0 else (False, "R lacks one of " + ", ".join(pkgs))


def r_env():
    """The environment for Rscript: without check-sanitize's preloaded
    sanitizer runtimes (R does not load the extension)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def run_r(script, d, *extra):
    r = subprocess.run(["Rscript", script, d] + list(extra), capture_output=True, text=True, timeout=900,
                       env=r_env())
    if r.returncode != 0:
        raise RuntimeError("Rscript %s failed (%d): %s" % (script, r.returncode, r.stderr[-2000:]))
    with open(os.path.join(d, "r.json")) as f:
        return json.load(f)


def one(con, sql, *args):
    return con.execute(sql, args).fetchone()[0]


def fl(v):
    return None if v is None else float(v)


# ------------------------------------------- 1. R against SPEC's formulas

def as_list(v):
    return [None if x is None else float(x) for x in v]


def ref_vs_r(ck, k, s, r):
    """tests/survref.py's formulas against R's numbers for cohort k."""
    time, event, risk, p, w = s["time"], s["event"], s["risk"], s["p"], s["w"]
    what = "cohort %d (n %d)" % (k, len(time))
    for wkey, ww in (("", None), ("_w", w)):
        f = survref.km_fit(time, event, ww)
        rk = r["km" + wkey]
        for key in ("time", "n_risk", "n_event", "n_censor", "surv", "se"):
            got = as_list(f[key])
            ck.equal(len(got), len(rk[key]), "%s: survfit%s %s length" % (what, wkey, key))
            for a, b in zip(got, rk[key]):
                close(ck, None if a is not None and math.isnan(a) else a, b,
                      "%s: survfit%s %s" % (what, wkey, key), "R vs SPEC: survfit%s %s" % (wkey, key))
        for t, ra in zip(s["t"], r["km" + wkey + "_at"]):
            a = survref.km_at(time, event, t, ww)
            for key in ("surv", "se", "n_risk", "n_event"):
                close(ck, a[key], ra[key], "%s: summary(survfit%s, times = %r) %s" % (what, wkey, t, key),
                      "R vs SPEC: summary(times=)%s %s" % (wkey, key))
    if "error" not in r["G"]:
        f = survref.km_fit(time, event)
        for u, g in zip(r["G"]["time"], r["G"]["surv"]):
            close(ck, survref.step(f, "G", u), g, "%s: prodlim reverse at %r" % (what, u), "R vs SPEC: prodlim G")
    for rc in r["conc"]:
        if "error" in rc:
            ck.true(len(time) < 2, "%s: concordance failed: %s" % (what, rc["error"]))
            note("concordance fails on one row (R error)", what)
            continue
        tau = rc["tau"]
        c, con, dis, tie = survref.pairs(time, event, risk, tau)
        close(ck, c, rc["c"], "%s tau %r: concordance" % (what, tau), "R vs SPEC: concordance")
        if c is not None:
            ck.equal([con, dis, tie], rc["count"][:3], "%s tau %r: counts" % (what, tau))
            close(ck, sum(x * x for x in rc["dfbeta"]), rc["var"], "%s: var = sum dfbeta^2" % what,
                  "R: var = sum dfbeta^2")
        close(ck, survref.pairs(time, event, risk, tau, uno=True)[0], rc["uno"], "%s tau %r: n/G2" % (what, tau),
              "R vs SPEC: concordance n/G2")
        close(ck, survref.pairs(time, event, risk, tau, w=w)[0], rc["c_w"], "%s tau %r: weights=" % (what, tau),
              "R vs SPEC: concordance weights=")
        close(ck, survref.pairs(time, event, risk, tau, w=w, uno=True)[0], rc["uno_w"],
              "%s tau %r: n/G2 weights=" % (what, tau), "R vs SPEC: concordance n/G2 weights=")
    sc = r["score"]
    if "error" in sc:
        note("Score fails (R error)", "%s: %s" % (what, sc["error"]))
    else:
        for j, t in enumerate(s["t"]):
            a = survref.at_horizon(time, event, p, t)
            for key in ("auroc", "brier", "brier_null", "ipa"):
                rv = sc[{"auroc": "auc"}.get(key, key)][j]
                if rv is None and a[key] is not None:
                    g0 = survref.step(survref.km_fit(time, event), "G", t) == 0
                    note("Score's %s NA where G(t) = 0 (no control; SPEC: defined)" % key if g0 else
                         "Score drops a horizon past the last time (%s)" % key,
                         "%s t %r: SPEC's %r" % (what, t, a[key]))
                    ck.true(g0 or t > time.max(), "%s t %r: Score's %s is NA only where G(t) = 0" % (what, t, key))
                    continue
                close(ck, a[key], rv, "%s t %r: Score %s" % (what, t, key), "R vs SPEC: Score " + key)
    if "ibs" in r:
        ri = r["ibs"]
        if "error" in ri:
            note("Score(ibs) fails (R error)", "%s: %s" % (what, ri["error"]))
        else:
            B = [survref.at_horizon(time, event, s["P"][:, j], h)["brier"] for j, h in enumerate(s["hz"])]
            B0 = [survref.at_horizon(time, event, s["P"][:, j], h)["brier_null"] for j, h in enumerate(s["hz"])]
            for j, h in enumerate(s["hz"]):
                close(ck, B[j], ri["brier"][j], "%s: Score Brier at %r (long rows)" % (what, h),
                      "R vs SPEC: Score Brier")
            close(ck, survref.ibs(s["hz"], B), ri["ibs"], what + ": Score IBS", "R vs SPEC: Score IBS")
            close(ck, survref.ibs(s["hz"], B0), ri["ibs_null"], what + ": Score null IBS", "R vs SPEC: Score IBS")
            if ri["pec_ibs"] is not None:
                close(ck, survref.ibs(s["hz"], B), ri["pec_ibs"], what + ": pec::ibs", "R vs SPEC: pec::ibs")


# ------------------------------------------------ 2. mleval against R

def records(con):
    return json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])


def load_cohort(con, s, rng=None, table="t"):
    """Table t(id, g, time, event, risk, p, w, iw) of a cohort, rows in a
    shuffled order (the results do not depend on it)."""
    n = len(s["time"])
    order = np.arange(n) if rng is None else rng.permutation(n)
    mltest.load(con, ["g", "time", "event", "risk", "p", "w", "iw"],
                [(int(i % 3), float(s["time"][i]), int(s["event"][i]), float(s["risk"][i]), float(s["p"][i]),
                  float(s["w"][i]), int(s["iw"][i]) if "iw" in s else 1) for i in order], table)


def jget(con, sql, *args):
    v = one(con, sql, *args)
    return None if v is None else json.loads(v)


def cmp_curve(ck, got, want, what, key):
    """A km()-shaped curve against R's (or SPEC's) per-time arrays."""
    if got is None:
        ck.true(False, what + ": NULL")
        return
    for f in ("time", "n_risk", "n_event", "n_censor", "surv", "se"):
        g, w = got.get(f), want[f]
        if g is None or len(g) != len(w):
            ck.true(False, "%s: %s has %s entries, want %d" % (what, f, None if g is None else len(g), len(w)))
            continue
        for a, b in zip(g, w):
            close(ck, a, b, "%s %s" % (what, f), key + " " + f)


@mltest.covers("km", "censoring_km", "ipcw", "surv_auroc", "surv_brier", "surv_summary", "surv_ibs",
               "c_index", "c_index_ci", "uno_c", "km_w", "censoring_km_w", "surv_auroc_w", "surv_brier_w",
               "surv_summary_w", "surv_ibs_w", "c_index_w", "c_index_ci_w", "uno_c_w")
def mleval_vs_r(ck, con, have, k, s, r, rng):
    """Every function of the family present (have) on cohort k, against R's
    numbers r (None: SPEC's formulas of tests/survref.py)."""
    time, event, risk, p, w = s["time"], s["event"], s["risk"], s["p"], s["w"]
    what = "cohort %d (n %d)" % (k, len(time))
    src = "R" if r is not None else "SPEC"
    load_cohort(con, s, rng)
    for tw, ww in (("", None), ("_w", w)):
        wa = ", w" if tw else ""
        if "km" + tw in have:
            want = r["km" + tw] if r else {f: [None if isinstance(x, float) and math.isnan(x) else float(x)
                                               for x in v] for f, v in survref.km_fit(time, event, ww).items()}
            cmp_curve(ck, jget(con, "SELECT km%s(time, event%s) FROM t" % (tw, wa)), want,
                      "%s: km%s curve vs %s" % (what, tw, "survfit" if r else "SPEC"), "km%s curve vs %s" % (tw, src))
            for j, t in enumerate(s["t"]):
                g = jget(con, "SELECT km%s(time, event%s, ?) FROM t" % (tw, wa), t)
                want = r["km" + tw + "_at"][j] if r else survref.km_at(time, event, t, ww)
                ww_ = "%s: km%s(.., %r) vs %s" % (what, tw, t, src)
                if g is None:
                    ck.true(False, ww_ + ": NULL")
                    continue
                ck.equal(list(g), ["t", "surv", "risk", "se", "n_risk", "n_events"], ww_ + " keys")
                ck.equal(g.get("t"), t, ww_ + " t")
                close(ck, g.get("surv"), want["surv"], ww_ + " surv", "km%s at t vs %s: surv" % (tw, src))
                close(ck, g.get("risk"), None if want["surv"] is None else 1 - want["surv"], ww_ + " risk",
                      "km%s at t vs %s: risk" % (tw, src))
                close(ck, g.get("se"), want["se"], ww_ + " se", "km%s at t vs %s: se" % (tw, src))
                close(ck, g.get("n_risk"), want["n_risk"], ww_ + " n_risk", "km%s at t vs %s: n_risk" % (tw, src))
                close(ck, g.get("n_events"), want["n_event"], ww_ + " n_events",
                      "km%s at t vs %s: n_events" % (tw, src))
        # Harrell's and Uno's C, per tau
        for j, tau in enumerate([None] + list(s["tau"])):
            rc = r["conc"][j] if r else None
            ta = "" if tau is None else ", %r" % tau
            if rc is not None and "error" in rc:
                rc = {"c": None, "uno": None, "c_w": None, "uno_w": None, "var": None, "count": None}
            if rc is None:
                rc = {"c": survref.pairs(time, event, risk, tau)[0], "uno": survref.pairs(time, event, risk, tau,
                                                                                          uno=True)[0],
                      "c_w": survref.pairs(time, event, risk, tau, w=w)[0],
                      "uno_w": survref.pairs(time, event, risk, tau, w=w, uno=True)[0]}
            for fn, key in (("c_index", "c"), ("uno_c", "uno")):
                if fn + tw in have:
                    got = one(con, "SELECT %s%s(time, event, risk%s%s) FROM t" % (fn, tw, wa, ta))
                    close(ck, got, rc[key + tw], "%s tau %r: %s%s vs %s" % (what, tau, fn, tw, src),
                          "%s%s vs %s" % (fn, tw, src))
            if "c_index_ci" + tw in have and (tw == "" or True):
                g = jget(con, "SELECT c_index_ci%s(time, event, risk%s%s) FROM t" % (tw, wa, ta if ta else ""))
                ww_ = "%s tau %r: c_index_ci%s" % (what, tau, tw)
                if rc["c" + tw] is None:
                    ck.true(g is None or g.get("estimate") is None, ww_ + ": undefined")
                elif g is None:
                    ck.true(False, ww_ + ": NULL")
                else:
                    close(ck, g["estimate"], rc["c" + tw], ww_ + " estimate", "c_index_ci%s estimate vs %s" % (tw, src))
                    if tw == "" and rc.get("var") is not None:
                        se = math.sqrt(rc["var"])
                        close(ck, g["se"], se, ww_ + " se vs sqrt(concordance()$var)", "c_index_ci se vs R sqrt(var)")
                        z = 1.959963984540054
                        close(ck, g["lo"], rc["c"] - z * se, ww_ + " lo", "c_index_ci lo vs R", rel=1e-9)
                        close(ck, g["hi"], rc["c"] + z * se, ww_ + " hi", "c_index_ci hi vs R", rel=1e-9)
                        if tau is not None:
                            g9 = jget(con, "SELECT c_index_ci(time, event, risk%s, 0.9) FROM t" % ta)
                            z9 = 1.6448536269514722
                            close(ck, g9["lo"], rc["c"] - z9 * se, ww_ + " lo at level 0.9", "c_index_ci lo vs R",
                                  rel=1e-9)
                            close(ck, g9["hi"], rc["c"] + z9 * se, ww_ + " hi at level 0.9", "c_index_ci hi vs R",
                                  rel=1e-9)
                        cnt = rc["count"]
                        ck.equal([g["concordant"], g["discordant"], g["tied_risk"]], cnt[:3],
                                 ww_ + " counts vs concordance()$count")
                        ck.equal(g["tied_time"], cnt[3], ww_ + " tied_time = concordance()$count tied.y")
                        measure("c_index_ci counts vs R", 0.0, 0.0)
        # at the horizons
        sc = r["score"] if r and "error" not in r["score"] else None
        for j, t in enumerate(s["t"]):
            a = survref.at_horizon(time, event, p, t, ww)
            for fn, key, rk in (("surv_auroc", "auroc", "auc"), ("surv_brier", "brier", "brier")):
                if fn + tw not in have:
                    continue
                got = one(con, "SELECT %s%s(time, event, p%s, ?) FROM t" % (fn, tw, wa), t)
                rv = sc[rk][j] if sc and tw == "" else None
                if rv is None:
                    close(ck, got, a[key], "%s t %r: %s%s vs SPEC" % (what, t, fn, tw), "%s%s vs SPEC" % (fn, tw))
                else:
                    close(ck, got, rv, "%s t %r: %s vs Score" % (what, t, fn), "%s vs R Score" % fn)
            if "surv_summary" + tw in have:
                g = jget(con, "SELECT surv_summary%s(time, event, p%s, ?) FROM t" % (tw, wa), t)
                ww_ = "%s t %r: surv_summary%s" % (what, t, tw)
                if g is None:
                    ck.true(False, ww_ + ": NULL")
                    continue
                ck.equal(list(g)[:12], ["t", "n", "cases", "controls", "censored", "auroc", "brier", "brier_null",
                                        "ipa", "km_risk", "mean_p", "oe"], ww_ + " keys")
                for key, ak in (("n", "W"), ("cases", "cases"), ("controls", "controls"), ("censored", "censored"),
                                ("km_risk", "km_risk"), ("mean_p", "mean_p"), ("oe", "oe")):
                    close(ck, g.get(key), a[ak], "%s %s vs SPEC" % (ww_, key), "surv_summary%s %s vs SPEC" % (tw, key))
                for key, rk in (("auroc", "auc"), ("brier", "brier"), ("brier_null", "brier_null"), ("ipa", "ipa")):
                    rv = sc[rk][j] if sc and tw == "" else None
                    if rv is None:
                        close(ck, g.get(key), a[key], "%s %s vs SPEC" % (ww_, key), "surv_summary%s %s vs SPEC"
                              % (tw, key))
                    else:
                        close(ck, g.get(key), rv, "%s %s vs Score" % (ww_, key), "surv_summary %s vs R Score" % key,
                              rel=1e-9 if key == "ipa" else REL)
    # the weights themselves
    if "censoring_km" in have:
        g = jget(con, "SELECT censoring_km(time, event) FROM t")
        f = survref.km_fit(time, event)
        ts_ = r["G"]["time"] if r and "error" not in r["G"] else list(f["time"])
        gs = r["G"]["surv"] if r and "error" not in r["G"] else list(f["G"])
        if g is None:
            ck.true(False, what + ": censoring_km NULL")
        else:
            mine = {"time": np.array(g["time"]), "G": np.array(g["surv"])}
            for u, v in zip(ts_, gs):
                close(ck, survref.step(mine, "G", u), v, "%s: censoring_km at %r vs %s" % (what, u,
                      "prodlim reverse" if r else "SPEC"), "censoring_km vs " + src)
        if "ipcw" in have:
            for t in s["t"]:
                rows = con.execute("SELECT time, event, ipcw((SELECT censoring_km(time, event) FROM t), time, event, ?)"
                                   " FROM t", (t,)).fetchall()
                for tm, ev, got in rows:
                    want = survref.ipcw(f, tm, ev, t)
                    close(ck, got, None if math.isinf(want) else want,
                          "%s: ipcw at t %r row (%r, %d)" % (what, t, tm, ev),
                          "ipcw vs SPEC (G = R's)")
                if "surv_auroc" in have:
                    b = one(con, "SELECT surv_auroc(time, event, p, ?) FROM t", t)
                    # with the rows censored by t (weight 0) and without them
                    for where in ("", " WHERE ipcw(g.curve, time, event, ?1) > 0"):
                        a = one(con, "WITH g AS (SELECT censoring_km(time, event) AS curve FROM t) "
                                     "SELECT auroc_w(time <= ?1 AND event = 1, p, ipcw(g.curve, time, event, ?1)) "
                                     "FROM t, g" + where, t)
                        if b is not None:
                            close(ck, a, b, "%s t %r: auroc_w over ipcw%s = surv_auroc" % (what, t, where),
                                  "auroc_w(ipcw) = surv_auroc", rel=1e-12, abs_=1e-15)
    if "censoring_km_w" in have:
        g = jget(con, "SELECT censoring_km_w(time, event, w) FROM t")
        f = survref.km_fit(time, event, w)
        mine = {"time": np.array(g["time"]), "G": np.array(g["surv"])} if g else None
        ck.true(mine is not None, what + ": censoring_km_w NULL")
        for u, v in zip(f["time"], f["G"]) if mine else ():
            close(ck, survref.step(mine, "G", u), float(v), "%s: censoring_km_w at %r vs SPEC" % (what, u),
                  "censoring_km_w vs SPEC")
    if "surv_ibs_w" in have and "hz" in s:
        rows = [(i, float(time[i]), int(event[i]), float(h), float(s["P"][i, j]), float(w[i]))
                for i in range(len(time)) for j, h in enumerate(s["hz"])]
        mltest.load(con, ["sid", "time", "event", "horizon", "p", "w"], rows, "lg")
        g = jget(con, "SELECT surv_ibs_w(time, event, horizon, p, w) FROM lg")
        B = [survref.at_horizon(time, event, s["P"][:, j], h, w)["brier"] for j, h in enumerate(s["hz"])]
        B0 = [survref.at_horizon(time, event, s["P"][:, j], h, w)["brier_null"] for j, h in enumerate(s["hz"])]
        if g is None:
            ck.true(survref.ibs(s["hz"], B) is None, what + ": surv_ibs_w NULL")
        else:
            close(ck, g["ibs"], survref.ibs(s["hz"], B), what + ": surv_ibs_w ibs", "surv_ibs_w ibs vs SPEC")
            close(ck, g["ibs_null"], survref.ibs(s["hz"], B0), what + ": surv_ibs_w ibs_null", "surv_ibs_w ibs vs SPEC")
    if "surv_ibs" in have and "hz" in s:
        rows = [(i, float(time[i]), int(event[i]), float(h), float(s["P"][i, j]))
                for i in range(len(time)) for j, h in enumerate(s["hz"])]
        mltest.load(con, ["sid", "time", "event", "horizon", "p"], rows, "lg")
        g = jget(con, "SELECT surv_ibs(time, event, horizon, p) FROM lg")
        B = [survref.at_horizon(time, event, s["P"][:, j], h)["brier"] for j, h in enumerate(s["hz"])]
        B0 = [survref.at_horizon(time, event, s["P"][:, j], h)["brier_null"] for j, h in enumerate(s["hz"])]
        ri = r.get("ibs") if r else None
        if ri is not None and "error" in ri:
            ri = None
        want = {"ibs": ri["ibs"] if ri and ri["ibs"] is not None else survref.ibs(s["hz"], B),
                "ibs_null": ri["ibs_null"] if ri and ri["ibs_null"] is not None else survref.ibs(s["hz"], B0)}
        if g is None:
            ck.true(want["ibs"] is None, what + ": surv_ibs NULL")
        else:
            ck.equal(list(g)[:5], ["ibs", "ibs_null", "horizons", "brier", "brier_null"], what + ": surv_ibs keys")
            ck.equal(g["horizons"], s["hz"], what + ": surv_ibs horizons")
            for key in ("ibs", "ibs_null"):
                close(ck, g[key], want[key], "%s: surv_ibs %s" % (what, key),
                      "surv_ibs %s vs %s" % (key, "R Score" if ri else "SPEC"))
            for j in range(len(s["hz"])):
                close(ck, g["brier"][j], B[j], what + ": surv_ibs brier", "surv_ibs brier vs SPEC")
                close(ck, g["brier_null"][j], B0[j], what + ": surv_ibs brier_null", "surv_ibs brier_null vs SPEC")


# -------------------------- 3, 4: twins, windows, GROUP BY, states (bits)

def exprs(have, t, tau):
    """(function, rows form with {X} for its first arguments, X's columns,
    the parameters' tail) of every function present, for the bit-for-bit
    checks."""
    out = []
    for fn, x, tail in (("km", "time, event", ""), ("km", "time, event", ", %r" % t),
                        ("censoring_km", "time, event", ""),
                        ("c_index", "time, event, risk", ""), ("c_index", "time, event, risk", ", %r" % tau),
                        ("c_index_ci", "time, event, risk", ""), ("uno_c", "time, event, risk", ""),
                        ("uno_c", "time, event, risk", ", %r" % tau),
                        ("surv_auroc", "time, event, risk", ", %r" % t), ("surv_brier", "time, event, p", ", %r" % t),
                        ("surv_summary", "time, event, p", ", %r" % t)):
        if fn in have:
            out.append((fn, x, tail))
    return out


@mltest.covers("ml_state_surv", "ml_state_surv_w")
def bits(ck, con, have, s, k, rng):
    """Integer weights = repeated rows; every window frame = the aggregate
    over its rows; GROUP BY likewise; states (and their merge) = the rows."""
    what = "cohort %d (n %d)" % (k, len(s["time"]))
    s = dict(s, iw=rng.integers(0, 4, len(s["time"])))
    load_cohort(con, s, rng)
    con.execute("DROP TABLE IF EXISTS tr")
    con.execute("CREATE TABLE tr AS SELECT t.* FROM t, (SELECT value AS k FROM json_each('[1,2,3]')) AS r "
                "WHERE r.k <= t.iw")
    t = float(np.median(s["time"]))
    ev = s["time"][s["event"] == 1]
    tau = float(ev[len(ev) // 2]) if len(ev) else t
    for fn, x, tail in exprs(have, t, tau):
        rows = "%s(%s%s)" % (fn, x, tail)
        if fn + "_w" in have:
            wexpr = "%s_w(%s, iw%s)" % (fn, x, tail)
            ck.equal(one(con, "SELECT %s FROM t" % wexpr), one(con, "SELECT %s FROM tr" % rows),
                     "%s: %s = the rows repeated, bit for bit" % (what, wexpr))
            measure("twin, integer weights = repeated rows (bits)", 0.0, 0.0)
        mltest.same_as_aggregate(ck, con, rows, "id", what)
        measure("window frames and GROUP BY = aggregate (bits)", 0.0, 0.0)
        if fn + "_w" in have and fn in ("c_index", "surv_brier", "km"):
            mltest.same_as_aggregate(ck, con, "%s_w(%s, w%s)" % (fn, x, tail), "id", what)
            measure("window frames and GROUP BY = aggregate (bits)", 0.0, 0.0)
        if "ml_state_surv" in have:
            cols = x if x.count(",") == 2 else "time, event, risk"
            con.execute("DROP TABLE IF EXISTS st")
            con.execute("CREATE TABLE st AS SELECT g, ml_state_surv(%s) AS s FROM t GROUP BY g" % cols)
            for g, v in con.execute("SELECT g, %s(s%s) FROM st GROUP BY g" % (fn, tail)).fetchall():
                ck.equal(v, one(con, "SELECT %s FROM t WHERE g = ?" % rows, g),
                         "%s: %s over the state of group %d = the rows" % (what, fn, g))
            ck.equal(one(con, "SELECT %s(s%s) FROM st" % (fn, tail)), one(con, "SELECT %s FROM t" % rows),
                     "%s: %s over the groups' states = all rows" % (what, fn))
            if "ml_merge" in have:
                ck.equal(one(con, "SELECT %s(m%s) FROM (SELECT ml_merge(s) AS m FROM st)" % (fn, tail)),
                         one(con, "SELECT %s FROM t" % rows), "%s: %s over ml_merge of the states" % (what, fn))
            if "ml_state_surv_w" in have and fn + "_w" in have:
                v = one(con, "SELECT %s(s%s) FROM (SELECT ml_state_surv_w(%s, w) AS s FROM t)" % (fn, tail, cols))
                ck.equal(v, one(con, "SELECT %s_w(%s, w%s) FROM t" % (fn, x, tail)),
                         "%s: %s over ml_state_surv_w = the weighted rows" % (what, fn))
            measure("states = rows (bits)", 0.0, 0.0)
    if "surv_ibs" in have:
        hz = sorted({float(np.quantile(s["time"], q)) for q in (0.3, 0.6, 0.9)})
        rows = [(int(i % 3), float(s["time"][i]), int(s["event"][i]), h, float(min(1.0, s["p"][i] * (0.5 + j / 4))),
                 int(s["iw"][i])) for i in range(len(s["time"])) for j, h in enumerate(hz)]
        mltest.load(con, ["g", "time", "event", "horizon", "p", "iw"], rows, "lg")
        con.execute("DROP TABLE IF EXISTS lgr")
        con.execute("CREATE TABLE lgr AS SELECT lg.* FROM lg, (SELECT value AS k FROM json_each('[1,2,3]')) AS r "
                    "WHERE r.k <= lg.iw")
        if "surv_ibs_w" in have:
            ck.equal(one(con, "SELECT surv_ibs_w(time, event, horizon, p, iw) FROM lg"),
                     one(con, "SELECT surv_ibs(time, event, horizon, p) FROM lgr"),
                     "%s: surv_ibs_w = the rows repeated, bit for bit" % what)
            measure("twin, integer weights = repeated rows (bits)", 0.0, 0.0)
        # a frame must hold whole subjects (every horizon's rows): GROUP BY and
        # the frames of whole partitions
        for g, v in con.execute("SELECT g, surv_ibs(time, event, horizon, p) FROM lg GROUP BY g"):
            ck.equal(v, one(con, "SELECT surv_ibs(time, event, horizon, p) FROM lg WHERE g = ?", g),
                     "%s: surv_ibs GROUP BY group %d" % (what, g))
        for i, v in con.execute("SELECT id, surv_ibs(time, event, horizon, p) OVER (PARTITION BY g) FROM lg"):
            gg = one(con, "SELECT g FROM lg WHERE id = ?", i)
            ck.equal(v, one(con, "SELECT surv_ibs(time, event, horizon, p) FROM lg WHERE g = ?", gg),
                     "%s: surv_ibs OVER (PARTITION BY g) row %d" % (what, i))
        measure("window frames and GROUP BY = aggregate (bits)", 0.0, 0.0)


# ------------------------------------------- 5. scikit-survival #428

S428 = {"time": [11.0, 11.0, 26.0, 89.0, 128.0, 299.0, 300.0], "event": [1, 0, 0, 1, 0, 1, 0],
        "risk": [-0.02, 1.20, -0.56, -1.33, -0.81, 1.02, -1.29]}
TAU428 = 299.0
SKSURV_428 = 0.37426900584795325      # concordance_index_ipcw(tau = 299), as reported in #428
SURVAUC_428 = 0.4129032               # survAUC::UnoC(time = 299), as reported (7 digits)


def censoring_steps(time, event, events_first):
    """The censoring Kaplan-Meier as (times, values): with events_first the
    risk set at u is n(u) - d(u) (SPEC rule 2, prodlim reverse, sksurv's
    kaplan_meier_estimator(reverse = True)); without, n(u) (survfit on
    1 - event, which survAUC uses)."""
    f = survref.km_fit(time, event)
    g, out = 1.0, []
    for n, d, c in zip(f["n_risk"], f["n_event"], f["n_censor"]):
        r = n - d if events_first else n
        g *= (r - c) / r if r > 0 else 1.0
        out.append(g)
    return {"time": f["time"], "G": np.array(out)}


def ipcw_c(time, event, risk, tau, G, before, strict_time, strict_tau):
    """An IPCW C-index family: pairs (i event, j later; with strict_time
    only T_j > T_i, else also a censoring tied with it) weighted 1/G^2 at
    T_i (G(T_i-) with before, else G(T_i)), kept where T_i < tau
    (strict_tau) or <= tau; risk ties 1/2."""
    time, event, risk = np.asarray(time), np.asarray(event), np.asarray(risk)
    num = den = 0.0
    for i in range(len(time)):
        if event[i] != 1 or (time[i] >= tau if strict_tau else time[i] > tau):
            continue
        w = 1.0 / survref.step(G, "G", time[i], before=before) ** 2
        comp = (time > time[i]) if strict_time else ((time > time[i]) | ((time == time[i]) & (event == 0)))
        num += w * ((risk[comp] < risk[i]).sum() + 0.5 * (risk[comp] == risk[i]).sum())
        den += w * comp.sum()
    return num / den


def anchors_428(R428):
    """Every anchor's number on #428's rows: (label, value, how)."""
    t, e, r = S428["time"], S428["event"], S428["risk"]
    Grule2, Gsurvfit = censoring_steps(t, e, True), censoring_steps(t, e, False)
    out = [("survival concordance(reverse = TRUE) (Harrell, no tau)", survref.pairs(t, e, r)[0], "formula = R"),
           ("survival concordance(reverse = TRUE, ymax = 299)", survref.pairs(t, e, r, TAU428)[0], "formula = R"),
           ("survival concordance(timewt = \"n/G2\", ymax = 299) (Uno)",
            survref.pairs(t, e, r, TAU428, uno=True)[0], "formula = R"),
           ("scikit-survival concordance_index_censored (Harrell)", survref.pairs(t, e, r)[0],
            "its convention: same pairs and ties as survival"),
           ("scikit-survival concordance_index_ipcw(tau = 299)",
            ipcw_c(t, e, r, TAU428, Grule2, before=False, strict_time=False, strict_tau=True),
            "its formula: G(T) not G(T-), T < tau"),
           ("survAUC UnoC(time = 299)",
            ipcw_c(t, e, r, TAU428, Gsurvfit, before=False, strict_time=True, strict_tau=True),
            "its formula: G from survfit(1 - event), G(T), T_j > T_i strictly, T < tau"),
           ("lifelines concordance_index(T, -risk, E)", survref.pairs(t, e, r)[0],
            "its convention: Harrell, no truncation")]
    a = survref.at_horizon(t, e, 1 / (1 + np.exp(-np.array(r))), TAU428)
    out.append(("riskRegression Score AUC(t = 299) (time-dependent, not a C)", a["auroc"], "formula = R"))
    if R428:
        out.append(("pec cindex(eval.times = 299) (IPCW, Gerds)", R428["pec_cindex"], "live R"))
    return out


def test_428(ck, con, have, have_r):
    """scikit-survival #428: the anchors' numbers, R's where R runs, and
    mleval's."""
    R428 = None
    if have_r:
        code = ('suppressMessages({library(survival); library(riskRegression); library(pec)});'
                'd <- data.frame(time = c(%s), event = c(%s), risk = c(%s)); d$p <- plogis(d$risk);'
                'f <- function(...) concordance(Surv(time, event) ~ risk, data = d, reverse = TRUE, ...)$concordance;'
                's <- Score(list(m = d$p), Hist(time, event) ~ 1, data = d, times = 299, metrics = "auc",'
                ' cens.model = "km", conf.int = FALSE);'
                'pc <- pec::cindex(list(m = as.matrix(1 - d$p)), formula = Surv(time, event) ~ 1, data = d,'
                ' eval.times = 299)$AppCindex$m;'
                'cat(sprintf("%%.17g", c(f(), f(ymax = 299), f(ymax = 299, timewt = "n/G2"),'
                ' as.data.frame(s$AUC$score)$AUC[1], pc)), "\\n")') % (
            ", ".join(map(repr, S428["time"])), ", ".join(map(str, S428["event"])), ", ".join(map(repr, S428["risk"])))
        out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=300, env=r_env())
        v = [float(x) for x in out.stdout.split()]
        R428 = {"harrell": v[0], "harrell_tau": v[1], "uno_tau": v[2], "auc": v[3], "pec_cindex": v[4]}
    an = anchors_428(R428)
    val = {label: v for label, v, _ in an}
    ck.close(val["scikit-survival concordance_index_ipcw(tau = 299)"], SKSURV_428,
             "#428: scikit-survival's formula gives the issue's number", rel=1e-15, abs_=0)
    ck.close(val["survAUC UnoC(time = 299)"], SURVAUC_428, "#428: survAUC's formula gives the issue's number",
             rel=0, abs_=5e-8)
    if R428:
        for label, key in (("survival concordance(reverse = TRUE) (Harrell, no tau)", "harrell"),
                           ("survival concordance(reverse = TRUE, ymax = 299)", "harrell_tau"),
                           ("survival concordance(timewt = \"n/G2\", ymax = 299) (Uno)", "uno_tau"),
                           ("riskRegression Score AUC(t = 299) (time-dependent, not a C)", "auc")):
            close(ck, val[label], R428[key], "#428: " + label + " (formula vs live R)", "#428 anchors vs R")
    mltest.load(con, ["time", "event", "risk", "p"],
                [(S428["time"][i], S428["event"][i], S428["risk"][i], 1 / (1 + math.exp(-S428["risk"][i])))
                 for i in range(7)])
    mine = []
    for label, sql, anchor in (("mleval c_index(time, event, risk)", "c_index(time, event, risk)",
                                "survival concordance(reverse = TRUE) (Harrell, no tau)"),
                               ("mleval c_index(time, event, risk, 299)", "c_index(time, event, risk, 299)",
                                "survival concordance(reverse = TRUE, ymax = 299)"),
                               ("mleval uno_c(time, event, risk, 299)", "uno_c(time, event, risk, 299)",
                                "survival concordance(timewt = \"n/G2\", ymax = 299) (Uno)"),
                               ("mleval surv_auroc(time, event, p, 299)", "surv_auroc(time, event, p, 299)",
                                "riskRegression Score AUC(t = 299) (time-dependent, not a C)")):
        if sql.split("(")[0] in have:
            got = one(con, "SELECT " + sql + " FROM t")
            close(ck, got, val[anchor], "#428: %s = %s" % (label, anchor), "#428 mleval vs anchors")
            mine.append((label, got))
    print("scikit-survival #428 (tau = t = 299):")
    for label, v, how in an:
        print("  %-62s %.10f  (%s)" % (label, v, how))
    for label, v in mine:
        print("  %-62s %s" % (label, "NULL" if v is None else "%.10f" % v))
    return an, mine


# ------------------------------------------------- 7. the records

def family_names(table):
    """The records of the survival family: those sharing km's family, and
    the scalar ipcw."""
    fam = {f["family"] for f in table if f["name"] == "km"}
    return sorted(f["name"] for f in table if (f["family"] in fam and f["family"] != "scalar")
                  or f["name"] == "ipcw")


def test_records(ck, table, con):
    """Every record of the family has a test here; every aggregate of the
    family has its weighted twin."""
    names = family_names(table)
    if names:
        mltest.has_twins(ck, con, sorted(TESTED - {"ipcw", "ml_state_surv"}))
    base = {f["name"]: f["weighted_of"] for f in table}
    import test_survival2             # part 2's records (issue 49) are that suite's
    for n in names:
        root = base.get(n) or n
        ck.true(root in TESTED or root in test_survival2.FUNCS,
                "the survival record %s has a differential test in test_survival.py (part 2: test_survival2.py)" % n)
    return names


# ------------------------------------------- 6. docs/survival.md

DOC = os.path.join(SRC, "docs", "survival.md")
GBSG = os.path.join(SRC, "tests", "data", "gbsg_valid.csv")
GBSG_SCRIPT = os.path.join(SRC, "tests", "r", "survival_gbsg.R")


def read_gbsg(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [(int(r["pid"]), float.fromhex(r["time"]), int(r["event"]), float.fromhex(r["risk"]),
             float.fromhex(r["p5"])) for r in rows]


def g_at(G, x, eps=0.0, before=False):
    return survref.step(G, "G", x - eps, before=before)


def auc_weighted(r, case, ctrl, wc, wn):
    """sum_case sum_ctrl wc wn (1[r_i > r_j] + 1/2 1[=]) / (sum wc sum wn)."""
    rc, rn = r[case], r[ctrl]
    o = np.argsort(rn)
    rs, ws = rn[o], wn[o]
    cw = np.concatenate(([0.0], np.cumsum(ws)))
    lo = np.searchsorted(rs, rc, "left")
    hi = np.searchsorted(rs, rc, "right")
    num = (wc * (cw[lo] + 0.5 * (cw[hi] - cw[lo]))).sum()
    return float(num / (wc.sum() * ws.sum()))


def others_gbsg(rows, Rg):
    """(package, function and convention, its number, mleval's function,
    mleval's value, how) on gbsg at 5 years; R's numbers from Rg (None:
    those rows are left out)."""
    con = mltest.connect()
    mltest.load(con, ["pid", "time", "event", "risk", "p5"], rows, "gbsg")
    m = lambda sql: one(con, "SELECT %s FROM gbsg" % sql)
    t = np.array([r[1] for r in rows]); e = np.array([r[2] for r in rows])
    r = np.array([r[3] for r in rows]); p = np.array([r[4] for r in rows])
    G2, Gs = censoring_steps(t, e, True), censoring_steps(t, e, False)
    case, ctrl = (t <= 5) & (e == 1), t > 5
    ms = json.loads(m("surv_summary(time, event, p5, 5)"))
    out = []
    if Rg:
        out += [("survival", "`concordance(reverse = TRUE)`: Harrell", Rg["harrell"], "c_index",
                 m("c_index(time, event, risk)")),
                ("survival", "`concordance(timewt = \"n/G2\", ymax = 5)`: Uno", Rg["uno5"], "uno_c(…, 5)",
                 m("uno_c(time, event, risk, 5)")),
                ("riskRegression", "`Score(cens.model = \"km\")`: AUC(5)", Rg["auc5"], "surv_auroc",
                 m("surv_auroc(time, event, p5, 5)")),
                ("riskRegression", "`Score`: Brier(5)", Rg["brier5"], "surv_brier",
                 m("surv_brier(time, event, p5, 5)")),
                ("riskRegression", "`Score(summary = \"ipa\")`: IPA(5)", Rg["ipa5"], "surv_summary's ipa", ms["ipa"]),
                ("pec", "`cindex(eval.times = 5)`: its IPCW C (Gerds), of 1 − p5", Rg["pec_cindex5"], "uno_c(…, 5)",
                 m("uno_c(time, event, risk, 5)"))]
    wc_T = np.array([1 / g_at(G2, x) for x in t[case]])
    wc_Tm = np.array([1 / g_at(G2, x, before=True) for x in t[case]])
    # scikit-survival divides by G(T) (an infinite denominator where G(T) = 0)
    sk_case = np.array([(1 - pi) ** 2 / g_at(G2, x) if c and g_at(G2, x) > 0 else 0.0
                        for x, pi, c in zip(t, p, case)])
    sk_brier = float((sk_case + ctrl * p ** 2 / g_at(G2, 5.0)).mean())
    def trunc(g):
        return g if g > 0.05 else 0.05
    eps = 1e-10
    yw = np.array([1 / trunc(g_at(G2, x, eps)) if c else (1 / trunc(g_at(G2, 5.0, eps)) if n else 0.0)
                   for x, c, n in zip(t, case, ctrl)])
    yd_brier = float((yw * (case - p) ** 2).sum() / len(t))
    out += [("scikit-survival", "`concordance_index_censored`: Harrell, risk ties within 1e-8", survref.pairs(t, e, r)[0],
             "c_index", m("c_index(time, event, risk)")),
            ("scikit-survival", "`concordance_index_ipcw(tau = 5)`: 1/G(T)², T < tau",
             ipcw_c(t, e, r, 5.0, G2, before=False, strict_time=False, strict_tau=True), "uno_c(…, 5)",
             m("uno_c(time, event, risk, 5)")),
            ("scikit-survival", "`cumulative_dynamic_auc(times = 5)`: a case weighs 1/G(T)",
             auc_weighted(r, case, ctrl, wc_T, np.ones(ctrl.sum())), "surv_auroc", m("surv_auroc(time, event, risk, 5)")),
            ("scikit-survival", "`brier_score(times = 5)`: a case weighs 1/G(T)", sk_brier, "surv_brier",
             m("surv_brier(time, event, p5, 5)")),
            ("survAUC", "`UnoC(time = 5)`: G of survfit(1 − event), 1/G(T)², T_j > T_i, T < tau",
             ipcw_c(t, e, r, 5.0, Gs, before=False, strict_time=True, strict_tau=True), "uno_c(…, 5)",
             m("uno_c(time, event, risk, 5)")),
            ("lifelines", "`concordance_index(T, −risk, E)`: Harrell, ties as survival", survref.pairs(t, e, r)[0],
             "c_index", m("c_index(time, event, risk)")),
            ("timeROC", "`timeROC(weighting = \"marginal\")`: 1/G(T−) a case, 1/G(t) a control",
             auc_weighted(r, case, ctrl, wc_Tm, np.ones(ctrl.sum())), "surv_auroc", m("surv_auroc(time, event, risk, 5)")),
            ("yardstick", "`brier_survival`: Graf weights at T − 1e-10 and t − 1e-10, G ≥ 0.05", yd_brier, "surv_brier",
             m("surv_brier(time, event, p5, 5)"))]
    return out


def table_others(others):
    return ["| %s | %s | %.6f | %s %.6f | %.1e |" % (pk, conv, v, fn, mv, abs(v - mv)) for pk, conv, v, fn, mv in others]


def table_428(an, mine):
    return (["| %s | %.10f | %s |" % (label, v, how) for label, v, how in an]
            + ["| %s | %.10f | mleval |" % (label, v) for label, v in mine])


def doc_blocks(text):
    """[(sql, expected output, start and end offsets of the output)] of every
    ```sql block followed by a ```text block."""
    out = []
    for mt in re.finditer(r"```sql\n(.*?)```\n```text\n(.*?)```", text, re.S):
        out.append((mt.group(1), mt.group(2), mt.start(2), mt.end(2)))
    return out


def run_cli(db, sql):
    exe = os.environ.get("SQLITE3", "sqlite3")
    lib = os.path.abspath(mltest.LIB)
    r = subprocess.run([exe, "-bail", "-cmd", ".load " + lib, db], input=sql, capture_output=True, text=True,
                       timeout=120)
    return r.stdout + r.stderr


def replace_between(text, name, lines):
    a, b = "<!-- %s -->\n" % name, "<!-- /%s -->" % name
    i, j = text.index(a) + len(a), text.index(b)
    head = text[i:j].splitlines()[:2]
    return text[:i] + "\n".join(head + lines) + "\n" + text[j:]


def lines_between(text, name):
    a, b = "<!-- %s -->\n" % name, "<!-- /%s -->" % name
    return text[text.index(a) + len(a):text.index(b)].splitlines()[2:]


def check_doc(ck, have, have_r, an428=None, mine428=None, update=False):
    """docs/survival.md: every SQL block's output (sqlite3 shell over the
    gbsg and s428 tables) is the text after it; the tables of the other
    packages' numbers and of #428 are this suite's; gbsg's numbers against
    R (and R's export against tests/data/gbsg_valid.csv)."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    rows = read_gbsg(GBSG)
    Rg = None
    if have_r:
        with tempfile.TemporaryDirectory() as d:
            Rg = run_r(GBSG_SCRIPT, d)
            fresh = read_gbsg(os.path.join(d, "gbsg_valid.csv"))
        ck.equal(len(fresh), len(rows), "gbsg: R's export has the committed rows")
        for a, b in zip(fresh, rows):
            ck.equal(a[:3], b[:3], "gbsg: pid, time, event as committed")
            close(ck, b[1], a[1], "gbsg: time as R exports it", "gbsg CSV vs R export")
            close(ck, b[3], a[3], "gbsg: risk as R exports it", "gbsg CSV vs R export")
            close(ck, b[4], a[4], "gbsg: p5 as R exports it", "gbsg CSV vs R export")
    if "km" not in have:
        print("SKIP docs/survival.md: no survival functions")
        return
    new = text
    if shutil.which(os.environ.get("SQLITE3", "sqlite3")) is None:
        print("SKIP docs/survival.md's SQL: no sqlite3 shell (set SQLITE3)")
    else:
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "doc.db")
            con = sqlite3.connect(db)
            con.execute("CREATE TABLE gbsg(pid INTEGER PRIMARY KEY, time REAL, event INTEGER, risk REAL, p5 REAL)")
            con.executemany("INSERT INTO gbsg VALUES (?, ?, ?, ?, ?)", rows)
            con.execute("CREATE TABLE s428(time REAL, event INTEGER, risk REAL)")
            con.executemany("INSERT INTO s428 VALUES (?, ?, ?)", zip(S428["time"], S428["event"], S428["risk"]))
            con.commit()
            con.close()
            blocks = doc_blocks(text)
            ck.true(len(blocks) >= 8, "docs/survival.md shows its SQL with outputs (%d blocks)" % len(blocks))
            for sql, want, i, j in reversed(blocks):
                got = run_cli(db, sql)
                if update:
                    new = new[:i] + got + new[j:]
                else:
                    ck.equal(got, want, "docs/survival.md: the output of %r" % sql.strip()[:70])
    others = others_gbsg(rows, Rg)
    if update:
        new = replace_between(new, "survival-gbsg-others", table_others(others))
        new = replace_between(new, "survival-428-table", table_428(an428, mine428))
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(new)
        print("wrote", DOC)
        return
    shown = lines_between(text, "survival-gbsg-others")
    mine = table_others(others)
    if Rg:
        ck.equal(shown, mine, "docs/survival.md: the other packages' numbers on gbsg")
    else:
        ck.equal(shown[-len(mine):], mine, "docs/survival.md: the formula rows of the other packages' numbers")
        print("SKIP docs/survival.md's R rows on gbsg (no R)")
    if an428 is not None:
        shown = lines_between(text, "survival-428-table")
        want = table_428(an428, mine428)
        if have_r:
            ck.equal(shown, want, "docs/survival.md: the #428 table")
        else:
            ck.equal([x for x in shown if "pec" not in x], want, "docs/survival.md: the #428 table (no pec row)")
    if Rg:
        con = mltest.connect()
        mltest.load(con, ["pid", "time", "event", "risk", "p5"], rows, "gbsg")
        m = lambda sql: one(con, "SELECT %s FROM gbsg" % sql)
        ci = json.loads(m("c_index_ci(time, event, risk)"))
        ci5 = json.loads(m("c_index_ci(time, event, risk, 5)"))
        k5 = json.loads(m("km(time, event, 5)"))
        s5 = json.loads(m("surv_summary(time, event, p5, 5)"))
        for got, key in ((ci["estimate"], "harrell"), (ci["se"], "harrell_se"), (ci5["estimate"], "harrell5"),
                         (ci5["se"], "harrell5_se"), (m("uno_c(time, event, risk, 5)"), "uno5"),
                         (m("uno_c(time, event, risk)"), "uno"), (s5["auroc"], "auc5"), (s5["brier"], "brier5"),
                         (s5["brier_null"], "brier5_null"), (s5["ipa"], "ipa5"), (k5["surv"], "km5"),
                         (k5["se"], "km5_se"), (k5["n_risk"], "km5_n_risk"), (k5["n_events"], "km5_n_event")):
            close(ck, got, Rg[key], "gbsg: mleval vs R " + key, "gbsg (docs) vs R")


def main():
    ck = mltest.Checker("survival")
    con = mltest.connect()
    table = records(con)
    have = {f["name"] for f in table}
    fam = test_records(ck, table, con)
    sets = datasets()
    features(ck, sets)
    have_r, why = r_available()
    R = None
    if have_r:
        with tempfile.TemporaryDirectory() as d:
            write_csvs(d, sets)
            t0 = _time.time()
            cache = os.environ.get("SURVREF_R_CACHE")        # development only: reuse R's output
            if cache and os.path.exists(cache):
                with open(cache) as f:
                    R = json.load(f)
            else:
                R = run_r(SCRIPT, d)
                if cache:
                    with open(cache, "w") as f:
                        json.dump(R, f)
            print("live R: %s, survival %s, riskRegression %s, pec %s: %d cohorts in %.1f s"
                  % (R["versions"]["R"], R["versions"]["survival"], R["versions"]["riskRegression"],
                     R["versions"]["pec"], len(sets), _time.time() - t0))
        for k, s in enumerate(sets):
            ref_vs_r(ck, k, s, R["sets"][str(k)])
    else:
        print("SKIP live R: %s (SPEC's formulas, tests/survref.py, stand in for R)" % why)
    if not fam:
        print("SKIP mleval: the records have no survival family yet (no km)")
        if not have_r:
            sys.exit(77)
    rng = np.random.default_rng(4702)
    for k, s in enumerate(sets):
        mleval_vs_r(ck, con, have, k, s, R["sets"][str(k)] if R else None, rng)
    picked = ([k for k, s in enumerate(sets) if 10 <= len(s["time"]) <= 40][:6]
              + [k for k, s in enumerate(sets) if 2 <= len(s["time"]) <= 5][:2])      # tiny groups
    for k in picked:
        bits(ck, con, have, sets[k], k, rng)
    an, mine = test_428(ck, con, have, have_r)
    check_doc(ck, have, have_r, an, mine, update="--update-doc" in sys.argv)
    for key in sorted(MEASURED):
        print("measured %-52s %6d comparisons, max |diff| %.3g" % (key, MEASURED[key][0], MEASURED[key][1]))
    for kind in sorted(DIS):
        print("note %-66s %5d times, e.g. %s" % (kind, DIS[kind][0], DIS[kind][1]))
    mltest.require_family(ck, con, "survival", __file__)
    ck.finish()


if __name__ == "__main__":
    main()
