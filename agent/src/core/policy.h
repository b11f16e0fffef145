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
#include "trial.h"

/*
 * Baselines kept per journal; with window_s/interval above this the slots
 * are spaced out (window_s / 30 apart).  The shipped 30 s window is then
 * known to within a second, in about 27 KiB per journal (4 histograms); 64
 * slots of 3 histograms took 640 KiB for 16 journals, most of the agent's
 * anonymous memory (bench/).
 */
#define JT_WINDOW_SLOTS		32
/* A trial's blocks stretch to at most this many times trial_block_s (slow commits, long waits). */
#define JT_TRIAL_BLOCK_STRETCH	4
/*
 * Measured relief (agent-policy.md): a trial of a knob whose relief the
 * kernel measures may keep after this many pairs (at most
 * trial_min_pairs), and such an early keep is re-checked, with
 * trial_min_pairs pairs, this long after it.  One pair is two blocks:
 * what bounds a harmful setting's cost to one block stays the sequential
 * harm test; the early re-check bounds a harm too small to be evident in
 * one pair to a minute.
 */
#define JT_TRIAL_MEASURED_MIN_PAIRS	1
#define JT_EARLY_RECHECK_US		(60ULL * 1000000ULL)
/* Watermark step of reclaim auto, percentage points. */
#define JT_RECLAIM_STEP_PCT	5
/* Longest outcome back-off after doubling. */
#define JT_OUTCOME_BACKOFF_CAP_US	(3600ULL * 1000000ULL)
/* Percentile the decisions and the bus report. */
#define JT_PERCENTILE		99.0
#define JT_REASON_MAX		640
/*
 * Most decisions one step can produce: a restart note, and per knob a
 * release, the undo of a trial cut short, a verdict, a hold-back note and
 * a change.
 */
#define JT_DECISIONS_MAX	(1 + 5 * JT_KNOBS)
/*
 * Kinds whose histograms the window ring keeps, for percentiles over a
 * window: all but commit durations, which no rule needs a percentile of
 * (they are windowed as count and total only; 6 KiB per journal saved).
 */
#define JT_WINDOW_HIST_KINDS	JT_WAIT_COMMIT_DURATION

/*
 * One knob as the policy sees it (the per-knob descriptor table in
 * policy.c; every rule that differs between knobs reads it from here).
 */
struct jt_knob_desc {
	enum jt_knob knob;
	const char *name;		/* SPEC name: "force_copy", "reclaim", "lock_delay" */
	enum jt_wait_kind relief;	/* the wait the knob exists to remove */
	bool stepped;			/* values in steps (watermark, delay), else 0/1 */
	/*
	 * Stepped: the values auto tries, ascending, the first 0 (off);
	 * NULL: the reclaim range in JT_RECLAIM_STEP_PCT steps.
	 */
	const int64_t *ladder;
	unsigned int ladder_len;
	bool any_wait_counts;		/* every relief wait counts toward the budget */
	unsigned int block_mult;	/* trial block = trial_block_s x this */
	unsigned int pairs_mult;	/* trial cap = trial_max_pairs x this */
	/*
	 * A commit reads the knob (force copy per buffer as it logs it, lock
	 * delay as it locks): a trial's block settles until the commit in
	 * flight at the switch has ended (switch_commits).
	 */
	bool read_by_commit;
};

/* The descriptor of @knob. */
const struct jt_knob_desc *jt_knob_desc(enum jt_knob knob);

/* @knob's mode in @jp (force_copy, reclaim or lock_delay). */
enum jt_mode jt_knob_mode(const struct jt_journal_policy *jp, enum jt_knob knob);
/* Set @knob's mode in @jp to @mode. */
void jt_knob_set_mode(struct jt_journal_policy *jp, enum jt_knob knob, enum jt_mode mode);

/*
 * What the agent knows about one knob of one journal.  Times are the
 * samples' clock (CLOCK_MONOTONIC us); persist.c turns the deadlines into
 * wall-clock time when it saves them.
 */
struct jt_knob_state {
	bool seen;		/* found value recorded */
	bool resync;		/* restored from the state file: take the next reading as expected */
	bool managed;		/* false once an administrator wrote it */
	bool changed;		/* the agent wrote it at least once (restored on exit) */
	int64_t found;		/* value before any agent touched it (restored on exit) */
	int64_t value;		/* value the agent believes is in force (its decision) */
	int64_t expected;	/* value it expects to read back (old value in dry-run) */
	uint64_t last_change_us;/* time of the last decided change, 0 = none */
	/* auto: a change a trial kept, re-checked every recheck_s */
	bool kept;
	int64_t kept_from, kept_to;
	uint64_t kept_us;	/* kept or last re-checked */
	uint64_t backoff_us;	/* back-off of the next failed trial; 0 = outcome_backoff_s */
	/*
	 * After a failed trial back to blocked_from, auto does not move the
	 * knob beyond it in the tried direction (up: above it, else below it)
	 * before blocked_until_us (0 = nothing held back).
	 */
	int64_t blocked_from;
	bool blocked_up;
	uint64_t blocked_until_us;
	bool blocked_said;	/* the hold-back was logged */
	int64_t next_try;	/* stepped knob: the next value to try after a trial without relief, 0 = none */
	bool top_only;		/* stepped knob: every step up to the top failed; try the top only */
	uint64_t quiet_since_us;/* triggers count waits since here (the last trial's end) */
	/*
	 * The next re-check of a kept change comes this long after kept_us;
	 * 0: recheck_s.  A change kept on measured relief in fewer pairs than
	 * trial_min_pairs is re-checked after JT_EARLY_RECHECK_US.
	 */
	uint64_t recheck_in_us;
	/* the kernel's count of spared waits when the change was kept (measured relief) */
	bool kept_measured;
	uint64_t kept_avoided_waits, kept_avoided_us;
	/*
	 * A trial of this knob was cut short (a reload that changed its
	 * policy, SetMode, a refused write, statistics that cannot be read, a
	 * journal that dropped out, a restart of the agent) while the knob
	 * read undo_to, its untried value: undo_from is written back at
	 * every step until a sample reads it (jt_policy_undo()).  Dropped
	 * when someone else writes the knob or its mode is no longer auto
	 * (the fixed mode's own value is written then).
	 */
	bool undo_pending;
	int64_t undo_from, undo_to;
	char undo_why[64];	/* why it was cut short, for the log */
	/* trial history */
	unsigned long trials, keeps, harms, fails;
	char last_verdict[24];
};

/* Snapshot kept in the window ring: only what the windowed figures need. */
struct jt_slot {
	uint64_t time_us;
	uint64_t waits[JT_WAIT_KINDS];
	uint64_t wait_us[JT_WAIT_KINDS];
	uint64_t wait_max_us[JT_WAIT_KINDS];
	uint64_t hist[JT_WINDOW_HIST_KINDS][JT_HIST_BUCKETS];
	uint64_t shadow_avoided_us;	/* shadow waits force copy spared, us */
};

/* The trial in progress on a journal (one at a time). */
struct jt_trial_run {
	bool active;
	enum jt_knob knob;
	int64_t from, to;	/* the value before ("off") and the value on trial ("on") */
	bool recheck;		/* a re-check of a kept change */
	unsigned int pairs;	/* whole pairs done */
	unsigned int looks_spent;	/* looks that could have kept (jt_trial_params) */
	bool in_second;		/* the current block is the second of its pair */
	bool cur_on;		/* the current block has the value on trial */
	uint64_t started_us;
	uint64_t block_start_us;
	uint64_t block_us;	/* length of each block's counted part */
	uint64_t cur_block_us;	/* ... of the current block (measured relief: on blocks 2 x block_us) */
	uint64_t settle_us;	/* the block's first settle_us do not count ... */
	bool settling;		/* ... and have not passed yet */
	/*
	 * The commit in flight at the switch began under the previous
	 * block's value and keeps its shadow buffers until its log I/O ends:
	 * writers that come to them after the switch still sleep, and those
	 * waits begin in this block (carry_step() cannot move them).  The
	 * block settles until a commit has ended at an earlier sample
	 * (commits at the switch: switch_commits), at most 2 block_us, for
	 * a knob read_by_commit (jt_knob_desc).
	 */
	uint64_t switch_commits;
	bool switch_commit_ended;
	struct jt_slot base;	/* counters where the current block's figures start */
	/*
	 * The kernel counts a wait when it ends.  A relief wait that ends in
	 * this block's counted part but lasted longer than the time since the
	 * block's switch (its histogram bucket's midpoint says so) began
	 * under the previous block's value: it is moved to that block's side
	 * (carry_step()).  Seen under TCG: shadow waits of seconds ending in
	 * the on blocks after off blocks made force copy look harmful.
	 */
	struct jt_slot last;	/* counters at the previous counted sample */
	uint64_t blk_relief_waits, blk_relief_us;	/* this block's own relief waits */
	bool have_prev;		/* a block of this trial came before this one */
	bool prev_on;		/* ... with the value on trial */
	uint64_t prev_commits, prev_events;	/* ... its commits and relief events */
	uint64_t prev_span_us, prev_relief_us;	/* ... its span and relief time (with carries) */
	struct jt_block prev_block;	/* ... its figures (the pair statistics, jt_pair_tput()) */
	struct jt_side on, off;	/* figures per side */
	/*
	 * The kernel measures what this knob spares (jt_trial_params.measured):
	 * its counter when the trial began, and the whole time of the on
	 * blocks that ended, settling included
	 */
	bool measured;
	bool confirm;		/* a re-check of an early keep: it may run to the trial's cap */
	bool suspect;		/* harm suspected in an on block: the next block is off and confirms it */
	uint64_t measured_base_waits, measured_base_us;
	uint64_t on_wall_us;
	/*
	 * the window before the trial: with the off blocks, the commit rate
	 * an on block without commit waits is censored against
	 */
	struct jt_side pre;
};

/*
 * The journal's commit waits with every knob at the value in force (found
 * or kept), by the minute, for the last JT_HISTORY_SLOTS minutes that had
 * any: the dispersion the harm and cost tests assume at least
 * (agent-policy.md, "The verdict").  An interval counts outside trials
 * when no knob was written within JT_HISTORY_SETTLE_US before it (a
 * reverted setting's last commits are not the value in force), and in a
 * trial's off blocks once they settled (not a re-check's).  Not kept
 * across restarts: a new process starts it empty.
 */
#define JT_HISTORY_SLOTS	10
#define JT_HISTORY_SLOT_US	(60ULL * 1000000ULL)
#define JT_HISTORY_SETTLE_US	(30ULL * 1000000ULL)
/*
 * Fewer commit waits in the history than this: it is not used.  A rough
 * CV from 10 waits is enough here, as it can only raise the dispersion
 * above the floor (JT_TRIAL_CV_MIN), never lower it.
 */
#define JT_HISTORY_MIN_WAITS	10

struct jt_commit_history {
	uint64_t slot_start_us[JT_HISTORY_SLOTS];
	uint64_t hist[JT_HISTORY_SLOTS][JT_HIST_BUCKETS];
	unsigned int cur;		/* the slot being filled */
	bool have_last;			/* last[] holds the previous sample's histogram */
	bool counting;			/* the interval up to the next sample counts */
	uint64_t last[JT_HIST_BUCKETS];	/* commit_wait_hist at the previous sample */
};

struct jt_journal_state {
	struct jt_slot slots[JT_WINDOW_SLOTS];
	unsigned int first, count;	/* ring of baselines, oldest first */
	struct jt_knob_state knob[JT_KNOBS];
	struct jt_trial_run trial;
	uint64_t rng;			/* xorshift64 state: the order of each pair */
	uint64_t source_id;		/* the sample's source_id last seen (group inode) */
	uint64_t window_start_us;	/* first sample since the (re)start */
	struct jt_commit_history history;
};

/* Windowed figures of one kind of wait. */
struct jt_wait_window {
	uint64_t waits;		/* waits counted in the span */
	uint64_t wait_us;	/* their total time, us */
	double p99_us;		/* 99th percentile of their durations, us (0 for commit durations) */
	/*
	 * Lower bound of the longest wait in the span, us: the lower edge of
	 * the highest bucket that grew, or the kernel's maximum when it rose
	 * in the span (the all-time maximum is never taken for the window's).
	 */
	uint64_t max_lb_us;
	uint64_t hist[JT_HIST_BUCKETS];	/* histogram delta (JT_WINDOW_HIST_KINDS only) */
};

struct jt_window_stats {
	uint64_t span_us;	/* time between baseline and the sample */
	bool full;		/* span >= the requested span */
	struct jt_wait_window wait[JT_WAIT_KINDS];
	uint64_t shadow_avoided_us;	/* shadow waits force copy spared in the span, us */
};

enum jt_decision_kind {
	JT_DECISION_SET,	/* change knob old_value -> new_value */
	JT_DECISION_RELEASE,	/* someone else wrote the knob: stop managing it */
	JT_DECISION_RESTART,	/* counters went backwards: window restarted */
	JT_DECISION_NOTE,	/* nothing to write: a trial's start or verdict, a hold-back, a diagnosis */
};

struct jt_decision {
	enum jt_decision_kind kind;
	enum jt_knob knob;
	int64_t old_value, new_value;	/* NOTE: the change it is about (verdicts) */
	bool revert;		/* SET: undoes old_value's change; NOTE: a failed trial whose knob is already back */
	bool outcome;		/* the verdict of a trial (SET or NOTE) */
	bool trial_block;	/* SET: a block switch of a trial */
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

/*
 * jt_history_cv2 - squared coefficient of variation of the commit waits in
 * @st's history (jt_hist_cv2()), with their number in *@n; 0 when fewer
 * than JT_HISTORY_MIN_WAITS.  Pure.
 */
double jt_history_cv2(const struct jt_journal_state *st, double *n);

/* Start from nothing: the next sample is the first one. */
void jt_journal_state_init(struct jt_journal_state *st);

/* Seed the order of the trial pairs (the unit tests fix it; the daemon uses the clock). */
void jt_policy_seed(struct jt_journal_state *st, uint64_t seed);

/*
 * jt_stall_us_per_s - lower bound of the time per second spent in waits of
 * @w at least @min_us long over @span_us: the larger of (total minus the
 * most the shorter buckets could hold) and (the waits of buckets wholly
 * at or above @min_us at their lower edges).  Never the all-time maximum.
 */
double jt_stall_us_per_s(const struct jt_wait_window *w, uint64_t span_us, uint64_t min_us);

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
 * Manage @knob again (SetMode/Reload): forget the administrator's write
 * and the rate limit, cut a trial of it short (jt_policy_cut_short(): its
 * value before is put back at the next step), keep back-offs and kept
 * changes (persisted learning); its current value is taken as found if
 * never seen.
 */
void jt_policy_manage_again(struct jt_journal_state *st, enum jt_knob knob);

/*
 * Forget what was learned about @knob (its policy changed on Reload):
 * manage it again, and drop its back-off, held direction, kept change and
 * next step.  The found value stays.
 */
void jt_policy_forget(struct jt_journal_state *st, enum jt_knob knob);

/*
 * jt_policy_cut_short - end the trial in progress on @st, if any, without
 * a verdict, because of @why (a short phrase for the log: "the policy
 * was reloaded"; NULL to leave the value as it is, when someone else
 * wrote the knob).  When the knob is believed at the value on trial, its
 * value before the trial is to be put back: jt_policy_undo() (called by
 * jt_policy_step(), or by the caller when no sample can be taken) writes
 * it, and again at every step until a sample reads it back.  An
 * interrupted trial is no failure: no back-off follows.  Pure; no locking.
 */
void jt_policy_cut_short(struct jt_journal_state *st, const char *why);

/*
 * jt_policy_undo - the SET decisions that put back the value before each
 * trial cut short whose untried value is still believed in force
 * (jt_knob_state.undo_pending), into @out (room for JT_KNOBS); a knob no
 * longer managed or no longer in auto mode under @jp drops its undo.
 * @now_us: the samples' clock.  In @dry_run nothing was tried and nothing
 * is put back.  A SET counts as in force; if its write fails, call
 * jt_policy_write_failed() and the undo is decided again at the next
 * step.  Returns the number of decisions.  Pure; no locking.
 */
unsigned int jt_policy_undo(const struct jt_journal_policy *jp, struct jt_journal_state *st,
			    uint64_t now_us, bool dry_run, struct jt_decision *out);

/*
 * jt_policy_undo_target - whether @st has a trial in progress or cut
 * short whose untried value may be in force: its knob, its value before
 * (*@from) and the value on trial (*@to).  What the state file saves and
 * what the agent's exit puts back without restore_on_exit.  Pure.
 */
bool jt_policy_undo_target(const struct jt_journal_state *st, enum jt_knob *knob, int64_t *from,
			   int64_t *to);

/*
 * jt_policy_resume - a trial of @knob from @from to @to was running when
 * the last process stopped (the state file): arm its undo as for a trial
 * cut short ("the agent was restarted"), taken at the first sample that
 * still reads @to.
 */
void jt_policy_resume(struct jt_journal_state *st, enum jt_knob knob, int64_t from, int64_t to);

/*
 * jt_trial_describe - the trial in progress on @st, for people (D-Bus
 * Trial, jbd2-tunectl status): "force_copy 0->1, pair 2 of 3..10, on
 * block" (pairs counted from 1; "re-check of" for a re-check) into @text
 * (@len bytes), and in *@deadline_us the CLOCK_MONOTONIC time, µs, by which
 * it ends at the latest: its remaining blocks up to the most pairs it may
 * run, each as long as the current one and its settling (a verdict may
 * come after any pair from the fewest on).  Returns false, with @text ""
 * and *@deadline_us 0, when no trial runs.  Pure; no locking.
 */
bool jt_trial_describe(const struct jt_journal_policy *jp, const struct jt_journal_state *st,
		       char *text, size_t len, uint64_t *deadline_us);

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
