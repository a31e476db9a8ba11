# SPDX-License-Identifier: MIT
"""mltest -- shared helpers for mleval's differential suites.

Run with Debian's /usr/bin/python3 (its sqlite3 module can load extensions;
the pyenv python first on PATH cannot).  The library path comes from
$MLEVAL_LIB (set by make check), defaulting to ext/.libs/mleval.

Every suite builds random datasets, asks SQLite (GROUP BY, and OVER with many
frame shapes) and asks the oracle (scikit-learn, numpy, or a formula written
from SPEC), and compares.  Window frames are compared frame by frame: the rows
of each frame are taken from SQLite's own json_group_array(id) OVER the same
frame, so the oracle sees exactly the rows the extension saw.
"""
import json
import math
import os
import sqlite3
import struct
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")

LIB = os.environ.get("MLEVAL_LIB") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "ext", ".libs", "mleval")

# Frame shapes every window test runs through.  {o} is the ORDER BY column.
FRAMES = [
    "ORDER BY {o} ROWS BETWEEN 7 PRECEDING AND CURRENT ROW",
    "ORDER BY {o} ROWS BETWEEN 3 PRECEDING AND 5 FOLLOWING",
    "ORDER BY {o} ROWS BETWEEN CURRENT ROW AND 9 FOLLOWING",
    "ORDER BY {o} ROWS BETWEEN 2 FOLLOWING AND 12 FOLLOWING",
    "ORDER BY {o} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
    "ORDER BY {o} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
    "ORDER BY {o} RANGE BETWEEN 3 PRECEDING AND 2 FOLLOWING",
    "ORDER BY {o} GROUPS BETWEEN 2 PRECEDING AND 1 FOLLOWING",
    "ORDER BY {o}",
    "PARTITION BY g ORDER BY {o} ROWS BETWEEN 5 PRECEDING AND CURRENT ROW",
    "PARTITION BY g ORDER BY {o} RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
    "PARTITION BY g",
    "ORDER BY {o} ROWS BETWEEN 4 PRECEDING AND 4 FOLLOWING EXCLUDE CURRENT ROW",
    # frames starting FOLLOWING: SQLite steps the next frame's rows before it
    # removes the last frame's, so the state briefly holds both
    "ORDER BY {o} ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING",
]


def connect():
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(LIB)
    return con


class Checker:
    """Counts comparisons; remembers the first failures; exits non-zero."""

    def __init__(self, name):
        self.name = name
        self.n = 0
        self.failures = []

    def close(self, got, want, what, rel=1e-12, abs_=1e-14):
        self.n += 1
        if want is None or (isinstance(want, float) and math.isnan(want)):
            ok = got is None
        elif got is None:
            ok = False
        else:
            ok = abs(got - want) <= rel * abs(want) + abs_
        if not ok:
            self.failures.append("%s: got %r, want %r" % (what, got, want))
        return ok

    def equal(self, got, want, what):
        self.n += 1
        if got != want:
            self.failures.append("%s: got %r, want %r" % (what, got, want))

    def true(self, cond, what):
        self.n += 1
        if not cond:
            self.failures.append(what)

    def error(self, con, sql, args, expect, what=None):
        """The statement must fail with exactly the message expect."""
        self.n += 1
        try:
            con.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            if str(e) != expect:
                self.failures.append("%s: error %r, want %r" % (what or sql, str(e), expect))
            return
        except UnicodeDecodeError as e:      # a message cut inside a UTF-8 character
            self.failures.append("%s: the error message is not valid UTF-8 (%s)" % (what or sql, e))
            return
        self.failures.append("%s: no error, want %r" % (what or sql, expect))

    def finish(self):
        for t in _unchecked_tests():
            self.failures.append("test %s: a test under mltest.covers() must check" % t)
        for f in self.failures[:25]:
            print("FAIL", f)
        print("%s: %d comparisons, %d failures" % (self.name, self.n, len(self.failures)))
        sys.exit(1 if self.failures else 0)


def load(con, cols, rows, table="t"):
    """(Re)creates table with an integer primary key id and the given columns."""
    con.execute("DROP TABLE IF EXISTS %s" % table)
    con.execute("CREATE TABLE %s(id INTEGER PRIMARY KEY, %s)" % (table, ", ".join(cols)))
    con.executemany("INSERT INTO %s(%s) VALUES (%s)" % (table, ", ".join(cols), ",".join("?" * len(cols))),
                    rows)


def frames(con, frame, order="id", table="t"):
    """[(id, [ids in its frame])] for every row, in id order, as SQLite sees it."""
    spec = frame.format(o=order)
    q = "SELECT id, json_group_array(id) OVER (%s) FROM %s ORDER BY id" % (spec, table)
    return [(i, json.loads(j)) for i, j in con.execute(q)]


def window(con, expr, frame, order="id", table="t"):
    """{id: value of expr OVER frame}."""
    spec = frame.format(o=order)
    q = "SELECT id, %s OVER (%s) FROM %s ORDER BY id" % (expr, spec, table)
    return dict(con.execute(q).fetchall())


WEIGHT_KINDS = ("exponential", "integer", "steps", "log-uniform", "ipw", "small")


def random_weights(rng, n, y, kind):
    """Sample weights of one kind (WEIGHT_KINDS): exponential(1); integers
    0..3 (0: the row dropped; integers: the rows repeated); the steps 0, 0.5,
    1.5, 3.25; log-uniform over 1e-6..1e6; inverse-probability weights of
    downsampled controls (positives 1, negatives 1/0.1, 1/0.25 or 1/0.5);
    small (uniform 0..0.2: totals below a bin count)."""
    if kind == "exponential":
        return rng.exponential(1.0, n)
    if kind == "integer":
        return rng.integers(0, 4, n).astype(float)
    if kind == "steps":
        return rng.choice([0.0, 0.5, 1.5, 3.25], n)
    if kind == "log-uniform":
        return 10.0 ** rng.uniform(-6, 6, n)
    if kind == "ipw":
        return np.where(y == 1, 1.0, 1.0 / rng.choice([0.1, 0.25, 0.5], n))
    if kind == "small":
        return rng.uniform(0, 0.2, n)
    raise ValueError(kind)


def json_result(ck, got, want, keys, what, null_says="NULL"):
    """The first checks of a JSON result against its reference: NULL where
    the reference is None, else the parsed object with exactly keys, in
    order.  The parsed object, or None when there is nothing more to check."""
    if want is None:
        ck.equal(got, None, what + ": " + null_says)
        return None
    if got is None:
        ck.true(False, what + ": got NULL")
        return None
    g = json.loads(got)
    ck.equal(list(g), keys, what + ": keys")
    return g


def has_twins(ck, con, names):
    """Each function of names has its weighted twin NAME_w in the records."""
    table = json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])
    twins = {f["weighted_of"]: f["name"] for f in table if f["weighted_of"]}
    for name in names:
        ck.equal(twins.get(name), name + "_w", name + " has a weighted twin")


def same_as_aggregate(ck, con, expr, order, what, table="t"):
    """expr GROUP BY g, and expr OVER every frame shape, each equal bit for
    bit to expr over the same rows as a plain aggregate (rows have ids
    1..n and a group column g)."""
    for g, v in con.execute("SELECT g, %s FROM %s GROUP BY g" % (expr, table)):
        ck.equal(v, con.execute("SELECT %s FROM %s WHERE g = ?" % (expr, table), (g,)).fetchone()[0],
                 "%s GROUP BY group %d %s" % (expr, g, what))
    for shape, rid, idx, (v,) in each_frame(con, [expr], order=order, table=table):
        ids = ",".join(str(k + 1) for k in idx) or "NULL"
        agg = con.execute("SELECT %s FROM %s WHERE id IN (%s)" % (expr, table, ids)).fetchone()[0]
        ck.equal(v, agg, "%s OVER (%s) row %d %s" % (expr, shape, rid, what))


def each_frame(con, exprs, shapes=FRAMES, order="ts", table="t"):
    """For every frame shape and every row: (shape, row id, the 0-based
    indices of the rows in its frame -- ids are 1..n --, [each expr's value
    OVER that frame])."""
    for shape in shapes:
        members = frames(con, shape, order, table)
        got = [window(con, e, shape, order, table) for e in exprs]
        for rid, ids in members:
            yield shape, rid, [i - 1 for i in ids], [g[rid] for g in got]


def random_scores(rng, n, kind):
    """Scores of several shapes: continuous, heavy ties, integers, signed zeros."""
    if kind == "uniform":
        return rng.random(n)
    if kind == "ties":
        return np.round(rng.random(n), 1)
    if kind == "integer":
        return rng.integers(-3, 4, n).astype(float)
    if kind == "zeros":
        return rng.choice([-0.0, 0.0, 1.0, -1.0], n)
    if kind == "normal":
        return rng.normal(0, 1e3, n)
    raise ValueError(kind)


# ------------------------------------------------ state bytes (the state suites)

def crc32c(data):
    """CRC-32C (Castagnoli) of bytes: the state's checksum (ml_crc32c)."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def reseal(blob):
    """The same state bytes with a fresh checksum (a corruption that the
    checksum does not catch, for the checks behind it)."""
    body = bytes(blob[:-4])
    return body + struct.pack("<I", crc32c(body))


def varint(v):
    """The state format's unsigned LEB128 varint of v >= 0."""
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


# ------------------------------------------ which test covers which function
#
# Every differential test -- a function that compares results with a
# reference (scikit-learn, scipy, R, or numpy written from SPEC) -- names the
# functions it checks: @mltest.covers("pr_auc", "pr_auc_w").  The names are
# string literals so that the suites can be read without running them
# (covers_map(): tests/gen_test_map.py writes tests/README.md's table from it).
# A decorated test counts only if it ran and made at least one check
# (Checker.n grew); Checker.finish() fails for a decorated test of the suite
# that did not.  Each family suite ends with require_family(), which fails for
# a record of its family that no such test covers (issue 45, item 2).

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
_DECLARED = []      # (module, test name, names) of every decorated test imported
_RAN = {}           # (module, test name) -> checks it made


def _checker_in(args, kwargs, result, module_globals=None):
    """The Checker among a test's arguments, else its result, else the one
    Checker at its module's top level (test_plots.py's chk)."""
    for a in list(args) + list(kwargs.values()) + [result]:
        if isinstance(a, Checker):
            return a
    found = [v for v in (module_globals or {}).values() if isinstance(v, Checker)]
    return found[0] if len(found) == 1 else None


def covers(*names):
    """Decorator: the test compares each of names (function names, as in
    their records) with a reference.  The test takes a Checker among its
    arguments, returns one, or checks with its module's one Checker."""
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError("covers() takes the names of functions, as string literals")

    def wrap(fn):
        key = (fn.__module__, fn.__name__)
        _DECLARED.append((key[0], key[1], names))

        def run(*args, **kwargs):
            ck = _checker_in(args, kwargs, None, fn.__globals__)
            before = ck.n if ck is not None else 0
            result = fn(*args, **kwargs)
            ck = ck or _checker_in((), {}, result)
            if ck is None:
                raise TypeError("%s: a test under mltest.covers() takes, returns or shares (a module's one"
                                " Checker) a Checker" % fn.__name__)
            _RAN[key] = _RAN.get(key, 0) + ck.n - before
            return result
        run.__name__, run.__doc__, run.__wrapped__ = fn.__name__, fn.__doc__, fn
        run.covers = names
        return run
    return wrap


def _unchecked_tests():
    """The decorated tests of the running suite (__main__) that did not run
    or made no check."""
    return ["%s (covers %s) %s" % (t, ", ".join(n), "made no check" if (m, t) in _RAN else "did not run")
            for m, t, n in _DECLARED if m == "__main__" and _RAN.get((m, t), 0) == 0]


def _suites_in_make_check():
    """The tests/*.py that make check runs (Makefile.am's TESTS), or None
    where Makefile.am cannot be read."""
    try:
        with open(os.path.join(TESTS_DIR, "..", "Makefile.am"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    import re
    out = set()
    for m in re.finditer(r"^TESTS\s*\+?=((?:.*\\\n)*.*)$", text, re.M):
        out |= set(re.findall(r"tests/(test_\w+\.py)", m.group(1)))
    return out


def covers_map(tests_dir=TESTS_DIR):
    """{function name: [(file, test function)]} of every @mltest.covers(...)
    in tests/test_*.py that make check runs, read with the ast module
    (nothing is run)."""
    import ast
    run = _suites_in_make_check()
    out = {}
    for fname in sorted(os.listdir(tests_dir)):
        if not (fname.startswith("test_") and fname.endswith(".py")) or (run is not None and fname not in run):
            continue
        with open(os.path.join(tests_dir, fname), encoding="utf-8") as f:
            tree = ast.parse(f.read(), fname)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for d in node.decorator_list:
                if (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "covers"
                        and isinstance(d.func.value, ast.Name) and d.func.value.id == "mltest"):
                    for a in d.args:
                        if not (isinstance(a, ast.Constant) and isinstance(a.value, str)):
                            raise ValueError("%s:%d: mltest.covers() takes string literals" % (fname, d.lineno))
                        out.setdefault(a.value, []).append((fname, node.name))
    return out


def records(con):
    """mleval_functions()'s records, a list of dicts."""
    return json.loads(con.execute("SELECT mleval_functions()").fetchone()[0])


def require_family(ck, con, family, suite):
    """Every record of family (its weighted twins too: they carry the
    family) has a differential test: a test of this suite (suite: its
    __file__) under mltest.covers(name) that ran and made checks, or one of
    another suite that make check runs.  Fails with '<name>: record of
    family <f> has no differential test' otherwise."""
    mine = os.path.basename(suite)
    static = covers_map()
    ran = {n for m, t, names in _DECLARED if m == "__main__" and _RAN.get((m, t), 0) > 0 for n in names}
    fam = sorted(f["name"] for f in records(con) if f["family"] == family)
    ck.true(len(fam) > 0, "family %s has records" % family)
    for name in fam:
        elsewhere = [f for f, _ in static.get(name, []) if f != mine]
        ck.true(name in ran or bool(elsewhere), "%s: record of family %s has no differential test" % (name, family))


_STATUS_LIB = None


def peak_bytes(con, sql):
    """SQLite's own count of memory (sqlite3_status64 MEMORY_USED high-water, the
    process's libsqlite3, the one Python's sqlite3 uses) above its level before
    sql runs on con: what a statement holds at its peak."""
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
