#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmod test 7: histograms.  Shadow and locked waits from fio on a
# write-throttled disk (vda), space waits from a create storm on the
# smallest journal (vdb), both at once; commit waits from the storm's
# fsyncs.  For each of the four waits: some happened, the 24 buckets sum to
# the wait count, *_wait_us >= *_max_us, and *_max_us falls in the highest
# non-empty bucket; the same for the commits (commits, commit_time_hist).
# vm-disk: 256M,throttling.bps-write=6291456
# vm-disk: 128M
# vm-timeout: 240
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/vm/lib-kmod.sh"

kmod_setup
ja=$(fresh_ext4 /dev/vda /mnt/a -J size=16) || exit 1
jb=$(fresh_ext4 /dev/vdb /mnt/b -J size=4) || exit 1

fio --name=layout --directory=/mnt/a --rw=write --bs=1m --size=8m --numjobs=4 \
	--filename_format='rw.$jobnum' --output=/dev/null || fail "fio layout"
sync
cat > /tmp/h.fio <<'JOB'
[global]
directory=/mnt/a
ioengine=psync
time_based=1
runtime=25
[rw]
rw=randrw
rwmixread=60
bs=4k
size=8m
numjobs=4
rate_iops=100
filename_format=rw.$jobnum
[writer]
rw=write
bs=64k
size=96m
fallocate=none
rate=4m
filename=writer
[meta]
rw=write
bs=4k
size=4k
nrfiles=1
numjobs=2
fsync=1
create_on_open=1
filename_format=meta.$jobnum.$filenum
JOB
fio --output=/dev/null /tmp/h.fio &
fpid=$!
create_storm /mnt/b 4 30 50 5 &
spid=$!
wait "$spid" || fail "create storm"
wait "$fpid" || fail "fio"
sync

bucket() { # US -> histogram bucket
	python3 -c "import sys; u = int(sys.argv[1]); print(min(u.bit_length() - 1, 23) if u > 0 else 0)" "$1"
}
seen=""
# "commit" is the commit waits (commit_waits, commit_wait_hist, ...)
for kind in shadow space locked commit; do
	for j in "$ja" "$jb"; do
		n=$(jattr "$j" "${kind}_waits")
		sum=$(hist_sum "$j" "$kind")
		max=$(jattr "$j" "${kind}_wait_max_us")
		tot=$(jattr "$j" "${kind}_wait_us")
		echo "$j $kind: waits=$n total_us=$tot max_us=$max hist: $(jattr "$j" "${kind}_wait_hist")"
		assert_eq "$j ${kind}_wait_hist sums to ${kind}_waits" "$n" "$sum"
		[ "$n" -gt 0 ] || continue
		seen="$seen $kind"
		assert_cmp "$j ${kind}_wait_us >= max" "$tot" -ge "$max"
		assert_eq "$j ${kind}_wait_max_us $max in the highest non-empty bucket" \
			"$(bucket "$max")" "$(hist_top "$j" "$kind")"
	done
done
# the commits themselves: commits, commit_time_us, commit_time_max_us, commit_time_hist
for j in "$ja" "$jb"; do
	n=$(jattr "$j" commits)
	sum=$(jattr "$j" commit_time_hist | awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s + 0 }')
	top=$(jattr "$j" commit_time_hist | awk '{ t = -1; for (i = 1; i <= NF; i++) if ($i > 0) t = i - 1; print t }')
	max=$(jattr "$j" commit_time_max_us)
	echo "$j commits=$n total_us=$(jattr "$j" commit_time_us) max_us=$max hist: $(jattr "$j" commit_time_hist)"
	assert_cmp "$j commits" "$n" -gt 0
	assert_eq "$j commit_time_hist sums to commits" "$n" "$sum"
	assert_cmp "$j commit_time_us >= commit_time_max_us" "$(jattr "$j" commit_time_us)" -ge "$max"
	assert_eq "$j commit_time_max_us $max in the highest non-empty bucket" "$(bucket "$max")" "$top"
done
# logged_blocks is jbd2's own rs_blocks_logged summed: /proc/fs/jbd2/<j>/info
# prints the same sum divided by the same commit count (ts_tid)
for j in "$ja" "$jb"; do
	info=/proc/fs/jbd2/$j/info
	n=$(jattr "$j" commits)
	lb=$(jattr "$j" logged_blocks)
	echo "$j logged_blocks=$lb; $(grep -E 'transactions|logged blocks' "$info" | tr -s ' \n' ' ')"
	assert_eq "$j commits = transactions in $info" \
		"$(awk 'NR == 1 { print $1 }' "$info")" "$n"
	assert_eq "$j logged_blocks / commits = logged blocks per transaction in $info" \
		"$(awk '/logged blocks per transaction/ { print $1 }' "$info")" $((lb / n))
done
for kind in shadow space locked commit; do
	case " $seen " in *" $kind "*) ;; *) fail "no $kind waits happened: the load did not exercise them" ;; esac
done
run_ok umount umount /mnt/a /mnt/b
echo "kmod-hist: all checks passed"
