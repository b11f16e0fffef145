/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which wait holds most of a journal's waited time over the window, and
 * whether a knob of ours can help at all (agent-policy.md, "Diagnosis").
 * Pure: figures in, a cause and a sentence out.
 */
#ifndef JT_DIAGNOSIS_H
#define JT_DIAGNOSIS_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

enum jt_cause {
	JT_CAUSE_NONE,		/* less waiting than the budget: nothing to say */
	JT_CAUSE_SHADOW,	/* shadow waits: force_copy's */
	JT_CAUSE_SPACE,		/* foreground log-space waits: the watermark's, or the journal's size */
	JT_CAUSE_LOCKED,	/* waits for a locked transaction: lock_delay_max_ms's */
	JT_CAUSE_COMMIT_IO,	/* the commit's own I/O: device-bound, no knob of ours helps */
	JT_CAUSE_SPACE_RECLAIM_ON,	/* log-space waits although background reclaim is on */
	JT_CAUSES
};

/* "none", "shadow", "space", "locked", "commit_io", "space_reclaim_on". */
const char *jt_cause_name(enum jt_cause cause);

/*
 * jt_diagnose - the cause of the waiting in @w: of the shadow, space and
 * locked wait time per second and the commit-wait time per second (tasks
 * waiting for the commit's own I/O, fsync), the largest, when the largest
 * is at least @budget_us_per_s; else JT_CAUSE_NONE.  When commit waits are
 * the largest but a shadow, space or locked wait costs more than the
 * budget, the largest of those is the cause: its knob helps, so the
 * diagnosis never says "no knob of ours helps" while a knob's relief wait
 * is over the budget.  Space waits while
 * @reclaim_pct (the watermark in force, percent) is not 0 are their own
 * kind, JT_CAUSE_SPACE_RECLAIM_ON: the reclaim work does not keep the log
 * free, which a higher watermark may still help up to @reclaim_max_pct
 * (the journal's highest, 0 if not known) and nothing of ours beyond it
 * (a throttled cgroup's checkpoint I/O, Documentation/iomax-inversion.md,
 * or a journal too small).  Writes a sentence with the figures into @text
 * (of @len).
 */
enum jt_cause jt_diagnose(const struct jt_window_stats *w, double budget_us_per_s,
			  int64_t reclaim_pct, int64_t reclaim_max_pct, char *text, size_t len);

/*
 * jt_cause_knob - the knob whose raising acts on @cause (force_copy for
 * shadow waits, the reclaim watermark for both kinds of log-space waits,
 * lock_delay_max_ms for locked waits), or JT_KNOBS where none does (quiet,
 * commit I/O): the knob whose descriptor names the cause's wait as its
 * relief (jt_knob_desc()).
 */
enum jt_knob jt_cause_knob(enum jt_cause cause);

/*
 * jt_diagnosis_held_back - append to @text, a sentence of jt_diagnose() in
 * a buffer of @len bytes, that the knob it names failed its trial on this
 * journal (@verdict: "harm", "costly", "no relief", ...) and is held back
 * for another @remaining_s seconds.  A diagnosis that names a knob the
 * trial has just taken back would read as advice to set it by hand (seen
 * on bench/agent-field's shards load, 6.12: force copy reverted for harm,
 * commit-wait mean 2,646 vs 210 ms, then "force_copy is the knob").  Text
 * that would not fit is not appended.
 */
void jt_diagnosis_held_back(char *text, size_t len, const char *verdict, double remaining_s);

#endif
