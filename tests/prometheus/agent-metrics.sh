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
#   vda-8   force_copy auto, reclaim auto, advice_windows 3, the journal of
#           the ext4 "mounted" on $tmp/mnt: shadow waits, space waits and
#           commits every 200 ms, so force copy goes on, the watermark
#           climbs to the top of auto's range (70 %) and the journal-size
#           advice comes;
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
	"[journal vda-8]" "reclaim = auto" \
	"[journal vdb-12]" "force_copy = off"
sed -i -e "s|^\[agent\]|[agent]\nmetrics_file = $prom|" -e "s|^window_s = 2$|window_s = 4|" "$tmp/p.conf"
grep -q "^window_s = 4$" "$tmp/p.conf" || { result FAIL "$JT_SUITE: $S: policy (write_policy changed?)"; exit 1; }

start_agent "$log" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
check "$S: written within 5 s of the start" wait_for 5 test -s "$prom"

# one second of load, then a copy of the file: five steps of 200 ms, each
# two shadow waits of 32..65 ms on vda-8 and vdb-12 and on vda-8 a space
# wait of 16..32 ms and a commit of 20 blocks.  Load and copies in one loop,
# so that every copy follows a second of load even when this 2-core host
# starves the loop (a 4 s window rides out a stall of the loop shorter
# than that; with the 2 s of write_policy one stall let the agent lower
# the watermark once).
cp "$prom" "$tmp/snap/000.prom"
for ((i = 1; i < SNAPSHOTS; i++)); do
	for _ in 1 2 3 4 5; do
		add_waits "$cfs/vda-8" shadow 2 15
		add_waits "$cfs/vda-8" space 1 14
		add_commits "$cfs/vda-8" 1 20
		add_waits "$cfs/vdb-12" shadow 2 15
		sleep 0.2
	done
	cp "$prom" "$tmp/snap/$(printf %03d "$i").prom"
done
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
	# exactly on the two per-kind families, knob on the two per-knob ones
	bad=$(grep -v '^#' "$last" | grep -vE \
		'^jbd2_tuned_decisions_total [0-9]+$|^jbd2_tuned_(waits_total|wait_p99_seconds)\{journal="[^"]+",kind="(shadow|space|locked|commit)"\} [0-9.]+$|^jbd2_tuned_(reverts_total|retry_after_timestamp_seconds)\{journal="[^"]+",knob="(force_copy|reclaim)"\} [0-9.]+$|^jbd2_tuned_[a-z0-9_]+\{journal="[^"]+"\} [0-9.]+$')
	[ -z "$bad" ] || { echo "# unexpected series: $bad"; return 1; }
}
check "$S: its series are labelled journal (and kind or knob) only" series_ok
journals_ok() {
	local j
	for j in vda-8 vdb-12 vdc-3; do
		grep -q "^jbd2_tuned_force_copy{journal=\"$j\"} " "$last" || return 1
	done
	grep -q '^jbd2_tuned_waits_total{journal="vda-8",kind="commit"} ' "$last" &&
		! grep -q 'journal="vdc-3",kind="commit"' "$last"
}
check "$S: every journal of the tree is in it; commit waits only where the module has them" journals_ok
# shellcheck disable=SC2016
check "$S: the load turned force_copy on, raised the watermark to 70 and brought an advice" eval '
	grep -q "^jbd2_tuned_force_copy{journal=\"vda-8\"} 1$" "$last" &&
	grep -q "^jbd2_tuned_reclaim_watermark_pct{journal=\"vda-8\"} 70$" "$last" &&
	grep -qE "^jbd2_tuned_advised_journal_bytes\{journal=\"vda-8\"\} [1-9][0-9]*$" "$last"'

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
