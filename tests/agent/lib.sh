# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Helpers for the agent's integration tests: a fake configfs tree in a temp
# dir (one directory per journal, one decimal value per file, as SPEC §1),
# a policy file, and starting/stopping jbd2-tuned against them.
#
# Needs: JT_BIN (the agent binary), JT_SUITE (result name prefix).

AGENT_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/results.sh
. "$AGENT_TESTS/../lib/results.sh"

: "${JT_BIN:?JT_BIN must name the jbd2-tuned binary}"
: "${JT_SUITE:=agent}"

ZERO_HIST="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"

# nap SECONDS - sleep without starting a process: read -t on a pipe that
# nobody writes.  The loops below (wait_for, the feeders of fake waits) look
# several times a second for minutes, and a process costs 7-11 ms of CPU on
# the 2-core machine (Documentation/development.md, "Processes").
exec {NAP_FD}<> <(:)
nap() {
	read -rt "$1" -u "$NAP_FD" _ || :
}

# test_dir NAME - a private directory $tmp for one test script, removed on
# exit together with every process the script started (AGENT_PID, BUS_PID,
# MON_PID, FEED_PID), and the paths the scripts share: $cfs (the fake
# configfs tree), $log (the agent's log), $J/$JI/$M/$MI (bus names).
# Call it in the script itself, not in a subshell: it sets the EXIT trap.
test_dir() {
	tmp=$(mktemp -d "/tmp/jt-$1.XXXXXX")
	MON_PID='' FEED_PID=''
	trap test_dir_cleanup EXIT
	cfs=$tmp/jbd2
	log=$tmp/agent.log
	J=/org/jbd2tune1/journal
	JI=org.jbd2tune1.Journal
	M=/org/jbd2tune1
	MI=org.jbd2tune1.Manager
}

test_dir_cleanup() {
	# shellcheck disable=SC2086
	kill ${FEED_PID:-} ${AGENT_PID:-} ${MON_PID:-} ${BUS_PID:-} 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}

# fake_journal_old ROOT NAME - a quiet journal group as the module's first
# release had it: three kinds of wait, no commit statistics, no reclaim limits
fake_journal_old() {
	local d=$1/$2 f
	mkdir -p "$d"
	echo 0 > "$d/force_copy"
	echo 0 > "$d/reclaim_watermark_pct"
	echo 32768 > "$d/log_blocks"
	echo 30000 > "$d/free_blocks"
	echo 8192 > "$d/max_transaction_blocks"
	for f in shadow space locked; do
		echo 0 > "$d/${f}_waits"
		echo 0 > "$d/${f}_wait_us"
		echo 0 > "$d/${f}_wait_max_us"
		echo "$ZERO_HIST" > "$d/${f}_wait_hist"
	done
	echo 0 > "$d/copyouts_forced"
	echo 0 > "$d/reclaim_runs"
	echo 0 > "$d/reclaim_blocks"
}

# fake_journal ROOT NAME - a quiet journal group with every file of the
# current module: also commit waits, commits, logged_blocks, lock_delay_max_ms
# and the reclaim limits, those 6.1 gives this journal (threshold 8192 of 32768 blocks:
# 25 % + 5 = 30; reach (32767 - 8192 - 32) / 32768 = 74 %)
fake_journal() {
	local d=$1/$2
	fake_journal_old "$1" "$2"
	echo 0 > "$d/commit_waits"
	echo 0 > "$d/commit_wait_us"
	echo 0 > "$d/commit_wait_max_us"
	echo "$ZERO_HIST" > "$d/commit_wait_hist"
	echo 0 > "$d/commits"
	echo 0 > "$d/commit_time_us"
	echo 0 > "$d/commit_time_max_us"
	echo "$ZERO_HIST" > "$d/commit_time_hist"
	echo 30 > "$d/reclaim_watermark_min_pct"
	echo 74 > "$d/reclaim_watermark_max_pct"
	echo 0 > "$d/logged_blocks"
	echo 0 > "$d/lock_delay_max_ms"
}

# fake_journal_measured ROOT NAME - fake_journal plus the counts of the
# waits the knobs spared (shadow_waits_avoided, ...): a module that measures
# force copy's relief
fake_journal_measured() {
	local d=$1/$2
	fake_journal "$1" "$2"
	echo 0 > "$d/shadow_waits_avoided"
	echo 0 > "$d/shadow_wait_avoided_us"
	echo 0 > "$d/locked_waits_avoided"
	echo 0 > "$d/locked_wait_avoided_us"
}

# add_avoided DIR COUNT US - COUNT more shadow waits spared, US us in all
# (the total first, the count last, as the kernel does)
add_avoided() {
	local d=$1 n us
	read -r us < "$d/shadow_wait_avoided_us"
	put "$d/shadow_wait_avoided_us" $(( us + $3 ))
	read -r n < "$d/shadow_waits_avoided"
	put "$d/shadow_waits_avoided" $(( n + $2 ))
}

# add_commits DIR COMMITS BLOCKS - COMMITS more commits that logged BLOCKS
# blocks in all (logged_blocks first, the count last, as the kernel does)
add_commits() {
	local d=$1 v
	read -r v < "$d/logged_blocks"
	put "$d/logged_blocks" $(( v + $3 ))
	read -r v < "$d/commits"
	put "$d/commits" $(( v + $2 ))
}

# add_waits DIR KIND COUNT BUCKET - COUNT more waits of KIND
# (shadow|space|locked|commit) in histogram bucket BUCKET ([2^b, 2^(b+1)) us);
# total and max follow.
# Files are replaced by rename so the agent never reads half a file.
add_waits() {
	local d=$1 kind=$2 n=$3 b=$4 hist waits us max i new=""
	read -r -a hist < "$d/${kind}_wait_hist"
	hist[b]=$((hist[b] + n))
	for i in "${hist[@]}"; do new+="$i "; done
	# read, not $(cat): no process per value (the feeders of the tests
	# call this several times a second for minutes)
	read -r waits < "$d/${kind}_waits"
	read -r us < "$d/${kind}_wait_us"
	read -r max < "$d/${kind}_wait_max_us"
	waits=$(( waits + n ))
	us=$(( us + n * (1 << b) ))
	# the largest wait is taken at the top of the bucket, so it caps nothing
	(( (2 << b) - 1 > max )) && max=$(( (2 << b) - 1 ))
	put "$d/${kind}_wait_hist" "${new% }"
	put "$d/${kind}_wait_us" "$us"
	put "$d/${kind}_wait_max_us" "$max"
	put "$d/${kind}_waits" "$waits"
}

# put FILE VALUE - atomic replace
put() {
	echo "$2" > "$1.tmp.$$" && mv -f "$1.tmp.$$" "$1"
}

# the order of the trials' on/off blocks: fixed, so that a run repeats
export JBD2_TUNED_SEED=${JBD2_TUNED_SEED:-1}

# harmful_copy_load DIR FLAG - forever, every 100 ms, on the fake journal DIR:
# 3 commit waits in [32, 64) ms while force_copy is off, 4x longer
# ([128, 256) ms) while it is on; once the file FLAG exists, also 5 shadow
# waits of 32..64 ms while force_copy is off.  Run it in the background: one
# writer for all files, so no update is lost.
harmful_copy_load() {
	local d=$1 flag=$2 fc
	while :; do
		read -r fc < "$d/force_copy"
		if [ "$fc" = 1 ]; then
			add_waits "$d" commit 3 17
		else
			add_waits "$d" commit 3 15
			[ -e "$flag" ] && add_waits "$d" shadow 5 15
		fi
		nap 0.1
	done
}

# write_policy FILE [extra lines...] - a policy with a short interval/window
# and trial blocks of 1 s
write_policy() {
	local f=$1; shift
	{
		echo "[agent]"
		echo "interval_ms = 100"
		echo "window_s = 2"
		echo "restore_on_exit = true"
		echo "[defaults]"
		echo "force_copy = auto"
		echo "stall_budget_ms_per_s = 10"
		echo "stall_wait_min_ms = 10"
		echo "trial_block_s = 1"
		echo "recheck_s = 3600"
		echo "reclaim = off"
		printf '%s\n' "$@"
	} > "$f"
}

# start_agent LOG ARGS... - run the agent in the background; sets AGENT_PID
# (what the agent learns goes to $tmp/state unless JBD2_TUNED_STATE_DIR says
# otherwise, never to the machine's /run/jbd2-tuned)
start_agent() {
	local log=$1; shift
	JBD2_TUNED_STATE_DIR=${JBD2_TUNED_STATE_DIR:-$tmp/state} \
		JBD2_TUNED_METRICS_DIR=${JBD2_TUNED_METRICS_DIR:-$tmp/textfile} \
		"$JT_BIN" "$@" > "$log" 2>&1 &
	AGENT_PID=$!
}

# stop_agent [SIGNAL] - signal the agent, wait, sets AGENT_RC
stop_agent() {
	local sig=${1:-TERM}
	kill -"$sig" "$AGENT_PID" 2>/dev/null
	wait "$AGENT_PID"
	AGENT_RC=$?
}

# wait_for SECONDS COMMAND... - poll every 50 ms until COMMAND succeeds
wait_for() {
	local limit=$1 i; shift
	for ((i = 0; i < limit * 20; i++)); do
		"$@" && return 0
		nap 0.05
	done
	return 1
}

# file_is FILE VALUE
file_is() {
	[ "$(cat "$1" 2>/dev/null)" = "$2" ]
}

# check NAME COMMAND... - record PASS/FAIL of COMMAND under $JT_SUITE
FAILED=0
check() {
	local name=$1; shift
	if "$@"; then
		result PASS "$JT_SUITE: $name"
	else
		result FAIL "$JT_SUITE: $name"
		FAILED=1
	fi
}

# check_sanitizers DIR - no AddressSanitizer/UBSan report in any agent log
# under DIR (the agent's exit status alone cannot tell: status 1 is also a
# documented outcome).
check_sanitizers() {
	local hits
	hits=$(grep -lE "Sanitizer|runtime error:" "$1"/*log* 2>/dev/null)
	[ -z "$hits" ] || { echo "# sanitizer reports in: $hits"; cat $hits; }
	check "$S: no sanitizer report in the agent's logs" [ -z "$hits" ]
}
