/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A seeded simulated journal for the policy's unit tests: cumulative
 * counters and histograms as the kernel keeps them, advanced one interval
 * at a time by a load model that looks at the knobs in force, and the
 * policy core run on each sample with its decisions written back.  Header
 * only, shared by test-sim.c, test-seq.c, test-seq-lock.c, test-measured.c
 * and test-cut-short.c (seq.h adds what the sequences share).
 */
#ifndef JT_TEST_SIM_H
#define JT_TEST_SIM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "policy.h"

struct sim {
	struct jt_sample s;
	uint64_t rng;
	double t_s;			/* time of the next sample */
	double carry[JT_WAIT_KINDS];	/* closed loops: fraction of a wait done */
	/* what the policy did */
	unsigned int writes;		/* SET decisions */
	unsigned int knob_writes[JT_KNOBS];	/* ... of each knob */
	int first_trial_knob;		/* knob of the first trial, -1 none */
	unsigned int trials, keeps, harms, others;	/* trial starts and verdicts */
	int first_verdict;		/* 0 none, 1 keep, 2 harm, 3 other */
	double first_trial_s;		/* time of the first trial start, -1 none */
	double on_s[JT_KNOBS];		/* seconds each knob spent at a non-zero value */
	struct jt_decision last[JT_DECISIONS_MAX];
	unsigned int n_last;
};

static inline double sim_uniform(struct sim *m)
{
	uint64_t x = m->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	m->rng = x;
	return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

static inline double sim_normal(struct sim *m)
{
	double u = sim_uniform(m), v = sim_uniform(m);

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* Knuth's Poisson draw (small means only). */
static inline unsigned int sim_poisson(struct sim *m, double mean)
{
	double l = exp(-mean), p = 1.0;
	unsigned int k = 0;

	if (mean <= 0.0)
		return 0;
	do {
		k++;
		p *= sim_uniform(m);
	} while (p > l && k < 10000);
	return k - 1;
}

static inline void sim_init(struct sim *m, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	m->rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	m->s.log_blocks = 32768;
	m->s.free_blocks = 30000;
	m->s.has_commit_stats = true;
	m->s.source_id = 1;
	m->s.has_lock_delay = true;	/* a module with lock_delay_max_ms */
	m->t_s = 1.0;
	m->first_trial_s = -1.0;
	m->first_trial_knob = -1;
}

/* One wait of @us of @kind. */
static inline void sim_wait(struct sim *m, enum jt_wait_kind kind, double us)
{
	struct jt_wait_counters *w = &m->s.wait[kind];
	uint64_t u = us < 1.0 ? 1 : (uint64_t)us, v = u;
	unsigned int b = 0;

	while (v >= 2 && b < JT_HIST_BUCKETS - 1) {
		v >>= 1;
		b++;
	}
	w->waits++;
	w->wait_us += u;
	w->hist[b]++;
	if (u > w->wait_max_us)
		w->wait_max_us = u;
}

/*
 * A shadow wait of @us that force copy spared: the kernel's
 * shadow_waits_avoided and shadow_wait_avoided_us (a sample with
 * has_avoided set).
 */
static inline void sim_avoided(struct sim *m, double us)
{
	m->s.shadow_avoided++;
	m->s.shadow_avoided_us += us < 1.0 ? 1 : (uint64_t)us;
}

/* @n waits of @us each. */
static inline void sim_waits(struct sim *m, enum jt_wait_kind kind, unsigned int n, double us)
{
	while (n--)
		sim_wait(m, kind, us);
}

/*
 * A closed loop of @threads that each wait @us per operation: over @dt_s
 * it completes threads * dt / us waits (the fraction carried over).
 */
static inline void sim_loop(struct sim *m, enum jt_wait_kind kind, double threads, double us,
			    double dt_s)
{
	m->carry[kind] += threads * dt_s * 1e6 / us;
	while (m->carry[kind] >= 1.0) {
		sim_wait(m, kind, us);
		m->carry[kind] -= 1.0;
	}
}

/*
 * Take the sample at t_s (the load model has added this interval's waits),
 * run the policy, write its SETs back into the knobs, count what it did.
 */
static inline void sim_step(struct sim *m, const struct jt_timing *t,
			    const struct jt_journal_policy *jp, struct jt_journal_state *st,
			    bool dry_run)
{
	unsigned int i, k;

	m->s.time_us = (uint64_t)(m->t_s * 1e6 + 0.5);
	m->n_last = jt_policy_step(t, jp, st, &m->s, dry_run, m->last);
	for (i = 0; i < m->n_last; i++) {
		const struct jt_decision *d = &m->last[i];

		if (d->kind == JT_DECISION_SET) {
			m->writes++;
			m->knob_writes[d->knob]++;
			if (!dry_run)
				m->s.knob[d->knob] = d->new_value;
		}
		if (d->kind == JT_DECISION_NOTE && strstr(d->reason, " starts: ") &&
		    !strstr(d->reason, "re-check")) {
			m->trials++;
			if (m->first_trial_s < 0) {
				m->first_trial_s = m->t_s;
				m->first_trial_knob = (int)d->knob;
			}
		}
		if (d->outcome) {
			int v = strstr(d->reason, ": harm after") ? 2 :
				strncmp(d->reason, "kept:", 5) == 0 ||
				(strstr(d->reason, " kept: ") && !strstr(d->reason, " not kept: ")) ? 1 : 3;

			if (v == 1)
				m->keeps++;
			else if (v == 2)
				m->harms++;
			else
				m->others++;
			if (!m->first_verdict)
				m->first_verdict = v;
		}
	}
	for (k = 0; k < JT_KNOBS; k++)
		if (m->s.knob[k])
			m->on_s[k] += (double)t->interval_us / 1e6;
	m->t_s += (double)t->interval_us / 1e6;
}

#endif
