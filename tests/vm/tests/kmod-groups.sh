#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test 1: two ext4 file systems mounted -> two configfs groups named as
# in /proc/fs/jbd2; log_blocks equals the journal length dumpe2fs reports,
# free_blocks <= log_blocks; every attribute reads; umount one -> its group
# is gone, the other still answers.
# vm-disk: 128M
# vm-disk: 160M
# vm-timeout: 180
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

kmod_setup
ja=$(fresh_ext4 /dev/vda /mnt/a -J size=8) || exit 1
jb=$(fresh_ext4 /dev/vdb /mnt/b -J size=16) || exit 1

assert_eq "configfs groups" "$(ls /proc/fs/jbd2 | sort | tr '\n' ' ')" \
	"$(ls "$CFS" | sort | tr '\n' ' ')"
for j in "$ja" "$jb"; do
	[ -d "$CFS/$j" ] || fail "no group $j"
done

for pair in "$ja /dev/vda" "$jb /dev/vdb"; do
	set -- $pair
	assert_eq "$1 log_blocks (dumpe2fs Journal length)" \
		"$(dev_journal_blocks "$2")" "$(jattr "$1" log_blocks)"
	assert_cmp "$1 free_blocks <= log_blocks" \
		"$(jattr "$1" free_blocks)" -le "$(jattr "$1" log_blocks)"
	assert_cmp "$1 free_blocks > 0" "$(jattr "$1" free_blocks)" -gt 0
	assert_cmp "$1 max_transaction_blocks > 0" \
		"$(jattr "$1" max_transaction_blocks)" -gt 0
	assert_eq "$1 force_copy" 0 "$(jattr "$1" force_copy)"
	assert_eq "$1 reclaim_watermark_pct" 0 "$(jattr "$1" reclaim_watermark_pct)"
	assert_eq "$1 shadow_wait_hist buckets" 24 \
		"$(jattr "$1" shadow_wait_hist | wc -w)"
	assert_eq "$1 force_copy mode" 644 "$(stat -c %a "$CFS/$1/force_copy")"
	assert_eq "$1 log_blocks mode" 444 "$(stat -c %a "$CFS/$1/log_blocks")"
done
echo "attributes of $ja:"
dump_journal "$ja"
# the group holds exactly the attributes the ABI document describes
abi="$PROJECT/Documentation/ABI/testing/configfs-jbd2"
want=$(sed -n 's|^What:.*/<journal>/||p' "$abi" | sort | tr '\n' ' ')
assert_cmp "attributes in the ABI document" "$(echo $want | wc -w)" -ge 37
assert_eq "attribute files = ABI document" "$want" \
	"$(ls "$CFS/$ja" | sort | tr '\n' ' ')"

# some metadata traffic, then the figures still read
mkdir /mnt/a/d{1..200} || fail "mkdir"
sync
assert_cmp "$ja free_blocks <= log_blocks after writes" \
	"$(jattr "$ja" free_blocks)" -le "$(jattr "$ja" log_blocks)"

run_ok "umount vda" umount /mnt/a
[ -e "$CFS/$ja" ] && fail "group $ja still there after umount"
echo "ok: group $ja gone"
assert_eq "$jb still answers log_blocks" "$(dev_journal_blocks /dev/vdb)" \
	"$(jattr "$jb" log_blocks)"
run_ok "umount vdb" umount /mnt/b
assert_eq "groups left" "" "$(ls "$CFS")"
echo "kmod-groups: all checks passed"
