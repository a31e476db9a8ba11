# SPDX-License-Identifier: MIT
"""make bench-svd: svd_bench's CPU full SVD against numpy.linalg.svd (the
same OpenBLAS/LAPACK underneath) at 256, 512, 1024 square and 128 x 512, and
the CUDA rows for the same shapes when this build and machine have a GPU
(timed as the seed's phase 13: docs/svd_bench.md, "How the timing is done").

Both sides: 5 untimed warm-up calls, then the median of 20 timed calls of a
thin SVD with vectors (numpy: full_matrices=False, i.e. gesdd, copying its
input first as svd_bench does).
--markdown prints bench/RESULTS.md's tables svd (and svd-cuda where a GPU
answers) for bench/results.py.
"""
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlbench  # noqa: E402

SHAPES = [(256, 256), (512, 512), (1024, 1024), (128, 512)]


def numpy_ms(m, n, warmup=5, iters=20):
    A = np.asfortranarray(np.random.default_rng(0).standard_normal((m, n)))
    for _ in range(warmup):
        np.linalg.svd(A, full_matrices=False)
    ts = []
    for _ in range(iters):
        t0 = time.perf_counter()
        np.linalg.svd(A, full_matrices=False)
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def main():
    a = mlbench.parse_args(__doc__, rows=False)
    con = mlbench.connect(os.path.abspath(a.lib), ":memory:")
    say = mlbench.console(a)
    md = []
    say("svd_bench full SVD (gesdd, float64) vs numpy.linalg.svd, median ms of 20 after 5 warm-up")
    say("  %-12s %12s %12s %8s" % ("shape", "svd_bench", "numpy", "ratio"))
    for m, n in SHAPES:
        ours = con.execute("SELECT ms_median FROM svd_bench(?, ?, NULL, 5, 20) WHERE method = 'full'", (m, n)).fetchone()[0]
        ref = numpy_ms(m, n)
        say("  %-12s %12.3f %12.3f %8.2fx" % ("%dx%d" % (m, n), ours, ref, ours / ref))
        md.append(["%d×%d" % (m, n), "%.3f ms" % ours, "%.3f ms" % ref, "%.2f×" % (ours / ref)])
    if a.markdown:
        mlbench.markdown("svd", ["shape", "svd_bench", "numpy.linalg.svd", "ratio (goal ≤ 1.1×)"], md)
    try:
        rows = []
        for m, n in SHAPES:
            for r in con.execute("SELECT method, dtype, ms_median, sv_rel_error FROM svd_bench(?, ?, NULL, 5, 20, 'cuda')", (m, n)):
                rows.append(("%dx%d" % (m, n),) + r)
        try:
            import subprocess
            gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                 capture_output=True, text=True).stdout.strip()
        except OSError:
            gpu = "unknown GPU"
        # CUDA times are batched (svd_cuda.c rule 5): ms_median is the median of
        # batch means, usually the one mean over all 20 calls
        say("CUDA (cuSOLVER; one CUDA event pair around back-to-back timed calls) on %s, ms per call:" % gpu)
        for r in rows:
            say("  %-12s %-12s %-8s %10.3f  sv_rel_error %.2e" % r)
        if a.markdown:
            mlbench.markdown("svd-cuda", ["shape", "method", "dtype", "ms per call on %s" % gpu, "sv_rel_error"],
                             [[r[0].replace("x", "×"), r[1], r[2], "%.3f" % r[3], "%.2e" % r[4]] for r in rows])
    except Exception as e:
        say("CUDA rows: skipped (%s)" % e)


if __name__ == "__main__":
    main()
