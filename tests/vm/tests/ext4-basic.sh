#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ext4 on our jbd2 (and on the stock one): mkfs, mount, write files with
# fsync, umount, e2fsck -fn clean, remount and compare byte for byte;
# rmmod ext4 jbd2 and load them again.
# vm-disk: 256M
# vm-timeout: 240
# vm-flavours: ours stock
source "$PROJECT/tests/vm/lib.sh"

load_ext4
grep -q '^jbd2 ' /proc/modules || fail "jbd2 not loaded with ext4"
# Ours is built out of tree and Debian's is not: the kernel marks our
# jbd2 with taint O, the stock one carries no taint.  Debian signs its
# modules and we do not, so a kernel with module signing (sig_enforce
# exists: Debian's) adds E (unsigned); the debug kernel has no signing.
if [ "$FLAVOUR" = ours ]; then
	t=$(cat /sys/module/jbd2/taint)
	case "$t" in *O*) echo "ok: jbd2 taint '$t' (out of tree = ours)" ;;
	*) fail "jbd2 taint '$t' lacks O: the stock module was loaded" ;; esac
	if [ -e /sys/module/module/parameters/sig_enforce ]; then
		case "$t" in *E*) echo "ok: jbd2 taint '$t' (unsigned, on a signing kernel)" ;;
		*) fail "jbd2 taint '$t' lacks E on a kernel with module signing" ;; esac
	fi
else
	assert_eq "jbd2 taint (signed = stock)" "" "$(cat /sys/module/jbd2/taint)"
fi

j=$(fresh_ext4 /dev/vda /mnt/a -J size=8) || exit 1
log "journal $j"

# reference data on tmpfs, copied with fsync per file
mkdir -p /tmp/ref
for i in $(seq 1 40); do
	head -c $((i * 7919)) /dev/urandom > "/tmp/ref/f$i"
done
mkdir -p /tmp/ref/dir/sub
head -c 1048576 /dev/urandom > /tmp/ref/dir/sub/big
for f in $(cd /tmp/ref && find . -type f); do
	mkdir -p "/mnt/a/$(dirname "$f")"
	dd if="/tmp/ref/$f" of="/mnt/a/$f" conv=fsync status=none ||
		fail "write $f"
done
sync
run_ok umount umount /mnt/a
fsck_clean /dev/vda

run_ok remount mount -t ext4 /dev/vda /mnt/a
run_ok "contents equal" diff -r /tmp/ref /mnt/a --exclude=lost+found
echo "ok: $(find /tmp/ref -type f | wc -l) files identical after remount"
run_ok umount umount /mnt/a

run_ok "rmmod ext4" rmmod ext4
run_ok "rmmod jbd2" rmmod jbd2
grep -q '^jbd2 ' /proc/modules && fail "jbd2 still loaded"
load_ext4
run_ok "mount after reload" mount -t ext4 /dev/vda /mnt/a
run_ok "contents after reload" diff -r /tmp/ref /mnt/a --exclude=lost+found
run_ok umount umount /mnt/a
fsck_clean /dev/vda
echo "ext4-basic: all checks passed"
