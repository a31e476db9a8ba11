# SPDX-License-Identifier: MIT
"""One weight position for every twin (issue 46 item 1): the weight comes
right after the scores -- f_w(y, s, w, ...), f_w(y, s_a, s_b, w, ...),
mc_auroc_w(y, p_0, ..., p_k-1, w), mc_auroc_w(y, probs, w [, params]),
ml_state_mc_w(y, p_0, ..., p_k-1, w), and the survival family's
f_w(time, event, risk, w, ...).

From the records (mleval_functions()), for EVERY twin of every family and
every call form its signature gives (the alternatives split by '|'):
  1. the signature's w comes right after the last score argument, nothing
     but the scores and what leads them (y, g, time, event) before it, and
     only context arguments (strat, group) and parameters after it;
  2. the form is the base function's form with w inserted there;
  3. called in that form with the weight -2, the twin says
     "NAME(): w must be a non-negative finite number, got -2": the driver
     reads the weight where the record says.
Then a differential check of the issue's case (a 5-class classifier, real
weights): the multiclass twins called as a user of auroc_w(y, s, w) writes
them equal scikit-learn's sample_weight results -- mc_auroc_w's OvR macro
about 0.91, where round 4's order read p_0 as the weight and gave 0.50.

forms() and call() are shared with tests/test_weight_scale.py, which calls
every twin in every form.
"""
import json
import re

import numpy as np
from sklearn.metrics import (accuracy_score, average_precision_score, log_loss, roc_auc_score,
                             top_k_accuracy_score)
from sklearn.preprocessing import label_binarize

import mltest

# The roles of data arguments, by the name a signature gives them.
LEAD = {"y", "g", "time", "event", "horizon", "s_a", "p_a", "risk_a", "s_0", "p_0", "...",    # before the scores' last
        "id", "class"}                                                 # the long layout's (id, y, class, p)
SCORE = {"s", "p", "x", "s_b", "p_b", "risk_b", "s_k-1", "p_k-1", "scores", "probs", "pred", "risk"}
AFTER = {"strat", "group"}                                             # context after the weight
STATE = {"st", "state", "st_ref", "st_cur", "st_a", "st_b"}


def forms(f):
    """The call forms of a record, one per '|' alternative of its signature:
    [(names, optional)] -- names the arguments before '[' (data and required
    parameters, in order), optional the parameters in brackets."""
    out = []
    for part in f["signature"].split("|"):
        head, _, tail = part.partition("[")
        names = [n for n in re.split(r"[ ,]+", head) if n]
        optional = [n for n in re.split(r"[ ,\[\]]+", tail) if n]
        out.append((names, optional))
    return out


def is_state_form(names):
    return bool(names) and names[0] in STATE


# A valid value of each data role for one row (k = 2 for the multiclass forms).
VALUE = {"y": "1", "g": "1", "time": "2", "event": "1", "s": "0.5", "p": "0.5", "x": "0.5", "s_a": "0.5",
         "s_b": "0.25", "p_a": "0.5", "p_b": "0.25", "s_0": "0.5", "s_k-1": "0.5", "p_0": "0.5", "p_k-1": "0.5",
         "scores": "'[0.5, 0.5]'", "probs": "'[0.5, 0.5]'", "pred": "1", "risk": "0.5", "strat": "3",
         "group": "'a'", "horizon": "5", "risk_a": "0.5", "risk_b": "0.25", "...": None, "id": "1", "class": "0"}


def call(f, names, values, optional=()):
    """f's call in the form names, each data argument from values (a role's
    SQL text; missing roles: VALUE; "..." the middle of a wide form's
    scores, left out unless values gives it), required parameters at their
    spec's example, then the optional parameters named in optional, at
    theirs."""
    spec = {p["name"]: p for p in f["params"]}
    args = []
    for n in list(names) + list(optional):
        if n in spec:
            args.append(spec[n]["example"])
        elif n == "..." and values.get("...") is None:
            continue
        else:
            v = values.get(n, VALUE.get(n))
            if v is None:
                raise ValueError("%s: argument %r has a role test_twin_order.py does not know" % (f["name"], n))
            args.append(v)
    return "%s(%s)" % (f["name"], ", ".join(args))


def twins(records):
    return [f for f in records if f["weighted_of"]]


def check_records(ck, con, records):
    by = {f["name"]: f for f in records}
    tw = twins(records)
    ck.true(len(tw) >= 60, "the twins from the records (%d)" % len(tw))
    nform = 0
    for f in tw:
        name = f["name"]
        base = by.get(f["weighted_of"])
        ck.true(base is not None, "%s: its base %s is a record" % (name, f["weighted_of"]))
        params = {p["name"] for p in f["params"]}
        fs = forms(f)
        bforms = [nm for nm, _ in forms(base)] if base else []
        rows = [nm for nm, _ in fs]
        ck.true(not any(is_state_form(nm) for nm in rows), "%s: a twin takes no state form" % name)
        ck.true(all(is_state_form(nm) for nm in bforms[len(rows):]),
                "%s: its forms are %s's row forms, in order (%s | %s)" % (name, base and base["name"], f["signature"],
                                                                          base and base["signature"]))
        for i, names in enumerate(rows):
            nform += 1
            what = "%s form %d (%s)" % (name, i, ", ".join(names))
            unknown = [n for n in names if n not in LEAD | SCORE | AFTER | params | {"w"}]
            ck.true(not unknown, "%s: arguments of no known role %s (teach test_twin_order.py)" % (what, unknown))
            ck.equal(names.count("w"), 1, what + ": one w")
            if names.count("w") != 1:
                continue
            j = names.index("w")
            # after the scores; a form with none (km_w(time, event, w)) after its data
            last = max([k for k, n in enumerate(names) if n in SCORE],
                       default=max([k for k, n in enumerate(names) if n in LEAD], default=-1))
            ck.equal(j, last + 1, what + ": w right after the scores")
            ck.true(all(n in LEAD | SCORE for n in names[:j]), what + ": only the scores and what leads them before w")
            ck.true(all(n in AFTER | params for n in names[j + 1:]), what + ": only context and parameters after w")
            if i < len(bforms):
                ck.equal([n for n in names if n != "w"], bforms[i],
                         what + ": the base's form with w inserted after the scores (%s)" % base["signature"])
            # 3. the driver reads the weight where the record puts it
            ck.error(con, "SELECT " + call(f, names, {"w": "-2"}), (),
                     "%s(): w must be a non-negative finite number, got -2" % name, what + ": w read at its place")
            ck.error(con, "SELECT " + call(f, names, {"w": "'x'"}), (),
                     "%s(): w must be a non-negative finite number, got text 'x'" % name, what + ": w read at its place")
    ck.true(nform >= 70, "the forms of the twins (%d)" % nform)
    print("twin order: %d twins, %d call forms" % (len(tw), nform))


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def one(ck, con, sql):
    """The statement's one value, parsed when JSON; a failure (and None) on an error."""
    try:
        v = con.execute(sql).fetchone()[0]
    except Exception as e:
        ck.true(False, "%s: %s" % (sql, e))
        return None
    return json.loads(v) if isinstance(v, str) else v


def check_sklearn(ck, con):
    """The issue's case: a 5-class classifier with real weights, the twins in
    the binary order (weight after the scores) against scikit-learn."""
    rng = np.random.default_rng(46)
    n, k = 4000, 5
    y = rng.integers(0, k, n)
    P = softmax(1.6 * np.eye(k)[y] + rng.normal(0, 1, (n, k)))
    w = rng.uniform(0.2, 3.0, n)
    cols = ["y", "w", "probs"] + ["p%d" % j for j in range(k)]
    mltest.load(con, cols, [(int(y[i]), float(w[i]), json.dumps([float(v) for v in P[i]]))
                            + tuple(float(v) for v in P[i]) for i in range(n)])
    wide = ", ".join("p%d" % j for j in range(k))
    want = roc_auc_score(y, P, multi_class="ovr", average="macro", sample_weight=w)
    ck.true(0.85 < want < 0.97, "the issue's case: scikit-learn's OvR macro %.4f (about 0.91)" % want)
    for form in ("y, %s, w" % wide, "y, probs, w"):
        g = one(ck, con, "SELECT mc_auroc_w(%s) FROM t" % form)
        ck.close(g["ovr_macro"], want, "mc_auroc_w(%s) ovr_macro = roc_auc_score(sample_weight=w)" % form)
        ck.close(g["ovr_weighted"], roc_auc_score(y, P, multi_class="ovr", average="weighted", sample_weight=w),
                 "mc_auroc_w(%s) ovr_weighted" % form)
        g = one(ck, con, "SELECT mc_pr_auc_w(%s) FROM t" % form)
        ck.close(g["macro"], average_precision_score(label_binarize(y, classes=list(range(k))), P, average="macro",
                                                     sample_weight=w), "mc_pr_auc_w(%s) macro" % form)
        g = one(ck, con, "SELECT mc_confusion_w(%s) FROM t" % form)
        ck.close(g["accuracy"], accuracy_score(y, P.argmax(axis=1), sample_weight=w), "mc_confusion_w(%s) accuracy" % form)
        g = one(ck, con, "SELECT mc_top_k_w(%s) FROM t" % form)
        ck.close(g[1], top_k_accuracy_score(y, P, k=2, labels=list(range(k)), sample_weight=w),
                 "mc_top_k_w(%s) top-2" % form)
        ck.close(one(ck, con, "SELECT mc_log_loss_w(%s) FROM t" % form),
                 log_loss(y, P, labels=list(range(k)), sample_weight=w), "mc_log_loss_w(%s)" % form, rel=1e-9)
        st = one(ck, con, "SELECT mc_auroc(st) FROM (SELECT ml_state_mc_w(%s) AS st FROM t)" % form)
        ck.close(st["ovr_macro"], want, "mc_auroc(ml_state_mc_w(%s)) ovr_macro" % form)
    ci = one(ck, con, "SELECT mc_auroc_ci_w(y, probs, w, 0.9, 20, 1) FROM t")
    ck.close(ci["ovr_macro"]["estimate"], want, "mc_auroc_ci_w(y, probs, w, level, reps, seed) estimate")
    ci = one(ck, con, "SELECT mc_auroc_ci_w(y, %s, w) FROM t WHERE id <= 300" % wide)
    est = one(ck, con, "SELECT mc_auroc_w(y, %s, w) FROM t WHERE id <= 300" % wide)
    ck.equal(ci["ovr_macro"]["estimate"], est["ovr_macro"], "mc_auroc_ci_w(y, p_0, ..., p_4, w) estimate")
    # round 4's order (y, w, p_0, ..., p_4) has the same arity: it reads w as
    # p_0 and p_4 as the weight, a number far from scikit-learn's -- what this
    # test would catch (and what docs/multiclass.md warns about)
    old = one(ck, con, "SELECT mc_auroc_w(y, w, %s) FROM t" % wide)
    ck.true(abs(old["ovr_macro"] - want) > 0.2, "round 4's order gives a far number (%.4f)" % old["ovr_macro"])
    print("the issue's case: scikit-learn %.4f, mc_auroc_w(y, p_0, ..., p_4, w) %.4f, round 4's order %.4f"
          % (want, one(ck, con, "SELECT mc_auroc_w(y, %s, w) FROM t" % wide)["ovr_macro"], old["ovr_macro"]))


def main():
    ck = mltest.Checker("twin order")
    con = mltest.connect()
    records = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    check_records(ck, con, records)
    try:
        check_sklearn(ck, con)
    except (TypeError, KeyError) as e:        # a statement failed (one() said which): nothing to compare
        ck.true(False, "the differential check stopped: %r" % e)
    ck.finish()


if __name__ == "__main__":
    main()
