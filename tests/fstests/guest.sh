#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fstests in the VM (tests/fstests/run boots this once per series and jbd2:
# the stock module, then ours).  Ours is loaded with every knob on as module
# defaults (force_copy_default=1 reclaim_watermark_pct_default=50
# lock_delay_max_ms_default=5000, also in
# /etc/modprobe.d so a reload keeps them), and every journal the run sets up
# is checked in configfs: the test file system's before fstests starts, and
# all groups seen by a sampler every 2 s while it runs (knobs.txt).  ext4 on
# vda (TEST_DEV) and vdb (SCRATCH_DEV), vdc is LOGWRITES_DEV.  Results go
# to $OUT/results (fstests' RESULT_BASE; result.xml is rewritten before
# every test, so a run cut short still reports the tests it finished).
# Settings (exported by the wrapper tests/fstests/run writes):
#   FSTESTS_DIR    a built fstests tree (seen through the host's root)
#   FSTESTS_TESTS  the tests, e.g. "generic/001 ext4/001"
#   FSTESTS_MKFS_OPTIONS  mke2fs options of TEST_DEV and fstests' MKFS_OPTIONS
#                  (default: none)
# Exit status 0 when ./check ran to its end and, with our jbd2, every
# journal had the knobs on; the tests' own results are compared on the host.
# vm-disk: 4G
# vm-disk: 4G
# vm-disk: 2G
# vm-memory: 2048
# vm-timeout: 5400
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

FST=${FSTESTS_DIR:?FSTESTS_DIR not set}
TESTS=${FSTESTS_TESTS:?FSTESTS_TESTS not set}
FC=1 WM=50 LD=5000
if [ ! -x "$FST/check" ] || [ ! -d "$FST/src" ]; then
	fail "$FST is not a built fstests tree"
fi

# --- jbd2, stock or ours with the knobs as module defaults --------------
grep -q '^jbd2 ' /proc/modules && fail "jbd2 is loaded before the test set its parameters"
if [ "$FLAVOUR" = ours ]; then
	echo "options jbd2 force_copy_default=$FC reclaim_watermark_pct_default=$WM" \
		"lock_delay_max_ms_default=$LD" > /etc/modprobe.d/jbd2-fstests.conf
	run_ok "modprobe jbd2" modprobe jbd2
	assert_eq "jbd2 force_copy_default" "$FC" "$(cat "$PARAMS/force_copy_default")"
	assert_eq "jbd2 reclaim_watermark_pct_default" "$WM" \
		"$(cat "$PARAMS/reclaim_watermark_pct_default")"
	assert_eq "jbd2 lock_delay_max_ms_default" "$LD" \
		"$(cat "$PARAMS/lock_delay_max_ms_default")"
	kmod_setup
else
	run_ok "modprobe jbd2" modprobe jbd2
	[ -e "$PARAMS/force_copy_default" ] && fail "stock run, but jbd2 has force_copy_default"
	load_ext4
fi

# dm targets fstests may ask for; a missing one makes its tests "not run"
for m in dm-flakey dm-log-writes dm-thin-pool dm-snapshot; do
	if modprobe "$m" 2>/dev/null; then echo "dm target module $m: loaded"
	else echo "dm target module $m: not in the VM's module tree (tests needing it: not run)"; fi
done

# --- users, devices, configuration --------------------------------------
id fsgqa >/dev/null 2>&1 || run_ok "useradd fsgqa" useradd -m fsgqa
id 123456-fsgqa >/dev/null 2>&1 || run_ok "useradd 123456-fsgqa" useradd 123456-fsgqa
id fsgqa2 >/dev/null 2>&1 || run_ok "useradd fsgqa2" useradd fsgqa2
getent group fsgqa >/dev/null || run_ok "groupadd fsgqa" groupadd fsgqa

mkdir -p /mnt/test /mnt/scratch
# shellcheck disable=SC2086 # options are words
mkfs.ext4 -q -F ${FSTESTS_MKFS_OPTIONS:-} /dev/vda || fail "mkfs.ext4 /dev/vda"
if [ "$FLAVOUR" = ours ]; then
	run_ok "mount test fs" mount -t ext4 /dev/vda /mnt/test
	j=$(journal_name /dev/vda)
	[ -n "$j" ] || fail "no journal for /dev/vda"
	assert_eq "$j force_copy" "$FC" "$(jattr "$j" force_copy)"
	assert_eq "$j reclaim_watermark_pct" "$WM" "$(jattr "$j" reclaim_watermark_pct)"
	assert_eq "$j lock_delay_max_ms" "$LD" "$(jattr "$j" lock_delay_max_ms)"
	lo=$(jattr "$j" reclaim_watermark_min_pct)
	hi=$(jattr "$j" reclaim_watermark_max_pct)
	assert_cmp "$j watermark $WM >= reclaim_watermark_min_pct (not clamped)" "$WM" -ge "$lo"
	assert_cmp "$j watermark $WM <= reclaim_watermark_max_pct (not clamped)" "$WM" -le "$hi"
	run_ok "umount test fs" umount /mnt/test
fi

cfg=/tmp/fstests.config
cat > "$cfg" <<CFG
export FSTYP=ext4
export TEST_DEV=/dev/vda
export TEST_DIR=/mnt/test
export SCRATCH_DEV=/dev/vdb
export SCRATCH_MNT=/mnt/scratch
export LOGWRITES_DEV=/dev/vdc
export RESULT_BASE=$OUT/results
export MKFS_OPTIONS="${FSTESTS_MKFS_OPTIONS:-}"
# no udevd here: libdm makes the /dev/mapper nodes (DM_DISABLE_UDEV=1), and
# "udevadm wait", which fstests prefers, would wait for udev forever;
# "udevadm settle" returns at once
export UDEV_WAIT_PROG=
CFG
echo "fstests configuration ($cfg):"
sed 's/^/  /' "$cfg"

# --- the knobs of every journal while fstests runs ------------------------
# One line per group and sample: name force_copy watermark copyouts_forced
# reclaim_runs lock_delay_max_ms lock_delays.  bash builtins only: groups
# come and go with each mount.
sample_knobs() {
	local g n fc wm co rr ld ldn
	while :; do
		for g in "$CFS"/*/; do
			n=${g%/}; n=${n##*/}
			{ read -r fc < "$g/force_copy" && read -r wm < "$g/reclaim_watermark_pct" &&
				read -r co < "$g/copyouts_forced" && read -r rr < "$g/reclaim_runs" &&
				read -r ld < "$g/lock_delay_max_ms" && read -r ldn < "$g/lock_delays"; } \
				2>/dev/null || continue
			echo "$n $fc $wm $co $rr $ld $ldn"
		done
		sleep 2
	done
}
sampler=
if [ "$FLAVOUR" = ours ]; then
	sample_knobs > /tmp/knob-samples &
	sampler=$!
fi

# --- fstests ----------------------------------------------------------------
log "fstests: ./check $TESTS"
# the host's tree, written in this guest's overlay only
cd "$FST" || fail "cd $FST"
read -r -a tests <<< "$TESTS"
HOST_OPTIONS=$cfg ./check -R xunit "${tests[@]}" 2>&1 | tee "$OUT/check.txt"
crc=${PIPESTATUS[0]}
cd /tmp || exit 1
log "./check exited with $crc"
[ -f "$OUT/results/result.xml" ] || fail "./check left no results/result.xml"

rc=0
if [ -n "$sampler" ]; then
	kill "$sampler"
	wait "$sampler" 2>/dev/null
	awk -v fc="$FC" -v wm="$WM" -v ld="$LD" '
		{ n[$1]++; if ($2 != fc || $3 != wm || $6 != ld) off[$1] = off[$1] " " $2 "/" $3 "/" $6
		  if ($4 > co[$1]) co[$1] = $4; if ($5 > rr[$1]) rr[$1] = $5
		  if ($7 > ldn[$1]) ldn[$1] = $7 }
		END {
			for (j in n) {
				seen++
				printf "%s: %d samples, knobs %s, max copyouts_forced %d, max reclaim_runs %d, max lock_delays %d\n",
					j, n[j], (j in off) ? "OFF (" off[j] " )" : "on", co[j], rr[j], ldn[j]
				if (j in off) bad = 1
			}
			if (!seen) print "no journal sampled"
			exit bad
		}' /tmp/knob-samples > "$OUT/knobs.txt" || rc=1
	echo "journals seen in configfs during fstests (force_copy/watermark/lock_delay_max_ms must stay $FC/$WM/$LD):"
	sed 's/^/  /' "$OUT/knobs.txt"
	[ $rc = 0 ] || echo "FAIL: a journal had a knob off during fstests" >&2
fi
exit $rc
