#!/bin/sh
# SPDX-License-Identifier: MIT
# test_cuda_detect.sh -- where the build looks for CUDA (issue 26):
# tools/cuda_toolkit.sh, which configure, bootstrap and .ci/run share.
#   1. On fake toolkit trees: Debian's layout (headers in PREFIX/include,
#      libraries in PREFIX/lib/x86_64-linux-gnu, and a PREFIX/lib64 that
#      holds only the loader, as Debian's /usr/lib64 does) gives the
#      multiarch directory, never lib64; NVIDIA's layout gives lib64; the
#      targets/ layout is found; a tree missing a library is not a toolkit;
#      the first prefix that has one wins; the version is CUDART_VERSION's.
#   2. install-debian --dry-run: the temporary sources line enables
#      non-free on the system's own mirror and suite (deb822 and one-line
#      sources), apt-get reads only that file, and nothing under the
#      (fake) /etc changes.
#   3. Where a real toolkit is installed: configure, run on a copy of the
#      build files with --with-cuda=FAKE, a prefix of links laid out like
#      Debian's, links the libraries from FAKE/lib/<multiarch> and reports
#      the toolkit in its summary.  Without a toolkit part 3 is left out
#      (said so); parts 1-2 always run.
srcdir=${srcdir:-.}
tk="$srcdir/tools/cuda_toolkit.sh"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
n=0
check() {  # what, got, want
    n=$((n + 1))
    if [ "$2" != "$3" ]; then echo "FAIL $1: got '$2', want '$3'"; fail=$((fail + 1)); fi
}
field() {  # the value of one assignment in the output of find
    echo "$1" | sed -n "s/^$2='\(.*\)'\$/\1/p"
}
header() {  # dir, CUDART_VERSION
    mkdir -p "$1"
    : > "$1/cusolverDn.h"
    printf '#define CUDART_VERSION  %s\n' "$2" > "$1/cuda_runtime_api.h"
}
libs() {  # dir, libraries...
    d=$1; shift
    mkdir -p "$d"
    for l in "$@"; do : > "$d/$l"; done
}
export CUDA_MULTIARCH=x86_64-linux-gnu

# 1. fake trees
deb="$tmp/debian/usr"
header "$deb/include" 11080
libs "$deb/lib/x86_64-linux-gnu" libcusolver.so libcublas.so libcudart.so
libs "$deb/lib64" ld-linux-x86-64.so.2
out=$(sh "$tk" find "$deb")
check "Debian layout: library directory" "$(field "$out" CUDA_LIBDIR)" "$deb/lib/x86_64-linux-gnu"
check "Debian layout: headers" "$(field "$out" CUDA_INCDIR)" "$deb/include"
check "Debian layout: version" "$(field "$out" CUDA_VERSION)" "11.8"
check "Debian layout under a non-system prefix: rpath needed" "$(field "$out" CUDA_SYSTEM_LIBDIR)" "no"
nv="$tmp/nvidia/cuda"
header "$nv/include" 13000
libs "$nv/lib64" libcusolver.so libcublas.so libcudart.so
out=$(sh "$tk" find "$nv")
check "NVIDIA layout: library directory" "$(field "$out" CUDA_LIBDIR)" "$nv/lib64"
check "NVIDIA layout: version" "$(field "$out" CUDA_VERSION)" "13.0"
tg="$tmp/targets/cuda"
header "$tg/include" 12040
libs "$tg/targets/$(uname -m)-linux/lib" libcusolver.so libcublas.so libcudart.so
out=$(sh "$tk" find "$tg")
check "targets layout: library directory" "$(field "$out" CUDA_LIBDIR)" "$tg/targets/$(uname -m)-linux/lib"
part="$tmp/partial/usr"
header "$part/include" 11080
libs "$part/lib/x86_64-linux-gnu" libcusolver.so libcudart.so
out=$(sh "$tk" find "$part"); rc=$?
check "a tree without libcublas.so is no toolkit: exit" "$rc" 1
check "a tree without libcublas.so is no toolkit: output" "$out" ""
out=$(sh "$tk" find "$tmp/none" "$part" "$deb" "$nv")
check "the first prefix with a toolkit wins" "$(field "$out" CUDA_DIR)" "$deb"

# 2. install-debian --dry-run against a fake /etc
etc="$tmp/etc"
mkdir -p "$etc/apt/sources.list.d"
printf 'NAME="Debian GNU/Linux"\nVERSION_CODENAME=bookworm\n' > "$etc/os-release"
cat > "$etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main

Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
EOF
before=$(cd "$etc" && find . -type f | sort | xargs cat | cksum)
out=$(CUDA_TOOLKIT_ETC="$etc" sh "$tk" install-debian --dry-run)
line=$(echo "$out" | sed -n 's/^sources: //p' | sed 's/\[signed-by=[^]]*\] //')
check "deb822 sources: the suite's mirror, non-free for this install" "$line" \
      "deb http://mirror.example/debian bookworm main contrib non-free"
check "apt-get reads only the temporary sources" \
      "$(echo "$out" | grep -c 'Dir::Etc::SourceList=.*mleval-cuda.list -o Dir::Etc::SourceParts=')" 2
check "the package installed" "$(echo "$out" | grep -c 'install -y --no-install-recommends nvidia-cuda-dev$')" 1
rm "$etc/apt/sources.list.d/debian.sources"
echo "deb http://old.example/debian bookworm main" > "$etc/apt/sources.list"
before=$(cd "$etc" && find . -type f | sort | xargs cat | cksum)
out=$(CUDA_TOOLKIT_ETC="$etc" sh "$tk" install-debian --dry-run)
line=$(echo "$out" | sed -n 's/^sources: //p' | sed 's/\[signed-by=[^]]*\] //')
check "one-line sources: the suite's mirror" "$line" "deb http://old.example/debian bookworm main contrib non-free"
check "the system's sources unchanged" "$(cd "$etc" && find . -type f | sort | xargs cat | cksum)" "$before"

# 3. configure on a Debian-layout prefix of links to a real toolkit
if real=$(sh "$tk" find) && [ -f "$srcdir/configure" ]; then
    inc=$(field "$real" CUDA_INCDIR); lib=$(field "$real" CUDA_LIBDIR)
    fake="$tmp/fakeusr"
    mkdir -p "$fake/include" "$fake/lib/$CUDA_MULTIARCH" "$fake/lib64"
    for f in "$inc"/*; do ln -s "$f" "$fake/include/"; done
    for f in "$lib"/*; do ln -s "$f" "$fake/lib/$CUDA_MULTIARCH/"; done
    : > "$fake/lib64/ld-linux-x86-64.so.2"
    src="$tmp/src"
    mkdir -p "$src/ext/sql" "$src/tools"
    cp -R "$srcdir/configure" "$srcdir/Makefile.in" "$srcdir/config.h.in" "$srcdir/mleval.pc.in" "$srcdir/build-aux" "$src/"
    cp "$srcdir/ext/sql/mleval.c" "$src/ext/sql/"
    cp "$tk" "$src/tools/"
    chmod -R u+w "$src"       # make distcheck's source tree is read-only
    (cd "$src" && ./configure --with-cuda="$fake" > configure.out 2>&1)
    check "configure --with-cuda=<Debian layout> succeeds" "$?" 0
    check "CUDA_LIBS: the multiarch directory, with its rpath" \
          "$(sed -n 's/^CUDA_LIBS = //p' "$src/Makefile")" \
          "-L$fake/lib/$CUDA_MULTIARCH -Wl,-rpath,$fake/lib/$CUDA_MULTIARCH -lcusolver -lcublas -lcudart"
    check "the summary names the toolkit" \
          "$(grep -c "CUDA (cuSOLVER) .... yes ($fake, CUDA $(field "$real" CUDA_VERSION), libraries $fake/lib/$CUDA_MULTIARCH)" "$src/configure.out")" 1
    [ $fail -eq 0 ] || tail -n 30 "$src/configure.out"
else
    echo "part 3 left out: no CUDA toolkit installed here (or no configure in $srcdir)"
fi
echo "test_cuda_detect: $n checks, $fail failures"
[ $fail -eq 0 ]
