// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the trial engine's statistics: trial.c on hand-made
 * sides (relief tests, the pairs' sign test, the relief levels, the
 * harm/cost statistic, the history's dispersion).  The seeded simulations
 * are in test-sim.c, the decision sequences in test-seq.c and
 * test-seq-lock.c, the diagnosis in test-diagnosis.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim.h"
#include "trial.h"

/* ---- the statistics ------------------------------------------------------ */

static void test_relief_p(void **state)
{
	struct jt_side on = { .span_us = 15000000 }, off = { .span_us = 15000000 };

	(void)state;
	assert_true(jt_relief_p(&on, &off) == 1.0);
	off.relief_events = 10;		/* 10 of 10 on the off side: 2^-10 */
	assert_true(fabs(jt_relief_p(&on, &off) - 1.0 / 1024) < 1e-9);
	on.relief_events = 10;		/* even: about one half or more */
	assert_true(jt_relief_p(&on, &off) > 0.5);
}

/*
 * The pairs' sign test, and a trial it keeps that the event test alone
 * leaves inconclusive: few, long waits (agent-stall on 6.1: "inconclusive
 * after 20 blocks: shadow waits 30.7 vs 854.3 ms/s ... relief p 0.016"):
 * 3 vs 9 relief events (event test p 0.073), yet every one of the 10 pairs
 * had less relief time in its on block.
 */
static void test_pair_sign(void **state)
{
	struct jt_trial_params p = { .margin = log(1.15), .relief_min_us_per_s = 10000,
				     .min_pairs = 3, .max_pairs = 10 };
	struct jt_side on = { .span_us = 64000000, .blocks = 10, .relief_waits = 3,
			      .relief_us = 1965000, .relief_events = 3 };
	struct jt_side off = { .span_us = 64000000, .blocks = 10, .relief_waits = 12,
			       .relief_us = 54675000, .relief_events = 9 };

	(void)state;
	assert_true(jt_pair_sign_p(&on) == 1.0);	/* no pair yet */
	on.pair_wins = 10;
	assert_true(fabs(jt_pair_sign_p(&on) - 1.0 / 1024) < 1e-9);
	on.pair_losses = 10;				/* even: one half or more */
	assert_true(jt_pair_sign_p(&on) > 0.5);
	on.pair_wins = 8;
	on.pair_losses = 0;				/* 2 ties left out: 2^-8 */
	assert_true(fabs(jt_pair_sign_p(&on) - 1.0 / 256) < 1e-9);
	assert_true(jt_relief_p(&on, &off) > 0.05);
	assert_true(fabs(jt_trial_relief_p(&on, &off) - 1.0 / 256) < 1e-9);
	assert_int_equal(jt_trial_judge(&p, &on, &off, 10, true, false), JT_VERDICT_KEEP);
	/* 6 of 8 (p 0.14), and the event test short of its level: no keep */
	on.pair_wins = 6;
	on.pair_losses = 2;
	assert_int_equal(jt_trial_judge(&p, &on, &off, 10, true, false),
			 JT_VERDICT_INCONCLUSIVE);
}

/*
 * A trial whose sides saw no relief wait at all has no evidence: it goes
 * on to the cap of pairs (inconclusive there), where one that saw the
 * waits on both sides alike ends "no relief" after the fewest.
 */
static void test_no_evidence(void **state)
{
	struct jt_trial_params p = { .margin = log(1.15), .relief_min_us_per_s = 10000,
				     .min_pairs = 3, .max_pairs = 10 };
	struct jt_side on = { .span_us = 15000000, .blocks = 3 };
	struct jt_side off = { .span_us = 15000000, .blocks = 3 };

	(void)state;
	assert_int_equal(jt_trial_judge(&p, &on, &off, 3, true, false), JT_VERDICT_CONTINUE);
	assert_int_equal(jt_trial_judge(&p, &on, &off, 10, true, false),
			 JT_VERDICT_INCONCLUSIVE);
	/* a re-check without waits: the load that needed the change is gone */
	assert_int_equal(jt_trial_judge(&p, &on, &off, 3, true, true),
			 JT_VERDICT_RELIEF_GONE);
	on.relief_waits = off.relief_waits = 5;
	on.relief_events = off.relief_events = 5;
	on.relief_us = off.relief_us = 2500000;
	assert_int_equal(jt_trial_judge(&p, &on, &off, 3, true, false),
			 JT_VERDICT_NO_RELIEF);
}

/*
 * The relief test's level per look: 0.004, the last look what 5 % leaves
 * after the earlier looks that could have kept (0.022 with 3..10 pairs
 * when all seven could).  Then the cases that made it so: agent-stall on
 * 6.1 beside a second such guest, "inconclusive after 20 blocks: shadow
 * waits 0.0 vs 219.6 ms/s ... relief p 0.016" against the 0.015 the last
 * look had at 0.005 per look: every on block without a shadow wait, six
 * off blocks with one (p = 2^-6), four pairs quiet on both sides.  And
 * make check in CI (stop 40, 2026-12-07): "inconclusive after 20 blocks:
 * shadow waits 0.0 vs 736.0 ms/s ... relief p 0.031": five off blocks
 * with a stall, none on, five pairs quiet.  With at most five events no
 * earlier look could have reached 0.004 (2^-5 = 0.031), so none spent
 * any of the 5 %, and the last look has all of it.
 */
static void test_relief_alpha(void **state)
{
	struct jt_trial_params p = { .min_pairs = 3, .max_pairs = 10,
				     .relief_min_us_per_s = 10000.0, .margin = log(1.15) };
	struct jt_side on = { 0 }, off = { 0 };

	(void)state;
	assert_true(fabs(jt_trial_relief_alpha(&p, 3) - 0.004) < 1e-12);
	assert_true(fabs(jt_trial_relief_alpha(&p, 9) - 0.004) < 1e-12);
	assert_true(fabs(jt_trial_relief_alpha(&p, 10) - 0.05) < 1e-12);
	p.looks_spent = 7;
	assert_true(fabs(jt_trial_relief_alpha(&p, 9) - 0.004) < 1e-12);
	assert_true(fabs(jt_trial_relief_alpha(&p, 10) - 0.022) < 1e-12);
	p.looks_spent = 40;	/* never more looks than the trial has */
	assert_true(fabs(jt_trial_relief_alpha(&p, 10) - 0.022) < 1e-12);

	on.span_us = off.span_us = 53000000;
	on.blocks = off.blocks = 10;
	on.commits = 77;
	off.commits = 172;
	on.commit_us = 53000000;
	off.commit_us = 53000000;
	off.relief_waits = off.relief_events = 6;
	off.relief_us = 11640000;			/* 219.6 ms/s */
	on.pair_wins = 6;				/* and four ties */
	assert_true(fabs(jt_trial_relief_p(&on, &off) - 1.0 / 64.0) < 1e-9);
	assert_true(fabs(jt_trial_min_p(&on, &off) - 1.0 / 64.0) < 1e-9);
	p.looks_spent = 7;				/* the worst case: 0.022 */
	assert_int_equal(jt_trial_judge(&p, &on, &off, 9, true, false),
			 JT_VERDICT_CONTINUE);
	assert_int_equal(jt_trial_judge(&p, &on, &off, 10, true, false),
			 JT_VERDICT_KEEP);
	/* five of five is 2^-5 = 0.031: above 0.022 ... */
	off.relief_waits = off.relief_events = 5;
	off.relief_us = 45632000;			/* 736.0 ms/s over 62 s */
	off.span_us = 62000000;
	on.span_us = 61000000;
	on.pair_wins = 5;
	assert_true(jt_trial_min_p(&on, &off) > JT_TRIAL_RELIEF_ALPHA);
	assert_int_equal(jt_trial_judge(&p, &on, &off, 10, true, false),
			 JT_VERDICT_INCONCLUSIVE);
	/* ... and below the 5 % that looks without the counts to keep left */
	p.looks_spent = 0;
	assert_int_equal(jt_trial_judge(&p, &on, &off, 10, true, false),
			 JT_VERDICT_KEEP);
	/* four of four (0.0625) is not enough at any look */
	off.relief_waits = off.relief_events = 4;
	on.pair_wins = 4;
	assert_int_equal(jt_trial_judge(&p, &on, &off, 10, true, false),
			 JT_VERDICT_INCONCLUSIVE);
	/* the smallest p: the sign test's or the event test's, whichever is smaller */
	on.pair_wins = 2;
	on.pair_losses = 1;
	off.relief_events = 8;
	assert_true(fabs(jt_trial_min_p(&on, &off) - pow(62.0 / 123.0, 8)) < 1e-12);
	off.relief_events = 0;
	assert_true(fabs(jt_trial_min_p(&on, &off) - 0.125) < 1e-12);
	on.pair_wins = on.pair_losses = 0;
	assert_true(jt_trial_min_p(&on, &off) == 1.0);

	p.max_pairs = 20;	/* 17 looks that could keep spend more than 5 %: the floor */
	p.looks_spent = 17;
	assert_true(fabs(jt_trial_relief_alpha(&p, 20) - 0.004) < 1e-12);
	p.max_pairs = 3;	/* one look: all of it */
	p.looks_spent = 0;
	assert_true(fabs(jt_trial_relief_alpha(&p, 3) - 0.05) < 1e-12);
}

static void test_cost(void **state)
{
	struct jt_side on = { 0 }, off = { 0 };
	struct jt_block b = { .span_us = 5000000, .commit_waits = 100, .commit_wait_us = 100 * 50000,
			      .commits = 100 };
	double r, se;

	(void)state;
	b.hist[15] = 100;		/* 50 ms */
	jt_side_add(&off, &b, false, NULL);
	assert_false(jt_cost_log_ratio(&on, &off, &r, &se));
	b.commit_wait_us = 100 * 100000;	/* 100 ms: doubled */
	b.hist[15] = 0;
	b.hist[16] = 100;
	jt_side_add(&on, &b, true, &off);
	assert_true(jt_cost_log_ratio(&on, &off, &r, &se));
	assert_true(fabs(r - log(2.0)) < 1e-9);
	/* sigma floor 0.5 over 100 commits a side */
	assert_true(fabs(se - 0.5 * sqrt(2.0 / 100)) < 1e-9);
	/* an on-block without any activity: no figure */
	memset(&b, 0, sizeof(b));
	b.span_us = 5000000;
	jt_side_add(&on, &b, true, &off);
	assert_int_equal(on.censored, 0);
	assert_int_equal(on.commit_waits, 100);
	/* one with a commit but no commit wait where the off side would show 100: censored */
	b.commits = 1;
	jt_side_add(&on, &b, true, &off);
	assert_int_equal(on.censored, 1);
	assert_int_equal(on.commit_waits, 101);
}

/*
 * The history's dispersion in the harm and cost tests: one commit wait a
 * side (6.12, bench/agent-field truncate: "commit-wait mean 118.5 vs 6.2
 * ms (1 vs 1 waits) ... harm z 4.0") is harm with the floor's CV of 0.5,
 * and not with the spread the journal's history shows.
 */
static void test_history_dispersion(void **state)
{
	struct jt_side on = { 0 }, off = { 0 };
	struct jt_block b = { .span_us = 5000000, .commit_waits = 1, .commit_wait_us = 6200,
			      .commits = 1 };
	uint64_t h[JT_HIST_BUCKETS] = { 0 };
	double margin = log1p(0.10), n, cv2;

	(void)state;
	b.hist[12] = 1;			/* 6.2 ms: [4.1, 8.2) ms */
	jt_side_add(&off, &b, false, NULL);
	b.commit_wait_us = 118500;
	b.hist[12] = 0;
	b.hist[16] = 1;			/* 118.5 ms: [65.5, 131.1) ms */
	jt_side_add(&on, &b, true, &off);
	/* (ln(118.5 / 6.2) - ln 1.1) / (0.5 x sqrt 2) = 4.04 */
	assert_true(fabs(jt_harm_z(&on, &off, margin, 0.0) - 4.04) < 0.01);
	assert_true(fabs(jt_harm_z(&on, &off, margin, 0.1) - 4.04) < 0.01);	/* CV 0.32 < floor */
	/* waits from 3 ms to 3 s outside trials (bucket midpoints): CV 2.71 */
	h[11] = 4;			/* 3 ms */
	h[14] = 3;			/* 24 ms */
	h[17] = 2;			/* 196 ms */
	h[21] = 1;			/* 3.1 s */
	cv2 = jt_hist_cv2(h, &n);
	assert_true(n == 10.0);
	assert_true(fabs(sqrt(cv2) - 2.71) < 0.01);
	assert_true(jt_harm_z(&on, &off, margin, cv2) < 1.0);
	/* before the first off block, none */
	assert_true(isinf(jt_harm_z(&on, &(struct jt_side){ 0 }, margin, cv2)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relief_p),
		cmocka_unit_test(test_relief_alpha),
		cmocka_unit_test(test_pair_sign),
		cmocka_unit_test(test_no_evidence),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_history_dispersion),
	};

	return cmocka_run_group_tests_name("trial", tests, NULL, NULL);
}
