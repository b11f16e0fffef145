#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test: the background checkpoint work races everything that can
# change a journal under it.  On the smallest journal (-J size=4) a create
# storm (3 workers, an fsync every 2nd file, old directories removed)
# keeps the log below the reclaim watermark, set inside the journal's
# accepted range (reclaim_watermark_min_pct .. _max_pct, a different
# point each mount and again at random while it runs).  Once the work
# runs (reclaim_runs > 0, or after STORM_WAIT seconds: a freeze or a
# read-only remount empties the log, so the storm gets a head start),
# for WINDOW seconds, at once and in loops: syncfs and fsync (commits),
# fsfreeze -f/-u, mount -o remount,ro and back to rw, force_copy
# toggled, every configfs file and a netlink dump read; each window ends
# with an umount while the work may still be queued, then a mount.
# Repeated for DURATION seconds, at least twice (defaults: 180, 40 and
# 150 s on a debug kernel, where lockdep sees every lock order taken; 45,
# 15 and 60 s elsewhere).  Every umount must succeed and leave e2fsck -fn
# clean; the work must have run (reclaim_runs > 0) and at least one
# freeze and one read-only remount must have happened, or the race was
# not run.
# vm-disk: 256M
# vm-timeout: 480
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

case "$KSERIES" in
*-debug) DURATION=${DURATION:-180}; WINDOW=${WINDOW:-40}; STORM_WAIT=${STORM_WAIT:-150} ;;
*) DURATION=${DURATION:-45}; WINDOW=${WINDOW:-15}; STORM_WAIT=${STORM_WAIT:-60} ;;
esac
MNT=/mnt/r
ST=/tmp/race
NL=$PROJECT/tests/netlink/jbd2tune-nl
kmod_setup
mkdir -p $MNT $ST
mkfs_ext4 /dev/vda -J size=4

# workers STOPFILE PAUSEFILE N TAG - N storm processes under $MNT/w<i>;
# each first removes what the last window left there, then makes
# directories (named after TAG) of 50 empty files, fsync'ing every 2nd,
# keeps its 6 newest directories, waits while PAUSEFILE exists, retries
# after EROFS (a read-only remount) and ends when STOPFILE exists.  Any
# other error fails it.
workers() {
	python3 - "$MNT" "$@" <<'PY'
import errno, os, shutil, sys, time
top, stop, pause, n, tag = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]

def work(wid):
    base = os.path.join(top, "w%d" % wid)
    dirs, k, files, erofs = [], 0, 0, 0
    if os.path.isdir(base):
        dirs = [os.path.join(base, d) for d in sorted(os.listdir(base))]
    while not os.path.exists(stop):
        while os.path.exists(pause) and not os.path.exists(stop):
            time.sleep(0.02)
        try:
            os.makedirs(base, exist_ok=True)
            while len(dirs) > 6 or (dirs and os.path.exists(stop)):
                shutil.rmtree(dirs[0])
                dirs.pop(0)
            d = os.path.join(base, "%s-%d" % (tag, k))
            k += 1
            os.mkdir(d)
            dirs.append(d)
            for f in range(50):
                if os.path.exists(stop) or os.path.exists(pause):
                    break
                fd = os.open(os.path.join(d, "f%d" % f), os.O_CREAT | os.O_WRONLY, 0o644)
                try:
                    if f % 2 == 1:
                        os.fsync(fd)
                finally:
                    os.close(fd)
                files += 1
        except OSError as e:
            if e.errno != errno.EROFS:
                print("worker %d: %s" % (wid, e), file=sys.stderr)
                return 1
            erofs += 1
            time.sleep(0.02)
    print("worker %d: %d files, %d EROFS retries" % (wid, files, erofs))
    return 0

pids = []
for w in range(n):
    pid = os.fork()
    if pid == 0:
        rc = work(w)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    pids.append(pid)
rc = 0
for pid in pids:
    rc |= os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
sys.exit(1 if rc else 0)
PY
}

# rsleep - 0 to 0.3 s; pause - 2 to 5 s: a freeze and a read-only
# remount flush the journal, so the storm needs time between them to
# fill the log down to the watermark again
rsleep() { sleep "0.$((RANDOM % 4))"; }
pause() { sleep "$((2 + RANDOM % 3)).$((RANDOM % 10))"; }
bump() { echo x >> "$ST/$1"; }
count() { [ -f "$ST/$1" ] && wc -l < "$ST/$1" || echo 0; }

# the racers of one window; each loops until $ST/stop exists
race_freeze() {
	while [ ! -e $ST/stop ]; do
		if fsfreeze -f $MNT 2>/dev/null; then
			bump freezes
			rsleep
			fsfreeze -u $MNT || { echo "racer: thaw failed" >&2; return 1; }
		fi
		pause
	done
}
race_remount() {
	local i busy=0
	while [ ! -e $ST/stop ]; do
		# files open for writing make remount,ro EBUSY: the workers'
		# (paused after the first such try, until a remount succeeds)
		# and the committer's while it writes and fsyncs (it sleeps
		# 0-1 s between appends, so a retry every 0.2 s soon lands).
		# Waiting 2-5 s between those tries, and pausing the workers
		# only after three, left a 15 s window with no ro remount at
		# all on a slow host (6.12, make check).
		[ $busy = 0 ] || touch $ST/pause
		if mount -o remount,ro $MNT 2>/dev/null; then
			bump ro_remounts
			echo "$(date +%T.%N | cut -c1-12) ro after $busy EBUSY" >> $ST/remounts
			busy=0
			rm -f $ST/pause
			rsleep
			# rw again; a freeze of the ro file system defers it
			for i in $(seq 200); do
				mount -o remount,rw $MNT 2>/dev/null && break
				sleep 0.1
			done
			grep -q "^/dev/vda $MNT ext4 rw[, ]" /proc/mounts ||
				{ echo "racer: no rw remount in 20 s" >&2; return 1; }
			echo "$(date +%T.%N | cut -c1-12) rw at try $i" >> $ST/remounts
			# 4-10 s of storm before the next try (the log refills)
			pause; pause
		else
			busy=$((busy + 1))
			sleep 0.2
		fi
	done
	rm -f $ST/pause
}
# (one process each: under TCG a fork per call would starve the storm)
race_commit() {
	python3 - $MNT/append $ST/stop <<'PY' &
import os, random, sys, time
while not os.path.exists(sys.argv[2]):
    try:
        fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
        try:
            os.write(fd, b"x" * 4096)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass
    time.sleep(random.random())
PY
	while [ ! -e $ST/stop ]; do
		if sync -f $MNT 2>/dev/null; then bump syncfs; fi
		sleep 1.$((RANDOM % 10))
	done
	wait
}
# knobs of the mounted journal: force_copy flips, the watermark moves
# inside the range (both may fail with ENOENT/ENODEV once the group goes)
race_knobs() {
	local j=$1 lo=$2 hi=$3
	while [ ! -e $ST/stop ]; do
		printf '%s\n' $((RANDOM % 2)) > $CFS/"$j"/force_copy 2>/dev/null &&
			bump knob_writes
		printf '%s\n' $((lo + RANDOM % (hi - lo + 1))) \
			> $CFS/"$j"/reclaim_watermark_pct 2>/dev/null
		sleep 1.$((RANDOM % 10))
	done
}
# readers run through the umounts too: every configfs file and a netlink
# dump, while groups come and go
race_readers() {
	while [ ! -e $ST/end ]; do
		cat $CFS/*/* > /dev/null 2>&1
		[ ! -x "$NL" ] || "$NL" dump > /dev/null 2>&1
		bump reads
		sleep 1
	done
}

rm -f $ST/*
race_readers &
readers=$!
end=$(( $(date +%s) + DURATION ))
cycle=0 runs=0 blocks=0 commits=0 space_waits=0
at=(4 0 2 1 3)
log "race: $DURATION s, windows of $WINDOW s"
while [ "$(date +%s)" -lt "$end" ] || [ $cycle -lt 2 ]; do
	run_ok "mount (cycle $cycle)" mount -t ext4 /dev/vda $MNT
	j=$(journal_name /dev/vda)
	[ -n "$j" ] || fail "no journal for /dev/vda"
	lo=$(jattr "$j" reclaim_watermark_min_pct)
	hi=$(jattr "$j" reclaim_watermark_max_pct)
	[ "$lo" -ge 1 ] && [ "$hi" -ge "$lo" ] || fail "watermark range '$lo'..'$hi'"
	# max first (the work starts earliest there), then min, 1/2, 1/4, 3/4
	wm=$((lo + (hi - lo) * ${at[cycle % 5]} / 4))
	jset "$j" reclaim_watermark_pct "$wm"
	jset "$j" force_copy $((cycle % 2))
	rm -f $ST/stop $ST/pause
	workers $ST/stop $ST/pause 3 "c$cycle" > $ST/workers.out 2>&1 &
	wpid=$!
	for _ in $(seq "$STORM_WAIT"); do
		[ "$(jattr "$j" reclaim_runs)" = 0 ] || break
		sleep 1
	done
	log "cycle $cycle: racers start at reclaim_runs $(jattr "$j" reclaim_runs)"
	race_freeze & f1=$!
	race_remount & f2=$!
	race_commit & f3=$!
	race_knobs "$j" "$lo" "$hi" & f4=$!
	sleep "$WINDOW"
	touch $ST/stop
	wait $f1 || fail "freeze racer failed (cycle $cycle)"
	wait $f2 || fail "remount racer failed (cycle $cycle)"
	wait $f3 $f4
	wait $wpid || { cat $ST/workers.out; fail "storm workers failed (cycle $cycle)"; }
	cat $ST/workers.out
	cat $ST/remounts 2>/dev/null; rm -f $ST/remounts
	grep -q "^/dev/vda $MNT ext4 rw[, ]" /proc/mounts ||
		fail "$MNT not rw after the window: $(grep " $MNT " /proc/mounts)"
	r=$(jattr "$j" reclaim_runs) b=$(jattr "$j" reclaim_blocks)
	c=$(jattr "$j" commits) s=$(jattr "$j" space_waits)
	runs=$((runs + r)) blocks=$((blocks + b)) commits=$((commits + c))
	space_waits=$((space_waits + s))
	log "cycle $cycle: watermark $wm (range $lo..$hi), reclaim_runs $r, reclaim_blocks $b, commits $c, space_waits $s; so far freezes $(count freezes), ro remounts $(count ro_remounts), syncfs $(count syncfs)"
	# at once: the work may still be queued or running
	run_ok "umount (cycle $cycle)" umount $MNT
	fsck_clean /dev/vda
	cycle=$((cycle + 1))
done
touch $ST/end
wait $readers

echo "RESULT cycles=$cycle freezes=$(count freezes) ro_remounts=$(count ro_remounts)" \
	"syncfs=$(count syncfs) knob_writes=$(count knob_writes) reads=$(count reads)" \
	"reclaim_runs=$runs reclaim_blocks=$blocks commits=$commits space_waits=$space_waits"
assert_cmp "cycles (mount .. umount)" $cycle -ge 2
assert_cmp "reclaim work runs" $runs -gt 0
assert_cmp "reclaim blocks" $blocks -gt 0
assert_cmp "commits" $commits -gt 0
assert_cmp "freezes" "$(count freezes)" -ge 1
assert_cmp "read-only remounts" "$(count ro_remounts)" -ge 1
assert_cmp "syncfs calls" "$(count syncfs)" -ge 1
echo "kmod-reclaim-race: all checks passed"
