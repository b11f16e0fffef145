#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test: lock_delay_max_ms switched on and off under load (issue 22,
# item 5).  Handles count early handles only while a delay is set, behind
# a static key that is on while some journal holds a reference; counting
# changes only at T_SWITCH.  Two file systems (two journals, one shared
# key), on each 2 writers of tiny handles (fchmod) and an fsync loop
# (commits), while a toggler writes lock_delay_max_ms 0 / 200 to both
# journals at random moments for DUR_S seconds.  Asserted:
#  - commits waited before locking on both (lock_delays > 0): the
#    delay works again after every re-enable;
#  - no WARNING (the early-handle count is checked at every T_SWITCH:
#    a handle counted at start and not at stop, or the reverse, would
#    trip it; tests/vm/run fails on it);
#  - both knobs end at 0, e2fsck -fn clean.
# vm-disk: 128M
# vm-disk: 128M
# vm-timeout: 300
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

DUR_S=${KMOD_LDT_SECONDS:-20}
kmod_setup
ja=$(fresh_ext4 /dev/vda /mnt/a) || exit 1
jb=$(fresh_ext4 /dev/vdb /mnt/b) || exit 1
log "toggling lock_delay_max_ms on $ja and $jb for ${DUR_S}s under load"
python3 - /mnt/a /mnt/b "$CFS/$ja/lock_delay_max_ms" "$CFS/$jb/lock_delay_max_ms" "$DUR_S" <<'PY' || fail "load"
import os, random, sys, time
mnts, knobs, dur = sys.argv[1:3], sys.argv[3:5], float(sys.argv[5])
stop = time.monotonic() + dur
pids = []
def child(fn):
    pid = os.fork()
    if pid == 0:
        try:
            fn()
        finally:
            os._exit(0)
    pids.append(pid)
def chmodder(mnt, i):
    fd = os.open(os.path.join(mnt, "c%d" % i), os.O_CREAT | os.O_RDWR, 0o644)
    n = 0
    while time.monotonic() < stop:
        os.fchmod(fd, 0o600 if n & 1 else 0o644)
        n += 1
def syncer(mnt):
    fd = os.open(os.path.join(mnt, "s"), os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
    while time.monotonic() < stop:
        os.write(fd, b"s" * 512)
        os.fsync(fd)
        time.sleep(0.01)
for m in mnts:
    for i in range(2):
        child(lambda m=m, i=i: chmodder(m, i))
    child(lambda m=m: syncer(m))
flips = 0
while time.monotonic() < stop:
    for k in knobs:
        with open(k, "w") as f:
            f.write(random.choice(["0", "200", "200"]) + "\n")
        flips += 1
    time.sleep(random.uniform(0.005, 0.15))
for k in knobs:
    with open(k, "w") as f:
        f.write("0\n")
rc = 0
for p in pids:
    rc |= os.waitstatus_to_exitcode(os.waitpid(p, 0)[1])
print("knob writes: %d" % flips)
sys.exit(rc)
PY
for j in "$ja" "$jb"; do
	echo "RESULT ($KSERIES) $j: lock_delays=$(jattr "$j" lock_delays) lock_delay_max_us=$(jattr "$j" lock_delay_max_us) commits=$(jattr "$j" commits)"
	assert_cmp "$j: lock_delays" "$(jattr "$j" lock_delays)" -gt 0
	assert_eq "$j: knob at the end" 0 "$(jattr "$j" lock_delay_max_ms)"
done
run_ok umount umount /mnt/a /mnt/b
fsck_clean /dev/vda
fsck_clean /dev/vdb
echo "kmod-lock-delay-toggle: all checks passed"
