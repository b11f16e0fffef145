#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Generic netlink family jbd2tune: JOURNAL_ADD sent inside mount(2) (its
# latency printed)
# and JOURNAL_REMOVE on umount; GET_JOURNAL dump and doit equal to the
# configfs files read around them; unknown name -> ENOENT with a message;
# a fuzz loop of malformed requests -> errors only, no oops; the family
# goes away with the module and comes back with it.
# Needs tests/netlink/jbd2tune-nl built on the host.
# vm-disk: 256M
# vm-disk: 256M
# vm-timeout: 600
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/netlink/vm-lib.sh"

load_ext4
mount_configfs
mkfs_ext4 /dev/vda -J size=8
mkfs_ext4 /dev/vdb -J size=4
mkdir -p /mnt/a /mnt/b

# --- 1. mount -> JOURNAL_ADD, umount -> JOURNAL_REMOVE ----------------------
# The client calls mount(2) itself, so the latency is measured from the
# system call, not from the start of mount(8) (which spends most of its
# time in exec and blkid probing under TCG; printed for comparison).
nl_listen "$OUT/events-add.log"
m=$("$NL" mount /dev/vda /mnt/a) || fail "mount /dev/vda"
t0=$(field "$m" mount_start_us)
t1=$(field "$m" mount_end_us)
j=$(journal_name /dev/vda)
[ -n "$j" ] || fail "no journal for vda"
ev=$(wait_event "$OUT/events-add.log" JOURNAL_ADD "$j" 2000) ||
	{ cat "$OUT/events-add.log"; fail "no JOURNAL_ADD for $j within 2 s"; }
echo "$ev"
t_rx=$(field "$ev" t_us)
t_k=$(field "$ev" kernel_us)
lat=$((t_rx - t0))
log "JOURNAL_ADD latency: ${lat} us from mount(2)" \
	"(mount(2) took $((t1 - t0)) us; kernel -> listener $((t_rx - t_k)) us)"
echo "$lat" > "$OUT/journal-add-latency-us"
# The event is sent while the journal is set up, inside mount(2): its
# kernel time (CLOCK_MONOTONIC, the client's clock too) lies between the
# call's start and end, whatever the guest's speed.  The latency is printed,
# not bounded: the bound of 200 ms this replaced failed on a starved host
# with the event inside the call all the same (6.12 in a cold make check,
# 2026-12-05: 386 ms, mount(2) itself 425 ms, kernel -> listener 5 ms).
assert_cmp "JOURNAL_ADD sent after mount(2) began (kernel us)" "$t_k" -ge "$t0"
assert_cmp "JOURNAL_ADD sent before mount(2) returned (kernel us)" "$t_k" -le "$t1"
assert_cmp "JOURNAL_ADD received after it was sent (us)" "$t_rx" -ge "$t_k"
run_ok umount umount /mnt/a
ev=$(wait_event "$OUT/events-add.log" JOURNAL_REMOVE "$j" 2000) ||
	{ cat "$OUT/events-add.log"; fail "no JOURNAL_REMOVE for $j"; }
nl_stop
assert_eq "events in order" "JOURNAL_ADD JOURNAL_REMOVE" \
	"$(grep -o 'event=[A-Z_]*' "$OUT/events-add.log" | cut -d= -f2 | xargs)"

# the same with mount(8)
nl_listen "$OUT/events-add2.log"
t0=$("$NL" now)
run_ok mount mount -t ext4 /dev/vda /mnt/a
ev=$(wait_event "$OUT/events-add2.log" JOURNAL_ADD "$j" 2000) ||
	{ cat "$OUT/events-add2.log"; fail "no JOURNAL_ADD for $j within 2 s"; }
log "JOURNAL_ADD latency: $(($(field "$ev" t_us) - t0)) us from the start of mount(8)"
assert_eq "JOURNAL_ADD log_blocks = configfs" "$(< "$CFS/$j/log_blocks")" \
	"$(field "$ev" log_blocks)"

run_ok umount umount /mnt/a
ev=$(wait_event "$OUT/events-add2.log" JOURNAL_REMOVE "$j" 2000) ||
	{ cat "$OUT/events-add2.log"; fail "no JOURNAL_REMOVE for $j"; }
echo "$ev"
nl_stop
assert_eq "events in order" "JOURNAL_ADD JOURNAL_REMOVE" \
	"$(grep -o 'event=[A-Z_]*' "$OUT/events-add2.log" | cut -d= -f2 | xargs)"

# --- 2. GET_JOURNAL: dump and doit equal configfs ----------------------------
run_ok mount mount -t ext4 /dev/vda /mnt/a
run_ok mount mount -t ext4 /dev/vdb /mnt/b
ja=$(journal_name /dev/vda)
jb=$(journal_name /dev/vdb)
echo 1 > "$CFS/$jb/force_copy"
wm_b=$(< "$CFS/$jb/reclaim_watermark_min_pct")
echo "$wm_b" > "$CFS/$jb/reclaim_watermark_pct"

assert_eq "journals in dump = configfs" "$(ls "$CFS" | sort | xargs)" \
	"$("$NL" dump | sed -n 's/^name=//p' | sort | xargs)"

# under load: counters may only move forward between the three reads
python3 - /mnt/a /mnt/b <<'PY' &
import os, sys, time
end = time.time() + 20
i = 0
while time.time() < end:
    for d in sys.argv[1:]:
        fd = os.open("%s/f%d" % (d, i % 50), os.O_CREAT | os.O_WRONLY)
        os.write(fd, b"x" * 4096)
        os.fsync(fd)
        os.close(fd)
    i += 1
PY
load=$!
sleep 2
for round in 1 2 3; do
	for jj in "$ja" "$jb"; do
		cfs_record "$jj" /tmp/before
		"$NL" dump > /tmp/dump || fail "dump failed"
		cfs_record "$jj" /tmp/after
		python3 "$NLCHECK" record "$jj" < /tmp/dump > /tmp/rec || fail "no $jj"
		python3 "$NLCHECK" compare /tmp/before /tmp/rec /tmp/after ||
			fail "dump differs from configfs (round $round)"
	done
done
kill "$load" 2>/dev/null
wait "$load" 2>/dev/null
sync

# idle: everything equal, for dump and doit alike
sleep 1
for jj in "$ja" "$jb"; do
	cfs_record "$jj" /tmp/before
	"$NL" dump > /tmp/dump || fail "dump failed"
	"$NL" get "$jj" > /tmp/get || fail "get $jj failed"
	cfs_record "$jj" /tmp/after
	python3 "$NLCHECK" record "$jj" < /tmp/dump > /tmp/rec || fail "no $jj"
	python3 "$NLCHECK" compare /tmp/before /tmp/rec /tmp/after --idle ||
		fail "idle dump differs from configfs"
	python3 "$NLCHECK" compare /tmp/before /tmp/get /tmp/after --idle ||
		fail "idle get differs from configfs"
done
cp /tmp/dump "$OUT/dump.txt"
assert_eq "force_copy of $jb in dump" 1 \
	"$(python3 "$NLCHECK" record "$jb" < /tmp/dump | sed -n 's/^force_copy=//p')"
assert_eq "reclaim_watermark_pct of $jb in dump" "$wm_b" \
	"$(python3 "$NLCHECK" record "$jb" < /tmp/dump | sed -n 's/^reclaim_watermark_pct=//p')"

# unknown journal: ENOENT with the extack message
err=$("$NL" get nosuch-42 2>&1 >/dev/null) && fail "get nosuch-42 succeeded"
echo "$err"
case "$err" in
*ENOENT*"no such journal"*) echo "ok: unknown journal -> ENOENT, '$err'" ;;
*) fail "unknown journal: expected ENOENT with a message, got '$err'" ;;
esac

# --- 3. malformed requests -----------------------------------------------
dmesg > /tmp/dmesg-before
out=$("$NL" fuzz 3000 --seed 7) || { echo "$out"; fail "fuzz: client failed or no reply"; }
echo "$out" | head -n 3
sum=$(echo "$out" | head -n 1)
assert_eq "fuzz: noreply" 0 "$(field "$sum" noreply)"
assert_cmp "fuzz: errors" "$(field "$sum" errors)" -ge 2900
assert_cmp "fuzz: EINVAL" "$(field "$sum" EINVAL)" -gt 0
assert_cmp "fuzz: EOPNOTSUPP" "$(field "$sum" EOPNOTSUPP)" -gt 0
assert_cmp "fuzz: ENOENT" "$(field "$sum" ENOENT)" -gt 0
"$NL" dump > /dev/null || fail "dump after fuzz"
for s in 1 2; do
	"$NL" fuzz 1000 --seed $((s * 1000 + 3)) | head -n 1
done
# The only kernel messages allowed: the netlink core's own rate-limited
# note on an attribute longer than its message (the truncated_attr kind),
# and the rate limiter's count of the notes it dropped (printed once 5 s
# have passed with more than 10 of them: seen on the slower debug kernel)
dmesg > /tmp/dmesg-after
# A message of the loaded host's (kmsg_host_noise) is printed and let be:
# CI failed this once on 6.12 with a line its summary did not show.
tail -n +"$(($(wc -l < /tmp/dmesg-before) + 1))" /tmp/dmesg-after > /tmp/dmesg-fuzz
echo "kernel messages during the fuzz loop: $(wc -l < /tmp/dmesg-fuzz)"
sed 's/^/  /' /tmp/dmesg-fuzz | head -n 40
new=$(grep -v -e "netlink: [0-9]* bytes leftover after parsing attributes in process" \
	-e "__nla_validate_parse: [0-9]* callbacks suppressed" /tmp/dmesg-fuzz | kmsg_host_noise || true)
[ -z "$new" ] || { echo "$new"; fail "kernel messages during the fuzz loop: $(echo "$new" | head -n 1)"; }
echo "ok: no kernel message from the fuzz loop but the netlink core's leftover-bytes note"

run_ok umount umount /mnt/a
run_ok umount umount /mnt/b
assert_eq "dump after umount" "" "$("$NL" dump)"
fsck_clean /dev/vda
fsck_clean /dev/vdb

# --- 4. module unload and reload with a listener joined ---------------------
nl_listen "$OUT/events-rmmod.log"
run_ok "rmmod ext4" rmmod ext4
run_ok "rmmod jbd2" rmmod jbd2
err=$("$NL" dump 2>&1) && fail "dump succeeded without jbd2 loaded"
case "$err" in
*"not found"*) echo "ok: family gone with the module ($err)" ;;
*) fail "dump without the module: '$err'" ;;
esac
load_ext4
"$NL" dump > /dev/null || fail "dump after reloading jbd2"
echo "ok: family back after reloading jbd2"
nl_stop
echo "netlink-basic: all checks passed"
