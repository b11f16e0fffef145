#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# [agent] dry_run: the policy's off switch.  On from the start the agent
# decides and logs and writes nothing; a reload that turns it off lets it
# write; a reload that turns it on again puts back what it wrote.  Fake
# configfs tree, no bus.
set -u
. "$(dirname "$0")/lib.sh"
S="dry-run"

test_dir dryrun
fake_journal "$cfs" vda-8
write_policy "$tmp/p.conf"
sed -i 's/^\[agent\]/[agent]\ndry_run = true/' "$tmp/p.conf"
start_agent "$log" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: the start-up line says dry-run" wait_for 3 grep -q "started in dry-run mode" "$log"
check "$S: the agent says at start that jbd2-tune's module is loaded" \
	grep -q "jbd2-tune's jbd2 module is loaded ($cfs)" "$log"

add_waits "$cfs/vda-8" shadow 20 15		# 20 waits of 32..65 ms
check "$S: dry_run = true: the decision is logged, not written" \
	wait_for 3 grep -q "vda-8: force_copy 0->1: .*(dry-run, not written)" "$log"
check "$S: dry_run = true: force_copy stays 0" file_is "$cfs/vda-8/force_copy" 0

# off by reload: the agent starts from the knob as it is (0) and writes
sed -i 's/^dry_run = true/dry_run = false/' "$tmp/p.conf"
kill -HUP "$AGENT_PID"
check "$S: dry_run = false by reload is said" wait_for 3 grep -q "dry_run = false: writing knobs again" "$log"
sleep 0.3
add_waits "$cfs/vda-8" shadow 20 15
check "$S: after dry_run = false the agent writes force_copy" wait_for 3 file_is "$cfs/vda-8/force_copy" 1
check "$S: ... and still manages it (no take-over)" eval '! grep -q "written by someone else" "$log"'

# on again by reload: the knob it wrote goes back to what it found
sed -i 's/^dry_run = false/dry_run = true/' "$tmp/p.conf"
kill -HUP "$AGENT_PID"
check "$S: dry_run = true by reload puts force_copy back to 0" wait_for 3 file_is "$cfs/vda-8/force_copy" 0
check "$S: ... says so" grep -q "vda-8: force_copy 1->0: restored$" "$log"
check "$S: ... and then writes nothing" eval 'sleep 0.5; file_is "$cfs/vda-8/force_copy" 0'

# a bad value is refused like any other; the running policy stays
sed -i 's/^dry_run = true/dry_run = maybe/' "$tmp/p.conf"
kill -HUP "$AGENT_PID"
check "$S: dry_run = maybe is refused with file:line: key" \
	wait_for 3 grep -q "p.conf:2: dry_run: 'maybe' is not a boolean" "$log"
stop_agent TERM
check "$S: SIGTERM exits 0" [ "$AGENT_RC" = 0 ]
check "$S: in dry-run nothing is restored on exit" eval '! grep -q "restored on exit" "$log"'
check_sanitizers "$tmp"
exit $FAILED
