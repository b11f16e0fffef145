#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The iomax-inversion case (issue 26; ../shared/cases/iomax-inversion/,
# Documentation/iomax-inversion.md) with jbd2-tuned and its shipped policy
# (no drop-in): a tenant cgroup limited by io.max to 1 MB/s of writes
# creates 4 KiB files on a 4 MiB journal while a task of the root cgroup
# does mkdir + fsync (bench/iomax.sh's load and set-up).  Asserts that
# - the load reproduces the case: the journal counts foreground space
#   waits by the time the agent acts;
# - the agent starts a trial of the reclaim watermark, triggered by those
#   space waits (its log line names them), and writes the trial's value
#   to the module (the configfs knob leaves 0) before the phase's cap;
# - the tenant's cgroup wrote no faster than its limit over the phase
#   (io.stat wbytes over the phase's seconds, within 10 %; the phase runs
#   at least IOMAX_MIN_S, past the 30-s dirty expiry, so that the
#   tenant's file data is written back in it, not only its checkpoints);
# - the agent's clean stop in the middle of its trial puts the watermark
#   back to the 0 it found (restore_on_exit);
# - e2fsck -fn is clean.
# The phase ends once the knob has been seen set (the load stops
# through bench/iomax-load.py --stop, the tenant's limit is lifted so that
# its queued writes drain); how long that took and what the prober saw
# are printed, not asserted: the goal figures are bench/iomax's.
# vm-disk: 300M
# vm-memory: 2048
# vm-timeout: 900
IOMAX_LIB=1
IOMAX_TRACE=0
# the load's own end, far beyond when the agent acts (bench/iomax: the
# trial began 15-30 s into the load on both series); the phase's cap
IOMAX_S=150
IOMAX_MIN_S=45
source "$PROJECT/bench/iomax.sh"

LOG=$OUT/agent.log
BASE=$OUT/iomax-agent
STOP=/tmp/iomax-stop
rm -f "$STOP"
j=$(fresh_ext4 "$DEV" "$MNT" -J size=4) || exit 1
js=$(printf '%s' "$j" | sed 's/[][\.*^$]/\\&/g')
log "journal $j: $(jattr "$j" log_blocks) blocks, watermark range" \
	"$(jattr "$j" reclaim_watermark_min_pct)..$(jattr "$j" reclaim_watermark_max_pct) %"
assert_eq "$j: reclaim_watermark_pct before the agent" 0 "$(jattr "$j" reclaim_watermark_pct)"
mkdir "$MNT/tenant" "$MNT/prober"
sync

iomax_loads_start "$BASE" --stop "$STOP"
demo_agent_start
w0=$(wbytes)
t0=$(date +%s.%N)
touch "$IOMAX_GO"

# until the trial's value is in the module (and IOMAX_MIN_S have passed),
# or the loads' end (the cap); one look a second ($EPOCHREALTIME, no date)
TRIAL_RE="$js: reclaim: trial of 0->[0-9]+ starts: "
set_at= sw_at_set= set_wm= wm=0
start_ms=$(( ${EPOCHREALTIME/./} / 1000 ))
while kill -0 "$IOMAX_PPID" 2>/dev/null; do
	wm=$(jattr "$j" reclaim_watermark_pct)
	if [ "$wm" != 0 ] && grep -qE "$TRIAL_RE" "$LOG"; then
		set_ms=$(( ${EPOCHREALTIME/./} / 1000 - start_ms ))
		set_at=$(printf '%d.%03d' $((set_ms / 1000)) $((set_ms % 1000)))
		sw_at_set=$(jattr "$j" space_waits)
		set_wm=$wm
		rest_ms=$(( IOMAX_MIN_S * 1000 - set_ms ))
		[ "$rest_ms" -le 0 ] || sleep "$(printf '%d.%03d' $((rest_ms / 1000)) $((rest_ms % 1000)))"
		break
	fi
	sleep 1
done
# stop the agent in an on block of its trial, so that it has a value to
# put back (at most two blocks of waiting; a trial that ended meanwhile
# has nothing to put back)
wm=0
if [ -n "$set_at" ]; then
	for _ in $(seq 1 40); do
		wm=$(jattr "$j" reclaim_watermark_pct)
		[ "$wm" = 0 ] || break
		! grep -qE "$js: reclaim .*trial of 0->[0-9]+: [a-z ]+ after" "$LOG" || break
		sleep 1
	done
fi
t1=$(date +%s.%N)
w1=$(wbytes)
demo_agent_stop
wm_after=$(jattr "$j" reclaim_watermark_pct)
touch "$STOP"
# the tenant's queued writes would drain at 1 MB/s: lift its limit now
echo "$MAJMIN wbps=max" > "$CG/tenant/io.max" || fail "io.max: lift the limit"
wait "$IOMAX_TPID" || fail "tenant failed"
wait "$IOMAX_PPID" || fail "prober failed"
log "the load has stopped"
log "agent log:"; sed 's/^/    /' "$LOG"
[ -n "$set_at" ] ||
	fail "$j: no trial of the reclaim watermark written to the module within the load (${IOMAX_S}s)"
log "the trial's value $set_wm % in the module $set_at s into the load"

trial=$(grep -oE "${TRIAL_RE}.*" "$LOG" | head -n 1)
echo "first reclaim trial: $trial"
echo "$trial" | grep -qE "starts: (space waits|a space wait) " ||
	fail "$j: the reclaim trial was not triggered by space waits: '$trial'"
echo "ok: the trial's trigger names space waits"
assert_cmp "$j: foreground space waits by the time the trial's value was set" "$sw_at_set" -gt 0

# io.stat counts a throttled bio when blk-throttle lets it go
kibps=$(echo "($w1 - $w0) / 1024 / ($t1 - $t0)" | bc)
log "tenant: $(cat "$BASE.tenant"), $((w1 - w0)) bytes in $(echo "$t1 - $t0" | bc) s: $kibps KiB/s"
assert_cmp "tenant's write rate (KiB/s, io.max $((WBPS / 1024)) KiB/s + 10 %)" \
	"$kibps" -le $((WBPS / 1024 * 11 / 10))
python3 - "$BASE.ops" <<'PY'
import sys
ops = sorted((b - a) / 1e6 for a, b in (map(int, l.split()) for l in open(sys.argv[1]) if l.strip()))
if ops:
    print("prober: %d mkdir + fsync, p50 %.1f ms, p99 %.1f ms, max %.1f ms" %
          (len(ops), ops[len(ops) // 2], ops[min(len(ops) - 1, int(0.99 * len(ops)))], ops[-1]))
PY

if [ "$wm" != 0 ]; then
	grep -E "$js: reclaim $wm->0: restored on exit" "$LOG" ||
		fail "$j: the agent stopped with the watermark at $wm and did not log putting 0 back"
else
	echo "the watermark was 0 at the stop (an off block, or the trial had ended: $(grep -oE "$js: reclaim .*trial of 0->[0-9]+: [a-z ]+ after.*" "$LOG"))"
fi
assert_eq "$j: reclaim_watermark_pct after the agent's stop" 0 "$wm_after"
echo "$MAJMIN wbps=$WBPS" > "$CG/tenant/io.max"
# the tenant's files still hold up to 160 MB of dirty data (40,000 files
# on 6.12), whose writeback at umount took 96 s of the guest's CPU in
# TCG; removed first, their pages go without being written
rm -rf "$MNT/tenant" || fail "rm -rf $MNT/tenant"
log "the tenant's files removed"
umount "$MNT" || fail "umount $MNT"
log "unmounted"
fsck_clean "$DEV"
log "checked"
echo "agent-iomax: done"
