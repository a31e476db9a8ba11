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
import json
import sqlite3

import mltest

CRITERIA = "one of 'fpr', 'specificity', 'sensitivity', 'precision', 'max_f1', 'youden'"
STRATEGIES = "one of 'uniform', 'quantile'"

# name: (shape, extra params (SQL text), [(bad param SQL, expected message tail)], varying-param name)
#   shapes: score = (y, s), prob = (y, p), strat = (y, s, z), ord = (y, s1, s2), ge = (y, s, k),
#   pair = (y, s_a, s_b), ppair = (y, p_a, p_b), mean = (x)
LEVEL = ", 1.0", "level must be a number in (0, 1), got 1.0"
REPS = ", 0.9, 9", "reps must be an integer in 10..1000000, got 9"
SEED = ", 0.9, 20, -1", "seed must be an integer in 0..9223372036854775807, got -1"
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
    "precision_at_prior": ("score", ", 0.5, 0.1", [(", 0.5, 0", "prior must be a number in (0, 1), got 0"),
                                                   (", 0.5, 1", "prior must be a number in (0, 1), got 1"),
                                                   (", 0.5, 'x'", "prior must be a number in (0, 1), got text 'x'"),
                                                   (", 0.5, NULL", "prior must be a number in (0, 1), got NULL"),
                                                   (", 'a', 0.1", "threshold must be a number, got text 'a'")], "prior"),
    "partial_auroc": ("score", ", 0.5", [(", 0", "max_fpr must be a number in (0, 1], got 0"),
                                         (", 1.5", "max_fpr must be a number in (0, 1], got 1.5"),
                                         (", 'a'", "max_fpr must be a number in (0, 1], got text 'a'"),
                                         (", NULL", "max_fpr must be a number in (0, 1], got NULL")], "max_fpr"),
    "operating_point": ("score", ", 'fpr', 0.1", [
        (", 'f1', 0.1", "criterion must be " + CRITERIA + ", got text 'f1'"),
        (", NULL, 0.1", "criterion must be " + CRITERIA + ", got NULL"),
        (", 0.1, 0.1", "criterion must be " + CRITERIA + ", got 0.1"),
        (", 'fpr', 1.0", "target must be a number in (0, 1), got 1.0"),
        (", 'specificity', 0", "target must be a number in (0, 1), got 0"),
        (", 'precision', 'x'", "target must be a number in (0, 1), got text 'x'"),
        (", 'sensitivity', NULL", "target must be a number in (0, 1), got NULL"),
        (", 'fpr'", "criterion 'fpr' needs a target in (0, 1)"),
        (", 'SENSITIVITY'", "criterion 'sensitivity' needs a target in (0, 1)"),
        (", 'youden', 0.5", "criterion 'youden' takes no target, got 0.5"),
        (", 'max_f1', NULL", "criterion 'max_f1' takes no target, got NULL")], "target"),
    "pr_curve": ("score", "", [], None),
    "roc_curve": ("score", "", [], None),
    "mcc": ("score", ", 0.5", [(", 'a'", "threshold must be a number, got text 'a'"),
                               (", NULL", "threshold must be a number, got NULL")], "threshold"),
    "f_beta": ("score", ", 0.5, 2", [(", 0.5, 0", "beta must be a number in (0, Inf), got 0"),
                                     (", 0.5, -1", "beta must be a number in (0, Inf), got -1"),
                                     (", 0.5, 1e999", "beta must be a number in (0, Inf), got Inf"),
                                     (", 0.5, 'x'", "beta must be a number in (0, Inf), got text 'x'"),
                                     (", 'a', 2", "threshold must be a number, got text 'a'")], "beta"),
    "confusion_ci": ("score", ", 0.5, 0.9, 'wilson'", [
        (", 0.5, 1", "level must be a number in (0, 1), got 1"),
        (", 0.5, 0", "level must be a number in (0, 1), got 0"),
        (", 0.5, NULL", "level must be a number in (0, 1), got NULL"),
        (", 0.5, 0.9, 'exact'", "method must be one of 'wilson', 'clopper-pearson', got text 'exact'"),
        (", 0.5, 0.9, 0", "method must be one of 'wilson', 'clopper-pearson', got 0"),
        (", x'00'", "threshold must be a number, got a blob")], "level"),
    "net_benefit": ("prob", ", 0.2", [(", 0", "pt must be a number in (0, 1), got 0"),
                                      (", 1", "pt must be a number in (0, 1), got 1"),
                                      (", NULL", "pt must be a number in (0, 1), got NULL")], "pt"),
    "ks": ("score", "", [], None),
    "precision_at_k": ("score", ", 3", [(", 0", "k must be an integer in 1..9223372036854775807, got 0"),
                                        (", 2.5", "k must be an integer in 1..9223372036854775807, got 2.5"),
                                        (", 'a'", "k must be an integer in 1..9223372036854775807, got text 'a'")], "k"),
    "recall_at_k": ("score", ", 3", [(", -1", "k must be an integer in 1..9223372036854775807, got -1"),
                                     (", NULL", "k must be an integer in 1..9223372036854775807, got NULL")], "k"),
    "gains": ("score", ", 2", [(", 0", "bins must be an integer in 1..100000, got 0"),
                               (", 1.5", "bins must be an integer in 1..100000, got 1.5")], "bins"),
    "decision_curve": ("prob", ", 0.1, 0.9, 0.1", [
        (", 0", "from must be a number in (0, 1), got 0"),
        (", 0.1, 1", "to must be a number in (0, 1), got 1"),
        (", 0.1, 0.9, 0", "by must be a number in (0, Inf), got 0"),
        (", 0.1, 0.9, 'x'", "by must be a number in (0, Inf), got text 'x'"),
        (", 0.6, 0.5", "from must be at most to, got from = 0.6 and to = 0.5"),
        (", 0.995", "from must be at most to, got from = 0.995 and to = 0.99"),
        (", 0.01, 0.99, 1e-5", "from, to and by give more than 10000 thresholds, got from = 0.01, to = 0.99, by = 1e-05")],
        "from"),
    "brier": ("prob", "", [], None),
    "log_loss": ("prob", ", 1e-15", [(", 0.7", "eps must be a number in (0, 0.5), got 0.7")], "eps"),
    "ece": ("prob", ", 10", [(", 0", "bins must be an integer in 1..100000, got 0")], "bins"),
    "mce": ("prob", ", 10", [(", 0", "bins must be an integer in 1..100000, got 0")], "bins"),
    "reliability": ("prob", ", 10", [(", 2.5", "bins must be an integer in 1..100000, got 2.5"),
                                     (", 10, 'bogus'", "strategy must be " + STRATEGIES + ", got text 'bogus'"),
                                     (", 10, NULL", "strategy must be " + STRATEGIES + ", got NULL"),
                                     (", 10, 1", "strategy must be " + STRATEGIES + ", got 1"),
                                     (", 0, 'quantile'", "bins must be an integer in 1..100000, got 0")], "bins"),
    "ece_equal_mass": ("prob", ", 2", [(", 'x'", "bins must be an integer in 1..100000, got text 'x'")], "bins"),
    "ece_l2": ("prob", ", 2", [(", 0.5", "bins must be an integer in 1..100000, got 0.5")], "bins"),
    "brier_decomposition": ("prob", ", 2", [(", NULL", "bins must be an integer in 1..100000, got NULL")], "bins"),
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
    "pr_auc_ci": ("score", ", 0.9, 20, 7", [LEVEL, REPS, SEED], "seed"),
    "nap_ci": ("score", ", 0.9, 20, 7", [LEVEL, REPS, SEED], "reps"),
    "brier_ci": ("prob", ", 0.9, 20, 7", [LEVEL, REPS, SEED], "level"),
    "log_loss_ci": ("prob", ", 0.9, 20, 7", [LEVEL, REPS, SEED], "seed"),
    "ece_ci": ("prob", ", 10, 0.9, 20, 7", [(", 0", "bins must be an integer in 1..100000, got 0"),
                                            (", 10, 0", "level must be a number in (0, 1), got 0"),
                                            (", 10, 0.9, 1000001", "reps must be an integer in 10..1000000, got 1000001"),
                                            (", 10, 0.9, 20, 0.5", "seed must be an integer in 0..9223372036854775807, got 0.5")], "seed"),
    "strat_gap_ci": ("strat", ", 0.25, 0.75, 0.9, 20, 7", [(", 0.8, 0.2", "ql must be less than qh, got ql = 0.8 and qh = 0.2"),
                                                           (", 0.25, 0.75, 1.5", "level must be a number in (0, 1), got 1.5"),
                                                           (", 0.25", "expects (y, s, strat [, ql, qh [, level, reps, seed]]), got 4 arguments"),
                                                           (", 0.25, 0.75, 0.9, 20, 'x'", "seed must be an integer in 0..9223372036854775807, got text 'x'")], "reps"),
    "auroc_ci": ("score", ", 0.9", [LEVEL, (", NULL", "level must be a number in (0, 1), got NULL")], "level"),
    "auroc_diff": ("pair", ", 0.9", [LEVEL, (", 'a'", "level must be a number in (0, 1), got text 'a'")], "level"),
    "pr_auc_diff_ci": ("pair", ", 0.9, 20, 7", [LEVEL, REPS, SEED], "seed"),
    "ece_diff_ci": ("ppair", ", 10, 0.9, 20, 7", [(", 100001", "bins must be an integer in 1..100000, got 100001"),
                                                   (", 10, 1", "level must be a number in (0, 1), got 1")], "seed"),
    "mean_ci": ("mean", ", 0.9", [LEVEL], "level"),
    "calibration_summary": ("prob", "", [], None),
    # auroc_test(y, s, g): the group g rides where a parameter would (it may vary)
    "auroc_test": ("score", ", 1", [(", 2", "g must be 0 or 1, got 2"), (", 0.5", "g must be 0 or 1, got 0.5"),
                                    (", 'a'", "g must be 0 or 1, got text 'a'"), (", x'01'", "g must be 0 or 1, got a blob")],
                   None),
    "plot_curves": ("plot", "", [], None),
    "plot_reliability": ("plot", "", [], None),
    "plot_bars": ("plot", "", [], None),
    "plot_lines": ("plot", "", [], None),
    "ml_state": ("score", "", [], None),
    "ml_state_ordinal": ("ord", "", [], None),
    "ml_merge": ("state", "", [], None),
    "mleval_version": ("scalar", "", [], None),
    "mleval_build_info": ("scalar", "", [], None),
    "mleval_functions": ("scalar", "", [], None),
}
# The plot family takes JSON or points, not (y, s): its bad inputs, each with
# its exact error; every one also gets the NULL-rows and empty-group checks.
CUR = "plot_curves(): curve must be pr_curve() or roc_curve() JSON, got "
REL = "plot_reliability(): bins must be reliability() JSON, got "
PLOT_BAD = {
    "plot_curves": [
        ("plot_curves('a', 0.5)", CUR + "0.5"),
        ("plot_curves('a', x'00')", CUR + "a blob"),
        ("plot_curves('a', 'yes')", CUR + "'yes': expected an array at byte 0"),
        ("plot_curves('a', '[{\"recall\":1,\"precision\":2}]')",
         CUR + "point 0 with recall 1, precision 2: not in [0, 1]"),
        ("plot_curves('a', '[{\"fpr\":0,\"tpr\":0}]', 3)", "plot_curves(): title must be text, got 3"),
        ("plot_curves(v, '[{\"fpr\":0,\"tpr\":0}]', v) FROM (SELECT 'a' AS v UNION ALL SELECT 'b')",
         "plot_curves(): title must be the same in every row, got 'b' after 'a'"),
    ],
    "plot_reliability": [
        ("plot_reliability('a', 1)", REL + "1"),
        ("plot_reliability('a', '[{\"lo\":0}')", REL + "'[{\"lo\":0}': expected ',' or ']' at byte 9"),
        ("plot_reliability('a', '[{\"lo\":0,\"hi\":0.5,\"n\":1.5,\"mean_p\":0.2,\"frac_pos\":0}]')",
         REL + "a bin 0 with lo 0, hi 0.5, n 1.5, mean_p 0.2, frac_pos 0"),
        ("plot_reliability('a', '[]', x'01')", "plot_reliability(): title must be text, got a blob"),
    ],
    "plot_bars": [
        ("plot_bars('c', 's', 'x')", "plot_bars(): value must be a number, got text 'x'"),
        ("plot_bars('c', 's', x'00')", "plot_bars(): value must be a number, got a blob"),
        ("plot_bars('c', 's', 1e999)", "plot_bars(): value must be a finite number, got Inf"),
        ("plot_bars('c', 's', 1, 't', 5)", "plot_bars(): unit must be text, got 5"),
    ],
    "plot_lines": [
        ("plot_lines('s', 'x', 1)", "plot_lines(): x must be a number, got text 'x'"),
        ("plot_lines('s', 1, x'00')", "plot_lines(): y must be a number, got a blob"),
        ("plot_lines('s', 1, -1e999)", "plot_lines(): y must be a finite number, got -Inf"),
        ("plot_lines('s', 1, 2, 0.5)", "plot_lines(): title must be text, got 0.5"),
        ("plot_lines('s', 1, 2, 't', 7)", "plot_lines(): xlabel must be text, got 7"),
        ("plot_lines('s', 1, 2, 't', 'x', x'00')", "plot_lines(): ylabel must be text, got a blob"),
    ],
}
PLOT_NULL = {
    "plot_curves": "plot_curves(y, s)",
    "plot_reliability": "plot_reliability(y, s)",
    "plot_bars": "plot_bars(y, y, s)",
    "plot_lines": "plot_lines(y, y, s)",
}
ONE_CLASS_DEFINED = {"confusion", "f_beta", "confusion_ci", "net_benefit", "precision_at_k", "recall_at_k", "gains",
                     "decision_curve", "brier", "log_loss", "ece", "mce", "reliability", "ece_equal_mass", "ece_l2",
                     "ece_l2_debiased", "brier_decomposition", "ece_l2_kumar", "calibration_summary",
                     "brier_ci", "log_loss_ci", "ece_ci", "ece_diff_ci",
                     "ml_state", "ml_state_ordinal"}
NOT_A_STATE = "state: the blob is not an mleval state (no MLST header; make one with ml_state())"

# Text parameters that must agree across rows, and the rules between two
# parameters, which the generic columns above cannot express.
TWO_ROWS = "FROM (SELECT 0 AS y, 0.5 AS s UNION ALL SELECT 1, 0.6)"
EXTRA_ERRORS = [
    ("SELECT reliability(y, s, 5, CASE WHEN y = 0 THEN 'uniform' ELSE 'quantile' END) " + TWO_ROWS,
     "reliability(): strategy must be the same in every row of a group, got 'uniform' and then 'quantile'"),
    ("SELECT operating_point(y, s, CASE WHEN y = 0 THEN 'youden' ELSE 'max_f1' END) " + TWO_ROWS,
     "operating_point(): criterion must be the same in every row of a group, got 'youden' and then 'max_f1'"),
    ("SELECT operating_point(y, s, CASE WHEN y = 0 THEN 'fpr' ELSE 'youden' END, 0.1) " + TWO_ROWS,
     "operating_point(): criterion must be the same in every row of a group, got 'fpr' and then 'youden'"),
    ("SELECT operating_point(y, s, 'youden', CASE WHEN y = 0 THEN NULL ELSE 0.5 END) " + TWO_ROWS,
     "operating_point(): criterion 'youden' takes no target, got NULL"),
    ("SELECT operating_point(y, s, 'precision', 0.5, 1) " + TWO_ROWS,
     "operating_point(): expects (y, s, criterion [, target]), got 5 arguments"),
    ("SELECT reliability(y, s, 5, 'quantile', 1) " + TWO_ROWS,
     "reliability(): expects (y, p [, bins [, strategy]]), got 5 arguments"),
    ("SELECT partial_auroc(y, s) " + TWO_ROWS, "partial_auroc(): expects (y, s, max_fpr), got 2 arguments"),
    ("SELECT precision_at_prior(y, s, 0.5) " + TWO_ROWS,
     "precision_at_prior(): expects (y, s, threshold, prior), got 3 arguments"),
    # the issue 24 functions: text parameters, the grid's other parameters, arity
    ("SELECT confusion_ci(y, s, 0.5, 0.9, CASE WHEN y = 0 THEN 'wilson' ELSE 'Clopper-Pearson' END) " + TWO_ROWS,
     "confusion_ci(): method must be the same in every row of a group, got 'wilson' and then 'clopper-pearson'"),
    ("SELECT decision_curve(y, s, 0.1, CASE WHEN y = 0 THEN 0.5 ELSE 0.6 END) " + TWO_ROWS,
     "decision_curve(): to must be the same in every row of a group, got 0.5 and then 0.6"),
    ("SELECT decision_curve(y, s, 0.1, 0.5, CASE WHEN y = 0 THEN 0.1 ELSE 0.2 END) " + TWO_ROWS,
     "decision_curve(): by must be the same in every row of a group, got 0.1 and then 0.2"),
    ("SELECT confusion_ci(y, s, 0.5, CASE WHEN y = 0 THEN 0.9 ELSE 0.95 END, 'wilson') " + TWO_ROWS,
     "confusion_ci(): level must be the same in every row of a group, got 0.9 and then 0.95"),
    ("SELECT f_beta(y, s, 0.5) " + TWO_ROWS, "f_beta(): expects (y, s, threshold, beta), got 3 arguments"),
    ("SELECT confusion_ci(y, s, 0.5, 0.9, 'wilson', 1) " + TWO_ROWS,
     "confusion_ci(): expects (y, s, threshold [, level [, method]]), got 6 arguments"),
    ("SELECT net_benefit(y, 1.5, 0.2) " + TWO_ROWS, "net_benefit(): p must be a probability in [0, 1], got 1.5"),
    ("SELECT decision_curve(y, -0.5) " + TWO_ROWS, "decision_curve(): p must be a probability in [0, 1], got -0.5"),
    # auroc_test with two arguments is a scalar over two states
    ("SELECT auroc_test(1, 2)", "auroc_test(): st_a must be a state made by ml_state(y, s), got 1"),
    ("SELECT auroc_test(ml_state(y, s), 0.5) " + TWO_ROWS,
     "auroc_test(): st_b must be a state made by ml_state(y, s), got 0.5"),
    ("SELECT auroc_test(x'01', NULL)", "auroc_test(): st_a: " + NOT_A_STATE.split(": ", 1)[1]),
    ("SELECT auroc_test(y, s) " + TWO_ROWS, "auroc_test(): st_a must be a state made by ml_state(y, s), got 0"),
    ("SELECT auroc_test(y, s, 1, 1) " + TWO_ROWS, "auroc_test(): expects (y, s, g | st_a, st_b), got 4 arguments"),
]


def call(name, shape, y, x, extra):
    if shape == "score" or shape == "prob":
        return "%s(%s, %s%s)" % (name, y, x, extra)
    if shape == "strat":
        return "%s(%s, %s, 3%s)" % (name, y, x, extra)
    if shape == "ord":
        return "%s(%s, %s, %s)" % (name, y, x, x)
    if shape == "ge":
        return "%s(%s, %s, 1)" % (name, y, x)
    if shape in ("pair", "ppair"):
        return "%s(%s, %s, %s%s)" % (name, y, x, x, extra)
    raise ValueError(shape)


def check_mean(ck, con, name, extra, badparams, after_error):
    """mean_ci(x [, level]): one data argument, no label."""
    for sqlv, shown in [("'x'", "text 'x'"), ("x'00'", "a blob")]:
        ck.error(con, "SELECT %s(%s%s)" % (name, sqlv, extra), (), "%s(): x must be a number, got %s" % (name, shown))
        after_error(name + " bad x")
    for p, tail in badparams:
        ck.error(con, "SELECT %s(0.5%s)" % (name, p), (), "%s(): %s" % (name, tail), name + " bad param")
        after_error(name + " bad param")
    ck.error(con, "SELECT %s(x, CASE WHEN x = 0 THEN 0.9 ELSE 0.8 END) FROM (SELECT 0 AS x UNION ALL SELECT 1)" % name,
             (), "%s(): level must be the same in every row of a group, got 0.9 and then 0.8" % name)
    after_error(name + " varying param")
    ck.equal(con.execute("SELECT %s(x%s) FROM (SELECT NULL AS x UNION ALL SELECT NULL)" % (name, extra)).fetchone(),
             (None,), name + " NULL rows only: NULL")
    ck.equal(con.execute("SELECT %s(x%s) FROM (SELECT 1 AS x) WHERE 0" % (name, extra)).fetchone(),
             (None,), name + " empty group: NULL")


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

    takes_states = {f["name"] for f in json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
                    if f["state_args"]}
    for name, (shape, extra, badparams, varying) in FUNCS.items():
        if shape == "state":          # ml_merge(state): a state or NULL, nothing else
            for sqlv, shown in [("2", "2"), ("'a'", "text 'a'"), ("0.5", "0.5")]:
                ck.error(con, "SELECT %s(%s)" % (name, sqlv), (), "%s(): state must be a state made by ml_state(), got %s"
                         % (name, shown), name + " bad state " + sqlv)
                after_error(name + " bad state")
            ck.error(con, "SELECT %s(x'01')" % name, (), "%s(): %s" % (name, NOT_A_STATE), name + " not a state")
            ck.equal(con.execute("SELECT %s(NULL)" % name).fetchone(), (None,), name + " NULL only: NULL")
            ck.equal(con.execute("SELECT %s(x'01') WHERE 0" % name).fetchone(), (None,), name + " empty group: NULL")
            continue
        if shape == "scalar":
            ck.true(con.execute("SELECT %s()" % name).fetchone()[0] is not None, name + " returns a value")
            continue
        if shape == "mean":
            check_mean(ck, con, name, extra, badparams, after_error)
            continue
        label = "a probability in [0, 1]" if shape in ("prob", "ppair") else "a number"
        xname = {"prob": "p", "ord": "s_1", "pair": "s_a", "ppair": "p_a"}.get(shape, "s")
        if shape == "plot":
            for sql, msg in PLOT_BAD[name]:
                ck.error(con, "SELECT " + sql, (), msg, name + " bad input")
                after_error(name + " bad input")
            c = PLOT_NULL[name]
            ck.equal(con.execute("SELECT %s FROM (SELECT NULL AS y, NULL AS s UNION ALL SELECT 1, NULL)" % c).fetchone(),
                     (None,), name + " NULL rows only: NULL")
            ck.equal(con.execute("SELECT %s FROM (SELECT 1 AS y, 0.5 AS s) WHERE 0" % c).fetchone(),
                     (None,), name + " empty group: NULL")
            continue
        ylabel = "an integer in 0..2" if shape == "ord" else ("an integer in 0..2147483647" if shape == "ge" else "0 or 1")
        bad_y = [("2" if shape not in ("ord", "ge") else ("3" if shape == "ord" else "-1"),
                  "2" if shape not in ("ord", "ge") else ("3" if shape == "ord" else "-1")),
                 ("0.5", "0.5"), ("'a'", "text 'a'"), ("x'01'", "a blob")]
        for sqlv, shown in bad_y:
            msg = "%s(): y must be %s, got %s" % (name, ylabel, shown)
            if sqlv.startswith("x'") and name in takes_states:     # a BLOB first argument is a state
                msg = "%s(): %s" % (name, NOT_A_STATE)
            ck.error(con, "SELECT " + call(name, shape, sqlv, "0.5", extra), (), msg, name + " bad label " + sqlv)
            after_error(name + " bad label")
        for sqlv, shown in [("'x'", "text 'x'"), ("x'00'", "a blob")] + ([("1.5", "1.5"), ("-0.1", "-0.1")] if shape in ("prob", "ppair") else []):
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
                        "max_fpr": ("0.5", "0.6"), "target": ("0.1", "0.2"), "prior": ("0.1", "0.2"),
                        "eps": ("0.001", "0.002"), "bins": ("10", "11"), "ql": ("0.25", "0.3"),
                        "gap_threshold": ("0.05", "0.06"), "seed": ("7", "8"), "reps": ("20", "21"),
                        "level": ("0.9", "0.8"), "beta": ("2", "3"), "pt": ("0.2", "0.3"), "k": ("3", "4"),
                        "from": ("0.1", "0.2")}[varying]
                ex = extra.replace(vals[0], "CASE WHEN y = 0 THEN %s ELSE %s END" % vals, 1)
                if vals[0] not in extra:
                    ex = extra.replace(extra.split(",")[1].strip(), "CASE WHEN y = 0 THEN %s ELSE %s END" % vals, 1)
                q = "SELECT %s FROM (SELECT 0 AS y, 0.5 AS s, 0.5 AS p UNION ALL SELECT 1, 0.6, 0.6)" % call(
                    name, shape, "y", "p" if shape in ("prob", "ppair") else "s", ex)
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
    for sql, msg in EXTRA_ERRORS:
        ck.error(con, sql, (), msg)
        after_error(sql)
    ck.finish()


if __name__ == "__main__":
    main()
