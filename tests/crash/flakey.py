#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Write faults under an fsync load, with dm-flakey.

  flakey.py DMNAME DEV MNT RECORDS OUTDIR JOURNAL [--writers N] [--noise N]
        [--warm-ops N] [--drop-seconds S] [--break nofsync|hash]

DMNAME is a linear device-mapper device over DEV with ext4 mounted on
MNT, journal JOURNAL (its configfs group).  workload.py runs on it (no
marks: the records' times say when each fsync had returned).  Once every
writer has done --warm-ops operations and the journal has wrapped
(logged_blocks > log_blocks) and, with a watermark, background reclaim has
run, the table is swapped, without freezing the
file system, for dm-flakey dropping every write (the device says done,
nothing reaches DEV: from then on DEV holds what a power cut would have
left), then, --drop-seconds later, for dm-flakey failing every write with
EIO.  Then: every writer must stop on an error, jbd2 must abort the
journal ("Aborting journal on device JOURNAL" in the kernel log), and
umount must work.  The table goes back to linear, the file system is
mounted again (journal recovery), everything fsync'ed before the first
swap started must be there exactly (model.py), and after umount
e2fsck -fn must be clean.  Writes OUTDIR/flakey-result.json; exits 1 on
any failure.
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dmctl  # noqa: E402
import model  # noqa: E402
from replay import needs_recovery  # noqa: E402

CFS = "/sys/kernel/config/jbd2"


def jattr(j, name):
    with open(os.path.join(CFS, j, name)) as f:
        return int(f.read())


def records_per_writer(directory, writers):
    n = []
    for w in range(writers):
        try:
            with open(os.path.join(directory, "w%d.jsonl" % w)) as f:
                n.append(sum(1 for _ in f))
        except FileNotFoundError:
            n.append(0)
    return n


def dmesg():
    return subprocess.run(["dmesg"], stdout=subprocess.PIPE, text=True).stdout


def main():
    ap = argparse.ArgumentParser()
    for x in ("dm", "dev", "mnt", "records", "outdir", "journal"):
        ap.add_argument(x)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--noise", type=int, default=200)
    ap.add_argument("--warm-ops", type=int, default=25)
    ap.add_argument("--drop-seconds", type=float, default=3)
    ap.add_argument("--break", dest="brk", choices=["nofsync", "hash"])
    a = ap.parse_args()
    size = dmctl.sectors(a.dev)
    res = {"problems": []}
    fails = res["problems"]
    here = os.path.dirname(os.path.abspath(__file__))

    load = subprocess.Popen([sys.executable, os.path.join(here, "workload.py"), a.mnt,
                             a.records, "--writers", str(a.writers), "--ops", "100000",
                             "--noise", str(a.noise), "--faults"]
                            + (["--break", a.brk] if a.brk else []))
    # with a watermark, the fault comes once background reclaim has run
    reclaim = jattr(a.journal, "reclaim_watermark_pct") > 0
    t0 = time.monotonic()
    while True:
        n = records_per_writer(a.records, a.writers)
        wrapped = jattr(a.journal, "logged_blocks") > jattr(a.journal, "log_blocks")
        if reclaim:
            wrapped = wrapped and jattr(a.journal, "reclaim_runs") > 0
        if min(n) > a.warm_ops and wrapped:
            break
        if load.poll() is not None:
            raise SystemExit("workload ended before the fault (exit %d)" % load.returncode)
        if time.monotonic() - t0 > 300:
            raise SystemExit("no warm-up after 300 s: ops %s, wrapped %s" % (n, wrapped))
        time.sleep(0.2)
    for f in ("commits", "logged_blocks", "log_blocks", "copyouts_forced",
              "reclaim_runs", "reclaim_blocks"):
        res["before_" + f] = jattr(a.journal, f)
    res["ops_before"] = n

    # drop writes: what DEV holds from here on is a power cut's state
    t_start = time.monotonic()
    dmctl.reload(a.dm, size, "flakey", "%s 0 0 3600 1 drop_writes" % a.dev)
    t_end = time.monotonic()
    time.sleep(a.drop_seconds)
    res["ops_dropping"] = records_per_writer(a.records, a.writers)
    dmctl.reload(a.dm, size, "flakey", "%s 0 0 3600 1 error_writes" % a.dev)
    t_err = time.monotonic()
    try:
        load.wait(timeout=300)
    except subprocess.TimeoutExpired:
        fails.append("writers still running 300 s after writes started failing")
        load.kill()
        load.wait()
    res["writers_stopped_after_s"] = round(time.monotonic() - t_err, 1)
    if load.returncode != 0:
        fails.append("workload exit %d" % load.returncode)
    errs = {}
    for w in range(a.writers):
        try:
            with open(os.path.join(a.records, "w%d.err" % w)) as f:
                e = json.load(f)
        except FileNotFoundError:
            fails.append("writer %d ended without an error" % w)
            continue
        errs[w] = e["error"]
        if e["t"] < t_start:
            fails.append("writer %d failed before the fault: %s" % (w, e["error"]))
    res["writer_errors"] = errs
    res["ops_total"] = records_per_writer(a.records, a.writers)
    log = dmesg()
    res["aborted"] = "Aborting journal on device %s." % a.journal in log
    if not res["aborted"]:
        fails.append("no 'Aborting journal on device %s.' in the kernel log" % a.journal)

    u = subprocess.run(["umount", a.mnt], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    res["umount"] = u.returncode
    if u.returncode != 0:
        fails.append("umount after the fault: exit %d: %s" % (u.returncode, u.stdout.strip()))
        raise SystemExit(finish(a, res))

    # the healthy device again
    dmctl.reload(a.dm, size, "linear", "%s 0" % a.dev)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    res["recovery"] = needs_recovery(a.dev)
    m = subprocess.run(["mount", "-t", "ext4", "/dev/mapper/" + a.dm, a.mnt],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if m.returncode != 0:
        fails.append("mount on the healthy device: %s" % m.stdout.strip())
        raise SystemExit(finish(a, res))
    recs = model.load_records(a.records)
    cut = {}
    for w, lst in recs.items():
        K = max([r["k"] for r in lst if r["t"] < t_start], default=-1)
        if K >= 0:
            cut[w] = (K, [r["k"] for r in lst if r["k"] >= K and r["t"] < t_end])
    res["cut"] = {w: c[0] for w, c in cut.items()}
    want = model.expected(recs, cut)
    counts, bad = model.check(a.mnt, want)
    res["checked"] = counts
    res["lost"] = sum(1 for b in bad if " lost" in b)
    res["wrong"] = len(bad) - res["lost"]
    fails.extend(bad)
    subprocess.run(["umount", a.mnt], check=True)
    fsck = subprocess.run(["e2fsck", "-fn", "/dev/mapper/" + a.dm], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    res["fsck"] = fsck.returncode
    if fsck.returncode != 0:
        with open(os.path.join(a.outdir, "flakey-fsck.txt"), "w") as f:
            f.write(fsck.stdout)
        fails.append("e2fsck -fn after recovery: exit %d" % fsck.returncode)
    sys.exit(finish(a, res))


def finish(a, res):
    with open(os.path.join(a.outdir, "flakey-result.json"), "w") as f:
        json.dump(res, f, indent=1)
    c = res.get("checked", {})
    print("flakey: before the fault: ops per writer %s, logged_blocks %s (log_blocks %s), "
          "reclaim_runs %s, copyouts_forced %s"
          % (res.get("ops_before"), res.get("before_logged_blocks"), res.get("before_log_blocks"),
             res.get("before_reclaim_runs"), res.get("before_copyouts_forced")))
    print("flakey: ops while dropping writes %s, in all %s; journal aborted: %s; umount exit %s; "
          "journal to recover on the healthy device: %s"
          % (res.get("ops_dropping"), res.get("ops_total"), res.get("aborted"), res.get("umount"),
             res.get("recovery")))
    print("flakey: after remount: %d fsync'ed files, %d dirs, %d removals checked, lost %s, "
          "wrong %s; e2fsck -fn exit %s"
          % (c.get("files", 0), c.get("dirs", 0), c.get("absent", 0), res.get("lost"),
             res.get("wrong"), res.get("fsck")))
    for p in res["problems"]:
        print("FAIL: " + p)
    return 1 if res["problems"] else 0


if __name__ == "__main__":
    main()
