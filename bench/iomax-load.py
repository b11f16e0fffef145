#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# iomax-load.py tenant DIR SECONDS RESULT [--cgroup PATH] [--go FILE]
#                [--max-files N] [--stop FILE]
# iomax-load.py prober DIR SECONDS OPS_OUT [--go FILE] [--stop FILE]
#
# The two tasks of the iomax-inversion case (bench/iomax.sh), each one
# Python process:
#   tenant  joins the cgroup PATH (its cgroup.procs) first when given, then
#           creates 4 KiB files (one write(2) each, no fsync), 200 to a
#           directory, a new directory as each fills, for SECONDS; stops
#           early after N files (--max-files; 0: no limit) or at ENOSPC.
#           RESULT gets "files N dirs N enospc 0|1 start_ns T last_file_ns
#           T": the times (CLOCK_MONOTONIC) it began and finished its last
#           file, so that the prober's ops can be split by whether the
#           tenant was still making files (it may block long before it
#           exits, e.g. in ext4's delalloc switch when the disk fills).
#   prober  stays where it was started (the root cgroup): mkdir of a new
#           directory in DIR, fsync(2) of DIR, sleep 50 ms, for SECONDS.
#           OPS_OUT gets one line per mkdir + fsync, "start_ns end_ns" in
#           CLOCK_MONOTONIC (tracefs trace_clock "mono", so a slow op can
#           be matched with the trace of the same task).  Stops early
#           at ENOSPC (the ops so far are kept).
# Both print their process id first on stdout, flushed, then wait for FILE
# to exist (--go: so that the caller can start tracing them first), then
# work.  With --stop, each ends its loop early once that file exists (a
# test that has seen what it waited for: tests/vm/tests/agent-iomax.sh);
# the results are written as at the end of SECONDS.
import errno
import os
import sys
import time

FILES_PER_DIR = 200
FILE_BYTES = 4096
PROBE_SLEEP_S = 0.05


def now_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def ready(go):
    """print the pid, then wait for the go file"""
    print(os.getpid(), flush=True)
    while go and not os.path.exists(go):
        time.sleep(0.01)


def stopped(stop):
    """whether the caller asked for an early end (--stop FILE exists)"""
    return bool(stop) and os.path.exists(stop)


def tenant(top, secs, result, cgroup, go, max_files, stop):
    if cgroup:
        with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
            f.write("%d\n" % os.getpid())
    ready(go)
    buf = b"\xa5" * FILE_BYTES
    start = now_ns()
    end = start + int(secs * 1e9)
    files = dirs = 0
    full = 0
    last = start
    d = None
    try:
        while now_ns() < end and (not max_files or files < max_files):
            if files % FILES_PER_DIR == 0:
                if stopped(stop):
                    break
                d = os.path.join(top, "d%06d" % dirs)
                os.mkdir(d)
                dirs += 1
            fd = os.open(os.path.join(d, "f%03d" % (files % FILES_PER_DIR)),
                         os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                os.write(fd, buf)
            finally:
                os.close(fd)
            files += 1
            last = now_ns()
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
        full = 1
    with open(result, "w") as f:
        f.write("files %d dirs %d enospc %d start_ns %d last_file_ns %d\n"
                % (files, dirs, full, start, last))


def prober(top, secs, out, go, stop):
    ready(go)
    dfd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    ops = []
    end = now_ns() + int(secs * 1e9)
    n = 0
    while now_ns() < end and not stopped(stop):
        a = now_ns()
        try:
            os.mkdir(os.path.join(top, "p%06d" % n))
        except OSError as e:
            if e.errno != errno.ENOSPC:
                raise
            break
        os.fsync(dfd)
        b = now_ns()
        ops.append((a, b))
        n += 1
        time.sleep(PROBE_SLEEP_S)
    os.close(dfd)
    with open(out, "w") as f:
        for a, b in ops:
            f.write("%d %d\n" % (a, b))


def main():
    args = sys.argv[1:]
    opt = {"--cgroup": None, "--go": None, "--max-files": "0", "--stop": None}
    for k in opt:
        if k in args:
            i = args.index(k)
            opt[k] = args[i + 1]
            del args[i:i + 2]
    if len(args) != 4 or args[0] not in ("tenant", "prober"):
        sys.exit("usage: iomax-load.py tenant|prober DIR SECONDS OUT [--cgroup PATH] [--go FILE]"
                 " [--max-files N] [--stop FILE]")
    role, top, secs, out = args[0], args[1], float(args[2]), args[3]
    if role == "tenant":
        tenant(top, secs, out, opt["--cgroup"], opt["--go"], int(opt["--max-files"]),
               opt["--stop"])
    else:
        prober(top, secs, out, opt["--go"], opt["--stop"])


if __name__ == "__main__":
    main()
