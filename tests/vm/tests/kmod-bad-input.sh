#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test 2: input validation of the configfs knobs and the module
# parameters.  Every bad write returns EINVAL and leaves the value as it
# was; " 1\n" is accepted; mkdir/rmdir in the tree fail with EPERM; a
# non-root write fails with EACCES.
#
# "" is written as `echo "" >` does (a lone newline): a zero-length write(2)
# never reaches the kernel's store function (configfs and sysfs answer it
# before calling it), so for it we only check that nothing changes.
# vm-disk: 96M
# vm-timeout: 180
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

kmod_setup
j=$(fresh_ext4 /dev/vda /mnt/a -J size=4) || exit 1

# check_file PATH BASELINE TOO_BIG [GOOD] - all writes from one python
# process (a process start costs about a second under TCG); GOOD (default 1)
# is a second accepted value
check_file() {
	python3 - "$1" "$2" "$3" "${4:-1}" <<'PY' || fail "$1: validation"
import errno, os, sys
path, base, big, good = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
bad = ["\n", "abc", "-1", "1x", "0x1", "99999999999999999999", "1 2", "+1",
       "1.0", "\t", "18446744073709551617", "4294967297", " 1 x\n", big]
def write(data):
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, data.encode())
        finally:
            os.close(fd)
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
def value():
    with open(path) as f:
        return f.read()
def check(what, want, got):
    if want != got:
        print("FAIL: %s: %s: expected %r, got %r" % (path, what, want, got))
        sys.exit(1)
check("set baseline %s" % base, "ok", write(base + "\n"))
for v in bad:
    check("write %r" % v, "EINVAL", write(v))
    check("value after %r" % v, base + "\n", value())
print("ok: %s: %d bad writes -> EINVAL, value stays %s" % (path, len(bad), base))
# what a zero-length write returns is the VFS's business (0 on 6.1,
# EFAULT from configfs on 6.12); it must not change anything
r = write("")
check("value after a zero-length write (%s)" % r, base + "\n", value())
check("' %s\\n' accepted" % good, "ok", write(" %s\n" % good))
check("value after ' %s\\n'" % good, good + "\n", value())
check("'0' accepted", "ok", write("0"))
check("value after '0'", "0\n", value())
print("ok: %s: ' %s\\n' and '0' accepted" % (path, good))
PY
	local r
	r=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c 'echo 1 > "$1" 2>&1' sh "$1" 2>&1)
	case "$r" in *"Permission denied"*) echo "ok: $1: non-root write: EACCES" ;;
	*) fail "$1: non-root write: '$r'" ;; esac
	assert_eq "$1: value after non-root write" 0 "$(cat "$1")"
}

check_file "$CFS/$j/force_copy" 1 2
# the watermark: only the journal's own range (reclaim_watermark_min_pct
# .. _max_pct) besides 0; below it (the foreground threshold's dead zone)
# and above it (out of reach) EINVAL, the knob unchanged
wmin=$(jattr "$j" reclaim_watermark_min_pct)
wmax=$(jattr "$j" reclaim_watermark_max_pct)
fg_pct=$(( ($(jattr "$j" max_transaction_blocks) * 100 + $(jattr "$j" log_blocks) - 1) /
	$(jattr "$j" log_blocks) ))
assert_eq "watermark range starts 5 points above the foreground threshold" \
	$((fg_pct + 5)) "$wmin"
assert_cmp "watermark range not empty" "$wmin" -lt "$wmax"
check_file "$CFS/$j/reclaim_watermark_pct" "$wmin" $((wmax + 1)) "$wmax"
for v in 1 $((wmin - 1)) 90; do
	run_ok "set watermark $wmin" jset "$j" reclaim_watermark_pct "$wmin"
	r=$(try_write "$CFS/$j/reclaim_watermark_pct" "$v")
	assert_eq "watermark $v (outside $wmin..$wmax)" EINVAL "$r"
	assert_eq "watermark after refused $v" "$wmin" "$(jattr "$j" reclaim_watermark_pct)"
done
check_file "$CFS/$j/lock_delay_max_ms" 2500 10001 10000
check_file "$PARAMS/force_copy_default" 1 2
check_file "$PARAMS/reclaim_watermark_pct_default" 30 91
check_file "$PARAMS/lock_delay_max_ms_default" 2500 10001 10000
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
