#!/bin/sh
# SPDX-License-Identifier: MIT
# mleval.so exports its entry point alone (issue 40): SQLite loads extensions
# with RTLD_GLOBAL, so any other exported name enters the host process and can
# clash with another library's.  The core is compiled -fvisibility=hidden and
# linked with -export-symbols-regex; the svd back-end modules export their
# interface struct alone.  Also: no call of the library's own functions goes
# through the PLT (every PLT slot is libc's or libm's).
set -e
lib="${MLEVAL_LIB:?MLEVAL_LIB is set by make check}.so"
command -v nm >/dev/null || { echo "SKIP: nm (binutils) not installed"; exit 77; }
fail=0
got=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort | tr '\n' ' ')
if [ "$got" != "sqlite3_mleval_init " ]; then
    echo "FAIL: $lib exports: $got(want sqlite3_mleval_init alone)"; fail=1
else
    echo "ok: $lib exports sqlite3_mleval_init alone"
fi
dir=$(dirname "$lib")
for m in mleval_cpu mleval_cuda; do
    [ -f "$dir/$m.so" ] || continue
    got=$(nm -D --defined-only "$dir/$m.so" | awk '{print $3}' | sort | tr '\n' ' ')
    if [ "$got" != "mleval_svd_backend " ]; then
        echo "FAIL: $m.so exports: $got(want mleval_svd_backend alone)"; fail=1
    else
        echo "ok: $m.so exports mleval_svd_backend alone"
    fi
done
if command -v objdump >/dev/null; then
    own=$(objdump -d "$lib" | sed -n 's/.*<\(ml_[A-Za-z0-9_]*\)@plt>:$/\1/p' | sort -u | tr '\n' ' ')
    if [ -n "$own" ]; then echo "FAIL: calls through the PLT to the library's own: $own"; fail=1
    else echo "ok: no call of the library's own functions through the PLT"; fi
fi
exit $fail
