#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Journal-size advice of jbd2-tuned against a fake configfs tree and a
# private dbus-daemon.  Both journals get a space wait and 20 logged blocks
# every 200 ms, whatever the watermark.  vda-8 (1024 blocks, threshold 256,
# mounted on a real directory so that statvfs answers) has reclaim auto,
# whose trials step the watermark up to the top (70 %) without removing a
# wait; after advice_windows = 3 windows of 2 s with that known the agent
# logs the advice once, shows it as the Advice property and sends the
# Advice signal.  vdb-12 has reclaim off: the same
# waits, no advice.  A reload with advice_windows = 0 withdraws the advice.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bus-lib.sh"
S="advice"

test_dir advice

# vda-8 is the journal of the ext4 "mounted" on $tmp/mnt
mkdir -p "$tmp/sysblock" "$tmp/mnt"
ln -s ../devices/virtual/block/vda "$tmp/sysblock/254:0"
echo "30 22 254:0 / $tmp/mnt rw - ext4 /dev/vda rw" > "$tmp/mountinfo"
export JBD2_TUNED_MOUNTINFO=$tmp/mountinfo JBD2_TUNED_SYS_DEV_BLOCK=$tmp/sysblock

fake_journal "$cfs" vda-8
fake_journal "$cfs" vdb-12
for j in vda-8 vdb-12; do
	put "$cfs/$j/log_blocks" 1024
	put "$cfs/$j/free_blocks" 200
	put "$cfs/$j/max_transaction_blocks" 256
done
write_policy "$tmp/p.conf" "advice_windows = 3" "[journal vda-8]" "reclaim = auto" \
	"reclaim_watermark_pct = 60" "reclaim_min_pct = 60" "trial_min_pairs = 2"
sed -i "s|^\[agent\]|[agent]\nmetrics_file = $tmp/metrics.prom|" "$tmp/p.conf"

# The size the advice must name: the busiest window logs about 200 blocks,
# needing 200 x 1024 / 768 = 267, less than twice the journal (2048 blocks),
# so 2048 blocks of the directory's file system, rounded up to a power of
# two of MiB.
bs=$(stat -f -c %S "$tmp/mnt")
mib=1
while (( mib * 1048576 < 2048 * bs )); do mib=$((mib * 2)); done
echo "# block size of $tmp/mnt: $bs; expected advice: $mib MiB"

feed() {
	while :; do
		for j in vda-8 vdb-12; do
			add_waits "$cfs/$j" space 1 14
			add_commits "$cfs/$j" 1 20
		done
		nap 0.2
	done
}

start_watched_agent "$tmp/p.conf"
sleep 0.5
check "$S: Advice is empty before any" prop_is $J/vda_2d8 $JI Advice 's ""'
feed &
FEED_PID=$!

# trial blocks of reclaim are 3 s here, and a trial without relief stops
# after its 2 pairs: 12 s a step, three steps (60, 65, 70)
check "$S: the waits make trials step vda-8's watermark up to the top of auto's range (70)" \
	wait_for 80 grep -Eq "vda-8: reclaim (70->0 reverted|0->70 not kept): trial of 0->70: no relief" "$log"
check "$S: the advice appears within 5 windows after the top failed its trial" \
	wait_for 10 grep -q "vda-8: space waits persist" "$log"
sleep 4.5		# two more windows: said once
re="^s \"space waits persist, and a trial of the reclaim watermark at its maximum \(70 %\) did not remove them: [0-9]+ waits in [0-9]+ s, p99 [0-9.]+ ms; the busiest 2 s logged [0-9]+ blocks, and this 1024-block journal has 768 above its foreground threshold; a journal of $mib MiB would hold them: unmount $tmp/mnt, then e2fsck -f /dev/vda && tune2fs -O \^has_journal /dev/vda && tune2fs -J size=$mib /dev/vda, and mount it again\"$"
adv=$(bc get-property org.jbd2tune1 $J/vda_2d8 $JI Advice)
echo "# Advice: $adv"
check "$S: Advice names the journal size and the commands" eval '[[ $adv =~ $re ]]'
check "$S: ... logged once" eval '[ "$(grep -c "vda-8: space waits persist" "$log")" = 1 ]'
check "$S: ... the same text in the log" \
	eval 'grep -qF "vda-8: ${adv:3:${#adv}-4}" "$log"'
check "$S: the metrics file has the advised size" \
	grep -q "^jbd2_tuned_advised_journal_bytes{journal=\"vda-8\"} $((mib * 1048576))$" "$tmp/metrics.prom"
check "$S: no advice without the watermark at the top (reclaim off)" eval '
	prop_is $J/vdb_2d12 $JI Advice "s \"\"" && ! grep -q "vdb-12: space waits persist" "$log" &&
	grep -q "^jbd2_tuned_advised_journal_bytes{journal=\"vdb-12\"} 0$" "$tmp/metrics.prom"'

sed -i 's/^advice_windows = 3/advice_windows = 0/' "$tmp/p.conf"
timeout 10 dbus-send --bus="$BUS_ADDR" --print-reply --dest=org.jbd2tune1 $M $MI.Reload > /dev/null
wait_for 3 eval 'prop_is $J/vda_2d8 $JI Advice "s \"\"" > /dev/null'
check "$S: advice_windows = 0 withdraws it" prop_is $J/vda_2d8 $JI Advice 's ""'
check "$S: ... logged once" eval '
	[ "$(grep -c "vda-8: journal-size advice withdrawn: advice_windows = 0 in the policy" "$log")" = 1 ]'
sleep 0.3
kill $MON_PID; wait $MON_PID 2>/dev/null; MON_PID=
check "$S: the Advice signal carried the advice, then the withdrawal" eval '
	grep -A4 "Member=Advice" "$tmp/monitor" | grep "STRING" > "$tmp/sig" &&
	[ "$(grep -c "STRING \"vda-8\";" "$tmp/sig")" = 2 ] &&
	grep -q "STRING \"space waits persist, and a trial of the reclaim watermark at its maximum" "$tmp/sig" &&
	grep -q "STRING \"\";" "$tmp/sig" && ! grep -q "vdb-12" "$tmp/sig"'
check "$S: PropertiesChanged announces Advice" eval '
	grep -A12 "Path=$J/vda_2d8 .*Member=PropertiesChanged" "$tmp/monitor" | grep -q "STRING \"Advice\";"'
[ "$FAILED" = 0 ] || { echo "--- agent log"; cat "$log"; }
stop_agent TERM
check "$S: SIGTERM exits 0" [ "$AGENT_RC" = 0 ]
check_sanitizers "$tmp"
exit $FAILED
