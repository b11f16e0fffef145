#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test: a forced copy-out that cannot be allocated never costs the
# journal.  With force_copy = 1, fault injection makes the commit thread's
# copy-out allocations fail (they are GFP_NOFS | __GFP_NORETRY |
# __GFP_NOWARN, see kmod/patches/6.1/force-copy.patch): the buffer is then
# logged from its own page and copyouts_forced_failed counts it.  The
# journal must not abort: no "Aborting journal", the file system stays rw,
# every write and fsync meanwhile succeeds, forced copies resume once the
# injection is used up, the contents survive a remount and e2fsck -fn is
# clean.  Two phases, each on a fresh file system:
#  A. 1 KiB blocks: the copy comes from the jbd2_1k slab.  failslab with
#     cache-filter (that cache only; its mark can only be set at boot:
#     tests/vm/run boots debug kernels with slub_debug=A,jbd2_1k) and
#     task-filter (the commit thread jbd2/<journal> only): every injected
#     failure is a forced copy, so copyouts_forced_failed grows by exactly
#     the number injected.
#  B. 4 KiB blocks: the copy is an order-0 page.  fail_page_alloc with
#     task-filter, ignore-gfp-wait=N (GFP_NOFS may sleep, the default
#     would skip it), min-order=0; it has no cache filter, so the load
#     keeps the commit thread's other allocations out of the way (each
#     file's data is on disk, written by its fsync, before the commit
#     runs) and the count is bounded: 1 <= failed <= injected.
# Each failure stops forcing for the rest of its commit, so
# force_copy_stops grows exactly as copyouts_forced_failed does.
# Other failures the injection forces are printed with a stack
# (verbose=2; the forced copy's __GFP_NOWARN keeps its own quiet).
# Needs CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC and
# CONFIG_FAULT_INJECTION_DEBUG_FS: the 6.1 debug kernel
# (kmod/debug/6.1.config).  Elsewhere it says SKIP and passes.
# vm-series: 6.1-debug
# vm-disk: 256M
# vm-timeout: 300
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

DBG=/sys/kernel/debug
if [ ! -d $DBG/failslab ] || [ ! -d $DBG/fail_page_alloc ]; then
	echo "SKIP: this kernel has no failslab/fail_page_alloc in debugfs" \
		"(run it with tests/vm/run kmod-fault-copy --kseries 6.1-debug)"
	exit 0
fi
TIMES=${KMOD_FAULT_TIMES:-40}
kmod_setup

# commit_pid JOURNAL - pid of the journal's commit thread jbd2/<journal>
commit_pid() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = "jbd2/$1" ] && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}

# inject ATTRDIR PID - fail every allocation ATTRDIR (failslab or
# fail_page_alloc) sees from task PID, TIMES times
inject() {
	local a=$DBG/$1
	echo 0 > "$a/probability"
	echo Y > "$a/task-filter"
	echo N > "$a/ignore-gfp-wait"
	echo 1 > "$a/interval"
	echo 0 > "$a/space"
	echo 2 > "$a/verbose"
	echo "$TIMES" > "$a/times"
	echo 1 > "/proc/$2/make-it-fail"
	echo 100 > "$a/probability"
}

# stop_inject ATTRDIR PID
stop_inject() {
	echo 0 > "$DBG/$1/probability"
	echo 0 > "/proc/$2/make-it-fail" 2>/dev/null || true
}

# load TOP TAG SECS [TIMESFILE] - 4 KiB files of known content, each
# written and fsync'd before the next, every third also renamed, chmod'ed
# and followed by a mkdir and a directory fsync.  With TIMESFILE: until
# it reads 0 (the injection is used up), then 2 s more, at most SECS;
# without: 20 files.  Any failing call fails the load.
load() {
	python3 - "$@" <<'PY'
import os, sys, time
top, tag, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
timesf = sys.argv[4] if len(sys.argv) > 4 else None
d = os.path.join(top, tag)
os.mkdir(d)
end, used_up, n = time.time() + secs, None, 0
while time.time() < end:
    p = os.path.join(d, "f%d" % n)
    fd = os.open(p, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    os.write(fd, (("%s:%d:" % (tag, n)) * 512).encode()[:4096])
    os.fsync(fd)
    os.close(fd)
    if n % 3 == 0:
        os.rename(p, p + ".r")
        os.rename(p + ".r", p)
        os.chmod(p, 0o600)
        os.mkdir(os.path.join(d, "d%d" % n))
        dfd = os.open(d, os.O_RDONLY)
        os.fsync(dfd)
        os.close(dfd)
    n += 1
    if timesf is None:
        if n == 20:
            break
        continue
    if used_up is None and open(timesf).read().strip() == "0":
        used_up = time.time()
    if used_up is not None and time.time() - used_up > 2:
        break
print("%s: %d files written and fsync'd%s" % (tag, n, "" if timesf is None else
      ", injection used up" if used_up else ", injection NOT used up"))
PY
}

# verify TOP TAG... - every file the loads wrote has its content
verify() {
	python3 - "$@" <<'PY'
import os, sys
top, n = sys.argv[1], 0
for tag in sys.argv[2:]:
    d = os.path.join(top, tag)
    for name in os.listdir(d):
        if not name.startswith("f"):
            continue
        i = int(name[1:])
        want = (("%s:%d:" % (tag, i)) * 512).encode()[:4096]
        with open(os.path.join(d, name), "rb") as f:
            if f.read() != want:
                sys.exit("%s/%s: wrong content" % (tag, name))
        n += 1
print("ok: %d files have their content after the remount" % n)
PY
}

# phase NAME ATTRDIR MKFS_OPTS...
phase() {
	local name=$1 attr=$2 j pid before after n0 injected failed forced_end bad
	shift 2
	log "phase $name: mkfs $*, $attr"
	j=$(fresh_ext4 /dev/vda /mnt/a "$@") || exit 1
	jset "$j" force_copy 1
	pid=$(commit_pid "$j") || fail "no commit thread jbd2/$j"
	if [ "$attr" = failslab ]; then
		[ -e /sys/kernel/slab/jbd2_1k/failslab ] ||
			fail "/sys/kernel/slab/jbd2_1k/failslab missing (1 KiB journal not loaded?)"
		[ ! -L /sys/kernel/slab/jbd2_1k ] ||
			fail "jbd2_1k is merged into $(readlink /sys/kernel/slab/jbd2_1k): cache-filter would hit other users"
		# the mark is read-only at run time: tests/vm/run boots debug
		# kernels with slub_debug=A,jbd2_1k
		[ "$(cat /sys/kernel/slab/jbd2_1k/failslab)" = 1 ] ||
			fail "jbd2_1k is not marked for failslab (boot with slub_debug=A,jbd2_1k)"
		echo Y > $DBG/failslab/cache-filter
	else
		echo N > $DBG/fail_page_alloc/ignore-gfp-highmem
		echo 0 > $DBG/fail_page_alloc/min-order
	fi
	n0=$(dmesg | wc -l)
	before=$(jattr "$j" copyouts_forced_failed)
	stops0=$(jattr "$j" force_copy_stops)
	log "commit thread jbd2/$j is pid $pid; failing its $attr allocations $TIMES times"
	inject "$attr" "$pid"
	load /mnt/a "$name" 90 "$DBG/$attr/times" || { stop_inject "$attr" "$pid"; fail "load under injection failed"; }
	stop_inject "$attr" "$pid"
	injected=$((TIMES - $(cat "$DBG/$attr/times")))
	after=$(jattr "$j" copyouts_forced_failed)
	failed=$((after - before))
	log "injected $injected failures; copyouts_forced_failed $before -> $after"
	assert_cmp "phase $name: failures injected" "$injected" -ge 1
	if [ "$attr" = failslab ]; then
		echo N > $DBG/failslab/cache-filter
		assert_eq "phase $name: copyouts_forced_failed growth = failures injected" \
			"$injected" "$failed"
	else
		assert_cmp "phase $name: copyouts_forced_failed growth" "$failed" -ge 1
		assert_cmp "phase $name: copyouts_forced_failed growth vs injected" \
			"$failed" -le "$injected"
	fi
	# a commit forces no copy after its first failure (issue 22, item 6)
	assert_eq "phase $name: force_copy_stops growth = copyouts_forced_failed growth" \
		"$failed" $(($(jattr "$j" force_copy_stops) - stops0))
	# forced copies resume once the allocations succeed again
	forced_end=$(jattr "$j" copyouts_forced)
	load /mnt/a "$name-after" 60 || fail "load after the injection failed"
	assert_cmp "phase $name: copyouts_forced after the injection" \
		"$(jattr "$j" copyouts_forced)" -gt "$forced_end"
	dmesg | tail -n +"$((n0 + 1))" | grep -A12 'FAULT_INJECTION' | head -n 40 || true
	bad=$(dmesg | tail -n +"$((n0 + 1))" |
		grep -E 'Aborting journal|JBD2: .*(abort|error)|EXT4-fs error|EXT4-fs .*read-only|Detected IO errors' || true)
	[ -z "$bad" ] || fail "phase $name: kernel log: $bad"
	echo "ok: phase $name: no journal abort or ext4 error in the kernel log"
	grep -q "^/dev/vda /mnt/a ext4 rw[, ]" /proc/mounts ||
		fail "phase $name: /mnt/a is not rw: $(grep ' /mnt/a ' /proc/mounts)"
	echo "ok: phase $name: /mnt/a still mounted rw"
	assert_eq "phase $name: ext4 errors_count" 0 "$(cat /sys/fs/ext4/vda/errors_count)"
	run_ok "umount" umount /mnt/a
	run_ok "mount again" mount -t ext4 /dev/vda /mnt/a
	verify /mnt/a "$name" "$name-after" || fail "phase $name: contents after the remount"
	run_ok "umount" umount /mnt/a
	fsck_clean /dev/vda
}

phase A failslab -b 1024 -J size=4
phase B fail_page_alloc -b 4096 -J size=4
echo "kmod-fault-copy: PASS"
