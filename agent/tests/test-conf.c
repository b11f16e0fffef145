// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the policy loader (conf.c): a file with every key, each
 * class of error with its exact message, drop-in order, glob and mount
 * sections.  Files are written to a private temp directory.
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

#include "conf.h"

static char dir[256];
static char main_file[300], dropins[300];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/jt-test-conf.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(main_file, sizeof(main_file), "%s/p.conf", dir);
	snprintf(dropins, sizeof(dropins), "%s/p.conf.d", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_every_key(void **state)
{
	struct jt_journal_policy jp;
	struct jt_policy p;
	char err[512];

	(void)state;
	write_file(main_file,
		   "; comment\n"
		   "# another\n"
		   "[agent]\n"
		   "interval_ms = 250          ; 100..60000\n"
		   "window_s = 60\n"
		   "restore_on_exit = false\n"
		   "metrics_file = /run/jbd2-tuned.prom\n"
		   "\n"
		   "[defaults]\n"
		   "force_copy = on\n"
		   "force_copy_on_p99_ms = 20\n"
		   "force_copy_min_waits = 5\n"
		   "force_copy_hold_s = 600\n"
		   "reclaim = off\n"
		   "reclaim_watermark_pct = 30\n"
		   "reclaim_min_pct = 15\n"
		   "reclaim_max_pct = 70\n"
		   "outcome_margin_pct = 15\n"
		   "outcome_min_waits = 50\n"
		   "outcome_backoff_s = 120\n"
		   "advice_windows = 5\n"
		   "[journal vda-8]            ; one journal\n"
		   "force_copy = auto\n"
		   "outcome_margin_pct = 25\n"
		   "advice_windows = 0\n"
		   "lock_delay = on\n"
		   "lock_delay_ms = 100\n");
	assert_int_equal(jt_policy_load(main_file, NULL, &p, err, sizeof(err)), 0);
	assert_int_equal(p.agent.interval_ms, 250);
	assert_int_equal(p.agent.window_s, 60);
	assert_false(p.agent.restore_on_exit);
	assert_string_equal(p.agent.metrics_file, "/run/jbd2-tuned.prom");
	assert_int_equal(p.defaults.force_copy, JT_MODE_ON);
	assert_int_equal(p.defaults.force_copy_on_p99_ms, 20);
	assert_int_equal(p.defaults.force_copy_min_waits, 5);
	assert_int_equal(p.defaults.force_copy_hold_s, 600);
	assert_int_equal(p.defaults.reclaim, JT_MODE_OFF);
	assert_int_equal(p.defaults.reclaim_watermark_pct, 30);
	assert_int_equal(p.defaults.reclaim_min_pct, 15);
	assert_int_equal(p.defaults.reclaim_max_pct, 70);
	assert_int_equal(p.defaults.outcome_margin_pct, 15);
	assert_int_equal(p.defaults.outcome_min_waits, 50);
	assert_int_equal(p.defaults.outcome_backoff_s, 120);
	assert_int_equal(p.defaults.advice_windows, 5);
	assert_int_equal(p.n_sections, 1);
	assert_string_equal(p.sections[0].pattern, "vda-8");
	assert_int_equal(p.sections[0].line, 22);
	assert_int_equal(p.n_files, 1);
	/* a section overrides the outcome keys it names, and only those */
	jt_policy_resolve(&p, "vda-8", NULL, &jp);
	assert_int_equal(jp.outcome_margin_pct, 25);
	assert_int_equal(jp.outcome_min_waits, 50);
	assert_int_equal(jp.outcome_backoff_s, 120);
	assert_int_equal(jp.advice_windows, 0);		/* 0 is in range: advice off */
	assert_int_equal(jp.lock_delay, JT_MODE_ON);
	assert_int_equal(jp.lock_delay_ms, 100);
	jt_policy_resolve(&p, "vdb-8", NULL, &jp);
	assert_int_equal(jp.advice_windows, 5);
	assert_int_equal(jp.lock_delay, JT_MODE_OFF);	/* the built-in default */
	assert_int_equal(jp.lock_delay_ms, 1000);
	jt_policy_free(&p);
}

static void test_empty_file_gives_defaults(void **state)
{
	struct jt_policy p;
	char err[512];

	(void)state;
	write_file(main_file, "");
	assert_int_equal(jt_policy_load(main_file, NULL, &p, err, sizeof(err)), 0);
	assert_int_equal(p.agent.interval_ms, 1000);
	assert_int_equal(p.agent.window_s, 30);
	assert_true(p.agent.restore_on_exit);
	assert_false(p.agent.dry_run);
	assert_null(p.agent.metrics_file);
	assert_int_equal(p.defaults.force_copy, JT_MODE_AUTO);
	assert_int_equal(p.defaults.force_copy_on_p99_ms, 10);
	assert_int_equal(p.defaults.force_copy_min_waits, 10);
	assert_int_equal(p.defaults.force_copy_hold_s, 300);
	assert_int_equal(p.defaults.reclaim, JT_MODE_AUTO);
	assert_int_equal(p.defaults.reclaim_watermark_pct, 50);
	assert_int_equal(p.defaults.reclaim_min_pct, 35);
	assert_int_equal(p.defaults.reclaim_max_pct, 70);
	assert_int_equal(p.defaults.outcome_margin_pct, 15);
	assert_int_equal(p.defaults.outcome_min_waits, 10);
	assert_int_equal(p.defaults.outcome_backoff_s, 300);
	assert_int_equal(p.defaults.advice_windows, 3);
	assert_int_equal(p.defaults.stall_budget_ms_per_s, 10);
	assert_int_equal(p.defaults.stall_bound_ms, 1000);
	assert_int_equal(p.defaults.stall_wait_min_ms, 10);
	assert_int_equal(p.defaults.trial_block_s, 5);
	assert_int_equal(p.defaults.trial_min_pairs, 3);
	assert_int_equal(p.defaults.trial_max_pairs, 10);
	assert_int_equal(p.defaults.recheck_s, 600);
	assert_int_equal(p.defaults.lock_delay, JT_MODE_OFF);
	assert_int_equal(p.defaults.lock_delay_ms, 1000);
	jt_policy_free(&p);
}

struct err_case {
	const char *name;
	const char *text;
	const char *want;	/* "%s" stands for the file name */
};

static const struct err_case err_cases[] = {
	{ "unknown section", "[agent]\ninterval_ms = 100\n[foo]\n",
	  "%s:3: foo: unknown section (expected agent, defaults, journal NAME or mount PATH)" },
	{ "unknown empty section", "[defaultz]\n",
	  "%s:1: defaultz: unknown section (expected agent, defaults, journal NAME or mount PATH)" },
	{ "unknown key", "[agent]\nbogus = 1\n", "%s:2: bogus: unknown key in [agent]" },
	{ "journal key in [agent]", "[agent]\nforce_copy = on\n",
	  "%s:2: force_copy: unknown key in [agent]" },
	{ "unknown journal key", "[journal vda-8]\nforce_copy_on = 1\n",
	  "%s:2: force_copy_on: unknown key" },
	{ "bad boolean", "[agent]\nrestore_on_exit = maybe\n",
	  "%s:2: restore_on_exit: 'maybe' is not a boolean (true or false)" },
	{ "number below range", "[agent]\ninterval_ms = 50\n",
	  "%s:2: interval_ms: '50' is out of range 100..60000" },
	{ "number above range", "\n[defaults]\nreclaim_max_pct = 91\n",
	  "%s:3: reclaim_max_pct: '91' is out of range 1..90" },
	{ "margin of 0", "[defaults]\noutcome_margin_pct = 0\n",
	  "%s:2: outcome_margin_pct: '0' is out of range 1..1000" },
	{ "back-off above an hour", "[mount /x]\noutcome_backoff_s = 3601\n",
	  "%s:2: outcome_backoff_s: '3601' is out of range 1..3600" },
	{ "advice windows above range", "[journal sd*]\nadvice_windows = 1001\n",
	  "%s:2: advice_windows: '1001' is out of range 0..1000" },
	{ "outcome key in [agent]", "[agent]\noutcome_min_waits = 5\n",
	  "%s:2: outcome_min_waits: unknown key in [agent]" },
	{ "huge number", "[agent]\nwindow_s = 99999999999999999999999\n",
	  "%s:2: window_s: '99999999999999999999999' is out of range 1..3600" },
	{ "number with junk", "[agent]\nwindow_s = 30s\n", "%s:2: window_s: '30s' is not a number" },
	{ "negative number", "[agent]\nwindow_s = -1\n", "%s:2: window_s: '-1' is not a number" },
	{ "empty number", "[agent]\nwindow_s =\n",
	  "%s:2: window_s: empty value (expected a number 1..3600)" },
	{ "bad mode", "[defaults]\nforce_copy = sometimes\n",
	  "%s:2: force_copy: 'sometimes' is not one of on, off, auto" },
	{ "bad lock_delay mode", "[journal vda-8]\nlock_delay = 100\n",
	  "%s:2: lock_delay: '100' is not one of on, off, auto" },
	{ "lock delay of 0 ms", "[defaults]\nlock_delay = on\nlock_delay_ms = 0\n",
	  "%s:3: lock_delay_ms: '0' is out of range 1..10000" },
	{ "lock delay above the kernel's", "[mount /x]\nlock_delay_ms = 10001\n",
	  "%s:2: lock_delay_ms: '10001' is out of range 1..10000" },
	{ "lock_delay in [agent]", "[agent]\nlock_delay = auto\n",
	  "%s:2: lock_delay: unknown key in [agent]" },
	{ "key outside a section", "force_copy = on\n", "%s:1: force_copy: key outside of any section" },
	{ "syntax error", "[agent]\nthis is not ini\n",
	  "%s:2: (syntax): expected 'key = value' or '[section]'" },
	{ "journal without a name", "[journal]\n",
	  "%s:1: journal: section needs an argument: [journal NAME-or-glob]" },
	{ "relative mount path", "[mount data]\n", "%s:1: mount: 'data' is not an absolute path" },
	{ "relative metrics file", "[agent]\nmetrics_file = x.prom\n",
	  "%s:2: metrics_file: 'x.prom' is not an absolute path" },
	{ "min above max in defaults", "[defaults]\nreclaim_min_pct = 50\nreclaim_max_pct = 40\n",
	  "%s:3: reclaim_min_pct: 50 is above reclaim_max_pct 40" },
	{ "min above max in a section", "[journal sd*]\n\nreclaim_min_pct = 75\n",
	  "%s:1: reclaim_min_pct: 75 is above reclaim_max_pct 70 in [journal sd*]" },
};

static void test_errors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		struct jt_policy p;
		char err[512], want[512];

		memset(&p, 0x5a, sizeof(p));
		write_file(main_file, err_cases[i].text);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(want, sizeof(want), err_cases[i].want, main_file);
#pragma GCC diagnostic pop
		print_message("# %s\n", err_cases[i].name);
		assert_int_equal(jt_policy_load(main_file, NULL, &p, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, want);
		assert_true(p.sections == (void *)0x5a5a5a5a5a5a5a5aULL);	/* untouched */
	}
}

static void test_missing_file(void **state)
{
	struct jt_policy p;
	char err[512], want[512], missing[400];

	(void)state;
	snprintf(missing, sizeof(missing), "%s/nope.conf", dir);
	assert_int_equal(jt_policy_load(missing, NULL, &p, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory", missing);
	assert_string_equal(err, want);
}

static void test_unreadable_dropin_dir(void **state)
{
	struct jt_policy p;
	char err[512], want[512];

	(void)state;
	write_file(main_file, "[agent]\n");
	write_file(dropins, "not a directory\n");
	assert_int_equal(jt_policy_load(main_file, dropins, &p, err, sizeof(err)), -ENOTDIR);
	snprintf(want, sizeof(want), "%s: cannot read drop-in directory: Not a directory", dropins);
	assert_string_equal(err, want);
	unlink(dropins);
}

static void test_dropin_order(void **state)
{
	struct jt_policy p;
	char err[512], path[400];

	(void)state;
	mkdir(dropins, 0755);
	write_file(main_file, "[agent]\nwindow_s = 30\ninterval_ms = 500\n[defaults]\nreclaim = off\n");
	snprintf(path, sizeof(path), "%s/20-b.conf", dropins);
	write_file(path, "[agent]\nwindow_s = 7\n");
	snprintf(path, sizeof(path), "%s/10-a.conf", dropins);
	write_file(path, "[agent]\nwindow_s = 5\n[defaults]\nreclaim = on\n");
	snprintf(path, sizeof(path), "%s/30-c.conf.disabled", dropins);	/* ignored */
	write_file(path, "[agent]\nwindow_s = 99\n");
	snprintf(path, sizeof(path), "%s/.hidden.conf", dropins);		/* ignored */
	write_file(path, "[agent]\nwindow_s = 98\n");
	assert_int_equal(jt_policy_load(main_file, dropins, &p, err, sizeof(err)), 0);
	assert_int_equal(p.agent.window_s, 7);		/* 20-b after 10-a after main */
	assert_int_equal(p.agent.interval_ms, 500);	/* untouched keys stay */
	assert_int_equal(p.defaults.reclaim, JT_MODE_ON);
	assert_int_equal(p.n_files, 3);
	assert_string_equal(p.files[0], main_file);
	assert_non_null(strstr(p.files[1], "10-a.conf"));
	assert_non_null(strstr(p.files[2], "20-b.conf"));
	jt_policy_free(&p);

	/* an error in a drop-in names the drop-in */
	snprintf(path, sizeof(path), "%s/15-bad.conf", dropins);
	write_file(path, "[agent]\n\nwindow_s = 0\n");
	assert_int_equal(jt_policy_load(main_file, dropins, &p, err, sizeof(err)), -EINVAL);
	{
		char want[512];

		snprintf(want, sizeof(want), "%s:3: window_s: '0' is out of range 1..3600", path);
		assert_string_equal(err, want);
	}
	unlink(path);
	/* a missing drop-in directory is fine */
	snprintf(path, sizeof(path), "%s/none.d", dir);
	assert_int_equal(jt_policy_load(main_file, path, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n_files, 1);
	jt_policy_free(&p);
}

struct resolve_case {
	const char *journal;
	const char *mount;	/* or NULL */
	enum jt_mode force_copy, reclaim;
	unsigned int hold_s, max_pct;
};

static void test_glob_and_mount_sections(void **state)
{
	static const struct resolve_case cases[] = {
		{ "sda1-8", NULL, JT_MODE_AUTO, JT_MODE_AUTO, 300, 70 },	/* defaults */
		{ "vda1-8", NULL, JT_MODE_OFF, JT_MODE_AUTO, 300, 70 },	/* [journal vd*] */
		{ "vdb-8", NULL, JT_MODE_OFF, JT_MODE_AUTO, 120, 70 },	/* + [journal vdb-8] */
		{ "sda1-8", "/data", JT_MODE_ON, JT_MODE_ON, 300, 80 },	/* [mount /data] */
		{ "vdb-8", "/data", JT_MODE_ON, JT_MODE_ON, 120, 80 },	/* later section wins */
		{ "sda1-8", "/data2", JT_MODE_AUTO, JT_MODE_AUTO, 300, 70 },
	};
	struct jt_policy p;
	char err[512];
	size_t i;

	(void)state;
	write_file(main_file,
		   "[journal vd*]\nforce_copy = off\n"
		   "[journal vdb-8]\nforce_copy_hold_s = 120\n"
		   "[mount /data]\nforce_copy = on\nreclaim = on\nreclaim_max_pct = 80\n");
	assert_int_equal(jt_policy_load(main_file, NULL, &p, err, sizeof(err)), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *mounts[] = { "/other", cases[i].mount, NULL };
		struct jt_journal_policy jp;

		jt_policy_resolve(&p, cases[i].journal, mounts, &jp);
		print_message("# %s on %s\n", cases[i].journal, cases[i].mount ? cases[i].mount : "-");
		assert_int_equal(jp.force_copy, cases[i].force_copy);
		assert_int_equal(jp.reclaim, cases[i].reclaim);
		assert_int_equal(jp.force_copy_hold_s, cases[i].hold_s);
		assert_int_equal(jp.reclaim_max_pct, cases[i].max_pct);
	}
	jt_policy_free(&p);
}

/* [agent] dry_run: off by default, a boolean, a drop-in can turn it on. */
/* every key the files know reads back as the policy holds it (D-Bus Policy, jbd2-tunectl show) */
static void test_policy_value_of_every_key(void **state)
{
	struct jt_journal_policy jp;
	struct jt_policy p;
	char err[512], v[32];
	unsigned int k, named = 0;

	(void)state;
	write_file(main_file, "[defaults]\ntrial_block_s = 7\nrecheck_s = 900\nstall_bound_ms = 800\n");
	assert_int_equal(jt_policy_load(main_file, NULL, &p, err, sizeof(err)), 0);
	jt_policy_resolve(&p, "vda-8", NULL, &jp);
	for (k = 0; k < JT_KEYS; k++) {
		if (!jt_key_name((enum jt_key)k))
			continue;
		named++;
		jt_journal_policy_value(&jp, (enum jt_key)k, v, sizeof(v));
		if (v[0] == '\0')
			fail_msg("key %s has no value", jt_key_name((enum jt_key)k));
	}
	assert_true(named >= 21);
	jt_journal_policy_value(&jp, JT_KEY_TRIAL_BLOCK_S, v, sizeof(v));
	assert_string_equal(v, "7");
	jt_journal_policy_value(&jp, JT_KEY_RECHECK_S, v, sizeof(v));
	assert_string_equal(v, "900");
	jt_journal_policy_value(&jp, JT_KEY_STALL_BOUND_MS, v, sizeof(v));
	assert_string_equal(v, "800");
	jt_journal_policy_value(&jp, JT_KEY_LOCK_DELAY, v, sizeof(v));
	assert_string_equal(v, "off");
	jt_journal_policy_value(&jp, JT_KEY_LOCK_DELAY_MS, v, sizeof(v));
	assert_string_equal(v, "1000");
	jt_policy_free(&p);
}

static void test_dry_run(void **state)
{
	char path[400];
	struct jt_policy p;
	char err[512];

	(void)state;
	write_file(main_file, "[agent]\ndry_run = false\n");
	assert_int_equal(jt_policy_load(main_file, NULL, &p, err, sizeof(err)), 0);
	assert_false(p.agent.dry_run);
	jt_policy_free(&p);

	mkdir(dropins, 0755);
	snprintf(path, sizeof(path), "%s/10-observe.conf", dropins);
	write_file(path, "[agent]\ndry_run = true\n");
	assert_int_equal(jt_policy_load(main_file, dropins, &p, err, sizeof(err)), 0);
	assert_true(p.agent.dry_run);
	jt_policy_free(&p);
	unlink(path);
	rmdir(dropins);

	write_file(main_file, "[agent]\ndry_run = sometimes\n");
	assert_int_equal(jt_policy_load(main_file, NULL, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2: dry_run: 'sometimes' is not a boolean"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_dry_run),
		cmocka_unit_test(test_policy_value_of_every_key),
		cmocka_unit_test(test_empty_file_gives_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_unreadable_dropin_dir),
		cmocka_unit_test(test_dropin_order),
		cmocka_unit_test(test_glob_and_mount_sections),
	};

	return cmocka_run_group_tests_name("conf", tests, setup, teardown);
}
