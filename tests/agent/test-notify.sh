#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# jbd2-tuned's sd_notify protocol as systemd would see it (Type=notify,
# WatchdogSec=): a datagram socket stands in for NOTIFY_SOCKET and records
# what the agent sends: READY=1 after the first sample, STATUS= with the
# journals and the last decision, WATCHDOG=1 from the loop, RELOADING=1 on
# SIGHUP, STOPPING=1 on SIGTERM.
set -u
. "$(dirname "$0")/lib.sh"
S="notify"

if ! command -v python3 > /dev/null; then
	result SKIP "$JT_SUITE: $S: sd_notify messages" "python3 not installed (fake NOTIFY_SOCKET)"
	exit 0
fi
tmp=$(mktemp -d /tmp/jt-notify.XXXXXX)
LISTEN_PID=
trap 'kill $AGENT_PID $LISTEN_PID 2>/dev/null; rm -rf "$tmp"' EXIT
cfs=$tmp/jbd2
fake_journal "$cfs" vda-8
write_policy "$tmp/p.conf"

python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
out = open(sys.argv[2], "a", buffering=1)
while True:
    for line in s.recv(4096).decode().splitlines():
        out.write(line + "\n")
' "$tmp/notify" "$tmp/messages" &
LISTEN_PID=$!
wait_for 3 test -S "$tmp/notify"

# WATCHDOG_PID must be the agent's own pid: exec from a subshell keeps it
(
	export NOTIFY_SOCKET=$tmp/notify WATCHDOG_USEC=400000 WATCHDOG_PID=$BASHPID JBD2_TUNED_METRICS_DIR=$tmp/textfile
	exec "$JT_BIN" --config "$tmp/p.conf" --configfs-root "$cfs" --no-netlink --bus none
) > "$tmp/agent.log" 2>&1 &
AGENT_PID=$!

check "$S: READY=1 after the first sample" wait_for 3 grep -qx "READY=1" "$tmp/messages"
check "$S: READY=1 only after the first sample (its STATUS= comes first)" eval '
	[ "$(grep -vx WATCHDOG=1 "$tmp/messages" | sed -n 1p)" = "STATUS=1 journal; last decision: none" ] &&
	[ "$(grep -vx WATCHDOG=1 "$tmp/messages" | sed -n 2p)" = "READY=1" ]'
check "$S: STATUS= names the journals" grep -qx "STATUS=1 journal; last decision: none" "$tmp/messages"
add_waits "$cfs/vda-8" shadow 20 15
check "$S: STATUS= shows the last decision" \
	wait_for 4 grep -q "^STATUS=1 journal; last decision: vda-8: force_copy 0->1: trial of 0->1" "$tmp/messages"
sleep 1
n=$(grep -cx "WATCHDOG=1" "$tmp/messages")
echo "# $n WATCHDOG=1 in about 1.5 s with WatchdogSec=0.4 s"
check "$S: WATCHDOG=1 is sent from the loop" [ "$n" -ge 2 ]
kill -HUP "$AGENT_PID"
check "$S: RELOADING=1 on SIGHUP" wait_for 3 grep -qx "RELOADING=1" "$tmp/messages"
stop_agent TERM
check "$S: STOPPING=1 on SIGTERM" wait_for 3 grep -qx "STOPPING=1" "$tmp/messages"
check "$S: exit status 0" [ "$AGENT_RC" = 0 ]
[ "$FAILED" = 0 ] || { echo "--- notify messages"; head -5 "$tmp/messages"; }
check_sanitizers "$tmp"
exit $FAILED
