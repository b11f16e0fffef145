# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Resource figures of a running process, for bench/agent-resources (host)
# and bench/agent-vm.sh (guest).

# cpu_rss PID SECONDS - sleep SECONDS and print "CPU_PCT RSS_KIB HWM_KIB
# CPU_MS": the share of one core PID spent on the CPU meanwhile (from
# /proc/PID/schedstat, ns on the CPU: finer than the 10 ms ticks of
# /proc/PID/stat), its resident set at the end and at its peak.
cpu_rss() {
	local pid=$1 secs=$2 t0 t1 s0 s1
	t0=$(awk '{ print $1 }' "/proc/$pid/schedstat")
	s0=$(date +%s%N)
	sleep "$secs"
	t1=$(awk '{ print $1 }' "/proc/$pid/schedstat")
	s1=$(date +%s%N)
	awk -v t="$((t1 - t0))" -v ns="$((s1 - s0))" \
		-v rss="$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")" \
		-v hwm="$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")" \
		'BEGIN { printf "%.3f %d %d %d\n", 100 * t / ns, rss, hwm, t / 1000000 }'
}
