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
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "policy.h"

/*
 * The values lock_delay auto steps through, ms, each an order of magnitude
 * above the last (Documentation/benchmarks.md, "Lock later"): 100 covers
 * the commits' own delays in bench/lock-delay (at most 14 ms on 6.1, 23 ms
 * on 6.12); 1000 is the bound tests/vm/tests/kmod-lock-delay.sh holds a
 * dm-delayed truncate's handle to; 5000 removed every T_LOCKED sleep over
 * 10 ms of the seed load's writer (bench/seed000 "on-ld", bench/tail).
 */
static const int64_t lock_delay_ladder_ms[] = { 0, 100, 1000, 5000 };

/* The per-knob descriptors: the only place that says how the knobs differ. */
static const struct jt_knob_desc knob_descs[JT_KNOBS] = {
	[JT_KNOB_FORCE_COPY] = {
		.knob = JT_KNOB_FORCE_COPY, .name = "force_copy", .relief = JT_WAIT_SHADOW,
		.stepped = false, .any_wait_counts = false, .block_mult = 1, .pairs_mult = 1,
		.read_by_commit = true,
	},
	/*
	 * Space waits are rare and each stalls every handle: all count, and
	 * blocks are three times longer and trials may run twice as many
	 * pairs, so that a trial sees enough of them (case C: one every 10 s).
	 */
	[JT_KNOB_RECLAIM] = {
		.knob = JT_KNOB_RECLAIM, .name = "reclaim", .relief = JT_WAIT_SPACE,
		.stepped = true, .any_wait_counts = true, .block_mult = 3, .pairs_mult = 2,
		.read_by_commit = false,	/* the reclaim worker is not tied to a commit */
	},
	/*
	 * Locked waits are many and mostly short, like shadow waits: only
	 * those over stall_wait_min_ms count.  Last in the table: when several
	 * knobs trigger at once, auto tries the others first, since a delay
	 * lengthens every commit it applies to.
	 */
	[JT_KNOB_LOCK_DELAY] = {
		.knob = JT_KNOB_LOCK_DELAY, .name = "lock_delay", .relief = JT_WAIT_LOCKED,
		.stepped = true, .ladder = lock_delay_ladder_ms,
		.ladder_len = sizeof(lock_delay_ladder_ms) / sizeof(lock_delay_ladder_ms[0]),
		.any_wait_counts = false, .block_mult = 1, .pairs_mult = 1,
		.read_by_commit = true,
	},
};

const struct jt_knob_desc *jt_knob_desc(enum jt_knob knob)
{
	return &knob_descs[(unsigned int)knob < JT_KNOBS ? knob : 0];
}

const char *jt_knob_name(enum jt_knob knob)
{
	return (unsigned int)knob < JT_KNOBS ? knob_descs[knob].name : "?";
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
	st->rng = 0x9E3779B97F4A7C15ULL;
}

void jt_policy_seed(struct jt_journal_state *st, uint64_t seed)
{
	st->rng = seed ? seed : 0x9E3779B97F4A7C15ULL;
}

/* xorshift64*: one fair bit. */
static bool coin(struct jt_journal_state *st)
{
	uint64_t x = st->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	st->rng = x;
	return ((x * 0x2545F4914F6CDD1DULL) >> 63) & 1;
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

static bool went_backwards(const struct jt_journal_state *st, const struct jt_sample *s)
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

static void fill_slot(struct jt_slot *slot, const struct jt_sample *s)
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

static void push_slot(struct jt_journal_state *st, const struct jt_sample *s,
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
	return !ks->last_change_us || now - ks->last_change_us >= t->interval_us * 9 / 10;
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
static bool auto_range(const struct jt_journal_policy *jp, const struct jt_sample *s,
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
static int64_t step_up(enum jt_knob knob, int64_t v, int64_t max)
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

static uint64_t block_us(const struct jt_journal_policy *jp, enum jt_knob knob)
{
	return (uint64_t)jp->trial_block_s * jt_knob_desc(knob)->block_mult * 1000000ULL;
}

/*
 * The block length of a trial of @knob starting with window figures @w:
 * block_us(), but at least twice the relief wait's p99 and three mean
 * commit durations, so that the waits a block counts (at their end) mostly
 * began in it; at most JT_TRIAL_BLOCK_STRETCH times block_us().
 */
static uint64_t trial_block_us(const struct jt_journal_policy *jp, enum jt_knob knob,
			       const struct jt_window_stats *w)
{
	const struct jt_wait_window *cd = &w->wait[JT_WAIT_COMMIT_DURATION];
	uint64_t base = block_us(jp, knob), b = base;
	uint64_t p99 = (uint64_t)w->wait[jt_knob_desc(knob)->relief].p99_us;

	if (p99 * 2 > b)
		b = p99 * 2;
	if (cd->waits && cd->wait_us / cd->waits * 3 > b)
		b = cd->wait_us / cd->waits * 3;
	return b < base * JT_TRIAL_BLOCK_STRETCH ? b : base * JT_TRIAL_BLOCK_STRETCH;
}

/* The most pairs a trial of @knob may run (a re-check: the minimum). */
static unsigned int max_pairs(const struct jt_journal_policy *jp, enum jt_knob knob, bool recheck)
{
	return recheck ? jp->trial_min_pairs : jp->trial_max_pairs * jt_knob_desc(knob)->pairs_mult;
}

/* The levels of @st's trial, with the history's dispersion for the harm and cost tests. */
static struct jt_trial_params trial_params(const struct jt_journal_policy *jp,
					   const struct jt_journal_state *st)
{
	const struct jt_trial_run *tr = &st->trial;
	double n;

	unsigned int min_pairs = jp->trial_min_pairs;

	/* measured relief: a keep may come sooner; a re-check runs its whole minimum */
	if (tr->measured && !tr->recheck && min_pairs > JT_TRIAL_MEASURED_MIN_PAIRS)
		min_pairs = JT_TRIAL_MEASURED_MIN_PAIRS;
	return (struct jt_trial_params){
		.margin = log1p(jp->outcome_margin_pct / 100.0),
		.relief_min_us_per_s = jp->stall_budget_ms_per_s * 1000.0,
		.min_pairs = min_pairs,
		.max_pairs = max_pairs(jp, tr->knob, tr->recheck && !tr->confirm),
		.looks_spent = tr->looks_spent,
		.history_cv2 = jt_history_cv2(st, &n),
		.measured = tr->measured,
		.confirm = tr->confirm,
		.full_pairs = jp->trial_min_pairs,
	};
}

/*
 * The kernel's count and total of the waits @knob spared, from @s; false
 * when it measures none for @knob (reclaim, or an older module).
 */
static bool measured_counter(const struct jt_sample *s, enum jt_knob knob, uint64_t *waits,
			     uint64_t *us)
{
	if (!s->has_avoided)
		return false;
	switch (knob) {
	case JT_KNOB_FORCE_COPY:
		*waits = s->shadow_avoided;
		*us = s->shadow_avoided_us;
		return true;
	case JT_KNOB_LOCK_DELAY:
		/*
		 * one per task per delay, timed from its first join to the
		 * delay's end (kmod-lock-delay: 0.6..1.2 times the real
		 * locked waits of the same load without the delay)
		 */
		*waits = s->locked_avoided;
		*us = s->locked_avoided_us;
		return true;
	default:
		return false;	/* reclaim: nothing measured */
	}
}

/* The measured relief of the trial so far into its on side, at @s. */
static void measured_update(struct jt_trial_run *tr, const struct jt_sample *s)
{
	uint64_t w, us;

	if (!tr->measured || !measured_counter(s, tr->knob, &w, &us))
		return;
	/* a counter that went backwards (the journal set up again) is caught by restart() */
	tr->on.measured_waits = w >= tr->measured_base_waits ? w - tr->measured_base_waits : 0;
	tr->on.measured_us = us >= tr->measured_base_us ? us - tr->measured_base_us : 0;
	tr->on.measured_span_us = tr->on_wall_us + (tr->cur_on ? s->time_us - tr->block_start_us : 0);
}

/* The deltas of @s against @base for @knob's trial. */
static void block_of(const struct jt_slot *base, const struct jt_sample *s, enum jt_knob knob,
		     struct jt_block *b)
{
	enum jt_wait_kind r = jt_knob_desc(knob)->relief;
	const enum jt_wait_kind c = JT_WAIT_COMMIT, cd = JT_WAIT_COMMIT_DURATION;
	unsigned int k;

	memset(b, 0, sizeof(*b));
	b->span_us = s->time_us - base->time_us;
	b->relief_waits = s->wait[r].waits - base->waits[r];
	b->relief_us = s->wait[r].wait_us - base->wait_us[r];
	b->commit_waits = s->wait[c].waits - base->waits[c];
	b->commit_wait_us = s->wait[c].wait_us - base->wait_us[c];
	b->commits = s->wait[cd].waits - base->waits[cd];
	b->commit_us = s->wait[cd].wait_us - base->wait_us[cd];
	jt_hist_diff(s->wait[c].hist, base->hist[c], b->hist);
	for (k = JT_WAIT_SHADOW; k <= JT_WAIT_LOCKED; k++)
		if (k != r)
			b->other_us += s->wait[k].wait_us - base->wait_us[k];
}

/*
 * One counted sample of the current block: the relief waits that ended
 * since the last one count for this block, but those that lasted longer
 * than the time since the block's switch (their histogram bucket's
 * midpoint says so: the lower bound alone left 8 % of the simulated
 * keeps of test_sim_long_stalls undone, the midpoint 4.5 %) began before
 * it, under the previous block's value, and go to that block's side, as
 * waits and as relief events up to its commits (the midpoint stands for
 * their time).  In the first block of a trial they began before it and
 * count nowhere.
 */
static void carry_step(struct jt_trial_run *tr, const struct jt_sample *s)
{
	enum jt_wait_kind r = jt_knob_desc(tr->knob)->relief;
	uint64_t elapsed = s->time_us - tr->block_start_us;
	uint64_t n = s->wait[r].waits - tr->last.waits[r];
	uint64_t us = s->wait[r].wait_us - tr->last.wait_us[r];
	uint64_t cn = 0, room, ev;
	struct jt_side *ps;
	double cus = 0.0;
	unsigned int b;

	for (b = 0; b < JT_HIST_BUCKETS; b++) {
		uint64_t d = s->wait[r].hist[b] - tr->last.hist[r][b];

		if (d && (jt_hist_bucket_lo_us(b) + jt_hist_bucket_hi_us(b)) / 2.0 > (double)elapsed) {
			cn += d;
			cus += (double)d * (jt_hist_bucket_lo_us(b) + jt_hist_bucket_hi_us(b)) / 2.0;
		}
	}
	/* the counters are read one file at a time: never carry more than ended */
	if (cn > n)
		cn = n;
	if (cus > (double)us)
		cus = (double)us;
	tr->blk_relief_waits += n - cn;
	tr->blk_relief_us += us - (uint64_t)cus;
	fill_slot(&tr->last, s);
	if (!cn || !tr->have_prev)
		return;
	ps = tr->prev_on ? &tr->on : &tr->off;
	room = tr->prev_commits > tr->prev_events ? tr->prev_commits - tr->prev_events : 0;
	ev = cn < room ? cn : room;
	ps->relief_waits += cn;
	ps->relief_us += (uint64_t)cus;
	ps->relief_events += ev;
	tr->prev_events += ev;
	tr->prev_relief_us += (uint64_t)cus;
}

/* The window before a trial as one off-side block (for the harm test). */
static void side_of_window(const struct jt_window_stats *w, enum jt_knob knob, struct jt_side *sd)
{
	struct jt_block b;
	enum jt_wait_kind r = jt_knob_desc(knob)->relief;

	memset(sd, 0, sizeof(*sd));
	memset(&b, 0, sizeof(b));
	b.span_us = w->span_us;
	b.relief_waits = w->wait[r].waits;
	b.relief_us = w->wait[r].wait_us;
	b.commit_waits = w->wait[JT_WAIT_COMMIT].waits;
	b.commit_wait_us = w->wait[JT_WAIT_COMMIT].wait_us;
	b.commits = w->wait[JT_WAIT_COMMIT_DURATION].waits;
	b.commit_us = w->wait[JT_WAIT_COMMIT_DURATION].wait_us;
	memcpy(b.hist, w->wait[JT_WAIT_COMMIT].hist, sizeof(b.hist));
	jt_side_add(sd, &b, false, NULL);
}

/* "shadow 0.0 vs 812.5 ms/s, commit-wait mean 62.5 vs 62.0 ms (+1 %)": on vs off. */
static void trial_figures(const struct jt_trial_run *tr, const struct jt_side *off, char *buf,
			  size_t len)
{
	const char *relief = jt_wait_kind_name(jt_knob_desc(tr->knob)->relief);
	double mon = jt_side_commit_mean_us(&tr->on), moff = jt_side_commit_mean_us(off);
	char spared[80] = "";

	if (tr->measured)
		snprintf(spared, sizeof(spared), " (spared %.1f ms/s, %llu waits, measured)",
			 jt_side_measured_rate(&tr->on) / 1000.0,
			 (unsigned long long)tr->on.measured_waits);
	snprintf(buf, len,
		 "%s waits %.1f vs %.1f ms/s%s, commit-wait mean %.1f vs %.1f ms (%llu vs %llu waits%s), commits %.1f vs %.1f ms, on vs off over %.0f vs %.0f s",
		 relief, jt_side_relief_rate(&tr->on) / 1000.0, jt_side_relief_rate(off) / 1000.0,
		 spared, mon / 1000.0, moff / 1000.0, (unsigned long long)tr->on.commit_waits,
		 (unsigned long long)off->commit_waits,
		 tr->on.censored ? ", an on-block without any counted as one block-long" : "",
		 tr->on.commits ? (double)tr->on.commit_us / (double)tr->on.commits / 1000.0 : 0.0,
		 off->commits ? (double)off->commit_us / (double)off->commits / 1000.0 : 0.0,
		 (double)tr->on.span_us / 1e6, (double)off->span_us / 1e6);
}

/*
 * Start the next block of the trial at @s: pick the order of a new pair,
 * and how long the block settles before its figures count: a commit that
 * started before the switch still runs under the old value (its shadow
 * buffers, its checkpoint), and a wait is counted when it ends, so the
 * first 1.5 mean commit durations of the window, or the relief wait's p99
 * if longer (at least one interval, at most one block), are left out, and
 * then until a commit has ended (at most two blocks from the switch; see
 * switch_commits in policy.h and test_sim_commit_tied).
 */
static void next_block(const struct jt_timing *t, const struct jt_journal_policy *jp,
		       struct jt_journal_state *st, const struct jt_sample *s, bool new_pair)
{
	struct jt_trial_run *tr = &st->trial;
	const struct jt_wait_window *cd;
	struct jt_window_stats w;
	uint64_t settle = t->interval_us, full = tr->block_us;

	jt_window_stats(st, s, t->window_us, 0, &w);
	/* the whole time of the on block that ends here (none before the first block) */
	if (tr->block_start_us && tr->cur_on)
		tr->on_wall_us += s->time_us - tr->block_start_us;
	if (new_pair) {
		uint64_t b = trial_block_us(jp, tr->knob, &w);

		tr->in_second = false;
		tr->cur_on = coin(st);
		/* a suspected harm is confirmed by an off block first */
		if (tr->suspect)
			tr->cur_on = false;
		/*
		 * a pair's blocks as long as the waits seen since (only longer,
		 * both blocks of a pair alike): a trial that began on short
		 * waits stretches when long ones come
		 */
		if (b > tr->block_us) {
			tr->block_us = b;
			full = b;
		}
	} else {
		tr->in_second = true;
		tr->cur_on = !tr->cur_on;
	}
	cd = &w.wait[JT_WAIT_COMMIT_DURATION];
	if (cd->waits && cd->wait_us / cd->waits * 3 / 2 > settle)
		settle = cd->wait_us / cd->waits * 3 / 2;
	if (w.wait[jt_knob_desc(tr->knob)->relief].p99_us > (double)settle)
		settle = (uint64_t)w.wait[jt_knob_desc(tr->knob)->relief].p99_us;
	tr->settle_us = settle < full ? settle : full;
	/*
	 * measured relief: an on block counts twice as long as an off
	 * block.  The off blocks serve only the cost side; the on blocks
	 * are where the kernel can see a stall spared, and a rare one
	 * falls into the on blocks of a trial twice as often as into the
	 * off ones (one 8-s stall every 2 minutes: kept within 10 minutes
	 * in 90 of 100 seeded runs with even blocks) - from the second pair
	 * on: the first is the one an early keep is judged on, and a
	 * stall of seconds that comes often needs no more (seed load's
	 * kind: median time to relief 27 s, against 34 s)
	 */
	tr->cur_block_us = tr->measured && tr->cur_on && tr->pairs ? 2 * tr->block_us :
								      tr->block_us;
	tr->settling = true;
	tr->block_start_us = s->time_us;
	tr->switch_commits = s->wait[JT_WAIT_COMMIT_DURATION].waits;
	/* a module without commit statistics: the time alone */
	tr->switch_commit_ended = !s->has_commit_stats || !jt_knob_desc(tr->knob)->read_by_commit;
}

/* Write the value the current block needs, if it is not in force. */
static void block_write(struct jt_journal_state *st, const struct jt_journal_policy *jp,
			const struct jt_sample *s, struct jt_decision *out, unsigned int *n)
{
	struct jt_trial_run *tr = &st->trial;
	int64_t want = tr->cur_on ? tr->to : tr->from;
	struct jt_decision *d;

	if (st->knob[tr->knob].value == want)
		return;
	d = set_knob(st, tr->knob, want, s->time_us, false, out, n);
	d->trial_block = true;
	if (tr->suspect && !tr->cur_on) {
		char figs[300];

		/* the on block ended early: say why, with its figures */
		trial_figures(tr, &tr->off, figs, sizeof(figs));
		snprintf(d->reason, sizeof(d->reason),
			 "%strial of %lld->%lld: harm suspected after %llu blocks: %s; an off block (%.0f s) confirms it or clears it",
			 tr->recheck ? "re-check " : "", (long long)tr->from, (long long)tr->to,
			 (unsigned long long)(tr->on.blocks + tr->off.blocks), figs,
			 (double)tr->cur_block_us / 1e6);
		return;
	}
	snprintf(d->reason, sizeof(d->reason), "%strial of %lld->%lld, pair %u of %u..%u, %s block (%.0f s)",
		 tr->recheck ? "re-check " : "", (long long)tr->from, (long long)tr->to,
		 tr->pairs + 1, trial_params(jp, st).min_pairs,
		 max_pairs(jp, tr->knob, tr->recheck && !tr->confirm),
		 tr->cur_on ? "on" : "off", (double)tr->cur_block_us / 1e6);
}

/*
 * Start a trial of @knob from its value to @to at @s (@why: the trigger's
 * figures).  In dry-run nothing is written, so nothing can be tried: the
 * change is reported and taken as made.
 */
static void trial_start(const struct jt_timing *t, const struct jt_journal_policy *jp,
			struct jt_journal_state *st, enum jt_knob knob, int64_t to, bool recheck,
			const struct jt_sample *s, bool dry_run, const char *why,
			struct jt_decision *out, unsigned int *n)
{
	struct jt_knob_state *ks = &st->knob[knob];
	struct jt_trial_run *tr = &st->trial;
	struct jt_window_stats w;
	struct jt_decision *d;
	int64_t from = recheck ? ks->kept_from : ks->value;

	if (dry_run) {
		d = set_knob(st, knob, to, s->time_us, true, out, n);
		snprintf(d->reason, sizeof(d->reason), "%s (untried: a trial needs its writes)", why);
		ks->kept = true;
		ks->kept_from = from;
		ks->kept_to = to;
		ks->kept_us = s->time_us;
		return;
	}
	memset(tr, 0, sizeof(*tr));
	tr->active = true;
	tr->knob = knob;
	tr->from = from;
	tr->to = to;
	tr->recheck = recheck;
	tr->started_us = s->time_us;
	tr->measured = measured_counter(s, knob, &tr->measured_base_waits, &tr->measured_base_us);
	/* the re-check of an early keep confirms it: it may run to the trial's cap */
	tr->confirm = recheck && tr->measured && ks->recheck_in_us;
	if (tr->measured && recheck && ks->kept_measured && ks->kept_us < s->time_us &&
	    ks->kept_avoided_waits <= tr->measured_base_waits &&
	    ks->kept_avoided_us <= tr->measured_base_us) {
		/*
		 * the value kept has been on since kept_us, and the kernel
		 * counted what it spared all along: that time is on-side
		 * evidence (a rare stall need not fall into the re-check's
		 * own blocks)
		 */
		tr->measured_base_waits = ks->kept_avoided_waits;
		tr->measured_base_us = ks->kept_avoided_us;
		tr->on_wall_us = s->time_us - ks->kept_us;
	}
	jt_window_stats(st, s, t->window_us, ks->quiet_since_us, &w);
	if (!recheck)
		side_of_window(&w, knob, &tr->pre);
	tr->block_us = trial_block_us(jp, knob, &w);
	ks->trials++;
	next_block(t, jp, st, s, true);
	d = emit(out, n, JT_DECISION_NOTE, knob, ks,
		 "%s: %s of %lld->%lld starts: %s; %.0f s blocks on and off, order random per pair, %u..%u pairs",
		 jt_knob_name(knob), recheck ? "re-check" : "trial", (long long)from, (long long)to,
		 why, (double)tr->block_us / 1e6, trial_params(jp, st).min_pairs,
		 max_pairs(jp, knob, recheck && !tr->confirm));
	d->new_value = to;
	block_write(st, jp, s, out, n);
}

/* Back-off after a failed trial of @ks's change to @to from @from. */
static uint64_t fail_backoff(struct jt_knob_state *ks, const struct jt_journal_policy *jp,
			     int64_t from, int64_t to, uint64_t now, bool doubled)
{
	uint64_t backoff = ks->backoff_us ? ks->backoff_us : (uint64_t)jp->outcome_backoff_s * 1000000ULL;

	ks->blocked_from = from;
	ks->blocked_up = to > from;
	ks->blocked_until_us = now + backoff;
	ks->blocked_said = false;
	if (doubled)
		ks->backoff_us = backoff * 2 > JT_OUTCOME_BACKOFF_CAP_US ? JT_OUTCOME_BACKOFF_CAP_US :
									    backoff * 2;
	return backoff;
}

/* End the trial with verdict @v at @s: put the right value in force and log. */
static void trial_end(const struct jt_journal_policy *jp, struct jt_journal_state *st,
		      enum jt_verdict v, const struct jt_sample *s,
		      const char *yield_why, struct jt_decision *out, unsigned int *n)
{
	struct jt_trial_run *tr = &st->trial;
	struct jt_knob_state *ks = &st->knob[tr->knob];
	const struct jt_knob_desc *kd = jt_knob_desc(tr->knob);
	struct jt_trial_params tp = trial_params(jp, st);
	uint64_t now = s->time_us, backoff = 0;
	int64_t target = v == JT_VERDICT_KEEP ? tr->to : tr->from;
	char figs[300], tail[240] = "", hist[80] = "";
	int64_t min, max;
	double z, p = jt_trial_relief_p(&tr->on, &tr->off);
	struct jt_decision *d;
	const char *what = tr->recheck ? "re-check" : "trial";

	trial_figures(tr, &tr->off, figs, sizeof(figs));
	snprintf(ks->last_verdict, sizeof(ks->last_verdict), "%s", jt_verdict_name(v));
	switch (v) {
	case JT_VERDICT_KEEP:
		ks->keeps++;
		ks->top_only = false;
		ks->kept = true;
		ks->kept_from = tr->from;
		ks->kept_to = tr->to;
		ks->kept_us = now;
		ks->backoff_us = 0;
		ks->next_try = 0;
		ks->recheck_in_us = 0;
		ks->kept_measured = measured_counter(s, tr->knob, &ks->kept_avoided_waits,
						     &ks->kept_avoided_us);
		/*
		 * a keep on measured relief is confirmed by a re-check a
		 * minute later (it may be early: one pair; the confirmation
		 * runs to the trial's cap if it must)
		 */
		if (tp.measured && !tr->recheck &&
		    JT_EARLY_RECHECK_US < (uint64_t)jp->recheck_s * 1000000ULL)
			ks->recheck_in_us = JT_EARLY_RECHECK_US;
		if (tp.measured)
			snprintf(tail, sizeof(tail), "; spared %.1f ms/s, measured; re-checked in %.0f s",
				 jt_side_measured_rate(&tr->on) / 1000.0,
				 ks->recheck_in_us ? (double)ks->recheck_in_us / 1e6 :
						     (double)jp->recheck_s);
		else
			snprintf(tail, sizeof(tail), "; relief p %.2g < %.2g; re-checked in %u s", p,
				 jt_trial_relief_alpha(&tp, tr->pairs), jp->recheck_s);
		break;
	case JT_VERDICT_HARM:
		ks->harms++;
		ks->kept = false;
		ks->next_try = 0;
		/*
		 * harm at the top of the range: after the back-off only the
		 * top again, and the journal-size advice may follow (the
		 * waits persist with the watermark off and at its top)
		 */
		if (kd->stepped && !tr->recheck && tr->to > tr->from &&
		    auto_range(jp, s, tr->knob, &min, &max) && tr->to >= max)
			ks->top_only = true;
		backoff = fail_backoff(ks, jp, tr->from, tr->to, now, true);
		z = jt_harm_z(&tr->on, &tr->off, tp.margin, tp.history_cv2);
		/* the history's dispersion decided the se: say so */
		if (z < jt_harm_z(&tr->on, &tr->off, tp.margin, 0.0)) {
			double hn;

			snprintf(hist, sizeof(hist), " (commit-wait CV %.1f: %.0f waits at the values in force)",
				 sqrt(jt_history_cv2(st, &hn)), hn);
		}
		if (tr->on.tput.n >= JT_TRIAL_TPUT_HARM_PAIRS &&
		    jt_throughput_z(&tr->on, tp.margin) > JT_TRIAL_HARM_Z)
			snprintf(tail, sizeof(tail),
				 "; fewer fsyncs: %.2f vs %.2f commit waits/s, pairs z %.1f > %.2f; not tried again for %.0f s",
				 tr->on.span_us ? (double)(tr->on.commit_waits - tr->on.censored) * 1e6 /
							  (double)tr->on.span_us : 0.0,
				 tr->off.span_us ? (double)tr->off.commit_waits * 1e6 /
							   (double)tr->off.span_us : 0.0,
				 jt_throughput_z(&tr->on, tp.margin), JT_TRIAL_HARM_Z,
				 (double)backoff / 1e6);
		else
			snprintf(tail, sizeof(tail), "; harm z %.1f > %.2f%s; not tried again for %.0f s",
				 isfinite(z) ? z : 0.0, JT_TRIAL_HARM_Z, hist, (double)backoff / 1e6);
		break;
	case JT_VERDICT_YIELDED:
		/*
		 * no evidence against the change: held back for the base
		 * back-off (not doubled), so that the other knob's trial
		 * runs first and this one may come back after it
		 */
		ks->kept = false;
		ks->next_try = 0;
		backoff = fail_backoff(ks, jp, tr->from, tr->to, now, false);
		snprintf(tail, sizeof(tail), "; relief p %.2g; %s; not tried again for %.0f s", p,
			 yield_why ? yield_why : "another knob's wait is over its trigger",
			 (double)backoff / 1e6);
		break;
	case JT_VERDICT_RELIEF_GONE:
		if (!tr->on.relief_waits && !tr->off.relief_waits && !tr->on.measured_waits) {
			/*
			 * a re-check in a quiet spell: the change is taken back
			 * (it has to prove itself again) but nothing was found
			 * against it, so no back-off holds it and the trigger
			 * may start a trial as soon as the wait is back
			 * (bench/agent-field, 6.12: the back-off after such a
			 * re-check at a run's start kept force copy off for
			 * 300 s of seconds-long shadow waits)
			 */
			ks->fails++;
			ks->kept = false;
			ks->next_try = 0;
			snprintf(tail, sizeof(tail),
				 "; no %s wait on either side; tried again once it is over the trigger",
				 jt_wait_kind_name(kd->relief));
			break;
		}
		/* fall through */
	case JT_VERDICT_INCONCLUSIVE:
		if (v == JT_VERDICT_INCONCLUSIVE && tp.measured && !tr->on.relief_waits &&
		    !tr->on.measured_waits) {
			/*
			 * the value on trial met no stall at all (a rare one
			 * fell into the off blocks only): nothing against it,
			 * no back-off, tried again once the wait is over the
			 * trigger (issue 45: one 8-s stall every 2 minutes was
			 * kept in 0 of 100 one-hour runs)
			 */
			ks->fails++;
			ks->kept = false;
			ks->next_try = 0;
			snprintf(tail, sizeof(tail),
				 "; no %s wait while on, spared or not; tried again once it is over the trigger",
				 jt_wait_kind_name(kd->relief));
			break;
		}
		/* fall through */
	case JT_VERDICT_NO_RELIEF:
	default:
		ks->fails++;
		ks->kept = false;
		/* a stepped knob may still be helped by a higher value: try it next, at once */
		if (!tr->recheck && kd->stepped && tr->to > tr->from && tr->on.relief_waits &&
		    auto_range(jp, s, tr->knob, &min, &max) && tr->to < max) {
			ks->next_try = step_up(tr->knob, tr->to, max);
			snprintf(tail, sizeof(tail), "; relief p %.2g; %lld is tried next", p,
				 (long long)ks->next_try);
		} else {
			ks->next_try = 0;
			/* up to the top without relief: after the back-off, only the top is worth a try */
			ks->top_only = kd->stepped && !tr->recheck && tr->to > tr->from;
			backoff = fail_backoff(ks, jp, tr->from, tr->to, now, true);
			snprintf(tail, sizeof(tail), "; relief p %.2g; not tried again for %.0f s", p,
				 (double)backoff / 1e6);
		}
		break;
	}
	{
		char body[JT_REASON_MAX - 48];
		const char *word = v == JT_VERDICT_HARM ? "harm" : jt_verdict_name(v);
		unsigned long blocks = (unsigned long)(tr->on.blocks + tr->off.blocks);

		snprintf(body, sizeof(body), "%s of %lld->%lld: %s after %lu block%s: %s%s", what,
			 (long long)tr->from, (long long)tr->to, word, blocks, blocks == 1 ? "" : "s",
			 figs, tail);
		if (ks->value != target) {
			d = set_knob(st, tr->knob, target, now, false, out, n);
			d->revert = v != JT_VERDICT_KEEP;
			if (d->revert) {
				/* a refused revert is written again (jt_policy_undo()) */
				ks->undo_pending = true;
				ks->undo_from = tr->from;
				ks->undo_to = tr->to;
				snprintf(ks->undo_why, sizeof(ks->undo_why),
					 "ended without keeping it");
			}
			snprintf(d->reason, sizeof(d->reason), "%s%s", d->revert ? "reverted: " : "kept: ",
				 body);
		} else {
			d = emit(out, n, JT_DECISION_NOTE, tr->knob, ks, "%s %lld->%lld %s: %s",
				 jt_knob_name(tr->knob), (long long)tr->from, (long long)tr->to,
				 v == JT_VERDICT_KEEP ? "kept" : "not kept", body);
			d->old_value = tr->from;
			d->new_value = tr->to;
			/* undone as much as a revert is: the off block already put it back */
			d->revert = v != JT_VERDICT_KEEP;
		}
		d->outcome = true;
	}
	ks->quiet_since_us = now;
	tr->active = false;
}

static bool yield_to(const struct jt_timing *t, const struct jt_journal_policy *jp,
		     const struct jt_journal_state *st, const struct jt_sample *s,
		     const struct jt_trial_params *p, char *why, size_t len);

/*
 * Run the trial in progress one sample on: the harm test at every sample
 * of an on-block, a block switch when the block is over, and the verdict
 * after each pair.
 */
static void trial_step(const struct jt_timing *t, const struct jt_journal_policy *jp,
		       struct jt_journal_state *st, const struct jt_sample *s,
		       struct jt_decision *out, unsigned int *n)
{
	struct jt_trial_run *tr = &st->trial;
	struct jt_trial_params p = trial_params(jp, st);
	struct jt_block b;
	struct jt_side off_pre;
	enum jt_verdict v;
	char yield_why[200];
	bool done;

	measured_update(tr, s);
	if (tr->settling) {
		uint64_t since = s->time_us - tr->block_start_us;
		bool ended = tr->switch_commit_ended;

		/*
		 * The block's figures start once it settled (next_block()) and
		 * the commit in flight at the switch ended at an earlier
		 * sample: the counters are read one file at a time, so the
		 * waits its end woke are read by the next one at the latest.
		 */
		tr->switch_commit_ended = ended ||
					  s->wait[JT_WAIT_COMMIT_DURATION].waits != tr->switch_commits;
		if (since + t->interval_us / 10 < tr->settle_us)
			return;
		if (!ended && since < 2 * tr->block_us)
			return;
		tr->settling = false;
		fill_slot(&tr->base, s);
		tr->last = tr->base;
		tr->blk_relief_waits = tr->blk_relief_us = 0;
		return;
	}
	carry_step(tr, s);
	block_of(&tr->base, s, tr->knob, &b);
	b.relief_waits = tr->blk_relief_waits;
	b.relief_us = tr->blk_relief_us;
	done = b.span_us >= tr->cur_block_us * 9 / 10;
	jt_side_sum(&tr->off, &tr->pre, &off_pre);
	if (tr->cur_on && !done) {
		struct jt_side on = tr->on;

		/*
		 * harm suspected: the on block ends now, and the off block
		 * that follows confirms it or clears it (below)
		 */
		jt_side_add(&on, &b, true, NULL);
		done = jt_trial_harm(&p, &on, &tr->off);
	}
	if (!done)
		return;
	jt_side_add(tr->cur_on ? &tr->on : &tr->off, &b, tr->cur_on, &off_pre);
	if (tr->in_second && tr->have_prev && b.span_us && tr->prev_span_us) {
		/* the pair's sign: its on block's relief rate against its off block's */
		double cur = (double)b.relief_us / (double)b.span_us;
		double prev = (double)tr->prev_relief_us / (double)tr->prev_span_us;
		double on_rate = tr->cur_on ? cur : prev, off_rate = tr->cur_on ? prev : cur;

		if (on_rate < off_rate)
			tr->on.pair_wins++;
		else if (on_rate > off_rate)
			tr->on.pair_losses++;
	}
	if (tr->in_second && tr->have_prev) {
		/* the pair's own on block against its own off block */
		const struct jt_block *b_on = tr->cur_on ? &b : &tr->prev_block;
		const struct jt_block *b_off = tr->cur_on ? &tr->prev_block : &b;

		jt_pair_tput(&tr->on, b_on, b_off);
		jt_pair_other(&tr->on, b_on, b_off, p.relief_min_us_per_s);
	}
	tr->prev_block = b;
	tr->prev_span_us = b.span_us;
	tr->prev_relief_us = b.relief_us;
	tr->have_prev = true;
	tr->prev_on = tr->cur_on;
	tr->prev_commits = b.commits ? b.commits : 1;
	tr->prev_events = b.relief_waits < tr->prev_commits ? b.relief_waits : tr->prev_commits;
	if (tr->in_second)
		tr->pairs++;
	/*
	 * Harm is suspected at the end of an on block and confirmed at the
	 * end of the off block after it: a load that changes phase (a backup
	 * that slows every commit from the middle of an on block) slows that
	 * off block too and clears the suspicion, while a harmful value still
	 * costs at most the one on block (issue 45: a backup slowing commits
	 * x4 from mid-trial took a helpful change back for harm in 35 % of
	 * runs when the on block alone decided).
	 */
	if (jt_trial_harm(&p, &tr->on, &tr->off)) {
		if (!tr->cur_on) {
			trial_end(jp, st, JT_VERDICT_HARM, s, NULL, out, n);
			return;
		}
		tr->suspect = true;
		next_block(t, jp, st, s, tr->in_second);
		block_write(st, jp, s, out, n);
		return;
	}
	if (!tr->cur_on)
		tr->suspect = false;
	v = jt_trial_judge(&p, &tr->on, &tr->off, tr->pairs, tr->in_second,
			   tr->recheck);
	/* a look that could have kept spends its level of the trial's 5 % */
	if (v == JT_VERDICT_CONTINUE && tr->in_second && !tr->recheck &&
	    tr->pairs >= p.min_pairs && jt_trial_min_p(&tr->on, &tr->off) <= JT_TRIAL_RELIEF_ALPHA)
		tr->looks_spent++;
	if (v == JT_VERDICT_CONTINUE && tr->in_second && yield_to(t, jp, st, s, &p, yield_why,
								   sizeof(yield_why)))
		v = JT_VERDICT_YIELDED;
	if (v != JT_VERDICT_CONTINUE) {
		trial_end(jp, st, v, s, v == JT_VERDICT_YIELDED ? yield_why : NULL, out, n);
		return;
	}
	next_block(t, jp, st, s, tr->in_second);
	block_write(st, jp, s, out, n);
}

bool jt_trial_describe(const struct jt_journal_policy *jp, const struct jt_journal_state *st,
		       char *text, size_t len, uint64_t *deadline_us)
{
	const struct jt_trial_run *tr = &st->trial;
	struct jt_trial_params p;
	unsigned int done, total;

	if (len)
		text[0] = '\0';
	*deadline_us = 0;
	if (!tr->active)
		return false;
	p = trial_params(jp, st);
	snprintf(text, len, "%s%s %lld->%lld, pair %u of %u..%u, %s block",
		 tr->recheck ? "re-check of " : "", jt_knob_name(tr->knob), (long long)tr->from,
		 (long long)tr->to, tr->pairs + 1, p.min_pairs, p.max_pairs,
		 tr->cur_on ? "on" : "off");
	done = tr->pairs * 2 + (tr->in_second ? 1 : 0);
	total = p.max_pairs * 2;
	*deadline_us = tr->block_start_us +
		       (uint64_t)(total > done ? total - done : 1) * (tr->block_us + tr->settle_us);
	return true;
}

/*
 * Stop a trial without a verdict (taken over, mode changed, set up again):
 * jt_policy_cut_short(), which also arms the undo of its untried value.
 */
static void trial_abort(struct jt_journal_state *st, const char *why)
{
	jt_policy_cut_short(st, why);
}

void jt_policy_cut_short(struct jt_journal_state *st, const char *why)
{
	struct jt_trial_run *tr = &st->trial;
	struct jt_knob_state *ks;

	if (!tr->active)
		return;
	ks = &st->knob[tr->knob];
	ks->quiet_since_us = 0;
	tr->active = false;
	if (!why || tr->from == tr->to || ks->value != tr->to)
		return;
	ks->undo_pending = true;
	ks->undo_from = tr->from;
	ks->undo_to = tr->to;
	snprintf(ks->undo_why, sizeof(ks->undo_why), "cut short (%s)", why);
}

void jt_policy_resume(struct jt_journal_state *st, enum jt_knob knob, int64_t from, int64_t to)
{
	struct jt_knob_state *ks = &st->knob[knob];

	if ((unsigned int)knob >= JT_KNOBS || from == to)
		return;
	ks->undo_pending = true;
	ks->undo_from = from;
	ks->undo_to = to;
	snprintf(ks->undo_why, sizeof(ks->undo_why), "cut short (the agent was restarted)");
}

bool jt_policy_undo_target(const struct jt_journal_state *st, enum jt_knob *knob, int64_t *from,
			   int64_t *to)
{
	unsigned int k;

	if (st->trial.active) {
		*knob = st->trial.knob;
		*from = st->trial.from;
		*to = st->trial.to;
		return true;
	}
	for (k = 0; k < JT_KNOBS; k++)
		if (st->knob[k].undo_pending) {
			*knob = (enum jt_knob)k;
			*from = st->knob[k].undo_from;
			*to = st->knob[k].undo_to;
			return true;
		}
	return false;
}

unsigned int jt_policy_undo(const struct jt_journal_policy *jp, struct jt_journal_state *st,
			    uint64_t now_us, bool dry_run, struct jt_decision *out)
{
	unsigned int k, n = 0;

	for (k = 0; k < JT_KNOBS; k++) {
		struct jt_knob_state *ks = &st->knob[k];
		struct jt_decision *d;

		if (!ks->undo_pending)
			continue;
		/* restored from the state file: its first sample tells */
		if (ks->resync && ks->seen)
			continue;
		/*
		 * taken over, or a fixed mode that writes its own value; in
		 * dry-run nothing was tried; neither value: not ours
		 */
		if (!ks->seen || !ks->managed || jt_knob_mode(jp, (enum jt_knob)k) != JT_MODE_AUTO ||
		    dry_run || (ks->value != ks->undo_from && ks->value != ks->undo_to)) {
			ks->undo_pending = false;
			continue;
		}
		/* written already: pending until a sample reads it (jt_policy_step()) */
		if (ks->value == ks->undo_from)
			continue;
		/* not a verdict's revert: no revert is counted for it */
		d = set_knob(st, (enum jt_knob)k, ks->undo_from, now_us, false, out, &n);
		snprintf(d->reason, sizeof(d->reason),
			 "trial of %lld->%lld %s: back to the value before it",
			 (long long)ks->undo_from, (long long)ks->undo_to, ks->undo_why);
	}
	return n;
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
static bool yield_to(const struct jt_timing *t, const struct jt_journal_policy *jp,
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
	trial_abort(st, "the journal was set up again");
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
static void history_add(struct jt_journal_state *st, const struct jt_sample *s)
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
static bool history_counts(const struct jt_journal_state *st, const struct jt_sample *s)
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

/* Whether a trial cut short still waits for its value before to be read back. */
static bool undo_pending(const struct jt_journal_state *st)
{
	unsigned int k;

	for (k = 0; k < JT_KNOBS; k++)
		if (st->knob[k].undo_pending)
			return true;
	return false;
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
				trial_abort(st, NULL);	/* the writer's value stands */
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
			trial_abort(st, NULL);
		else if (jt_knob_mode(jp, st->trial.knob) != JT_MODE_AUTO)
			trial_abort(st, "its mode is no longer auto");
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
		trial_abort(st, "a write of the knob was refused");
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
		trial_abort(st, "its mode or policy was set again");
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
