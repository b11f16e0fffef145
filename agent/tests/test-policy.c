// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the policy core (policy.c), table-driven: each scenario is a
 * sequence of samples (time, waits added, knob values read back) and the
 * decisions expected after each one, written as "SET force_copy 0->1",
 * "REVERT force_copy 1->0" (a trial's verdict that undoes a change),
 * "TRIAL force_copy 0->1" (a trial starts), "KEPT force_copy 0->1" /
 * "FAILED force_copy 0->1" (a verdict with nothing to write), "HELD
 * force_copy" (a change held back by a back-off), "RELEASE reclaim",
 * "RESTART", joined by "; ".  A step
 * may also give the exact reason text of its decisions (joined by " | ").
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
	unsigned int commit_n, commit_b;/* commit waits added in bucket commit_b */
	const char *reason;		/* NULL, or the exact reasons of the decisions */
};
#define RESET	1	/* counters start from zero again (remount) */
#define FRESH	2	/* journal gone and back: new state */

struct scenario {
	const char *name;
	struct jt_journal_policy jp;
	bool dry_run;
	int64_t fc0, rc0;		/* knob values before the agent */
	struct step steps[40];
	bool commit_stats;		/* the module reports commit waits (outcome checks) */
	uint32_t kmin_pct, kmax_pct;	/* the kernel's watermark limits, 0 = not reported ... */
	bool accepts_none;		/* ... unless this: reported as 0/0, no watermark accepted */
};

/* outcome checks: margin 10 %, 20 commit waits per window, first back-off 10 s */
#define OUTCOME .outcome_margin_pct = 10, .outcome_min_waits = 20, .outcome_backoff_s = 10, \
	.stall_budget_ms_per_s = 10, .stall_bound_ms = 1000, .stall_wait_min_ms = 10, \
	.trial_block_s = 1, .trial_min_pairs = 3, .trial_max_pairs = 6, .recheck_s = 600

static const struct jt_journal_policy FC_AUTO = {
	.force_copy = JT_MODE_AUTO, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_OFF, .reclaim_watermark_pct = 25,
	.reclaim_min_pct = 10, .reclaim_max_pct = 60, OUTCOME,
};
static const struct jt_journal_policy RC_AUTO = {
	.force_copy = JT_MODE_OFF, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_AUTO, .reclaim_watermark_pct = 25,
	.reclaim_min_pct = 10, .reclaim_max_pct = 35, OUTCOME,
};
/* the shipped reclaim defaults: start 50, range 35..70 */
static const struct jt_journal_policy RC_SHIPPED = {
	.force_copy = JT_MODE_OFF, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_AUTO, .reclaim_watermark_pct = 50,
	.reclaim_min_pct = 35, .reclaim_max_pct = 70, OUTCOME,
};
static const struct jt_journal_policy RC_ON_80 = {
	.force_copy = JT_MODE_OFF, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_ON, .reclaim_watermark_pct = 80,
	.reclaim_min_pct = 35, .reclaim_max_pct = 70, OUTCOME,
};
static const struct jt_journal_policy BOTH_ON = {
	.force_copy = JT_MODE_ON, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_ON, .reclaim_watermark_pct = 40,
	.reclaim_min_pct = 10, .reclaim_max_pct = 60, OUTCOME,
};

/* triggers only on one wait over the bound: the budget at its highest */
static const struct jt_journal_policy FC_BOUND = {
	.force_copy = JT_MODE_AUTO, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_OFF, .reclaim_watermark_pct = 25,
	.reclaim_min_pct = 10, .reclaim_max_pct = 60, .outcome_margin_pct = 10,
	.outcome_min_waits = 20, .outcome_backoff_s = 10, .stall_budget_ms_per_s = 1000,
	.stall_bound_ms = 1000, .stall_wait_min_ms = 10, .trial_block_s = 1, .trial_min_pairs = 3,
	.trial_max_pairs = 6, .recheck_s = 600,
};

/*
 * interval 1 s, window 3 s, trial blocks of 1 s (force_copy) and 3 s
 * (reclaim) in every scenario; the trials themselves are in test-sim.c,
 * test-seq.c and test-seq-lock.c
 */
static const struct scenario scenarios[] = {
	{ "quiet journal: short waits, and one that may be short, trigger nothing", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 100, MS(12), 0, KEEP, KEEP, 0, "" },	/* 100 waits under 8.2 ms: none counts */
		/* [8.2, 16.4) ms straddles 10 ms: its waits may all be short; nothing proven long */
		{ 3, 1, MS(13), 0, KEEP, KEEP, 0, "" },
		{ 4, 100, MS(12), 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "stall time over the budget starts a trial", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		/* 20 waits of [32.8, 65.5) ms in 1 s: at least 655 ms/s */
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "TRIAL force_copy 0->1", 0, 0,
		  "force_copy: trial of 0->1 starts: shadow waits over the minimum cost 983.0 ms/s over 1 s > budget 10 ms/s (20 waits, p99 65.2 ms); 1 s blocks on and off, order random per pair, 3..6 pairs" },
		/* its first block settles (one interval), then counts for 1 s */
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "" },
		/* the pair's order was drawn off, on: the knob is written for the second block */
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 0->1", 0, 0,
		  "trial of 0->1, pair 1 of 3..6, on block (1 s)" },
		{ -1 } } },
	{ "one wait over the bound starts a trial", FC_BOUND, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "" },
		/*
		 * one wait of [1.05, 2.1) s in 3 s: 524 ms/s, under the budget of
		 * 1000; the blocks stretch to twice that wait's p99 (4.2 s),
		 * capped at 4 x trial_block_s
		 */
		{ 4, 1, 20, 0, KEEP, KEEP, 0, "TRIAL force_copy 0->1", 0, 0,
		  "force_copy: trial of 0->1 starts: a shadow wait of 1048.6 ms or more over 3 s > bound 1000 ms (1 waits); 4 s blocks on and off, order random per pair, 3..6 pairs" },
		{ -1 } } },
	{ "waits older than the window do not count", FC_BOUND, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 1, 19, 0, KEEP, KEEP, 0, "" },		/* [0.5, 1) s: under the bound */
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "a remount (counters back to 0, knobs at the defaults) re-applies on/off, no release",
	  BOTH_ON, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 0->1; SET reclaim 0->40" },
		{ 2, 5, MS(15), 0, KEEP, KEEP, 0, "" },
		{ 3, 0, 0, 0, 0, 0, RESET, "RESTART; SET force_copy 0->1; SET reclaim 0->40" },
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "administrator write: stop managing the knob", BOTH_ON, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 0->1; SET reclaim 0->40" },
		{ 2, 0, 0, 0, 0, KEEP, 0, "RELEASE force_copy" },
		{ 10, 0, 0, 0, 0, KEEP, 0, "" },
		{ -1 } } },
	{ "administrator write during a trial ends it without a verdict", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "TRIAL force_copy 0->1" },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 4.5, 0, 0, 0, 0, KEEP, 0, "RELEASE force_copy" },
		{ 6, 20, MS(15), 0, 0, KEEP, 0, "" },
		{ -1 } } },
	{ "on/off applied once, again when the journal comes back", BOTH_ON, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 0->1; SET reclaim 0->40" },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 3, 0, 0, 0, 0, 0, FRESH | RESET, "SET force_copy 0->1; SET reclaim 0->40" },
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "dry-run: a triggered change reported once, no trial, knob never expected to change",
	  FC_AUTO, true, 0, 0, {
		{ 1, 0, 0, 0, 0, 0, 0, "" },
		{ 2, 20, MS(15), 0, 0, 0, 0, "SET force_copy 0->1" },
		{ 3, 20, MS(15), 0, 0, 0, 0, "" },	/* read 0: not an admin write */
		{ 9, 20, MS(15), 0, 0, 0, 0, "" },
		{ -1 } } },
	{ "dry-run still notices an administrator", FC_AUTO, true, 0, 0, {
		{ 1, 0, 0, 0, 0, 0, 0, "" },
		{ 2, 0, 0, 0, 1, 0, 0, "RELEASE force_copy" },
		{ -1 } } },
	{ "reclaim auto: off until a space wait, then a trial of the start value", RC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },		/* off, nothing waits: stays off */
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "" },		/* a whole quiet window: still off */
		{ 5, 0, 0, 2, KEEP, KEEP, 0, "TRIAL reclaim 0->25" },
		{ -1 } } },
	{ "reclaim auto: a value outside the range is brought into it", RC_AUTO, false, 0, 80, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 80->35" },
		{ -1 } } },
	/* Reclaim auto clamped into the kernel's limits (6.12: 34..67 %, 6.1: 26..75 %). */
	{ "reclaim clamp: the shipped 35..70 % under a kernel's 55..67 %: the start is 55", RC_SHIPPED,
	  false, 0, 0, {
		{ 1, 0, 0, 3, KEEP, KEEP, 0, "" },		/* no window before the first sample */
		{ 2, 0, 0, 3, KEEP, KEEP, 0, "TRIAL reclaim 0->55" },
		{ -1 } }, false, 55, 67 },
	{ "reclaim clamp: a found value above the kernel's highest is brought back", RC_SHIPPED,
	  false, 0, 70, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 70->67" },
		{ -1 } }, false, 34, 67 },
	{ "reclaim clamp: on writes the nearest value the kernel accepts", RC_ON_80, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 0->75", 0, 0,
		  "policy reclaim = on; 80 % is outside the 26..75 % the kernel accepts for this journal" },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ -1 } }, false, 26, 75 },
	{ "reclaim clamp: a journal that accepts no watermark: auto leaves it alone", RC_AUTO,
	  false, 0, 25, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 0, 0, 3, KEEP, KEEP, 0, "" },
		{ -1 } }, false, 0, 0, true },
	{ "reclaim clamp: ... while off still writes 0", FC_AUTO, false, 0, 25, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 25->0" },
		{ -1 } }, false, 0, 0, true },
	{ "reclaim clamp: limits not reported (older module): the policy's range", RC_SHIPPED,
	  false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 0, 0, 3, KEEP, KEEP, 0, "TRIAL reclaim 0->50" },
		{ -1 } }, false, 0, 0 },
};

/* @n more waits in bucket @b: each counted at the bucket's middle, the max at its top. */
static void add_waits(struct jt_wait_counters *w, unsigned int n, unsigned int b, bool with_max)
{
	if (!n)
		return;
	w->waits += n;
	w->hist[b] += n;
	w->wait_us += (uint64_t)n * (3ULL << b) / 2;
	if (with_max && w->wait_max_us < (2ULL << b) - 1)
		w->wait_max_us = (2ULL << b) - 1;
}

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
	s.has_commit_stats = sc->commit_stats;
	s.has_reclaim_limits = sc->kmin_pct || sc->kmax_pct || sc->accepts_none;
	s.reclaim_watermark_min_pct = sc->kmin_pct;
	s.reclaim_watermark_max_pct = sc->kmax_pct;
	for (p = sc->steps; p->t_s >= 0; p++) {
		struct jt_decision d[JT_DECISIONS_MAX];
		char got[512] = "", reasons[4 * JT_REASON_MAX] = "";
		unsigned int n, i;

		if (p->flags & FRESH)
			jt_journal_state_init(&st);
		if (p->flags & RESET)
			memset(s.wait, 0, sizeof(s.wait));
		s.time_us = (uint64_t)(p->t_s * 1e6);
		add_waits(&s.wait[JT_WAIT_SHADOW], p->shadow_n, p->shadow_b, false);
		add_waits(&s.wait[JT_WAIT_SPACE], p->space_n, 14, false);
		add_waits(&s.wait[JT_WAIT_COMMIT], p->commit_n, p->commit_b, true);
		s.knob[JT_KNOB_FORCE_COPY] = p->fc_read != KEEP ? p->fc_read :
			st.knob[0].seen ? st.knob[0].expected : s.knob[0];
		s.knob[JT_KNOB_RECLAIM] = p->rc_read != KEEP ? p->rc_read :
			st.knob[1].seen ? st.knob[1].expected : s.knob[1];

		n = jt_policy_step(&t, &sc->jp, &st, &s, sc->dry_run, d);
		for (i = 0; i < n; i++) {
			const char *knob = jt_knob_name(d[i].knob);
			char one[64];

			if (d[i].kind == JT_DECISION_SET)
				snprintf(one, sizeof(one), "%s %s %lld->%lld",
					 d[i].revert ? "REVERT" : "SET", knob,
					 (long long)d[i].old_value, (long long)d[i].new_value);
			else if (d[i].kind == JT_DECISION_NOTE && d[i].outcome)
				snprintf(one, sizeof(one), "%s %s %lld->%lld",
					 strstr(d[i].reason, " not kept: ") ? "FAILED" : "KEPT", knob,
					 (long long)d[i].old_value, (long long)d[i].new_value);
			else if (d[i].kind == JT_DECISION_NOTE && strstr(d[i].reason, " starts: "))
				snprintf(one, sizeof(one), "TRIAL %s %lld->%lld", knob,
					 (long long)d[i].old_value, (long long)d[i].new_value);
			else if (d[i].kind == JT_DECISION_NOTE)
				snprintf(one, sizeof(one), "HELD %s", knob);
			else if (d[i].kind == JT_DECISION_RELEASE)
				snprintf(one, sizeof(one), "RELEASE %s", knob);
			else
				snprintf(one, sizeof(one), "RESTART");
			if (i) {
				strcat(got, "; ");
				strcat(reasons, " | ");
			}
			strcat(got, one);
			strcat(reasons, d[i].reason);
			assert_true(d[i].reason[0] != '\0');	/* every decision says why */
		}
		if (strcmp(got, p->expect) != 0)
			print_message("# %s: at t=%.1f s got \"%s\", want \"%s\"\n", sc->name,
				      p->t_s, got, p->expect);
		assert_string_equal(got, p->expect);
		if (p->reason && strcmp(reasons, p->reason) != 0)
			print_message("# %s: at t=%.1f s reason\n#   got  \"%s\"\n#   want \"%s\"\n",
				      sc->name, p->t_s, reasons, p->reason);
		if (p->reason)
			assert_string_equal(reasons, p->reason);
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
	/*
	 * 200 waits in [32,64) ms: p99 at k = 198 -> 32768 + 32768 * 198/200 =
	 * 65208.3 us; at least 200 x 32768 us of stall in 30 s = 218.5 ms/s
	 */
	s.time_us = 31000000;
	s.wait[JT_WAIT_SHADOW].waits = 200;
	s.wait[JT_WAIT_SHADOW].hist[15] = 200;
	assert_true(jt_policy_step(&t, &FC_AUTO, &st, &s, false, d) >= 1);
	assert_string_equal(d[0].reason, "force_copy: trial of 0->1 starts: shadow waits over the minimum cost 218.5 ms/s over 30 s > budget 10 ms/s (200 waits, p99 65.2 ms); 1 s blocks on and off, order random per pair, 3..6 pairs");
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

/* The trial in progress as D-Bus Trial and TrialDeadlineUsec show it. */
static void test_trial_describe(void **state)
{
	static struct jt_journal_state st;
	struct jt_journal_policy jp = { .trial_min_pairs = 3, .trial_max_pairs = 10 };
	char text[160];
	uint64_t deadline = 1;

	(void)state;
	jt_journal_state_init(&st);
	assert_false(jt_trial_describe(&jp, &st, text, sizeof(text), &deadline));
	assert_string_equal(text, "");
	assert_int_equal(deadline, 0);
	/* the second block of the second pair: 3 of force_copy's 20 blocks done */
	st.trial = (struct jt_trial_run){ .active = true, .knob = JT_KNOB_FORCE_COPY, .from = 0,
					  .to = 1, .pairs = 1, .in_second = true, .cur_on = false,
					  .block_start_us = 1000000, .block_us = 5000000,
					  .settle_us = 1000000 };
	assert_true(jt_trial_describe(&jp, &st, text, sizeof(text), &deadline));
	assert_string_equal(text, "force_copy 0->1, pair 2 of 3..10, off block");
	/* this block and the 16 after it, each 1 s settling and 5 s counted */
	assert_int_equal(deadline, 1000000 + 17 * 6000000ULL);
	st.trial.recheck = true;
	st.trial.cur_on = true;
	st.trial.pairs = 0;
	st.trial.in_second = false;
	assert_true(jt_trial_describe(&jp, &st, text, sizeof(text), &deadline));
	assert_string_equal(text, "re-check of force_copy 0->1, pair 1 of 3..3, on block");
	assert_int_equal(deadline, 1000000 + 6 * 6000000ULL);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(scenarios) / sizeof(scenarios[0]) + 5];
	size_t i, n = 0;

	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		tests[n++] = (struct CMUnitTest){ .name = scenarios[i].name,
						  .test_func = test_scenario,
						  .initial_state = (void *)&scenarios[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_reason_text);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_window_stats);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_write_failed);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_trial_describe);
	return _cmocka_run_group_tests("policy", tests, n, NULL, NULL);
}
