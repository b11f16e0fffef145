// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Trials cut short and their undo: a trial stopped without a verdict
 * (taken over, mode changed, journal set up again, agent restarted)
 * leaves its value before pending, written again until a sample reads it
 * back (jt_policy_undo()).  Pure; part of the policy core (policy.c).
 */
#include <stdio.h>

#include "policy.h"
#include "policy-internal.h"

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

/* Whether a trial cut short still waits for its value before to be read back. */
bool undo_pending(const struct jt_journal_state *st)
{
	unsigned int k;

	for (k = 0; k < JT_KNOBS; k++)
		if (st->knob[k].undo_pending)
			return true;
	return false;
}
