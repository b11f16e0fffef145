# SPDX-License-Identifier: GPL-2.0
"""What must be on disk at a cut, from the writers' records, and the check.

A writer (workload.py) keeps one record file, one JSON line per operation
boundary, written only after every fsync of the previous operation
returned:

  {"w": 1, "k": 7, "mark": "w1.7", "t": 123.4,
   "done": {path: state, ...},   # what operation k-1 left, all fsync'ed
   "dirty": [path, ...]}         # what operation k is about to touch

state is ["f", sha1, size] (a regular file with exactly that content),
["d"] (a directory) or ["-"] (nothing there).  Paths are relative to the
mount point; a dirty path covers everything below it.  Record k is
written after mark k was set (after the fsyncs of operation k-1 returned,
before operation k starts), so in dm-log-writes' log every write of
operation k-1 that fsync waited for comes before mark k, and every write
of operation k after it.

A cut says, per writer, the last record whose mark (or time) is before the
crash point, K, and which later records may have started writing before
it: for a dm-log-writes replay point only record K itself; for a dm-flakey
fault the records between the start of the switch and the moment the new
table was live.  Expected: the states of records 1..K ("done" of
operations 0..K-1), less every path a possibly-started operation touches.
"""
import hashlib
import json
import os
import stat


def load_records(directory):
    """All records of all writers: {writer: [record k=0, 1, ...]}"""
    recs = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(directory, name)) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                recs.setdefault(r["w"], []).append(r)
    for w, lst in recs.items():
        lst.sort(key=lambda r: r["k"])
        for i, r in enumerate(lst):
            if r["k"] != i:
                raise ValueError("writer %d: record %d missing" % (w, i))
    return recs


def _covered(path, dirty):
    for d in dirty:
        if path == d or path.startswith(d + "/"):
            return True
    return False


def expected(recs, cut):
    """cut: {writer: (K, [k of records possibly started])} -> {path: state}
    for every path whose state is known at the cut."""
    want = {}
    for w, (K, started) in cut.items():
        lst = recs.get(w, [])
        model = {}
        for r in lst[1:K + 1]:
            model.update(r["done"])
        dirty = []
        for k in started:
            if k < len(lst):
                dirty.extend(lst[k]["dirty"])
        for p, s in model.items():
            if not _covered(p, dirty):
                want[p] = s
    return want


def sha1_of(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 16)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def check(top, want):
    """Compare the tree under TOP with WANT.  Returns (counts, problems):
    counts of files, dirs and absences checked; problems is a list of
    "path: what" strings (lost, wrong content, wrong type, resurrected)."""
    n = {"files": 0, "dirs": 0, "absent": 0}
    bad = []
    for p in sorted(want):
        s = want[p]
        full = os.path.join(top, p)
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            st = None
        except OSError as e:
            bad.append("%s: lstat: %s" % (p, e.strerror))
            continue
        if s[0] == "-":
            n["absent"] += 1
            if st is not None:
                bad.append("%s: exists, but was removed (fsync'ed)" % p)
            continue
        if s[0] == "d":
            n["dirs"] += 1
            if st is None:
                bad.append("%s: directory lost" % p)
            elif not stat.S_ISDIR(st.st_mode):
                bad.append("%s: not a directory" % p)
            continue
        n["files"] += 1
        if st is None:
            bad.append("%s: file lost (fsync'ed, %d bytes)" % (p, s[2]))
        elif not stat.S_ISREG(st.st_mode):
            bad.append("%s: not a regular file" % p)
        else:
            try:
                h = sha1_of(full)
            except OSError as e:
                bad.append("%s: read: %s" % (p, e.strerror))
                continue
            if h != s[1]:
                bad.append("%s: wrong content: %d bytes sha1 %s, fsync'ed %d bytes sha1 %s"
                           % (p, st.st_size, h[:12], s[2], s[1][:12]))
    return n, bad
