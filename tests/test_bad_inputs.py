# SPDX-License-Identifier: MIT
"""The bad-input matrix: every registered function against every class of
bad input in SPEC's Rules, from one table.

FUNCS lists every SQL function the extension registers; the test first checks
that list against what the extension actually registers (pragma
function_list, with and without the extension), so a new function without an
entry here fails.  For each entry and each class -- wrong label, text/blob
label, text/blob score, probability out of range, invalid parameter,
row-varying parameter, NULL rows, empty group, one class -- the documented
error text or NULL is asserted, and after every error the connection still
works and a table written before the error is intact.
"""
import sqlite3

import mltest

# name: (shape, extra params (SQL text), [(bad param SQL, expected message tail)], varying-param name)
#   shapes: score = (y, s), prob = (y, p), strat = (y, s, z), ord = (y, s1, s2), ge = (y, s, k)
FUNCS = {
    "pr_auc": ("score", "", [], None),
    "auroc": ("score", "", [], None),
    "nap": ("score", "", [], None),
    "youden_j": ("score", "", [], None),
    "tpr_at_fpr": ("score", ", 0.1", [(", 1.0", "target_fpr must be a number in (0, 1), got 1.0"),
                                      (", 'a'", "target_fpr must be a number in (0, 1), got text 'a'")], "target_fpr"),
    "sens_at_spec": ("score", ", 0.9", [(", 0", "target_spec must be a number in (0, 1), got 0"),
                                        (", NULL", "target_spec must be a number in (0, 1), got NULL")], "target_spec"),
    "confusion": ("score", ", 0.5", [(", 'a'", "threshold must be a number, got text 'a'")], "threshold"),
    "pr_curve": ("score", "", [], None),
    "roc_curve": ("score", "", [], None),
    "brier": ("prob", "", [], None),
    "log_loss": ("prob", ", 1e-15", [(", 0.7", "eps must be a number in (0, 0.5), got 0.7")], "eps"),
    "ece": ("prob", ", 10", [(", 0", "bins must be an integer in 1..100000, got 0")], "bins"),
    "reliability": ("prob", ", 10", [(", 2.5", "bins must be an integer in 1..100000, got 2.5")], "bins"),
    "ece_l2_debiased": ("prob", ", 2", [(", 100001", "bins must be an integer in 1..100000, got 100001")], "bins"),
    "ece_l2_kumar": ("prob", ", 2", [(", -1", "bins must be an integer in 1..100000, got -1")], "bins"),
    "strat_pr_auc": ("strat", ", 0.25, 0.75", [(", 0.8, 0.2", "ql must be less than qh, got ql = 0.8 and qh = 0.2"),
                                                (", -0.5, 0.5", "ql must be a number in [0, 1), got -0.5")], "ql"),
    "strat_gap": ("strat", ", 0.25, 0.75", [(", 0.2, 1.2", "qh must be a number in (0, 1], got 1.2")], "ql"),
    "strat_report": ("strat", ", 0.25, 0.75, 0.05", [(", 0.25, 0.75, 'x'", "gap_threshold must be a number, got text 'x'")], "gap_threshold"),
    "auprc_ge": ("ge", "", [], "k"),
    "ordinal_auprc": ("ord", "", [], None),
    "ordinal_nap": ("ord", "", [], None),
    "ordinal_report": ("ord", "", [], None),
    "mleval_version": ("scalar", "", [], None),
    "mleval_build_info": ("scalar", "", [], None),
    "mleval_functions": ("scalar", "", [], None),
}
ONE_CLASS_DEFINED = {"confusion", "brier", "log_loss", "ece", "reliability", "ece_l2_debiased", "ece_l2_kumar"}


def call(name, shape, y, x, extra):
    if shape == "score" or shape == "prob":
        return "%s(%s, %s%s)" % (name, y, x, extra)
    if shape == "strat":
        return "%s(%s, %s, 3%s)" % (name, y, x, extra)
    if shape == "ord":
        return "%s(%s, %s, %s)" % (name, y, x, x)
    if shape == "ge":
        return "%s(%s, %s, 1)" % (name, y, x)
    raise ValueError(shape)


def registered():
    """Names the extension adds to a connection (pragma function_list)."""
    plain = sqlite3.connect(":memory:")
    base = {r[0] for r in plain.execute("SELECT name FROM pragma_function_list")}
    con = mltest.connect()
    return {r[0] for r in con.execute("SELECT name FROM pragma_function_list")} - base


def main():
    ck = mltest.Checker("bad inputs")
    got = registered()
    ck.equal(sorted(got), sorted(FUNCS), "the table lists exactly the registered functions")
    con = mltest.connect()
    con.execute("CREATE TABLE kept(x)")
    con.execute("INSERT INTO kept VALUES (1), (2), (3)")
    con.commit()

    def after_error(what):
        ck.equal(con.execute("SELECT count(*), sum(x) FROM kept").fetchone(), (3, 6), what + ": table intact")
        ck.equal(con.execute("SELECT pr_auc(y, s) FROM (SELECT 1 AS y, 0.9 AS s UNION ALL SELECT 0, 0.1)").fetchone(),
                 (1.0,), what + ": connection works")

    for name, (shape, extra, badparams, varying) in FUNCS.items():
        if shape == "scalar":
            ck.true(con.execute("SELECT %s()" % name).fetchone()[0] is not None, name + " returns a value")
            continue
        label = "a probability in [0, 1]" if shape == "prob" else "a number"
        xname = "p" if shape == "prob" else ("s_1" if shape == "ord" else "s")
        ylabel = "an integer in 0..2" if shape == "ord" else ("an integer in 0..2147483647" if shape == "ge" else "0 or 1")
        bad_y = [("2" if shape not in ("ord", "ge") else ("3" if shape == "ord" else "-1"),
                  "2" if shape not in ("ord", "ge") else ("3" if shape == "ord" else "-1")),
                 ("0.5", "0.5"), ("'a'", "text 'a'"), ("x'01'", "a blob")]
        for sqlv, shown in bad_y:
            msg = "%s(): y must be %s, got %s" % (name, ylabel, shown)
            ck.error(con, "SELECT " + call(name, shape, sqlv, "0.5", extra), (), msg, name + " bad label " + sqlv)
            after_error(name + " bad label")
        for sqlv, shown in [("'x'", "text 'x'"), ("x'00'", "a blob")] + ([("1.5", "1.5"), ("-0.1", "-0.1")] if shape == "prob" else []):
            msg = "%s(): %s must be %s, got %s" % (name, xname, label, shown)
            ck.error(con, "SELECT " + call(name, shape, "1", sqlv, extra), (), msg, name + " bad score " + sqlv)
            after_error(name + " bad score")
        if shape == "strat":
            ck.error(con, "SELECT %s(1, 0.5, 'long'%s)" % (name, extra), (), "%s(): strat must be a number, got text 'long'" % name)
        for p, tail in badparams:
            ck.error(con, "SELECT " + call(name, shape, "1", "0.5", p), (), "%s(): %s" % (name, tail), name + " bad param")
            after_error(name + " bad param")
        if varying:
            if shape == "ge":
                q = "SELECT auprc_ge(y, s, y + 1) FROM (SELECT 0 AS y, 0.5 AS s UNION ALL SELECT 1, 0.6)"
                ck.error(con, q, (), "auprc_ge(): k must be the same in every row of a group, got 1 and then 2")
            else:
                vals = {"target_fpr": ("0.1", "0.2"), "target_spec": ("0.9", "0.8"), "threshold": ("0.5", "0.6"),
                        "eps": ("0.001", "0.002"), "bins": ("10", "11"), "ql": ("0.25", "0.3"),
                        "gap_threshold": ("0.05", "0.06")}[varying]
                ex = extra.replace(vals[0], "CASE WHEN y = 0 THEN %s ELSE %s END" % vals, 1)
                if vals[0] not in extra:
                    ex = extra.replace(extra.split(",")[1].strip(), "CASE WHEN y = 0 THEN %s ELSE %s END" % vals, 1)
                q = "SELECT %s FROM (SELECT 0 AS y, 0.5 AS s, 0.5 AS p UNION ALL SELECT 1, 0.6, 0.6)" % call(
                    name, shape, "y", "p" if shape == "prob" else "s", ex)
                ck.error(con, q, (), "%s(): %s must be the same in every row of a group, got %s and then %s" %
                         (name, varying, vals[0], vals[1]), name + " varying param")
            after_error(name + " varying param")
        # NULL rows are skipped: a group of NULLs is an empty group: NULL
        sql_null = "SELECT %s FROM (SELECT NULL AS y, NULL AS s UNION ALL SELECT 1, NULL UNION ALL SELECT NULL, 0.5)" % call(
            name, shape, "y", "s", extra)
        ck.equal(con.execute(sql_null).fetchone(), (None,), name + " NULL rows only: NULL")
        ck.equal(con.execute("SELECT %s FROM (SELECT 1 AS y, 0.5 AS s) WHERE 0" % call(name, shape, "y", "s", extra)).fetchone(),
                 (None,), name + " empty group: NULL")
        one = con.execute("SELECT %s FROM (SELECT 1 AS y, 0.5 AS s UNION ALL SELECT 1, 0.7)" % call(name, shape, "y", "s", extra)).fetchone()[0]
        if name in ONE_CLASS_DEFINED:
            ck.true(one is not None, name + " one class is defined")
        elif name == "strat_report":
            ck.true(one is not None and '"trimmed":null' in one, name + " one class: trimmed null")
        elif name == "ordinal_report":
            ck.true(one is not None and '"ordinal_auprc":null' in one, name + " one class: means null")
        else:
            ck.equal(one, None, name + " one class: NULL")
    ck.finish()


if __name__ == "__main__":
    main()
