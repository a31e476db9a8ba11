# SPDX-License-Identifier: MIT
"""mleval.dask -- exact evaluation of sharded SQLite files on a Dask cluster.

Each worker opens shard files, loads mleval and computes one partial state
per shard (`SELECT ml_state(y, s) FROM preds`); the states -- a few bytes
per distinct score, never the rows -- travel to the workers that merge them
in a tree (`ml_merge`, fan_in states per task), and the final state is
evaluated by any function that takes states (`pr_auc(st)`, `ece(st, 15)`,
`strat_report(st, 0.25, 0.75)`; multiclass: `SELECT ml_state_mc(y, p0, p1, p2)
FROM preds` per shard, then `mc_auroc(st)`, `mc_confusion(st)`,
`mc_calibration(st, 15)`, ...).  The result equals the single query over
all the shards' rows (docs/states.md, docs/distributed.md).

    from dask.distributed import Client
    import mleval.dask as md
    client = Client("tcp://scheduler:8786")          # or Client(LocalCluster())
    paths = ["/shared/preds/shard_%03d.db" % i for i in range(64)]
    md.evaluate_shards(client, paths, "SELECT ml_state(y, s) FROM preds",
                       {"pr_auc": "pr_auc(st)", "ece": "ece(st, 15)"})
    # {'pr_auc': 0.8103..., 'ece': 0.1182...}

The shard paths must be readable by every worker under the same name
(shared storage: NFS, a mounted bucket, a parallel file system).  Tasks are
pure functions of their arguments, so a worker lost mid-job is replaced
and its tasks recomputed by the scheduler; the result is unchanged.
"""
import os
import sqlite3
import urllib.parse

import mleval

__all__ = ["shard_state", "merge_states", "evaluate_state", "shard_states", "tree_merge",
           "evaluate_shards"]


def _shard_uri(path):
    """The read-only file: URI of the shard at path.  The path is made
    absolute and percent-encoded (all but '/'): in a URI, "%41" would read as
    "A", and "#" or "?" would end the path -- another file, or a truncated
    name opened read-write.  The authority is written, empty ("file://" and
    then the path): after a bare "file:", a POSIX path beginning with "//"
    (which names the same file as "/") read as an authority, and SQLite
    refused it ("invalid uri authority")."""
    if os.path.isdir(path):
        # SQLite says only "disk I/O error" for a folder opened read-only
        raise sqlite3.OperationalError("mleval.dask: shard %r is a folder, not a SQLite file" % (path,))
    return "file://%s?mode=ro" % urllib.parse.quote(os.path.abspath(path), safe="/")


def _connect(path=":memory:"):
    if path == ":memory:":
        con = sqlite3.connect(path)
    else:
        con = sqlite3.connect(_shard_uri(path), uri=True)
    mleval.load(con)
    return con


def shard_state(path, query, params=()):
    """The state one shard contributes: `query` (returning one BLOB, e.g.
    "SELECT ml_state(y, s) FROM preds", or with a WHERE for one model) run
    on the shard at `path`, opened read-only.  None for a shard without
    rows."""
    con = _connect(path)
    try:
        row = con.execute(query, params).fetchone()
    finally:
        con.close()
    if row is None or row[0] is None:
        return None
    return bytes(row[0])


def merge_states(*states):
    """One state from several (ml_merge: a k-way merge, no re-sort); None
    states are skipped, None when all are None."""
    states = [s for s in states if s is not None]
    if len(states) <= 1:
        return states[0] if states else None
    con = _connect()
    try:
        con.execute("CREATE TEMP TABLE s(st BLOB)")
        con.executemany("INSERT INTO s VALUES (?)", [(s,) for s in states])
        return bytes(con.execute("SELECT ml_merge(st) FROM s").fetchone()[0])
    finally:
        con.close()


def evaluate_state(state, metrics):
    """{name: value} of each SQL expression in metrics (a dict name -> SQL
    over the column st, e.g. {"pr_auc": "pr_auc(st)"}) on one state."""
    names = list(metrics)
    con = _connect()
    try:
        sql = "SELECT %s FROM (SELECT ? AS st)" % ", ".join(metrics[n] for n in names)
        row = con.execute(sql, (state,)).fetchone()
    finally:
        con.close()
    return dict(zip(names, row))


def shard_states(client, paths, query, params=(), fn=shard_state, **submit):
    """Futures of each shard's state, computed on the cluster's workers
    (fn(path, query, params); extra keywords go to client.submit)."""
    return [client.submit(fn, p, query, params, pure=False, **submit) for p in paths]


def tree_merge(client, futures, fan_in=8):
    """One future of the merge of all the states behind futures: a tree of
    merge tasks, fan_in states each, so no worker ever holds more than
    fan_in states and the depth is log_fan_in(shards)."""
    if fan_in < 2:
        raise ValueError("tree_merge(): fan_in must be at least 2, got %r" % (fan_in,))
    level = list(futures)
    if not level:
        return client.submit(merge_states, pure=False)
    while len(level) > 1:
        level = [client.submit(merge_states, *level[k:k + fan_in], pure=False)
                 for k in range(0, len(level), fan_in)]
    if level[0] is futures[0]:                  # one shard: still one merge task, for uniformity
        level = [client.submit(merge_states, level[0], pure=False)]
    return level[0]


def evaluate_shards(client, paths, query, metrics, params=(), fan_in=8, fn=shard_state, **submit):
    """Maps "open shard, compute state" over the shard files on the cluster,
    merges the states in a tree, and evaluates metrics (dict name -> SQL over
    st) on the final state: {name: value}, the values the single query over
    all the shards' rows gives."""
    final = tree_merge(client, shard_states(client, paths, query, params, fn=fn, **submit), fan_in)
    state = final.result()
    if state is None:
        return {name: None for name in metrics}
    return evaluate_state(state, metrics)
