#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, guest side: the scenario of demo-scenario.sh at full length.
# Phase 1: jbd2-tuned --dry-run (logs what it would do), measure.
# Phase 2: jbd2-tuned in auto: it turns force_copy on by itself, measure.
# vm-disk: 400M,throttling.bps-write=6291456
# vm-timeout: 420
# vm-series: 6.1
source "$PROJECT/tests/vm/lib.sh"
source "$PROJECT/bench/demo-scenario.sh"

echo "kernel: $(uname -r) ($FLAVOUR jbd2); disk: 400 MB virtio," \
	"qemu throttling.bps-write=6291456 (6 MB/s); ext4 -J size=16"
echo "policy: $PROJECT/conf/jbd2-tuned.conf${DEMO_DROPIN:+ + drop-in:}"
[ -z "$DEMO_DROPIN" ] || echo "$DEMO_DROPIN" | sed 's/^/    /'
demo_setup
rm -f "$OUT/table" "$OUT/agent.log"

log "phase 1: jbd2-tuned --dry-run, ${DEMO_PHASE_S}s of load"
demo_agent_start --dry-run
demo_background_start
sleep 5
demo_phase dry-run
demo_background_stop
demo_agent_stop

log "phase 2: jbd2-tuned in auto"
demo_agent_start
demo_background_start
if t=$(demo_wait_force_copy "$DEMO_WARMUP_MAX_S"); then
	log "the agent turned force_copy on after ${t}s of load"
else
	log "the agent did not turn force_copy on within ${DEMO_WARMUP_MAX_S}s"
fi
demo_phase auto
echo
echo "busctl introspect of the journal object:"
busctl --system introspect org.jbd2tune1 "$(demo_journal_path)" org.jbd2tune1.Journal 2>&1 |
	grep -E 'NAME|property' | head -n 30
demo_background_stop
demo_agent_stop
umount "$DEMO_MNT"
fsck_clean /dev/vda

echo
echo "agent decisions (log lines):"
grep -E 'force_copy|reclaim' "$OUT/agent.log" | sed 's/^/    /' | head -n 20
demo_print_table
