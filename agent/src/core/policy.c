// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The policy core of jbd2-tuned: turns samples into decisions.
 *
 * Per journal it keeps a ring of baselines (counters and histograms at
 * earlier samples); a windowed figure is always "this sample minus the
 * baseline at the start of the span", so every figure comes from counter
 * and histogram deltas.  In auto mode a knob becomes a candidate when the
 * wait it removes costs more than a budget of stall time per second (or
 * one wait exceeds a bound), and the change is then tried in interleaved
 * on/off blocks and kept only when a trial shows it helps (trial.c).
 * Every rule and number is explained in Documentation/agent-policy.md.
 *
 * This file: the per-journal state, the knobs' bookkeeping (set, held
 * back, ranges, modes), the triggers, the fixed and auto decisions and
 * jt_policy_step(), the entry point.  The knobs' descriptors are in
 * knobs.c, the window and the history in window.c, the trial runner in
 * trial-run.c, trials cut short and their undo in undo.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "policy.h"
#include "policy-internal.h"

void jt_journal_state_init(struct jt_journal_state *st)
{
	memset(st, 0, sizeof(*st));
	st->rng = 0x9E3779B97F4A7C15ULL;
}

void jt_policy_seed(struct jt_journal_state *st, uint64_t seed)
{
	st->rng = seed ? seed : 0x9E3779B97F4A7C15ULL;
}

__attribute__((format(printf, 6, 7)))
struct jt_decision *emit(struct jt_decision *out, unsigned int *n,
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
	return !ks->last_change_us || now - ks->last_change_us >= t->interval_us * 9 / 10;
}

/* Record a change as decided; the decision's reason is filled by the caller. */
struct jt_decision *set_knob(struct jt_journal_state *st, enum jt_knob knob,
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
	if (!dry_run) {
		ks->expected = value;
		ks->changed = true;
	}
	ks->last_change_us = now;
	return d;
}

/* "turning it on", "raising it", ...: a move of @knob up or down, for notes. */
static const char *move_name(enum jt_knob knob, bool up)
{
	if (!jt_knob_desc(knob)->stepped)
		return up ? "turning it on" : "turning it off";
	return up ? "raising it" : "lowering it";
}

/*
 * Whether an auto rule must not set @knob to @value now: a trial failed
 * back to blocked_from, and @value lies beyond it in the tried direction,
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
			 "%s stays %lld: %s failed its trial (%s); not tried again for another %.0f s",
			 jt_knob_name(knob), (long long)ks->value, move_name(knob, ks->blocked_up),
			 ks->last_verdict[0] ? ks->last_verdict : "reverted",
			 (double)(ks->blocked_until_us - now) / 1e6);
		d->new_value = value;
		ks->blocked_said = true;
	}
	return true;
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

enum jt_mode jt_knob_mode(const struct jt_journal_policy *jp, enum jt_knob knob)
{
	switch (knob) {
	case JT_KNOB_FORCE_COPY:
		return jp->force_copy;
	case JT_KNOB_RECLAIM:
		return jp->reclaim;
	default:
		return jp->lock_delay;
	}
}

void jt_knob_set_mode(struct jt_journal_policy *jp, enum jt_knob knob, enum jt_mode mode)
{
	switch (knob) {
	case JT_KNOB_FORCE_COPY:
		jp->force_copy = mode;
		break;
	case JT_KNOB_RECLAIM:
		jp->reclaim = mode;
		break;
	default:
		jp->lock_delay = mode;
		break;
	}
}

/* Whether the module has @knob for @s's journal (an older one has no lock delay). */
static bool knob_present(const struct jt_sample *s, enum jt_knob knob)
{
	return knob != JT_KNOB_LOCK_DELAY || s->has_lock_delay;
}

/*
 * The values auto moves stepped @knob in, [*min, *max]: the reclaim range,
 * or a ladder's steps above 0.  Returns false when there are none.
 */
bool auto_range(const struct jt_journal_policy *jp, const struct jt_sample *s,
		enum jt_knob knob, int64_t *min, int64_t *max)
{
	const struct jt_knob_desc *kd = jt_knob_desc(knob);

	if (!kd->ladder)
		return jt_reclaim_range(jp, s, min, max);
	*min = kd->ladder[1];
	*max = kd->ladder[kd->ladder_len - 1];
	return knob_present(s, knob);
}

/* The step above @v of stepped @knob, at most @max (@v itself when there is none). */
int64_t step_up(enum jt_knob knob, int64_t v, int64_t max)
{
	const struct jt_knob_desc *kd = jt_knob_desc(knob);
	int64_t next = v + JT_RECLAIM_STEP_PCT;
	unsigned int i;

	if (kd->ladder) {
		next = v;
		for (i = 0; i < kd->ladder_len && next == v; i++)
			if (kd->ladder[i] > v)
				next = kd->ladder[i];
	}
	if (next <= max)
		return next;
	return v > max ? v : max;
}

/*
 * The value auto would try next for @knob from its current value, or
 * false when there is none (already on / at the top of the range).
 */
static bool candidate(const struct jt_journal_policy *jp, const struct jt_knob_state *ks,
		      enum jt_knob knob, const struct jt_sample *s, int64_t *to)
{
	int64_t min, max, v = ks->value;

	if (!jt_knob_desc(knob)->stepped) {
		*to = 1;
		return v == 0;
	}
	if (!auto_range(jp, s, knob, &min, &max))
		return false;
	if (ks->next_try) {
		*to = clamp64(ks->next_try, min, max);
		return *to > v;
	}
	if (ks->top_only) {
		*to = max;
		return *to > v;
	}
	if (v < min) {
		/* reclaim starts at its watermark, a ladder at its first step */
		*to = jt_knob_desc(knob)->ladder ? min :
						   clamp64(jp->reclaim_watermark_pct, min, max);
		return true;
	}
	*to = step_up(knob, v, max);
	return *to > v;
}

/*
 * The trigger of @knob: its relief wait over the window since the knob's
 * last trial, as stall time per second (waits shorter than
 * stall_wait_min_ms do not count, except for a knob whose every wait
 * counts) against stall_budget_ms_per_s, or one wait over stall_bound_ms.
 * Writes the figures into @why.
 */
static bool triggered(const struct jt_timing *t, const struct jt_journal_policy *jp,
		      const struct jt_journal_state *st, enum jt_knob knob,
		      const struct jt_sample *s, char *why, size_t len)
{
	const struct jt_knob_desc *kd = jt_knob_desc(knob);
	struct jt_window_stats w;
	const struct jt_wait_window *rw;
	uint64_t min_us = kd->any_wait_counts ? 0 : (uint64_t)jp->stall_wait_min_ms * 1000ULL;
	double stall;

	jt_window_stats(st, s, t->window_us, st->knob[knob].quiet_since_us, &w);
	rw = &w.wait[kd->relief];
	stall = jt_stall_us_per_s(rw, w.span_us, min_us);
	if (stall >= jp->stall_budget_ms_per_s * 1000.0 && w.span_us)
		snprintf(why, len, "%s waits%s cost %.1f ms/s over %.0f s > budget %u ms/s (%llu waits, p99 %.1f ms)",
			 jt_wait_kind_name(kd->relief), min_us ? " over the minimum" : "",
			 stall / 1000.0, (double)w.span_us / 1e6, jp->stall_budget_ms_per_s,
			 (unsigned long long)rw->waits, rw->p99_us / 1000.0);
	else if (rw->max_lb_us >= (uint64_t)jp->stall_bound_ms * 1000ULL)
		snprintf(why, len, "a %s wait of %.1f ms or more over %.0f s > bound %u ms (%llu waits)",
			 jt_wait_kind_name(kd->relief), rw->max_lb_us / 1000.0,
			 (double)w.span_us / 1e6, jp->stall_bound_ms, (unsigned long long)rw->waits);
	else
		return false;
	return true;
}

/*
 * Whether a back-off holds @knob back from @value at @now (as held_back(),
 * without its note or its clearing of an expired back-off).
 */
static bool backoff_holds(const struct jt_knob_state *ks, int64_t value, uint64_t now)
{
	if (!ks->blocked_until_us || now >= ks->blocked_until_us)
		return false;
	return ks->blocked_up ? value > ks->blocked_from : value < ks->blocked_from;
}

/*
 * yield_to - whether the trial in progress should give way, at the end of a
 * pair: it is no re-check, has had its minimum pairs, and its own relief
 * wait costs less than the budget on both sides (no keep can come unless
 * the waits come back), while another auto knob has a value to try that no
 * back-off holds and its wait is over its trigger now.  Writes "yields to
 * <knob>: <trigger>" into @why.
 *
 * agent-advice, 2026-12-04: a force-copy trial begun on 11 ms/s of shadow
 * waits ran its 20 blocks ("inconclusive after 20 blocks: shadow waits 0.0
 * vs 0.0 ms/s") while space waits cost 767 ms/s and the diagnosis named
 * the watermark: the reclaim trial, and the journal-size advice, came
 * 100 s late.  A trial of a wait that went quiet with no other knob
 * triggered still goes on (case Q).
 */
bool yield_to(const struct jt_timing *t, const struct jt_journal_policy *jp,
	      const struct jt_journal_state *st, const struct jt_sample *s,
	      const struct jt_trial_params *p, char *why, size_t len)
{
	const struct jt_trial_run *tr = &st->trial;
	char trig[160];
	unsigned int k;
	int64_t to;

	if (tr->recheck || tr->pairs < p->min_pairs ||
	    jt_side_relief_rate(&tr->on) >= p->relief_min_us_per_s ||
	    jt_side_relief_rate(&tr->off) >= p->relief_min_us_per_s)
		return false;
	for (k = 0; k < JT_KNOBS; k++) {
		const struct jt_knob_state *ks = &st->knob[k];

		if (k == (unsigned int)tr->knob || !ks->managed || !knob_present(s, (enum jt_knob)k) ||
		    jt_knob_mode(jp, (enum jt_knob)k) != JT_MODE_AUTO)
			continue;
		if (!candidate(jp, ks, (enum jt_knob)k, s, &to) ||
		    backoff_holds(ks, to, s->time_us))
			continue;
		if (!triggered(t, jp, st, (enum jt_knob)k, s, trig, sizeof(trig)))
			continue;
		snprintf(why, len, "yields to %s: %s", jt_knob_name((enum jt_knob)k), trig);
		return true;
	}
	return false;
}

/* The administrator's modes: on/off written once, no trial. */
static void decide_fixed(const struct jt_journal_policy *jp, struct jt_journal_state *st,
			 enum jt_knob knob, const struct jt_sample *s, bool dry_run,
			 struct jt_decision *out, unsigned int *n)
{
	struct jt_knob_state *ks = &st->knob[knob];
	enum jt_mode mode = jt_knob_mode(jp, knob);
	int64_t target = mode == JT_MODE_ON, kmin = 0, kmax = 0;
	struct jt_decision *d;

	ks->kept = false;
	if (knob == JT_KNOB_RECLAIM) {
		if (!kernel_range(s, &kmin, &kmax) && mode != JT_MODE_OFF)
			return;		/* no watermark would be accepted: only off may be written */
		target = mode == JT_MODE_ON ? clamp64(jp->reclaim_watermark_pct, kmin, kmax) : 0;
	} else if (knob == JT_KNOB_LOCK_DELAY) {
		/*
		 * off leaves the delay as the module or an administrator set it
		 * (lock_delay_max_ms_default): the value found, which a delay
		 * the agent wrote goes back to
		 */
		target = mode == JT_MODE_ON ? (int64_t)jp->lock_delay_ms : ks->found;
	}
	if (ks->value == target)
		return;
	d = set_knob(st, knob, target, s->time_us, dry_run, out, n);
	if (knob == JT_KNOB_RECLAIM && mode == JT_MODE_ON && target != jp->reclaim_watermark_pct)
		snprintf(d->reason, sizeof(d->reason),
			 "policy reclaim = on; %u %% is outside the %lld..%lld %% the kernel accepts for this journal",
			 jp->reclaim_watermark_pct, (long long)kmin, (long long)kmax);
	else
		snprintf(d->reason, sizeof(d->reason), "policy %s = %s", jt_knob_name(knob),
			 jt_mode_name(mode));
}

/* Auto, no trial running on the journal: re-check a kept change, or start a trial. */
static void decide_auto(const struct jt_timing *t, const struct jt_journal_policy *jp,
			struct jt_journal_state *st, enum jt_knob knob, const struct jt_sample *s,
			bool dry_run, struct jt_decision *out, unsigned int *n)
{
	struct jt_knob_state *ks = &st->knob[knob];
	uint64_t now = s->time_us;
	struct jt_decision *d;
	char why[320];
	int64_t to, min, max;

	if (knob == JT_KNOB_RECLAIM) {
		/* a non-zero value outside auto's range is brought into it at once */
		if (jt_reclaim_range(jp, s, &min, &max) && ks->value &&
		    (ks->value < min || ks->value > max)) {
			d = set_knob(st, knob, clamp64(ks->value, min, max), now, dry_run, out, n);
			snprintf(d->reason, sizeof(d->reason),
				 "auto: %lld %% is outside the range %lld..%lld %%", (long long)d->old_value,
				 (long long)min, (long long)max);
			return;
		}
	}
	if (ks->kept && ks->value != ks->kept_to && !dry_run) {
		/* the journal was set up again (remount): what was kept holds */
		d = set_knob(st, knob, ks->kept_to, now, dry_run, out, n);
		snprintf(d->reason, sizeof(d->reason),
			 "the value a trial kept, re-applied (journal set up again)");
		return;
	}
	if (ks->kept && !dry_run &&
	    now - ks->kept_us >= (ks->recheck_in_us ? ks->recheck_in_us :
						      (uint64_t)jp->recheck_s * 1000000ULL) &&
	    ks->kept_from != ks->kept_to) {
		snprintf(why, sizeof(why), "kept %.0f s ago", (double)(now - ks->kept_us) / 1e6);
		trial_start(t, jp, st, knob, ks->kept_to, true, s, dry_run, why, out, n);
		return;
	}
	if (!candidate(jp, ks, knob, s, &to))
		return;
	if (!triggered(t, jp, st, knob, s, why, sizeof(why)))
		return;
	if (jt_knob_desc(knob)->ladder) {
		const struct jt_knob_desc *kd = jt_knob_desc(knob);
		size_t len = strlen(why);
		unsigned int i;

		for (i = 0; i < kd->ladder_len && len < sizeof(why); i++) {
			snprintf(why + len, sizeof(why) - len, "%s%lld", i ? ", " : "; steps ",
				 (long long)kd->ladder[i]);
			len += strlen(why + len);
		}
		if (len < sizeof(why))
			snprintf(why + len, sizeof(why) - len, " ms");
	} else if (jt_knob_desc(knob)->stepped) {
		int64_t kmin, kmax;
		size_t len = strlen(why);

		jt_reclaim_range(jp, s, &min, &max);
		kernel_range(s, &kmin, &kmax);
		if (min != jp->reclaim_min_pct || max != jp->reclaim_max_pct)
			snprintf(why + len, sizeof(why) - len,
				 "; range %lld..%lld %% (policy %u..%u %% clamped into the kernel's %lld..%lld %%)",
				 (long long)min, (long long)max, jp->reclaim_min_pct,
				 jp->reclaim_max_pct, (long long)kmin, (long long)kmax);
		else
			snprintf(why + len, sizeof(why) - len, "; range %lld..%lld %%",
				 (long long)min, (long long)max);
	}
	if (held_back(st, knob, to, now, out, n))
		return;
	trial_start(t, jp, st, knob, to, false, s, dry_run, why, out, n);
}

/*
 * The journal was set up again (remount, or counters reset): restart the
 * window; every knob keeps what was learned (found value, back-off, kept
 * change) and reads as found now, which is not an administrator's write.
 */
static void restart(struct jt_journal_state *st, const struct jt_sample *s,
		    struct jt_decision *out, unsigned int *n)
{
	unsigned int k;

	/* the value on trial may still be in force: put back what was before */
	if (st->trial.active && st->knob[st->trial.knob].managed)
		st->knob[st->trial.knob].value = s->knob[st->trial.knob];
	jt_policy_cut_short(st, "the journal was set up again");
	st->first = st->count = 0;
	st->history.have_last = false;
	for (k = 0; k < JT_KNOBS; k++) {
		struct jt_knob_state *ks = &st->knob[k];

		if (!ks->seen)
			continue;
		if (ks->managed) {
			ks->value = s->knob[k];
			ks->expected = s->knob[k];
		}
		ks->quiet_since_us = 0;
		ks->last_change_us = 0;
	}
	emit(out, n, JT_DECISION_RESTART, JT_KNOB_FORCE_COPY, NULL,
	     "journal set up again (new group or counters reset): window restarted, what was learned kept");
}

/*
 * The order in which the knobs may start a trial at @s: the one whose
 * relief wait cost the most time per second over the window first (the
 * kernel measures each kind of wait; issue 45: in a create storm on a
 * 4 MiB journal, space waits cost 757 ms/s and shadow waits 126 ms/s, and
 * force copy, first in the fixed order, was tried while the watermark
 * waited until the storm was over), ties in the fixed order.
 */
static void knob_order(const struct jt_timing *t, const struct jt_journal_state *st,
		       const struct jt_sample *s, enum jt_knob order[JT_KNOBS])
{
	struct jt_window_stats w;
	double r[JT_KNOBS];
	unsigned int i, j;

	jt_window_stats(st, s, t->window_us, 0, &w);
	for (i = 0; i < JT_KNOBS; i++) {
		order[i] = (enum jt_knob)i;
		r[i] = w.span_us ? (double)w.wait[jt_knob_desc((enum jt_knob)i)->relief].wait_us /
					   (double)w.span_us : 0.0;
	}
	for (i = 1; i < JT_KNOBS; i++)
		for (j = i; j > 0 && r[order[j]] > r[order[j - 1]]; j--) {
			enum jt_knob x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
}

unsigned int jt_policy_step(const struct jt_timing *t, const struct jt_journal_policy *jp,
			    struct jt_journal_state *st, const struct jt_sample *s,
			    bool dry_run, struct jt_decision *out)
{
	enum jt_knob order[JT_KNOBS];
	unsigned int n = 0, k, i;
	bool changed = false;

	if (went_backwards(st, s))
		restart(st, s, out, &n);
	history_add(st, s);
	if (s->source_id)
		st->source_id = s->source_id;
	for (k = 0; k < JT_KNOBS; k++) {
		struct jt_knob_state *ks = &st->knob[k];
		int64_t v = s->knob[k];

		if (!ks->seen) {
			ks->seen = true;
			ks->managed = true;
			ks->found = v;
			ks->value = v;
			ks->expected = v;
		} else if (ks->resync) {
			/* restored: what the last process left in force is what we expect */
			ks->resync = false;
			ks->value = v;
			ks->expected = v;
		} else if (ks->managed && v != ks->expected) {
			struct jt_decision *d;

			d = emit(out, &n, JT_DECISION_RELEASE, (enum jt_knob)k, ks,
				 "written by someone else (expected %lld, found %lld): no longer managed until Reload",
				 (long long)ks->expected, (long long)v);
			d->new_value = v;
			ks->managed = false;
			ks->value = v;
			ks->kept = false;
			ks->undo_pending = false;
			if (st->trial.active && st->trial.knob == k)
				jt_policy_cut_short(st, NULL);	/* the writer's value stands */
		} else if (!ks->managed) {
			ks->value = v;
		}
		/* a trial's value before is read back: its undo is done */
		if (ks->undo_pending && ks->managed && v == ks->undo_from && v == ks->expected)
			ks->undo_pending = false;
	}
	if (st->count == 0)
		st->window_start_us = s->time_us;
	if (st->trial.active) {
		struct jt_knob_state *ks = &st->knob[st->trial.knob];

		if (!ks->managed)
			jt_policy_cut_short(st, NULL);
		else if (jt_knob_mode(jp, st->trial.knob) != JT_MODE_AUTO)
			jt_policy_cut_short(st, "its mode is no longer auto");
		else
			trial_step(t, jp, st, s, out, &n);
	}
	/* a trial cut short: its value before, until a sample reads it */
	n += jt_policy_undo(jp, st, s->time_us, dry_run, out + n);
	knob_order(t, st, s, order);
	for (i = 0; i < JT_KNOBS; i++) {
		enum jt_knob kn = order[i];
		struct jt_knob_state *ks = &st->knob[kn];

		if (!ks->managed || !may_change(ks, t, s->time_us) || !knob_present(s, kn))
			continue;
		if (jt_knob_mode(jp, kn) != JT_MODE_AUTO)
			decide_fixed(jp, st, kn, s, dry_run, out, &n);
		else if (!st->trial.active && !undo_pending(st))
			decide_auto(t, jp, st, kn, s, dry_run, out, &n);
	}
	for (i = 0; i < n; i++)
		changed |= out[i].kind == JT_DECISION_SET;
	st->history.counting = history_counts(st, s);
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
	if (st->trial.active && st->trial.knob == knob)
		jt_policy_cut_short(st, "a write of the knob was refused");
}

void jt_policy_manage_again(struct jt_journal_state *st, enum jt_knob knob)
{
	struct jt_knob_state *ks = &st->knob[knob];

	if (!ks->seen)
		return;
	if (!ks->managed)
		ks->kept = false;	/* an administrator's value is not a kept change */
	ks->managed = true;
	ks->expected = ks->value;
	ks->last_change_us = 0;
	if (st->trial.active && st->trial.knob == knob)
		jt_policy_cut_short(st, "its mode or policy was set again");
}

void jt_policy_forget(struct jt_journal_state *st, enum jt_knob knob)
{
	struct jt_knob_state *ks = &st->knob[knob];

	jt_policy_manage_again(st, knob);
	ks->kept = false;
	ks->backoff_us = 0;
	ks->blocked_until_us = 0;
	ks->next_try = 0;
	ks->top_only = false;
}
