# SPDX-License-Identifier: MIT
"""The bad-input matrix: every registered function against every class of
bad input in SPEC's Rules, from one table.

The list of functions, their data arguments and their parameters come from
the extension's own records (mleval_functions(): "data" names the data
arguments by role -- y, s, p, strat, s_a, ... -- and "params" gives each
parameter's type, range and a valid example), and the test first checks that
list against pragma function_list.  So a new function is in the matrix the
moment it has a record; one whose data arguments have a role this file does
not know fails until the role is taught here.  For each function and each
class -- wrong label, text/blob label, text/blob score, probability out of
range, each parameter out of its range, NULL, text or of the wrong type
(generated from its spec), the hand-written cases of SPECIAL_BAD (rules
between parameters, exact texts), a row-varying parameter, NULL rows, empty
group, one class -- the documented error text or NULL is asserted, and after
every error the connection still works and a table written before the error
is intact.
"""
import json
import sqlite3

import mltest

CRITERIA = "one of 'fpr', 'specificity', 'sensitivity', 'precision', 'max_f1', 'youden'"
STRATEGIES = "one of 'uniform', 'quantile'"

# Hand-written bad parameters, beyond those generated from the specs:
#   name: [(the parameters after the data, as SQL text, expected message tail)]
LEVEL = ", 1.0", "level must be a number in (0, 1), got 1.0"
REPS = ", 0.9, 9", "reps must be an integer in 10..1000000, got 9"
SEED = ", 0.9, 20, -1", "seed must be an integer in 0..9223372036854775807, got -1"
SPECIAL_BAD = {
    "tpr_at_fpr": [(", 1.0", "target_fpr must be a number in (0, 1), got 1.0"),
        (", 'a'", "target_fpr must be a number in (0, 1), got text 'a'")],
    "sens_at_spec": [(", 0", "target_spec must be a number in (0, 1), got 0"),
        (", NULL", "target_spec must be a number in (0, 1), got NULL")],
    "confusion": [(", 'a'", "threshold must be a number, got text 'a'")],
    "precision_at_prior": [(", 0.5, 0", "prior must be a number in (0, 1), got 0"),
        (", 0.5, 1", "prior must be a number in (0, 1), got 1"),
        (", 0.5, 'x'", "prior must be a number in (0, 1), got text 'x'"),
        (", 0.5, NULL", "prior must be a number in (0, 1), got NULL"),
        (", 'a', 0.1", "threshold must be a number, got text 'a'")],
    "partial_auroc": [(", 0", "max_fpr must be a number in (0, 1], got 0"),
        (", 1.5", "max_fpr must be a number in (0, 1], got 1.5"),
        (", 'a'", "max_fpr must be a number in (0, 1], got text 'a'"),
        (", NULL", "max_fpr must be a number in (0, 1], got NULL")],
    "operating_point": [(", 'f1', 0.1", "criterion must be one of 'fpr', 'specificity', 'sensitivity', 'precision', 'max_f1', 'youden', got text 'f1'"),
        (", NULL, 0.1", "criterion must be one of 'fpr', 'specificity', 'sensitivity', 'precision', 'max_f1', 'youden', got NULL"),
        (", 0.1, 0.1", "criterion must be one of 'fpr', 'specificity', 'sensitivity', 'precision', 'max_f1', 'youden', got 0.1"),
        (", 'fpr', 1.0", "target must be a number in (0, 1), got 1.0"),
        (", 'specificity', 0", "target must be a number in (0, 1), got 0"),
        (", 'precision', 'x'", "target must be a number in (0, 1), got text 'x'"),
        (", 'sensitivity', NULL", "target must be a number in (0, 1), got NULL"),
        (", 'fpr'", "criterion 'fpr' needs a target in (0, 1)"),
        (", 'SENSITIVITY'", "criterion 'sensitivity' needs a target in (0, 1)"),
        (", 'youden', 0.5", "criterion 'youden' takes no target, got 0.5"),
        (", 'max_f1', NULL", "criterion 'max_f1' takes no target, got NULL")],
    "mcc": [(", 'a'", "threshold must be a number, got text 'a'"),
        (", NULL", "threshold must be a number, got NULL")],
    "f_beta": [(", 0.5, 0", "beta must be a number in (0, Inf), got 0"),
        (", 0.5, -1", "beta must be a number in (0, Inf), got -1"),
        (", 0.5, 1e999", "beta must be a number in (0, Inf), got Inf"),
        (", 0.5, 'x'", "beta must be a number in (0, Inf), got text 'x'"),
        (", 'a', 2", "threshold must be a number, got text 'a'")],
    "confusion_ci": [(", 0.5, 1", "level must be a number in (0, 1), got 1"),
        (", 0.5, 0", "level must be a number in (0, 1), got 0"),
        (", 0.5, NULL", "level must be a number in (0, 1), got NULL"),
        (", 0.5, 0.9, 'exact'", "method must be one of 'wilson', 'clopper-pearson', got text 'exact'"),
        (", 0.5, 0.9, 0", "method must be one of 'wilson', 'clopper-pearson', got 0"),
        (", x'00'", "threshold must be a number, got a blob")],
    "net_benefit": [(", 0", "pt must be a number in (0, 1), got 0"),
        (", 1", "pt must be a number in (0, 1), got 1"),
        (", NULL", "pt must be a number in (0, 1), got NULL")],
    "precision_at_k": [(", 0", "k must be an integer in 1..9223372036854775807, got 0"),
        (", 2.5", "k must be an integer in 1..9223372036854775807, got 2.5"),
        (", 'a'", "k must be an integer in 1..9223372036854775807, got text 'a'")],
    "recall_at_k": [(", -1", "k must be an integer in 1..9223372036854775807, got -1"),
        (", NULL", "k must be an integer in 1..9223372036854775807, got NULL")],
    "gains": [(", 0", "bins must be an integer in 1..100000, got 0"),
        (", 1.5", "bins must be an integer in 1..100000, got 1.5")],
    "decision_curve": [(", 0", "from must be a number in (0, 1), got 0"),
        (", 0.1, 1", "to must be a number in (0, 1), got 1"),
        (", 0.1, 0.9, 0", "by must be a number in (0, Inf), got 0"),
        (", 0.1, 0.9, 'x'", "by must be a number in (0, Inf), got text 'x'"),
        (", 0.6, 0.5", "from must be at most to, got from = 0.6 and to = 0.5"),
        (", 0.995", "from must be at most to, got from = 0.995 and to = 0.99"),
        (", 0.01, 0.99, 1e-5", "from, to and by give more than 10000 thresholds, got from = 0.01, to = 0.99, by = 1e-05")],
    "log_loss": [(", 0.7", "eps must be a number in (0, 0.5), got 0.7")],
    "ece": [(", 0", "bins must be an integer in 1..100000, got 0")],
    "mce": [(", 0", "bins must be an integer in 1..100000, got 0")],
    "reliability": [(", 2.5", "bins must be an integer in 1..100000, got 2.5"),
        (", 10, 'bogus'", "strategy must be one of 'uniform', 'quantile', got text 'bogus'"),
        (", 10, NULL", "strategy must be one of 'uniform', 'quantile', got NULL"),
        (", 10, 1", "strategy must be one of 'uniform', 'quantile', got 1"),
        (", 0, 'quantile'", "bins must be an integer in 1..100000, got 0")],
    "ece_equal_mass": [(", 'x'", "bins must be an integer in 1..100000, got text 'x'")],
    "ece_l2": [(", 0.5", "bins must be an integer in 1..100000, got 0.5")],
    "brier_decomposition": [(", NULL", "bins must be an integer in 1..100000, got NULL")],
    "ece_l2_debiased": [(", 100001", "bins must be an integer in 1..100000, got 100001")],
    "ece_l2_kumar": [(", -1", "bins must be an integer in 1..100000, got -1")],
    "strat_pr_auc": [(", 0.8, 0.2", "ql must be less than qh, got ql = 0.8 and qh = 0.2"),
        (", -0.5, 0.5", "ql must be a number in [0, 1), got -0.5")],
    "strat_gap": [(", 0.2, 1.2", "qh must be a number in (0, 1], got 1.2")],
    "strat_report": [(", 0.25, 0.75, 'x'", "gap_threshold must be a number, got text 'x'")],
    "pr_auc_ci": [LEVEL,
        REPS,
        SEED],
    "nap_ci": [LEVEL,
        REPS,
        SEED],
    "brier_ci": [LEVEL,
        REPS,
        SEED],
    "log_loss_ci": [LEVEL,
        REPS,
        SEED],
    "ece_ci": [(", 0", "bins must be an integer in 1..100000, got 0"),
        (", 10, 0", "level must be a number in (0, 1), got 0"),
        (", 10, 0.9, 1000001", "reps must be an integer in 10..1000000, got 1000001"),
        (", 10, 0.9, 20, 0.5", "seed must be an integer in 0..9223372036854775807, got 0.5")],
    "strat_gap_ci": [(", 0.8, 0.2", "ql must be less than qh, got ql = 0.8 and qh = 0.2"),
        (", 0.25, 0.75, 1.5", "level must be a number in (0, 1), got 1.5"),
        (", 0.25", "expects (y, s, strat [, ql, qh [, level, reps, seed]]), got 4 arguments"),
        (", 0.25, 0.75, 0.9, 20, 'x'", "seed must be an integer in 0..9223372036854775807, got text 'x'")],
    "auroc_ci": [LEVEL,
        (", NULL", "level must be a number in (0, 1), got NULL")],
    "pr_auc_delta_ci": [LEVEL,
        (", 0", "level must be a number in (0, 1), got 0"),
        (", 0.9, 20", "expects (y, s [, level]), got 4 arguments")],
    "pr_auc_diff_delta": [LEVEL,
        (", 0.9, 20", "expects (y, s_a, s_b [, level]), got 5 arguments")],
    "auroc_diff": [LEVEL,
        (", 'a'", "level must be a number in (0, 1), got text 'a'")],
    "pr_auc_diff_ci": [LEVEL,
        REPS,
        SEED],
    "tpr_at_fpr_ci": [(", 1.0", "target_fpr must be a number in (0, 1), got 1.0"),
        (", NULL", "target_fpr must be a number in (0, 1), got NULL"),
        (", 0.1, 1.0", "level must be a number in (0, 1), got 1.0"),
        (", 0.1, 0.9, 9", "reps must be an integer in 10..1000000, got 9"),
        (", 0.1, 0.9, 20, -1", "seed must be an integer in 0..9223372036854775807, got -1"),
        (", 0.1, 0.9, 20, 1, 2", "expects (y, s, target_fpr [, level, reps, seed]), got 7 arguments")],
    "sens_at_spec_ci": [(", 0", "target_spec must be a number in (0, 1), got 0"),
        (", 'a'", "target_spec must be a number in (0, 1), got text 'a'"),
        (", 0.9, 0", "level must be a number in (0, 1), got 0"),
        (", 0.9, 0.9, 1000001", "reps must be an integer in 10..1000000, got 1000001"),
        (", 0.9, 0.9, 20, 0.5", "seed must be an integer in 0..9223372036854775807, got 0.5")],
    "decision_curve_ci": [(", 0.1", "expects (y, p [, from, to, by [, level, reps, seed]]), got 3 arguments"),
        (", 0.1, 0.5, 0", "by must be a number in (0, Inf), got 0"),
        (", 0.1, 0.5, 0.1, 1.0", "level must be a number in (0, 1), got 1.0"),
        (", 0.1, 0.5, 0.1, 0.9, 9", "reps must be an integer in 10..1000000, got 9")],
    "net_benefit_ci": [(", 1", "pt must be a number in (0, 1), got 1"),
        (", 0.2, 1.0", "level must be a number in (0, 1), got 1.0"),
        (", 0.2, 0.9, 9", "reps must be an integer in 10..1000000, got 9"),
        (", 0.2, 0.9, 20, -1", "seed must be an integer in 0..9223372036854775807, got -1")],
    "net_benefit_diff_ci": [(", 0", "pt must be a number in (0, 1), got 0"),
        (", 0.2, 1.5", "level must be a number in (0, 1), got 1.5"),
        (", 0.2, 0.9, 9", "reps must be an integer in 10..1000000, got 9"),
        (", 0.2, 0.9, 20, 'x'", "seed must be an integer in 0..9223372036854775807, got text 'x'")],
    "ece_diff_ci": [(", 100001", "bins must be an integer in 1..100000, got 100001"),
        (", 10, 1", "level must be a number in (0, 1), got 1")],
    "mean_ci": [LEVEL],
    "auroc_test": [(", 2", "g must be 0 or 1, got 2"),
        (", 0.5", "g must be 0 or 1, got 0.5"),
        (", 'a'", "g must be 0 or 1, got text 'a'"),
        (", x'01'", "g must be 0 or 1, got a blob")],
}
# The shape of a function's data arguments, from their roles (mleval_functions()'s "data"):
#   score = (y, s), prob = (y, p), strat = (y, s, z), ord = (y, s1, s2), ge = (y, s, k),
#   pair = (y, s_a, s_b), ppair = (y, p_a, p_b), mean = (x), wmean = (x, w): ml_state_dist_w,
#   a label-free weighted state (weight 1 in the mean checks, then its bad weights)
#   wscore = (y, s, w), wprob = (y, p, w): the weighted twins (weight 1 here;
#   their bad weights are tests/test_weights.py's); wstrat = (y, s, w, z);
#   wpair = (y, s_a, s_b, w), wppair = (y, p_a, p_b, w): the paired bootstrap's twins
#   gx = (g, x): the monitoring family's period g (0/1, the label rules) and
#   value x (a number); a BLOB g is its two-state form's st_ref; wgx = (g, x, w);
#   pone = (p): a probability alone (expected_auroc: performance without labels)
#   group = (y, s, group), wgroup = (y, s, w, group): group_disparity's group,
#   an integer or text
#   mcs = (y, s_0, ..., s_k-1), mcp = (y, p_0, ..., p_k-1): the multiclass family, called
#   here with k = 2 (p_1 = 1 - p_0, so that a row's probabilities sum to 1); wmcs, wmcp:
#   their twins (y, ..., w), the weight right after the scores (round 5)
#   long = (id, y, class, p), wlong = (id, y, class, p, w): the multiclass family over long
#   rows (one per (id, class)): check_long
#   te = the survival family's (time, event [, risk | p | horizon, p] [, w]): check_surv;
#   ipcw = ipcw(curve, time, event, t), a scalar: check_ipcw
SHAPES = {("y", "s"): "score", ("y", "p"): "prob", ("y", "s", "strat"): "strat",
          ("y", "s", "w"): "wscore", ("y", "p", "w"): "wprob", ("y", "s", "w", "strat"): "wstrat",
          ("y", "s_1", "...", "s_m"): "ord", ("y", "s_a", "s_b"): "pair", ("y", "p_a", "p_b"): "ppair",
          ("y", "s_a", "s_b", "w"): "wpair", ("y", "p_a", "p_b", "w"): "wppair",
          ("y", "s_0", "...", "s_k-1"): "mcs", ("y", "p_0", "...", "p_k-1"): "mcp",
          ("y", "s_0", "...", "s_k-1", "w"): "wmcs", ("y", "p_0", "...", "p_k-1", "w"): "wmcp",
          ("x",): "mean", ("x", "w"): "wmean", ("state",): "state", (): "scalar",
          ("g", "x"): "gx", ("g", "x", "w"): "wgx", ("p",): "pone",
          ("y", "s", "group"): "group", ("y", "s", "w", "group"): "wgroup",
          ("time", "event"): "te", ("time", "event", "w"): "te",
          ("time", "event", "risk"): "te", ("time", "event", "risk", "w"): "te",
          ("time", "event", "p"): "te", ("time", "event", "p", "w"): "te",
          ("time", "event", "horizon", "p"): "te", ("time", "event", "horizon", "p", "w"): "te",
          ("time", "event", "risk_a", "risk_b"): "te", ("time", "event", "risk_a", "risk_b", "w"): "te",
          ("curve", "time", "event"): "ipcw",
          ("id", "y", "class", "p"): "long", ("id", "y", "class", "p", "w"): "wlong"}
MC_SHAPES = ("mcs", "mcp", "wmcs", "wmcp")
PROB_SHAPES = ("prob", "ppair", "wprob", "wppair", "mcp", "wmcp")
TWIN_SHAPES = ("wscore", "wprob", "wstrat", "wpair", "wppair", "wmcs", "wmcp", "wgx", "wgroup")


def fmt(v):
    """A number as ml_num shows it: integral values without '.0', Inf."""
    if v in (float("inf"), float("-inf")):
        return "Inf" if v > 0 else "-Inf"
    if isinstance(v, int) or (v == int(v) and abs(v) < 1e15):
        return str(int(v))
    return repr(v)


def spec_what(ps):
    """What a parameter must be, as the error text says it."""
    if ps["type"] == "real":
        lo, hi = ps["min"], ps["max"]
        if lo is None and hi is None:
            return "a number"
        return "a number in %s%s, %s%s" % ("(" if ps["min_open"] or lo is None else "[",
                                           fmt(lo) if lo is not None else "-Inf",
                                           fmt(hi) if hi is not None else "Inf", ")" if ps["max_open"] or hi is None else "]")
    if ps["type"] == "integer":
        return "an integer in %d..%d" % (ps["min"], ps["max"])
    if ps["type"] == "choice":
        return "one of " + ", ".join("'%s'" % c for c in ps["choices"])
    return None


_READER = sqlite3.connect(":memory:")


def sql_real(lit):
    """The value SQLite reads from a numeric literal (its text-to-double is not
    always the nearest double)."""
    return _READER.execute("SELECT " + lit).fetchone()[0]


def spec_bad(ps):
    """Values outside a parameter's spec: [(SQL text, as the message shows it)]."""
    bad = [("NULL", "NULL")]
    if ps["type"] in ("real", "integer"):
        bad.append(("'x'", "text 'x'"))
    if ps["type"] == "real":
        if ps["min"] is not None:
            v = ps["min"] if ps["min_open"] else ps["min"] - 0.5
            bad.append((fmt(v), fmt(v)))
        if ps["max"] is not None:
            v = ps["max"] if ps["max_open"] else ps["max"] + 0.5
            bad.append((fmt(v), fmt(v)))
    elif ps["type"] == "integer":
        bad.append((str(ps["min"] - 1), str(ps["min"] - 1)))
        bad.append((fmt(ps["min"] + 0.5), fmt(ps["min"] + 0.5)))
        if ps["max"] < 2**53:
            bad.append((str(ps["max"] + 1), str(ps["max"] + 1)))
        # beyond int64 the literal is a REAL: 2^63 (which (double)INT64_MAX rounds
        # to, issue 39), -2^63 - 1025, and far out; shown as ml_num prints the
        # double SQLite's own reading makes of the literal
        for lit in ("9223372036854775808", "-9223372036854776833", "1e300"):
            bad.append((lit, repr(sql_real(lit))))
    elif ps["type"] == "choice":
        bad += [("'bogus'", "text 'bogus'"), ("1", "1")]
    return bad


def spec_other(ps):
    """A second valid value of a parameter, beside its example: (SQL text, as messages show it)."""
    ex = ps["example"]
    if ps["type"] == "choice":
        w = next(c for c in ps["choices"] if "'%s'" % c != ex)
        return "'%s'" % w, "'%s'" % w
    if ps["type"] == "integer":
        return str(int(ex) + 1), str(int(ex) + 1)
    v = float(ex)
    v2 = v + 1 if ps["max"] is None else round(v + (ps["max"] - v) / 2, 6)
    return fmt(v2), fmt(v2)


def functions(con):
    """{name: (shape, extra params as SQL text, [(bad params, message tail)], varying (name, a, b) or None)},
    from the extension's records."""
    out = {}
    for f in json.loads(con.execute("SELECT mleval_functions()").fetchone()[0]):
        name, params = f["name"], f["params"]
        if f["family"] == "plot":
            out[name] = ("plot", "", [], None)
            continue
        data = tuple(f["data"])
        if data == ("y", "s", "g"):          # auroc_test: the group g rides where a parameter would
            out[name] = ("score", ", 1", SPECIAL_BAD.get(name, []), None)
            continue
        if data in SHAPES and SHAPES[data] == "te":   # the survival family: its own checks (check_surv)
            out[name] = ("te", (data, [p["example"] for p in params]), params, None)
            continue
        if data in SHAPES and SHAPES[data] in ("long", "wlong"):   # the long layout: check_long
            out[name] = (SHAPES[data], "".join(", " + p["example"] for p in params), params, None)
            continue
        if data not in SHAPES:
            raise ValueError("%s: data arguments %r have a role test_bad_inputs.py does not know" % (name, data))
        shape = SHAPES[data]
        if f["family"] == "ordinal" and shape == "score":
            shape = "ge"                     # auprc_ge(y, s, k): y is any non-negative integer
        examples = [ps["example"] for ps in params]
        extra = "".join(", " + e for e in examples)
        bad = list(SPECIAL_BAD.get(name, []))
        for i, ps in enumerate(params):
            what = spec_what(ps)
            if what is None:
                continue
            for sqlv, shown in spec_bad(ps):
                args = examples[:i] + [sqlv] + examples[i + 1:]
                bad.append(("".join(", " + a for a in args), "%s must be %s, got %s" % (ps["name"], what, shown)))
        varying = None
        if params and spec_what(params[0]) is not None:
            other, shown = spec_other(params[0])
            varying = (params[0]["name"], examples[0], other,
                       fmt(float(examples[0])) if params[0]["type"] != "choice" else examples[0], shown)
        if shape in MC_SHAPES:        # the wide form takes the defaults (the JSON form, its parameters)
            extra = ""
        out[name] = (shape, extra, bad, varying)
    return out


_TABLE = None


def table():
    """functions() of a connection of our own, computed once: for the tests that share the matrix's shapes."""
    global _TABLE
    if _TABLE is None:
        _TABLE = functions(mltest.connect())
    return _TABLE


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
        ("plot_reliability('a', '[{\"lo\":0,\"hi\":0.5,\"n\":-1.5,\"mean_p\":0.2,\"frac_pos\":0}]')",
         REL + "a bin 0 with lo 0, hi 0.5, n -1.5, mean_p 0.2, frac_pos 0"),
        ("plot_reliability('a', '[]', x'01')", "plot_reliability(): title must be text, got a blob"),
    ],
    "plot_bars": [
        ("plot_bars('c', 's', 'x')", "plot_bars(): value must be a number, got text 'x'"),
        ("plot_bars('c', 's', x'00')", "plot_bars(): value must be a number, got a blob"),
        ("plot_bars('c', 's', 1e999)", "plot_bars(): value must be a finite number, got Inf"),
        ("plot_bars('c', 's', 1, 't', 5)", "plot_bars(): unit must be text, got 5"),
    ],
    "plot_lines": [
        ("plot_lines('s', x'01', 1)", "plot_lines(): x must be a number, got a blob"),
        ("plot_lines('s', 1, x'00')", "plot_lines(): y must be a number, got a blob"),
        ("plot_lines('s', 1, -1e999)", "plot_lines(): y must be a finite number, got -Inf"),
        ("plot_lines('s', 1, 2, 0.5)", "plot_lines(): title must be text, got 0.5"),
        ("plot_lines('s', 1, 2, 't', 7)", "plot_lines(): xlabel must be text, got 7"),
        ("plot_lines('s', 1, 2, 't', 'x', x'00')", "plot_lines(): ylabel must be text, got a blob"),
    ],
}
KMC = "plot_km(): curve must be km() JSON, got "
PLOT_BAD["plot_km"] = [
    ("plot_km('a', 2)", KMC + "2"),
    ("plot_km('a', '{\"time\":[1,2]}')", KMC + "'{\"time\":[1,2]}': no \"n_risk\" field"),
    ("plot_km('a', '{\"time\":[2,1],\"n_risk\":[2,1],\"n_censor\":[0,0],\"surv\":[0.5,0]}')",
     KMC + "'{\"time\":[2,1],\"n_risk\":[2,1],\"n_censor\":': not a Kaplan-Meier curve at element 1"),
    ("plot_km('a', '{\"time\":[1],\"n_risk\":[1],\"n_censor\":[0],\"surv\":[0]}', 4)",
     "plot_km(): title must be text, got 4"),
]
PLOT_NULL = {
    "plot_km": "plot_km(y, s)",
    "plot_curves": "plot_curves(y, s)",
    "plot_reliability": "plot_reliability(y, s)",
    "plot_bars": "plot_bars(y, y, s)",
    "plot_lines": "plot_lines(y, y, s)",
}
ONE_CLASS_DEFINED = {"confusion", "f_beta", "confusion_ci", "net_benefit", "precision_at_k", "recall_at_k", "gains",
                     "decision_curve", "brier", "log_loss", "ece", "mce", "reliability", "ece_equal_mass", "ece_l2",
                     "ece_l2_debiased", "brier_decomposition", "ece_l2_kumar", "calibration_summary", "calibration_smooth",
                     "brier_ci", "log_loss_ci", "ece_ci", "ece_diff_ci", "net_benefit_ci", "net_benefit_diff_ci", "decision_curve_ci",
                     "ml_state", "ml_state_ordinal", "mc_log_loss", "mc_brier", "mc_confusion", "mc_top_k",
                     "ordinal_rps", "mc_calibration", "group_disparity", "expected_confusion", "ml_state_mc"}
NOT_A_STATE = "state: the blob is not an mleval state (no MLST header; make one with ml_state())"

# Text parameters that must agree across rows, and the rules between two
# parameters, which the generic columns above cannot express.
TWO_ROWS = "FROM (SELECT 0 AS y, 0.5 AS s UNION ALL SELECT 1, 0.6)"
EXTRA_ERRORS = [
    ("SELECT pr_auc(st) FROM (SELECT ml_state_ordinal(1, 0.5, 0.5) AS st)",
     "pr_auc(): expects a state made by ml_state(y, s), ml_state(y, s, strat) or ml_state_w(y, s, w), got an ordinal (m = 2) state"),
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
    ("SELECT auroc_test(1, 2)", "auroc_test(): st_a must be a state made by ml_state(y, s) or ml_state(y, s, strat), got 1"),
    ("SELECT auroc_test(ml_state(y, s), 0.5) " + TWO_ROWS,
     "auroc_test(): st_b must be a state made by ml_state(y, s) or ml_state(y, s, strat), got 0.5"),
    ("SELECT auroc_test(x'01', NULL)", "auroc_test(): st_a: " + NOT_A_STATE.split(": ", 1)[1]),
    ("SELECT auroc_test(y, s) " + TWO_ROWS, "auroc_test(): st_a must be a state made by ml_state(y, s) or ml_state(y, s, strat), got 0"),
    ("SELECT auroc_test(y, s, 1, 1) " + TWO_ROWS, "auroc_test(): expects (y, s, g | st_a, st_b), got 4 arguments"),
]


def call(name, shape, y, x, extra):
    if shape in ("score", "prob", "gx"):
        return "%s(%s, %s%s)" % (name, y, x, extra)
    if shape in ("wscore", "wprob", "wgx"):
        return "%s(%s, %s, 1%s)" % (name, y, x, extra)
    if shape == "strat":
        return "%s(%s, %s, 3%s)" % (name, y, x, extra)
    if shape == "group":
        return "%s(%s, %s, 'a'%s)" % (name, y, x, extra)
    if shape == "wgroup":
        return "%s(%s, %s, 1, 'a'%s)" % (name, y, x, extra)
    if shape == "wstrat":
        return "%s(%s, %s, 1, 3%s)" % (name, y, x, extra)
    if shape == "ord":
        return "%s(%s, %s, %s)" % (name, y, x, x)
    if shape == "ge":
        return "%s(%s, %s%s)" % (name, y, x, extra)
    if shape in ("pair", "ppair"):
        return "%s(%s, %s, %s%s)" % (name, y, x, x, extra)
    if shape in ("wpair", "wppair"):
        return "%s(%s, %s, %s, 1%s)" % (name, y, x, x, extra)
    if shape == "te":             # survival: extra is (data roles, parameter examples); time = |x|
        roles = {"time": "abs(%s)" % x, "event": y, "risk": x, "p": x, "horizon": "5", "w": "1", "risk_a": x,
                 "risk_b": "-%s" % x}
        return "%s(%s)" % (name, ", ".join([roles[r] for r in extra[0]] + list(extra[1])))
    if shape in ("long", "wlong"):   # one id's two rows when y is the class (0, 1) and x its p
        return "%s(1, 0, %s, %s%s%s)" % (name, y, x, ", 1" if shape == "wlong" else "", extra)
    if shape in MC_SHAPES:
        if extra:                 # parameters exist only in the JSON form, after the array (and w)
            return "%s(%s, '[0.25, 0.75]'%s%s)" % (name, y, ", 1" if shape[0] == "w" else "", extra)
        return "%s(%s, %s, %s%s)" % (name, y, x, "1 - %s" % x if shape.endswith("p") else x,
                                     ", 1" if shape[0] == "w" else "")
    raise ValueError(shape)


def check_mean(ck, con, name, extra, badparams, varying, after_error, prob=False, states=False):
    """mean_ci(x [, level]): one data argument, no label; prob: expected_auroc(p), a probability;
    states: the function takes a state BLOB in place of its data argument (a blob there is a state)."""
    bad = [("'x'", "text 'x'")] + ([] if states else [("x'00'", "a blob")]) + (
        [("1.5", "1.5"), ("-0.1", "-0.1")] if prob else [])
    if states:
        ck.error(con, "SELECT %s(x'00'%s)" % (name, extra), (), "%s(): %s" % (name, NOT_A_STATE), name + " blob: a state")
        after_error(name + " bad state")
    for sqlv, shown in bad:
        ck.error(con, "SELECT %s(%s%s)" % (name, sqlv, extra), (), "%s(): %s must be %s, got %s" % (
            name, "p" if prob else "x", "a probability in [0, 1]" if prob else "a number", shown))
        after_error(name + " bad x")
    for p, tail in badparams:
        ck.error(con, "SELECT %s(0.5%s)" % (name, p), (), "%s(): %s" % (name, tail), name + " bad param")
        after_error(name + " bad param")
    if varying:
        pname, a, b, ashown, bshown = varying
        ck.error(con, "SELECT %s(x, CASE WHEN x = 0 THEN %s ELSE %s END) FROM (SELECT 0 AS x UNION ALL SELECT 1)"
                 % (name, a, b), (), "%s(): %s must be the same in every row of a group, got %s and then %s"
                 % (name, pname, ashown, bshown))
        after_error(name + " varying param")
    ck.equal(con.execute("SELECT %s(x%s) FROM (SELECT NULL AS x UNION ALL SELECT NULL)" % (name, extra)).fetchone(),
             (None,), name + " NULL rows only: NULL")
    ck.equal(con.execute("SELECT %s(x%s) FROM (SELECT 1 AS x) WHERE 0" % (name, extra)).fetchone(),
             (None,), name + " empty group: NULL")


SURV_DATA = {"time": "3", "event": "1", "risk": "0.5", "p": "0.5", "horizon": "5", "w": "1", "risk_a": "0.5",
             "risk_b": "0.2"}


def check_surv(ck, con, name, data, examples, params, after_error, takes_states=(), twin_state=None):
    """The survival family (time, event [, risk | p | horizon, p] [, w], params): each data
    argument's bad values with their messages, each parameter's from its spec, a parameter
    that varies, NULL rows, the empty group."""
    def call(over, pars=None):
        args = [over.get(a, SURV_DATA[a]) for a in data] + list(examples if pars is None else pars)
        return "%s(%s)" % (name, ", ".join(args))
    bad = {"time": [("-1", "-1"), ("1e999", "Inf"), ("'x'", "text 'x'"), ("x'00'", "a blob")],
           "event": [("2", "2"), ("0.5", "0.5"), ("'a'", "text 'a'"), ("x'01'", "a blob")],
           "risk": [("'x'", "text 'x'"), ("x'00'", "a blob")],
           "risk_a": [("'x'", "text 'x'"), ("x'00'", "a blob")],
           "risk_b": [("'x'", "text 'x'"), ("x'00'", "a blob")],
           "p": [("1.5", "1.5"), ("-0.1", "-0.1"), ("'x'", "text 'x'"), ("x'00'", "a blob")],
           "horizon": [("0", "0"), ("-2", "-2"), ("1e999", "Inf"), ("'x'", "text 'x'")],
           "w": [("-2", "-2"), ("'x'", "text 'x'"), ("1e999", "Inf")]}
    what = {"time": "a non-negative finite number", "event": "0 or 1", "risk": "a number", "risk_a": "a number",
            "risk_b": "a number",
            "p": "a probability in [0, 1]", "horizon": "a positive finite number",
            "w": "a non-negative finite number"}
    for a in data:
        for sqlv, shown in bad[a]:
            msg = "%s(): %s must be %s, got %s" % (name, a, what[a], shown)
            if sqlv.startswith("x'") and a == "time" and name in takes_states:   # a BLOB first argument is a state
                msg = "%s(): %s" % (name, NOT_A_STATE)
            elif sqlv.startswith("x'") and a in ("time", "event") and twin_state and name in twin_state:
                msg = twin_state[name]
            ck.error(con, "SELECT " + call({a: sqlv}), (), msg, name + " bad " + a)
            after_error(name + " bad " + a)
    for i, ps in enumerate(params):
        w = spec_what(ps)
        for sqlv, shown in spec_bad(ps):
            pars = examples[:i] + [sqlv] + examples[i + 1:]
            ck.error(con, "SELECT " + call({}, pars), (), "%s(): %s must be %s, got %s" % (name, ps["name"], w, shown),
                     name + " bad " + ps["name"])
            after_error(name + " bad param")
    if params:
        other, shown = spec_other(params[0])
        pars = ["CASE WHEN time = 3 THEN %s ELSE %s END" % (examples[0], other)] + examples[1:]
        ck.error(con, "SELECT %s FROM (SELECT 3 AS time UNION ALL SELECT 4)" % call({"time": "time"}, pars), (),
                 "%s(): %s must be the same in every row of a group, got %s and then %s" % (
                     name, params[0]["name"], fmt(float(examples[0])), shown), name + " varying param")
        after_error(name + " varying param")
    nulls = "SELECT %s FROM (SELECT NULL AS time, 1 AS event UNION ALL SELECT 2, NULL)" % call(
        {"time": "time", "event": "event"})
    ck.equal(con.execute(nulls).fetchone(), (None,), name + " NULL rows only: NULL")
    ck.equal(con.execute("SELECT %s FROM (SELECT 1 AS time) WHERE 0" % call({"time": "time"})).fetchone(),
             (None,), name + " empty group: NULL")


def check_long(ck, con, name, shape, extra, params, after_error):
    """The long layout NAME_long(id, y, class, p [, w] [, params]): each data
    argument's bad values with their messages (the weight's are
    tests/test_mc_long.py's), each parameter's from its spec, NULL rows, the
    empty group, and one id of classes 0 and 1 (its y the only class: the
    wide form's result)."""
    prob = any(name.startswith(f) for f in ("mc_log_loss", "mc_brier", "ordinal_rps", "mc_calibration"))
    w = ", 1" if shape == "wlong" else ""

    def call(i, y, c, p, ex=extra):
        return "%s(%s, %s, %s, %s%s%s)" % (name, i, y, c, p, w, ex)
    bad = [("y", [("16", "16"), ("0.5", "0.5"), ("'a'", "text 'a'"), ("x'01'", "a blob")], "an integer in 0..15"),
           ("class", [("16", "16"), ("-1", "-1"), ("'a'", "text 'a'"), ("x'01'", "a blob")], "an integer in 0..15"),
           ("p", [("'x'", "text 'x'"), ("x'00'", "a blob")] + ([("1.5", "1.5"), ("-0.1", "-0.1")] if prob else []),
            "a probability in [0, 1]" if prob else "a number")]
    for arg, values, what in bad:
        for sqlv, shown in values:
            a = {"y": "0", "class": "0", "p": "0.5"}
            a[arg] = sqlv
            ck.error(con, "SELECT " + call("1", a["y"], a["class"], a["p"]), (),
                     "%s(): %s must be %s, got %s" % (name, arg, what, shown), name + " bad " + arg)
            after_error(name + " bad " + arg)
    examples = [p["example"] for p in params]
    for i, ps in enumerate(params):
        wh = spec_what(ps)
        for sqlv, shown in spec_bad(ps):
            ex = "".join(", " + e for e in examples[:i] + [sqlv] + examples[i + 1:])
            ck.error(con, "SELECT " + call("1", "0", "0", "0.5", ex), (),
                     "%s(): %s must be %s, got %s" % (name, ps["name"], wh, shown), name + " bad " + ps["name"])
            after_error(name + " bad param")
    two = "FROM (SELECT 0 AS c, 0.25 AS p UNION ALL SELECT 1, 0.75)"
    ck.equal(con.execute("SELECT %s FROM (SELECT NULL AS i, 0 AS c UNION ALL SELECT 1, NULL)"
                         % call("i", "0", "c", "0.5")).fetchone(), (None,), name + " NULL rows only: NULL")
    ck.equal(con.execute("SELECT %s %s WHERE 0" % (call("1", "0", "c", "p"), two)).fetchone(), (None,),
             name + " empty group: NULL")
    one = con.execute("SELECT %s %s" % (call("'a'", "0", "c", "p"), two)).fetchone()[0]
    base = name.replace("_long", "").replace("_w", "")
    wide = con.execute("SELECT %s%s(0, '[0.25, 0.75]'%s%s)" % (base, "_w" if w else "", w, extra)).fetchone()[0]
    ck.equal(one, wide, name + " one id: the JSON form's result")


def check_ipcw(ck, con, after_error):
    """ipcw(curve, time, event, t): a scalar over censoring_km()'s JSON."""
    g = "'{\"time\":[1,2],\"surv\":[0.5,0.25]}'"
    for sql, msg in [("ipcw(%s, -1, 1, 2)" % g, "time must be a non-negative finite number, got -1"),
                     ("ipcw(%s, 1, 2, 2)" % g, "event must be 0 or 1, got 2"),
                     ("ipcw(%s, 1, 1, 0)" % g, "t must be a number in (0, Inf), got 0"),
                     ("ipcw(%s, 1, 1, NULL)" % g, "t must be a number in (0, Inf), got NULL"),
                     ("ipcw(3, 1, 1, 2)", "curve must be the JSON of censoring_km(), got 3"),
                     ("ipcw('[1]', 1, 1, 2)", "curve must be the JSON of censoring_km(), got text "
                                              "(expected an object at byte 0)")]:
        ck.error(con, "SELECT " + sql, (), "ipcw(): " + msg, "ipcw bad input")
        after_error("ipcw bad input")
    ck.equal(con.execute("SELECT ipcw(%s, 1.5, 1, 2), ipcw(%s, 3, 0, 2), ipcw(%s, 2, 0, 2), ipcw(NULL, 1, 1, 2), "
                         "ipcw(%s, NULL, 1, 2)" % (g, g, g, g)).fetchone(), (2.0, 4.0, 0.0, None, None), "ipcw values")


def registered():
    """Names the extension adds to a connection (pragma function_list)."""
    plain = sqlite3.connect(":memory:")
    base = {r[0] for r in plain.execute("SELECT name FROM pragma_function_list")}
    con = mltest.connect()
    return {r[0] for r in con.execute("SELECT name FROM pragma_function_list")} - base


def main():
    ck = mltest.Checker("bad inputs")
    got = registered()
    con = mltest.connect()
    FUNCS = functions(con)
    ck.equal(sorted(got), sorted(FUNCS), "the records list exactly the registered functions")
    ck.true(set(SPECIAL_BAD) <= set(FUNCS), "SPECIAL_BAD names only registered functions")
    con.execute("CREATE TABLE kept(x)")
    con.execute("INSERT INTO kept VALUES (1), (2), (3)")
    con.commit()

    def after_error(what):
        ck.equal(con.execute("SELECT count(*), sum(x) FROM kept").fetchone(), (3, 6), what + ": table intact")
        ck.equal(con.execute("SELECT pr_auc(y, s) FROM (SELECT 1 AS y, 0.9 AS s UNION ALL SELECT 0, 0.1)").fetchone(),
                 (1.0,), what + ": connection works")

    records = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    params_of = {f["name"]: [ps["name"] for ps in f["params"]] for f in records}
    takes_states = {f["name"] for f in records if f["state_args"]}
    # a state given to a weighted twin is sent to the unweighted name (issue 37),
    # which reads weighted states too unless it refuses them (the bootstrap)
    weighted_ok = {}
    for f in records:
        if not f["state_args"]:
            continue
        b = f["name"]
        params = "".join(", " + ps["example"] for ps in f["params"][:f["state_args"][1] - 1])
        maker = {"multiclass": "ml_state_mc_w(1, 0.5, 0.5, 2)",
                 "survival": "ml_state_surv_w(1, 1, 0.5, 2)"}.get(f["family"], "ml_state_w(1, 0.5, 2)")
        try:
            con.execute("SELECT %s(st%s) FROM (SELECT %s AS st)" % (b, params, maker)).fetchall()
            weighted_ok[b] = maker
        except sqlite3.Error:
            weighted_ok[b] = False

    def twin_state_msg(f):
        b = f["weighted_of"]
        what = ("a state, weighted (%s) or not," % weighted_ok[b].split("(")[0] if weighted_ok[b]
                else "a state of unweighted rows (ml_state)")
        return "%s(): takes rows, not a state: %s goes to the unweighted name: %s(state%s)" % (
            f["name"], what, b, ", ..." if f["params"] else "")
    twin_state = {f["name"]: twin_state_msg(f) for f in records if f["weighted_of"] in takes_states}
    ck.true(len(twin_state) >= 20, "the twins of state-taking functions (%d)" % len(twin_state))
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
        if shape == "te":
            check_surv(ck, con, name, extra[0], extra[1], badparams, after_error, takes_states, twin_state)
            continue
        if shape == "ipcw":
            check_ipcw(ck, con, after_error)
            continue
        if shape in ("long", "wlong"):
            check_long(ck, con, name, shape, extra, badparams, after_error)
            continue
        if shape in ("mean", "pone"):
            check_mean(ck, con, name, extra, badparams, varying, after_error, prob=shape == "pone",
                       states=name in takes_states)
            continue
        if shape == "wmean":          # (x, w): the mean checks with weight 1, then bad weights
            check_mean(ck, con, name, ", 1" + extra, badparams, varying, after_error)
            for sqlv, shown in [("-2", "-2"), ("'x'", "text 'x'"), ("1e999", "Inf"), ("x'00'", "a blob")]:
                ck.error(con, "SELECT %s(0.5, %s%s)" % (name, sqlv, extra), (),
                         "%s(): w must be a non-negative finite number, got %s" % (name, shown), name + " bad w")
                after_error(name + " bad w")
            ck.equal(con.execute("SELECT %s(x, 0%s) FROM (SELECT 1 AS x)" % (name, extra)).fetchone(),
                     (None,), name + " weight 0 only: NULL")
            continue
        label = "a probability in [0, 1]" if shape in PROB_SHAPES else "a number"
        xname = {"prob": "p", "wprob": "p", "ord": "s_1", "pair": "s_a", "ppair": "p_a",
                 "wpair": "s_a", "wppair": "p_a", "gx": "x", "wgx": "x", "mcs": "s_0", "wmcs": "s_0", "mcp": "p_0",
                 "wmcp": "p_0"}.get(shape, "s")
        yname = "g" if shape in ("gx", "wgx") else "y"
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
        ylabel = "an integer in 0..2" if shape == "ord" else ("an integer in 0..2147483647" if shape == "ge" else
                                                              "0 or 1")
        bad_y = [("2" if shape not in ("ord", "ge") else ("3" if shape == "ord" else "-1"),
                  "2" if shape not in ("ord", "ge") else ("3" if shape == "ord" else "-1")),
                 ("0.5", "0.5"), ("'a'", "text 'a'"), ("x'01'", "a blob")]
        for sqlv, shown in bad_y:
            msg = "%s(): %s must be %s, got %s" % (name, yname, ylabel, shown)
            if sqlv.startswith("x'") and shape == "gx":     # a BLOB g is the two-state form's st_ref
                msg = "%s(): st_ref: %s" % (name, NOT_A_STATE.split(": ", 1)[1])
            elif sqlv.startswith("x'") and name in takes_states:     # a BLOB first argument is a state
                msg = "%s(): %s" % (name, NOT_A_STATE)
            elif sqlv.startswith("x'") and name in twin_state:
                msg = twin_state[name]
            elif sqlv == "2" and shape in MC_SHAPES:       # a class past the scores: where k comes from
                msg += (" (k = 2: %s holds 2 numbers, so y in 0..1)" % ("probs" if shape.endswith("p") else "scores")
                        if extra else " (k = 2: 2 %s arguments, so y in 0..1)" % (
                            "probability" if shape.endswith("p") else "score"))
            ck.error(con, "SELECT " + call(name, shape, sqlv, "0.5", extra), (), msg, name + " bad label " + sqlv)
            after_error(name + " bad label")
        for sqlv, shown in [("'x'", "text 'x'"), ("x'00'", "a blob")] + ([("1.5", "1.5"), ("-0.1", "-0.1")] if shape in PROB_SHAPES else []):
            msg = "%s(): %s must be %s, got %s" % (name, xname, label, shown)
            ck.error(con, "SELECT " + call(name, shape, "1", sqlv, extra), (), msg, name + " bad score " + sqlv)
            after_error(name + " bad score")
        if shape == "strat":
            ck.error(con, "SELECT %s(1, 0.5, 'long'%s)" % (name, extra), (), "%s(): strat must be a number, got text 'long'" % name)
        if shape == "wstrat":
            ck.error(con, "SELECT %s(1, 0.5, 1, 'long'%s)" % (name, extra), (), "%s(): strat must be a number, got text 'long'" % name)
            ck.error(con, "SELECT %s(1, 0.5, -2, 3%s)" % (name, extra), (),
                     "%s(): w must be a non-negative finite number, got -2" % name)
        if shape in ("wpair", "wppair"):          # the weight after both scores
            ck.error(con, "SELECT %s(1, 0.5, 0.5, -2%s)" % (name, extra), (),
                     "%s(): w must be a non-negative finite number, got -2" % name)
            after_error(name + " bad weight")
        if shape in ("wmcs", "wmcp"):             # the weight right after the scores, in each form
            for sqlv, shown in [("-2", "-2"), ("'x'", "text 'x'"), ("1e999", "Inf")]:
                for form in ("0.5, 0.5, %s", "'[0.5, 0.5]', %s") + (("'[0.5, 0.5]', %s" + extra,) if extra else ()):
                    ck.error(con, "SELECT %s(1, %s)" % (name, form % sqlv), (),
                             "%s(): w must be a non-negative finite number, got %s" % (name, shown))
                    after_error(name + " bad weight")
        if shape in MC_SHAPES:                    # the JSON form and the rules of a row's k values
            arr = "probs" if shape.endswith("p") else "scores"
            w = ", 1" if shape[0] == "w" else ""
            for sqlv, tail in [("'[0.5, 0.5'", "text '[0.5, 0.5' (expected ',' or ']' at byte 9)"),
                               ("'[0.5]'", "text '[0.5]' (1 element)"), ("0.5", "0.5"), ("x'00'", "a blob"),
                               ("'[0.5, \"a\"]'", "text '[0.5, \"a\"]' (expected a value at byte 6)")]:
                msg = "%s(): %s must be a JSON array of 2..16 numbers, got %s" % (name, arr, tail)
                if name.startswith("mc_confusion") and not sqlv.startswith("'["):   # (y, pred): an integer class
                    msg = "%s(): pred must be an integer class in 0..15, got %s" % (name, tail)
                ck.error(con, "SELECT %s(1, %s%s)" % (name, sqlv, w), (), msg, name + " bad array")
                after_error(name + " bad array")
            ck.error(con, "SELECT %s(y, p%s) FROM (SELECT 0 y, '[0.5, 0.5]' p UNION ALL SELECT 1, '[0.2, 0.3, 0.5]')"
                     % (name, w), (), "%s(): k must be the same in every row of a group: a row with 3 scores after "
                     "rows with 2" % name, name + " k varies")
            after_error(name + " k varies")
            if arr == "probs":
                ck.error(con, "SELECT %s(1, '[0.25, 1.5]'%s)" % (name, w), (),
                         "%s(): probs[1] must be a probability in [0, 1], got 1.5" % name)
                hint = (" (parameters exist only in the JSON form: %s(y, probs%s%s))"
                        % (name, ", w" if w else "", "".join(", " + ps for ps in params_of[name])) if params_of[name] else "")
                ck.error(con, "SELECT %s(1, 0.25, 0.5%s)" % (name, w), (),
                         "%s(): the probabilities of a row must sum to 1 (within 1e-6), got 0.75 over p_0..p_k-1%s" % (name, hint))
                ck.error(con, "SELECT %s(1, '[0.25, 0.5]'%s)" % (name, w), (),
                         "%s(): the probabilities of a row must sum to 1 (within 1e-6), got 0.75 over probs" % name)
                after_error(name + " sum")
        for p, tail in badparams:
            ck.error(con, "SELECT " + call(name, shape, "1", "0.5", p), (), "%s(): %s" % (name, tail), name + " bad param")
            after_error(name + " bad param")
        if varying:
            pname, va, vb, ashown, bshown = varying
            ex = ", CASE WHEN y = 0 THEN %s ELSE %s END" % (va, vb)
            if shape not in MC_SHAPES:            # (theirs: the JSON form with the parameter alone)
                ex += extra.split(", " + va, 1)[1]
            q = "SELECT %s FROM (SELECT 0 AS y, 0.5 AS s, 0.5 AS p UNION ALL SELECT 1, 0.6, 0.6)" % call(
                name, shape, "y", "p" if shape in PROB_SHAPES else "s", ex)
            ck.error(con, q, (), "%s(): %s must be the same in every row of a group, got %s and then %s" %
                     (name, pname, ashown, bshown), name + " varying param")
            after_error(name + " varying param")
        # NULL rows are skipped: a group of NULLs is an empty group: NULL
        sql_null = "SELECT %s FROM (SELECT NULL AS y, NULL AS s UNION ALL SELECT 1, NULL UNION ALL SELECT NULL, 0.5)" % call(
            name, shape, "y", "s", extra)
        ck.equal(con.execute(sql_null).fetchone(), (None,), name + " NULL rows only: NULL")
        ck.equal(con.execute("SELECT %s FROM (SELECT 1 AS y, 0.5 AS s) WHERE 0" % call(name, shape, "y", "s", extra)).fetchone(),
                 (None,), name + " empty group: NULL")
        one = con.execute("SELECT %s FROM (SELECT 1 AS y, 0.5 AS s UNION ALL SELECT 1, 0.7)" % call(name, shape, "y", "s", extra)).fetchone()[0]
        if (name[:-2] if shape in TWIN_SHAPES else name) in ONE_CLASS_DEFINED:
            ck.true(one is not None, name + " one class is defined")
        elif name in ("strat_report", "strat_report_w"):
            ck.true(one is not None and '"trimmed":null' in one, name + " one class: trimmed null")
        elif name in ("mc_auroc", "mc_pr_auc", "mc_auroc_w", "mc_pr_auc_w"):
            ck.true(one is not None and '"per_class":[null,' in one and '"reason":"class 0 has no row' in one,
                    name + " one class: the absent class null, with the reason")
        elif name == "ordinal_report":
            ck.true(one is not None and '"ordinal_auprc":null' in one, name + " one class: means null")
        else:
            ck.equal(one, None, name + " one class: NULL")
    # a state alone, as a twin's only argument (the arity catch-all): the same message
    for name, msg in sorted(twin_state.items()):
        ck.error(con, "SELECT %s(st) FROM (SELECT ml_state(1, 0.5) AS st)" % name, (), msg, name + "(state)")
    for sql, msg in EXTRA_ERRORS:
        ck.error(con, sql, (), msg)
        after_error(sql)
    ck.finish()


if __name__ == "__main__":
    main()
