# SPDX-License-Identifier: MIT
"""mleval.dask on a real Dask cluster: a LocalCluster on loopback with 2
worker processes evaluates 8 shard files (one empty, one with one class),
and the results equal the single-database ones exactly -- binary,
stratified, ordinal, weighted, multiclass (ml_state_mc, ml_state_mc_w) and
survival (ml_state_surv, ml_state_surv_w) states, merged in a tree of fan-in 3.  Then a worker
process is killed mid-job (the first attempt of one shard's task kills its
own worker with SIGKILL, as a lost machine would): the scheduler reruns the
task elsewhere and the result is still exact.

Exit 77 (automake's SKIP) with the reason when dask.distributed is missing
or the cluster cannot start at all; any wrong number fails.
"""
import os
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("srcdir", os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(SRC, "python"))
sys.path.insert(0, HERE)

import mltest  # noqa: E402

if not os.path.isabs(mltest.LIB):
    mltest.LIB = os.path.abspath(mltest.LIB)
os.environ["MLEVAL_LIB"] = mltest.LIB            # what mleval.load() loads, in the workers too
os.environ["PYTHONPATH"] = os.pathsep.join([os.path.join(os.path.abspath(SRC), "python"), HERE] +
                                           [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

METRICS = {
    "b": ("SELECT ml_state(y, s) FROM preds",
          {"pr_auc": "pr_auc(st)", "auroc": "auroc(st)", "roc": "roc_curve(st)", "ece": "ece(st, 15)",
           "op": "operating_point(st, 'max_f1')"},
          "SELECT pr_auc(y, s), auroc(y, s), roc_curve(y, s), ece(y, s, 15), operating_point(y, s, 'max_f1') FROM preds"),
    "z": ("SELECT ml_state(y, s, len) FROM preds",
          {"report": "strat_report(st, 0.25, 0.75)"},
          "SELECT strat_report(y, s, len, 0.25, 0.75) FROM preds"),
    "o": ("SELECT ml_state_ordinal(sev, s, s2) FROM preds",
          {"ord": "ordinal_report(st)"},
          "SELECT ordinal_report(sev, s, s2) FROM preds"),
    # weighted states (ml_state_w): the unweighted names give the twins' results
    "w": ("SELECT ml_state_w(y, s, len / 8.0) FROM preds",
          {"pr_auc_w": "pr_auc(st)", "ece_w": "ece(st, 15)", "gains_w": "gains(st, 5)"},
          "SELECT pr_auc_w(y, s, len / 8.0), ece_w(y, s, len / 8.0, 15), gains_w(y, s, len / 8.0, 5) FROM preds"),
    # multiclass states (ml_state_mc, ml_state_mc_w): every mc_* function over them
    "mc": ("SELECT ml_state_mc(c, q0, q1, q2) FROM preds",
           {"auroc": "mc_auroc(st)", "pr": "mc_pr_auc(st)", "ll": "mc_log_loss(st)", "conf": "mc_confusion(st)",
            "top": "mc_top_k(st)", "cal": "mc_calibration(st, 7)", "rps": "ordinal_rps(st)",
            "ci": "mc_auroc_ci(st, 0.9, 50, 2)"},
           "SELECT mc_auroc(c, q0, q1, q2), mc_pr_auc(c, q0, q1, q2), mc_log_loss(c, q0, q1, q2),"
           " mc_confusion(c, q0, q1, q2), mc_top_k(c, q0, q1, q2), mc_calibration(c, json_array(q0, q1, q2), 7),"
           " ordinal_rps(c, q0, q1, q2), mc_auroc_ci(c, json_array(q0, q1, q2), 0.9, 50, 2) FROM preds"),
    "mcw": ("SELECT ml_state_mc_w(c, q0, q1, q2, len / 8.0) FROM preds",
            {"auroc_w": "mc_auroc(st)", "brier_w": "mc_brier(st)", "conf_w": "mc_confusion(st)"},
            "SELECT mc_auroc_w(c, q0, q1, q2, len / 8.0), mc_brier_w(c, q0, q1, q2, len / 8.0),"
            " mc_confusion_w(c, q0, q1, q2, len / 8.0) FROM preds"),
    # survival states (ml_state_surv, ml_state_surv_w): the family's state forms, from the
    # curve and the concordance to the horizon's calibration and its bootstrap
    "sv": ("SELECT ml_state_surv(tt, ev, s) FROM preds",
           {"km": "km(st, 40)", "c": "c_index(st)", "uno": "uno_c(st, 60)", "auc": "surv_auroc(st, 30)",
            "brier": "surv_brier(st, 30)", "sum": "surv_summary(st, 30)", "cal": "surv_calibration(st, 30, 5)",
            "dc": "surv_decision_curve(st, 30, 0.1, 0.5, 0.1)", "ci": "surv_brier_ci(st, 30, 0.9, 40, 3)"},
           "SELECT km(tt, ev, 40), c_index(tt, ev, s), uno_c(tt, ev, s, 60), surv_auroc(tt, ev, s, 30),"
           " surv_brier(tt, ev, s, 30), surv_summary(tt, ev, s, 30), surv_calibration(tt, ev, s, 30, 5),"
           " surv_decision_curve(tt, ev, s, 30, 0.1, 0.5, 0.1), surv_brier_ci(tt, ev, s, 30, 0.9, 40, 3) FROM preds"),
    "svw": ("SELECT ml_state_surv_w(tt, ev, s, len / 8.0) FROM preds",
            {"c_w": "c_index(st)", "auc_w": "surv_auroc(st, 30)", "brier_w": "surv_brier(st, 30)",
             "km_w": "km(st, 40)"},
            "SELECT c_index_w(tt, ev, s, len / 8.0), surv_auroc_w(tt, ev, s, len / 8.0, 30),"
            " surv_brier_w(tt, ev, s, len / 8.0, 30), km_w(tt, ev, len / 8.0, 40) FROM preds"),
}


def skip(why):
    print("SKIP: %s" % why)
    sys.exit(77)


def make_shards(tmp):
    import numpy as np
    rng = np.random.default_rng(2026)
    sizes = [3000, 2500, 0, 1800, 40, 2200, 900, 2600]          # shard 2 empty, shard 4 one class
    everything = sqlite3.connect(os.path.join(tmp, "all.db"))
    schema = ("CREATE TABLE preds(y INTEGER, s REAL, s2 REAL, len INTEGER, sev INTEGER,"
              " c INTEGER, q0 REAL, q1 REAL, q2 REAL, tt REAL, ev INTEGER)")
    everything.execute(schema)
    paths = []
    for k, n in enumerate(sizes):
        y = (rng.random(n) < 0.3).astype(int) if k != 4 else np.zeros(n, int)
        s = np.round(rng.random(n) * 0.7 + 0.3 * y, 3 if k % 2 else 17)
        s2 = np.round(rng.random(n) * 0.5 + 0.5 * y * (rng.random(n) < 0.5), 2)
        sev = y * (1 + (s2 > 0.5))
        ln = rng.integers(10, 200, n)
        # three classes: c, and probabilities of 3 decimals (json_array writes them exactly)
        cls = rng.integers(0, 3, n) if k != 4 else np.zeros(n, int)
        q = np.round(rng.dirichlet(np.ones(3), n) * 0.8 + 0.2 * np.eye(3)[cls], 3)
        q[:, 2] = np.round(1.0 - q[:, 0] - q[:, 1], 3)
        # a time to event or censoring (whole days: ties), shorter for high s; events 60 %
        tt = np.ceil(rng.exponential(40.0 * (1.2 - s)) + 0.01)
        ev = (rng.random(n) < 0.6).astype(int)
        rows = [(int(a), float(b), float(c), int(d), int(e), int(f), float(g[0]), float(g[1]), float(g[2]),
                 float(h), int(i))
                for a, b, c, d, e, f, g, h, i in zip(y, s, s2, ln, sev, cls, q, tt, ev)]
        path = os.path.join(tmp, "shard_%d.db" % k)
        con = sqlite3.connect(path)
        con.execute(schema)
        con.executemany("INSERT INTO preds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        con.commit()
        con.close()
        everything.executemany("INSERT INTO preds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        paths.append(path)
    everything.commit()
    return paths, everything


def expected(everything):
    import mleval
    mleval.load(everything)
    out = {}
    for kind, (_, metrics, sql) in METRICS.items():
        out[kind] = dict(zip(metrics, everything.execute(sql).fetchone()))
    return out


def main():
    ck = mltest.Checker("dask")
    try:
        from dask.distributed import Client, LocalCluster
        import mleval.dask as md
    except ImportError as e:
        skip("dask.distributed is not installed (apt-get install python3-distributed): %s" % e)
    import dask
    dask.config.set({"distributed.scheduler.allowed-failures": 5,
                     "distributed.comm.timeouts.connect": "60s",
                     "distributed.worker.daemon": False})
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="mleval-dask-") as tmp:
        paths, everything = make_shards(tmp)
        want = expected(everything)
        try:
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None, silence_logs=50)
            client = Client(cluster, timeout="60s")
            client.wait_for_workers(2, timeout=120)
        except Exception as e:      # no cluster at all: say why, skip
            skip("a LocalCluster with 2 worker processes cannot start here: %r" % (e,))
        t1 = time.time()
        print("cluster up in %.1f s; workers %s" % (t1 - t0, sorted(client.scheduler_info()["workers"])))
        try:
            for kind, (query, metrics, _) in METRICS.items():
                got = md.evaluate_shards(client, paths, query, metrics, fan_in=3)
                for name in metrics:
                    ck.equal(got[name], want[kind][name], "%s state: %s over 8 shards on 2 workers" % (kind, name))
            t2 = time.time()
            print("8 shards x %d kinds of state evaluated in %.1f s" % (len(METRICS), t2 - t1))

            # A worker lost mid-job: the first attempt of shard 5's task kills its worker.
            marker = os.path.join(tmp, "killed")
            pids_before = set(client.run(os.getpid).values())
            query, metrics, _ = METRICS["b"]
            got = md.evaluate_shards(client, paths, query, metrics, fan_in=3, fn=flaky_state_for(marker, paths[5]))
            ck.true(os.path.exists(marker), "a worker was killed during the job")
            for name in metrics:
                ck.equal(got[name], want["b"][name], "after a worker was killed: %s" % name)
            client.wait_for_workers(2, timeout=120)
            pids_after = set(client.run(os.getpid).values())
            ck.true(pids_after != pids_before, "the killed worker was replaced (pids %s -> %s)" % (pids_before, pids_after))
            print("worker killed mid-job and replaced; result exact; %.1f s" % (time.time() - t2))
        finally:
            client.close()
            cluster.close()
    print("dask test: %.1f s in all" % (time.time() - t0))
    ck.finish()


def flaky_state_for(marker, victim):
    import functools
    import dask_flaky
    return functools.partial(dask_flaky.flaky_state, marker=marker, victim=victim)


if __name__ == "__main__":
    main()
