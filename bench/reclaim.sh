# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of bench/reclaim (make bench): log-space reclaim on the
# smallest journal (-J size=4), one boot, the stock jbd2.ko as the baseline.
# The 256 MiB disk gets 1 KiB blocks (mke2fs's "small" type), so the
# journal has 4096 blocks, as in kmod-reclaim and the issue's figures.
#
# Loads, each on a fresh file system of its own:
#   storm-T   the mkdir storm of issue 11 (seed 002) with T = 1, 4, 16
#             tasks: BENCH_STORM_FILES files in total, 25 to a directory,
#             every 5th file fsync'ed (tests/vm/lib-kmod.sh create_storm)
#   fsmark-S  fs_mark -S 3 and -S 6, 4 threads, 4 KiB files
#   disk-storm-T  storm-T with half the files on the second disk, whose
#             writes qemu throttles to 500 a second: TCG's disk is a host
#             file behind the page cache, so checkpoint I/O costs next to
#             nothing on it, which hides what a foreground checkpoint
#             costs a writer on a real disk (and what reclaim's extra
#             writes cost)
# Settings: stock (Debian's jbd2.ko, reinserted for the run), off (ours,
# watermark 0), every accepted watermark in steps of 10 from the journal's
# reclaim_watermark_min_pct to its reclaim_watermark_max_pct (both ends
# included), and auto (jbd2-tuned with the shipped policy).
# BENCH_SETTINGS narrows the settings (a space-separated subset, "stock"
# first; for looking at one setting closely, not for the table).
# Rounds: BENCH_ROUNDS (2); each round runs every load under every setting,
# in an order rotated by the round, so drift of the VM shows as spread,
# not as a bias of one setting.
#
# Writes $OUT/reclaim.tsv: round load setting watermark wall_s files
# space_waits space_wait_p99_us reclaim_runs kworker_cpu_pct vm_cpu_pct
# agent_cpu_s commits commit_ms commit_wait_ms ("-" where the stock module
# or a setting has no figure; agent_cpu_s is jbd2-tuned's own utime + stime
# over the load, auto only; commit_ms and commit_wait_ms are the totals of
# commit_time_us and commit_wait_us: what the commits took and what the
# fsync'ing tasks waited for them); dev_write_ios dev_write_kib: the
# writes the disk received over the load (/sys/block/DEV/stat; the same
# for stock), the cost on a real disk that TCG's fast one hides.
# vm-disk: 256M
# vm-disk: 256M,throttling.iops-write=500
# vm-memory: 2048
# vm-timeout: 5400
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"
source "$PROJECT/bench/demo-scenario.sh"

# shellcheck disable=SC1091
[ -f "$PROJECT/build/bench/reclaim.env" ] && . "$PROJECT/build/bench/reclaim.env"
ROUNDS=${BENCH_ROUNDS:-2}
STORM_FILES=${BENCH_STORM_FILES:-16000}
FSMARK_FILES=${BENCH_FSMARK_FILES:-2500}
STOCK_KO=$PROJECT/build/bench/stock-jbd2-$KABI.ko
DEV=/dev/vda	# the disk of the load being run (one() sets it)
MNT=/mnt/b
TSV=$OUT/reclaim.tsv

[ -f "$STOCK_KO" ] || fail "$STOCK_KO missing (bench/reclaim puts it there)"
demo_setup
# the kernel's default writeback timing (demo_setup shortens it)
sysctl -q -w vm.dirty_expire_centisecs=3000 vm.dirty_writeback_centisecs=500 ||
	fail "sysctl vm.dirty_*"
rm -f "$OUT/agent.log"

# dev_writes - "write_ios write_sectors" of $DEV so far
dev_writes() {
	local s
	read -r -a s < "/sys/block/${DEV#/dev/}/stat"
	echo "${s[4]} ${s[6]}"
}

# pid_ticks PID - utime + stime of process PID, in clock ticks
pid_ticks() {
	local s
	s=$(cat "/proc/$1/stat") || fail "no process $1"
	s=${s##*) }
	set -- $s
	echo $((${12} + ${13}))
}

# cpu_ticks - "kworker_ticks vm_busy_ticks": utime+stime of every kworker
# thread alive now, and the busy (non-idle, non-iowait) time of all CPUs
cpu_ticks() {
	python3 - <<'PY'
import os
kw = 0
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    try:
        with open("/proc/%s/stat" % pid) as f:
            s = f.read()
    except OSError:
        continue
    comm = s[s.index("(") + 1:s.rindex(")")]
    if comm.startswith("kworker"):
        fields = s[s.rindex(")") + 2:].split()
        kw += int(fields[11]) + int(fields[12])
with open("/proc/stat") as f:
    v = [int(x) for x in f.readline().split()[1:]]
busy = sum(v) - v[3] - v[4]
print(kw, busy)
PY
}

# p99_us JOURNAL - upper bound of the space-wait histogram bucket that
# holds the 99th percentile (0 when there were no waits)
p99_us() {
	jattr "$1" space_wait_hist | python3 -c '
import sys
h = [int(x) for x in sys.stdin.read().split()]
n = sum(h)
if n == 0:
    print(0)
else:
    need, acc = 0.99 * n, 0
    for i, c in enumerate(h):
        acc += c
        if acc >= need:
            print(2 ** (i + 1))
            break'
}

# run_load LOAD DIR - the load in DIR; prints the number of files made
run_load() {
	local load=$1 dir=$2 t per
	case $load in
	storm-* | disk-storm-*)
		t=${load##*storm-}
		per=$((STORM_FILES / t))
		[ "${load%%-*}" = disk ] && per=$((per / 2))
		create_storm "$dir" "$t" $((per / 25)) 25 5 || fail "storm $t"
		echo $((t * (per / 25) * 25))
		;;
	fsmark-*)
		fs_mark -d "$dir" -t 4 -n "$FSMARK_FILES" -s 4096 -L 1 -k \
			-S "${load#fsmark-}" > "$OUT/fsmark.last" 2>&1 ||
			{ cat "$OUT/fsmark.last"; fail "fs_mark $load"; }
		echo $((4 * FSMARK_FILES))
		;;
	esac
}

# one ROUND LOAD SETTING - one measured run on a fresh file system
one() {
	local round=$1 load=$2 setting=$3 j wm=- t0 t1 c0 c1 files wall
	local waits=- p99=- runs=- kw vm a0=- a1 agent=-
	local commits=- commit_ms=- cwait_ms=- d0 d1
	case $setting in stock) use_jbd2 stock "$STOCK_KO" ;; *) use_jbd2 ours ;; esac
	case $load in disk-*) DEV=/dev/vdb ;; *) DEV=/dev/vda ;; esac
	j=$(fresh_ext4 "$DEV" "$MNT" -J size=4) || exit 1
	case $setting in
	stock) ;;
	off) wm=0 ;;
	auto) demo_agent_start ;;
	*) wm=$setting ;;
	esac
	[ "$wm" = - ] || jset "$j" reclaim_watermark_pct "$wm"
	sync
	read -r c0 vm0 <<< "$(cpu_ticks)"
	[ "$setting" = auto ] && a0=$(pid_ticks "$DEMO_AGENT_PID")
	d0=$(dev_writes)
	mkdir "$MNT/x"
	t0=$(date +%s.%N)
	files=$(run_load "$load" "$MNT/x") || exit 1
	t1=$(date +%s.%N)
	sync
	d1=$(dev_writes)
	read -r c1 vm1 <<< "$(cpu_ticks)"
	if [ "$a0" != - ]; then
		a1=$(pid_ticks "$DEMO_AGENT_PID")
		agent=$(echo "scale=2; ($a1 - $a0) / $(getconf CLK_TCK)" | bc)
	fi
	if [ "$setting" != stock ]; then
		waits=$(jattr "$j" space_waits)
		p99=$(p99_us "$j")
		runs=$(jattr "$j" reclaim_runs)
		commits=$(jattr "$j" commits)
		commit_ms=$(($(jattr "$j" commit_time_us) / 1000))
		cwait_ms=$(($(jattr "$j" commit_wait_us) / 1000))
		[ "$setting" = auto ] && wm=$(jattr "$j" reclaim_watermark_pct)
	fi
	[ "$setting" = auto ] && demo_agent_stop
	wall=$(echo "$t1 - $t0" | bc)
	read -r kw vm <<< "$(python3 -c "
import os, sys
hz = os.sysconf('SC_CLK_TCK'); w = float(sys.argv[1])
print('%.2f %.1f' % (100.0 * (int(sys.argv[3]) - int(sys.argv[2])) / hz / w,
                     100.0 * (int(sys.argv[5]) - int(sys.argv[4])) / hz / w))
" "$wall" "$c0" "$c1" "$vm0" "$vm1")"
	printf '%s\t%s\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$round" "$load" "$setting" "$wm" "$wall" "$files" "$waits" "$p99" \
		"$runs" "$kw" "$vm" "$agent" "$commits" "$commit_ms" "$cwait_ms" \
		$(( ${d1% *} - ${d0% *} )) $(( (${d1#* } - ${d0#* }) / 2 )) |
		tee -a "$TSV"
	umount "$MNT" || fail "umount $MNT"
}

# the watermark steps of a 4 MiB journal on this kernel
j=$(fresh_ext4 "$DEV" "$MNT" -J size=4) || exit 1
wmin=$(jattr "$j" reclaim_watermark_min_pct)
wmax=$(jattr "$j" reclaim_watermark_max_pct)
log_blocks=$(jattr "$j" log_blocks)
umount "$MNT"
steps=$(python3 -c "
lo, hi = $wmin, $wmax
s = [lo] + list(range((lo // 10 + 1) * 10, hi, 10))
if hi not in s: s.append(hi)
print(' '.join(map(str, s)))")
log "journal of $log_blocks blocks; accepted watermarks $wmin..$wmax; steps: $steps"
echo "# $KSERIES $KABI log_blocks=$log_blocks watermark_range=$wmin..$wmax steps=$steps" > "$TSV"
echo "# round load setting watermark wall_s files space_waits space_wait_p99_us reclaim_runs kworker_cpu_pct vm_cpu_pct agent_cpu_s commits commit_ms commit_wait_ms dev_write_ios dev_write_kib" >> "$TSV"

loads=${BENCH_LOADS:-"storm-1 storm-4 storm-16 fsmark-3 fsmark-6 disk-storm-1 disk-storm-4"}
settings=${BENCH_SETTINGS:-"stock off $steps auto"}
for round in $(seq 1 "$ROUNDS"); do
	for load in $loads; do
		# rotate the order of the settings by the round; stock stays
		# together with nothing else so one swap each way suffices
		set -- $settings
		order=$(python3 -c "
import sys
s = sys.argv[2:]; r = int(sys.argv[1]) - 1
ours = s[1:]; r %= len(ours)
ours = ours[r:] + ours[:r]
print(' '.join(['stock'] + ours if r % 2 == 0 else ours + ['stock']))" "$round" "$@")
		for setting in $order; do
			one "$round" "$load" "$setting"
		done
	done
done
use_jbd2 ours
fsck_clean "$DEV"
echo "bench/reclaim.sh: done"
