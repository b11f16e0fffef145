/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the policy core share among themselves (policy.c,
 * window.c, trial-run.c, undo.c), and nothing else includes: the public
 * interface is policy.h.
 */
#ifndef JT_POLICY_INTERNAL_H
#define JT_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* policy.c */

/* Append a decision of @kind about @knob to @out (reason from @fmt); @ks gives its value. */
__attribute__((format(printf, 6, 7)))
struct jt_decision *emit(struct jt_decision *out, unsigned int *n,
			 enum jt_decision_kind kind, enum jt_knob knob,
			 const struct jt_knob_state *ks, const char *fmt, ...);
/* Record a change of @knob to @value as decided; the caller fills the reason. */
struct jt_decision *set_knob(struct jt_journal_state *st, enum jt_knob knob,
			     int64_t value, uint64_t now, bool dry_run,
			     struct jt_decision *out, unsigned int *n);
/* The values auto moves stepped @knob in, [*min, *max]; false when there are none. */
bool auto_range(const struct jt_journal_policy *jp, const struct jt_sample *s,
		enum jt_knob knob, int64_t *min, int64_t *max);
/* The step above @v of stepped @knob, at most @max (@v itself when there is none). */
int64_t step_up(enum jt_knob knob, int64_t v, int64_t max);
/* Whether the trial in progress should give way to another knob's, at the end of a pair. */
bool yield_to(const struct jt_timing *t, const struct jt_journal_policy *jp,
	      const struct jt_journal_state *st, const struct jt_sample *s,
	      const struct jt_trial_params *p, char *why, size_t len);

/* window.c */

/* Whether @s's counters went backwards (or its group is new): the journal was set up again. */
bool went_backwards(const struct jt_journal_state *st, const struct jt_sample *s);
/* Copy @s's counters and histograms into @slot. */
void fill_slot(struct jt_slot *slot, const struct jt_sample *s);
/* Keep @s as a baseline of the window when due (always when @force), dropping old ones. */
void push_slot(struct jt_journal_state *st, const struct jt_sample *s,
	       const struct jt_timing *t, bool force);
/* Add the commit waits since the previous sample to the history, when that interval counted. */
void history_add(struct jt_journal_state *st, const struct jt_sample *s);
/* Whether the interval from @s to the next sample counts for the history. */
bool history_counts(const struct jt_journal_state *st, const struct jt_sample *s);

/* trial-run.c */

/* Start a trial (or the re-check of a kept change) of @knob to @to at @s. */
void trial_start(const struct jt_timing *t, const struct jt_journal_policy *jp,
		 struct jt_journal_state *st, enum jt_knob knob, int64_t to, bool recheck,
		 const struct jt_sample *s, bool dry_run, const char *why,
		 struct jt_decision *out, unsigned int *n);
/* Run the trial in progress one sample on. */
void trial_step(const struct jt_timing *t, const struct jt_journal_policy *jp,
		struct jt_journal_state *st, const struct jt_sample *s,
		struct jt_decision *out, unsigned int *n);

/* undo.c */

/* Whether a trial cut short still waits for its value before to be read back. */
bool undo_pending(const struct jt_journal_state *st);

#endif
