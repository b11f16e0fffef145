#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test: a journal's group is removed (umount) while other processes
# list it, lseek in it, rmdir it and rename out of it.  configfs does not
# lock the group's directory in configfs_unregister_group(), so before
# the module held that lock around the call, a readdir of the group during
# umount left the readdir cursor beside a freed dirent: "list_del
# corruption" in configfs_dir_close() and every later umount spinning on
# configfs_dirent_lock (first seen in CI in kmod-lifecycle on 6.12; this
# test failed within 10 s on both series).  configfs's lseek takes no
# inode lock at all, and on 6.12 an lseek storm made umount follow a
# poisoned list pointer (general protection fault in detach_groups())
# until the module wrapped the directory's llseek.  Listings must hold
# each attribute at most once and nothing else; rmdir(2) of the group and
# rename(2) out of it (which lock the subsystem directory, then the group:
# the reverse of the module's order) must fail with EPERM or ENOENT and not
# hang umount; the subsystem directory must be append-only (chmod EPERM),
# which is what keeps rmdir from locking a group.  See
# kmod/src/jbd2tune_configfs.c.
# vm-disk: 64M
# vm-timeout: 300
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

kmod_setup
j=$(fresh_ext4 /dev/vda /mnt/a -J size=4) || exit 1
attrs=$(ls "$CFS/$j" | sort | tr '\n' ' ')
run_ok umount umount /mnt/a

python3 - "$CFS" "$j" "$attrs" <<'PY' || fail "readdir/lseek/rmdir racers against 300 mount cycles"
import ctypes, errno, os, sys, time
cfs, j, attrs = sys.argv[1], sys.argv[2], set(sys.argv[3].split())
group = os.path.join(cfs, j)
libc = ctypes.CDLL(None, use_errno=True)

def on_group_dir(steps, step):
    """Open the group's directory, call step(fd, i) for i < steps, close
    it; again until /tmp/stop.  Returns the sum of what step returned, or
    None once a step returned None (a failure it has printed)."""
    done = 0
    while not os.path.exists("/tmp/stop"):
        try:
            fd = os.open(group, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            for i in range(steps):
                r = step(fd, i)
                if r is None:
                    return None
                done += r
        except OSError:
            pass
        finally:
            os.close(fd)
    return done

def lister(k):
    # one open directory, read from the start again and again: the cursor
    # lives in the group's list of children while the group goes away
    def listing(fd, _):
        os.lseek(fd, 0, os.SEEK_SET)
        names = os.listdir(fd)
        if len(names) != len(set(names)) or not set(names) <= attrs:
            print("lister %d: bad listing %r" % (k, sorted(names)[:8]), flush=True)
            return None
        return len(names) == len(attrs)
    full = on_group_dir(50, listing)
    if full is None:
        return 1
    print("lister %d: %d full listings" % (k, full), flush=True)
    return 0 if full else 1

def seeker():
    # lseek() to 2 or more moves the cursor within the group's list
    seeks = on_group_dir(500, lambda fd, i: os.lseek(fd, 2 + i % 3, os.SEEK_SET) >= 0)
    print("seeker: %d seeks" % seeks, flush=True)
    return 0 if seeks else 1

def refused(what, call, *args):
    """True when call(*args) fails with EPERM or ENOENT; prints otherwise."""
    try:
        call(*args)
        print("remover: %s succeeded" % what, flush=True)
    except OSError as e:
        if e.errno in (errno.EPERM, errno.ENOENT):
            return True
        print("remover: %s: %s" % (what, os.strerror(e.errno)), flush=True)
    return False

def remover():
    tries = 0
    while not os.path.exists("/tmp/stop"):
        if not refused("rmdir of the group", os.rmdir, group):
            return 1
        # locks the subsystem directory, then the group (lock_rename())
        if not refused("rename out of the group", os.rename,
                       os.path.join(group, "force_copy"), os.path.join(cfs, "x")):
            return 1
        tries += 1
    print("remover: %d rmdir and rename calls refused" % tries, flush=True)
    return 0

kids = []
for fn in [lambda: lister(0), lambda: lister(1), seeker, remover]:
    pid = os.fork()
    if pid == 0:
        os._exit(fn())
    kids.append(pid)
for i in range(1, 301):
    if libc.mount(b"/dev/vda", b"/mnt/a", b"ext4", 0, None):
        sys.exit("mount cycle %d: %s" % (i, os.strerror(ctypes.get_errno())))
    time.sleep(0.002)
    if libc.umount2(b"/mnt/a", 0):
        sys.exit("umount cycle %d: %s" % (i, os.strerror(ctypes.get_errno())))
open("/tmp/stop", "w").close()
rc = 0
for p in kids:
    _, st = os.waitpid(p, 0)
    rc |= os.waitstatus_to_exitcode(st)
print("ok: 300 mount/umount cycles with listers, a seeker and a remover")
sys.exit(rc)
PY
assert_eq "groups left after the cycles" "" "$(ls "$CFS")"
r=$(rmdir "$CFS" 2>&1) && fail "rmdir of $CFS succeeded"
echo "ok: rmdir of the subsystem directory refused: $r"
assert_eq "chmod of $CFS (append-only)" EPERM "$(python3 -c '
import errno, os, sys
try:
    os.chmod(sys.argv[1], 0o700)
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])' "$CFS")"
fsck_clean /dev/vda
echo "kmod-readdir-race: all checks passed"
