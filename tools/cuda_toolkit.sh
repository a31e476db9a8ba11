#!/bin/sh
# SPDX-License-Identifier: MIT
# cuda_toolkit.sh -- where the CUDA toolkit (cuSOLVER, cuBLAS, cudart) is,
# and how Debian installs one: the one answer configure, bootstrap and
# .ci/run share (tests/test_cuda_detect.sh proves it on fake trees).
#
#   cuda_toolkit.sh find [PREFIX...]
#       For the first PREFIX (default: /usr/local/cuda /usr) with
#       include/cusolverDn.h and include/cuda_runtime_api.h, and
#       libcusolver.so, libcublas.so and libcudart.so together in one of its
#       library directories -- lib64, lib/<multiarch> (Debian's
#       /usr/lib/x86_64-linux-gnu), lib, targets/<arch>-linux/lib, in that
#       order -- prints shell assignments:
#         CUDA_DIR='...' CUDA_INCDIR='...' CUDA_LIBDIR='...'
#         CUDA_VERSION='13.0' (CUDART_VERSION of the header)
#         CUDA_SYSTEM_LIBDIR=yes|no (the loader searches it anyway: no rpath)
#       Exit 1, printing nothing, when no PREFIX has them.
#       <multiarch> is $CUDA_MULTIARCH, else `$CC -print-multiarch`, else
#       <machine>-linux-gnu.
#
#   cuda_toolkit.sh install-debian [--dry-run]
#       Installs Debian's nvidia-cuda-dev (non-free) with the non-free
#       component enabled for that one install only: a temporary sources
#       file passed to apt-get with -o Dir::Etc::SourceList (the system's
#       sources are not read, nor changed), the suite from /etc/os-release,
#       the mirror the system's sources use for it.  --dry-run prints the
#       sources line and the commands instead.  $CUDA_TOOLKIT_ETC replaces
#       /etc (tests).
set -e

multiarch() {
    if [ -n "${CUDA_MULTIARCH:-}" ]; then echo "$CUDA_MULTIARCH"; return; fi
    ma=$(${CC:-cc} -print-multiarch 2>/dev/null || true)
    [ -n "$ma" ] || ma="$(uname -m)-linux-gnu"
    echo "$ma"
}

find_toolkit() {
    [ $# -gt 0 ] || set -- /usr/local/cuda /usr
    ma=$(multiarch)
    for prefix in "$@"; do
        inc="$prefix/include"
        [ -f "$inc/cusolverDn.h" ] && [ -f "$inc/cuda_runtime_api.h" ] || continue
        for lib in "$prefix/lib64" "$prefix/lib/$ma" "$prefix/lib" "$prefix/targets/$(uname -m)-linux/lib"; do
            [ -e "$lib/libcusolver.so" ] && [ -e "$lib/libcublas.so" ] && [ -e "$lib/libcudart.so" ] || continue
            v=$(sed -n 's/^#define[ 	]*CUDART_VERSION[ 	]*\([0-9][0-9]*\).*/\1/p' "$inc/cuda_runtime_api.h" | head -n 1)
            [ -n "$v" ] && v="$((v / 1000)).$((v % 1000 / 10))" || v=unknown
            case "$lib" in
                /usr/lib|/usr/lib64|/lib|/lib64|"/usr/lib/$ma"|"/lib/$ma") sys=yes ;;
                *) sys=no ;;
            esac
            echo "CUDA_DIR='$prefix'"
            echo "CUDA_INCDIR='$inc'"
            echo "CUDA_LIBDIR='$lib'"
            echo "CUDA_VERSION='$v'"
            echo "CUDA_SYSTEM_LIBDIR='$sys'"
            return 0
        done
    done
    return 1
}

install_debian() {
    etc="${CUDA_TOOLKIT_ETC:-/etc}"
    suite=$(. "$etc/os-release" && echo "${VERSION_CODENAME:-}")
    if [ -z "$suite" ]; then
        echo "cuda_toolkit.sh: no VERSION_CODENAME in $etc/os-release: not a Debian I know" >&2
        return 1
    fi
    # the mirror the system's sources use for this suite (deb822 or one-line)
    mirror=$(cat "$etc"/apt/sources.list.d/*.sources 2>/dev/null | awk -v s="$suite" '
        /^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) { print u; exit } }')
    [ -n "$mirror" ] || mirror=$(cat "$etc/apt/sources.list" "$etc"/apt/sources.list.d/*.list 2>/dev/null |
        awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }')
    [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    signed=""
    [ -f "$keyring" ] && signed=" [signed-by=$keyring]"
    line="deb$signed $mirror $suite main contrib non-free"
    tmp=$(mktemp -d)
    echo "$line" > "$tmp/mleval-cuda.list"
    opts="-o Dir::Etc::SourceList=$tmp/mleval-cuda.list -o Dir::Etc::SourceParts=$tmp/none -o APT::Get::List-Cleanup=0"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    if [ "${1:-}" = --dry-run ]; then
        echo "sources: $line"
        echo "$sudo apt-get $opts update"
        echo "$sudo apt-get $opts install -y --no-install-recommends nvidia-cuda-dev"
        rm -rf "$tmp"
        return 0
    fi
    echo "cuda_toolkit.sh: installing nvidia-cuda-dev from '$line' (this install only)"
    rc=0
    $sudo apt-get $opts update -qq &&
        DEBIAN_FRONTEND=noninteractive $sudo apt-get $opts install -y -qq --no-install-recommends nvidia-cuda-dev || rc=$?
    rm -rf "$tmp"
    return $rc
}

case "${1:-}" in
    find) shift; find_toolkit "$@" ;;
    install-debian) shift; install_debian "$@" ;;
    *) echo "usage: $0 find [PREFIX...] | install-debian [--dry-run]" >&2; exit 2 ;;
esac
