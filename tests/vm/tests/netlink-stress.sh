#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# GET_JOURNAL dumps while journals come and go: 10,000 dumps (two clients
# in parallel; at most DURATION_MS, fewer under a slow TCG) and gets by
# name against a loop mounting and unmounting two file systems.  No error
# other than a journal vanishing (ENOENT for a get), every JOURNAL_ADD
# matched by a JOURNAL_REMOVE, dmesg clean.
# Needs tests/netlink/jbd2tune-nl built on the host.
# vm-disk: 128M
# vm-disk: 128M
# vm-timeout: 420
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/netlink/vm-lib.sh"

DUMPS=${NL_STRESS_DUMPS:-10000}
# The dumps go on until DUMPS are done and the file systems went through
# MIN_CYCLES mount/umount cycles, or DURATION_MS passed (under a slow TCG;
# the count is printed and must reach MIN_DUMPS).
DURATION_MS=${NL_STRESS_MS:-100000}
MIN_DUMPS=${NL_STRESS_MIN_DUMPS:-1000}
MIN_CYCLES=${NL_STRESS_MIN_CYCLES:-20}

load_ext4
mount_configfs
mkfs_ext4 /dev/vda -J size=4
mkfs_ext4 /dev/vdb -J size=4
mkdir -p /mnt/a /mnt/b

nl_listen "$OUT/events-stress.log"
rm -f /tmp/stop
(
	n=0
	while [ ! -e /tmp/stop ]; do
		"$NL" mount /dev/vda /mnt/a > /dev/null || exit 1
		"$NL" mount /dev/vdb /mnt/b > /dev/null || exit 1
		echo data > /mnt/a/f
		umount /mnt/a || exit 1
		umount /mnt/b || exit 1
		n=$((n + 1))
		echo "$n" > /tmp/cycles
	done
) &
mounter=$!

# batches CMD... - run a repeating client in batches until the test's
# goals are met (DUMPS dumps done by the main loop and MIN_CYCLES mount
# cycles) or DURATION_MS passed; its summary lines go to stdout
batches() {
	while [ ! -e /tmp/stop ]; do
		"$@" || echo "errors=exit$?"
	done
}

t0=$(date +%s)
# gets by name race the same mounts: only ENOENT (not mounted) may fail them
batches "$NL" get vda-8 --repeat 300 > /tmp/g 2>&1 &
getter=$!
batches "$NL" dump --repeat 500 > /tmp/d2 2>&1 &
d2=$!
total=0
: > /tmp/d1
while :; do
	"$NL" dump --repeat 500 >> /tmp/d1 2>&1 || echo "errors=exit$?" >> /tmp/d1
	total=$(( $(sed -n 's/^dumps=\([0-9]*\).*/\1/p' /tmp/d1 /tmp/d2 | paste -sd+ | bc) ))
	cycles=$(cat /tmp/cycles 2>/dev/null || echo 0)
	[ "$total" -ge "$DUMPS" ] && [ "$cycles" -ge "$MIN_CYCLES" ] && break
	[ $(( ($(date +%s) - t0) * 1000 )) -ge "$DURATION_MS" ] && break
done
t1=$(date +%s)
touch /tmp/stop
wait "$mounter" || fail "mount/umount loop failed"
wait "$getter" "$d2"
sleep 0.5
nl_stop

total=$(( $(sed -n 's/^dumps=\([0-9]*\).*/\1/p' /tmp/d1 /tmp/d2 | paste -sd+ | bc) ))
cycles=$(cat /tmp/cycles)
sum() { # KEY FILES... - sum of KEY= over the summary lines
	local k=$1; shift
	cat "$@" | tr ' ' '\n' | sed -n "s/^$k=//p" | awk '{ s += $1 } END { print s + 0 }'
}
log "$total dumps (two clients) and $(sum gets /tmp/g) gets" \
	"($(sum enoent /tmp/g) ENOENT, journal not mounted) in $((t1 - t0)) s" \
	"against $cycles mount/umount cycles of two file systems;" \
	"$(sum interrupted /tmp/d1 /tmp/d2) dumps interrupted by a change and retried"
[ "$total" -lt "$DUMPS" ] &&
	echo "note: TCG too slow for $DUMPS dumps in $((DURATION_MS / 1000)) s: $total done"
grep -v '^dumps=\|^gets=' /tmp/d1 /tmp/d2 /tmp/g | head -n 5
assert_eq "dump errors" 0 "$(grep -c 'errors=[^0]' /tmp/d1 /tmp/d2 | awk -F: '{ s += $2 } END { print s }')"
assert_eq "get errors other than ENOENT" 0 "$(grep -c 'errors=[^0]' /tmp/g)"
assert_cmp "dumps done" "$total" -ge "$MIN_DUMPS"
assert_cmp "mount cycles during the dumps" "$cycles" -ge 1
adds=$(grep -c ' event=JOURNAL_ADD ' "$OUT/events-stress.log")
removes=$(grep -c ' event=JOURNAL_REMOVE ' "$OUT/events-stress.log")
assert_eq "JOURNAL_ADD events = 2 x cycles" $((2 * cycles)) "$adds"
assert_eq "JOURNAL_REMOVE events = JOURNAL_ADD events" "$adds" "$removes"
grep -q '^# overrun' "$OUT/events-stress.log" && fail "listener overran"
assert_eq "dump after the loop" "" "$("$NL" dump)"
fsck_clean /dev/vda
fsck_clean /dev/vdb
echo "netlink-stress: all checks passed"
