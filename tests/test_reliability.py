"""Reliability (issue 12): a window result equals the aggregate over the same
rows, bit for bit, also when a parameter differs between frames and when a
sliding sum mixes values of very different magnitude; messages are valid
text and show numbers exactly.

1. Varying parameters: every function with a parameter, over random data in
   blocks whose parameter differs, through many frame shapes (frames that
   start FOLLOWING included: SQLite steps the next frame there before it
   removes the last).  Where every frame's rows agree, each frame's value must
   equal the aggregate over its rows (WHERE id IN ...) exactly; where a frame
   mixes two values, the statement must fail with the parameter message.
2. Exact sums: brier, log_loss, ece, reliability over sliding frames of
   values from 5e-324 to 1 against the aggregate over the same rows (bit for
   bit), and brier/log_loss against the exact sum (fractions.Fraction)
   rounded once, then divided by n as the extension does.
3. Messages: text cut by characters, shortest round-trip numbers, label
   range, ordinal arity, JSON longer than SQLITE_LIMIT_LENGTH.
"""
import json
import math
import sqlite3
from fractions import Fraction

import numpy as np

import mltest

SHAPES = [
    "ORDER BY {o} ROWS CURRENT ROW",
    "ORDER BY {o} ROWS BETWEEN 2 FOLLOWING AND 2 FOLLOWING",
    "ORDER BY {o} ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING",
    "ORDER BY {o} ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING",
    "ORDER BY {o} ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
    "ORDER BY blk GROUPS CURRENT ROW",
    "ORDER BY blk GROUPS BETWEEN 1 FOLLOWING AND 1 FOLLOWING",
    "ORDER BY blk GROUPS BETWEEN 1 PRECEDING AND 1 PRECEDING",
    "ORDER BY blk RANGE BETWEEN CURRENT ROW AND CURRENT ROW",
    "ORDER BY blk GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING",
    "PARTITION BY blk ORDER BY {o} ROWS BETWEEN 3 PRECEDING AND CURRENT ROW",
    "ORDER BY blk ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING EXCLUDE CURRENT ROW",
]

# (SQL expression, parameter column, parameter name, values a block may take)
PARAM_FUNCS = [
    ("ece(y, p, b)", "b", "ece(): bins", [3, 5, 7, 10]),
    ("reliability(y, p, b)", "b", "reliability(): bins", [2, 4, 10]),
    ("ece_l2_debiased(y, p, b)", "b", "ece_l2_debiased(): bins", [1, 2, 3]),
    ("ece_l2_kumar(y, p, b)", "b", "ece_l2_kumar(): bins", [1, 2, 3]),
    ("log_loss(y, p, e)", "e", "log_loss(): eps", [1e-15, 0.01, 0.2]),
    ("tpr_at_fpr(y, s, t)", "t", "tpr_at_fpr(): target_fpr", [0.1, 0.3, 0.5]),
    ("sens_at_spec(y, s, t)", "t", "sens_at_spec(): target_spec", [0.5, 0.7, 0.9]),
    ("confusion(y, s, t)", "t", "confusion(): threshold", [0.1, 0.3, 0.5]),
    ("strat_pr_auc(y, s, z, t, 0.95)", "t", "strat_pr_auc(): ql", [0.1, 0.3, 0.5]),
    ("strat_report(y, s, z, 0.05, 0.95, t)", "t", "strat_report(): gap_threshold", [0.1, 0.3, 0.5]),
    ("auprc_ge(yo, s, k)", "k", "auprc_ge(): k", [1, 2]),
    # functions that came with calibration's, ranking's and uncertainty's rewrites
    ("mce(y, p, b)", "b", "mce(): bins", [3, 5, 7, 10]),
    ("ece_equal_mass(y, p, b)", "b", "ece_equal_mass(): bins", [1, 2, 3]),
    ("ece_l2(y, p, b)", "b", "ece_l2(): bins", [1, 2, 3]),
    ("brier_decomposition(y, p, b)", "b", "brier_decomposition(): bins", [1, 2, 3]),
    ("reliability(y, p, 3, g)", "g", "reliability(): strategy", ["uniform", "quantile"]),
    ("partial_auroc(y, s, t)", "t", "partial_auroc(): max_fpr", [0.1, 0.3, 0.5]),
    ("operating_point(y, s, c, 0.3)", "c", "operating_point(): criterion", ["fpr", "sensitivity", "precision"]),
    ("operating_point(y, s, 'fpr', t)", "t", "operating_point(): target", [0.1, 0.3, 0.5]),
    ("precision_at_prior(y, s, 0.5, t)", "t", "precision_at_prior(): prior", [0.1, 0.3, 0.5]),
    ("auroc_ci(y, s, t)", "t", "auroc_ci(): level", [0.1, 0.3, 0.5]),
    ("ece_ci(y, p, b, 0.9, 10, 7)", "b", "ece_ci(): bins", [3, 5, 7, 10]),
    ("brier_ci(y, p, 0.9, 10, k)", "k", "brier_ci(): seed", [1, 2]),
    # threshold and clinical-validation metrics (issue 24)
    ("mcc(y, s, t)", "t", "mcc(): threshold", [0.1, 0.3, 0.5]),
    ("f_beta(y, s, 0.5, t)", "t", "f_beta(): beta", [0.1, 0.3, 0.5]),
    ("confusion_ci(y, s, 0.5, t)", "t", "confusion_ci(): level", [0.1, 0.3, 0.5]),
    ("confusion_ci(y, s, 0.5, 0.9, m)", "m", "confusion_ci(): method", ["wilson", "clopper-pearson"]),
    ("net_benefit(y, p, t)", "t", "net_benefit(): pt", [0.1, 0.3, 0.5]),
    ("precision_at_k(y, s, k)", "k", "precision_at_k(): k", [1, 2]),
    ("recall_at_k(y, s, k)", "k", "recall_at_k(): k", [1, 2]),
    ("gains(y, s, b)", "b", "gains(): bins", [3, 5, 7, 10]),
    ("decision_curve(y, p, t)", "t", "decision_curve(): from", [0.1, 0.3, 0.5]),
    ("decision_curve(y, p, 0.05, 0.95, t)", "t", "decision_curve(): by", [0.1, 0.3, 0.5]),
    # the weighted twins (issue 23): weight id % 3, so some rows weigh 0 and are
    # dropped while their parameter still counts
    ("ece_w(y, p, id % 3, b)", "b", "ece_w(): bins", [3, 5, 7, 10]),
    ("mce_w(y, p, id % 3, b)", "b", "mce_w(): bins", [3, 5, 7, 10]),
    ("log_loss_w(y, p, id % 3, e)", "e", "log_loss_w(): eps", [1e-15, 0.01, 0.2]),
    ("tpr_at_fpr_w(y, s, id % 3, t)", "t", "tpr_at_fpr_w(): target_fpr", [0.1, 0.3, 0.5]),
    ("partial_auroc_w(y, s, id % 3, t)", "t", "partial_auroc_w(): max_fpr", [0.1, 0.3, 0.5]),
    ("operating_point_w(y, s, id % 3, c, 0.3)", "c", "operating_point_w(): criterion", ["fpr", "sensitivity", "precision"]),
    ("precision_at_prior_w(y, s, id % 3, 0.5, t)", "t", "precision_at_prior_w(): prior", [0.1, 0.3, 0.5]),
    ("mcc_w(y, s, id % 3, t)", "t", "mcc_w(): threshold", [0.1, 0.3, 0.5]),
    ("f_beta_w(y, s, id % 3, 0.5, t)", "t", "f_beta_w(): beta", [0.1, 0.3, 0.5]),
    ("net_benefit_w(y, p, id % 3, t)", "t", "net_benefit_w(): pt", [0.1, 0.3, 0.5]),
    ("decision_curve_w(y, p, id % 3, t)", "t", "decision_curve_w(): from", [0.1, 0.3, 0.5]),
]
PARAM_COLS = ["b", "e", "t", "k", "c", "g", "m"]     # columns 6.. of a row


def load_blocks(con, rng):
    """Rows in blocks of random size; each block's parameters are drawn
    apart, so neighbouring blocks often differ."""
    rows, i, blk = [], 0, 0
    n = int(rng.integers(8, 60))
    while i < n:
        size = int(rng.integers(1, 7))
        pick = {col: vals[int(rng.integers(len(vals)))] for _, col, _, vals in PARAM_FUNCS}
        for _ in range(size):
            if i >= n:
                break
            i += 1
            y = int(rng.random() < 0.4)
            p = float(rng.choice([rng.random(), round(rng.random(), 1), 0.0, 1.0, 1e-300]))
            rows.append((blk, None if rng.random() < 0.05 else y, p, float(rng.random()), float(rng.random()),
                         int(rng.integers(0, 3)), *[pick[c] for c in PARAM_COLS]))
        blk += 1
    mltest.load(con, ["blk", "y", "p", "s", "z", "yo"] + PARAM_COLS, rows)
    return rows


def run(con, sql):
    try:
        return con.execute(sql).fetchall(), None
    except sqlite3.OperationalError as e:
        return None, str(e)


def check_varying(ck, con, rng):
    rows = load_blocks(con, rng)
    for shape in SHAPES:
        members = mltest.frames(con, shape, order="id")
        for expr, col, pname, _ in PARAM_FUNCS:
            got, err = run(con, "SELECT id, %s OVER (%s) FROM t ORDER BY id" % (expr, shape.format(o="id")))
            mixed = [rid for rid, ids in members if len({rows[i - 1][PARAM_COLS.index(col) + 6]
                                                          for i in ids}) > 1]
            what = "%s OVER (%s)" % (expr, shape)
            if mixed:
                ck.true(err is not None and err.startswith(pname + " must be the same in every row of a group, got "),
                        "%s: frame of row %d mixes %s, want the parameter error, got %r" % (what, mixed[0], col, err))
                continue
            if err is not None:
                ck.true(False, "%s: every frame agrees on %s, but: %s" % (what, col, err))
                continue
            got = dict(got)
            for rid, ids in members:
                q = "SELECT %s FROM t WHERE id IN (%s)" % (expr, ",".join(map(str, ids)) or "NULL")
                want, werr = run(con, q)
                ck.equal(repr(got[rid]), repr(want[0][0]) if want else werr, "%s row %d" % (what, rid))


MAGNITUDES = [5e-324, 1e-310, 1e-300, 3e-170, 1e-17, 3e-17, 1e-8, 0.123456789, 0.5, 0.9, 1 - 1e-16, 1.0]


def brier_exact(ys, ps):
    terms = [(p - y) * (p - y) for y, p in zip(ys, ps)]
    return float(sum(map(Fraction, terms))) / len(terms)


def log_loss_exact(ys, ps, eps=1e-15):
    terms = []
    for y, p in zip(ys, ps):
        c = eps if p < eps else (1.0 - eps if p > 1.0 - eps else p)
        terms.append(-math.log(c if y else 1.0 - c))
    return float(sum(map(Fraction, terms))) / len(terms)


def check_sums(ck, con, rng):
    n = int(rng.integers(5, 80))
    ys = [int(v) for v in rng.integers(0, 2, n)]
    ps = [float(rng.choice(MAGNITUDES)) if rng.random() < 0.7 else float(rng.random()) for _ in range(n)]
    mltest.load(con, ["y", "p"], list(zip(ys, ps)))
    shapes = ["ORDER BY id ROWS %d PRECEDING" % w for w in (1, 2, 5)] + [
        "ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING",
        "ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 4 FOLLOWING",
        "ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"]
    for shape in shapes:
        members = dict(mltest.frames(con, shape, order="id"))
        for expr in ("brier(y, p)", "log_loss(y, p)", "ece(y, p, 7)", "reliability(y, p, 3)"):
            got = mltest.window(con, expr, shape, order="id")
            for rid, ids in members.items():
                if not ids:
                    continue
                a, b = ids[0], ids[-1]
                want = con.execute("SELECT %s FROM t WHERE id BETWEEN %d AND %d" % (expr, a, b)).fetchone()[0]
                ck.equal(repr(got[rid]), repr(want), "%s OVER (%s) row %d" % (expr, shape, rid))
                if expr == "brier(y, p)":
                    sel = [i - 1 for i in ids]
                    w = brier_exact([ys[i] for i in sel], [ps[i] for i in sel])
                    ck.equal(repr(got[rid]), repr(w), "brier exact, row %d" % rid)
                    ck.true(got[rid] >= 0.0, "brier never negative, row %d" % rid)
                elif expr == "log_loss(y, p)":
                    sel = [i - 1 for i in ids]
                    w = log_loss_exact([ys[i] for i in sel], [ps[i] for i in sel])
                    ck.equal(repr(got[rid]), repr(w), "log_loss exact, row %d" % rid)


def check_messages(ck, con):
    # text is cut by characters: no UTF-8 sequence is split
    for k in (13, 14, 39, 40, 41, 60):
        euro = "\u20ac" * k
        ck.error(con, "SELECT pr_auc(?, 0.5)", (euro,),
                 "pr_auc(): y must be 0 or 1, got text '%s'" % euro[:40], "euro x %d" % k)
    ck.error(con, "SELECT pr_auc(?, 0.5)", ("\U0001F600" * 45,),
             "pr_auc(): y must be 0 or 1, got text '%s'" % ("\U0001F600" * 40), "4-byte characters")
    # numbers: the shortest text that reads back as the same double
    ck.error(con, "SELECT brier(?, 0.5)", (1.0000000000000002,),
             "brier(): y must be 0 or 1, got 1.0000000000000002")
    ck.error(con, "SELECT brier(1, ?)", (1.0000000000000002,),
             "brier(): p must be a probability in [0, 1], got 1.0000000000000002")
    ck.error(con, "SELECT brier(?, 0.5)", (2.0,), "brier(): y must be 0 or 1, got 2.0")
    ck.error(con, "SELECT tpr_at_fpr(y, s, t) FROM (SELECT 0 AS y, 0.5 AS s, 0.1 AS t UNION ALL "
                  "SELECT 1, 0.6, 0.10000000000000002)", (),
             "tpr_at_fpr(): target_fpr must be the same in every row of a group, got 0.1 and then 0.10000000000000002")
    ck.error(con, "SELECT strat_pr_auc(1, 0.5, 3, ?, ?)", (0.30000000000000004, 0.3),
             "strat_pr_auc(): ql must be less than qh, got ql = 0.30000000000000004 and qh = 0.3")
    # say what is wrong with a label out of auprc_ge's range
    ck.error(con, "SELECT auprc_ge(2147483648, 0.5, 1)", (),
             "auprc_ge(): y must be an integer in 0..2147483647, got 2147483648")
    ck.error(con, "SELECT ordinal_auprc()", (),
             "ordinal_auprc(): expects (y, s_1, ..., s_m), got 0 arguments")
    # a JSON result longer than SQLITE_LIMIT_LENGTH names the function and the size
    mltest.load(con, ["y", "s"], [(i % 2, i / 300.0) for i in range(300)])
    size = len(con.execute("SELECT roc_curve(y, s) FROM t").fetchone()[0].encode())
    old = con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 5000)
    ck.error(con, "SELECT roc_curve(y, s) FROM t", (),
             "roc_curve(): the JSON result is %d bytes, longer than SQLITE_LIMIT_LENGTH (5000)" % size)
    con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, old)
    ck.equal(con.execute("SELECT length(roc_curve(y, s)) FROM t").fetchone()[0], size, "limit restored")


def main():
    ck = mltest.Checker("test_reliability")
    con = mltest.connect()
    rng = np.random.default_rng(12)
    check_messages(ck, con)
    for _ in range(40):
        check_varying(ck, con, rng)
    for _ in range(60):
        check_sums(ck, con, rng)
    ck.finish()


if __name__ == "__main__":
    main()
