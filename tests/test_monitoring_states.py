# SPDX-License-Identifier: MIT
"""test_monitoring_states -- the state forms of the monitoring family that
are not two-state drift (docs/monitoring.md, rule 12):

1. expected_auroc(st), expected_pr_auc(st), expected_confusion(st, t) over
   ml_state BLOBs: hundreds of random datasets of probabilities (rounded, so
   that scores tie across shards, with 0 and 1 among them) split at random
   into 1..50 shards (some empty: a NULL state), the states of the shards,
   of ml_merge trees of them, and stratified states (ml_state(y, p, z)) each
   equal to the function over the rows bit for bit (the same double, the
   same JSON text); every window frame over a table of states equals the
   rows of its shards.
2. group_disparity(st, group, t): rows that each carry one (group, shard)
   state and the group key, INTEGER or TEXT; several rows of one key merge.
   Equal bit for bit to group_disparity(y, s, group, t) over the rows, and
   with ml_state_w states to group_disparity_w(y, s, w, group, t) (weights
   of several kinds); a mix of both kinds is the twin with weight 1 for the
   unweighted rows; windows over the state rows equal the rows of their
   frames; ml_merge'd states per group give the same.
3. Hostile inputs: not a state, a truncated or corrupted blob, an ordinal
   state, a weighted state where no twin exists, a probability outside
   [0, 1], counts that pass 2^53, a bad group key -- each an error naming
   the function, the argument and what is wrong; NULL states and NULL
   groups are skipped.
"""
import json
import struct
import sys

import numpy as np

import mltest
from mltest import crc32c, varint

EXPECTED = ["expected_auroc(%s)", "expected_pr_auc(%s)", "expected_confusion(%s, %s)"]


def big_state(score, neg, pos, *more):
    """A valid binary state of entries (score, neg, pos), ascending scores:
    raw codec, the counts as large as the format allows (2^53 a section)."""
    entries = [(score, neg, pos)] + [tuple(more[k:k + 3]) for k in range(0, len(more), 3)]
    payload, prev, tot = b"", 0, [0, 0]
    for sc, n0, n1 in entries:
        u = struct.unpack("<Q", struct.pack("<d", sc))[0]
        key = (~u & 0xFFFFFFFFFFFFFFFF) if u >> 63 else u | (1 << 63)
        payload += varint(key - prev) + varint(n0) + varint(n1)
        prev = key
        tot[0] += n0
        tot[1] += n1
    body = b"MLST" + bytes([1, 1, 1, 1]) + bytes([0, 255, 0, 0]) + struct.pack(
        "<QQQQ", len(entries), tot[0], tot[1], len(payload)) + payload
    return body + struct.pack("<I", crc32c(body))


def probabilities(rng, n, i):
    p = rng.random(n)
    kind = i % 4
    if kind == 0:
        p = np.round(p, 2)
    elif kind == 1:
        p = np.round(p, 1)
    elif kind == 2:
        p = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], n)
    if n and i % 3 == 0:
        p[rng.integers(0, n, max(1, n // 10))] = rng.choice([0.0, 1.0])
    return p


def merge_tree(con, rng, states):
    """The states (NULLs among them) merged in a random tree with ml_merge."""
    states = list(states)
    while len(states) > 1 and rng.random() < 0.8:
        rng.shuffle(states)
        out, k = [], 0
        while k < len(states):
            m = int(rng.integers(1, 4))
            con.execute("DELETE FROM tmp")
            con.executemany("INSERT INTO tmp VALUES (?)", [(x,) for x in states[k:k + m]])
            out.append(con.execute("SELECT ml_merge(x) FROM tmp").fetchone()[0])
            k += m
        states = out
    return states


def check_expected(ck, con, rng):
    con.execute("CREATE TABLE IF NOT EXISTS tmp(x)")
    counts = {"datasets": 0}
    for i in range(240):
        n = int(rng.choice([0, 1, 3, 20, 120, 600]))
        p = probabilities(rng, n, i)
        y = (rng.random(n) < p).astype(int)
        z = rng.integers(0, 5, n).astype(float)
        nshard = int(rng.integers(1, 51))
        shard = rng.integers(0, nshard, n)
        mltest.load(con, ["y", "p", "z", "shard"], [(int(a), float(b), float(c), int(d)) for a, b, c, d in zip(y, p, z, shard)])
        con.execute("DROP TABLE IF EXISTS st")
        con.execute("CREATE TABLE st AS WITH RECURSIVE ids(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM ids WHERE i < %d)"
                    " SELECT i AS shard, (SELECT ml_state(y, p) FROM t WHERE shard = i) AS b,"
                    " (SELECT ml_state(y, p, z) FROM t WHERE shard = i) AS sz FROM ids" % (nshard - 1))
        t = float(rng.choice([0.0, 0.25, 0.5, 0.7, 1.0]))
        tree = merge_tree(con, rng, [r[0] for r in con.execute("SELECT b FROM st")])
        con.execute("DELETE FROM tmp")
        con.executemany("INSERT INTO tmp VALUES (?)", [(x,) for x in tree])
        counts["datasets"] += 1
        for f in EXPECTED:
            row = f % (("p", t) if f.count("%s") == 2 else ("p",))
            want = con.execute("SELECT %s FROM t" % row).fetchone()[0]
            for col, src in [("b", "st"), ("sz", "st"), ("x", "tmp")]:
                call = f % ((col, t) if f.count("%s") == 2 else (col,))
                got = con.execute("SELECT %s FROM %s" % (call, src)).fetchone()[0]
                ck.equal(got, want, "data %d (%d rows, %d shards): %s FROM %s = %s" % (i, n, nshard, call, src, row))
        if i % 12 == 0 and n >= 20:
            # windows over the states: each frame = the rows of its shards
            exprs = ["expected_auroc(b)", "expected_pr_auc(b)", "expected_confusion(b, %r)" % t]
            rows_of = ["expected_auroc(p)", "expected_pr_auc(p)", "expected_confusion(p, %r)" % t]
            for frame in ["ORDER BY shard ROWS BETWEEN 3 PRECEDING AND CURRENT ROW",
                          "ORDER BY shard ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING",
                          "ORDER BY shard RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"]:
                ids = {sh: json.loads(j) for sh, j in
                       con.execute("SELECT shard, json_group_array(shard) OVER (%s) FROM st" % frame)}
                for e, r in zip(exprs, rows_of):
                    for sh, v in con.execute("SELECT shard, %s OVER (%s) FROM st" % (e, frame)):
                        want = con.execute("SELECT %s FROM t WHERE shard IN (%s)"
                                           % (r, ",".join(map(str, ids[sh])))).fetchone()[0]
                        ck.equal(v, want, "data %d: %s OVER (%s) at shard %d" % (i, e, frame, sh))
    return counts["datasets"]


def check_disparity(ck, con, rng):
    done = 0
    for i in range(160):
        n = int(rng.choice([1, 5, 40, 300, 1200]))
        ngroup = int(rng.choice([1, 2, 5, 30]))
        text = i % 2 == 1
        keys = ["g%02d" % k if text else int(k) - 3 for k in range(ngroup)]
        grp = [keys[k] for k in rng.integers(0, ngroup, n)]
        s = np.round(rng.random(n), int(rng.choice([1, 2, 6])))
        y = (rng.random(n) < 0.2 + 0.6 * s).astype(int)
        if i % 5 == 0:                                       # one group with one class
            y[[k for k in range(n) if grp[k] == keys[0]]] = 1
        wkind = mltest.WEIGHT_KINDS[i % len(mltest.WEIGHT_KINDS)] if i % 4 else "tenths"
        if wkind == "tenths":     # few (score, weight) pairs, many rows each: c w rounds
            s = np.round(s, 1)
            w = rng.choice([0.1, 0.3, 0.7], n)
        else:
            w = mltest.random_weights(rng, n, y, wkind)
        nshard = int(rng.integers(1, 9))
        shard = rng.integers(0, nshard, n)
        mltest.load(con, ["y", "s", "grp", "w", "shard"],
                    [(int(a), float(b), c, float(d), int(e)) for a, b, c, d, e in zip(y, s, grp, w, shard)])
        con.execute("DROP TABLE IF EXISTS gs")
        con.execute("CREATE TABLE gs AS SELECT row_number() OVER (ORDER BY shard, grp) AS id, grp, shard,"
                    " ml_state(y, s) AS b, ml_state_w(y, s, w) AS bw FROM t GROUP BY grp, shard")
        th = float(rng.choice([0.0, 0.3, 0.5, 1.0]))
        want = con.execute("SELECT group_disparity(y, s, grp, ?) FROM t", (th,)).fetchone()[0]
        got = con.execute("SELECT group_disparity(b, grp, ?) FROM gs", (th,)).fetchone()[0]
        ck.equal(got, want, "data %d (%d rows, %d groups, %d shards): group_disparity(b, grp) = rows" % (i, n, ngroup, nshard))
        got = con.execute("SELECT group_disparity(m, grp, ?) FROM (SELECT grp, ml_merge(b) AS m FROM gs GROUP BY grp)",
                          (th,)).fetchone()[0]
        ck.equal(got, want, "data %d: group_disparity over ml_merge'd states per group = rows" % i)
        want_w = con.execute("SELECT group_disparity_w(y, s, w, grp, ?) FROM t", (th,)).fetchone()[0]
        got_w = con.execute("SELECT group_disparity(bw, grp, ?) FROM gs", (th,)).fetchone()[0]
        ck.equal(got_w, want_w, "data %d (weights %s): group_disparity(ml_state_w ...) = group_disparity_w over the rows"
                 % (i, wkind))
        # a mix: even shards weighted, odd shards unweighted (weight 1)
        want_m = con.execute("SELECT group_disparity_w(y, s, CASE WHEN shard % 2 = 0 THEN w ELSE 1 END, grp, ?) FROM t",
                             (th,)).fetchone()[0]
        got_m = con.execute("SELECT group_disparity(CASE WHEN shard % 2 = 0 THEN bw ELSE b END, grp, ?) FROM gs",
                            (th,)).fetchone()[0]
        ck.equal(got_m, want_m, "data %d: weighted and unweighted states mixed = the twin with weight 1" % i)
        if want is not None:
            ck.true(json.loads(want)["groups"] is not None, "data %d: a JSON result" % i)
        if i % 10 == 0:
            # windows over the state rows: each frame = the rows of its (grp, shard) pairs
            for frame in ["ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
                          "ORDER BY shard RANGE BETWEEN 1 PRECEDING AND CURRENT ROW",
                          "ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"]:
                members = {r: json.loads(j) for r, j in
                           con.execute("SELECT id, json_group_array(id) OVER (%s) FROM gs" % frame)}
                for col, rowcall in [("b", "group_disparity(y, s, grp, %r)" % th),
                                     ("bw", "group_disparity_w(y, s, w, grp, %r)" % th)]:
                    for r, v in con.execute("SELECT id, group_disparity(%s, grp, %r) OVER (%s) FROM gs" % (col, th, frame)):
                        pairs = con.execute("SELECT grp, shard FROM gs WHERE id IN (%s)"
                                            % ",".join(map(str, members[r]))).fetchall()
                        cond = " OR ".join("(grp = ? AND shard = ?)" for _ in pairs) or "0"
                        args = [x for pr in pairs for x in pr]
                        want_f = con.execute("SELECT %s FROM t WHERE %s" % (rowcall, cond), args).fetchone()[0]
                        ck.equal(v, want_f, "data %d: group_disparity(%s, grp) OVER (%s) row %d" % (i, col, frame, r))
        done += 1
    # NULL states and NULL groups are skipped; no state at all is NULL
    mltest.load(con, ["y", "s", "grp"], [(1, 0.9, "a"), (0, 0.2, "a"), (1, 0.4, "b"), (0, 0.6, None)])
    want = con.execute("SELECT group_disparity(y, s, grp, 0.5) FROM t").fetchone()[0]
    got = con.execute("SELECT group_disparity(st, g, 0.5) FROM (SELECT ml_state(y, s) AS st, grp AS g FROM t GROUP BY grp"
                      " UNION ALL SELECT NULL, 'c')").fetchone()[0]
    ck.equal(got, want, "NULL group and NULL state skipped")
    ck.equal(con.execute("SELECT group_disparity(NULL, 'a', 0.5)").fetchone()[0], None, "only a NULL state: NULL")
    return done


def check_errors(ck, con):
    good = con.execute("SELECT ml_state(y, p) FROM (SELECT 1 AS y, 0.25 AS p UNION ALL SELECT 0, 0.75)").fetchone()[0]
    ordst = con.execute("SELECT ml_state_ordinal(2, 0.5, 0.25)").fetchone()[0]
    wst = con.execute("SELECT ml_state_w(1, 0.5, 2.5)").fetchone()[0]
    badp = con.execute("SELECT ml_state(1, 1.5)").fetchone()[0]
    notst = "the blob is not an mleval state (no MLST header; make one with ml_state())"
    for f in ["expected_auroc", "expected_pr_auc", "expected_confusion"]:
        extra = ", 0.5" if f == "expected_confusion" else ""
        q = "SELECT %s(?%s)" % (f, extra)
        ck.error(con, q, (b"\x01\x02",), "%s(): state: %s" % (f, notst))
        ck.error(con, q, (good[:-1],), "%s(): state: the state is truncated (%d bytes, shorter than its sections announce)"
                 % (f, len(good) - 1))
        flipped = bytearray(good)
        flipped[len(good) // 2] ^= 1
        ck.error(con, q, (bytes(flipped),), "%s(): state: the state is corrupted (checksum mismatch)" % f)
        ck.error(con, q, (ordst,), "%s(): expects a state made by ml_state(y, s) or ml_state(y, s, strat), got an ordinal (m = 2) state" % f)
        ck.error(con, q, (wst,), "%s(): takes no weighted state (made by ml_state_w): %s has no weighted twin;"
                 " give it a state made by ml_state(y, p)" % (f, f))
        ck.error(con, q, (badp,), "%s(): p must be a probability in [0, 1], got 1.5 in a state" % f)
        ck.error(con, "SELECT %s(x%s) FROM (SELECT ? AS x UNION ALL SELECT ? UNION ALL SELECT ?)" % (f, extra),
                 (big_state(0.5, 1 << 52, 0),) * 3,
                 "%s(): counts overflow: the merged state would hold more than 2^53 rows" % f)
        ck.equal(con.execute("SELECT %s(NULL%s)" % (f, extra)).fetchone()[0], None, f + "(NULL): NULL")
    ck.error(con, "SELECT expected_confusion(?, 1.5)", (good,),
             "expected_confusion(): threshold must be a number in [0, 1], got 1.5")
    ck.error(con, "SELECT expected_confusion(x, t) FROM (SELECT ? AS x, 0.5 AS t UNION ALL SELECT ?, 0.25)", (good, good),
             "expected_confusion(): threshold must be the same in every row of a group, got 0.5 and then 0.25")
    # rows and states in one group
    ck.equal(con.execute("SELECT expected_auroc(x) FROM (SELECT ? AS x UNION ALL SELECT 0.5)", (good,)).fetchone()[0],
             con.execute("SELECT expected_auroc(x) FROM (SELECT 0.25 AS x UNION ALL SELECT 0.75 UNION ALL SELECT 0.5)")
             .fetchone()[0], "expected_auroc: a state and a row in one group")
    # drift_report's period AUROC over states: counts whose 2 W_0 W_1 passes
    # 2^63 take the exact-sum path, small ones the integer path; both 0.75 here
    for scale in (1, 1 << 30):
        ref, cur = big_state(0.5, 2 * scale, 0), big_state(0.5, scale, 0, 0.7, scale, 0)
        rep = json.loads(con.execute("SELECT drift_report(?, ?)", (ref, cur)).fetchone()[0])
        ck.equal(rep["auroc_period"], 0.75, "drift_report over states of %d and %d rows: auroc_period" % (2 * scale, 2 * scale))
        ck.equal((rep["n_ref"], rep["n_cur"], rep["mean_cur"]), (2.0 * scale, 2.0 * scale, 0.6),
                 "drift_report over states: n_ref, n_cur, mean_cur")
    # group_disparity's state form
    g = "group_disparity"
    ck.error(con, "SELECT group_disparity(1, 'a', 0.5)", (),
             g + "(): st must be a state made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got 1")
    ck.error(con, "SELECT group_disparity('x', 'a', 0.5)", (),
             g + "(): st must be a state made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got text 'x'")
    ck.error(con, "SELECT group_disparity(?, 'a', 0.5)", (b"\x00",), g + "(): st: " + notst)
    ck.error(con, "SELECT group_disparity(?, 'a', 0.5)", (good[:-1],),
             g + "(): st: the state is truncated (%d bytes, shorter than its sections announce)" % (len(good) - 1))
    ck.error(con, "SELECT group_disparity(?, 'a', 0.5)", (ordst,),
             g + "(): st must be a state made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got an ordinal (m = 2) state")
    ck.error(con, "SELECT group_disparity(?, 2.5, 0.5)", (good,), g + "(): group must be an integer or text, got 2.5")
    ck.error(con, "SELECT group_disparity(?, ?, 0.5)", (good, b"\x01"), g + "(): group must be an integer or text, got a blob")
    ck.error(con, "SELECT group_disparity(?, 'a', 'x')", (good,),
             g + "(): threshold must be a number, got text 'x'")
    ck.error(con, "SELECT group_disparity(x, 'a', t) FROM (SELECT ? AS x, 0.5 AS t UNION ALL SELECT ?, 0.25)", (good, good),
             g + "(): threshold must be the same in every row of a group, got 0.5 and then 0.25")
    ck.error(con, "SELECT group_disparity(x, 'a', 0.5) FROM (SELECT ? AS x UNION ALL SELECT ? UNION ALL SELECT ?)",
             (big_state(0.5, 1 << 52, 0),) * 3, g + "(): st: counts overflow: a group would hold more than 2^53 rows")
    ck.equal(json.loads(con.execute("SELECT group_disparity(x, k, 0.5) FROM (SELECT ? AS x, 'a' AS k UNION ALL"
                                    " SELECT ?, 'b' UNION ALL SELECT ?, 'c')", (big_state(0.5, 1 << 52, 0),) * 3)
                        .fetchone()[0])["groups"][2]["n"], float(1 << 52), "2^52 rows in each of three groups")
    ck.error(con, "SELECT group_disparity(?, 'a', 0.5, 1)", (good,), g + "(): y must be 0 or 1, got a blob")
    ck.error(con, "SELECT group_disparity(?, 'a')", (good,),
             g + "(): expects (y, s, group, threshold | st, group, threshold), got 2 arguments")
    ck.error(con, "SELECT group_disparity_w(?, 0.5, 1, 'a')", (good,),
             "group_disparity_w(): expects (y, s, w, group, threshold), got 4 arguments")
    ck.error(con, "SELECT group_disparity(y, s, 'a', 0.5) FROM (SELECT 1 AS y, 0.5 AS s UNION ALL SELECT ?, 'a')", (good,),
             g + "(): y must be 0 or 1, got a blob")


def main():
    ck = mltest.Checker("test_monitoring_states")
    con = mltest.connect()
    rng = np.random.default_rng(35)
    n_exp = check_expected(ck, con, rng)
    n_disp = check_disparity(ck, con, rng)
    check_errors(ck, con)
    print("expected_*: %d datasets; group_disparity: %d datasets" % (n_exp, n_disp))
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
