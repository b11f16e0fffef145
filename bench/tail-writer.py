#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# tail-writer.py FILE SECONDS OPS_OUT [--bs BYTES] [--rate BYTES_PER_S]
#
# The demo's "online" writer (bench/demo-scenario.sh demo_writer: buffered
# sequential 64 KiB writes at 4 MB/s, no fallocate) in one Python thread
# that records every write(2) it makes: OPS_OUT gets one line per write,
# "start_ns end_ns" in CLOCK_MONOTONIC, the clock tracefs uses with
# trace_clock "mono", so a slow write can be matched with the scheduler
# events of the same thread.  Prints its thread id first (the trace
# filter), on stdout, flushed, then runs.
import os
import sys
import time


def main():
    args = sys.argv[1:]
    bs, rate = 65536, 4 * 1024 * 1024
    while "--bs" in args or "--rate" in args:
        for opt in ("--bs", "--rate"):
            if opt in args:
                i = args.index(opt)
                val = int(args[i + 1])
                del args[i:i + 2]
                if opt == "--bs":
                    bs = val
                else:
                    rate = val
    path, secs, out = args[0], float(args[1]), args[2]
    print(os.getpid(), flush=True)
    buf = b"\x5a" * bs
    interval_ns = int(bs * 1e9 / rate)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    ops = []
    t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    end = t0 + int(secs * 1e9)
    due = t0
    size = 0
    while True:
        now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        if now >= end:
            break
        if now < due:
            time.sleep((due - now) / 1e9)
        a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        os.write(fd, buf)
        b = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        ops.append((a, b))
        size += bs
        if size >= 256 << 20:	# as fio's --size=256m: start over
            os.lseek(fd, 0, os.SEEK_SET)
            size = 0
        due += interval_ns
        if due < b - 1_000_000_000:	# a stall: do not catch up in a burst
            due = b
    os.close(fd)
    with open(out, "w") as f:
        for a, b in ops:
            f.write("%d %d\n" % (a, b))


if __name__ == "__main__":
    main()
