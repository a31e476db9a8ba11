# SPDX-License-Identifier: MIT
"""An interrupted statement says "interrupted" (issue 39, items 3 and 4).

1. Every state form of every function (from the records: "forms", one state or two), given
   its first state in the very row whose argument calls sqlite3_interrupt(),
   fails with SQLITE_INTERRUPT -- not out of memory (the state wrapper once
   prepared "SELECT NULL" on the interrupted connection to make its NULL
   arguments, and reported that prepare's failure as SQLITE_NOMEM, Python's
   MemoryError).  Deterministic: the WHERE clause runs before the aggregate's
   step of the same row.
2. pr_auc and pr_auc_w over 10^6 rows (ties: scores of 6 decimals), where a
   sort or sweep is long enough to be caught by an interrupt, 20 times each
   in the second half of their run (before the fix, about a third of these
   failed with a partial result as the message); then every aggregate of the records, over enough rows that its computation
   polls for the interrupt (2^18 and more; a bootstrap, which asks between replicates, 10 000), interrupted from a timer thread at
   random points of its run: the statement either completes with the value of
   the uninterrupted run or fails with exactly the message "interrupted" --
   never with a partial result as the error text (an interrupted sort or sweep
   once wrote its result before the error code, and SQLite kept that text as
   the message: "OperationalError: 0.316093247034951").
"""
import os
import random
import sqlite3
import threading
import time

import mltest
import test_bad_inputs

N = 300000            # over the core's 2^18-row polling threshold
BOOT_N = 10000        # a bootstrap's rows
# two interrupts per function; one under the sanitizers (3-4x slower)
TRIALS = 1 if "libasan" in os.environ.get("LD_PRELOAD", "") else 2


def state_sources(con):
    """The states each kind of state-taking function reads, as SQL columns of table st."""
    con.execute("CREATE TABLE st AS SELECT ml_state(y, s) AS b, ml_state(y, s, z) AS sz,"
                " ml_state_w(y, s, w) AS bw, ml_state_ordinal(o, s, s) AS so, ml_state_mc(o, s / 2, s / 2, 1 - s) AS sm,"
                " ml_state_surv(abs(z), y, s) AS sv"
                " FROM (SELECT id, y, s, z, w, y + (s > 0.5) AS o FROM t WHERE id <= 2000)")


KIND_COLUMN = {"binary": "b", "binary+strat": "sz", "weighted": "bw", "ordinal": "so", "multiclass": "sm", "survival": "sv"}


def form_call(f, form):
    """The call of a state form (mleval_functions()' "forms"): each state
    argument the column of table st holding the first kind the form reads
    (the family's kind order: a stratifier's form reads binary+strat first),
    a group 'a', each parameter its example."""
    kinds = [k for k in form["kinds"] if k in KIND_COLUMN]
    if "strat" in f["data"] and "binary+strat" in kinds:
        kinds = ["binary+strat"]
    col = KIND_COLUMN[kinds[0]]
    ex = {ps["name"]: ps["example"] for ps in f["params"]}
    args = []
    for a in form["signature"].replace("[", ",").replace("]", ",").split(","):
        a = a.strip()
        if not a:
            continue
        is_state = a in ("st", "state") or a.startswith("st_")      # not "strategy"
        args.append(col if is_state else "'a'" if a == "group" else ex[a])
    return "%s(%s)" % (f["name"], ", ".join(args))


def check_state_interrupts(ck, con, funcs):
    fired = []

    def interrupt_now():
        fired.append(1)
        con.interrupt()
        return 1

    con.create_function("interrupt_now", 0, interrupt_now)
    forms = [(f, fm) for f in funcs for fm in f.get("forms") or []
             if fm["form"] in ("state", "two_states") and f["family"] != "plot" and f["name"] != "ml_merge"]
    ck.true(sum(fm["form"] == "two_states" for _, fm in forms) >= 5, "two-state forms are interrupted too")
    for f, fm in forms:
        name = "%s(%s)" % (f["name"], fm["signature"])
        sql = "SELECT %s FROM st WHERE interrupt_now()" % form_call(f, fm)
        del fired[:]
        try:
            con.execute(sql).fetchall()
            ck.true(False, "%s: a state read while interrupted: no error" % name)
        except MemoryError:
            ck.true(False, "%s: a state read while interrupted: MemoryError, want 'interrupted'" % name)
        except sqlite3.Error as e:
            ck.equal(str(e), "interrupted", "%s while interrupted: the message" % name)
        ck.true(len(fired) > 0, "%s: the interrupt fired" % name)
        ck.equal(con.execute("SELECT pr_auc(y, s) FROM t WHERE id <= 100").fetchone()[0] is not None, True,
                 name + ": the connection works after the interrupt")


def run(con, sql):
    return con.execute(sql).fetchall()


def interrupted(con, sql, delay):
    """Runs sql with con.interrupt() after delay seconds: ('ok', rows) or ('error', exception)."""
    timer = threading.Timer(delay, con.interrupt)
    timer.start()
    try:
        return "ok", run(con, sql)
    except (sqlite3.Error, MemoryError) as e:
        return "error", e
    finally:
        timer.cancel()
        timer.join()


def check_long(ck, con, rng):
    con.execute("CREATE TABLE big(y, s, w)")
    con.execute("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000)"
                " INSERT INTO big SELECT (i * 7) % 10 < 3, ((i * 7919) % 1000003) / 1000003.0,"
                " 0.5 + ((i * 104729) % 1009) / 672.0 FROM c")
    con.commit()
    for sql in ("SELECT pr_auc(y, s) FROM big", "SELECT pr_auc_w(y, s, w) FROM big"):
        t0 = time.perf_counter()
        want = run(con, sql)
        took = time.perf_counter() - t0
        for k in range(20):
            kind, got = interrupted(con, sql, (0.5 + k / 40.0) * took)
            if kind == "ok":
                ck.equal(got, want, "%s: completed before the interrupt: the same result" % sql)
            else:
                ck.true(isinstance(got, sqlite3.OperationalError) and str(got) == "interrupted",
                        "%s interrupted at %.0f %%: %s %r, want OperationalError 'interrupted'"
                        % (sql, 50 + k * 2.5, type(got).__name__, str(got)[:80]))
    con.execute("DROP TABLE big")
    con.commit()


def check_random_interrupts(ck, con, rng, funcs):
    hits = 0
    # a bootstrap asks between its replicates whatever the rows: its table is
    # BOOT_N rows (at N, auroc_diff_w's 20 replicates took a minute here)
    boot = {f["name"] for f in funcs if any(ps["name"] == "reps" for ps in f["params"])}
    ck.true(len(boot) >= 10, "the bootstraps are known from their records (%d)" % len(boot))
    for name, (shape, extra, _bad, _varying) in sorted(test_bad_inputs.table().items()):
        if shape in ("state", "scalar", "plot", "ipcw"):   # ipcw: a scalar, one row's weight
            continue
        if shape in ("mean", "pone"):      # one data argument: x, or a probability p
            sql = "SELECT %s(%s%s) FROM t" % (name, "p" if shape == "pone" else "s", extra)
        elif shape in ("long", "wlong"):   # the long layout: rows 2m, 2m + 1 are id m's classes 0 and 1
            top = BOOT_N if name in boot else N          # (whole ids below the WHERE a bootstrap gets)
            sql = ("SELECT %s(iif(id BETWEEN 2 AND %d, id / 2, NULL), id / 2 %% 2, id %% 2, iif(id %% 2 = 0, "
                   "(id / 2 %% 7) / 10.0, 1 - (id / 2 %% 7) / 10.0)%s%s) FROM t"
                   % (name, top - 1 if top % 2 == 0 else top, ", 1 + id / 2 % 3" if shape == "wlong" else "", extra))
        elif shape == "wmean":             # x and its weight (ml_state_dist_w)
            sql = "SELECT %s(s, w%s) FROM t" % (name, extra)
        else:
            x = "p" if shape in ("prob", "ppair", "wprob", "wppair") else "s"
            sql = "SELECT " + test_bad_inputs.call(name, shape, "o" if shape in ("ord", "ge") else "y", x, extra) + " FROM t"
            sql = sql.replace(", 1%s)" % extra, ", w%s)" % extra, 1) if shape.startswith("w") else sql
        if name in boot:
            sql += " WHERE id <= %d" % BOOT_N
        t0 = time.perf_counter()
        want = run(con, sql)
        took = time.perf_counter() - t0
        for _ in range(TRIALS):
            kind, got = interrupted(con, sql, rng.uniform(0.2, 1.0) * took)
            if kind == "ok":
                ck.equal(got, want, "%s: completed before the interrupt: the same result" % name)
            else:
                hits += 1
                ck.true(isinstance(got, sqlite3.OperationalError) and str(got) == "interrupted",
                        "%s interrupted: %s %r, want OperationalError 'interrupted'" % (name, type(got).__name__, str(got)[:80]))
    ck.true(hits > 0, "some statements were interrupted (%d)" % hits)
    print("random interrupts: %d statements interrupted" % hits)


def main():
    ck = mltest.Checker("interrupt messages")
    rng = random.Random(39)
    con = mltest.connect()
    con.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, y, s, p, z, w, o)")
    rows = []
    for i in range(1, N + 1):
        s = round(rng.random(), 6)
        y = 1 if rng.random() < s else 0
        rows.append((i, y, s, s, rng.randrange(40), rng.uniform(0.5, 2.0), y + (s > 0.7)))
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    funcs = __import__("json").loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    state_sources(con)
    con.commit()          # an interrupt rolls back an open transaction, tables and all
    check_state_interrupts(ck, con, funcs)
    check_long(ck, con, rng)
    check_random_interrupts(ck, con, rng, funcs)
    ck.finish()


if __name__ == "__main__":
    main()
