#!/bin/sh
# SPDX-License-Identifier: MIT
# sql_scripts.sh -- every user-facing script in sql/ (the demo, the audits,
# the SVD targets) must run to the end in the sqlite3 shell with -bail: a
# renamed function or a broken query fails make check, not a user.
srcdir=${srcdir:-.}
SQLITE3=${SQLITE3:-sqlite3}
MLEVAL_LIB=${MLEVAL_LIB:-ext/.libs/mleval}
case $MLEVAL_LIB in /*) ;; *) MLEVAL_LIB=$PWD/$MLEVAL_LIB ;; esac
fail=0; n=0
for f in demo.sql operating_points.sql calibration_audit.sql confound_audit.sql ordinal_audit.sql svd_targets.sql; do
    n=$((n+1))
    out=$( cd "$srcdir" && $SQLITE3_WRAPPER "$SQLITE3" -bail -cmd ".load $MLEVAL_LIB" :memory: < "sql/$f" 2>&1 )
    rc=$?
    if [ $rc -ne 0 ] || printf '%s' "$out" | grep -qE "^(Parse error|Runtime error|Error:)"; then
        echo "FAIL sql/$f (exit $rc)"; printf '%s\n' "$out" | tail -5; fail=$((fail+1))
    else
        echo "ok   sql/$f ($(printf '%s\n' "$out" | wc -l) lines)"
    fi
done
echo "sql_scripts: $n scripts, $fail failed"
[ "$fail" = 0 ]
