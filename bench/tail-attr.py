#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# tail-attr.py TRACE OPS PID [--min-ms 10] [--tag TAG] [--holders] [--hz 250]
#
# Attributes the writer's slow operations to where it slept.  TRACE is the
# tracefs "trace" file of a run with sched:sched_switch enabled for PID
# (as prev or next task) and a stacktrace trigger on its switch-outs,
# trace_clock "mono"; OPS has the writer's "start_ns end_ns" per write
# (bench/tail-writer.py).
#
# Every off-CPU interval of the writer (switch-out to its next switch-in)
# gets a cause from the kernel stack taken at the switch-out (CAUSES below,
# first match from the top of the stack down); an interval whose
# prev_state is R was a preemption ("runnable: preempted by" the task
# class that ran next: the jbd2 commit thread counts as jbd2's own).  For each
# write longer than --min-ms, the parts of those intervals inside the
# write are summed per cause; the rest of its time is "on CPU".
#
# Prints the table: cause, writes it appeared in, total ms, longest single
# sleep ms, share of the slow writes' time; and a last line with the count
# and total of slow writes.  With --tsv, the same rows tab-separated.
#
# --holders: who kept the transaction open while the writer waited in
# T_LOCKED.  The commit sets T_LOCKED and waits for every running handle
# to stop; the trace then also needs jbd2:jbd2_handle_stats (one event per
# handle stop, with ext4's handle type, the __LINE__ of its
# ext4_journal_start() and how long it ran, in jiffies: --hz converts).
# For every T_LOCKED sleep of the writer inside a slow write, the handles
# that stopped during it, in the order they stopped; then those handles
# grouped by task, type and line, with count and time held.
import re
import sys

# (cause, jbd2's own?, stack pattern): matched against the frames from the
# innermost outwards; the first frame that matches any pattern decides.
# The scheduler's own frames (schedule, __schedule, io_schedule, ...) and
# the generic wait helpers are skipped so the caller that waited decides.
CAUSES = [
    ("jbd2: shadow buffer (BH_Shadow)", True,
     r"^(do_get_write_access|jbd2_journal_get_write_access)"),
    ("jbd2: transaction locked (T_LOCKED)", True, r"^wait_transaction_locked"),
    ("jbd2: transaction switching (T_SWITCH)", True, r"^wait_transaction_switching"),
    ("jbd2: log space", True, r"^(__jbd2_log_wait_for_space|add_transaction_credits)"),
    ("jbd2: commit wait", True, r"^(jbd2_log_wait_commit|jbd2_complete_transaction)"),
    ("jbd2: other", True, r"^(jbd2_|__jbd2_|start_this_handle)"),
    ("writeback: balance_dirty_pages", False, r"^balance_dirty_pages"),
    ("page: writeback or stable wait", False,
     r"^(folio_wait_writeback|folio_wait_stable|wait_on_page_writeback|__folio_wait_writeback)"),
    ("page: lock", False, r"^(__folio_lock|folio_lock|__lock_page|lock_page)"),
    ("inode: i_rwsem", False, r"^(ext4_buffered_write_iter|ext4_file_write_iter|inode_lock)"),
    ("block: request allocation / throttling", False,
     r"^(blk_mq_get_tag|rq_qos_wait|wbt_wait|__rq_qos_throttle)"),
    ("buffer: lock (buffer under I/O)", False, r"^(__lock_buffer|lock_buffer)"),
    ("buffer: read", False, r"^(__bread|bh_read|__bread_gfp|ext4_read_bh)"),
    ("memory: reclaim / allocation", False,
     r"^(shrink_|try_to_free_pages|__alloc_pages_slowpath|throttle_direct_reclaim)"),
]
SKIP = re.compile(r"^(schedule|__schedule|io_schedule|schedule_timeout|"
                  r"preempt_schedule|bit_wait|out_of_line_wait_on_bit|"
                  r"__wait_on_bit|wait_on_bit|__wait_on_buffer|rwsem_down|"
                  r"down_read|down_write|__mutex_lock|mutex_lock|"
                  r"folio_wait_bit|wait_woken|prepare_to_wait|"
                  r"finish_wait|io_schedule_timeout|__cond_resched|"
                  r"_raw_spin|stack_trace|trace_|ftrace|event_triggers|"
                  r"__traceiter|__bpf)")
EV = re.compile(r"^\s*(\S+)-(\d+)\s+\[\d+\]\s+\S*\s*([\d.]+): sched_switch: (.*)$")
HS = re.compile(r"^\s*(\S+)-(\d+)\s+\[\d+\]\s+\S*\s*([\d.]+): jbd2_handle_stats: "
                r"dev \S+ tid (\d+) type (\d+) line_no (\d+) interval (-?\d+)")
# fs/ext4/ext4_jbd2.h, the same in 6.1 and 6.12
EXT4_HT = ["MISC", "INODE", "WRITE_PAGE", "MAP_BLOCKS", "DIR", "TRUNCATE", "QUOTA",
           "RESIZE", "MIGRATE", "MOVE_EXTENTS", "XATTR", "EXT_CONVERT"]


def task_class(comm):
    """a task name without its instance numbers: kworker/u4:2 -> kworker"""
    if comm.startswith("jbd2/"):
        return "jbd2 (commit thread)"
    if comm.startswith("kworker"):
        return "kworker"
    return re.sub(r"[/:.\-]?\d+$", "", comm) or comm


def classify(frames):
    for fr in frames:
        name = fr.split("+")[0].strip()
        if SKIP.match(name):
            continue
        for cause, _own, pat in CAUSES:
            if re.match(pat, name):
                return cause
        if name.startswith("ext4_"):
            return "ext4: " + name
        return "other: " + name
    return "other: (no stack)"


def parse(trace, pid):
    """-> list of (out_ns, in_ns, cause) off-CPU intervals of pid"""
    ivs = []
    cur = None	# (t, prev_state, frames) of the last switch-out
    pending = None
    lines = open(trace, errors="replace").read().splitlines()
    i = 0
    while i < len(lines):
        m = EV.match(lines[i])
        i += 1
        if not m:
            continue
        t = int(round(float(m.group(3)) * 1e9))
        body = m.group(4)
        f = dict(kv.split("=", 1) for kv in re.findall(r"(\w+=\S+)", body))
        frames = []
        # a stacktrace trigger prints "<stack trace>" and " => frame" lines
        if i < len(lines) and "<stack trace>" in lines[i]:
            i += 1
            while i < len(lines) and lines[i].lstrip().startswith("=>"):
                frames.append(lines[i].strip()[3:])
                i += 1
        if f.get("prev_pid") == str(pid):
            state = f.get("prev_state", "?")
            nxt = re.search(r"==> next_comm=(.*?) next_pid=", body)
            pending = (t, state, frames, nxt.group(1) if nxt else "?")
        elif f.get("next_pid") == str(pid) and pending:
            t_out, state, frs, by = pending
            if state.startswith("R"):
                cause = "runnable: preempted by " + task_class(by)
            else:
                cause = classify(frs)
            ivs.append((t_out, t, cause))
            pending = None
    return ivs


def parse_handles(trace, hz):
    """-> list of (stop_ns, comm, tid, type name, line, held_ms, pid) handle stops"""
    out = []
    for line in open(trace, errors="replace"):
        m = HS.match(line)
        if not m:
            continue
        typ = int(m.group(5))
        out.append((int(round(float(m.group(3)) * 1e9)), m.group(1), int(m.group(4)),
                    EXT4_HT[typ] if typ < len(EXT4_HT) else str(typ), int(m.group(6)),
                    int(m.group(7)) * 1000.0 / hz, int(m.group(2))))
    return sorted(out)


def holder_sleeps(trace, handle, cache):
    """the D-state sleeps of a handle's task while it held the handle:
    {cause: ms}; empty when the trace has none of that task's switches
    (bench/tail.sh traces the unbound kworkers' D-state switch-outs)"""
    stop, _c, _tid, _typ, _ln, held, pid = handle
    if pid not in cache:
        cache[pid] = parse(trace, pid)
    start = stop - int(held * 1e6)
    per = {}
    for o, n, cause in cache[pid]:
        part = min(n, stop) - max(o, start)
        if part > 0 and not cause.startswith("runnable"):
            per[cause] = per.get(cause, 0.0) + part / 1e6
    return per


def holders(trace, ivs, slow, handles, min_ms):
    """print the handles that stopped during the writer's T_LOCKED sleeps"""
    locked = [(o, n) for o, n, c in ivs if c.startswith("jbd2: transaction locked")
              and (n - o) / 1e6 >= min_ms and any(a < n and o < b for a, b in slow)]
    print("  T_LOCKED sleeps of the writer over %.0f ms: %d; handles that stopped during"
          " them (task, ext4 handle type, line of its ext4_journal_start(), held ms):"
          % (min_ms, len(locked)))
    groups = {}
    sleeps = {}	# cause -> ms, over the holders' handles
    cache = {}
    for o, n in locked:
        during = [h for h in handles if o <= h[0] <= n]
        print("    wait %.1f ms: %s" % ((n - o) / 1e6, "; ".join(
            "%s tid %d %s:%d %.0f" % (h[1], h[2], h[3], h[4], h[5])
            for h in during) or "no traced handle stop"))
        for h in during:
            e = groups.setdefault((task_class(h[1]), h[3], h[4]), [0, 0.0, 0.0])
            e[0] += 1
            e[1] += h[5]
            e[2] = max(e[2], h[5])
            per = holder_sleeps(trace, h, cache)
            if per:
                print("      %s slept with the handle held: %s" % (h[1], ", ".join(
                    "%s %.0f ms" % kv for kv in sorted(per.items(), key=lambda kv: -kv[1]))))
            for cause, ms in per.items():
                sleeps[cause] = sleeps.get(cause, 0.0) + ms
    if groups:
        print("  %-20s %-12s %6s %7s %10s %9s" % ("task", "type", "line", "count", "held ms", "max ms"))
        for (c, typ, ln), (k, tot, mx) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
            print("  %-20s %-12s %6d %7d %10.0f %9.0f" % (c, typ, ln, k, tot, mx))
    if sleeps:
        print("  where those tasks slept (D state) while holding the handles:")
        for cause, ms in sorted(sleeps.items(), key=lambda kv: -kv[1]):
            print("    %-44s %10.0f ms" % (cause, ms))


def main():
    args = sys.argv[1:]
    min_ms, tag, tsv, want_holders, hz = 10.0, "", False, False, 250
    if "--holders" in args:
        args.remove("--holders"); want_holders = True
    if "--hz" in args:
        k = args.index("--hz"); hz = int(args[k + 1]); del args[k:k + 2]
    if "--min-ms" in args:
        k = args.index("--min-ms"); min_ms = float(args[k + 1]); del args[k:k + 2]
    if "--tag" in args:
        k = args.index("--tag"); tag = args[k + 1]; del args[k:k + 2]
    if "--tsv" in args:
        args.remove("--tsv"); tsv = True
    trace, ops_file, pid = args[0], args[1], int(args[2])
    ivs = parse(trace, pid)
    ops = [tuple(map(int, l.split())) for l in open(ops_file) if l.strip()]
    slow = [(a, b) for a, b in ops if (b - a) / 1e6 > min_ms]
    total_slow = sum(b - a for a, b in slow)
    per = {}	# cause -> [writes, total_ns, max_ns]
    j = 0
    ivs.sort()
    for a, b in slow:
        seen = set()
        covered = 0
        while j < len(ivs) and ivs[j][1] <= a:
            j += 1
        k = j
        while k < len(ivs) and ivs[k][0] < b:
            o, n, cause = ivs[k]
            part = min(n, b) - max(o, a)
            if part > 0:
                e = per.setdefault(cause, [0, 0, 0])
                if cause not in seen:
                    e[0] += 1
                    seen.add(cause)
                e[1] += part
                e[2] = max(e[2], n - o)
                covered += part
            k += 1
        e = per.setdefault("on CPU (running in the write)", [0, 0, 0])
        e[0] += 1
        e[1] += max(0, (b - a) - covered)
    rows = sorted(per.items(), key=lambda kv: -kv[1][1])
    own = {c for c, o, _p in CAUSES if o} | {"runnable: preempted by jbd2 (commit thread)"}
    if tsv:
        for cause, (n, tot, mx) in rows:
            print("%s\t%s\t%d\t%.1f\t%.1f\t%.2f\t%s" % (
                tag, cause, n, tot / 1e6, mx / 1e6,
                100.0 * tot / total_slow if total_slow else 0.0,
                "jbd2" if cause in own else ""))
        return
    print("%s: %d writes, %d over %.0f ms (%.0f ms in all, %.2f %% of the run's write time);"
          " %d off-CPU intervals traced"
          % (tag or "writer", len(ops), len(slow), min_ms, total_slow / 1e6,
             100.0 * total_slow / max(1, sum(b - a for a, b in ops)), len(ivs)))
    print("  %-44s %7s %10s %9s %8s" % ("cause", "writes", "total ms", "max ms", "share"))
    for cause, (n, tot, mx) in rows:
        print("  %-44s %7d %10.1f %9.1f %7.2f%%" % (
            cause, n, tot / 1e6, mx / 1e6, 100.0 * tot / total_slow if total_slow else 0.0))
    if want_holders:
        holders(trace, ivs, slow, parse_handles(trace, hz), min_ms)


if __name__ == "__main__":
    main()
