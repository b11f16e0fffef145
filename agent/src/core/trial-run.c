// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trial runner of the policy core: one trial per journal, a change
 * tried in interleaved on/off blocks (order random per pair), its
 * blocks' figures summed into the sides (the relief waits carried to the
 * block they began in, the kernel's measured relief), the harm test at
 * every sample of an on block, the verdict after each pair
 * (jt_trial_judge(), trial.c) and its end: the value kept or put back,
 * the back-off, the log line.  Pure; part of the policy core (policy.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "policy.h"
#include "policy-internal.h"

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
void trial_start(const struct jt_timing *t, const struct jt_journal_policy *jp,
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
		 * runs to the trial's cap if it must) - when there is a cost
		 * side to confirm: a load without a commit wait on either
		 * side has no fsync the change could slow, and the
		 * confirmation's off blocks cost it the relief (bench/agent-
		 * field's seed load, 6.1: a 6.1-s writer stall in them)
		 */
		if (tp.measured && !tr->recheck && (tr->on.commit_waits || tr->off.commit_waits) &&
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

/*
 * Run the trial in progress one sample on: the harm test at every sample
 * of an on-block, a block switch when the block is over, and the verdict
 * after each pair.
 */
void trial_step(const struct jt_timing *t, const struct jt_journal_policy *jp,
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
