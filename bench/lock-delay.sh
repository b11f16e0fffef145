#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/lock-delay.sh - in the VM (bench/lock-delay): what lock_delay_max_ms
# costs an fsync-bound load.  tests/vm/fsync-shards.py (two shards
# appending and fsync'ing beside a thread rewriting small files whose
# writeback each commit carries) on a disk limited to 100 write IOPS, ext4
# with a 16 MiB journal, LD_S seconds a run, each run on a fresh file
# system; LD_PAIRS pairs in ABBA order of lock_delay_max_ms 0 and
# LD_MS (5000).  With the delay on, a commit also waits for the handles
# that joined while it waited: this is where that would show (fsync op
# latency, commit waits).  Writes $OUT/lock-delay.tsv:
#   setting  run  ops  p50_ms  p99_ms  max_ms  commits  commit_wait_max_us  lock_delays  lock_delay_max_us
# vm-disk: 256M,throttling.iops-write=100
# vm-disk: 256M,throttling.iops-write=100
# vm-timeout: 2400
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"
# shellcheck disable=SC1091
[ -f "$PROJECT/build/bench/lock-delay.env" ] && source "$PROJECT/build/bench/lock-delay.env"
LD_S=${LD_S:-60}
LD_PAIRS=${LD_PAIRS:-3}
LD_MS=${LD_MS:-5000}
LOAD=$PROJECT/tests/vm/fsync-shards.py

kmod_setup
sysctl -q -w vm.dirty_expire_centisecs=3000 vm.dirty_writeback_centisecs=500 ||
	fail "sysctl vm.dirty_*"
rm -f "$OUT/lock-delay.tsv"

# run MS N DEV - one run with lock_delay_max_ms MS on a fresh DEV
run() {
	local ms=$1 n=$2 dev=$3 j
	j=$(fresh_ext4 "$dev" /mnt/s -J size=16) || exit 1
	jset "$j" lock_delay_max_ms "$ms"
	python3 "$LOAD" /mnt/s "$LD_S" --ops "$OUT/ops-$ms-$n" > "$OUT/summary-$ms-$n" ||
		fail "fsync-shards failed"
	python3 - "$OUT/ops-$ms-$n" "$ms" "$n" "$(jattr "$j" commits)" \
		"$(jattr "$j" commit_wait_max_us)" "$(jattr "$j" lock_delays)" \
		"$(jattr "$j" lock_delay_max_us)" >> "$OUT/lock-delay.tsv" <<'PY'
import sys
lat = sorted(float(l.split()[1]) for l in open(sys.argv[1]) if l.strip())
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print("\t".join([sys.argv[2], sys.argv[3], str(len(lat)), "%.1f" % p(0.5),
                 "%.1f" % p(0.99), "%.1f" % lat[-1]] + sys.argv[4:]))
PY
	tail -n 1 "$OUT/lock-delay.tsv"
	umount /mnt/s || fail "umount $dev"
	fsck_clean "$dev"
}

i=0
for n in $(seq 1 "$LD_PAIRS"); do
	# ABBA: off, on / on, off / ...
	if [ $((n % 2)) = 1 ]; then order="0 $LD_MS"; else order="$LD_MS 0"; fi
	for ms in $order; do
		run "$ms" "$n" "$([ $((i % 2)) = 0 ] && echo /dev/vda || echo /dev/vdb)"
		i=$((i + 1))
	done
done
echo "bench/lock-delay.sh: done"
