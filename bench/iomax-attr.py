#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# iomax-attr.py TRACE OPS PROBER_PID TENANT_PID [--bs BYTES] [--min-ms 10]
#               [--tag TAG] [--tsv]
#
# Where the unthrottled prober of the iomax-inversion case waits
# (bench/iomax.sh), and behind whose I/O.  TRACE is tracefs's "trace" of
# one phase (trace_clock mono) with:
#   sched:sched_switch of the prober, the tenant, the unbound kworkers and
#     the jbd2 commit thread, a stack with every switch-out of the prober
#     and every D-state switch-out of the others;
#   jbd2tune:jbd2tune_space_wait (the task that waited, duration_us);
#   kprobes (bench/iomax.sh names them): iomax_cp/iomax_cp_ret on
#     jbd2_log_do_checkpoint, iomax_tail/iomax_tail_ret on
#     jbd2_cleanup_journal_tail, iomax_ult/iomax_ult_ret on
#     __jbd2_update_log_tail (the times a task is in them: it holds
#     j_checkpoint_mutex), iomax_rcl/iomax_rcl_ret on
#     jbd2tune_reclaim_work (a kworker is the reclaim worker meanwhile,
#     else a writeback kworker), iomax_wdb on write_dirty_buffer (blk: the
#     checkpoint writes, by whom), iomax_wob/iomax_wob_ret on
#     __wait_on_buffer (blk: a wait on a locked buffer), iomax_thr and
#     iomax_thr_ret on __blk_throtl_bio (sector, bytes; queued: a bio of
#     a cgroup with an io.max rule, i.e. charged to the tenant's cgroup,
#     and whether blk-throttle queued it);
#   block:block_bio_queue of writes (a throttled bio shows up here when
#     blk-throttle dispatches it).
# OPS has the prober's "start_ns end_ns" per mkdir + fsync; BS is the file
# system's block size (sector = block * BS / 512).
#
# Prints:
#   1. foreground space waits per task (count, total, longest), from the
#      jbd2tune_space_wait events;
#   2. the attribution table: every off-CPU interval of the prober inside
#      an op longer than --min-ms, by cause.  Inside a foreground space
#      wait the cause is refined: a wait for j_checkpoint_mutex is split by
#      the task that held it (the one inside jbd2_log_do_checkpoint,
#      jbd2_cleanup_journal_tail or __jbd2_update_log_tail meanwhile) and
#      by what that holder waited for (the write of a buffer: whose write,
#      charged to which cgroup, queued by blk-throttle or not); a wait on a
#      buffer inside the checkpoint is classified the same way by the
#      write that had locked it.  Columns: ops it appeared in, pieces,
#      total ms, longest piece ms, share of the slow ops' time;
#   3. the bios charged to the tenant's cgroup (iomax_thr), by submitter:
#      count, KiB, queued, median and longest delay to dispatch.
# --tsv prints table 2's rows tab-separated with TAG first.
import importlib.util
import os
import re
import statistics
import sys

_spec = importlib.util.spec_from_file_location(
    "tail_attr", os.path.join(os.path.dirname(os.path.abspath(__file__)), "tail-attr.py"))
tail_attr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tail_attr)

LINE = re.compile(r"^\s*(.+)-(\d+)\s+\[\d+\]\s+\S*\s*([\d.]+): (\w+): ?(.*)$")
KV = re.compile(r"(\w+)=(\S+)")
BIO = re.compile(r"^\s*(\d+),(\d+) (\S+) (\d+) \+ (\d+) \[(.*)\]")


class Write:
    """one write of a block: who submitted it, charged where, when dispatched"""

    def __init__(self, t, pid, comm, kind):
        self.t, self.pid, self.comm, self.kind = t, pid, comm, kind
        self.child = False	# charged to a cgroup with an io.max rule
        self.queued = False	# blk-throttle queued it
        self.dispatch = None	# block_bio_queue time


STACK = re.compile(r"^\s*(.+)-(\d+)\s+\[\d+\]\s+\S*\s*[\d.]+: <stack trace>")


def parse(path):
    """-> events [(ns, pid, comm, name, body)], {event index: frames}; a
    stack belongs to the last sched_switch of the task that printed it
    (the task switching out), which another CPU's events may separate
    from it"""
    ev = []
    stack_of = {}
    last_switch = {}	# pid -> index of its last sched_switch as prev
    lines = open(path, errors="replace").read().splitlines()
    i = 0
    while i < len(lines):
        st = STACK.match(lines[i])
        if st:
            i += 1
            frames = []
            while i < len(lines) and lines[i].lstrip().startswith("=>"):
                frames.append(lines[i].strip()[3:].split("+")[0].strip())
                i += 1
            k = last_switch.get(int(st.group(2)))
            if k is not None and k not in stack_of:
                stack_of[k] = frames
            continue
        m = LINE.match(lines[i])
        i += 1
        if not m:
            continue
        comm, pid, ts, name, body = m.groups()
        if name == "sched_switch":
            last_switch[int(pid)] = len(ev)
        ev.append((int(round(float(ts) * 1e9)), int(pid), comm.strip(), name, body))
    return ev, stack_of


def merge(ivs):
    out = []
    for a, b in sorted(ivs):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def offcpu_within(offcpu, pid, a, b):
    """pid's off-CPU slices (start, end, state, frames) clipped to [a, b)."""
    for o, n, st, frs in offcpu.get(pid, []):
        if n > a and o < b:
            yield max(o, a), min(n, b), st, frs


def add_pieces(table, key, pieces, seen):
    """Add (start, end, cause) pieces of one wait to table[key(cause)] =
    [waits, pieces, total, max]; a wait counts once per cause (seen).
    Returns the time the pieces cover."""
    covered = 0
    for x, y, cause in pieces:
        e = table.setdefault(key(cause), [0, 0, 0, 0])
        if cause not in seen:
            e[0] += 1
            seen.add(cause)
        e[1] += 1
        e[2] += y - x
        e[3] = max(e[3], y - x)
        covered += y - x
    return covered


def overlap(a, b, c, d):
    return max(0, min(b, d) - max(a, c))


def main():
    args = sys.argv[1:]
    bs, min_ms, tag, tsv = 1024, 10.0, "", False
    for opt in ("--bs", "--min-ms", "--tag"):
        if opt in args:
            k = args.index(opt)
            val = args[k + 1]
            del args[k:k + 2]
            if opt == "--bs":
                bs = int(val)
            elif opt == "--min-ms":
                min_ms = float(val)
            else:
                tag = val
    if "--tsv" in args:
        args.remove("--tsv")
        tsv = True
    trace, ops_file, prober, tenant = args[0], args[1], int(args[2]), int(args[3])
    spb = bs // 512
    ev, stack_of = parse(trace)

    comm_of = {}
    offcpu = {}	# pid -> [(out, in, state, frames)]
    pending = {}
    space = []	# (pid, start, end)
    rcl_open, rcl = {}, {}	# pid -> [(a, b)] runs of jbd2tune_reclaim_work
    hold_open = {}	# (pid, kind) -> start
    hold = {}	# pid -> [(a, b)]
    cp_pids = set()
    wob_open = {}
    wob = {}	# pid -> [(a, b, blk)]
    by_sector = {}	# sector -> [Write]
    last_thr = {}	# pid -> Write of its last iomax_thr
    thr = []	# Writes charged to the tenant's cgroup
    for idx, (t, pid, comm, name, body) in enumerate(ev):
        comm_of.setdefault(pid, comm)
        if name == "sched_switch":
            f = dict(KV.findall(body.split("==>")[0]))
            nf = dict(KV.findall(body.split("==>")[1])) if "==>" in body else {}
            p_out = int(f.get("prev_pid", -1))
            p_in = int(nf.get("next_pid", -1))
            comm_of.setdefault(p_out, f.get("prev_comm", "?"))
            comm_of.setdefault(p_in, nf.get("next_comm", "?"))
            pending[p_out] = (t, f.get("prev_state", "?"), stack_of.get(idx, []))
            if p_in in pending:
                o, st, frs = pending.pop(p_in)
                offcpu.setdefault(p_in, []).append((o, t, st, frs))
        elif name == "jbd2tune_space_wait":
            us = int(dict(KV.findall(body.replace(" duration_us ", " duration_us=")))
                     .get("duration_us", 0))
            space.append((pid, t - us * 1000, t))
        elif name == "iomax_rcl":
            rcl_open[pid] = t
        elif name == "iomax_rcl_ret":
            if pid in rcl_open:
                rcl.setdefault(pid, []).append((rcl_open.pop(pid), t))
        elif name in ("iomax_cp", "iomax_tail", "iomax_ult"):
            hold_open[pid, name] = t
            if name == "iomax_cp":
                cp_pids.add(pid)
        elif name in ("iomax_cp_ret", "iomax_tail_ret", "iomax_ult_ret"):
            a = hold_open.pop((pid, name[:-4]), None)
            if a is not None:
                hold.setdefault(pid, []).append((a, t))
        elif name == "iomax_wob":
            wob_open[pid] = (t, int(dict(KV.findall(body)).get("blk", -1)))
        elif name == "iomax_wob_ret":
            if pid in wob_open:
                a, blk = wob_open.pop(pid)
                wob.setdefault(pid, []).append((a, t, blk))
        elif name == "iomax_wdb":
            blk = int(dict(KV.findall(body)).get("blk", -1))
            by_sector.setdefault(blk * spb, []).append(Write(t, pid, comm, "wdb"))
        elif name == "iomax_thr":
            sec = int(dict(KV.findall(body)).get("sector", -1))
            size = int(dict(KV.findall(body)).get("bytes", 0))
            ws = by_sector.setdefault(sec, [])
            # the bio of a write_dirty_buffer() just made by the same task
            if ws and ws[-1].kind == "wdb" and ws[-1].pid == pid and ws[-1].dispatch is None \
                    and not ws[-1].child:
                w = ws[-1]
            else:
                w = Write(t, pid, comm, "bio")
                ws.append(w)
            w.child, w.bytes = True, size
            if size == 0:
                w.kind = "flush"
            last_thr[pid] = w
            thr.append(w)
        elif name == "iomax_thr_ret":
            q = int(dict(KV.findall(body)).get("queued", 0))
            if pid in last_thr:
                last_thr.pop(pid).queued = bool(q)
        elif name == "block_bio_queue":
            m = BIO.match(body)
            if not m or "W" not in m.group(3):
                continue
            sec = int(m.group(4))
            ws = by_sector.setdefault(sec, [])
            if ws and ws[-1].dispatch is None:
                ws[-1].dispatch = t
            else:
                w = Write(t, pid, comm, "bio")
                w.dispatch = t
                ws.append(w)
    for pid in hold:
        hold[pid] = merge(hold[pid])

    def klass(pid, t):
        """who pid was at time t"""
        c = comm_of.get(pid, "?")
        if pid == prober:
            return "the prober (root)"
        if pid == tenant:
            return "the throttled task"
        if c.startswith("jbd2/"):
            return "the commit thread"
        if c.startswith("kworker") and any(a <= t <= b for a, b in rcl.get(pid, [])):
            return "the reclaim worker"
        if c.startswith("kworker"):
            return "a writeback kworker"
        return tail_attr.task_class(c)

    def write_at(blk, t):
        """the write of blk that had it locked at t (the last submitted before t)"""
        best = None
        for w in by_sector.get(blk * spb, []):
            if w.t <= t:
                best = w
            else:
                break
        return best

    def write_label(w, waiter_pid):
        if w is None:
            return "a write not traced"
        who = klass(w.pid, w.t)
        if w.pid == waiter_pid:
            who = "its own"
        what = {"wdb": "checkpoint write", "flush": "cache flush"}.get(w.kind, "write")
        if w.child:
            where = "throttled cgroup, %s" % ("queued" if w.queued else "not queued")
        else:
            where = "root cgroup"
        return "%s %s (%s)" % (who, what, where)

    def below_jbd2(frs):
        """the frames below jbd2's own: what the wait in jbd2's code is on"""
        inner = []
        for f in frs:
            if f.startswith(("jbd2", "__jbd2")):
                break
            inner.append(f)
        return inner

    def on_mutex(inner):
        return any(f.startswith(("__mutex_lock", "mutex_lock")) for f in inner)

    def sleep_label(frs):
        """what a task asleep with these frames waits for"""
        if "jbd2_journal_wait_updates" in frs:
            return "waits for running handles to stop (T_LOCKED)"
        if any(f in frs for f in ("folio_wait_writeback", "__filemap_fdatawait_range",
                                  "filemap_fdatawait_range_keep_errors")):
            return "waits for data pages under writeback"
        # blkdev_issue_flush(), or on 6.12 our REQ_META flush: a
        # submit_bio_wait() under the tail cleanup, whether the compiler
        # inlined jbd2_flush_fs_dev() or renamed it (".isra.0")
        if "blkdev_issue_flush" in frs or \
                ("submit_bio_wait" in frs and "jbd2_cleanup_journal_tail" in frs):
            return "waits for its cache flush (an empty bio, charged to its cgroup)"
        if "__jbd2_log_wait_for_space" in frs:
            if on_mutex(below_jbd2(frs)):
                return "waits for j_checkpoint_mutex (its own space wait)"
            return "sleeps in its own space wait: " + tail_attr.classify(frs)
        if "kjournald2" in frs and "jbd2_journal_commit_transaction" not in frs:
            return "is idle (no commit running)"
        if not frs:
            return "sleeps, not in D state (no stack taken)"
        return tail_attr.classify(frs)

    def sleeps_of(pid, a, b):
        """(a', b', label) pieces of [a, b] by what pid was doing"""
        out = []
        for o, n, st, frs in offcpu.get(pid, []):
            if n <= a or o >= b:
                continue
            oa, ob = max(o, a), min(n, b)
            if st.startswith("R"):
                out.append((oa, ob, "is runnable"))
                continue
            waited = [x for x in wob.get(pid, []) if x[0] <= o < x[1]]
            if waited:
                out.append((oa, ob, "waits for " + write_label(write_at(waited[0][2], o), pid)))
            else:
                out.append((oa, ob, sleep_label(frs)))
        out.sort()
        # the rest: on a CPU
        t, rest = a, []
        for oa, ob, _l in out:
            if oa > t:
                rest.append((t, oa, "is on a CPU"))
            t = max(t, ob)
        if t < b:
            rest.append((t, b, "is on a CPU"))
        return out + rest

    def space_refine(o, n, frs, waiter=prober):
        """[(a, b, cause)] for a sleep of waiter inside a foreground space wait"""
        names = frs
        inner = below_jbd2(names)
        if on_mutex(inner):
            pieces, covered = [], []
            for h, ivs in hold.items():
                if h == waiter:
                    continue
                for a, b in ivs:
                    if overlap(a, b, o, n):
                        aa, bb = max(a, o), min(b, n)
                        covered.append((aa, bb))
                        for x, y, what in sleeps_of(h, aa, bb):
                            pieces.append((x, y, "space: j_checkpoint_mutex held by %s, which %s"
                                           % (klass(h, aa), what)))
            t = o
            for a, b in merge(covered):
                if a > t:
                    pieces.append((t, a, "space: j_checkpoint_mutex, holder not seen"))
                t = max(t, b)
            if t < n:
                pieces.append((t, n, "space: j_checkpoint_mutex, holder not seen"))
            return pieces
        # __wait_on_buffer() tail-calls the bit wait, so it is seldom on
        # the stack: the kprobe's interval says the task waits on a buffer
        waited = [x for x in wob.get(waiter, []) if x[0] <= o < x[1]]
        if waited:
            return [(o, n, "space: buffer locked by " +
                     write_label(write_at(waited[0][2], o), waiter))]
        if "__wait_on_buffer" in inner:
            return [(o, n, "space: buffer wait (block not traced)")]
        if any(f.startswith(("jbd2_log_wait_commit", "jbd2tune_log_wait_commit"))
               for f in names):
            return [(o, n, "space: waits for a commit")]
        if any(f.startswith(("blkdev_issue_flush", "submit_bio_wait")) for f in names):
            # its own flush bio: charged to its cgroup, FIFO behind its writes
            fl = [w for w in thr if w.kind == "flush" and w.pid == waiter and w.t <= o]
            if fl and (fl[-1].dispatch is None or fl[-1].dispatch > o):
                return [(o, n, "space: cache flush before the tail moves, " +
                         write_label(fl[-1], waiter))]
            return [(o, n, "space: cache flush before the tail moves (root cgroup)")]
        if any(f.startswith(("jbd2_write_superblock", "__jbd2_update_log_tail"))
               for f in names):
            return [(o, n, "space: journal superblock write")]
        return [(o, n, "space: " + tail_attr.classify(frs))]

    commit_pid = next((p for p, c in comm_of.items() if c.startswith("jbd2/")), None)
    ops = [tuple(map(int, l.split())) for l in open(ops_file) if l.strip()]
    slow = [(a, b) for a, b in ops if (b - a) / 1e6 > min_ms]
    total_slow = sum(b - a for a, b in slow)
    pspace = [(a, b) for p, a, b in space if p == prober]
    per = {}	# cause -> [ops, pieces, total, max]
    for a, b in slow:
        seen = set()
        covered = 0
        for oa, ob, st, frs in offcpu_within(offcpu, prober, a, b):
            if st.startswith("R"):
                pieces = [(oa, ob, "runnable: preempted")]
            elif any(overlap(x, y, oa, ob) for x, y in pspace) or \
                    "__jbd2_log_wait_for_space" in frs:
                pieces = space_refine(oa, ob, frs)
            elif commit_pid is not None and any(
                    f in frs for f in ("jbd2tune_sleep_for_commit", "jbd2_log_wait_commit",
                                       "jbd2tune_log_wait_commit")):
                # fsync waits for the commit: what the commit thread did
                pieces = [(x, y, "fsync's commit wait: the commit thread " + what)
                          for x, y, what in sleeps_of(commit_pid, oa, ob)]
            else:
                pieces = [(oa, ob, tail_attr.classify(frs))]
            covered += add_pieces(per, lambda cause: cause, pieces, seen)
        e = per.setdefault("on CPU (in the op)", [0, 0, 0, 0])
        e[0] += 1
        e[1] += 1
        e[2] += max(0, (b - a) - covered)
    rows = sorted(per.items(), key=lambda kv: -kv[1][2])
    if tsv:
        for cause, (n, k, tot, mx) in rows:
            print("%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.2f" % (
                tag, cause, n, k, tot / 1e6, mx / 1e6,
                100.0 * tot / total_slow if total_slow else 0.0))
        return

    print("%s: prober %d ops, %d over %.0f ms (%.0f ms in all); %d events, %d stacks"
          % (tag or "phase", len(ops), len(slow), min_ms, total_slow / 1e6, len(ev),
             len(stack_of)))
    print("  foreground space waits (jbd2tune_space_wait), per task:")
    groups = {}
    for p, a, b in space:
        g = groups.setdefault(klass(p, a), [0, 0, 0])
        g[0] += 1
        g[1] += b - a
        g[2] = max(g[2], b - a)
    for k, (n, tot, mx) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
        print("    %-28s %6d waits %10.1f ms total %9.1f ms longest" % (k, n, tot / 1e6, mx / 1e6))
    if not groups:
        print("    none")
    print("  where the prober slept in its ops over %.0f ms:" % min_ms)
    print("  %-118s %5s %6s %10s %9s %7s" % ("cause", "ops", "count", "total ms", "max ms", "share"))
    for cause, (n, k, tot, mx) in rows:
        print("  %-118s %5d %6d %10.1f %9.1f %6.2f%%" % (
            cause, n, k, tot / 1e6, mx / 1e6,
            100.0 * tot / total_slow if total_slow else 0.0))
    # the other tasks' space waits, by the same causes (D-state sleeps
    # only: their other switch-outs have no stack)
    others = {}	# (task, cause) -> [waits, pieces, total, max]
    for p, a, b in space:
        if p == prober:
            continue
        seen = set()
        for oa, ob, st, frs in offcpu_within(offcpu, p, a, b):
            if st.startswith("R"):
                pieces = [(oa, ob, "runnable: preempted")]
            elif not frs:
                pieces = [(oa, ob, "sleeps, not in D state (no stack taken)")]
            else:
                pieces = space_refine(oa, ob, frs, p)
            add_pieces(others, lambda cause: (klass(p, a), cause), pieces, seen)
    if others:
        print("  where the other tasks slept in their space waits:")
        print("  %-24s %-100s %5s %6s %10s %9s" % ("task", "cause", "waits", "count",
                                                    "total ms", "max ms"))
        for (who, cause), (n, k, tot, mx) in sorted(others.items(), key=lambda kv: -kv[1][2]):
            if tot < 1e6:
                continue
            print("  %-24s %-100s %5d %6d %10.1f %9.1f" % (who, cause, n, k, tot / 1e6, mx / 1e6))
    print("  bios charged to the throttled cgroup (blk-throttle saw them), by submitter:")
    subs = {}
    for w in thr:
        key = "%s %s" % (klass(w.pid, w.t),
                         {"wdb": "checkpoint write", "flush": "cache flush"}.get(w.kind, "write"))
        s = subs.setdefault(key, [0, 0, 0, []])
        s[0] += 1
        s[1] += getattr(w, "bytes", 0)
        s[2] += w.queued
        if w.dispatch is not None:
            s[3].append(w.dispatch - w.t)
    for k, (n, byt, q, d) in sorted(subs.items(), key=lambda kv: -kv[1][0]):
        print("    %-40s %6d bios %7.0f KiB %6d queued, %6d dispatched in the trace: median %.1f ms,"
              " max %.1f ms after submission"
              % (k, n, byt / 1024.0, q, len(d), statistics.median(d) / 1e6 if d else 0,
                 max(d) / 1e6 if d else 0))
    if not subs:
        print("    none")


if __name__ == "__main__":
    main()
