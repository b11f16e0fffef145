// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The decision sequences A-G and R3 of
 * ../shared/cases/decision-sequences/, each asserting what the cases
 * folder says the agent should do, Q (agent-stall's quiet spell after a
 * first burst), S, T, U, Y, H and I, and the history's found value.
 * Lock delay's L1-L5 are in test-seq-lock.c.
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

#include "seq.h"

/* runs (load seeds and trial orders) of cases T and U */
#define SEQ_T_SEEDS 40

/* ---- the decision sequences (../shared/cases/decision-sequences/) ------- */

/* A: one fsync thread, 50 ms commits off, 4 s on; 20 shadow waits of 40 ms a second off. */
static void load_a(struct sim *m)
{
	if (m->s.knob[JT_KNOB_FORCE_COPY]) {
		sim_loop(m, JT_WAIT_COMMIT, 1.0, 4e6, 1.0);
		sim_loop(m, JT_WAIT_COMMIT_DURATION, 1.0, 4e6, 1.0);
	} else {
		commits(m, 20, 50000);
		sim_waits(m, JT_WAIT_SHADOW, 20, 40000);
	}
}

static void test_seq_a(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	sim_init(&m, 1);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 7200, load_a);
	print_sim("A (2 h)", &m);
	/* reverted within one trial, every time; force copy on well under 1 % of the time */
	assert_int_equal(m.first_verdict, 2);
	assert_int_equal(m.keeps, 0);
	assert_int_equal(m.harms, m.trials);
	assert_true(m.on_s[JT_KNOB_FORCE_COPY] < 0.01 * 7200);
	assert_int_equal(m.s.knob[JT_KNOB_FORCE_COPY], 0);
}

/*
 * What the history holds: only the commit waits of the values in force.  Case A's
 * load (commit waits of 50 ms with force copy off, 4 s with it on) through
 * its first trial: the 4-s waits of the on block, and those of its last
 * commit that ends after the revert, stay out, so the next trial's harm
 * test still sees case A's steady 50 ms.
 */
static void test_history_found_value(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;
	unsigned int i, j;
	uint64_t long_waits = 0;
	double n, cv2;

	(void)state;
	sim_init(&m, 1);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 200, load_a);
	assert_int_equal(m.harms, 1);
	for (i = 0; i < JT_HISTORY_SLOTS; i++)
		for (j = 17; j < JT_HIST_BUCKETS; j++)	/* 131 ms and longer */
			long_waits += st.history.hist[i][j];
	assert_int_equal(long_waits, 0);
	cv2 = jt_history_cv2(&st, &n);
	assert_true(n > 1000.0);
	assert_true(cv2 < 0.01);
}

/*
 * B: from 61 s, 20 shadow waits of 40 ms a second while force copy is off;
 * two threads in fsync a tenth of the time (4 commit waits of 50 ms a
 * second); a backup makes every commit wait 62.5 ms from 5 s after the
 * agent's first change, on and off alike.
 */
static double b_change_s;

static void load_b(struct sim *m)
{
	double w = b_change_s > 0 && m->t_s >= b_change_s + 5 ? 62500 : 50000;

	commits(m, 4, w);
	if (m->t_s >= 61 && !m->s.knob[JT_KNOB_FORCE_COPY])
		sim_waits(m, JT_WAIT_SHADOW, 20, 40000);
	if (b_change_s == 0 && m->writes)
		b_change_s = m->t_s;
}

static void test_seq_b(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	sim_init(&m, 2);
	jt_journal_state_init(&st);
	b_change_s = 0;
	run(&m, &st, &jp, 600, load_b);
	print_sim("B (10 min)", &m);
	assert_int_equal(m.first_verdict, 1);	/* kept: the backup hit both sides */
	assert_int_equal(m.harms, 0);
	assert_int_equal(m.s.knob[JT_KNOB_FORCE_COPY], 1);
}

/* C: below 55 % one 200 ms space wait every 10 s, none at >= 55; 5 commit waits of 20 ms a second. */
static void load_c(struct sim *m)
{
	commits(m, 5, 20000);
	if (m->s.knob[JT_KNOB_RECLAIM] < 55 && ((unsigned int)m->t_s % 10) == 0)
		sim_wait(m, JT_WAIT_SPACE, 200000);
}

static void test_seq_c(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	sim_init(&m, 3);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 1200, load_c);
	print_sim("C (20 min)", &m);
	assert_int_equal(m.s.knob[JT_KNOB_RECLAIM], 55);	/* the lowest value that keeps the waits away */
	assert_true(st.knob[JT_KNOB_RECLAIM].kept);
	assert_int_equal(m.harms, 0);
	assert_true(m.writes < 60);				/* the old engine: 60 in 20 min */
}

/* D: every 30 s, 9 shadow waits of 1.5 s; 5 commit waits of 20 ms a second. */
static void load_d(struct sim *m)
{
	commits(m, 5, 20000);
	if (((unsigned int)m->t_s % 30) == 0 && !m->s.knob[JT_KNOB_FORCE_COPY])
		sim_waits(m, JT_WAIT_SHADOW, 9, 1500000);
}

static void test_seq_d(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	sim_init(&m, 4);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 600, load_d);
	print_sim("D (10 min)", &m);
	/* the first burst is at 30 s: a trial within 2 intervals */
	assert_true(m.first_trial_s >= 30 && m.first_trial_s <= 32);
}

/*
 * Q: the load's first burst of shadow waits (6 of 500 ms at 20 s), a
 * quiet spell to 90 s, then 2 a second of 300 ms that force
 * copy removes; 5 commit waits of 20 ms a second throughout (agent-stall
 * on 6.1: a trial begun on the first burst ended "no relief after 6
 * blocks: shadow waits 0.0 vs 0.0 ms/s" and its 300-s back-off kept force
 * copy off when the stalls came back).
 */
static void load_q(struct sim *m)
{
	commits(m, 5, 20000);
	if (m->t_s == 20)
		sim_waits(m, JT_WAIT_SHADOW, 6, 500000);
	if (m->t_s >= 90 && !m->s.knob[JT_KNOB_FORCE_COPY])
		sim_waits(m, JT_WAIT_SHADOW, 2, 300000);
}

static void test_seq_q(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	jp.reclaim = JT_MODE_OFF;
	sim_init(&m, 17);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 300, load_q);
	print_sim("Q (5 min)", &m);
	assert_true(m.first_trial_s >= 20 && m.first_trial_s <= 22);
	assert_int_equal(m.trials, 1);		/* one trial, which outlasted the quiet spell */
	assert_int_equal(m.keeps, 1);
	assert_int_equal(m.s.knob[JT_KNOB_FORCE_COPY], 1);
}

/*
 * S: a shadow wait of 2 s every 5 s while force copy is off, 5 commit
 * waits of 20 ms a second throughout; the load pauses from 590 s after
 * force copy was kept to 660 s after, so the re-check (600 s after) sees
 * no shadow wait on either side.  bench/agent-field, 6.12, seed load,
 * 2026-12-07: such a re-check at the start of a run took force copy back
 * ("relief gone after 6 blocks: shadow waits 0.0 vs 0.0 ms/s"), and its
 * 300-s back-off kept it off while the writer stalled for seconds; the
 * run's writer p99.9 was 1,149 ms against 22 ms with force copy fixed on.
 */
static double seq_s_quiet_from = -1.0, seq_s_quiet_to = -1.0;

static void load_s(struct sim *m)
{
	bool quiet = m->t_s >= seq_s_quiet_from && m->t_s < seq_s_quiet_to;

	commits(m, 5, 20000);
	if (!quiet && !m->s.knob[JT_KNOB_FORCE_COPY] && ((unsigned int)m->t_s % 5) == 0)
		sim_wait(m, JT_WAIT_SHADOW, 2000000);
}

static void test_seq_s(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;
	double kept_s = -1.0, revert_s = -1.0, again_s = -1.0;
	unsigned int k, trials = 0;

	(void)state;
	jp.reclaim = JT_MODE_OFF;
	sim_init(&m, 29);
	jt_journal_state_init(&st);
	seq_s_quiet_from = seq_s_quiet_to = -1.0;
	for (k = 0; k < 1200; k++) {
		load_s(&m);
		sim_step(&m, &T1, &jp, &st, false);
		if (kept_s < 0 && m.keeps) {
			kept_s = m.t_s - 1.0;
			seq_s_quiet_from = kept_s + 590.0;
			seq_s_quiet_to = kept_s + 660.0;
		}
		if (kept_s >= 0 && revert_s < 0 && !m.s.knob[JT_KNOB_FORCE_COPY] &&
		    !st.trial.active && !strcmp(st.knob[JT_KNOB_FORCE_COPY].last_verdict, "relief gone"))
			revert_s = m.t_s - 1.0;
		if (m.trials > trials) {
			trials = m.trials;
			if (revert_s >= 0 && again_s < 0)
				again_s = m.t_s - 1.0;
		}
	}
	print_sim("S (20 min)", &m);
	print_message("# S: kept at %.0f s, taken back at %.0f s, tried again at %.0f s (the load back at %.0f s)\n",
		      kept_s, revert_s, again_s, seq_s_quiet_to);
	assert_true(kept_s > 0 && kept_s < 200);
	/* the re-check in the pause takes it back: no evidence keeps nothing */
	assert_true(revert_s > seq_s_quiet_from && revert_s < seq_s_quiet_to);
	/* nothing was proven against it: a trial as soon as the 2-s stalls are back */
	assert_true(again_s >= seq_s_quiet_to && again_s <= seq_s_quiet_to + 7.0);
	assert_int_equal(m.keeps, 2);
	assert_int_equal(m.s.knob[JT_KNOB_FORCE_COPY], 1);
}

/*
 * T: bench/agent-field's truncate load in miniature (2026-12-07, 6.1).
 * For its first 25 s the journal is nearly idle: 2 commit waits of 20 ms
 * a second.  Then the truncate loop's fsync pays the writer's ordered
 * data: one commit wait of 1.4 s every 5 s, whatever the knob (the
 * measured minute: 13 commit waits, mean 1,424 ms, with force copy off;
 * 8-14, mean 770-1,041 ms, with it on).  While force copy is off, a
 * shadow wait of 400 ms every 5 s from 20 s on, which it removes.  The
 * trial starts at 23 s, so the window before it is the idle start; while
 * that window was the harm test's baseline, 28 of 40 trial orders ended
 * "harm" (force copy on 48 % of the time), as in the field: "harm after
 * 1 block: ... commit-wait mean 3499.3 vs 21.4 ms (1 vs 5 waits) ... on
 * vs off over 3 vs 26 s".
 */
static void load_t(struct sim *m)
{
	unsigned int t = (unsigned int)m->t_s;

	if (t < 25)
		commits(m, 2, 20000);
	else if (t % 5 == 0)
		commits(m, 1, 1.4e6);
	if (t >= 20 && t % 5 == 2 && !m->s.knob[JT_KNOB_FORCE_COPY])
		sim_waits(m, JT_WAIT_SHADOW, 1, 400000);
}

/* What force copy did over many runs of one load (cases T and U). */
struct seq_runs {
	unsigned int kept_end, harms, trials;
	double on_s;
};

/*
 * SEQ_T_SEEDS runs of @secs of @load with force copy alone in auto, each
 * with its own load seed and trial order; prints the tally as case @name.
 */
static void seq_runs(const char *name, void (*load)(struct sim *m), unsigned int secs,
		     struct seq_runs *r)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;
	unsigned int seed;

	memset(r, 0, sizeof(*r));
	jp.reclaim = JT_MODE_OFF;
	for (seed = 1; seed <= SEQ_T_SEEDS; seed++) {
		sim_init(&m, 1000 + seed);
		jt_journal_state_init(&st);
		jt_policy_seed(&st, seed);
		run(&m, &st, &jp, secs, load);
		/* kept: on, or in a re-check's off block at the end */
		r->kept_end += m.s.knob[JT_KNOB_FORCE_COPY] == 1 || st.knob[JT_KNOB_FORCE_COPY].kept;
		r->harms += m.harms;
		r->trials += m.trials;
		r->on_s += m.on_s[JT_KNOB_FORCE_COPY];
	}
	print_message("# %s (%u min, %u runs): force_copy on %.1f %% of the time, on at the end in %u; %u trials, %u reverted for harm\n",
		      name, secs / 60, SEQ_T_SEEDS, 100.0 * r->on_s / (secs * SEQ_T_SEEDS),
		      r->kept_end, r->trials, r->harms);
}

static void test_seq_t(void **state)
{
	struct seq_runs r;

	(void)state;
	seq_runs("T", load_t, 600, &r);
	/* judged against its own off blocks, the change is kept in every order */
	assert_int_equal(r.harms, 0);
	assert_int_equal(r.trials, SEQ_T_SEEDS);
	assert_int_equal(r.kept_end, SEQ_T_SEEDS);
	/* off until the trial (23 s), on for half of it, then to the end */
	assert_true(r.on_s > 0.8 * 600.0 * SEQ_T_SEEDS);
}

/*
 * U: rare long commit waits whatever the knob.  Two commit waits of 20 ms
 * a second and, in one second of 20 at random, one of 4 s (a commit that
 * writes a buffered writer's ordered data, as in the truncate load); 10
 * shadow waits of 50 ms a second while force copy is off, which it
 * removes at no cost.  A 4-s wait that falls in an on block while the off
 * blocks had none looks like case A's harm unless the harm test knows
 * how spread the journal's commit waits are: its history (the waits of
 * the values in force over the last minutes) does.  Without it, 27 of 69 trials
 * ended in harm over 40 runs and force copy was on 81.2 % of the time (5
 * runs ended with it off); with it, 10 of 57, 88.5 %, on at every end.
 */
static void load_u(struct sim *m)
{
	commits(m, 2, 20000);
	if (sim_uniform(m) < 1.0 / 20.0)
		commits(m, 1, 4e6);
	if (!m->s.knob[JT_KNOB_FORCE_COPY])
		sim_waits(m, JT_WAIT_SHADOW, 10, 50000);
}

static void test_seq_u(void **state)
{
	struct seq_runs r;

	(void)state;
	seq_runs("U", load_u, 1800, &r);
	assert_true(r.harms <= 12);
	/*
	 * since harm is confirmed by the off block after the on block that
	 * raised it (agent-policy.md, "The verdict"): 8 of 58 trials ended
	 * in harm, force copy on 85.0 % of the time, 38 runs of 40 kept at
	 * the end (the other two in a back-off)
	 */
	assert_true(r.kept_end >= SEQ_T_SEEDS - 2);
	assert_true(r.on_s > 0.84 * 1800.0 * SEQ_T_SEEDS);
}

/*
 * Y: a first burst of shadow waits (6 of 500 ms at 20 s) starts a force
 * copy trial; from 30 s on, space waits of 200 ms, 4 a second (800 ms/s),
 * that any watermark removes, while shadow waits stay away; 5 commit waits
 * of 20 ms a second throughout (agent-advice, 2026-12-04: the force copy
 * trial ran its 20 blocks to "inconclusive" while space waits cost 767
 * ms/s, and the reclaim trial came 100 s late).
 */
static void load_y(struct sim *m)
{
	commits(m, 5, 20000);
	if (m->t_s == 20)
		sim_waits(m, JT_WAIT_SHADOW, 6, 500000);
	if (m->t_s >= 30 && !m->s.knob[JT_KNOB_RECLAIM])
		sim_waits(m, JT_WAIT_SPACE, 4, 200000);
}

static void test_seq_y(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;
	double verdict_s = -1.0;
	unsigned int k;

	(void)state;
	sim_init(&m, 23);
	jt_journal_state_init(&st);
	for (k = 0; k < 300; k++) {
		load_y(&m);
		sim_step(&m, &T1, &jp, &st, false);
		if (verdict_s < 0 && m.first_verdict)
			verdict_s = m.t_s - 1.0;
	}
	print_sim("Y (5 min)", &m);
	print_message("# Y: force copy's verdict at %.0f s\n", verdict_s);
	assert_int_equal(m.first_trial_knob, JT_KNOB_FORCE_COPY);
	assert_true(m.first_trial_s >= 20 && m.first_trial_s <= 22);
	/*
	 * gave way at the end of its third pair, the minimum (5 s blocks and
	 * their settling: at 62 s), not at its cap of 10 pairs (about 160 s)
	 */
	assert_int_equal(m.first_verdict, 3);
	assert_string_equal(st.knob[JT_KNOB_FORCE_COPY].last_verdict, "yielded");
	assert_true(verdict_s > 30 && verdict_s <= 65);
	assert_int_equal(m.s.knob[JT_KNOB_FORCE_COPY], 0);
	/* then the watermark's trial, kept */
	assert_true(st.knob[JT_KNOB_RECLAIM].kept);
	assert_true(m.s.knob[JT_KNOB_RECLAIM] > 0);
	assert_int_equal(m.harms, 0);
}

/* E: one 300 ms space wait every 5 s at any watermark; any watermark makes commits 8 % longer. */
static void load_e(struct sim *m)
{
	commits(m, 5, m->s.knob[JT_KNOB_RECLAIM] ? 21600 : 20000);
	if (((unsigned int)m->t_s % 5) == 0)
		sim_wait(m, JT_WAIT_SPACE, 300000);
}

static void test_seq_e(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	sim_init(&m, 5);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 3600, load_e);
	print_sim("E (1 h)", &m);
	assert_int_equal(m.keeps, 0);			/* never kept: it never removed a wait */
	assert_int_equal(m.s.knob[JT_KNOB_RECLAIM], 0);
	assert_true(m.on_s[JT_KNOB_RECLAIM] < 0.12 * 3600);	/* on blocks of trials only */
}

/*
 * F: the agent starts under load: 3 commit waits of 50 ms a second and 10
 * shadow waits of 40 ms; force copy makes each 150 ms and the loop slows
 * to one a second.
 */
static void load_f(struct sim *m)
{
	if (m->s.knob[JT_KNOB_FORCE_COPY]) {
		commits(m, 1, 150000);
	} else {
		commits(m, 3, 50000);
		sim_waits(m, JT_WAIT_SHADOW, 10, 40000);
	}
}

static void test_seq_f(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;
	unsigned int k;

	(void)state;
	sim_init(&m, 6);
	for (k = 0; k < 600; k++)	/* the load ran before the agent started */
		load_f(&m);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 600, load_f);
	print_sim("F (10 min)", &m);
	assert_int_equal(m.first_verdict, 2);	/* reverted: 3x per-wait commit latency */
	assert_int_equal(m.keeps, 0);
	assert_int_equal(m.s.knob[JT_KNOB_FORCE_COPY], 0);
}

/* G: 100 shadow waits of 8.5 ms a second; once, long before, one of 50 ms. */
static void load_g(struct sim *m)
{
	commits(m, 5, 20000);
	sim_waits(m, JT_WAIT_SHADOW, 100, 8500);
}

static void test_seq_g(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	sim_init(&m, 7);
	sim_wait(&m, JT_WAIT_SHADOW, 50000);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 600, load_g);
	print_sim("G (10 min)", &m);
	assert_int_equal(m.trials, 0);		/* no wait in any window reached 10 ms */
	assert_int_equal(m.writes, 0);
}

/*
 * H: a load starting up (agent-advice in make check on a starved host):
 * for 3 s a space wait of 20 ms a second and one commit wait of 3.6 ms
 * (the trial starts at 2 s, its first block, on, is busy); from then on, whatever the watermark, 4 space waits of 1 s a second and
 * one commit of 420 ms with one commit wait.  The trial's first on block
 * falls in the busy part and the window before the trial in the quiet
 * one: no like-for-like baseline for the harm test until the first off
 * block (then JT_TRIAL_HARM_PRE_MIN, since case T none but the off blocks),
 * and the off blocks wait as long.  Before,
 * "harm after 1 block: ... commit-wait mean 420.6 vs 3.6 ms (1 vs 1
 * waits)" and the journal-size advice never came.
 */
static void load_h(struct sim *m)
{
	if (m->t_s < 3.0) {
		sim_wait(m, JT_WAIT_SPACE, 20000);
		if ((unsigned int)m->t_s == 2)
			commits(m, 1, 3600);
		return;
	}
	commits(m, 1, 420000);
	sim_waits(m, JT_WAIT_SPACE, 4, 1000000);
}

/*
 * Run @secs of @load with reclaim alone in auto, tried at its top first
 * (agent-advice's drop-in: reclaim_watermark_pct 70, 6 s blocks), the
 * trial order from @order_seed.
 */
static void run_reclaim_top(struct sim *m, struct jt_journal_state *st, uint64_t seed,
			    uint64_t order_seed, unsigned int secs, void (*load)(struct sim *m))
{
	struct jt_journal_policy jp = shipped();

	jp.force_copy = JT_MODE_OFF;
	jp.reclaim_watermark_pct = 70;
	jp.trial_block_s = 6;
	sim_init(m, seed);
	jt_journal_state_init(st);
	jt_policy_seed(st, order_seed);
	run(m, st, &jp, secs, load);
}

static void test_seq_h(void **state)
{
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	run_reclaim_top(&m, &st, 9, 2, 300, load_h);	/* order seed 2: the first block on */
	print_sim("H (5 min)", &m);
	assert_true(m.trials >= 1);
	assert_int_equal(m.harms, 0);
	assert_int_equal(m.first_verdict, 3);	/* no relief: the waits are the journal's size */
	assert_int_equal(m.keeps, 0);
	assert_int_equal(m.s.knob[JT_KNOB_RECLAIM], 0);
	/* the top failed: the journal-size advice may follow (advice.c) */
	assert_true(st.knob[JT_KNOB_RECLAIM].top_only);
}

/*
 * I: the same busy load from the start, but a watermark makes each commit
 * wait 4x longer: harm at the top of the range, after a like-for-like
 * baseline; top_only is set as after no relief, so the advice may follow.
 */
static void load_i(struct sim *m)
{
	commits(m, 5, m->s.knob[JT_KNOB_RECLAIM] ? 400000 : 100000);
	sim_waits(m, JT_WAIT_SPACE, 4, 1000000);
}

static void test_seq_i(void **state)
{
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	run_reclaim_top(&m, &st, 10, 2, 120, load_i);
	print_sim("I (2 min)", &m);
	assert_int_equal(m.first_verdict, 2);
	assert_int_equal(m.s.knob[JT_KNOB_RECLAIM], 0);
	assert_true(st.knob[JT_KNOB_RECLAIM].top_only);
}

static void load_quiet(struct sim *m)
{
	(void)m;
}

/*
 * R3: force_copy = on, reclaim = on; the journal unmounted and mounted again
 * within one interval: a new group, knobs at the module defaults, counters
 * still 0.  The policy is applied again; it is no administrator's write.
 */
static void test_seq_r3(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;
	unsigned int i, restarts = 0, releases = 0, sets = 0;

	(void)state;
	jp.force_copy = JT_MODE_ON;
	jp.reclaim = JT_MODE_ON;
	sim_init(&m, 8);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 5, load_quiet);
	assert_int_equal(m.s.knob[JT_KNOB_FORCE_COPY], 1);
	assert_int_equal(m.s.knob[JT_KNOB_RECLAIM], 50);
	m.s.source_id = 2;
	m.s.knob[JT_KNOB_FORCE_COPY] = 0;
	m.s.knob[JT_KNOB_RECLAIM] = 0;
	sim_step(&m, &T1, &jp, &st, false);
	for (i = 0; i < m.n_last; i++) {
		restarts += m.last[i].kind == JT_DECISION_RESTART;
		releases += m.last[i].kind == JT_DECISION_RELEASE;
		sets += m.last[i].kind == JT_DECISION_SET;
	}
	assert_int_equal(restarts, 1);
	assert_int_equal(releases, 0);
	assert_int_equal(sets, 2);
	assert_int_equal(m.s.knob[JT_KNOB_FORCE_COPY], 1);
	assert_int_equal(m.s.knob[JT_KNOB_RECLAIM], 50);
	assert_int_equal(st.knob[JT_KNOB_FORCE_COPY].found, 0);	/* still the value found first */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_found_value),
		cmocka_unit_test(test_seq_a),
		cmocka_unit_test(test_seq_b),
		cmocka_unit_test(test_seq_c),
		cmocka_unit_test(test_seq_d),
		cmocka_unit_test(test_seq_e),
		cmocka_unit_test(test_seq_q),
		cmocka_unit_test(test_seq_s),
		cmocka_unit_test(test_seq_t),
		cmocka_unit_test(test_seq_u),
		cmocka_unit_test(test_seq_y),
		cmocka_unit_test(test_seq_f),
		cmocka_unit_test(test_seq_g),
		cmocka_unit_test(test_seq_h),
		cmocka_unit_test(test_seq_i),
		cmocka_unit_test(test_seq_r3),
	};

	return cmocka_run_group_tests_name("seq", tests, NULL, NULL);
}
