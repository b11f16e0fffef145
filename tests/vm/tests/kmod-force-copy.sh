#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test 4: force_copy removes shadow waits.  A write-throttled disk
# (qemu throttling.bps-write, 6 MB/s), a 400 MB ext4 with a 16 MB journal,
# 4 fio jobs of buffered 4 KiB randrw 60/40 at 100 IOPS each and a
# buffered 64 KiB sequential writer at 4 MB/s, plus an appender that
# fsyncs 10 times a second: without it 6.12 commits so rarely that a run
# sometimes met a single shadow wait.  With force_copy 0 handles
# sleep on BH_Shadow (shadow_waits > 0); with 1 they never do
# (shadow_waits += 0) while copyouts_forced grows.  Prints the writer's
# latency percentiles and the wait figures of both runs; the contents
# survive a remount and e2fsck -fn is clean.
# vm-disk: 400M,throttling.bps-write=6291456
# vm-timeout: 600
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

RUNTIME=${KMOD_FC_RUNTIME:-30}
kmod_setup

figs="shadow_waits shadow_wait_us shadow_wait_max_us locked_waits locked_wait_us locked_wait_max_us space_waits space_wait_us copyouts_forced"
snap() { local f; for f in $figs; do printf '%s=%s ' "$f" "$(jattr "$j" "$f")"; done; }
get() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

jobfile() { # NAME
	cat <<JOB
[global]
directory=/mnt/a
ioengine=psync
time_based=1
runtime=$RUNTIME
ramp_time=0
[rw]
rw=randrw
rwmixread=60
bs=4k
size=8m
numjobs=4
rate_iops=100
filename_format=rw.\$jobnum
[writer]
rw=write
bs=64k
size=128m
fallocate=none
rate=4m
filename=writer-$1
[meta]
rw=write
bs=4k
size=1m
fsync=1
rate_iops=10
filename=meta-$1
JOB
}

# tracepoints: ours (one event per wait) and jbd2's lock_buffer stalls,
# the other place where a handle sleeps on a buffer under I/O
T=/sys/kernel/tracing
[ -d "$T/events/jbd2tune/jbd2tune_shadow_wait" ] || fail "no jbd2tune trace events"
echo 8192 > "$T/buffer_size_kb"
echo 1 > "$T/events/jbd2tune/enable"
echo 1 > "$T/events/jbd2/jbd2_lock_buffer_stall/enable"

declare -A res
# Each run on a fresh file system (a second run on the same one met much
# longer stalls whatever the knob), so its counters, *_max_us included,
# cover that run only.
for fc in 0 1; do
	j=$(fresh_ext4 /dev/vda /mnt/a -J size=16) || exit 1
	# lay out the randrw files outside the measurement
	fio --name=layout --directory=/mnt/a --rw=write --bs=1m --size=8m \
		--numjobs=4 --filename_format='rw.$jobnum' --output=/dev/null ||
		fail "fio layout"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	jset "$j" force_copy "$fc"
	before=$(snap)
	echo > "$T/trace"
	log "run force_copy=$fc for ${RUNTIME}s"
	jobfile "fc$fc" > "/tmp/fc$fc.fio"
	fio --output-format=json --output="$OUT/fio-fc$fc.json" "/tmp/fc$fc.fio" ||
		fail "fio force_copy=$fc"
	sync
	after=$(snap)
	line=""
	for f in $figs; do
		d=$(( $(get "$after" "$f") - $(get "$before" "$f") ))
		case "$f" in *max_us) d=$(get "$after" "$f") ;; esac
		res[$fc.$f]=$d
		line="$line $f=$d"
	done
	wl=$(python3 - "$OUT/fio-fc$fc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = [j for j in d["jobs"] if j["jobname"] == "writer"][0]["write"]
c = w["clat_ns"]
p = c.get("percentile", {})
ms = lambda ns: "%.1f" % (ns / 1e6)
print("writer ios=%d p50=%sms p99=%sms p99.9=%sms p99.99=%sms max=%sms bw=%dKiB/s" % (
    w["total_ios"], ms(p.get("50.000000", 0)), ms(p.get("99.000000", 0)),
    ms(p.get("99.900000", 0)), ms(p.get("99.990000", 0)), ms(c["max"]), w["bw"]))
PY
)
	ev=$(grep -c 'jbd2tune_shadow_wait:' "$T/trace" || true)
	assert_eq "force_copy=$fc: jbd2tune_shadow_wait events = shadow_waits" \
		"${res[$fc.shadow_waits]}" "$ev"
	stalls=$(grep 'jbd2_lock_buffer_stall:' "$T/trace" |
		sed -n 's/.*stall_ms \([0-9]*\).*/\1/p' |
		awk '{ n++; s += $1; if ($1 > m) m = $1 } END { printf "%d stalls, %d ms total, max %d ms", n, s, m }')
	wl="$wl; lock_buffer: $stalls"
	echo "RESULT force_copy=$fc: $wl"
	echo "RESULT force_copy=$fc: waits$line"
	echo "RESULT force_copy=$fc: shadow_wait_hist $(jattr "$j" shadow_wait_hist)"
	echo "force_copy=$fc ($KSERIES): $wl;$line" >> "$OUT/figures.txt"
	# contents: checksums of what the page cache holds, read back from
	# disk after a remount; e2fsck -fn clean in between
	(cd /mnt/a && md5sum rw.* writer-* meta-*) > /tmp/sums
	run_ok umount umount /mnt/a
	echo 3 > /proc/sys/vm/drop_caches
	fsck_clean /dev/vda
	run_ok remount mount -t ext4 /dev/vda /mnt/a
	(cd /mnt/a && md5sum -c --quiet /tmp/sums) ||
		fail "force_copy=$fc: contents differ after remount"
	echo "ok: force_copy=$fc: $(wc -l < /tmp/sums) files identical after remount"
	run_ok umount umount /mnt/a
done

assert_cmp "force_copy=0: shadow waits" "${res[0.shadow_waits]}" -gt 0
assert_eq "force_copy=1: shadow waits" 0 "${res[1.shadow_waits]}"
assert_cmp "force_copy=1: forced copy-outs" "${res[1.copyouts_forced]}" -gt 0
assert_eq "force_copy=0: forced copy-outs" 0 "${res[0.copyouts_forced]}"

echo "kmod-force-copy: all checks passed"
