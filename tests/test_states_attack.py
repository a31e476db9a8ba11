# SPDX-License-Identifier: MIT
"""Partial states under attack (issue: no overflow, no wrong merge, no hang,
strict validation).  Each block is a reproduction that failed before its fix.

1. Counts overflow: states whose row counts sum past 2^53 (2 and 1024 valid
   states of 2^53 rows each; 1024 wrapped int64 and overflowed the heap) fail
   with ml_merge's own text, for every function that takes states.
2. Mixed codecs: 2..50 states whose scores were written with different
   decimal codecs (integers +- an ulp, 4 decimals, 12 decimals near
   4.5e15 / 10^d) merge exactly: every score function over the states, over
   ml_merge of them and ml_merge's blob itself equal the row query bit for bit.
3. Cost O(entries): a 75-byte state claiming 2^40 rows gives brier, ece,
   log_loss, mce and reliability at once (they looped once per claimed row),
   equal to the same state with counts 1 (exact sums of term x count); the
   functions that still expand a state into rows refuse 2^53 rows at once
   with a message, and sqlite3_interrupt stops an expansion promptly.
   The ranking family takes a state's entries with their counts (issue 22):
   2^40 claimed rows per class give pr_auc, auroc, ks, gains, ... at once,
   the values the counts define.
5. The validator rejects a raw score key of -0.0 beside +0.0, and ordinal
   states whose cuts' positives are not monotone; in scaled sections read 8
   one-byte entries at a time, a repeated score, a correction field of 3,
   an entry without rows and counts off the totals, each with its words.
6. strat_report never prints -0 for a quantile or an input value, whatever
   the row order; its state form equals its row form.
7. A one-argument call given TEXT says a state BLOB was expected.
Every query runs under a watchdog that interrupts it after WATCHDOG seconds,
so a regression to a hang fails here instead of hanging make check.
"""
import json
import math
import random
import re
import struct
import threading
import time

import mltest
from mltest import varint
import test_bad_inputs
import test_states

WATCHDOG = 20.0
ROWS53 = 1 << 53


def key_of(d, fold=True):
    """The order-preserving key of a double (ml_key_of; fold -0.0 unless told)."""
    if fold and d == 0.0:
        d = 0.0
    u = struct.unpack("<Q", struct.pack("<d", d))[0]
    return (~u & 0xFFFFFFFFFFFFFFFF) if u >> 63 else (u | (1 << 63))


def zkey_of(d):
    return key_of(d, fold=False)


def section(entries, strat=False):
    """A raw-codec section: entries are (score, [strat,] neg, pos) ascending."""
    payload, prev, prevz, n0, n1 = bytearray(), 0, 0, 0, 0
    for e in entries:
        u = key_of(e[0])
        payload += varint(u - prev)
        prev = u
        if strat:
            uz = zkey_of(e[1])
            dz = (uz - prevz + (1 << 63)) % (1 << 64) - (1 << 63)
            payload += varint(((dz << 1) ^ (dz >> 63)) & 0xFFFFFFFFFFFFFFFF)
            prevz = uz
        neg, pos = e[-2], e[-1]
        payload += varint(neg) + varint(pos)
        n0 += neg
        n1 += pos
    hdr = bytes([0, 0 if strat else 255, 0, 0]) + struct.pack("<QQQQ", len(entries), n0, n1, len(payload))
    return hdr + bytes(payload)


def state(kind, m, sections):
    body = b"MLST" + bytes([1, kind, m, len(sections)]) + b"".join(sections)
    return body + struct.pack("<I", test_states.crc32c(body))


def binary_state(entries):
    return state(1, 1, [section(entries)])


def strat_state(entries):
    return state(2, 1, [section(entries, strat=True)])



class Watchdog:
    """Interrupts the connection if a statement runs past its deadline."""

    def __init__(self, con, seconds=WATCHDOG):
        self.con, self.seconds, self.fired = con, seconds, False

    def __enter__(self):
        self.timer = threading.Timer(self.seconds, self._fire)
        self.timer.start()
        return self

    def _fire(self):
        self.fired = True
        self.con.interrupt()

    def __exit__(self, *exc):
        self.timer.cancel()
        return False


def run(con, sql, args=()):
    """(value, error text, seconds, watchdog fired)."""
    t0 = time.monotonic()
    with Watchdog(con) as w:
        try:
            v = con.execute(sql, args).fetchone()[0]
            err = None
        except Exception as e:     # noqa: BLE001 -- any failure is reported
            v, err = None, str(e)
    return v, err, time.monotonic() - t0, w.fired


def state_calls(con):
    """(name, state call) for every function taking states, on columns b, sz, so."""
    out = []
    for f in test_states.state_functions(con):
        for _, st_call in test_states.calls(f["name"]):
            out.append((f["name"], st_call))
    return out


def overflow(ck, con):
    """Item 1: count sums past 2^53 are an error, never a wrap."""
    half = ROWS53 // 2
    b = binary_state([(0.25, half, 0), (0.75, 0, half)])
    sz = strat_state([(0.25, 1.0, half, 0), (0.75, 2.0, 0, half)])
    cut = section([(0.25, half, 0), (0.75, 0, half)])
    so = state(3, 2, [cut, cut, section([(0.75, 0, half)])])     # m = 2: every positive has y = 2
    con.execute("DROP TABLE IF EXISTS big")
    con.execute("CREATE TABLE big(b, sz, so)")
    calls = state_calls(con)
    ck.true(len(calls) > 30, "state functions found: %d" % len(calls))
    for copies in (2, 1024):
        con.execute("DELETE FROM big")
        con.executemany("INSERT INTO big VALUES (?, ?, ?)", [(b, sz, so)] * copies)
        for name, call in calls:
            v, err, secs, fired = run(con, "SELECT %s FROM big" % call)
            ck.equal(err, "%s(): counts overflow: the merged state would hold more than 2^53 rows" % name,
                     "%d states of 2^53 rows: %s (%.2f s)" % (copies, call, secs))
            ck.true(not fired, "%s over %d big states: stopped by the watchdog" % (call, copies))
        v, err, _, _ = run(con, "SELECT ml_merge(b) FROM big")
        ck.equal(err, "ml_merge(): counts overflow: the merged state would hold more than 2^53 rows",
                 "ml_merge over %d big states" % copies)
    # a window frame adding a state to rows already held checks the total too
    v, err, _, _ = run(con, "SELECT max(x) FROM (SELECT brier(b) OVER (ORDER BY rowid ROWS BETWEEN 1 PRECEDING"
                            " AND CURRENT ROW) x FROM big)")
    ck.equal(err, "brier(): counts overflow: the merged state would hold more than 2^53 rows", "brier window")


def ulps(x, k):
    for _ in range(abs(k)):
        x = math.nextafter(x, math.inf if k > 0 else -math.inf)
    return x


def mixed_codecs(ck, con):
    """Item 2: states written with different codecs merge exactly."""
    rng = random.Random(21)
    names = [f["name"] for f in test_states.state_functions(con)
             if test_bad_inputs.table().get(f["name"], ("",))[0] in ("score", "strat")]
    ck.true("pr_auc" in names and "strat_report" in names, "score functions: %s" % names)
    con.execute("CREATE TEMP TABLE IF NOT EXISTS tmp(x)")
    for trial in range(160):
        nshard = rng.randint(2, 50)
        base = rng.choice([4400.0, 4503.0, 450.3, 45.0, 4503599.0, 4.5e9, 0.0045])
        rows = []
        modes = rng.sample(["int", "d4", "d12", "near"], rng.randint(1, 3))
        for sh in range(nshard):
            mode = rng.choice(modes)
            for _ in range(rng.randint(0, 6)):
                if mode == "int":
                    s = ulps(round(base), rng.randint(-2, 2))
                elif mode == "d4":
                    s = round(base * 1e4 + rng.randint(-2, 2)) / 1e4
                elif mode == "d12":
                    d = max(0, min(12, int(math.log10(4503599627370496 / base))))   # the finest that fits
                    s = (round(base * 10 ** d) + rng.randint(-4, 4)) / 10 ** d
                else:                       # near 4.5e15 / 10^d: the codec's edge
                    d = rng.randint(0, 12)
                    s = (4503599627370496 - rng.randint(0, 3)) / 10 ** d * rng.choice([1, -1])
                rows.append((sh, rng.randint(0, 1), s, float(rng.randint(0, 3))))
        mltest.load(con, ["shard", "y", "s", "z"], rows)
        con.execute("DROP TABLE IF EXISTS st")
        con.execute("CREATE TABLE st AS SELECT shard, ml_state(y, s) b, ml_state(y, s, z) sz FROM t GROUP BY shard")
        merged = con.execute("SELECT ml_merge(b), ml_merge(sz) FROM st").fetchone()
        if rows:
            for blob in merged:
                v, err, _, _ = run(con, "SELECT pr_auc(?)", (blob,))
                ck.true(err is None or "state" not in err, "trial %d: ml_merge's blob rejected: %s" % (trial, err))
        for name in names:
            shape, extra = test_bad_inputs.table()[name][0], test_bad_inputs.table()[name][1]
            if shape == "score":
                row, st, col = "%s(y, s%s)" % (name, extra), "%s(b%s)" % (name, extra), 0
            else:
                row, st, col = "%s(y, s, z%s)" % (name, extra), "%s(sz%s)" % (name, extra), 1
            want = run(con, "SELECT %s FROM t" % row)[:2]
            got = run(con, "SELECT %s FROM st" % st)[:2]
            ck.equal(got, want, "trial %d (%d shards): %s over the states" % (trial, nshard, st))
            got = run(con, "SELECT %s FROM (SELECT ? AS %s, ? AS %s)" % (st, "b" if col == 0 else "x",
                                                                          "sz" if col == 1 else "y"),
                      (merged[0], merged[1]))[:2]
            ck.equal(got, want, "trial %d: %s over ml_merge of the states" % (trial, st))


def claimed_rows(ck, con):
    """Item 3: a state's cost is its entries, never the rows it claims."""
    n = 1 << 40
    big = binary_state([(0.25, n, 0), (0.75, 0, n)])
    one = binary_state([(0.25, 1, 0), (0.75, 0, 1)])
    ck.true(len(big) <= 80, "the 2^40-row state is %d bytes" % len(big))
    for call in ("brier(?)", "log_loss(?)", "ece(?)", "mce(?)", "ece(?, 7)", "log_loss(?, 1e-3)",
                 "json_extract(reliability(?), '$[1].frac_pos')", "json_extract(reliability(?, 3), '$[0].mean_p')"):
        got, err, secs, fired = run(con, "SELECT " + call, (big,))
        want = run(con, "SELECT " + call, (one,))[0]
        ck.equal((got, err), (want, None), "%s of a state claiming 2^40 rows (%.3f s)" % (call, secs))
        ck.true(secs < 2.0 and not fired, "%s of a state claiming 2^40 rows took %.2f s" % (call, secs))
    got, err, secs, fired = run(con, "SELECT json_extract(reliability(?), '$[0].n')", (big,))
    ck.equal((got, err), (n, None), "reliability's bin count of a state claiming 2^40 rows (%.3f s)" % secs)
    # exact: counts 3 and 5 give what 3 and 5 rows give
    mltest.load(con, ["y", "p"], [(0, 0.1)] * 3 + [(1, 0.7)] * 5 + [(0, 0.7)] * 2)
    st = binary_state([(0.1, 3, 0), (0.7, 2, 5)])
    for f in ("brier", "log_loss", "ece", "mce", "reliability"):
        ck.equal(run(con, "SELECT %s(?)" % f, (st,))[:2], run(con, "SELECT %s(y, p) FROM t" % f)[:2],
                 "%s: a state's counts equal its rows bit for bit" % f)
    # the functions that expand a state into rows refuse 2^53 of them at once
    huge = binary_state([(0.25, ROWS53 // 2, 0), (0.75, 0, ROWS53 // 2)])
    for name, call in state_calls(con):
        if not call.startswith(name + "(b"):
            continue
        v, err, secs, fired = run(con, "SELECT %s FROM (SELECT ? AS b)" % call, (huge,))
        ck.true(not fired and secs < 5.0, "%s over a state claiming 2^53 rows: %.2f s, %s" % (call, secs, err))
        ck.true(err is None or "rows" in err or "state" in err,
                "%s over a state claiming 2^53 rows: the error says why: %s" % (call, err))


def ranking_counts(ck, con):
    """Item 3 (issue 22): the ranking family absorbs a state's entries with
    their counts, never expanded into rows.  A state claiming 2^40 rows of
    each class gives what its counts define, in well under a second (the
    expansion would write 2^41 records; before, it refused them), equal bit
    for bit to the same state with counts 4 and 1, 3 (every function below
    is scale-free in the counts on these scores); ranking's window over
    states, led by NULL states (auroc's frame then starts in its counted
    sets and leaves them for the first state), equals the row windows."""
    n = 1 << 40
    big = binary_state([(0.25, n, n // 4), (0.75, 0, 3 * n // 4)])
    small = binary_state([(0.25, 4, 1), (0.75, 0, 3)])
    # P = N = n: 3/4 of the positives above every negative, 1/4 tied with all
    exact = {"pr_auc(?)": 0.875, "auroc(?)": 0.875, "ks(?)": 0.75, "youden_j(?)": 0.75,
             "nap(?)": 0.75, "tpr_at_fpr(?, 0.5)": 0.75, "sens_at_spec(?, 0.5)": 0.75,
             "precision_at_k(?, %d)" % (n // 2): 1.0}
    for call, want in exact.items():
        got, err, secs, fired = run(con, "SELECT " + call, (big,))
        ck.equal((got, err), (want, None), "%s of a state claiming 2^41 rows (%.4f s)" % (call, secs))
        ck.true(secs < 0.5 and not fired, "%s of a state claiming 2^41 rows took %.3f s" % (call, secs))
    for call in ("pr_auc(?)", "auroc(?)", "ks(?)", "youden_j(?)", "partial_auroc(?, 0.3)", "tpr_at_fpr(?, 0.5)",
                 "operating_point(?, 'max_f1')", "operating_point(?, 'youden')", "operating_point(?, 'fpr', 0.5)",
                 "pr_curve(?)", "roc_curve(?)"):
        got, err, secs, fired = run(con, "SELECT " + call, (big,))
        want = run(con, "SELECT " + call, (small,))[:2]
        if call.startswith("operating_point"):      # the counts differ, the rates and threshold not
            got = got and {k: v for k, v in json.loads(got).items() if k not in ("tp", "fp", "tn", "fn")}
            want = (want[0] and {k: v for k, v in json.loads(want[0]).items() if k not in ("tp", "fp", "tn", "fn")},
                    want[1])
        ck.equal((got, err), want, "%s: 2^40 counts against counts 4, 1, 3" % call)
        ck.true(secs < 0.5 and not fired, "%s of a state claiming 2^41 rows took %.3f s" % (call, secs))
    # gains' parts of n/2 ranks: the top group's 3n/4 positives, then 1/5 of each rank below
    got, err, secs, fired = run(con, "SELECT gains(?, 4)", (big,))
    ck.true(err is None and secs < 0.5 and not fired, "gains of a state claiming 2^41 rows: %s, %.3f s" % (err, secs))
    parts = json.loads(got) if got else []
    ck.equal([p["n"] for p in parts], [n // 2] * 4, "gains: four parts of 2^39 rows")
    ck.equal([p["positives"] for p in parts[:1]], [float(n // 2)], "gains: the first part is all positives")
    for p, pos, cum in zip(parts, (0.5, 0.3, 0.1, 0.1), (0.5, 0.8, 0.9, 1.0)):
        ck.true(math.isclose(p["positives"], pos * n, rel_tol=1e-12)
                and math.isclose(p["cum_positive_rate"], cum, rel_tol=1e-12),
                "gains part %d: %s (want %.1f n positives, cumulative %.1f)" % (p["bin"], p, pos, cum))
    got, err, _, _ = run(con, "SELECT recall_at_k(?, %d)" % n, (big,))
    ck.true(err is None and math.isclose(got, 0.8, rel_tol=1e-12), "recall_at_k(state, 2^40): %s %s" % (got, err))
    # windows over states led by NULL states, against the rows they count
    rng = random.Random(22)
    rows = [(sh, rng.randint(0, 1), rng.choice([0.1, 0.2, 0.3, 0.5, 0.7, 0.9])) for sh in range(3, 12)
            for _ in range(rng.randint(1, 9))]
    mltest.load(con, ["shard", "y", "s"], rows)
    con.execute("DROP TABLE IF EXISTS wst")
    con.execute("CREATE TABLE wst AS WITH RECURSIVE ids(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM ids WHERE i < 11)"
                " SELECT i AS shard, (SELECT ml_state(y, s) FROM t WHERE shard = i) AS b FROM ids")
    for f in ("auroc", "pr_auc", "ks", "gains"):
        frame = "ORDER BY shard ROWS BETWEEN 3 PRECEDING AND CURRENT ROW"
        got = con.execute("SELECT shard, %s(b) OVER (%s) FROM wst ORDER BY shard" % (f, frame)).fetchall()
        for shard, g in got:
            want = con.execute("SELECT %s(y, s) FROM t WHERE shard BETWEEN ? AND ?" % f, (shard - 3, shard)).fetchone()[0]
            ck.equal(g, want, "%s(state) over shards %d-3..%d (NULL states first)" % (f, shard, shard))


def interrupt_expansion(ck, con):
    """Item 3: sqlite3_interrupt stops a function expanding a large state
    (the bootstrap still takes a state's rows one by one: it resamples
    rows); the others take the state's two entries as two counted records
    and finish at once."""
    n = 1 << 25
    st = binary_state([(0.25, n, 0), (0.75, 0, n)])
    ck.equal(con.execute("SELECT ece_equal_mass(?), ece_l2(?, 4)", (st, st)).fetchone(), (0.25, 0.25),
             "equal-mass estimators over a state claiming 2^26 rows, from its 2 entries")
    for call in ("pr_auc(?)", "auroc(?)", "ece_equal_mass(?)", "ece_l2_kumar(?)", "brier_ci(?, 0.9, 10)"):
        t = threading.Timer(0.05, con.interrupt)
        t0 = time.monotonic()
        t.start()
        try:
            con.execute("SELECT " + call, (st,)).fetchone()
            err = None
        except Exception as e:     # noqa: BLE001
            err = str(e)
        lag = time.monotonic() - t0 - 0.05
        t.cancel()
        print("interrupt lag, %s over a state claiming 2^26 rows: %.3f s (%s)" % (call, lag, err))
        ck.true(err == "interrupted" or err is None, "%s: %s" % (call, err))
        ck.true(lag < 1.5, "%s stopped %.2f s after the interrupt" % (call, lag))


def counted_states(ck, con):
    """Item 3: the stratified, ordinal, equal-mass and quantile-bin functions take a state
    as its entries with their counts, so a state claiming 2^26 rows costs its
    few entries (expanded, it would be 2^26 records and seconds)."""
    n = 1 << 25
    cases = [
        ("strat_pr_auc(?, 0, 1)", strat_state([(0.25, 1.0, n, 0), (0.75, 2.0, 0, n)]), 1.0),
        ("strat_gap(?, 0, 1)", strat_state([(0.25, 1.0, n, 0), (0.75, 2.0, 0, n)]), 0.0),
        ("ordinal_auprc(?)", state(3, 1, [section([(0.25, n, 0), (0.75, 0, n)]), section([(0.75, 0, n)])]), 1.0),
        ("ece_l2_debiased(?, 4)", binary_state([(0.25, n, 0), (0.75, 0, n)]),
         math.sqrt(max(0.0, 0.0625 - 0.25 * 0.75 / (2 * n / 4)))),
        ("json_extract(calibration_summary(?), '$.n')", binary_state([(0.25, n, 0), (0.75, 0, n)]), 2 * n),
        ("ece_l2_kumar(?)", binary_state([(0.25, n, 0), (0.75, 0, n)]), 0.25),
        # the lowess window (2/3 of 2n rows) at 0.25 reaches 0.75 only at h: curve 0 and 1
        ("json_extract(calibration_smooth(?), '$.ici')", binary_state([(0.25, n, 0), (0.75, 0, n)]), 0.25),
        ("(SELECT sum(value->>'n') FROM json_each((SELECT reliability(?, 4, 'quantile'))))",
         binary_state([(0.25, n, 0), (0.75, 0, n)]), 2 * n),
    ]
    for call, blob, want in cases:
        t0 = time.monotonic()
        got = con.execute("SELECT " + call, (blob,)).fetchone()[0]
        dt = time.monotonic() - t0
        ck.close(got, want, "%s over a state claiming 2^26 rows" % call)
        ck.true(dt < 0.5, "%s over a state claiming 2^26 rows took %.2f s: its entries, not its rows" % (call, dt))


def validator(ck, con):
    """Item 5: a raw score key of -0.0 beside +0.0 is rejected."""
    negz, posz = key_of(-0.0, fold=False), key_of(0.0)
    entries = varint(negz) + varint(1) + varint(0) + varint(posz - negz) + varint(0) + varint(1)
    hdr = bytes([0, 255, 0, 0]) + struct.pack("<QQQQ", 2, 1, 1, len(entries))
    v, err, _, _ = run(con, "SELECT pr_auc(?)", (state(1, 1, [hdr + entries]),))
    ck.equal(err, "pr_auc(): state: the state is corrupted: bad entry 1 of section 1", "-0.0 beside +0.0")


def scaled_section(ints, d=4):
    """A binary section of scores i / 10^d written scaled: entries are
    (i, corr field 0..3, neg, pos), the integers as given (even if wrong)."""
    payload, prev, n0, n1 = bytearray(), 0, 0, 0
    for i, corr, neg, pos in ints:
        u = ((i + (1 << 52)) << 2) | corr
        payload += varint(u - prev) + varint(neg) + varint(pos)
        prev = u
        n0 += neg
        n1 += pos
    hdr = bytes([1 + d, 255, 0, 0]) + struct.pack("<QQQQ", len(ints), n0, n1, len(payload))
    return hdr + bytes(payload), n0, n1


def validator_scaled(ck, con):
    """Item 5 (issue 22): scaled binary sections of one-byte entries are
    checked 8 entries at a time; each defect inside such a block is still
    found, with verify_section's own words -- at every entry, so at every
    place of an 8-entry block (entries 1-8, 9-16, ...) and past the last."""
    good = [(1000 + 3 * k, 1, k % 3, 1 + k % 2) for k in range(40)]
    sec, n0, n1 = scaled_section(good)
    v, err, _, _ = run(con, "SELECT pr_auc(?)", (state(1, 1, [sec]),))
    ck.equal(err, None, "a scaled state of one-byte entries is accepted")
    want = con.execute("SELECT pr_auc(y, s) FROM (%s)" % " UNION ALL ".join(
        "SELECT %d AS y, %r AS s" % (y, (1000 + 3 * k) / 1e4) for k in range(40)
        for y, c in ((0, k % 3), (1, 1 + k % 2)) for _ in range(c))).fetchone()[0]
    ck.equal(v, want, "the scaled state's pr_auc equals its rows'")
    for at in range(1, 40):
        for what, entry, msg in (
                ("a repeated score", (good[at - 1][0], 1, 1, 0), "entries of section 1 are not in ascending order"),
                ("a correction field of 3", (good[at][0], 3, 1, 0), "bad entry %d of section 1" % (at + 1)),
                ("no rows", (good[at][0], 1, 0, 0), "bad entry %d of section 1" % (at + 1))):
            bad = list(good)
            bad[at] = entry
            sec, _, _ = scaled_section(bad)
            v, err, _, _ = run(con, "SELECT pr_auc(?)", (state(1, 1, [sec]),))
            ck.equal(err, "pr_auc(): state: the state is corrupted: " + msg, "%s at entry %d" % (what, at + 1))
    sec, n0, n1 = scaled_section(good)
    for t0, t1, msg in ((n0 + 1, n1, "the entries of section 1 do not sum to its totals"),
                        (n0 + 1, n1 - 1, "the counts of section 1 overflow its totals")):
        v, err, _, _ = run(con, "SELECT pr_auc(?)", (state(1, 1, [sec[:4] + struct.pack("<QQQ", len(good), t0, t1)
                                                               + sec[28:]]),))
        ck.equal(err, "pr_auc(): state: the state is inconsistent: " + msg, "totals %d, %d: %s" % (t0, t1, msg))


def validator_ordinal(ck, con):
    """Item 5: the rows at or above severity k cannot grow with k (m = 3;
    the totals and the severity run agree, only cut 2 is impossible)."""
    cut1 = section([(0.2, 3, 2)])           # 5 rows, 2 with y >= 1
    cut2 = section([(0.3, 2, 3)])           # 3 with y >= 2: impossible
    cut3 = section([(0.4, 4, 1)])           # 1 with y >= 3
    sev = section([(0.5, 1, 1)])            # the 2 rows with y >= 1, 1 with y = 3
    blob = state(3, 3, [cut1, cut2, cut3, sev])
    v, err, _, _ = run(con, "SELECT ordinal_auprc(?)", (blob,))
    ck.equal(err, "ordinal_auprc(): state: the state is inconsistent: cut 2 has more rows at or above its"
                  " severity (3) than cut 1 (2)", "ordinal cuts not monotone")
    ok = state(3, 3, [cut1, section([(0.3, 4, 1)]), cut3, sev])
    ck.equal(run(con, "SELECT ordinal_auprc(?)", (ok,))[1], None, "a monotone ordinal state is accepted")


def signed_zero(ck, con):
    """Item 6: no -0 from quantiles or inputs, whatever the row order."""
    rng = random.Random(6)
    bad = 0
    for trial in range(300):
        n = rng.randint(20, 60)
        rows = [(rng.randint(0, 1), rng.random(), rng.choice([-0.0, 0.0, -0.0, 1.0, -1.0]))
                for _ in range(n)]
        rows += [(0, 0.1, -0.0)] * 10 + [(1, 0.9, 0.0)] * 10
        outs = set()
        for _ in range(3):
            rng.shuffle(rows)
            mltest.load(con, ["y", "s", "z"], rows)
            got = con.execute("SELECT strat_report(y, s, z, 0.0, 0.5) FROM t").fetchone()[0]
            outs.add(got)
            st = con.execute("SELECT strat_report(st, 0.0, 0.5) FROM (SELECT ml_state(y, s, z) st FROM t)").fetchone()[0]
            if st != got:
                bad += 1
        if len(outs) != 1 or any(re.search(r'":-0[,}]', o) for o in outs):
            bad += 1
    ck.equal(bad, 0, "strat_report: the same text in every row order and from the state, never -0")


def text_state(ck, con):
    """Item 7: a one-argument call given a non-BLOB says a state was expected."""
    h = con.execute("SELECT hex(ml_state(1, 0.5))").fetchone()[0]
    ck.error(con, "SELECT pr_auc(h) FROM (SELECT hex(ml_state(1, 0.5)) h)", (),
             "pr_auc(): state must be a BLOB made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got text '%s'" % h[:40])
    ck.error(con, "SELECT ece(42)", (), "ece(): state must be a BLOB made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got 42")
    ck.error(con, "SELECT strat_report('x')", (),
             "strat_report(): state must be a BLOB made by ml_state(y, s, strat), got text 'x'")
    ck.error(con, "SELECT ordinal_auprc(1.5)", (),
             "ordinal_auprc(): state must be a BLOB made by ml_state_ordinal(y, s_1, ..., s_m), got 1.5")


def rows_then_state(ck, con):
    """A group whose first rows are data and a later one a state (a column of
    mixed types at a count both forms take): the row path allocates the
    family's context with room for the state wrapper's part, so the state
    that follows fits (ASan under make check-sanitize)."""
    st = con.execute("SELECT ml_state(1, 0.8)").fetchone()[0]
    for f in ("ece", "log_loss", "strat_report"):
        rows = "SELECT 0 AS a, 0.3 AS b, 0.5 AS c UNION ALL SELECT ?, 10, 0.5"
        arg = {"ece": "a, b", "log_loss": "a, b", "strat_report": "a, b, c"}[f]
        v, err, _, _ = run(con, "SELECT %s(%s) FROM (%s)" % (f, arg, rows), (st,))
        ck.true(err is None or err.startswith(f + "():"), "%s over rows then a state: %s" % (f, err))


def main():
    ck = mltest.Checker("states_attack")
    con = mltest.connect()
    text_state(ck, con)
    rows_then_state(ck, con)
    validator(ck, con)
    validator_ordinal(ck, con)
    validator_scaled(ck, con)
    overflow(ck, con)
    claimed_rows(ck, con)
    ranking_counts(ck, con)
    interrupt_expansion(ck, con)
    counted_states(ck, con)
    signed_zero(ck, con)
    mixed_codecs(ck, con)
    ck.finish()


if __name__ == "__main__":
    main()
