# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of bench/agent-field: the field-load matrix of issue 21 (item
# 7).  Five loads, each on its own disk, each run with the knobs fixed off,
# with the best fixed setting known for it, and under jbd2-tuned with the
# shipped policy, FIELD_REPS (3) times in a rotated order (rep 1: off,
# best, agent; rep 2: best, agent, off; rep 3: agent, off, best), every run
# on a freshly made file system.  What is measured is the latency of the
# operation the workload itself waits for:
#
#   load      disk (write limit)   journal  measured op              best fixed
#   seed      vda 6 MB/s           16 MiB   the demo's 64 KiB writer  force_copy 1
#             (bench/demo-scenario.sh, issue 14's load: dirty expiry 10 s,
#             four 4 KiB random read/write jobs at 100 IOPS beside it)
#   shards    vdb 100 IOPS         16 MiB   fsync-shards.py's op     off (force copy
#             (../shared/cases/fsync-shards; default writeback timing)  makes it worse)
#   etcd      vdc 5 MB/s           default  4 KiB append + fdatasync  off (no knob
#             (field-load.py wal beside field-load.py bulk)           helps: device-bound)
#   storm     vdd none             4 MiB    mkdir + fsync (prober)    watermark at the
#             (bench/iomax-load.py: two tenants creating 4 KiB files, journal's top
#             20,000 each, removed and made again to the end, one
#             prober; no cgroup limit)
#   truncate  vde 6 MB/s           16 MiB   the demo's 64 KiB writer  force_copy 1 and
#             (field-load.py truncate beside the writer, dirty         lock_delay_max_ms
#             expiry 10 s)                                            5000
#
# Each run: FIELD_WARMUP_S (60) of load unmeasured (the agent, started
# with the load, decides meanwhile), then FIELD_S (120; seed: FIELD_SEED_S,
# 300, the issue's 5-minute phase) measured.  The agent runs the shipped
# policy (conf/jbd2-tuned.conf); for truncate with lock_delay = auto
# added (off as shipped).  Rows in $OUT/agent-field.tsv: load rep setting
# ops p50 p99 p99.9 max (ms) and the knobs at the end ("fc/wm/ld"); for
# truncate also a row "truncate-fsync": the truncate loop's own fsync of
# its 6,000 blocks, the load's only commit waits, which the agent's cost
# test weighs and the measured writer does not feel, and a row
# "truncate-commit": the journal's commit waits over the measured part
# (count, exact mean, p99, p99.9 and top from the histogram, ms; seed has
# none: nothing in it calls fsync).
# FIELD_LOADS picks and orders the loads (default all five).
# vm-disk: 400M,throttling.bps-write=6291456
# vm-disk: 256M,throttling.iops-write=100
# vm-disk: 400M,throttling.bps-write=5242880
# vm-disk: 300M
# vm-disk: 400M,throttling.bps-write=6291456
# vm-memory: 2048
# vm-timeout: 21600
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"
source "$PROJECT/bench/demo-scenario.sh"

# shellcheck disable=SC1091
[ -f "$PROJECT/build/bench/agent-field.env" ] && . "$PROJECT/build/bench/agent-field.env"
LOADS=${FIELD_LOADS:-seed shards etcd storm truncate}
REPS=${FIELD_REPS:-3}
WARMUP_S=${FIELD_WARMUP_S:-60}
MEASURE_S=${FIELD_S:-120}
SEED_S=${FIELD_SEED_S:-300}
AGENT_INI=${FIELD_AGENT_INI:-}
FLOAD=$PROJECT/bench/field-load.py
IOLOAD=$PROJECT/bench/iomax-load.py
SHARDS=$PROJECT/tests/vm/fsync-shards.py
TSV=$OUT/agent-field.tsv
DEMO_MNT=/mnt/field
DROPIN=/etc/jbd2-tuned.conf.d/60-field.conf

demo_setup
: > "$TSV"

# settings of run REP (1-based), rotated
order() {
	case $(( ($1 - 1) % 3 )) in
	0) echo off best agent ;;
	1) echo best agent off ;;
	2) echo agent off best ;;
	esac
}

# cut_ops FILE FROM_S TO_S - "ops p50 p99 p99.9 max" (ms) of the ops of
# FILE ("END_S LATENCY_MS" lines) that ended in [FROM_S, TO_S)
cut_ops() {
	python3 - "$@" <<'PY'
import sys
f, lo, hi = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
v = sorted(float(l.split()[1]) for l in open(f) if l.strip() and lo <= float(l.split()[0]) < hi)
def p(q): return v[min(len(v) - 1, int(q * len(v)))] if v else 0.0
print("%d %.1f %.1f %.1f %.1f" % (len(v), p(0.5), p(0.99), p(0.999), v[-1] if v else 0.0))
PY
}

# fio_ops TAG - "ops p50 p99 p99.9 max" of the writer's measured run
fio_ops() {
	python3 - "$OUT/writer-$1.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["jobs"][0]["write"]
c = w["clat_ns"]
p = c.get("percentile", {})
def ms(k): return p.get(k, 0) / 1e6
print("%d %.1f %.1f %.1f %.1f" % (w["total_ios"], ms("50.000000"), ms("99.000000"),
                                  ms("99.900000"), c["max"] / 1e6))
PY
}

# storm_tenant DIR SECONDS RESULT - iomax-load.py's tenant, 20,000 files
# at a time (what the disk holds for two), each batch removed and made
# again until SECONDS are over, so that the storm lasts the measured part
# too.  With one batch (before 2026-12-07) two tenants were done within 17
# s on this host: the 60-s warm-up took the whole storm, and the measured
# part had the prober alone (p99 about 11 ms in every setting).  RESULT
# gets one line per batch.  Run in the background: a TERM ends the batch
# in progress too, so that nothing holds the file system at its umount.
storm_tenant() {
	local dir=$1 end=$((SECONDS + $2)) result=$3 left child=
	trap '[ -z "$child" ] || kill "$child" 2> /dev/null; wait; exit 0' TERM
	: > "$result"
	while left=$((end - SECONDS)) && [ "$left" -gt 0 ]; do
		python3 "$IOLOAD" tenant "$dir" "$left" "$result.batch" --max-files 20000 \
			> /dev/null & child=$!
		wait "$child" || break
		child=
		cat "$result.batch" >> "$result"
		rm -rf "${dir:?}"/*
	done
	rm -f "$result.batch"
}

# commit_snap J - journal J's commit-wait counters now, one line:
# "waits wait_us" and the 24 counts of commit_wait_hist
commit_snap() {
	echo "$(jattr "$1" commit_waits) $(jattr "$1" commit_wait_us) $(jattr "$1" commit_wait_hist)"
}

# commit_figs BEFORE AFTER - the commit waits between two commit_snap
# lines as a row's five figures: waits, mean (ms, exact: the totals'
# ratio, what the agent's cost and harm tests compare), p99, p99.9 and
# the top (ms: the upper bounds of the histogram buckets, bucket i being
# [2^i, 2^(i+1)) us; the last bucket, 8.4 s and longer, shows as 16777.2)
commit_figs() {
	python3 - "$1" "$2" <<'PY'
import sys
b = [int(x) for x in sys.argv[1].split()]
a = [int(x) for x in sys.argv[2].split()]
n, us = a[0] - b[0], a[1] - b[1]
h = [y - x for x, y in zip(b[2:], a[2:])]
# quantiles of the histogram's own count: the files are read one after the
# other, so a wait that ends between them may be in one and not the other
nh = sum(h)
def upper(q):
    c = 0
    for i, k in enumerate(h):
        c += k
        if nh and c >= q * nh:
            return 2 ** (i + 1) / 1000
    return 0.0
top = max((2 ** (i + 1) / 1000 for i, k in enumerate(h) if k), default=0.0)
print("%d %.1f %.1f %.1f %.1f" % (n, us / n / 1000 if n else 0.0, upper(0.99), upper(0.999), top))
PY
}

# knobs J - "force_copy/watermark/lock_delay_max_ms" of journal J
knobs() {
	echo "$(jattr "$1" force_copy)/$(jattr "$1" reclaim_watermark_pct)/$(jattr "$1" lock_delay_max_ms)"
}

# apply LOAD SETTING J - the knobs of a fixed setting, or start the agent
apply() {
	local load=$1 setting=$2 j=$3
	case $setting in
	off) ;;
	best)
		case $load in
		seed) jset "$j" force_copy 1 ;;
		storm) jset "$j" reclaim_watermark_pct "$(jattr "$j" reclaim_watermark_max_pct)" ;;
		truncate) jset "$j" force_copy 1; jset "$j" lock_delay_max_ms 5000 ;;
		shards | etcd) ;;	# off is the best fixed setting
		esac
		;;
	agent)
		# A fresh mkfs is a new file system, whose state the agent
		# must not restore.  On a host udev's ID_FS_UUID tells them
		# apart; this guest runs no udev, so the identity is the
		# name and device number only, and the first full run
		# (2026-12-07) began repetitions 2 and 3 with what the
		# previous one had learned.
		rm -rf /run/jbd2-tuned/state
		rm -f "$DROPIN"
		[ "$load" != truncate ] || printf '[defaults]\nlock_delay = auto\n' > "$DROPIN"
		# FIELD_AGENT_INI: more policy for the agent runs, \n for a new
		# line ('[defaults]\nforce_copy = off\nreclaim = off': the
		# agent watching only, to tell its presence from its trials)
		[ -z "$AGENT_INI" ] || printf '%b\n' "$AGENT_INI" >> "$DROPIN"
		DEMO_AGENT_LOG=$OUT/agent-$load-$rep.log demo_agent_start
		;;
	esac
}

# row LOAD REP SETTING FIGURES KNOBS
row() {
	# shellcheck disable=SC2086  # $4: five figures, split on purpose
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" $4 "$5" | tee -a "$TSV"
}

# one LOAD REP SETTING - one run on a fresh file system
one() {
	local load=$1 rep=$2 setting=$3 j figs kn tag=$1-$2-$3 secs=$MEASURE_S pids=() p dev cw= cw0
	[ "$load" != seed ] || secs=$SEED_S
	log "$tag: ${WARMUP_S}s warm-up, ${secs}s measured"
	case $load in
	seed | truncate)
		sysctl -q -w vm.dirty_expire_centisecs=1000 vm.dirty_writeback_centisecs=100
		dev=/dev/vde
		[ "$load" != seed ] || dev=/dev/vda
		demo_fs_start "$dev"
		j=$DEMO_J
		apply "$load" "$setting" "$j"
		if [ "$load" = seed ]; then
			demo_background_start
		else
			python3 "$FLOAD" truncate "$DEMO_MNT" "$OUT/$tag.fsync" & pids+=($!)
		fi
		demo_writer "$WARMUP_S" "$tag-warm"
		[ "$load" != truncate ] || cw0=$(commit_snap "$j")
		demo_writer "$secs" "$tag"
		[ "$load" != truncate ] || cw=$(commit_figs "$cw0" "$(commit_snap "$j")")
		figs=$(fio_ops "$tag")
		kn=$(knobs "$j")
		[ "$load" != seed ] || demo_background_stop
		;;
	shards)
		sysctl -q -w vm.dirty_expire_centisecs=3000 vm.dirty_writeback_centisecs=500
		dev=/dev/vdb
		j=$(fresh_ext4 "$dev" "$DEMO_MNT" -J size=16) || exit 1
		apply "$load" "$setting" "$j"
		python3 "$SHARDS" "$DEMO_MNT" $((WARMUP_S + secs)) --ops "$OUT/$tag.ops" \
			> "$OUT/$tag.summary" || fail "$tag: fsync-shards"
		figs=$(cut_ops "$OUT/$tag.ops" "$WARMUP_S" $((WARMUP_S + secs)))
		kn=$(knobs "$j")
		;;
	etcd)
		sysctl -q -w vm.dirty_expire_centisecs=3000 vm.dirty_writeback_centisecs=500
		dev=/dev/vdc
		j=$(fresh_ext4 "$dev" "$DEMO_MNT") || exit 1
		apply "$load" "$setting" "$j"
		python3 "$FLOAD" bulk "$DEMO_MNT" & pids+=($!)
		python3 "$FLOAD" wal "$DEMO_MNT" $((WARMUP_S + secs)) "$OUT/$tag.ops" ||
			fail "$tag: wal"
		figs=$(cut_ops "$OUT/$tag.ops" "$WARMUP_S" $((WARMUP_S + secs)))
		kn=$(knobs "$j")
		;;
	storm)
		sysctl -q -w vm.dirty_expire_centisecs=3000 vm.dirty_writeback_centisecs=500
		dev=/dev/vdd
		j=$(fresh_ext4 "$dev" "$DEMO_MNT" -J size=4) || exit 1
		apply "$load" "$setting" "$j"
		mkdir -p "$DEMO_MNT/t1" "$DEMO_MNT/t2" "$DEMO_MNT/prober"
		storm_tenant "$DEMO_MNT/t1" $((WARMUP_S + secs)) "$OUT/$tag.t1" & pids+=($!)
		storm_tenant "$DEMO_MNT/t2" $((WARMUP_S + secs)) "$OUT/$tag.t2" & pids+=($!)
		python3 "$IOLOAD" prober "$DEMO_MNT/prober" $((WARMUP_S + secs)) "$OUT/$tag.raw" \
			> /dev/null || fail "$tag: prober"
		# "start_ns end_ns" -> "END_S LATENCY_MS" from the first op's start
		awk 'NR == 1 { t0 = $1 } { printf "%.3f %.3f\n", ($2 - t0) / 1e9, ($2 - $1) / 1e6 }' \
			"$OUT/$tag.raw" > "$OUT/$tag.ops"
		figs=$(cut_ops "$OUT/$tag.ops" "$WARMUP_S" $((WARMUP_S + secs)))
		kn=$(knobs "$j")
		;;
	*) fail "FIELD_LOADS: seed, shards, etcd, storm or truncate, not '$load'" ;;
	esac
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ "$setting" != agent ] || demo_agent_stop
	rm -f "$DROPIN" "$OUT/writer-$tag-warm.json"
	umount "$DEMO_MNT" || fail "umount $DEMO_MNT"
	fsck_clean "$dev" > /dev/null
	row "$load" "$rep" "$setting" "$figs" "$kn"
	# the truncate loop's own fsync: what the agent's cost test weighs
	[ "$load" != truncate ] || row truncate-fsync "$rep" "$setting" \
		"$(cut_ops "$OUT/$tag.fsync" "$WARMUP_S" $((WARMUP_S + secs)))" "$kn"
	# the journal's commit waits over the measured part: what the harm and
	# cost tests compare, per fixed setting too (truncate's measured part
	# is a separate writer run)
	[ -z "$cw" ] || row truncate-commit "$rep" "$setting" "$cw" "$kn"
}

echo "# $KSERIES $KABI agent-field: warm-up ${WARMUP_S}s, measured ${MEASURE_S}s (seed ${SEED_S}s), $REPS rep(s)${AGENT_INI:+; agent policy added: $AGENT_INI}" >> "$TSV"
echo "# load rep setting ops p50_ms p99_ms p99.9_ms max_ms fc/wm/ld_at_end" >> "$TSV"
for load in $LOADS; do
	for rep in $(seq 1 "$REPS"); do
		for setting in $(order "$rep"); do
			one "$load" "$rep" "$setting"
		done
	done
done
echo "agent-field: $(grep -vc '^#' "$TSV") runs"
