# SPDX-License-Identifier: MIT
"""survref -- the survival family's reference formulas in numpy (SPEC.md,
Round 5, conventions 1-11), written from SPEC's table and checked against R
(tests/r/survival_ref.R) by tests/test_survival.py, which also uses them
where R is absent.  O(n^2) pair loops: for the tests' small cohorts only.

Rules (SPEC's numbering):
 1. a censoring tied with an event happens after it;
 2. G is the Kaplan-Meier of the censorings with risk set n(u) - d(u);
 3. a case's weight uses G(T-), 4. a control's G(t);
 5. case: T <= t and event; control: T > t; censored by t: weight 0;
 6. tau inclusive (the earlier time of a pair is an event at T <= tau);
 7. risk ties count 1/2; 8. two events at one time are not comparable;
 9. G = 0 where a weight needs it: undefined (None);
10. Brier over n (the total weight);
11. IBS = sum_{k<K} B(t_k)(t_{k+1} - t_k) / t_K.
Weights w are frequency weights (None: 1 each).
"""
import math

import numpy as np


def _w(time, w):
    return np.ones(len(time)) if w is None else np.asarray(w, float)


def km_fit(time, event, w=None):
    """The per-time table: distinct times u, n(u) at risk, d(u) events, c(u)
    censorings, S after u, Greenwood's se of S after u, G after u."""
    time, event, w = np.asarray(time, float), np.asarray(event, int), _w(time, w)
    u = np.unique(time)
    n = np.array([w[time >= x].sum() for x in u])
    d = np.array([w[(time == x) & (event == 1)].sum() for x in u])
    c = np.array([w[(time == x) & (event == 0)].sum() for x in u])
    S, G, gw = [], [], []
    s = g = 1.0
    acc = 0.0
    for k in range(len(u)):
        s *= (n[k] - d[k]) / n[k]
        acc = acc + (d[k] / (n[k] * (n[k] - d[k])) if n[k] > d[k] else (math.inf if d[k] > 0 else 0.0))
        r = n[k] - d[k]
        if r > 0:
            g *= (r - c[k]) / r
        S.append(s)
        G.append(g)
        gw.append(acc)
    S = np.array(S)
    se = np.array([S[k] * math.sqrt(gw[k]) if math.isfinite(gw[k]) else math.nan for k in range(len(u))])
    return {"time": u, "n_risk": n, "n_event": d, "n_censor": c, "surv": S, "se": se, "G": np.array(G)}


def step(fit, key, x, before=False):
    """The right-continuous step fit[key] at x (its left limit with before);
    1 before the first time."""
    u = fit["time"]
    k = np.searchsorted(u, x, side="left" if before else "right") - 1
    return 1.0 if k < 0 else float(fit[key][k])


def km_at(time, event, t, w=None):
    """summary(survfit, times = t): surv, se, n_risk (weight with time >= t),
    n_event (events up to t)."""
    f = km_fit(time, event, w)
    time, event, ww = np.asarray(time, float), np.asarray(event, int), _w(time, w)
    k = np.searchsorted(f["time"], t, side="right") - 1
    se = 0.0 if k < 0 else float(f["se"][k])
    return {"t": t, "surv": 1.0 if k < 0 else float(f["surv"][k]), "se": None if math.isnan(se) else se,
            "n_risk": float(ww[time >= t].sum()), "n_event": float(ww[(time <= t) & (event == 1)].sum())}


def pairs(time, event, risk, tau=None, w=None, uno=False):
    """(C, concordant, discordant, tied risk) by rules 1, 6, 7, 8 (Harrell),
    or Uno's with each pair weighted 1/G(T_i-)^2; weights multiply (w_i w_j).
    C is None without a comparable pair or where G(T_i-) = 0."""
    time, event, risk, w = np.asarray(time, float), np.asarray(event, int), np.asarray(risk, float), _w(time, w)
    f = km_fit(time, event, w) if uno else None
    con = dis = tie = 0.0
    for i in range(len(time)):
        if event[i] != 1 or w[i] == 0 or (tau is not None and time[i] > tau):
            continue
        comp = (time > time[i]) | ((time == time[i]) & (event == 0))
        if not comp.any():
            continue
        gi = 1.0
        if uno:
            g = step(f, "G", time[i], before=True)
            if g == 0:
                return None, None, None, None
            gi = 1.0 / (g * g)
        wj = w[comp] * w[i] * gi
        con += wj[risk[comp] < risk[i]].sum()
        dis += wj[risk[comp] > risk[i]].sum()
        tie += wj[risk[comp] == risk[i]].sum()
    tot = con + dis + tie
    return ((con + 0.5 * tie) / tot if tot > 0 else None), con, dis, tie


def ipcw(fit, time, event, t):
    """Rule 5's weight of one row (inf where the G it needs is 0)."""
    if time <= t and event == 1:
        g = step(fit, "G", time, before=True)
    elif time > t:
        g = step(fit, "G", t)
    else:
        return 0.0
    return math.inf if g == 0 else 1.0 / g


def at_horizon(time, event, p, t, w=None):
    """Rule 5, 10: AUC(t) of p (any risk), Brier(t), the null model's Brier
    (the KM risk for everyone), IPA, the KM risk, mean p, O/E; None where
    undefined."""
    time, event, p, w = np.asarray(time, float), np.asarray(event, int), np.asarray(p, float), _w(time, w)
    f = km_fit(time, event, w)
    iw = np.array([ipcw(f, time[i], event[i], t) for i in range(len(time))]) * w
    case = (time <= t) & (event == 1)
    ctrl = time > t
    W = w.sum()
    kmr = 1.0 - step(f, "surv", t)
    r = {"W": W, "cases": w[case].sum(), "controls": w[ctrl].sum(), "censored": w[~case & ~ctrl].sum(),
         "km_risk": kmr, "mean_p": float((w * p).sum() / W)}
    r["oe"] = kmr / r["mean_p"] if r["mean_p"] > 0 else None
    if not np.all(np.isfinite(iw[case | ctrl])):
        r.update(auroc=None, brier=None, brier_null=None, ipa=None)
        return r
    y = case.astype(float)
    r["brier"] = float((iw * (y - p) ** 2).sum() / W)
    r["brier_null"] = float((iw * (y - kmr) ** 2).sum() / W)
    r["ipa"] = 1.0 - r["brier"] / r["brier_null"] if r["brier_null"] > 0 else None
    a, b = iw[case], iw[ctrl]
    if a.sum() > 0 and b.sum() > 0:
        pc, pn = p[case], p[ctrl]
        num = sum(a[i] * (b[pn < pc[i]].sum() + 0.5 * b[pn == pc[i]].sum()) for i in range(len(a)))
        r["auroc"] = float(num / (a.sum() * b.sum()))
    else:
        r["auroc"] = None
    return r


def ibs(hz, B):
    """Rule 11 over ascending horizons hz and their Brier scores B."""
    if any(b is None for b in B):
        return None
    K = len(hz)
    return float(sum(B[k] * (hz[k + 1] - hz[k]) for k in range(K - 1)) / hz[-1])
