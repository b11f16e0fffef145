#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The crash tests' load: writer processes that create, append, truncate,
overwrite, rename and remove files and directories, fsync'ing every change
(files, and the directories whose entries changed), and that dirty
shared inodes they never fsync, to keep the journal busy.

  workload.py TOP RECORDS --writers N --ops N [--mark DMNAME] [--seed S]
          [--noise BLOCKS] [--break nofsync|hash] [--faults]

Each writer works in TOP/w<i>/ and appends to RECORDS/w<i>.jsonl one line
per operation boundary (format in model.py), only after the fsyncs of the
operation before returned.  With --mark, it first sets the dm-log-writes
mark "w<i>.<k>" on DMNAME, so the replay knows which fsyncs had returned
before each log entry; the line's "t" is CLOCK_MONOTONIC at the same
point (the dm-flakey test cuts by time).  A writer stops at its first
error and records it in RECORDS/w<i>.err (time, errno); that fails the
run unless --faults says the device is made to fail.

Before each operation a writer also touches the shared noise inodes,
one in each of NOISE inode table blocks (TOP/noise/, made first), never
fsync'ing them: each operation's fsync then commits some NOISE blocks
beside its own, so the 4 MiB log wraps after a few dozen operations
whatever the speed of the machine, checkpointing (background reclaim with
a watermark) runs, and writers change buffers that another writer's
commit is writing (shadow waits, or forced copies).

--break is for showing that the check fails: "nofsync" leaves out every
fsync (and still records), "hash" records a wrong hash for every file
writer 0 changes from its fourth operation on.
"""
import argparse
import hashlib
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dmctl  # noqa: E402


class Writer:
    """One writer: its tree TOP/w<w>, what it holds (files: path ->
    content, dirs), and its record file.  Every operation picks its paths
    first (they are the next record's "dirty"), then acts and fsyncs."""

    def __init__(self, top, rec, w, seed, mark, brk):
        self.top = top
        self.w = w
        self.root = "w%d" % w
        self.rng = random.Random("%s-%d" % (seed, w))
        self.mark = mark
        self.brk = brk
        self.rec = os.open(os.path.join(rec, "w%d.jsonl" % w),
                           os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.files = {}  # path -> bytes (what is there, fsync'ed)
        self.dirs = []  # directories (not the root)
        self.seq = 0
        self.k = 0

    def p(self, rel):
        return os.path.join(self.top, rel)

    def fsync_path(self, rel, directory=False):
        if self.brk == "nofsync":
            return
        fd = os.open(self.p(rel), os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def fsync_fd(self, fd):
        if self.brk != "nofsync":
            os.fsync(fd)

    def new_name(self, kind):
        self.seq += 1
        return "%s%d" % (kind, self.seq)

    def data(self):
        size = self.rng.choice([0, 1, 100, 511, 4096, 5000, 12288, 40000])
        if size > 1:
            size = self.rng.randint(size // 2, size)
        return self.rng.randbytes(size)

    def write_new(self, rel, data):
        fd = os.open(self.p(rel), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, data)
            self.fsync_fd(fd)
        finally:
            os.close(fd)

    # --- operations: each returns (dirty paths, action) before doing
    # anything, the action returns {path: state} of what it left

    def choose(self):
        nf = len(self.files)
        ops = ["create"] * 3 + ["mkdir"]
        if nf:
            ops += ["append"] * 3 + ["truncate"] * 2 + ["overwrite"] * 2
            ops += ["replace"] * 2 + ["move"] * 2
        if nf > 6:
            ops += ["unlink"] * 3
        if self.dirs:
            ops += ["rendir"]
        if nf > 14:
            ops = [o for o in ops if o not in ("create", "mkdir")]
        op = self.rng.choice(ops)
        return op, getattr(self, "op_" + op)()

    def st_file(self, rel):
        d = self.files[rel]
        return ["f", hashlib.sha1(d).hexdigest(), len(d)]

    def any_dir(self):
        return self.rng.choice([self.root] + self.dirs)

    def any_file(self):
        return self.rng.choice(sorted(self.files))

    def op_create(self):
        rel = os.path.join(self.any_dir(), self.new_name("f"))

        def act():
            d = self.data()
            self.write_new(rel, d)
            self.fsync_path(os.path.dirname(rel), True)
            self.files[rel] = d
            return {rel: self.st_file(rel)}
        return [rel], act

    def op_mkdir(self):
        parent = self.any_dir()
        if parent.count("/") >= 3:
            parent = self.root
        rel = os.path.join(parent, self.new_name("d"))
        f = os.path.join(rel, self.new_name("f"))

        def act():
            os.mkdir(self.p(rel))
            d = self.data()
            self.write_new(f, d)
            self.fsync_path(rel, True)
            self.fsync_path(parent, True)
            self.dirs.append(rel)
            self.files[f] = d
            return {rel: ["d"], f: self.st_file(f)}
        return [rel], act

    def op_append(self):
        rel = self.any_file()

        def act():
            d = self.data()
            fd = os.open(self.p(rel), os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, d)
                self.fsync_fd(fd)
            finally:
                os.close(fd)
            self.files[rel] += d
            return {rel: self.st_file(rel)}
        return [rel], act

    def op_truncate(self):
        rel = self.any_file()

        def act():
            old = self.files[rel]
            n = self.rng.randint(0, len(old)) if old else 0
            tail = self.data() if self.rng.random() < 0.5 else b""
            fd = os.open(self.p(rel), os.O_WRONLY)
            try:
                os.ftruncate(fd, n)
                if tail:
                    os.pwrite(fd, tail, n)
                self.fsync_fd(fd)
            finally:
                os.close(fd)
            self.files[rel] = old[:n] + tail
            return {rel: self.st_file(rel)}
        return [rel], act

    def op_overwrite(self):
        rel = self.any_file()

        def act():
            old = self.files[rel]
            off = self.rng.randint(0, len(old))
            d = self.data() or b"x"
            fd = os.open(self.p(rel), os.O_WRONLY)
            try:
                os.pwrite(fd, d, off)
                self.fsync_fd(fd)
            finally:
                os.close(fd)
            self.files[rel] = old[:off] + d + old[off + len(d):]
            return {rel: self.st_file(rel)}
        return [rel], act

    def op_replace(self):
        # the atomic replacement: new content in a temporary file,
        # fsync it, rename it over the file, fsync the directory
        rel = self.any_file()
        tmp = os.path.join(os.path.dirname(rel), "." + self.new_name("t"))

        def act():
            d = self.data()
            self.write_new(tmp, d)
            os.rename(self.p(tmp), self.p(rel))
            self.fsync_path(os.path.dirname(rel), True)
            self.files[rel] = d
            return {rel: self.st_file(rel), tmp: ["-"]}
        return [rel, tmp], act

    def op_move(self):
        rel = self.any_file()
        dst = os.path.join(self.any_dir(), self.new_name("m"))

        def act():
            os.rename(self.p(rel), self.p(dst))
            self.fsync_path(os.path.dirname(rel), True)
            self.fsync_path(os.path.dirname(dst), True)
            self.files[dst] = self.files.pop(rel)
            return {rel: ["-"], dst: self.st_file(dst)}
        return [rel, dst], act

    def op_unlink(self):
        rel = self.any_file()

        def act():
            os.unlink(self.p(rel))
            self.fsync_path(os.path.dirname(rel), True)
            del self.files[rel]
            return {rel: ["-"]}
        return [rel], act

    def op_rendir(self):
        src = self.rng.choice(self.dirs)
        parents = [d for d in [self.root] + self.dirs
                   if d != src and not d.startswith(src + "/") and d.count("/") < 3]
        dst = os.path.join(self.rng.choice(parents), self.new_name("r"))

        def act():
            os.rename(self.p(src), self.p(dst))
            self.fsync_path(os.path.dirname(src), True)
            self.fsync_path(os.path.dirname(dst), True)
            out = {}

            def moved(x):
                return dst + x[len(src):] if x == src or x.startswith(src + "/") else x
            for x in list(self.files):
                if moved(x) != x:
                    self.files[moved(x)] = self.files.pop(x)
                    out[x] = ["-"]
                    out[moved(x)] = self.st_file(moved(x))
            for x in self.dirs:
                if moved(x) != x:
                    out[x] = ["-"]
                    out[moved(x)] = ["d"]
            self.dirs = [moved(x) for x in self.dirs]
            return out
        return [src, dst], act

    def boundary(self, done, dirty):
        """Record k: operation k-1 left DONE (fsync'ed), operation k
        will touch DIRTY.  The mark goes first."""
        name = "w%d.%d" % (self.w, self.k)
        if self.mark:
            dmctl.message(self.mark, "mark " + name)
        t = time.monotonic()
        if self.brk == "hash" and self.w == 0 and self.k >= 4:
            for s in done.values():
                if s[0] == "f":
                    s[1] = "0" * 40
        line = json.dumps({"w": self.w, "k": self.k, "mark": name, "t": t,
                           "done": done, "dirty": dirty}, separators=(",", ":"))
        os.write(self.rec, (line + "\n").encode())
        self.k += 1

    def run(self, nops, noise):
        self.boundary({}, [self.root])
        os.mkdir(self.p(self.root))
        self.fsync_path(self.root, True)
        self.fsync_path(".", True)
        done = {self.root: ["d"]}
        for _ in range(nops):
            op, (dirty, act) = self.choose()
            self.boundary(done, dirty)
            # dirty the shared noise inodes (never fsync'ed; not in the
            # records): this operation's fsync commits them too
            for p in noise:
                os.utime(p, (self.k, self.k))
            done = act()
        self.boundary(done, [])


def make_noise(top, nblocks):
    """4 * NBLOCKS empty files in TOP/noise/; returns one of each 4 by
    inode number: with 256-byte inodes in 1 KiB blocks (this test's
    mkfs), one per inode table block, so touching them all dirties about
    NBLOCKS blocks."""
    base = os.path.join(top, "noise")
    os.mkdir(base)
    paths = []
    for i in range(4 * nblocks):
        d = os.path.join(base, "d%d" % (i // 200))
        if i % 200 == 0:
            os.mkdir(d)
        p = os.path.join(d, "n%d" % i)
        fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o644)
        if (os.fstat(fd).st_ino - 1) % 4 == 0:
            paths.append(p)
        os.close(fd)
    return paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("top")
    ap.add_argument("records")
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--ops", type=int, default=40)
    ap.add_argument("--mark")
    ap.add_argument("--seed", default="crash")
    ap.add_argument("--noise", type=int, default=200)
    ap.add_argument("--break", dest="brk", choices=["nofsync", "hash"])
    ap.add_argument("--faults", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.records, exist_ok=True)

    noise = make_noise(a.top, a.noise) if a.noise else []
    pids = {}
    for w in range(a.writers):
        pid = os.fork()
        if pid == 0:
            rc = 0
            try:
                Writer(a.top, a.records, w, a.seed, a.mark, a.brk).run(a.ops, noise)
            except OSError as e:
                with open(os.path.join(a.records, "w%d.err" % w), "w") as f:
                    json.dump({"t": time.monotonic(), "errno": e.errno,
                               "error": str(e)}, f)
                if not a.faults:
                    print("writer %d: %s" % (w, e), file=sys.stderr)
                    rc = 1
            except Exception as e:  # noqa: BLE001
                print("writer %d: %r" % (w, e), file=sys.stderr)
                rc = 1
            os._exit(rc)
        pids[pid] = w
    rc = 0
    while pids:
        pid, st = os.wait()
        del pids[pid]
        if os.waitstatus_to_exitcode(st):
            rc = 1
    sys.exit(rc)


if __name__ == "__main__":
    main()
