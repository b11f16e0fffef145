#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What jbd2-tuned learns survives it (cases R1, R2 of
# ../shared/cases/decision-sequences/), against a fake configfs tree, no bus:
#   vda-8: force_copy makes every commit wait 4x longer; its trial is
#          reverted for harm with a back-off of 3600 s; a restart keeps the
#          back-off (no new trial although the stalls go on);
#   vdb-12: force_copy removes the stalls at no cost: kept; SIGKILL, then a
#          new agent keeps it as a kept change with the value found before
#          any agent (0), and its clean stop puts that 0 back;
#   vdc-3: SIGKILL in the middle of a trial's on-block: the new agent puts
#          back the value the trial started from;
#   Reload: a take-over stays when the journal's policy did not change, and
#          is forgotten when it did;
#   vde-7: udev records the new file system's UUID only after the agent
#          found the journal: the state file carries the UUID of the save,
#          and the agent after a SIGKILL still uses it.
set -u
. "$(dirname "$0")/lib.sh"
S="persist"

test_dir persist
echo "# empty" > "$tmp/mountinfo"
export JBD2_TUNED_MOUNTINFO=$tmp/mountinfo JBD2_TUNED_SYS_DEV_BLOCK=$tmp/sysblock
# the identity's device number and UUID (none for the journals but vde-7's)
export JBD2_TUNED_SYS_CLASS_BLOCK=$tmp/sysclass JBD2_TUNED_UDEV_DATA=$tmp/udev
mkdir -p "$tmp/sysclass" "$tmp/udev"
state=$tmp/state
export JBD2_TUNED_STATE_DIR=$state

fake_journal "$cfs" vda-8
fake_journal "$cfs" vdb-12
# blocks of 3 s: the feed below lags behind a switch by up to a second when
# the machine is busy (the ASan build, a VM beside us)
write_policy "$tmp/p.conf" "outcome_backoff_s = 3600" "trial_block_s = 3" \
	"[journal vdb-12]" "recheck_s = 3600"

# The load, one writer for all files: 3 commit waits every 100 ms, [32, 64)
# ms each, on vda-8 [128, 256) ms while its force_copy is 1; 5 shadow waits
# of [32, 64) ms every 100 ms on each journal whose force_copy is 0.
feed() {
	local j fc
	while :; do
		for j in "$@"; do
			[ -d "$cfs/$j" ] || continue
			read -r fc < "$cfs/$j/force_copy"
			if [ "$fc" = 1 ]; then
				if [ "$j" = vda-8 ]; then add_waits "$cfs/$j" commit 3 17; else add_waits "$cfs/$j" commit 3 15; fi
			else
				add_waits "$cfs/$j" commit 3 15
				add_waits "$cfs/$j" shadow 5 15
			fi
			add_commits "$cfs/$j" 3 10
		done
		nap 0.1
	done
}
feed vda-8 vdb-12 &
FEED_PID=$!

start_agent "$log" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none

# --- R1: a back-off survives a restart -----------------------------------------
# (harm shows in an on-block, or at the end of a pair)
check "$S: vda-8's trial is reverted for harm, back-off 3600 s" \
	wait_for 30 grep -Eq "vda-8: force_copy (1->0 reverted|0->1 not kept): trial of 0->1: harm .*not tried again for 3600 s" "$log"
check "$S: vdb-12's trial keeps force_copy" \
	wait_for 60 grep -Eq "vdb-12: force_copy 0->1(: kept: | kept: )trial of 0->1: keep after" "$log"
wait_for 3 file_is "$cfs/vdb-12/force_copy" 1
check "$S: the state files exist" eval '[ -s "$state/vda-8.state" ] && [ -s "$state/vdb-12.state" ]'
check "$S: ... and hold the back-off as a wall-clock deadline about an hour away" eval '
	until=$(sed -n "s/^force_copy.blocked_until_realtime_us //p" "$state/vda-8.state")
	now=$(date +%s%6N); [ "$until" -gt $((now + 3500000000)) ] && [ "$until" -le $((now + 3600000000)) ]'
stop_agent TERM
check "$S: SIGTERM restores vdb-12's kept force_copy to the value found" file_is "$cfs/vdb-12/force_copy" 0

start_agent "$log.2" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: after a restart vda-8's back-off is restored" \
	wait_for 3 grep -q "vda-8: force_copy: restored what was learned (saved [0-9]* s ago): found 0, held back for a while" "$log.2"
check "$S: ... the stalls go on, and force_copy stays 0 for the rest of the back-off, said once" \
	wait_for 3 grep -q "vda-8: force_copy stays 0: turning it on failed its trial (harm); not tried again for another 3[0-9][0-9][0-9] s" "$log.2"
sleep 2
check "$S: ... no trial of vda-8 was started" eval '
	! grep -q "vda-8: force_copy: trial of 0->1 starts" "$log.2" && file_is "$cfs/vda-8/force_copy" 0'
# vdb-12's kept change was restored to 0 on exit: the new agent applies it again
check "$S: vdb-12's kept change is applied again after the restart" \
	wait_for 3 file_is "$cfs/vdb-12/force_copy" 1

# --- R2: SIGKILL, then the value found before any agent -------------------------
stop_agent KILL
check "$S: after SIGKILL vdb-12 reads 1 (the kept change)" file_is "$cfs/vdb-12/force_copy" 1
start_agent "$log.3" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: the new agent takes 0 as found, not the 1 it reads" \
	wait_for 3 grep -q "vdb-12: force_copy: restored what was learned (saved [0-9]* s ago): found 0, a kept change" "$log.3"
sleep 1
check "$S: ... with no administrator's write seen" eval '! grep -q "written by someone else" "$log.3"'
stop_agent TERM
check "$S: ... and its clean stop puts 0 back" file_is "$cfs/vdb-12/force_copy" 0

# --- SIGKILL in the middle of a trial ---------------------------------------
kill $FEED_PID; wait $FEED_PID 2>/dev/null
fake_journal "$cfs" vdc-3
feed vdc-3 &
FEED_PID=$!
start_agent "$log.4" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
wait_for 10 file_is "$cfs/vdc-3/force_copy" 1
stop_agent KILL
check "$S: SIGKILL during vdc-3's on-block leaves force_copy 1" file_is "$cfs/vdc-3/force_copy" 1
# The load stops first: with its shadow waits going on, the new agent may
# rightly start a fresh trial one interval (100 ms) after putting 0 back,
# and a busy host's poll could miss so short a 0 (make check, 2026-12-06).
kill $FEED_PID; wait $FEED_PID 2>/dev/null; FEED_PID=
start_agent "$log.5" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: the new agent puts back the value the trial started from" \
	wait_for 3 grep -q "vdc-3: force_copy 1->0: trial of 0->1 cut short (the agent was restarted): back to the value before it" "$log.5"
check "$S: ... force_copy reads 0" wait_for 2 file_is "$cfs/vdc-3/force_copy" 0

# --- Reload keeps what the changed policy does not invalidate ----------------
# (the new agent applied vdb-12's kept 1 again)
wait_for 3 file_is "$cfs/vdb-12/force_copy" 1
put "$cfs/vdb-12/force_copy" 0
put "$cfs/vda-8/force_copy" 1
check "$S: administrators take vda-8 and vdb-12 over" wait_for 3 eval '
	grep -q "vda-8: force_copy 1: written by someone else" "$log.5" &&
	grep -q "vdb-12: force_copy 0: written by someone else" "$log.5"'
printf 'force_copy_hold_s = 100\n' >> "$tmp/p.conf"		# [journal vdb-12] only
kill -HUP "$AGENT_PID"
check "$S: a reload that changes vdb-12's policy forgets its take-over" \
	wait_for 3 grep -q "vdb-12: its policy changed: overrides, take-overs, back-offs and kept changes forgotten" "$log.5"
check "$S: ... and keeps vda-8's" eval '! grep -q "vda-8: its policy changed" "$log.5"'
stop_agent TERM
check "$S: on stop vda-8 (still the administrator's) keeps 1" file_is "$cfs/vda-8/force_copy" 1
check "$S: the take-over is in the state file" grep -qx "force_copy.managed 0" "$state/vda-8.state"

# --- udev learns the UUID after the journal is found -----------------------------
# (mkfs, then mount at once: udev's record of the device still holds the
# file system before, until its change event is handled)
fake_journal "$cfs" vde-7
mkdir -p "$tmp/sysclass/vde"
echo 254:64 > "$tmp/sysclass/vde/dev"
printf 'E:ID_FS_TYPE=ext4\nE:ID_FS_UUID=0ld-0000\n' > "$tmp/udev/b254:64"
start_agent "$log.7" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
wait_for 5 grep -q "vde-7: journal found" "$log.7"
printf 'E:ID_FS_TYPE=ext4\nE:ID_FS_UUID=new-1111\n' > "$tmp/udev/b254:64"
# the stalls only now: with them from the start the first sample began
# the trial (and saved) before udev's record changed (seen in make check)
feed vde-7 &
FEED_PID=$!
check "$S: vde-7's trial starts (the state is saved) after udev has the new UUID" \
	wait_for 10 file_is "$cfs/vde-7/force_copy" 1
check "$S: ... the state file names the new UUID" grep -qx "identity vde-7 254:64 new-1111" "$state/vde-7.state"
stop_agent KILL
start_agent "$log.8" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: ... the agent after SIGKILL uses it: the cut-short trial goes back to 0" \
	wait_for 3 grep -q "vde-7: force_copy 1->0: trial of 0->1 cut short (the agent was restarted): back to the value before it" "$log.8"
check "$S: ... and does not call it another file system's" eval '! grep -q "vde-7: the state file is of another" "$log.8"'
stop_agent TERM
kill $FEED_PID; wait $FEED_PID 2>/dev/null; FEED_PID=

# --- bad state files -----------------------------------------------------------
printf 'jbd2-tuned-state 1\nidentity %s\nforce_copy.found x\n' "$(sed -n 's/^identity //p' "$state/vda-8.state")" > "$state/vda-8.state"
printf 'jbd2-tuned-state 1\nidentity vdb-12 9:9 another\nforce_copy.seen 1\n' > "$state/vdb-12.state"
start_agent "$log.6" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: a malformed state file is said, with its line, and not used" \
	wait_for 3 grep -q "vda-8: state file $state/vda-8.state unusable (Invalid argument at line 3), starting afresh" "$log.6"
check "$S: a state file of another file system is not used" \
	wait_for 3 grep -q "vdb-12: the state file is of another file system (vdb-12 9:9 another, now vdb-12 " "$log.6"
stop_agent TERM
check "$S: SIGTERM exits 0" [ "$AGENT_RC" = 0 ]
[ "$FAILED" = 0 ] || { for f in "$log" "$log".[0-9]; do echo "--- $f"; cat "$f"; done; }
check_sanitizers "$tmp"
exit $FAILED
