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
 * known to within a second, in about 20 KiB per journal; 64 slots took
 * 640 KiB for 16 journals, most of the agent's anonymous memory (bench/).
 */
#define JT_WINDOW_SLOTS		32
/* Watermark step of reclaim auto, percentage points. */
#define JT_RECLAIM_STEP_PCT	5
/* Longest force_copy hold after doubling. */
#define JT_FORCE_COPY_HOLD_CAP_US	(3600ULL * 1000000ULL)
/* Percentile the decisions and the bus report. */
#define JT_PERCENTILE		99.0
#define JT_REASON_MAX		256
/* Most decisions one step can produce: a restart note + release/set per knob. */
#define JT_DECISIONS_MAX	(1 + 2 * JT_KNOBS)

/* What the agent knows about one knob of one journal. */
struct jt_knob_state {
	bool seen;		/* found value recorded */
	bool managed;		/* false once an administrator wrote it */
	bool changed;		/* the agent decided a change at least once */
	int64_t found;		/* value when first seen (restored on exit) */
	int64_t value;		/* value the agent believes is in force (its decision) */
	int64_t expected;	/* value it expects to read back (old value in dry-run) */
	uint64_t last_change_us;/* time of the last decided change, 0 = none */
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
	uint64_t hist[JT_WAIT_KINDS][JT_HIST_BUCKETS];
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
	double p99_us;		/* 99th percentile of their durations, us */
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
};

struct jt_decision {
	enum jt_decision_kind kind;
	enum jt_knob knob;
	int64_t old_value, new_value;
	char reason[JT_REASON_MAX];	/* figures behind it, no journal/knob prefix */
};

/* Timing parameters of the step, from [agent]. */
struct jt_timing {
	uint64_t interval_us;
	uint64_t window_us;
};

/* Start from nothing: the next sample is the first one. */
void jt_journal_state_init(struct jt_journal_state *st);

/*
 * jt_policy_step - feed one sample, get the decisions for it.
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

/* The write of a SET decision on @knob failed: the old value is in force. */
void jt_policy_write_failed(struct jt_journal_state *st, enum jt_knob knob, int64_t old_value);

/*
 * Manage @knob again (SetMode/Reload): forget the administrator's write and
 * the rate limit; its current value is taken as found if never seen.
 */
void jt_policy_manage_again(struct jt_journal_state *st, enum jt_knob knob);

/*
 * jt_window_stats - figures of @s against the newest baseline at or before
 * max(s->time_us - span_us, since_us) (the oldest one if none is that old).
 * Returns false when there is no baseline yet (stats zeroed).
 */
bool jt_window_stats(const struct jt_journal_state *st, const struct jt_sample *s,
		     uint64_t span_us, uint64_t since_us, struct jt_window_stats *out);

#endif
