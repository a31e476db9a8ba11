# SPDX-License-Identifier: MIT
"""Partial states (SPEC "Partial states"): differential, hostile and size tests.

1. Differential: hundreds of random datasets split at random into 1..20
   shards (some empty -- a NULL state --, some with one class); every
   function that takes states (mleval_functions()'s "state_args", with the
   parameters test_bad_inputs.table() gives it) over the shards' states must
   equal the function over all rows: bit for bit (the same text), except the
   calibration family (its exact sums take a state's entries row by row).
   Again after merging the states in random trees with ml_merge, and over
   window frames of states (xInverse removes a state's rows).
2. Hostile blobs: not a state, truncated, bit-flipped, trailing bytes, a
   future version, an unknown kind, overflowing counts, entries out of order
   (all with a valid checksum where the point is to get past it), a state of
   the wrong kind, mixed kinds in one group -- each fails with its message.
3. Size: bytes per distinct score for float scores and for scores rounded to
   3 decimals, asserted against the goal (<= 12; <= 20 per distinct
   (score, strat)).
"""
import json
import random
import sqlite3
import struct

import numpy as np

import mltest
from mltest import crc32c, reseal  # noqa: E402,F401
import test_bad_inputs



def state_functions(con):
    table = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    return [f for f in table if f.get("state_args")]


def calls(fn):
    """(row call, state call, state column) for a function, from test_bad_inputs.table() (the records)."""
    shape, extra = test_bad_inputs.table()[fn][0], test_bad_inputs.table()[fn][1]
    if shape in ("score", "prob"):
        return [("%s(y, s%s)" % (fn, extra), "%s(b%s)" % (fn, extra)),
                ("%s(y, s%s)" % (fn, extra), "%s(sz%s)" % (fn, extra))]   # a stratified state serves too
    if shape == "strat":
        return [("%s(y, s, z%s)" % (fn, extra), "%s(sz%s)" % (fn, extra))]
    if shape == "pone":             # expected_auroc(p): a state's scores, both classes summed
        return [("%s(s%s)" % (fn, extra), "%s(b%s)" % (fn, extra)),
                ("%s(s%s)" % (fn, extra), "%s(sz%s)" % (fn, extra))]
    if shape == "ord":
        return [("%s(o, s, s2)" % fn, "%s(so)" % fn)]
    if shape == "ge":
        return [("%s(o, s, 1)" % fn, "%s(so, 1)" % fn), ("%s(o, s2, 2)" % fn, "%s(so, 2)" % fn)]
    return []


def param_calls(f):
    """(row call, state call) at every argument count of the state form, its
    parameters from their records' examples: pr_auc_ci(b, 0.9, 50) against
    pr_auc_ci(y, s, 0.9, 50).  A state's own call of the family's step (its data
    NULL, so that the step counts the parameters) lands on a count that the
    state form has too -- gains(b, 2) calls the step as gains(NULL, NULL, 2) --
    and must be read as a row there, not as a NULL state."""
    lo, hi = f["state_args"]
    data = f["data"]
    if f["family"] in ("ordinal", "multiclass"):   # ordinal: calls()'s so, (so, k); multiclass: test_mc_state.py
        return []
    row_args = "y, s, z" if len(data) == 3 else "s" if len(data) == 1 else "y, s"
    col = "sz" if len(data) == 3 else "b"
    out = []
    for n in range(lo, hi + 1):
        params = [p["example"] for p in f["params"][:n - 1]]
        if len(params) < n - 1:
            continue
        extra = "".join(", " + x for x in params)
        out.append(("%s(%s%s)" % (f["name"], row_args, extra), "%s(%s%s)" % (f["name"], col, extra)))
    return out


def parameter_counts(ck, con, funcs):
    """Every argument count of every state form equals the row call with the
    same parameters, or both fail (strat_report(sz, 0.25): ql without qh)."""
    rng = np.random.default_rng(16)
    for i in range(24):
        rows, nshard = dataset(rng, i)
        if len(rows) < 5:
            continue
        load(con, rows, nshard)
        for f in funcs:
            for row_call, st_call in param_calls(f):
                try:
                    want = con.execute("SELECT %s FROM t" % row_call).fetchone()[0]
                except sqlite3.Error as e:
                    want = ("error", e)
                try:
                    got = con.execute("SELECT %s FROM st" % st_call).fetchone()[0]
                except sqlite3.Error as e:
                    got = ("error", e)
                if isinstance(want, tuple) or isinstance(got, tuple):
                    ck.true(isinstance(want, tuple) and isinstance(got, tuple),
                             "data %d: %s gives %r, %s gives %r" % (i, st_call, got, row_call, want))
                    continue
                same(ck, f["name"], got, want, "data %d: %s vs %s" % (i, st_call, row_call))


def same(ck, fn, got, want, what):
    # Every family, the calibration sums included, equals the row query bit
    # for bit: a state's entries go into the same exact sums row by row.
    ck.equal(got, want, what)


def dataset(rng, i):
    n = int(rng.choice([0, 1, 5, 30, 200, 1500]))
    prev = float(rng.choice([0.01, 0.2, 0.5, 0.9]))
    y = (rng.random(n) < prev).astype(int)
    kind = ["float", "r3", "r1", "tie"][i % 4]
    s = rng.random(n)
    s = np.clip(s * 0.6 + y * 0.3, 0, 1)
    if kind == "r3":
        s = np.round(s, 3)
    elif kind == "r1":
        s = np.round(s, 1)
    elif kind == "tie":
        s = rng.choice([0.0, 0.25, 0.5, 1.0], n)
    s2 = np.round(rng.random(n), 2) if i % 3 else s
    z = rng.integers(0, 7, n).astype(float) if i % 2 else rng.normal(0, 1, n)
    o = np.minimum(2, y * (1 + (rng.random(n) < 0.5))).astype(int)
    nshard = int(rng.integers(1, 21))
    shard = rng.integers(0, nshard, n)
    if n and rng.random() < 0.3:                  # one shard with one class only
        shard[y == 1] = np.where(rng.random(int(y.sum())) < 0.5, nshard, shard[y == 1])
        nshard += 1
    rows = [(int(shard[k]), int(y[k]), float(s[k]), float(s2[k]), float(z[k]), int(o[k])) for k in range(n)]
    return rows, nshard + 1                        # one more shard id that is always empty


def load(con, rows, nshard):
    mltest.load(con, ["shard", "y", "s", "s2", "z", "o"], rows)
    con.execute("DROP TABLE IF EXISTS st")
    con.execute("CREATE TABLE st AS WITH RECURSIVE ids(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM ids WHERE i < %d)"
                " SELECT i AS shard, (SELECT ml_state(y, s) FROM t WHERE shard = i) AS b,"
                " (SELECT ml_state(y, s, z) FROM t WHERE shard = i) AS sz,"
                " (SELECT ml_state_ordinal(o, s, s2) FROM t WHERE shard = i) AS so FROM ids" % (nshard - 1))


def merge_tree(con, rng, col):
    """The shards' states of one column merged in a random tree."""
    states = [r[0] for r in con.execute("SELECT %s FROM st" % col)]
    while len(states) > 1 and rng.random() < 0.8:
        rng.shuffle(states)
        groups, k = [], 0
        while k < len(states):
            m = int(rng.integers(1, 4))
            groups.append(states[k:k + m])
            k += m
        out = []
        for g in groups:
            con.execute("DELETE FROM tmp")
            con.executemany("INSERT INTO tmp VALUES (?)", [(x,) for x in g])
            out.append(con.execute("SELECT ml_merge(x) FROM tmp").fetchone()[0])
        states = out
    return states


@mltest.covers("ml_state", "ml_state_ordinal", "ml_merge")
def differential(ck, con, funcs):
    rng = np.random.default_rng(15)
    con.execute("CREATE TEMP TABLE tmp(x)")
    con.execute("CREATE TEMP TABLE tree(b, sz, so)")
    for i in range(240):
        rows, nshard = dataset(rng, i)
        load(con, rows, nshard)
        tree = {c: merge_tree(con, rng, c) for c in ("b", "sz", "so")}
        con.execute("DELETE FROM tree")
        width = max(len(v) for v in tree.values())
        con.executemany("INSERT INTO tree VALUES (?, ?, ?)",
                        [tuple(tree[c][k] if k < len(tree[c]) else None for c in ("b", "sz", "so"))
                         for k in range(width)])
        for f in funcs:
            for row_call, st_call in calls(f["name"]):
                want = con.execute("SELECT %s FROM t" % row_call).fetchone()[0]
                got = con.execute("SELECT %s FROM st" % st_call).fetchone()[0]
                same(ck, f["name"], got, want, "data %d: %s vs %s" % (i, st_call, row_call))
                got = con.execute("SELECT %s FROM tree" % st_call).fetchone()[0]
                same(ck, f["name"], got, want, "data %d: %s after a merge tree" % (i, st_call))
        if i % 8 == 0 and rows:
            windows(ck, con, funcs, i)


def windows(ck, con, funcs, i):
    """A state's rows leave a sliding frame exactly (xInverse)."""
    frame = "ORDER BY shard ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"
    for f in funcs:
        for row_call, st_call in calls(f["name"])[:1]:
            got = con.execute("SELECT shard, %s OVER (%s) FROM st ORDER BY shard" % (st_call, frame)).fetchall()
            for shard, g in got:
                want = con.execute("SELECT %s FROM t WHERE shard BETWEEN ? AND ?" % row_call,
                                   (shard - 2, shard)).fetchone()[0]
                same(ck, f["name"], g, want, "data %d: %s over shards %d-2..%d" % (i, st_call, shard, shard))
    got = con.execute("SELECT shard, pr_auc(m) FROM (SELECT shard, ml_merge(b) OVER (%s) AS m FROM st)"
                      " GROUP BY shard ORDER BY shard" % frame).fetchall()
    for shard, g in got:
        want = con.execute("SELECT pr_auc(y, s) FROM t WHERE shard BETWEEN ? AND ?", (shard - 2, shard)).fetchone()[0]
        ck.equal(g, want, "data %d: ml_merge over shards %d-2..%d" % (i, shard, shard))


def hostile(ck, con):
    mltest.load(con, ["y", "s", "z", "o"],
                [(k % 3 == 0, round((k * 37 % 101) / 101, 2), k % 5, k % 3) for k in range(200)])
    good = con.execute("SELECT ml_state(y, s) FROM t").fetchone()[0]
    strat = con.execute("SELECT ml_state(y, s, z) FROM t").fetchone()[0]
    ordst = con.execute("SELECT ml_state_ordinal(o, s, s) FROM t").fetchone()[0]
    err = lambda blob, msg, q="SELECT pr_auc(?)": ck.error(con, q, (blob,), msg)
    pre = "pr_auc(): state: "
    err(b"\x00", pre + "the blob is not an mleval state (no MLST header; make one with ml_state())")
    err(b"", pre + "the blob is not an mleval state (no MLST header; make one with ml_state())")
    err(b"hello world", pre + "the blob is not an mleval state (no MLST header; make one with ml_state())")
    err(good[:6], pre + "the state is truncated (6 bytes)")
    err(good[:-1], pre + "the state is truncated (%d bytes, shorter than its sections announce)" % (len(good) - 1))
    err(good[:40], pre + "the state is truncated (40 bytes, shorter than its sections announce)")
    err(good + b"\x00", pre + "the state is corrupted: 1 bytes after its end")
    for k in range(8, len(good) - 4, max(1, len(good) // 40)):    # a bit flip anywhere past the header
        flipped = bytearray(good)
        flipped[k] ^= 0x10
        try:
            con.execute("SELECT pr_auc(?)", (bytes(flipped),)).fetchall()
            ck.true(False, "bit flip at byte %d accepted" % k)
        except Exception as e:
            ck.true(str(e).startswith(pre + "the state is") and "corrupted" in str(e) or "truncated" in str(e)
                    or "inconsistent" in str(e) or "overflow" in str(e), "bit flip at %d: %s" % (k, e))
    flipped = bytearray(good)
    flipped[len(good) // 2] ^= 1
    err(bytes(flipped), pre + "the state is corrupted (checksum mismatch)")
    future = bytearray(good)
    future[4] = 6                   # 5 is the distribution kinds' (ml_state_dist)
    err(reseal(future), pre + "the state has format version 6, newer than this mleval reads (5): upgrade mleval")
    # version 5 is the distribution kinds' alone (ml_state_dist)
    future[4] = 5
    err(reseal(future), pre + "the state is inconsistent: kind 1 in format version 5")
    # version 3 is the multiclass kinds' alone (ml_state_mc)
    future[4] = 3
    err(reseal(future), pre + "the state is inconsistent: kind 1 in format version 3")
    # version 2 is the weighted kind's alone (ml_state_w)
    future[4] = 2
    err(reseal(future), pre + "the state is inconsistent: kind 1 in format version 2")
    kind = bytearray(good)
    kind[5] = 11                    # 9 and 10 are the distribution kinds (version 5)
    err(reseal(kind), pre + "the state has an unknown kind 11")
    kind[5] = 9
    err(reseal(kind), pre + "the state is inconsistent: kind 9 in format version 1")
    # counts: totals above 2^53, then an entry count above its total
    big = bytearray(good)
    big[8 + 12:8 + 20] = struct.pack("<Q", 1 << 60)
    err(reseal(big), pre + "the state's counts overflow: section 1 claims more than 2^53 rows")
    tot = bytearray(good)
    n0 = struct.unpack("<Q", bytes(tot[8 + 12:8 + 20]))[0]
    tot[8 + 12:8 + 20] = struct.pack("<Q", n0 - 1)
    err(reseal(tot), pre + "the state is inconsistent: the counts of section 1 overflow its totals")
    tot[8 + 12:8 + 20] = struct.pack("<Q", n0 + 1)
    err(reseal(tot), pre + "the state is inconsistent: the entries of section 1 do not sum to its totals")
    # out of order: a second delta of 0 repeats a score
    dup = bytearray(good)
    p = 8 + 36
    while dup[p] & 0x80:
        p += 1
    p += 1
    while dup[p] & 0x80:     # neg count
        p += 1
    p += 1
    while dup[p] & 0x80:     # pos count
        p += 1
    p += 1
    dup[p] = 0               # the next delta: 0 (a one-byte varint there)
    got = None
    try:
        con.execute("SELECT pr_auc(?)", (reseal(dup),)).fetchall()
    except Exception as e:
        got = str(e)
    ck.true(got is not None and got.startswith(pre + "the state is corrupted"), "repeated score: %r" % got)
    # kinds
    ck.error(con, "SELECT strat_pr_auc(?)", (good,),
             "strat_pr_auc(): expects a state made by ml_state(y, s, strat), got a binary state")
    ck.error(con, "SELECT pr_auc(?)", (ordst,),
             "pr_auc(): expects a state made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got an ordinal (m = 2) state")
    ck.error(con, "SELECT ordinal_auprc(?)", (good,),
             "ordinal_auprc(): expects a state made by ml_state_ordinal(y, s_1, ..., s_m), got a binary state")
    ck.error(con, "SELECT auprc_ge(?, 3)", (ordst,), "auprc_ge(): k must be at most the state's m = 2, got 3")
    ck.error(con, "SELECT ml_merge(x) FROM (SELECT ? x UNION ALL SELECT ?)", (good, strat),
             "ml_merge(): states of different kinds in one group: binary and then binary+strat")
    ck.error(con, "SELECT pr_auc(x) FROM (SELECT ? x UNION ALL SELECT ?)", (good, strat),
             "pr_auc(): states of different kinds in one group: binary and then binary+strat")
    ck.error(con, "SELECT ml_merge(2)", (), "ml_merge(): state must be a state made by ml_state(), got 2")
    ck.error(con, "SELECT ml_merge(?)", (b"\x01\x02",),
             "ml_merge(): state: the blob is not an mleval state (no MLST header; make one with ml_state())")
    # parameters and arity of the state form
    ck.error(con, "SELECT ece(?, 0)", (good,), "ece(): bins must be an integer in 1..100000, got 0")
    ck.error(con, "SELECT tpr_at_fpr(?, 1.5)", (good,), "tpr_at_fpr(): target_fpr must be a number in (0, 1), got 1.5")
    ck.error(con, "SELECT pr_auc(?, 1)", (good,), "pr_auc(): a state takes (state), got 2 arguments")
    ck.error(con, "SELECT ece(?, 1, 2)", (good,), "ece(): a state takes (state [, bins]), got 3 arguments")
    ck.error(con, "SELECT tpr_at_fpr(?)", (good,), "tpr_at_fpr(): expects (y, s, target_fpr), got 1 argument")   # no registration: the catch-all
    ck.error(con, "SELECT strat_report(?, 0.1, 0.2, 0.3, 0.4)", (strat,),
             "strat_report(): a state takes (state [, ql, qh [, gap_threshold]]), got 5 arguments")
    ck.error(con, "SELECT pr_auc(y) FROM t", (), "pr_auc(): state must be a BLOB made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got 1")
    scores = con.execute("SELECT ml_state(y, s * 3 - 1) FROM t").fetchone()[0]
    ck.error(con, "SELECT ece(?)", (scores,), "ece(): p must be a probability in [0, 1], got -1.0 in a state")
    ck.error(con, "SELECT ece_l2_kumar(?)", (scores,), "ece_l2_kumar(): p must be a probability in [0, 1], got -1.0 in a state")
    # NULL states are skipped; no states -> NULL; ml_state over no rows -> NULL
    ck.equal(con.execute("SELECT pr_auc(x) FROM (SELECT NULL x)").fetchone()[0], None, "pr_auc(NULL state)")
    ck.equal(con.execute("SELECT ml_merge(x) FROM (SELECT NULL x)").fetchone()[0], None, "ml_merge(NULL)")
    ck.equal(con.execute("SELECT ml_state(y, s) FROM t WHERE 0").fetchone()[0], None, "ml_state over no rows")
    ck.equal(con.execute("SELECT pr_auc(x) FROM (SELECT ? x UNION ALL SELECT NULL)", (good,)).fetchone()[0],
             con.execute("SELECT pr_auc(y, s) FROM t").fetchone()[0], "a NULL state among states")
    # the format is what docs/states.md says: magic, version 1, kind, m, sections
    ck.equal(good[:8], b"MLST\x01\x01\x01\x01", "binary header")
    ck.equal(strat[:8], b"MLST\x01\x02\x01\x01", "stratified header")
    ck.equal(ordst[:8], b"MLST\x01\x03\x02\x03", "ordinal header (m = 2, 3 sections)")
    ck.equal(struct.unpack("<I", good[-4:])[0], crc32c(good[:-4]), "the trailer is CRC-32C")


def sizes(ck, con):
    rng = np.random.default_rng(7)
    n = 100000
    y = (rng.random(n) < 0.3).astype(int)
    p = rng.random(n)
    for label, s, limit in (("float", p, 12), ("rounded to 3 decimals", np.round(p, 3), 12)):
        mltest.load(con, ["y", "s", "z"], [(int(a), float(b), float(c)) for a, b, c in
                                           zip(y, s, rng.integers(0, 50, n))])
        size, distinct = con.execute("SELECT length(ml_state(y, s)), count(DISTINCT s) FROM t").fetchone()
        per = size / distinct
        print("state size, %s scores: %d bytes for %d distinct scores (%d rows): %.2f bytes per distinct score,"
              " %.3f per row" % (label, size, distinct, n, per, size / n))
        ck.true(per <= limit, "%s: %.2f bytes per distinct score, goal <= %d" % (label, per, limit))
        size, distinct = con.execute("SELECT length(ml_state(y, s, z)), (SELECT count(*) FROM"
                                     " (SELECT DISTINCT s, z FROM t)) FROM t").fetchone()
        per = size / distinct
        print("stratified state, %s scores: %.2f bytes per distinct (score, strat)" % (label, per))
        ck.true(per <= 20, "%s: %.2f bytes per distinct (score, strat), goal <= 20" % (label, per))


def main():
    ck = mltest.Checker("states")
    con = mltest.connect()
    # the multiclass family's state forms (ml_state_mc) have their own suite,
    # test_mc_state.py, the survival family's (ml_state_surv) test_survival.py;
    # every other family's are here
    funcs = [f for f in state_functions(con) if f["family"] not in ("multiclass", "survival")]
    known = [f for f in funcs if f["name"] in test_bad_inputs.table() and calls(f["name"])]
    print("functions taking states: %d (%s)" % (len(known), ", ".join(f["name"] for f in known)))
    ck.true(len(known) == len(funcs), "every function taking states has a shape here: %s"
            % [f["name"] for f in funcs if f not in known])
    hostile(ck, con)
    sizes(ck, con)
    parameter_counts(ck, con, known)
    differential(ck, con, known)
    mltest.require_family(ck, con, "state", __file__)
    ck.finish()


if __name__ == "__main__":
    main()
