// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the configfs adapter (configfs.c) on a fake tree in a temp
 * directory: value parsing, a full read, junk, a vanished group, writes,
 * which files a read after an earlier sample skips, and a group of an older
 * module (no commit statistics, no reclaim limits, no logged_blocks).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "configfs.h"

static char root[256];

static void put(const char *journal, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", root, journal, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The file @rel under the root holds exactly @text (one line). */
static void assert_file_holds(const char *rel, const char *text)
{
	char path[512], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, text);
}

#define ZERO_HIST "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"

/* A group as the first module release has it: three kinds of wait. */
static void make_old_journal(const char *name)
{
	static const char *const files[] = {
		"force_copy", "reclaim_watermark_pct", "log_blocks", "free_blocks",
		"max_transaction_blocks", "copyouts_forced", "reclaim_runs", "reclaim_blocks",
		"shadow_waits", "shadow_wait_us", "shadow_wait_max_us",
		"space_waits", "space_wait_us", "space_wait_max_us",
		"locked_waits", "locked_wait_us", "locked_wait_max_us",
	};
	char path[512];
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	mkdir(path, 0755);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put(name, files[i], "0\n");
	put(name, "shadow_wait_hist", ZERO_HIST);
	put(name, "space_wait_hist", ZERO_HIST);
	put(name, "locked_wait_hist", ZERO_HIST);
}

/* A group of the current module: also commit waits, commits, the reclaim limits, lock delay. */
static void make_journal(const char *name)
{
	static const char *const files[] = {
		"commit_waits", "commit_wait_us", "commit_wait_max_us",
		"commits", "commit_time_us", "commit_time_max_us",
		"shadow_waits_avoided", "shadow_wait_avoided_us",
		"locked_waits_avoided", "locked_wait_avoided_us",
	};
	size_t i;

	make_old_journal(name);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put(name, files[i], "0\n");
	put(name, "commit_wait_hist", ZERO_HIST);
	put(name, "commit_time_hist", ZERO_HIST);
	put(name, "reclaim_watermark_min_pct", "26\n");
	put(name, "reclaim_watermark_max_pct", "75\n");
	put(name, "logged_blocks", "0\n");
	put(name, "lock_delay_max_ms", "0\n");
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/jt-test-configfs.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[400];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_parse_u64(void **state)
{
	static const struct { const char *text; int r; uint64_t v; } cases[] = {
		{ "0\n", 0, 0 }, { "42", 0, 42 }, { "  7 \n", 0, 7 },
		{ "18446744073709551615\n", 0, UINT64_MAX },
		{ "18446744073709551616\n", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "\n", -EINVAL, 0 },
		{ "-1\n", -EINVAL, 0 }, { "+1\n", -EINVAL, 0 }, { "12abc\n", -EINVAL, 0 },
		{ "1 2\n", -EINVAL, 0 }, { "0x10\n", -EINVAL, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;

		assert_int_equal(jt_parse_u64(cases[i].text, &v), cases[i].r);
		assert_true(v == (cases[i].r == 0 ? cases[i].v : 12345));
	}
}

static void test_read_list_write(void **state)
{
	struct jt_sample s, s2;
	char **names = NULL;

	(void)state;
	make_journal("vdb-12");
	make_journal("vda-8");
	put("vda-8", "force_copy", "1\n");
	put("vda-8", "reclaim_watermark_pct", "25\n");
	put("vda-8", "free_blocks", "1234\n");
	put("vda-8", "space_waits", "3\n");
	put("vda-8", "shadow_wait_hist", "1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 9\n");
	put("vda-8", "locked_wait_max_us", "777\n");
	put("vda-8", "commit_waits", "12\n");
	put("vda-8", "commit_wait_us", "3456\n");
	put("vda-8", "commit_wait_hist", "0 0 0 0 0 0 0 0 12 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put("vda-8", "commits", "4\n");
	put("vda-8", "commit_time_max_us", "999\n");
	put("vda-8", "commit_time_hist", "0 0 0 0 0 0 0 0 0 4 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put("vda-8", "reclaim_watermark_min_pct", "34\n");
	put("vda-8", "reclaim_watermark_max_pct", "67\n");
	put("vda-8", "logged_blocks", "51319\n");
	put("vda-8", "lock_delay_max_ms", "5000\n");

	assert_int_equal(jt_configfs_list(root, &names), 0);
	assert_string_equal(names[0], "vda-8");	/* sorted */
	assert_string_equal(names[1], "vdb-12");
	assert_null(names[2]);
	jt_strv_free(names);

	assert_int_equal(jt_configfs_read(root, "vda-8", NULL, &s), 0);
	assert_true(s.knob[JT_KNOB_FORCE_COPY] == 1);
	assert_true(s.knob[JT_KNOB_RECLAIM] == 25);
	assert_true(s.free_blocks == 1234);
	assert_true(s.wait[JT_WAIT_SPACE].waits == 3);
	assert_true(s.wait[JT_WAIT_SHADOW].hist[2] == 3 && s.wait[JT_WAIT_SHADOW].hist[23] == 9);
	assert_true(s.wait[JT_WAIT_LOCKED].wait_max_us == 777);
	assert_true(s.has_commit_stats);
	assert_true(s.wait[JT_WAIT_COMMIT].waits == 12 && s.wait[JT_WAIT_COMMIT].wait_us == 3456);
	assert_true(s.wait[JT_WAIT_COMMIT].hist[8] == 12);
	assert_true(s.wait[JT_WAIT_COMMIT_DURATION].waits == 4);
	assert_true(s.wait[JT_WAIT_COMMIT_DURATION].wait_max_us == 999);
	assert_true(s.wait[JT_WAIT_COMMIT_DURATION].hist[9] == 4);
	assert_true(s.has_reclaim_limits);
	assert_true(s.reclaim_watermark_min_pct == 34 && s.reclaim_watermark_max_pct == 67);
	assert_true(s.has_logged_blocks && s.logged_blocks == 51319);
	assert_true(s.has_lock_delay && s.knob[JT_KNOB_LOCK_DELAY] == 5000);

	assert_int_equal(jt_configfs_write_knob(root, "vda-8", JT_KNOB_RECLAIM, 40), 0);
	assert_file_holds("vda-8/reclaim_watermark_pct", "40\n");
	assert_int_equal(jt_configfs_write_knob(root, "vda-8", JT_KNOB_LOCK_DELAY, 100), 0);
	assert_file_holds("vda-8/lock_delay_max_ms", "100\n");
	/* the knob is read at every sample, whatever else stood still */
	assert_int_equal(jt_configfs_read(root, "vda-8", &s, &s2), 0);
	assert_true(s2.knob[JT_KNOB_LOCK_DELAY] == 100);
}

/*
 * With an earlier sample, files that cannot have changed are not read: the
 * fake tree changes them behind the counters' back and the read must still
 * give the earlier values, until the counter or knob that gates them moves.
 */
static void test_read_skips_unchanged(void **state)
{
	struct jt_sample s0, s1, s2, s3;
	char from[512], to[512];

	(void)state;
	make_journal("vdc-1");
	assert_int_equal(jt_configfs_read(root, "vdc-1", NULL, &s0), 0);
	assert_true(s0.source_id != 0);

	put("vdc-1", "free_blocks", "77\n");
	put("vdc-1", "shadow_wait_us", "500\n");
	put("vdc-1", "shadow_wait_hist", "0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put("vdc-1", "copyouts_forced", "9\n");
	put("vdc-1", "reclaim_runs", "4\n");
	put("vdc-1", "commit_wait_us", "600\n");
	put("vdc-1", "commit_time_hist", "0 0 0 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put("vdc-1", "reclaim_watermark_max_pct", "70\n");
	put("vdc-1", "logged_blocks", "300\n");
	put("vdc-1", "shadow_waits_avoided", "4\n");
	put("vdc-1", "shadow_wait_avoided_us", "2000000\n");
	assert_int_equal(jt_configfs_read(root, "vdc-1", &s0, &s1), 0);
	assert_true(s0.has_avoided);
	assert_true(s1.has_avoided && s1.shadow_avoided == 0);	/* force_copy 0 then and now */
	assert_true(s1.free_blocks == 77);			/* always read */
	assert_true(s1.wait[JT_WAIT_SHADOW].wait_us == 0);	/* count unchanged */
	assert_true(s1.wait[JT_WAIT_SHADOW].hist[1] == 0);
	assert_true(s1.copyouts_forced == 0);			/* force_copy 0 then and now */
	assert_true(s1.reclaim_runs == 0);			/* watermark 0 then and now */
	assert_true(s1.wait[JT_WAIT_COMMIT].wait_us == 0);	/* commit waits unchanged */
	assert_true(s1.wait[JT_WAIT_COMMIT_DURATION].hist[3] == 0);	/* commits unchanged */
	assert_true(s1.reclaim_watermark_max_pct == 75);	/* log and max tx unchanged */
	assert_true(s1.has_logged_blocks && s1.logged_blocks == 0);	/* commits unchanged */

	put("vdc-1", "shadow_waits", "5\n");
	put("vdc-1", "force_copy", "1\n");
	put("vdc-1", "reclaim_watermark_pct", "20\n");
	put("vdc-1", "commit_waits", "2\n");
	put("vdc-1", "commits", "7\n");
	put("vdc-1", "max_transaction_blocks", "2048\n");
	assert_int_equal(jt_configfs_read(root, "vdc-1", &s1, &s2), 0);
	assert_true(s2.wait[JT_WAIT_SHADOW].waits == 5);
	assert_true(s2.wait[JT_WAIT_SHADOW].wait_us == 500);
	assert_true(s2.wait[JT_WAIT_SHADOW].hist[1] == 5);
	assert_true(s2.copyouts_forced == 9);
	assert_true(s2.reclaim_runs == 4);
	assert_true(s2.wait[JT_WAIT_COMMIT].waits == 2 && s2.wait[JT_WAIT_COMMIT].wait_us == 600);
	assert_true(s2.wait[JT_WAIT_COMMIT_DURATION].waits == 7);
	assert_true(s2.wait[JT_WAIT_COMMIT_DURATION].hist[3] == 7);
	assert_true(s2.reclaim_watermark_max_pct == 70);	/* max tx changed: read again */
	assert_true(s2.logged_blocks == 300);			/* commits moved: read again */
	assert_true(s2.shadow_avoided == 4 && s2.shadow_avoided_us == 2000000);	/* force_copy 1 */
	assert_true(s2.locked_avoided == 0);			/* lock delay 0 then and now */

	/* the group set up again under the same name: nothing is taken from @prev */
	make_journal("vdc-1.new");
	put("vdc-1.new", "copyouts_forced", "3\n");
	put("vdc-1.new", "space_wait_max_us", "8\n");
	snprintf(from, sizeof(from), "%s/vdc-1.new", root);
	snprintf(to, sizeof(to), "rm -rf '%s/vdc-1'", root);
	assert_int_equal(system(to), 0);
	snprintf(to, sizeof(to), "%s/vdc-1", root);
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(jt_configfs_read(root, "vdc-1", &s1, &s3), 0);
	assert_true(s3.source_id != s1.source_id);
	assert_true(s3.copyouts_forced == 3);
	assert_true(s3.wait[JT_WAIT_SPACE].wait_max_us == 8);
}

/*
 * An older module's group: no commit files, no reclaim limits.  Not an
 * error: has_commit_stats is false and the limits read 0.  Later reads of
 * the same group do not look for the files again.
 */
static void test_older_module(void **state)
{
	struct jt_sample s0, s1;

	(void)state;
	make_old_journal("sdd-5");
	put("sdd-5", "shadow_waits", "3\n");
	assert_int_equal(jt_configfs_read(root, "sdd-5", NULL, &s0), 0);
	assert_false(s0.has_commit_stats);
	assert_true(s0.wait[JT_WAIT_COMMIT].waits == 0 && s0.wait[JT_WAIT_COMMIT_DURATION].waits == 0);
	assert_false(s0.has_reclaim_limits);
	assert_false(s0.has_logged_blocks);
	assert_false(s0.has_lock_delay);
	assert_true(s0.knob[JT_KNOB_LOCK_DELAY] == 0);
	assert_true(s0.wait[JT_WAIT_SHADOW].waits == 3);
	/* files appearing in the same group are not looked for (a group keeps its module) */
	put("sdd-5", "commit_waits", "9\n");
	put("sdd-5", "reclaim_watermark_min_pct", "30\n");
	put("sdd-5", "reclaim_watermark_max_pct", "60\n");
	put("sdd-5", "lock_delay_max_ms", "100\n");
	assert_int_equal(jt_configfs_read(root, "sdd-5", &s0, &s1), 0);
	assert_false(s1.has_commit_stats);
	assert_false(s1.has_lock_delay);
	assert_true(s1.wait[JT_WAIT_COMMIT].waits == 0 && !s1.has_reclaim_limits);
	/* without an earlier sample everything is read */
	put("sdd-5", "commit_wait_us", "0\n");
	put("sdd-5", "commit_wait_max_us", "0\n");
	put("sdd-5", "commit_wait_hist", "0 0 0 0 0 0 0 0 0 9 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put("sdd-5", "commits", "0\n");
	put("sdd-5", "commit_time_us", "0\n");
	put("sdd-5", "commit_time_max_us", "0\n");
	put("sdd-5", "commit_time_hist", ZERO_HIST);
	assert_int_equal(jt_configfs_read(root, "sdd-5", NULL, &s1), 0);
	assert_true(s1.has_commit_stats && s1.wait[JT_WAIT_COMMIT].waits == 9);
	assert_true(s1.has_reclaim_limits);
	assert_true(s1.reclaim_watermark_min_pct == 30 && s1.reclaim_watermark_max_pct == 60);
	assert_false(s1.has_logged_blocks);
}

/*
 * A module with commit statistics but without logged_blocks (the release
 * before it): not an error, has_logged_blocks false, and not looked for
 * again in the same group; a file that appears in a new group is read.
 */
static void test_logged_blocks_absent(void **state)
{
	struct jt_sample s0, s1;
	char path[512];

	(void)state;
	make_journal("sdf-7");
	snprintf(path, sizeof(path), "%s/sdf-7/logged_blocks", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(jt_configfs_read(root, "sdf-7", NULL, &s0), 0);
	assert_true(s0.has_commit_stats && !s0.has_logged_blocks && s0.logged_blocks == 0);
	put("sdf-7", "logged_blocks", "77\n");
	put("sdf-7", "commits", "3\n");
	assert_int_equal(jt_configfs_read(root, "sdf-7", &s0, &s1), 0);
	assert_false(s1.has_logged_blocks);
	assert_int_equal(jt_configfs_read(root, "sdf-7", NULL, &s1), 0);
	assert_true(s1.has_logged_blocks && s1.logged_blocks == 77);
	/* junk in it is an error like in any other file */
	put("sdf-7", "logged_blocks", "many\n");
	assert_int_equal(jt_configfs_read(root, "sdf-7", NULL, &s1), -EINVAL);
}

/*
 * Reclaim limits of 0/0 (journal not loaded yet) are read again every time,
 * since loading changes the log area alone; known ones only when log_blocks
 * or max_transaction_blocks changed.
 */
static void test_reclaim_limits_reread(void **state)
{
	struct jt_sample s0, s1, s2, s3;

	(void)state;
	make_journal("sde-6");
	put("sde-6", "reclaim_watermark_min_pct", "0\n");
	put("sde-6", "reclaim_watermark_max_pct", "0\n");
	assert_int_equal(jt_configfs_read(root, "sde-6", NULL, &s0), 0);
	assert_true(s0.has_reclaim_limits);
	assert_true(s0.reclaim_watermark_min_pct == 0 && s0.reclaim_watermark_max_pct == 0);
	put("sde-6", "reclaim_watermark_min_pct", "30\n");
	put("sde-6", "reclaim_watermark_max_pct", "74\n");
	assert_int_equal(jt_configfs_read(root, "sde-6", &s0, &s1), 0);
	assert_true(s1.reclaim_watermark_min_pct == 30 && s1.reclaim_watermark_max_pct == 74);
	put("sde-6", "reclaim_watermark_min_pct", "31\n");
	assert_int_equal(jt_configfs_read(root, "sde-6", &s1, &s2), 0);
	assert_true(s2.reclaim_watermark_min_pct == 30);		/* known: not read again */
	put("sde-6", "log_blocks", "65536\n");
	assert_int_equal(jt_configfs_read(root, "sde-6", &s2, &s3), 0);
	assert_true(s3.reclaim_watermark_min_pct == 31);		/* log size changed */
}

static void test_junk_and_vanished(void **state)
{
	struct jt_sample s;
	char path[512], **names = NULL;

	(void)state;
	make_journal("sdc-2");
	put("sdc-2", "free_blocks", "lots\n");
	assert_int_equal(jt_configfs_read(root, "sdc-2", NULL, &s), -EINVAL);
	put("sdc-2", "free_blocks", "5\n");
	put("sdc-2", "space_wait_hist", "1 2 3\n");
	assert_int_equal(jt_configfs_read(root, "sdc-2", NULL, &s), -EINVAL);
	put("sdc-2", "space_wait_hist", ZERO_HIST);
	assert_int_equal(jt_configfs_read(root, "sdc-2", NULL, &s), 0);
	/* reclaim limits: junk, or a percentage above 100 */
	put("sdc-2", "reclaim_watermark_max_pct", "many\n");
	assert_int_equal(jt_configfs_read(root, "sdc-2", NULL, &s), -EINVAL);
	put("sdc-2", "reclaim_watermark_max_pct", "101\n");
	assert_int_equal(jt_configfs_read(root, "sdc-2", NULL, &s), -EINVAL);
	put("sdc-2", "reclaim_watermark_max_pct", "75\n");
	put("sdc-2", "commit_time_hist", "1 2\n");
	assert_int_equal(jt_configfs_read(root, "sdc-2", NULL, &s), -EINVAL);
	put("sdc-2", "commit_time_hist", ZERO_HIST);
	assert_int_equal(jt_configfs_read(root, "sdc-2", NULL, &s), 0);
	/* a file gone mid-way (umount) reads as ENOENT */
	snprintf(path, sizeof(path), "%s/sdc-2/locked_waits", root);
	unlink(path);
	assert_int_equal(jt_configfs_read(root, "sdc-2", NULL, &s), -ENOENT);
	assert_int_equal(jt_configfs_read(root, "nosuch-1", NULL, &s), -ENOENT);
	/* a write to a vanished group does not create anything */
	assert_int_equal(jt_configfs_write_knob(root, "nosuch-1", JT_KNOB_FORCE_COPY, 1), -ENOENT);
	snprintf(path, sizeof(path), "%s/nosuch-1", root);
	assert_int_equal(access(path, F_OK), -1);
	/* a missing root: empty list, -ENOENT */
	snprintf(path, sizeof(path), "%s/absent", root);
	assert_int_equal(jt_configfs_list(path, &names), -ENOENT);
	assert_null(names[0]);
	jt_strv_free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_read_list_write),
		cmocka_unit_test(test_junk_and_vanished),
		cmocka_unit_test(test_read_skips_unchanged),
		cmocka_unit_test(test_older_module),
		cmocka_unit_test(test_reclaim_limits_reread),
		cmocka_unit_test(test_logged_blocks_absent),
	};

	return cmocka_run_group_tests_name("configfs", tests, setup, teardown);
}
