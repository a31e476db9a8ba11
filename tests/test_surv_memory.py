# SPDX-License-Identifier: MIT
"""The survival family's memory at the result (SPEC "Round 5"; the product's
rule: at most 16 bytes a row held, nothing quadratic the docs hide).

Proves, over 200 000 rows (times on a 0.1 grid: about 300 distinct; a
third censored; real weights in [0.5, 2] for the twins), with SQLite's own
count (sqlite3_status64 MEMORY_USED high-water above the start, as
bench/bench_survival.py measures it):
1. The unweighted functions hold 16 bytes a row (time key, risk; weight 1
   implied): km, censoring_km, surv_brier and surv_ibs peak under 16 + 16
   + 4 bytes a row (the rows, the larger class's sort scratch), the twins
   under 24 + 24 + 4 (before: 84.7 at 10^6 rows, a fit of 7 doubles per
   row and the buffer's growth slack beside the scratch).
2. AUC(t) trims its weighted copy before sorting it: surv_auroc and
   surv_summary under 48, their twins under 80 (before: 110 and 140).
3. The concordance copies only what it reads and allocates its trees after
   its sort: c_index under 72, c_index_ci and uno_c under 80, c_index_w
   under 88, c_index_ci_w and uno_c_w under 96 (before: 105, 113, 169, 113,
   121, 177).
"""
import sys

import numpy as np

import mltest

N = 200_000
BOUNDS = [
    ("km(time, event)", 36), ("km(time, event, 10)", 36), ("censoring_km(time, event)", 36),
    ("surv_brier(time, event, p, 10)", 36),
    ("km_w(time, event, w)", 52), ("censoring_km_w(time, event, w)", 52),
    ("surv_brier_w(time, event, p, w, 10)", 52),
    ("surv_auroc(time, event, risk, 10)", 48), ("surv_summary(time, event, p, 10)", 48),
    ("surv_auroc_w(time, event, risk, w, 10)", 80), ("surv_summary_w(time, event, p, w, 10)", 80),
    ("c_index(time, event, risk)", 72), ("c_index_ci(time, event, risk)", 80), ("uno_c(time, event, risk)", 80),
    ("c_index_w(time, event, risk, w)", 88), ("c_index_ci_w(time, event, risk, w)", 96),
    ("uno_c_w(time, event, risk, w)", 96),
]




def load(con):
    rng = np.random.default_rng(47)
    x = rng.normal(0, 1, N)
    et = rng.exponential(1.0 / (0.1 * np.exp(x)))
    ct = rng.uniform(0, 30, N)
    time_ = np.round(np.minimum(et, ct), 1)
    event = (et <= ct).astype(int)
    risk = np.round(x + rng.normal(0, 0.5, N), 4)
    p = 1 - np.exp(-np.exp(risk))
    w = np.round(0.5 + 1.5 * rng.uniform(0, 1, N), 3)
    con.execute("CREATE TABLE c(time REAL, event INT, risk REAL, p REAL, w REAL)")
    con.executemany("INSERT INTO c VALUES (?, ?, ?, ?, ?)", zip(*[a.tolist() for a in (time_, event, risk, p, w)]))
    k = N // 4
    con.execute("CREATE TABLE long(time REAL, event INT, horizon REAL, p REAL)")
    for h in (2.5, 5.0, 7.5, 10.0):
        con.executemany("INSERT INTO long VALUES (?, ?, ?, ?)",
                        zip(time_[:k].tolist(), event[:k].tolist(), [h] * k,
                            (1 - np.exp(-0.1 * np.exp(risk[:k]) * h)).tolist()))


def main():
    ck = mltest.Checker("test_surv_memory")
    con = mltest.connect()
    load(con)
    for expr, bound in BOUNDS + [("surv_ibs(time, event, horizon, p)", 36)]:
        table = "long" if "horizon" in expr else "c"
        b = mltest.peak_bytes(con, "SELECT %s FROM %s" % (expr, table)) / N
        ck.true(b < bound, "%s peaks at %.1f bytes a row (want < %d)" % (expr, b, bound))
        print("%-45s %.1f bytes a row (< %d)" % (expr, b, bound))
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
