// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the state file (persist.c): the text round trip, bad
 * input, and the conversion of what the policy learned to wall-clock
 * deadlines and back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "persist.h"
#include "policy.h"

static void test_round_trip(void **state)
{
	struct jt_persist p, q;
	char text[JT_PERSIST_TEXT_MAX], text2[JT_PERSIST_TEXT_MAX];
	unsigned int line;

	(void)state;
	memset(&p, 0, sizeof(p));
	snprintf(p.identity, sizeof(p.identity), "vdb-8 254:16 5f1c2d3e");
	p.saved_realtime_us = 1796000000000000ULL;
	p.knob[JT_KNOB_FORCE_COPY] = (struct jt_persist_knob){
		.seen = true, .managed = false, .changed = true, .found = 0, .expected = 1,
		.kept = true, .kept_from = 0, .kept_to = 1, .kept_realtime_us = 1795999999000000ULL,
		.backoff_us = 600000000, .blocked_from = 0, .blocked_up = true,
		.blocked_until_realtime_us = 1796000300000000ULL, .has_override = true,
		.override = JT_MODE_ON, .trials = 3, .keeps = 1, .harms = 2, .last_verdict = "harm",
	};
	p.knob[JT_KNOB_RECLAIM] = (struct jt_persist_knob){
		.seen = true, .managed = true, .found = 0, .expected = 55, .next_try = 60,
		.top_only = true, .last_verdict = "no relief",
	};
	/* lock delay: a kept step of the ladder and a SetMode() override */
	p.knob[JT_KNOB_LOCK_DELAY] = (struct jt_persist_knob){
		.seen = true, .managed = true, .changed = true, .found = 0, .expected = 100,
		.kept = true, .kept_from = 0, .kept_to = 100, .kept_realtime_us = 1795999000000000ULL,
		.next_try = 1000, .has_override = true, .override = JT_MODE_AUTO, .trials = 2,
		.keeps = 1, .fails = 1, .last_verdict = "keep",
	};
	p.trial_active = true;
	p.trial_knob = JT_KNOB_RECLAIM;
	p.trial_from = 0;
	p.trial_to = 55;
	jt_persist_format(&p, text, sizeof(text));
	assert_non_null(strstr(text, "jbd2-tuned-state 1\nidentity vdb-8 254:16 5f1c2d3e\n"));
	assert_non_null(strstr(text, "\nforce_copy.blocked_until_realtime_us 1796000300000000\n"));
	assert_non_null(strstr(text, "\nforce_copy.override on\n"));
	assert_non_null(strstr(text, "\ntrial reclaim 0 55\n"));
	assert_non_null(strstr(text, "\nlock_delay.kept_to 100\n"));
	assert_non_null(strstr(text, "\nlock_delay.override auto\n"));
	assert_int_equal(jt_persist_parse(text, &q, &line), 0);
	/* what was read formats to the same text, field for field */
	jt_persist_format(&q, text2, sizeof(text2));
	assert_string_equal(text, text2);
	assert_true(q.trial_active && q.trial_knob == JT_KNOB_RECLAIM && q.trial_to == 55);
	assert_true(q.knob[JT_KNOB_RECLAIM].top_only && q.knob[JT_KNOB_RECLAIM].next_try == 60);
	assert_true(q.knob[JT_KNOB_LOCK_DELAY].kept && q.knob[JT_KNOB_LOCK_DELAY].kept_to == 100);
	assert_int_equal(q.knob[JT_KNOB_LOCK_DELAY].next_try, 1000);
	assert_int_equal(q.knob[JT_KNOB_LOCK_DELAY].override, JT_MODE_AUTO);
	assert_int_equal(q.knob[JT_KNOB_LOCK_DELAY].fails, 1);
}

static void test_bad_input(void **state)
{
	struct jt_persist q;
	unsigned int line;

	(void)state;
	assert_int_equal(jt_persist_parse("", &q, &line), -EINVAL);
	assert_int_equal(jt_persist_parse("jbd2-tuned-state 2\n", &q, &line), -EINVAL);
	assert_int_equal(line, 1);
	assert_int_equal(jt_persist_parse("jbd2-tuned-state 1\nforce_copy.found x\n", &q, &line),
			 -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(jt_persist_parse("jbd2-tuned-state 1\nforce_copy.seen 2\n", &q, &line),
			 -EINVAL);
	assert_int_equal(jt_persist_parse("jbd2-tuned-state 1\nforce_copy.backoff_us -1\n", &q,
					  &line), -EINVAL);
	assert_int_equal(jt_persist_parse("jbd2-tuned-state 1\nforce_copy.override maybe\n", &q,
					  &line), -EINVAL);
	assert_int_equal(jt_persist_parse("jbd2-tuned-state 1\ntrial nosuch 0 1\n", &q, &line),
			 -EINVAL);
	assert_int_equal(jt_persist_parse("jbd2-tuned-state 1\nidentity\n", &q, &line), -EINVAL);
	/* a newer agent's keys are skipped */
	assert_int_equal(jt_persist_parse("jbd2-tuned-state 1\nnext_knob.found 5\nfuture 1\n"
					  "force_copy.found 1\n", &q, &line), 0);
	assert_int_equal(q.knob[JT_KNOB_FORCE_COPY].found, 1);
}

/* Deadlines go out as wall-clock time and come back onto a new monotonic clock. */
static void test_clocks(void **state)
{
	static struct jt_journal_state st, st2;
	struct jt_persist p;

	(void)state;
	jt_journal_state_init(&st);
	st.knob[JT_KNOB_FORCE_COPY] = (struct jt_knob_state){
		.seen = true, .managed = true, .found = 0, .value = 0, .expected = 0,
		.blocked_until_us = 1000000000ULL + 3600000000ULL, .blocked_up = true,
		.backoff_us = 7200000000ULL,
	};
	memset(&p, 0, sizeof(p));
	/* saved at monotonic 1000 s, wall clock T */
	jt_persist_from_state(&st, 1000000000ULL, 1796000000000000ULL, &p);
	assert_true(p.knob[JT_KNOB_FORCE_COPY].blocked_until_realtime_us ==
		    1796000000000000ULL + 3600000000ULL);
	/* read 60 s later by a process whose monotonic clock reads 5 s */
	jt_journal_state_init(&st2);
	jt_persist_to_state(&p, 5000000ULL, 1796000000000000ULL + 60000000ULL, &st2);
	assert_true(st2.knob[JT_KNOB_FORCE_COPY].blocked_until_us == 5000000ULL + 3540000000ULL);
	assert_true(st2.knob[JT_KNOB_FORCE_COPY].resync);
	assert_true(st2.knob[JT_KNOB_FORCE_COPY].backoff_us == 7200000000ULL);
	assert_false(st2.knob[JT_KNOB_RECLAIM].seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_clocks),
	};

	return cmocka_run_group_tests_name("persist", tests, NULL, NULL);
}
