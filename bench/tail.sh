# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of bench/tail: where the demo's writer still sleeps.
#
# The demo load (bench/demo-scenario.sh: 4 fio jobs of 4 KiB random
# read/write at 100 IOPS each on ext4 -J size=16, 400 MB, disk throttled to
# 6 MB/s of writes, dirty expiry 5 s) with the writer replaced by
# bench/tail-writer.py (the same 64 KiB buffered writes at 4 MB/s, each
# write timed), once with force_copy fixed at 0 and once at 1, each on its
# own fresh disk, TAIL_WARMUP_S (45) unmeasured then TAIL_S (60) measured.
# TAIL_LOAD=seed runs issue 14's load instead (dirty expiry 10 s, as
# bench/seed000's "seed"); TAIL_SETTINGS (default "0 1") lists the
# force_copy values to run, in order, each on a fresh file system (the two
# disks taken in turn), e.g. "1 1 1 1" to catch a rare stall; FC:MS also
# sets the journal's lock_delay_max_ms to MS for that run ("1 1:5000").
# TAIL_WBT_LAT_USEC sets both disks' writeback throttling target
# (queue/wbt_lat_usec, 0 = off).
# During the measured part tracefs records every sched_switch of the writer
# thread with the kernel stack of each switch-out (trace_clock mono);
# bench/tail-attr.py then attributes every write over 10 ms to the causes
# of the sleeps inside it, and names the handles that kept the
# transaction open while the writer waited in T_LOCKED (jbd2_handle_stats
# of handles held 8 ms or more; Debian's kernels run at HZ=250) and where
# such a handle's task slept meanwhile (unbound kworkers' switch-outs in
# D state are traced with their stacks too).
# Output: $OUT/tail-fc<fc>[-<n>].txt (tables) and $OUT/tail.tsv (rows of
# every run).
# vm-disk: 400M,throttling.bps-write=6291456
# vm-disk: 400M,throttling.bps-write=6291456
# vm-timeout: 3000
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/bench/demo-scenario.sh"

# shellcheck disable=SC1091
[ -f "$PROJECT/build/bench/tail.env" ] && . "$PROJECT/build/bench/tail.env"
TAIL_S=${TAIL_S:-60}
WARMUP_S=${TAIL_WARMUP_S:-45}
TAIL_LOAD=${TAIL_LOAD:-demo}
TAIL_SETTINGS=${TAIL_SETTINGS:-0 1}
T=/sys/kernel/tracing
[ -d "$T/events/sched" ] || fail "tracefs not mounted at $T"
demo_setup
demo_load "$TAIL_LOAD" TAIL_LOAD
# TAIL_WBT_LAT_USEC: the block layer's writeback throttling target of both
# disks (queue/wbt_lat_usec; 0 turns it off), to see what it does to the
# writer's tail; unset leaves the kernel's default
if [ -n "${TAIL_WBT_LAT_USEC:-}" ]; then
	for d in vda vdb; do
		echo "$TAIL_WBT_LAT_USEC" > "/sys/block/$d/queue/wbt_lat_usec" ||
			fail "wbt_lat_usec of $d"
	done
fi
log "wbt_lat_usec: vda $(cat /sys/block/vda/queue/wbt_lat_usec), vdb $(cat /sys/block/vdb/queue/wbt_lat_usec)"
rm -f "$OUT/tail.tsv" "$OUT"/tail-fc*.txt

# the switch-outs traced with a stack: the writer's (PID), and the unbound
# kworkers' sleeps in D state (writeback runs there: where a kworker
# holding a handle sleeps, tail-attr.py --holders)
KW_SLEEP='prev_comm ~ "kworker/u*" && prev_state == 2'
stack_if() { echo "prev_pid == $1 || ($KW_SLEEP)"; }

# trace_writer PID - sched_switch of PID and of the kworkers (stack_if),
# jbd2_handle_stats of long handles
trace_writer() {
	echo 0 > "$T/tracing_on"
	echo > "$T/trace"
	echo mono > "$T/trace_clock"
	echo 8192 > "$T/buffer_size_kb"
	echo "$(stack_if "$1") || next_pid == $1 || next_comm ~ \"kworker/u*\"" \
		> "$T/events/sched/sched_switch/filter"
	echo "stacktrace if $(stack_if "$1")" > "$T/events/sched/sched_switch/trigger"
	echo 1 > "$T/events/sched/sched_switch/enable"
	# handles that ran 2 jiffies (8 ms at Debian's HZ=250) or more: who
	# holds a transaction open while the writer waits in T_LOCKED
	echo "interval >= 2" > "$T/events/jbd2/jbd2_handle_stats/filter"
	echo 1 > "$T/events/jbd2/jbd2_handle_stats/enable"
	echo 1 > "$T/tracing_on"
}

trace_stop() {
	echo 0 > "$T/tracing_on"
	echo 0 > "$T/events/sched/sched_switch/enable"
	echo 0 > "$T/events/jbd2/jbd2_handle_stats/enable"
	echo 0 > "$T/events/jbd2/jbd2_handle_stats/filter"
	echo "!stacktrace if $(stack_if "$1")" > "$T/events/sched/sched_switch/trigger" 2>/dev/null
	echo 0 > "$T/events/sched/sched_switch/filter"
}

# run FC DEV N [LD] - one measured run with force_copy FC on a fresh DEV
# and the module's lock_delay_max_ms at LD (default 0); N numbers the run
# in the file names (tail-fcFC[-N].txt, trace-fcFC[-N])
run() {
	local fc=$1 dev=$2 tag=$1${3:+-$3} ld=${4:-0} pid ops=$OUT/tail-ops-$1 lost
	demo_fs_start "$dev"
	echo "$fc" > "$DEMO_CFS/force_copy" || fail "force_copy=$fc"
	if [ -e "$DEMO_CFS/lock_delay_max_ms" ]; then
		echo "$ld" > "$DEMO_CFS/lock_delay_max_ms" || fail "lock_delay_max_ms=$ld"
	elif [ "$ld" != 0 ]; then
		fail "lock_delay_max_ms=$ld: this jbd2 has no such knob"
	fi
	demo_background_start
	demo_warmup "$WARMUP_S"
	local before after
	before=$(demo_counters)
	coproc W { python3 "$PROJECT/bench/tail-writer.py" "$DEMO_MNT/writer-tail" "$TAIL_S" "$ops"; }
	read -r pid <&"${W[0]}" || fail "tail-writer did not start"
	trace_writer "$pid"
	wait "$W_PID" || fail "tail-writer failed"
	trace_stop "$pid"
	after=$(demo_counters)
	lost=$(cat "$T"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	cp "$T/trace" "$OUT/trace-fc$tag.txt"
	demo_background_stop
	set -- $before $after
	{
		echo "force_copy=$fc lock_delay_max_ms=$ld: shadow waits $(($5 - $1)), forced copy-outs $(($6 - $2))," \
			"locked waits $(cat "$DEMO_CFS/locked_waits") (whole run), trace events lost $lost"
		python3 - "$ops" <<'PY'
import sys
d = sorted((b - a) / 1e6 for a, b in (map(int, l.split()) for l in open(sys.argv[1]) if l.strip()))
def p(q): return d[min(len(d) - 1, int(q * len(d)))]
print("  writer latency ms: p50 %.1f p99 %.1f p99.9 %.1f p99.99 %.1f max %.1f (%d writes)"
      % (p(0.5), p(0.99), p(0.999), p(0.9999), d[-1], len(d)))
PY
		python3 "$PROJECT/bench/tail-attr.py" "$OUT/trace-fc$tag.txt" "$ops" "$pid" \
			--tag "force_copy=$fc lock_delay_max_ms=$ld" --holders --hz 250
	} | tee "$OUT/tail-fc$tag.txt"
	python3 "$PROJECT/bench/tail-attr.py" "$OUT/trace-fc$tag.txt" "$ops" "$pid" \
		--tag "$fc:$ld" --tsv >> "$OUT/tail.tsv"
	gzip -f "$OUT/trace-fc$tag.txt"
	demo_fs_stop "$dev"
}

# a setting is FC or FC:LOCK_DELAY_MS (lock_delay_max_ms for that run)
n=0
for setting in $TAIL_SETTINGS; do
	fc=${setting%%:*} ld=0
	case $setting in *:*) ld=${setting#*:} ;; esac
	case $fc in 0|1) ;; *) fail "TAIL_SETTINGS: 0 or 1[:MS], not '$setting'" ;; esac
	case $ld in ''|*[!0-9]*) fail "TAIL_SETTINGS: 0 or 1[:MS], not '$setting'" ;; esac
	n=$((n + 1))
	# the default "0 1" keeps the file names tail-fc0.txt / tail-fc1.txt
	run "$fc" "$([ $((n % 2)) = 1 ] && echo /dev/vda || echo /dev/vdb)" \
		"$([ "$TAIL_SETTINGS" = "0 1" ] || echo "$n")" "$ld"
done
echo "bench/tail.sh: done"
