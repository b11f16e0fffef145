#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write faults under an fsync load (VM side; tests/crash/run boots it for
# each series).  jbd2 is loaded with the knobs as module defaults
# (CRASH_KNOBS, default on), a 64 MB ext4 with a 4 MiB journal sits on a
# linear device-mapper device, and flakey.py runs the writers and the
# noise of workload.py on it, swaps the table for dm-flakey dropping
# writes, then failing them, and checks: the writers stop on errors, the
# journal aborts, umount works, and after the table is linear again a
# mount recovers everything fsync'ed before the fault; e2fsck -fn clean.
# The kernel log must show no WARNING, BUG or Oops (tests/vm/run).
# CRASH_BREAK=nofsync|hash breaks the writers (workload.py): must fail.
# vm-disk: 64M
# vm-memory: 1536
# vm-timeout: 900
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"
source "$PROJECT/tests/crash/lib.sh"

KNOBS=${CRASH_KNOBS:-on}
WRITERS=${CRASH_WRITERS:-4}
NOISE=${CRASH_NOISE:-200}
BREAK=${CRASH_BREAK:-}

crash_modules "$KNOBS"
mkfs_ext4 /dev/vda -J size=4
run_ok "linear device" dmsetup create fl --table "0 $(blockdev --getsz /dev/vda) linear /dev/vda 0"
mkdir -p /mnt/a
run_ok mount mount -t ext4 /dev/mapper/fl /mnt/a
j=$(journal_name /dev/mapper/fl)
[ -n "$j" ] || fail "no journal for /dev/mapper/fl"
crash_knobs "$j" "$KNOBS"

log "fsync load, then dm-flakey: drop writes, then fail them"
python3 "$CRASH/flakey.py" fl /dev/vda /mnt/a /tmp/records "$OUT" "$j" \
	--writers "$WRITERS" --noise "$NOISE" ${BREAK:+--break "$BREAK"}
rc=$?
cp -r /tmp/records "$OUT/records"
dmesg | grep -E 'Aborting journal|EXT4-fs (error|warning)|JBD2' | head -n 20
[ $rc = 0 ] || fail "flakey"
run_ok "remove fl" dmsetup remove fl
echo "crash flakey ($KSERIES, knobs $KNOBS): passed"
