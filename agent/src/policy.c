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
	static const char *const names[JT_WAIT_KINDS] = { "shadow", "space", "locked" };

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

		if (s->wait[k].waits < base->waits[k] ||
		    !jt_hist_diff(s->wait[k].hist, base->hist[k], d))
			continue;	/* went backwards: caller restarts the window */
		out->wait[k].waits = s->wait[k].waits - base->waits[k];
		out->wait[k].p99_us = jt_hist_percentile_us(d, JT_PERCENTILE,
							    s->wait[k].wait_max_us);
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
		if (s->wait[k].waits < last->waits[k])
			return true;
		for (i = 0; i < JT_HIST_BUCKETS; i++)
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
		if (!shadow_trigger(jp, &w))
			return;
		d = set_knob(st, JT_KNOB_FORCE_COPY, 1, now, dry_run, out, n);
		snprintf(d->reason, sizeof(d->reason),
			 "shadow-wait p99 %.1f ms > %u ms over %.0f s (%llu waits)",
			 w.wait[JT_WAIT_SHADOW].p99_us / 1000.0, jp->force_copy_on_p99_ms,
			 (double)w.span_us / 1e6, (unsigned long long)w.wait[JT_WAIT_SHADOW].waits);
		st->fc_phase = JT_FC_ON;
		st->fc_phase_since_us = now;
		return;
	case JT_FC_ON:
		if (now - st->fc_phase_since_us < st->fc_hold_us)
			return;
		d = set_knob(st, JT_KNOB_FORCE_COPY, 0, now, dry_run, out, n);
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

			if (hold > JT_FORCE_COPY_HOLD_CAP_US)
				hold = JT_FORCE_COPY_HOLD_CAP_US;
			d = set_knob(st, JT_KNOB_FORCE_COPY, 1, now, dry_run, out, n);
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

static void decide_reclaim(const struct jt_timing *t, const struct jt_journal_policy *jp,
			   struct jt_journal_state *st, const struct jt_sample *s,
			   bool dry_run, struct jt_decision *out, unsigned int *n)
{
	struct jt_knob_state *ks = &st->knob[JT_KNOB_RECLAIM];
	int64_t min = jp->reclaim_min_pct, max = jp->reclaim_max_pct, v = ks->value;
	uint64_t now = s->time_us;
	struct jt_window_stats w;
	struct jt_decision *d;

	if (!ks->managed || !may_change(ks, t, now))
		return;
	if (jp->reclaim != JT_MODE_AUTO) {
		int64_t target = jp->reclaim == JT_MODE_ON ? jp->reclaim_watermark_pct : 0;

		if (v != target) {
			d = set_knob(st, JT_KNOB_RECLAIM, target, now, dry_run, out, n);
			snprintf(d->reason, sizeof(d->reason), "policy reclaim = %s",
				 jt_mode_name(jp->reclaim));
		}
		return;
	}
	if (v < min || v > max) {
		int64_t start = jp->reclaim_watermark_pct;

		start = start < min ? min : start > max ? max : start;
		d = set_knob(st, JT_KNOB_RECLAIM, start, now, dry_run, out, n);
		snprintf(d->reason, sizeof(d->reason), "auto: start at %lld %% (range %lld..%lld %%)",
			 (long long)start, (long long)min, (long long)max);
		return;
	}
	jt_window_stats(st, s, t->window_us, ks->changed ? ks->last_change_us : 0, &w);
	if (w.wait[JT_WAIT_SPACE].waits > 0 && v < max) {
		int64_t nv = v + JT_RECLAIM_STEP_PCT > max ? max : v + JT_RECLAIM_STEP_PCT;

		d = set_knob(st, JT_KNOB_RECLAIM, nv, now, dry_run, out, n);
		snprintf(d->reason, sizeof(d->reason),
			 "%llu foreground log-space waits in %.0f s (p99 %.1f ms); free %llu of %llu blocks",
			 (unsigned long long)w.wait[JT_WAIT_SPACE].waits, (double)w.span_us / 1e6,
			 w.wait[JT_WAIT_SPACE].p99_us / 1000.0,
			 (unsigned long long)s->free_blocks, (unsigned long long)s->log_blocks);
	} else if (w.wait[JT_WAIT_SPACE].waits == 0 && w.full && v > min) {
		int64_t nv = v - JT_RECLAIM_STEP_PCT < min ? min : v - JT_RECLAIM_STEP_PCT;

		d = set_knob(st, JT_KNOB_RECLAIM, nv, now, dry_run, out, n);
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
		 * expect keeps its bookkeeping (found value, ownership); one that
		 * changed is taken as found, like on a new journal.
		 */
		memcpy(keep, st->knob, sizeof(keep));
		jt_journal_state_init(st);
		for (k = 0; k < JT_KNOBS; k++)
			if (keep[k].seen && keep[k].managed && s->knob[k] == keep[k].expected)
				st->knob[k] = keep[k];
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
		} else if (!ks->managed) {
			ks->value = v;
		}
	}
	if (st->count == 0)
		st->window_start_us = s->time_us;
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
	if (knob == JT_KNOB_FORCE_COPY) {
		st->fc_phase = ks->value ? JT_FC_ON : JT_FC_IDLE;
		st->fc_hold_us = 0;
	}
}
