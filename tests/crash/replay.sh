#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Power cuts, replayed (VM side; tests/crash/run boots it for each series
# and knob setting).  jbd2 is loaded with the knobs as module defaults
# (CRASH_KNOBS=on: force_copy_default=1 reclaim_watermark_pct_default=50
# lock_delay_max_ms_default=5000;
# off: the control), so the journal has them from its mount on.  A 64 MB
# ext4 with a 4 MiB journal (-J size=4) on dm-log-writes (vda, log on vdb)
# takes workload.py: CRASH_WRITERS writers of CRASH_OPS fsync'ed operations
# each, setting a log mark after each and dirtying CRASH_NOISE (200) shared
# inode-table blocks before each, never fsync'ed, so the log wraps and
# checkpoints (background reclaim) run.  Then
# replay.py replays the log onto a copy of the file system as it was before
# (vdc) up to every flush and FUA entry and checks each point: mount
# (journal recovery) on a snapshot, every fsync'ed change present,
# e2fsck -fn clean; at least CRASH_MIN_POINTS (200) points.  Results:
# $OUT/replay-result.json, workload.txt, replay-points.txt.
# CRASH_BREAK=nofsync|hash breaks the writers (workload.py): must fail.
# vm-disk: 64M
# vm-disk: 2G
# vm-disk: 64M
# vm-disk: 64M
# vm-memory: 1536
# vm-timeout: 5400
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"
source "$PROJECT/tests/crash/lib.sh"

KNOBS=${CRASH_KNOBS:-on}
WRITERS=${CRASH_WRITERS:-4}
OPS=${CRASH_OPS:-40}
NOISE=${CRASH_NOISE:-200}
SEED=${CRASH_SEED:-crash}
BREAK=${CRASH_BREAK:-}
MIN_POINTS=${CRASH_MIN_POINTS:-200}

crash_modules "$KNOBS"
modprobe brd rd_nr=2 rd_size=65536 || fail "modprobe brd"

mkfs_ext4 /dev/vda -J size=4
# the replay starts from this copy of the file system; vdd keeps one for
# a second look at failed points
run_ok "copy vda to vdc" dd if=/dev/vda of=/dev/vdc bs=1M conv=fsync status=none
run_ok "copy vda to vdd" dd if=/dev/vda of=/dev/vdd bs=1M conv=fsync status=none
run_ok "dm-log-writes" dmsetup create lw --table "0 $(blockdev --getsz /dev/vda) log-writes /dev/vda /dev/vdb"
mkdir -p /mnt/a /mnt/r
run_ok "mount" mount -t ext4 /dev/mapper/lw /mnt/a
j=$(journal_name /dev/mapper/lw)
[ -n "$j" ] || fail "no journal for /dev/mapper/lw"
crash_knobs "$j" "$KNOBS"

log "workload: $WRITERS writers x $OPS ops, noise $NOISE inode table blocks${BREAK:+, broken: $BREAK}"
t0=$(date +%s)
python3 "$CRASH/workload.py" /mnt/a /tmp/records --writers "$WRITERS" --ops "$OPS" \
	--seed "$SEED" --mark lw --noise "$NOISE" ${BREAK:+--break "$BREAK"} || fail "workload"
t1=$(date +%s)
figs=$(crash_figures "$j")
echo "journal $j after the workload ($((t1 - t0))s): $figs"
run_ok umount umount /mnt/a
log "dm-log-writes: $(dmsetup status lw)"
run_ok "remove dm-log-writes" dmsetup remove lw
cp -r /tmp/records "$OUT/records"
{
	printf '%s\n' "knobs=$KNOBS" "series=$KSERIES" "writers=$WRITERS" "ops=$OPS" \
		"noise=$NOISE" "seed=$SEED" "break=${BREAK:-none}"
	echo "workload_seconds=$((t1 - t0))"
	echo "$figs" | tr ' ' '\n' | grep .
} > "$OUT/workload.txt"
log "replay"
t2=$(date +%s)
python3 "$CRASH/replay.py" /dev/vdb /dev/vdc /dev/ram0,/dev/ram1 /tmp/records /mnt/r "$OUT" \
	--label "$KSERIES knobs $KNOBS" --base /dev/vdd
rc=$?
echo "replay_seconds=$(( $(date +%s) - t2 ))" >> "$OUT/workload.txt"
[ $rc = 0 ] || fail "replay found failures (see $OUT/replay-points.txt)"
points=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["points"])' "$OUT/replay-result.json")
assert_cmp "points replayed and checked" "$points" -ge "$MIN_POINTS"
crash_journal_checks "$figs" "$KNOBS"
echo "crash replay ($KSERIES, knobs $KNOBS): all points passed"
