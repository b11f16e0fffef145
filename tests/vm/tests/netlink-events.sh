#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Generic netlink events under load:
#  - STALL: writers sharing an inode table block on a device whose writes
#    take 20 ms (dm-delay) sleep on BH_Shadow; the events must come, carry
#    a wait > 1 ms, and never more than 10 per second per journal (no two
#    closer than 100 ms);
#  - SPACE_LOW: fsync'd creates on a 4 MB journal with reclaim off drive
#    free log space below 2 x max_transaction_blocks: exactly one event per
#    crossing; a flush (fsfreeze) re-arms it; with reclaim on the line is
#    the watermark.
# Needs tests/netlink/jbd2tune-nl built on the host.
# vm-disk: 256M
# vm-disk: 256M
# vm-timeout: 480
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/tests/netlink/vm-lib.sh"

load_ext4
mount_configfs
modprobe dm-delay || fail "modprobe dm-delay"

# --- STALL --------------------------------------------------------------------
mkfs_ext4 /dev/vda -J size=16
sectors=$(blockdev --getsz /dev/vda)
run_ok dmsetup dmsetup create nlslow --table "0 $sectors delay /dev/vda 0 0 /dev/vda 0 20"
mkdir -p /mnt/a /mnt/b
run_ok mount mount -t ext4 /dev/mapper/nlslow /mnt/a
ja=$(ls "$CFS" | head -n 1)
[ -n "$ja" ] || fail "no journal for the dm-delay device"
log "journal $ja (writes delayed 20 ms)"

nl_listen "$OUT/events-stall.log"
python3 "$PROJECT/tests/vm/shadow-stall.py" /mnt/a 12 || fail "shadow-stall.py"
sleep 1
nl_stop
cp "$OUT/events-stall.log" /tmp/ev
log "shadow_waits=$(< "$CFS/$ja/shadow_waits") shadow_wait_max_us=$(< "$CFS/$ja/shadow_wait_max_us")" \
	"space_waits=$(< "$CFS/$ja/space_waits")"
python3 "$NLCHECK" stall-rate /tmp/ev --max-per-s 10 --min-gap-us 99000 ||
	{ tail -n 5 /tmp/ev; fail "STALL events"; }
ev=$(grep -m1 ' event=STALL ' /tmp/ev)
echo "$ev"
assert_cmp "STALL stall_max_us" "$(field "$ev" stall_max_us)" -gt 1000
case "$(field "$ev" stall_kind)" in
shadow|space|shadow,space) echo "ok: stall_kind $(field "$ev" stall_kind)" ;;
*) fail "bad stall_kind in '$ev'" ;;
esac
run_ok umount umount /mnt/a
run_ok dmsetup dmsetup remove nlslow

# --- SPACE_LOW ------------------------------------------------------------------
jb=$(fresh_ext4 /dev/vdb /mnt/b -J size=4) || exit 1
assert_eq "reclaim off" 0 "$(< "$CFS/$jb/reclaim_watermark_pct")"
log_blocks=$(< "$CFS/$jb/log_blocks")
line=$((2 * $(< "$CFS/$jb/max_transaction_blocks")))
log "journal $jb: $log_blocks blocks, SPACE_LOW line $line blocks (2 x max_transaction_blocks)"

# fill DIR BELOW [MAX] - fsync'd creates until free log space < BELOW
# blocks (at most MAX, default 3000), then one more create: the handle
# start that sees the space below the line
fill() {
	python3 - "$1" "$2" "$CFS/$jb/free_blocks" "${3:-3000}" <<'PY'
import os, sys
d, below, ffile, most = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
os.makedirs(d, exist_ok=True)
i = 0
def create(name):
    fd = os.open(name, os.O_CREAT | os.O_WRONLY)
    os.write(fd, b"y" * 100)
    os.fsync(fd)
    os.close(fd)
while int(open(ffile).read()) >= below and i < most:
    create("%s/c%d" % (d, i))
    i += 1
create("%s/last" % d)
print("%d creates, free_blocks now %s" % (i, open(ffile).read().strip()))
PY
}
# flush - checkpoint the whole log, then start one handle to re-arm
flush() {
	run_ok "fsfreeze -f" fsfreeze -f /mnt/b
	run_ok "fsfreeze -u" fsfreeze -u /mnt/b
	touch /mnt/b/rearm
	sync
	log "after flush: free_blocks $(< "$CFS/$jb/free_blocks")"
}
count_low() {
	python3 "$NLCHECK" events "$OUT/events-space.log" SPACE_LOW "$jb"
}

nl_listen "$OUT/events-space.log"
flush
fill /mnt/b/d1 "$line"
sleep 0.5
assert_eq "SPACE_LOW after the first crossing" 1 "$(count_low)"
ev=$(grep -m1 ' event=SPACE_LOW ' "$OUT/events-space.log")
echo "$ev"
assert_eq "SPACE_LOW threshold_blocks" "$line" "$(field "$ev" threshold_blocks)"
assert_cmp "SPACE_LOW free_blocks below the line" "$(field "$ev" free_blocks)" -lt "$line"
# deeper, but above the foreground checkpoint (max_transaction_blocks)
fill /mnt/b/d1b $((line * 3 / 4))
sleep 0.5
assert_eq "no second SPACE_LOW while still low" 1 "$(count_low)"

flush
assert_cmp "free space recovered" "$(< "$CFS/$jb/free_blocks")" -ge "$line"
fill /mnt/b/d2 "$line"
sleep 0.5
assert_eq "SPACE_LOW after the second crossing" 2 "$(count_low)"

# reclaim on: the line is the watermark
flush
wm_pct=$(< "$CFS/$jb/reclaim_watermark_max_pct")
echo "$wm_pct" > "$CFS/$jb/reclaim_watermark_pct"
wm=$((log_blocks * wm_pct / 100))
fill /mnt/b/d3 "$wm" 300
sleep 0.5
ev=$(grep ' event=SPACE_LOW ' "$OUT/events-space.log" | sed -n 3p)
[ -n "$ev" ] || { cat "$OUT/events-space.log"; fail "no SPACE_LOW below the watermark"; }
echo "$ev"
assert_eq "SPACE_LOW threshold = watermark" "$wm" "$(field "$ev" threshold_blocks)"
nl_stop
grep -c ' event=SPACE_LOW ' "$OUT/events-space.log" | sed 's/^/SPACE_LOW events in total: /'

run_ok umount umount /mnt/b
fsck_clean /dev/vdb
fsck_clean /dev/vda
echo "netlink-events: all checks passed"
