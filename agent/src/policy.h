/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy core: per-journal state, windowed statistics and decisions.
 * No I/O: the caller hands in samples and applies (or, in dry-run, only
 * reports) the decisions.  The rules and the reason for every number are in
 * Documentation/agent-policy.md.
 */
#ifndef JT_POLICY_H
#define JT_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "sample.h"

/*
 * Baselines kept per journal; with window_s/interval above this the slots
 * are spaced out (window_s / 30 apart).  The shipped 30 s window is then
 * known to within a second, in about 27 KiB per journal (4 histograms); 64
 * slots of 3 histograms took 640 KiB for 16 journals, most of the agent's
 * anonymous memory (bench/).
 */
#define JT_WINDOW_SLOTS		32
/* Watermark step of reclaim auto, percentage points. */
#define JT_RECLAIM_STEP_PCT	5
/* Longest force_copy hold after doubling. */
#define JT_FORCE_COPY_HOLD_CAP_US	(3600ULL * 1000000ULL)
/* Longest outcome back-off after doubling. */
#define JT_OUTCOME_BACKOFF_CAP_US	(3600ULL * 1000000ULL)
/* Percentile the decisions and the bus report. */
#define JT_PERCENTILE		99.0
#define JT_REASON_MAX		384
/*
 * Most decisions one step can produce: a restart note, and per knob a
 * release, an outcome verdict (or a hold-back note) and a change.
 */
#define JT_DECISIONS_MAX	(1 + 3 * JT_KNOBS)
/*
 * Kinds whose histograms the window ring keeps, for percentiles over a
 * window: all but commit durations, which no rule needs a percentile of
 * (they are windowed as count and total only; 6 KiB per journal saved).
 */
#define JT_WINDOW_HIST_KINDS	JT_WAIT_COMMIT_DURATION

/* Commit-wait figures of one window, as the outcome check compares them. */
struct jt_outcome_figures {
	uint64_t span_us;		/* length of the window */
	uint64_t commit_waits;		/* commit waits in it */
	uint64_t commit_wait_us;	/* their total time, us */
	double commit_wait_p99_us;	/* their 99th percentile, us */
	uint64_t relief_waits;		/* waits of the kind the knob removes */
};

/*
 * A change the agent made in auto mode, on trial until a whole window has
 * passed after it.  Reclaim steps in the same direction while one is on
 * trial extend it (a run): the window after the last step is compared
 * with the window before the first.
 */
struct jt_trial {
	bool active;
	int64_t from;			/* value before the (first) change */
	int64_t to;			/* value after the (last) change */
	uint64_t since_us;		/* time of the last change: the window after starts here */
	struct jt_outcome_figures before;	/* window before the first change */
};

/* What the agent knows about one knob of one journal. */
struct jt_knob_state {
	bool seen;		/* found value recorded */
	bool managed;		/* false once an administrator wrote it */
	bool changed;		/* the agent decided a change at least once */
	int64_t found;		/* value when first seen (restored on exit) */
	int64_t value;		/* value the agent believes is in force (its decision) */
	int64_t expected;	/* value it expects to read back (old value in dry-run) */
	uint64_t last_change_us;/* time of the last decided change, 0 = none */
	struct jt_trial trial;	/* the last change, until judged */
	uint64_t backoff_us;	/* back-off of the next revert; 0 = outcome_backoff_s */
	/*
	 * After a revert back to blocked_from, auto rules do not move the knob
	 * beyond it in the reverted direction (up: above it, else below it)
	 * before blocked_until_us (0 = nothing held back).
	 */
	int64_t blocked_from;
	bool blocked_up;
	uint64_t blocked_until_us;
	bool blocked_said;	/* the hold-back was logged */
};

enum jt_force_copy_phase {
	JT_FC_IDLE,		/* off, watching shadow waits */
	JT_FC_ON,		/* on since phase_since_us, for hold_us */
	JT_FC_PROBING,		/* turned off at phase_since_us after a hold; watching */
};

/* Snapshot kept in the window ring: only what the windowed figures need. */
struct jt_slot {
	uint64_t time_us;
	uint64_t waits[JT_WAIT_KINDS];
	uint64_t wait_us[JT_WAIT_KINDS];
	uint64_t hist[JT_WINDOW_HIST_KINDS][JT_HIST_BUCKETS];
};

struct jt_journal_state {
	struct jt_slot slots[JT_WINDOW_SLOTS];
	unsigned int first, count;	/* ring of baselines, oldest first */
	struct jt_knob_state knob[JT_KNOBS];
	enum jt_force_copy_phase fc_phase;
	uint64_t fc_phase_since_us;
	uint64_t fc_hold_us;		/* current hold, doubles on relapse */
	uint64_t window_start_us;	/* first sample since the (re)start */
};

/* Windowed figures of one kind of wait. */
struct jt_wait_window {
	uint64_t waits;		/* waits counted in the span */
	uint64_t wait_us;	/* their total time, us */
	double p99_us;		/* 99th percentile of their durations, us (0 for commit durations) */
};

struct jt_window_stats {
	uint64_t span_us;	/* time between baseline and the sample */
	bool full;		/* span >= the requested span */
	struct jt_wait_window wait[JT_WAIT_KINDS];
};

enum jt_decision_kind {
	JT_DECISION_SET,	/* change knob old_value -> new_value */
	JT_DECISION_RELEASE,	/* someone else wrote the knob: stop managing it */
	JT_DECISION_RESTART,	/* counters went backwards: window restarted */
	JT_DECISION_NOTE,	/* nothing to write: a verdict that a change stands, or a hold-back */
};

struct jt_decision {
	enum jt_decision_kind kind;
	enum jt_knob knob;
	int64_t old_value, new_value;	/* NOTE: the change it is about (verdicts) */
	bool revert;		/* SET: undoes old_value's change, which made commit waits worse */
	bool outcome;		/* the verdict on an earlier change (revert SET or NOTE "stands") */
	/*
	 * The figures behind it, without journal prefix; SET/RELEASE also
	 * without the knob (a revert's starts with "reverted: "), RESTART and
	 * NOTE are the whole line after "journal: ".
	 */
	char reason[JT_REASON_MAX];
};

/* Timing parameters of the step, from [agent]. */
struct jt_timing {
	uint64_t interval_us;
	uint64_t window_us;
};

/* Start from nothing: the next sample is the first one. */
void jt_journal_state_init(struct jt_journal_state *st);

/*
 * jt_policy_step - feed one sample, get the decisions for it.  Judges the
 * changes on trial whose window after has passed (a revert is a SET with
 * revert set, a change that stands a NOTE with outcome set), then applies
 * the rules of agent-policy.md.
 * @t: interval and window.  @jp: this journal's resolved policy (may change
 * between calls, e.g. after a reload).  @st: state, updated.  @s: the sample
 * (time must not go backwards).  @dry_run: decisions are reported but will
 * not be written, so the knob is expected to keep its value.
 * @out: room for JT_DECISIONS_MAX.  Returns the number of decisions.
 * A SET decision is already counted as in force; if writing it fails call
 * jt_policy_write_failed().
 */
unsigned int jt_policy_step(const struct jt_timing *t, const struct jt_journal_policy *jp,
			    struct jt_journal_state *st, const struct jt_sample *s,
			    bool dry_run, struct jt_decision *out);

/*
 * jt_policy_baseline - store @s as a baseline only (no knob bookkeeping, no
 * decisions); --once uses it to make "since set-up" the window.
 */
void jt_policy_baseline(struct jt_journal_state *st, const struct jt_sample *s,
			const struct jt_timing *t);

/*
 * The write of a SET decision on @knob failed: the old value is in force,
 * and the change is not on trial.
 */
void jt_policy_write_failed(struct jt_journal_state *st, enum jt_knob knob, int64_t old_value);

/*
 * Manage @knob again (SetMode/Reload): forget the administrator's write,
 * the rate limit, the change on trial and any outcome back-off; its current
 * value is taken as found if never seen.
 */
void jt_policy_manage_again(struct jt_journal_state *st, enum jt_knob knob);

/*
 * jt_reclaim_range - the range reclaim auto moves the watermark in for @s's
 * journal under @jp: [reclaim_min_pct, reclaim_max_pct], each bound
 * clamped into the watermarks the kernel accepts for the journal (1..90
 * when an older module does not say).  Returns false when the kernel
 * accepts none (it reports 0/0: not loaded yet, or too small); *@min and
 * *@max are then not to be written.
 */
bool jt_reclaim_range(const struct jt_journal_policy *jp, const struct jt_sample *s,
		      int64_t *min, int64_t *max);

/*
 * jt_window_stats - figures of @s against the newest baseline at or before
 * max(s->time_us - span_us, since_us) (the oldest one if none is that old).
 * Percentiles are computed for the JT_WINDOW_HIST_KINDS kinds only.
 * Returns false when there is no baseline yet (stats zeroed).
 */
bool jt_window_stats(const struct jt_journal_state *st, const struct jt_sample *s,
		     uint64_t span_us, uint64_t since_us, struct jt_window_stats *out);

#endif
