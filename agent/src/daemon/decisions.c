// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The manager's part in one sample of a journal: the policy core run on
 * it (journal_evaluate()), each decision that comes back logged, written
 * through configfs (unless --dry-run) and announced on the bus (apply()),
 * then the journal-size advice and the diagnosis.  Nothing here decides
 * anything by itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bus.h"
#include "configfs.h"
#include "diagnosis.h"
#include "log.h"
#include "manager.h"
#include "manager-internal.h"

/* Keep the verdict on an earlier change for the bus. */
static void note_outcome(struct jt_manager *m, struct jt_journal *j, enum jt_knob knob,
			 const char *line)
{
	snprintf(j->last_outcome, sizeof(j->last_outcome), "%s", line);
	jt_bus_outcome(m, j, knob);
}

/* A trial of @knob failed (its change undone): count it, and when it may be tried again. */
static void count_revert(struct jt_journal *j, enum jt_knob knob)
{
	const struct jt_knob_state *ks = &j->state.knob[knob];
	uint64_t mono = now_us(CLOCK_MONOTONIC);

	j->reverts[knob]++;
	/* the policy's clock is the sample's (monotonic): turn its deadline into wall time */
	j->retry_realtime_us[knob] = now_us(CLOCK_REALTIME) +
		(ks->blocked_until_us > mono ? ks->blocked_until_us - mono : 0);
}

/* Whether decisions are written: not in --dry-run, and in --once only with --apply. */
bool writes_knobs(const struct jt_manager *m)
{
	return !m->opt.dry_run && (!m->opt.once || m->opt.apply);
}

/* Log, write and announce one decision.  Returns -ENOENT when the journal is gone. */
int apply(struct jt_manager *m, struct jt_journal *j, const struct jt_decision *d)
{
	const char *knob = jt_knob_name(d->knob);
	char line[sizeof(j->last_decision)];
	int r;

	switch (d->kind) {
	case JT_DECISION_RESTART:
		log_notice("%s: %s", j->name, d->reason);
		return 0;
	case JT_DECISION_NOTE:
		if (d->outcome) {	/* a verdict: structured (MESSAGE_ID), the trial's change */
			char o[24], n[24];

			snprintf(o, sizeof(o), "%lld", (long long)d->old_value);
			snprintf(n, sizeof(n), "%lld", (long long)d->new_value);
			jt_log_event(LOG_NOTICE, JT_LOG_VERDICT, j->name, knob, o, n, d->reason,
				     "%s: %s", j->name, d->reason);
		} else
			log_notice("%s: %s", j->name, d->reason);
		if (d->outcome && d->revert)
			count_revert(j, d->knob);
		if (d->outcome)
			note_outcome(m, j, d->knob, d->reason);
		return 0;
	case JT_DECISION_RELEASE:
		log_notice("%s: %s %lld: %s", j->name, knob, (long long)d->new_value, d->reason);
		jt_bus_modes_changed(m, j);
		return 0;
	case JT_DECISION_SET:
		break;
	}
	if (writes_knobs(m)) {
		r = jt_configfs_write_knob(m->opt.configfs_root, j->name, d->knob, d->new_value);
		if (r == -ENOENT || r == -ENODEV)
			return -ENOENT;
		if (r < 0) {
			/* retried each interval; said again only when the error changes */
			jt_log(r == j->write_error[d->knob] ? LOG_DEBUG : LOG_ERR,
			       "%s: %s %lld->%lld: write failed: %s; keeping %lld, retrying each interval",
			       j->name, knob, (long long)d->old_value, (long long)d->new_value,
			       strerror(-r), (long long)d->old_value);
			j->write_error[d->knob] = r;
			jt_policy_write_failed(&j->state, d->knob, d->old_value);
			return 0;
		}
		j->write_error[d->knob] = 0;
		j->last.knob[d->knob] = d->new_value;	/* what the bus shows until the next sample */
		if (m->cause_ns)
			log_debug("%s: %s written %.3f ms after the kernel's %s event", j->name, knob,
				  (double)(now_ns(CLOCK_MONOTONIC) - m->cause_ns) / 1e6,
				  event_name(m->cause_cmd));
	}
	/* "force_copy 0->1: why", and for a revert "force_copy 1->0 reverted: figures" */
	snprintf(line, sizeof(line), "%s %lld->%lld%s%s%s", knob, (long long)d->old_value,
		 (long long)d->new_value, d->revert ? " " : ": ", d->reason,
		 m->opt.dry_run ? " (dry-run, not written)" :
		 !writes_knobs(m) ? " (not written: --once reports; --apply writes)" : "");
	{
		char o[24], n[24];

		snprintf(o, sizeof(o), "%lld", (long long)d->old_value);
		snprintf(n, sizeof(n), "%lld", (long long)d->new_value);
		/* a trial's verdict that writes the knob back is logged as the verdict */
		jt_log_event(LOG_NOTICE, d->outcome ? JT_LOG_VERDICT : JT_LOG_DECISION, j->name, knob,
			     o, n, d->reason, "%s: %s", j->name, line);
	}
	if (m->opt.once)
		printf("%s: %s\n", j->name, line);
	snprintf(j->last_decision, sizeof(j->last_decision), "%s", line);
	j->last_decision_realtime_us = now_us(CLOCK_REALTIME);
	snprintf(m->last_decision_line, sizeof(m->last_decision_line), "%s: %s", j->name, line);
	m->decisions++;
	jt_bus_decision(m, j, d->knob, d->old_value, d->new_value, d->reason);
	if (d->revert)
		count_revert(j, d->knob);
	if (d->outcome)
		note_outcome(m, j, d->knob, line);
	return 0;
}

/* Log a new or withdrawn journal-size advice once and show it on the bus. */
static void note_advice(struct jt_manager *m, struct jt_journal *j, enum jt_advice_event ev,
			const char *text)
{
	jt_log_event(LOG_NOTICE, JT_LOG_ADVICE, j->name, NULL, NULL, NULL, text, "%s: %s", j->name,
		     text);
	snprintf(j->advice, sizeof(j->advice), "%s", ev == JT_ADVICE_NEW ? text : "");
	jt_bus_advice(m, j);
}

/*
 * Which wait holds most of @j's waited time over the window (once the
 * window is whole): logged and announced when the cause changes and the
 * new cause has held for a whole window (a cause that flips back and forth
 * with the load's bursts is not news each time).
 */
static void journal_diagnose(struct jt_manager *m, struct jt_journal *j, uint64_t now)
{
	char text[sizeof(j->diagnosis)];
	enum jt_cause c;
	enum jt_knob k;

	if (!j->stats.full)
		return;
	c = jt_diagnose(&j->stats, j->policy.stall_budget_ms_per_s * 1000.0,
			j->last.knob[JT_KNOB_RECLAIM],
			j->last.has_reclaim_limits ? j->last.reclaim_watermark_max_pct : 0, text,
			sizeof(text));
	k = jt_cause_knob(c);
	if (k < JT_KNOBS) {
		const struct jt_knob_state *ks = &j->state.knob[k];

		/* the knob named failed its trial here: say so, not only "is the knob" */
		if (ks->blocked_up && ks->blocked_until_us > now)
			jt_diagnosis_held_back(text, sizeof(text), ks->last_verdict,
					       (double)(ks->blocked_until_us - now) / 1e6);
	}
	if ((int)c == j->cause) {
		snprintf(j->diagnosis, sizeof(j->diagnosis), "%s", text);
		j->pending_cause = -1;
		return;
	}
	if (j->cause >= 0) {
		if ((int)c != j->pending_cause) {
			j->pending_cause = (int)c;
			j->pending_since_us = now;
			return;
		}
		if (now - j->pending_since_us < timing(m).window_us)
			return;
	}
	j->cause = (int)c;
	j->pending_cause = -1;
	snprintf(j->diagnosis, sizeof(j->diagnosis), "%s", text);
	log_notice("%s: diagnosis: %s", j->name, j->diagnosis);
	jt_bus_diagnosis(m, j);
}

/* Run the policy core on one sample of @j.  Returns -ENOENT when the journal went away. */
int journal_evaluate(struct jt_manager *m, struct jt_journal *j, const struct jt_sample *s)
{
	struct jt_decision d[JT_DECISIONS_MAX];
	struct jt_timing t = timing(m);
	enum jt_advice_event ev;
	char advice[JT_ADVICE_MAX];
	unsigned int n, i;
	int r;

	if (!s->has_commit_stats && !m->said_no_commit_stats) {
		log_notice("outcome checks unavailable: the module reports no commit waits for %s (an older jbd2-tune module?); the agent's changes stand unchecked",
			   j->name);
		m->said_no_commit_stats = true;
	}
	/* --once is one sample: no trial can run, so it decides as a dry run does */
	n = jt_policy_step(&t, &j->policy, &j->state, s, m->opt.dry_run || m->opt.once, d);
	j->last = *s;
	j->have_sample = true;
	for (i = 0; i < n; i++) {
		r = apply(m, j, &d[i]);
		if (r < 0)
			return r;
	}
	if (n)
		journal_save(m, j);
	/* read-only: advice changes no knob */
	ev = jt_advice_step(&t, &j->policy, &j->state, &j->advice_state, s, journal_fs_info, j,
			    advice, sizeof(advice));
	if (ev != JT_ADVICE_NONE)
		note_advice(m, j, ev, advice);
	jt_window_stats(&j->state, s, t.window_us, 0, &j->stats);
	journal_diagnose(m, j, s->time_us);
	return 0;
}
