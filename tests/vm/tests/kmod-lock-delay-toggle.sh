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
# Off means free, with kprobes on every function of our module named
# jbd2tune_handle_joined* or jbd2tune_handle_leaving* (the slow paths
# behind the static key; before the key, jbd2tune_handle_joined() and
# jbd2tune_handle_leaving() themselves, called for every handle; not
# jbd2tune_handle_start(), the reclaim watermark's and space events' test
# of free space), their hits read from kprobe_profile around a
# loop of HANDLES creates and unlinks on the first journal:
#  - before the toggling, lock_delay_max_ms 0 on every journal (as
#    loaded): 0 hits, so no handle reached our per-handle code (no
#    atomic, no load of ours);
#  - lock_delay_max_ms 200 on it: hits >= HANDLES (the probes see the
#    path when it runs, so the check above can fail);
#  - after the toggling, both knobs 0 and one commit on each (counting
#    stops at its T_SWITCH, a work item then drops the journal's
#    reference to the key): 0 hits again, so the key's references came
#    back to none through the random switching.
# The old code (handle hooks called unconditionally) fails the first of
# these with a hit for every handle start and stop.
# vm-disk: 128M
# vm-disk: 128M
# vm-timeout: 300
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

DUR_S=${KMOD_LDT_SECONDS:-20}
HANDLES=${KMOD_LDT_HANDLES:-2000}
T=/sys/kernel/tracing
kmod_setup
mountpoint -q $T || mount -t tracefs none $T 2>/dev/null || true
[ -w $T/kprobe_events ] || fail "no kprobe_events in $T (CONFIG_KPROBE_EVENTS)"
ja=$(fresh_ext4 /dev/vda /mnt/a) || exit 1
jb=$(fresh_ext4 /dev/vdb /mnt/b) || exit 1
for j in "$CFS"/*/; do
	assert_eq "lock_delay_max_ms of $(basename "$j") as loaded" 0 \
		"$(cat "$j/lock_delay_max_ms")"
done

# our module's per-handle lock-delay functions, as the running module has them
# (no /dev/fd in the guest: no process substitution)
fns=()
read -r -a fns <<<"$(awk '$4 == "[jbd2]" && $2 ~ /^[tT]$/ &&
	$3 ~ /^jbd2tune_handle_(joined|leaving)/ { print $3 }' /proc/kallsyms | sort -u | tr '\n' ' ')"
[ "${#fns[@]}" -ge 2 ] || fail "no jbd2tune_handle_joined*/leaving* functions in the jbd2 module"
echo "probed: ${fns[*]}"

# probes_arm - (re)create the probes, so that their hit counts start at 0
probes_arm() {
	local f i=0

	[ -e $T/events/kprobes/enable ] && echo 0 > $T/events/kprobes/enable
	echo > $T/kprobe_events
	for f in "${fns[@]}"; do
		echo "p:kprobes/jt_h$i $f" >> $T/kprobe_events ||
			fail "kprobe on $f (see $T/error_log)"
		i=$((i + 1))
	done
	echo 1 > $T/events/kprobes/enable || fail "enable the kprobes"
}

# probes_hits - the probes' summed hits
probes_hits() {
	awk '$1 ~ /^jt_h[0-9]+$/ { s += $2 } END { print s + 0 }' $T/kprobe_profile
}

# churn - HANDLES creates and as many unlinks on the journal, then a sync
churn() {
	python3 - /mnt/a/churn "$HANDLES" <<'PY' || fail "create/unlink loop"
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
for i in range(n):
    p = os.path.join(d, str(i))
    os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o644))
    os.unlink(p)
PY
	sync -f /mnt/a
}

probes_arm
churn
hits=$(probes_hits)
echo "lock_delay_max_ms 0: $hits hits in $HANDLES creates and unlinks"
assert_eq "hits of our per-handle code with every lock delay off" 0 "$hits"
jset "$ja" lock_delay_max_ms 200
sync -f /mnt/a		# counting starts at the T_SWITCH of this commit
probes_arm
churn
hits=$(probes_hits)
echo "lock_delay_max_ms 200: $hits hits in $HANDLES creates and unlinks"
assert_cmp "hits of our per-handle code with a lock delay set" "$hits" -ge "$HANDLES"
jset "$ja" lock_delay_max_ms 0

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
sync -f /mnt/a; sync -f /mnt/b	# counting stops at these commits' T_SWITCH
sleep 1				# and the work items drop the key
probes_arm
churn
hits=$(probes_hits)
echo "lock_delay_max_ms 0 after the toggling: $hits hits in $HANDLES creates and unlinks"
assert_eq "hits of our per-handle code after the toggling" 0 "$hits"
echo 0 > $T/events/kprobes/enable
echo > $T/kprobe_events
run_ok umount umount /mnt/a /mnt/b
fsck_clean /dev/vda
fsck_clean /dev/vdb
echo "kmod-lock-delay-toggle: all checks passed"
