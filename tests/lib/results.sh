# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Result lines shared by every suite of `make check`.
#
# A suite appends one line per test to the file named by $JBD2TUNE_RESULTS
# (default: build/results in the project root):
#   PASS <name>
#   FAIL <name>
#   SKIP <name>: <why>
# tests/check prints the final "N passed, N failed[, N skipped]" line from it.

: "${JBD2TUNE_RESULTS:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/results}"
export JBD2TUNE_RESULTS

# result STATE NAME [WHY] - record one test's outcome and echo it.
result() {
	local state=$1 name=$2 why=${3:-}
	mkdir -p "$(dirname "$JBD2TUNE_RESULTS")"
	if [ "$state" = SKIP ]; then
		echo "SKIP $name: ${why:-no reason given}" >> "$JBD2TUNE_RESULTS"
		echo "SKIP: $name (${why:-no reason given})"
	else
		echo "$state $name" >> "$JBD2TUNE_RESULTS"
		echo "$state: $name"
	fi
}

# tap_results PREFIX - read TAP (cmocka's CMOCKA_MESSAGE_OUTPUT=TAP) on
# stdin, echo it and record one result per "ok"/"not ok" line.  Returns 1
# when any test failed or no test line was seen.
tap_results() {
	local prefix=$1 line name seen=0 bad=0
	while IFS= read -r line; do
		echo "$line"
		case "$line" in
		"not ok "*)
			name=${line#not ok }; name=${name#* - }
			result FAIL "$prefix: $name" >/dev/null; seen=1; bad=1 ;;
		"ok "*)
			name=${line#ok }; name=${name#* - }
			case "$name" in
			*"# SKIP"*) result SKIP "$prefix: ${name%%#*}" "${name#*# SKIP}" >/dev/null ;;
			*) result PASS "$prefix: $name" >/dev/null ;;
			esac
			seen=1 ;;
		esac
	done
	[ $seen = 1 ] || { result FAIL "$prefix: no test output" >/dev/null; return 1; }
	return $bad
}
