// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the journal-size advice (advice.c): the size arithmetic,
 * what "at the top" means per mode and kernel, and sequences of samples
 * (interval 1 s, window 3 s, advice_windows 3) through jt_advice_step():
 * the advice appears after three windows of space waits at the top, not
 * below it, not without waits; it is said once, again only when it grows;
 * it is withdrawn after quiet windows, when turned off or when the journal
 * changed size; and the text names the commands only where they apply.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "advice.h"

/* the shipped reclaim policy, with advice after 3 windows */
static const struct jt_journal_policy RC_SHIPPED = {
	.force_copy = JT_MODE_OFF, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 300, .reclaim = JT_MODE_AUTO, .reclaim_watermark_pct = 50,
	.reclaim_min_pct = 35, .reclaim_max_pct = 70, .outcome_margin_pct = 10,
	.outcome_min_waits = 10, .outcome_backoff_s = 300, .advice_windows = 3,
};

static const struct jt_timing T = { .interval_us = 1000000, .window_us = 3000000 };

/* --- jt_advice_size ------------------------------------------------------- */

static void test_size_arithmetic(void **state)
{
	struct jt_fs_info fs = { .block_size = 4096, .free_blocks = 1000000 };
	struct jt_advice_size z;

	(void)state;
	/* 9000 × 4096 / 3072 = 12000 blocks = 46.9 MiB -> 64 MiB = 16384 blocks */
	assert_int_equal(jt_advice_size(9000, 4096, 1024, &fs, &z), 0);
	assert_true(z.needed_blocks == 12000);
	assert_true(z.size_mib == 64 && z.size_blocks == 16384);
	assert_true(z.limit_blocks == (1000000 + 4096) / 2 && !z.too_large);
	/* a peak below the room: twice the journal, 4 MiB of 1 KiB blocks -> 8 MiB */
	fs = (struct jt_fs_info){ .block_size = 1024, .free_blocks = 200000 };
	assert_int_equal(jt_advice_size(1500, 4096, 1024, &fs, &z), 0);
	assert_true(z.needed_blocks == 2000);
	assert_true(z.size_mib == 8 && z.size_blocks == 8192 && !z.too_large);
	/* 6.12's threshold of a third: 2731 above it, a peak of 2732 needs 4098 */
	assert_int_equal(jt_advice_size(2732, 4096, 1365, &fs, &z), 0);
	assert_true(z.needed_blocks == 4098 && z.size_mib == 8);
	/* just above twice the journal: the next power of two */
	assert_int_equal(jt_advice_size(6200, 4096, 1024, &fs, &z), 0);
	assert_true(z.needed_blocks == 8267 && z.size_mib == 16 && z.size_blocks == 16384);
	/* block size unknown: in blocks, 12000 -> 16384 */
	assert_int_equal(jt_advice_size(9000, 4096, 1024, NULL, &z), 0);
	assert_true(z.size_blocks == 16384 && z.size_mib == 0);
	assert_true(z.limit_blocks == JT_JOURNAL_MAX_BLOCKS && !z.too_large);
	/* too large for the file system: 266667 blocks -> 512 MiB, half of (100000 + 4096) free */
	fs = (struct jt_fs_info){ .block_size = 1024, .free_blocks = 100000 };
	assert_int_equal(jt_advice_size(200000, 4096, 1024, &fs, &z), 0);
	assert_true(z.needed_blocks == 266667 && z.size_mib == 512 && z.size_blocks == 524288);
	assert_true(z.limit_blocks == 52048 && z.too_large);
	/* too large for e2fsprogs: 2^18 MiB of 4 KiB blocks is 67108864 blocks */
	fs = (struct jt_fs_info){ .block_size = 4096, .free_blocks = 1ULL << 40 };
	assert_int_equal(jt_advice_size(30000000, 4096, 1024, &fs, &z), 0);
	assert_true(z.size_mib == 262144 && z.limit_blocks == JT_JOURNAL_MAX_BLOCKS && z.too_large);
	/* nonsense sizes */
	assert_int_equal(jt_advice_size(10, 4096, 4096, &fs, &z), -EINVAL);
	assert_int_equal(jt_advice_size(10, 0, 0, &fs, &z), -EINVAL);
}

/* --- jt_advice_at_top ----------------------------------------------------- */

static void test_at_top(void **state)
{
	struct jt_journal_policy on = RC_SHIPPED, aut = RC_SHIPPED;
	struct jt_journal_state st;
	struct jt_sample s;

	(void)state;
	on.reclaim = JT_MODE_ON;
	memset(&st, 0, sizeof(st));
	st.knob[JT_KNOB_RECLAIM].seen = true;
	st.knob[JT_KNOB_RECLAIM].managed = true;
	memset(&s, 0, sizeof(s));
	s.has_reclaim_limits = true;
	/* 6.1, 4096 blocks: the kernel accepts 30..74, auto's range is 35..70 */
	s.reclaim_watermark_min_pct = 30;
	s.reclaim_watermark_max_pct = 74;
	s.knob[JT_KNOB_RECLAIM] = 70;
	assert_true(jt_advice_at_top(&aut, &st, &s));
	s.knob[JT_KNOB_RECLAIM] = 65;
	assert_false(jt_advice_at_top(&aut, &st, &s));
	s.knob[JT_KNOB_RECLAIM] = 74;		/* the kernel's highest: in any mode */
	assert_true(jt_advice_at_top(&aut, &st, &s));
	assert_true(jt_advice_at_top(&on, &st, &s));
	s.knob[JT_KNOB_RECLAIM] = 70;		/* on: only the kernel's highest is the top */
	assert_false(jt_advice_at_top(&on, &st, &s));
	st.knob[JT_KNOB_RECLAIM].managed = false;	/* an administrator's value */
	assert_false(jt_advice_at_top(&aut, &st, &s));
	st.knob[JT_KNOB_RECLAIM].managed = true;
	/* 6.12: 39..65, auto's top is 65 */
	s.reclaim_watermark_min_pct = 39;
	s.reclaim_watermark_max_pct = 65;
	s.knob[JT_KNOB_RECLAIM] = 65;
	assert_true(jt_advice_at_top(&aut, &st, &s));
	/* off, and a journal that accepts no watermark */
	s.knob[JT_KNOB_RECLAIM] = 0;
	assert_false(jt_advice_at_top(&aut, &st, &s));
	s.reclaim_watermark_min_pct = s.reclaim_watermark_max_pct = 0;
	s.knob[JT_KNOB_RECLAIM] = 70;
	assert_false(jt_advice_at_top(&aut, &st, &s));
	/* an older module without limits: the policy's own top */
	s.has_reclaim_limits = false;
	assert_true(jt_advice_at_top(&aut, &st, &s));
	/* an on-block of a watermark trial is not the top tried, in any mode */
	s.has_reclaim_limits = true;
	s.reclaim_watermark_min_pct = 30;
	s.reclaim_watermark_max_pct = 74;
	st.trial.active = true;
	st.trial.knob = JT_KNOB_RECLAIM;
	assert_false(jt_advice_at_top(&aut, &st, &s));
	s.knob[JT_KNOB_RECLAIM] = 74;
	assert_false(jt_advice_at_top(&on, &st, &s));
	st.knob[JT_KNOB_RECLAIM].top_only = true;
	assert_false(jt_advice_at_top(&aut, &st, &s));
	/* a trial of another knob does not hide the top */
	st.trial.knob = JT_KNOB_FORCE_COPY;
	assert_true(jt_advice_at_top(&aut, &st, &s));
	st.trial.active = false;
	st.trial.knob = JT_KNOB_RECLAIM;
	s.knob[JT_KNOB_RECLAIM] = 0;		/* after a trial without relief at the top */
	assert_true(jt_advice_at_top(&aut, &st, &s));
}

/* --- jt_advice_step ------------------------------------------------------- */

struct run {
	struct jt_journal_policy jp;
	struct jt_journal_state st;
	struct jt_advice_state a;
	struct jt_sample s;
	struct jt_fs_info fs;
	unsigned int fs_calls;
	char text[JT_ADVICE_MAX];
};

static int fake_fs(void *userdata, struct jt_fs_info *out)
{
	struct run *r = userdata;

	r->fs_calls++;
	*out = r->fs;
	return 0;
}

/* 6.1, a 4 MiB journal of 1 KiB blocks on /mnt/small, the watermark at auto's top */
static void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->jp = RC_SHIPPED;
	r->st.knob[JT_KNOB_RECLAIM].seen = true;
	r->st.knob[JT_KNOB_RECLAIM].managed = true;
	r->s.log_blocks = 4096;
	r->s.max_transaction_blocks = 1024;
	r->s.has_logged_blocks = true;
	r->s.has_commit_stats = true;
	r->s.has_reclaim_limits = true;
	r->s.reclaim_watermark_min_pct = 30;
	r->s.reclaim_watermark_max_pct = 74;
	r->s.knob[JT_KNOB_RECLAIM] = 70;
	r->fs = (struct jt_fs_info){ .block_size = 1024, .free_blocks = 200000,
				     .mount_point = "/mnt/small", .device = "/dev/vda",
				     .fstype = "ext4" };
	jt_advice_init(&r->a);
}

/*
 * One sample at @t_s with watermark @wm, @waits more space waits (each in
 * [1.05, 2.1) s, bucket 20) and @logged more logged blocks; returns the event.
 */
static enum jt_advice_event feed(struct run *r, double t_s, int64_t wm, unsigned int waits,
				 uint64_t logged)
{
	struct jt_wait_counters *w = &r->s.wait[JT_WAIT_SPACE];

	r->s.time_us = (uint64_t)(t_s * 1e6);
	r->s.knob[JT_KNOB_RECLAIM] = wm;
	w->waits += waits;
	w->hist[20] += waits;
	w->wait_us += (uint64_t)waits * (3ULL << 20) / 2;
	if (waits)
		w->wait_max_us = (2ULL << 20) - 1;
	r->s.logged_blocks += logged;
	r->text[0] = '\0';
	return jt_advice_step(&T, &r->jp, &r->st, &r->a, &r->s, fake_fs, r, r->text,
			      sizeof(r->text));
}

/* Samples every second from @from to @to s: the events of each, into @ev[t]. */
static void feed_range(struct run *r, int from, int to, int64_t wm, unsigned int waits,
		       uint64_t logged, enum jt_advice_event *ev)
{
	int t;

	for (t = from; t <= to; t++)
		ev[t] = feed(r, t, wm, t ? waits : 0, t ? logged : 0);
}

static const char ADVICE_8[] =
	"space waits persist with the reclaim watermark at its maximum (70 %): 9 waits in 9 s, "
	"p99 2086.7 ms; the busiest 3 s logged 1500 blocks, and this 4096-block journal has "
	"3072 above its foreground threshold; a journal of 8 MiB would hold them: unmount "
	"/mnt/small, then e2fsck -f /dev/vda && tune2fs -O ^has_journal /dev/vda && "
	"tune2fs -J size=8 /dev/vda, and mount it again";

/*
 * A wait and 500 logged blocks every second at the top: windows close at
 * 3, 6 and 9 s; the third makes the advice (9 waits in [1.05, 2.1) s:
 * p99 = 1048576 + 1048576 × 8.91 / 9 us; 1500 blocks per window, 2000
 * needed, twice the journal is 8 MiB).  Asked for the file system once.
 */
static void test_appears_after_three_windows(void **state)
{
	static struct run r;
	enum jt_advice_event ev[40];
	int t;

	(void)state;
	run_init(&r);
	feed_range(&r, 0, 12, 70, 1, 500, ev);
	for (t = 0; t <= 12; t++)
		if (t != 9)
			assert_int_equal(ev[t], JT_ADVICE_NONE);
	assert_int_equal(ev[9], JT_ADVICE_NEW);
	assert_int_equal(r.fs_calls, 2);	/* made at 9, not news at 12 */
	run_init(&r);
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	assert_string_equal(r.text, ADVICE_8);
	assert_int_equal(r.fs_calls, 1);
	assert_true(r.a.standing && r.a.advised_bytes == 8ULL << 20);
}

/* Below the top, or without waits, there is no advice. */
static void test_not_below_top_nor_without_waits(void **state)
{
	static struct run r;
	enum jt_advice_event ev[40];
	int t;

	(void)state;
	run_init(&r);
	feed_range(&r, 0, 30, 65, 1, 500, ev);		/* 65 < auto's top 70 */
	for (t = 0; t <= 30; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
	run_init(&r);
	feed_range(&r, 0, 30, 70, 0, 5000, ev);		/* busy log, but no handle waits */
	for (t = 0; t <= 30; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
	assert_int_equal(r.fs_calls, 0);
	/* the reclaim mode on at 70 is not the top: only the kernel's 74 is */
	run_init(&r);
	r.jp.reclaim = JT_MODE_ON;
	feed_range(&r, 0, 12, 70, 1, 500, ev);
	assert_int_equal(ev[9], JT_ADVICE_NONE);
	run_init(&r);
	r.jp.reclaim = JT_MODE_ON;
	feed_range(&r, 0, 9, 74, 1, 500, ev);
	assert_int_equal(ev[9], JT_ADVICE_NEW);
}

/* One sample below the top spoils its window; the streak starts again after it. */
static void test_top_throughout(void **state)
{
	static struct run r;
	enum jt_advice_event ev[40];
	int t;

	(void)state;
	run_init(&r);
	feed_range(&r, 0, 3, 70, 1, 500, ev);
	ev[4] = feed(&r, 4, 65, 1, 500);		/* window [3, 6] not at the top throughout */
	feed_range(&r, 5, 15, 70, 1, 500, ev);
	for (t = 0; t < 15; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
	assert_int_equal(ev[15], JT_ADVICE_NEW);	/* [6, 9], [9, 12], [12, 15] */
	/* a window without a wait also breaks the streak */
	run_init(&r);
	feed_range(&r, 0, 6, 70, 1, 500, ev);
	feed_range(&r, 7, 9, 70, 0, 500, ev);
	feed_range(&r, 10, 18, 70, 1, 500, ev);
	for (t = 0; t < 18; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
	assert_int_equal(ev[18], JT_ADVICE_NEW);
}

/*
 * Said once: the same peak gives no new advice; a peak that needs a larger
 * journal does (9000 blocks in a window: 12000 needed, 16 MiB), and the
 * busiest window is what counts.
 */
static void test_grows_only(void **state)
{
	static struct run r;
	enum jt_advice_event ev[60];
	int t;

	(void)state;
	run_init(&r);
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	assert_int_equal(ev[9], JT_ADVICE_NEW);
	feed_range(&r, 10, 21, 70, 1, 500, ev);
	for (t = 10; t <= 21; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
	feed_range(&r, 22, 24, 70, 1, 3000, ev);	/* window [21, 24]: 9000 blocks */
	assert_int_equal(ev[24], JT_ADVICE_NEW);
	assert_non_null(strstr(r.text, "the busiest 3 s logged 9000 blocks"));
	assert_non_null(strstr(r.text, "a journal of 16 MiB would hold them"));
	assert_non_null(strstr(r.text, "tune2fs -J size=16 /dev/vda"));
	feed_range(&r, 25, 33, 70, 1, 500, ev);	/* quieter again: still 16 MiB, nothing new */
	for (t = 25; t <= 33; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
	assert_true(r.a.advised_bytes == 16ULL << 20);
	/* a new streak with a smaller peak does not shrink it */
	feed_range(&r, 34, 36, 70, 0, 100, ev);
	feed_range(&r, 37, 48, 70, 1, 200, ev);
	for (t = 34; t <= 48; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
}

/*
 * Withdrawn after JT_ADVICE_QUIET_WINDOWS windows without space waits (said
 * once), not while waits go on below the top; and then it can come back.
 */
static void test_withdrawn(void **state)
{
	static struct run r;
	enum jt_advice_event ev[100];
	int t, end = 9 + 3 * JT_ADVICE_QUIET_WINDOWS;

	(void)state;
	run_init(&r);
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	assert_int_equal(ev[9], JT_ADVICE_NEW);
	feed_range(&r, 10, 18, 50, 1, 500, ev);	/* waits below the top: not quiet */
	feed_range(&r, 19, end + 9, 50, 0, 100, ev);
	for (t = 10; t <= end + 9; t++)
		assert_int_equal(ev[t], t == end + 9 ? JT_ADVICE_WITHDRAWN : JT_ADVICE_NONE);
	assert_string_equal(r.text,
			    "journal-size advice withdrawn: no foreground space waits for 30 s (10 windows)");
	assert_false(r.a.standing);
	assert_true(r.a.advised_bytes == 0);
	feed_range(&r, end + 10, end + 18, 70, 1, 500, ev);
	assert_int_equal(ev[end + 18], JT_ADVICE_NEW);
}

/* advice_windows = 0, an older module, a resized journal: no advice, or withdrawn. */
static void test_off_old_module_resized(void **state)
{
	static struct run r;
	enum jt_advice_event ev[40];
	int t;

	(void)state;
	run_init(&r);
	r.jp.advice_windows = 0;
	feed_range(&r, 0, 12, 70, 1, 500, ev);
	for (t = 0; t <= 12; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
	run_init(&r);
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	r.jp.advice_windows = 0;			/* reload */
	assert_int_equal(feed(&r, 10, 70, 1, 500), JT_ADVICE_WITHDRAWN);
	assert_string_equal(r.text, "journal-size advice withdrawn: advice_windows = 0 in the policy");
	assert_int_equal(feed(&r, 11, 70, 1, 500), JT_ADVICE_NONE);
	run_init(&r);
	r.s.has_logged_blocks = false;
	feed_range(&r, 0, 12, 70, 1, 0, ev);
	for (t = 0; t <= 12; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
	/* the same name with another size: the journal was replaced */
	run_init(&r);
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	r.s.log_blocks = 8192;
	r.s.max_transaction_blocks = 2048;
	assert_int_equal(feed(&r, 10, 70, 1, 500), JT_ADVICE_WITHDRAWN);
	assert_string_equal(r.text,
			    "journal-size advice withdrawn: the journal is now 8192 blocks (was 4096)");
}

/* Counters that go backwards (the journal set up again) restart the windows. */
static void test_counters_backwards(void **state)
{
	static struct run r;
	enum jt_advice_event ev[40];
	int t;

	(void)state;
	run_init(&r);
	feed_range(&r, 0, 7, 70, 1, 500, ev);
	memset(&r.s.wait, 0, sizeof(r.s.wait));
	r.s.logged_blocks = 0;
	feed_range(&r, 8, 16, 70, 1, 500, ev);	/* windows from 8 s on: advice at 17 */
	feed_range(&r, 17, 17, 70, 1, 500, ev);
	for (t = 0; t < 17; t++)
		assert_int_equal(ev[t], JT_ADVICE_NONE);
	assert_int_equal(ev[17], JT_ADVICE_NEW);
}

/* The text where no commands apply, or differ: root, no mount, another type, quoting, too large. */
static void test_texts(void **state)
{
	static struct run r;
	enum jt_advice_event ev[40];

	(void)state;
	run_init(&r);
	r.fs.mount_point = "/";
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	assert_non_null(strstr(r.text,
		"a journal of 8 MiB would hold them: from a rescue system (it is the root file system), "
		"e2fsck -f /dev/vda && tune2fs -O ^has_journal /dev/vda && tune2fs -J size=8 /dev/vda"));
	assert_null(strstr(r.text, "unmount"));

	run_init(&r);
	r.fs = (struct jt_fs_info){ 0 };		/* not found: an external journal, or unmounted */
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	assert_non_null(strstr(r.text, "a journal of 8192 blocks would hold them; no mounted file system"));
	assert_non_null(strstr(r.text, "mke2fs -O journal_dev"));
	assert_null(strstr(r.text, "/dev/"));

	run_init(&r);
	r.fs.fstype = "ocfs2";
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	assert_non_null(strstr(r.text, "a journal of 8 MiB would hold them (the file system is ocfs2: see its own tools)"));
	assert_null(strstr(r.text, "tune2fs"));

	run_init(&r);
	r.fs.mount_point = "/srv/my data";
	r.fs.device = "/dev/mapper/it's";
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	assert_non_null(strstr(r.text,
		": unmount '/srv/my data', then e2fsck -f '/dev/mapper/it'\\''s' && "));

	/* names too long for the text: no command rather than a cut one */
	{
		static char longdev[420], longmnt[620];

		memset(longmnt, 'm', sizeof(longmnt) - 1);
		longmnt[0] = '/';
		run_init(&r);
		r.fs.mount_point = longmnt;		/* longer than a quoted word may be */
		feed_range(&r, 0, 9, 70, 1, 500, ev);
		assert_int_equal(ev[9], JT_ADVICE_NEW);
		assert_non_null(strstr(r.text, "a journal of 8 MiB would hold them; on the unmounted "
					       "file system: tune2fs -O ^has_journal, then tune2fs -J size=8"));
		assert_null(strstr(r.text, "/dev/vda"));
		memset(longdev, 'd', sizeof(longdev) - 1);
		memcpy(longdev, "/dev/", 5);
		run_init(&r);
		r.fs.device = longdev;			/* fits a word, not three in the text */
		feed_range(&r, 0, 9, 70, 1, 500, ev);
		assert_int_equal(ev[9], JT_ADVICE_NEW);
		assert_true(strlen(r.text) < JT_ADVICE_MAX - 1);
		assert_non_null(strstr(r.text, "then tune2fs -J size=8"));
		assert_null(strstr(r.text, "/dev/ddd"));
	}

	run_init(&r);
	r.fs.free_blocks = 10000;			/* at most (10000 + 4096) / 2 blocks: 6 MiB */
	feed_range(&r, 0, 9, 70, 1, 500, ev);
	assert_non_null(strstr(r.text,
		"a journal that holds them would be 8 MiB, more than the 6 MiB tune2fs makes here "
		"(half the free space once this journal is gone): only a larger file system, a "
		"faster device or fewer metadata changes per second can help"));
	assert_null(strstr(r.text, "tune2fs -J"));
	assert_true(r.a.standing && r.a.advised_bytes == 0);
	assert_true(r.a.advised_blocks == UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_arithmetic),
		cmocka_unit_test(test_at_top),
		cmocka_unit_test(test_appears_after_three_windows),
		cmocka_unit_test(test_not_below_top_nor_without_waits),
		cmocka_unit_test(test_top_throughout),
		cmocka_unit_test(test_grows_only),
		cmocka_unit_test(test_withdrawn),
		cmocka_unit_test(test_off_old_module_resized),
		cmocka_unit_test(test_counters_backwards),
		cmocka_unit_test(test_texts),
	};

	return cmocka_run_group_tests_name("advice", tests, NULL, NULL);
}
