# SPDX-License-Identifier: MIT
"""calibration_smooth_w(y, p, w) and calibration_smooth over states (issue 36
items 1 and 3; ext/metrics/validation.c rule 10, docs/weights.md).

The weighted definition: the rows by p, ties negatives first, each row of
weight w occupying an interval of length w of the cumulative-weight axis;
lowess's window is ns = max(2, floor(2/3 W + 1e-7)) unit positions of that
axis, slid one position a step; a distinct p weighs its rows' weight in
the tricube and least-squares sums (the window's first distinct p only its
part at or after the window's start, positives first); e50/e90 numpy's
linear quantile on the axis of |curve - p| ascending.  Checked:
  * integer weights (0..3) = the rows repeated, text for text, over 300
    random datasets (ties, one class, p in {0, 1});
  * non-integer weights (exponential, steps, ipw) against the definition
    written here in numpy, one position at a time, to 1e-12;
  * calibration_smooth(st) over ml_state shards = the rows, text for text;
    over ml_state_w shards = calibration_smooth_w over the rows;
  * windows and GROUP BY = the aggregate, bit for bit; weight 0 rows
    dropped, all weights 0: NULL.
"""
import json
import math

import numpy as np

import mltest
import test_calsmooth


def smooth_w_ref(y, p, w):
    """The weighted definition, stepping the window one position at a time."""
    keep = w > 0
    y, p, w = y[keep], p[keep], w[keep]
    if len(p) == 0:
        return None
    xs_ = np.unique(p)
    c0 = np.array([w[(p == v) & (y == 0)].sum() for v in xs_])
    c1 = np.array([w[(p == v) & (y == 1)].sum() for v in xs_])
    m = len(xs_)
    lo = np.zeros(m)
    hi = np.zeros(m)
    acc = 0.0
    for k in range(m):
        lo[k] = acc
        acc += c0[k]
        acc += c1[k]
        hi[k] = acc
    W = acc

    def at(r):                       # the entry holding position r (the last past W)
        k = int(np.searchsorted(lo, r, side="right")) - 1
        return min(max(k, 0), m - 1)

    ns = max(2.0, math.floor(2 / 3 * W + 1e-7))
    rng_x = xs_[-1] - xs_[0]
    delta = 0.01 * rng_x
    ys = np.zeros(m)
    L = 0.0

    def fit(xs, L):
        """The local line at xs, the window starting at position L."""
        kl, kr = at(L), at(L + ns - 1)
        h = max(xs - xs_[kl], xs_[kr] - xs)
        cw = c0 + c1                         # each distinct p's weight in the window
        cp = c1.copy()                       # ... and its positives'
        if L > lo[kl]:                       # the window's first p: its rows at or after L
            cw[kl] = hi[kl] - L
            cp[kl] = min(c1[kl], cw[kl])
        t = np.zeros(m)
        for j in range(kl, m):
            r = abs(xs_[j] - xs)
            if r <= 0.999 * h:
                t[j] = 1.0 if r <= 0.001 * h else (1 - (r / h) ** 3) ** 3
            elif xs_[j] > xs:
                break
        t = t / np.sum(t * cw)
        if h > 0:
            a = np.sum(t * cw * xs_)
            c = np.sum(t * cw * (xs_ - a) ** 2)
            if math.sqrt(c) > 0.001 * rng_x:
                t = t * ((xs - a) / c * (xs_ - a) + 1)
        return float(np.sum(t * cp))

    last, i = -1, 0
    while True:
        xs = xs_[i]
        while L + ns < W and xs - xs_[at(L)] > xs_[at(L + ns)] - xs and xs_[at(L + 1)] <= xs:
            L += 1.0
        ys[i] = fit(xs, L)
        if last < i - 1:
            for j in range(last + 1, i):
                alpha = (xs_[j] - xs_[last]) / (xs - xs_[last])
                ys[j] = alpha * ys[i] + (1 - alpha) * ys[last]
        last = i
        if last >= m - 1:
            break
        j = last + 1
        while j < m and xs_[j] <= xs + delta:
            j += 1
        i = max(j - 1, last + 1)
    er = np.abs(ys - xs_)
    cw = c0 + c1
    o = np.argsort(er, kind="stable")
    es, ws = er[o], cw[o]
    below = np.concatenate([[0.0], np.cumsum(ws)[:-1]])

    def rank(r):
        k = int(np.searchsorted(below, r, side="right")) - 1
        return es[min(max(k, 0), m - 1)]

    def q(qq):
        h = qq * (W - 1)
        h = max(h, 0.0)
        j = math.floor(h)
        a, b = rank(j), rank(j + 1)
        return a + (b - a) * (h - j)

    return {"n": W, "ici": float(np.sum(cw * er) / W), "e50": q(0.5), "e90": q(0.9), "emax": float(er.max()),
            "curve": {float(v): float(c) for v, c in zip(xs_, ys)}, "delta": delta}


KEYS = test_calsmooth.KEYS
CASES = ["calibration_smooth"]     # the twins whose cases are here (test_weights.py reads it)


def repeated(rows):
    return [(y, p) for y, p, w in rows for _ in range(int(w))]


def check_integer(ck, con, rng):
    """Integer weights = the rows repeated, text for text; and states."""
    for trial in range(300):
        n = int(rng.choice([1, 2, 3, 5, 12, 40, 120]))
        y, p = test_calsmooth.random_data(rng, n, trial)
        w = rng.integers(0, 4, n)
        if trial % 7 == 0:
            w[:] = 1
        rows = [(int(a), float(b), int(c)) for a, b, c in zip(y, p, w)]
        mltest.load(con, ["y", "p", "w", "g"], [r + (k % 3,) for k, r in enumerate(rows)])
        got = con.execute("SELECT calibration_smooth_w(y, p, w) FROM t").fetchone()[0]
        mltest.load(con, ["y", "p"], repeated(rows), table="r")
        want = con.execute("SELECT calibration_smooth(y, p) FROM r").fetchone()[0]
        ck.equal(got, want, "set %d (n %d): integer weights = the rows repeated" % (trial, n))
        # states: shards of the repeated rows, and weighted shards of the rows
        if trial % 3 == 0:
            st = con.execute("SELECT calibration_smooth(st) FROM (SELECT ml_state(y, p) st FROM r"
                             " GROUP BY id % 4)").fetchone()[0]
            ck.equal(st, want, "set %d: calibration_smooth over ml_state shards = the rows" % trial)
            stw = con.execute("SELECT calibration_smooth(st) FROM (SELECT ml_state_w(y, p, w) st FROM t"
                              " GROUP BY g)").fetchone()[0]
            ck.equal(stw, got, "set %d: calibration_smooth over ml_state_w shards = the twin" % trial)


@mltest.covers("calibration_smooth_w")
def check_real(ck, con, rng):
    """Non-integer weights against the definition, to 1e-12."""
    kinds = ("exponential", "steps", "ipw", "log-uniform")
    for trial in range(80):
        n = int(rng.choice([1, 2, 4, 10, 40, 150]))
        y, p = test_calsmooth.random_data(rng, n, trial)
        w = mltest.random_weights(rng, n, y, kinds[trial % len(kinds)])
        if kinds[trial % len(kinds)] == "log-uniform":
            w = w / w.max() * 50            # a total of counts the reference can step through
        mltest.load(con, ["y", "p", "w"], [(int(a), float(b), float(c)) for a, b, c in zip(y, p, w)])
        got = con.execute("SELECT calibration_smooth_w(y, p, w) FROM t").fetchone()[0]
        want = smooth_w_ref(np.asarray(y), np.asarray(p, float), np.asarray(w, float))
        what = "set %d (n %d, %s weights)" % (trial, n, kinds[trial % len(kinds)])
        g = mltest.json_result(ck, got, want, KEYS, what, "NULL (no positive weight)")
        if g is None:
            continue
        ck.close(g["n"], want["n"], what + ": n", rel=1e-15)
        for k in ("ici", "e50", "e90", "emax", "delta"):
            ck.close(g[k], want[k], "%s: %s" % (what, k), rel=1e-12, abs_=1e-14)
        for pv, c in g["curve"]:
            ck.close(c, want["curve"][pv], "%s: curve at %r" % (what, pv), rel=1e-12, abs_=1e-14)


def check_windows(ck, con, rng):
    n = 40
    p = np.round(rng.random(n), 1)
    y = (rng.random(n) < p).astype(int)
    w = rng.choice([0.0, 0.5, 1.0, 2.5], n)
    ts = rng.integers(0, 15, n)
    g = rng.integers(0, 3, n)
    mltest.load(con, ["y", "p", "w", "ts", "g"],
                [(int(a), float(b), float(c), int(d), int(e)) for a, b, c, d, e in zip(y, p, w, ts, g)])
    mltest.same_as_aggregate(ck, con, "calibration_smooth_w(y, p, w)", "ts", "(window)")


def check_cases(ck, con):
    mltest.load(con, ["y", "p", "w"], [(1, 0.5, 0.0), (0, 0.2, 0.0)])
    ck.equal(con.execute("SELECT calibration_smooth_w(y, p, w) FROM t").fetchone()[0], None,
             "every weight 0: NULL")
    mltest.load(con, ["y", "p", "w"], [(1, 0.5, 0.0), (0, 0.2, 2.0), (1, 0.9, 2.0), (1, 0.4, None)])
    mltest.load(con, ["y", "p"], [(0, 0.2), (0, 0.2), (1, 0.9), (1, 0.9)], table="r")
    ck.equal(con.execute("SELECT calibration_smooth_w(y, p, w) FROM t").fetchone()[0],
             con.execute("SELECT calibration_smooth(y, p) FROM r").fetchone()[0],
             "weight 0 and NULL weight rows dropped")
    ck.error(con, "SELECT calibration_smooth_w(y, p, -1) FROM t", (),
             "calibration_smooth_w(): w must be a non-negative finite number, got -1")


def main():
    ck = mltest.Checker("test_calsmooth_w")
    con = mltest.connect()
    rng = np.random.default_rng(3610)
    mltest.has_twins(ck, con, ["calibration_smooth"])
    check_integer(ck, con, rng)
    check_real(ck, con, rng)
    check_windows(ck, con, rng)
    check_cases(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
