#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fsync-shards case (../shared/cases/fsync-shards): force copy-out
# removes every shadow wait of this fsync-bound load and still makes each
# fsync slower, so jbd2-tuned, running the shipped policy, must notice it
# on the commit waits and undo it.  Load: tests/vm/fsync-shards.py (two
# shards appending and fsync'ing beside a thread rewriting small files) on
# a disk limited to 100 write IOPS, ext4 with a 16 MiB journal, each phase
# on its own fresh file system:
#   off-1   force_copy fixed at 0, no agent
#   agent   jbd2-tuned with conf/jbd2-tuned.conf
#   off-2   force_copy fixed at 0, no agent
# each PHASE_S seconds long: the log fills over time and checkpointing
# starts late in a phase, so only equally long phases compare.
# Asserted: no trial kept force_copy (it may read 1 at the end of the phase
# in an on-block of a trial still running); a trial that ended did so
# without keeping it, logged with the commit-wait figures of both sides,
# and force_copy did not go on again (the back-off outlasts the phase;
# seen on 6.1: per-wait commit latency +33 %, kept by the first version of
# the keep rule, now beyond the 15 % margin); over the last JUDGE_S seconds of
# each phase, the agent phase's fsync op p50 and p99 are at most MARGIN_PCT
# above the worse of the two off phases (the spread between off-1 and off-2
# is the run-to-run noise, printed).  MARGIN_PCT is 100: kept on, force
# copy-out made this load's p50 2-5x (6.12: up to 17x) worse, while the
# spread between two off phases of one boot was up to 47 % under TCG with
# another VM running, and the agent phase after its revert came out 1.6x
# its worse off phase once (6.1).  The case's 10 % goal is not asserted:
# that needs a quieter machine to tell from noise.
# vm-disk: 256M,throttling.iops-write=100
# vm-disk: 256M,throttling.iops-write=100
# vm-disk: 256M,throttling.iops-write=100
# vm-timeout: 1200
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"
source "$PROJECT/bench/demo-scenario.sh"

PHASE_S=${FSYNC_SHARDS_PHASE_S:-100}
JUDGE_S=${FSYNC_SHARDS_JUDGE_S:-40}
MARGIN_PCT=100
LOAD=$PROJECT/tests/vm/fsync-shards.py

demo_setup
# the case ran with the kernel's default writeback timing
sysctl -q -w vm.dirty_expire_centisecs=3000 vm.dirty_writeback_centisecs=500 ||
	fail "sysctl vm.dirty_*"
rm -f "$OUT/agent.log"

# phase NAME DEV SECONDS - fresh ext4 on DEV, the load for SECONDS; leaves
# $OUT/NAME.ops (end_s latency_ms per op) and prints the load's summary
phase() {
	local name=$1 dev=$2 secs=$3 j
	j=$(fresh_ext4 "$dev" /mnt/s -J size=16) || exit 1
	PHASE_J=$j
	[ "$name" = agent ] && demo_agent_start
	log "$name: $secs s of fsync-shards on $dev ($j), force_copy $(jattr "$j" force_copy)"
	python3 "$LOAD" /mnt/s "$secs" --ops "$OUT/$name.ops" > "$OUT/$name.summary" ||
		fail "$name: load failed"
	PHASE_FC=$(jattr "$j" force_copy)
	[ "$name" = agent ] && demo_agent_stop
	echo "$name: $(cat "$OUT/$name.summary") force_copy_at_end=$PHASE_FC" \
		"shadow_waits=$(jattr "$j" shadow_waits) copyouts_forced=$(jattr "$j" copyouts_forced)" \
		"commits=$(jattr "$j" commits) commit_waits=$(jattr "$j" commit_waits)" \
		"commit_wait_us=$(jattr "$j" commit_wait_us)" | tee -a "$OUT/figures.txt"
	umount /mnt/s || fail "umount $dev"
	fsck_clean "$dev"
}

# tail_stats NAME SECONDS_TOTAL - "ops p50 p99" of the ops that ended in
# the last JUDGE_S seconds of the phase
tail_stats() {
	python3 - "$OUT/$1.ops" "$2" "$JUDGE_S" <<'PY'
import sys
path, total, judge = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
lat = sorted(float(l.split()[1]) for l in open(path)
             if float(l.split()[0]) >= total - judge)
if not lat:
    print("0 0 0"); sys.exit()
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print("%d %.1f %.1f" % (len(lat), p(0.5), p(0.99)))
PY
}

phase off-1 /dev/vda "$PHASE_S"
phase agent /dev/vdb "$PHASE_S"
agent_j=$PHASE_J
# a trial may still be running at the end of the phase (up to 10 pairs of
# 5-7 s blocks): force_copy may read 1 in an on-block; what must not
# happen is a trial keeping it
if grep -Eq "$agent_j: force_copy 0->1(: kept: | kept: )" "$OUT/agent.log"; then
	cat "$OUT/agent.log"
	fail "a trial kept force_copy on this load"
fi
echo "ok: no trial kept force_copy (force_copy at the end of the phase: $PHASE_FC)"
phase off-2 /dev/vdc "$PHASE_S"

echo "--- agent log ---"
cat "$OUT/agent.log"
echo "---"
ons=$(grep -c "$agent_j: force_copy 0->1" "$OUT/agent.log" || true)
if [ "$ons" -gt 0 ]; then
	# on-blocks of the trial until the harm test reverts it (at most one
	# block of harm, agent-policy.md "Trials"); then no more for the
	# back-off (300 s, longer than the phase)
	rev=$(grep -nE "$agent_j: force_copy (1->0 reverted|0->1 not kept): trial of 0->1: " "$OUT/agent.log" | head -n 1)
	if [ -n "$rev" ]; then
		echo "ok: trial ended without keeping it: $rev"
		echo "$rev" | grep -q "commit-wait mean" ||
			fail "the verdict does not name the commit-wait figures"
		# knob writes after the verdict line (which itself names 0->1)
		after=$(tail -n +$((${rev%%:*} + 1)) "$OUT/agent.log" | grep -c "$agent_j: force_copy 0->1: " || true)
		assert_eq "times force_copy went on after the verdict (back-off 300 s)" 0 "$after"
	else
		echo "note: the trial had no verdict yet at the end of the phase"
	fi
	echo "on-blocks: $ons"
else
	echo "note: the agent never turned force_copy on in this run"
fi

read -r o1_n o1_p50 o1_p99 <<< "$(tail_stats off-1 "$PHASE_S")"
read -r a_n a_p50 a_p99 <<< "$(tail_stats agent "$PHASE_S")"
read -r o2_n o2_p50 o2_p99 <<< "$(tail_stats off-2 "$PHASE_S")"
printf '%-8s %6s %10s %10s   (last %s s of each phase)\n' phase ops "p50 ms" "p99 ms" "$JUDGE_S" |
	tee -a "$OUT/figures.txt"
for r in "off-1 $o1_n $o1_p50 $o1_p99" "agent $a_n $a_p50 $a_p99" "off-2 $o2_n $o2_p50 $o2_p99"; do
	# shellcheck disable=SC2086
	printf '%-8s %6s %10s %10s\n' $r | tee -a "$OUT/figures.txt"
done
python3 - "$o1_p50" "$o2_p50" "$o1_p99" "$o2_p99" "$a_p50" "$a_p99" "$MARGIN_PCT" <<'PY' ||
import sys
o1_50, o2_50, o1_99, o2_99, a50, a99, m = map(float, sys.argv[1:])
noise50 = abs(o1_50 - o2_50) / max(min(o1_50, o2_50), 1e-9) * 100
noise99 = abs(o1_99 - o2_99) / max(min(o1_99, o2_99), 1e-9) * 100
print("run-to-run noise between the off phases: p50 %.0f %%, p99 %.0f %%" % (noise50, noise99))
lim50, lim99 = max(o1_50, o2_50) * (1 + m / 100), max(o1_99, o2_99) * (1 + m / 100)
print("agent p50 %.1f ms (limit %.1f), p99 %.1f ms (limit %.1f)" % (a50, lim50, a99, lim99))
sys.exit(0 if a50 <= lim50 and a99 <= lim99 else 1)
PY
	fail "with the agent, fsync ops are more than $MARGIN_PCT % slower than with force_copy off"
echo "fsync-shards: all checks passed"
