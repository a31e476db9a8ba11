#!/bin/sh
# SPDX-License-Identifier: MIT
# sql_scripts.sh -- every user-facing script in sql/ (the demo, the audits,
# the SVD targets) must run to the end in the sqlite3 shell with -bail: a
# renamed function or a broken query fails make check, not a user.  The
# worked examples the docs quote (listed in $golden) must also print exactly
# their sql/NAME.expected (UPDATE=1 rewrites it: review the diff), and every
# line of a docs excerpt marked <!-- excerpt of sql/NAME.expected --> must be
# a line of that file, so the docs cannot go stale.
srcdir=${srcdir:-.}
SQLITE3=${SQLITE3:-sqlite3}
MLEVAL_LIB=${MLEVAL_LIB:-ext/.libs/mleval}
case $MLEVAL_LIB in /*) ;; *) MLEVAL_LIB=$PWD/$MLEVAL_LIB ;; esac
fail=0; n=0
golden="clinical_audit.sql monitoring.sql"
for f in demo.sql operating_points.sql calibration_audit.sql confound_audit.sql ordinal_audit.sql svd_targets.sql p_adjust.sql incremental.sql shards.sql clinical_audit.sql monitoring.sql; do
    n=$((n+1))
    out=$( cd "$srcdir" && $SQLITE3_WRAPPER "$SQLITE3" -bail -cmd ".load $MLEVAL_LIB" :memory: < "sql/$f" 2>&1 )
    rc=$?
    exp="$srcdir/sql/${f%.sql}.expected"
    case " $golden " in *" $f "*) compare=1 ;; *) compare=0 ;; esac
    if [ $rc -ne 0 ] || printf '%s' "$out" | grep -qE "^(Parse error|Runtime error|Error:)"; then
        echo "FAIL sql/$f (exit $rc)"; printf '%s\n' "$out" | tail -5; fail=$((fail+1))
    elif [ $compare = 1 ] && [ "${UPDATE:-0}" = 1 ]; then
        printf '%s\n' "$out" > "$exp"; echo "wrote sql/${f%.sql}.expected"
    elif [ $compare = 1 ] && ! printf '%s\n' "$out" | diff -u "$exp" -; then
        echo "FAIL sql/$f (output differs from sql/${f%.sql}.expected)"; fail=$((fail+1))
    else
        echo "ok   sql/$f ($(printf '%s\n' "$out" | wc -l) lines)"
    fi
done
# Docs excerpts of the expected outputs: every line of each marked block
# must be a line of the file it names.
for doc in "$srcdir"/docs/*.md; do
    for name in $(sed -n 's/^<!-- excerpt of sql\/\([a-z_]*\)\.expected -->$/\1/p' "$doc"); do
        n=$((n+1))
        excerpt=$(awk -v m="<!-- excerpt of sql/$name.expected -->" '
            $0 == m { on = 1; next }
            on == 1 && /^```/ { on = 2; next }
            on == 2 && /^```/ { exit }
            on == 2 { print }' "$doc")
        missing=$(printf '%s\n' "$excerpt" | while IFS= read -r line; do
            grep -qxF -- "$line" "$srcdir/sql/$name.expected" || printf '%s\n' "$line"; done)
        [ -n "$excerpt" ] || missing="(an empty excerpt)"
        if [ -n "$missing" ]; then
            echo "FAIL $(basename "$doc"): excerpt lines not in sql/$name.expected:"; printf '%s\n' "$missing" | head -5; fail=$((fail+1))
        else
            echo "ok   $(basename "$doc"): excerpt of sql/$name.expected"
        fi
    done
done
# sql/plots.sql writes the pictures of docs/plots.md: run it in a scratch
# directory and compare with the committed docs/img (stale pictures fail).
n=$((n+1))
scratch=${TMPDIR:-/tmp}/mleval-plots.$$
mkdir -p "$scratch/docs/img"
abs_srcdir=$(cd "$srcdir" && pwd)
ln -s "$abs_srcdir/sql" "$scratch/sql"
out=$( cd "$scratch" && $SQLITE3_WRAPPER "$SQLITE3" -bail -cmd ".load $MLEVAL_LIB" :memory: < sql/plots.sql 2>&1 )
rc=$?
stale=""
for svg in "$scratch"/docs/img/*.svg; do
    cmp -s "$svg" "$abs_srcdir/docs/img/$(basename "$svg")" || stale="$stale $(basename "$svg")"
done
if [ $rc -ne 0 ] || [ -n "$stale" ] || [ "$(ls "$scratch"/docs/img/*.svg | wc -l)" -ne 5 ]; then
    echo "FAIL sql/plots.sql (exit $rc; differs from docs/img:$stale)"; printf '%s\n' "$out" | tail -5; fail=$((fail+1))
else
    echo "ok   sql/plots.sql (5 SVGs, equal to docs/img)"
fi
rm -rf "$scratch"
echo "sql_scripts: $n scripts, $fail failed"
[ "$fail" = 0 ]
