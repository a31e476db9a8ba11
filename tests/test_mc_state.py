# SPDX-License-Identifier: MIT
"""Multiclass partial states (ml_state_mc, ml_state_mc_w) and mc_auroc_ci_w.

Proves:
1. States = rows bit for bit: on random datasets (k = 2..8, rounded and full
   probabilities, rare and absent classes, JSON and wide forms), every mc_*
   function over the states of 2..50 random shards (some empty: NULL) gives
   the same text as over the rows, with and without parameters; again after
   ml_merge (random trees), and the merged state equals the state of all rows
   byte for byte.
2. Weighted states: ml_state_mc_w over shards = the twins over the rows bit
   for bit (any weights); integer weights = the unweighted rows repeated;
   weighted and unweighted states in one group (and their ml_merge) = the
   twin with weight 1 for the unweighted shards' rows, in either order.
3. Window frames over states: each frame equals the aggregate over its states
   (unweighted, weighted and mixed); ml_state_mc(_w) over a sliding frame is
   the state of the frame's rows, byte for byte.
4. Hostile states: not a state, truncated, bit-flipped, entries out of order
   and a bad count (resealed), a future version, a binary state given to mc_*,
   an mc state to a binary function, k disagreeing, a twin given a state --
   each an error naming what is wrong.
5. mc_auroc_ci_w: estimate = mc_auroc_w bit for bit, equal weights (1, 2) =
   mc_auroc_ci's text, rows' order irrelevant, integer weights differ from
   repeated rows (a row is one unit), a weighted state = the rows; every
   replicate rebuilt in numpy (check_ci_w_reproduction).
6. Size: bytes per distinct row, asserted against the documented bounds.
"""
import json
import random
import sqlite3
import struct

import numpy as np

import mltest
from mltest import reseal

FUNCS = [("mc_auroc", ""), ("mc_pr_auc", ""), ("mc_log_loss", ""), ("mc_brier", ""), ("mc_confusion", ""),
         ("mc_top_k", ""), ("ordinal_rps", ""), ("mc_calibration", ""), ("mc_calibration", ", 7"),
         ("mc_auroc_ci", ", 0.9, 40, 3")]


def dataset(rng, i):
    k = int(rng.integers(2, 9))
    n = int(rng.choice([1, 7, 40, 200, 600]))
    kind = ["r2", "float", "r1", "r2"][i % 4]
    P = rng.dirichlet(np.ones(k) * float(rng.choice([0.3, 1.0, 3.0])), n)
    if kind != "float":
        d = 2 if kind == "r2" else 1
        P = np.round(P, d)
        P[:, -1] = np.round(1.0 - P[:, :-1].sum(axis=1), 10)
        bad = P[:, -1] < 0
        P[bad] = np.eye(k)[0]
    pr = np.ones(k)
    if i % 5 == 1:
        pr[-1] = 0.02
    if i % 7 == 2 and k > 2:
        pr[int(rng.integers(0, k))] = 0.0
    y = rng.choice(k, n, p=pr / pr.sum())
    w = rng.choice([0.5, 1.0, 1.25, 3.0, 0.1], n) if i % 2 else rng.random(n) + 0.01
    return k, y, P, w


def load(con, k, y, P, w, nshard, rng):
    con.execute("DROP TABLE IF EXISTS t")
    cols = ["id", "g", "y", "w", "wi"] + ["p%d" % j for j in range(k)] + ["probs"]
    con.execute("CREATE TABLE t(%s)" % ", ".join(cols))
    g = rng.integers(0, nshard, len(y))
    wi = rng.integers(1, 4, len(y))
    rows = [[i, int(g[i]), int(y[i]), float(w[i]), int(wi[i])] + [float(v) for v in P[i]]
            + [json.dumps([float(v) for v in P[i]])] for i in range(len(y))]
    con.executemany("INSERT INTO t VALUES (%s)" % ", ".join("?" * len(cols)), rows)
    wide = ", ".join("p%d" % j for j in range(k))
    con.execute("DROP TABLE IF EXISTS st")
    # shards 0..nshard-1, some empty (a NULL state from no rows)
    con.execute("CREATE TABLE st(g, b, bw, bi)")
    for s in range(nshard):
        con.execute("INSERT INTO st SELECT ?, (SELECT ml_state_mc(y, %s) FROM t WHERE g = ?),"
                    " (SELECT ml_state_mc_w(y, probs, w) FROM t WHERE g = ?),"
                    " (SELECT ml_state_mc_w(y, %s, wi) FROM t WHERE g = ?)" % (wide, wide), (s, s, s, s))
    return wide


def q(con, sql, args=()):
    try:
        return con.execute(sql, args).fetchone()[0]
    except sqlite3.Error as e:
        return ("error", str(e))


def merge_tree(con, col, rng):
    """ml_merge of the shards' states in a random tree, as one state."""
    states = [r[0] for r in con.execute("SELECT %s FROM st" % col)]
    while len(states) > 1:
        rng.shuffle(states)
        a = states.pop()
        b = states.pop()
        states.append(q(con, "SELECT ml_merge(x) FROM (SELECT ? AS x UNION ALL SELECT ?)", (a, b)))
    return states[0]


@mltest.covers("ml_state_mc", "ml_state_mc_w")
def check_states(ck, con, rng):
    pyr = random.Random(5)
    for i in range(60):
        k, y, P, w = dataset(rng, i)
        nshard = int(rng.choice([2, 3, 8, 20, 50]))
        wide = load(con, k, y, P, w, nshard, rng)
        merged = merge_tree(con, "b", pyr)
        mergedw = merge_tree(con, "bw", pyr)
        whole = q(con, "SELECT ml_state_mc(y, %s) FROM t" % wide)
        ck.equal(merged, whole, "data %d: merged states = the state of all rows, byte for byte" % i)
        ck.equal(q(con, "SELECT ml_merge(b) FROM st"), whole, "data %d: ml_merge over the group" % i)
        ck.equal(mergedw, q(con, "SELECT ml_state_mc_w(y, %s, w) FROM t" % wide), "data %d: weighted merge" % i)
        for fn, extra in FUNCS:
            rows_call = "%s(y, %s%s)" % (fn, "probs" if extra else wide, extra)
            want = q(con, "SELECT %s FROM t" % rows_call)
            ck.equal(q(con, "SELECT %s(b%s) FROM st" % (fn, extra)), want, "data %d k %d shards %d: %s(states)"
                     % (i, k, nshard, fn + extra))
            ck.equal(q(con, "SELECT %s(?%s)" % (fn, extra), (merged,)), want, "data %d: %s(merged)" % (i, fn + extra))
            wname = fn + "_w"
            wantw = q(con, "SELECT %s(y, %s, w%s) FROM t" % (wname, "probs" if extra else wide, extra))
            ck.equal(q(con, "SELECT %s(bw%s) FROM st" % (fn, extra)), wantw, "data %d: %s(weighted states)"
                     % (i, fn + extra))
            if i % 3 == 0:
                ck.equal(q(con, "SELECT %s(?%s)" % (fn, extra), (mergedw,)), wantw,
                         "data %d: %s(merged weighted)" % (i, fn + extra))
            if i % 4 == 0 and fn != "mc_auroc_ci":
                # integer weights = the rows repeated: the weighted state, the unweighted rows
                rep = q(con, "WITH RECURSIVE r(id, c) AS (SELECT id, wi FROM t UNION ALL SELECT id, c - 1 FROM r"
                        " WHERE c > 1) SELECT %s FROM r JOIN t USING (id)" % rows_call)
                ck.equal(q(con, "SELECT %s(bi%s) FROM st" % (fn, extra)), rep,
                         "data %d: %s(integer-weighted states) = rows repeated" % (i, fn + extra))
        if i % 3 == 1:
            # weighted and unweighted states in one group: the twin over the
            # rows, the unweighted shards' rows weighing 1 (odd shards weighted)
            mixed = "(SELECT iif(g %% 2, bw, b) AS m, g FROM st)"
            for fn, extra in FUNCS:
                wantm = q(con, "SELECT %s_w(y, %s, iif(g %% 2, w, 1)%s) FROM t" % (fn, "probs" if extra else wide, extra))
                ck.equal(q(con, "SELECT %s(m%s) FROM %s" % (fn, extra, mixed % ())), wantm,
                         "data %d: %s(weighted and unweighted states)" % (i, fn + extra))
                ck.equal(q(con, "SELECT %s(m%s) FROM (SELECT m FROM %s ORDER BY g %% 2, g)" % (fn, extra, mixed % ())),
                         wantm, "data %d: %s(unweighted states first, then weighted)" % (i, fn + extra))
            ck.equal(q(con, "SELECT mc_auroc(x) FROM (SELECT ml_merge(m) AS x FROM %s)" % (mixed % ())),
                     q(con, "SELECT mc_auroc_w(y, %s, iif(g %% 2, w, 1)) FROM t" % wide),
                     "data %d: ml_merge of weighted and unweighted states" % i)
        if i % 4 == 2:              # probabilities of 1 decimal: repeated rows, counts above 1
            check_windows(ck, con, i)
            check_maker_windows(ck, con, i, wide)


def check_maker_windows(ck, con, i, wide):
    """ml_state_mc and ml_state_mc_w as window functions: each frame's state
    is the state of the frame's rows, byte for byte."""
    for fn in ("ml_state_mc(y, %s)" % wide, "ml_state_mc_w(y, probs, w)"):
        got = [r[0] for r in con.execute("SELECT %s OVER (ORDER BY id ROWS BETWEEN 4 PRECEDING AND 1 FOLLOWING)"
                                          " FROM t ORDER BY id" % fn)]
        for j in range(0, len(got), max(1, len(got) // 25)):
            ck.equal(got[j], q(con, "SELECT %s FROM t WHERE id BETWEEN ? AND ?" % fn, (j - 4, j + 1)),
                     "data %d: %s over a sliding frame, row %d" % (i, fn.split("(")[0], j))


def check_windows(ck, con, i):
    for fn, extra in (("mc_auroc", ""), ("mc_log_loss", ""), ("mc_confusion", ""), ("mc_calibration", ", 4")):
        for frame in ("ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", "ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING",
                      "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"):
            # the mixed column: a weighted state joins a frame whose unweighted
            # states were already read (their counted rows become rows)
            for col in ("b", "bw", "iif(g % 2, bw, b)"):
                got = [r[0] for r in con.execute("SELECT %s(%s%s) OVER (ORDER BY g %s) FROM st ORDER BY g"
                                                  % (fn, col, extra, frame))]
                gs = [r[0] for r in con.execute("SELECT g FROM st ORDER BY g")]
                lo_hi = {"ROWS BETWEEN 2 PRECEDING AND CURRENT ROW": (-2, 0),
                         "ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING": (-1, 2),
                         "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW": (-10**6, 0)}[frame]
                for j, g in enumerate(gs):
                    lo, hi = max(0, j + lo_hi[0]), min(len(gs) - 1, j + lo_hi[1])
                    want = q(con, "SELECT %s(%s%s) FROM st WHERE g BETWEEN ? AND ?" % (fn, col, extra),
                             (gs[lo], gs[hi]))
                    ck.equal(got[j], want, "data %d: %s(%s) over %s, frame %d" % (i, fn, col, frame, j))


def check_hostile(ck, con):
    con.execute("DROP TABLE IF EXISTS h")
    con.execute("CREATE TABLE h(y, p0, p1, p2)")
    con.executemany("INSERT INTO h VALUES (?, ?, ?, ?)",
                    [(i % 3, 0.25, 0.25, 0.5) if i % 2 else (i % 3, 0.125, 0.625, 0.25) for i in range(30)]
                    + [(1, 0.1, 0.3, 0.6), (2, 0.3, 0.3, 0.4)])
    good = con.execute("SELECT ml_state_mc(y, p0, p1, p2) FROM h").fetchone()[0]
    goodw = con.execute("SELECT ml_state_mc_w(y, p0, p1, p2, 2) FROM h").fetchone()[0]
    ck.equal(good[:8], b"MLST\x03\x05\x03\x03", "header: version 3, kind 5, k 3, 3 sections")
    ck.equal(goodw[:8], b"MLST\x03\x06\x03\x03", "weighted header: kind 6")

    def err(blob, msg, what, fn="mc_auroc"):
        ck.error(con, "SELECT %s(?)" % fn, (blob,), msg, what)
    err(b"hello", "mc_auroc(): state: the blob is not an mleval state (no MLST header; make one with ml_state())", "not a state")
    err(good[:20], "mc_auroc(): state: the state is truncated (20 bytes, shorter than its sections announce)", "truncated")
    flipped = bytearray(good); flipped[60] ^= 0x10
    err(bytes(flipped), "mc_auroc(): state: the state is corrupted (checksum mismatch)", "bit flip")
    ck.equal(q(con, "SELECT mc_auroc(?)", (good + b"\x00",))[1][:60],
             "mc_auroc(): state: the state is corrupted: 1 bytes after its", "trailing byte")
    newer = bytearray(good); newer[4] = 6          # 5 is the distribution kinds' (ml_state_dist)
    err(reseal(newer), "mc_auroc(): state: the state has format version 6, newer than this mleval reads (5): upgrade mleval",
        "a future version")
    kind = bytearray(good); kind[4] = 1
    err(reseal(kind), "mc_auroc(): state: the state is inconsistent: kind 5 in format version 1", "kind vs version")
    k1 = bytearray(good); k1[6] = 2
    err(reseal(k1), "mc_auroc(): state: the state is inconsistent: multiclass with k = 2 and 3 sections", "k vs sections")
    # section 1 (class 0): entries start at byte 8 + 36; swap the order by
    # making the second entry's p_0 delta zero and its other columns equal
    sec = 8
    nb = struct.unpack("<Q", good[sec + 28:sec + 36])[0]
    ne = struct.unpack("<Q", good[sec + 4:sec + 12])[0]
    ck.true(ne >= 2, "class 0 has two distinct rows")
    body = bytearray(good)
    # count of the last entry of section 1 -> 0 (its last byte)
    body[sec + 36 + nb - 1] = 0
    err(reseal(body), "mc_auroc(): state: the state is corrupted: bad entry %d of section 1" % ne, "a zero count")
    body = bytearray(good)
    body[sec + 36 + nb - 1] += 1
    err(reseal(body), "mc_auroc(): state: the state is inconsistent: the counts of section 1 overflow its totals",
        "counts above the totals")
    body = bytearray(good)
    tot = bytearray(struct.pack("<Q", 10**17))
    body[sec + 20:sec + 28] = tot
    err(reseal(body), "mc_auroc(): state: the state's counts overflow: section 1 claims more than 2^53 rows", "more than 2^53 rows")
    body = bytearray(good)
    body[sec + 12] = 1
    err(reseal(body), "mc_auroc(): state: the state is inconsistent: section 1 of a multiclass state counts negatives",
        "negatives in a multiclass section")
    # out of order: the second entry's first delta is 0 and the rest zig-zag 0 = the same tuple
    payload = bytes(good[sec + 36:sec + 36 + nb])
    # the first entry: 3 varints and a count; rewrite the section as the first entry twice
    first, rest = split_entry(payload, 3)
    dup = first + bytes([0, 0, 0]) + first[-1:]
    new = good[:sec + 4] + struct.pack("<Q", 2) + struct.pack("<Q", 0) \
        + struct.pack("<Q", 2 * first[-1]) + struct.pack("<Q", len(dup)) + dup
    tail = good[sec + 36 + nb:-4]
    err(reseal(bytearray(new + tail + b"\0\0\0\0")),
        "mc_auroc(): state: the state is corrupted: entries of section 1 are not in ascending order", "a repeated tuple")
    # kinds
    err(con.execute("SELECT ml_state(1, 0.5)").fetchone()[0],
        "mc_auroc(): expects a state made by ml_state_mc(y, p_0, ..., p_k-1) or ml_state_mc_w(y, p_0, ..., p_k-1, w), got a binary state",
        "a binary state to mc_auroc")
    ck.error(con, "SELECT pr_auc(?)", (good,),
             "pr_auc(): expects a state made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got a multiclass (k = 3) state",
             "an mc state to pr_auc")
    for call, who, makers in (("psi(?, ?)", "psi(): st_ref", "ml_state(y, s), ml_state(y, s, strat), ml_state_dist(x)"
                               " or ml_state_dist_w(x, w)"),
                              ("auroc_test(?, ?)", "auroc_test(): st_a", "ml_state(y, s) or ml_state(y, s, strat)")):
        ck.error(con, "SELECT " + call, (good, good), "%s must be a state made by %s, got a "
                 "multiclass (k = 3) state" % (who, makers), "an mc state to " + call)
    ck.error(con, "SELECT ece(?, 5)", (goodw,), "ece(): expects a state made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got a "
             "multiclass weighted (k = 3) state", "a weighted mc state to ece")
    ck.error(con, "SELECT ordinal_auprc(?)", (goodw,),
             "ordinal_auprc(): expects a state made by ml_state_ordinal(y, s_1, ..., s_m), got a "
             "multiclass weighted (k = 3) state", "a weighted mc state to an ordinal function")
    other = con.execute("SELECT ml_state_mc(1, 0.5, 0.5)").fetchone()[0]
    ck.error(con, "SELECT mc_auroc(x) FROM (SELECT ? AS x UNION ALL SELECT ?)", (good, other),
             "mc_auroc(): multiclass states with different k in one group: k = 3 and then k = 2", "k disagreeing")
    ck.error(con, "SELECT ml_merge(x) FROM (SELECT ? AS x UNION ALL SELECT ?)", (good, other),
             "ml_merge(): multiclass states with different k in one group: k = 3 and then k = 2", "merge: k disagreeing")
    ck.error(con, "SELECT ml_merge(x) FROM (SELECT ? AS x UNION ALL SELECT ml_state(1, 0.5))", (good,),
             "ml_merge(): states of different kinds in one group: multiclass (k = 3) and then binary",
             "merge: an mc state and a binary one")
    ck.error(con, "SELECT mc_auroc(?, 3)", (good,), "mc_auroc(): a state takes (state), got 2 arguments",
             "a parameter mc_auroc has not")
    ck.error(con, "SELECT mc_calibration(?, 3, 4)", (good,),
             "mc_calibration(): a state takes (state [, bins]), got 3 arguments", "too many parameters")
    ck.error(con, "SELECT mc_calibration(?, 0)", (good,), "mc_calibration(): bins must be an integer in 1..100000, got 0",
             "a bad parameter after a state")
    ck.error(con, "SELECT mc_auroc_w(?)", (good,),
             "mc_auroc_w(): takes rows, not a state: a state, weighted (ml_state_mc_w) or not, goes to the unweighted "
             "name: mc_auroc(state)", "a twin given a state")
    # probability functions check a state's rows as they check rows
    sc = con.execute("SELECT ml_state_mc(1, 2.0, 3.0)").fetchone()[0]
    ck.error(con, "SELECT mc_log_loss(?)", (sc,), "mc_log_loss(): p_0 must be a probability in [0, 1], got 2 in a state",
             "scores to mc_log_loss")
    sc = con.execute("SELECT ml_state_mc(1, 0.5, 0.6)").fetchone()[0]
    ck.error(con, "SELECT mc_brier(?)", (sc,),
             "mc_brier(): the probabilities of a row must sum to 1 (within 1e-6), got 1.1 over p_0..p_k-1 in a state",
             "a row not summing to 1")
    ck.equal(q(con, "SELECT mc_auroc(?)", (sc,)) is not None, True, "scores serve mc_auroc")
    # (y, pred) rows and a state cannot share a group: the state form has one argument
    ck.error(con, "SELECT mc_confusion(?, NULL)", (good,), "mc_confusion(): a state takes (state), got 2 arguments",
             "mc_confusion(state, pred)")
    ck.equal(q(con, "SELECT mc_auroc(x) FROM (SELECT NULL AS x)"), None, "a NULL state only: NULL")
    ck.equal(q(con, "SELECT ml_state_mc(y, p0, p1, p2) FROM h WHERE 0"), None, "no rows: NULL state")
    # random corruption never crashes
    rnd = random.Random(3)
    for t in range(400):
        b = bytearray(good if t % 2 else goodw)
        for _ in range(rnd.randint(1, 4)):
            b[rnd.randrange(8, len(b) - 4)] = rnd.randrange(256)
        r = q(con, "SELECT mc_auroc(?)", (reseal(b),))
        ck.true(r is None or isinstance(r, str) or r[0] == "error", "random corruption %d: a result or an error" % t)


def split_entry(payload, k):
    """The first entry (k varints and a count) of an unweighted section."""
    at = 0
    for _ in range(k + 1):
        while payload[at] & 0x80:
            at += 1
        at += 1
    return payload[:at], payload[at:]


def check_ci_w(ck, con, rng):
    for i in range(12):
        k = int(rng.integers(2, 6))
        n = int(rng.choice([20, 60, 150]))
        P = np.round(rng.dirichlet(np.ones(k), n), 2)
        y = rng.integers(0, k, n)
        y[:k] = np.arange(k)
        w = rng.choice([0.5, 1.0, 2.5, 0.3], n)
        nshard = 3
        load(con, k, y, P, w, nshard, rng)
        wide = ", ".join("p%d" % j for j in range(k))
        got = q(con, "SELECT mc_auroc_ci_w(y, %s, w) FROM t" % wide)
        est = json.loads(q(con, "SELECT mc_auroc_w(y, %s, w) FROM t" % wide))
        g = json.loads(got)
        ck.equal(g["ovr_macro"]["estimate"], est["ovr_macro"], "ci_w %d: ovr estimate = mc_auroc_w's" % i)
        ck.equal(g["ovo_macro"]["estimate"], est["ovo_macro"], "ci_w %d: ovo estimate = mc_auroc_w's" % i)
        ck.true(g["ovr_macro"]["lo"] <= g["ovr_macro"]["estimate"] <= g["ovr_macro"]["hi"]
                or g["ovr_macro"]["lo"] is None, "ci_w %d: the interval holds the estimate" % i)
        ck.equal(g["reps"], 1000, "ci_w %d: reps" % i)
        plain = q(con, "SELECT mc_auroc_ci(y, %s) FROM t" % wide)
        for c in ("1", "2", "0.25"):
            ck.equal(q(con, "SELECT mc_auroc_ci_w(y, %s, %s) FROM t" % (wide, c)), plain,
                     "ci_w %d: weights all %s = mc_auroc_ci's text" % (i, c))
        shuffled = q(con, "SELECT mc_auroc_ci_w(y, probs, w, 0.9, 100, 4) FROM (SELECT * FROM t ORDER BY random())")
        ck.equal(shuffled, q(con, "SELECT mc_auroc_ci_w(y, probs, w, 0.9, 100, 4) FROM t"), "ci_w %d: row order" % i)
        ck.equal(q(con, "SELECT mc_auroc_ci(bw, 0.9, 100, 4) FROM st"),
                 q(con, "SELECT mc_auroc_ci_w(y, probs, w, 0.9, 100, 4) FROM t"), "ci_w %d: weighted states" % i)
        # integer weights: a row of weight 2 is one unit counted twice, not two rows
        rep = q(con, "SELECT mc_auroc_ci(y, %s) FROM (SELECT * FROM t UNION ALL SELECT * FROM t WHERE wi >= 2)" % wide)
        twice = q(con, "SELECT mc_auroc_ci_w(y, %s, iif(wi >= 2, 2, 1)) FROM t" % wide)
        ck.equal(json.loads(twice)["ovr_macro"]["estimate"], json.loads(rep)["ovr_macro"]["estimate"],
                 "ci_w %d: integer weights: the estimate of the rows repeated" % i)
        ck.true(twice != rep, "ci_w %d: integer weights: not the rows repeated's interval" % i)
        # frames: each equals the aggregate over its rows
        frames = [r[0] for r in con.execute("SELECT mc_auroc_ci_w(y, probs, w, 0.9, 30, 1) OVER (ORDER BY id ROWS"
                                            " BETWEEN 30 PRECEDING AND CURRENT ROW) FROM t ORDER BY id")]
        for j in (n // 2, n - 1):
            ck.equal(frames[j], q(con, "SELECT mc_auroc_ci_w(y, probs, w, 0.9, 30, 1) FROM t WHERE id BETWEEN ? AND ?",
                                  (max(0, j - 30), j)), "ci_w %d: frame %d" % (i, j))
    ck.error(con, "SELECT mc_auroc_ci_w(1, 0.5, 0.5, -1)", (), "mc_auroc_ci_w(): w must be a non-negative finite number, got -1", "a negative weight")
    ck.equal(q(con, "SELECT mc_auroc_ci_w(1, 0.5, 0.5, 0)"), None, "weight 0 only: NULL")


@mltest.covers("mc_auroc_ci_w")
def check_ci_w_reproduction(ck, con):
    """mc_auroc_ci_w's replicates rebuilt in numpy: test_uncertainty.py's
    generator and BCa over the rows of positive weight in the canonical order
    (y, w, s_0, ..., s_k-1), a row drawn k times weighing k w, each replicate
    scikit-learn's weighted OvR and OvO macro AUROC (test_multiclass.py's
    reference); estimate, se, lo, hi, percentile and redrawn to 1e-9."""
    import test_multiclass
    import test_uncertainty
    rng = np.random.default_rng(3434)          # its own stream: the checks above keep theirs
    for trial in range(6):
        k = 3 + trial % 2
        n = int(rng.integers(14, 28))
        y = rng.integers(0, k, n)
        y[:k] = np.arange(k)
        P = test_multiclass.random_probs(rng, n, k, ("ties", "dirichlet")[trial % 2])
        w = rng.choice([0.0, 0.5, 1.0, 1.5, 3.25], n)
        w[:k] = 1.0
        reps, seed, level = (10, 20)[trial % 2], [0, 7, 12345][trial % 3], (0.9, 0.95)[trial % 2]
        order = rng.permutation(n)
        load(con, k, y[order], P[order], w[order], 1, rng)
        keep = [i for i in range(n) if w[i] > 0]
        canon = sorted(keep, key=lambda i: (int(y[i]), float(w[i])) + tuple(float(v) for v in P[i]))
        yc, Pc, wc = y[canon], P[canon], w[canon]
        want, red = test_uncertainty.boot_reference(
            lambda kk: test_multiclass.ovr_ovo_weighted(yc, Pc, k, kk * wc), len(canon), reps, seed, level, None)
        got = json.loads(q(con, "SELECT mc_auroc_ci_w(y, probs, w, %r, %d, %d) FROM t" % (level, reps, seed)))
        what = "mc_auroc_ci_w reproduction %d (k %d n %d reps %d seed %d)" % (trial, k, len(canon), reps, seed)
        for key, iv in (("ovr_macro", want[0]), ("ovo_macro", want[1])):
            for f in ("estimate", "se", "lo", "hi"):
                ck.close(got[key][f], iv[f], "%s %s %s" % (what, key, f), rel=1e-9, abs_=1e-12)
            ck.close(got[key]["percentile"][0], iv["plo"], what + " " + key + " percentile lo", rel=1e-9)
            ck.close(got[key]["percentile"][1], iv["phi"], what + " " + key + " percentile hi", rel=1e-9)
        ck.equal((got["reps"], got["seed"], got["redrawn"], got["n"]), (reps, seed, red, len(canon)), what + " run fields")


def check_size(ck, con, rng):
    for k, d in ((3, 2), (5, 2), (3, None)):
        n = 20000
        P = rng.dirichlet(np.ones(k), n)
        if d is not None:
            P = np.round(P, d)
            P[:, -1] = np.round(1 - P[:, :-1].sum(axis=1), d)
        y = rng.integers(0, k, n)
        load(con, k, y, P, np.ones(n), 1, rng)
        wide = ", ".join("p%d" % j for j in range(k))
        size = q(con, "SELECT length(ml_state_mc(y, %s)) FROM t" % wide)
        sizew = q(con, "SELECT length(ml_state_mc_w(y, %s, wi)) FROM t" % wide)
        distinct = q(con, "SELECT count(*) FROM (SELECT DISTINCT y, %s FROM t)" % wide)
        distinctw = q(con, "SELECT count(*) FROM (SELECT DISTINCT y, wi, %s FROM t)" % wide)
        per, perw = (size - 8 - 36 * k - 4) / distinct, (sizew - 8 - 36 * k - 4) / distinctw
        print("size k=%d %s: %d distinct rows, %.2f bytes each; weighted (3 weights) %.2f" %
              (k, "rounded to %d decimals" % d if d else "full doubles", distinct, per, perw))
        bound = (2 * k + 1) if d else 9 * k + 10
        ck.true(per <= bound, "k %d d %s: %.2f bytes per distinct row <= %d" % (k, d, per, bound))
        ck.true(perw <= bound + 1, "k %d d %s weighted: %.2f bytes per distinct row <= %d" % (k, d, perw, bound + 1))


def main():
    ck = mltest.Checker("test_mc_state")
    con = mltest.connect()
    rng = np.random.default_rng(34)
    check_hostile(ck, con)
    check_states(ck, con, rng)
    check_ci_w(ck, con, rng)
    check_size(ck, con, rng)
    check_ci_w_reproduction(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
