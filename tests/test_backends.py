# SPDX-License-Identifier: MIT
"""svd_bench's back ends are modules of their own (SPEC "Loading"):

  mleval.so links libc and libm only: no LAPACKE, OpenBLAS, gfortran or CUDA
    (its ELF NEEDED entries, and everything ldd resolves)
  loading mleval starts no thread and maps no BLAS; the first svd_bench
    query loads the CPU module (and OpenBLAS with it)
  mleval_build_info() says which back ends were built, whether each loads,
    and from where: next to mleval.so, found through the library's own path
    (not the working directory, not even after a chdir)
  a module that is not a back end of this mleval is refused with a message
  under a hard heap limit, svd_bench fails with "out of memory" or returns
    every accuracy column -- never a NULL in their place (issue 12)
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import mltest

LIB = os.path.abspath(mltest.LIB)
SO = LIB + ".so"
LIBDIR = os.path.dirname(SO)
FORBIDDEN = ("lapack", "blas", "gfortran", "quadmath", "cuda", "cusolver", "cublas")
# direct dependencies allowed: libc, libm (and the sanitizer runtimes under make check-sanitize)
ALLOWED = ("libc.so", "libm.so", "libasan.so", "libubsan.so")


def child(code, cwd=None):
    """Runs code in a fresh interpreter (a process with nothing loaded yet)."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd or tempfile.gettempdir(),
                       capture_output=True, text=True)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def main():
    ck = mltest.Checker("back ends")

    # the metrics library's dependencies
    needed = [l.split("[")[1].rstrip("]") for l in
              subprocess.run(["readelf", "-d", SO], capture_output=True, text=True).stdout.splitlines()
              if "(NEEDED)" in l]
    ck.true(needed and all(n.startswith(ALLOWED) for n in needed), "mleval.so NEEDED only libc, libm: %s" % needed)
    ldd = subprocess.run(["ldd", SO], capture_output=True, text=True).stdout
    bad = [l.strip() for l in ldd.splitlines() if any(f in l.split("=>")[0] for f in FORBIDDEN)]
    ck.equal(bad, [], "ldd mleval.so shows no BLAS, LAPACK, gfortran or CUDA")

    con = mltest.connect()
    info = json.loads(con.execute("SELECT mleval_build_info()").fetchone()[0])
    lapacke = info["lapacke"]

    # loading starts no thread and maps no BLAS; svd_bench loads the CPU module
    code = r'''
import os, sqlite3
def threads(): return len(os.listdir("/proc/self/task"))
def mapped(word): return any(word in l for l in open("/proc/self/maps"))
before = threads()
con = sqlite3.connect(":memory:"); con.enable_load_extension(True); con.load_extension(%r)
print(before, threads(), mapped("openblas"), mapped("mleval_cpu"))
try:
    con.execute("SELECT count(*) FROM svd_bench(30, 20, 5, 0, 1)").fetchone()
except sqlite3.Error:
    pass                        # a metrics-only build: nothing to load
print(threads(), mapped("openblas"), mapped("mleval_cpu"))
''' % LIB
    rc, out, err = child(code)
    lines = out.split("\n")
    ck.equal((rc, len(lines)), (0, 2), "thread probe ran: %s" % err[-300:])
    if rc == 0 and len(lines) == 2:
        before, after, blas, cpu = lines[0].split()
        ck.equal(after, before, "loading mleval starts no thread")
        ck.equal((blas, cpu), ("False", "False"), "loading mleval maps no OpenBLAS and no back end")
        n, blas, cpu = lines[1].split()
        want = ("True", "True") if lapacke else ("False", "False")
        ck.equal((blas, cpu), want, "the first svd_bench query loads mleval_cpu.so and OpenBLAS (when built)")
        print("threads: %s before .load, %s after, %s after the first svd_bench query" % (before, after, n))

    # build info: what was built, whether it loads, from where
    be = info.get("backends", {})
    ck.equal(sorted(be), ["cpu", "cuda"], "build info names both back ends")
    ck.equal(be.get("cpu", {}).get("built"), info["lapacke"], "cpu built = lapacke")
    ck.equal(be.get("cuda", {}).get("built"), info["cuda"], "cuda built = cuda")
    if info["lapacke"]:
        ck.equal(be.get("cpu", {}).get("loads"), True, "the CPU back end loads")
        ck.equal(be.get("cpu", {}).get("path"), os.path.join(os.path.realpath(LIBDIR), "mleval_cpu.so"),
                 "the CPU back end comes from next to mleval.so")
    for name, b in be.items():
        ck.true(b.get("loads") in (True, False) and (b["loads"] or not b["built"] or b.get("error")),
                "%s: a back end that was built and does not load says why: %r" % (name, b))
    if not info["lapacke"]:
        ck.error(con, "SELECT * FROM svd_bench(4, 4)", (),
                 "svd_bench(): this build has no CPU back end (LAPACKE); "
                 "install liblapacke-dev libopenblas-dev and reconfigure")
        ck.finish()

    # found through the library's path: loaded by a relative path from
    # another directory, then the working directory changes
    rel = os.path.relpath(LIB, tempfile.gettempdir())
    code = r'''
import os, sqlite3
con = sqlite3.connect(":memory:"); con.enable_load_extension(True); con.load_extension(%r)
os.chdir("/")
print(con.execute("SELECT count(*) FROM svd_bench(9, 7, 3, 0, 1)").fetchone()[0])
''' % rel
    rc, out, err = child(code)
    ck.equal((rc, out), (0, "3"), "relative load, then chdir: the back end is still found: %s" % err[-300:])

    # a module of another interface version, or of another device, is refused
    # with a message (fake modules, compiled here: struct MlSvdBackend's head)
    scratch = tempfile.mkdtemp(prefix="mleval_be_")
    cc = os.environ.get("CC", "cc")
    fake = ("struct B { int v; const char *d; void *m, *r; };\n"
            "const struct B mleval_svd_backend = { VERSION, DEVICE, 0, 0 };\n")
    code = r'''
import sqlite3
con = sqlite3.connect(":memory:"); con.enable_load_extension(True); con.load_extension(%r)
try:
    con.execute("SELECT * FROM svd_bench(4, 4)").fetchall(); print("no error")
except sqlite3.Error as e:
    print(e)
'''
    try:
        shutil.copy(SO, scratch)
        os.makedirs(os.path.join(scratch, "mleval"))
        with open(os.path.join(scratch, "fake.c"), "w") as f:
            f.write(fake)
        where = "%s/mleval/mleval_cpu.so" % os.path.realpath(scratch)
        installed = os.path.exists(os.path.join(os.environ.get("MLEVAL_PKGLIBDIR", "/nonexistent"), "mleval_cpu.so"))
        for version, device, why in [(999, "cpu", "is not a back end of this mleval (interface 999, want 1)"),
                                     (1, "cuda", "is the cuda back end, not the cpu one")]:
            p = subprocess.run([cc, "-shared", "-fPIC", "-DVERSION=%d" % version, "-DDEVICE=\"%s\"" % device,
                                "-o", where, os.path.join(scratch, "fake.c")], capture_output=True, text=True)
            if p.returncode != 0:
                print("skipped the stale-module check: %s cannot compile: %s" % (cc, p.stderr[-200:]))
                break
            rc, out, err = child(code % os.path.join(scratch, "mleval"))
            if installed:
                print("skipped the stale-module check: an installed back end would be found after it")
                break
            ck.equal((rc, out), (0, "svd_bench(): cannot load the cpu back end: %s %s" % (where, why)),
                     "a %s module of interface %d is refused" % (device, version))
    finally:
        shutil.rmtree(scratch)

    # out of memory under a hard heap limit: an error, or every value (issue 12)
    code = r'''
import sqlite3
con = sqlite3.connect(":memory:"); con.enable_load_extension(True); con.load_extension(%r)
con.execute("PRAGMA hard_heap_limit=%%d")
try:
    rows = con.execute("SELECT method, sv_rel_error, recon_rel_error FROM svd_bench(600, 400, NULL, 0, 1)").fetchall()
    print(repr(rows))
except MemoryError:             # SQLITE_NOMEM
    print("out of memory")
''' % LIB
    for limit in (17000000, 12000000, 21000000, 25000000):
        rc, out, err = child(code % limit)
        if out == "out of memory":
            ok = True
        else:
            try:
                rows = {r[0]: r for r in eval(out)}
                ok = (sorted(rows) == ["full", "randomized", "values_only"]
                      and all(rows[m][1] is not None for m in rows)
                      and rows["full"][2] is not None and rows["randomized"][2] is not None)
            except Exception:
                ok = False
        ck.true(rc == 0 and ok, "hard_heap_limit=%d: out of memory or every value, got %s %s" % (limit, out[:200], err[-200:]))
    ck.finish()


if __name__ == "__main__":
    main()
