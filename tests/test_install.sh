#!/bin/sh
# SPDX-License-Identifier: MIT
# test_install.sh -- make install works like a library's (SPEC "Loading"):
#   make install prefix=<build tree>/_install_check, then
#   - the installed mleval.so loads by full path and links no BLAS/LAPACK/CUDA
#   - its back ends are in the private $(pkglibdir) (lib/mleval/), not in
#     lib/, and svd_bench finds them there, from the installed library's own
#     location (not the build tree)
#   - .load mleval by name (the loader finds it through LD_LIBRARY_PATH here,
#     through ldconfig's cache after a real install), in the shell and in Python
#   - the installed Python helper finds the installed library, and imports
#     with mleval.so in the script's or the current folder (mleval.pth)
#   - mleval.pc says that prefix (it is written at make time, not by
#     configure), and docs/loading.md's commands for a prefix of one's own
#     (.load by full path, PYTHONPATH, the installed mleval-report) work
#   - make uninstall removes every file
# and the same layout with DESTDIR.  Needs $MAKE and $abs_top_builddir
# (set by make check).
set -u
: "${MAKE:=make}" "${abs_top_builddir:=$PWD}" "${SQLITE3:=sqlite3}" "${ORACLE_PYTHON:=/usr/bin/python3}"
inst=$abs_top_builddir/_install_check
dest=$abs_top_builddir/_destdir_check
fail=0; n=0
trap 'rm -rf "$inst" "$dest"' EXIT
check() {   # check WHAT GOT WANT
    n=$((n+1))
    if [ "$2" != "$3" ]; then echo "FAIL $1: got '$2', want '$3'"; fail=$((fail+1)); else echo "ok   $1"; fi
}
q() { "$SQLITE3" -batch :memory: -cmd ".load $1" "$2" 2>&1; }

rm -rf "$inst" "$dest"
if ! $MAKE -s -C "$abs_top_builddir" install prefix="$inst" >"$abs_top_builddir/_install_check.log" 2>&1; then
    cat "$abs_top_builddir/_install_check.log"; echo "FAIL make install prefix=$inst"; exit 1
fi
rm -f "$abs_top_builddir/_install_check.log"
lib=$inst/lib/mleval
version=$(q "$lib" "SELECT mleval_version()")
check "installed mleval.so loads by full path" "$(q "$lib" "SELECT mleval_version() IS NOT NULL")" 1
check "installed mleval.so links no BLAS, LAPACK, gfortran, CUDA" \
      "$(ldd "$lib.so" | grep -ciE 'lapack|blas|gfortran|cuda')" 0
# mleval.pc says the prefix make install was given, not configure's
pc=$inst/lib/pkgconfig/mleval.pc
check "mleval.pc is installed" "$(test -f "$pc" && echo yes)" yes
for v in prefix:"$inst" libdir:"$inst/lib" extensiondir:"$inst/lib"; do
    check "mleval.pc: ${v%%:*} is the install prefix's" \
          "$(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$inst/lib/pkgconfig" pkg-config --variable="${v%%:*}" mleval 2>&1)" "${v#*:}"
done
check "mleval.pc names no other prefix" "$(grep -c '^[a-z_]*dir=/usr/local\|^prefix=/usr/local' "$pc")" 0
# docs/loading.md, "Installed under a prefix of your own": these very commands
check "docs: .load DIR/lib/mleval (full path)" \
      "$(cd / && "$SQLITE3" -batch :memory: -cmd ".load $inst/lib/mleval" 'SELECT mleval_version()' 2>&1)" "$version"
pyver=$("$ORACLE_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
check "docs: PYTHONPATH=DIR/lib/python3.X/dist-packages imports the helper, which loads DIR's library" \
      "$(cd / && env -u MLEVAL_LIB PYTHONPATH="$inst/lib/python$pyver/dist-packages" PYTHONDONTWRITEBYTECODE=1 "$ORACLE_PYTHON" -c 'import sqlite3, mleval; con = sqlite3.connect(":memory:"); mleval.load(con); print(con.execute("SELECT mleval_version()").fetchone()[0], mleval.loadable_path())' 2>&1)" \
      "$version $inst/lib/mleval.so"
csvdir=$(mktemp -d)
printf 'y,s\n0,0.1\n0,0.4\n1,0.35\n1,0.8\n0,0.2\n1,0.9\n' > "$csvdir/t.csv"
check "docs: DIR/bin/mleval-report loads DIR's library (no MLEVAL_LIB)" \
      "$(cd "$csvdir" && env -u MLEVAL_LIB "$inst/bin/mleval-report" t.csv t --label y --score s -o r.html 2>&1 && grep -c 'Evaluation report: t' r.html)" 2
rm -rf "$csvdir"
check "no back end next to mleval.so in lib/" "$(ls "$inst/lib" | grep -c '^mleval_')" 0
lapacke=$(q "$lib" "SELECT mleval_build_info() ->> '\$.lapacke'")
if [ "$lapacke" = 1 ]; then
    check "the CPU back end is in lib/mleval/" "$(test -f "$inst/lib/mleval/mleval_cpu.so" && echo yes)" yes
    check "svd_bench loads it from the installed lib/mleval/" \
          "$(q "$lib" "SELECT mleval_build_info() ->> '\$.backends.cpu.path'")" "$inst/lib/mleval/mleval_cpu.so"
    check "installed svd_bench runs" "$(q "$lib" "SELECT count(*) FROM svd_bench(6, 5, 2, 0, 1)")" 3
fi
check ".load mleval by name (shell)" \
      "$(cd / && LD_LIBRARY_PATH=$inst/lib "$SQLITE3" -batch :memory: -cmd '.load mleval' 'SELECT mleval_version()' 2>&1)" "$version"
check "load_extension('mleval') by name (Python)" \
      "$(cd / && LD_LIBRARY_PATH=$inst/lib "$ORACLE_PYTHON" -c 'import sqlite3; c = sqlite3.connect(":memory:"); c.enable_load_extension(True); c.load_extension("mleval"); print(c.execute("SELECT mleval_version()").fetchone()[0])' 2>&1)" "$version"
init=$(find "$inst" -path '*/mleval/__init__.py' | head -n 1)
if [ -n "$init" ]; then
    pydir=$(dirname "$(dirname "$init")")
    check "the installed Python helper finds the installed library" \
          "$(cd / && env -u MLEVAL_LIB PYTHONPATH="$pydir" PYTHONDONTWRITEBYTECODE=1 "$ORACLE_PYTHON" -c 'import sqlite3, mleval; c = sqlite3.connect(":memory:"); mleval.load(c); print(mleval.loadable_path(), c.execute("SELECT mleval_version()").fetchone()[0])' 2>&1)" \
          "$inst/lib/mleval.so $version"
    case $pydir in
        */dist-packages|*/site-packages) check "the helper goes to a site directory" yes yes ;;
        *) check "the helper goes to a site directory" "$pydir" ".../dist-packages" ;;
    esac
    # the installed site folder read as Python reads one (its .pth files run):
    # a scratch PYTHONUSERBASE whose user site is that folder.  import mleval
    # works with mleval.so in the script's folder and in the current one.
    ub=$(mktemp -d)
    usite=$(PYTHONUSERBASE=$ub "$ORACLE_PYTHON" -c 'import site; print(site.getusersitepackages())')
    mkdir -p "$(dirname "$usite")" && ln -s "$pydir" "$usite"
    cp "$lib.so" "$ub/mleval.so"
    printf 'import sqlite3, mleval; c = sqlite3.connect(":memory:"); mleval.load(c); print(mleval.__file__, c.execute("SELECT mleval_version()").fetchone()[0])\n' > "$ub/script.py"
    check "installed helper: import mleval with mleval.so in the script's folder" \
          "$(cd / && env -u MLEVAL_LIB -u PYTHONPATH -u PYTHONNOUSERSITE PYTHONUSERBASE="$ub" PYTHONDONTWRITEBYTECODE=1 "$ORACLE_PYTHON" "$ub/script.py" 2>&1 | tail -n 1)" \
          "$usite/mleval/__init__.py $version"
    check "installed helper: import mleval with mleval.so in the current folder" \
          "$(cd "$ub" && env -u MLEVAL_LIB -u PYTHONPATH -u PYTHONNOUSERSITE PYTHONUSERBASE="$ub" PYTHONDONTWRITEBYTECODE=1 "$ORACLE_PYTHON" -c "$(cat "$ub/script.py")" 2>&1 | tail -n 1)" \
          "$usite/mleval/__init__.py $version"
    rm -rf "$ub"
else
    check "make install installs the Python helper" "" "<prefix>/lib/python3.X/dist-packages/mleval/__init__.py"
fi
$MAKE -s -C "$abs_top_builddir" uninstall prefix="$inst" >/dev/null 2>&1
check "make uninstall leaves no file" "$(find "$inst" -type f -o -type l | wc -l)" 0

# DESTDIR: the same layout under the staging directory, found from there
if $MAKE -s -C "$abs_top_builddir" install DESTDIR="$dest" >/dev/null 2>&1; then
    dlib=$(find "$dest" -name mleval.so | head -n 1)
    ddir=$(dirname "$dlib")
    check "DESTDIR: mleval.so loads by full path" "$(q "${dlib%.so}" "SELECT mleval_version()")" "$version"
    if [ "$lapacke" = 1 ]; then
        check "DESTDIR: svd_bench finds the staged back end" \
              "$(q "${dlib%.so}" "SELECT mleval_build_info() ->> '\$.backends.cpu.path'")" "$ddir/mleval/mleval_cpu.so"
    fi
    check "DESTDIR: no ldconfig alias (the hook runs only for real installs)" \
          "$(test -e "$ddir/libmleval.so.0" && echo present || echo absent)" absent
else
    check "make install DESTDIR=$dest" failed ok
fi
echo "test_install: $n checks, $fail failed"
[ "$fail" = 0 ]
