// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The policy core's window: the ring of baselines (slots) a windowed
 * figure is taken against (jt_window_stats(): this sample minus the
 * baseline at the start of the span), stall time per second, the check
 * for counters that went backwards, and the history of commit waits at
 * the values in force (its dispersion serves the harm and cost tests).
 * Pure; part of the policy core (policy.c).
 */
#include <string.h>

#include "hist.h"
#include "policy.h"
#include "policy-internal.h"

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
		struct jt_wait_window *w = &out->wait[k];

		if (s->wait[k].waits < base->waits[k] || s->wait[k].wait_us < base->wait_us[k])
			continue;	/* went backwards: caller restarts the window */
		if (k < JT_WINDOW_HIST_KINDS) {
			if (!jt_hist_diff(s->wait[k].hist, base->hist[k], w->hist))
				continue;
			/* the all-time maximum caps only when it rose inside the span */
			w->p99_us = jt_hist_percentile_us(w->hist, JT_PERCENTILE,
							  s->wait[k].wait_max_us > base->wait_max_us[k] ?
							  s->wait[k].wait_max_us : 0);
			for (i = JT_HIST_BUCKETS; i-- > 0;)
				if (w->hist[i]) {
					w->max_lb_us = (uint64_t)jt_hist_bucket_lo_us(i);
					break;
				}
		}
		if (s->wait[k].wait_max_us > base->wait_max_us[k])
			w->max_lb_us = s->wait[k].wait_max_us;
		w->waits = s->wait[k].waits - base->waits[k];
		w->wait_us = s->wait[k].wait_us - base->wait_us[k];
	}
	if (s->shadow_avoided_us >= base->shadow_avoided_us)
		out->shadow_avoided_us = s->shadow_avoided_us - base->shadow_avoided_us;
	return true;
}

double jt_stall_us_per_s(const struct jt_wait_window *w, uint64_t span_us, uint64_t min_us)
{
	double most_short = 0.0, long_lo = 0.0, a, b;
	unsigned int i;

	if (!span_us || !w->waits)
		return 0.0;
	if (min_us == 0)
		return (double)w->wait_us * 1e6 / (double)span_us;
	for (i = 0; i < JT_HIST_BUCKETS; i++) {
		double lo = jt_hist_bucket_lo_us(i), hi = jt_hist_bucket_hi_us(i);

		if (lo >= (double)min_us)
			long_lo += (double)w->hist[i] * lo;
		else
			most_short += (double)w->hist[i] * (hi < (double)min_us ? hi : (double)min_us);
	}
	a = (double)w->wait_us - most_short;
	b = long_lo;
	if (a < b)
		a = b;
	return a > 0.0 ? a * 1e6 / (double)span_us : 0.0;
}

bool went_backwards(const struct jt_journal_state *st, const struct jt_sample *s)
{
	const struct jt_slot *last;
	unsigned int k, i;

	if (st->count == 0)
		return false;
	if (s->source_id && st->source_id && s->source_id != st->source_id)
		return true;	/* a new configfs group under the same name: set up again */
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

void fill_slot(struct jt_slot *slot, const struct jt_sample *s)
{
	unsigned int k;

	slot->time_us = s->time_us;
	slot->shadow_avoided_us = s->shadow_avoided_us;
	for (k = 0; k < JT_WAIT_KINDS; k++) {
		slot->waits[k] = s->wait[k].waits;
		slot->wait_us[k] = s->wait[k].wait_us;
		slot->wait_max_us[k] = s->wait[k].wait_max_us;
		if (k < JT_WINDOW_HIST_KINDS)
			memcpy(slot->hist[k], s->wait[k].hist, sizeof(slot->hist[k]));
	}
}

void push_slot(struct jt_journal_state *st, const struct jt_sample *s,
	       const struct jt_timing *t, bool force)
{
	uint64_t gap = t->window_us / (JT_WINDOW_SLOTS - 2);

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
	fill_slot(&st->slots[(st->first + st->count) % JT_WINDOW_SLOTS], s);
	st->count++;
}

double jt_history_cv2(const struct jt_journal_state *st, double *n)
{
	uint64_t h[JT_HIST_BUCKETS] = { 0 };
	unsigned int i, j;
	double cv2;

	for (i = 0; i < JT_HISTORY_SLOTS; i++)
		for (j = 0; j < JT_HIST_BUCKETS; j++)
			h[j] += st->history.hist[i][j];
	cv2 = jt_hist_cv2(h, n);
	return *n >= JT_HISTORY_MIN_WAITS ? cv2 : 0.0;
}

/*
 * The commit waits since the previous sample go into the history when
 * that interval counted; a new minute's slot replaces the oldest.
 */
void history_add(struct jt_journal_state *st, const struct jt_sample *s)
{
	struct jt_commit_history *h = &st->history;
	const uint64_t *now = s->wait[JT_WAIT_COMMIT].hist;
	unsigned int j;

	if (h->have_last && h->counting) {
		if (s->time_us - h->slot_start_us[h->cur] >= JT_HISTORY_SLOT_US ||
		    !h->slot_start_us[h->cur]) {
			h->cur = (h->cur + 1) % JT_HISTORY_SLOTS;
			memset(h->hist[h->cur], 0, sizeof(h->hist[h->cur]));
			h->slot_start_us[h->cur] = s->time_us;
		}
		for (j = 0; j < JT_HIST_BUCKETS; j++)
			if (now[j] >= h->last[j])
				h->hist[h->cur][j] += now[j] - h->last[j];
	}
	memcpy(h->last, now, sizeof(h->last));
	h->have_last = true;
}

/*
 * Whether the interval from @s to the next sample counts for the history:
 * every knob at the value in force (found or kept), and the commits of
 * any other value over (a trial's off block once it settled, not a
 * re-check's, whose off blocks are the value taken back; outside trials,
 * no change within JT_HISTORY_SETTLE_US).
 */
bool history_counts(const struct jt_journal_state *st, const struct jt_sample *s)
{
	unsigned int k;

	if (st->trial.active)
		return !st->trial.recheck && !st->trial.cur_on && !st->trial.settling;
	for (k = 0; k < JT_KNOBS; k++)
		if (st->knob[k].last_change_us &&
		    s->time_us - st->knob[k].last_change_us < JT_HISTORY_SETTLE_US)
			return false;
	return true;
}
