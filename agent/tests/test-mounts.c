// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of the mount table parsing (mounts.c) with a fake /sys/dev/block. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mounts.h"

static int fake_devname(unsigned int major, unsigned int minor, char *buf, size_t len,
			void *userdata)
{
	static const struct { unsigned int major, minor; const char *name; } devs[] = {
		{ 254, 1, "vda1" }, { 254, 16, "vdb" }, { 253, 0, "dm-0" },
	};
	size_t i;

	(void)userdata;
	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (devs[i].major == major && devs[i].minor == minor) {
			snprintf(buf, len, "%s", devs[i].name);
			return 0;
		}
	return -ENOENT;	/* e.g. 0:22, a virtual file system */
}

static const char mountinfo[] =
	"22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
	"23 22 0:22 / /proc rw shared:2 - proc proc rw\n"
	"30 22 254:16 / /var/lib/my\\040data rw - ext4 /dev/vdb rw\n"
	"31 22 254:16 /sub /srv/bind rw - ext4 /dev/vdb rw\n"	/* bind of a subdir: skipped */
	"32 22 253:0 / /data rw - ext4 /dev/mapper/vg-data rw\n"
	"33 22 254:16 / /mnt/again rw - ext4 /dev/vdb rw\n"
	"34 22 254:1 / /no-sep rw\n"			/* no " - ": type and source unknown */
	"garbage line\n";

static void test_parse_and_match(void **state)
{
	static const struct { const char *journal; size_t n; const char *first, *second; } cases[] = {
		{ "vda1-8", 2, "/", "/no-sep" },
		{ "vdb-12", 2, "/var/lib/my data", "/mnt/again" },	/* \040 unescaped */
		{ "dm-0-8", 1, "/data", NULL },				/* dash in the device */
		{ "vda-8", 0, NULL, NULL },				/* not vda1 */
		{ "vda1", 0, NULL, NULL },				/* no inode part */
		{ "vda1-x", 0, NULL, NULL },
	};
	struct jt_mount_table t;
	size_t i;

	(void)state;
	assert_int_equal(jt_mounts_parse(mountinfo, fake_devname, NULL, &t), 0);
	assert_int_equal(t.n, 5);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *out[4];
		size_t n = jt_mounts_of_journal(&t, cases[i].journal, out, 4);

		print_message("# %s\n", cases[i].journal);
		assert_int_equal(n, cases[i].n);
		assert_null(out[n]);
		if (cases[i].first)
			assert_string_equal(out[0], cases[i].first);
		if (cases[i].second)
			assert_string_equal(out[1], cases[i].second);
	}
	jt_mounts_free(&t);
}

/* The first mount of a journal, with the type and source after " - ". */
static void test_first_mount(void **state)
{
	const struct jt_mount *m;
	struct jt_mount_table t;

	(void)state;
	assert_int_equal(jt_mounts_parse(mountinfo, fake_devname, NULL, &t), 0);
	m = jt_mounts_first(&t, "vdb-12");
	assert_non_null(m);
	assert_string_equal(m->path, "/var/lib/my data");
	assert_string_equal(m->fstype, "ext4");
	assert_string_equal(m->source, "/dev/vdb");
	m = jt_mounts_first(&t, "dm-0-8");
	assert_non_null(m);
	assert_string_equal(m->source, "/dev/mapper/vg-data");
	assert_null(jt_mounts_first(&t, "vda-8"));
	assert_null(jt_mounts_first(&t, "vdb"));	/* an external journal's name */
	jt_mounts_free(&t);
	/* a line without the separator keeps its mount, type and source empty */
	assert_int_equal(jt_mounts_parse("34 22 254:1 / /no-sep rw\n", fake_devname, NULL, &t), 0);
	m = jt_mounts_first(&t, "vda1-8");
	assert_non_null(m);
	assert_string_equal(m->fstype, "");
	assert_string_equal(m->source, "");
	jt_mounts_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_match),
		cmocka_unit_test(test_first_mount),
	};

	return cmocka_run_group_tests_name("mounts", tests, NULL, NULL);
}
