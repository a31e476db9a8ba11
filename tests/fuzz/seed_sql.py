# SPDX-License-Identifier: MIT
"""Writes the SQL fuzz corpus's seeds from the records: one file per function,
tests/fuzz/corpus/sql/rec_<name>.sql, calling it as an aggregate with GROUP
BY, over a window and, where it takes states, over states -- its data
arguments from fuzz_open()'s table t(id, g, y, s, p, z, o) by role, its
parameters at their spec's examples.  test_registry checks that the corpus
calls every registered function, so a new function's seed is one run of:

    MLEVAL_LIB=ext/.libs/mleval /usr/bin/python3 tests/fuzz/seed_sql.py
"""
import json
import os
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
ROLE = {"y": "y", "s": "s", "p": "p", "strat": "z", "s_a": "s", "s_b": "p", "p_a": "p", "p_b": "p * p",
        "x": "s", "g": "o % 2", "s_1": "s", "...": None, "s_m": "p", "w": "z / 4",
        "group": "o", "s_0": "s", "s_k-1": "p", "p_0": "p", "p_k-1": "1 - p",
        "time": "z", "event": "y", "risk": "s", "horizon": "1 + g", "curve": None,
        "risk_a": "s", "risk_b": "p"}
LONG = {'id': '((id - 1) % 3 + 3 * ((id - 1) / 6))', 'y': '((id - 1) % 3 + 3 * ((id - 1) / 6)) % 2', 'class': '((id - 1) / 3 % 2)', 'p': 'iif(((id - 1) / 3 % 2) = 0, (((id - 1) % 3 + 3 * ((id - 1) / 6)) * 37 % 101) / 101.0, 1 - (((id - 1) % 3 + 3 * ((id - 1) / 6)) * 37 % 101) / 101.0)', 'w': '((id - 1) % 3 + 3 * ((id - 1) / 6)) % 4 / 2.0'}
STATE = {"stratified": "ml_state(y, s, z)", "ordinal": "ml_state_ordinal(o, s, p)",
         "multiclass": "ml_state_mc(y, p, 1 - p)", "survival": "ml_state_surv(z, y, s)"}
PLOT = {
    "plot_curves": "SELECT plot_curves(g, c, 'fuzz') FROM (SELECT g, pr_curve(y, s) AS c FROM t GROUP BY g);\n"
                   "SELECT plot_curves(g, c) FROM (SELECT g, roc_curve(y, s) AS c FROM t GROUP BY g);\n",
    "plot_reliability": "SELECT plot_reliability(g, r, 'fuzz') FROM (SELECT g, reliability(y, p, 5) AS r FROM t GROUP BY g);\n",
    "plot_bars": "SELECT plot_bars(g, o, s, 'fuzz', 'ms') FROM t;\n",
    "plot_lines": "SELECT plot_lines(g, id, s, 'fuzz') FROM t;\n",
    "plot_km": "SELECT plot_km(g, c, 'fuzz') FROM (SELECT g, km(z, y) AS c FROM t GROUP BY g);\n",
}


def seed(f):
    name = f["name"]
    if f["family"] == "plot":
        return PLOT[name]
    if name == "ipcw":
        return "SELECT ipcw(c, z, y, 5) FROM t, (SELECT censoring_km(z, y) AS c FROM t);\n"
    if f["family"] == "scalar":
        return "SELECT %s();\n" % name
    if f["name"] == "ml_merge":
        return ("SELECT hex(%s(st)) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);\n"
                "SELECT hex(%s(st) OVER (ORDER BY g ROWS 1 PRECEDING)) FROM (SELECT g, ml_state(y, s, z) AS st FROM t GROUP BY g);\n"
                % (name, name))
    y = "o" if f["family"] == "ordinal" else "y"
    if "class" in f["data"]:     # the long layout: ids of two rows (classes 0, 1), one y and w each
        data = [LONG[r] for r in f["data"]]
    else:
        data = [y if r == "y" else ROLE[r] for r in f["data"]]
    if "p_k-1" in f["data"] or "s_k-1" in f["data"]:   # multiclass: parameters only in the JSON form
        scores = [ROLE[r] for r in f["data"] if r not in ("y", "w", "...")]
        data = [y] + (["json_array(%s)" % ", ".join(scores)] if f["params"] else scores) + [
            ROLE["w"] for r in f["data"] if r == "w"]      # a twin's weight right after the scores
    args = ", ".join([a for a in data if a] + [p["example"] for p in f["params"]])
    out = ["SELECT g, %s(%s) FROM t GROUP BY g;" % (name, args),
           "SELECT %s(%s) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;" % (name, args)]
    if f.get("state_args"):
        params = ", ".join(p["example"] for p in f["params"][:f["state_args"][1] - 1])
        st = "ml_state(y, s, z)" if "strat" in f["data"] else STATE.get(f["family"], "ml_state(y, s)")
        out.append("SELECT %s(st%s) FROM (SELECT %s AS st FROM t GROUP BY g);" % (name, ", " + params if params else "", st))
    return "\n".join(out) + "\n"


def main():
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(os.environ.get("MLEVAL_LIB", os.path.join(HERE, "..", "..", "ext", ".libs", "mleval")))
    corpus = os.path.join(HERE, "corpus", "sql")
    for f in json.loads(con.execute("SELECT mleval_functions()").fetchone()[0]):
        with open(os.path.join(corpus, "rec_%s.sql" % f["name"]), "w") as out:
            out.write(seed(f))


if __name__ == "__main__":
    main()
