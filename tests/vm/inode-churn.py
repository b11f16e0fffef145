#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""inode-churn: a metadata load whose working set outgrows a small journal.

  inode-churn.py DIR FILES SECONDS [--workers N] [--seed S] [--stop-file F]
                 [--rate R]

Creates FILES empty files under DIR (DIR/wK/fNNNNN, one directory per
worker), then for SECONDS (or until file F exists) each of N worker
processes (default 4) changes
the mode of its own files, one chmod(2) after another, in a random order
that it repeats: every chmod is a handle that logs the file's inode
block, and a block is logged again only after every other file of the
working set had its turn.

On ext4 made with one inode per block (mke2fs -b 1024 -I 1024) the
working set is FILES distinct metadata blocks.  A journal whose space
above its foreground threshold is smaller than that cannot let a block be
logged again before it has to be written home, so each block costs a
checkpoint write at a random place on the disk: on a disk limited in
write IOPS handles wait for log space whatever the reclaim watermark.  A
journal several times the working set only ever drops transactions whose
blocks were all logged again, with no checkpoint I/O.

--rate R caps the chmods at R a second over all workers (each paces
itself to R / N a second); without it each runs as fast as it can.  A
journal that holds the working set logs the same way at any rate, so the
cap leaves its load's meaning alone and only spares the CPU (under TCG an
uncapped load on such a journal ran 8,500-12,900 chmods a second and took
most of the guest's CPU, while the small journal's handles, waiting for
log space, made about 400).

Prints one line: "created=N seconds=S chmods=N per_s=R" (create time
excluded from the rate).
"""
import os
import random
import sys
import time


def worker(d, names, secs, seed, stop_file, rate):
    rng = random.Random(seed)
    order = names[:]
    rng.shuffle(order)
    n = 0
    mode = 0o600
    start = time.monotonic()
    end = start + secs
    while True:
        for name in order:
            os.chmod(os.path.join(d, name), mode)
            n += 1
            if n % 64 == 0:
                now = time.monotonic()
                if now >= end or (stop_file and os.path.exists(stop_file)):
                    return n
                if rate:
                    ahead = start + n / rate - now
                    if ahead > 0:
                        time.sleep(min(ahead, end - now))
        mode ^= 0o044          # every pass really changes each inode


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    top, files, secs = args[0], int(args[1]), float(args[2])
    workers = int(args[args.index("--workers") + 1]) if "--workers" in args else 4
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    stop_file = args[args.index("--stop-file") + 1] if "--stop-file" in args else None
    rate = float(args[args.index("--rate") + 1]) if "--rate" in args else 0.0
    per = files // workers
    dirs = []
    for w in range(workers):
        d = os.path.join(top, "w%d" % w)
        os.makedirs(d, exist_ok=True)
        names = ["f%05d" % i for i in range(per)]
        for name in names:
            os.close(os.open(os.path.join(d, name), os.O_CREAT | os.O_WRONLY, 0o600))
        dirs.append((d, names))
    os.sync()
    pids = []
    r, wfd = os.pipe()
    t0 = time.monotonic()
    for w, (d, names) in enumerate(dirs):
        pid = os.fork()
        if pid == 0:
            os.close(r)
            n = worker(d, names, secs, seed * 1000 + w, stop_file, rate / workers)
            os.write(wfd, b"%d\n" % n)
            os._exit(0)
        pids.append(pid)
    os.close(wfd)
    rc = 0
    for pid in pids:
        rc |= os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    took = time.monotonic() - t0
    with os.fdopen(r) as f:
        total = sum(int(x) for x in f.read().split())
    print("created=%d seconds=%.1f chmods=%d per_s=%.0f"
          % (per * workers, took, total, total / took if took else 0))
    sys.exit(1 if rc else 0)


if __name__ == "__main__":
    main()
