# SPDX-License-Identifier: MIT
"""Differential tests of the long layout (multiclass_long.c): NAME_long(id, y,
class, p) and NAME_long_w(id, y, class, p, w [, params]) over one row per
(id, class), against the wide form over one row per id and scikit-learn.

Proves: over hundreds of random datasets (k = 2..6, 1..60 ids, ties, rare and
absent classes, integer, text, REAL, large and mixed ids, rows shuffled so
that an id's rows are scattered, GROUP BY, NULLs, weights with zeros) every
long function equals its wide form bit for bit and scikit-learn's
roc_auc_score (ovr/ovo, macro/weighted), average_precision_score, log_loss,
top_k_accuracy_score and confusion_matrix to 1e-12; a window whose frames
keep ids whole equals the wide window frame by frame and the aggregate over
the frame's rows (ids entering anywhere, k changing between frames); every error of the
layout (a class missing or repeated, k differing, y or w differing within
an id, y outside 0..k-1, a row sum) names the function, the argument, the
bad value and the id.
"""
import json
import sqlite3

import numpy as np
from sklearn.metrics import log_loss, roc_auc_score

import mltest
import test_multiclass as tm

FUNCS = tm.FUNCS + ("mc_auroc_ci",)
RECS = FUNCS + ("ml_state_mc",)          # every long record: the functions and the state maker
LONG = [f + "_long" for f in RECS]
LONG_W = [f + "_long_w" for f in RECS]
CI_PARAMS = ", 0.9, 20, 3"       # a short bootstrap: the same bits as the wide form's, quickly


def wide_call(fn, k, tw, params=""):
    """The wide (or, with parameters, the JSON) form of fn over t."""
    if params:
        return "%s%s(y, probs%s%s)" % (fn, "_w" if tw else "", ", w" if tw else "", params)
    return tm.wide(fn, k, tw)


def long_call(fn, tw, params=""):
    return "%s_long%s(id, y, class, p%s%s)" % (fn, "_w" if tw else "", ", w" if tw else "", params)


def params_of(fn):
    return CI_PARAMS if fn == "mc_auroc_ci" else ""


def make_ids(rng, n, kind):
    """n distinct ids of a kind; 'mixed' mixes integers, REAL integral values
    (the same id as the integer), text, fractions and integers past 2^43."""
    if kind == "int":
        return [int(v) for v in rng.choice(10**6, n, replace=False)]
    if kind == "neg":
        return [int(v) - 500000 for v in rng.choice(10**6, n, replace=False)]
    if kind == "text":
        return ["id-%d" % v for v in rng.choice(10**6, n, replace=False)]
    if kind == "big":
        return [2**60 + int(v) for v in rng.choice(10**6, n, replace=False)]
    out = []
    for i, v in enumerate(rng.choice(10**6, n, replace=False)):
        out.append((int(v), float(v) + 0.5, "t%d" % v, -(2**50) - int(v), x_blob(int(v)))[i % 5])
    return out


def x_blob(v):
    return bytes([v % 256, (v >> 8) % 256, 0, 7])


def load_long(con, rng, ids, y, P, k, w=None, g=None, shuffle=True, mixreal=False):
    """The long rows of the wide rows (one per (id, class)), in random order."""
    rows = []
    for i, ident in enumerate(ids):
        for j in range(k):
            iv = ident
            if mixreal and isinstance(ident, int) and j % 2 == 1 and abs(ident) < 2**52:
                iv = float(ident)                  # the same id as a REAL in some of its rows
            rows.append([iv, int(y[i]), j, float(P[i, j]), None if w is None else float(w[i]),
                         0 if g is None else int(g[i])])
    if shuffle:
        rows = [rows[i] for i in rng.permutation(len(rows))]
    con.execute("DROP TABLE IF EXISTS long")
    con.execute("CREATE TABLE long(rid INTEGER PRIMARY KEY, id, y, class, p, w, g)")
    con.executemany("INSERT INTO long(id, y, class, p, w, g) VALUES (?,?,?,?,?,?)", rows)


def lone(con, expr, where=""):
    return con.execute("SELECT %s FROM long %s" % (expr, where)).fetchone()[0]


def load_wide(con, y, P, k, w, g):
    tm.load_rows(con, y, P, k, w, g)


@mltest.covers("mc_auroc_long", "mc_auroc_long_w", "mc_pr_auc_long", "mc_pr_auc_long_w", "mc_log_loss_long",
               "mc_log_loss_long_w", "mc_brier_long", "mc_brier_long_w", "mc_confusion_long",
               "mc_confusion_long_w", "mc_top_k_long", "mc_top_k_long_w", "ordinal_rps_long",
               "ordinal_rps_long_w", "mc_calibration_long", "mc_calibration_long_w", "mc_auroc_ci_long",
               "mc_auroc_ci_long_w")
def test_equal_wide(ck, rng):
    """Each long function equals its wide form bit for bit (the weighted too),
    whatever the ids' type and the rows' order; scikit-learn to 1e-12."""
    con = mltest.connect()
    kinds = ("int", "text", "mixed", "neg", "big")
    for rep in range(300):
        k = 2 + rep % 5
        n = int(rng.integers(1, 4)) if rep % 10 == 0 else int(rng.integers(4, 60))
        y = tm.random_labels(rng, n, k, ("uniform", "rare", "absent", "uniform")[rep % 4])
        P = tm.random_probs(rng, n, k, ("dirichlet", "ties", "peaked")[rep % 3])
        tw = rep % 3 == 1
        w = None
        if tw:
            w = rng.integers(0, 4, n).astype(float) if rep % 2 else rng.uniform(0.0, 3.0, n)
            w[rng.random(n) < 0.1] = 0.0
        g = rng.integers(0, 3, n)
        ids = make_ids(rng, n, kinds[rep % len(kinds)])
        what = "dataset %d (k %d, n %d, %s ids%s)" % (rep, k, n, kinds[rep % len(kinds)], ", weighted" if tw else "")
        load_wide(con, y, P, k, w, g)
        load_long(con, rng, ids, y, P, k, w, g, shuffle=rep % 7 != 0, mixreal=rep % 2 == 0)
        for fn in FUNCS:
            if fn == "mc_auroc_ci" and (rep % 5 != 0 or n > 30):
                continue                           # the bootstrap: on a few small datasets
            par = params_of(fn)
            want = tm.one(con, wide_call(fn, k, tw, par))
            got = lone(con, long_call(fn, tw, par))
            ck.equal(got, want, "%s: %s_long%s = the wide form" % (what, fn, "_w" if tw else ""))
            if fn == "mc_calibration":
                ck.equal(lone(con, long_call(fn, tw, ", 7")), tm.one(con, wide_call(fn, k, tw, ", 7")),
                         what + ": mc_calibration_long with bins 7")
        # GROUP BY: each group the wide form's
        for fn in ("mc_auroc", "mc_log_loss", "mc_top_k"):
            a = con.execute("SELECT g, %s FROM long GROUP BY g ORDER BY g" % long_call(fn, tw)).fetchall()
            b = con.execute("SELECT g, %s FROM t GROUP BY g ORDER BY g" % wide_call(fn, k, tw)).fetchall()
            ck.equal(a, b, "%s: %s_long GROUP BY g" % (what, fn))
        # the references (scikit-learn, SPEC's formulas) on the datasets with rows
        wt = tm.wt_or_one(w, n)
        keep = wt > 0
        if keep.sum() == 0:
            ck.equal(lone(con, long_call("mc_auroc", tw)), None, what + ": no row of positive weight: NULL")
            continue
        yk, Pk, wk = y[keep], P[keep], (w[keep] if tw else None)
        tm.check_json(ck, lone(con, long_call("mc_auroc", tw)), tm.ref_auroc(yk, Pk, k, wk), tm.AUROC_KEYS,
                      what + " mc_auroc_long vs sklearn")
        tm.check_json(ck, lone(con, long_call("mc_pr_auc", tw)), tm.ref_pr_auc(yk, Pk, k, wk), tm.PR_KEYS,
                      what + " mc_pr_auc_long vs sklearn")
        ck.close(lone(con, long_call("mc_log_loss", tw)), tm.ref_log_loss(yk, Pk, wk), what + " mc_log_loss_long")
        if not tw:
            ck.close(lone(con, long_call("mc_log_loss", tw)), log_loss(yk, Pk, labels=list(range(k)), eps=1e-15),
                     what + " mc_log_loss_long vs sklearn", rel=1e-9, abs_=1e-13)
        ck.close(lone(con, long_call("mc_brier", tw)), tm.ref_brier(yk, Pk, k, wk), what + " mc_brier_long")
        tm.check_confusion(ck, lone(con, long_call("mc_confusion", tw)),
                           tm.ref_confusion(yk, tm.argmax_first(Pk), k, wk), what + " mc_confusion_long")
        got = json.loads(lone(con, long_call("mc_top_k", tw)))
        for m, (a, b) in enumerate(zip(got, tm.ref_top_k(yk, Pk, k, wk))):
            ck.close(a, b, "%s mc_top_k_long[%d]" % (what, m))
        if all(len(set(row)) == k for row in Pk) and k >= 3 and len(set(yk)) == k:
            from sklearn.metrics import top_k_accuracy_score
            for m in range(1, k):
                ck.close(got[m - 1], top_k_accuracy_score(yk, Pk, k=m, labels=list(range(k)), sample_weight=wk),
                         "%s mc_top_k_long[%d] vs sklearn" % (what, m - 1))
        if k >= 3 and len(set(yk)) == k and not tw:
            a = json.loads(lone(con, long_call("mc_auroc", tw)))
            for mc, av in (("ovr", "macro"), ("ovr", "weighted"), ("ovo", "macro"), ("ovo", "weighted")):
                ck.close(a["%s_%s" % (mc, av)], roc_auc_score(yk, Pk, multi_class=mc, average=av),
                         "%s mc_auroc_long %s_%s vs roc_auc_score" % (what, mc, av))
        ck.close(lone(con, long_call("ordinal_rps", tw)), tm.ref_rps(yk, Pk, k, wk), what + " ordinal_rps_long")


@mltest.covers("mc_auroc_long", "mc_log_loss_long", "mc_auroc_long_w")
def test_nulls_and_integer_weights(ck, rng):
    """A NULL y, class or p skips its id, as a NULL score skips a wide row;
    integer weights equal the ids repeated, bit for bit."""
    con = mltest.connect()
    for rep in range(40):
        k = 2 + rep % 5
        n = int(rng.integers(5, 40))
        y = tm.random_labels(rng, n, k, "uniform")
        P = tm.random_probs(rng, n, k, ("ties", "dirichlet")[rep % 2])
        ids = list(range(n))
        load_long(con, rng, ids, y, P, k)
        gone = set(int(v) for v in rng.choice(n, 3, replace=False))
        col = ("y", "class", "p")[rep % 3]
        con.execute("UPDATE long SET %s = NULL WHERE id IN (%s) AND class = %d"
                    % (col, ",".join(map(str, gone)), rep % k))
        keep = np.array([i not in gone for i in range(n)])
        load_wide(con, y[keep], P[keep], k, None, None)
        for fn in ("mc_auroc", "mc_log_loss", "mc_confusion"):
            ck.equal(lone(con, long_call(fn, False)), tm.one(con, wide_call(fn, k, False)),
                     "rep %d: a NULL %s skips its id (%s)" % (rep, col, fn))
        # integer weights = the ids repeated
        w = rng.integers(1, 4, n).astype(float)
        load_long(con, rng, ids, y, P, k, w)
        a = lone(con, long_call("mc_auroc", True))
        rep_ids = [(i, c) for i in range(n) for c in range(int(w[i]))]
        load_long(con, rng, ["%d/%d" % ic for ic in rep_ids], y[[i for i, _ in rep_ids]],
                   P[[i for i, _ in rep_ids]], k)
        ck.equal(json.loads(a)["ovr_macro"], json.loads(lone(con, long_call("mc_auroc", False)))["ovr_macro"],
                 "rep %d: integer weights = ids repeated" % rep)


FRAMES_WHOLE = [
    "ORDER BY g RANGE BETWEEN CURRENT ROW AND CURRENT ROW",
    "ORDER BY g GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW",
    "ORDER BY g RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
    "ORDER BY g GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING",
    "ORDER BY g GROUPS BETWEEN 1 FOLLOWING AND 2 FOLLOWING",
    "PARTITION BY g % 2 ORDER BY g RANGE BETWEEN 1 PRECEDING AND CURRENT ROW",
    "ORDER BY g RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP",
]


@mltest.covers("mc_auroc_long", "mc_log_loss_long", "mc_top_k_long", "mc_calibration_long", "mc_brier_long_w")
def test_windows(ck, rng):
    """Frames that keep ids whole (ordered by a column constant within an id,
    RANGE or GROUPS): each frame's value is the wide window's over the same
    ids; a frame that cuts an id apart is the error of a class missing."""
    con = mltest.connect()
    for rep in range(12):
        k = 3 + rep % 3
        n = int(rng.integers(10, 30))
        y = rng.integers(0, k, n)
        P = tm.random_probs(rng, n, k, ("ties", "dirichlet")[rep % 2])
        g = rng.integers(0, 6, n)
        w = rng.integers(0, 3, n).astype(float)
        load_wide(con, y, P, k, w, g)
        load_long(con, rng, list(range(n)), y, P, k, w, g)
        for frame in FRAMES_WHOLE:
            for fn, tw in (("mc_auroc", False), ("mc_log_loss", False), ("mc_top_k", False),
                           ("mc_calibration", False), ("mc_brier", True)):
                a = dict(con.execute("SELECT DISTINCT g, %s OVER (%s) FROM long" % (long_call(fn, tw), frame)).fetchall())
                b = dict(con.execute("SELECT DISTINCT g, %s OVER (%s) FROM t" % (wide_call(fn, k, tw), frame)).fetchall())
                ck.equal(a, b, "rep %d %s OVER (%s)" % (rep, fn, frame))
    try:
        con.execute("SELECT mc_log_loss_long(id, y, class, p) OVER (ORDER BY rid ROWS 1 PRECEDING) FROM long").fetchall()
        ck.true(False, "a frame of two class-rows cuts ids: an error")
    except Exception as e:
        ck.true("mc_log_loss_long(): class must run over 0..k-1" in str(e), "a frame that cuts ids: " + str(e))


@mltest.covers("ml_state_mc_long", "ml_state_mc_long_w")
def test_states(ck, rng):
    """ml_state_mc_long(id, y, class, p) and its twin are the wide ml_state_mc's
    bytes over the same ids, whatever the ids' type and the rows' order; per
    group, merged, and read by every mc_* function, they give the long
    functions' results bit for bit; as a window, each frame's state is the
    wide window's."""
    con = mltest.connect()
    kinds = ("int", "text", "mixed", "neg", "big")
    for rep in range(120):
        k = 2 + rep % 5
        n = int(rng.integers(1, 50))
        y = tm.random_labels(rng, n, k, ("uniform", "rare", "absent", "uniform")[rep % 4])
        P = tm.random_probs(rng, n, k, ("dirichlet", "ties", "peaked")[rep % 3])
        tw = rep % 2 == 1
        w = None
        if tw:
            w = rng.integers(0, 4, n).astype(float) if rep % 4 == 1 else rng.uniform(0.0, 3.0, n)
        g = rng.integers(0, 3, n)
        what = "dataset %d (k %d, n %d, %s ids%s)" % (rep, k, n, kinds[rep % len(kinds)], ", weighted" if tw else "")
        load_wide(con, y, P, k, w, g)
        load_long(con, rng, make_ids(rng, n, kinds[rep % len(kinds)]), y, P, k, w, g, shuffle=rep % 5 != 0,
                  mixreal=rep % 3 == 0)
        st = long_call("ml_state_mc", tw)
        ck.equal(lone(con, st), tm.one(con, wide_call("ml_state_mc", k, tw)), what + ": the state's bytes")
        a = con.execute("SELECT g, %s FROM long GROUP BY g ORDER BY g" % st).fetchall()
        b = con.execute("SELECT g, %s FROM t GROUP BY g ORDER BY g" % wide_call("ml_state_mc", k, tw)).fetchall()
        ck.equal(a, b, what + ": the states GROUP BY g")
        merged = "(SELECT ml_merge(s) FROM (SELECT %s AS s FROM long GROUP BY g))" % st
        for fn in ("mc_auroc", "mc_pr_auc", "mc_log_loss", "mc_brier", "mc_confusion", "mc_top_k", "ordinal_rps"):
            if fn in ("mc_log_loss", "mc_brier", "ordinal_rps") and tw:
                continue                           # a weighted state's probabilities: the twins read them
            want = lone(con, long_call(fn, tw))
            ck.equal(con.execute("SELECT %s(%s)" % (fn, merged)).fetchone()[0], want,
                     "%s: %s over the merged long states = %s_long" % (what, fn, fn))
        frame = "ORDER BY g RANGE BETWEEN 1 PRECEDING AND CURRENT ROW"
        a = dict(con.execute("SELECT DISTINCT g, %s OVER (%s) FROM long" % (st, frame)).fetchall())
        b = dict(con.execute("SELECT DISTINCT g, %s OVER (%s) FROM t" % (wide_call("ml_state_mc", k, tw), frame))
                 .fetchall())
        ck.equal(a, b, what + ": the window's states")


# Frames over g (constant within an id) and the rows of each frame as a WHERE
# over g, G the current row's g: a frame's value is the aggregate's over them.
FRAMES_WHERE = [
    ("ORDER BY g RANGE BETWEEN CURRENT ROW AND CURRENT ROW", "g = %d"),
    ("ORDER BY g RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", "g <= %d"),
    ("ORDER BY g RANGE BETWEEN 2 PRECEDING AND CURRENT ROW", "g BETWEEN %d - 2 AND %d"),
    ("ORDER BY g RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING", "g >= %d"),
    ("ORDER BY g RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP", "g IN (%d - 1, %d + 1)"),
    ("ORDER BY g RANGE BETWEEN 1 FOLLOWING AND 1 FOLLOWING", "g = %d + 1"),
]


def frame_rows(con, call, where, G):
    try:
        return con.execute("SELECT %s FROM long WHERE %s" % (call, where.replace("%d", str(G)))).fetchone()[0]
    except Exception as e:
        return "error: " + str(e)


def window_values(con, call, frame):
    try:
        return dict(con.execute("SELECT DISTINCT g, %s OVER (%s) FROM long" % (call, frame)).fetchall())
    except Exception as e:
        return "error: " + str(e)


@mltest.covers("mc_auroc_long", "mc_auroc_long_w", "mc_pr_auc_long", "mc_pr_auc_long_w", "mc_log_loss_long",
               "mc_log_loss_long_w", "mc_brier_long", "mc_brier_long_w", "mc_confusion_long",
               "mc_confusion_long_w", "mc_top_k_long", "mc_top_k_long_w", "ordinal_rps_long",
               "ordinal_rps_long_w", "mc_calibration_long", "mc_calibration_long_w", "mc_auroc_ci_long",
               "mc_auroc_ci_long_w")
def test_window_mode(ck, rng):
    """A window keeps its class-rows sorted and its ids assembled between frames
    (rule 7): every frame equals the aggregate over the same rows, bit for bit,
    with ids entering anywhere (g in random order of id), class-rows of an id
    arriving in any order, ids skipped by a NULL p, ids of weight 0, text,
    REAL and blob ids, frames that leave from the front, EXCLUDE and empty
    frames; and where k changes from one g to the next, single-g frames give
    each g's value (the wide store rebuilt) and a frame mixing two k gives the
    aggregate's error."""
    con = mltest.connect()
    for rep in range(16):
        mixed_k = rep % 4 == 3
        n = int(rng.integers(12, 40))
        g = rng.integers(0, 7, n)
        kk = [3 + int(gi) % 2 for gi in g] if mixed_k else [2 + rep % 4] * n
        K = max(kk)
        y = np.array([int(rng.integers(0, kk[i])) for i in range(n)])
        P = np.zeros((n, K))
        for i in range(n):
            P[i, :kk[i]] = tm.random_probs(rng, 1, kk[i], ("ties", "dirichlet")[rep % 2])[0]
        w = rng.integers(0, 3, n).astype(float)
        kind = ("int", "text", "mixed", "big")[(rep // 4 if mixed_k else rep) % 4]
        ids = make_ids(rng, n, kind)
        rows = []
        for i in range(n):
            for j in range(kk[i]):
                rows.append([ids[i], int(y[i]), j, float(P[i, j]), float(w[i]), int(g[i])])
        rows = [rows[t] for t in rng.permutation(len(rows))]
        con.execute("DROP TABLE IF EXISTS long")
        con.execute("CREATE TABLE long(rid INTEGER PRIMARY KEY, id, y, class, p, w, g)")
        con.executemany("INSERT INTO long(id, y, class, p, w, g) VALUES (?,?,?,?,?,?)", rows)
        con.execute("UPDATE long SET p = NULL WHERE rid %% %d = 0" % (7 + rep))     # skips those ids
        gs = sorted(set(int(v) for v in g))
        for fn in FUNCS:
            for tw in (False, True):
                # mc_calibration with bins 3: a stream reads its parameters at its first row
                call = long_call(fn, tw, ", 3" if fn == "mc_calibration" and rep % 2 else params_of(fn))
                for frame, where in (FRAMES_WHERE[:1] if mixed_k else FRAMES_WHERE):
                    got = window_values(con, call, frame)
                    want = {G: frame_rows(con, call, where, G) for G in gs}
                    if isinstance(got, str):                       # the window failed: at some frame
                        ck.true(got in want.values(), "rep %d %s OVER (%s): %s" % (rep, call, frame, got))
                    else:
                        ck.equal(got, want, "rep %d %s OVER (%s)" % (rep, call, frame))
                if mixed_k and len(gs) > 1:
                    got = window_values(con, call, FRAMES_WHERE[2][0])
                    first = next((frame_rows(con, call, FRAMES_WHERE[2][1], G) for G in gs
                                  if str(frame_rows(con, call, FRAMES_WHERE[2][1], G)).startswith("error")), None)
                    if kind == "int" or first is None:
                        ck.equal(got, first if first is not None else got, "rep %d %s mixing k" % (rep, call))
                    else:
                        # interned ids (text, REAL, blob, past 2^43) are ordered by their first
                        # arrival, which the window's order (by g) and the WHERE's (by rid)
                        # differ in: which two ids the message names may differ, not the error
                        ck.true(str(got).startswith("error: %s(): k must be the same in every id: id "
                                                    % call.split("(")[0]), "rep %d %s mixing k: %s" % (rep, call, got))


ERRS = [
    # (rows (id, y, class, p[, w]), call, message)
    ([(1, 0, 0, 0.6), (1, 0, 1, 0.4), (2, 1, 0, 0.3)], "mc_auroc_long(id, y, class, p)",
     "mc_auroc_long(): class must run over 0..k-1, k at least 2, in each id, got class 0 alone for id 2"),
    ([(1, 0, 0, 0.6), (1, 0, 1, 0.4), (2, 1, 0, 0.3), (2, 1, 2, 0.7)], "mc_auroc_long(id, y, class, p)",
     "mc_auroc_long(): class must run over 0..k-1 in each id, got classes 0, 2 for id 2 (no class 1)"),
    ([(1, 0, 0, 0.6), (1, 0, 1, 0.4), (1, 0, 1, 0.3)], "mc_auroc_long(id, y, class, p)",
     "mc_auroc_long(): class must appear once in each id, got classes 0, 1, 1 for id 1 (class 1 twice)"),
    ([(1, 0, 0, 0.6), (1, 0, 1, 0.4), (2, 1, 0, 0.3), (2, 1, 1, 0.3), (2, 1, 2, 0.4)],
     "mc_auroc_long(id, y, class, p)",
     "mc_auroc_long(): k must be the same in every id: id 2 has 3 classes (0..2), id 1 has 2"),
    ([("a", 0, 0, 0.6), ("a", 1, 1, 0.4)], "mc_auroc_long(id, y, class, p)",
     "mc_auroc_long(): y must be the same in every row of an id, got 0 and 1 for id 'a'"),
    ([(7.5, 2, 0, 0.6), (7.5, 2, 1, 0.4)], "mc_auroc_long(id, y, class, p)",
     "mc_auroc_long(): y must be 0 or 1, got 2 (k = 2: id 7.5 has classes 0..1)"),
    ([(3, 3, 0, 0.6), (3, 3, 1, 0.4), (3, 3, 2, 0.0)], "mc_log_loss_long(id, y, class, p)",
     "mc_log_loss_long(): y must be an integer in 0..2, got 3 (k = 3: id 3 has classes 0..2)"),
    ([(1, 0, 0, 0.6), (1, 0, 1, 0.5)], "mc_brier_long(id, y, class, p)",
     "mc_brier_long(): the probabilities of an id must sum to 1 (within 1e-6), got 1.1 over the 2 rows of id 1"),
    ([(1, 0, 0, 0.6, 1.0), (1, 0, 1, 0.4, 0.5)], "mc_auroc_long_w(id, y, class, p, w)",
     "mc_auroc_long_w(): w must be the same in every row of an id, got 1 and 0.5 for id 1"),
    ([(1, 0, 0, 0.6, None), (1, 0, 1, 0.4, 0.5)], "mc_auroc_long_w(id, y, class, p, w)",
     "mc_auroc_long_w(): w must be the same in every row of an id, got 0 (or NULL) and 0.5 for id 1"),
    ([(1, 0, 0, 0.6, -1.0)], "mc_auroc_long_w(id, y, class, p, w)",
     "mc_auroc_long_w(): w must be a non-negative finite number, got -1.0"),
    ([(1, 0, 16, 0.6)], "mc_auroc_long(id, y, class, p)",
     "mc_auroc_long(): class must be an integer in 0..15, got 16"),
    ([(1, 0, 0.5, 0.6)], "mc_auroc_long(id, y, class, p)",
     "mc_auroc_long(): class must be an integer in 0..15, got 0.5"),
    ([(1, "x", 0, 0.6)], "mc_top_k_long(id, y, class, p)",
     "mc_top_k_long(): y must be an integer in 0..15, got text 'x'"),
    ([(1, 0, 0, "x")], "mc_top_k_long(id, y, class, p)",
     "mc_top_k_long(): p must be a number, got text 'x'"),
    ([(1, 0, 0, 1.5)], "ordinal_rps_long(id, y, class, p)",
     "ordinal_rps_long(): p must be a probability in [0, 1], got 1.5"),
    ([(1, 0, 0, 0.5), (1, 0, 1, 0.5)], "mc_calibration_long(id, y, class, p, 0)",
     "mc_calibration_long(): bins must be an integer in 1..100000, got 0"),
    ([(1, 0, 0, 0.5), (1, 0, 1, 0.5), (2, 1, 0, 0.5), (2, 1, 1, 0.5)],
     "mc_calibration_long(id, y, class, p, 4 + y)",
     "mc_calibration_long(): bins must be the same in every row of a group, got 4 and then 5"),
]


@mltest.covers("mc_auroc_long", "mc_log_loss_long", "mc_brier_long", "mc_auroc_long_w", "mc_top_k_long",
               "ordinal_rps_long", "mc_calibration_long")
def test_errors(ck):
    """Each error of the layout names the function, the argument, the bad value and the id."""
    con = mltest.connect()
    for rows, call, msg in ERRS:
        con.execute("DROP TABLE IF EXISTS e")
        con.execute("CREATE TABLE e(id, y, class, p, w)")
        con.executemany("INSERT INTO e VALUES (?,?,?,?,?)", [tuple(r) + (None,) * (5 - len(r)) for r in rows])
        ck.error(con, "SELECT %s FROM e" % call, (), msg)
    # ids: 1 and 1.0 are one id; '1' is another (GROUP BY's rules); NULL ids skip their rows
    con.execute("DROP TABLE IF EXISTS e")
    con.execute("CREATE TABLE e(id, y, class, p)")
    con.executemany("INSERT INTO e VALUES (?,?,?,?)", [(1, 0, 0, 0.7), (1.0, 0, 1, 0.3), ("1", 1, 0, 0.2),
                                                       ("1", 1, 1, 0.8), (None, 1, 0, 0.1), (None, 0, 1, 0.2)])
    ck.equal(con.execute("SELECT mc_confusion_long(id, y, class, p) ->> '$.matrix' FROM e").fetchone()[0],
             "[[1,0],[0,1]]", "1 and 1.0 one id, '1' another, NULL ids skipped")
    ck.equal(con.execute("SELECT mc_auroc_long(id, y, class, p) FROM e WHERE id IS NULL").fetchone()[0], None,
             "NULL ids only: NULL")


# (rows of one bad id 500 (id, y, class, p[, w]), the call): after 40 good ids
# of k = 3 (the assembly's common-id path, then its reading of any other id)
LATER = [
    ([(500, 1, 0, .2), (500, 1, 2, .8)], "mc_top_k_long(id, y, class, p)"),
    ([(500, 1, 0, .2), (500, 1, 1, .3), (500, 1, 1, .3), (500, 1, 2, .2)], "mc_confusion_long(id, y, class, p)"),
    ([(500, 1, 0, .2), (500, 0, 1, .3), (500, 1, 2, .5)], "mc_auroc_long(id, y, class, p)"),
    ([(500, 3, 0, .2), (500, 3, 1, .3), (500, 3, 2, .5)], "mc_log_loss_long(id, y, class, p)"),
    ([(500, 1, 0, .6), (500, 1, 1, .3), (500, 1, 2, .3)], "mc_brier_long(id, y, class, p)"),
    ([(500, 1, 0, .2, 1.0), (500, 1, 1, .3, 1.0), (500, 1, 2, .5, .5)], "mc_top_k_long_w(id, y, class, p, w)"),
    ([(500, 1, 0, .2), (500, 1, 1, "x"), (500, 1, 2, .5)], "mc_top_k_long(id, y, class, p)"),
    ([(500, 1, 0, .2), (500, 1, 1, .3), (500, 1, 2, 1.5)], "ordinal_rps_long(id, y, class, p)"),
]


@mltest.covers("mc_top_k_long", "mc_confusion_long", "mc_auroc_long", "mc_log_loss_long", "mc_brier_long",
               "mc_top_k_long_w", "ordinal_rps_long")
def test_later_ids(ck, rng):
    """An id that is wrong after many good ones (the reader's common paths,
    then its reading of any other row or id) gives the message it gives
    alone; a NULL in a later id skips it; a later id with a class more is
    the error of k differing; frames whose rows come out of (id, class)
    order and back equal the wide window."""
    con = mltest.connect()
    good = [(100 + i, i % 3, c, (.2, .3, .5)[c], 1.0) for i in range(40) for c in range(3)]

    def load(name, rows):
        con.execute("DROP TABLE IF EXISTS %s" % name)
        con.execute("CREATE TABLE %s(id, y, class, p, w)" % name)
        con.executemany("INSERT INTO %s VALUES (?,?,?,?,?)" % name,
                        [tuple(r) + (1.0,) * (5 - len(r)) for r in rows])
    for rows, call in LATER:
        load("e", rows)
        alone = None
        try:
            con.execute("SELECT %s FROM e" % call).fetchall()
        except sqlite3.Error as e:
            alone = str(e)
        ck.true(alone is not None, "%s over id 500 alone is an error" % call)
        for order in ("in order", "shuffled"):
            allrows = good + [tuple(r) + (1.0,) * (5 - len(r)) for r in rows]
            if order == "shuffled":
                allrows = [allrows[i] for i in rng.permutation(len(allrows))]
            load("e", allrows)
            ck.error(con, "SELECT %s FROM e" % call, (), alone, "%s: id 500 after 40 good ids, %s" % (call, order))
    load("e", good + [(500, 1, c, .25, 1.0) for c in range(4)])
    ck.error(con, "SELECT mc_top_k_long(id, y, class, p) FROM e", (),
             "mc_top_k_long(): k must be the same in every id: id 500 has 4 classes (0..3), id 100 has 3")
    for col in ("y", "class", "p"):
        load("e", good + [(500, 1, c, .25 + .25 * (c == 2), 1.0) for c in range(3)])
        con.execute("UPDATE e SET %s = NULL WHERE id = 500 AND class = 1" % col)
        for fn in ("mc_top_k", "mc_confusion", "mc_brier"):
            ck.equal(lone_e(con, "%s_long(id, y, class, p)" % fn), lone_e(con, "%s_long(id, y, class, p)" % fn,
                                                                         "WHERE id < 500"),
                     "a NULL %s in id 500 after 40 good ids skips it (%s)" % (col, fn))
    # frames: ids 2, 1, 3, 0 in groups g = 0..3 (one id a group): a frame of
    # two groups holds ids out of order, then in order, then out of order
    k = 3
    P = np.array([[.2, .3, .5], [.6, .3, .1], [.1, .1, .8], [.3, .4, .3]])
    y = np.array([2, 0, 1, 1])
    ids = [2, 1, 3, 0]
    load_wide(con, y, P, k, np.ones(4), np.arange(4))
    load_long(con, rng, ids, y, P, k, np.ones(4), np.arange(4), shuffle=False)
    for fn in ("mc_top_k", "mc_auroc", "mc_log_loss"):
        for frame in ("ORDER BY g GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW",
                      "ORDER BY g GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW"):
            a = [r[0] for r in con.execute("SELECT DISTINCT g, %s OVER (%s) FROM long ORDER BY g"
                                           % (long_call(fn, False), frame)).fetchall()]
            b = [r[0] for r in con.execute("SELECT g, %s OVER (%s) FROM t ORDER BY g"
                                           % (wide_call(fn, k, False), frame)).fetchall()]
            ck.equal(a, b, "%s OVER (%s): ids out of order, then in order" % (fn, frame))


def lone_e(con, expr, where=""):
    return con.execute("SELECT %s FROM e %s" % (expr, where)).fetchone()[0]


def test_records(ck):
    """The long records: each family function's, its twin with w after p, the
    parameters after that, all of family multiclass."""
    con = mltest.connect()
    recs = {f["name"]: f for f in mltest.records(con)}
    ck.equal(sorted(n for n, f in recs.items() if "_long" in n), sorted(LONG + LONG_W), "the long records")
    for fn in RECS:
        a, b = recs[fn + "_long"], recs[fn + "_long_w"]
        ck.equal((a["family"], a["data"]), ("multiclass", ["id", "y", "class", "p"]), fn + "_long's data")
        ck.equal((b["data"], b["weighted_of"]), (["id", "y", "class", "p", "w"], fn + "_long"), fn + "_long_w's data")
        ck.equal([p["name"] for p in a["params"]], [p["name"] for p in recs[fn]["params"]], fn + "_long's params")


def main():
    ck = mltest.Checker("test_mc_long")
    rng = np.random.default_rng(20261207)
    test_records(ck)
    test_errors(ck)
    test_equal_wide(ck, rng)
    test_nulls_and_integer_weights(ck, rng)
    test_windows(ck, rng)
    test_window_mode(ck, rng)
    test_states(ck, rng)
    test_later_ids(ck, rng)
    ck.finish()


if __name__ == "__main__":
    main()
