# SPDX-License-Identifier: MIT
"""Differential suite: weighted partial states, ml_state_w(y, s, w) (issue 23;
docs/states.md "Weighted states").

A weighted state keeps each row's (score, weight) with its class counts, so
states merge by adding counts, and every ranking, threshold and calibration
function given weighted states must return its weighted twin's result over
the states' rows, bit for bit -- the twins themselves are checked against
scikit-learn's sample_weight and numpy references in test_weights*.py, and
here once more directly (pr_auc, auroc, brier, log_loss against
scikit-learn to 1e-12).  On random datasets (n 1 to 600, ties, scores on
bin edges, 1 % prevalence, one class, weights of every mltest kind from
1e-6 to 1e6, zero and NULL weights), the rows cut into shards:
  * f(st) over every shard's ml_state_w = f_w(y, p, w) over the rows;
  * f(ml_merge(st)) the same; GROUP BY a grouping of shards the same;
  * weighted and unweighted (ml_state) shards together = f_w with weight 1
    for the unweighted shards' rows (merged, and given to f directly);
  * every window frame shape over the table of daily states = f_w over the
    rows of the frame's shards, frame by frame;
  * rows beside a weighted state in one group (gains(a, b), log_loss(a, b),
    ece_equal_mass(a, b): rows (y, p) and states (st, param) share the
    arity) weigh 1, aggregate and frames;
  * integer weights: a weighted state = ml_state over the rows repeated;
  * errors: the uncertainty family, ece_l2_kumar/_debiased, stratified and
    ordinal functions refuse a weighted state with their texts; ece's rows
    already binned refuse one; bad weights in ml_state_w; weights in a blob
    that are 0, negative, infinite or NaN are corrupted entries; version 2
    belongs to the weighted kind alone.
"""
import math
import struct

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score     # ./bootstrap installs python3-sklearn

import mltest
from mltest import varint
from test_states import reseal

# (function, parameters after the data arguments); every one has a twin
FUNCS = [
    ("pr_auc", ""), ("auroc", ""), ("nap", ""), ("ks", ""), ("youden_j", ""),
    ("tpr_at_fpr", ", 0.1"), ("sens_at_spec", ", 0.9"), ("partial_auroc", ", 0.3"),
    ("pr_curve", ""), ("roc_curve", ""), ("operating_point", ", 'max_f1'"),
    ("operating_point", ", 'specificity', 0.9"), ("precision_at_k", ", 5"), ("recall_at_k", ", 3"),
    ("gains", ", 3"), ("decision_curve", ", 0.1, 0.9, 0.2"),
    ("confusion", ", 0.5"), ("mcc", ", 0.5"), ("f_beta", ", 0.5, 2"), ("net_benefit", ", 0.3"),
    ("precision_at_prior", ", 0.5, 0.1"),
    ("brier", ""), ("log_loss", ""), ("ece", ", 5"), ("mce", ", 5"), ("reliability", ", 5"),
    ("reliability", ", 4, 'quantile'"), ("ece_equal_mass", ", 3"), ("ece_l2", ", 3"),
    ("brier_decomposition", ", 3"), ("calibration_summary", ""), ("calibration_smooth", ""),
]
# the window frames run over these (each family's absorb and removal)
WINDOW_FUNCS = [("pr_auc", ""), ("auroc", ""), ("gains", ", 3"), ("confusion", ", 0.5"),
                ("brier", ""), ("ece", ", 5"), ("reliability", ", 4, 'quantile'"),
                ("ece_equal_mass", ", 3"), ("calibration_summary", ""), ("calibration_smooth", "")]
FRAMES = [
    "ORDER BY {o} ROWS BETWEEN 1 PRECEDING AND CURRENT ROW",
    "ORDER BY {o} ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
    "ORDER BY {o} ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING",
    "ORDER BY {o} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
    "ORDER BY {o} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
    "ORDER BY {o} GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW",
]


def dataset(rng, i):
    n = int(rng.choice([1, 2, 5, 30, 200, 600]))
    prev = float(rng.choice([0.01, 0.3, 0.5, 0.0]))
    y = (rng.random(n) < prev).astype(int)
    if prev == 0.01 and n >= 30:
        y[rng.integers(0, n)] = 1
    shape = i % 4
    if shape == 0:
        p = rng.random(n)
    elif shape == 1:
        p = np.round(rng.random(n), 1)                   # ties, on bin edges
    elif shape == 2:
        p = rng.choice([0.0, 0.2, 0.25, 0.4, 0.5, 0.6, 0.75, 0.8, 1.0], n)
    else:
        p = np.round(rng.random(n), 3)
    kinds = mltest.WEIGHT_KINDS + ("thirds",)
    kind = kinds[i % len(kinds)]
    if kind == "thirds":
        # few inexact weights, so an entry's c rows weigh c w that rounds
        w = [float(v) for v in rng.choice([1.0 / 3.0, 0.1, 1.0 / 7.0, 2.0 / 3.0, 1e-6 / 3.0], n)]
    else:
        w = [float(v) for v in mltest.random_weights(rng, n, y, kind)]
    for k in range(n):
        if rng.random() < 0.03:
            w[k] = None                                  # a NULL weight skips the row
    shards = int(rng.choice([1, 2, 3, 6]))
    g = rng.integers(0, shards, n)
    return [(int(g[k]), int(y[k]), float(p[k]), w[k]) for k in range(n)], shards, kind


def one(con, sql, args=()):
    return con.execute(sql, args).fetchone()[0]


@mltest.covers("ml_state_w", "ml_merge")
def check_dataset(ck, con, rows, shards, what, windows):
    mltest.load(con, ["g", "y", "p", "w"], rows)
    con.execute("DROP TABLE IF EXISTS sw")
    con.execute("CREATE TABLE sw(id INTEGER PRIMARY KEY, g, st, su, sz)")
    con.execute("INSERT INTO sw(g, st, su, sz) SELECT g, ml_state_w(y, p, w), ml_state(y, p),"
                " ml_state(y, p, 1.5 * g + 2) FROM t GROUP BY g ORDER BY g")
    for f, par in FUNCS:
        want = one(con, "SELECT %s_w(y, p, w%s) FROM t" % (f, par))
        ck.equal(one(con, "SELECT %s(st%s) FROM sw" % (f, par)), want, "%s(st%s) = %s_w %s" % (f, par, f, what))
        ck.equal(one(con, "SELECT %s(m%s) FROM (SELECT ml_merge(st) m FROM sw)" % (f, par)), want,
                 "%s(ml_merge(st)%s) %s" % (f, par, what))
        # GROUP BY shard parity
        got = dict(con.execute("SELECT g %% 2, %s(st%s) FROM sw GROUP BY g %% 2" % (f, par)).fetchall())
        for k, v in got.items():
            ck.equal(v, one(con, "SELECT %s_w(y, p, w%s) FROM t WHERE g %% 2 = ?" % (f, par), (k,)),
                     "%s(st%s) GROUP BY g %% 2 = %d %s" % (f, par, k, what))
        # weighted (odd shards) beside unweighted (even shards): those rows weigh 1
        mixed = one(con, "SELECT %s_w(y, p, CASE WHEN g %% 2 = 0 THEN 1 ELSE w END%s) FROM t" % (f, par))
        q = "(SELECT CASE WHEN g % 2 = 0 THEN su ELSE st END b FROM sw)"
        ck.equal(one(con, "SELECT %s(b%s) FROM %s" % (f, par, q)), mixed, "%s mixed states %s" % (f, par + what))
        ck.equal(one(con, "SELECT %s(m%s) FROM (SELECT ml_merge(b) m FROM %s)" % (f, par, q)), mixed,
                 "%s(ml_merge(mixed states)) %s" % (f, par + what))
    if not windows:
        return
    # frames of weighted states, then of mixed ones (an unweighted state met
    # first leaves counted runs or records that a weighted one then weighs;
    # ece, mce and reliability 'uniform' bin the unweighted ones and refuse,
    # docs/states.md)
    con.execute("ALTER TABLE sw ADD COLUMN sm")
    con.execute("UPDATE sw SET sm = CASE WHEN g % 2 = 0 THEN su ELSE st END")
    for shape in FRAMES:
        members = dict(mltest.frames(con, shape, "g", "sw"))
        for rid, m in mltest.window(con, "ml_merge(st)", shape, "g", "sw").items():
            gs = [r[0] for r in con.execute("SELECT g FROM sw WHERE id IN (%s)" % (",".join(map(str, members[rid])) or "NULL"))]
            for f, par in (("pr_auc", ""), ("ece", ", 5"), ("gains", ", 3")):
                want = one(con, "SELECT %s_w(y, p, w%s) FROM t WHERE g IN (%s)" % (f, par, ",".join(map(str, gs)) or "NULL"))
                got = one(con, "SELECT %s(?%s)" % (f, par), (m,)) if m is not None else None
                ck.equal(got, want, "%s(ml_merge(st) OVER (%s)) state %d %s" % (f, shape, rid, what))
    for col, wexpr in (("st", "w"), ("sm", "CASE WHEN g % 2 = 0 THEN 1 ELSE w END")):
        for f, par in WINDOW_FUNCS:
            if col == "sm" and f in ("ece", "mce") or (f == "reliability" and "quantile" not in par and col == "sm"):
                continue
            expr = "%s(%s%s)" % (f, col, par)
            for shape in FRAMES:
                members = mltest.frames(con, shape, "g", "sw")
                got = mltest.window(con, expr, shape, "g", "sw")
                for rid, ids in members:
                    gs = [r[0] for r in con.execute("SELECT g FROM sw WHERE id IN (%s)" % (",".join(map(str, ids)) or "NULL"))]
                    want = one(con, "SELECT %s_w(y, p, %s%s) FROM t WHERE g IN (%s)"
                               % (f, wexpr, par, ",".join(map(str, gs)) or "NULL"))
                    ck.equal(got[rid], want, "%s OVER (%s) state %d %s" % (expr, shape, rid, what))


def check_strat_after_weighted(ck, con, rng):
    """A frame of stratified states after weighted ones left it (one state
    per frame): the group's buffer stays weighted, and a stratifier is no
    weight -- the frame is the stratified state's rows, each weighing 1."""
    for it in range(10):
        n = 80
        y = (rng.random(n) < 0.4).astype(int)
        p = np.round(rng.random(n), 2)
        w = mltest.random_weights(rng, n, y, "exponential")
        mltest.load(con, ["d", "y", "p", "w"], [(k // 20, int(y[k]), float(p[k]), float(w[k])) for k in range(n)],
                    table="r")
        con.execute("DROP TABLE IF EXISTS f")
        con.execute("CREATE TABLE f(id INTEGER PRIMARY KEY, b)")
        for d in range(4):
            q = "ml_state_w(y, p, w)" if d < 2 else "ml_state(y, p, 3.5 + d)"
            con.execute("INSERT INTO f(b) SELECT %s FROM r WHERE d = ?" % q, (d,))
        for f, par in (("pr_auc", ""), ("gains", ", 3"), ("confusion", ", 0.5"), ("ece_equal_mass", ", 3"),
                       ("reliability", ", 4, 'quantile'"), ("brier", "")):
            got = [v for (v,) in con.execute("SELECT %s(b%s) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND"
                                             " CURRENT ROW) FROM f ORDER BY id" % (f, par))]
            for d in range(4):
                wexpr = "w" if d < 2 else "1"
                want = one(con, "SELECT %s_w(y, p, %s%s) FROM r WHERE d = ?" % (f, wexpr, par), (d,))
                ck.equal(got[d], want, "%s over frame %d: stratified after weighted states, %d" % (f, d, it))


def key_of(d):
    """ml_key_of / ml_zkey_of of a positive double: its bits with the sign bit set."""
    return struct.unpack("<Q", struct.pack("<d", d))[0] ^ 0x8000000000000000


def scaled(i, d):
    """The written integer of i / 10^d under the scaled codec 1 + d (no ulp correction)."""
    return ((i + (1 << 52)) << 2) | 1


def raw_weighted_state(entries, codecs=(0, 0)):
    """A weighted state written by hand: entries (score, weight, negatives,
    positives) in the order given; raw codecs (the doubles' keys), or scaled
    ones (1 + d: score and weight given as (integer, d) pairs)."""
    pay = bytearray()
    prev, prevz = 0, 0
    for sc, w, c0, c1 in entries:
        u = key_of(sc) if codecs[0] == 0 else scaled(*sc)
        z = key_of(w) if codecs[1] == 0 else scaled(*w)
        dz = (z - prevz) & 0xFFFFFFFFFFFFFFFF
        dz = dz - (1 << 64) if dz >> 63 else dz
        pay += varint(u - prev) + varint(((dz << 1) ^ (dz >> 63)) & 0xFFFFFFFFFFFFFFFF) + varint(c0) + varint(c1)
        prev, prevz = u, z
    n0 = sum(e[2] for e in entries)
    n1 = sum(e[3] for e in entries)
    blob = b"MLST\x02\x04\x01\x01" + struct.pack("<BBHQQQQ", codecs[0], codecs[1], 0, len(entries), n0, n1,
                                                    len(pay)) + bytes(pay)
    return reseal(blob + b"\0\0\0\0")


def check_scaled_blobs(ck, con):
    """Hand-written weighted states of scaled codecs (scores over 10^2,
    weights integers): validated on their integers -- a weight 0, a weight
    below 0, equal or descending pairs are refused, a valid one reads as
    its rows."""
    pre = "pr_auc(): state: the state is corrupted: "
    c = (3, 1)
    good = [((25, 2), (1, 0), 2, 1), ((25, 2), (3, 0), 1, 0), ((70, 2), (2, 0), 0, 3), ((90, 2), (1, 0), 1, 1)]
    mltest.load(con, ["y", "p", "w"], [(y, sc[0] / 100, float(w[0])) for sc, w, c0, c1 in good
                                       for y, k in ((0, c0), (1, c1)) for _ in range(k)], table="sc")
    for f, par in (("pr_auc", ""), ("ece", ", 5"), ("gains", ", 2"), ("reliability", ", 2, 'quantile'")):
        ck.equal(one(con, "SELECT %s(?%s)" % (f, par), (raw_weighted_state(good, c),)),
                 one(con, "SELECT %s_w(y, p, w%s) FROM sc" % (f, par)), "%s over a scaled weighted state" % f)
    bad0 = list(good)
    bad0[2] = ((70, 2), (0, 0), 0, 3)
    ck.error(con, "SELECT pr_auc(?)", (raw_weighted_state(bad0, c),), pre + "bad entry 3 of section 1",
             "a scaled weight 0")
    badn = list(good)
    badn[2] = ((70, 2), (-2, 0), 0, 3)
    ck.error(con, "SELECT pr_auc(?)", (raw_weighted_state(badn, c),), pre + "bad entry 3 of section 1",
             "a scaled weight -2")
    for k, swap in ((1, ((25, 2), (1, 0), 1, 0)), (1, ((25, 2), (0 + 1, 0), 5, 5))):
        bad = list(good)
        bad[k] = swap                                   # (0.25, 1) twice
        ck.error(con, "SELECT pr_auc(?)", (raw_weighted_state(bad, c),),
                 pre + "entries of section 1 are not in ascending order", "equal scaled pairs")
    desc = [good[1], good[0], good[2], good[3]]         # (0.25, 3) before (0.25, 1)
    ck.error(con, "SELECT pr_auc(?)", (raw_weighted_state(desc, c),),
             pre + "entries of section 1 are not in ascending order", "descending weights at one score")


def check_claims(ck, con):
    """A weighted state claiming 2^40 rows costs its entries: each function
    answers in milliseconds with its twin's result over rows weighing c w
    (c a power of two or small, so c w is exact there too)."""
    import time
    entries = [(0.25, 0.1, 1 << 40, 2), (0.25, 3.0, 0, 1 << 39), (0.75, 0.1, 4, 1 << 38), (0.9, 7.5, 1 << 30, 1)]
    blob = raw_weighted_state(entries)
    rows = []
    for sc, w, c0, c1 in entries:
        if c0:
            rows.append((0, sc, float(c0) * w))
        if c1:
            rows.append((1, sc, float(c1) * w))
    mltest.load(con, ["y", "p", "w"], rows, table="claim")
    for f, par in (("pr_auc", ""), ("auroc", ""), ("gains", ", 3"), ("ece", ", 5"), ("brier", ""),
                   ("reliability", ", 4, 'quantile'"), ("ece_equal_mass", ", 3"), ("calibration_summary", ""),
                   ("calibration_smooth", ""), ("confusion", ", 0.5")):
        t = time.time()
        got = one(con, "SELECT %s(?%s)" % (f, par), (blob,))
        dt = time.time() - t
        ck.equal(got, one(con, "SELECT %s_w(y, p, w%s) FROM claim" % (f, par)),
                 "%s over a weighted state claiming 2^40 rows = the twin over rows weighing c w" % f)
        ck.true(dt < 0.5, "%s over a weighted state claiming 2^40 rows in %.3f s (< 0.5 s)" % (f, dt))


def check_overflow(ck, con):
    """SPEC: count sums are checked against 2^53 everywhere -- weighted
    states too, in every family that reads them and in ml_merge."""
    a = raw_weighted_state([(0.5, 1.0, (1 << 52) + 1, 0)])
    b = raw_weighted_state([(0.6, 2.0, (1 << 52) + 1, 1)])
    for f, par in (("pr_auc", ""), ("ece", ""), ("confusion", ", 0.5"), ("brier", ""), ("ece_equal_mass", ", 3")):
        ck.error(con, "SELECT %s(x%s) FROM (SELECT ? x UNION ALL SELECT ?)" % (f, par), (a, b),
                 "%s(): counts overflow: the merged state would hold more than 2^53 rows" % f)
    ck.error(con, "SELECT ml_merge(x) FROM (SELECT ? x UNION ALL SELECT ?)", (a, b),
             "ml_merge(): counts overflow: the merged state would hold more than 2^53 rows")


def check_rows_beside_states(ck, con, rng):
    """Rows (y, p) and weighted states (st, param) in one group: the rows weigh 1."""
    for it in range(12):
        n = 40
        y = (rng.random(n) < 0.4).astype(int)
        p = np.round(rng.random(n), 2)
        w = mltest.random_weights(rng, n, y, mltest.WEIGHT_KINDS[it % len(mltest.WEIGHT_KINDS)])
        rows = [(k, int(y[k]), float(p[k]), float(w[k])) for k in range(n)]
        mltest.load(con, ["k", "y", "p", "w"], rows, table="r")
        con.execute("DROP TABLE IF EXISTS t")
        con.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, g, a, b)")
        # ids 1..n: rows k < 20 as rows, the rest as one weighted state per 5 rows
        for k in range(20):
            con.execute("INSERT INTO t(g, a, b) VALUES (0, ?, ?)", (int(y[k]), float(p[k])))
        for s in range(20, n, 5):
            st = one(con, "SELECT ml_state_w(y, p, w) FROM r WHERE k >= ? AND k < ?", (s, s + 5))
            con.execute("INSERT INTO t(g, a, b) VALUES (1, ?, ?)", (st, None))
        for f, dflt in (("gains", 10), ("log_loss", 1e-15), ("ece_equal_mass", 10)):
            con.execute("UPDATE t SET b = ? WHERE g = 1", (dflt,))
            want = one(con, "SELECT %s_w(y, p, CASE WHEN k < 20 THEN 1 ELSE w END) FROM r" % f)
            ck.equal(one(con, "SELECT %s(a, b) FROM t" % f), want, "%s: rows beside weighted states, %d" % (f, it))
            mltest.same_as_aggregate(ck, con, "%s(a, b)" % f, "id", "rows beside weighted states %d" % it)


@mltest.covers("ml_state_w")
def check_sklearn(ck, con, rng):
    for it in range(30):
        n = 300
        y = (rng.random(n) < 0.3).astype(int)
        s = np.round(rng.random(n), 2)
        w = mltest.random_weights(rng, n, y, mltest.WEIGHT_KINDS[it % len(mltest.WEIGHT_KINDS)])
        keep = w > 0
        if len(set(y[keep])) < 2:
            continue
        mltest.load(con, ["g", "y", "p", "w"], [(k % 4, int(y[k]), float(s[k]), float(w[k])) for k in range(n)])
        q = "SELECT %s(st) FROM (SELECT ml_state_w(y, p, w) st FROM t GROUP BY g)"
        ck.close(one(con, q % "pr_auc"), average_precision_score(y[keep], s[keep], sample_weight=w[keep]),
                 "pr_auc over weighted states vs scikit-learn %d" % it)
        ck.close(one(con, q % "auroc"), roc_auc_score(y[keep], s[keep], sample_weight=w[keep]),
                 "auroc over weighted states vs scikit-learn %d" % it)
        W = w[keep].sum()
        ck.close(one(con, q % "brier"), float(np.sum(w[keep] * (s[keep] - y[keep]) ** 2) / W),
                 "brier over weighted states vs numpy %d" % it)


def check_integer_weights(ck, con, rng):
    """Integer weights: the weighted state of rows = ml_state of the rows repeated."""
    for it in range(20):
        n = 50
        y = (rng.random(n) < 0.4).astype(int)
        p = np.round(rng.random(n), 1)
        k = rng.integers(0, 4, n)
        mltest.load(con, ["y", "p", "k"], [(int(y[i]), float(p[i]), int(k[i])) for i in range(n)])
        rep = [(int(y[i]), float(p[i])) for i in range(n) for _ in range(int(k[i]))]
        mltest.load(con, ["y", "p"], rep, table="rep")
        for f, par in (("pr_auc", ""), ("auroc", ""), ("ece", ", 5"), ("brier", ""), ("gains", ", 3"),
                       ("ece_equal_mass", ", 3"), ("confusion", ", 0.5")):
            ck.equal(one(con, "SELECT %s(st%s) FROM (SELECT ml_state_w(y, p, k) st FROM t)" % (f, par)),
                     one(con, "SELECT %s(y, p%s) FROM rep" % (f, par)),
                     "%s over an integer-weighted state = the rows repeated, %d" % (f, it))


def check_errors(ck, con):
    mltest.load(con, ["y", "p", "w"], [(0, 0.2, 1.0), (1, 0.7, 2.0), (1, 0.4, 0.5), (0, 0.9, 3.0)])
    st = one(con, "SELECT ml_state_w(y, p, w) FROM t")
    ck.equal(st[:8], b"MLST\x02\x04\x01\x01", "a weighted state's header: version 2, kind 4")
    for f, par in (("pr_auc_ci", ""), ("brier_ci", ""), ("auroc_ci", ""), ("ece_ci", "")):
        ck.error(con, "SELECT %s(?%s)" % (f, par), (st,),
                 "%s(): takes no weighted state (made by ml_state_w): its interval needs the rows themselves,"
                 " and a weighted state keeps only their weights summed; give the rows to %s_w" % (f, f))
    for f in ("ece_l2_kumar", "ece_l2_debiased"):
        ck.error(con, "SELECT %s(?, 2)" % f, (st,),
                 "%s(): takes no weighted state (made by ml_state_w): it has no weighted definition"
                 " (docs/weights.md)" % f)
    ck.error(con, "SELECT strat_pr_auc(?)", (st,),
             "strat_pr_auc(): expects a state made by ml_state(y, s, strat), got a weighted state")
    ck.error(con, "SELECT ordinal_auprc(?)", (st,),
             "ordinal_auprc(): expects a state made by ml_state_ordinal(y, s_1, ..., s_m),"
             " got a weighted state")
    sz = one(con, "SELECT ml_state(y, p, p) FROM t")
    ck.error(con, "SELECT ml_merge(b) FROM (SELECT ? b UNION ALL SELECT ?)", (st, sz),
             "ml_merge(): states of different kinds in one group: weighted and then binary+strat")
    # ece: rows already in its equal-width bins cannot be re-weighed
    con.execute("DROP TABLE IF EXISTS m")
    con.execute("CREATE TABLE m(id INTEGER PRIMARY KEY, a, b)")
    con.executemany("INSERT INTO m(a, b) VALUES (?, ?)", [(0, 0.2), (1, 0.7), (st, 10)])
    ck.error(con, "SELECT ece(a, b) FROM m", (),
             "ece(): a weighted state (made by ml_state_w) cannot join rows already binned in its group:"
             " give those rows as a state too")
    # ml_state_w's weights
    ck.error(con, "SELECT ml_state_w(y, p, -1) FROM t", (),
             "ml_state_w(): w must be a non-negative finite number, got -1")
    ck.error(con, "SELECT ml_state_w(y, p, 'x') FROM t", (),
             "ml_state_w(): w must be a non-negative finite number, got text 'x'")
    ck.equal(one(con, "SELECT ml_state_w(y, p, 0) FROM t"), None, "all weights 0: NULL")
    ck.equal(one(con, "SELECT ml_state_w(y, p, NULL) FROM t"), None, "all weights NULL: NULL")
    ck.equal(one(con, "SELECT pr_auc(st) FROM (SELECT ml_state_w(y, p, CASE WHEN id = 1 THEN 0 ELSE w END) st FROM t)"),
             one(con, "SELECT pr_auc_w(y, p, w) FROM t WHERE id > 1"), "a weight-0 row is dropped")
    # weights in a blob: one raw-coded entry with weight w, checked
    mltest.load(con, ["y", "p", "w"], [(1, 0.5, 1.0 / 3.0)], table="one")
    good = one(con, "SELECT ml_state_w(y, p, w) FROM one")
    raw = struct.pack("<d", 1.0 / 3.0)
    key = struct.unpack("<Q", raw)[0] ^ 0x8000000000000000           # ml_zkey_of(1/3)
    for bad, name in ((0.0, "0"), (-2.0, "negative"), (math.inf, "Inf"), (math.nan, "NaN"), (-0.0, "-0")):
        u = struct.unpack("<Q", struct.pack("<d", bad))[0]
        zk = (u ^ 0x8000000000000000) if not (u >> 63) else (~u & 0xFFFFFFFFFFFFFFFF)
        b = bytearray(good)
        # the entry's zig-zag varint of the weight's key: rewrite the payload
        hdr = 8 + 36
        payload = bytes(b[hdr:-4])
        ck.true(zk != key, "bad weight %s differs" % name)
        new = rewrite_weight(payload, key, zk)
        if new is None:
            ck.true(False, "could not rewrite the weight of %r" % payload)
            continue
        out = bytearray(b[:hdr]) + new + bytearray(4)
        struct.pack_into("<Q", out, 8 + 28, len(new))
        ck.error(con, "SELECT pr_auc(?)", (reseal(bytes(out)),),
                 "pr_auc(): state: the state is corrupted: bad entry 1 of section 1", "a weight %s in a state" % name)
    # version 2 with another kind, and kind 4 in version 1
    b = bytearray(good)
    b[4] = 1
    ck.error(con, "SELECT pr_auc(?)", (reseal(bytes(b)),), "pr_auc(): state: the state is inconsistent: kind 4 in format version 1")


def rewrite_weight(payload, key, zk):
    """The one entry of a raw-coded weighted section with its weight's key
    replaced: varint score delta, zig-zag varint weight delta, counts."""
    def read(p, at):
        v = s = 0
        while True:
            c = p[at]
            at += 1
            v |= (c & 0x7F) << s
            s += 7
            if c < 0x80:
                return v, at
    d, at = read(payload, 0)
    zz, at2 = read(payload, at)
    dz = (zz >> 1) ^ -(zz & 1)
    if dz & 0xFFFFFFFFFFFFFFFF != key:
        return None
    dz = zk if zk < (1 << 63) else zk - (1 << 64)
    zz2 = ((dz << 1) ^ (dz >> 63)) & 0xFFFFFFFFFFFFFFFF
    return payload[:at] + varint(zz2) + payload[at2:]


def main():
    ck = mltest.Checker("states_w")
    con = mltest.connect()
    mltest.has_twins(ck, con, ["ml_state"] + sorted({f for f, _ in FUNCS}))
    rng = np.random.default_rng(2311)
    for i in range(300):
        rows, shards, kind = dataset(rng, i)
        check_dataset(ck, con, rows, shards, "(dataset %d, %d rows, %d shards, %s weights)"
                      % (i, len(rows), shards, kind), windows=i % 3 == 0)
    check_rows_beside_states(ck, con, rng)
    check_strat_after_weighted(ck, con, rng)
    check_sklearn(ck, con, rng)
    check_integer_weights(ck, con, rng)
    check_errors(ck, con)
    check_claims(ck, con)
    check_scaled_blobs(ck, con)
    check_overflow(ck, con)
    # size: inverse-probability weights of downsampled controls cost a few
    # entries per distinct score
    y = (rng.random(100000) < 0.1).astype(int)
    p = np.round(rng.random(100000), 3)
    w = np.where(y == 1, 1.0, 10.0)
    mltest.load(con, ["y", "p", "w"], [(int(a), float(b), float(c)) for a, b, c in zip(y, p, w)])
    nb = one(con, "SELECT length(ml_state_w(y, p, w)) FROM t")
    nd = one(con, "SELECT count(DISTINCT p) FROM t")
    print("weighted state, 3-decimal scores, IPW weights 1 and 10: %d bytes for %d distinct scores"
          " (100000 rows): %.2f bytes per distinct score" % (nb, nd, nb / nd))
    ck.true(nb / nd < 2 * 12, "a weighted state of two weights costs at most 24 bytes a distinct score")
    ck.finish()


if __name__ == "__main__":
    main()
