// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The policy core of jbd2-tuned: turns samples into decisions.
 *
 * Per journal it keeps a ring of baselines (counters and histograms at
 * earlier samples); a windowed figure is always "this sample minus the
 * baseline at the start of the span", so percentiles over the window come
 * from differences of the kernel's cumulative histograms.  Every rule and
 * number is explained in Documentation/agent-policy.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "policy.h"

const char *jt_knob_name(enum jt_knob knob)
{
	return knob == JT_KNOB_FORCE_COPY ? "force_copy" :
	       knob == JT_KNOB_RECLAIM ? "reclaim" : "?";
}

const char *jt_wait_kind_name(enum jt_wait_kind kind)
{
	static const char *const names[JT_WAIT_KINDS] = {
		"shadow", "space", "locked", "commit", "commit_duration",
	};

	return (unsigned int)kind < JT_WAIT_KINDS ? names[kind] : "?";
}

void jt_journal_state_init(struct jt_journal_state *st)
{
	memset(st, 0, sizeof(*st));
}

static const struct jt_slot *slot_at(const struct jt_journal_state *st, unsigned int i)
{
	return &st->slots[(st->first + i) % JT_WINDOW_SLOTS];
}

bool jt_window_stats(const struct jt_journal_state *st, const struct jt_sample *s,
		     uint64_t span_us, uint64_t since_us, struct jt_window_stats *out)
{
	const struct jt_slot *base = NULL;
	uint64_t from = s->time_us > span_us ? s->time_us - span_us : 0;
	unsigned int i, k;

	memset(out, 0, sizeof(*out));
	if (st->count == 0)
		return false;
	if (since_us > from)
		from = since_us;
	for (i = st->count; i-- > 0;) {
		if (slot_at(st, i)->time_us <= from) {
			base = slot_at(st, i);
			break;
		}
	}
	if (!base)
		base = slot_at(st, 0);
	out->span_us = s->time_us > base->time_us ? s->time_us - base->time_us : 0;
	out->full = out->span_us >= span_us;
	for (k = 0; k < JT_WAIT_KINDS; k++) {
		uint64_t d[JT_HIST_BUCKETS];

		if (s->wait[k].waits < base->waits[k] || s->wait[k].wait_us < base->wait_us[k])
			continue;	/* went backwards: caller restarts the window */
		if (k < JT_WINDOW_HIST_KINDS) {
			if (!jt_hist_diff(s->wait[k].hist, base->hist[k], d))
				continue;
			out->wait[k].p99_us = jt_hist_percentile_us(d, JT_PERCENTILE,
								    s->wait[k].wait_max_us);
		}
		out->wait[k].waits = s->wait[k].waits - base->waits[k];
		out->wait[k].wait_us = s->wait[k].wait_us - base->wait_us[k];
	}
	return true;
}

static bool went_backwards(const struct jt_journal_state *st, const struct jt_sample *s)
{
	const struct jt_slot *last;
	unsigned int k, i;

	if (st->count == 0)
		return false;
	last = slot_at(st, st->count - 1);
	for (k = 0; k < JT_WAIT_KINDS; k++) {
		if (s->wait[k].waits < last->waits[k] || s->wait[k].wait_us < last->wait_us[k])
			return true;
		for (i = 0; k < JT_WINDOW_HIST_KINDS && i < JT_HIST_BUCKETS; i++)
			if (s->wait[k].hist[i] < last->hist[k][i])
				return true;
	}
	return false;
}

static void push_slot(struct jt_journal_state *st, const struct jt_sample *s,
		      const struct jt_timing *t, bool force)
{
	uint64_t gap = t->window_us / (JT_WINDOW_SLOTS - 2);
	struct jt_slot *slot;
	unsigned int k;

	/* drop baselines that are older than needed: keep one at/before the window start */
	while (st->count >= 2 && s->time_us >= t->window_us &&
	       slot_at(st, 1)->time_us <= s->time_us - t->window_us) {
		st->first = (st->first + 1) % JT_WINDOW_SLOTS;
		st->count--;
	}
	/* a sample a change was decided at is always kept: "since the change" spans start there */
	if (!force && st->count && s->time_us - slot_at(st, st->count - 1)->time_us < gap)
		return;
	if (st->count == JT_WINDOW_SLOTS) {
		st->first = (st->first + 1) % JT_WINDOW_SLOTS;
		st->count--;
	}
	slot = &st->slots[(st->first + st->count) % JT_WINDOW_SLOTS];
	slot->time_us = s->time_us;
	for (k = 0; k < JT_WAIT_KINDS; k++) {
		slot->waits[k] = s->wait[k].waits;
		slot->wait_us[k] = s->wait[k].wait_us;
		if (k < JT_WINDOW_HIST_KINDS)
			memcpy(slot->hist[k], s->wait[k].hist, sizeof(slot->hist[k]));
	}
	st->count++;
}

__attribute__((format(printf, 6, 7)))
static struct jt_decision *emit(struct jt_decision *out, unsigned int *n,
				enum jt_decision_kind kind, enum jt_knob knob,
				const struct jt_knob_state *ks, const char *fmt, ...)
{
	struct jt_decision *d = &out[(*n)++];
	va_list ap;

	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->knob = knob;
	d->old_value = ks ? ks->value : 0;
	d->new_value = d->old_value;
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	return d;
}

static bool may_change(const struct jt_knob_state *ks, const struct jt_timing *t, uint64_t now)
{
	/* one change per knob per interval; 10 % slack for timer jitter */
	return !ks->changed || now - ks->last_change_us >= t->interval_us * 9 / 10;
}

/* Record a change as decided; the decision's reason is filled by the caller. */
static struct jt_decision *set_knob(struct jt_journal_state *st, enum jt_knob knob,
				    int64_t value, uint64_t now, bool dry_run,
				    struct jt_decision *out, unsigned int *n)
{
	struct jt_knob_state *ks = &st->knob[knob];
	struct jt_decision *d = &out[(*n)++];

	memset(d, 0, sizeof(*d));
	d->kind = JT_DECISION_SET;
	d->knob = knob;
	d->old_value = ks->value;
	d->new_value = value;
	ks->value = value;
	if (!dry_run)
		ks->expected = value;
	ks->changed = true;
	ks->last_change_us = now;
	return d;
}

/* The kind of wait a knob exists to remove. */
static enum jt_wait_kind relief_kind(enum jt_knob knob)
{
	return knob == JT_KNOB_FORCE_COPY ? JT_WAIT_SHADOW : JT_WAIT_SPACE;
}

/*
 * What the outcome check compares, over the window that ends at @s and
 * starts no earlier than @since_us.
 */
static void outcome_figures(const struct jt_journal_state *st, const struct jt_sample *s,
			    const struct jt_timing *t, uint64_t since_us, enum jt_knob knob,
			    struct jt_outcome_figures *f)
{
	struct jt_window_stats w;

	jt_window_stats(st, s, t->window_us, since_us, &w);
	f->span_us = w.span_us;
	f->commit_waits = w.wait[JT_WAIT_COMMIT].waits;
	f->commit_wait_us = w.wait[JT_WAIT_COMMIT].wait_us;
	f->commit_wait_p99_us = w.wait[JT_WAIT_COMMIT].p99_us;
	f->relief_waits = w.wait[relief_kind(knob)].waits;
}

/*
 * Put the change of @knob to @to on trial, or extend the reclaim run on
 * trial.  Nothing goes on trial in dry-run (the knob is not written, so the
 * window after tells nothing about the change) or without commit-wait
 * figures (older module).  Called before set_knob(): the window before
 * ends at this sample and starts no earlier than the knob's last change.
 */
static void trial_start(struct jt_journal_state *st, enum jt_knob knob, int64_t to,
			const struct jt_sample *s, const struct jt_timing *t, bool dry_run)
{
	struct jt_knob_state *ks = &st->knob[knob];
	struct jt_trial *tr = &ks->trial;
	int64_t from = ks->value;

	if (dry_run || !s->has_commit_stats) {
		tr->active = false;
		return;
	}
	if (tr->active && knob == JT_KNOB_RECLAIM && tr->to == from &&
	    (to > from) == (tr->to > tr->from)) {
		tr->to = to;		/* one more step of the run: judged against its start */
		tr->since_us = s->time_us;
		return;
	}
	tr->active = true;
	tr->from = from;
	tr->to = to;
	tr->since_us = s->time_us;
	outcome_figures(st, s, t, ks->changed ? ks->last_change_us : 0, knob, &tr->before);
}

/* A change decided by an auto rule: on trial, then recorded. */
static struct jt_decision *change(struct jt_journal_state *st, enum jt_knob knob, int64_t value,
				  const struct jt_sample *s, const struct jt_timing *t,
				  bool dry_run, struct jt_decision *out, unsigned int *n)
{
	trial_start(st, knob, value, s, t, dry_run);
	return set_knob(st, knob, value, s->time_us, dry_run, out, n);
}

/* "turning it on", "lowering it", ...: a move of @knob up or down, for notes. */
static const char *move_name(enum jt_knob knob, bool up)
{
	if (knob == JT_KNOB_FORCE_COPY)
		return up ? "turning it on" : "turning it off";
	return up ? "raising it" : "lowering it";
}

/*
 * Whether an auto rule must not set @knob to @value now: a revert went back
 * to blocked_from, and @value lies beyond it in the reverted direction,
 * before the back-off has passed.  Said once per back-off.
 */
static bool held_back(struct jt_journal_state *st, enum jt_knob knob, int64_t value,
		      uint64_t now, struct jt_decision *out, unsigned int *n)
{
	struct jt_knob_state *ks = &st->knob[knob];
	struct jt_decision *d;

	if (!ks->blocked_until_us)
		return false;
	if (now >= ks->blocked_until_us) {
		ks->blocked_until_us = 0;	/* back-off over: may be tried again */
		return false;
	}
	if (ks->blocked_up ? value <= ks->blocked_from : value >= ks->blocked_from)
		return false;
	if (!ks->blocked_said) {
		d = emit(out, n, JT_DECISION_NOTE, knob, ks,
			 "%s stays %lld: %s was reverted (commit waits got worse); not tried again for another %.0f s",
			 jt_knob_name(knob), (long long)ks->value, move_name(knob, ks->blocked_up),
			 (double)(ks->blocked_until_us - now) / 1e6);
		d->new_value = value;
		ks->blocked_said = true;
	}
	return true;
}

/* @after is worse than @before by more than @margin_pct (any rise from 0). */
static bool worse_by(double after, double before, unsigned int margin_pct)
{
	return after > before * (1.0 + margin_pct / 100.0);
}

/* Relative change in percent; +inf from 0. */
static double change_pct(double after, double before)
{
	if (before > 0.0)
		return (after / before - 1.0) * 100.0;
	return after > 0.0 ? INFINITY : 0.0;
}

static double mean_us(uint64_t total_us, uint64_t waits)
{
	return waits ? (double)total_us / (double)waits : 0.0;
}

static double per_s(uint64_t us, uint64_t span_us)
{
	return span_us ? (double)us / (double)span_us : 0.0;
}

/*
 * judge_trial - the outcome check (agent-policy.md, "Outcome checks"):
 * once a whole window has passed after the change on trial of @knob,
 * compare the commit waits of that window with those of the window before
 * it.  Too few in either: the change stands (NOTE).  Both the p99 and the
 * mean per wait worse by more than outcome_margin_pct: revert it (SET with
 * revert) and hold the reverted direction back for the back-off, which
 * then doubles (up to JT_OUTCOME_BACKOFF_CAP_US).  Otherwise it stands
 * (NOTE) and the back-off starts again from outcome_backoff_s.
 */
static void judge_trial(const struct jt_timing *t, const struct jt_journal_policy *jp,
			struct jt_journal_state *st, enum jt_knob knob, const struct jt_sample *s,
			bool dry_run, struct jt_decision *out, unsigned int *n)
{
	struct jt_knob_state *ks = &st->knob[knob];
	struct jt_trial *tr = &ks->trial;
	const struct jt_outcome_figures *b = &tr->before;
	const char *relief = jt_wait_kind_name(relief_kind(knob));
	uint64_t now = s->time_us, backoff;
	unsigned int margin = jp->outcome_margin_pct;
	struct jt_outcome_figures a;
	double am, bm;
	struct jt_decision *d;
	char totals[160];

	if (!tr->active)
		return;
	if (!ks->managed || !s->has_commit_stats || ks->value != tr->to) {
		tr->active = false;	/* taken over or changed otherwise: no verdict */
		return;
	}
	if (now - tr->since_us < t->window_us)
		return;
	tr->active = false;
	outcome_figures(st, s, t, tr->since_us, knob, &a);
	if (a.commit_waits < jp->outcome_min_waits || b->commit_waits < jp->outcome_min_waits) {
		d = emit(out, n, JT_DECISION_NOTE, knob, ks,
			 "%s %lld->%lld stands: too few commit waits to judge (%llu in %.0f s after, %llu in %.0f s before; need %u in each); %s waits %llu vs %llu",
			 jt_knob_name(knob), (long long)tr->from, (long long)tr->to,
			 (unsigned long long)a.commit_waits, (double)a.span_us / 1e6,
			 (unsigned long long)b->commit_waits, (double)b->span_us / 1e6,
			 jp->outcome_min_waits, relief, (unsigned long long)a.relief_waits,
			 (unsigned long long)b->relief_waits);
		d->old_value = tr->from;
		d->new_value = tr->to;
		d->outcome = true;
		return;
	}
	am = mean_us(a.commit_wait_us, a.commit_waits);
	bm = mean_us(b->commit_wait_us, b->commit_waits);
	snprintf(totals, sizeof(totals),
		 "total %.2f s/s vs %.2f s/s (%llu waits in %.0f s vs %llu in %.0f s)",
		 per_s(a.commit_wait_us, a.span_us), per_s(b->commit_wait_us, b->span_us),
		 (unsigned long long)a.commit_waits, (double)a.span_us / 1e6,
		 (unsigned long long)b->commit_waits, (double)b->span_us / 1e6);
	if (!worse_by(a.commit_wait_p99_us, b->commit_wait_p99_us, margin) ||
	    !worse_by(am, bm, margin)) {
		d = emit(out, n, JT_DECISION_NOTE, knob, ks,
			 "%s %lld->%lld stands: commit-wait p99 %.1f ms vs %.1f ms before (%+.0f %%), mean %.1f ms vs %.1f ms (%+.0f %%), not both worse by > %u %%; %s; %s waits %llu vs %llu",
			 jt_knob_name(knob), (long long)tr->from, (long long)tr->to,
			 a.commit_wait_p99_us / 1000.0, b->commit_wait_p99_us / 1000.0,
			 change_pct(a.commit_wait_p99_us, b->commit_wait_p99_us),
			 am / 1000.0, bm / 1000.0, change_pct(am, bm), margin, totals,
			 relief, (unsigned long long)a.relief_waits,
			 (unsigned long long)b->relief_waits);
		d->old_value = tr->from;
		d->new_value = tr->to;
		d->outcome = true;
		ks->backoff_us = 0;	/* judged good: the next revert starts afresh */
		return;
	}
	backoff = ks->backoff_us ? ks->backoff_us : (uint64_t)jp->outcome_backoff_s * 1000000ULL;
	d = set_knob(st, knob, tr->from, now, dry_run, out, n);
	d->revert = true;
	d->outcome = true;
	snprintf(d->reason, sizeof(d->reason),
		 "reverted: commit-wait p99 %.1f ms vs %.1f ms before (%+.0f %% > %u %%), mean %.1f ms vs %.1f ms (%+.0f %% > %u %%); %s; %s waits %llu vs %llu; not tried again for %.0f s",
		 a.commit_wait_p99_us / 1000.0, b->commit_wait_p99_us / 1000.0,
		 change_pct(a.commit_wait_p99_us, b->commit_wait_p99_us), margin,
		 am / 1000.0, bm / 1000.0, change_pct(am, bm), margin, totals,
		 relief, (unsigned long long)a.relief_waits, (unsigned long long)b->relief_waits,
		 (double)backoff / 1e6);
	ks->blocked_from = tr->from;
	ks->blocked_up = tr->to > tr->from;
	ks->blocked_until_us = now + backoff;
	ks->blocked_said = false;
	ks->backoff_us = backoff * 2 > JT_OUTCOME_BACKOFF_CAP_US ? JT_OUTCOME_BACKOFF_CAP_US :
								    backoff * 2;
	if (knob == JT_KNOB_FORCE_COPY) {
		st->fc_phase = tr->from ? JT_FC_ON : JT_FC_IDLE;
		st->fc_phase_since_us = now;
	}
}

static bool shadow_trigger(const struct jt_journal_policy *jp, const struct jt_window_stats *w)
{
	const struct jt_wait_window *sw = &w->wait[JT_WAIT_SHADOW];

	return sw->waits >= jp->force_copy_min_waits &&
	       sw->p99_us > (double)jp->force_copy_on_p99_ms * 1000.0;
}

static void decide_force_copy(const struct jt_timing *t, const struct jt_journal_policy *jp,
			      struct jt_journal_state *st, const struct jt_sample *s,
			      bool dry_run, struct jt_decision *out, unsigned int *n)
{
	struct jt_knob_state *ks = &st->knob[JT_KNOB_FORCE_COPY];
	uint64_t now = s->time_us, base_hold = (uint64_t)jp->force_copy_hold_s * 1000000ULL;
	struct jt_window_stats w;
	struct jt_decision *d;

	if (!ks->managed || !may_change(ks, t, now))
		return;
	if (jp->force_copy != JT_MODE_AUTO) {
		int64_t target = jp->force_copy == JT_MODE_ON;

		ks->trial.active = false;	/* the administrator's mode is not second-guessed */
		st->fc_phase = target ? JT_FC_ON : JT_FC_IDLE;
		st->fc_phase_since_us = now;
		if (ks->value != target) {
			d = set_knob(st, JT_KNOB_FORCE_COPY, target, now, dry_run, out, n);
			snprintf(d->reason, sizeof(d->reason), "policy force_copy = %s",
				 jt_mode_name(jp->force_copy));
		}
		return;
	}
	if (st->fc_hold_us == 0)
		st->fc_hold_us = base_hold;
	/* the knob may be on without us having turned it on (found on, mode switch) */
	if (ks->value && st->fc_phase != JT_FC_ON) {
		st->fc_phase = JT_FC_ON;
		st->fc_phase_since_us = now;
	} else if (!ks->value && st->fc_phase == JT_FC_ON) {
		st->fc_phase = JT_FC_IDLE;
	}

	switch (st->fc_phase) {
	case JT_FC_IDLE:
		jt_window_stats(st, s, t->window_us, 0, &w);
		if (!shadow_trigger(jp, &w) || held_back(st, JT_KNOB_FORCE_COPY, 1, now, out, n))
			return;
		d = change(st, JT_KNOB_FORCE_COPY, 1, s, t, dry_run, out, n);
		snprintf(d->reason, sizeof(d->reason),
			 "shadow-wait p99 %.1f ms > %u ms over %.0f s (%llu waits)",
			 w.wait[JT_WAIT_SHADOW].p99_us / 1000.0, jp->force_copy_on_p99_ms,
			 (double)w.span_us / 1e6, (unsigned long long)w.wait[JT_WAIT_SHADOW].waits);
		st->fc_phase = JT_FC_ON;
		st->fc_phase_since_us = now;
		return;
	case JT_FC_ON:
		if (now - st->fc_phase_since_us < st->fc_hold_us ||
		    held_back(st, JT_KNOB_FORCE_COPY, 0, now, out, n))
			return;
		d = change(st, JT_KNOB_FORCE_COPY, 0, s, t, dry_run, out, n);
		snprintf(d->reason, sizeof(d->reason),
			 "held on for %.0f s (hold %.0f s); trying off, back on if shadow waits return within %.0f s",
			 (double)(now - st->fc_phase_since_us) / 1e6, (double)st->fc_hold_us / 1e6,
			 (double)t->window_us / 1e6);
		st->fc_phase = JT_FC_PROBING;
		st->fc_phase_since_us = now;
		return;
	case JT_FC_PROBING:
		jt_window_stats(st, s, t->window_us, st->fc_phase_since_us, &w);
		if (shadow_trigger(jp, &w)) {
			uint64_t hold = st->fc_hold_us * 2;

			if (held_back(st, JT_KNOB_FORCE_COPY, 1, now, out, n))
				return;
			if (hold > JT_FORCE_COPY_HOLD_CAP_US)
				hold = JT_FORCE_COPY_HOLD_CAP_US;
			d = change(st, JT_KNOB_FORCE_COPY, 1, s, t, dry_run, out, n);
			snprintf(d->reason, sizeof(d->reason),
				 "shadow waits came back %.0f s after turning off: p99 %.1f ms > %u ms (%llu waits); hold %.0f s -> %.0f s",
				 (double)(now - st->fc_phase_since_us) / 1e6,
				 w.wait[JT_WAIT_SHADOW].p99_us / 1000.0, jp->force_copy_on_p99_ms,
				 (unsigned long long)w.wait[JT_WAIT_SHADOW].waits,
				 (double)st->fc_hold_us / 1e6, (double)hold / 1e6);
			st->fc_hold_us = hold;
			st->fc_phase = JT_FC_ON;
			st->fc_phase_since_us = now;
		} else if (now - st->fc_phase_since_us >= t->window_us) {
			st->fc_phase = JT_FC_IDLE;	/* stayed quiet: the next episode starts afresh */
			st->fc_hold_us = base_hold;
		}
		return;
	}
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * The watermarks the kernel accepts for this journal, [*kmin, *kmax]; the
 * policy's own bounds (1..90) when it does not say (older module).  Returns
 * false when it accepts none: reported as 0/0 (journal not loaded yet, or
 * too small for a watermark to do anything).
 */
static bool kernel_range(const struct jt_sample *s, int64_t *kmin, int64_t *kmax)
{
	*kmin = 1;
	*kmax = 90;
	if (!s->has_reclaim_limits)
		return true;
	*kmin = s->reclaim_watermark_min_pct;
	*kmax = s->reclaim_watermark_max_pct;
	return *kmin && *kmax && *kmin <= *kmax;
}

bool jt_reclaim_range(const struct jt_journal_policy *jp, const struct jt_sample *s,
		      int64_t *min, int64_t *max)
{
	int64_t kmin, kmax;
	bool ok = kernel_range(s, &kmin, &kmax);

	*min = clamp64(jp->reclaim_min_pct, kmin, kmax);
	*max = clamp64(jp->reclaim_max_pct, kmin, kmax);
	return ok;
}

static void decide_reclaim(const struct jt_timing *t, const struct jt_journal_policy *jp,
			   struct jt_journal_state *st, const struct jt_sample *s,
			   bool dry_run, struct jt_decision *out, unsigned int *n)
{
	struct jt_knob_state *ks = &st->knob[JT_KNOB_RECLAIM];
	int64_t kmin, kmax, min, max, v = ks->value;
	uint64_t now = s->time_us;
	struct jt_window_stats w;
	struct jt_decision *d;

	if (!ks->managed || !may_change(ks, t, now))
		return;
	if (!kernel_range(s, &kmin, &kmax) && jp->reclaim != JT_MODE_OFF)
		return;		/* no watermark would be accepted: only off may be written */
	/* auto's range, clamped into the kernel's: never write outside it */
	jt_reclaim_range(jp, s, &min, &max);
	if (jp->reclaim != JT_MODE_AUTO) {
		int64_t want = jp->reclaim_watermark_pct;
		int64_t target = jp->reclaim == JT_MODE_ON ? clamp64(want, kmin, kmax) : 0;

		ks->trial.active = false;	/* the administrator's mode is not second-guessed */
		if (v != target) {
			d = set_knob(st, JT_KNOB_RECLAIM, target, now, dry_run, out, n);
			if (jp->reclaim == JT_MODE_ON && target != want)
				snprintf(d->reason, sizeof(d->reason),
					 "policy reclaim = on; %lld %% is outside the %lld..%lld %% the kernel accepts for this journal",
					 (long long)want, (long long)kmin, (long long)kmax);
			else
				snprintf(d->reason, sizeof(d->reason), "policy reclaim = %s",
					 jt_mode_name(jp->reclaim));
		}
		return;
	}
	jt_window_stats(st, s, t->window_us, ks->changed ? ks->last_change_us : 0, &w);
	if (v < min || v > max) {
		int64_t start = clamp64(jp->reclaim_watermark_pct, min, max);
		char why[96] = "";

		/*
		 * Off stays off until a foreground log-space wait shows there
		 * is something to win: a watermark costs checkpoint writes
		 * even when nothing waits (bench/reclaim: on a 500-IOPS disk a
		 * one-task storm wrote 3-8 % more and ran 1-4 % longer with
		 * one), and a change made with no wait before it could not be
		 * judged by its outcome.
		 */
		if (v == 0) {
			if (w.wait[JT_WAIT_SPACE].waits == 0)
				return;
			snprintf(why, sizeof(why), "%llu foreground log-space waits in %.0f s (p99 %.1f ms); ",
				 (unsigned long long)w.wait[JT_WAIT_SPACE].waits,
				 (double)w.span_us / 1e6, w.wait[JT_WAIT_SPACE].p99_us / 1000.0);
		}
		if (held_back(st, JT_KNOB_RECLAIM, start, now, out, n))
			return;
		d = change(st, JT_KNOB_RECLAIM, start, s, t, dry_run, out, n);
		if (min != jp->reclaim_min_pct || max != jp->reclaim_max_pct)
			snprintf(d->reason, sizeof(d->reason),
				 "%sauto: start at %lld %% (range %lld..%lld %%: policy %u..%u %% clamped into the kernel's %lld..%lld %%)",
				 why, (long long)start, (long long)min, (long long)max,
				 jp->reclaim_min_pct, jp->reclaim_max_pct, (long long)kmin, (long long)kmax);
		else
			snprintf(d->reason, sizeof(d->reason),
				 "%sauto: start at %lld %% (range %lld..%lld %%)",
				 why, (long long)start, (long long)min, (long long)max);
		return;
	}
	if (w.wait[JT_WAIT_SPACE].waits > 0 && v < max) {
		int64_t nv = v + JT_RECLAIM_STEP_PCT > max ? max : v + JT_RECLAIM_STEP_PCT;

		if (held_back(st, JT_KNOB_RECLAIM, nv, now, out, n))
			return;
		d = change(st, JT_KNOB_RECLAIM, nv, s, t, dry_run, out, n);
		snprintf(d->reason, sizeof(d->reason),
			 "%llu foreground log-space waits in %.0f s (p99 %.1f ms); free %llu of %llu blocks",
			 (unsigned long long)w.wait[JT_WAIT_SPACE].waits, (double)w.span_us / 1e6,
			 w.wait[JT_WAIT_SPACE].p99_us / 1000.0,
			 (unsigned long long)s->free_blocks, (unsigned long long)s->log_blocks);
	} else if (w.wait[JT_WAIT_SPACE].waits == 0 && w.full && v > min) {
		int64_t nv = v - JT_RECLAIM_STEP_PCT < min ? min : v - JT_RECLAIM_STEP_PCT;

		if (held_back(st, JT_KNOB_RECLAIM, nv, now, out, n))
			return;
		d = change(st, JT_KNOB_RECLAIM, nv, s, t, dry_run, out, n);
		snprintf(d->reason, sizeof(d->reason),
			 "no foreground log-space waits for %.0f s", (double)w.span_us / 1e6);
	}
}

unsigned int jt_policy_step(const struct jt_timing *t, const struct jt_journal_policy *jp,
			    struct jt_journal_state *st, const struct jt_sample *s,
			    bool dry_run, struct jt_decision *out)
{
	unsigned int n = 0, k, i;
	bool changed = false;

	if (went_backwards(st, s)) {
		struct jt_knob_state keep[JT_KNOBS];
		enum jt_force_copy_phase phase = st->fc_phase;
		uint64_t since = st->fc_phase_since_us, hold = st->fc_hold_us;

		/*
		 * The journal was set up again (remount) or the counters were
		 * reset: restart the window.  A knob that still reads what we
		 * expect keeps its bookkeeping (found value, ownership, back-off);
		 * one that changed is taken as found, like on a new journal.  A
		 * change on trial is dropped: the counters before and after it
		 * are no longer comparable.
		 */
		memcpy(keep, st->knob, sizeof(keep));
		jt_journal_state_init(st);
		for (k = 0; k < JT_KNOBS; k++)
			if (keep[k].seen && keep[k].managed && s->knob[k] == keep[k].expected) {
				st->knob[k] = keep[k];
				st->knob[k].trial.active = false;
			}
		if (st->knob[JT_KNOB_FORCE_COPY].seen) {
			st->fc_phase = phase;
			st->fc_phase_since_us = since;
			st->fc_hold_us = hold;
		}
		emit(out, &n, JT_DECISION_RESTART, JT_KNOB_FORCE_COPY, NULL,
		     "counters went backwards (journal set up again?): window restarted");
	}
	for (k = 0; k < JT_KNOBS; k++) {
		struct jt_knob_state *ks = &st->knob[k];
		int64_t v = s->knob[k];

		if (!ks->seen) {
			*ks = (struct jt_knob_state){ .seen = true, .managed = true,
						      .found = v, .value = v, .expected = v };
		} else if (ks->managed && v != ks->expected) {
			struct jt_decision *d;

			d = emit(out, &n, JT_DECISION_RELEASE, (enum jt_knob)k, ks,
				 "written by someone else (expected %lld, found %lld): no longer managed until Reload",
				 (long long)ks->expected, (long long)v);
			d->new_value = v;
			ks->managed = false;
			ks->value = v;
			ks->trial.active = false;
		} else if (!ks->managed) {
			ks->value = v;
		}
	}
	if (st->count == 0)
		st->window_start_us = s->time_us;
	for (k = 0; k < JT_KNOBS; k++)
		judge_trial(t, jp, st, (enum jt_knob)k, s, dry_run, out, &n);
	decide_force_copy(t, jp, st, s, dry_run, out, &n);
	decide_reclaim(t, jp, st, s, dry_run, out, &n);
	for (i = 0; i < n; i++)
		changed |= out[i].kind == JT_DECISION_SET;
	push_slot(st, s, t, changed);
	return n;
}

void jt_policy_baseline(struct jt_journal_state *st, const struct jt_sample *s,
			const struct jt_timing *t)
{
	push_slot(st, s, t, true);
}

void jt_policy_write_failed(struct jt_journal_state *st, enum jt_knob knob, int64_t old_value)
{
	struct jt_knob_state *ks = &st->knob[knob];

	ks->value = old_value;
	ks->expected = old_value;
	ks->trial.active = false;
	if (knob == JT_KNOB_FORCE_COPY)
		st->fc_phase = old_value ? JT_FC_ON : JT_FC_IDLE;
}

void jt_policy_manage_again(struct jt_journal_state *st, enum jt_knob knob)
{
	struct jt_knob_state *ks = &st->knob[knob];

	if (!ks->seen)
		return;
	ks->managed = true;
	ks->expected = ks->value;
	ks->last_change_us = 0;
	ks->changed = ks->changed && ks->found != ks->value;
	ks->trial.active = false;
	ks->backoff_us = 0;
	ks->blocked_until_us = 0;
	if (knob == JT_KNOB_FORCE_COPY) {
		st->fc_phase = ks->value ? JT_FC_ON : JT_FC_IDLE;
		st->fc_hold_us = 0;
	}
}
