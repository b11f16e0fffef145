#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Trials of jbd2-tuned against a fake configfs tree and a private
# dbus-daemon: a force_copy change that makes each commit wait 4x longer is
# suspected of harm in its first on-block and put back at once (the
# sequential harm test), the harm confirmed by the off block after it and
# logged with both sides' figures, announced on D-Bus and held back for a back-off that
# doubles on the next relapse; the reclaim watermark on trial stays in the
# range the kernel accepts; a module without commit statistics is said once.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bus-lib.sh"
# vda-8's first trial begins with its off block under this seed, so that
# the harmful on block is judged as it runs and reverted there (a trial
# that begins on runs that block whole: harm is judged against the trial's
# own off blocks, after the first of them; test-journal.sh takes that path)
export JBD2_TUNED_SEED=5
S="outcome"

test_dir outcome
echo "# empty" > "$tmp/mountinfo"
export JBD2_TUNED_MOUNTINFO=$tmp/mountinfo JBD2_TUNED_SYS_DEV_BLOCK=$tmp/sysblock

# vda-8: the field case; vdb-12: an older module; vdc-3: a journal whose
# kernel accepts watermarks of 30..45 % only
fake_journal "$cfs" vda-8
fake_journal_old "$cfs" vdb-12
fake_journal "$cfs" vdc-3
put "$cfs/vdc-3/reclaim_watermark_min_pct" 30
put "$cfs/vdc-3/reclaim_watermark_max_pct" 45
write_policy "$tmp/p.conf" "outcome_backoff_s = 3" \
	"[journal vdb-12]" "reclaim = auto" "[journal vdc-3]" "reclaim = auto"
sed -i "s|^\[agent\]|[agent]\nmetrics_file = $tmp/metrics.prom|" "$tmp/p.conf"

# The load: harmful_copy_load (lib.sh), its shadow waits once $tmp/stalls exists
start_watched_agent "$tmp/p.conf"
harmful_copy_load "$cfs/vda-8" "$tmp/stalls" &
FEED_PID=$!

# --- an older module: said once, reclaim in the policy's own range ----------
check "$S: a module without commit waits is said once" \
	wait_for 3 grep -q "outcome checks unavailable: the module reports no commit waits for vdb-12 (an older jbd2-tune module?); the agent's changes stand unchecked" "$log"
check "$S: ... OutcomeChecks is false there and true where commit waits are reported" eval '
	wait_for 2 prop_is $J/vdb_2d12 $JI OutcomeChecks "b false" &&
	prop_is $J/vda_2d8 $JI OutcomeChecks "b true"'
check "$S: ... and no reclaim limits: ReclaimWatermarkMinPct reads 0" \
	prop_is $J/vdb_2d12 $JI ReclaimWatermarkMinPct "u 0"
# reclaim auto leaves a journal with no foreground space wait alone
sleep 2
check "$S: reclaim auto stays off while no handle waits for log space" eval '
	file_is "$cfs/vdb-12/reclaim_watermark_pct" 0 && file_is "$cfs/vdc-3/reclaim_watermark_pct" 0 &&
	! grep -q "reclaim 0->" "$log"'
add_waits "$cfs/vdb-12" space 2 14
add_waits "$cfs/vdc-3" space 2 14
# a trial's blocks of reclaim are 3 s here (3 x trial_block_s): on in the
# first block or the second
check "$S: after space waits, without reported limits reclaim auto tries the policy's 50 %" \
	wait_for 8 file_is "$cfs/vdb-12/reclaim_watermark_pct" 50

# --- the reclaim watermark stays within what the kernel accepts -------------
check "$S: reclaim auto tries a value inside the kernel's 30..45 %: 45, not 50" \
	wait_for 8 file_is "$cfs/vdc-3/reclaim_watermark_pct" 45
check "$S: ... and says why" grep -q "vdc-3: reclaim: trial of 0->45 starts: space waits cost [0-9.]* ms/s over [0-9]* s > budget 10 ms/s (2 waits, p99 [0-9.]* ms); range 35..45 % (policy 35..70 % clamped into the kernel's 30..45 %)" "$log"
check "$S: ReclaimWatermarkMinPct and MaxPct show the kernel's limits" eval '
	prop_is $J/vdc_2d3 $JI ReclaimWatermarkMinPct "u 30" &&
	prop_is $J/vdc_2d3 $JI ReclaimWatermarkMaxPct "u 45"'

# --- force_copy on, commit waits 4x worse: reverted -------------------------
sleep 2.2			# a whole window of commit waits before the stalls
touch "$tmp/stalls"
check "$S: the stalls start a trial that turns force_copy on" wait_for 5 file_is "$cfs/vda-8/force_copy" 1
on_ns=$(date +%s%N)
check "$S: commit waits 4x worse: harm suspected in its first on-block (1 s) and a bit: force_copy back to 0" \
	wait_for 3 grep -Eq "vda-8: force_copy 1->0: trial of 0->1: harm suspected after [0-9]+ blocks: " "$log"
echo "# back to 0 $(( ($(date +%s%N) - on_ns) / 1000000 )) ms after force_copy read 1"
check "$S: ... and confirmed by the off block after it: the harm verdict" \
	wait_for 4 grep -q "vda-8: force_copy 0->1 not kept: trial of 0->1: harm after " "$log"
now_us=$(date +%s%6N)
retry=$(bc get-property org.jbd2tune1 $J/vda_2d8 $JI ForceCopyRetryUsec)
echo "# ForceCopyRetryUsec right after the verdict: $retry (now $now_us)"
line=$(grep -m1 "vda-8: force_copy 0->1 not kept: trial of 0->1: harm after " "$log")
echo "# $line"
# waits in [128, 256) ms on vs [32, 64) ms off; add_waits counts each wait
# at its bucket's lower bound, so the means are about 131 ms vs 33 ms (a
# wait or two of the other bucket may fall into either side)
re='vda-8: force_copy 0->1 not kept: trial of 0->1: harm after [0-9]+ blocks?: shadow waits [0-9.]+ vs [0-9.]+ ms/s, commit-wait mean 1[0-9][0-9]\.[0-9] vs [3-6][0-9]\.[0-9] ms \([0-9]+ vs [0-9]+ waits\), commits [0-9.]+ vs [0-9.]+ ms, on vs off over [0-9]+ vs [0-9]+ s; harm z [0-9.]+ > 3\.29; not tried again for 3 s$'
check "$S: the verdict is logged with both sides' figures" eval '[[ $line =~ $re ]]'
check "$S: ... and the knob is at 0" file_is "$cfs/vda-8/force_copy" 0
check "$S: ForceCopyRetryUsec says when it may be tried again (within 3 s)" eval '
	retry=${retry#t }; [ "$retry" -gt "$now_us" ] && [ "$retry" -le $((now_us + 3100000)) ]'
check "$S: LastDecision shows the suspicion's switch, LastOutcome the verdict" eval '
	bc get-property org.jbd2tune1 $J/vda_2d8 $JI LastDecision | grep -q "^s \"force_copy 1->0: trial of 0->1: harm suspected" &&
	bc get-property org.jbd2tune1 $J/vda_2d8 $JI LastOutcome | grep -q "^s \"force_copy 0->1 not kept: trial of 0->1: harm"'
check "$S: the stalls go on, but turning force_copy on is held back, said once" \
	wait_for 3 grep -q "vda-8: force_copy stays 0: turning it on failed its trial (harm); not tried again for another [0-9] s" "$log"

# --- after the back-off: tried again, reverted again, back-off doubled -------
check "$S: after the 3 s back-off force_copy is tried again" \
	wait_for 12 eval '[ "$(grep -c "vda-8: force_copy: trial of 0->1 starts: " "$log")" = 2 ]'
check "$S: ... reverted again, and the back-off doubles to 6 s" \
	wait_for 12 grep -Eq "vda-8: force_copy (1->0 reverted|0->1 not kept): .*; not tried again for 6 s$" "$log"
held_notes() { [ "$(grep -c "vda-8: force_copy stays 0: turning it on failed its trial" "$log")" = "$1" ]; }
check "$S: the hold-back is said once per back-off" eval 'wait_for 6 held_notes 2 && sleep 1 && held_notes 2'
retry=$(bc get-property org.jbd2tune1 $J/vda_2d8 $JI ForceCopyRetryUsec)
check "$S: the metrics file counts both reverts of force_copy, none of reclaim" eval '
	grep -q "^jbd2_tuned_reverts_total{journal=\"vda-8\",knob=\"force_copy\"} 2$" "$tmp/metrics.prom" &&
	grep -q "^jbd2_tuned_reverts_total{journal=\"vda-8\",knob=\"reclaim\"} 0$" "$tmp/metrics.prom"'
check "$S: ... and the retry time is ForceCopyRetryUsec, in seconds" eval '
	retry=${retry#t }
	grep -q "^jbd2_tuned_retry_after_timestamp_seconds{journal=\"vda-8\",knob=\"force_copy\"} $(((retry + 500000) / 1000000))$" "$tmp/metrics.prom"'
kill $FEED_PID; wait $FEED_PID 2>/dev/null; FEED_PID=
sleep 0.3
kill $MON_PID; wait $MON_PID 2>/dev/null; MON_PID=
check "$S: the suspicion's switch is a Decision signal with its figures" eval '
	grep -A8 "Member=Decision" "$tmp/monitor" | grep -q "STRING \"trial of 0->1: harm suspected after [0-9]* blocks: .* commit-wait mean .*; an off block (1 s) confirms it or clears it\";"'
check "$S: ... and LastOutcome and ForceCopyRetryUsec are announced" eval '
	grep -A20 "Path=$J/vda_2d8 .*PropertiesChanged" "$tmp/monitor" | grep -q "STRING \"LastOutcome\";" &&
	grep -A20 "Path=$J/vda_2d8 .*PropertiesChanged" "$tmp/monitor" | grep -q "STRING \"ForceCopyRetryUsec\";"'
check "$S: the unavailable outcome checks were said once in all" \
	[ "$(grep -c "outcome checks unavailable" "$log")" = 1 ]
stop_agent TERM
check "$S: SIGTERM exits 0" [ "$AGENT_RC" = 0 ]
[ "$FAILED" = 0 ] || { echo "--- agent log"; cat "$log"; }
check_sanitizers "$tmp"
exit $FAILED
