#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/agent-vm.sh - guest side of bench/agent-vm (make bench): jbd2-tuned
# watching 16 real journals on the 6.1 kernel with our jbd2.ko (issue 4's
# resource and reaction goals).  Not a test: it prints figures and writes
# them to $OUT/figures (key=value) for the host side.
#  1. Resources, the shipped policy (interval 1 s, window 30 s), 16 ext4 file
#     systems each committing an fsync'd append every 2 s, no stalls:
#     jbd2-tuned with the netlink family (one GET_JOURNAL dump per interval),
#     then with --no-netlink (reading the real configfs files), BENCH_S
#     seconds each, and the system calls per interval (strace -c); then
#     agent/build/bench-dump (user-space work of one dump) and
#     bench/agent-resources on a fake tree on tmpfs, the same runs the host
#     side makes, to tell how much slower this TCG guest is.
#  2. Reaction: 4 of the file systems sit on dm-delay (writes take 20 ms)
#     under tests/vm/shadow-stall.py; a drop-in turns force_copy on at the
#     first shadow wait over 1 ms and lets it try off after 2 s, so it comes
#     back on several times.  The agent (--verbose) logs, for every knob write
#     an event led to, the time from the kernel's event timestamp
#     (CLOCK_MONOTONIC, taken when the STALL is sent) to the write's return.
# vm-disk: 1024M
# vm-timeout: 900
# vm-series: 6.1
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/bench/demo-scenario.sh"
source "$PROJECT/bench/lib-resources.sh"

BENCH_S=${BENCH_S:-60}
STALL_S=${STALL_S:-45}
FIG=$OUT/figures
: > "$FIG"
rm -f "$OUT/agent.log"

demo_setup
modprobe dm-delay || fail "modprobe dm-delay"

# 16 slices of 64 MB of /dev/vda: jq0..jq11 linear, js12..js15 with writes
# delayed 20 ms
seg=$((64 * 2048))
for i in $(seq 0 15); do
	if [ "$i" -lt 12 ]; then
		dev=jq$i table="0 $seg linear /dev/vda $((i * seg))"
	else
		dev=js$i table="0 $seg delay /dev/vda $((i * seg)) 0 /dev/vda $((i * seg)) 20"
	fi
	run_ok dmsetup dmsetup create "$dev" --table "$table"
	mkdir -p "/mnt/$dev"
	fresh_ext4 "/dev/mapper/$dev" "/mnt/$dev" -J size=4 > /dev/null || exit 1
done
echo "16 ext4 file systems (64 MB, 4 MB journal): $(ls /sys/kernel/config/jbd2 | tr '\n' ' ')"

# an fsync'd append every 2 s on each: commits, no stalls (one python, not
# a process per append: this guest is emulated)
python3 - /mnt/j* <<'PY' > /dev/null 2>&1 &
import os, sys, time
fds = [os.open(d + "/ticks", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) for d in sys.argv[1:]]
while True:
    for fd in fds:
        os.write(fd, b"tick\n")
        os.fsync(fd)
    time.sleep(2)
PY
TICK_PID=$!

# measure TAG AGENT_OPTS... - CPU and RSS over BENCH_S, then the system
# calls it makes per interval (strace -c over 10 s)
measure() {
	local tag=$1 n; shift
	demo_agent_start "$@"
	sleep 5		# past start-up: the first samples, the bus name
	set -- $(cpu_rss "$DEMO_AGENT_PID" "$BENCH_S")
	echo "${tag}: CPU $1 % of one core ($4 ms in ${BENCH_S} s), RSS $2 KiB (peak $3 KiB)"
	printf '%s_cpu_pct=%s\n%s_rss_kib=%s\n' "$tag" "$1" "$tag" "$2" >> "$FIG"
	strace -c -p "$DEMO_AGENT_PID" -o "$OUT/strace-$tag.txt" 2> /dev/null &
	sleep 10
	kill -INT $! 2>/dev/null; wait $! 2>/dev/null
	demo_agent_stop
	n=$(awk '$NF == "total" { print $4 }' "$OUT/strace-$tag.txt")
	echo "${tag}: $((n / 10)) system calls per interval:"
	sed 's/^/    /' "$OUT/strace-$tag.txt"
	echo "${tag}_syscalls_per_interval=$((n / 10))" >> "$FIG"
}
log "resources: netlink, then configfs polling, ${BENCH_S} s each"
measure netlink
grep -q 'netlink family jbd2tune not found' "$OUT/agent.log" &&
	fail "the agent did not find the netlink family"
measure polling --no-netlink
kill "$TICK_PID" 2>/dev/null; wait "$TICK_PID" 2>/dev/null

log "calibration: agent/build/bench-dump (user-space work of one dump)"
"$PROJECT/agent/build/bench-dump" 2000 | tee "$OUT/dump.txt"
echo "dump_us=$(sed -n 's/.*: \([0-9.]*\) us per interval.*/\1/p' "$OUT/dump.txt")" >> "$FIG"
log "calibration: bench/agent-resources (fake tree on tmpfs, polling)"
TMPDIR=/tmp "$PROJECT/bench/agent-resources" "$BENCH_S" | tee "$OUT/fake.txt"
echo "fake_cpu_pct=$(sed -n 's/^  CPU \([0-9.]*\) %.*/\1/p' "$OUT/fake.txt")" >> "$FIG"

log "reaction: shadow-stall.py on js12..js15 for ${STALL_S} s"
cat > /etc/jbd2-tuned.conf.d/50-bench.conf <<'EOC'
[agent]
window_s = 10
[defaults]
force_copy_on_p99_ms = 1
force_copy_min_waits = 1
force_copy_hold_s = 2
reclaim = off
EOC
: > "$OUT/agent.log"
demo_agent_start --verbose
pids=
for i in 12 13 14 15; do
	python3 "$PROJECT/tests/vm/shadow-stall.py" "/mnt/js$i" "$STALL_S" &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "shadow-stall.py"; done
demo_agent_stop
grep -c 'force_copy 0->1' "$OUT/agent.log" | sed 's/^/force_copy_on_decisions=/' >> "$FIG"
python3 - "$OUT/agent.log" "$FIG" <<'PY'
import re, statistics, sys
ms = [float(m.group(1)) for m in
      re.finditer(r"force_copy written ([0-9.]+) ms after the kernel's STALL event",
                  open(sys.argv[1]).read())]
if not ms:
    sys.exit("no knob write after a STALL event in the agent's log")
ms.sort()
p90 = ms[min(len(ms) - 1, int(round(0.9 * (len(ms) - 1))))]
fig = {"reaction_n": len(ms), "reaction_p50_ms": "%.2f" % statistics.median(ms),
       "reaction_p90_ms": "%.2f" % p90, "reaction_max_ms": "%.2f" % ms[-1],
       "reaction_min_ms": "%.2f" % ms[0]}
with open(sys.argv[2], "a") as f:
    for k, v in fig.items():
        f.write("%s=%s\n" % (k, v))
print("reaction STALL -> force_copy write: n=%d min %s, median %s, p90 %s, max %s ms"
      % (len(ms), fig["reaction_min_ms"], fig["reaction_p50_ms"], fig["reaction_p90_ms"],
         fig["reaction_max_ms"]))
PY
[ $? = 0 ] || fail "no reaction figures"

for i in $(seq 0 15); do
	dev=jq$i; [ "$i" -lt 12 ] || dev=js$i
	umount "/mnt/$dev" || fail "umount /mnt/$dev"
	dmsetup remove "$dev" || fail "dmsetup remove $dev"
done
echo "figures:"; sed 's/^/    /' "$FIG"
