#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test 5: background reclaim.  The smallest journal (-J size=4) and a
# mkdir/create storm (4 workers, an fsync every 5th file so that many
# small transactions fill the log).  With reclaim_watermark_pct 0 nothing
# runs in the background (reclaim_runs = 0) and handles wait for log space
# in the foreground (space_waits > 0); with each accepted watermark the
# journal offers - its lowest (reclaim_watermark_min_pct), 50 and its
# highest (reclaim_watermark_max_pct) - the work runs (reclaim_runs > 0,
# reclaim_blocks > 0) and fewer handles wait than with 0 in the same boot:
# no accepted watermark is without effect.  e2fsck -fn clean after each
# run.
# vm-disk: 256M
# vm-timeout: 600
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

DIRS=${KMOD_RC_DIRS:-40}
FILES=${KMOD_RC_FILES:-50}
EVERY=${KMOD_RC_FSYNC_EVERY:-5}
kmod_setup

figs="space_waits space_wait_us space_wait_max_us reclaim_runs reclaim_blocks locked_waits shadow_waits commits"
declare -A res
marks=""
for mark in 0 min 50 max; do
	j=$(fresh_ext4 /dev/vda /mnt/a -J size=4) || exit 1
	case $mark in
	min) wm=$(jattr "$j" reclaim_watermark_min_pct); wmin=$wm ;;
	max) wm=$(jattr "$j" reclaim_watermark_max_pct); wmax=$wm ;;
	*) wm=$mark ;;
	esac
	marks="$marks $wm"
	jset "$j" reclaim_watermark_pct "$wm"
	log "storm with reclaim_watermark_pct=$wm: 4 x $DIRS dirs x $FILES files, fsync every $EVERY"
	t0=$(date +%s.%N)
	create_storm /mnt/a 4 "$DIRS" "$FILES" "$EVERY" || fail "create storm"
	t1=$(date +%s.%N)
	line=""
	for f in $figs; do
		res[$wm.$f]=$(jattr "$j" "$f")
		line="$line $f=${res[$wm.$f]}"
	done
	secs=$(echo "$t1 - $t0" | bc)
	res[$wm.secs]=$secs
	echo "RESULT reclaim_watermark_pct=$wm: storm ${secs}s;$line"
	echo "RESULT reclaim_watermark_pct=$wm: space_wait_hist $(jattr "$j" space_wait_hist)"
	echo "reclaim_watermark_pct=$wm ($KSERIES): log_blocks=$(jattr "$j" log_blocks) storm=${secs}s;$line" >> "$OUT/figures.txt"
	n=$(find /mnt/a -type f | wc -l)
	assert_eq "files created (wm $wm)" $((4 * DIRS * FILES)) "$n"
	run_ok umount umount /mnt/a
	fsck_clean /dev/vda
done

assert_eq "watermark 0: reclaim_runs" 0 "${res[0.reclaim_runs]}"
assert_cmp "watermark 0: space_waits" "${res[0.space_waits]}" -gt 0
for wm in $wmin 50 $wmax; do
	assert_cmp "watermark $wm: reclaim_runs" "${res[$wm.reclaim_runs]}" -gt 0
	assert_cmp "watermark $wm: reclaim_blocks" "${res[$wm.reclaim_blocks]}" -gt 0
	assert_cmp "watermark $wm has fewer space waits than 0" \
		"${res[$wm.space_waits]}" -lt "${res[0.space_waits]}"
done
printf '%-10s %8s %12s %12s %14s %8s\n' watermark storm_s space_waits reclaim_runs reclaim_blocks commits
for wm in $marks; do
	printf '%-10s %8.2f %12s %12s %14s %8s\n' "$wm" "${res[$wm.secs]}" "${res[$wm.space_waits]}" \
		"${res[$wm.reclaim_runs]}" "${res[$wm.reclaim_blocks]}" "${res[$wm.commits]}"
done
echo "kmod-reclaim: all checks passed"
