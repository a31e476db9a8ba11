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
#   - mleval.pc's Libs link a C program that registers mleval itself
#   - make uninstall removes every file and mleval's own folders, and
#     import mleval fails afterwards
#   - configure again with another --prefix, make install: no libtool
#     warning about the old directory (in a copy of the tree)
# and the same layout with DESTDIR.  Needs $MAKE and $abs_top_builddir
# (set by make check).
set -u
: "${MAKE:=make}" "${abs_top_builddir:=$PWD}" "${SQLITE3:=sqlite3}" "${ORACLE_PYTHON:=/usr/bin/python3}"
inst=$abs_top_builddir/_install_check
dest=$abs_top_builddir/_destdir_check
fail=0; n=0
trap 'rm -rf "$inst" "$dest" "$abs_top_builddir/_reconf_check"' EXIT
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
# Libs links the library (mleval.so, hence -l:mleval.so); a C program that
# registers it with sqlite3_auto_extension() builds from pkg-config alone
check "pkg-config --libs mleval" \
      "$(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$inst/lib/pkgconfig" pkg-config --cflags --libs mleval 2>&1 | sed 's/ *$//')" "-L$inst/lib -l:mleval.so"
cdir=$(mktemp -d)
cat > "$cdir/auto.c" <<'EOF_C'
#include <stdio.h>
#include <sqlite3.h>
int sqlite3_mleval_init(sqlite3 *, char **, const sqlite3_api_routines *);
int main(void) {
    sqlite3 *db; sqlite3_stmt *st;
    sqlite3_auto_extension((void (*)(void))sqlite3_mleval_init);
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
    if (sqlite3_prepare_v2(db, "SELECT mleval_version()", -1, &st, 0) != SQLITE_OK) { puts(sqlite3_errmsg(db)); return 1; }
    if (sqlite3_step(st) == SQLITE_ROW) puts((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st); sqlite3_close(db); return 0;
}
EOF_C
# the build's own messages (a sanitizer runtime preloaded into the compiler
# warns about tmpnam) go to a log, shown only when the build fails
if ${CC:-cc} -o "$cdir/auto" "$cdir/auto.c" $(PKG_CONFIG_PATH="$inst/lib/pkgconfig" pkg-config --cflags --libs mleval sqlite3) \
     > "$cdir/build.log" 2>&1; then
    got=$(LD_LIBRARY_PATH=$inst/lib "$cdir/auto" 2>&1)
else
    got="the build failed: $(cat "$cdir/build.log")"
fi
check "a C program built with pkg-config --cflags --libs mleval sqlite3 runs mleval" "$got" "$version"
rm -rf "$cdir"
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
# byte code Python writes at run time (of _install.py too) goes with uninstall
if [ -n "$init" ]; then
    (cd / && env -u MLEVAL_LIB -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$pydir" "$ORACLE_PYTHON" -c 'import mleval, mleval.dask; mleval.loadable_path()')
fi
$MAKE -s -C "$abs_top_builddir" uninstall prefix="$inst" >/dev/null 2>&1
check "make uninstall leaves no file" "$(find "$inst" -type f -o -type l | wc -l)" 0
check "make uninstall leaves no folder of mleval's (lib/mleval, dist-packages/mleval, __pycache__)" \
      "$(find "$inst" -name mleval -o -name __pycache__)" ""
if [ -n "$init" ]; then
    check "after make uninstall, import mleval fails (no empty namespace package)" \
          "$(cd / && env -u MLEVAL_LIB PYTHONPATH="$pydir" PYTHONDONTWRITEBYTECODE=1 "$ORACLE_PYTHON" -c 'import mleval; print(mleval)' 2>&1 | tail -n 1)" \
          "ModuleNotFoundError: No module named 'mleval'"
fi

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
# configure run again with another --prefix in a built tree (a copy of this
# one): make install relinks the modules for the new directories, and
# libtool has no "remember to run 'libtool --finish /usr/local/lib'"
copy=$abs_top_builddir/_reconf_check
rm -rf "$copy"
abs_srcdir=$(cd "${srcdir:-.}" && pwd)
if [ "$abs_srcdir" = "$abs_top_builddir" ]; then
    mkdir "$copy" && (cd "$abs_top_builddir" && tar cf - --exclude=./_install_check --exclude=./_destdir_check \
        --exclude=./_reconf_check --exclude=./_sanitize --exclude=./_fuzz --exclude=./_metrics_only --exclude=.git . ) | (cd "$copy" && tar xf -)
    conf=./configure
else
    mkdir "$copy" && (cd "$abs_top_builddir" && tar cf - --exclude=./_install_check --exclude=./_destdir_check \
        --exclude=./_reconf_check . ) | (cd "$copy" && tar xf -)
    conf=$abs_srcdir/configure
fi
eval "set -- $(cd "$abs_top_builddir" && ./config.status --config)"
if (cd "$copy" && "$conf" -q "$@" --prefix="$copy/_prefix" >/dev/null 2>&1 && $MAKE install >"$copy/install.log" 2>&1); then
    check "configure --prefix=DIR again, make install: no 'libtool --finish'" \
          "$(grep -c 'libtool --finish' "$copy/install.log")" 0
    check "configure --prefix=DIR again, make install: the modules' .la say DIR" \
          "$(sed -n "s/^libdir='\(.*\)'/\1/p" "$copy/_prefix/lib/mleval.la")" "$copy/_prefix/lib"
else
    check "configure --prefix=DIR again and make install in a copy of the tree" failed ok
    tail -n 20 "$copy/install.log" 2>/dev/null
fi
rm -rf "$copy"

echo "test_install: $n checks, $fail failed"
[ "$fail" = 0 ]
