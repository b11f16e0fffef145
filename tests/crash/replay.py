#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Replay a dm-log-writes log and check the file system at every flush and
FUA entry: the states a power cut could leave.

  replay.py LOGDEV TARGET COW0,COW1 RECORDS MNT OUTDIR [--label L]
        [--max-points N]

The log (Documentation/admin-guide/device-mapper/log-writes.rst, format
from drivers/md/dm-log-writes.c): sector 0 holds the super block
(le64 magic 0x6a736677736872, le64 version 1, le64 nr_entries, le32
sectorsize); entries follow from byte `sectorsize` on, each a header
sector (le64 sector, le64 nr_sectors, le64 flags, le64 data_len; a mark's
name follows these 32 bytes) and then, unless it is a mark or a discard,
nr_sectors * sectorsize bytes of data.  Sectors count in `sectorsize`
units.  Writes are logged when a later flush completes, in completion
order, and FUA writes when they complete, so replaying up to a flush or
FUA entry gives what a disk that lost its cache at that moment holds.

TARGET must hold what the logged device held when logging started.  The
entries are written to it through a snapshot-origin device; at each point
a transient dm-snapshot of it (COW on COW0 or COW1 in turn) is mounted
(jbd2 recovers the journal into the snapshot: TARGET only ever gets the
log's writes), the writers' records are compared (model.py: every
operation whose mark comes before the point, fsync'ed, must be there
exactly), the snapshot is unmounted and `e2fsck -fn` must find it clean.
Writes OUTDIR/replay-points.txt (one line per point), replay-fsck/ (the
output of every e2fsck that was not clean) and replay-result.json; exits
1 when any point failed.  With --base (a copy of TARGET as it was), the
first two failed points are looked at again (replay-diag/, see
diagnose()).
"""
import argparse
import bisect
import ctypes
import json
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dmctl  # noqa: E402
import model  # noqa: E402

MAGIC = 0x6a736677736872
FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16
SUPER = struct.Struct("<QQQI")
ENTRY = struct.Struct("<QQQQ")
SNAP = "crashsnap"
ORIGIN = "crashorigin"
MS_NOATIME = 1024

libc = ctypes.CDLL(None, use_errno=True)


def mount(dev, mnt):
    if libc.mount(dev.encode(), mnt.encode(), b"ext4", MS_NOATIME, b"") != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s: %s" % (dev, os.strerror(e)))


def umount(mnt):
    if libc.umount2(mnt.encode(), 0) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "umount %s: %s" % (mnt, os.strerror(e)))


def read_log(path):
    """-> (sectorsize, [(offset of data, sector, nr_sectors, flags, mark)])"""
    fd = os.open(path, os.O_RDONLY)
    magic, version, n, ss = SUPER.unpack(os.pread(fd, SUPER.size, 0))
    if magic != MAGIC or version != 1:
        raise SystemExit("%s: not a dm-log-writes log (magic %#x version %d)"
                         % (path, magic, version))
    entries = []
    pos = ss
    for _ in range(n):
        hdr = os.pread(fd, ss, pos)
        sector, nr, flags, dlen = ENTRY.unpack_from(hdr)
        mark = None
        pos += ss
        if flags & MARK:
            mark = hdr[ENTRY.size:ENTRY.size + dlen].decode()
            entries.append((pos, sector, 0, flags, mark))
            continue
        entries.append((pos, sector, nr, flags, None))
        if not flags & DISCARD:
            pos += nr * ss
    os.close(fd)
    return ss, entries


def needs_recovery(node):
    """EXT4_FEATURE_INCOMPAT_RECOVER in the super block: the journal
    holds transactions the mount will replay."""
    fd = os.open(node, os.O_RDONLY)
    try:
        sb = os.pread(fd, 1024, 1024)
    finally:
        os.close(fd)
    return bool(struct.unpack_from("<I", sb, 0x60)[0] & 0x4)


class Replay:
    """The points, in order.  While e2fsck checks one point's snapshot,
    the next point is replayed, snapshotted, mounted and checked: writes
    go through a snapshot-origin device, which copies what they overwrite
    into the live snapshot first, so the two overlap on the guest's two
    CPUs.  Two snapshots (one COW device each) take turns."""

    def __init__(self, a, entries, ss, recs, marks, points):
        self.a, self.entries, self.ss = a, entries, ss
        self.recs, self.marks, self.points = recs, marks, points
        self.tsize = dmctl.sectors(a.target)
        self.cows = a.cow.split(",")
        self.res = {"label": a.label, "entries": len(entries),
                    "writes": sum(1 for e in entries if e[2] and not e[3] & (MARK | DISCARD)),
                    "marks": sum(1 for e in entries if e[4]),
                    # what the points are: data-less flushes (dm splits a
                    # PREFLUSH write into an empty flush, which keeps the
                    # write's FUA flag, and the write with FUA alone), FUA
                    # writes (logged when they complete, ahead of writes
                    # that completed earlier but wait for a flush), and
                    # discards (replayed as zeros; ext4 here issues none)
                    "kinds": {k: sum(1 for i in points if self.kind(entries[i][3]) == k)
                              for k in ("flush", "flush+fua", "fua")},
                    "discards": sum(1 for e in entries if e[3] & DISCARD),
                    "points": 0,
                    "recovered": 0, "fsck_errors": 0, "mount_failures": 0,
                    "files_checked": 0, "dirs_checked": 0, "absent_checked": 0,
                    "distinct_files": 0, "lost": 0, "wrong": 0, "bad_points": 0,
                    "first_bad": [], "selftest": ""}
        self.timing = {"replay": 0.0, "mount": 0.0, "check": 0.0, "fsck wait": 0.0}
        self.distinct = set()
        self.failed = []
        os.makedirs(os.path.join(a.outdir, "replay-fsck"), exist_ok=True)
        self.plog = open(os.path.join(a.outdir, "replay-points.txt"), "w")

    @staticmethod
    def kind(flags):
        return "+".join(k for k, f in (("flush", FLUSH), ("fua", FUA)) if flags & f)

    def run(self):
        a = self.a
        t0 = time.monotonic()
        logfd = os.open(a.log, os.O_RDONLY)
        origin = dmctl.create(ORIGIN, self.tsize, "snapshot-origin", a.target)
        ofd = os.open(origin, os.O_RDWR)
        pending = None
        nxt = 0
        for pn, E in enumerate(self.points):
            ta = time.monotonic()
            nxt = self.apply(logfd, ofd, nxt, E)
            tb = time.monotonic()
            p = self.check_point(pn, E)
            tc = time.monotonic()
            if pending:
                self.finish(pending)
            td = time.monotonic()
            pending = p
            self.timing["replay"] += tb - ta
            self.timing["fsck wait"] += td - tc
            if pn % 25 == 0:
                print("point %d of %d (%.0fs)" % (pn, len(self.points),
                                                  time.monotonic() - t0), flush=True)
        if pending:
            self.finish(pending)
        os.close(ofd)
        dmctl.remove(ORIGIN)
        if self.failed and a.base:
            self.diagnose(logfd, self.failed[:2])
        os.close(logfd)
        self.res["distinct_files"] = len(self.distinct)
        self.res["seconds"] = round(time.monotonic() - t0, 1)
        self.res["timing"] = {k: round(v, 1) for k, v in self.timing.items()}
        return self.res

    def apply(self, logfd, fd, nxt, E):
        """Write log entries nxt..E to fd; returns E + 1."""
        while nxt <= E:
            off, sector, nr, flags, mark = self.entries[nxt]
            if nr and not flags & MARK:
                n = nr * self.ss
                data = bytes(n) if flags & DISCARD else os.pread(logfd, n, off)
                os.pwrite(fd, data, sector * self.ss)
            nxt += 1
        os.fsync(fd)
        return nxt

    def diagnose(self, logfd, failed):
        """For a look at failed points later: every log entry (index,
        flags, file system blocks of BLOCK bytes), and for each point
        the state before recovery (TARGET made anew from BASE): dumpe2fs,
        the journal inode's extents, and debugfs' logdump -a (journal super
        block, transactions, which file system block each logs where)."""
        d = os.path.join(self.a.outdir, "replay-diag")
        os.makedirs(d, exist_ok=True)
        bs = self.a.block
        with open(os.path.join(d, "entries.txt"), "w") as f:
            f.write("# entry flags first-block blocks (%d-byte blocks; flags 1 flush, "
                    "2 fua, 4 discard, 8 mark, 16 metadata)\n" % bs)
            for i, (off, sector, nr, flags, mark) in enumerate(self.entries):
                b0 = sector * self.ss // bs
                nb = (nr * self.ss + bs - 1) // bs
                f.write("%d %d %d %d%s\n" % (i, flags, b0, nb, " " + mark if mark else ""))
        tfd = os.open(self.a.target, os.O_RDWR)
        for E in failed:
            src = os.open(self.a.base, os.O_RDONLY)
            pos = 0
            while True:
                b = os.pread(src, 1 << 20, pos)
                if not b:
                    break
                os.pwrite(tfd, b, pos)
                pos += len(b)
            os.close(src)
            self.apply(logfd, tfd, 0, E)
            for what, cmd in (("dumpe2fs", ["dumpe2fs", self.a.target]),
                              ("journal-inode", ["debugfs", "-R", "stat <8>", self.a.target]),
                              ("logdump", ["debugfs", "-R", "logdump -a", self.a.target])):
                with open(os.path.join(d, "point-%06d-%s.txt" % (E, what)), "w") as f:
                    subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
        os.close(tfd)
        print("failed points %s: the log's entries and the states before recovery are in %s"
              % (failed, d), flush=True)

    def check_point(self, pn, E):
        """Snapshot, mount (recovery), compare with the records, umount,
        start e2fsck: returns the point, its e2fsck still running."""
        cut = {}
        for w, idx in self.marks.items():
            K = bisect.bisect_left(idx, E) - 1
            if K >= 0:
                cut[w] = (K, [K])
        want = model.expected(self.recs, cut)
        name = "%s%d" % (SNAP, pn % 2)
        t0 = time.monotonic()
        node = dmctl.create(name, self.tsize, "snapshot", "%s %s N 8"
                            % (self.a.target, self.cows[pn % 2]))
        p = {"pn": pn, "E": E, "name": name, "node": node, "cut": cut, "problems": [],
             "counts": {"files": 0, "dirs": 0, "absent": 0},
             "recover": needs_recovery(node)}
        try:
            mount(node, self.a.mnt)
        except OSError as e:
            self.res["mount_failures"] += 1
            p["problems"].append("mount failed: %s" % e.strerror)
        else:
            t1 = time.monotonic()
            self.timing["mount"] += t1 - t0
            p["counts"], bad = model.check(self.a.mnt, want)
            p["problems"] += bad
            for path, s in want.items():
                if s[0] == "f":
                    self.distinct.add((path, s[1]))
            if pn == len(self.points) - 1:
                self.res["selftest"] = selftest(self.a.mnt, want)
            umount(self.a.mnt)
            self.timing["check"] += time.monotonic() - t1
        p["fsck"] = subprocess.Popen(["e2fsck", "-fn", node], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        return p

    def finish(self, p):
        """Wait for the point's e2fsck, drop its snapshot, account it."""
        out = p["fsck"].communicate()[0]
        rc = p["fsck"].returncode
        for attempt in range(50):
            try:
                dmctl.remove(p["name"])
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit("cannot remove %s" % p["name"])
        res = self.res
        problems = p["problems"]
        if rc != 0:
            res["fsck_errors"] += 1
            with open(os.path.join(self.a.outdir, "replay-fsck",
                                   "point-%06d.txt" % p["E"]), "wb") as f:
                f.write(out)
            problems.append("e2fsck -fn exit %d" % rc)
        for x in problems:
            if x.startswith(("e2fsck", "mount failed")):
                continue
            if " lost" in x:
                res["lost"] += 1
            else:
                res["wrong"] += 1
        res["points"] += 1
        res["recovered"] += p["recover"]
        c = p["counts"]
        res["files_checked"] += c["files"]
        res["dirs_checked"] += c["dirs"]
        res["absent_checked"] += c["absent"]
        kind = self.kind(self.entries[p["E"]][3])
        cut = p["cut"]
        line = "point %d entry %d %s%s ops %s files %d dirs %d absent %d fsck %d %s" % (
            p["pn"], p["E"], kind, " recovery" if p["recover"] else "",
            ",".join("w%d:%d" % (w, cut[w][0]) for w in sorted(cut)) or "-",
            c["files"], c["dirs"], c["absent"], rc,
            "OK" if not problems else "BAD " + "; ".join(problems[:20]))
        self.plog.write(line + "\n")
        self.plog.flush()
        if problems:
            self.failed.append(p["E"])
            res["bad_points"] += 1
            if len(res["first_bad"]) < 10:
                res["first_bad"].append(line)
            print(line, flush=True)


def main():
    ap = argparse.ArgumentParser()
    for a in ("log", "target", "cow", "records", "mnt", "outdir"):
        ap.add_argument(a)
    ap.add_argument("--label", default="")
    ap.add_argument("--max-points", type=int, default=0)
    ap.add_argument("--base", help="a copy of TARGET as it was: failed points are diagnosed")
    ap.add_argument("--block", type=int, default=1024, help="file system block size")
    a = ap.parse_args()

    t0 = time.monotonic()
    ss, entries = read_log(a.log)
    recs = model.load_records(a.records)
    # where each writer's marks are in the log
    mark_at = {e[4]: i for i, e in enumerate(entries) if e[4]}
    marks = {}
    missing = []
    for w, lst in recs.items():
        idx = []
        for r in lst:
            if r["mark"] not in mark_at:
                missing.append(r["mark"])
            idx.append(mark_at.get(r["mark"], len(entries)))
        if idx != sorted(idx):
            raise SystemExit("writer %d: marks out of order in the log" % w)
        marks[w] = idx
    points = [i for i, e in enumerate(entries) if e[3] & (FLUSH | FUA)]
    if a.max_points and len(points) > a.max_points:
        points = points[:a.max_points]
    print("log: %d entries (%d marks, %d flush/FUA: %s; %d discards), sector size %d; "
          "%d writers, %d records; %.1fs to read"
          % (len(entries), len(mark_at), len(points),
             ", ".join("%s %d" % (k, sum(1 for i in points if Replay.kind(entries[i][3]) == k))
                       for k in ("flush", "flush+fua", "fua")),
             sum(1 for e in entries if e[3] & DISCARD), ss, len(recs),
             sum(len(x) for x in recs.values()), time.monotonic() - t0), flush=True)
    if missing:
        raise SystemExit("records whose mark is not in the log: %s" % missing[:5])

    res = Replay(a, entries, ss, recs, marks, points).run()
    with open(os.path.join(a.outdir, "replay-result.json"), "w") as f:
        json.dump(res, f, indent=1)
    t = res["timing"]
    print("replayed %d points in %.0fs (replay %.0fs, snapshot+mount %.0fs, check+umount %.0fs, "
          "waiting for e2fsck %.0fs); %d needed journal recovery: fsck errors %d, mount "
          "failures %d, files checked %d (%d distinct fsync'ed versions), lost %d, wrong %d; "
          "checker self-test: %s"
          % (res["points"], res["seconds"], t["replay"], t["mount"], t["check"],
             t["fsck wait"], res["recovered"], res["fsck_errors"], res["mount_failures"],
             res["files_checked"], res["distinct_files"], res["lost"], res["wrong"],
             res["selftest"]))
    bad = res["bad_points"] or not res["selftest"].startswith("ok")
    sys.exit(1 if bad else 0)


def selftest(mnt, want):
    """The check must see a changed hash and a file expected gone."""
    files = sorted(p for p in want if want[p][0] == "f")
    if len(files) < 2:
        return "FAILED: fewer than 2 files to alter"
    alt = dict(want)
    alt[files[0]] = ["f", "0" * 40, want[files[0]][2]]
    alt[files[1]] = ["-"]
    _, bad = model.check(mnt, alt)
    got = sorted(b.split(":")[0] for b in bad)
    if got == sorted(files[:2]):
        return "ok (a wrong hash and a file expected gone: both reported)"
    return "FAILED: altered %s, reported %s" % (files[:2], got)


if __name__ == "__main__":
    main()
