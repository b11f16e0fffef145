# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of bench/seed000: the writer's tail under seed 000's loads
# (bench/demo-scenario.sh: ext4 -J size=16 on a 400 MB disk throttled to
# 6 MB/s of writes, four 4 KiB random read/write jobs at 100 IOPS, the
# 64 KiB buffered writer at 4 MB/s), BENCH_SEED_LOADS of them (default
# both): "demo" with dirty data expiring after 5 s (make demo's), "seed"
# after 10 s (the load of issue 14's report), with four settings in one
# boot:
#   stock  Debian's jbd2.ko (insmod'ed, STOCK_KO)
#   off    ours, force_copy 0 (every knob at its default)
#   on     ours, force_copy 1 written before the load
#   auto   ours, jbd2-tuned with the shipped policy started before the
#          warm-up (it decides during it; the measured part shows what
#          its decision gives)
#   on-ld  ours, force_copy 1 and lock_delay_max_ms BENCH_LOCK_DELAY_MS
#          (5000): the commit locks the transaction later (not in the
#          default list)
# BENCH_SEED_SETTINGS picks and orders them (default "stock off on auto").
# Per load BENCH_PAIRS (3) rounds, the order reversed every other round
# (ABBA), each run on a freshly made file system on the same disk:
# BENCH_WARMUP_S (45) unmeasured, then BENCH_SEED_S (60) measured.  Rows
# in $OUT/seed000.tsv.
# vm-disk: 400M,throttling.bps-write=6291456
# vm-timeout: 5400
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"
source "$PROJECT/bench/demo-scenario.sh"

# shellcheck disable=SC1091
[ -f "$PROJECT/build/bench/seed000.env" ] && . "$PROJECT/build/bench/seed000.env"
LOADS=${BENCH_SEED_LOADS:-demo seed}
PAIRS=${BENCH_PAIRS:-3}
WARMUP_S=${BENCH_WARMUP_S:-45}
DEMO_PHASE_S=${BENCH_SEED_S:-60}
read -r -a SETTINGS <<< "${BENCH_SEED_SETTINGS:-stock off on auto}"
LOCK_DELAY_MS=${BENCH_LOCK_DELAY_MS:-5000}
STOCK_KO=$PROJECT/build/bench/stock-jbd2-$KABI.ko
[ -f "$STOCK_KO" ] || fail "$STOCK_KO missing (bench/seed000 puts it there)"
TSV=$OUT/seed000.tsv
DEV=/dev/vda

demo_setup
JBD2_NOW=ours

# one_run LOAD PAIR SETTING FIRST - one measured run; appends a row to
# $TSV: load pair setting first p50 p99 p99.9 p99.99 max (ms)
# shadow_waits copyouts_forced force_copy_at_end ("-" for stock)
one_run() {
	local load=$1 pair=$2 setting=$3 first=$4 before after tag=$1-p$2-$3 sw=- co=- fc=- pct
	case $setting in
	stock) use_jbd2 stock "$STOCK_KO" ;;
	*) use_jbd2 ours ;;
	esac
	demo_fs_start "$DEV"
	case $setting in
	off) echo 0 > "$DEMO_CFS/force_copy" || fail "force_copy=0" ;;
	on) echo 1 > "$DEMO_CFS/force_copy" || fail "force_copy=1" ;;
	on-ld)
		echo 1 > "$DEMO_CFS/force_copy" || fail "force_copy=1"
		echo "$LOCK_DELAY_MS" > "$DEMO_CFS/lock_delay_max_ms" ||
			fail "lock_delay_max_ms=$LOCK_DELAY_MS"
		;;
	auto) DEMO_AGENT_LOG=$OUT/agent-$tag.log demo_agent_start ;;
	esac
	demo_background_start
	demo_warmup "$WARMUP_S"
	[ -z "$DEMO_CFS" ] || before=$(demo_counters)
	demo_writer "$DEMO_PHASE_S" "$tag"
	if [ -n "$DEMO_CFS" ]; then
		after=$(demo_counters)
		# shellcheck disable=SC2086
		set -- $before $after
		sw=$(($5 - $1)) co=$(($6 - $2)) fc=$8
	fi
	demo_background_stop
	[ "$setting" != auto ] || demo_agent_stop
	demo_fs_stop "$DEV"
	pct=$(demo_percentiles "$tag")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$load" "$pair" "$setting" "$first" \
		"$(echo "$pct" | tr ' ' '\t')" "$sw" "$co" "$fc" >> "$TSV"
	log "$load pair $pair $setting: p50 p99 p99.9 p99.99 max ms = $pct;" \
		"shadow waits $sw, forced copies $co, force_copy at end $fc"
	rm -f "$OUT/writer-$tag.json"
}

echo "# $KSERIES $KABI pairs=$PAIRS warmup=${WARMUP_S}s measured=${DEMO_PHASE_S}s" > "$TSV"
for load in $LOADS; do
	demo_load "$load" BENCH_SEED_LOADS
	for pair in $(seq 1 "$PAIRS"); do
		list=()
		for s in "${SETTINGS[@]}"; do
			case $s in stock|off|on|auto|on-ld) ;; *) fail "BENCH_SEED_SETTINGS: no setting '$s'" ;; esac
			if [ $((pair % 2)) = 1 ]; then list+=("$s"); else list=("$s" "${list[@]}"); fi
		done
		for s in "${list[@]}"; do
			one_run "$load" "$pair" "$s" "${list[0]}"
		done
	done
done
use_jbd2 ours
echo "bench/seed000.sh: done"
