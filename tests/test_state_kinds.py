# SPDX-License-Identifier: MIT
"""Every state-taking form of every function x every state kind (issue 44
item 1, issue 45 item 1), from the records alone:

  mleval_build_info()'s "state_kinds" lists each kind with the call that
    makes it (ml_state_kinds, the one list); one state of each kind is made
    here from that call, its argument roles (y, s, strat, w, p_0 ..., time,
    event, risk, x) mapped to columns;
  mleval_functions()'s "forms" lists each function's forms: a "state" or
    "two_states" form and the kinds it reads.  Each such form is called
    with a state of every kind (both arguments of a two-state form the same
    kind), its other arguments from the record (a parameter's example, a
    group column):
      a kind the form reads gives a result or an error that is not about
      the state's kind;
      any other kind gives an error that names it ("got a multiclass
      (k = 3) state"), never a result (a multiclass state read as a binary
      one gave group_disparity n = 3.6e16 and an invented AUROC).
A kind added to the list (the survival and distribution states) is refused
by every form that does not say it reads it.
"""
import json
import re
import sqlite3

import mltest

N = 24


def table(con):
    rows = []
    for i in range(N):
        y = i % 2
        rows.append((y, (i * 7 % 11) / 11.0 + 0.01 * y, i % 3, 1.0 + (i % 4) * 0.5,
                     0.2, 0.3, 0.5, float(1 + i % 5), i % 2, (i * 3 % 7) / 7.0, (i * 5 % 13) / 13.0, "ab"[i % 2]))
    mltest.load(con, ["y", "s", "strat", "w", "p_0", "p_1", "p_2", "time", "event", "risk", "x", "grp"], rows)


def maker_sql(maker):
    """The maker's call text, its roles as columns: 'ml_state_mc(y, p_0, ...,
    p_k-1)' -> 'ml_state_mc(y, p_0, p_1, p_2)'; 'ml_state_ordinal(y, s_1, ...,
    s_m)' -> '(y, s, s)'."""
    sql = maker.replace("p_0, ..., p_k-1", "p_0, p_1, p_2").replace("s_1, ..., s_m", "s, x")
    sql = re.sub(r"\bs_(\d)\b", "s", sql)
    return sql


def form_call(name, sig, st_sql, st2_sql, params):
    """The call of a state form whose signature is sig ('st_ref, st_cur [,
    bins]', 'st, group, threshold', 'state [, level, reps, seed]'): states,
    then a group column or a parameter's example for each remaining
    required argument."""
    args = []
    req = sig.split("[")[0]
    names = [a.strip() for a in req.split(",") if a.strip()]
    pex = {p["name"]: p["example"] for p in params}
    n_st = 0
    for a in names:
        if a in ("st", "state") or a.startswith("st_"):          # not "strategy"
            args.append(st_sql if n_st == 0 else st2_sql)
            n_st += 1
        elif a in pex:
            args.append(pex[a])
        elif a == "group":
            args.append("grp")
        else:
            raise ValueError("%s: no value for %s in %s" % (name, a, sig))
    return "%s(%s)" % (name, ", ".join(args))


def main():
    ck = mltest.Checker("state kinds")
    con = mltest.connect()
    table(con)
    info = json.loads(con.execute("SELECT mleval_build_info()").fetchone()[0])
    kinds = info["state_kinds"]
    ck.true(len(kinds) >= 6, "build_info lists the state kinds (%d)" % len(kinds))
    made = {}
    for k in kinds:
        sql = maker_sql(k["maker"])
        try:
            blob = con.execute("SELECT %s FROM t" % sql).fetchone()[0]
        except sqlite3.Error as e:
            ck.true(False, "%s: its maker %s runs: %s" % (k["kind"], sql, e))
            continue
        ck.true(isinstance(blob, bytes), "%s: %s makes a BLOB" % (k["kind"], sql))
        made[k["kind"]] = blob
    con.execute("CREATE TABLE s(kind TEXT, st BLOB)")
    con.executemany("INSERT INTO s VALUES (?, ?)", list(made.items()))
    records = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    n_forms = n_calls = n_refused = 0
    for f in records:
        for form in f.get("forms") or []:
            if form["form"] not in ("state", "two_states"):
                continue
            n_forms += 1
            reads = set(form["kinds"])
            ck.true(len(reads) > 0, "%s(%s): reads some kind" % (f["name"], form["signature"]))
            ck.true(reads <= set(made), "%s: its kinds %s are in the list" % (f["name"], sorted(reads - set(made))))
            sig = form["signature"].replace("state", "st", 1) if form["signature"].startswith("state") else form["signature"]
            for kind, blob in made.items():
                call = form_call(f["name"], sig, "(SELECT st FROM s WHERE kind = ?)",
                                 "(SELECT st FROM s WHERE kind = ?)", f["params"])
                binds = (kind,) * call.count("?")
                sql = "SELECT %s FROM t" % call if "grp" in call else "SELECT %s" % call
                n_calls += 1
                try:
                    con.execute(sql, binds).fetchall()
                    err = None
                except sqlite3.Error as e:
                    err = str(e)
                what = "%s(%s) with a %s state" % (f["name"], form["signature"], kind)
                # the kind named as the state it is: "got a multiclass (k = 3) state",
                # "takes no weighted state (made by ml_state_w)"
                kind_err = err is not None and re.search(r"\b%s( \([^)]*\))? state\b" % re.escape(kind), err)
                if kind in reads:
                    ck.true(not kind_err and (err is None or "state made by" not in err),
                            "%s: read (%s)" % (what, err))
                else:
                    n_refused += 1
                    ck.true(err is not None and bool(kind_err) and f["name"] + "()" in err,
                            "%s: refused by name, got %s" % (what, err or "a result"))
    ck.true(n_forms >= 60, "state forms found in the records (%d)" % n_forms)
    print("%d kinds, %d state forms, %d calls, %d refusals" % (len(made), n_forms, n_calls, n_refused))
    ck.finish()


if __name__ == "__main__":
    main()
