// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of jbd2-tunectl's pure helpers (src/tunectl/tunectl-fmt.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl-fmt.h"

static struct jt_ctl_journal list[] = {
	{ "vda-8", "/", "/org/jbd2tune1/journal/vda_2d8" },
	{ "vdb-8", "/data", "/org/jbd2tune1/journal/vdb_2d8" },
	{ "vdc-8", "", "/org/jbd2tune1/journal/vdc_2d8" },
	{ "dm-0-8", "/var/lib/mysql", "/org/jbd2tune1/journal/dm_2d0_2d8" },
};
#define N (sizeof(list) / sizeof(list[0]))

static void test_find_by_name_and_mount(void **state)
{
	(void)state;
	assert_int_equal(jt_ctl_find(list, N, "vda-8"), 0);
	assert_int_equal(jt_ctl_find(list, N, "dm-0-8"), 3);
	assert_int_equal(jt_ctl_find(list, N, "/"), 0);
	assert_int_equal(jt_ctl_find(list, N, "/data"), 1);
	assert_int_equal(jt_ctl_find(list, N, "/data/"), 1);		/* trailing slash */
	assert_int_equal(jt_ctl_find(list, N, "/var/lib/mysql//"), 3);
	/* neither a prefix of a name nor of a mount point */
	assert_int_equal(jt_ctl_find(list, N, "vda"), -1);
	assert_int_equal(jt_ctl_find(list, N, "/dat"), -1);
	assert_int_equal(jt_ctl_find(list, N, "/data/x"), -1);
	/* an unmounted journal has no mount point to match "" against */
	assert_int_equal(jt_ctl_find(list, N, ""), -1);
	assert_int_equal(jt_ctl_find(list, N, NULL), -1);
	assert_int_equal(jt_ctl_find(list, 0, "vda-8"), -1);
}

static void test_left(void **state)
{
	char b[32];
	const uint64_t s = 1000000, now = 1700000000ULL * s;

	(void)state;
	jt_ctl_fmt_left(now, 0, b, sizeof(b));
	assert_string_equal(b, "-");
	jt_ctl_fmt_left(now, now, b, sizeof(b));
	assert_string_equal(b, "-");
	jt_ctl_fmt_left(now, now - 5 * s, b, sizeof(b));
	assert_string_equal(b, "-");
	jt_ctl_fmt_left(now, now + 1, b, sizeof(b));		/* rounds up: a deadline */
	assert_string_equal(b, "1s");
	jt_ctl_fmt_left(now, now + 59 * s, b, sizeof(b));
	assert_string_equal(b, "59s");
	jt_ctl_fmt_left(now, now + 252 * s, b, sizeof(b));
	assert_string_equal(b, "4m12s");
	jt_ctl_fmt_left(now, now + 7500 * s, b, sizeof(b));
	assert_string_equal(b, "2h05m");
	jt_ctl_fmt_left(now, now + 300 * s, b, 4);		/* truncated, terminated */
	assert_string_equal(b, "5m0");
}

static void test_ago(void **state)
{
	char b[32];
	const uint64_t s = 1000000, now = 1700000000ULL * s;

	(void)state;
	jt_ctl_fmt_ago(now, 0, b, sizeof(b));
	assert_string_equal(b, "-");
	jt_ctl_fmt_ago(now, now - 12 * s, b, sizeof(b));
	assert_string_equal(b, "12s ago");
	jt_ctl_fmt_ago(now, now - 185 * s, b, sizeof(b));
	assert_string_equal(b, "3m ago");
	jt_ctl_fmt_ago(now, now - 5 * 3600 * s, b, sizeof(b));
	assert_string_equal(b, "5h ago");
	jt_ctl_fmt_ago(now, now - 49 * 3600 * s, b, sizeof(b));
	assert_string_equal(b, "2d ago");
	jt_ctl_fmt_ago(now, now + 3 * s, b, sizeof(b));	/* clock skew: not negative */
	assert_string_equal(b, "0s ago");
}

static void test_knob(void **state)
{
	char b[32];

	(void)state;
	jt_ctl_fmt_knob("auto", 1, NULL, b, sizeof(b));
	assert_string_equal(b, "auto 1");
	jt_ctl_fmt_knob("on", 50, "%", b, sizeof(b));
	assert_string_equal(b, "on 50%");
	jt_ctl_fmt_knob("manual", 0, NULL, b, sizeof(b));
	assert_string_equal(b, "manual 0");
	jt_ctl_fmt_knob(NULL, 0, "%", b, sizeof(b));
	assert_string_equal(b, "? 0%");
}

/* what fn wrote to a memory stream */
static char *capture_string(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	jt_ctl_json_string(f, s);
	fclose(f);
	return buf;
}

static void test_json_string(void **state)
{
	char *out;

	(void)state;
	out = capture_string("vda-8: force_copy 0->1: p99 41.9 ms > 10 ms");
	assert_string_equal(out, "\"vda-8: force_copy 0->1: p99 41.9 ms > 10 ms\"");
	free(out);
	out = capture_string("a \"quoted\" back\\slash\nnew\tline\x01");
	assert_string_equal(out, "\"a \\\"quoted\\\" back\\\\slash\\nnew\\tline\\u0001\"");
	free(out);
	out = capture_string("µs");		/* UTF-8 passes through */
	assert_string_equal(out, "\"µs\"");
	free(out);
	out = capture_string(NULL);
	assert_string_equal(out, "\"\"");
	free(out);
}

static void test_json_double(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	jt_ctl_json_double(f, 2.5);
	fputc(' ', f);
	jt_ctl_json_double(f, 0.0 / 0.0);
	fputc(' ', f);
	jt_ctl_json_double(f, 1.0 / 0.0);
	fclose(f);
	assert_string_equal(buf, "2.5 null null");
	free(buf);
}

/* make DIR/REL (and its parents) a directory, or a file when @file */
static void mk(const char *dir, const char *rel, int file)
{
	char p[1024], cmd[1100];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), file ? "mkdir -p \"$(dirname '%s')\" && touch '%s'" :
		 "mkdir -p '%s'%.0s", p, p);
	assert_int_equal(system(cmd), 0);
}

static void test_module_state(void **state)
{
	char root[] = "/tmp/jt-test-tunectl.XXXXXX", why[512], cmd[64], path[256];
	const char *k = "6.1.0-57-amd64";

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(jt_ctl_module_state(root, k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no jbd2 module is loaded"));

	mk(root, "sys/module/jbd2/parameters", 0);	/* the stock module: no force_copy_default */
	assert_int_equal(jt_ctl_module_state(root, k, why, sizeof(why)), 0);
	assert_string_equal(why, "neither jbd2-tune-modules-6.1.0-57-amd64 nor jbd2-tune-dkms is installed");

	/* a prebuilt module package's jbd2.ko, no DKMS source: reboot */
	mk(root, "lib/modules/6.1.0-57-amd64/updates/dkms/jbd2.ko", 1);
	assert_int_equal(jt_ctl_module_state(root, k, why, sizeof(why)), 0);
	assert_string_equal(why, "jbd2.ko is installed for 6.1.0-57-amd64 but the stock one was loaded: reboot, or if that does not help update-initramfs -u -k 6.1.0-57-amd64 (the initramfs loads jbd2 when / is ext4)");
	assert_int_equal(unlink(strcat(strcpy(path, root), "/lib/modules/6.1.0-57-amd64/updates/dkms/jbd2.ko")), 0);

	mk(root, "usr/src/jbd2-tune-0.1/patches/6.1/series", 1);
	mk(root, "usr/src/jbd2-tune-0.1/patches/6.12/series", 1);
	assert_int_equal(jt_ctl_module_state(root, "6.5.0-1-amd64", why, sizeof(why)), 0);
	assert_string_equal(why, "kernel 6.5.0-1-amd64: series 6.5 has no patches (supported: 6.1 6.12), so the stock jbd2 stays");
	/* 6.1 is not 6.12's prefix and the reverse */
	assert_int_equal(jt_ctl_module_state(root, "6.11.2-amd64", why, sizeof(why)), 0);
	assert_non_null(strstr(why, "series 6.11 has no patches"));

	assert_int_equal(jt_ctl_module_state(root, k, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no headers for 6.1.0-57-amd64 (apt install linux-headers-6.1.0-57-amd64)"));

	mk(root, "lib/modules/6.1.0-57-amd64/build", 0);
	assert_int_equal(jt_ctl_module_state(root, k, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "the DKMS build for 6.1.0-57-amd64 failed or did not run"));

	mk(root, "lib/modules/6.1.0-57-amd64/updates/dkms/jbd2.ko.xz", 1);
	assert_int_equal(jt_ctl_module_state(root, k, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "installed for 6.1.0-57-amd64 but the stock one was loaded"));

	mk(root, "sys/module/jbd2/parameters/force_copy_default", 1);
	assert_int_equal(jt_ctl_module_state(root, k, why, sizeof(why)), 1);
	assert_string_equal(why, "");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_by_name_and_mount),
		cmocka_unit_test(test_left),
		cmocka_unit_test(test_ago),
		cmocka_unit_test(test_knob),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_json_double),
		cmocka_unit_test(test_module_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
