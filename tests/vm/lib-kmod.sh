# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Kernel-module helpers for the kmod-* VM tests, sourced after lib.sh:
#   source "$PROJECT/tests/vm/lib.sh"; source "$PROJECT/tests/vm/lib-kmod.sh"

CFS=/sys/kernel/config/jbd2
PARAMS=/sys/module/jbd2/parameters

# kmod_setup - ext4 on our jbd2, configfs mounted, the jbd2 tree present
kmod_setup() {
	load_ext4
	mount_configfs
	[ -d "$CFS" ] || fail "$CFS missing (configfs subsystem not registered)"
}

# jattr JOURNAL FILE - print one attribute of a journal's group
jattr() {
	cat "$CFS/$1/$2"
}

# jset JOURNAL FILE VALUE - write a knob; fails the test on error
jset() {
	printf '%s\n' "$3" > "$CFS/$1/$2" || fail "write $3 to $1/$2"
}

# try_write PATH BYTES - write BYTES (printf %b escapes) with one write(2);
# prints "ok" or the errno name (EINVAL, EACCES, ...)
try_write() {
	python3 - "$1" "$2" <<'PY'
import errno, os, sys
path, data = sys.argv[1], sys.argv[2].encode().decode("unicode_escape").encode()
try:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    print("ok")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
PY
}

# dev_journal_blocks DEV - journal length in blocks from dumpe2fs -h
dev_journal_blocks() {
	dumpe2fs -h "$1" 2>/dev/null | sed -n -e 's/^Total journal blocks: *//p' -e 's/^Journal length: *//p' | head -n 1
}

# hist_sum_from JOURNAL HIST B - sum of the buckets B, B+1, ... of the
# histogram attribute HIST (bucket b holds [2^b, 2^(b+1)) us)
hist_sum_from() {
	jattr "$1" "$2" | awk -v b="$3" '{ for (i = b + 1; i <= NF; i++) s += $i } END { print s + 0 }'
}

# hist_sum JOURNAL KIND - sum of the buckets of KIND_wait_hist
hist_sum() {
	hist_sum_from "$1" "$2_wait_hist" 0
}

# hist_top JOURNAL KIND - index of the highest non-empty bucket (-1: none)
hist_top() {
	jattr "$1" "$2_wait_hist" | awk '{ t = -1; for (i = 1; i <= NF; i++) if ($i > 0) t = i - 1; print t }'
}

# dump_journal JOURNAL - every attribute, one "name value" line each
dump_journal() {
	local f
	for f in "$CFS/$1"/*; do
		printf '  %-24s %s\n' "$(basename "$f")" "$(cat "$f" 2>&1)"
	done
}

# create_storm TOP WORKERS DIRS FILES FSYNC_EVERY - metadata storm: WORKERS
# processes each make DIRS directories of FILES empty files under TOP,
# fsync'ing every FSYNC_EVERY-th file (0: never) so that many small
# transactions fill the log quickly.  Waits for all workers.
create_storm() {
	python3 - "$@" <<'PY'
import os, sys
top, workers, ndirs, nfiles, every = sys.argv[1], *map(int, sys.argv[2:6])
pids = []
for w in range(workers):
    pid = os.fork()
    if pid == 0:
        base = os.path.join(top, "w%d" % w)
        os.mkdir(base)
        n = 0
        for d in range(ndirs):
            dd = os.path.join(base, "d%d" % d)
            os.mkdir(dd)
            for f in range(nfiles):
                fd = os.open(os.path.join(dd, "f%d" % f), os.O_CREAT | os.O_WRONLY, 0o644)
                n += 1
                if every and n % every == 0:
                    os.fsync(fd)
                os.close(fd)
        os._exit(0)
    pids.append(pid)
rc = 0
for pid in pids:
    rc |= os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
sys.exit(1 if rc else 0)
PY
}

# use_jbd2 stock|ours STOCK_KO - with no ext4 mounted, swap the jbd2 module
# under a fresh ext4.ko: Debian's stock one (the file STOCK_KO, insmod'ed)
# or ours (modprobe), for the benches that compare both in one boot.
# JBD2_NOW says which is loaded ("unknown" until the first swap).
JBD2_NOW=unknown
use_jbd2() {
	[ "$1" = "$JBD2_NOW" ] && return 0
	if [ -d /sys/module/ext4 ]; then rmmod ext4 || fail "rmmod ext4"; fi
	if [ -d /sys/module/jbd2 ]; then rmmod jbd2 || fail "rmmod jbd2"; fi
	case $1 in
	stock) insmod "$2" || fail "insmod $2" ;;
	ours) modprobe jbd2 || fail "modprobe jbd2" ;;
	*) fail "use_jbd2: stock or ours, not '$1'" ;;
	esac
	modprobe ext4 || fail "modprobe ext4"
	mount_configfs
	JBD2_NOW=$1
	log "jbd2: $1 (module taint '$(cat /sys/module/jbd2/taint)')"
}
