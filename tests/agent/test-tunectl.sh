#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# jbd2-tunectl against the agent: a private dbus-daemon with the shipped
# bus policy, the agent on a fake configfs tree, $JT_TUNECTL as the client
# (agent/build/jbd2-tunectl, or /usr/bin/jbd2-tunectl in the autopkgtest).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bus-lib.sh"
S="tunectl"
: "${JT_TUNECTL:=$(dirname "$JT_BIN")/jbd2-tunectl}"

test_dir tunectl
mkdir -p "$tmp/sysblock"
ln -s ../devices/virtual/block/vda "$tmp/sysblock/254:0"
echo "30 22 254:0 / /data rw - ext4 /dev/vda rw" > "$tmp/mountinfo"
export JBD2_TUNED_MOUNTINFO=$tmp/mountinfo JBD2_TUNED_SYS_DEV_BLOCK=$tmp/sysblock

# ctl ARGS... - jbd2-tunectl on the private bus; output in $out, status in $rc
ctl() { out=$(timeout 10 "$JT_TUNECTL" --bus "$BUS_ADDR" "$@" 2>&1); rc=$?; echo "$out" | sed 's/^/# /'; }
ctl_nobody() {
	out=$(timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$JT_TUNECTL" --bus "$BUS_ADDR" "$@" 2>&1); rc=$?
	echo "$out" | sed 's/^/# /'
}
json_ok() { command -v python3 > /dev/null || return 0; python3 -c "import json,sys; $1" <<< "$out"; }

mkdir -p "$tmp/bus"
chmod 755 "$tmp"		# user nobody reaches the bus socket
start_bus "$tmp/bus" || { result FAIL "$JT_SUITE: $S: private dbus-daemon starts"; exit 1; }

# no agent on the bus yet: a clear error, status 1
ctl status
check "$S: without the agent: exit 1 and says so" eval '[ $rc = 1 ] && grep -q "org.jbd2tune1" <<< "$out"'

fake_journal "$cfs" vda-8
fake_journal "$cfs" vdb-12
write_policy "$tmp/p.conf" "[mount /data]" "reclaim = on" "reclaim_watermark_pct = 40"
start_agent "$log" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus "$BUS_ADDR"
wait_for 5 bc status org.jbd2tune1 > /dev/null 2>&1
check "$S: the agent sets vda-8's watermark (policy [mount /data])" \
	wait_for 3 file_is "$cfs/vda-8/reclaim_watermark_pct" 40
add_waits "$cfs/vda-8" shadow 20 15
# a trial: force_copy goes on in its on blocks (and off in its off blocks)
check "$S: the agent turns vda-8's force_copy on" wait_for 3 file_is "$cfs/vda-8/force_copy" 1
# the load goes on while status is read: 4 more waits a second, so the
# rates below stay above 0 however long the commands take (the window is
# 2 s; once, with the ASan build and two guests beside it, the JSON status
# came more than 2 s after the last of one batch of waits and read 0/s)
( while [ -d "$cfs/vda-8" ]; do add_waits "$cfs/vda-8" shadow 2 15; nap 0.5; done ) 2> /dev/null &
feeder=$!
sleep 0.3

# --- status --------------------------------------------------------------------
ctl status
check "$S: status exits 0" [ $rc = 0 ]
check "$S: status: one line per journal with device, mount, knobs, last decision" eval '
	grep -Eq "^vda-8 +/dev/vda +/data +auto [01] +on 40% +off 0ms +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +(-|force_copy 0->1 (on|off) <=[0-9ms]+) +[^ ]+ +[0-9]+s ago: force_copy [01]->[01]: (re-check )?trial of 0->1" <<< "$out" &&
	grep -Eq "^vdb-12 +- +- +auto 0 +off 0% +off 0ms " <<< "$out"'
check "$S: status: a line says which jbd2 is loaded (here: the host's)" grep -q "^module: " <<< "$out"
check "$S: status: the trial running on vda-8, its block and the most time it has left" \
	grep -Eq "^vda-8 .* force_copy 0->1 (on|off) <=[0-9]+s " <<< "$out"
check "$S: status: shadow waits per second are counted" eval '
	grep -E "^vda-8 " <<< "$out" | awk "{ exit !(\$10 > 0) }"'
check "$S: status with no command is status" eval '
	ctl; [ $rc = 0 ] && grep -q "^vdb-12 " <<< "$out"'
ctl --json status
check "$S: status --json: valid, every journal with its properties" json_ok '
d = json.load(sys.stdin)
j = {x["Name"]: x for x in d["journals"]}
assert set(j) == {"vda-8", "vdb-12"}, j.keys()
assert j["vda-8"]["ReclaimWatermarkPct"] == 40
assert j["vda-8"]["Device"] == "/dev/vda" and j["vda-8"]["WaitsPerSec"]["shadow"] > 0
assert d["manager"]["DryRun"] is False
import re
m = re.fullmatch(r"force_copy 0->1, pair [0-9]+ of 3\.\.10, (on|off) block", j["vda-8"]["Trial"])
assert m, j["vda-8"]["Trial"]
# the knob follows the block (1-s blocks here: either may be read)
assert j["vda-8"]["ForceCopy"] is (m.group(1) == "on"), (j["vda-8"]["ForceCopy"], m.group(1))
assert j["vda-8"]["TrialDeadlineUsec"] > 0
assert j["vdb-12"]["Trial"] == "" and j["vdb-12"]["TrialDeadlineUsec"] == 0
assert d["manager"]["ModulePatched"] is True	# the fake configfs root exists
assert d["module"]["patched"] in (True, False) and isinstance(d["module"]["why"], str)'
kill "$feeder"; wait "$feeder" 2> /dev/null

# --- show, by name and by mount point --------------------------------------------
# the line of the section in the file write_policy made
sec_line=$(grep -n '^\[mount /data\]$' "$tmp/p.conf" | cut -d: -f1)
ctl show /data/
check "$S: show by mount point (trailing slash) finds vda-8" eval '[ $rc = 0 ] && grep -q "^vda-8 (/org/jbd2tune1/journal/vda_2d8)" <<< "$out"'
check "$S: show: the resolved policy and the section that matched, with file:line" eval '
	grep -Eq "^  Policy +force_copy=auto .*reclaim=on reclaim_watermark_pct=40 " <<< "$out" &&
	grep -Eq "^  PolicySections +\[mount /data\] $tmp/p.conf:$sec_line$" <<< "$out"'
# "-" until the first whole window (2 s here; the ASan build under load may be past it)
check "$S: show: Diagnosis, - until the first whole window" \
	grep -Eq "^  Diagnosis +(-|quiet: .*|shadow waits hold most .*)$" <<< "$out"
ctl show vdb-12
check "$S: show by name; no section matched" eval '[ $rc = 0 ] && grep -Eq "^  PolicySections +-$" <<< "$out"'
ctl --json show vda-8
check "$S: show --json: valid" json_ok '
d = json.load(sys.stdin)
assert d["journal"]["Name"] == "vda-8" and d["journal"]["Policy"]["reclaim"] == "on"
assert d["journal"]["PolicySections"] == ["[mount /data] '"$tmp"'/p.conf:'"$sec_line"'"]'
ctl show /nowhere
check "$S: an unknown mount point: exit 1, lists the journals" eval '
	[ $rc = 1 ] && grep -q "no journal mounted on .*/nowhere.*vda-8 (/data) vdb-12" <<< "$out"'
ctl show vdz-1
check "$S: an unknown name: exit 1" eval '[ $rc = 1 ] && grep -q "no journal named .vdz-1." <<< "$out"'

# --- history ------------------------------------------------------------------------
ctl history /data
check "$S: history: the decisions with their reasons, oldest first" eval '
	[ $rc = 0 ] &&
	grep " decision " <<< "$out" | head -n 2 | tail -n 1 | grep -Eq "decision  force_copy 0->1: (re-check )?trial of 0->1" &&
	grep " decision " <<< "$out" | head -n 1 | grep -q "decision  reclaim 0->40"'
ctl --json history vda-8
check "$S: history --json: valid, time, kind and text" json_ok '
d = json.load(sys.stdin)
assert {e["kind"] for e in d} <= {"decision", "outcome"}, d
d = [e for e in d if e["kind"] == "decision"]	# trial blocks and a verdict may follow
assert len(d) >= 2, d
assert d[0]["text"].startswith("reclaim 0->40: "), d[0]
assert d[1]["text"].startswith("force_copy 0->1: ") and d[1]["time_usec"] > d[0]["time_usec"] - 1'
ctl history vdb-12
check "$S: history of a quiet journal says there is none" eval '[ $rc = 0 ] && grep -q "no decision for vdb-12" <<< "$out"'

# --- set --------------------------------------------------------------------------
ctl set /data force_copy off
check "$S: set as root: exit 0, the knob follows" eval '[ $rc = 0 ] && wait_for 3 file_is "$cfs/vda-8/force_copy" 0'
check "$S: set: the mode shows in status" eval 'ctl status; grep -Eq "^vda-8 .* off 0 +on 40% " <<< "$out"'
ctl set vdb-12 lock_delay on
check "$S: set lock_delay on: lock_delay_ms written, shown in status as on 1000ms" eval '
	[ $rc = 0 ] && wait_for 3 file_is "$cfs/vdb-12/lock_delay_max_ms" 1000 &&
	ctl status && grep -Eq "^vdb-12 .* off 0% +on 1000ms " <<< "$out"'
ctl set vda-8 force_copy sometimes
check "$S: set with a bad mode: exit 1 with the agent's reason" eval '[ $rc = 1 ] && grep -q "mode on, off or auto" <<< "$out"'
ctl_nobody set vda-8 force_copy on
check "$S: set as another user: refused, exit 1" eval '[ $rc = 1 ] && grep -qi "access denied\|root" <<< "$out" && file_is "$cfs/vda-8/force_copy" 0'
ctl_nobody status
check "$S: status as another user works" eval '[ $rc = 0 ] && grep -q "^vda-8 " <<< "$out"'

# --- reload -------------------------------------------------------------------------
cp "$tmp/p.conf" "$tmp/good.conf"
printf '[defaults]\nforce_copy = sometimes\n' >> "$tmp/p.conf"
ctl reload
check "$S: reload of a refused file: exit 1 with file:line: key: why" eval '
	[ $rc = 1 ] && grep -Eq "p.conf:[0-9]+: force_copy: .sometimes." <<< "$out"'
check "$S: ... and the running policy stays (SetMode's off too)" file_is "$cfs/vda-8/force_copy" 0
cp "$tmp/good.conf" "$tmp/p.conf"
ctl reload
check "$S: reload of a good file: exit 0" [ $rc = 0 ]
check "$S: reload of the same policy keeps set: the mode is still off" eval 'ctl status; grep -Eq "^vda-8 .* off 0 +on 40% " <<< "$out"'
# a reload that changes the journal's policy forgets its overrides
printf '[journal vda-8]\nstall_bound_ms = 900\n' >> "$tmp/p.conf"
ctl reload
check "$S: reload of a changed policy forgets set: the mode is auto again" eval '
	[ $rc = 0 ] && ctl status && grep -Eq "^vda-8 .* auto [01] +on 40% " <<< "$out"'

# --- the command line ---------------------------------------------------------------
ctl show
check "$S: show without a journal: exit 2" [ $rc = 2 ]
ctl --json reload
check "$S: --json on reload: exit 2" [ $rc = 2 ]
ctl frobnicate
check "$S: an unknown command: exit 2" [ $rc = 2 ]
ctl --help
check "$S: --help names every command" eval '[ $rc = 0 ] && for c in status show history set reload; do grep -q "^  $c" <<< "$out" || exit 1; done'

# --- bash completion ------------------------------------------------------------
# shellcheck source=../../agent/completion/jbd2-tunectl
. "$PROJECT_TOP/agent/completion/jbd2-tunectl"
# compl WORDS... - what completing the last word offers
compl() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _jbd2_tunectl; echo "${COMPREPLY[*]}"; }
check "$S: completion: commands, options, knobs, modes" eval '
	[ "$(compl jbd2-tunectl s)" = "status show set" ] &&
	[ "$(compl jbd2-tunectl --bus x h)" = "history" ] &&
	[ "$(compl jbd2-tunectl --j)" = "--json" ] &&
	[ "$(compl jbd2-tunectl set vda-8 "")" = "force_copy reclaim lock_delay" ] &&
	[ "$(compl jbd2-tunectl set vda-8 l)" = "lock_delay" ] &&
	[ "$(compl jbd2-tunectl set vda-8 force_copy o)" = "on off" ] &&
	[ -z "$(compl jbd2-tunectl reload "")" ]'

stop_agent TERM
check_sanitizers "$tmp"
exit $FAILED
