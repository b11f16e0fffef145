# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of bench/handle-cost (issue 22, item 5): what one jbd2 handle
# costs with our jbd2.ko and every knob off against Debian's stock
# jbd2.ko, one boot, both swapped in and out with rmmod/insmod as in
# bench/stock.sh.
#
# Loads, each run on a fresh ext4 on a 256 MiB RAM disk (brd: no I/O
# latency, so the handle paths are what is timed):
#   fchmod   build/bench/handle-cost: BENCH_HC_THREADS (2, one per vCPU)
#            threads, each BENCH_HC_OPS (100000) fchmod()s of its own file:
#            one handle start and stop each; ns per operation.
#   fsmark0  fs_mark -S 0 (no sync), BENCH_HC_THREADS threads x
#            BENCH_HC_FILES (4000) empty files; files/s.
# BENCH_HC_PAIRS (12) pairs per load in ABBA order (stock-ours,
# ours-stock, ...); every pair counts.  Writes $OUT/handle-cost.tsv:
#   pair load setting value unit
# vm-disk: 64M
# vm-memory: 1024
# vm-timeout: 1800
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

# shellcheck disable=SC1091
[ -f "$PROJECT/build/bench/handle-cost.env" ] && . "$PROJECT/build/bench/handle-cost.env"
PAIRS=${BENCH_HC_PAIRS:-12}
THREADS=${BENCH_HC_THREADS:-2}
OPS=${BENCH_HC_OPS:-100000}
FILES=${BENCH_HC_FILES:-4000}
LOADS=${BENCH_HC_LOADS:-"fchmod fsmark0"}
STOCK_KO=$PROJECT/build/bench/stock-jbd2-$KABI.ko
HC=$PROJECT/build/bench/handle-cost
DEV=/dev/ram0
MNT=/mnt/hc
TSV=$OUT/handle-cost.tsv

[ -f "$STOCK_KO" ] || fail "$STOCK_KO missing (bench/handle-cost puts it there)"
[ -x "$HC" ] || fail "$HC missing (bench/handle-cost builds it)"
command -v fs_mark >/dev/null || fail "fs_mark not found on the host root"
modprobe brd rd_nr=1 rd_size=262144 || fail "modprobe brd"
[ -b $DEV ] || fail "$DEV missing"
mkdir -p $MNT

use_jbd2 stock "$STOCK_KO"
[ ! -d "$CFS" ] || fail "the stock jbd2.ko registered $CFS: not the stock module"
use_jbd2 ours
[ -d "$CFS" ] || fail "our jbd2.ko did not register $CFS"

# one PAIR LOAD SETTING - one measured run, one line of $TSV
one() {
	local pair=$1 load=$2 setting=$3 value unit j
	use_jbd2 "$setting" "$STOCK_KO"
	mkfs_ext4 $DEV > /dev/null
	mount -t ext4 $DEV $MNT || fail "mount $DEV"
	if [ "$setting" = ours ]; then
		j=$(journal_name $DEV)
		[ "$(jattr "$j" force_copy) $(jattr "$j" reclaim_watermark_pct) $(jattr "$j" lock_delay_max_ms)" = "0 0 0" ] ||
			fail "$j: knobs not off"
	fi
	case $load in
	fchmod)
		unit=ns/op
		value=$("$HC" $MNT "$THREADS" "$OPS" | sed -n 's/.*ns_per_op=\([0-9.]*\).*/\1/p')
		;;
	fsmark0)
		unit=files/s
		mkdir -p $MNT/f
		fs_mark -d $MNT/f -t "$THREADS" -n "$FILES" -s 0 -S 0 -L 1 -k \
			> "$OUT/fsmark.last" 2>&1 || { cat "$OUT/fsmark.last"; fail "fs_mark"; }
		value=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $4 } END { print v }' "$OUT/fsmark.last")
		;;
	esac
	[ -n "$value" ] || fail "$load: no result"
	umount $MNT || fail "umount"
	printf '%s\t%s\t%s\t%s\t%s\n' "$pair" "$load" "$setting" "$value" "$unit" >> "$TSV"
	log "pair $pair $load $setting: $value $unit"
}

printf '# pairs=%s threads=%s ops=%s files=%s kernel=%s\n' "$PAIRS" "$THREADS" "$OPS" "$FILES" "$KSERIES" > "$TSV"
flip=0
for load in $LOADS; do
	for pair in $(seq 1 "$PAIRS"); do
		if [ $(((pair + flip) % 2)) = 1 ]; then
			one "$pair" "$load" stock; one "$pair" "$load" ours
		else
			one "$pair" "$load" ours; one "$pair" "$load" stock
		fi
	done
	flip=$((flip + 1))
done
echo "bench/handle-cost: done"
