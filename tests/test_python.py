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
  a connection that is not a sqlite3.Connection (apsw's, any object) gets
    LoadError saying what load() supports, and nothing is called on it
  `import mleval` works with mleval.so in the script's folder and in the
    current one (python/mleval.pth runs _mleval_finder from a site folder,
    here a scratch PYTHONUSERBASE), and a folder mleval without __init__.py
    is not imported as an empty namespace package
  `import mleval` works from a checkout's python/ on PYTHONPATH with
    mleval.so in the current and the script's folder (python/sitecustomize.py
    installs the finder: a .pth outside a site folder is never read), and the
    next sitecustomize on sys.path (Debian's, a stand-in here) still runs
  mleval.dask opens a shard by its exact name: '%41', '#' and '?' in a path
    are percent-encoded in the file: URI (no other file read, none created);
    the URI's authority is empty, so paths beginning with '//' work, and a
    folder given as a shard is named as one
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


def user_site(scratch):
    """A scratch PYTHONUSERBASE whose site folder holds the helper as make
    install lays it out (the package, _mleval_finder.py and mleval.pth):
    Python's site module reads its .pth files as it does an installed one's."""
    base = os.path.join(scratch, "userbase")
    site = subprocess.run([sys.executable, "-c", "import site; print(site.getusersitepackages())"],
                          env=dict(os.environ, PYTHONUSERBASE=base), capture_output=True,
                          text=True).stdout.strip()
    shutil.copytree(os.path.join(SRC_PY, "mleval"), os.path.join(site, "mleval"),
                    ignore=shutil.ignore_patterns("__pycache__", "_install.py"))
    for f in ("_mleval_finder.py", "mleval.pth"):
        shutil.copy(os.path.join(SRC_PY, f), site)
    return base, site


def check_beside_so(ck):
    """import mleval with mleval.so in the script's folder and in the current
    folder, the package installed in a site folder."""
    scratch = tempfile.mkdtemp(prefix="mleval_beside_")
    try:
        base, site = user_site(scratch)
        work = os.path.join(scratch, "work")
        os.makedirs(work)
        shutil.copy(LIB_SO, os.path.join(work, "mleval.so"))     # where .load ./mleval puts it
        code = ("import sqlite3, mleval; con = sqlite3.connect(':memory:'); mleval.load(con); "
                "print(mleval.__file__); print(con.execute('SELECT mleval_version() IS NOT NULL').fetchone()[0])")
        with open(os.path.join(work, "script.py"), "w") as f:
            f.write(code + "\n")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONSAFEPATH")}
        env.update(PYTHONUSERBASE=base, PYTHONDONTWRITEBYTECODE="1", MLEVAL_LIB=os.path.join(work, "mleval"))
        want = (0, "%s\n1" % os.path.join(site, "mleval", "__init__.py"))
        for what, argv, cwd in (("the script's folder", [sys.executable, os.path.join(work, "script.py")], "/"),
                                ("the current folder (python3 -c)", [sys.executable, "-c", code], work),
                                ("the current folder (python3 -m)", [sys.executable, "-m", "script"], work)):
            p = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
            ck.equal((p.returncode, p.stdout.strip() or p.stderr.strip()[-300:]), want,
                     "import mleval with mleval.so in %s" % what)
        # mleval.dask, a submodule, comes from the same package
        p = subprocess.run([sys.executable, "-c", "import mleval.dask as md; print(md.__file__)"],
                           env=env, cwd=work, capture_output=True, text=True)
        ck.equal((p.returncode, p.stdout.strip() or p.stderr.strip()[-300:]),
                 (0, os.path.join(site, "mleval", "dask.py")), "import mleval.dask beside mleval.so")
        # a folder mleval without __init__.py (an uninstall's leftover, or the
        # user's own) is passed over too, and is never an empty namespace package
        os.makedirs(os.path.join(work, "mleval"))
        p = subprocess.run([sys.executable, "-c", code], env=env, cwd=work, capture_output=True, text=True)
        ck.equal((p.returncode, p.stdout.strip() or p.stderr.strip()[-300:]), want,
                 "import mleval with an empty folder mleval in the current folder")
        shutil.rmtree(os.path.join(site, "mleval"))
        p = subprocess.run([sys.executable, "-c", "import mleval; print(mleval.__path__)"], env=env,
                           cwd=work, capture_output=True, text=True)
        ck.true(p.returncode != 0 and "ModuleNotFoundError" in p.stderr and "passed over" in p.stderr
                and "PyInit" not in p.stderr,
                "no package: ModuleNotFoundError naming what was passed over, no namespace package: %s"
                % (p.stdout.strip() or p.stderr.strip()[-300:]))
    finally:
        shutil.rmtree(scratch)


def check_checkout_pythonpath(ck):
    """PYTHONPATH=<checkout>/python, mleval.so in the current folder or the
    script's: the checkout's package is imported (issue 46), and another
    sitecustomize later on sys.path still runs."""
    scratch = tempfile.mkdtemp(prefix="mleval_ckpath_")
    try:
        work = os.path.join(scratch, "work")
        later = os.path.join(scratch, "later")
        os.makedirs(work)
        os.makedirs(later)
        shutil.copy(LIB_SO, os.path.join(work, "mleval.so"))
        with open(os.path.join(later, "sitecustomize.py"), "w") as f:
            f.write("import builtins; builtins.MLEVAL_LATER_SITECUSTOMIZE = 1\n")
        code = ("import builtins, mleval; print(mleval.__file__); "
                "print(getattr(builtins, 'MLEVAL_LATER_SITECUSTOMIZE', 0))")
        with open(os.path.join(work, "script.py"), "w") as f:
            f.write(code + "\n")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONNOUSERSITE", "PYTHONSAFEPATH")}
        env.update(PYTHONPATH=SRC_PY + os.pathsep + later, PYTHONDONTWRITEBYTECODE="1")
        want = (0, "%s\n1" % os.path.join(SRC_PY, "mleval", "__init__.py"))
        for what, argv, cwd in (("the current folder (python3 -c)", [sys.executable, "-c", code], work),
                                ("the script's folder", [sys.executable, os.path.join(work, "script.py")], "/")):
            p = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
            ck.equal((p.returncode, p.stdout.strip() or p.stderr.strip()[-300:]), want,
                     "import mleval from the checkout's python/ with mleval.so in %s" % what)
    finally:
        shutil.rmtree(scratch)


def main():
    ck = mltest.Checker("python helper")
    check_beside_so(ck)
    check_checkout_pythonpath(ck)
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

    # an interpreter that cannot load extensions: a sqlite3.Connection
    # without enable_load_extension, as pyenv's build has
    class NoLoad(sqlite3.Connection):
        def __getattribute__(self, name):
            if name in ("enable_load_extension", "load_extension"):
                raise AttributeError(name)
            return super().__getattribute__(name)
    try:
        mleval.load(sqlite3.connect(":memory:", factory=NoLoad))
        ck.true(False, "LoadError without enable_load_extension")
    except mleval.LoadError as e:
        ck.true("cannot load extensions" in str(e) and "/usr/bin/python3" in str(e),
                "LoadError says why and names /usr/bin/python3: %s" % e)

    # a connection of another binding (apsw) or any other object: load() says
    # what it supports instead of blaming the interpreter, and calls nothing
    calls = []

    class Connection:               # looks like apsw.Connection
        __module__ = "apsw"

        def enable_load_extension(self, on):
            calls.append(("enable_load_extension", on))

        def load_extension(self, path):
            calls.append(("load_extension", path))
    for con, name in ((object(), "builtins.object"), (Connection(), "apsw.Connection")):
        try:
            mleval.load(con)
            ck.true(False, "LoadError for %s" % name)
        except mleval.LoadError as e:
            msg = str(e)
            ck.true("sqlite3.Connection" in msg and name in msg and "loadable_path()" in msg
                    and "cannot load extensions" not in msg,
                    "%s: LoadError names what load() supports and what it got: %s" % (name, msg))
    ck.equal(calls, [], "load() calls nothing on a connection it does not support")
    # mleval.dask opens each shard read-only by a file: URI; a name with
    # '%41' must not read shardA.db, and '#' or '?' must not cut the path
    # (which opened a truncated name read-write and created an empty file)
    sys.path.insert(0, SRC_PY)
    import mleval.dask as md
    scratch = tempfile.mkdtemp(prefix="mleval-shardnames-")
    try:
        def shard(name, ys):
            path = os.path.join(scratch, name)
            c = sqlite3.connect(path)
            c.execute("CREATE TABLE preds(y INT)")
            c.executemany("INSERT INTO preds VALUES (?)", [(v,) for v in ys])
            c.commit()
            c.close()
            return path
        shard("shardA.db", [1, 1, 1])
        for name, ys in (("shard%41.db", [0, 1]), ("shard#1.db", [1, 0, 0, 0]), ("shard?x.db", [1] * 5)):
            path = shard(name, ys)
            before = sorted(os.listdir(scratch))
            try:
                got = md.shard_state(path, "SELECT CAST(group_concat(y, '') AS BLOB) FROM preds")
            except sqlite3.Error as e:
                got = "error: %s" % e
            ck.equal(got, "".join(map(str, ys)).encode(), "mleval.dask reads %s itself" % name)
            ck.equal(sorted(os.listdir(scratch)), before, "mleval.dask creates no file for %s" % name)
        # the URI's authority is empty, so a path beginning with "//" (the
        # same file as "/") is a path; spaces, '?', '#' and '%' in folder
        # and file names; a relative path; a folder is named as one
        sub = os.path.join(scratch, "a b?c#d%25e")
        os.makedirs(sub)
        for name, ys in (("s 1?x#y%41.db", [1, 0]), ("plain.db", [0, 0, 1])):
            path = shard(os.path.join(sub, name), ys)
            want = "".join(map(str, ys)).encode()
            for what, p in (("a //-path", "/" + path), ("a ////-path", "///" + path), ("the path", path),
                            ("a relative path", os.path.relpath(path))):
                before = sorted(os.listdir(sub))
                try:
                    got = md.shard_state(p, "SELECT CAST(group_concat(y, '') AS BLOB) FROM preds")
                except sqlite3.Error as e:
                    got = "error: %s" % e
                ck.equal(got, want, "mleval.dask reads %s %r" % (what, p))
                ck.equal(sorted(os.listdir(sub)), before, "mleval.dask creates no file for %r" % p)
        for p in (sub, "/" + sub):
            try:
                md.shard_state(p, "SELECT 1")
                ck.true(False, "a folder as a shard is an error")
            except sqlite3.OperationalError as e:
                ck.true("is a folder" in str(e), "a folder as a shard %r: %s" % (p, e))
        try:
            md.shard_state(os.path.join(scratch, "no such%20shard.db"), "SELECT 1")
            ck.true(False, "a missing shard is an error")
        except sqlite3.OperationalError:
            ck.true(not os.path.exists(os.path.join(scratch, "no such shard.db")), "a missing shard is not created")
    finally:
        shutil.rmtree(scratch)
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
