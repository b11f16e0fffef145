#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# jbd2-tuned on D-Bus: a private dbus-daemon whose configuration includes
# conf/org.jbd2tune1.conf, the agent on a fake configfs tree pointed at it
# with --bus ADDRESS, busctl (and dbus-send, for error names) as clients.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bus-lib.sh"
S="bus"

test_dir bus

mkdir -p "$tmp/sysblock"
ln -s ../devices/virtual/block/vda "$tmp/sysblock/254:0"
echo "30 22 254:0 / /data rw - ext4 /dev/vda rw" > "$tmp/mountinfo"
export JBD2_TUNED_MOUNTINFO=$tmp/mountinfo JBD2_TUNED_SYS_DEV_BLOCK=$tmp/sysblock

# dsend ARGS... - dbus-send on the private bus; prints "Error NAME: ..." on errors
dsend() { timeout 10 dbus-send --bus="$BUS_ADDR" --print-reply --dest=org.jbd2tune1 "$@" 2>&1; }
dsend_nobody() {
	timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups \
		dbus-send --bus="$BUS_ADDR" --print-reply --dest=org.jbd2tune1 "$@" 2>&1
}
if ! start_bus "$tmp"; then
	result FAIL "$JT_SUITE: $S: private dbus-daemon starts"
	cat "$tmp/bus.log"
	exit 1
fi

fake_journal "$cfs" vda-8
fake_journal "$cfs" vdb-12
write_policy "$tmp/p.conf"
# 30 s trial blocks: the first (on, JBD2_TUNED_SEED) lasts while the
# checks below read ForceCopy and write the knob as an administrator (with
# 1 s blocks a loaded host saw the off block come first: b false)
sed -i -e 's/^window_s = 2/window_s = 60/' -e 's/^trial_block_s = 1$/trial_block_s = 30/' "$tmp/p.conf"
grep -q '^trial_block_s = 30$' "$tmp/p.conf" || { result FAIL "$JT_SUITE: $S: policy (write_policy changed?)"; exit 1; }
start_agent "$log" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus "$BUS_ADDR"
wait_for 5 bc status org.jbd2tune1 > /dev/null 2>&1
sleep 0.3

# --- tree and introspection ------------------------------------------------
bc tree org.jbd2tune1 > "$tmp/tree" 2>&1
sed 's/^/# /' "$tmp/tree"
check "$S: busctl tree lists the manager and every journal" eval '
	grep -q "/org/jbd2tune1$" "$tmp/tree" &&
	grep -q "$J/vda_2d8$" "$tmp/tree" && grep -q "$J/vdb_2d12$" "$tmp/tree"'
bc introspect org.jbd2tune1 $M > "$tmp/intro-m" 2>&1
check "$S: introspect of the manager shows the SPEC members" eval '
	grep -Eq "^\.Version +property +s " "$tmp/intro-m" &&
	grep -Eq "^\.DryRun +property +b " "$tmp/intro-m" &&
	grep -Eq "^\.PolicyFiles +property +as " "$tmp/intro-m" &&
	grep -Eq "^\.Journals +property +ao " "$tmp/intro-m" &&
	grep -Eq "^\.ListJournals +method +- +a\(sso\) " "$tmp/intro-m" &&
	grep -Eq "^\.Reload +method +- +- " "$tmp/intro-m" &&
	grep -Eq "^\.SetMode +method +sss +- " "$tmp/intro-m" &&
	grep -Eq "^\.Decision +signal +sssss " "$tmp/intro-m" &&
	grep -Eq "^\.Advice +signal +ss " "$tmp/intro-m"'
bc introspect org.jbd2tune1 $J/vda_2d8 > "$tmp/intro-j" 2>&1
sed 's/^/# /' "$tmp/intro-j"
ok=1
for p in "Name s" "MountPoint s" "ForceCopy b" "ForceCopyMode s" "ReclaimWatermarkPct u" \
	"ReclaimMode s" "LogBlocks u" "FreeBlocks u" "FreePct d" "ShadowWaitP99Usec t" \
	"SpaceWaitP99Usec t" "LockedWaitP99Usec t" "ShadowWaits t" "SpaceWaits t" \
	"LockedWaits t" "LastDecision s" "LastDecisionUsec t" "CommitWaits t" \
	"CommitWaitP99Usec t" "Commits t" "ReclaimWatermarkMinPct u" "ReclaimWatermarkMaxPct u" \
	"OutcomeChecks b" "LastOutcome s" "ForceCopyRetryUsec t" "ReclaimRetryUsec t" \
	"Advice s" "LockDelayMs u" "LockDelayMode s" "LockDelayRetryUsec t"; do
	grep -Eq "^\.${p% *} +property +${p#* } " "$tmp/intro-j" || { echo "# missing $p"; ok=0; }
done
check "$S: introspect of a journal shows every SPEC property with its type" [ $ok = 1 ]

# --- property values equal the tree's ---------------------------------------
put "$cfs/vdb-12/free_blocks" 8192
put "$cfs/vdb-12/log_blocks" 16384
# p99 = lo + (hi - lo) * (k - before) / count, capped at the largest wait,
# which add_waits puts at the top of the bucket (2^(b+1) - 1), then rounded:
add_waits "$cfs/vdb-12" shadow 3 5	# 32 + 32 * 2.97/3 = 63.68 -> cap 63
add_waits "$cfs/vdb-12" space 2 4	# 16 + 16 * 1.98/2 = 31.84 -> cap 31
add_waits "$cfs/vdb-12" locked 100 3	#  8 +  8 * 99/100 = 15.92 -> cap 15
add_waits "$cfs/vdb-12" locked 1 6	# one in [64,128): k = 99.99 stays in [8,16),
					# cap now 127: 8 + 8 * 99.99/100 = 15.99 -> 16
add_waits "$cfs/vdb-12" commit 40 9	# 512 + 512 * 39.6/40 = 1018.88 -> 1019
put "$cfs/vdb-12/commits" 7
sleep 0.4
JI=org.jbd2tune1.Journal
check "$S: Name" prop_is $J/vdb_2d12 $JI Name 's "vdb-12"'
check "$S: MountPoint (from the mount table)" prop_is $J/vda_2d8 $JI MountPoint 's "/data"'
check "$S: MountPoint empty when not mounted" prop_is $J/vdb_2d12 $JI MountPoint 's ""'
check "$S: ForceCopy" prop_is $J/vdb_2d12 $JI ForceCopy 'b false'
check "$S: ForceCopyMode" prop_is $J/vdb_2d12 $JI ForceCopyMode 's "auto"'
check "$S: ReclaimWatermarkPct" prop_is $J/vdb_2d12 $JI ReclaimWatermarkPct 'u 0'
check "$S: ReclaimMode" prop_is $J/vdb_2d12 $JI ReclaimMode 's "off"'
check "$S: LockDelayMs" prop_is $J/vdb_2d12 $JI LockDelayMs 'u 0'
check "$S: LockDelayMode (off as shipped)" prop_is $J/vdb_2d12 $JI LockDelayMode 's "off"'
check "$S: LogBlocks" prop_is $J/vdb_2d12 $JI LogBlocks 'u 16384'
check "$S: FreeBlocks" prop_is $J/vdb_2d12 $JI FreeBlocks 'u 8192'
check "$S: FreePct" prop_is $J/vdb_2d12 $JI FreePct 'd 50'
check "$S: ShadowWaitP99Usec" prop_is $J/vdb_2d12 $JI ShadowWaitP99Usec 't 63'
check "$S: SpaceWaitP99Usec" prop_is $J/vdb_2d12 $JI SpaceWaitP99Usec 't 31'
check "$S: LockedWaitP99Usec" prop_is $J/vdb_2d12 $JI LockedWaitP99Usec 't 16'
check "$S: ShadowWaits" prop_is $J/vdb_2d12 $JI ShadowWaits 't 3'
check "$S: SpaceWaits" prop_is $J/vdb_2d12 $JI SpaceWaits 't 2'
check "$S: LockedWaits" prop_is $J/vdb_2d12 $JI LockedWaits 't 101'
check "$S: LastDecision empty before any" prop_is $J/vdb_2d12 $JI LastDecision 's ""'
check "$S: CommitWaits" prop_is $J/vdb_2d12 $JI CommitWaits 't 40'
check "$S: CommitWaitP99Usec" prop_is $J/vdb_2d12 $JI CommitWaitP99Usec 't 1019'
check "$S: Commits" prop_is $J/vdb_2d12 $JI Commits 't 7'
check "$S: ReclaimWatermarkMinPct, ReclaimWatermarkMaxPct (the kernel's limits)" eval '
	prop_is $J/vdb_2d12 $JI ReclaimWatermarkMinPct "u 30" &&
	prop_is $J/vdb_2d12 $JI ReclaimWatermarkMaxPct "u 74"'
check "$S: OutcomeChecks" prop_is $J/vdb_2d12 $JI OutcomeChecks 'b true'
check "$S: LastOutcome empty before any" prop_is $J/vdb_2d12 $JI LastOutcome 's ""'
check "$S: ForceCopyRetryUsec, ReclaimRetryUsec 0 without a revert" eval '
	prop_is $J/vdb_2d12 $JI ForceCopyRetryUsec "t 0" &&
	prop_is $J/vdb_2d12 $JI ReclaimRetryUsec "t 0"'
check "$S: LastDecisionUsec 0 before any" prop_is $J/vdb_2d12 $JI LastDecisionUsec 't 0'
check "$S: Advice empty when none" prop_is $J/vdb_2d12 $JI Advice 's ""'
check "$S: Advice emits PropertiesChanged" \
	grep -Eq "^\.Advice +property +s +\"\" +emits-change" "$tmp/intro-j"
MI=org.jbd2tune1.Manager
check "$S: Version" prop_is $M $MI Version 's "0.1"'
check "$S: DryRun" prop_is $M $MI DryRun 'b false'
check "$S: PolicyFiles" prop_is $M $MI PolicyFiles "as 1 \"$tmp/p.conf\""
check "$S: Journals" prop_is $M $MI Journals "ao 2 \"$J/vda_2d8\" \"$J/vdb_2d12\""
check "$S: ListJournals" eval '[ "$(bc call org.jbd2tune1 $M $MI ListJournals)" = \
	"a(sso) 2 \"vda-8\" \"/data\" \"$J/vda_2d8\" \"vdb-12\" \"\" \"$J/vdb_2d12\"" ]'
check "$S: anyone may read properties" eval '
	[ "$(bc_nobody get-property org.jbd2tune1 $J/vda_2d8 $JI Name)" = "s \"vda-8\"" ]'
check "$S: anyone may call ListJournals" eval 'bc_nobody call org.jbd2tune1 $M $MI ListJournals >/dev/null'

# --- Decision signal and PropertiesChanged ----------------------------------
busctl --address="$BUS_ADDR" monitor org.jbd2tune1 > "$tmp/monitor" 2>&1 &
MON_PID=$!
sleep 0.5
add_waits "$cfs/vdb-12" shadow 20 15
wait_for 4 file_is "$cfs/vdb-12/force_copy" 1
sleep 0.3
check "$S: ForceCopy and LastDecision follow the decision" eval '
	prop_is $J/vdb_2d12 $JI ForceCopy "b true" &&
	bc get-property org.jbd2tune1 $J/vdb_2d12 $JI LastDecision | grep -q "^s \"force_copy 0->1: trial of 0->1, pair 1 of 3..10, on block (30 s)"'
put "$cfs/vdb-12/force_copy" 0		# an administrator takes the knob over
wait_for 3 grep -q "vdb-12: force_copy 0: written by someone else" "$log"
sleep 0.3
kill $MON_PID; wait $MON_PID 2>/dev/null; MON_PID=
check "$S: a decision emits the Decision signal with its figures" eval '
	grep -A8 "Member=Decision" "$tmp/monitor" | grep -q "STRING \"vdb-12\";" &&
	grep -A8 "Member=Decision" "$tmp/monitor" | grep -q "STRING \"trial of 0->1, pair 1 of 3..10, on block (30 s)\";"'
check "$S: a decision emits PropertiesChanged on the journal" eval '
	grep "Member=PropertiesChanged" "$tmp/monitor" | grep -q "Path=$J/vdb_2d12 " &&
	grep -A8 "Path=$J/vdb_2d12 .*PropertiesChanged" "$tmp/monitor" | grep -q "STRING \"ForceCopy\";"'
check "$S: an administrator's write shows as mode manual" eval '
	prop_is $J/vdb_2d12 $JI ForceCopyMode "s \"manual\"" && prop_is $J/vdb_2d12 $JI ForceCopy "b false"'
check "$S: ... announced with PropertiesChanged" \
	grep -q 'STRING "manual";' "$tmp/monitor"

# --- SetMode and Reload: root only, named errors ----------------------------
out=$(dsend $M $MI.SetMode string:vda-8 string:force_copy string:on)
check "$S: SetMode as root succeeds" eval '! grep -q "^Error" <<< "$out"'
check "$S: SetMode as root changes the knob" wait_for 2 file_is "$cfs/vda-8/force_copy" 1
check "$S: SetMode as root changes the mode" prop_is $J/vda_2d8 $JI ForceCopyMode 's "on"'
out=$(dsend $M $MI.SetMode string:vda-8 string:lock_delay string:on)
check "$S: SetMode of lock_delay on writes lock_delay_ms (1000)" eval '
	! grep -q "^Error" <<< "$out" && wait_for 2 file_is "$cfs/vda-8/lock_delay_max_ms" 1000'
check "$S: ... LockDelayMode on, LockDelayMs 1000" eval '
	prop_is $J/vda_2d8 $JI LockDelayMode "s \"on\"" && prop_is $J/vda_2d8 $JI LockDelayMs "u 1000"'
out=$(dsend_nobody $M $MI.SetMode string:vda-8 string:force_copy string:off)
check "$S: SetMode as uid 65534 is AccessDenied" \
	grep -q "^Error org.freedesktop.DBus.Error.AccessDenied" <<< "$out"
sleep 0.3
check "$S: ... and changes nothing" eval 'file_is "$cfs/vda-8/force_copy" 1 &&
	prop_is $J/vda_2d8 $JI ForceCopyMode "s \"on\""'
out=$(dsend_nobody $M $MI.Reload)
check "$S: Reload as uid 65534 is AccessDenied" \
	grep -q "^Error org.freedesktop.DBus.Error.AccessDenied" <<< "$out"
out=$(dsend $M $MI.SetMode string:nosuch-1 string:force_copy string:on)
check "$S: unknown journal is NoSuchJournal" \
	grep -q "^Error org.jbd2tune1.Error.NoSuchJournal: No journal 'nosuch-1'" <<< "$out"
out=$(dsend $M $MI.SetMode string:vda-8 string:frobnicate string:on)
check "$S: bad knob is InvalidArgs" grep -q "^Error org.freedesktop.DBus.Error.InvalidArgs" <<< "$out"
out=$(dsend $M $MI.SetMode string:vda-8 string:reclaim string:sometimes)
check "$S: bad mode is InvalidArgs" grep -q "^Error org.freedesktop.DBus.Error.InvalidArgs" <<< "$out"
cp "$tmp/p.conf" "$tmp/p.good"
echo "bogus = 1" >> "$tmp/p.conf"
out=$(dsend $M $MI.Reload)
check "$S: Reload of a bad policy is InvalidPolicy with file:line: key: why" \
	grep -q "^Error org.jbd2tune1.Error.InvalidPolicy: $tmp/p.conf:[0-9]*: bogus: unknown key" <<< "$out"
cp "$tmp/p.good" "$tmp/p.conf"
out=$(dsend $M $MI.Reload)
check "$S: Reload as root succeeds; vda-8's policy did not change: SetMode stays" eval '
	! grep -q "^Error" <<< "$out" && prop_is $J/vda_2d8 $JI ForceCopyMode "s \"on\""'
printf '[journal vda-8]\nstall_budget_ms_per_s = 20\n' >> "$tmp/p.conf"
out=$(dsend $M $MI.Reload)
check "$S: a Reload that changes vda-8's policy forgets its SetMode" eval '
	! grep -q "^Error" <<< "$out" && wait_for 2 prop_is $J/vda_2d8 $JI ForceCopyMode "s \"auto\""'
check "$S: ... lock_delay off again: lock_delay_max_ms back at the value found" eval '
	wait_for 2 file_is "$cfs/vda-8/lock_delay_max_ms" 0 && prop_is $J/vda_2d8 $JI LockDelayMode "s \"off\""'

# --- objects appear and vanish with journals --------------------------------
busctl --address="$BUS_ADDR" monitor org.jbd2tune1 > "$tmp/monitor3" 2>&1 &
MON_PID=$!
sleep 0.5
fake_journal "$cfs" vdc-3
check "$S: a new journal's object appears" eval 'wait_for 3 eval "bc tree org.jbd2tune1 | grep -q $J/vdc_2d3"'
rm -rf "$cfs/vdc-3"
check "$S: a removed journal's object vanishes" eval 'wait_for 3 eval "! bc tree org.jbd2tune1 | grep -q vdc_2d3"'
check "$S: ... and its properties are gone" eval '! bc get-property org.jbd2tune1 $J/vdc_2d3 $JI Name >/dev/null 2>&1'
sleep 0.3
kill $MON_PID; wait $MON_PID 2>/dev/null; MON_PID=
check "$S: InterfacesAdded and InterfacesRemoved announce the journal object" eval '
	grep -A3 "Member=InterfacesAdded" "$tmp/monitor3" | grep -q "OBJECT_PATH \"$J/vdc_2d3\";" &&
	grep -A3 "Member=InterfacesRemoved" "$tmp/monitor3" | grep -q "OBJECT_PATH \"$J/vdc_2d3\";"'
check "$S: ... and the Journals property changes" \
	eval 'grep -A6 "Path=/org/jbd2tune1 .*Member=PropertiesChanged" "$tmp/monitor3" | grep -q "STRING \"Journals\";"'

# --- the bus goes away: exit 1 (systemd restarts us), knobs restored ---------
dsend $M $MI.SetMode string:vda-8 string:force_copy string:on > /dev/null
wait_for 2 file_is "$cfs/vda-8/force_copy" 1
kill $BUS_PID; wait $BUS_PID 2>/dev/null; BUS_PID=
wait_for 5 eval '! kill -0 $AGENT_PID 2>/dev/null'
wait $AGENT_PID; rc=$?
check "$S: losing the bus makes the agent exit with status 1" [ $rc = 1 ]
check "$S: ... after logging it" grep -q "lost the D-Bus connection" "$log"
check "$S: ... and restoring the knobs it changed" file_is "$cfs/vda-8/force_copy" 0
[ "$FAILED" = 0 ] || { echo "--- agent log"; cat "$log"; }

# --- defence in depth: a bus that lets every call through -------------------
mkdir -p "$tmp/perm"
start_bus "$tmp/perm" permissive
rm -rf "$cfs"; fake_journal "$cfs" vda-8
start_agent "$log.perm" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink \
	--bus "$BUS_ADDR" --dry-run
wait_for 5 bc status org.jbd2tune1 > /dev/null 2>&1
sleep 0.3
out=$(dsend_nobody $M $MI.SetMode string:vda-8 string:force_copy string:on)
check "$S: the agent itself denies SetMode to uid 65534" \
	grep -q "^Error org.freedesktop.DBus.Error.AccessDenied: SetMode() is for root only" <<< "$out"
check "$S: DryRun is true with --dry-run" prop_is $M $MI DryRun 'b true'
busctl --address="$BUS_ADDR" monitor org.jbd2tune1 > "$tmp/monitor2" 2>&1 &
MON_PID=$!
sleep 0.5
add_waits "$cfs/vda-8" shadow 20 15
wait_for 3 grep -q "(dry-run, not written)" "$log.perm"
sleep 0.3
kill $MON_PID; wait $MON_PID 2>/dev/null; MON_PID=
check "$S: dry-run still emits the Decision signal" \
	eval 'grep -A8 "Member=Decision" "$tmp/monitor2" | grep -q "STRING \"1\";"'
check "$S: dry-run writes nothing" file_is "$cfs/vda-8/force_copy" 0
stop_agent TERM
check "$S: SIGTERM on the bus exits 0" [ "$AGENT_RC" = 0 ]

# --- the unit ----------------------------------------------------------------
dest=$tmp/dest
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$PROJECT_TOP/agent" install DESTDIR="$dest" PREFIX=/usr > "$tmp/install.log" 2>&1; then
	ok=1
	# systemd's unit directory for PREFIX=/usr (/lib/systemd/system on Debian 12)
	unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
	unitdir=${unitdir:-/usr/lib/systemd/system}
	for f in usr/sbin/jbd2-tuned "${unitdir#/}/jbd2-tuned.service" etc/jbd2-tuned.conf \
		usr/share/dbus-1/system.d/org.jbd2tune1.conf usr/share/man/man8/jbd2-tuned.8 \
		usr/share/man/man5/jbd2-tuned.conf.5; do
		[ -f "$dest/$f" ] || { echo "# not installed: $f"; ok=0; }
	done
	check "$S: make install DESTDIR= PREFIX=/usr installs binary, unit, policies, man pages" [ $ok = 1 ]
	check "$S: the installed default policy loads" \
		"$dest/usr/sbin/jbd2-tuned" --config "$dest/etc/jbd2-tuned.conf" --configfs-root "$cfs" --once --dry-run > /dev/null 2>&1
else
	cat "$tmp/install.log"
	result FAIL "$JT_SUITE: $S: make install"
	FAILED=1
fi
if ! command -v systemd-analyze > /dev/null; then
	result SKIP "$JT_SUITE: $S: systemd-analyze verify" "systemd-analyze not installed"
else
	# the shipped unit, its ExecStart pointed at the binary just installed
	mkdir -p "$tmp/unit"
	sed "s|^ExecStart=/usr/sbin/|ExecStart=$dest/usr/sbin/|" \
		"$PROJECT_TOP/systemd/jbd2-tuned.service" > "$tmp/unit/jbd2-tuned.service"
	check "$S: systemd-analyze verify passes" \
		systemd-analyze verify --man=no "$tmp/unit/jbd2-tuned.service"
fi
if command -v man > /dev/null; then
	check "$S: man pages render without warnings" eval '
		[ -z "$(LC_ALL=C.UTF-8 man --warnings -l "$dest/usr/share/man/man8/jbd2-tuned.8" 2>&1 >/dev/null)" ] &&
		[ -z "$(LC_ALL=C.UTF-8 man --warnings -l "$dest/usr/share/man/man5/jbd2-tuned.conf.5" 2>&1 >/dev/null)" ]'
else
	result SKIP "$JT_SUITE: $S: man pages render" "man not installed"
fi
check_sanitizers "$tmp"
exit $FAILED
