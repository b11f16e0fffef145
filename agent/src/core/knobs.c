// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-knob descriptors of the policy core: what each knob relieves,
 * whether and how it steps (lock delay's ladder), its block and pair
 * multipliers, and the names of the knobs and of the kinds of wait.  The
 * only place that says how the knobs differ (policy.c, trial-run.c and
 * the rest read it through jt_knob_desc()).
 */
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
