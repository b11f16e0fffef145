#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The metrics file the real jbd2-tuned writes, checked by promtool and fed
# to the alert rules.
#
# The agent runs as in the agent's integration tests (tests/agent/lib.sh: a
# fake configfs tree whose counters this script advances, the agent
# polling it every 100 ms, no netlink, no bus) with [agent] metrics_file
# set and a 4 s window.  Three journals:
#   vda-8   force_copy auto, reclaim auto with a range of 70..70 %,
#           advice_windows 3, the journal of the ext4 "mounted" on
#           $tmp/mnt: shadow waits, space waits and commits every 200 ms.
#           The fake answers the knobs as the module would, in part: force
#           copy on leaves 3 shadow waits a second of 10, a watermark 2
#           space waits a second of 10 (both still waits: the alerts about
#           waits left with the knob on are for this).  So the trial of
#           force copy and that of the watermark each keep their change,
#           and the journal-size advice comes;
#   vdb-12  force_copy off, the same shadow waits;
#   vdc-3   quiet, and a group of the module's first release (no commit
#           waits: the file has no kind="commit" series for it).
# Every second the file is copied aside; then
#   - promtool check metrics on the last copy (parse, then lint);
#   - its series carry the labels the rules match on (journal, kind);
#   - every jbd2_tuned_* name and kind the rules and the unit tests use is
#     one the agent writes;
#   - the copies, one a minute as if node_exporter had scraped them (with
#     instance and job; time runs 60 times faster for the rules than for
#     the agent), go through promtool test rules with the shipped rules:
#     nothing fires at first, and at the end exactly the alerts the three
#     journals call for.
#
# Needs JT_BIN (default agent/build/jbd2-tuned) and promtool; records its
# results under "prometheus: agent's metrics file: ...".  Exit status 1 if
# any failed.
# shellcheck disable=SC2317  # functions called through check()
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${JT_BIN:=$top/agent/build/jbd2-tuned}"
export JT_BIN
JT_SUITE=prometheus
# shellcheck source=SCRIPTDIR/../agent/lib.sh
. "$top/tests/agent/lib.sh"
S="agent's metrics file"
SNAPSHOTS=${SNAPSHOTS:-50}

test_dir prometheus	# sets tmp, cfs, log
prom=$tmp/jbd2-tuned.prom

# vda-8 is the journal of the ext4 on $tmp/mnt (a real directory, so that
# statvfs answers and the advice is in MiB)
mkdir -p "$tmp/sysblock" "$tmp/mnt" "$tmp/snap"
ln -s ../devices/virtual/block/vda "$tmp/sysblock/254:0"
echo "30 22 254:0 / $tmp/mnt rw - ext4 /dev/vda rw" > "$tmp/mountinfo"
export JBD2_TUNED_MOUNTINFO=$tmp/mountinfo JBD2_TUNED_SYS_DEV_BLOCK=$tmp/sysblock

fake_journal "$cfs" vda-8
put "$cfs/vda-8/log_blocks" 1024
put "$cfs/vda-8/free_blocks" 200
put "$cfs/vda-8/max_transaction_blocks" 256
fake_journal "$cfs" vdb-12
fake_journal_old "$cfs" vdc-3
write_policy "$tmp/p.conf" "advice_windows = 3" \
	"[journal vda-8]" "reclaim = auto" "reclaim_min_pct = 70" "reclaim_max_pct = 70" \
	"trial_block_s = 2" "trial_max_pairs = 20" \
	"[journal vdb-12]" "force_copy = off"
sed -i -e "s|^\[agent\]|[agent]\nmetrics_file = $prom|" -e "s|^window_s = 2$|window_s = 4|" "$tmp/p.conf"
grep -q "^window_s = 4$" "$tmp/p.conf" || { result FAIL "$JT_SUITE: $S: policy (write_policy changed?)"; exit 1; }

start_agent "$log" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: written within 5 s of the start" wait_for 5 test -s "$prom"

# one second of load, then a copy of the file: five steps of 200 ms, each
# two shadow waits of 32..65 ms on vda-8 and vdb-12 and on vda-8 two space
# waits of 16..32 ms and two commits of 10 blocks.  On vda-8 with force_copy
# on, one shadow wait in steps 1, 3 and 5 only; with a watermark, one space
# wait in steps 1 and 4 only (the relief a trial must see: its test counts
# waits up to one per commit).  Load and copies in one loop,
# so that every copy follows a second of load even when this 2-core host
# starves the loop (a 4 s window rides out a stall of the loop shorter
# than that; with the 2 s of write_policy one stall let the agent lower
# the watermark once).
# The trials take their blocks in wall-clock time, the load its steps in
# the loop's: on a starved host a trial may still run at step 50 (the knob
# then reads 0 in an off block), and a 1 s block may hold one step or none
# (seen beside four guests: "inconclusive after 20 blocks", relief p 0.1),
# hence vda-8's 2 s blocks and up to 20 pairs.  So the loop goes on until
# both trials on vda-8 kept their change and 25 more steps passed (what the
# alerts need of a steady knob: the watermark pinned over [10m], then for:
# 10m, 20 steps, and some slack: 20 alone failed once), SNAPSHOTS steps at
# least, MAX_SNAPSHOTS at most.
MAX_SNAPSHOTS=${MAX_SNAPSHOTS:-150}
kept_at=
both_kept() {
	grep -Eq "vda-8: force_copy 0->1(: kept: | kept: )" "$log" &&
		grep -Eq "vda-8: reclaim 0->70(: kept: | kept: )" "$log"
}
cp "$prom" "$tmp/snap/000.prom"
for ((i = 1; i < MAX_SNAPSHOTS; i++)); do
	if [ $i -ge "$SNAPSHOTS" ] && [ -n "$kept_at" ] && [ $i -ge $((kept_at + 25)) ]; then
		break
	fi
	for step in 1 2 3 4 5; do
		if [ "$(cat "$cfs/vda-8/force_copy")" = 0 ]; then
			add_waits "$cfs/vda-8" shadow 2 15
		elif [ $((step % 2)) = 1 ]; then
			add_waits "$cfs/vda-8" shadow 1 15
		fi
		if [ "$(cat "$cfs/vda-8/reclaim_watermark_pct")" = 0 ]; then
			add_waits "$cfs/vda-8" space 2 14
		elif [ "$step" = 1 ] || [ "$step" = 4 ]; then
			add_waits "$cfs/vda-8" space 1 14
		fi
		add_commits "$cfs/vda-8" 2 20
		add_waits "$cfs/vdb-12" shadow 2 15
		sleep 0.2
	done
	cp "$prom" "$tmp/snap/$(printf %03d "$i").prom"
	[ -n "$kept_at" ] || ! both_kept || kept_at=$i
done
SNAPSHOTS=$i
echo "# both trials on vda-8 kept their change by step ${kept_at:-(never)}; $((SNAPSHOTS - 1)) steps"
last=$tmp/snap/$(printf %03d $((SNAPSHOTS - 1))).prom
echo "# the agent's file after $((SNAPSHOTS - 1)) one-second steps of load:"
sed 's/^/#   /' "$last"
check "$S: the agent is still running" kill -0 "$AGENT_PID"

# --- promtool check metrics ------------------------------------------------
promtool check metrics < "$last" > "$tmp/check-metrics.out" 2>&1
cm_rc=$?
sed 's/^/# promtool check metrics: /' "$tmp/check-metrics.out"
# exit status 1: the file does not parse; 3: it parses, with lint problems
check "$S: promtool check metrics parses it" [ "$cm_rc" = 0 -o "$cm_rc" = 3 ]
check "$S: promtool check metrics finds no problem" [ "$cm_rc" = 0 ]

# --- labels ----------------------------------------------------------------
series_ok() {
	local bad
	# every series but the agent-wide counter has a journal label, kind
	# exactly on the per-kind families, knob on the per-knob ones, cause
	# on the diagnosis
	bad=$(grep -v '^#' "$last" | grep -vE \
		'^jbd2_tuned_(build_info\{version="[^"]+"\}|module_patched) [01]$|^jbd2_tuned_journal_info\{journal="[^"]+",device="[^"]*",mountpoint="[^"]*",uuid="[^"]*"\} 1$|^jbd2_tuned_wait_duration_seconds_bucket\{journal="[^"]+",kind="(shadow|space|locked|commit)",le="[^"]+"\} [0-9]+$|^jbd2_tuned_wait_duration_seconds_(sum|count)\{journal="[^"]+",kind="(shadow|space|locked|commit)"\} [0-9.]+$|^jbd2_tuned_decisions_total [0-9]+$|^jbd2_tuned_diagnosis\{journal="[^"]+",cause="(none|shadow|space|locked|commit_io|space_reclaim_on)"\} [01]$|^jbd2_tuned_(waits_total|wait_p99_seconds)\{journal="[^"]+",kind="(shadow|space|locked|commit)"\} [0-9.]+$|^jbd2_tuned_(reverts_total|retry_after_timestamp_seconds)\{journal="[^"]+",knob="(force_copy|reclaim|lock_delay)"\} [0-9.]+$|^jbd2_tuned_[a-z0-9_]+\{journal="[^"]+"\} [0-9.]+$')
	[ -z "$bad" ] || { echo "# unexpected series: $bad"; return 1; }
}
check "$S: its series are labelled journal (and kind, knob or cause, le) only, but for build_info, module_patched and journal_info" series_ok
# shellcheck disable=SC2016
check "$S: conventional families: build_info, module_patched 1 (configfs tree there), journal_info with device, mountpoint and uuid, ratios, bytes where mounted" eval '
	grep -qE "^jbd2_tuned_build_info\{version=\"[0-9.]+\"\} 1$" "$last" &&
	grep -q "^jbd2_tuned_module_patched 1$" "$last" &&
	grep -q "^jbd2_tuned_journal_info{journal=\"vdb-12\",device=\"\",mountpoint=\"\",uuid=\"\"} 1$" "$last" &&
	grep -q "^jbd2_tuned_log_size_bytes{journal=\"vda-8\"} $((1024 * $(stat -f -c %S "$tmp/mnt")))$" "$last" &&
	grep -q "^jbd2_tuned_log_free_bytes{journal=\"vda-8\"} $((200 * $(stat -f -c %S "$tmp/mnt")))$" "$last" &&
	! grep -q "^jbd2_tuned_log_size_bytes{journal=\"vdb-12\"}" "$last" &&
	grep -q "^jbd2_tuned_reclaim_watermark_ratio{journal=\"vda-8\"} 0.70$" "$last" &&
	grep -q "^jbd2_tuned_lock_delay_seconds{journal=\"vda-8\"} 0.000$" "$last" &&
	grep -qE "^jbd2_tuned_log_free_ratio\{journal=\"vda-8\"\} 0\.[0-9]+$" "$last"'
hist_ok() {
	# vda-8's shadow waits: all in bucket 15 ([32.768, 65.536) ms), so the
	# cumulative count is 0 up to le=0.032768 and every wait from le=0.065536
	local n
	n=$(sed -n 's/^jbd2_tuned_waits_total{journal="vda-8",kind="shadow"} //p' "$last")
	[ -n "$n" ] && [ "$n" -gt 0 ] &&
	grep -q "^jbd2_tuned_wait_duration_seconds_bucket{journal=\"vda-8\",kind=\"shadow\",le=\"0.032768\"} 0$" "$last" &&
	grep -q "^jbd2_tuned_wait_duration_seconds_bucket{journal=\"vda-8\",kind=\"shadow\",le=\"0.065536\"} $n$" "$last" &&
	grep -q "^jbd2_tuned_wait_duration_seconds_bucket{journal=\"vda-8\",kind=\"shadow\",le=\"+Inf\"} $n$" "$last" &&
	grep -q "^jbd2_tuned_wait_duration_seconds_count{journal=\"vda-8\",kind=\"shadow\"} $n$" "$last" &&
	grep -qE "^jbd2_tuned_wait_duration_seconds_sum\{journal=\"vda-8\",kind=\"shadow\"\} [0-9.]+$" "$last" &&
	! grep -q 'journal="vdc-3",kind="commit"' "$last"
}
check "$S: the wait histograms: cumulative le buckets in seconds, +Inf and _count equal the waits" hist_ok
journals_ok() {
	local j
	for j in vda-8 vdb-12 vdc-3; do
		grep -q "^jbd2_tuned_force_copy{journal=\"$j\"} " "$last" || return 1
		grep -q "^jbd2_tuned_lock_delay_seconds{journal=\"$j\"} 0.000$" "$last" || return 1
		grep -q "^jbd2_tuned_retry_after_timestamp_seconds{journal=\"$j\",knob=\"lock_delay\"} " "$last" || return 1
	done
	grep -q '^jbd2_tuned_waits_total{journal="vda-8",kind="commit"} ' "$last" &&
		! grep -q 'journal="vdc-3",kind="commit"' "$last"
}
check "$S: every journal of the tree is in it, lock delay 0 (off as shipped); commit waits only where the module has them" journals_ok
load_ok() {
	grep -q "^jbd2_tuned_force_copy{journal=\"vda-8\"} 1$" "$last" &&
	grep -q "^jbd2_tuned_reclaim_watermark_pct{journal=\"vda-8\"} 70$" "$last" &&
	grep -qE "^jbd2_tuned_advised_journal_bytes\{journal=\"vda-8\"\} [1-9][0-9]*$" "$last" && return 0
	echo "# the agent's decisions on vda-8:"
	grep "vda-8: " "$log" | sed 's/^/#   /'
	return 1
}
check "$S: the load turned force_copy on, raised the watermark to 70 and brought an advice" load_ok

# --- the names the rules and the unit tests use --------------------------------
names_ok() {
	local n k missing=""
	while read -r n; do
		grep -qE "^${n}[{ ]" "$last" || missing+=" $n"
	done < <(grep -ohE 'jbd2_tuned_[a-z0-9_]+' "$top"/conf/prometheus/*.yml "$here"/*.test.yml | sort -u)
	while read -r k; do
		grep -qF "$k" "$last" || missing+=" $k"
	done < <(grep -ohE 'kind="[a-z_]+"' "$top"/conf/prometheus/*.yml "$here"/*.test.yml | sort -u)
	[ -z "$missing" ] || { echo "# used but not written by the agent:$missing"; return 1; }
}
check "$S: every jbd2_tuned_* name and kind in the rules and unit tests is one the agent writes" names_ok

# --- the rules on the recorded series ----------------------------------------
# one copy a minute; a series missing from a copy is "_"
recorded=$tmp/recorded.test.yml
{
	echo "# SPDX-License-Identifier: GPL-2.0"
	echo "rule_files:"
	echo "  - $top/conf/prometheus/jbd2-tune.rules.yml"
	echo "evaluation_interval: 1m"
	echo "tests:"
	echo "  - interval: 1m"
	echo "    input_series:"
	awk -v n="$SNAPSHOTS" '
		FNR == 1 { i++ }
		/^#/ || NF != 2 { next }
		{
			s = $1
			if (s ~ /\{/)
				sub(/\{/, "{instance=\"localhost:9100\",job=\"node\",", s)
			else
				s = s "{instance=\"localhost:9100\",job=\"node\"}"
			if (!(s in seen)) { seen[s] = 1; order[++m] = s }
			v[s, i] = $2
		}
		END {
			for (k = 1; k <= m; k++) {
				line = ""
				for (j = 1; j <= n; j++)
					line = line (j > 1 ? " " : "") ((order[k], j) in v ? v[order[k], j] : "_")
				printf "      - series: '\''%s'\''\n        values: '\''%s'\''\n", order[k], line
			}
		}' "$tmp"/snap/*.prom
	echo "    promql_expr_test:"
	echo "      - expr: ALERTS{alertstate=\"firing\"}"
	echo "        eval_time: 1m"
	echo "        exp_samples: []"
	echo "      - expr: ALERTS{alertstate=\"firing\"}"
	echo "        eval_time: $((SNAPSHOTS - 1))m"
	echo "        exp_samples:"
	for a in \
		'alertname="Jbd2ShadowWaitsWithForceCopyOn",journal="vda-8",kind="shadow",severity="warning"' \
		'alertname="Jbd2ShadowWaitsUnrelieved",journal="vdb-12",kind="shadow",severity="warning"' \
		'alertname="Jbd2SpaceWaitsWatermarkExhausted",journal="vda-8",severity="warning"' \
		'alertname="Jbd2JournalResizeAdvised",journal="vda-8",severity="info"'; do
		echo "          - labels: 'ALERTS{$a,alertstate=\"firing\",instance=\"localhost:9100\",job=\"node\"}'"
		echo "            value: 1"
	done
} > "$recorded"
promtool test rules "$recorded" > "$tmp/recorded.out" 2>&1
rec_rc=$?
if [ "$rec_rc" != 0 ]; then
	sed 's/^/# /' "$tmp/recorded.out" | head -n 60
	echo "# the recorded test was:"
	sed 's/^/#   /' "$recorded"
fi
check "$S: on its recorded series the rules fire for vda-8 (force copy on, watermark at the top, advice) and vdb-12 (force copy off), not for vdc-3" \
	[ "$rec_rc" = 0 ]

stop_agent TERM
exit "$FAILED"
