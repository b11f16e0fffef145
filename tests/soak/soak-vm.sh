#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The soak, guest side (tests/soak/run boots it): jbd2-tuned under its
# shipped policy (conf/jbd2-tuned.conf, no drop-in, auto mode) and our
# jbd2 under a load that does not stop, for SOAK_MINUTES (30):
#   vda  1 GB ext4 -J size=16, writes throttled by qemu to 6 MB/s (the
#        demo's disk): 4 fio jobs of 4 KiB random read/write at 100 IOPS,
#        a 64 KiB buffered writer at 4 MB/s, and a metadata storm (2
#        workers making directories of 50 empty files, an fsync every 5th,
#        old directories removed)
#   vdb  256 MB ext4 -J size=4 on dm-delay (writes take 10 ms): mounted,
#        given files (an fsync every 10th), unmounted and e2fsck -fn'ed, over
#        and over: its journal and configfs group come and go under the agent
#   configfs readers (every file of every group, twice a second) and a
#        netlink dumper (jbd2tune-nl dump for 5 s at a time) all along.
# tests/soak/sampler.py writes a sample every SOAK_SAMPLE_S (30) s to
# $OUT/soak-samples.txt: the agent's RSS, peak RSS and open files, the
# main journal's knobs and counters, the objects of every jbd2 slab cache;
# and polls the main journal's knobs every second ($OUT/knob-changes.txt).
#
# FAILS (a "SOAK FAIL:" line each, and exit 1) when:
#   - the agent's RSS at the end is more than SOAK_RSS_SLACK_KB (256) above
#     its RSS after the warm-up (the first sample after SOAK_WARMUP_S,
#     default 120 s or a fifth of the run), or its open files grew;
#   - a jbd2 slab cache of its own holds more than SOAK_SLAB_SLACK (64)
#     objects more, with no journal mounted and the caches shrunk, than
#     before the first mount (SLUB merges most jbd2 caches with others of
#     their size, on Debian's 6.1 all but jbd2_journal_head and
#     jbd2_revoke_table_s: their figures are shown, not judged);
#   - the kernel log shows WARNING:, BUG:, Oops, INFO: task, UBSAN,
#     general protection, KASAN: or a lockdep report (tests/vm/run fails
#     the run on these too);
#   - the agent died or stopped answering on the bus, a load process
#     failed, a mount, umount or e2fsck -fn failed, or a netlink dump
#     reported an error.
# SOAK_BREAK=dmesg writes a fake "WARNING:" line into the kernel log half
# way: the run must then fail (shows that the check can).
# vm-disk: 1G,throttling.bps-write=6291456
# vm-disk: 256M
# vm-memory: 1536
# vm-timeout: 2700
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"
source "$PROJECT/bench/demo-scenario.sh"

MINUTES=${SOAK_MINUTES:-30}
DURATION=$((MINUTES * 60))
SAMPLE_S=${SOAK_SAMPLE_S:-30}
WARMUP_S=${SOAK_WARMUP_S:-$(( DURATION / 5 < 120 ? DURATION / 5 : 120 ))}
RSS_SLACK_KB=${SOAK_RSS_SLACK_KB:-256}
SLAB_SLACK=${SOAK_SLAB_SLACK:-64}
BREAK=${SOAK_BREAK:-}
NL=$PROJECT/tests/netlink/jbd2tune-nl
ST=/tmp/soak
CYC_MNT=/mnt/cyc
SAMPLES=$OUT/soak-samples.txt
REPORT=$OUT/soak-report.txt
KMSG_BAD='WARNING:|BUG:|Oops|INFO: task|UBSAN|general protection|KASAN:|possible circular locking|possible recursive locking|inconsistent lock state'

[ "$FLAVOUR" = ours ] || fail "the soak runs the agent on our jbd2 (not --stock)"
[ -x "$NL" ] || fail "$NL is missing: build it on the host (make -C tests/netlink)"
rm -rf "$ST"
mkdir -p "$ST" "$CYC_MNT"
: > "$REPORT"
problems=()
problem() {
	problems+=("$*")
	echo "SOAK FAIL: $*"
}

# --- slab caches -----------------------------------------------------------
# jbd2_caches - the jbd2 caches the kernel has, "name own" or "name
# shared-TARGET" (SLUB merges a cache with compatible ones: the objects of
# all are counted together and cannot be told apart).  A mergeable cache
# is a link to TARGET in /sys/kernel/slab even when nothing merged with
# it; TARGET's "aliases" says how many others share it
jbd2_caches() {
	local c t
	for c in /sys/kernel/slab/jbd2*; do
		[ -e "$c" ] || continue
		t=$(basename "$(readlink -f "$c")")
		if [ ! -L "$c" ] || [ "$(cat "/sys/kernel/slab/$t/aliases" 2>/dev/null)" = 0 ]; then
			echo "$(basename "$c") own"
		else
			echo "$(basename "$c") shared-$t"
		fi
	done
}
# slab_snapshot FILE - shrink every jbd2 cache (flushes the per-CPU slabs
# and frees empty ones, so the count is of objects in use) and write
# "name kind objects total_objects object_size" per cache
slab_snapshot() {
	local name kind d
	jbd2_caches | while read -r name kind; do
		d=/sys/kernel/slab/$name
		echo 1 > "$d/shrink" 2>/dev/null
		echo "$name $kind $(cut -d' ' -f1 "$d/objects") $(cut -d' ' -f1 "$d/total_objects") $(cat "$d/object_size")"
	done > "$1"
}
# --- agent figures ----------------------------------------------------------
agent_rss() { awk '/^VmRSS/ { print $2 }' "/proc/$DEMO_AGENT_PID/status"; }
agent_fds() { find "/proc/$DEMO_AGENT_PID/fd" -mindepth 1 -maxdepth 1 | wc -l; }
agent_alive() {
	kill -0 "$DEMO_AGENT_PID" 2>/dev/null &&
		busctl --system get-property org.jbd2tune1 /org/jbd2tune1 \
			org.jbd2tune1.Manager Version > /dev/null 2>&1
}

# --- the load ----------------------------------------------------------------
# storm DIR N - N workers making directories of 50 empty files under DIR,
# an fsync every 5th, keeping their 6 newest directories; ends when
# $ST/stop exists; any error fails it
storm() {
	python3 - "$1" "$2" "$ST/stop" <<'PY'
import os, shutil, sys, time
top, n, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def work(wid):
    base = os.path.join(top, "s%d" % wid)
    os.makedirs(base, exist_ok=True)
    dirs, k, files = [], 0, 0
    while not os.path.exists(stop):
        while len(dirs) > 6:
            shutil.rmtree(dirs.pop(0))
        d = os.path.join(base, "d%d" % k)
        k += 1
        os.mkdir(d)
        dirs.append(d)
        for f in range(50):
            fd = os.open(os.path.join(d, "f%d" % f), os.O_CREAT | os.O_WRONLY, 0o644)
            try:
                if f % 5 == 4:
                    os.fsync(fd)
            finally:
                os.close(fd)
            files += 1
        time.sleep(0.1)
    print("storm worker %d: %d directories, %d files" % (wid, k, files))

pids = []
for w in range(n):
    pid = os.fork()
    if pid == 0:
        rc = 0
        try:
            work(w)
        except OSError as e:
            print("storm worker %d: %s" % (w, e), file=sys.stderr)
            rc = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    pids.append(pid)
rc = 0
for pid in pids:
    rc |= os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
sys.exit(1 if rc else 0)
PY
}

# cycles DEV - mount DEV on $CYC_MNT, write 100 files of 0..16 KiB (an
# fsync every 10th) and remove last cycle's, umount, e2fsck -fn; again
# until $ST/stop exists.  Counts in $ST/cycles; exits 1 at the first
# failure (its output in $ST/cycles.err)
cycles() {
	local dev=$1 n=0
	while [ ! -e $ST/stop ]; do
		mount -t ext4 "$dev" $CYC_MNT 2> $ST/cycles.err ||
			{ echo "cycle $n: mount failed" >> $ST/cycles.err; return 1; }
		python3 - $CYC_MNT "$n" <<'PY' 2>> $ST/cycles.err || { umount $CYC_MNT; return 1; }
import os, random, shutil, sys
top, n = sys.argv[1], int(sys.argv[2])
old = os.path.join(top, "c%d" % (n - 1))
if os.path.isdir(old):
    shutil.rmtree(old)
d = os.path.join(top, "c%d" % n)
os.mkdir(d)
rng = random.Random(n)
for i in range(100):
    fd = os.open(os.path.join(d, "f%d" % i), os.O_CREAT | os.O_WRONLY, 0o644)
    try:
        os.write(fd, rng.randbytes(rng.randint(0, 16384)))
        if i % 10 == 9:
            os.fsync(fd)
    finally:
        os.close(fd)
PY
		umount $CYC_MNT 2>> $ST/cycles.err ||
			{ echo "cycle $n: umount failed" >> $ST/cycles.err; return 1; }
		if ! e2fsck -fn "$dev" > $ST/cycles.fsck 2>&1; then
			cat $ST/cycles.fsck >> $ST/cycles.err
			echo "cycle $n: e2fsck -fn not clean" >> $ST/cycles.err
			return 1
		fi
		n=$((n + 1))
		echo "$n" > $ST/cycles
		[ -e $ST/stop ] || sleep 2
	done
	return 0
}

# readers - every configfs file of every group, twice a second, while
# groups come and go (ENOENT/ENODEV then are expected)
readers() {
	local n=0
	while [ ! -e $ST/stop ]; do
		cat $CFS/*/* > /dev/null 2>&1
		n=$((n + 1))
		[ $((n % 20)) != 0 ] || echo "$n" > $ST/reads
		sleep 0.5
	done
	echo "$n" > $ST/reads
}

# dumper - jbd2tune-nl dump for 5 s at a time; one summary line each
dumper() {
	while [ ! -e $ST/stop ]; do
		"$NL" dump --duration-ms 5000 >> $ST/dumps 2>&1 || echo "errors=exit$?" >> $ST/dumps
	done
}

soak_cleanup() {
	touch $ST/stop
	demo_cleanup
}

# --- set up --------------------------------------------------------------
log "soak: $MINUTES min, samples every $SAMPLE_S s, warm-up $WARMUP_S s" \
	"(RSS slack $RSS_SLACK_KB KiB, slab slack $SLAB_SLACK objects)${BREAK:+, broken: $BREAK}"
demo_setup
trap soak_cleanup EXIT
modprobe dm-delay || fail "modprobe dm-delay"
slab_snapshot $ST/slab-before
grep '^jbd2' /proc/slabinfo > $ST/slabinfo-before
echo "jbd2 slab caches before the first mount (name kind active total size):"
sed 's/^/    /' $ST/slab-before

mkfs_ext4 /dev/vdb -J size=4
run_ok "dm-delay" dmsetup create cyc --table "0 $(blockdev --getsz /dev/vdb) delay /dev/vdb 0 0 /dev/vdb 0 10"
demo_fs_start /dev/vda
J=$DEMO_J
echo "main journal $J on vda; cycled file system on dm-delay over vdb"
rm -f "$OUT/agent.log" "$SAMPLES" "$OUT/knob-changes.txt"
# shellcheck disable=SC2119 # no options: auto, the shipped policy
demo_agent_start
log "agent up (pid $DEMO_AGENT_PID): RSS $(agent_rss) KiB, $(agent_fds) open files"
rss_boot=$(agent_rss)

# --- run -----------------------------------------------------------------
t0=$(date +%s)
end=$((t0 + DURATION))
demo_background_start
fio --name=writer --directory="$DEMO_MNT" --filename=writer --rw=write --bs=64k \
	--size=256m --fallocate=none --rate=4m --ioengine=sync --time_based \
	--runtime="$DURATION" --output=/dev/null > /dev/null 2>&1 &
writer_pid=$!
mkdir -p "$DEMO_MNT/storm"
storm "$DEMO_MNT/storm" 2 > $ST/storm.out 2>&1 &
storm_pid=$!
cycles /dev/mapper/cyc &
cycles_pid=$!
readers &
readers_pid=$!
dumper &
dumper_pid=$!
python3 "$PROJECT/tests/soak/sampler.py" "$DEMO_AGENT_PID" "$J" "$SAMPLES" \
	"$OUT/knob-changes.txt" $ST/stop $ST/cycles "$SAMPLE_S" &
sampler_pid=$!

# watch: the agent alive and on the bus, every load process running
broke=0 said_warm=0
while :; do
	now=$(date +%s)
	[ "$now" -lt "$end" ] || break
	agent_alive || { problem "the agent died or stopped answering on the bus at $((now - t0)) s"; break; }
	for p in $storm_pid $cycles_pid $writer_pid $DEMO_BG_PID $sampler_pid; do
		kill -0 "$p" 2>/dev/null || break 2
	done
	if [ $said_warm = 0 ] && [ $((now - t0)) -ge "$WARMUP_S" ]; then
		log "warm-up over; the last sample: $(tail -n 1 "$SAMPLES" 2>/dev/null)"
		said_warm=1
	fi
	if [ "$BREAK" = dmesg ] && [ $broke = 0 ] && [ $((now - t0)) -ge $((DURATION / 2)) ]; then
		echo "WARNING: soak self-test (SOAK_BREAK=dmesg), not a kernel report" > /dev/kmsg
		broke=1
	fi
	sleep 10
done
elapsed=$(( $(date +%s) - t0 ))
[ "$elapsed" -ge "$DURATION" ] ||
	problem "the load stopped after $elapsed s of $DURATION (see below)"
last_decision=$(busctl --system get-property org.jbd2tune1 "$(demo_journal_path)" \
	org.jbd2tune1.Journal LastDecision 2>/dev/null)
log "stopping the load"
touch $ST/stop
wait $sampler_pid || problem "the sampler saw the agent gone at its last sample"
wait $storm_pid || { cat $ST/storm.out; problem "the metadata storm failed"; }
wait $cycles_pid || { tail -n 30 $ST/cycles.err; problem "the mount cycles failed: $(tail -n 1 $ST/cycles.err)"; }
wait $readers_pid $dumper_pid
kill -INT $writer_pid 2>/dev/null; wait $writer_pid 2>/dev/null
demo_background_stop
cat $ST/storm.out
# the samples after the warm-up and at the end
warm_line=$(awk -v w="$WARMUP_S" '{ split($1, t, "="); if (t[2] >= w) { print; exit } }' "$SAMPLES")
end_line=$(tail -n 1 "$SAMPLES")
[ -n "$warm_line" ] || warm_line=$(head -n 1 "$SAMPLES")
agent_ok=1
agent_alive || { agent_ok=0; problem "the agent is not running (or not on the bus) at the end"; }
demo_agent_stop
dmsetup remove cyc || problem "dmsetup remove cyc"
e2fsck -fn /dev/vdb > $ST/fsck-vdb 2>&1 || { cat $ST/fsck-vdb; problem "e2fsck -fn of vdb at the end"; }
sync
if umount "$DEMO_MNT"; then
	e2fsck -fn /dev/vda > $ST/fsck-vda 2>&1 || { cat $ST/fsck-vda; problem "e2fsck -fn of vda at the end"; }
else
	problem "umount of the main file system"
fi
echo 3 > /proc/sys/vm/drop_caches
sleep 2		# journal_head is SLAB_TYPESAFE_BY_RCU: let a grace period pass
slab_snapshot $ST/slab-after
grep '^jbd2' /proc/slabinfo > $ST/slabinfo-after

# --- figures -------------------------------------------------------------
# agent log lines: "J: knob a->b: why" and "J: knob a->b reverted: ..." are
# decisions the agent wrote; "a->b stands: ..." are outcome checks (no
# write); "a->b: restored on exit" are written at its stop
alog=$OUT/agent.log
knob_re=': (force_copy|reclaim) [0-9]+->[0-9]+'
decisions=$(grep -E "$knob_re(: | reverted)" "$alog" | grep -vc 'restored on exit')
reverts=$(grep -cE "$knob_re reverted" "$alog")
stands=$(grep -cE "$knob_re stands" "$alog")
restored=$(grep -cE "$knob_re: restored on exit" "$alog")
write_fail=$(grep -c 'write failed' "$alog")
agent_errors=$(grep -cE '^jbd2-tuned: (error|crit|alert|emerg):' "$alog")
found=$(grep -c ': journal found' "$alog")
gone=$(grep -c ': journal gone' "$alog")
knob_changes=$(( $(wc -l < "$OUT/knob-changes.txt") - 1 ))
ncycles=$(cat $ST/cycles 2>/dev/null || echo 0)
nreads=$(cat $ST/reads 2>/dev/null || echo 0)
ndumps=$(sed -n 's/^dumps=\([0-9]*\).*/\1/p' $ST/dumps | awk '{ s += $1 } END { print s + 0 }')
nrecords=$(sed -n 's/^dumps=[0-9]* records=\([0-9]*\).*/\1/p' $ST/dumps | awk '{ s += $1 } END { print s + 0 }')
dump_errors=$(grep -c 'errors=[^0]' $ST/dumps)
nsamples=$(wc -l < "$SAMPLES")
rss_w=$(field "$warm_line" rss_kib) rss_e=$(field "$end_line" rss_kib)
fds_w=$(field "$warm_line" fds) fds_e=$(field "$end_line" fds)
t_w=$(field "$warm_line" t) hwm_e=$(field "$end_line" hwm_kib)
rss_min=$(sed -n 's/.* rss_kib=\([0-9]*\).*/\1/p' "$SAMPLES" | sort -n | head -n 1)
rss_max=$(sed -n 's/.* rss_kib=\([0-9]*\).*/\1/p' "$SAMPLES" | sort -n | tail -n 1)
kbad=$(dmesg | grep -E "$KMSG_BAD" | head -n 5)

[ "$dump_errors" = 0 ] || problem "$dump_errors netlink dumps reported errors: $(grep -m1 'error' $ST/dumps)"
[ "$ncycles" -ge 1 ] || problem "no mount cycle of the second file system completed"
[ "$decisions" -ge 1 ] || echo "note: the agent made no decision (the load never crossed its thresholds)"
if [ "$agent_ok" = 1 ] && [ -n "$rss_w" ] && [ -n "$rss_e" ]; then
	[ $((rss_e - rss_w)) -le "$RSS_SLACK_KB" ] ||
		problem "agent RSS grew $((rss_e - rss_w)) KiB ($rss_w KiB after the warm-up, $rss_e KiB at the end; $RSS_SLACK_KB KiB allowed)"
	[ "$fds_e" -le "$fds_w" ] ||
		problem "agent open files grew from $fds_w to $fds_e"
else
	problem "no agent RSS figures (samples: $nsamples)"
fi
# name kind before after (before: 0 for a cache made after the first mount)
sort $ST/slab-before > $ST/slab-before.s
sort $ST/slab-after > $ST/slab-after.s
join -a 1 -e 0 -o 0,1.2,2.3,1.3 $ST/slab-after.s $ST/slab-before.s > $ST/slab-table
while read -r name kind before after; do
	[ "$kind" = own ] || continue
	[ "$after" -le $((before + SLAB_SLACK)) ] ||
		problem "slab cache $name holds $after objects with nothing mounted, $before before the first mount ($SLAB_SLACK allowed)"
done < $ST/slab-table
[ -z "$kbad" ] || problem "the kernel log shows: $(echo "$kbad" | head -n 1)"

{
	echo "soak: $MINUTES min ($elapsed s of load), kernel $(uname -r), our jbd2, agent under conf/jbd2-tuned.conf (auto)"
	echo "load: fio 4 x randrw 100 IOPS + writer 4 MB/s + metadata storm on vda (6 MB/s writes, -J size=16);"
	echo "      $ncycles mount/write/umount/e2fsck cycles of vdb (dm-delay 10 ms writes, -J size=4);"
	echo "      $nreads configfs sweeps; $ndumps netlink dumps ($nrecords records, $dump_errors with errors)"
	echo "agent decisions (knob writes, log 'J: knob a->b'): $decisions, of them $reverts reverts;" \
		"outcome checks that let a change stand: $stands; restored on exit: $restored"
	echo "knob writes in all: $((decisions + restored)); failed: $write_fail; agent error lines: $agent_errors"
	echo "knob changes seen on the main journal $J (1 s polling): $knob_changes"
	echo "journals found / gone (agent log): $found / $gone"
	echo "agent RSS: $rss_boot KiB at start, $rss_w KiB after the warm-up ($t_w s), $rss_e KiB at the end" \
		"(samples $rss_min..$rss_max KiB, peak $hwm_e KiB); open files $fds_w -> $fds_e; $nsamples samples"
	echo "jbd2 slab caches, objects in use with nothing mounted (caches shrunk), before the first mount -> at the end:"
	while read -r name kind before after; do
		printf '    %-22s %6s -> %-6s %s\n' "$name" "$before" "$after" \
			"$([ "$kind" = own ] && echo "(its own cache)" || echo "(merged into ${kind#shared-} with other caches: not judged)")"
	done < $ST/slab-table
	echo "/proc/slabinfo, its jbd2 lines (merged caches are listed under another name):"
	sed 's/^/    before: /' $ST/slabinfo-before
	sed 's/^/    end:    /' $ST/slabinfo-after
	echo "jbd2 slab caches under load (objects, per-CPU slabs counted in use):"
	echo "    after the warm-up: $(echo "$warm_line" | tr ' ' '\n' | grep '^jbd2' | paste -sd' ')"
	echo "    at the end:        $(echo "$end_line" | tr ' ' '\n' | grep '^jbd2' | paste -sd' ')"
	echo "kernel log: $([ -z "$kbad" ] && echo clean || echo "$kbad")"
	! echo "$kbad" | grep -qE 'soft lockup|rcu.*stall' ||
		echo "    (under TCG a soft lockup or RCU stall with a stack far from jbd2 is" \
			"mostly the host starving the vCPU threads: see the host's load in host-load.txt)"
	echo "main journal at the end: $(echo "$end_line" | tr ' ' '\n' | grep -E '^(force_copy|reclaim_watermark_pct|shadow_waits|space_waits|copyouts_forced|reclaim_runs|commits)=' | paste -sd' ')"
	[ -z "$last_decision" ] || echo "its last decision on the bus: $last_decision"
	if [ ${#problems[@]} = 0 ]; then
		echo "SOAK PASS"
	else
		printf 'SOAK FAIL: %s\n' "${problems[@]}"
	fi
} > "$REPORT"
echo
cat "$REPORT"
echo "agent decision and outcome lines (the first 80):"
grep -E "$knob_re" "$alog" | sed 's/^/    /' | head -n 80
[ ${#problems[@]} = 0 ] || exit 1
echo "soak: all checks passed"
