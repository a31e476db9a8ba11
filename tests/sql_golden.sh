#!/bin/sh
# SPDX-License-Identifier: MIT
# sql_golden.sh -- runs every tests/sql/*.sql through the sqlite3 shell with
# mleval loaded and compares stdout+stderr with tests/sql/*.expected.
#   MLEVAL_LIB  path of the built library without suffix (set by make check)
#   SQLITE3     the sqlite3 shell
#   SQLITE3_WRAPPER  a command to run the shell under (make check-valgrind)
#   UPDATE=1    rewrite the .expected files (review the diff before committing!)
srcdir=${srcdir:-.}
SQLITE3=${SQLITE3:-sqlite3}
MLEVAL_LIB=${MLEVAL_LIB:-ext/.libs/mleval}
case $MLEVAL_LIB in /*) ;; *) MLEVAL_LIB=$PWD/$MLEVAL_LIB ;; esac
if ! command -v "$SQLITE3" >/dev/null 2>&1; then
    echo "sql_golden: no sqlite3 shell"; exit 99
fi
fail=0; n=0
tmp=${TMPDIR:-/tmp}/mleval-golden.$$
trap 'rm -f "$tmp"' EXIT
for f in "$srcdir"/tests/sql/*.sql; do
    n=$((n+1))
    exp=${f%.sql}.expected
    # stdbuf keeps stdout and stderr in statement order in one stream
    ( cd "$(dirname "$f")" && stdbuf -o0 -e0 $SQLITE3_WRAPPER "$SQLITE3" -batch -cmd ".load $MLEVAL_LIB" :memory: \
        < "$(basename "$f")" ) 2>&1 | sed -E 's/^(Parse|Runtime) error near line [0-9]+:/\1 error:/' > "$tmp"
    if [ "${UPDATE:-0}" = 1 ]; then cp "$tmp" "$exp"; continue; fi
    if ! diff -u "$exp" "$tmp"; then
        echo "FAIL $f"; fail=$((fail+1))
    else
        echo "ok   $f"
    fi
done
echo "sql_golden: $n files, $fail failed"
[ "$fail" = 0 ]
