#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test 3: lifecycle.  An fd kept open on force_copy across umount
# reads and writes an error afterwards (no oops); 200 mount/umount cycles
# while another process reads every attribute in a loop; rmmod jbd2 is
# refused while a file system is mounted and works afterwards, also with
# a process sitting in a group directory (which then cannot be opened:
# ENOENT, no oops); the module loads again and the group comes back.
# vm-disk: 64M
# vm-timeout: 420
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

kmod_setup
j=$(fresh_ext4 /dev/vda /mnt/a -J size=4) || exit 1

# 1. fd open across umount (opened, never read: configfs caches a read)
exec 3<> "$CFS/$j/force_copy"
exec 4< "$CFS/$j/shadow_wait_hist"
run_ok umount umount /mnt/a
[ -e "$CFS/$j" ] && fail "group still there"
if r=$(cat <&3 2>&1); then fail "read of the stale fd succeeded: '$r'"; fi
echo "ok: read after umount fails: $r"
if r=$( (printf '1\n' >&3) 2>&1); then fail "write to the stale fd succeeded"; fi
echo "ok: write after umount fails: $r"
if r=$(cat <&4 2>&1); then fail "read of the stale hist fd succeeded: '$r'"; fi
echo "ok: hist read after umount fails: $r"
r=$(rmmod jbd2 2>&1) && fail "rmmod jbd2 succeeded with ext4 loaded"
exec 3>&- 4<&-
echo "ok: stale fds closed"

# 2. 200 mount/umount cycles with a concurrent reader of every attribute;
# mount(2)/umount(2) and the reads from python, since a fork+exec per step
# costs a good part of a second under TCG
python3 - "$CFS" "$j" <<'PY' || fail "mount cycles"
import ctypes, os, sys, time
cfs, j = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
reader = os.fork()
if reader == 0:
    ok = 0
    while not os.path.exists("/tmp/stop"):
        try:
            groups = os.listdir(cfs)
        except OSError:
            groups = []
        for g in groups:
            try:
                names = os.listdir(os.path.join(cfs, g))
            except OSError:
                continue
            for n in names:
                try:
                    with open(os.path.join(cfs, g, n)) as f:
                        f.read()
                    ok += 1
                except OSError:
                    pass
        time.sleep(0.005)
    with open("/tmp/reads", "w") as f:
        f.write("%d\n" % ok)
    os._exit(0)
for i in range(1, 201):
    if libc.mount(b"/dev/vda", b"/mnt/a", b"ext4", 0, None):
        sys.exit("mount cycle %d: %s" % (i, os.strerror(ctypes.get_errno())))
    if i % 4 == 0:
        with open("/mnt/a/f%d" % i, "w") as f:
            f.write("x\n")
    if not os.path.isdir(os.path.join(cfs, j)):
        sys.exit("no group in cycle %d" % i)
    if libc.umount2(b"/mnt/a", 0):
        sys.exit("umount cycle %d: %s" % (i, os.strerror(ctypes.get_errno())))
open("/tmp/stop", "w").close()
_, st = os.waitpid(reader, 0)
print("ok: 200 mount/umount cycles")
sys.exit(os.waitstatus_to_exitcode(st))
PY
assert_cmp "attribute reads that succeeded during the cycles" "$(cat /tmp/reads)" -gt 0
assert_eq "groups left after 200 cycles" "" "$(ls "$CFS")"
fsck_clean /dev/vda

# 3. rmmod refused while mounted, fine afterwards, load again
run_ok mount mount -t ext4 /dev/vda /mnt/a
r=$(rmmod jbd2 2>&1) && fail "rmmod jbd2 succeeded while mounted"
echo "ok: rmmod jbd2 refused while mounted: $r"
r=$(rmmod ext4 2>&1) && fail "rmmod ext4 succeeded while mounted"
grep -q '^jbd2 ' /proc/modules || fail "jbd2 gone"
# a process whose cwd is the group, with an O_PATH fd on it too: neither
# holds the module, and opening the dead directory after rmmod must fail
# cleanly (on 6.12 the group's directory has the module's file operations
# while it lives: they must be gone before the module is)
rm -f /tmp/holder.ready /tmp/holder.go
python3 - "$CFS/$j" > /tmp/holder.out 2>&1 <<'PY' &
import errno, os, sys, time
fd = os.open(sys.argv[1], os.O_PATH | os.O_DIRECTORY)
os.chdir(sys.argv[1])
open("/tmp/holder.ready", "w").close()
while not os.path.exists("/tmp/holder.go"):
    time.sleep(0.05)
res = []
for how, path in (("cwd", "."), ("O_PATH fd", "/proc/self/fd/%d" % fd)):
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_DIRECTORY))
        res.append("%s: opened" % how)
    except OSError as e:
        res.append("%s: %s" % (how, errno.errorcode.get(e.errno, e.errno)))
print(", ".join(res))
PY
holder=$!
for _ in $(seq 100); do [ -e /tmp/holder.ready ] && break; sleep 0.1; done
[ -e /tmp/holder.ready ] || fail "the holder did not start: $(cat /tmp/holder.out)"
run_ok umount umount /mnt/a
run_ok "rmmod ext4" rmmod ext4
run_ok "rmmod jbd2 (a cwd and an O_PATH fd in a dead group)" rmmod jbd2
[ -e "$CFS" ] && fail "$CFS still there after rmmod"
echo "ok: jbd2 unloaded, $CFS gone"
touch /tmp/holder.go
wait "$holder" || fail "the holder failed: $(cat /tmp/holder.out)"
assert_eq "opening the dead group after rmmod" "cwd: ENOENT, O_PATH fd: ENOENT" "$(cat /tmp/holder.out)"
kmod_setup
run_ok "mount after reload" mount -t ext4 /dev/vda /mnt/a
[ -d "$CFS/$j" ] || fail "no group after reload"
assert_eq "force_copy after reload" 0 "$(jattr "$j" force_copy)"
run_ok umount umount /mnt/a
fsck_clean /dev/vda
echo "kmod-lifecycle: all checks passed"
