#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# jbd2-tuned on the real module under a stalling load (the demo's scenario,
# shortened): phase 1 with the agent in dry-run, phase 2 in auto.  Asserts
# that the agent, not the script, starts a trial of force_copy once the
# load's shadow waits cost more than the stall budget, keeps it after its
# trial, and logs why (how long it took is printed, not asserted); that
# busctl reads ForceCopy true, that the Decision signal was emitted, that
# the writer's stall time (its time in writes beyond 100 ms) is lower in
# phase 2 than in phase 1 (not on a debug kernel, where the writer is
# CPU-bound), and that e2fsck -fn is clean.
# vm-disk: 400M,throttling.bps-write=6291456
# vm-disk: 400M,throttling.bps-write=6291456
# vm-timeout: 1080
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/bench/demo-scenario.sh"

# Shorter than the shipped policy so the test fits make check: a 10 s
# window (the load gives ~4 shadow waits of 0.1-3 s per 10 s: tens to
# hundreds of ms/s, far over the 10 ms/s budget); trials as shipped (5 s
# blocks, 3..10 pairs).
WINDOW_S=10
TRIAL_BLOCK_S=5
DEMO_PHASE_S=30
DEMO_DROPIN="[agent]
window_s = $WINDOW_S
[defaults]
trial_block_s = $TRIAL_BLOCK_S"
echo "test policy drop-in:"; echo "$DEMO_DROPIN" | sed 's/^/    /'
demo_setup
rm -f "$OUT/table" "$OUT/agent.log"
# unmeasured full load before each phase's measurement; in phase 2 the
# agent must have acted within 3 windows of the first shadow wait by then
WARMUP_S=60
# in phase 2 the trial must have ended by the measurement: it starts 20-30 s
# into the load; its blocks stretch to twice the shadow waits' p99 and three
# commits, also during the trial (under TCG here: commits of 1.5-3 s,
# shadow waits of seconds: 10-20 s blocks, as long again to settle), and a
# keep needs at least 3 pairs, at most 10.  The warm-up ends at the
# trial's verdict (at least WARMUP_S, as phase 1's; at most
# WARMUP_AUTO_MAX_S: 10 pairs of 20-s blocks with their settling).
WARMUP_AUTO_MAX_S=600

demo_fs_start /dev/vda
demo_agent_start --dry-run
demo_background_start
demo_warmup "$WARMUP_S"
demo_phase dry-run
assert_eq "force_copy after the dry-run phase" 0 "$(cat "$DEMO_CFS/force_copy")"
demo_background_stop
demo_agent_stop
demo_fs_stop /dev/vda
grep -q "force_copy 0->1" "$OUT/agent.log" ||
	echo "note: the dry-run agent logged no force_copy decision"

busctl --system monitor --match \
	"type='signal',sender='org.jbd2tune1',interface='org.jbd2tune1.Manager',member='Decision'" \
	> "$OUT/decision-signals.txt" 2>&1 &
DEMO_MON_PID=$!
demo_fs_start /dev/vdb
demo_agent_start
demo_watch_start
demo_background_start
VERDICT_RE="$DEMO_J: force_copy .*trial of 0->1: [a-z ]+ after"
warm=$(demo_warmup_until "$WARMUP_S" "$WARMUP_AUTO_MAX_S" "$OUT/agent.log" "$VERDICT_RE") || exit 1
log "phase 2 warm-up: $warm s (until the trial's verdict)"
first=$(demo_watch first_wait_ms)
on=$(demo_watch force_copy_on_ms)
[ -n "$first" ] || fail "no shadow wait during the ${warm}s warm-up: the load did not stall"
[ -n "$on" ] ||
	{ cat "$OUT/agent.log"; fail "the agent did not turn force_copy on (first shadow wait at ${first} ms)"; }
# The agent's trigger: shadow waits (those of 10 ms or more) costing
# 10 ms/s over the window, 100 ms in 10 s; one wait of a second meets it
# (6.12: "78.8 ms/s over 11 s ... (1 waits, p99 837.4 ms)").  When the
# load first met that is read off the watcher's shadow_wait_us series
# (every wait counted, so never later than the agent's own sum; over the
# window and 2 s more, as the agent's window can be a sample or two
# longer), and how long the agent then took is printed, not asserted: the
# trial's first block is off half the time and its blocks stretch with the
# load's waits, and a starved host (make check's lanes beside the system
# test) adds seconds; a bound would be a timed assertion (the reaction,
# sample by sample, is asserted in the agent's unit tests, test-policy).
met=$(demo_watch_sustained $((WINDOW_S * 1000 + 2000)) $((WINDOW_S * 10000)))
[ -n "$met" ] || { cat "$OUT/agent.log"; fail "$((WINDOW_S * 10)) ms of shadow waits within $((WINDOW_S + 2)) s never seen, yet force_copy went on at ${on} ms"; }
log "first shadow wait at ${first} ms, $((WINDOW_S * 10)) ms of them within $((WINDOW_S + 2)) s by ${met} ms, force_copy on at ${on} ms ($((on - met)) ms later)"
grep -q "$DEMO_J: force_copy: trial of 0->1 starts: " "$OUT/agent.log" ||
	{ cat "$OUT/agent.log"; fail "no trial of force_copy logged"; }
# the watcher samples every 0.5 s (slower on a busy host): the first wait
# and force_copy=1 can fall in one sample, never in the wrong order
assert_cmp "ms from the first shadow wait to force_copy=1" $((on - first)) -ge 0
grep "$DEMO_J: force_copy 0->1" "$OUT/agent.log" | grep -v dry-run
demo_phase auto
# what force copy-out did in the kernel (a trial that sees shadow waits in
# its on-blocks: were copies capped or stopped?)
for f in force_copy copyouts_forced copyouts_forced_failed copyouts_forced_capped force_copy_stops \
	force_copy_bytes_peak force_copy_max_kib shadow_waits shadow_wait_max_us; do
	[ -e "$DEMO_CFS/$f" ] && echo "kernel: $f $(cat "$DEMO_CFS/$f")"
done
fc=$(busctl --system get-property org.jbd2tune1 "$(demo_journal_path)" \
	org.jbd2tune1.Journal ForceCopy)
trial=$(busctl --system get-property org.jbd2tune1 "$(demo_journal_path)" \
	org.jbd2tune1.Journal Trial)
grep -E "$DEMO_J: force_copy .*trial of 0->1: [a-z ]+ after" "$OUT/agent.log" || true
# kept: on, or in an off block of the re-check that confirms a keep on
# measured relief a minute after it (agent-policy.md, "The verdict")
case $trial in
's "re-check of force_copy 0->1,'*'off block"') fc="b true (in the re-check's off block: $trial)" ;;
esac
assert_eq "busctl ForceCopy (kept after its trial)" "b true" "${fc%% (*}"
[ "${fc%% (*}" = "$fc" ] || log "ForceCopy: $fc"
grep -Eq "$DEMO_J: force_copy 0->1(: kept: | kept: )trial of 0->1: keep after" "$OUT/agent.log" ||
	{ cat "$OUT/agent.log"; fail "force_copy is on but no trial kept it"; }
demo_background_stop
demo_agent_stop
kill "$DEMO_MON_PID" 2>/dev/null; wait "$DEMO_MON_PID" 2>/dev/null
demo_fs_stop /dev/vdb

grep -E "$DEMO_J: force_copy 0->1: .+" "$OUT/agent.log" | grep -v dry-run ||
	{ cat "$OUT/agent.log"; fail "no logged force_copy decision with a reason"; }
grep -q 'Member=Decision' "$OUT/decision-signals.txt" ||
	{ cat "$OUT/decision-signals.txt"; fail "no Decision signal seen on the bus"; }
echo "ok: Decision signal emitted"

demo_print_table
# What the writer felt of the stalls: its time in writes beyond 100 ms,
# summed (demo_stall_ms).  Asserted lower in phase 2 than in phase 1; the
# p99.9 of each phase is printed beside it, not asserted: a 30-s phase
# has about 1,900 writes, and when the dry-run phase caught only one or
# two of them in a stall its p99.9 was whichever write came second (seen
# once on 6.1: p99.9 89.7 -> 109.6 ms, failed, while the max fell 867 ->
# 142 ms and force copy had been kept on 331.7 vs 0.0 ms/s of shadow waits).
p1=$(awk '$1 == "dry-run" { print $5 }' "$OUT/table")
p2=$(awk '$1 == "auto" { print $5 }' "$OUT/table")
read -r s1 n1 <<< "$(demo_stall_ms dry-run)"
read -r s2 n2 <<< "$(demo_stall_ms auto)"
ok=0
python3 -c "import sys; a, b = float('$s1'), float('$s2'); print('writer stall time (beyond 100 ms): dry-run %.1f ms in $n1 writes, auto %.1f ms in $n2 writes; p99.9 dry-run $p1 ms, auto $p2 ms' % (a, b)); sys.exit(0 if b < a else 1)" || ok=1
# On a debug kernel (KASAN, lockdep) under TCG the writer is CPU-bound:
# seen there, p50 225 -> 810 ms with no shadow wait left in the auto phase,
# and the phase outlasted the 300 s hold, so the agent probed off and back
# on within it.  The comparison says nothing about jbd2 there; the
# functional checks above stand.
case "$KSERIES" in
*-debug) [ $ok = 0 ] || echo "note: writer stall time not judged on a debug kernel ($s1 -> $s2 ms)" ;;
*) [ $ok = 0 ] || fail "writer stall time did not drop with force_copy on ($s1 -> $s2 ms beyond 100 ms)" ;;
esac
