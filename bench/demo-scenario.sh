# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The demo scenario, run inside the test VM (sourced by bench/demo-vm.sh for
# `make demo`, by tests/vm/tests/agent-stall.sh for `make check` and by
# bench/agent-vm.sh for its setup and agent start):
# ext4 with a small journal on a slow (throttled) virtio disk, a background
# of small random read/write jobs that keep metadata dirty under commit, and
# an "online" writer at a fixed rate whose completion latency we measure.
# Phase 1 runs jbd2-tuned in dry-run, phase 2 in auto.
#
# Needs: lib.sh sourced, $PROJECT, $OUT; a disk per phase (throttled by the
# caller's "# vm-disk:" lines).  Settings (environment, with defaults):
#   DEMO_PHASE_S      seconds of measured load per phase (60)
#   DEMO_DROPIN       extra policy lines for /etc/jbd2-tuned.conf.d/ ("")
#   DEMO_AGENT_LOG    where demo_agent_start sends the agent's log
#                     ($OUT/agent.log)

DEMO_PHASE_S=${DEMO_PHASE_S:-60}
DEMO_DROPIN=${DEMO_DROPIN:-}
AGENT=$PROJECT/agent/build/jbd2-tuned
DEMO_MNT=/mnt/demo

# demo_setup - ext4 and configfs, a system bus, the shipped policy
demo_setup() {
	[ -x "$AGENT" ] || fail "$AGENT not built (make agent)"
	load_ext4
	mount_configfs

	# the guest root is an overlay: install the project's files where a
	# package would put them
	install -D -m 0644 "$PROJECT/conf/org.jbd2tune1.conf" \
		/etc/dbus-1/system.d/org.jbd2tune1.conf
	install -D -m 0644 "$PROJECT/conf/jbd2-tuned.conf" /etc/jbd2-tuned.conf
	mkdir -p /etc/jbd2-tuned.conf.d /run/dbus
	if [ -n "$DEMO_DROPIN" ]; then
		printf '%s\n' "$DEMO_DROPIN" > /etc/jbd2-tuned.conf.d/50-demo.conf
	fi
	dbus-daemon --system --fork --nopidfile || fail "dbus-daemon --system"
	trap demo_cleanup EXIT

	# Write dirty data back after 5 s instead of 30 s, so that within a
	# short phase every commit carries ordered data of the writer: the log
	# write then queues behind it on the slow disk, and the metadata blocks
	# stay shadowed for as long (a steady state that a 30 s expiry only
	# reaches after the first half minute).
	sysctl -q -w vm.dirty_expire_centisecs=500 vm.dirty_writeback_centisecs=100 ||
		fail "sysctl vm.dirty_*"
	echo "vm.dirty_expire_centisecs=500, vm.dirty_writeback_centisecs=100"
}

# demo_load LOAD - the dirty-data expiry of a named load: "demo" (5 s,
# what demo_setup set) or "seed" (10 s, issue 14's report); an
# optional second argument names the setting in the error (bench/seed000,
# bench/tail)
demo_load() {
	local expire
	case $1 in
	demo) expire=500 ;;
	seed) expire=1000 ;;
	*) fail "${2:-load}: demo or seed, not '$1'" ;;
	esac
	sysctl -q -w vm.dirty_expire_centisecs=$expire || fail "sysctl"
	log "load $1: vm.dirty_expire_centisecs=$expire"
}

# demo_fs_start DEV - a fresh ext4 (-J size=16) on DEV mounted on
# $DEMO_MNT, the background jobs' files laid out.  Each phase gets its own,
# identically throttled disk: a second run on an aged file system met
# longer stalls whatever the knob (kmod-force-copy test), which would bias
# the comparison.
# With Debian's stock jbd2 loaded (bench/seed000) there is no configfs
# tree: DEMO_CFS is then empty and the counters are not read.
demo_fs_start() {
	DEMO_J=$(fresh_ext4 "$1" "$DEMO_MNT" -J size=16) || exit 1
	DEMO_CFS=
	if [ -d /sys/kernel/config/jbd2 ]; then
		DEMO_CFS=/sys/kernel/config/jbd2/$DEMO_J
		[ -d "$DEMO_CFS" ] || fail "no configfs group for $DEMO_J"
	fi
	# lay out the background jobs' files first, so the load is random
	# read/write from the start, not fio's layout writes
	fio --name=bg --directory="$DEMO_MNT" --numjobs=4 --size=8m --rw=write \
		--bs=1m --filename_format='bg.$jobnum' --output=/dev/null ||
		fail "fio layout"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	[ -z "$DEMO_CFS" ] || log "journal $DEMO_J on $1: $(cat "$DEMO_CFS/log_blocks") blocks," \
		"$(cat "$DEMO_CFS/free_blocks") free"
}

# demo_fs_stop DEV - umount and e2fsck -fn
demo_fs_stop() {
	umount "$DEMO_MNT" || fail "umount $1"
	fsck_clean "$1"
}

# demo_agent_start MODE_OPTS... - start jbd2-tuned on the system bus and
# wait for its bus name; its log goes to $DEMO_AGENT_LOG ($OUT/agent.log)
demo_agent_start() {
	"$AGENT" --bus system "$@" >> "${DEMO_AGENT_LOG:-$OUT/agent.log}" 2>&1 &
	DEMO_AGENT_PID=$!
	local i
	for i in $(seq 1 100); do
		busctl --system get-property org.jbd2tune1 /org/jbd2tune1 \
			org.jbd2tune1.Manager Version >/dev/null 2>&1 && return 0
		kill -0 "$DEMO_AGENT_PID" 2>/dev/null || break
		sleep 0.2
	done
	cat "${DEMO_AGENT_LOG:-$OUT/agent.log}"
	fail "jbd2-tuned did not come up on the bus"
}

demo_agent_stop() {
	kill -TERM "$DEMO_AGENT_PID" 2>/dev/null
	wait "$DEMO_AGENT_PID" 2>/dev/null
	DEMO_AGENT_PID=
}

# demo_journal_path - D-Bus object path of the demo journal (ListJournals)
demo_journal_path() {
	busctl --system call org.jbd2tune1 /org/jbd2tune1 org.jbd2tune1.Manager \
		ListJournals | grep -o "\"$DEMO_J\" \"[^\"]*\" \"/org/jbd2tune1/journal/[^\"]*\"" |
		grep -o '/org/jbd2tune1/journal/[^"]*'
}

# demo_cleanup - stop what is still running (a failed assertion exits)
demo_cleanup() {
	[ -z "${DEMO_BG_PID:-}" ] || kill -INT "$DEMO_BG_PID" 2>/dev/null
	[ -z "${DEMO_AGENT_PID:-}" ] || kill -TERM "$DEMO_AGENT_PID" 2>/dev/null
	[ -z "${DEMO_MON_PID:-}" ] || kill "$DEMO_MON_PID" 2>/dev/null
	[ -z "${DEMO_WATCH_PID:-}" ] || kill "$DEMO_WATCH_PID" 2>/dev/null
	wait 2>/dev/null
}

# demo_background_start - 4 buffered 4 KiB random read/write jobs, 60 %
# reads, 100 IOPS each, until demo_background_stop
demo_background_start() {
	fio --name=bg --directory="$DEMO_MNT" --numjobs=4 --size=8m \
		--filename_format='bg.$jobnum' --rw=randrw --rwmixread=60 --bs=4k --ioengine=sync \
		--rate_iops=100 --time_based --runtime=3600 \
		--output=/dev/null > /dev/null 2>&1 &
	DEMO_BG_PID=$!
}

demo_background_stop() {
	kill -INT "$DEMO_BG_PID" 2>/dev/null
	wait "$DEMO_BG_PID" 2>/dev/null
	DEMO_BG_PID=
}

# demo_writer SECONDS TAG - the online writer: buffered sequential 64 KiB
# writes at 4 MB/s; fio's JSON goes to $OUT/writer-TAG.json (json+: with
# the latency histogram's bins, for demo_stall_ms).  No
# fallocate: blocks are allocated at writeback (delalloc), so the block
# bitmaps and group descriptors are re-dirtied while the commit writes them.
demo_writer() {
	demo_writer_argv "$1" "$2"
	"${DEMO_WRITER_ARGV[@]}" --percentile_list=50:99:99.9:99.99 \
		--output-format=json+ --output="$OUT/writer-$2.json" > /dev/null ||
		fail "fio writer"
	rm -f "$DEMO_MNT/writer-$2"
}

# demo_writer_argv SECONDS TAG - that writer's fio command line, without
# its output options, in DEMO_WRITER_ARGV (an array: run in the background
# as is, $! is fio itself)
demo_writer_argv() {
	DEMO_WRITER_ARGV=(fio --name=writer --directory="$DEMO_MNT" --filename="writer-$2"
		--rw=write --bs=64k --size=256m --fallocate=none --rate=4m --ioengine=sync
		--time_based --runtime="$1")
}

# demo_warmup SECONDS - the full load (background + writer) unmeasured for
# SECONDS: phase 1 and phase 2 then start measuring from the same state,
# and in phase 2 the agent has seen the stalls and acted by then
demo_warmup() {
	demo_writer "$1" warmup
}

# demo_warmup_until MIN MAX FILE REGEX - the same unmeasured full load,
# for at least MIN and at most MAX seconds, ended as soon as FILE has a
# line matching REGEX (grep -E) after MIN: e.g. the agent's verdict on its
# trial, whose length depends on the load's waits.  Prints the seconds it
# ran; fails when the writer fails.
demo_warmup_until() {
	local min=$1 max=$2 file=$3 re=$4 t0=$SECONDS pid rc=0
	demo_writer_argv "$max" warmup
	"${DEMO_WRITER_ARGV[@]}" --output=/dev/null > /dev/null &
	pid=$!
	while kill -0 "$pid" 2> /dev/null; do
		if [ $((SECONDS - t0)) -ge "$min" ] && grep -Eq "$re" "$file" 2> /dev/null; then
			kill "$pid" 2> /dev/null
			wait "$pid" 2> /dev/null
			pid=
			break
		fi
		sleep 1
	done
	[ -z "$pid" ] || wait "$pid" || rc=$?
	rm -f "$DEMO_MNT/writer-warmup"
	[ "$rc" = 0 ] || fail "fio writer (warm-up)"
	echo $((SECONDS - t0))
}

# demo_watch_start - note when the first shadow wait and force_copy=1 are
# seen (ms since this call, every 0.5 s) in $OUT/watch-$DEMO_J, and until
# then "ms shadow_waits shadow_wait_us" each round in
# $OUT/watch-series-$DEMO_J.  Bash
# builtins only (no process per round: on a starved guest a round of
# cat and date took seconds), and force_copy is read before the counter,
# so a round that sees force_copy=1 also sees the waits that caused it.
demo_watch_start() {
	rm -f "$OUT/watch-$DEMO_J" "$OUT/watch-series-$DEMO_J"
	(
		t0=${EPOCHREALTIME/[.,]/} first_wait= on= fc= sw= swus=
		exec 9<> <(:)	# a pipe nobody writes: read -t is the sleep
		while [ -z "$first_wait" ] || [ -z "$on" ]; do
			now=$(( (${EPOCHREALTIME/[.,]/} - t0) / 1000 ))
			read -r fc < "$DEMO_CFS/force_copy" || fc=
			read -r sw < "$DEMO_CFS/shadow_waits" || sw=0
			read -r swus < "$DEMO_CFS/shadow_wait_us" || swus=0
			echo "$now $sw $swus" >> "$OUT/watch-series-$DEMO_J"
			if [ -z "$first_wait" ] && [ "$sw" != 0 ]; then
				first_wait=$now
				echo "first_wait_ms=$now" >> "$OUT/watch-$DEMO_J"
			fi
			if [ -z "$on" ] && [ "$fc" = 1 ]; then
				on=$now
				echo "force_copy_on_ms=$now" >> "$OUT/watch-$DEMO_J"
			fi
			read -r -t 0.5 -u 9 _
		done
	) 2>/dev/null &
	DEMO_WATCH_PID=$!
}

# demo_watch VAR - a figure noted by the watcher, or "" when not seen
demo_watch() {
	sed -n "s/^$1=//p" "$OUT/watch-$DEMO_J" 2>/dev/null
}

# demo_watch_sustained WINDOW_MS US - the first time (ms, as demo_watch)
# the watcher saw US or more microseconds of shadow waits end within the
# WINDOW_MS before it (shadow_wait_us then against the last sample
# WINDOW_MS or more earlier, 0 before the first), or "" when never: when
# a window of the agent held that much stall time, which is what its
# trigger counts (one wait of 837 ms started a trial on 6.12: a count of
# waits is not the trigger)
demo_watch_sustained() {
	awk -v w="$1" -v n="$2" '
		{ t[NR] = $1; c[NR] = $3
		  base = 0
		  for (i = NR; i >= 1; i--) if (t[i] <= $1 - w) { base = c[i]; break }
		  if ($3 - base >= n) { print $1; exit } }' \
		"$OUT/watch-series-$DEMO_J" 2>/dev/null
}

# demo_counters - "shadow_waits copyouts_forced free_blocks force_copy"
demo_counters() {
	echo "$(cat "$DEMO_CFS/shadow_waits") $(cat "$DEMO_CFS/copyouts_forced")" \
	     "$(cat "$DEMO_CFS/free_blocks") $(cat "$DEMO_CFS/force_copy")"
}

# demo_percentiles TAG - "p50 p99 p99.9 p99.99 max" in ms
demo_percentiles() {
	python3 - "$OUT/writer-$1.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["write"]["clat_ns"]
p = j.get("percentile", {})
def ms(ns): return "%.1f" % (ns / 1e6)
print(" ".join(ms(p.get(k, 0)) for k in ("50.000000", "99.000000", "99.900000", "99.990000")), ms(j["max"]))
PY
}

# demo_stall_ms TAG [LIMIT_MS] - "STALL_MS STALLED": the writer's time
# in writes beyond LIMIT_MS (default 100), summed over its writes, and how
# many writes took longer, from fio's latency histogram (bins of at most
# 1/64 relative width).  What the workload feels of the stalls, where a
# percentile of a phase with one or two stalled writes among 1,900 is
# decided by which write came second (agent-stall, 6.1, 2026-12-04: p99.9
# 89.7 -> 109.6 ms with the writer's max 867 -> 142 ms).
demo_stall_ms() {
	python3 - "$OUT/writer-$1.json" "${2:-100}" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["write"]["clat_ns"]
limit_ns = float(sys.argv[2]) * 1e6
stall = n = 0
for v, c in j.get("bins", {}).items():
    if float(v) > limit_ns:
        stall += (float(v) - limit_ns) * c
        n += c
print("%.1f %d" % (stall / 1e6, n))
PY
}

# demo_phase TAG - background + writer for DEMO_PHASE_S; records the row
# "TAG force_copy p50 p99 p99.9 p99.99 max shadow_waits copyouts free" in
# $OUT/table (counter figures are deltas over the phase)
demo_phase() {
	local tag=$1 before after
	before=$(demo_counters)
	demo_writer "$DEMO_PHASE_S" "$tag"
	after=$(demo_counters)
	set -- $before $after
	echo "$tag $8 $(demo_percentiles "$tag") $(($5 - $1)) $(($6 - $2)) $7" >> "$OUT/table"
}

# demo_print_table - the table of both phases
demo_print_table() {
	printf '\n%-8s %-10s %8s %8s %8s %8s %8s %8s %9s %10s\n' phase force_copy \
		"p50 ms" "p99 ms" "p99.9" "p99.99" "max ms" shadow copyouts "free blks"
	while read -r tag fc p50 p99 p999 p9999 max sw co free; do
		printf '%-8s %-10s %8s %8s %8s %8s %8s %8s %9s %10s\n' "$tag" "$fc" \
			"$p50" "$p99" "$p999" "$p9999" "$max" "$sw" "$co" "$free"
	done < "$OUT/table"
	echo "(shadow = shadow waits, copyouts = forced copy-outs during the phase;" \
		"free blks = free log space at its end)"
}
