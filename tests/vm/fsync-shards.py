#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fsync-shards: a search-engine-like fsync load (../shared/cases/fsync-shards).

  fsync-shards.py DIR SECONDS [--ops FILE] [--no-churn]

Two index shards, each appending a 300 B record to its translog and
fsync'ing it, then rewriting a 48 B checkpoint at offset 0 and fsync'ing
it (one op = both fsyncs), beside one thread that keeps rewriting 300
small files without fsync (open "w" truncates, so ext4's auto_da_alloc
starts their writeback at close, and each commit carries that data).

Prints one line: ops=N p50=MS p99=MS max=MS churn_files=N.  With --ops,
writes one line per op, "END_S LATENCY_MS" (END_S: seconds since the load
started), so a caller can judge any part of the run.
"""
import os
import sys
import threading
import time


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    d, secs = args[0], float(args[1])
    ops_file = args[args.index("--ops") + 1] if "--ops" in args else None
    churn = "--no-churn" not in args
    ops = []            # (end offset s, latency s), appended by both shards
    churned = [0]
    t_start = time.monotonic()
    t_end = t_start + secs

    def shard(n):
        tl = os.open("%s/s%d.translog" % (d, n),
                     os.O_CREAT | os.O_WRONLY | os.O_APPEND)
        ck = os.open("%s/s%d.ckp" % (d, n), os.O_CREAT | os.O_WRONLY)
        while time.monotonic() < t_end:
            t0 = time.monotonic()
            os.write(tl, b"x" * 300)
            os.fsync(tl)
            os.pwrite(ck, b"y" * 48, 0)
            os.fsync(ck)
            t1 = time.monotonic()
            ops.append((t1 - t_start, t1 - t0))
        os.close(tl)
        os.close(ck)

    def churner():
        i = 0
        while time.monotonic() < t_end:
            with open("%s/c%d" % (d, i % 300), "w") as f:
                f.write("z" * 100)
            i += 1
        churned[0] = i

    ts = [threading.Thread(target=shard, args=(i,)) for i in range(2)]
    if churn:
        ts.append(threading.Thread(target=churner))
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if ops_file:
        with open(ops_file, "w") as f:
            for end, lat in sorted(ops):
                f.write("%.3f %.3f\n" % (end, lat * 1000))
    lat = sorted(x[1] for x in ops) or [0.0]

    def p(q):
        return lat[min(len(lat) - 1, int(q * len(lat)))] * 1000

    print("ops=%d p50=%.1f p99=%.1f max=%.1f churn_files=%d" %
          (len(ops), p(0.5), p(0.99), lat[-1] * 1000, churned[0]))


if __name__ == "__main__":
    main()
