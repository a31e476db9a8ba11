# SPDX-License-Identifier: MIT
"""_mleval_finder -- lets `import mleval` find the Python helper even when a
file mleval.so (the SQLite extension) lies in the script's or the current
folder.

Python imports any file NAME.so on sys.path as a C extension module, and the
script's folder (or, for `python3 -c` and the REPL, the current one) comes
first on sys.path: with mleval.so there, where `.load ./mleval` wants it,
`import mleval` failed with "dynamic module does not define module export
function (PyInit_mleval)".  mleval.so is never a Python module, so this
finder, put first on sys.meta_path by mleval.pth (a line `import
_mleval_finder` that Python's site module runs at start-up for each site
directory holding it), looks up the name mleval on sys.path in the usual
order but passes over:

  1. C extension files (mleval.so, mleval.cpython-*.so): the SQLite library;
  2. folders named mleval without __init__.py (namespace portions): an empty
     folder left by an uninstall, or the user's own, is not the helper.

The first regular package or module found is imported; when there is none
but something was passed over, ModuleNotFoundError names it (never an empty
namespace package, never the PyInit error); when there is nothing at all,
Python's own "No module named 'mleval'".  Other
names, and mleval's submodules (found through the package's __path__), are
left to Python.  Cost at start-up: this module's import; at `import mleval`:
one look-up per sys.path entry, as Python's own path finder does.
"""
import importlib.machinery
import sys

NAME = "mleval"


class MlevalFinder:
    """A meta path finder for the top-level name mleval only."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname != NAME or path is not None:
            return None
        passed = []
        for entry in sys.path:
            spec = importlib.machinery.PathFinder.find_spec(fullname, [entry], target)
            if spec is None:
                continue
            if spec.origin is None:                         # a namespace portion
                passed.extend(spec.submodule_search_locations or ())
            elif isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
                passed.append(spec.origin)                  # mleval.so: the SQLite extension
            else:
                return spec
        if not passed:
            return None                                     # nothing there: Python's own error
        raise ModuleNotFoundError(
            "No module named 'mleval': no folder mleval with an __init__.py on sys.path; "
            "passed over %s (a file mleval.so is the SQLite extension, and a folder without "
            "__init__.py is not the Python helper)" % ", ".join(passed), name=NAME)

    @classmethod
    def invalidate_caches(cls):
        pass


def install():
    """Puts MlevalFinder first on sys.meta_path, once per process."""
    if not any(getattr(f, "__name__", None) == "MlevalFinder" for f in sys.meta_path):
        sys.meta_path.insert(0, MlevalFinder)


install()
