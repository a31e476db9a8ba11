# SPDX-License-Identifier: MIT
"""sitecustomize -- lets `import mleval` find the helper from a checkout's
python/ on PYTHONPATH even when a file mleval.so (the SQLite extension) lies
in the current or the script's folder.

An installed helper gets this from mleval.pth, which Python's site module
reads in site folders only; a folder on PYTHONPATH is not one, so a .pth
there is never read.  Python's site module does import a module named
sitecustomize from sys.path at start-up (PYTHONPATH's folders included, and
before the script's or the current folder is put first), so this file, found
first from python/, installs the same finder (_mleval_finder: mleval.so is
passed over, the package python/mleval is imported).

Rules:
  1. The finder is installed once (installing it twice is harmless too).
  2. Any other sitecustomize on sys.path after this folder (Debian's
     /usr/lib/python3.X/sitecustomize.py, a virtualenv's) is run next, as if
     this file were not there: its errors are its own.
Cost: one import at start-up and one scan of sys.path for the next
sitecustomize.  Not installed by make install (mleval.pth does that job).
"""
import importlib.util
import os
import sys

import _mleval_finder  # noqa: F401  (installs the finder on import)


def _run_next():
    here = os.path.dirname(os.path.abspath(__file__))
    seen = False
    for entry in sys.path:
        path = os.path.abspath(entry or os.curdir)
        if path == here:
            seen = True
            continue
        if not seen:
            continue
        cand = os.path.join(path, "sitecustomize.py")
        if os.path.isfile(cand):
            spec = importlib.util.spec_from_file_location("_mleval_next_sitecustomize", cand)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return


_run_next()
