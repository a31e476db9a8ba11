# SPDX-License-Identifier: MIT
"""How soon a bootstrap over many thresholds stops when interrupted (issue 44
item 5): decision_curve_ci_w at its own cap (2 000 rows, 9 999 thresholds,
reps chosen so that T (reps + 202) is at the 2e7 bound) ran 109-139 s and
honoured sqlite3_interrupt only after 25 s -- the bootstrap asked every
2^20 / n replicates, while each replicate walks the T thresholds too
(ml_boot.c: MlBootSpec.repCost).  Here each of decision_curve_ci and
decision_curve_ci_w is interrupted 0.4 s into its run, three times, and
must fail with "interrupted" within LAG seconds of the interrupt (measured
from the interrupt to the error; under the sanitizers, 4x).
"""
import os
import random
import sqlite3
import threading
import time

import mltest

LAG = 1.0 * (4 if "libasan" in os.environ.get("LD_PRELOAD", "") else 1)


def lag_of(con, sql, delay):
    fired = []

    def fire():
        fired.append(time.perf_counter())
        con.interrupt()
    timer = threading.Timer(delay, fire)
    timer.start()
    try:
        con.execute(sql).fetchall()
        err = None
    except sqlite3.Error as e:
        err = str(e)
    end = time.perf_counter()
    timer.cancel()
    timer.join()
    return err, (end - fired[0]) if fired else None


def main():
    ck = mltest.Checker("interrupt lag")
    con = mltest.connect()
    rng = random.Random(44)
    rows = [(int(rng.random() < 0.3), round(rng.random(), 4), rng.choice([0.5, 1.0, 2.0])) for _ in range(2000)]
    mltest.load(con, ["y", "p", "w"], rows)
    con.commit()
    reps = int(2e7 // 9999) - 202          # T (reps + 202) at the bound: 1798
    for fn, args in (("decision_curve_ci_w", "y, p, w"), ("decision_curve_ci", "y, p")):
        sql = "SELECT %s(%s, 0.0001, 0.9999, 0.0001, 0.95, %d, 1) FROM t" % (fn, args, reps)
        worst = 0.0
        for trial in range(3):
            err, lag = lag_of(con, sql, 0.4)
            ck.equal(err, "interrupted", "%s at its cap, interrupted at 0.4 s: the message" % fn)
            if lag is not None:
                worst = max(worst, lag)
                ck.true(lag <= LAG, "%s stopped %.3f s after the interrupt (bound %.1f s)" % (fn, lag, LAG))
        print("%s at its cap (2000 rows, 9999 thresholds, %d replicates): stopped within %.3f s of the interrupt"
              % (fn, reps, worst))
    ck.finish()


if __name__ == "__main__":
    main()
