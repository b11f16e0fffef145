#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The tables tests/crash/run prints, from what each VM run left in its
output directory (workload.txt, replay-result.json, flakey-result.json).

  report.py OUTDIR TOTAL_SECONDS "SERIES..." RUN... -- "RUN-SERIES STATUS SECONDS\\n..."

Exits 1 when a run that is listed has no result file; with
CRASH_EXPECT_LOSS=1 (run --break), 0 only if every run failed and found
lost or wrong files.
"""
import json
import os
import sys


def kv(path):
    d = {}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.strip().split("=", 1)
                    d[k] = v
    except FileNotFoundError:
        pass
    return d


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (FileNotFoundError, ValueError):
        return None


def table(rows):
    w = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  " + "  ".join(str(c).rjust(w[i]) if i else str(c).ljust(w[i])
                               for i, c in enumerate(r)))


def main():
    sep = sys.argv.index("--")
    outdir, total, series = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
    runs = sys.argv[4:sep]
    status = {}
    for line in sys.argv[sep + 1].splitlines():
        if line.strip():
            k, st, secs = line.split()
            status[k] = (st, int(secs))
    missing = 0
    caught = 0
    for s in series:
        print("\n=== crash tests, kernel %s ===" % s)
        replay = [["run", "knobs", "marks", "points", "recovered", "fsck errors",
                   "mount fails", "files checked", "versions", "lost", "wrong",
                   "log wraps", "reclaim runs", "forced copies", "lock delays", "VM s"]]
        flakey = [["run", "knobs", "ops before fault", "fsync'ed files checked",
                   "dirs", "removals", "lost", "wrong", "aborted", "umount", "e2fsck",
                   "VM s"]]
        for r in runs:
            d = os.path.join(outdir, "%s-%s-%s" % (r, s, "stock" if r.endswith("-stock") else "ours"))
            st, secs = status.get("%s-%s" % (r, s), ("?", 0))
            if "flakey" in r:
                f = load(os.path.join(d, "flakey-result.json"))
                if f is None:
                    missing += 1
                    flakey.append([r, "on", "no result (%s)" % st] + [""] * 8 + [secs])
                    continue
                c = f.get("checked", {})
                caught += bool(f.get("lost") or f.get("wrong"))
                flakey.append([r, "on", sum(f.get("ops_before", [])), c.get("files", "-"),
                               c.get("dirs", "-"), c.get("absent", "-"), f.get("lost", "-"),
                               f.get("wrong", "-"), "yes" if f.get("aborted") else "NO",
                               f.get("umount", "-"), f.get("fsck", "-"), secs])
                continue
            w = kv(os.path.join(d, "workload.txt"))
            p = load(os.path.join(d, "replay-result.json"))
            knobs = w.get("knobs", "?") + ("" if w.get("break", "none") == "none"
                                           else " (broken: %s)" % w["break"])
            if r.endswith("-stock"):
                knobs = "stock jbd2"
            if p is None:
                missing += 1
                replay.append([r, knobs, "no result (%s)" % st] + [""] * 12 + [secs])
                continue
            caught += bool(p["lost"] or p["wrong"])
            wraps = "-"
            if w.get("log_blocks"):
                wraps = "%.1f" % (int(w["logged_blocks"]) / int(w["log_blocks"]))
            replay.append([r, knobs, p["marks"], p["points"], p["recovered"],
                           p["fsck_errors"], p["mount_failures"], p["files_checked"],
                           p["distinct_files"], p["lost"], p["wrong"], wraps,
                           w.get("reclaim_runs", "-"), w.get("copyouts_forced", "-"),
                           w.get("lock_delays", "-"), secs])
        if len(replay) > 1:
            table(replay)
        if len(flakey) > 1:
            print()
            table(flakey)
    print("\n=== summary ===")
    rows = [["run", "kernel", "result", "seconds"]]
    for s in series:
        for r in runs:
            st, secs = status.get("%s-%s" % (r, s), ("?", 0))
            rows.append([r, s, st, secs])
    table(rows)
    npass = sum(1 for st, _ in status.values() if st == "PASS")
    print("%d passed, %d failed; %d min %d s in all"
          % (npass, len(status) - npass, total // 60, total % 60))
    if os.environ.get("CRASH_EXPECT_LOSS"):
        # broken writers (run --break): each run must have failed and
        # found lost or wrong files
        ok = npass == 0 and caught == len(status)
        print("broken writers: %d of %d runs failed with lost or wrong files: %s"
              % (caught, len(status), "the checks work" if ok else "CHECKS DID NOT CATCH IT"))
        sys.exit(0 if ok else 1)
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
