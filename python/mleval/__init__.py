# SPDX-License-Identifier: MIT
"""mleval -- load the mleval SQLite extension into a sqlite3 connection.

    import sqlite3, mleval
    con = sqlite3.connect("preds.db")
    mleval.load(con)
    con.execute("SELECT pr_auc(y, s) FROM preds").fetchone()

The convention sqlite-vec users know: load(con) enables extension loading,
loads the library and disables extension loading again; loadable_path()
says which file it loads.  That file is, first found:

  1. $MLEVAL_LIB, when set (make check points it at the build tree);
  2. in a checkout, when this package is imported from python/:
     ext/.libs/mleval.so next to it (the result of `make`);
  3. after `make install`: the library in the extension directory that
     make install wrote into _install.py beside this file;
  4. otherwise the bare name "mleval", which SQLite hands to the dynamic
     loader (it finds the library installed in the system's library path).

Debian's /usr/bin/python3 can load extensions; an interpreter built without
that support (pyenv's default build) has no enable_load_extension, and
load() raises LoadError saying so.
"""
import os
import sqlite3
import sys

__all__ = ["LoadError", "load", "loadable_path"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_SUFFIX = {"darwin": ".dylib", "win32": ".dll", "cygwin": ".dll"}.get(sys.platform, ".so")


class LoadError(RuntimeError):
    """The extension cannot be loaded into this connection."""


def _installed_dir():
    """The extension directory recorded by make install, or None."""
    try:
        from . import _install      # written by make install only
    except ImportError:
        return None
    return getattr(_install, "EXTENSIONDIR", None)


def loadable_path():
    """The path of the mleval library load() uses (see the module's doc)."""
    env = os.environ.get("MLEVAL_LIB")
    if env:
        return env
    candidates = [os.path.join(_HERE, os.pardir, os.pardir, "ext", ".libs", "mleval" + _SUFFIX)]
    installed = _installed_dir()
    if installed:
        candidates.append(os.path.join(installed, "mleval" + _SUFFIX))
    for path in candidates:
        if os.path.isfile(path):
            return os.path.normpath(path)
    return "mleval"


def load(con):
    """Loads mleval into the sqlite3 connection con.  Extension loading is
    enabled only for the duration of the call.  Raises LoadError when con is
    not a sqlite3.Connection (apsw or any other object: the error says what
    is supported) or this interpreter cannot load extensions, sqlite3.OperationalError when the
    library cannot be loaded."""
    if not isinstance(con, sqlite3.Connection):
        raise LoadError(
            "mleval.load(): con must be a connection of the standard library's sqlite3 "
            "module (sqlite3.Connection), got %s.%s; for another SQLite binding (apsw, "
            "...), load the library at mleval.loadable_path() with that binding's own "
            "call, e.g. apsw: con.enable_load_extension(True); con.load_extension(path)"
            % (type(con).__module__, type(con).__name__))
    if not hasattr(con, "enable_load_extension"):
        raise LoadError(
            "mleval.load(): this Python's sqlite3 module cannot load extensions "
            "(it was built without loadable-extension support, as pyenv's default "
            "build is); use Debian's /usr/bin/python3, or a Python configured with "
            "--enable-loadable-sqlite-extensions")
    con.enable_load_extension(True)
    try:
        con.load_extension(loadable_path())
    finally:
        con.enable_load_extension(False)
