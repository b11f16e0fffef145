/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The statistics of an interleaved on/off trial: what each side of a trial
 * accumulated, and the three tests that judge it (relief, harm, cost).
 * Pure functions, no I/O, no clock; the reasons for every number are in
 * Documentation/agent-policy.md, "Trials".
 */
#ifndef JT_TRIAL_H
#define JT_TRIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sample.h"

/*
 * A statistic taken once per pair (its on block against its own off
 * block): the pairs' mean and spread, so that a load that drifts or
 * bursts between pairs widens the error instead of faking an effect.
 */
struct jt_pair_stat {
	uint64_t n;		/* pairs */
	uint64_t above;		/* pairs whose difference is above 0 (the harmful direction) */
	double sum, sum2;	/* of the per-pair differences */
	double floor_var;	/* sum of each pair's least variance (counting noise) */
};

/*
 * Figures of one side of a trial (the knob at the value on trial, "on", or
 * at the value before it, "off"), summed over that side's blocks; each
 * block's figures are counter and histogram deltas.
 */
struct jt_side {
	uint64_t span_us;		/* time spent on this side */
	uint64_t blocks;		/* blocks summed */
	uint64_t relief_waits;		/* waits of the kind the knob removes */
	uint64_t relief_us;		/* their total time */
	uint64_t relief_events;		/* per block min(relief waits, commits or 1): clusters */
	uint64_t commit_waits;		/* tasks that slept for a commit (what fsync pays) */
	uint64_t commit_wait_us;	/* their total time */
	uint64_t commits;		/* transactions committed */
	uint64_t commit_us;		/* their total commit time */
	uint64_t censored;		/* on-blocks without a commit wait counted as one block-long wait */
	uint64_t other_us;		/* waits of the other kinds (shadow, space, locked but the relief's) */
	/*
	 * On the on side of a knob whose relief the kernel measures
	 * (jt_trial_params.measured): the waits the knob spared over the
	 * trial (the counter's delta since the trial began: only the value on
	 * trial spares any, so all of it is the on side's) and the on blocks'
	 * whole time, settling included, us
	 */
	uint64_t measured_waits, measured_us, measured_span_us;
	/*
	 * On the on side only, per whole pair: ln(fsyncs per second off / on)
	 * (tput) and the other kinds' wait time per second, on minus off, us/s
	 * (other)
	 */
	struct jt_pair_stat tput, other;
	uint64_t hist[JT_HIST_BUCKETS];	/* commit-wait latency histogram */
	/*
	 * On the on side only: pairs whose on block had less relief-wait
	 * time per second than its off block (pair_wins), and more
	 * (pair_losses); pairs with equal rates (both none) count in neither
	 */
	uint64_t pair_wins, pair_losses;
};

/* Deltas of one block, as the policy reads them off two samples. */
struct jt_block {
	uint64_t span_us;
	uint64_t relief_waits, relief_us;
	uint64_t commit_waits, commit_wait_us;
	uint64_t commits, commit_us;
	uint64_t other_us;		/* waits of the other kinds, us */
	uint64_t hist[JT_HIST_BUCKETS];	/* commit-wait histogram delta */
};

/* The test parameters, from the journal's policy and the constants below. */
struct jt_trial_params {
	double margin;			/* ln(1 + outcome_margin_pct / 100) */
	double relief_min_us_per_s;	/* stall_budget_ms_per_s in us/s */
	unsigned int min_pairs, max_pairs;
	/*
	 * Earlier looks of this trial whose relief test could have passed
	 * JT_TRIAL_RELIEF_ALPHA with the counts they had (jt_trial_min_p()):
	 * the only looks that spend from JT_TRIAL_RELIEF_ALPHA_TOTAL
	 */
	unsigned int looks_spent;
	/*
	 * Squared coefficient of variation of the journal's commit waits
	 * with every knob at its value in force, over the last minutes
	 * (jt_history_cv2(), agent-policy.md "The verdict"), 0 when too
	 * few: the harm and cost tests' dispersion is at least this
	 */
	double history_cv2;
	/*
	 * The kernel measures what the knob spares (force copy:
	 * shadow_waits_avoided; lock delay: locked_waits_avoided): relief is
	 * read from the on side's measured_* alone, never inferred from the
	 * off blocks (agent-policy.md, "Measured relief")
	 */
	bool measured;
	/* the trial_min_pairs of the policy: a keep before them is an early keep */
	unsigned int full_pairs;
	/*
	 * a re-check of an early keep: what holds a keep back makes it go on
	 * (to max_pairs, then inconclusive) instead of keeping
	 */
	bool confirm;
};

/* One-sided level of the relief test at each look (after each pair). */
#define JT_TRIAL_RELIEF_ALPHA	0.004
/*
 * The level all looks of one trial may spend together (Bonferroni): the
 * last look, at the cap of pairs, gets what the earlier ones left, never
 * less than JT_TRIAL_RELIEF_ALPHA (3..10 pairs: 0.05 - 7 x 0.004 = 0.022
 * when every earlier look could have kept).  A look spends only when its
 * test could have passed: a look whose smallest attainable p is above its
 * level cannot keep whatever the labels (Tarone's modified Bonferroni for
 * discrete tests).
 */
#define JT_TRIAL_RELIEF_ALPHA_TOTAL	0.05
/* z of the harm test, checked at every sample of a trial (one-sided 0.05 %). */
#define JT_TRIAL_HARM_Z		3.29
/*
 * Keep only when the cost is not worse beyond the margin at 90 % one-sided:
 * (cost - margin) / se at most this.
 */
#define JT_TRIAL_KEEP_Z		1.28
/* Smallest coefficient of variation of commit-wait latency assumed. */
#define JT_TRIAL_CV_MIN		0.5
/* An on-block without a commit wait is censored when the off side would expect this many. */
#define JT_TRIAL_CENSOR_EXPECTED	3.0
/*
 * Measured relief: the most a change may raise the mean commit wait when
 * the relief it measurably brings pays for it (ln 2: at most twice as long
 * per fsync), and the share of the relief the added commit-wait time per
 * second may take (half).  Beyond either, the per-wait margin alone
 * decides, as without measurement.
 */
#define JT_TRIAL_PAID_RATIO_MAX		0.6931471805599453
#define JT_TRIAL_PAID_SHARE		0.5
/*
 * Waits of the other kinds (not the relief's, not commit waits) a kept
 * change may add, as a share of the relief: a change that moves the
 * stall to another wait is not relief.
 */
#define JT_TRIAL_OTHER_SHARE		0.5
/*
 * A kept change's re-check takes it back for fewer fsyncs (or other waits
 * added) at this z (one-sided 1 %), not at the keep level: it was kept on
 * evidence, and at 10 % a re-check under a drifting load took back one
 * helpful change in ten.
 */
#define JT_TRIAL_TAKE_BACK_Z		2.33
/*
 * A keep needs the fsyncs per second shown at most this much fewer (ln 1.5:
 * a third fewer) at the keep level: a per-wait margin of 15 % is too
 * narrow for counts of a few dozen a block, and "not shown fewer" let a
 * change that halves them be kept.
 */
#define JT_TRIAL_TPUT_EQ		0.4054651081081644
/* Pairs before fewer fsyncs can be a harm verdict (before: only "costly" at a keep). */
#define JT_TRIAL_TPUT_HARM_PAIRS	3

enum jt_verdict {
	JT_VERDICT_CONTINUE,	/* not decided yet: next block */
	JT_VERDICT_KEEP,	/* relief significant, per-wait commit latency within the margin */
	JT_VERDICT_HARM,	/* per-wait commit latency worse beyond the margin, evidently */
	JT_VERDICT_NO_RELIEF,	/* after the minimum pairs the on blocks still wait half as much or more */
	JT_VERDICT_INCONCLUSIVE,/* the cap of pairs reached without proof: the old value */
	JT_VERDICT_RELIEF_GONE,	/* re-check: the off blocks no longer show relief worth keeping */
	JT_VERDICT_COSTLY,	/* after the minimum pairs: cost beyond the margin at the keep level */
	JT_VERDICT_YIELDED,	/* its wait went under the budget while another knob's is over: gave way */
};

/*
 * "continue", "keep", "harm", "no relief", "inconclusive", "relief gone",
 * "costly", "yielded".
 */
const char *jt_verdict_name(enum jt_verdict v);

/*
 * jt_side_add - add one block's deltas @b to side @sd.  @on: the block had
 * the value on trial; then, when it holds no commit wait although @other
 * (the off side) would make JT_TRIAL_CENSOR_EXPECTED or more in its span,
 * it counts one wait as long as the block (a wait that outlasted it: a
 * harmful change can stop the very waits that would show it, case A) -
 * but only when the journal committed in the block: a block in which
 * nothing at all happened (the load paused, the machine stalled) says
 * nothing.
 */
void jt_side_add(struct jt_side *sd, const struct jt_block *b, bool on,
		 const struct jt_side *other);

/* Relief-wait time per second on a side, us/s; 0 for an empty side. */
double jt_side_relief_rate(const struct jt_side *sd);
/* Mean commit-wait latency of a side, us; 0 without waits. */
double jt_side_commit_mean_us(const struct jt_side *sd);

/*
 * jt_relief_p - one-sided p-value that the off side's relief events are
 * as many as seen or more if the knob changed nothing: conditional on the
 * total, each event falls on the off side with probability span_off /
 * (span_on + span_off) (exact binomial tail).  1 when there is none.
 */
double jt_relief_p(const struct jt_side *on, const struct jt_side *off);

/*
 * jt_pair_sign_p - one-sided p-value of the pairs' sign test: that at
 * least @on->pair_wins of the pairs with unequal rates favour the on block
 * if the knob changed nothing (each block order is drawn at random, so
 * either block of a pair is as likely to have more: exact binomial tail at
 * one half).  1 without such a pair.  Few waits of seconds, clustered on a
 * commit, make few relief events however much time they take (agent-stall
 * on 6.1 in a cold make check: "inconclusive after 20 blocks: shadow waits
 * 30.7 vs 854.3 ms/s ... relief p 0.016"); the sign test counts pairs, not
 * events, and sees each pair that the knob helped.
 */
double jt_pair_sign_p(const struct jt_side *on);

/*
 * jt_trial_relief_p - the relief test of a trial: the smaller of
 * jt_relief_p() and jt_pair_sign_p() (either one at the look's level
 * keeps; seeded simulations in test-trial.c measure the false keeps).
 */
double jt_trial_relief_p(const struct jt_side *on, const struct jt_side *off);

/*
 * jt_cost_log_ratio - ln(mean commit wait on / off): the per-wait cost of
 * the change (0 = none, ln 2 = doubled).  *@se_out (may be NULL): its
 * standard error, from the pooled coefficient of variation of the
 * latencies in the two histograms (at least JT_TRIAL_CV_MIN) over the
 * effective counts: per
 * side min(commit waits, commits), since the waiters of one commit share
 * its duration.  Returns false when a side has no commit wait.
 */
bool jt_cost_log_ratio(const struct jt_side *on, const struct jt_side *off, double *ratio,
		       double *se_out);

/*
 * jt_trial_judge - the verdict on a trial after @pairs whole pairs (the
 * caller asks at every sample for harm, with @pair_done false, and at the
 * end of every pair with it true).  Harm is judged against the trial's
 * own off blocks only (jt_harm_z()).  @recheck: a re-check of a kept
 * change (keeps unless harm, or the off blocks show no more relief wait
 * than the on blocks after min_pairs: the load that needed it is gone).  A trial
 * whose sides have seen no relief wait at all goes on to max_pairs
 * (inconclusive there) instead of ending "no relief": it has no evidence.
 */
enum jt_verdict jt_trial_judge(const struct jt_trial_params *p, const struct jt_side *on,
			       const struct jt_side *off, unsigned int pairs, bool pair_done,
			       bool recheck);

/*
 * jt_trial_relief_alpha - the level of the relief test at the look after
 * @pairs whole pairs: JT_TRIAL_RELIEF_ALPHA, and at the last look
 * (@pairs >= max_pairs) JT_TRIAL_RELIEF_ALPHA_TOTAL less
 * JT_TRIAL_RELIEF_ALPHA for each of the @p->looks_spent earlier looks that
 * could have kept, at least JT_TRIAL_RELIEF_ALPHA.
 */
double jt_trial_relief_alpha(const struct jt_trial_params *p, unsigned int pairs);

/*
 * jt_trial_min_p - the smallest p jt_trial_relief_p() can give with the
 * relief events and unequal pairs that @on and @off hold, whichever side
 * each fell on: min(0.5^(unequal pairs), (off span share)^(events)); 1.0
 * with neither.  Under "the knob changes nothing" these counts do not
 * depend on which block of a pair had the knob on, so a look whose
 * smallest p is above its level cannot keep and spends nothing of the
 * trial's 5 %.
 */
double jt_trial_min_p(const struct jt_side *on, const struct jt_side *off);

/*
 * jt_harm_z - the harm test's z: (cost - margin) / se of @on against
 * @off, the trial's own off blocks, se as jt_cost_log_ratio()'s but with
 * the squared coefficient of variation at least @history_cv2 (the
 * journal's commit waits outside trials: the dispersion a few waits in
 * the trial's blocks cannot show; 0 for none); -inf when not computable,
 * or before the first off block.  The window before the trial is no
 * baseline: it is not interleaved, and a load that starts or grows makes
 * it look idle beside a later on block (agent-policy.md, "The verdict").
 */
double jt_harm_z(const struct jt_side *on, const struct jt_side *off, double margin,
		 double history_cv2);

/*
 * jt_hist_cv2 - squared coefficient of variation of the latencies counted
 * in @h (each at its bucket's midpoint, us), with their number in *@n;
 * 0 when fewer than two.  Pure; @h is JT_HIST_BUCKETS counts.
 */
double jt_hist_cv2(const uint64_t h[JT_HIST_BUCKETS], double *n);

/*
 * jt_side_measured_rate - the relief the kernel measured on side @sd, us of
 * spared waits per second of the on blocks' whole time; 0 without any.
 */
double jt_side_measured_rate(const struct jt_side *sd);

/*
 * jt_pair_stat_add - one pair's difference @d, whose counting noise alone
 * has variance @floor_var, into @ps.
 */
void jt_pair_stat_add(struct jt_pair_stat *ps, double d, double floor_var);

/*
 * jt_pair_stat_z - (mean difference - @threshold) / se over the pairs of
 * @ps, se from the pairs' own spread but at least their counting noise
 * (floor_var); -inf without a pair.
 */
double jt_pair_stat_z(const struct jt_pair_stat *ps, double threshold);

/*
 * jt_pair_tput - the pair statistic of "fewer fsyncs complete with the
 * change": ln((off commit waits + 0.5) / off span) - ln((on + 0.5) / on
 * span) of one pair's blocks, with its counting variance from the
 * effective counts (per block min(commit waits, commits), at least 1:
 * the waiters of one commit finish together).  Added to the on side's
 * tput by the policy at the end of each pair.
 */
void jt_pair_tput(struct jt_side *on, const struct jt_block *b_on, const struct jt_block *b_off);

/*
 * jt_pair_other - the pair statistic of "the change moves the stall to
 * another wait": the other kinds' wait time per second of the on block
 * minus the off block's, us/s, into the on side's other (counting noise
 * taken as one budget, @budget_us_per_s, per pair).
 */
void jt_pair_other(struct jt_side *on, const struct jt_block *b_on, const struct jt_block *b_off,
		   double budget_us_per_s);

/*
 * jt_throughput_z - the test of "fewer fsyncs complete with the change":
 * jt_pair_stat_z() of @on's tput against @margin.  -inf before the first
 * whole pair.  A keep waits while it is above JT_TRIAL_KEEP_Z in most
 * pairs; harm when above JT_TRIAL_HARM_Z with every pair of at least
 * JT_TRIAL_TPUT_HARM_PAIRS showing fewer (a pair or two of a drifting
 * load can look like anything).
 */
double jt_throughput_z(const struct jt_side *on, double margin);

/*
 * jt_cost_paid - whether the measured relief of @on pays for its per-wait
 * cost, at the keep level (the cost's upper bound, ln ratio + JT_TRIAL_KEEP_Z
 * se, with the squared CV at least @cv2_floor): the mean commit wait at
 * most JT_TRIAL_PAID_RATIO_MAX longer (ln), and the commit-wait time per
 * second it adds at most JT_TRIAL_PAID_SHARE of the measured relief.
 * False without measured relief or commit waits on both sides.
 */
bool jt_cost_paid(const struct jt_side *on, const struct jt_side *off, double cv2_floor);

/*
 * jt_trial_harm - the sequential harm test checked at every sample of an
 * on block: the per-wait cost evidently beyond the margin (jt_harm_z() >
 * JT_TRIAL_HARM_Z) unless the measured relief pays for it (@p->measured
 * and jt_cost_paid()), or evidently fewer fsyncs completing
 * (jt_throughput_z() > JT_TRIAL_HARM_Z after JT_TRIAL_TPUT_HARM_PAIRS
 * pairs, every one of them with fewer).
 */
bool jt_trial_harm(const struct jt_trial_params *p, const struct jt_side *on,
		   const struct jt_side *off);

/* Sum @a and @b into @out (for off + pre: the off side's commit rate). */
void jt_side_sum(const struct jt_side *a, const struct jt_side *b, struct jt_side *out);

#endif
