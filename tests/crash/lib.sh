# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the crash tests, sourced in the guest after tests/vm/lib.sh and
# tests/vm/lib-kmod.sh.

# shellcheck disable=SC2034 # used by the scripts that source this
CRASH=$PROJECT/tests/crash

# crash_modules on|off - load our jbd2 with the knobs as module defaults
# (on: force_copy_default=1 reclaim_watermark_pct_default=50
# lock_delay_max_ms_default=5000, off: all 0;
# the stock jbd2 with tests/vm/run --stock, off only) before anything
# mounts ext4, then ext4, configfs and the dm targets
crash_modules() {
	local fc=0 wm=0 ld=0 m
	[ "$1" = on ] && { fc=1; wm=50; ld=5000; }
	grep -q '^jbd2 ' /proc/modules && fail "jbd2 is loaded before the test set its parameters"
	if [ "$FLAVOUR" = stock ]; then
		# the distribution's jbd2 (tests/vm/run --stock): no knobs
		[ "$1" = off ] || fail "the stock jbd2 has no knobs to turn on"
		load_ext4
	else
		run_ok "modprobe jbd2" modprobe jbd2 force_copy_default=$fc reclaim_watermark_pct_default=$wm \
			lock_delay_max_ms_default=$ld
		assert_eq "jbd2 force_copy_default" "$fc" "$(cat "$PARAMS/force_copy_default")"
		assert_eq "jbd2 reclaim_watermark_pct_default" "$wm" "$(cat "$PARAMS/reclaim_watermark_pct_default")"
		assert_eq "jbd2 lock_delay_max_ms_default" "$ld" "$(cat "$PARAMS/lock_delay_max_ms_default")"
		kmod_setup
	fi
	for m in dm-log-writes dm-snapshot dm-flakey; do
		modprobe "$m" || fail "modprobe $m (is the VM module tree stale? tests/crash/run completes it)"
	done
}

# crash_knobs JOURNAL on|off - the journal's configfs group shows the knobs
# in force: force_copy, and a watermark inside the journal's accepted range
# (a default outside it would be clamped where it is used)
crash_knobs() {
	local j=$1 fc=0 wm=0 ld=0 lo hi
	[ "$FLAVOUR" = stock ] && { echo "stock jbd2: no knobs"; return 0; }
	[ "$2" = on ] && { fc=1; wm=50; ld=5000; }
	assert_eq "$j force_copy" "$fc" "$(jattr "$j" force_copy)"
	assert_eq "$j lock_delay_max_ms" "$ld" "$(jattr "$j" lock_delay_max_ms)"
	assert_eq "$j reclaim_watermark_pct" "$wm" "$(jattr "$j" reclaim_watermark_pct)"
	lo=$(jattr "$j" reclaim_watermark_min_pct)
	hi=$(jattr "$j" reclaim_watermark_max_pct)
	if [ "$wm" != 0 ]; then
		assert_cmp "$j watermark $wm >= reclaim_watermark_min_pct (not clamped)" "$wm" -ge "$lo"
		assert_cmp "$j watermark $wm <= reclaim_watermark_max_pct (not clamped)" "$wm" -le "$hi"
	fi
	echo "knobs of $j: force_copy=$fc reclaim_watermark_pct=$wm (accepted range $lo..$hi)" \
		"lock_delay_max_ms=$ld, log_blocks $(jattr "$j" log_blocks)"
}

# crash_figures JOURNAL - the journal's counters the reports quote, as
# name=value words (none with the stock jbd2)
crash_figures() {
	local f
	[ "$FLAVOUR" = stock ] && return 0
	for f in commits logged_blocks log_blocks copyouts_forced reclaim_runs \
		reclaim_blocks space_waits shadow_waits lock_delays; do
		printf '%s=%s ' "$f" "$(jattr "$1" "$f")"
	done
}

# fig WORDS NAME - one value out of crash_figures' words
fig() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# crash_journal_checks FIGURES on|off - what the run must have exercised:
# the log wrapped (more blocks logged than it holds), and with the knobs on
# forced copy-outs and background reclaim runs; off, neither
crash_journal_checks() {
	local f=$1
	[ "$FLAVOUR" = stock ] && return 0
	assert_cmp "log wrapped: logged_blocks > log_blocks" "$(fig "$f" logged_blocks)" -gt "$(fig "$f" log_blocks)"
	if [ "$2" = on ]; then
		assert_cmp "background reclaim ran (reclaim_runs)" "$(fig "$f" reclaim_runs)" -gt 0
		assert_cmp "forced copy-outs" "$(fig "$f" copyouts_forced)" -gt 0
	else
		assert_eq "control: reclaim_runs" 0 "$(fig "$f" reclaim_runs)"
		assert_eq "control: copyouts_forced" 0 "$(fig "$f" copyouts_forced)"
		assert_eq "control: lock_delays" 0 "$(fig "$f" lock_delays)"
	fi
}
