# SPDX-License-Identifier: MIT
"""A shard-state task whose first attempt on one shard kills its own worker
process with SIGKILL (test_dask.py: a machine lost mid-job).  Importable by
the Dask workers (tests/ is on their PYTHONPATH)."""
import os
import signal

import mleval.dask


def flaky_state(path, query, params=(), marker=None, victim=None):
    if path == victim and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return mleval.dask.shard_state(path, query, params)
