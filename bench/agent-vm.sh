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
stall_wait_min_ms = 1
stall_budget_ms_per_s = 1
trial_block_s = 1
reclaim = off
EOC
# the log goes to the guest's tmpfs: $OUT is shared over 9p, where every
# write() is a round trip to the host, and --verbose writes a line per event
DEMO_AGENT_LOG=/tmp/agent-reaction.log demo_agent_start --verbose
# the four loads start together 10 s from now, once their (emulated)
# interpreters are up, rather than while they start
start=$(( $(date +%s) + 10 ))
pids=
for i in 12 13 14 15; do
	python3 "$PROJECT/tests/vm/shadow-stall.py" "/mnt/js$i" "$STALL_S" "$start" &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "shadow-stall.py"; done
demo_agent_stop
cp /tmp/agent-reaction.log "$OUT/agent-reaction.log"
grep -c 'force_copy 0->1' "$OUT/agent-reaction.log" | sed 's/^/force_copy_on_decisions=/' >> "$FIG"
python3 - "$OUT/agent-reaction.log" "$FIG" <<'PY'
import re, statistics, sys
# "netlink event STALL for J, sent A ms ago" then "J: force_copy written T
# ms after the kernel's STALL event": T is the reaction, T - A the part
# spent in the agent (receipt to the write's return), A the time the event
# waited to be read
age, total, inside = {}, [], []
for line in open(sys.argv[1]):
    m = re.search(r"netlink event STALL for (\S+), sent ([0-9.]+) ms ago", line)
    if m:
        age[m.group(1)] = float(m.group(2))
        continue
    m = re.search(r"(\S+): force_copy written ([0-9.]+) ms after the kernel's STALL event", line)
    if m:
        total.append(float(m.group(2)))
        inside.append(float(m.group(2)) - age.get(m.group(1), 0.0))
if not total:
    sys.exit("no knob write after a STALL event in the agent's log")

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]

fig = {"reaction_n": len(total)}
for key, v in (("reaction", total), ("reaction_in_agent", inside)):
    fig[key + "_min_ms"] = "%.2f" % min(v)
    fig[key + "_p50_ms"] = "%.2f" % statistics.median(v)
    fig[key + "_p90_ms"] = "%.2f" % pct(v, 90)
    fig[key + "_max_ms"] = "%.2f" % max(v)
with open(sys.argv[2], "a") as f:
    for k, v in fig.items():
        f.write("%s=%s\n" % (k, v))
for key, what in (("reaction", "STALL sent -> force_copy written"),
                  ("reaction_in_agent", "  of which in the agent (event read -> written)")):
    print("%s: n=%d min %s, median %s, p90 %s, max %s ms" % (what, len(total),
          fig[key + "_min_ms"], fig[key + "_p50_ms"], fig[key + "_p90_ms"], fig[key + "_max_ms"]))
PY
[ $? = 0 ] || fail "no reaction figures"

for i in $(seq 0 15); do
	dev=jq$i; [ "$i" -lt 12 ] || dev=js$i
	umount "/mnt/$dev" || fail "umount /mnt/$dev"
	dmsetup remove "$dev" || fail "dmsetup remove $dev"
done
echo "figures:"; sed 's/^/    /' "$FIG"
