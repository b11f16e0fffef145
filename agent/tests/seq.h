/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the simulated-journal tests share (test-sim.c, test-seq.c,
 * test-seq-lock.c, test-diagnosis.c): the shipped policy, a 1-s interval
 * with a 30-s window, commit waits of a load, a run of seconds of a load
 * and the one-line summary of a run ("# ...").  Header only.
 */
#ifndef JT_TEST_SEQ_H
#define JT_TEST_SEQ_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "sim.h"

/* The shipped policy (conf.c defaults). */
static inline struct jt_journal_policy shipped(void)
{
	return (struct jt_journal_policy){
		.force_copy = JT_MODE_AUTO, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
		.force_copy_hold_s = 300, .reclaim = JT_MODE_AUTO, .reclaim_watermark_pct = 50,
		.reclaim_min_pct = 35, .reclaim_max_pct = 70, .outcome_margin_pct = 15,
		.outcome_min_waits = 10, .outcome_backoff_s = 300, .advice_windows = 3,
		.stall_budget_ms_per_s = 10, .stall_bound_ms = 1000, .stall_wait_min_ms = 10,
		.trial_block_s = 5, .trial_min_pairs = 3, .trial_max_pairs = 10, .recheck_s = 600,
		.lock_delay = JT_MODE_OFF, .lock_delay_ms = 1000,
	};
}

static const struct jt_timing T1 = { .interval_us = 1000000, .window_us = 30000000 };

/* Commit waits: @n a second of @us each, one commit each. */
static inline void commits(struct sim *m, unsigned int n, double us)
{
	sim_waits(m, JT_WAIT_COMMIT, n, us);
	sim_waits(m, JT_WAIT_COMMIT_DURATION, n, us);
}

/* Run @secs seconds of @load under @jp; @st and @m persist. */
static inline void run(struct sim *m, struct jt_journal_state *st,
		       const struct jt_journal_policy *jp, unsigned int secs,
		       void (*load)(struct sim *m))
{
	unsigned int k;

	for (k = 0; k < secs; k++) {
		load(m);
		sim_step(m, &T1, jp, st, false);
	}
}

static inline void print_sim(const char *name, const struct sim *m)
{
	print_message("# %s: %u trials, %u kept, %u reverted for harm, %u other verdicts, %u knob writes; force_copy on %.0f s, reclaim on %.0f s, lock delay on %.0f s of %.0f s; now force_copy %lld, reclaim %lld, lock delay %lld ms\n",
		      name, m->trials, m->keeps, m->harms, m->others, m->writes,
		      m->on_s[JT_KNOB_FORCE_COPY], m->on_s[JT_KNOB_RECLAIM],
		      m->on_s[JT_KNOB_LOCK_DELAY], m->t_s - 1.0,
		      (long long)m->s.knob[JT_KNOB_FORCE_COPY], (long long)m->s.knob[JT_KNOB_RECLAIM],
		      (long long)m->s.knob[JT_KNOB_LOCK_DELAY]);
}

#endif
