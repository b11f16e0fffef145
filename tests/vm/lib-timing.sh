# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the VM test's bash through BASH_ENV (tests/vm/init): the
# test's own top-level `sleep` commands, the fixed waits of its script, are
# timed into $OUT/.sleeps ("START END ARGS", guest seconds since the epoch)
# for tests/vm/run's time table.  Sleeps of background jobs and subshells,
# and the bash scripts the test starts, are not counted (they overlap the
# main script's time); their sleep is the plain command.

if [ -z "${VM_SLEEP_MAIN:-}" ]; then
	export VM_SLEEP_MAIN=$$
fi
sleep() {
	if [ "$BASHPID" != "$VM_SLEEP_MAIN" ] || [ -z "${OUT:-}" ]; then
		command sleep "$@"
		return
	fi
	local t0=$EPOCHREALTIME rc=0
	command sleep "$@" || rc=$?
	echo "$t0 $EPOCHREALTIME $*" >> "$OUT/.sleeps" 2>/dev/null
	return $rc
}
