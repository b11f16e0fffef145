// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the policy core (policy.c), table-driven: each scenario is a
 * sequence of samples (time, waits added, knob values read back) and the
 * decisions expected after each one, written as "SET force_copy 0->1",
 * "REVERT force_copy 1->0", "STANDS force_copy 0->1" (an outcome verdict
 * that lets a change stand), "HELD force_copy" (a change held back by an
 * outcome back-off), "RELEASE reclaim", "RESTART", joined by "; ".  A step
 * may also give the exact reason text of its decisions (joined by " | ").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "policy.h"

#define KEEP	-1	/* knob reads back what the agent expects */
#define MS(b)	(b)	/* bucket index: b=15 is [32.8, 65.5) ms, b=12 is [4.1, 8.2) ms */

struct step {
	double t_s;			/* sample time, s */
	unsigned int shadow_n, shadow_b;/* shadow waits added in bucket shadow_b */
	unsigned int space_n;		/* space waits added (bucket 14, ~16 ms) */
	int64_t fc_read, rc_read;	/* knob values read, KEEP = as expected */
	int flags;
	const char *expect;		/* decisions, "" for none */
	unsigned int commit_n, commit_b;/* commit waits added in bucket commit_b */
	const char *reason;		/* NULL, or the exact reasons of the decisions */
};
#define RESET	1	/* counters start from zero again (remount) */
#define FRESH	2	/* journal gone and back: new state */

struct scenario {
	const char *name;
	struct jt_journal_policy jp;
	bool dry_run;
	int64_t fc0, rc0;		/* knob values before the agent */
	struct step steps[40];
	bool commit_stats;		/* the module reports commit waits (outcome checks) */
	uint32_t kmin_pct, kmax_pct;	/* the kernel's watermark limits, 0 = not reported ... */
	bool accepts_none;		/* ... unless this: reported as 0/0, no watermark accepted */
};

/* outcome checks: margin 10 %, 20 commit waits per window, first back-off 10 s */
#define OUTCOME .outcome_margin_pct = 10, .outcome_min_waits = 20, .outcome_backoff_s = 10

static const struct jt_journal_policy FC_AUTO = {
	.force_copy = JT_MODE_AUTO, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_OFF, .reclaim_watermark_pct = 25,
	.reclaim_min_pct = 10, .reclaim_max_pct = 60, OUTCOME,
};
static const struct jt_journal_policy RC_AUTO = {
	.force_copy = JT_MODE_OFF, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_AUTO, .reclaim_watermark_pct = 25,
	.reclaim_min_pct = 10, .reclaim_max_pct = 35, OUTCOME,
};
/* the shipped reclaim defaults: start 50, range 35..70 */
static const struct jt_journal_policy RC_SHIPPED = {
	.force_copy = JT_MODE_OFF, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_AUTO, .reclaim_watermark_pct = 50,
	.reclaim_min_pct = 35, .reclaim_max_pct = 70, OUTCOME,
};
/* reclaim auto that never lowers below its start (50), for a run of raises */
static const struct jt_journal_policy RC_FROM_50 = {
	.force_copy = JT_MODE_OFF, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_AUTO, .reclaim_watermark_pct = 50,
	.reclaim_min_pct = 50, .reclaim_max_pct = 70, OUTCOME,
};
static const struct jt_journal_policy RC_ON_80 = {
	.force_copy = JT_MODE_OFF, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_ON, .reclaim_watermark_pct = 80,
	.reclaim_min_pct = 35, .reclaim_max_pct = 70, OUTCOME,
};
static const struct jt_journal_policy BOTH_ON = {
	.force_copy = JT_MODE_ON, .force_copy_on_p99_ms = 10, .force_copy_min_waits = 10,
	.force_copy_hold_s = 5, .reclaim = JT_MODE_ON, .reclaim_watermark_pct = 40,
	.reclaim_min_pct = 10, .reclaim_max_pct = 60, OUTCOME,
};

/* interval 1 s, window 3 s in every scenario */
static const struct scenario scenarios[] = {
	{ "quiet journal: nothing happens", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 1, MS(15), 0, KEEP, KEEP, 0, "" },	/* 1 slow wait < min 10 */
		/* 101 waits, 1 slow: k = 99.99 stays in [4,8) ms, p99 < 10 ms */
		{ 3, 100, MS(12), 0, KEEP, KEEP, 0, "" },
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "threshold crossing turns force_copy on", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 9, MS(15), 0, KEEP, KEEP, 0, "" },	/* 9 < min_waits */
		{ 3, 1, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" }, /* 10 in window */
		{ 4, 50, MS(15), 0, KEEP, KEEP, 0, "" },	/* already on */
		{ -1 } } },
	{ "waits older than the window do not count", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 9, MS(15), 0, KEEP, KEEP, 0, "" },
		{ 6, 1, MS(15), 0, KEEP, KEEP, 0, "" },	/* the 9 fell out of the 3 s window */
		{ -1 } } },
	{ "hold, then try off; relapse doubles the hold", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "" },		/* 4 s < hold 5 s */
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ 8, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" }, /* back: hold 10 s */
		{ 17, 0, 0, 0, KEEP, KEEP, 0, "" },		/* 9 s < 10 s */
		{ 18, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ 19, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 22, 0, 0, 0, KEEP, KEEP, 0, "" },		/* quiet window: hold back to 5 s */
		{ 23, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 28, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },	/* base hold again */
		{ -1 } } },
	{ "found on under auto: held from first sight, then tried off", FC_AUTO, false, 1, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ -1 } } },
	{ "flapping input is held back by the hold", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 4, 20, MS(15), 0, KEEP, KEEP, 0, "" },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 6, 20, MS(15), 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "hold doubling stops at one hour", { .force_copy = JT_MODE_AUTO,
		.force_copy_on_p99_ms = 10, .force_copy_min_waits = 10, .force_copy_hold_s = 2000,
		.reclaim = JT_MODE_OFF, .reclaim_watermark_pct = 25, .reclaim_min_pct = 10,
		.reclaim_max_pct = 60, OUTCOME }, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 2002, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ 2003, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },	/* 4000 s -> 3600 s */
		{ 5602, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 5603, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },
		{ -1 } } },
	{ "counters going backwards restart the window", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		/* remount: counters and knob back to the kernel's defaults */
		{ 3, 5, MS(15), 0, 0, KEEP, RESET, "RESTART" },
		{ 4, 9, MS(15), 0, KEEP, KEEP, 0, "" },	/* the restart sample is the baseline */
		{ 5, 1, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },	/* 10 since it */
		{ -1 } } },
	{ "counter reset with the knob unchanged keeps its bookkeeping", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 3, 0, 0, 0, KEEP, KEEP, RESET, "RESTART" },	/* knob still reads 1 */
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0" },	/* hold from t=2 */
		{ -1 } } },
	{ "administrator write: stop managing the knob", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1" },
		{ 3, 0, 0, 0, 0, KEEP, 0, "RELEASE force_copy" },
		{ 10, 0, 0, 0, 0, KEEP, 0, "" },			/* no try-off either */
		{ 11, 50, MS(15), 0, 0, KEEP, 0, "" },
		{ -1 } } },
	{ "on/off applied once, again when the journal comes back", BOTH_ON, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 0->1; SET reclaim 0->40" },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 3, 0, 0, 0, 0, 0, FRESH | RESET, "SET force_copy 0->1; SET reclaim 0->40" },
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ -1 } } },
	{ "dry-run: decisions reported once, knob never expected to change", FC_AUTO, true, 0, 0, {
		{ 1, 0, 0, 0, 0, 0, 0, "" },
		{ 2, 20, MS(15), 0, 0, 0, 0, "SET force_copy 0->1" },
		{ 3, 20, MS(15), 0, 0, 0, 0, "" },	/* read 0: not an admin write */
		{ 7, 0, 0, 0, 0, 0, 0, "SET force_copy 1->0" },
		{ -1 } } },
	{ "dry-run still notices an administrator", FC_AUTO, true, 0, 0, {
		{ 1, 0, 0, 0, 0, 0, 0, "" },
		{ 2, 0, 0, 0, 1, 0, 0, "RELEASE force_copy" },
		{ -1 } } },
	{ "reclaim auto: off until a space wait, start, raise per interval, cap, lower after quiet window",
	  RC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },		/* off, nothing waits: stays off */
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "" },		/* a whole quiet window: still off */
		{ 5, 0, 0, 2, KEEP, KEEP, 0, "SET reclaim 0->25", 0, 0,
		  "2 foreground log-space waits in 4 s (p99 32.6 ms); auto: start at 25 % (range 10..35 %)" },
		{ 6, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 25->30" },
		{ 6.5, 0, 0, 3, KEEP, KEEP, 0, "" },		/* one change per interval */
		{ 7, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 30->35" },
		{ 8, 0, 0, 3, KEEP, KEEP, 0, "" },		/* at reclaim_max_pct */
		{ 9, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 10, 0, 0, 0, KEEP, KEEP, 0, "" },		/* the waits at 8 s are in the window */
		{ 11, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 35->30" },	/* 3 s quiet */
		{ 13, 0, 0, 0, KEEP, KEEP, 0, "" },		/* quiet, but 2 s since the change */
		{ 14, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 30->25" },
		{ 17, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 25->20" },
		{ 20, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 20->15" },
		{ 23, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 15->10" },
		{ 26, 0, 0, 0, KEEP, KEEP, 0, "" },		/* at reclaim_min_pct: not off */
		{ 27, 0, 0, 1, KEEP, KEEP, 0, "SET reclaim 10->15" },
		{ -1 } } },
	{ "reclaim auto: a value outside the range is brought back", RC_AUTO, false, 0, 80, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 80->25" },
		{ -1 } } },

	/*
	 * Outcome checks.  Commit waits are added as n waits in bucket b, each
	 * taken at the bucket's middle (1.5 * 2^b us) for the total; the window
	 * is 3 s, so 10 waits a second make 30 per window.  30 waits in bucket
	 * 15 [32.8, 65.5) ms: p99 = 32768 + 32768 * 29.7/30 = 65208.3 us, mean
	 * 49152 us; in bucket 16 both double: p99 130416.6 us, mean 98304 us.
	 */
	{ "outcome: force_copy on with commit waits 2x worse is reverted; the back-off doubles",
	  FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 4, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1", 10, 15 },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "", 10, 16 },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "", 10, 16 },
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "REVERT force_copy 1->0", 10, 16,
		  "reverted: commit-wait p99 130.4 ms vs 65.2 ms before (+100 % > 10 %), "
		  "mean 98.3 ms vs 49.2 ms (+100 % > 10 %); total 0.98 s/s vs 0.49 s/s "
		  "(30 waits in 3 s vs 30 in 3 s); shadow waits 0 vs 20; not tried again for 10 s" },
		/* the stalls are back, but turning on is held back for 10 s, said once */
		{ 8, 20, MS(15), 0, KEEP, KEEP, 0, "HELD force_copy", 10, 15,
		  "force_copy stays 0: turning it on was reverted (commit waits got worse); "
		  "not tried again for another 9 s" },
		{ 9, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 10, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 11, 20, MS(15), 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 12, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 13, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 14, 20, MS(15), 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 15, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 16, 20, MS(15), 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 17, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1", 10, 15 },	/* 7 + 10 s */
		{ 18, 0, 0, 0, KEEP, KEEP, 0, "", 10, 16 },
		{ 19, 0, 0, 0, KEEP, KEEP, 0, "", 10, 16 },
		{ 20, 0, 0, 0, KEEP, KEEP, 0, "REVERT force_copy 1->0", 10, 16,
		  "reverted: commit-wait p99 130.4 ms vs 65.2 ms before (+100 % > 10 %), "
		  "mean 98.3 ms vs 49.2 ms (+100 % > 10 %); total 0.98 s/s vs 0.49 s/s "
		  "(30 waits in 3 s vs 30 in 3 s); shadow waits 0 vs 40; not tried again for 20 s" },
		{ 21, 20, MS(15), 0, KEEP, KEEP, 0, "HELD force_copy", 10, 15,
		  "force_copy stays 0: turning it on was reverted (commit waits got worse); "
		  "not tried again for another 19 s" },
		{ 39, 20, MS(15), 0, KEEP, KEEP, 0, "", 10, 15 },	/* 19 s < 20 s */
		{ 40, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1", 10, 15 },
		{ -1 } }, true },
	{ "outcome: the field case, fewer but longer commit waits, is reverted", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 4, 10, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1", 10, 15 },
		/* 7 a second instead of 10, each 4x longer: p99 131072 + 131072 * 20.79/21 */
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "", 7, 17 },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "", 7, 17 },
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "REVERT force_copy 1->0", 7, 17,
		  "reverted: commit-wait p99 260.8 ms vs 65.2 ms before (+300 % > 10 %), "
		  "mean 196.6 ms vs 49.2 ms (+300 % > 10 %); total 1.38 s/s vs 0.49 s/s "
		  "(21 waits in 3 s vs 30 in 3 s); shadow waits 0 vs 10; not tried again for 10 s" },
		{ -1 } }, true },
	{ "outcome: better commit waits stand; a try-off that makes them worse is reverted",
	  FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 4, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1", 10, 15 },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "", 10, 14 },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "", 10, 14 },
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "STANDS force_copy 0->1", 10, 14,
		  "force_copy 0->1 stands: commit-wait p99 32.6 ms vs 65.2 ms before (-50 %), "
		  "mean 24.6 ms vs 49.2 ms (-50 %), not both worse by > 10 %; total 0.25 s/s vs "
		  "0.49 s/s (30 waits in 3 s vs 30 in 3 s); shadow waits 0 vs 20" },
		{ 8, 0, 0, 0, KEEP, KEEP, 0, "", 10, 14 },
		{ 9, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0", 10, 14 },	/* hold 5 s */
		{ 10, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 11, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 12, 0, 0, 0, KEEP, KEEP, 0, "REVERT force_copy 0->1", 10, 15,
		  "reverted: commit-wait p99 65.2 ms vs 32.6 ms before (+100 % > 10 %), "
		  "mean 49.2 ms vs 24.6 ms (+100 % > 10 %); total 0.49 s/s vs 0.25 s/s "
		  "(30 waits in 3 s vs 30 in 3 s); shadow waits 0 vs 0; not tried again for 10 s" },
		/* the hold has passed again, but turning off is held back until 22 s */
		{ 17, 0, 0, 0, KEEP, KEEP, 0, "HELD force_copy", 10, 15,
		  "force_copy stays 1: turning it off was reverted (commit waits got worse); "
		  "not tried again for another 5 s" },
		{ 22, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0", 10, 15 },
		{ -1 } }, true },
	{ "outcome: make demo, shadow waits removed and commit waits unchanged: stays on",
	  FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		/* 55 shadow waits of 2-4 s; the window before is only 2 s old: 20 commit waits */
		{ 3, 55, 21, 0, KEEP, KEEP, 0, "SET force_copy 0->1", 10, 15 },
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "STANDS force_copy 0->1", 10, 15,
		  "force_copy 0->1 stands: commit-wait p99 65.2 ms vs 65.2 ms before (+0 %), "
		  "mean 49.2 ms vs 49.2 ms (+0 %), not both worse by > 10 %; total 0.49 s/s vs "
		  "0.49 s/s (30 waits in 3 s vs 20 in 2 s); shadow waits 0 vs 55" },
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },		/* still on */
		{ 8, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0", 10, 15 },	/* the usual hold */
		{ -1 } }, true },
	{ "outcome: too few commit waits to judge: the change stands", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "", 5, 15 },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "", 5, 15 },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "", 5, 15 },
		{ 4, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1", 5, 15 },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "", 5, 17 },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "", 5, 17 },
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "STANDS force_copy 0->1", 5, 17,
		  "force_copy 0->1 stands: too few commit waits to judge (15 in 3 s after, "
		  "15 in 3 s before; need 20 in each); shadow waits 0 vs 20" },
		{ 8, 0, 0, 0, KEEP, KEEP, 0, "", 5, 17 },		/* still on */
		{ -1 } }, true },
	{ "outcome: one slow commit wait (p99 worse, mean not) does not revert", FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 4, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1", 10, 15 },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 6.5, 0, 0, 0, KEEP, KEEP, 0, "", 1, 16 },
		/* p99 65536 + 65536 * 0.7 = 111411 us; mean (29 * 49152 + 98304) / 30 */
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "STANDS force_copy 0->1", 9, 15,
		  "force_copy 0->1 stands: commit-wait p99 111.4 ms vs 65.2 ms before (+71 %), "
		  "mean 50.8 ms vs 49.2 ms (+3 %), not both worse by > 10 %; total 0.51 s/s vs "
		  "0.49 s/s (30 waits in 3 s vs 30 in 3 s); shadow waits 0 vs 20" },
		{ -1 } }, true },
	{ "outcome: without commit-wait figures (older module) changes stand unchecked",
	  FC_AUTO, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 4, 20, MS(15), 0, KEEP, KEEP, 0, "SET force_copy 0->1", 10, 15 },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "", 10, 16 },
		{ 6, 0, 0, 0, KEEP, KEEP, 0, "", 10, 16 },
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "", 10, 16 },
		{ 9, 0, 0, 0, KEEP, KEEP, 0, "SET force_copy 1->0", 10, 16 },	/* hold only */
		{ -1 } }, false },
	{ "outcome: nothing is put on trial in dry-run", FC_AUTO, true, 0, 0, {
		{ 1, 0, 0, 0, 0, 0, 0, "", 10, 15 },
		{ 4, 20, MS(15), 0, 0, 0, 0, "SET force_copy 0->1", 10, 15 },
		{ 5, 0, 0, 0, 0, 0, 0, "", 10, 16 },
		{ 7, 0, 0, 0, 0, 0, 0, "", 10, 16 },
		{ 9, 0, 0, 0, 0, 0, 0, "SET force_copy 1->0", 10, 16 },
		{ -1 } }, true },
	{ "outcome: a reclaim run is judged from its first step and reverted whole",
	  RC_FROM_50, false, 0, 50, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 3, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 4, 0, 0, 0, KEEP, KEEP, 0, "", 10, 15 },
		{ 5, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 50->55", 10, 15 },
		{ 6, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 55->60", 10, 16 },	/* the run goes on */
		{ 7, 0, 0, 0, KEEP, KEEP, 0, "", 10, 16 },
		{ 8, 0, 0, 0, KEEP, KEEP, 0, "", 10, 16 },
		{ 9, 0, 0, 0, KEEP, KEEP, 0, "REVERT reclaim 60->50", 10, 16,
		  "reverted: commit-wait p99 130.4 ms vs 65.2 ms before (+100 % > 10 %), "
		  "mean 98.3 ms vs 49.2 ms (+100 % > 10 %); total 0.98 s/s vs 0.49 s/s "
		  "(30 waits in 3 s vs 30 in 3 s); space waits 0 vs 3; not tried again for 10 s" },
		{ 10, 0, 0, 3, KEEP, KEEP, 0, "HELD reclaim", 10, 15,
		  "reclaim stays 50: raising it was reverted (commit waits got worse); "
		  "not tried again for another 9 s" },
		{ 19, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 50->55", 10, 15 },
		{ -1 } }, true },
	/* Reclaim auto clamped into the kernel's limits (6.12: 34..67 %, 6.1: 26..75 %). */
	{ "reclaim clamp: the shipped 35..70 % under 6.12's 34..67 %: never above 67", RC_SHIPPED,
	  false, 0, 0, {
		{ 1, 0, 0, 3, KEEP, KEEP, 0, "" },		/* no window before the first sample */
		{ 2, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 0->50", 0, 0,
		  "3 foreground log-space waits in 1 s (p99 32.6 ms); "
		  "auto: start at 50 % (range 35..67 %: policy 35..70 % clamped into the kernel's 34..67 %)" },
		{ 3, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 50->55" },
		{ 4, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 55->60" },
		{ 5, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 60->65" },
		{ 6, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 65->67" },
		{ 7, 0, 0, 3, KEEP, KEEP, 0, "" },		/* at the kernel's highest */
		{ 10, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 67->62" },
		{ -1 } }, false, 34, 67 },
	{ "reclaim clamp: a kernel lowest above the policy's lowest is the floor", RC_SHIPPED,
	  false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 0, 0, 1, KEEP, KEEP, 0, "SET reclaim 0->50" },
		{ 5, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 50->45" },	/* quiet since the start */
		{ 8, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 45->40" },
		{ 11, 0, 0, 0, KEEP, KEEP, 0, "" },		/* 40, not 35 */
		{ -1 } }, false, 40, 60 },
	{ "reclaim clamp: a found value above the kernel's highest is brought back", RC_SHIPPED,
	  false, 0, 70, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 70->50" },
		{ -1 } }, false, 34, 67 },
	{ "reclaim clamp: on writes the nearest value the kernel accepts", RC_ON_80, false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 0->75", 0, 0,
		  "policy reclaim = on; 80 % is outside the 26..75 % the kernel accepts for this journal" },
		{ 2, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ -1 } }, false, 26, 75 },
	{ "reclaim clamp: a journal that accepts no watermark: auto leaves it alone", RC_AUTO,
	  false, 0, 25, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 0, 0, 3, KEEP, KEEP, 0, "" },
		{ -1 } }, false, 0, 0, true },
	{ "reclaim clamp: ... while off still writes 0", FC_AUTO, false, 0, 25, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "SET reclaim 25->0" },
		{ -1 } }, false, 0, 0, true },
	{ "reclaim clamp: limits not reported (older module): the policy's range", RC_SHIPPED,
	  false, 0, 0, {
		{ 1, 0, 0, 0, KEEP, KEEP, 0, "" },
		{ 2, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 0->50", 0, 0,
		  "3 foreground log-space waits in 1 s (p99 32.6 ms); auto: start at 50 % (range 35..70 %)" },
		{ 3, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 50->55" },
		{ 4, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 55->60" },
		{ 5, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 60->65" },
		{ 6, 0, 0, 3, KEEP, KEEP, 0, "SET reclaim 65->70" },
		{ 7, 0, 0, 3, KEEP, KEEP, 0, "" },
		{ -1 } }, false, 0, 0 },
};

/* @n more waits in bucket @b: each counted at the bucket's middle, the max at its top. */
static void add_waits(struct jt_wait_counters *w, unsigned int n, unsigned int b, bool with_max)
{
	if (!n)
		return;
	w->waits += n;
	w->hist[b] += n;
	w->wait_us += (uint64_t)n * (3ULL << b) / 2;
	if (with_max && w->wait_max_us < (2ULL << b) - 1)
		w->wait_max_us = (2ULL << b) - 1;
}

static void run_scenario(const struct scenario *sc)
{
	const struct jt_timing t = { .interval_us = 1000000, .window_us = 3000000 };
	static struct jt_journal_state st;
	struct jt_sample s;
	const struct step *p;

	jt_journal_state_init(&st);
	memset(&s, 0, sizeof(s));
	s.knob[JT_KNOB_FORCE_COPY] = sc->fc0;
	s.knob[JT_KNOB_RECLAIM] = sc->rc0;
	s.log_blocks = 32768;
	s.free_blocks = 30000;
	s.has_commit_stats = sc->commit_stats;
	s.has_reclaim_limits = sc->kmin_pct || sc->kmax_pct || sc->accepts_none;
	s.reclaim_watermark_min_pct = sc->kmin_pct;
	s.reclaim_watermark_max_pct = sc->kmax_pct;
	for (p = sc->steps; p->t_s >= 0; p++) {
		struct jt_decision d[JT_DECISIONS_MAX];
		char got[512] = "", reasons[4 * JT_REASON_MAX] = "";
		unsigned int n, i;

		if (p->flags & FRESH)
			jt_journal_state_init(&st);
		if (p->flags & RESET)
			memset(s.wait, 0, sizeof(s.wait));
		s.time_us = (uint64_t)(p->t_s * 1e6);
		add_waits(&s.wait[JT_WAIT_SHADOW], p->shadow_n, p->shadow_b, false);
		add_waits(&s.wait[JT_WAIT_SPACE], p->space_n, 14, false);
		add_waits(&s.wait[JT_WAIT_COMMIT], p->commit_n, p->commit_b, true);
		s.knob[JT_KNOB_FORCE_COPY] = p->fc_read != KEEP ? p->fc_read :
			st.knob[0].seen ? st.knob[0].expected : s.knob[0];
		s.knob[JT_KNOB_RECLAIM] = p->rc_read != KEEP ? p->rc_read :
			st.knob[1].seen ? st.knob[1].expected : s.knob[1];

		n = jt_policy_step(&t, &sc->jp, &st, &s, sc->dry_run, d);
		for (i = 0; i < n; i++) {
			const char *knob = jt_knob_name(d[i].knob);
			char one[64];

			if (d[i].kind == JT_DECISION_SET)
				snprintf(one, sizeof(one), "%s %s %lld->%lld",
					 d[i].revert ? "REVERT" : "SET", knob,
					 (long long)d[i].old_value, (long long)d[i].new_value);
			else if (d[i].kind == JT_DECISION_NOTE && d[i].outcome)
				snprintf(one, sizeof(one), "STANDS %s %lld->%lld", knob,
					 (long long)d[i].old_value, (long long)d[i].new_value);
			else if (d[i].kind == JT_DECISION_NOTE)
				snprintf(one, sizeof(one), "HELD %s", knob);
			else if (d[i].kind == JT_DECISION_RELEASE)
				snprintf(one, sizeof(one), "RELEASE %s", knob);
			else
				snprintf(one, sizeof(one), "RESTART");
			if (i) {
				strcat(got, "; ");
				strcat(reasons, " | ");
			}
			strcat(got, one);
			strcat(reasons, d[i].reason);
			assert_true(d[i].reason[0] != '\0');	/* every decision says why */
		}
		if (strcmp(got, p->expect) != 0)
			print_message("# %s: at t=%.1f s got \"%s\", want \"%s\"\n", sc->name,
				      p->t_s, got, p->expect);
		assert_string_equal(got, p->expect);
		if (p->reason && strcmp(reasons, p->reason) != 0)
			print_message("# %s: at t=%.1f s reason\n#   got  \"%s\"\n#   want \"%s\"\n",
				      sc->name, p->t_s, reasons, p->reason);
		if (p->reason)
			assert_string_equal(reasons, p->reason);
	}
}

static void test_scenario(void **state)
{
	run_scenario(*state);
}

/* The reason carries the figures, in the SPEC's example format. */
static void test_reason_text(void **state)
{
	const struct jt_timing t = { .interval_us = 1000000, .window_us = 30000000 };
	static struct jt_journal_state st;
	struct jt_decision d[JT_DECISIONS_MAX];
	struct jt_sample s;

	(void)state;
	jt_journal_state_init(&st);
	memset(&s, 0, sizeof(s));
	s.time_us = 1000000;
	assert_int_equal(jt_policy_step(&t, &FC_AUTO, &st, &s, false, d), 0);
	/* 200 waits in [32,64) ms: k = 198 -> 32768 + 32768 * 198/200 = 65208.3 us */
	s.time_us = 31000000;
	s.wait[JT_WAIT_SHADOW].waits = 200;
	s.wait[JT_WAIT_SHADOW].hist[15] = 200;
	assert_int_equal(jt_policy_step(&t, &FC_AUTO, &st, &s, false, d), 1);
	assert_string_equal(d[0].reason, "shadow-wait p99 65.2 ms > 10 ms over 30 s (200 waits)");
}

/* Windowed figures: the baseline is the newest sample at or before the window start. */
static void test_window_stats(void **state)
{
	const struct jt_timing t = { .interval_us = 1000000, .window_us = 3000000 };
	static struct jt_journal_state st;
	struct jt_decision d[JT_DECISIONS_MAX];
	struct jt_window_stats w;
	struct jt_sample s;
	unsigned int i;

	(void)state;
	jt_journal_state_init(&st);
	memset(&s, 0, sizeof(s));
	s.knob[JT_KNOB_FORCE_COPY] = 0;
	for (i = 1; i <= 10; i++) {	/* 10 locked waits in [4,8) us every second */
		s.time_us = i * 1000000ULL;
		s.wait[JT_WAIT_LOCKED].waits += 10;
		s.wait[JT_WAIT_LOCKED].hist[2] += 10;
		jt_policy_step(&t, &BOTH_ON, &st, &s, true, d);
	}
	s.time_us = 11000000;
	s.wait[JT_WAIT_LOCKED].waits += 10;
	s.wait[JT_WAIT_LOCKED].hist[2] += 10;
	assert_true(jt_window_stats(&st, &s, t.window_us, 0, &w));
	assert_true(w.span_us == 3000000 && w.full);
	assert_true(w.wait[JT_WAIT_LOCKED].waits == 30);
	/* 30 in [4,8): k = 29.7 -> 4 + 4 * 29.7/30 = 7.96 */
	assert_true(w.wait[JT_WAIT_LOCKED].p99_us > 7.959 && w.wait[JT_WAIT_LOCKED].p99_us < 7.961);
	/* since a later point: shorter span, not full */
	assert_true(jt_window_stats(&st, &s, t.window_us, 10000000, &w));
	assert_true(w.span_us == 1000000 && !w.full && w.wait[JT_WAIT_LOCKED].waits == 10);
}

/* A failed write puts the old value back in force. */
static void test_write_failed(void **state)
{
	const struct jt_timing t = { .interval_us = 1000000, .window_us = 3000000 };
	static struct jt_journal_state st;
	struct jt_decision d[JT_DECISIONS_MAX];
	struct jt_sample s;

	(void)state;
	jt_journal_state_init(&st);
	memset(&s, 0, sizeof(s));
	s.time_us = 1000000;
	assert_int_equal(jt_policy_step(&t, &BOTH_ON, &st, &s, false, d), 2);
	jt_policy_write_failed(&st, JT_KNOB_FORCE_COPY, 0);
	/* the knob still reads 0: not taken for an administrator; retried next interval */
	s.time_us = 2000000;
	s.knob[JT_KNOB_RECLAIM] = 40;
	assert_int_equal(jt_policy_step(&t, &BOTH_ON, &st, &s, false, d), 1);
	assert_int_equal(d[0].kind, JT_DECISION_SET);
	assert_int_equal(d[0].knob, JT_KNOB_FORCE_COPY);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(scenarios) / sizeof(scenarios[0]) + 4];
	size_t i, n = 0;

	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		tests[n++] = (struct CMUnitTest){ .name = scenarios[i].name,
						  .test_func = test_scenario,
						  .initial_state = (void *)&scenarios[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_reason_text);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_window_stats);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_write_failed);
	return _cmocka_run_group_tests("policy", tests, n, NULL, NULL);
}
