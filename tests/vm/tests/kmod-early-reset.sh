#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test: a wrong early-handle count is corrected at T_SWITCH (issue 22,
# item 4).  The lock delay waits, at most lock_delay_max_ms, for the
# handles counted as open when the commit began; at T_SWITCH no handle is
# open, so jbd2tune_lock_delay_done() warns once if the count is not 0 and
# starts again from 0.  Without that reset one miscount would make every
# later commit of the journal wait the whole bound.  No load can make the
# count wrong, so the test module early_skew (tests/vm/modules/) adds one
# to it at one T_SWITCH of the journal.
#
# One fsync'ing writer (512 B append + fsync, then a 50 ms pause: no other
# handle is open when its commits begin), lock_delay_max_ms BOUND_MS:
#   before   N_FSYNC fsyncs
#   fault    early_skew loaded, one fsync: the kernel log shows the skew
#            and our warning (expected here: # vm-expect-warning)
#   after    N_FSYNC fsyncs
# Asserted: the fault was injected once, on this journal, and warned once;
# after it no lock delay lasted a quarter of the bound or more (2^18 us,
# the histogram's bucket edge; the code without the reset: every commit
# of "after" waited the whole bound);
# commits went on (commits grew by at least N_FSYNC / 2), e2fsck -fn clean.
# vm-disk: 128M
# vm-timeout: 300
# vm-test-module: early_skew
# vm-expect-warning: jbd2tune_lock_delay_done
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

BOUND_MS=1000
N_FSYNC=20
kmod_setup
j=$(fresh_ext4 /dev/vda /mnt/a) || exit 1
jset "$j" lock_delay_max_ms "$BOUND_MS"

# fsyncs N - N appends of 512 B, each fsync'ed, 50 ms apart
fsyncs() {
	python3 - /mnt/a/log "$1" <<'PY' || fail "fsync load"
import os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
for _ in range(int(sys.argv[2])):
    os.write(fd, b"x" * 512)
    os.fsync(fd)
    time.sleep(0.05)
PY
}
# long_delays - lock delays of LONG_US or more (the histogram's buckets
# from b = 18 on: 262 ms, a quarter of the bound)
LONG_US=262144
long_delays() {
	hist_sum_from "$j" lock_delay_hist 18
}

# the knob takes effect from the commit after the one it starts
fsyncs "$N_FSYNC"
long0=$(long_delays) delays0=$(jattr "$j" lock_delays)
log "before: lock_delays $delays0, of $LONG_US us or more $long0, max $(jattr "$j" lock_delay_max_us) us"

insmod "$OUT/test-modules/early_skew/early_skew.ko" || fail "insmod early_skew"
# the fsync returns after its commit, so after the T_SWITCH that the probe
# skewed and after both log lines
fsyncs 1
dmesg | grep -E 'early_skew|jbd2tune_lock_delay_done' | head -n 5
assert_eq "faults injected (early_skew's log lines)" 1 "$(dmesg | grep -c 'early_skew: .*early-handle count set to')"
dmesg | grep -q "early_skew: $j: early-handle count set to 1" ||
	fail "the fault did not hit $j with a count of 0 before it"
assert_eq "warnings from jbd2tune_lock_delay_done" 1 \
	"$(dmesg | grep -c 'WARNING: .*jbd2tune_lock_delay_done')"
rmmod early_skew || fail "rmmod early_skew"

commits0=$(jattr "$j" commits)
long1=$(long_delays)
fsyncs "$N_FSYNC"
long2=$(long_delays) delays2=$(jattr "$j" lock_delays) commits2=$(jattr "$j" commits)
echo "RESULT ($KSERIES) $j: after the fault: lock_delays $((delays2 - delays0)) since before," \
	"of $LONG_US us or more $((long2 - long1)), commits $((commits2 - commits0))"
assert_eq "lock delays of $LONG_US us or more after the fault (bound $BOUND_MS ms)" \
	0 $((long2 - long1))
assert_cmp "commits after the fault" $((commits2 - commits0)) -ge $((N_FSYNC / 2))

jset "$j" lock_delay_max_ms 0
run_ok umount umount /mnt/a
fsck_clean /dev/vda
