# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of bench/stock (make bench; issue 14, item 3): our jbd2.ko
# with every knob off against Debian's stock jbd2.ko of the same kernel,
# in one boot.  The stock module is swapped in and out with rmmod/insmod
# (nothing ext4 is mounted in between), so both settings share the boot,
# the page cache's state and the emulated machine.
#
# Loads, each run on a fresh ext4 (mkfs -m 0) on the 1 GiB disk:
#   dbench       seed 003: dbench 4.0 (BENCH_DBENCH_CLIENTS clients, 4;
#                BENCH_DBENCH_S seconds, 20, of which dbench's own warm-up
#                is the first fifth) on a mount with -o nobarrier;
#                MB/s.  The writes to the journal superblock are traced
#                (block_bio_queue and block_rq_issue, filtered to the
#                disk and the superblock's sector from debugfs
#                "bmap <8> 0") from mount to umount: their rwbs go to
#                $OUT/stock-sb.tsv.
#   fsmark-95    seed 004: a filler file fallocated until the file system
#                is 95 % used, then fs_mark -S 1 (fsync before close),
#                BENCH_FSMARK_THREADS (4) threads x BENCH_FSMARK_FILES
#                (600) 4 KiB files; files/s as fs_mark reports it.
#   fio-fsync    overhead: fio randwrite 4 KiB, fsync after every write,
#                one job on a 32 MiB file written out first,
#                BENCH_FIO_S (15) seconds after a 2 s ramp; IOPS.
#   fsmark-empty overhead: the fs_mark load of fsmark-95 on the empty
#                file system; files/s.
# BENCH_LOADS narrows the list (space-separated).
#
# Settings: stock (Debian's jbd2.ko) and ours (this project's, with
# force_copy=0 and reclaim_watermark_pct=0 written to the journal's group
# after the mount).  BENCH_PAIRS (3) pairs of runs per load; the order
# inside a pair alternates from pair to pair (stock-ours, ours-stock,
# stock-ours, ...: ABBA), and starts the other way round from one load to
# the next, so a drift of the VM over the run biases no setting and the
# module is swapped only when the setting changes.
#
# Writes $OUT/stock.tsv: pair load setting first value unit wall_s fill_pct
# (first: 1 when the run was the first of its pair; wall_s: the load's
# wall time; fill_pct: the file system's use before the load) and
# $OUT/stock-sb.tsv: pair setting event rwbs comm count.
# vm-disk: 1G
# vm-memory: 1536
# vm-timeout: 3600
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

# shellcheck disable=SC1091
[ -f "$PROJECT/build/bench/stock.env" ] && . "$PROJECT/build/bench/stock.env"
PAIRS=${BENCH_PAIRS:-3}
DBENCH_S=${BENCH_DBENCH_S:-20}
DBENCH_CLIENTS=${BENCH_DBENCH_CLIENTS:-4}
FSMARK_THREADS=${BENCH_FSMARK_THREADS:-4}
FSMARK_FILES=${BENCH_FSMARK_FILES:-600}
FIO_S=${BENCH_FIO_S:-15}
LOADS=${BENCH_LOADS:-"dbench fsmark-95 fio-fsync fsmark-empty"}
STOCK_KO=$PROJECT/build/bench/stock-jbd2-$KABI.ko
DEV=/dev/vda
MNT=/mnt/s
TSV=$OUT/stock.tsv
SBTSV=$OUT/stock-sb.tsv
T=/sys/kernel/tracing

[ -f "$STOCK_KO" ] || fail "$STOCK_KO missing (bench/stock puts it there)"
for t in dbench fs_mark fio debugfs fallocate; do
	command -v "$t" >/dev/null || fail "$t not found on the host root"
done
[ -d "$T/events/block/block_bio_queue" ] || fail "no block tracepoints in $T"
[ -f /usr/share/dbench/client.txt ] || fail "/usr/share/dbench/client.txt missing"
# fsmark-95's files must fit in the 5 % left free (with room for their
# inodes' directories and the journal's slack): at most half of it
case " $LOADS " in *" fsmark-95 "*)
	[ $((FSMARK_THREADS * FSMARK_FILES * 4096)) -le $(($(blockdev --getsize64 "$DEV") / 40)) ] ||
		fail "BENCH_FSMARK_THREADS x BENCH_FSMARK_FILES x 4 KiB exceeds half of the 5 % left on $DEV"
esac

# the kernel's default writeback timing
sysctl -q -w vm.dirty_expire_centisecs=3000 vm.dirty_writeback_centisecs=500 ||
	fail "sysctl vm.dirty_*"

# the two modules must differ, and the stock one must have no configfs tree
# (md5 of each file: the modules carry no srcversion)
use_jbd2 stock "$STOCK_KO"
[ ! -d "$CFS" ] || fail "the stock jbd2.ko registered $CFS: not the stock module"
use_jbd2 ours
[ -d "$CFS" ] || fail "our jbd2.ko did not register $CFS"
SRC_STOCK=$(md5sum < "$STOCK_KO" | cut -c1-12)
SRC_OURS=$(md5sum < "$(modinfo -n jbd2)" | cut -c1-12)
[ "$SRC_STOCK" != "$SRC_OURS" ] || fail "stock and ours are the same file ($SRC_STOCK)"
log "jbd2.ko md5: stock $SRC_STOCK, ours $SRC_OURS"

# fs_up SETTING [mount options] - fresh ext4 on $DEV mounted on $MNT;
# for ours every knob is written off.  Sets J (journal name).
fs_up() {
	local setting=$1
	shift
	mkfs_ext4 "$DEV" -m 0 > /dev/null
	mkdir -p "$MNT"
	mount -t ext4 "$@" "$DEV" "$MNT" || fail "mount $* $DEV"
	J=$(journal_name "$DEV")
	[ -n "$J" ] || fail "no /proc/fs/jbd2 entry for $DEV"
	if [ "$setting" = ours ]; then
		jset "$J" force_copy 0
		jset "$J" reclaim_watermark_pct 0
		[ "$(jattr "$J" force_copy) $(jattr "$J" reclaim_watermark_pct)" = "0 0" ] ||
			fail "$J: knobs not off"
	fi
}

fs_down() {
	umount "$MNT" || fail "umount $MNT"
}

# used_pct - the file system's use in percent (of all blocks, -m 0)
used_pct() {
	python3 -c "
import os, sys
s = os.statvfs(sys.argv[1])
print('%.1f' % (100.0 * (s.f_blocks - s.f_bfree) / s.f_blocks))" "$MNT"
}

# fill_to PCT - fallocate $MNT/filler so that PCT % of the blocks are used
fill_to() {
	local bytes
	bytes=$(python3 -c "
import os, sys
s = os.statvfs(sys.argv[1])
want = int(s.f_blocks * float(sys.argv[2]) / 100) - (s.f_blocks - s.f_bfree)
print(max(0, want) * s.f_frsize)" "$MNT" "$1")
	fallocate -l "$bytes" "$MNT/filler" || fail "fallocate $bytes bytes"
	sync
}

# sb_trace_on - trace bios and requests to the journal superblock's
# sector of $DEV (the file system is made, not mounted)
sb_trace_on() {
	local blk bs sector mm devt e
	blk=$(debugfs -R "bmap <8> 0" "$DEV" 2>/dev/null | tail -n 1)
	bs=$(dumpe2fs -h "$DEV" 2>/dev/null | sed -n 's/^Block size: *//p')
	case "$blk$bs" in *[!0-9]*|'') fail "journal superblock: bmap '$blk', block size '$bs'" ;; esac
	sector=$((blk * bs / 512))
	mm=$(stat -L -c '%t %T' "$DEV")
	devt=$(( (16#${mm% *} << 20) | 16#${mm#* } ))
	SB_WHERE="block $blk, sector $sector"
	echo 0 > "$T/tracing_on"
	echo > "$T/trace"
	for e in block_bio_queue block_rq_issue; do
		echo "dev == $devt && sector == $sector" > "$T/events/block/$e/filter" ||
			fail "filter $e"
		echo 1 > "$T/events/block/$e/enable"
	done
	echo 1 > "$T/tracing_on"
}

# sb_trace_off PAIR SETTING - stop, append the counts to $SBTSV
sb_trace_off() {
	local e
	echo 0 > "$T/tracing_on"
	for e in block_bio_queue block_rq_issue; do
		echo 0 > "$T/events/block/$e/enable"
		echo 0 > "$T/events/block/$e/filter"
	done
	# "comm-pid [cpu] flags ts: block_bio_queue: 254,0 WSM 8 + 8 [comm]"
	awk -v pair="$1" -v setting="$2" '
		/ block_(bio_queue|rq_issue): / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^block_(bio_queue|rq_issue):$/) break
			ev = substr($i, 7, length($i) - 7)
			comm = $NF; gsub(/^\[|\]$/, "", comm)
			n[ev "\t" $(i + 2) "\t" comm]++
		}
		END { for (k in n) printf "%s\t%s\t%s\t%d\n", pair, setting, k, n[k] }
	' "$T/trace" | sort >> "$SBTSV"
}

# fsmark - the fs_mark load in $MNT/f; prints files/s
fsmark() {
	mkdir -p "$MNT/f"
	fs_mark -d "$MNT/f" -t "$FSMARK_THREADS" -n "$FSMARK_FILES" -s 4096 \
		-S 1 -L 1 -k > "$OUT/fsmark.last" 2>&1 ||
		{ cat "$OUT/fsmark.last" >&2; fail "fs_mark"; }
	# the result line: FSUse% Count Size Files/sec App-Overhead
	awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $4 } END { if (v == "") exit 1; print v }' \
		"$OUT/fsmark.last" || { cat "$OUT/fsmark.last" >&2; fail "no fs_mark result"; }
}

# one PAIR LOAD SETTING FIRST - one measured run, one line of $TSV
one() {
	local pair=$1 load=$2 setting=$3 first=$4 value unit t0 t1 t2 fill ts
	ts=$(date +%s.%N)
	use_jbd2 "$setting" "$STOCK_KO"
	case $load in
	dbench)
		mkfs_ext4 "$DEV" -m 0 > /dev/null
		sb_trace_on
		mkdir -p "$MNT"
		mount -t ext4 -o nobarrier "$DEV" "$MNT" || fail "mount -o nobarrier"
		J=$(journal_name "$DEV")
		if [ "$setting" = ours ]; then
			jset "$J" force_copy 0
			jset "$J" reclaim_watermark_pct 0
		fi
		;;
	fsmark-95)
		fs_up "$setting"
		fill_to 95
		;;
	*)
		fs_up "$setting"
		;;
	esac
	fill=$(used_pct)
	t0=$(date +%s.%N)
	case $load in
	dbench)
		unit=MB/s
		dbench -c /usr/share/dbench/client.txt -D "$MNT" -t "$DBENCH_S" \
			"$DBENCH_CLIENTS" > "$OUT/dbench.last" 2>&1 ||
			{ tail -n 20 "$OUT/dbench.last"; fail "dbench"; }
		value=$(sed -n 's/^Throughput \([0-9.]*\) MB\/sec.*/\1/p' "$OUT/dbench.last")
		[ -n "$value" ] || { tail -n 20 "$OUT/dbench.last"; fail "no dbench result"; }
		;;
	fsmark-*)
		unit=files/s
		value=$(fsmark) || exit 1
		;;
	fio-fsync)
		unit=IOPS
		fio --name=fsync --directory="$MNT" --filename=f --size=32m \
			--fallocate=none --rw=randwrite --bs=4k --ioengine=sync \
			--fsync=1 --ramp_time=2 --runtime="$FIO_S" --time_based \
			--output-format=json --output="$OUT/fio.last" > /dev/null ||
			fail "fio"
		value=$(python3 -c "
import json, sys
print('%.1f' % json.load(open(sys.argv[1]))['jobs'][0]['write']['iops'])" "$OUT/fio.last") ||
			fail "no fio result"
		;;
	*) fail "unknown load $load" ;;
	esac
	t1=$(date +%s.%N)
	fs_down
	[ "$load" = dbench ] && sb_trace_off "$pair" "$setting"
	t2=$(date +%s.%N)
	log "$load $setting: setup $(echo "$t0 - $ts" | bc) s, load $(echo "$t1 - $t0" | bc) s, umount $(echo "$t2 - $t1" | bc) s"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n' "$pair" "$load" "$setting" \
		"$first" "$value" "$unit" "$(echo "$t1 - $t0" | bc)" "$fill" | tee -a "$TSV"
}

echo "# $KSERIES $KABI pairs=$PAIRS jbd2.ko md5 stock=$SRC_STOCK ours=$SRC_OURS dbench=${DBENCH_S}s/${DBENCH_CLIENTS} fsmark=${FSMARK_THREADS}x${FSMARK_FILES} fio=${FIO_S}s" > "$TSV"
echo "# pair load setting first value unit wall_s fill_pct" >> "$TSV"
echo "# pair setting event rwbs comm count" > "$SBTSV"
for load in $LOADS; do
	case $load in dbench|fsmark-95|fio-fsync|fsmark-empty) ;; *) fail "unknown load $load" ;; esac
done
for pair in $(seq 1 "$PAIRS"); do
	i=0
	for load in $LOADS; do
		if [ $(((pair - 1 + i) % 2)) = 0 ]; then
			one "$pair" "$load" stock 1
			one "$pair" "$load" ours 0
		else
			one "$pair" "$load" ours 1
			one "$pair" "$load" stock 0
		fi
		i=$((i + 1))
	done
done
case " $LOADS " in *" dbench "*) echo "# journal superblock: $SB_WHERE" >> "$SBTSV" ;; esac
use_jbd2 ours
fsck_clean "$DEV"
echo "bench/stock.sh: done"
