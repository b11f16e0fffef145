#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The parts of bench/agent-field's loads that fio and the case scripts
do not already provide (bench/agent-field.sh says which load uses which).

  field-load.py wal DIR SECONDS OPS_OUT
      an etcd-like write-ahead log: append 4 KiB, fdatasync, repeat, for
      SECONDS; OPS_OUT gets "END_S LATENCY_MS" per append + fdatasync
      (END_S: seconds since the start).
  field-load.py bulk DIR
      a bulk copy beside it: buffered 1 MiB writes to a file, a new file
      every 64 MiB (the oldest of three removed), until killed.
  field-load.py truncate DIR [OPS_OUT]
      a long-handle load for lock later: a file of 6,000 one-block extents
      (every other block written), fsync'ed, then truncated to 0, again,
      until killed (ext4's truncate keeps one handle and extends it as it
      frees extents; kmod-lock-delay-extend.sh).  OPS_OUT gets "END_S
      FSYNC_MS" per fsync, written as it ends: the only commit waits of
      this load, which the agent's cost test weighs and the measured
      writer does not feel.
"""
import os
import sys
import time


def wal(d, secs, ops_out):
    fd = os.open(os.path.join(d, "wal"), os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
    rec = b"w" * 4096
    t_start = time.monotonic()
    t_end = t_start + secs
    out = []
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        os.write(fd, rec)
        os.fdatasync(fd)
        t1 = time.monotonic()
        out.append("%.3f %.3f\n" % (t1 - t_start, (t1 - t0) * 1000.0))
    os.close(fd)
    with open(ops_out, "w") as f:
        f.writelines(out)


def bulk(d):
    chunk = b"b" * (1 << 20)
    n = 0
    while True:
        path = os.path.join(d, "bulk.%d" % n)
        old = os.path.join(d, "bulk.%d" % (n - 3))
        if os.path.exists(old):
            os.unlink(old)
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
        for _ in range(64):
            os.write(fd, chunk)
        os.close(fd)
        n += 1


def truncate(d, ops_out=None):
    bs = os.statvfs(d).f_bsize
    path = os.path.join(d, "holes")
    block = b"h" * bs
    out = open(ops_out, "w", buffering=1) if ops_out else None
    t_start = time.monotonic()
    while True:
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o644)
        for i in range(6000):
            os.pwrite(fd, block, 2 * i * bs)
        t0 = time.monotonic()
        os.fsync(fd)
        t1 = time.monotonic()
        if out:
            out.write("%.3f %.3f\n" % (t1 - t_start, (t1 - t0) * 1000.0))
        os.ftruncate(fd, 0)
        os.close(fd)


def main():
    a = sys.argv[1:]
    if len(a) >= 4 and a[0] == "wal":
        wal(a[1], float(a[2]), a[3])
    elif len(a) == 2 and a[0] == "bulk":
        bulk(a[1])
    elif len(a) in (2, 3) and a[0] == "truncate":
        truncate(*a[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
