# SPDX-License-Identifier: MIT
"""mlbench -- shared pieces of mleval's benchmarks (bench/*.py).

The 10-million-row table is generated once by SQLite itself and cached
outside the tree ($MLEVAL_BENCH_DIR, default ~/.cache/mleval-bench).
"""
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import time

CACHE = os.environ.get("MLEVAL_BENCH_DIR", os.path.expanduser("~/.cache/mleval-bench"))


def connect(lib, path, floor=None):
    """A connection to path with mleval loaded (and the floor module, when given)."""
    con = sqlite3.connect(path)
    con.enable_load_extension(True)
    con.load_extension(lib)
    if floor:
        con.load_extension(floor)
    return con


def cached_db(name, fill):
    """Path of the cached database CACHE/name, made once by fill(con) on a
    temporary file that is renamed into place when it is complete."""
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, name)
    if os.path.exists(path):
        return path
    tmp = path + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    con = sqlite3.connect(tmp)
    fill(con)
    con.commit()
    con.close()
    os.rename(tmp, path)
    return path


def bench_db(n=10_000_000):
    """Path of a cached table preds(id, y, s, p, len, fold) with n rows."""
    # MATERIALIZED: each random() is drawn once per row, not once per use.
    return cached_db("preds_%d.db" % n, lambda con: con.executescript("""
      CREATE TABLE preds(id INTEGER PRIMARY KEY, y INT, s REAL, p REAL, len INT, fold INT);
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < %d),
      base AS MATERIALIZED (
        SELECT i, (abs(random()) %% 100) < 12 AS y, (abs(random()) %% 1000003) / 1000003.0 AS u,
               abs(random()) %% 80 AS l FROM c)
      INSERT INTO preds(id, y, s, p, len, fold)
        SELECT i, y, round(0.75*u + 0.25*y, 6), round(0.75*u + 0.25*y, 6), 20 + l + 60*y, i %% 5 FROM base;
    """ % (n,)))


def bench_db_w(n=1_000_000):
    """Path of a cached table predsw(id, y, s, p, w, len) with n rows: bench_db's
    rows (scores rounded to 6 decimals, so many tie) with a real-valued weight
    w uniform in [0.5, 2] -- the weights whose tie-group sums round (issue 38;
    an integer weight column never takes that path)."""
    src = bench_db(n) if n >= 1_000_000 else bench_db(1_000_000)

    def make(con):
        con.execute("ATTACH ? AS src", (src,))
        con.executescript("""
          CREATE TABLE predsw(id INTEGER PRIMARY KEY, y INT, s REAL, p REAL, w REAL, len INT);
          INSERT INTO predsw SELECT id, y, s, p, 0.5 + 1.5 * ((abs(random()) %% 1000003) / 1000003.0), len
            FROM src.preds WHERE id <= %d;
        """ % n)
    return cached_db("predsw_%d.db" % n, make)


def parse_args(doc, rows=True):
    """The options every benchmark takes: --lib, and --rows/--repeat."""
    import argparse
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--lib", default="ext/.libs/mleval")
    ap.add_argument("--floor", default="bench/.libs/floor",
                    help="the no-op aggregates of bench/floor.c (floor2, floor3)")
    if rows:
        ap.add_argument("--rows", type=int, default=10_000_000)
        ap.add_argument("--repeat", type=int, default=5)
    add_markdown(ap)
    return ap.parse_args()


def add_markdown(ap):
    """--markdown: print only RESULTS.md's tables (see markdown())."""
    ap.add_argument("--markdown", action="store_true",
                    help="print on stdout only the tables of bench/RESULTS.md, each between its markers "
                         "(bench/results.py writes them into the file); the console lines go to stderr")


def console(a):
    """The print function for a benchmark's console lines: stdout, or
    stderr under --markdown so that stdout holds only the tables."""
    out = sys.stderr if getattr(a, "markdown", False) else sys.stdout
    return lambda *args, **kw: print(*args, file=out, flush=True, **kw)


def markdown(section, header, rows, note=None):
    """Print one table of bench/RESULTS.md between its markers
    <!-- bench:section --> and <!-- /bench:section -->: header (the column
    names), a separator and rows (lists of cells, already formatted), after
    note, a sentence above the table.  bench/results.py replaces the text
    between the same markers in RESULTS.md with what is printed here."""
    print("<!-- bench:%s -->" % section)
    if note:
        print(note)
        print()
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(" --- " for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print("<!-- /bench:%s -->" % section)
    sys.stdout.flush()


def timeit(fn, repeat=5):
    """Median and min seconds of fn() over repeat runs (after one warm-up)."""
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), min(ts)


def wall_cpu(fn, repeat, warmup=True):
    """Median wall and CPU seconds of fn() over repeat runs (after one
    warm-up when asked).  On a shared, loaded machine the CPU time (this
    process: SQLite and mleval run in it) is the steadier figure."""
    if warmup:
        fn()
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def peak_rss_kb(cmd, stdin_text):
    """Peak RSS (KiB) of a child process running cmd with stdin_text."""
    code = ("import resource, subprocess, sys; "
            "subprocess.run(sys.argv[1:], input=sys.stdin.read(), text=True, check=True, stdout=subprocess.DEVNULL); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run(["/usr/bin/python3", "-c", code] + cmd, input=stdin_text, text=True,
                         capture_output=True, check=True)
    return int(out.stdout.strip())


_STATUS_LIB = None


def peak_bytes(con, sql):
    """SQLite's own count of memory (sqlite3_status64 MEMORY_USED high-water, the
    process's libsqlite3) above its level before sql runs on con (tests/mltest.py's
    peak_bytes, for the benches)."""
    global _STATUS_LIB
    import ctypes
    import ctypes.util
    if _STATUS_LIB is None:
        _STATUS_LIB = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
    cur, hi = ctypes.c_int64(), ctypes.c_int64()
    _STATUS_LIB.sqlite3_status64(0, ctypes.byref(cur), ctypes.byref(hi), 1)
    base = cur.value
    con.execute(sql).fetchall()
    _STATUS_LIB.sqlite3_status64(0, ctypes.byref(cur), ctypes.byref(hi), 0)
    return hi.value - base
