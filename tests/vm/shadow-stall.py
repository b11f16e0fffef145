#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shadow-stall.py DIR SECONDS [START] - make handles sleep on BH_Shadow in DIR.

Four files whose inodes share one inode table block: one task rewrites and
fsyncs its file over and over, so that block is in nearly every commit;
three keep changing their inodes without fsync and so sleep on its
BH_Shadow while the commit writes it.  On a device whose writes are
delayed (dm-delay, 20 ms) every such wait is a stall of about that long.
START (seconds since the epoch, optional) holds the load back until then,
so that several instances start together once their interpreters are up.
Used by the netlink-events and agent-events VM tests and bench/agent-vm.sh.
"""
import os
import sys
import time


def main():
    d, seconds = sys.argv[1], float(sys.argv[2])
    start = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    for w in range(4):
        open("%s/w%d" % (d, w), "w").close()
    os.sync()
    if start > time.time():
        time.sleep(start - time.time())
    kids = []
    for w in range(4):
        pid = os.fork()
        if pid == 0:
            name = "%s/w%d" % (d, w)
            end = time.time() + seconds
            i = 0
            if w == 0:
                fd = os.open(name, os.O_WRONLY)
                while time.time() < end:
                    os.pwrite(fd, b"x" * 512, 0)
                    os.fsync(fd)
            else:
                while time.time() < end:
                    i += 1
                    os.utime(name, ns=(i * 1000, i * 1000))
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
