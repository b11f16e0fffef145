# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of bench/iomax: the iomax-inversion case (issue 26): an
# unthrottled task's mkdir + fsync waits for log space behind a cgroup
# limited with io.max.
#
# The load, each phase on a freshly made ext4 (-J size=4: 4096 blocks of
# 1 KiB on this 300 MB disk, which qemu does not throttle): cgroup2
# mounted, IOMAX_CONTROLLERS ("+io") written to the root's
# cgroup.subtree_control, a child cgroup "tenant" with io.max
# "MAJ:MIN wbps=IOMAX_WBPS" (1048576) for the disk.  In it one process
# creates 4 KiB files, 200 to a directory, no fsync (bench/iomax-load.py
# tenant); in the root cgroup one process does mkdir + fsync of the parent,
# sleeps 50 ms, and repeats (bench/iomax-load.py prober), both for
# IOMAX_S (60) seconds; the tenant stops early after IOMAX_TENANT_FILES
# (40000) files, the prober at ENOSPC.  The kernel's default dirty-data timing (30 s
# expiry, 5 s flusher interval).
#
# Phases, IOMAX_SETTINGS (default "off min+10 max auto") in that order,
# IOMAX_ROUNDS (2) times, every other round reversed (ABBA):
#   off      reclaim_watermark_pct 0
#   min+K    the journal's reclaim_watermark_min_pct plus K (6.1: 30+10)
#   max      the journal's reclaim_watermark_max_pct
#   N        N %
#   auto     jbd2-tuned with the shipped policy, started with the load
# IOMAX_TRACE (1) traces every phase for bench/iomax-attr.py (the events are
# listed there); 0 runs it untraced (the rows only).  IOMAX_MOUNT_OPTS
# (none) mounts the file system with those options (e.g. dioread_nolock,
# data=writeback: what ext4's ordered data does to the prober).
#
# Per phase: $OUT/iomax-R-SETTING.{ops,tenant,trace,info}; a row in
# $OUT/iomax.tsv: round setting watermark (at the end) prober_ops p50_ms
# p99_ms max_ms space_waits (all tasks, journal counter) space_wait_max_ms
# (the longest, from the trace or the histogram's bucket bound) prober_waits
# prober_wait_max_ms (from the trace; "-" untraced) reclaim_runs
# tenant_files tenant_enospc tenant_wbytes (io.stat of the tenant's cgroup
# over the phase) tenant_kbps (that over the phase's seconds, KiB/s)
# trace_lost.  The host side (bench/iomax) analyses the traces.
# vm-disk: 300M
# vm-memory: 2048
# vm-timeout: 3600
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"
source "$PROJECT/bench/demo-scenario.sh"

# IOMAX_LIB=1: set up (cgroups, functions) and return before the phases,
# for a test that runs its own (tests/vm/tests/agent-iomax.sh); the bench's
# environment file is not read then
IOMAX_LIB=${IOMAX_LIB:-0}
# shellcheck disable=SC1091
[ "$IOMAX_LIB" = 1 ] || [ ! -f "$PROJECT/build/bench/iomax.env" ] ||
	. "$PROJECT/build/bench/iomax.env"
IOMAX_S=${IOMAX_S:-60}
ROUNDS=${IOMAX_ROUNDS:-2}
SETTINGS=${IOMAX_SETTINGS:-off min+10 max auto}
TRACE=${IOMAX_TRACE:-1}
WBPS=${IOMAX_WBPS:-1048576}
CONTROLLERS=${IOMAX_CONTROLLERS:-+io}
MOUNT_OPTS=${IOMAX_MOUNT_OPTS:-}
# the tenant stops after this many files: 6.12 with reclaim on filled the
# 300 MB file system (68,782 files, ENOSPC) where 6.1 made at most 37,608
MAX_FILES=${IOMAX_TENANT_FILES:-40000}
DEV=/dev/vda
MNT=/mnt/iomax
CG=/sys/fs/cgroup
LOADPY=$PROJECT/bench/iomax-load.py
IOMAX_GO=/tmp/iomax-go
TSV=$OUT/iomax.tsv
T=/sys/kernel/tracing

demo_setup
sysctl -q -w vm.dirty_expire_centisecs=3000 vm.dirty_writeback_centisecs=500 ||
	fail "sysctl vm.dirty_*"
rm -f "$OUT"/iomax-* "$TSV" "$OUT/agent.log"

# the cgroups: the tenant's with the write limit of the disk
mountpoint -q "$CG" || mount -t cgroup2 none "$CG" || fail "mount cgroup2"
for c in $CONTROLLERS; do
	echo "$c" > "$CG/cgroup.subtree_control" || fail "subtree_control $c"
done
mkdir -p "$CG/tenant"
MAJMIN=$(cat "/sys/block/${DEV#/dev/}/dev")
echo "$MAJMIN wbps=$WBPS" > "$CG/tenant/io.max" || fail "io.max"
# +io enables the memory controller in the child too (io depends on it)
log "cgroups: root subtree_control '$(cat "$CG/cgroup.subtree_control")'," \
	"tenant's controllers '$(cat "$CG/tenant/cgroup.controllers")'," \
	"tenant io.max '$(grep "^$MAJMIN" "$CG/tenant/io.max")'; this shell in" \
	"'$(cat /proc/self/cgroup)'"
[ "$(cat /proc/self/cgroup)" = "0::/" ] || fail "the bench must run in the root cgroup"

# wbytes - bytes the tenant's cgroup has written to the disk (io.stat)
wbytes() {
	sed -n "s/^$MAJMIN .*wbytes=\([0-9]*\).*/\1/p" "$CG/tenant/io.stat" | grep . || echo 0
}

# trace_setup - the probes of bench/iomax-attr.py (made once)
trace_setup() {
	[ -d "$T/events/sched" ] || fail "tracefs not mounted at $T"
	echo 0 > "$T/tracing_on"
	echo > "$T/kprobe_events"
	cat > "$T/kprobe_events" <<'EOF' || fail "kprobe_events (see dmesg / error_log)"
p:iomax/iomax_cp jbd2_log_do_checkpoint
r:iomax/iomax_cp_ret jbd2_log_do_checkpoint
p:iomax/iomax_tail jbd2_cleanup_journal_tail
r:iomax/iomax_tail_ret jbd2_cleanup_journal_tail
p:iomax/iomax_ult __jbd2_update_log_tail
r:iomax/iomax_ult_ret __jbd2_update_log_tail
p:iomax/iomax_rcl jbd2tune_reclaim_work
r:iomax/iomax_rcl_ret jbd2tune_reclaim_work
p:iomax/iomax_wdb write_dirty_buffer blk=+24(%di):u64
p:iomax/iomax_wob __wait_on_buffer blk=+24(%di):u64
r:iomax/iomax_wob_ret __wait_on_buffer
p:iomax/iomax_thr __blk_throtl_bio sector=+32(%di):u64 bytes=+40(%di):u32
r:iomax/iomax_thr_ret __blk_throtl_bio queued=$retval:u8
EOF
	echo mono > "$T/trace_clock"
	echo 32768 > "$T/buffer_size_kb"
}

# trace_start PROBER TENANT
trace_start() {
	local p=$1 tn=$2 who
	echo 0 > "$T/tracing_on"
	echo > "$T/trace"
	who="prev_pid == $tn || prev_comm ~ \"kworker/u*\" || prev_comm ~ \"jbd2/*\""
	echo "prev_pid == $p || next_pid == $p || next_pid == $tn || next_comm ~ \"kworker/u*\" ||" \
		"next_comm ~ \"jbd2/*\" || $who" > "$T/events/sched/sched_switch/filter"
	echo "stacktrace if prev_pid == $p || (prev_state == 2 && ($who))" \
		> "$T/events/sched/sched_switch/trigger"
	echo 'rwbs ~ "*W*"' > "$T/events/block/block_bio_queue/filter"
	for e in sched/sched_switch block/block_bio_queue jbd2tune/jbd2tune_space_wait iomax; do
		echo 1 > "$T/events/$e/enable" || fail "enable $e"
	done
	echo 1 > "$T/tracing_on"
}

# trace_stop PROBER TENANT FILE - stop, save the trace, print events lost
trace_stop() {
	local p=$1 tn=$2 who
	echo 0 > "$T/tracing_on"
	for e in sched/sched_switch block/block_bio_queue jbd2tune/jbd2tune_space_wait iomax; do
		echo 0 > "$T/events/$e/enable"
	done
	who="prev_pid == $tn || prev_comm ~ \"kworker/u*\" || prev_comm ~ \"jbd2/*\""
	echo "!stacktrace if prev_pid == $p || (prev_state == 2 && ($who))" \
		> "$T/events/sched/sched_switch/trigger" 2>/dev/null
	echo 0 > "$T/events/sched/sched_switch/filter"
	cat "$T/trace" > "$3"
	cat "$T"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }'
}

# max_space_us J - the longest space wait: the histogram's highest
# non-empty bucket bound, us (0 if none)
max_space_us() {
	jattr "$1" space_wait_hist | python3 -c '
import sys
h = [int(x) for x in sys.stdin.read().split()]
top = max([i for i, c in enumerate(h) if c] or [-1])
print(0 if top < 0 else 2 ** (top + 1))'
}

# iomax_loads_start BASE [--stop FILE] - start the tenant in its cgroup and
# the prober in this one (the root) on $MNT for $IOMAX_S seconds, each
# waiting for $IOMAX_GO; their results go to BASE.{tenant,ops}.  Sets
# IOMAX_TPID and IOMAX_PPID; fails unless each runs where it belongs.
# --stop FILE: both end early once FILE exists (bench/iomax-load.py).
iomax_loads_start() {
	local base=$1 tp pp
	shift
	rm -f "$IOMAX_GO" "$base".*
	python3 "$LOADPY" tenant "$MNT/tenant" "$IOMAX_S" "$base.tenant" \
		--cgroup "$CG/tenant" --go "$IOMAX_GO" --max-files "$MAX_FILES" "$@" > "$base.tpid" &
	IOMAX_TPID=$!
	python3 "$LOADPY" prober "$MNT/prober" "$IOMAX_S" "$base.ops" --go "$IOMAX_GO" "$@" \
		> "$base.ppid" &
	IOMAX_PPID=$!
	for _ in $(seq 1 200); do
		[ -s "$base.tpid" ] && [ -s "$base.ppid" ] && break
		sleep 0.1
	done
	read -r tp < "$base.tpid" || fail "tenant did not start"
	read -r pp < "$base.ppid" || fail "prober did not start"
	if [ "$tp" != "$IOMAX_TPID" ] || [ "$pp" != "$IOMAX_PPID" ]; then
		fail "pids: $tp/$IOMAX_TPID $pp/$IOMAX_PPID"
	fi
	grep -qx "0::/tenant" "/proc/$tp/cgroup" || fail "tenant not in its cgroup"
	grep -qx "0::/" "/proc/$pp/cgroup" || fail "prober not in the root cgroup"
}

# one ROUND SETTING - one phase on a fresh file system
one() {
	local round=$1 setting=$2 j wm=0 lo hi tag base pp tp lost=- w0 w1
	local t0 t1 sw sw_max runs row
	tag=iomax-$round-$setting
	base=$OUT/$tag
	j=$(fresh_ext4 "$DEV" "$MNT" -J size=4) || exit 1
	if [ -n "$MOUNT_OPTS" ]; then
		umount "$MNT" && mount -t ext4 -o "$MOUNT_OPTS" "$DEV" "$MNT" ||
			fail "mount -o $MOUNT_OPTS"
		j=$(journal_name "$DEV")
	fi
	lo=$(jattr "$j" reclaim_watermark_min_pct)
	hi=$(jattr "$j" reclaim_watermark_max_pct)
	case $setting in
	off) wm=0 ;;
	min+*) wm=$((lo + ${setting#min+})) ;;
	max) wm=$hi ;;
	auto) wm=- ;;
	*[!0-9]*) fail "IOMAX_SETTINGS: off, min+K, max, N or auto, not '$setting'" ;;
	*) wm=$setting ;;
	esac
	[ "$wm" = - ] || jset "$j" reclaim_watermark_pct "$wm"
	mkdir "$MNT/tenant" "$MNT/prober"
	sync
	iomax_loads_start "$base"
	tp=$IOMAX_TPID
	pp=$IOMAX_PPID
	[ "$setting" = auto ] && demo_agent_start
	[ "$TRACE" = 1 ] && trace_start "$pp" "$tp"
	w0=$(wbytes)
	t0=$(date +%s.%N)
	touch "$IOMAX_GO"
	wait "$tp" || fail "tenant failed"
	wait "$pp" || fail "prober failed"
	t1=$(date +%s.%N)
	w1=$(wbytes)
	[ "$TRACE" = 1 ] && lost=$(trace_stop "$pp" "$tp" "$base.trace")
	[ "$setting" = auto ] && { wm=$(jattr "$j" reclaim_watermark_pct); demo_agent_stop; }
	sw=$(jattr "$j" space_waits)
	sw_max=$(max_space_us "$j")
	runs=$(jattr "$j" reclaim_runs)
	echo "journal=$j min_pct=$lo max_pct=$hi watermark=$wm prober=$pp tenant=$tp" \
		"bs=$(stat -f -c %S "$MNT") wall_s=$(echo "$t1 - $t0" | bc)" \
		"space_waits=$sw space_wait_us=$(jattr "$j" space_wait_us)" \
		"space_wait_hist='$(jattr "$j" space_wait_hist)' reclaim_runs=$runs" \
		"reclaim_blocks=$(jattr "$j" reclaim_blocks) trace_lost=$lost" > "$base.info"
	row=$(python3 - "$base.ops" "$base.tenant" "$base.info" "$w0" "$w1" "$t0" "$t1" <<'PY'
import sys
ops = sorted((b - a) / 1e6 for a, b in (map(int, l.split()) for l in open(sys.argv[1]) if l.strip()))
def p(q): return ops[min(len(ops) - 1, int(q * len(ops)))]
ten = open(sys.argv[2]).read().split()
w = int(sys.argv[5]) - int(sys.argv[4])
secs = float(sys.argv[7]) - float(sys.argv[6])
print("%d\t%.1f\t%.1f\t%.1f\t%s\t%s\t%.0f\t%.1f" % (len(ops), p(0.5), p(0.99), ops[-1],
      ten[1], ten[5], w, w / 1024.0 / secs))
PY
) || fail "row of $tag"
	# shellcheck disable=SC2086
	set -- $row
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t-\t-\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$round" "$setting" "$wm" "$1" "$2" "$3" "$4" "$sw" \
		"$(echo "scale=1; $sw_max / 1000" | bc)" "$runs" "$5" "$6" "$7" "$8" "$lost" |
		tee -a "$TSV"
	umount "$MNT" || fail "umount $MNT"
}

[ "$IOMAX_LIB" = 1 ] && return 0
[ "$TRACE" = 1 ] && trace_setup
{
	echo "# $KSERIES $KABI iomax: ${IOMAX_S}s phases, tenant io.max wbps=$WBPS, controllers '$CONTROLLERS', trace $TRACE, mount options '${MOUNT_OPTS:-defaults}'"
	echo "# round setting watermark prober_ops p50_ms p99_ms max_ms space_waits space_wait_max_ms prober_waits prober_wait_max_ms reclaim_runs tenant_files tenant_enospc tenant_wbytes tenant_kibps trace_lost"
} > "$TSV"
for round in $(seq 1 "$ROUNDS"); do
	order=$SETTINGS
	[ $((round % 2)) = 0 ] && order=$(echo "$SETTINGS" | tr ' ' '\n' | tac | tr '\n' ' ')
	for setting in $order; do
		one "$round" "$setting"
	done
done
fsck_clean "$DEV"
echo "bench/iomax.sh: done"
