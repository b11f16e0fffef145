// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Tests of an interleaved trial.  See trial.h for shapes and units and
 * Documentation/agent-policy.md ("Trials") for why these tests and levels.
 */
#include <math.h>
#include <string.h>

#include "hist.h"
#include "trial.h"

const char *jt_verdict_name(enum jt_verdict v)
{
	static const char *const names[] = {
		"continue", "keep", "harm", "no relief", "inconclusive", "relief gone", "costly",
		"yielded",
	};

	return (unsigned int)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

/* The bucket a latency of @us falls into. */
static unsigned int bucket_of(uint64_t us)
{
	unsigned int i = 0;

	while (us >= 2 && i < JT_HIST_BUCKETS - 1) {
		us >>= 1;
		i++;
	}
	return i;
}

static double commit_rate(const struct jt_side *sd)
{
	return sd->span_us ? (double)(sd->commit_waits - sd->censored) / (double)sd->span_us : 0.0;
}

void jt_side_add(struct jt_side *sd, const struct jt_block *b, bool on,
		 const struct jt_side *other)
{
	uint64_t ev = b->relief_waits;
	uint64_t cl = b->commits ? b->commits : 1;
	unsigned int i;

	sd->span_us += b->span_us;
	sd->blocks++;
	sd->relief_waits += b->relief_waits;
	sd->relief_us += b->relief_us;
	sd->relief_events += ev < cl ? ev : cl;
	sd->commit_waits += b->commit_waits;
	sd->commit_wait_us += b->commit_wait_us;
	sd->commits += b->commits;
	sd->commit_us += b->commit_us;
	sd->other_us += b->other_us;
	for (i = 0; i < JT_HIST_BUCKETS; i++)
		sd->hist[i] += b->hist[i];
	if (on && b->commit_waits == 0 && b->commits && other &&
	    commit_rate(other) * (double)b->span_us >= JT_TRIAL_CENSOR_EXPECTED) {
		sd->commit_waits++;
		sd->commit_wait_us += b->span_us;
		sd->commits++;
		sd->censored++;
		sd->hist[bucket_of(b->span_us)]++;
	}
}

void jt_side_sum(const struct jt_side *a, const struct jt_side *b, struct jt_side *out)
{
	unsigned int i;

	out->span_us = a->span_us + b->span_us;
	out->blocks = a->blocks + b->blocks;
	out->relief_waits = a->relief_waits + b->relief_waits;
	out->relief_us = a->relief_us + b->relief_us;
	out->relief_events = a->relief_events + b->relief_events;
	out->commit_waits = a->commit_waits + b->commit_waits;
	out->commit_wait_us = a->commit_wait_us + b->commit_wait_us;
	out->commits = a->commits + b->commits;
	out->commit_us = a->commit_us + b->commit_us;
	out->censored = a->censored + b->censored;
	out->other_us = a->other_us + b->other_us;
	out->measured_waits = a->measured_waits + b->measured_waits;
	out->measured_us = a->measured_us + b->measured_us;
	out->measured_span_us = a->measured_span_us + b->measured_span_us;
	out->tput = a->tput;
	out->other = a->other;
	out->pair_wins = a->pair_wins + b->pair_wins;
	out->pair_losses = a->pair_losses + b->pair_losses;
	for (i = 0; i < JT_HIST_BUCKETS; i++)
		out->hist[i] = a->hist[i] + b->hist[i];
}

double jt_side_relief_rate(const struct jt_side *sd)
{
	return sd->span_us ? (double)sd->relief_us * 1e6 / (double)sd->span_us : 0.0;
}

double jt_side_measured_rate(const struct jt_side *sd)
{
	return sd->measured_span_us ? (double)sd->measured_us * 1e6 / (double)sd->measured_span_us :
				      0.0;
}

double jt_side_commit_mean_us(const struct jt_side *sd)
{
	return sd->commit_waits ? (double)sd->commit_wait_us / (double)sd->commit_waits : 0.0;
}

/* ln(binomial coefficient) via lgamma. */
static double log_choose(double n, double k)
{
	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

/* P(X >= @x) for X binomial with @n trials of probability @p (0 < p < 1). */
static double binom_tail(uint64_t n, uint64_t x, double p)
{
	double lp = log(p), lq = log1p(-p), sum = 0.0;
	uint64_t k;

	for (k = x; k <= n; k++)
		sum += exp(log_choose((double)n, (double)k) + (double)k * lp + (double)(n - k) * lq);
	return sum > 1.0 ? 1.0 : sum;
}

double jt_relief_p(const struct jt_side *on, const struct jt_side *off)
{
	uint64_t n = on->relief_events + off->relief_events, x = off->relief_events;
	double span = (double)on->span_us + (double)off->span_us, p0;

	if (n == 0 || span <= 0.0)
		return 1.0;
	p0 = (double)off->span_us / span;
	if (p0 <= 0.0)
		return 1.0;
	if (p0 >= 1.0)
		return x ? 0.0 : 1.0;
	return binom_tail(n, x, p0);
}

double jt_pair_sign_p(const struct jt_side *on)
{
	uint64_t n = on->pair_wins + on->pair_losses;

	return n ? binom_tail(n, on->pair_wins, 0.5) : 1.0;
}

double jt_trial_relief_p(const struct jt_side *on, const struct jt_side *off)
{
	double a = jt_relief_p(on, off), b = jt_pair_sign_p(on);

	return a < b ? a : b;
}

double jt_hist_cv2(const uint64_t h[JT_HIST_BUCKETS], double *n)
{
	double s1 = 0.0, s2 = 0.0, m;
	unsigned int i;

	*n = 0.0;
	for (i = 0; i < JT_HIST_BUCKETS; i++) {
		double mid = (jt_hist_bucket_lo_us(i) + jt_hist_bucket_hi_us(i)) / 2.0;

		s1 += (double)h[i] * mid;
		s2 += (double)h[i] * mid * mid;
		*n += (double)h[i];
	}
	if (*n < 2.0 || s1 <= 0.0)
		return 0.0;
	m = s1 / *n;
	return (s2 / *n - m * m) / (m * m) * *n / (*n - 1.0);
}

static double eff_n(const struct jt_side *sd)
{
	uint64_t n = sd->commit_waits < sd->commits ? sd->commit_waits : sd->commits;

	/* an older module without commit counts: the waits themselves */
	if (!sd->commits)
		n = sd->commit_waits;
	return n ? (double)n : 1.0;
}

/* jt_cost_log_ratio() with the squared CV at least @cv2_floor. */
static bool cost_log_ratio(const struct jt_side *on, const struct jt_side *off, double cv2_floor,
			   double *ratio, double *se_out)
{
	double n_on, n_off, c_on, c_off, var;
	double mean_on = jt_side_commit_mean_us(on), mean_off = jt_side_commit_mean_us(off);

	if (!on->commit_waits || !off->commit_waits || mean_on <= 0.0 || mean_off <= 0.0)
		return false;
	*ratio = log(mean_on / mean_off);
	if (!se_out)
		return true;
	/*
	 * ln of a mean of n latencies with coefficient of variation c has a
	 * standard error of about c / sqrt(n): c pooled from both sides
	 */
	c_on = jt_hist_cv2(on->hist, &n_on);
	c_off = jt_hist_cv2(off->hist, &n_off);
	var = n_on + n_off > 0.0 ? (c_on * n_on + c_off * n_off) / (n_on + n_off) : 0.0;
	if (var < JT_TRIAL_CV_MIN * JT_TRIAL_CV_MIN)
		var = JT_TRIAL_CV_MIN * JT_TRIAL_CV_MIN;
	if (var < cv2_floor)
		var = cv2_floor;
	*se_out = sqrt(var / eff_n(on) + var / eff_n(off));
	return true;
}

bool jt_cost_log_ratio(const struct jt_side *on, const struct jt_side *off, double *ratio,
		       double *se_out)
{
	return cost_log_ratio(on, off, 0.0, ratio, se_out);
}

double jt_harm_z(const struct jt_side *on, const struct jt_side *off, double margin,
		 double history_cv2)
{
	double r, se;

	if (!off->blocks || !cost_log_ratio(on, off, history_cv2, &r, &se))
		return -INFINITY;
	return (r - margin) / se;
}

void jt_pair_stat_add(struct jt_pair_stat *ps, double d, double floor_var)
{
	ps->n++;
	if (d > 0.0)
		ps->above++;
	ps->sum += d;
	ps->sum2 += d * d;
	ps->floor_var += floor_var;
}

double jt_pair_stat_z(const struct jt_pair_stat *ps, double threshold)
{
	double n = (double)ps->n, mean, var = 0.0, fl;

	if (!ps->n)
		return -INFINITY;
	mean = ps->sum / n;
	if (ps->n > 1)
		var = (ps->sum2 - n * mean * mean) / (n - 1.0);
	fl = ps->floor_var / n;
	if (var < fl)
		var = fl;
	if (var <= 0.0)
		return mean > threshold ? INFINITY : -INFINITY;
	return (mean - threshold) / sqrt(var / n);
}

/* A block's effective count of fsyncs: its commit waits, at most one per commit, at least 1. */
static double block_eff_n(const struct jt_block *b)
{
	uint64_t n = b->commits && b->commits < b->commit_waits ? b->commits : b->commit_waits;

	return n ? (double)n : 1.0;
}

void jt_pair_tput(struct jt_side *on, const struct jt_block *b_on, const struct jt_block *b_off)
{
	double r_on, r_off;

	if (!b_on->span_us || !b_off->span_us || (!b_on->commit_waits && !b_off->commit_waits))
		return;
	r_on = ((double)b_on->commit_waits + 0.5) / (double)b_on->span_us;
	r_off = ((double)b_off->commit_waits + 0.5) / (double)b_off->span_us;
	jt_pair_stat_add(&on->tput, log(r_off / r_on),
			 1.0 / (block_eff_n(b_on) + 0.5) + 1.0 / (block_eff_n(b_off) + 0.5));
}

void jt_pair_other(struct jt_side *on, const struct jt_block *b_on, const struct jt_block *b_off,
		   double budget_us_per_s)
{
	if (!b_on->span_us || !b_off->span_us)
		return;
	jt_pair_stat_add(&on->other,
			 (double)b_on->other_us * 1e6 / (double)b_on->span_us -
			 (double)b_off->other_us * 1e6 / (double)b_off->span_us,
			 budget_us_per_s * budget_us_per_s);
}

double jt_throughput_z(const struct jt_side *on, double margin)
{
	return jt_pair_stat_z(&on->tput, margin);
}

bool jt_cost_paid(const struct jt_side *on, const struct jt_side *off, double cv2_floor)
{
	double moff = jt_side_commit_mean_us(off), cost, se, ub, added;
	double relief = jt_side_measured_rate(on);

	if (relief <= 0.0 || !on->span_us || !cost_log_ratio(on, off, cv2_floor, &cost, &se))
		return false;
	/* at the keep level: the cost's upper bound, not its estimate */
	ub = cost + JT_TRIAL_KEEP_Z * se;
	if (ub > JT_TRIAL_PAID_RATIO_MAX)
		return false;
	/* the commit-wait time per second the change adds at the on side's rate of fsyncs */
	added = moff * expm1(ub) * (double)on->commit_waits * 1e6 / (double)on->span_us;
	return added <= JT_TRIAL_PAID_SHARE * relief;
}

bool jt_trial_harm(const struct jt_trial_params *p, const struct jt_side *on,
		   const struct jt_side *off)
{
	if (jt_harm_z(on, off, p->margin, p->history_cv2) > JT_TRIAL_HARM_Z &&
	    !(p->measured && jt_cost_paid(on, off, p->history_cv2)))
		return true;
	return on->tput.n >= JT_TRIAL_TPUT_HARM_PAIRS && on->tput.above == on->tput.n &&
	       jt_throughput_z(on, p->margin) > JT_TRIAL_HARM_Z;
}

/*
 * Fewer fsyncs over the whole trial, both sides' blocks pooled: *@drop =
 * ln(rate off / rate on), half a wait added to each count and censored
 * on-blocks left out, and its standard error *@se from the effective
 * counts.  False before the first off block.  A load that drifts between
 * blocks makes it wander (alone at the keep level, it took back 10 % of
 * the helpful changes at their re-checks in the seeded simulation), and
 * three pairs' own spread is a weak guide (24 against 62 fsyncs in 15 s a
 * side passed a pair-level t-test): a keep is held back when it is beyond
 * its level and most pairs have fewer.
 */
static bool pooled_tput(const struct jt_side *on, const struct jt_side *off, double *drop,
			double *se)
{
	double r_on, r_off;

	if (!off->blocks || !on->span_us || !off->span_us)
		return false;
	r_on = ((double)(on->commit_waits - on->censored) + 0.5) / (double)on->span_us;
	r_off = ((double)off->commit_waits + 0.5) / (double)off->span_us;
	*drop = log(r_off / r_on);
	*se = sqrt(1.0 / (eff_n(on) + 0.5) + 1.0 / (eff_n(off) + 0.5));
	return true;
}

/* pooled_tput() as (drop - @margin) / se; -inf when there is none. */
static double pooled_tput_z(const struct jt_side *on, const struct jt_side *off, double margin)
{
	double drop, se;

	return pooled_tput(on, off, &drop, &se) ? (drop - margin) / se : -INFINITY;
}

/* pooled_tput()'s upper bound at the keep level; +inf when there is none. */
static double pooled_tput_ub(const struct jt_side *on, const struct jt_side *off)
{
	double drop, se;

	return pooled_tput(on, off, &drop, &se) ? drop + JT_TRIAL_KEEP_Z * se : INFINITY;
}

/* A pair statistic that holds a keep back: above JT_TRIAL_KEEP_Z, in most pairs. */
static bool holds_back(const struct jt_pair_stat *ps, double threshold)
{
	return ps->above * 2 > ps->n && jt_pair_stat_z(ps, threshold) > JT_TRIAL_KEEP_Z;
}

/*
 * Whether a keep waits: fewer fsyncs complete, or the change adds waits of
 * the other kinds beyond the budget and beyond JT_TRIAL_OTHER_SHARE of
 * @relief (us/s) - it moves the stall to another wait - pair by pair, at
 * the keep level.  The trial goes on (to a harm verdict, or inconclusive
 * at its cap): a verdict at the keep level at every look ended 8 % of the
 * trials of a helpful change in the seeded simulation.
 */
static bool keep_held(const struct jt_trial_params *p, const struct jt_side *on,
		      const struct jt_side *off, double relief, double z_level)
{
	double thr = JT_TRIAL_OTHER_SHARE * relief;

	if (thr < p->relief_min_us_per_s)
		thr = p->relief_min_us_per_s;
	if (z_level <= JT_TRIAL_KEEP_Z && p->measured) {
		/*
		 * to keep on measured relief, the fsyncs per second must be
		 * shown not much fewer: the drop's upper bound at the keep
		 * level within JT_TRIAL_TPUT_EQ (no evidence of fewer was not
		 * enough: a change that halves the fsyncs was kept in 14 % of
		 * the seeded runs of a load that drifts)
		 */
		if ((on->commit_waits || off->commit_waits) &&
		    pooled_tput_ub(on, off) > JT_TRIAL_TPUT_EQ)
			return true;
	} else if (z_level <= JT_TRIAL_KEEP_Z) {
		if (holds_back(&on->tput, p->margin))
			return true;
	} else if (pooled_tput_z(on, off, p->margin) > z_level &&
		   on->tput.above * 2 > on->tput.n) {
		/* to take a kept change back, most pairs must also have fewer */
		return true;
	}
	return holds_back(&on->other, thr);
}

/* The per-wait cost is beyond the margin at the keep level (unless @paid). */
static bool costly(const struct jt_trial_params *p, const struct jt_side *on,
		   const struct jt_side *off, bool paid)
{
	double cost, se;

	return !paid && cost_log_ratio(on, off, p->history_cv2, &cost, &se) &&
	       (cost - p->margin) / se > JT_TRIAL_KEEP_Z;
}

/* jt_trial_judge() for a knob whose relief the kernel measures, once the pairs are enough. */
static enum jt_verdict judge_measured(const struct jt_trial_params *p, const struct jt_side *on,
				      const struct jt_side *off, unsigned int pairs, bool recheck)
{
	double measured = jt_side_measured_rate(on), cost = 0.0, se = 1.0;
	bool has_cost = cost_log_ratio(on, off, p->history_cv2, &cost, &se);
	bool paid = jt_cost_paid(on, off, p->history_cv2);

	/* a cost at the keep level ends the trial from the policy's minimum pairs; before, it holds the keep */
	if (pairs >= p->full_pairs && costly(p, on, off, paid))
		return JT_VERDICT_COSTLY;
	/*
	 * a kept change stays while it still spares half the budget or more
	 * (the whole time it was kept counts: jt_trial_run.on_wall_us) and
	 * nothing holds it back
	 */
	if (recheck) {
		if (p->confirm && keep_held(p, on, off, measured, JT_TRIAL_KEEP_Z))
			return pairs >= p->max_pairs ? JT_VERDICT_INCONCLUSIVE :
						       JT_VERDICT_CONTINUE;
		if (keep_held(p, on, off, measured, JT_TRIAL_TAKE_BACK_Z))
			return JT_VERDICT_COSTLY;
		return measured * 2.0 >= p->relief_min_us_per_s ? JT_VERDICT_KEEP :
								  JT_VERDICT_RELIEF_GONE;
	}
	/*
	 * keep on the measured relief, when the per-wait cost is within the
	 * margin or paid for; before the trial's minimum pairs (an early
	 * keep, re-checked in a minute) also only when the fsyncs per second
	 * are not estimated fewer beyond the margin: one pair has little
	 * power, so its estimate has to be on the right side
	 */
	if (measured >= p->relief_min_us_per_s && (!has_cost || paid || cost <= p->margin) &&
	    !costly(p, on, off, paid) && !keep_held(p, on, off, measured, JT_TRIAL_KEEP_Z) &&
	    (pairs >= p->full_pairs || pooled_tput_z(on, off, p->margin) <= 0.0))
		return JT_VERDICT_KEEP;
	/* the on blocks still wait half as much or more, and little was spared */
	if (off->relief_waits && measured < p->relief_min_us_per_s &&
	    jt_side_relief_rate(on) * 2.0 >= jt_side_relief_rate(off))
		return JT_VERDICT_NO_RELIEF;
	return pairs >= p->max_pairs ? JT_VERDICT_INCONCLUSIVE : JT_VERDICT_CONTINUE;
}

double jt_trial_min_p(const struct jt_side *on, const struct jt_side *off)
{
	uint64_t n = on->relief_events + off->relief_events;
	uint64_t unequal = on->pair_wins + on->pair_losses;
	double span = (double)on->span_us + (double)off->span_us;
	double by_pairs = unequal ? pow(0.5, (double)unequal) : 1.0, by_events = 1.0;

	if (n && span > 0.0)
		by_events = pow((double)off->span_us / span, (double)n);
	return by_pairs < by_events ? by_pairs : by_events;
}

double jt_trial_relief_alpha(const struct jt_trial_params *p, unsigned int pairs)
{
	unsigned int looks = p->max_pairs > p->min_pairs ? p->max_pairs - p->min_pairs : 0;
	unsigned int spent = p->looks_spent < looks ? p->looks_spent : looks;
	double left;

	if (pairs < p->max_pairs || p->max_pairs < p->min_pairs)
		return JT_TRIAL_RELIEF_ALPHA;
	left = JT_TRIAL_RELIEF_ALPHA_TOTAL - (double)spent * JT_TRIAL_RELIEF_ALPHA;
	return left > JT_TRIAL_RELIEF_ALPHA ? left : JT_TRIAL_RELIEF_ALPHA;
}

enum jt_verdict jt_trial_judge(const struct jt_trial_params *p, const struct jt_side *on,
			       const struct jt_side *off, unsigned int pairs, bool pair_done,
			       bool recheck)
{
	double relief, cost, se;

	if (jt_trial_harm(p, on, off))
		return JT_VERDICT_HARM;
	if (!pair_done || pairs < p->min_pairs)
		return JT_VERDICT_CONTINUE;
	if (p->measured)
		return judge_measured(p, on, off, pairs, recheck);
	relief = jt_side_relief_rate(off) - jt_side_relief_rate(on);
	if (recheck)
		return relief <= 0.0 ? JT_VERDICT_RELIEF_GONE : JT_VERDICT_KEEP;
	/*
	 * a change whose cost is beyond the margin at the keep level cannot be
	 * kept: stop (the old value is the safe side, so this needs less
	 * certainty than a harm verdict)
	 */
	if (costly(p, on, off, false))
		return JT_VERDICT_COSTLY;
	/*
	 * neither side has seen the wait the trial was started for (the
	 * stall went quiet): no evidence either way, so go on, up to the most
	 * pairs (agent-stall on 6.1: a trial begun on the load's first burst
	 * ran through a quiet spell, "no relief after 6 blocks: shadow waits
	 * 0.0 vs 0.0 ms/s", and its back-off kept force copy off when the
	 * stalls came back)
	 */
	if (!on->relief_waits && !off->relief_waits)
		return pairs >= p->max_pairs ? JT_VERDICT_INCONCLUSIVE : JT_VERDICT_CONTINUE;
	/* a change that removes less than half of the relief wait is not worth a trial's cost */
	if (relief <= 0.0 || jt_side_relief_rate(on) * 2.0 >= jt_side_relief_rate(off))
		return JT_VERDICT_NO_RELIEF;
	if (relief >= p->relief_min_us_per_s &&
	    jt_trial_relief_p(on, off) < jt_trial_relief_alpha(p, pairs) &&
	    (!cost_log_ratio(on, off, p->history_cv2, &cost, &se) ||
	     (cost <= p->margin && (cost - p->margin) / se <= JT_TRIAL_KEEP_Z)) &&
	    !keep_held(p, on, off, relief, JT_TRIAL_KEEP_Z))
		return JT_VERDICT_KEEP;
	return pairs >= p->max_pairs ? JT_VERDICT_INCONCLUSIVE : JT_VERDICT_CONTINUE;
}
