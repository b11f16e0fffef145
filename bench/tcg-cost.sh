#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a guest's plain work costs under the emulator (a VM script for
# tests/vm/run; it needs `make -C kmod KSERIES=<series>` done):
#
#   tests/vm/run bench/tcg-cost.sh --kseries 6.1 --smp 1
#
# Three rounds of: 200 starts of /bin/true, 50 of sed, and one object of
# our module (revoke.o) compiled by the kernel's own Kbuild from the
# cached headers.  Used to weigh qemu versions and options against each
# other (two guests side by side, one per core, one with another qemu
# first in PATH): Documentation/development.md, "qemu 10.0".
# vm-timeout: 900
# vm-memory: 1024
source "$PROJECT/tests/vm/lib.sh"
cache=${JBD2TUNE_CACHE:-/root/.cache/jbd2-tune}
hdr=$(ls -d "$cache/$KSERIES"/root-*/usr/src/linux-headers-"$KABI" 2>/dev/null | head -n 1)
tree=$PROJECT/kmod/build/$KABI/tree
[ -d "$hdr" ] || fail "no headers for $KABI under $cache/$KSERIES"
[ -f "$tree/fs/jbd2/revoke.c" ] || fail "no module tree $tree (make -C kmod KSERIES=$KSERIES)"
cp -a "$tree" /tmp/tree
took() { printf '%-22s %6.1f s\n' "$1" "$(echo "$EPOCHREALTIME - $2" | bc)"; }
for r in 1 2 3; do
	t=$EPOCHREALTIME
	for _ in $(seq 200); do /bin/true; done
	took "200 x /bin/true" "$t"
	t=$EPOCHREALTIME
	for _ in $(seq 50); do sed -n 1p /etc/hostname > /dev/null; done
	took "50 x sed" "$t"
	rm -f /tmp/tree/fs/jbd2/revoke.o
	t=$EPOCHREALTIME
	make -s -C "$hdr" M=/tmp/tree/fs/jbd2 revoke.o > /dev/null 2>&1 || fail "compile revoke.o"
	took "compile revoke.o" "$t"
done
