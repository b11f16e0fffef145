// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the policy core (policy.c), table-driven: each scenario is a
 * sequence of samples (time, waits added, knob values read back) and the
 * decisions expected after each one, written as "SET force_copy 0->1",
 * "RELEASE reclaim", "RESTART", joined by "; ".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "policy.h"

#define KEEP	-1	/* knob reads back what the agent expects */
#define MS(b)	(b)	/* bucket index: b=15 is [32.8, 65.5) ms, b=12 is [4.1, 8.2) ms */

struct step {
	double t_s;			/* sample time, s */
	unsigned int shadow_n, shadow_b;/* shadow waits added in bucket shadow_b */
	unsigned int space_n;		/* space waits added (bucket 14, ~16 ms) */
	int64_t fc_read, rc_read;	/* knob values read, KEEP = as expected */
	int flags;
	const char *expect;		/* decisions, "" for none */
};
#define RESET	1	/* counters start from zero again (remount) */
#define FRESH	2	/* journal gone and back: new state */

struct scenario {
	const char *name;
	struct jt_journal_policy jp;
	bool dry_run;
	int64_t fc0, rc0;		/* knob values before the agent */
	struct step steps[24];
};

static const struct jt_journal_policy FC_AUTO = {
	.force_copy = JT_MODE_AUTO, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_OFF, .reclaim_watermark_pct = 25,
	.reclaim_min_pct = 10, .reclaim_max_pct = 60,
};
static const struct jt_journal_policy RC_AUTO = {
	.force_copy = JT_MODE_OFF, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_AUTO, .reclaim_watermark_pct = 25,
	.reclaim_min_pct = 10, .reclaim_max_pct = 35,
};
static const struct jt_journal_policy BOTH_ON = {
	.force_copy = JT_MODE_ON, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_ON, .reclaim_watermark_pct = 40,
	.reclaim_min_pct = 10, .reclaim_max_pct = 60,
};

/* interval 1 s, window 3 s in every scenario */
static const struct scenario scenarios[] = {
	{ "quiet journal: nothing happens", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 1, MS(15), 0, KEEP, KEEP, 0, "" },	/* 1 slow wait < min 10 */
		/* 101 waits, 1 slow: k = 99.99 stays in [4,8) ms, p99 < 10 ms */
		{ 3, 100, MS(12), 0, KEEP, KEEP, 0, "" },
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "threshold crossing turns force_copy on", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 9, MS(15), 0, KEEP, KEEP, 0, "" },	/* 9 < min_waits */
		{ 3, 1, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" }, /* 10 in window */
		{ 4, 50, MS(15), 0, KEEP, KEEP, 0, "" },	/* already on */
		{ -1 } } },
	{ "waits older than the window do not count", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 9, MS(15), 0, KEEP, KEEP, 0, "" },
		{ 6, 1, MS(15), 0, KEEP, KEEP, 0, "" },	/* the 9 fell out of the 3 s window */
		{ -1 } } },
	{ "hold, then try off; relapse doubles the hold", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "" },		/* 4 s < hold 5 s */
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ 8, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" }, /* back: hold 10 s */
		{ 17, 0, 0, 0, KEEP, KEEP, 0, "" },		/* 9 s < 10 s */
		{ 18, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ 19, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 22, 0, 0, 0, KEEP, KEEP, 0, "" },		/* quiet window: hold back to 5 s */
		{ 23, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 28, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },	/* base hold again */
		{ -1 } } },
	{ "found on under auto: held from first sight, then tried off", FC_AUTO, false, 1, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ -1 } } },
	{ "flapping input is held back by the hold", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 4, 20, MS(15), 0, KEEP, KEEP, 0, "" },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 6, 20, MS(15), 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "hold doubling stops at one hour", { .force_copy = JT_MODE_AUTO,
		.force_copy_on_p99_ms = 10, .force_copy_min_waits = 10, .force_copy_hold_s = 2000,
		.reclaim = JT_MODE_OFF, .reclaim_watermark_pct = 25, .reclaim_min_pct = 10,
		.reclaim_max_pct = 60 }, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 2002, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ 2003, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },	/* 4000 s -> 3600 s */
		{ 5602, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 5603, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ -1 } } },
	{ "counters going backwards restart the window", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		/* remount: counters and knob back to the kernel's defaults */
		{ 3, 5, MS(15), 0, 0, KEEP, RESET, "RESTART" },
		{ 4, 9, MS(15), 0, KEEP, KEEP, 0, "" },	/* the restart sample is the baseline */
		{ 5, 1, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },	/* 10 since it */
		{ -1 } } },
	{ "counter reset with the knob unchanged keeps its bookkeeping", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 3, 0, 0, 0, KEEP, KEEP, RESET, "RESTART" },	/* knob still reads 1 */
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },	/* hold from t=2 */
		{ -1 } } },
	{ "administrator write: stop managing the knob", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 3, 0, 0, 0, 0, KEEP, 0, "RELEASE force_copy" },
		{ 10, 0, 0, 0, 0, KEEP, 0, "" },			/* no try-off either */
		{ 11, 50, MS(15), 0, 0, KEEP, 0, "" },
		{ -1 } } },
	{ "on/off applied once, again when the journal comes back", BOTH_ON, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 0->1; SET reclaim 0->40" },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 3, 0, 0, 0, 0, 0, FRESH | RESET, "SET force_copy 0->1; SET reclaim 0->40" },
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "dry-run: decisions reported once, knob never expected to change", FC_AUTO, true, 0, 0, {
		{ 1, 0, 0, 0, 0, 0, 0, "" },
		{ 2, 20, MS(15), 0, 0, 0, 0, "SET force_copy 0->1" },
		{ 3, 20, MS(15), 0, 0, 0, 0, "" },	/* read 0: not an admin write */
		{ 7, 0, 0, 0, 0, 0, 0, "SET force_copy 1->0" },
		{ -1 } } },
	{ "dry-run still notices an administrator", FC_AUTO, true, 0, 0, {
		{ 1, 0, 0, 0, 0, 0, 0, "" },
		{ 2, 0, 0, 0, 1, 0, 0, "RELEASE force_copy" },
		{ -1 } } },
	{ "reclaim auto: start, raise per interval, cap, lower after quiet window", RC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 0->25" },
		{ 2, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 25->30" },
		{ 2.5, 0, 0, 3, KEEP, KEEP, 0, "" },		/* one change per interval */
		{ 3, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 30->35" },
		{ 4, 0, 0, 3, KEEP, KEEP, 0, "" },		/* at reclaim_max_pct */
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "" },		/* the waits at 4 s are in the window */
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 35->30" },	/* 3 s quiet */
		{ 9, 0, 0, 0, KEEP, KEEP, 0, "" },		/* quiet, but 2 s since the change */
		{ 10, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 30->25" },
		{ 13, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 25->20" },
		{ 16, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 20->15" },
		{ 19, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 15->10" },
		{ 22, 0, 0, 0, KEEP, KEEP, 0, "" },		/* at reclaim_min_pct */
		{ 23, 0, 0, 1, KEEP, KEEP, 0, "SET reclaim 10->15" },
		{ -1 } } },
	{ "reclaim auto: a value outside the range is brought back", RC_AUTO, false, 0, 80, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 80->25" },
		{ -1 } } },
};

static void run_scenario(const struct scenario *sc)
{
	const struct jt_timing t = { .interval_us = 1000000, .window_us = 3000000 };
	static struct jt_journal_state st;
	struct jt_sample s;
	const struct step *p;

	jt_journal_state_init(&st);
	memset(&s, 0, sizeof(s));
	s.knob[JT_KNOB_FORCE_COPY] = sc->fc0;
	s.knob[JT_KNOB_RECLAIM] = sc->rc0;
	s.log_blocks = 32768;
	s.free_blocks = 30000;
	for (p = sc->steps; p->t_s >= 0; p++) {
		struct jt_decision d[JT_DECISIONS_MAX];
		char got[512] = "";
		unsigned int n, i;

		if (p->flags & FRESH)
			jt_journal_state_init(&st);
		if (p->flags & RESET)
			memset(s.wait, 0, sizeof(s.wait));
		s.time_us = (uint64_t)(p->t_s * 1e6);
		s.wait[JT_WAIT_SHADOW].waits += p->shadow_n;
		s.wait[JT_WAIT_SHADOW].hist[p->shadow_b] += p->shadow_n;
		s.wait[JT_WAIT_SPACE].waits += p->space_n;
		s.wait[JT_WAIT_SPACE].hist[14] += p->space_n;
		s.knob[JT_KNOB_FORCE_COPY] = p->fc_read != KEEP ? p->fc_read :
			st.knob[0].seen ? st.knob[0].expected : s.knob[0];
		s.knob[JT_KNOB_RECLAIM] = p->rc_read != KEEP ? p->rc_read :
			st.knob[1].seen ? st.knob[1].expected : s.knob[1];

		n = jt_policy_step(&t, &sc->jp, &st, &s, sc->dry_run, d);
		for (i = 0; i < n; i++) {
			char one[64];

			if (d[i].kind == JT_DECISION_SET)
				snprintf(one, sizeof(one), "SET %s %lld->%lld", jt_knob_name(d[i].knob),
					 (long long)d[i].old_value, (long long)d[i].new_value);
			else if (d[i].kind == JT_DECISION_RELEASE)
				snprintf(one, sizeof(one), "RELEASE %s", jt_knob_name(d[i].knob));
			else
				snprintf(one, sizeof(one), "RESTART");
			if (i)
				strcat(got, "; ");
			strcat(got, one);
			assert_true(d[i].reason[0] != '\0');	/* every decision says why */
		}
		if (strcmp(got, p->expect) != 0)
			print_message("# %s: at t=%.1f s got \"%s\", want \"%s\"\n", sc->name,
				      p->t_s, got, p->expect);
		assert_string_equal(got, p->expect);
	}
}

static void test_scenario(void **state)
{
	run_scenario(*state);
}

/* The reason carries the figures, in the SPEC's example format. */
static void test_reason_text(void **state)
{
	const struct jt_timing t = { .interval_us = 1000000, .window_us = 30000000 };
	static struct jt_journal_state st;
	struct jt_decision d[JT_DECISIONS_MAX];
	struct jt_sample s;

	(void)state;
	jt_journal_state_init(&st);
	memset(&s, 0, sizeof(s));
	s.time_us = 1000000;
	assert_int_equal(jt_policy_step(&t, &FC_AUTO, &st, &s, false, d), 0);
	/* 200 waits in [32,64) ms: k = 198 -> 32768 + 32768 * 198/200 = 65208.3 us */
	s.time_us = 31000000;
	s.wait[JT_WAIT_SHADOW].waits = 200;
	s.wait[JT_WAIT_SHADOW].hist[15] = 200;
	assert_int_equal(jt_policy_step(&t, &FC_AUTO, &st, &s, false, d), 1);
	assert_string_equal(d[0].reason, "shadow-wait p99 65.2 ms > 10 ms over 30 s (200 waits)");
}

/* Windowed figures: the baseline is the newest sample at or before the window start. */
static void test_window_stats(void **state)
{
	const struct jt_timing t = { .interval_us = 1000000, .window_us = 3000000 };
	static struct jt_journal_state st;
	struct jt_decision d[JT_DECISIONS_MAX];
	struct jt_window_stats w;
	struct jt_sample s;
	unsigned int i;

	(void)state;
	jt_journal_state_init(&st);
	memset(&s, 0, sizeof(s));
	s.knob[JT_KNOB_FORCE_COPY] = 0;
	for (i = 1; i <= 10; i++) {	/* 10 locked waits in [4,8) us every second */
		s.time_us = i * 1000000ULL;
		s.wait[JT_WAIT_LOCKED].waits += 10;
		s.wait[JT_WAIT_LOCKED].hist[2] += 10;
		jt_policy_step(&t, &BOTH_ON, &st, &s, true, d);
	}
	s.time_us = 11000000;
	s.wait[JT_WAIT_LOCKED].waits += 10;
	s.wait[JT_WAIT_LOCKED].hist[2] += 10;
	assert_true(jt_window_stats(&st, &s, t.window_us, 0, &w));
	assert_true(w.span_us == 3000000 && w.full);
	assert_true(w.wait[JT_WAIT_LOCKED].waits == 30);
	/* 30 in [4,8): k = 29.7 -> 4 + 4 * 29.7/30 = 7.96 */
	assert_true(w.wait[JT_WAIT_LOCKED].p99_us > 7.959 && w.wait[JT_WAIT_LOCKED].p99_us < 7.961);
	/* since a later point: shorter span, not full */
	assert_true(jt_window_stats(&st, &s, t.window_us, 10000000, &w));
	assert_true(w.span_us == 1000000 && !w.full && w.wait[JT_WAIT_LOCKED].waits == 10);
}

/* A failed write puts the old value back in force. */
static void test_write_failed(void **state)
{
	const struct jt_timing t = { .interval_us = 1000000, .window_us = 3000000 };
	static struct jt_journal_state st;
	struct jt_decision d[JT_DECISIONS_MAX];
	struct jt_sample s;

	(void)state;
	jt_journal_state_init(&st);
	memset(&s, 0, sizeof(s));
	s.time_us = 1000000;
	assert_int_equal(jt_policy_step(&t, &BOTH_ON, &st, &s, false, d), 2);
	jt_policy_write_failed(&st, JT_KNOB_FORCE_COPY, 0);
	/* the knob still reads 0: not taken for an administrator; retried next interval */
	s.time_us = 2000000;
	s.knob[JT_KNOB_RECLAIM] = 40;
	assert_int_equal(jt_policy_step(&t, &BOTH_ON, &st, &s, false, d), 1);
	assert_int_equal(d[0].kind, JT_DECISION_SET);
	assert_int_equal(d[0].knob, JT_KNOB_FORCE_COPY);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(scenarios) / sizeof(scenarios[0]) + 4];
	size_t i, n = 0;

	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		tests[n++] = (struct CMUnitTest){ .name = scenarios[i].name,
						  .test_func = test_scenario,
						  .initial_state = (void *)&scenarios[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_reason_text);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_window_stats);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_write_failed);
	return _cmocka_run_group_tests("policy", tests, n, NULL, NULL);
}
