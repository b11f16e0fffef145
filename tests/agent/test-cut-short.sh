#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Trials cut short, against a fake configfs tree and a private dbus-daemon
# (issue 45): a force_copy trial in its on block puts back the value it
# found when a statistics file becomes unreadable, when one goes missing
# while the group stays (no "journal gone", no new found value), and on
# SetMode(auto); each is logged as cut short, with the reason.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bus-lib.sh"
S="cut-short"

test_dir cut-short
echo "# empty" > "$tmp/mountinfo"
export JBD2_TUNED_MOUNTINFO=$tmp/mountinfo JBD2_TUNED_SYS_DEV_BLOCK=$tmp/sysblock
fake_journal "$cfs" vda-8
# blocks of 3 s: time to act inside an on block
write_policy "$tmp/p.conf" "trial_block_s = 3" "trial_max_pairs = 100"
start_watched_agent "$tmp/p.conf"

# a load force copy helps: shadow waits only while it is off, commit waits alike
helpful_load() {
	local d=$1 fc
	while :; do
		read -r fc < "$d/force_copy"
		add_waits "$d" commit 3 15
		[ "$fc" = 1 ] || add_waits "$d" shadow 5 15
		nap 0.1
	done
}
helpful_load "$cfs/vda-8" &
FEED_PID=$!
cut_line() { grep -c "vda-8: force_copy 1->0: trial of 0->1 cut short ($1): back to the value before it" "$log"; }

# --- an unreadable statistics file ---------------------------------------
check "$S: the shadow waits start a trial: force_copy 1 in an on block" \
	wait_for 20 file_is "$cfs/vda-8/force_copy" 1
rm -f "$cfs/vda-8/space_waits" && mkdir "$cfs/vda-8/space_waits"	# read: EISDIR
check "$S: space_waits unreadable: force_copy back to 0 at once" \
	wait_for 2 file_is "$cfs/vda-8/force_copy" 0
check "$S: ... logged as cut short, with the reason" eval '[ "$(cut_line "its statistics cannot be read")" = 1 ]'
ons=$(grep -c "vda-8: force_copy 0->1: " "$log")
check "$S: ... and nothing is written while the file stays unreadable" eval '
	sleep 1; file_is "$cfs/vda-8/force_copy" 0 && [ "$(grep -c "vda-8: force_copy 0->1: " "$log")" = "$ons" ]'
rmdir "$cfs/vda-8/space_waits" && echo 0 > "$cfs/vda-8/space_waits"

# --- a statistics file missing from a group still there -------------------
check "$S: readable again: a new trial, force_copy 1 in an on block" \
	wait_for 20 file_is "$cfs/vda-8/force_copy" 1
rm -f "$cfs/vda-8/space_waits"
check "$S: space_waits missing: force_copy back to 0" wait_for 2 file_is "$cfs/vda-8/force_copy" 0
check "$S: ... as cut short, and the journal is not taken for gone" eval '
	[ "$(cut_line "its statistics cannot be read")" = 2 ] && ! grep -q "vda-8: journal gone" "$log"'
echo 0 > "$cfs/vda-8/space_waits"

# --- SetMode(auto) in an on block -----------------------------------------
check "$S: a third trial: force_copy 1 in an on block" wait_for 20 file_is "$cfs/vda-8/force_copy" 1
bc call org.jbd2tune1 $M $MI SetMode sss vda-8 force_copy auto > /dev/null
check "$S: SetMode(auto) in the on block: force_copy back to 0" \
	wait_for 2 file_is "$cfs/vda-8/force_copy" 0
check "$S: ... logged as cut short" eval '[ "$(cut_line "its mode or policy was set again")" = 1 ]'

kill $FEED_PID; wait $FEED_PID 2>/dev/null; FEED_PID=
kill $MON_PID; wait $MON_PID 2>/dev/null; MON_PID=
stop_agent TERM
check "$S: SIGTERM exits 0" [ "$AGENT_RC" = 0 ]
check "$S: the found value 0 stays in force after exit" file_is "$cfs/vda-8/force_copy" 0
[ "$FAILED" = 0 ] || { echo "--- agent log"; cat "$log"; }
check_sanitizers "$tmp"
exit $FAILED
