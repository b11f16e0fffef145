/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jbd2-tunectl's pure part: naming a journal, formatting times, knobs and
 * JSON strings.  No I/O beyond the FILE the caller passes; unit-tested in
 * tests/test-tunectl.c.
 */
#ifndef JT_TUNECTL_FMT_H
#define JT_TUNECTL_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One journal as ListJournals() gives it. */
struct jt_ctl_journal {
	char *name;		/* configfs name, e.g. "vda-8" */
	char *mount;		/* mount point or "" */
	char *path;		/* D-Bus object path */
};

/*
 * jt_ctl_find - the index in @list (@n entries) of the journal @arg names:
 * its configfs name, or, when @arg starts with '/', its mount point
 * (trailing slashes ignored: "/data/" is "/data").  Returns -1 when none.
 */
int jt_ctl_find(const struct jt_ctl_journal *list, size_t n, const char *arg);

/*
 * jt_ctl_fmt_left - the time from @now_us to @until_us (both µs, same clock)
 * as "45s", "4m12s", "2h05m" into @buf; "-" when @until_us is 0 or not
 * after @now_us.
 */
void jt_ctl_fmt_left(uint64_t now_us, uint64_t until_us, char *buf, size_t len);

/*
 * jt_ctl_fmt_ago - how long before @now_us @then_us was, "12s ago",
 * "3m ago", "5h ago", "2d ago"; "-" when @then_us is 0.
 */
void jt_ctl_fmt_ago(uint64_t now_us, uint64_t then_us, char *buf, size_t len);

/*
 * jt_ctl_fmt_knob - a knob for the status table: "@mode @value" with
 * @unit (may be NULL) after the value: "auto 1", "on 50%", "manual 0".
 */
void jt_ctl_fmt_knob(const char *mode, uint64_t value, const char *unit, char *buf, size_t len);

/*
 * jt_ctl_module_state - whether the running kernel (@kver, e.g.
 * "6.1.0-57-amd64") has jbd2-tune's jbd2 loaded, and if not the most
 * likely reason, read from the files under @root ("" for the real system;
 * a directory in tests): sys/module/jbd2 (and its force_copy_default
 * parameter, which only ours has), lib/modules/<kver>/updates/dkms/jbd2.ko*
 * (where DKMS and the prebuilt jbd2-tune-modules-<kver> put it),
 * usr/src/jbd2-tune-* (the DKMS source and its patches/<series>/) and
 * lib/modules/<kver>/build.  Returns 1 (ours loaded), 0 (the stock
 * jbd2 is loaded; @why says why) or -1 (no jbd2 loaded; @why says so).
 */
int jt_ctl_module_state(const char *root, const char *kver, char *why, size_t len);

/* jt_ctl_json_string - @s as a JSON string literal, quotes included, to @f. */
void jt_ctl_json_string(FILE *f, const char *s);

/*
 * jt_ctl_json_double - @v as a JSON number to @f (JSON has no NaN or
 * infinity: those are written as null).
 */
void jt_ctl_json_double(FILE *f, double v);

#endif
