#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks for the netlink VM tests (tests/vm/tests/netlink-*.sh).

  nlcheck.py compare BEFORE DUMP AFTER [--idle]
      BEFORE/AFTER: configfs files of one journal read before and after the
      dump (key=value lines); DUMP: jbd2tune-nl's record of that journal.
      Knobs and sizes must be equal, counters and histogram buckets may only
      grow (BEFORE <= DUMP <= AFTER), gauges (free_blocks, force_copy_bytes)
      stay within their bounds; with --idle everything must be equal.
  nlcheck.py record NAME < DUMP_OUTPUT
      print the record of journal NAME from `jbd2tune-nl dump` output
  nlcheck.py stall-rate EVENTS [--max-per-s N] [--min-gap-us U]
      per journal: STALL events, most in any 1 s window, smallest gap
  nlcheck.py events EVENTS KIND [NAME]
      number of events of KIND (for journal NAME)
Exit status 1 with a "FAIL:" line when a check fails.
"""
import sys

FIXED = {"force_copy", "reclaim_watermark_pct", "lock_delay_max_ms", "log_blocks",
         "max_transaction_blocks", "reclaim_watermark_min_pct",
         "reclaim_watermark_max_pct", "force_copy_max_kib"}
# gauges: move both ways under load, each within its bound (the dump's
# own figures): free log space within the log, the memory forced copies
# hold now within the cap (force-copy-cap.patch never forces a copy past it)
GAUGES = {
    "free_blocks": lambda rec: int(rec["log_blocks"]),
    "force_copy_bytes": lambda rec: int(rec["force_copy_max_kib"]) * 1024,
}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read_record(path):
    rec = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            key, _, val = line.partition("=")
            rec[key] = val
    return rec


def nums(val):
    return [int(x) for x in val.replace(",", " ").split()]


def compare(args):
    idle = "--idle" in args
    args = [a for a in args if a != "--idle"]
    before, dump, after = (read_record(p) for p in args[:3])
    name = dump.get("name", "?")
    dump_keys = set(dump) - {"name"}
    if set(before) != dump_keys:
        fail("%s: configfs files %s, dump keys %s differ by %s" %
             (name, sorted(before), sorted(dump_keys),
              sorted(set(before) ^ dump_keys)))
    for key in sorted(before):
        b, d, a = nums(before[key]), nums(dump[key]), nums(after[key])
        if not (len(b) == len(d) == len(a)):
            fail("%s: %s: %d/%d/%d values" % (name, key, len(b), len(d),
                                              len(a)))
        if key in FIXED or idle:
            if not b == d == a:
                fail("%s: %s: configfs %s, dump %s, configfs %s" %
                     (name, key, before[key], dump[key], after[key]))
            continue
        if key in GAUGES:
            bound = GAUGES[key](dump)
            if not 0 <= d[0] <= bound:
                fail("%s: %s %d outside 0..%d" % (name, key, d[0], bound))
            continue
        for i, (x, y, z) in enumerate(zip(b, d, a)):
            if not x <= y <= z:
                fail("%s: %s[%d]: configfs %d, dump %d, configfs %d: "
                     "not monotonic" % (name, key, i, x, y, z))
    print("ok: %s: %d figures of the dump match configfs%s" %
          (name, len(before), " exactly (idle)" if idle else
           " (counters only forward)"))


def record(args):
    want = args[0]
    for block in sys.stdin.read().split("\n\n"):
        lines = [ln for ln in block.splitlines() if ln]
        if lines and lines[0] == "name=" + want:
            print("\n".join(lines))
            return
    fail("no record for %s in the dump" % want)


def parse_events(path):
    events = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            ev = dict(kv.split("=", 1) for kv in line.split())
            events.append(ev)
    return events


def stall_rate(args):
    path = args[0]
    max_per_s = 10
    min_gap_us = 99000
    if "--max-per-s" in args:
        max_per_s = int(args[args.index("--max-per-s") + 1])
    if "--min-gap-us" in args:
        min_gap_us = int(args[args.index("--min-gap-us") + 1])
    per = {}
    for ev in parse_events(path):
        if ev.get("event") == "STALL":
            per.setdefault(ev["name"], []).append(int(ev["kernel_us"]))
    if not per:
        fail("no STALL event at all")
    for name, ts in sorted(per.items()):
        ts.sort()
        gaps = [b - a for a, b in zip(ts, ts[1:])]
        most = max(sum(1 for t in ts if s <= t < s + 1000000) for s in ts)
        span = (ts[-1] - ts[0]) / 1e6
        print("%s: %d STALL events over %.1f s, at most %d in 1 s, "
              "smallest gap %s us" % (name, len(ts), span, most,
                                      min(gaps) if gaps else "-"))
        if most > max_per_s:
            fail("%s: %d STALL events within 1 s (limit %d)" %
                 (name, most, max_per_s))
        if gaps and min(gaps) < min_gap_us:
            fail("%s: two STALL events %d us apart (limit %d)" %
                 (name, min(gaps), min_gap_us))
    print("ok: STALL coalescing")


def count_events(args):
    path, kind = args[0], args[1]
    name = args[2] if len(args) > 2 else None
    print(sum(1 for ev in parse_events(path)
              if ev.get("event") == kind and
              (name is None or ev.get("name") == name)))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    cmd, args = sys.argv[1], sys.argv[2:]
    {"compare": compare, "record": record, "stall-rate": stall_rate,
     "events": count_events}[cmd](args)


if __name__ == "__main__":
    main()
