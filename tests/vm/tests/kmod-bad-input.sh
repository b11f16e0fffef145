#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test 2: input validation of the configfs knobs and the module
# parameters.  Every bad write returns EINVAL and leaves the value as it
# was; " 1\n" is accepted; mkdir/rmdir in the tree fail with EPERM; a
# non-root write fails with EACCES.
#
# "" is written as `echo "" >` does (a lone newline): a zero-length write(2)
# never reaches the kernel's store function (configfs and sysfs return 0
# before calling it), so for it we only check that nothing changes.
# vm-disk: 96M
# vm-timeout: 180
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

kmod_setup
mkfs_ext4 /dev/vda -J size=4
mkdir -p /mnt/a
run_ok mount mount -t ext4 /dev/vda /mnt/a
j=$(journal_name /dev/vda)
[ -n "$j" ] || fail "no journal"

bad_common=('\n' 'abc' '-1' '1x' '0x1' '99999999999999999999' '1 2' '+1' '1.0'
	'\t' '18446744073709551617' '4294967297')

# check_file PATH BASELINE TOO_BIG
check_file() {
	local path=$1 base=$2 big=$3 v r
	r=$(try_write "$path" "$base\n")
	assert_eq "$path: set baseline $base" ok "$r"
	for v in "${bad_common[@]}" "$big"; do
		r=$(try_write "$path" "$v")
		[ "$r" = EINVAL ] || fail "$path: write '$v' gave $r, expected EINVAL"
		[ "$(cat "$path")" = "$base" ] ||
			fail "$path: value changed to $(cat "$path") by '$v'"
	done
	echo "ok: $path: ${#bad_common[@]} + 1 bad writes -> EINVAL, value stays $base"
	r=$(try_write "$path" "")
	assert_eq "$path: value after a zero-length write" "$base" "$(cat "$path")"
	r=$(try_write "$path" ' 1\n')
	assert_eq "$path: ' 1\\n' accepted" ok "$r"
	assert_eq "$path: value after ' 1\\n'" 1 "$(cat "$path")"
	r=$(try_write "$path" '0')
	assert_eq "$path: '0' without newline accepted" ok "$r"
	assert_eq "$path: value after '0'" 0 "$(cat "$path")"
	r=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		python3 -c "
import errno, os, sys
try:
    fd = os.open(sys.argv[1], os.O_WRONLY); os.write(fd, b'1\n'); print('ok')
except OSError as e:
    print(errno.errorcode[e.errno])" "$path")
	assert_eq "$path: non-root write" EACCES "$r"
	assert_eq "$path: value after non-root write" 0 "$(cat "$path")"
}

check_file "$CFS/$j/force_copy" 1 2
check_file "$CFS/$j/reclaim_watermark_pct" 30 91
try_write "$CFS/$j/reclaim_watermark_pct" '90' | grep -qx ok ||
	fail "watermark 90 refused"
assert_eq "watermark 90" 90 "$(jattr "$j" reclaim_watermark_pct)"
check_file "$PARAMS/force_copy_default" 1 2
check_file "$PARAMS/reclaim_watermark_pct_default" 30 91
assert_eq "force_copy_default mode" 644 "$(stat -c %a "$PARAMS/force_copy_default")"

# read-only files refuse writes
r=$(try_write "$CFS/$j/log_blocks" '5\n')
case "$r" in EACCES|EPERM|EINVAL|EIO) echo "ok: log_blocks write refused ($r)" ;;
*) fail "log_blocks write gave $r" ;; esac

# the tree is the kernel's: no mkdir, no rmdir
r=$(mkdir "$CFS/foo" 2>&1) && fail "mkdir $CFS/foo succeeded"
case "$r" in *"not permitted"*) echo "ok: mkdir $CFS/foo: EPERM" ;;
*) fail "mkdir $CFS/foo: $r" ;; esac
r=$(mkdir "$CFS/$j/foo" 2>&1) && fail "mkdir in the group succeeded"
case "$r" in *"not permitted"*) echo "ok: mkdir $CFS/$j/foo: EPERM" ;;
*) fail "mkdir $CFS/$j/foo: $r" ;; esac
r=$(rmdir "$CFS/$j" 2>&1) && fail "rmdir $CFS/$j succeeded"
case "$r" in *"not permitted"*) echo "ok: rmdir $CFS/$j: EPERM" ;;
*) fail "rmdir $CFS/$j: $r" ;; esac
[ -d "$CFS/$j" ] || fail "group vanished"

run_ok umount umount /mnt/a
echo "kmod-bad-input: all checks passed"
