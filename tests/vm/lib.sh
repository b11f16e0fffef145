# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for VM test scripts (tests/vm/tests/*.sh), sourced in the guest:
#   source "$PROJECT/tests/vm/lib.sh"
# Every failed assertion prints what was expected and what was found and
# exits the test with status 1.

set -u

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

log() {
	echo "[$(date +%T)] $*"
}

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "ok: $1 = '$3'"
}

# assert_ne WHAT UNEXPECTED ACTUAL
assert_ne() {
	[ "$2" != "$3" ] || fail "$1: must not be '$3'"
	echo "ok: $1 != '$2' ('$3')"
}

# assert_cmp WHAT A OP B  (OP: -lt -le -gt -ge -eq -ne, integers)
assert_cmp() {
	[ "$2" "$3" "$4" ] 2>/dev/null || fail "$1: expected $2 $3 $4"
	echo "ok: $1: $2 $3 $4"
}

# run_ok WHAT CMD... - the command must succeed
run_ok() {
	local what=$1; shift
	"$@" || fail "$what: '$*' exited with $?"
}

# load_ext4 - load the distribution's ext4 with the jbd2 of this run
load_ext4() {
	modprobe ext4 || fail "modprobe ext4"
	local v
	v=$(cat /sys/module/jbd2/srcversion 2>/dev/null || true)
	log "ext4 loaded, jbd2 srcversion ${v:-?} ($FLAVOUR)"
}

# mkfs_ext4 DEV [mkfs options...] - quiet mkfs.ext4 with no lazy init
mkfs_ext4() {
	local dev=$1; shift
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$@" "$dev" ||
		fail "mkfs.ext4 $dev"
}

# fsck_clean DEV - e2fsck -fn must report a clean file system
fsck_clean() {
	local out
	out=$(e2fsck -fn "$1" 2>&1) || { echo "$out"; fail "e2fsck -fn $1 not clean"; }
	echo "ok: e2fsck -fn $1 clean"
}

# mount_configfs - make /sys/kernel/config available
mount_configfs() {
	modprobe configfs 2>/dev/null || true
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || fail "mount configfs"
}

# journal_name DEV - the jbd2 journal name (j_devname) of a mounted device;
# DEV may be a node of another name (dmsetup without udev makes
# /dev/mapper/NAME a node, not a link): the kernel's name comes from sysfs
journal_name() {
	local base mm
	mm=$(stat -L -c '%t %T' "$1") || return 1
	base=$(basename "$(readlink -f "/sys/dev/block/$((16#${mm% *})):$((16#${mm#* }))")")
	ls /proc/fs/jbd2 | grep -E "^${base}-[0-9]+$" | head -n 1
}

# fresh_ext4 DEV MNT [mkfs options...] - mkfs.ext4 DEV, mount it on MNT and
# print its journal name; fails (non-zero, message on stderr) otherwise.
# Use as: j=$(fresh_ext4 /dev/vda /mnt/a -J size=4) || exit 1
fresh_ext4() {
	local dev=$1 mnt=$2 j
	shift 2
	mkfs_ext4 "$dev" "$@" >&2
	mkdir -p "$mnt"
	mount -t ext4 "$dev" "$mnt" || fail "mount $dev on $mnt"
	j=$(journal_name "$dev")
	[ -n "$j" ] || fail "no /proc/fs/jbd2 entry for $dev"
	echo "$j"
}

# field LINE KEY - the value of KEY in a key=value line
field() {
	local kv
	for kv in $1; do
		[ "${kv%%=*}" = "$2" ] && { echo "${kv#*=}"; return 0; }
	done
	return 1
}

# lag_probe_start - measure, until lag_probe_stop, how late this guest's
# tasks run: a task that sleeps 5 ms at a time records its largest
# overshoot.  Under TCG on a busy host (make check's lanes beside the system
# test) a vCPU can go unscheduled for hundreds of ms; an upper bound on a
# latency measured in the guest may add that lag, and no more.
lag_probe_start() {
	LAG_FILE=$(mktemp /tmp/lag.XXXXXX)
	python3 - "$LAG_FILE" <<'PY' &
import signal, sys, time
worst = 0.0
def done(*_):
    open(sys.argv[1], "w").write("%d\n" % int(worst * 1e6))
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
while True:
    t = time.monotonic(); time.sleep(0.005)
    worst = max(worst, time.monotonic() - t - 0.005)
PY
	LAG_PID=$!
}

# lag_probe_stop - stop the probe; prints the largest lag seen, us
lag_probe_stop() {
	kill -TERM "$LAG_PID" 2>/dev/null
	wait "$LAG_PID" 2>/dev/null
	cat "$LAG_FILE" 2>/dev/null || echo 0
	rm -f "$LAG_FILE"
}

# kmsg_host_noise - filter (stdin to stdout) out the kernel messages a
# starved TCG host provokes in any test, so that a test which asserts "no
# kernel message from X" sees only X's: an hrtimer or perf interrupt that
# ran long, a per-CPU work item that held its CPU past 10 ms (6.5 and
# later print "workqueue: F hogged CPU for >10000us N times, consider
# switching to WQ_UNBOUND"), the clocksource watchdog, RT throttling.
# What it leaves passes through unchanged.  Bad kernel states (WARNING,
# BUG, Oops, INFO: task, UBSAN) are not here: tests/vm/run fails on them.
kmsg_host_noise() {
	grep -v -e "hrtimer: interrupt took [0-9]* ns" \
		-e "perf: interrupt took too long" \
		-e "workqueue: .* hogged CPU for >[0-9]*us" \
		-e "clocksource: " -e "sched: RT throttling activated" \
		-e "hrtimer_interrupt: [0-9]* callbacks suppressed" || true
}
