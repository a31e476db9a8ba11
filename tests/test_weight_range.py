# SPDX-License-Identifier: MIT
"""Weights that span many orders of magnitude in one group (issue 44 item 6):
the weighted average precision's terms dtp * precision underflowed to 0 when
a class's weights were near 1e-200 beside others near 1 (ml_wsweep.c rule 7).

  expected_pr_auc(p) with p scaled by c in 1e-100 .. 1e-300 (each row a
    positive weighing p and a negative weighing 1 - p: precision ~ p) and
    expected_auroc(p) alike, against scikit-learn's average_precision_score /
    roc_auc_score with sample_weight over the split rows, 1e-12 relative;
  pr_auc_w(y, s, w) with the positives' weights near c and the negatives'
    near 1 (and the reverse), against average_precision_score;
  over 40 random sets with ties in s.
"""
import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

import mltest

SCALES = (1.0, 1e-100, 1e-160, 1e-200, 1e-250, 1e-300)


def main():
    ck = mltest.Checker("weight range")
    con = mltest.connect()
    rng = np.random.default_rng(44)
    for k in range(40):
        n = int(rng.integers(4, 60))
        p = np.round(rng.uniform(0.01, 1.0, n), int(rng.integers(1, 4)))
        y = (rng.uniform(size=n) < p).astype(int)
        y[0], y[1] = 0, 1
        for c in SCALES:
            q = p * c
            mltest.load(con, ["p"], [(float(v),) for v in q])
            got_ap, got_auc = con.execute("SELECT expected_pr_auc(p), expected_auroc(p) FROM t").fetchone()
            yy, ss, ww = np.r_[np.ones(n), np.zeros(n)], np.r_[q, q], np.r_[q, 1.0 - q]
            ck.close(got_ap, average_precision_score(yy, ss, sample_weight=ww),
                     "set %d: expected_pr_auc(p * %g)" % (k, c), rel=1e-12, abs_=0)
            ck.close(got_auc, roc_auc_score(yy, ss, sample_weight=ww),
                     "set %d: expected_auroc(p * %g)" % (k, c), rel=1e-12, abs_=0)
            for small in (1, 0):
                w = np.where(y == small, c, 1.0) * rng.uniform(0.5, 2.0, n)
                mltest.load(con, ["y", "s", "w"], [(int(a), float(b), float(d)) for a, b, d in zip(y, p, w)])
                got = con.execute("SELECT pr_auc_w(y, s, w) FROM t").fetchone()[0]
                ck.close(got, average_precision_score(y, p, sample_weight=w),
                         "set %d: pr_auc_w, class %d's weights near %g" % (k, small, c), rel=1e-12, abs_=0)
    ck.finish()


if __name__ == "__main__":
    main()
