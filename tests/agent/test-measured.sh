#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Measured relief against a fake configfs tree (issue 45): on a module that
# counts the shadow waits force copy spares (shadow_waits_avoided), a change
# whose spared waits cost more than the budget is kept after its first pair,
# with the spared time in the verdict and a re-check a minute later; a knob
# that spares nothing is never kept, however many shadow waits there are.
set -u
. "$(dirname "$0")/lib.sh"
S="measured"

test_dir measured
echo "# empty" > "$tmp/mountinfo"
export JBD2_TUNED_MOUNTINFO=$tmp/mountinfo JBD2_TUNED_SYS_DEV_BLOCK=$tmp/sysblock
fake_journal_measured "$cfs" vda-8
fake_journal_measured "$cfs" vdb-8
write_policy "$tmp/p.conf"
start_agent "$log" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none

# vda-8: 5 shadow waits of 32..64 ms per 100 ms while force copy is off, the
# same spared (counted avoided, 40 ms each) while it is on; commit waits
# alike.  vdb-8: the same shadow waits whatever the knob, none spared.
load() {
	local fc
	while :; do
		read -r fc < "$cfs/vda-8/force_copy"
		add_waits "$cfs/vda-8" commit 3 15
		if [ "$fc" = 1 ]; then
			add_avoided "$cfs/vda-8" 5 200000
		else
			add_waits "$cfs/vda-8" shadow 5 15
		fi
		add_waits "$cfs/vdb-8" commit 3 15
		add_waits "$cfs/vdb-8" shadow 5 15
		nap 0.1
	done
}
load &
FEED_PID=$!

re='vda-8: force_copy 0->1:? kept: trial of 0->1: keep after [0-9]+ blocks: shadow waits 0\.0 vs [0-9.]+ ms/s \(spared [0-9.]+ ms/s, [0-9]+ waits, measured\), .*; spared [0-9.]+ ms/s, measured; re-checked in 60 s$'
check "$S: the spared waits keep force copy (1-s blocks; after its first pair on a quiet host)" \
	wait_for 15 grep -Eq "$re" "$log"
grep -Em1 "vda-8: force_copy 0->1:? kept" "$log" | sed 's/^/# /'
check "$S: ... and it is on" file_is "$cfs/vda-8/force_copy" 1
check "$S: a trial of a measured knob says its first pair may decide (1..10 pairs)" \
	grep -q "vda-8: force_copy: trial of 0->1 starts: .* 1\.\.10 pairs$" "$log"
check "$S: a knob that spares nothing is not kept" eval '
	wait_for 30 grep -Eq "vdb-8: force_copy (1->0 reverted|0->1 not kept): trial of 0->1: no relief" "$log" &&
	! grep -Eq "vdb-8: force_copy 0->1:? kept" "$log"'
kill $FEED_PID; wait $FEED_PID 2>/dev/null; FEED_PID=
stop_agent TERM
check "$S: SIGTERM exits 0" [ "$AGENT_RC" = 0 ]
check "$S: the found value 0 is put back on exit" file_is "$cfs/vda-8/force_copy" 0
[ "$FAILED" = 0 ] || { echo "--- agent log"; cat "$log"; }
check_sanitizers "$tmp"
exit $FAILED
