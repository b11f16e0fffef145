#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# jbd2-tuned without a kernel: a fake configfs tree whose counters this
# script advances, the agent polling it every 100 ms (--no-netlink, no bus).
set -u
. "$(dirname "$0")/lib.sh"
S="core"

tmp=$(mktemp -d /tmp/jt-core.XXXXXX)
trap 'kill $AGENT_PID 2>/dev/null; rm -rf "$tmp"' EXIT
cfs=$tmp/jbd2
log=$tmp/agent.log

# fake mount table: vdb-12 is the journal of the file system on /data
mkdir -p "$tmp/sysblock"
ln -s ../devices/virtual/block/vdb "$tmp/sysblock/254:16"
echo "30 22 254:16 / /data rw - ext4 /dev/vdb rw" > "$tmp/mountinfo"
export JBD2_TUNED_MOUNTINFO=$tmp/mountinfo JBD2_TUNED_SYS_DEV_BLOCK=$tmp/sysblock

write_policy "$tmp/p.conf" \
	"[journal vdc-3]" "force_copy = on" \
	"[mount /data]" "reclaim = on" "reclaim_watermark_pct = 30"
sed -i "s|^\[agent\]|[agent]\nmetrics_file = $tmp/metrics.prom|" "$tmp/p.conf"
cp "$tmp/p.conf" "$tmp/good.conf"

# --- 1. no journal yet, then journals appear ---------------------------------
start_agent "$log" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: runs and says so when no journal exists" \
	wait_for 3 grep -q "no journal under $cfs yet" "$log"
check "$S: without the configfs tree it says at start that the stock jbd2 is loaded" \
	grep -q "no $cfs: the stock jbd2 module is loaded" "$log"
fake_journal "$cfs" vda-8
fake_journal "$cfs" vdb-12
fake_journal "$cfs" vdc-3
check "$S: picks up journals that appear later" \
	wait_for 3 grep -q "vdb-12: journal found, mounted on /data" "$log"
check "$S: force_copy = on applied to [journal vdc-3]" \
	wait_for 3 file_is "$cfs/vdc-3/force_copy" 1
check "$S: [mount /data] section sets vdb-12's watermark to 30" \
	wait_for 3 file_is "$cfs/vdb-12/reclaim_watermark_pct" 30
sleep 0.3

# --- 2. a stall starts a trial: force_copy on within its first pair ----------
add_waits "$cfs/vda-8" shadow 20 15		# 20 waits of 32..65 ms
t0=$(date +%s%N)
wait_for 4 file_is "$cfs/vda-8/force_copy" 1
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
echo "# force_copy on after $ms ms (interval 100 ms, trial blocks of 1 s)"
# the first block of the pair is on or off at random: on within one or two
# intervals, or one block (1 s) later; the bound leaves room for a loaded
# CI machine (kernel builds beside us) and the ASan build
check "$S: a shadow stall over the budget starts a trial, on within its first pair" \
	eval '[ "$(cat "$cfs/vda-8/force_copy")" = 1 ] && [ "$ms" -le 2500 ]'
check "$S: the trial is logged with the trigger's figures" \
	grep -q "vda-8: force_copy: trial of 0->1 starts: shadow waits over the minimum cost [0-9.]* ms/s over .* s > budget 10 ms/s (20 waits, p99 65.2 ms); 1 s blocks on and off, order random per pair, 3..10 pairs" "$log"
check "$S: the quiet journal is left alone" \
	eval '[ "$(cat "$cfs/vdb-12/force_copy")" = 0 ] && ! grep -q "vdb-12: force_copy" "$log"'
check "$S: metrics file written" \
	wait_for 2 grep -q '^jbd2_tuned_force_copy{journal="vda-8"} 1$' "$tmp/metrics.prom"

# --- 3. an administrator's write: the agent steps aside ------------------------
put "$cfs/vda-8/force_copy" 0
check "$S: a manual write is noticed and logged" \
	wait_for 3 grep -q "vda-8: force_copy 0: written by someone else (expected 1, found 0)" "$log"
add_waits "$cfs/vda-8" shadow 50 15
sleep 0.5
check "$S: the agent no longer manages a knob written by hand" \
	file_is "$cfs/vda-8/force_copy" 0

# --- 4. a group disappears and comes back -----------------------------------
rm -rf "$cfs/vdc-3"
check "$S: a vanished journal is dropped" wait_for 3 grep -q "vdc-3: journal gone" "$log"
check "$S: the agent survives it" kill -0 "$AGENT_PID"
fake_journal "$cfs" vdc-3
check "$S: force_copy = on re-applied when the journal comes back" \
	wait_for 3 file_is "$cfs/vdc-3/force_copy" 1

# --- 5. counters going backwards restart the window --------------------------
add_waits "$cfs/vdb-12" locked 5 3
sleep 0.3
put "$cfs/vdb-12/locked_wait_hist" "$ZERO_HIST"
put "$cfs/vdb-12/locked_waits" 0
check "$S: counters going backwards restart the window" \
	wait_for 3 grep -q "vdb-12: journal set up again (new group or counters reset): window restarted, what was learned kept" "$log"

# --- 5b. a file holding junk: said once, the journal kept --------------------
# (counted from here: a group read while fake_journal was still writing it
# may have been reported already, and read well again)
mark=$(wc -l < "$log")
put "$cfs/vdb-12/free_blocks" "lots"
wait_for 3 eval 'tail -n +$((mark + 1)) "$log" | grep -q "vdb-12: cannot read its configfs files: Invalid argument"'
sleep 0.5
check "$S: a file holding junk is reported once, not every interval" \
	[ "$(tail -n +$((mark + 1)) "$log" | grep -c "vdb-12: cannot read its configfs files")" = 1 ]
put "$cfs/vdb-12/free_blocks" 30000
check "$S: ... and its recovery too, without dropping the journal" eval '
	wait_for 3 grep -q "vdb-12: its configfs files read well again" "$log" &&
	! grep -q "vdb-12: journal gone" "$log"'

# --- 6. SIGHUP with a bad policy keeps the old one --------------------------
sed -i 's/^interval_ms = 100/interval_ms = 5/' "$tmp/p.conf"
kill -HUP "$AGENT_PID"
check "$S: bad SIGHUP reports file:line: key: why" \
	wait_for 3 grep -q "reload failed, keeping the old policy: $tmp/p.conf:3: interval_ms: '5' is out of range 100..60000" "$log"
fake_journal "$cfs" vdd-4
sleep 0.3
add_waits "$cfs/vdd-4" shadow 20 15
check "$S: after a bad SIGHUP the old policy still acts" \
	wait_for 3 file_is "$cfs/vdd-4/force_copy" 1

# --- 7. SIGHUP with a good policy applies it --------------------------------
cp "$tmp/good.conf" "$tmp/p.conf"
printf '[journal vdb-12]\nforce_copy = on\n' >> "$tmp/p.conf"
kill -HUP "$AGENT_PID"
check "$S: good SIGHUP applies the new policy" wait_for 3 file_is "$cfs/vdb-12/force_copy" 1

# --- 8. SIGTERM restores every knob the agent changed -----------------------
# (the good SIGHUP gave vda-8 back to the agent; vdd-4's watermark is now
# written by hand and must survive the exit)
put "$cfs/vdd-4/reclaim_watermark_pct" 50
wait_for 3 grep -q "vdd-4: reclaim 50: written by someone else" "$log"
stop_agent TERM
check "$S: SIGTERM exits 0" [ "$AGENT_RC" = 0 ]
check "$S: SIGTERM restores force_copy the agent set" \
	[ "$(cat "$cfs/vdc-3/force_copy")$(cat "$cfs/vdd-4/force_copy")$(cat "$cfs/vdb-12/force_copy")" = 000 ]
check "$S: SIGTERM restores the watermark the agent set" file_is "$cfs/vdb-12/reclaim_watermark_pct" 0
check "$S: SIGTERM leaves the administrator's value alone" \
	eval '! grep -q "vdd-4: reclaim .*restored" "$log" && file_is "$cfs/vdd-4/reclaim_watermark_pct" 50'
[ "$FAILED" = 0 ] || { echo "--- agent log"; cat "$log"; }

# --- 9. --dry-run decides and logs, writes nothing --------------------------
rm -rf "$cfs"; fake_journal "$cfs" vda-8
cp "$tmp/good.conf" "$tmp/p.conf"
start_agent "$log.dry" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none --dry-run
wait_for 3 grep -q "vda-8: journal found" "$log.dry"
sleep 0.2
add_waits "$cfs/vda-8" shadow 20 15
check "$S: dry-run logs the decision it would make (no trial: nothing is written)" \
	wait_for 3 grep -q "vda-8: force_copy 0->1: shadow waits over the minimum cost .* (untried: a trial needs its writes) (dry-run, not written)" "$log.dry"
sleep 0.3
check "$S: dry-run logs it once" [ "$(grep -c 'force_copy 0->1' "$log.dry")" = 1 ]
stop_agent TERM
check "$S: dry-run writes nothing" file_is "$cfs/vda-8/force_copy" 0

# --- 10. --once ---------------------------------------------------------------
rm -rf "$cfs"; fake_journal "$cfs" vda-8; fake_journal "$cfs" vdb-12
add_waits "$cfs/vda-8" shadow 100 16
out=$("$JT_BIN" --config "$tmp/p.conf" --configfs-root "$cfs" --once --dry-run 2>/dev/null)
echo "$out" | sed 's/^/# /'
check "$S: --once --dry-run prints the decision" \
	grep -q "^vda-8: force_copy 0->1: shadow waits over the minimum cost .* (100 waits, p99 .*) (untried: a trial needs its writes) (dry-run, not written)$" <<< "$out"
check "$S: --once --dry-run writes nothing" file_is "$cfs/vda-8/force_copy" 0
out=$("$JT_BIN" --config "$tmp/p.conf" --configfs-root "$cfs" --once 2>/dev/null); rc=$?
echo "$out" | sed 's/^/# /'
check "$S: --once reports what it would do, exits 0 and writes nothing" eval '
	[ $rc = 0 ] && file_is "$cfs/vda-8/force_copy" 0 &&
	grep -q "^vda-8: force_copy 0->1: .* (not written: --once reports; --apply writes)$" <<< "$out"'
"$JT_BIN" --config "$tmp/p.conf" --configfs-root "$cfs" --once --apply > /dev/null 2>&1; rc=$?
check "$S: --once --apply writes it and exits 0" eval '[ $rc = 0 ] && file_is "$cfs/vda-8/force_copy" 1'
"$JT_BIN" --config "$tmp/p.conf" --configfs-root "$cfs" --apply > /dev/null 2>&1; rc=$?
check "$S: --apply without --once exits 2" [ $rc = 2 ]

# --- 10b. without --no-netlink and no module: polling, said once ------------
start_agent "$log.nl" --config "$tmp/p.conf" --configfs-root "$cfs" --bus none
wait_for 3 grep -q "vda-8: journal found" "$log.nl"
sleep 0.5
stop_agent TERM
if grep -q "netlink unavailable" "$log.nl"; then
	result SKIP "$JT_SUITE: $S: no netlink family: falls back to polling, says so once" \
		"generic netlink sockets unavailable here"
else
	check "$S: no netlink family: falls back to polling, says so once" eval '
		[ "$(grep -c "netlink family jbd2tune not found (module not loaded?): polling" "$log.nl")" = 1 ] &&
		grep -q "vda-8: journal found" "$log.nl"'
fi

# --- 11. bad policy at start: exit 1 with file:line: key: why ----------------
printf '[agent]\nwindow_s = 30\n[defaults]\nreclaim = sometimes\n' > "$tmp/bad.conf"
out=$("$JT_BIN" --config "$tmp/bad.conf" --configfs-root "$cfs" --bus none 2>&1); rc=$?
want="$tmp/bad.conf:4: reclaim: 'sometimes' is not one of on, off, auto"
check "$S: bad value at start exits 1 with the message" \
	eval '[ $rc = 1 ] && grep -qF "$want" <<< "$out"'
out=$("$JT_BIN" --config "$tmp/none.conf" --bus none 2>&1); rc=$?
check "$S: missing policy file exits 1" \
	eval '[ $rc = 1 ] && grep -q "$tmp/none.conf: cannot open: No such file or directory" <<< "$out"'
echo "[agent]" > "$tmp/ok.conf"; echo x > "$tmp/ok.conf.d"
out=$("$JT_BIN" --config "$tmp/ok.conf" --bus none 2>&1); rc=$?
check "$S: unreadable drop-in directory exits 1" \
	eval '[ $rc = 1 ] && grep -q "$tmp/ok.conf.d: cannot read drop-in directory" <<< "$out"'
"$JT_BIN" --bogus > /dev/null 2>&1
check "$S: unknown option exits 2" [ $? = 2 ]
check "$S: --version" eval '[ "$("$JT_BIN" --version)" = "jbd2-tuned 0.1" ]'
help_names_all() {
	local out o
	out=$("$JT_BIN" --help) || return 1
	for o in --config --dry-run --once --apply --configfs-root --bus --no-netlink --verbose \
		--version --help; do
		grep -q -- "$o" <<< "$out" || return 1
	done
}
check "$S: --help names every option" help_names_all

# --- the metrics file's default: node_exporter's textfile directory -----------
# (JBD2_TUNED_METRICS_DIR stands for /var/lib/prometheus/node-exporter)
tf=$tmp/textfile
rm -rf "$tf"
write_policy "$tmp/m.conf"
start_agent "$log.m" --config "$tmp/m.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: no textfile directory (node_exporter not installed): no file, said once" \
	eval 'wait_for 3 grep -q "no metrics file: $tf is missing" "$log.m" && sleep 0.3 &&
		[ "$(grep -c "no metrics file" "$log.m")" = 1 ] && [ ! -e "$tf" ]'
mkdir "$tf"
check "$S: once the directory exists, jbd2-tuned.prom in it, and only that" \
	eval 'wait_for 3 grep -qs "^jbd2_tuned_log_blocks{journal=\"vda-8\"} " "$tf/jbd2-tuned.prom" &&
		grep -q "metrics in $tf/jbd2-tuned.prom, rewritten each interval" "$log.m" &&
		[ "$(ls -A "$tf")" = jbd2-tuned.prom ]'
stop_agent TERM
check "$S: the file goes when the agent stops (node_exporter drops the series)" \
	eval '[ "$AGENT_RC" = 0 ] && [ ! -e "$tf/jbd2-tuned.prom" ]'
sed -i "s|^\[agent\]|[agent]\nmetrics_file =|" "$tmp/m.conf"
start_agent "$log.m2" --config "$tmp/m.conf" --configfs-root "$cfs" --no-netlink --bus none
sleep 1
check "$S: metrics_file = (empty) writes none, even where the directory exists" \
	eval '[ -z "$(ls -A "$tf")" ] && ! grep -q "metrics" "$log.m2"'
stop_agent TERM
check_sanitizers "$tmp"
exit $FAILED
