#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The soak's sampler (tests/soak/soak-vm.sh), one process: under TCG a
fork per figure would cost more than the figures.

  sampler.py PID JOURNAL SAMPLES KNOBLOG STOPFILE CYCLESFILE INTERVAL_S

Every INTERVAL_S seconds it appends to SAMPLES one line of key=value
words: t (seconds since start), the agent's (PID) rss_kib, hwm_kib and fds
(open files), the journal's knobs and counters from its configfs group,
cycles (the number in CYCLESFILE), and for every jbd2 slab cache its
objects in use (/sys/kernel/slab/<cache>/objects, per-CPU slabs counted
as in use).  Every second it reads the journal's force_copy and
reclaim_watermark_pct and appends a line to KNOBLOG when they changed.
When STOPFILE exists it takes one last sample and exits; it exits 1 if
the agent is gone by then.
"""
import os
import sys
import time

CFS = "/sys/kernel/config/jbd2"
SLAB = "/sys/kernel/slab"
COUNTERS = ("force_copy", "reclaim_watermark_pct", "free_blocks", "shadow_waits",
            "space_waits", "copyouts_forced", "reclaim_runs", "commits")


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def status(pid):
    fig = {"rss_kib": "", "hwm_kib": ""}
    for line in read("/proc/%d/status" % pid).splitlines():
        if line.startswith("VmRSS:"):
            fig["rss_kib"] = line.split()[1]
        elif line.startswith("VmHWM:"):
            fig["hwm_kib"] = line.split()[1]
    try:
        fig["fds"] = str(len(os.listdir("/proc/%d/fd" % pid)))
    except OSError:
        fig["fds"] = ""
    return fig


def sample(pid, j, cycles, t):
    words = ["t=%d" % t]
    words += ["%s=%s" % kv for kv in status(pid).items()]
    words += ["%s=%s" % (c, read(os.path.join(CFS, j, c))) for c in COUNTERS]
    words.append("cycles=%s" % (read(cycles) or "0"))
    for c in sorted(os.listdir(SLAB)):
        if c.startswith("jbd2"):
            words.append("%s=%s" % (c, read(os.path.join(SLAB, c, "objects")).split(" ")[0]))
    return " ".join(words)


def main():
    pid, j, samples, knoblog, stop, cycles, interval = sys.argv[1:8]
    pid, interval = int(pid), float(interval)
    t0 = time.monotonic()
    nxt = t0
    last = None
    while True:
        now = time.monotonic()
        stopping = os.path.exists(stop)
        if now >= nxt or stopping:
            with open(samples, "a") as f:
                f.write(sample(pid, j, cycles, now - t0) + "\n")
            while nxt <= now:
                nxt += interval
        if stopping:
            break
        knobs = (read(os.path.join(CFS, j, "force_copy")),
                 read(os.path.join(CFS, j, "reclaim_watermark_pct")))
        if knobs != last:
            with open(knoblog, "a") as f:
                f.write("%s t=%d force_copy=%s reclaim_watermark_pct=%s\n"
                        % (time.strftime("%H:%M:%S"), now - t0, knobs[0], knobs[1]))
            last = knobs
        time.sleep(1)
    sys.exit(0 if os.path.exists("/proc/%d" % pid) else 1)


if __name__ == "__main__":
    main()
