#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""outcome-noise.py - how often the outcome check's rule misjudges (not a test).

A model of a steady fsync load: each commit wait is the rest of the commit
in progress plus the next commit, U(0,1) * c1 + c2, with commit durations
c = 100 ms * exp(N(0, sigma)).  A window before a change holds 90 waits (the
field case's ~3 fsyncs a second over 30 s), the window after `n`.  Both
windows go through the agent's arithmetic: the exact mean, and the p99 of
the log2 histogram interpolated as in agent/src/core/hist.c.

For each rule, margin and `n` it prints how often an unchanged load is
reverted ("false") and how often a load whose waits all got 1.5x or 2x
longer is ("1.5x", "2x").  Documentation/agent-policy.md quotes the table.

    python3 agent/tests/outcome-noise.py
"""
import math
import random

BUCKETS = 24


def p99_us(waits):
    """The 99th percentile as jt_hist_percentile_us() computes it."""
    hist = [0] * BUCKETS
    for w in waits:
        hist[0 if w < 2 else min(BUCKETS - 1, int(math.log2(w)))] += 1
    k = 0.99 * len(waits)
    before = 0
    for i in range(BUCKETS):
        if hist[i] and before + hist[i] >= k:
            break
        before += hist[i]
    lo = 0.0 if i == 0 else float(2 ** i)
    hi = float(2 ** (i + 1))
    v = lo + (hi - lo) * (k - before) / hist[i]
    top = max(waits)
    return min(v, top) if lo <= top < hi else v


def window(n, scale, sigma):
    def commit():
        return 100000.0 * scale * math.exp(random.gauss(0.0, sigma))
    return [random.random() * commit() + commit() for _ in range(n)]


def worse(after, before, margin):
    return after > before * (1.0 + margin)


def judged_worse(rule, n, margin, sigma, scale):
    a = window(n, scale, sigma)
    b = window(90, 1.0, sigma)
    mean = worse(sum(a) / len(a), sum(b) / len(b), margin)
    p99 = worse(p99_us(a), p99_us(b), margin)
    return {"p99 and mean": p99 and mean, "mean": mean, "p99 or mean": p99 or mean}[rule]


def main():
    random.seed(20261130)
    trials = 3000
    print("sigma  rule          margin  n    false   1.5x    2x")
    for sigma in (0.3, 0.6):
        for rule in ("p99 and mean", "mean", "p99 or mean"):
            for margin in (0.05, 0.10, 0.25):
                for n in (10, 20, 40):
                    rates = [sum(judged_worse(rule, n, margin, sigma, scale)
                                 for _ in range(trials)) * 100.0 / trials
                             for scale in (1.0, 1.5, 2.0)]
                    print("%-6.1f %-13s %4.0f %%  %-4d %5.1f %%  %5.1f %%  %5.1f %%"
                          % (sigma, rule, margin * 100, n, *rates))


if __name__ == "__main__":
    main()
