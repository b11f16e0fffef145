// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The decision sequences L1-L5 of lock delay (issue 21, item 4): the
 * ladder climbed to the lowest delay that removes the locked waits, a
 * delay that only costs taken back, lock delay beside force copy.
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

/* ---- lock delay (issue 21, item 4) -------------------------------------- */

/* Locked waits of 200 ms, three every two seconds: 300 ms/s. */
static void locked_waits(struct sim *m)
{
	sim_waits(m, JT_WAIT_LOCKED, ((unsigned int)m->t_s % 2) ? 2 : 1, 200000);
}

/* L1: any lock delay removes the locked waits; commit waits stay 5 of 20 ms a second. */
static void load_l1(struct sim *m)
{
	commits(m, 5, 20000);
	if (!m->s.knob[JT_KNOB_LOCK_DELAY])
		locked_waits(m);
}

static void test_seq_l1(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	jp.lock_delay = JT_MODE_AUTO;
	sim_init(&m, 11);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 1200, load_l1);
	print_sim("L1 (20 min)", &m);
	assert_int_equal(m.first_trial_knob, JT_KNOB_LOCK_DELAY);
	assert_int_equal(m.first_verdict, 1);
	assert_int_equal(m.harms, 0);
	/* the lowest step that removes the waits, kept, and the other knobs untouched */
	assert_int_equal(m.s.knob[JT_KNOB_LOCK_DELAY], 100);
	assert_true(st.knob[JT_KNOB_LOCK_DELAY].kept);
	assert_int_equal(m.knob_writes[JT_KNOB_FORCE_COPY] + m.knob_writes[JT_KNOB_RECLAIM], 0);
}

/* L2: the locked waits stay at every step, and any delay doubles each commit wait. */
static void load_l2(struct sim *m)
{
	commits(m, 5, m->s.knob[JT_KNOB_LOCK_DELAY] ? 40000 : 20000);
	locked_waits(m);
}

static void test_seq_l2(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	jp.lock_delay = JT_MODE_AUTO;
	sim_init(&m, 12);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 3600, load_l2);
	print_sim("L2 (1 h)", &m);
	assert_true(m.trials >= 1);
	assert_int_equal(m.keeps, 0);		/* never kept: harm or no relief, every time */
	assert_int_equal(m.harms + m.others, m.trials);
	assert_int_equal(m.first_verdict, 2);
	assert_int_equal(m.s.knob[JT_KNOB_LOCK_DELAY], 0);
	assert_true(m.on_s[JT_KNOB_LOCK_DELAY] < 0.05 * 3600);	/* on blocks of trials only */
}

static void test_seq_l3(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	/* off, as shipped: L1's load, lock_delay_max_ms never written */
	sim_init(&m, 13);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 600, load_l1);
	print_sim("L3 off at 0 (10 min)", &m);
	assert_int_equal(m.knob_writes[JT_KNOB_LOCK_DELAY], 0);
	assert_int_equal(m.trials, 0);
	/* ... nor when the module's lock_delay_max_ms_default put 5000 there */
	sim_init(&m, 14);
	m.s.knob[JT_KNOB_LOCK_DELAY] = 5000;
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 600, load_l2);
	print_sim("L3 off at 5000 (10 min)", &m);
	assert_int_equal(m.knob_writes[JT_KNOB_LOCK_DELAY], 0);
	assert_int_equal(m.s.knob[JT_KNOB_LOCK_DELAY], 5000);
	/* on writes lock_delay_ms once; off afterwards puts back what was found */
	jp.lock_delay = JT_MODE_ON;
	run(&m, &st, &jp, 10, load_l2);
	assert_int_equal(m.knob_writes[JT_KNOB_LOCK_DELAY], 1);
	assert_int_equal(m.s.knob[JT_KNOB_LOCK_DELAY], 1000);
	jp.lock_delay = JT_MODE_OFF;
	run(&m, &st, &jp, 10, load_l2);
	assert_int_equal(m.knob_writes[JT_KNOB_LOCK_DELAY], 2);
	assert_int_equal(m.s.knob[JT_KNOB_LOCK_DELAY], 5000);
	/* an older module without the knob: neither auto nor on writes it */
	sim_init(&m, 15);
	m.s.has_lock_delay = false;
	jt_journal_state_init(&st);
	jp.lock_delay = JT_MODE_AUTO;
	run(&m, &st, &jp, 600, load_l1);
	jp.lock_delay = JT_MODE_ON;
	run(&m, &st, &jp, 10, load_l1);
	assert_int_equal(m.knob_writes[JT_KNOB_LOCK_DELAY], 0);
}

/* L4: A's shadow waits while force copy is off (its cure) and L1's locked waits. */
static void load_l4(struct sim *m)
{
	commits(m, 5, 20000);
	if (!m->s.knob[JT_KNOB_FORCE_COPY])
		sim_waits(m, JT_WAIT_SHADOW, 20, 40000);
	if (!m->s.knob[JT_KNOB_LOCK_DELAY])
		locked_waits(m);
}

static void test_seq_l4(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	jp.lock_delay = JT_MODE_AUTO;
	sim_init(&m, 16);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 1200, load_l4);
	print_sim("L4 (20 min)", &m);
	assert_int_equal(m.first_trial_knob, JT_KNOB_FORCE_COPY);	/* both triggered: force copy first */
	assert_true(m.trials >= 2);
	/* one trial at a time: both kept in turn */
	assert_int_equal(m.s.knob[JT_KNOB_FORCE_COPY], 1);
	assert_int_equal(m.s.knob[JT_KNOB_LOCK_DELAY], 100);
}

/* L5: only a delay of 1000 ms or more removes the locked waits: the ladder is climbed. */
static void load_l5(struct sim *m)
{
	commits(m, 5, 20000);
	if (m->s.knob[JT_KNOB_LOCK_DELAY] < 1000)
		locked_waits(m);
}

static void test_seq_l5(void **state)
{
	struct jt_journal_policy jp = shipped();
	static struct jt_journal_state st;
	static struct sim m;

	(void)state;
	jp.lock_delay = JT_MODE_AUTO;
	sim_init(&m, 17);
	jt_journal_state_init(&st);
	run(&m, &st, &jp, 1200, load_l5);
	print_sim("L5 (20 min)", &m);
	assert_int_equal(m.first_verdict, 3);	/* 100 ms: no relief, 1000 tried next at once */
	assert_int_equal(m.harms, 0);
	assert_int_equal(m.s.knob[JT_KNOB_LOCK_DELAY], 1000);	/* not 5000: the lowest that works */
	assert_true(st.knob[JT_KNOB_LOCK_DELAY].kept);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_l1),
		cmocka_unit_test(test_seq_l2),
		cmocka_unit_test(test_seq_l3),
		cmocka_unit_test(test_seq_l4),
		cmocka_unit_test(test_seq_l5),
	};

	return cmocka_run_group_tests_name("seq-lock", tests, NULL, NULL);
}
