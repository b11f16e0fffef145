# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the netlink VM tests, sourced after tests/vm/lib.sh:
#   source "$PROJECT/tests/netlink/vm-lib.sh"
# The client must have been built on the host (make -C tests/netlink): the
# project tree is read-only in the guest.

NL=$PROJECT/tests/netlink/jbd2tune-nl
NLCHECK=$PROJECT/tests/netlink/nlcheck.py
[ -x "$NL" ] || fail "$NL is missing: build it on the host first (make -C tests/netlink)"
CFS=/sys/kernel/config/jbd2

# nl_listen FILE [listen options...] - start a listener writing to FILE in
# the background, return once it has joined the group; its pid in NL_LPID
nl_listen() {
	local file=$1 i; shift
	: > "$file"
	"$NL" listen "$@" > "$file" 2>&1 &
	NL_LPID=$!
	for i in $(seq 1 200); do
		grep -q '^# listening' "$file" && return 0
		kill -0 "$NL_LPID" 2>/dev/null || { cat "$file"; fail "listener died"; }
		sleep 0.05
	done
	fail "listener did not start"
}

# nl_stop - stop the listener of nl_listen
nl_stop() {
	kill "$NL_LPID" 2>/dev/null
	wait "$NL_LPID" 2>/dev/null || true
}

# wait_event FILE EVENT NAME TIMEOUT_MS - wait for an event line, print it
wait_event() {
	local file=$1 ev=$2 name=$3 ms=$4 line i
	for i in $(seq 0 10 "$ms"); do
		line=$(grep -m1 " event=$ev .*name=$name " "$file") &&
			{ echo "$line"; return 0; }
		sleep 0.01
	done
	return 1
}

# cfs_record J FILE - every configfs file of journal J as key=value lines
cfs_record() {
	local f
	for f in "$CFS/$1"/*; do
		echo "${f##*/}=$(< "$f")"	# no basename: a fork per file is slow under TCG
	done > "$2"
}
