# SPDX-License-Identifier: MIT
"""plot_reliability(series, bins [, title [, smooth]]) (issue 36; plot.c rule
6a): the smoothed overlay is calibration_smooth()'s curve.

For random datasets in 1-3 series: the <polyline class="smooth"> of each
series, read back, is the curve calibration_smooth(y, p) returns mapped to
the panel's pixels (x 72 + 380 p, y 44 + 250 (1 - clamp(curve, 0, 1)),
2 decimals), thinned as every polyline is (a point less than a pixel from
the last drawn is left out, the last never); the other elements are the
image without smooth, and without smooth (absent or NULL) the image is the
one the three-argument call draws.  Bad smooth arguments are errors naming
the argument.
"""
import json
import re

import numpy as np

import mltest


def expected_points(curve):
    pts, last = [], None
    for k, (p, c) in enumerate(curve):
        px = 72 + (p * 0.5 - 0.0) / 0.5 * 380
        py = 44 + 250 - (min(1.0, max(0.0, c)) * 0.5) / 0.5 * 250
        if last is not None and k < len(curve) - 1 and (px - last[0]) ** 2 + (py - last[1]) ** 2 < 1.0:
            continue
        pts.append((px, py))
        last = (px, py)
    return pts


def main():
    ck = mltest.Checker("plot_smooth")
    con = mltest.connect()
    rng = np.random.default_rng(366)
    for trial in range(40):
        k = 1 + trial % 3
        rows = []
        for g in range(k):
            n = int(rng.choice([3, 30, 300, 900]))
            p = rng.random(n) if trial % 2 else np.round(rng.random(n), 2)
            y = (rng.random(n) < np.clip(1.4 * p - 0.2 + 0.1 * g, 0, 1)).astype(int)
            rows += [(int(a), float(b), "m%d" % g) for a, b in zip(y, p)]
        mltest.load(con, ["y", "p", "g"], rows)
        q = ("SELECT plot_reliability(g, r, 'cal'%s) FROM (SELECT g, reliability(y, p, 8) r,"
             " calibration_smooth(y, p) sm FROM t GROUP BY g ORDER BY g)")
        plain = con.execute(q % "").fetchone()[0]
        ck.equal(con.execute(q % ", NULL").fetchone()[0], plain, "set %d: smooth NULL draws the plain image" % trial)
        svg = con.execute(q % ", sm").fetchone()[0]
        lines = re.findall(r'<polyline class="smooth"[^>]*points="([^"]*)"', svg)
        ck.equal(len(lines), k, "set %d: one smoothed line per series" % trial)
        curves = [json.loads(c)["curve"] for (c,) in con.execute(
            "SELECT calibration_smooth(y, p) FROM t GROUP BY g ORDER BY g")]
        for g, (pts, curve) in enumerate(zip(lines, curves)):
            got = [tuple(float(v) for v in xy.split(",")) for xy in pts.split()]
            want = expected_points(curve)
            ck.equal(len(got), len(want), "set %d series %d: points drawn" % (trial, g))
            ck.true(all(abs(a[0] - b[0]) <= 0.0051 and abs(a[1] - b[1]) <= 0.0051 for a, b in zip(got, want)),
                    "set %d series %d: the overlay is calibration_smooth's curve" % (trial, g))
        # everything but the overlay and its note is the plain image
        stripped = re.sub(r'<polyline class="smooth"[^>]*/>\n', "", svg)
        stripped = re.sub(r'<text class="note"[^>]*>thin: smoothed \(lowess\)</text>\n', "", stripped)
        ck.equal(stripped, plain, "set %d: the rest of the image unchanged" % trial)
    ck.error(con, "SELECT plot_reliability('a', (SELECT reliability(1, 0.5)), NULL, 3)", (),
             "plot_reliability(): smooth must be calibration_smooth() JSON, got 3")
    ck.error(con, "SELECT plot_reliability('a', (SELECT reliability(1, 0.5)), NULL, '{\"n\":1}')", (),
             "plot_reliability(): smooth must be calibration_smooth() JSON, got '{\"n\":1}': no \"curve\" field")
    ck.error(con, "SELECT plot_reliability('a', (SELECT reliability(1, 0.5)), NULL, '{\"curve\":[[0.5,0.2],[0.4,0.1]]}')", (),
             "plot_reliability(): smooth must be calibration_smooth() JSON, got '{\"curve\":[[0.5,0.2],[0.4,0.1]]}':"
             " point 1 is [0.4, 0.1]")
    ck.error(con, "SELECT plot_reliability('a', (SELECT reliability(1, 0.5)), NULL, '{\"curve\":[[0.5]]}')", (),
             "plot_reliability(): smooth must be calibration_smooth() JSON, got '{\"curve\":[[0.5]]}':"
             " expected an [x, y] pair at byte 14")
    ck.finish()


if __name__ == "__main__":
    main()
