# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# A private dbus-daemon for the agent's bus tests.  Its configuration copies
# the defaults of Debian's system bus (method calls denied unless a policy
# allows them) and includes the project's conf/org.jbd2tune1.conf, so the
# shipped policy is what is tested.  With "permissive" it allows every call,
# to test the agent's own credential check.

PROJECT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# start_bus DIR [permissive] - sets BUS_ADDR, BUS_PID
start_bus() {
	local dir=$1 mode=${2:-system} policy
	if [ "$mode" = permissive ]; then
		policy='<policy context="default"><allow user="*"/>
			<allow send_destination="*" eavesdrop="true"/>
			<allow eavesdrop="true"/><allow own="*"/></policy>'
	else
		policy="<policy context=\"default\">
			<allow user=\"*\"/>
			<deny own=\"*\"/>
			<deny send_type=\"method_call\"/>
			<allow send_type=\"signal\"/>
			<allow send_requested_reply=\"true\" send_type=\"method_return\"/>
			<allow send_requested_reply=\"true\" send_type=\"error\"/>
			<allow receive_type=\"method_call\"/>
			<allow receive_type=\"method_return\"/>
			<allow receive_type=\"error\"/>
			<allow receive_type=\"signal\"/>
			<allow send_destination=\"org.freedesktop.DBus\"
			       send_interface=\"org.freedesktop.DBus\"/>
			<allow send_destination=\"org.freedesktop.DBus\"
			       send_interface=\"org.freedesktop.DBus.Introspectable\"/>
			<allow send_destination=\"org.freedesktop.DBus\"
			       send_interface=\"org.freedesktop.DBus.Properties\"/>
			<allow send_destination=\"org.freedesktop.DBus\"
			       send_interface=\"org.freedesktop.DBus.Monitoring\"/>
		</policy>
		<include>$PROJECT_TOP/conf/org.jbd2tune1.conf</include>"
	fi
	cat > "$dir/bus.conf" <<-XML
	<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
	 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
	<busconfig>
		<type>jbd2tune-test</type>
		<listen>unix:path=$dir/bus</listen>
		<auth>EXTERNAL</auth>
		$policy
	</busconfig>
	XML
	chmod 755 "$dir"
	dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile --print-address=3 \
		3> "$dir/bus.addr" 2> "$dir/bus.log" &
	BUS_PID=$!
	wait_for 5 test -s "$dir/bus.addr" || return 1
	BUS_ADDR=unix:path=$dir/bus
}

# bc ARGS... - busctl on the private bus (never hangs a test)
bc() {
	timeout 10 busctl --address="$BUS_ADDR" "$@"
}

# bc_nobody ARGS... - busctl on the private bus as uid/gid 65534
bc_nobody() {
	timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups busctl --address="$BUS_ADDR" "$@"
}

# prop_is PATH IFACE PROP EXPECTED - busctl get-property output equals EXPECTED
prop_is() {
	local got
	got=$(bc get-property org.jbd2tune1 "$1" "$2" "$3" 2>&1)
	[ "$got" = "$4" ] || { echo "# $3: got '$got', want '$4'"; return 1; }
}

# start_watched_agent POLICY - a private bus in $tmp/bus, jbd2-tuned on it
# with POLICY on the fake configfs tree $cfs (no netlink), logging to $log,
# and `busctl monitor` of its name into $tmp/monitor (MON_PID).  A bus that
# does not start fails the suite's script at once.
start_watched_agent() {
	mkdir -p "$tmp/bus"
	start_bus "$tmp/bus" || { result FAIL "$JT_SUITE: $S: private dbus-daemon starts"; exit 1; }
	start_agent "$log" --config "$1" --configfs-root "$cfs" --no-netlink --bus "$BUS_ADDR"
	wait_for 5 bc status org.jbd2tune1 > /dev/null 2>&1
	busctl --address="$BUS_ADDR" monitor org.jbd2tune1 > "$tmp/monitor" 2>&1 &
	MON_PID=$!
}
