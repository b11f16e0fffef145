#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test: long handles step aside during the lock delay (issue 22,
# item 1).  lock_delay_max_ms 5000; a loop re-creates a file of NEXT
# one-block extents (every other block written) and truncates it to 0,
# beside a writer appending 512 B and fsync'ing every 20 ms, for DUR_S
# seconds.  ext4's truncate keeps one handle and extends it as it frees
# extents; at T_LOCKED an extend fails and the truncate restarts its
# handle.  Asserted:
#  - the commits did wait before locking (lock_delays > 0) and truncates
#    ran (>= 2);
#  - no delay lasted as long as half the longest truncate (plus the
#    guest's largest scheduling lag in the run): the truncate's
#    extend fails during the delay, so it steps aside and the delay ends;
#    before lock-delay-extend.patch the delay lasted nearly as long as the
#    truncate's handle (6.1: delay max 377 ms vs truncate max 451 ms;
#    6.12: 342 vs 422 ms), after it 97 vs 963 ms and 76 vs 620 ms;
#  - e2fsck -fn clean; no WARNING (the early-handle check at T_SWITCH).
# vm-disk: 256M
# vm-timeout: 300
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

NEXT=${KMOD_LDE_EXTENTS:-6000}
# x VM_SLOWDOWN on the debug kernel: under KASAN one round of re-creating
# and truncating the file took 25 s (6.1-debug: "truncates 1 max_ms 3448.8")
DUR_S=${KMOD_LDE_SECONDS:-$((25 * ${VM_SLOWDOWN:-1}))}
kmod_setup
j=$(fresh_ext4 /dev/vda /mnt/a) || exit 1
jset "$j" lock_delay_max_ms 5000
log "truncate loop ($NEXT one-block extents) beside an append+fsync writer, ${DUR_S}s"
lag_probe_start
python3 - /mnt/a "$NEXT" "$DUR_S" > "$OUT/load.txt" <<'PY' || fail "load"
import os, sys, time
mnt, next_, dur = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
stop = time.monotonic() + dur
wpid = os.fork()
if wpid == 0:
    fd = os.open(os.path.join(mnt, "log"), os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
    worst, n = 0.0, 0
    while time.monotonic() < stop:
        t = time.monotonic()
        os.write(fd, b"l" * 512)
        os.fsync(fd)
        worst = max(worst, time.monotonic() - t)
        n += 1
        time.sleep(0.02)
    print("writer fsyncs %d max_ms %.1f" % (n, worst * 1000))
    sys.stdout.flush()
    os._exit(0)
bs = os.statvfs(mnt).f_bsize
path = os.path.join(mnt, "holes")
tr, rounds = [], 0
while time.monotonic() < stop:
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o644)
    for i in range(next_):
        os.pwrite(fd, b"h" * bs, 2 * i * bs)
    os.fsync(fd)
    t = time.monotonic()
    os.ftruncate(fd, 0)
    tr.append(time.monotonic() - t)
    os.close(fd)
    rounds += 1
os.waitpid(wpid, 0)
print("truncates %d max_ms %.1f" % (rounds, max(tr) * 1000 if tr else 0))
PY
lag=$(lag_probe_stop)
cat "$OUT/load.txt"
ntr=$(awk '/^truncates/ { print $2 }' "$OUT/load.txt")
tmax_ms=$(awk '/^truncates/ { printf "%d", $4 }' "$OUT/load.txt")
delays=$(jattr "$j" lock_delays)
dus=$(jattr "$j" lock_delay_us)
dmax=$(jattr "$j" lock_delay_max_us)
echo "RESULT ($KSERIES): lock_delays=$delays lock_delay_us=$dus lock_delay_max_us=$dmax truncates=$ntr truncate_max_ms=$tmax_ms locked_wait_max_us=$(jattr "$j" locked_wait_max_us) commit_wait_max_us=$(jattr "$j" commit_wait_max_us) guest_lag_max_us=$lag"
echo "RESULT ($KSERIES): lock_delay_hist $(jattr "$j" lock_delay_hist)"
echo "($KSERIES) lock_delays=$delays lock_delay_us=$dus lock_delay_max_us=$dmax truncates=$ntr truncate_max_ms=$tmax_ms $(grep writer "$OUT/load.txt")" >> "$OUT/figures.txt"
assert_cmp "truncates" "$ntr" -ge 2
assert_cmp "lock_delays" "$delays" -gt 0
# a starved host (make check's lanes) stretches the delay by the time the
# commit thread waited for a CPU: the bound adds the largest lag the guest
# saw (lag_probe_start; seen in make check on 6.12: 412 vs 602 ms)
assert_cmp "longest lock delay (us) vs half the longest truncate, plus the guest's lag" \
	"$dmax" -lt $((tmax_ms * 500 + lag))
run_ok umount umount /mnt/a
fsck_clean /dev/vda
echo "kmod-lock-delay-extend: all checks passed"
