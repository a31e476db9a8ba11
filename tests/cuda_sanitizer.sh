#!/bin/sh
# SPDX-License-Identifier: MIT
# cuda_sanitizer.sh -- tests/check_svd_cuda under compute-sanitizer's
# memcheck (out-of-bounds and misaligned device accesses, leaks of device
# memory): a cuSOLVER buffer smaller than the routine writes is an error
# here, where the plain test might pass.  make check runs it in a build with
# CUDA; make check-cuda-sanitizer runs it alone.  The test runs its small
# shapes only (--quick): memcheck slows kernels down a lot.
#
# Exit 77 (SKIP), with the reason, where it cannot run: a build without the
# CUDA back end, no GPU or no driver (check_svd_cuda --probe says which),
# or no compute-sanitizer (looked for in $COMPUTE_SANITIZER, PATH,
# $CUDA_DIR/bin, /usr/local/cuda/bin, and Debian's
# /usr/lib/nvidia-cuda-toolkit/compute-sanitizer).  A GPU stack that does
# not work FAILs, as in check_svd_cuda.
t="${abs_top_builddir:-.}/tests/check_svd_cuda"
if [ ! -x "$t" ]; then
    echo "SKIP: $t is not built (a build without the CUDA back end)"
    exit 77
fi
out=$("$t" --probe 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
    echo "$out"
    [ $rc -eq 77 ] && echo "SKIP: no GPU to run compute-sanitizer on"
    exit $rc
fi
san="${COMPUTE_SANITIZER:-}"
if [ -z "$san" ]; then
    for c in "$(command -v compute-sanitizer 2>/dev/null)" "${CUDA_DIR:+$CUDA_DIR/bin/compute-sanitizer}" \
             /usr/local/cuda/bin/compute-sanitizer /usr/lib/nvidia-cuda-toolkit/compute-sanitizer/compute-sanitizer; do
        if [ -n "$c" ] && [ -x "$c" ]; then san=$c; break; fi
    done
fi
if [ -z "$san" ]; then
    echo "SKIP: compute-sanitizer not found (set COMPUTE_SANITIZER, or install NVIDIA's CUDA toolkit, or Debian's nvidia-cuda-toolkit from non-free)"
    exit 77
fi
echo "$san --tool memcheck --leak-check full --error-exitcode 1 $t --quick"
exec "$san" --tool memcheck --leak-check full --error-exitcode 1 "$t" --quick
