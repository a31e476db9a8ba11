# SPDX-License-Identifier: MIT
"""The Python helper python/mleval (SPEC "Loading"): mleval.load(con) and
mleval.loadable_path().

  load() loads the library, and extension loading is off again afterwards
  loadable_path() honours $MLEVAL_LIB, finds ext/.libs/mleval.so from a
    checkout's python/ (a copy of the package in a scratch checkout layout,
    so the test also holds in a VPATH build), finds the directory recorded in
    _install.py by make install, and falls back to the bare name "mleval"
  an interpreter whose sqlite3 cannot load extensions gets LoadError naming
    /usr/bin/python3 (a stand-in connection, and pyenv's python3 when present)
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import mltest

SRC_PY = os.path.abspath(os.path.join(os.environ.get("srcdir", os.path.join(os.path.dirname(__file__), "..")), "python"))
sys.path.insert(0, SRC_PY)
import mleval  # noqa: E402

LIB_SO = mltest.LIB + ".so"


def run_py(python, code, pythonpath, env_lib=None):
    env = {k: v for k, v in os.environ.items() if k != "MLEVAL_LIB"}
    env["PYTHONPATH"] = pythonpath
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if env_lib:
        env["MLEVAL_LIB"] = env_lib
    p = subprocess.run([python, "-c", code], env=env, cwd=tempfile.gettempdir(),
                       capture_output=True, text=True)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def main():
    ck = mltest.Checker("python helper")
    # load(): the functions are there, extension loading is off again
    con = sqlite3.connect(":memory:")
    mleval.load(con)
    ck.equal(con.execute("SELECT pr_auc(y, s) FROM (SELECT 1 y, 0.9 s UNION ALL SELECT 0, 0.1)").fetchone(),
             (1.0,), "load() registers the functions")
    try:
        con.load_extension(LIB_SO)
        ck.true(False, "extension loading is disabled after load()")
    except sqlite3.OperationalError as e:
        ck.equal(str(e), "not authorized", "extension loading is disabled after load()")
    ck.equal(mleval.loadable_path(), os.environ.get("MLEVAL_LIB", mleval.loadable_path()),
             "loadable_path() honours $MLEVAL_LIB")

    scratch = tempfile.mkdtemp(prefix="mleval_py_")
    try:
        # a checkout: python/mleval next to ext/.libs/mleval.so
        shutil.copytree(os.path.join(SRC_PY, "mleval"), os.path.join(scratch, "python", "mleval"),
                        ignore=shutil.ignore_patterns("__pycache__", "_install.py"))
        os.makedirs(os.path.join(scratch, "ext"))
        os.symlink(os.path.dirname(os.path.abspath(LIB_SO)), os.path.join(scratch, "ext", ".libs"))
        code = ("import sqlite3, mleval; con = sqlite3.connect(':memory:'); mleval.load(con); "
                "print(mleval.loadable_path()); print(con.execute('SELECT mleval_version()').fetchone()[0])")
        rc, out, err = run_py(sys.executable, code, os.path.join(scratch, "python"))
        want = os.path.join(scratch, "ext", ".libs", "mleval.so")
        ck.equal((rc, out.split("\n")[0] if out else err), (0, want), "checkout: finds ext/.libs/mleval.so")

        # installed: make install records the extension directory in _install.py
        inst = os.path.join(scratch, "prefix", "site")
        shutil.copytree(os.path.join(SRC_PY, "mleval"), os.path.join(inst, "mleval"),
                        ignore=shutil.ignore_patterns("__pycache__", "_install.py"))
        libdir = os.path.join(scratch, "prefix", "lib")
        os.makedirs(libdir)
        shutil.copy(LIB_SO, libdir)
        with open(os.path.join(inst, "mleval", "_install.py"), "w") as f:
            f.write("EXTENSIONDIR = %r\n" % libdir)
        rc, out, err = run_py(sys.executable, code, inst)
        ck.equal((rc, out.split("\n")[0] if out else err), (0, os.path.join(libdir, "mleval.so")),
                 "installed: finds the recorded extension directory")

        # nothing found: the bare name, for the dynamic loader
        os.remove(os.path.join(libdir, "mleval.so"))
        rc, out, err = run_py(sys.executable, "import mleval; print(mleval.loadable_path())", inst)
        ck.equal((rc, out), (0, "mleval"), "not found: the bare name")
        rc, out, err = run_py(sys.executable, "import mleval; print(mleval.loadable_path())", inst, "/x/y.so")
        ck.equal((rc, out), (0, "/x/y.so"), "$MLEVAL_LIB first")
    finally:
        shutil.rmtree(scratch)

    # an interpreter that cannot load extensions
    class NoLoad:
        def execute(self, *a):
            raise AssertionError("not reached")
    try:
        mleval.load(NoLoad())
        ck.true(False, "LoadError without enable_load_extension")
    except mleval.LoadError as e:
        ck.true("cannot load extensions" in str(e) and "/usr/bin/python3" in str(e),
                "LoadError says why and names /usr/bin/python3: %s" % e)
    other = shutil.which("python3")
    if other and os.path.realpath(other) != os.path.realpath(sys.executable):
        probe = "import sqlite3; print(hasattr(sqlite3.connect(':memory:'), 'enable_load_extension'))"
        rc, out, err = run_py(other, probe, SRC_PY)
        if rc == 0 and out == "False":
            rc, out, err = run_py(other, "import sqlite3, mleval; mleval.load(sqlite3.connect(':memory:'))", SRC_PY)
            ck.true(rc != 0 and "mleval.LoadError" in err and "/usr/bin/python3" in err,
                    "%s: LoadError naming /usr/bin/python3: %s" % (other, err[-300:]))
    ck.finish()


if __name__ == "__main__":
    main()
