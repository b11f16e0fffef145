#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# jbd2-tuned acts on netlink events, not only on its periodic sample.  With
# interval_ms = 60000 the agent samples every journal at start and then
# once a minute, so whatever it does within the test's first minute came
# from an event:
#  - JOURNAL_ADD: a file system mounted after the agent started is logged
#    as found within seconds;
#  - STALL: shadow waits on a dm-delay device (writes take 20 ms) start a
#    trial of force_copy, whose blocks (1 s here) advance at the samples
#    the STALL events cause: force_copy is written on (read back from
#    configfs at the first on-block), and the log says the write followed
#    the kernel's STALL event (and how long after it);
#  - JOURNAL_REMOVE: after umount the journal is logged as gone;
#  - SIGTERM restores force_copy to 0.
# vm-disk: 128M
# vm-disk: 64M
# vm-timeout: 300
source "$PROJECT/tests/vm/lib.sh"

AGENT=$PROJECT/agent/build/jbd2-tuned
[ -x "$AGENT" ] || fail "$AGENT not built (make agent)"
load_ext4
mount_configfs
modprobe dm-delay || fail "modprobe dm-delay"
CFS=/sys/kernel/config/jbd2
LOG=$OUT/agent.log

cat > /tmp/policy.conf <<'EOF'
[agent]
interval_ms = 60000
window_s = 60
[defaults]
force_copy = auto
stall_wait_min_ms = 1
stall_budget_ms_per_s = 1
trial_block_s = 1
reclaim = off
EOF

mkfs_ext4 /dev/vda -J size=16
# the second disk is mounted before the agent starts: found by the first sample
jb=$(fresh_ext4 /dev/vdb /mnt/b -J size=4) || exit 1
t0=$SECONDS
"$AGENT" --config /tmp/policy.conf --bus none --verbose > "$LOG" 2>&1 &
AGENT_PID=$!
trap 'kill $AGENT_PID 2>/dev/null' EXIT

# wait_log PATTERN SECONDS - until the agent's log has a line matching PATTERN
wait_log() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		grep -qE "$1" "$LOG" && return 0
		sleep 0.1
	done
	cat "$LOG"
	fail "no log line matching '$1' within $2 s"
}
wait_log "$jb: journal found" 20
grep -q 'netlink family jbd2tune not found' "$LOG" && fail "the agent did not find the netlink family"

# JOURNAL_ADD
sectors=$(blockdev --getsz /dev/vda)
run_ok dmsetup dmsetup create evslow --table "0 $sectors delay /dev/vda 0 0 /dev/vda 0 20"
mkdir -p /mnt/a
run_ok mount mount -t ext4 /dev/mapper/evslow /mnt/a
ja=$(journal_name /dev/mapper/evslow)
[ -n "$ja" ] || fail "no journal for the dm-delay device"
wait_log "$ja: journal found" 10
echo "ok: $ja found after mount (JOURNAL_ADD)"
assert_eq "force_copy of $ja before the stall" 0 "$(cat "$CFS/$ja/force_copy")"

# STALL: force_copy is read back as 1 during the trial's first on-block
# (the first or the second block of the first pair, a second or two in)
python3 "$PROJECT/tests/vm/shadow-stall.py" /mnt/a 8 &
stall_pid=$!
on=
for i in $(seq 1 120); do
	[ "$(cat "$CFS/$ja/force_copy")" = 1 ] && { on=1; break; }
	sleep 0.1
done
wait "$stall_pid" || fail "shadow-stall.py"
assert_eq "force_copy of $ja read back during the stall's trial" 1 "$on"
assert_eq "force_copy of the quiet $jb" 0 "$(cat "$CFS/$jb/force_copy")"
grep -E "$ja: force_copy: trial of 0->1 starts: shadow waits over the minimum cost [0-9.]+ ms/s" "$LOG" ||
	{ cat "$LOG"; fail "no logged force_copy trial with its reason"; }
line=$(grep -E "$ja: force_copy written [0-9.]+ ms after the kernel's STALL event" "$LOG") ||
	{ cat "$LOG"; fail "the force_copy write did not follow a STALL event"; }
echo "ok: $line"

# JOURNAL_REMOVE
run_ok umount umount /mnt/b
wait_log "$jb: journal gone" 10
echo "ok: $jb gone after umount (JOURNAL_REMOVE)"
assert_cmp "seconds since the agent's first sample (all of it before the next one)" \
	$((SECONDS - t0)) -lt 55

# SIGTERM: force_copy goes back to the 0 the agent found
kill -TERM "$AGENT_PID"
wait "$AGENT_PID"; rc=$?
trap - EXIT
assert_eq "agent exit status" 0 "$rc"
assert_eq "force_copy of $ja after the agent exited" 0 "$(cat "$CFS/$ja/force_copy")"
run_ok umount umount /mnt/a
run_ok dmsetup dmsetup remove evslow
fsck_clean /dev/vda
fsck_clean /dev/vdb
