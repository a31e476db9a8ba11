# SPDX-License-Identifier: MIT
"""test_drift_unlabelled -- drift of a prediction log whose labels are
missing (issue 46 item 2; docs/monitoring.md, "Daily states"):

1. The issue's scenario: a log of daily predictions whose labels arrive
   first for high scores (the reference's have all arrived; a current row
   is labelled mostly when its score is high) and not at all for the last
   days.  Daily
   ml_state_dist(s) states, merged by ml_merge over the reference days and
   over the current days, give psi, ks_test, wasserstein and drift_report
   equal to numpy / scipy references computed on ALL rows, labelled or not
   (scipy.stats.ks_2samp(method='auto'), scipy.stats.wasserstein_distance,
   PSI written from SPEC with numpy's linear quantiles), and equal bit for
   bit to the row forms psi(g, s) & co. over all rows.  The labelled-only
   ml_state(y, s) states of round 4's recipe are far off here (that is the
   bug: asserted, so that the scenario does test something).
2. Every row labelled: the dist states give the binary states' results bit
   for bit.
3. The weighted twin: daily ml_state_dist_w(s, w) merged give psi and
   wasserstein equal to a weighted numpy reference (quantile edges on the
   cumulative-weight axis, docs/weights.md; scipy's u_weights/v_weights)
   and bit for bit to psi_w / wasserstein_w over the rows; weights 1 give
   the unweighted state's numbers; a dist state merges with a weighted one.
4. A day with no rows: its state is NULL and psi(ref, NULL) is NULL.
5. Windows: the makers over every frame shape equal the aggregate over the
   frame's rows byte for byte; ml_merge over a frame of daily states is the
   state of those days' rows.
Fails on round 4's main: ml_state_dist does not exist there.
"""
import json
import sqlite3

import numpy as np
from scipy import stats

import mltest

DAYS = 14
REF_DAYS = 7          # days 0..6 the reference, 7..13 the current period
BINS = (10, 4, 25)


def np_psi(ref, cur, bins, wr=None, wc=None):
    """PSI as SPEC writes it: the reference's quantiles at i/B (numpy's
    linear, or on the cumulative-weight axis for weights), duplicates
    removed, bins (-inf, e1], (e1, e2], ..., shares floored at 1e-4."""
    if wr is None:
        edges = np.quantile(ref, [i / bins for i in range(1, bins)])
    else:
        edges = np.array([wquantile(ref, wr, i / bins) for i in range(1, bins)])
    edges = np.unique(edges)
    wr = np.ones(len(ref)) if wr is None else wr
    wc = np.ones(len(cur)) if wc is None else wc
    r = np.bincount(np.searchsorted(edges, ref, side="left"), weights=wr, minlength=len(edges) + 1) / wr.sum()
    c = np.bincount(np.searchsorted(edges, cur, side="left"), weights=wc, minlength=len(edges) + 1) / wc.sum()
    r = np.where(r > 0, r, 1e-4)
    c = np.where(c > 0, c, 1e-4)
    return float(np.sum((c - r) * np.log(c / r)))


def wquantile(x, w, q):
    """The quantile on the cumulative-weight axis (docs/weights.md): value
    i occupies [below_i, below_i + w_i) of an axis of length W; h = q (W -
    1), the lerp of the values at ranks floor(h) and floor(h) + 1."""
    o = np.argsort(x, kind="stable")
    xs, ws = x[o], w[o]
    below = np.concatenate([[0.0], np.cumsum(ws)[:-1]])
    W = ws.sum()
    h = max(q * (W - 1.0), 0.0)
    j = np.floor(h)

    def at(r):
        i = np.searchsorted(below, r, side="right") - 1
        return xs[min(max(i, 0), len(xs) - 1)]
    lo, hi = at(j), at(j + 1.0)
    g = h - j
    return lo + (hi - lo) * g if g < 0.5 else hi - (hi - lo) * (1 - g)


def make_log(rng, n, shift, label_all=False):
    """n rows over DAYS days: score s (rounded to 3 decimals: ties across
    days), the current days shifted; y present for nearly every reference
    row, for the current days' mostly at high scores, and none in the last
    two days (unless label_all); a weight w."""
    day = rng.integers(0, DAYS, n)
    a = np.where(day >= REF_DAYS, 2.0 + shift, 2.0)
    s = np.round(rng.beta(a, 5.0), 3)
    y = (rng.random(n) < s).astype(int)
    # the reference's labels have all arrived; the current days' arrive first for high scores
    labelled = rng.random(n) < np.where(day < REF_DAYS, 0.97, np.where(s > 0.45, 0.9, 0.02))
    if not label_all:
        labelled &= day < DAYS - 2
    else:
        labelled[:] = True
    w = rng.choice([0.5, 1.0, 1.5, 3.25], n) * rng.choice([1.0, 0.1], n)
    rows = [(int(day[i]), int(day[i] >= REF_DAYS), int(y[i]) if labelled[i] else None, float(s[i]), float(w[i]))
            for i in range(n)]
    return rows, day, s, w


def states(con):
    con.execute("DROP TABLE IF EXISTS d")
    con.execute("CREATE TABLE d AS SELECT day, ml_state_dist(s) AS st, ml_state_dist_w(s, w) AS stw,"
                " ml_state(y, s) AS sb FROM t GROUP BY day")


REF = "(SELECT ml_merge(%s) FROM d WHERE day < %d)"
CUR = "(SELECT ml_merge(%s) FROM d WHERE day >= %d)"


def pair(col):
    return REF % (col, REF_DAYS), CUR % (col, REF_DAYS)


@mltest.covers("ml_state_dist", "psi", "ks_test", "wasserstein", "drift_report")
def check_unlabelled(ck, con, rng, n, shift):
    rows, day, s, _ = make_log(rng, n, shift)
    con.execute("DROP TABLE IF EXISTS t")
    mltest.load(con, ["day", "g", "y", "s", "w"], rows)
    states(con)
    ref, cur = s[day < REF_DAYS], s[day >= REF_DAYS]
    r, c = pair("st")
    what = "n=%d shift=%g" % (n, shift)
    for b in BINS:
        got = con.execute("SELECT psi(%s, %s, %d)" % (r, c, b)).fetchone()[0]
        ck.close(got, np_psi(ref, cur, b), "psi(dist states, %d) against numpy on all rows, %s" % (b, what))
        ck.equal(got, con.execute("SELECT psi(g, s, %d) FROM t" % b).fetchone()[0],
                 "psi(dist states, %d) = psi(g, s) over all rows bit for bit, %s" % (b, what))
    ks = json.loads(con.execute("SELECT ks_test(%s, %s)" % (r, c)).fetchone()[0])
    ref_ks = stats.ks_2samp(ref, cur, method="auto")
    ck.close(ks["statistic"], ref_ks.statistic, "ks statistic against scipy, " + what)
    ck.close(ks["p_value"], ref_ks.pvalue, "ks p-value against scipy, " + what, rel=1e-9, abs_=1e-15)
    ck.close(con.execute("SELECT wasserstein(%s, %s)" % (r, c)).fetchone()[0],
             stats.wasserstein_distance(ref, cur), "wasserstein against scipy, " + what)
    for f in ("ks_test(%s, %s)", "wasserstein(%s, %s)", "drift_report(%s, %s)", "drift_report(%s, %s, 5)"):
        rowf = f.replace("%s, %s", "g, s")
        ck.equal(con.execute("SELECT " + f % (r, c)).fetchone()[0], con.execute("SELECT %s FROM t" % rowf).fetchone()[0],
                 "%s over dist states = the rows bit for bit, %s" % (f.split("(")[0], what))
    rep = json.loads(con.execute("SELECT drift_report(%s, %s)" % (r, c)).fetchone()[0])
    ck.equal((rep["n_ref"], rep["n_cur"]), (len(ref), len(cur)), "drift_report counts every row, " + what)
    # round 4's recipe: labelled rows only -- far off (the bug this fixes)
    rb, cb = pair("sb")
    lab = con.execute("SELECT psi(%s, %s)" % (rb, cb)).fetchone()[0]
    truth = np_psi(ref, cur, 10)
    ck.true(lab is not None and abs(lab - truth) > 0.05,
            "labelled-only states are far off (%.4f against %.4f), %s" % (lab or 0, truth, what))
    # one day at a time against the merged reference; a day as its own window
    for dd in (REF_DAYS, DAYS - 1):
        got = con.execute("SELECT psi(%s, st) FROM d WHERE day = ?" % r, (dd,)).fetchone()[0]
        ck.close(got, np_psi(ref, s[day == dd], 10), "psi of day %d against the reference, %s" % (dd, what))


@mltest.covers("ml_state_dist", "psi", "ks_test", "wasserstein", "drift_report")
def check_all_labelled(ck, con, rng, n):
    rows, _, _, _ = make_log(rng, n, 0.5, label_all=True)
    con.execute("DROP TABLE IF EXISTS t")
    mltest.load(con, ["day", "g", "y", "s", "w"], rows)
    states(con)
    r, c = pair("st")
    rb, cb = pair("sb")
    for f in ("psi(%s, %s)", "psi(%s, %s, 3)", "ks_test(%s, %s)", "wasserstein(%s, %s)", "drift_report(%s, %s)"):
        ck.equal(con.execute("SELECT " + f % (r, c)).fetchone()[0], con.execute("SELECT " + f % (rb, cb)).fetchone()[0],
                 "%s: dist states = binary states when every row is labelled, n=%d" % (f, n))
    # mixed kinds: a binary reference beside a dist current period (docs/decisions.md)
    ck.equal(con.execute("SELECT psi(%s, %s)" % (rb, c)).fetchone()[0], con.execute("SELECT psi(%s, %s)" % (r, c)).fetchone()[0],
             "a binary reference beside a dist current period, every row labelled")


@mltest.covers("ml_state_dist_w", "psi", "wasserstein", "psi_w", "wasserstein_w")
def check_weighted(ck, con, rng, n, shift):
    rows, day, s, w = make_log(rng, n, shift)
    con.execute("DROP TABLE IF EXISTS t")
    mltest.load(con, ["day", "g", "y", "s", "w"], rows)
    states(con)
    m = day < REF_DAYS
    r, c = pair("stw")
    what = "n=%d shift=%g" % (n, shift)
    for b in BINS:
        got = con.execute("SELECT psi(%s, %s, %d)" % (r, c, b)).fetchone()[0]
        ck.close(got, np_psi(s[m], s[~m], b, w[m], w[~m]), "weighted psi(%d) against numpy, %s" % (b, what), rel=1e-10)
        ck.equal(got, con.execute("SELECT psi_w(g, s, w, %d) FROM t" % b).fetchone()[0],
                 "psi(dist_w states, %d) = psi_w(g, s, w) bit for bit, %s" % (b, what))
    got = con.execute("SELECT wasserstein(%s, %s)" % (r, c)).fetchone()[0]
    ck.close(got, stats.wasserstein_distance(s[m], s[~m], w[m], w[~m]), "weighted wasserstein against scipy, " + what,
             rel=1e-10)
    ck.equal(got, con.execute("SELECT wasserstein_w(g, s, w) FROM t").fetchone()[0],
             "wasserstein(dist_w states) = wasserstein_w(g, s, w) bit for bit, " + what)
    # weights 1: the unweighted state's numbers; a dist state merges with a weighted one
    ck.equal(con.execute("SELECT psi((SELECT ml_state_dist_w(s, 1) FROM t WHERE g = 0), (SELECT ml_state_dist_w(s, 1)"
                         " FROM t WHERE g = 1))").fetchone()[0],
             con.execute("SELECT psi(g, s) FROM t").fetchone()[0], "weights 1 = the unweighted rows, " + what)
    mixed = con.execute("SELECT psi((SELECT ml_merge(x) FROM (SELECT ml_state_dist(s) x FROM t WHERE g = 0 AND day %% 2 = 0"
                        " UNION ALL SELECT ml_state_dist_w(s, w) FROM t WHERE g = 0 AND day %% 2 = 1)), %s)" % c).fetchone()[0]
    ck.equal(mixed, con.execute("SELECT psi_w(g, s, CASE WHEN g = 0 AND day % 2 = 0 THEN 1 ELSE w END) FROM t").fetchone()[0],
             "a dist state merged with a weighted one weighs its rows 1, " + what)


@mltest.covers("ml_state_dist", "psi")
def check_empty_day(ck, con):
    con.execute("DROP TABLE IF EXISTS e")
    con.execute("CREATE TABLE e(day, s)")
    con.executemany("INSERT INTO e VALUES (?, ?)", [(0, 0.1), (0, 0.4), (0, 0.9), (1, None)])
    ck.equal(con.execute("SELECT ml_state_dist(s) FROM e WHERE day = 1").fetchone()[0], None, "a day of NULL x: NULL state")
    ck.equal(con.execute("SELECT psi((SELECT ml_state_dist(s) FROM e WHERE day = 0), (SELECT ml_state_dist(s) FROM e"
                         " WHERE day = 1))").fetchone()[0], None, "psi against an empty day: NULL")
    ck.error(con, "SELECT auroc(st) FROM (SELECT ml_state_dist(s) AS st FROM e)", (),
             "auroc(): expects a state made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), "
             "got a distribution state")


@mltest.covers("ml_state_dist", "ml_state_dist_w")
def check_windows(ck, con, rng):
    """The makers over window frames (xInverse removes a row) equal the
    aggregate over the frame's rows, byte for byte, GROUP BY too; ml_merge
    over a frame of daily states is the state of the frame's days."""
    n = 40
    con.execute("DROP TABLE IF EXISTS t")
    rows = [(int(i % 3), float(np.round(rng.random(), 1)) if i % 7 else None, float(rng.choice([0.0, 0.5, 2.0])), i // 5)
            for i in range(n)]
    mltest.load(con, ["g", "s", "w", "day"], rows)
    for expr in ("ml_state_dist(s)", "ml_state_dist_w(s, w)"):
        mltest.same_as_aggregate(ck, con, expr, "id", "(windows)")
    con.execute("DROP TABLE IF EXISTS dd")
    con.execute("CREATE TABLE dd AS SELECT day, ml_state_dist(s) AS st FROM t GROUP BY day")
    for day, got in con.execute("SELECT day, hex(ml_merge(st) OVER (ORDER BY day ROWS 2 PRECEDING)) FROM dd"):
        want = con.execute("SELECT hex(ml_state_dist(s)) FROM t WHERE day BETWEEN ? AND ?", (day - 2, day)).fetchone()[0]
        ck.equal(got, want, "ml_merge of days %d..%d = the rows' state" % (day - 2, day))


def main():
    ck = mltest.Checker("test_drift_unlabelled")
    con = mltest.connect()
    rng = np.random.default_rng(46)
    for n, shift in ((400, 0.0), (3000, 0.6), (12000, 1.5), (30, 0.8)):
        check_unlabelled(ck, con, rng, n, shift)
        check_weighted(ck, con, rng, n, shift)
    for n in (50, 2500):
        check_all_labelled(ck, con, rng, n)
    check_empty_day(ck, con)
    check_windows(ck, con, rng)
    ck.finish()


if __name__ == "__main__":
    main()
