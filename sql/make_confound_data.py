# SPDX-License-Identifier: MIT
"""Generates sql/confound.csv: eval_toolkit's canonical length-confound
example (its stratified PR-AUC chapter), 500 rows, numpy default_rng(42):

    y      ~ Bernoulli(0.3)
    length = uniform integer in [20, 100) + 80 y
    score  = clip(0.5 y + N(0, 0.25) + 0.2 z(length), 0, 1)

    /usr/bin/python3 sql/make_confound_data.py > sql/confound.csv
"""
import numpy as np

rng = np.random.default_rng(42)
n = 500
y = rng.binomial(1, 0.3, size=n)
length = rng.integers(20, 100, size=n) + (y * 80)
score_signal = y * 0.5 + rng.normal(0, 0.25, n)
score_confound = (length - length.mean()) / length.std() * 0.2
s = np.clip(score_signal + score_confound, 0, 1)
print("y,length,score")
for i in range(n):
    print("%d,%d,%r" % (y[i], length[i], float(s[i])))
