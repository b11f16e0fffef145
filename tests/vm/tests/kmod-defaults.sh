#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test 6: module parameters.  Set force_copy_default,
# reclaim_watermark_pct_default and lock_delay_max_ms_default, mount -> the
# new journal's knobs equal them; a journal that exists keeps its values when the parameters change;
# parameters given at load time apply too, and an invalid one makes the
# load fail.
# vm-disk: 64M
# vm-disk: 64M
# vm-timeout: 180
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

kmod_setup
assert_eq "force_copy_default at load" 0 "$(cat "$PARAMS/force_copy_default")"
assert_eq "reclaim_watermark_pct_default at load" 0 \
	"$(cat "$PARAMS/reclaim_watermark_pct_default")"
assert_eq "lock_delay_max_ms_default at load" 0 "$(cat "$PARAMS/lock_delay_max_ms_default")"
mkfs_ext4 /dev/vda -J size=4
mkfs_ext4 /dev/vdb -J size=4
mkdir -p /mnt/a /mnt/b

echo 1 > "$PARAMS/force_copy_default" || fail "set force_copy_default"
echo 35 > "$PARAMS/reclaim_watermark_pct_default" || fail "set watermark default"
echo 3000 > "$PARAMS/lock_delay_max_ms_default" || fail "set lock delay default"
run_ok "mount vda" mount -t ext4 /dev/vda /mnt/a
ja=$(journal_name /dev/vda)
assert_eq "$ja force_copy = default" 1 "$(jattr "$ja" force_copy)"
assert_eq "$ja reclaim_watermark_pct = default" 35 "$(jattr "$ja" reclaim_watermark_pct)"
assert_eq "$ja lock_delay_max_ms = default" 3000 "$(jattr "$ja" lock_delay_max_ms)"

echo 0 > "$PARAMS/force_copy_default" || fail "set force_copy_default"
echo 60 > "$PARAMS/reclaim_watermark_pct_default" || fail "set watermark default"
echo 0 > "$PARAMS/lock_delay_max_ms_default" || fail "set lock delay default"
assert_eq "$ja keeps force_copy" 1 "$(jattr "$ja" force_copy)"
assert_eq "$ja keeps lock_delay_max_ms" 3000 "$(jattr "$ja" lock_delay_max_ms)"
assert_eq "$ja keeps reclaim_watermark_pct" 35 "$(jattr "$ja" reclaim_watermark_pct)"
run_ok "mount vdb" mount -t ext4 /dev/vdb /mnt/b
jb=$(journal_name /dev/vdb)
assert_eq "$jb force_copy = new default" 0 "$(jattr "$jb" force_copy)"
assert_eq "$jb reclaim_watermark_pct = new default" 60 "$(jattr "$jb" reclaim_watermark_pct)"
assert_eq "$jb lock_delay_max_ms = new default" 0 "$(jattr "$jb" lock_delay_max_ms)"

# a remount is a new journal: it takes the current defaults
run_ok "umount vda" umount /mnt/a
run_ok "mount vda again" mount -t ext4 /dev/vda /mnt/a
assert_eq "$ja force_copy after remount" 0 "$(jattr "$ja" force_copy)"
assert_eq "$ja reclaim_watermark_pct after remount" 60 "$(jattr "$ja" reclaim_watermark_pct)"
run_ok umount umount /mnt/a /mnt/b

# load-time parameters
run_ok "rmmod ext4" rmmod ext4
run_ok "rmmod jbd2" rmmod jbd2
if modprobe jbd2 force_copy_default=2 2>/dev/null; then
	fail "modprobe with force_copy_default=2 succeeded"
fi
grep -q '^jbd2 ' /proc/modules && fail "jbd2 loaded despite an invalid parameter"
echo "ok: modprobe jbd2 force_copy_default=2 refused"
if modprobe jbd2 reclaim_watermark_pct_default=abc 2>/dev/null; then
	fail "modprobe with reclaim_watermark_pct_default=abc succeeded"
fi
echo "ok: modprobe jbd2 reclaim_watermark_pct_default=abc refused"
if modprobe jbd2 lock_delay_max_ms_default=10001 2>/dev/null; then
	fail "modprobe with lock_delay_max_ms_default=10001 succeeded"
fi
echo "ok: modprobe jbd2 lock_delay_max_ms_default=10001 refused"
run_ok "modprobe with parameters" modprobe jbd2 force_copy_default=1 \
	reclaim_watermark_pct_default=20 lock_delay_max_ms_default=7000
assert_eq "force_copy_default from modprobe" 1 "$(cat "$PARAMS/force_copy_default")"
assert_eq "reclaim_watermark_pct_default from modprobe" 20 \
	"$(cat "$PARAMS/reclaim_watermark_pct_default")"
kmod_setup
run_ok "mount vda" mount -t ext4 /dev/vda /mnt/a
assert_eq "$ja force_copy from load-time default" 1 "$(jattr "$ja" force_copy)"
assert_eq "$ja reclaim_watermark_pct from load-time default" 20 \
	"$(jattr "$ja" reclaim_watermark_pct)"
assert_eq "$ja lock_delay_max_ms from load-time default" 7000 "$(jattr "$ja" lock_delay_max_ms)"
run_ok umount umount /mnt/a
fsck_clean /dev/vda
fsck_clean /dev/vdb
echo "kmod-defaults: all checks passed"
