/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One timestamped reading of a journal's configfs (or netlink) figures: the
 * input of the policy core.  No I/O here; configfs.c and netlink.c fill it.
 */
#ifndef JT_SAMPLE_H
#define JT_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/jbd2tune.h>

#define JT_HIST_BUCKETS JBD2TUNE_HIST_BUCKETS	/* 24: bucket i = [2^i, 2^(i+1)) us */
#define JT_NAME_MAX	JBD2TUNE_NAME_MAX	/* longest journal name, with NUL */

/*
 * The kinds of wait the kernel counts, each as a count, a total, a maximum
 * and a histogram.  The last two are newer than the module's first
 * release: a sample from an older module has them all zero and
 * has_commit_stats false.
 */
enum jt_wait_kind {
	JT_WAIT_SHADOW,		/* handle slept on BH_Shadow (do_get_write_access) */
	JT_WAIT_SPACE,		/* foreground wait for log space */
	JT_WAIT_LOCKED,		/* wait for the running transaction to unlock/switch */
	JT_WAIT_COMMIT,		/* task slept in jbd2_log_wait_commit() (what fsync pays) */
	JT_WAIT_COMMIT_DURATION,/* not a wait: one per transaction commit, its duration */
	JT_WAIT_KINDS
};

/* Counters of one kind of wait, monotonic since the journal was set up. */
struct jt_wait_counters {
	uint64_t waits;				/* number of waits */
	uint64_t wait_us;			/* total time waited, us */
	uint64_t wait_max_us;			/* longest single wait, us */
	uint64_t hist[JT_HIST_BUCKETS];		/* latency histogram */
};

/*
 * Knob indices: the values the agent writes.  Their order is the order in
 * which auto starts trials when several knobs trigger at once (one trial
 * per journal at a time): lock delay last, since it lengthens commits.
 */
enum jt_knob {
	JT_KNOB_FORCE_COPY,		/* force_copy: 0/1 */
	JT_KNOB_RECLAIM,		/* reclaim_watermark_pct: 0 (off), 1..90, see reclaim_*_pct */
	JT_KNOB_LOCK_DELAY,		/* lock_delay_max_ms: 0 (off), 1..10000 */
	JT_KNOBS
};

struct jt_sample {
	uint64_t time_us;			/* CLOCK_MONOTONIC, us */
	int64_t knob[JT_KNOBS];			/* the enum jt_knob files' values */
	uint64_t log_blocks;			/* journal size, blocks */
	uint64_t free_blocks;			/* free log space, blocks */
	uint64_t max_transaction_blocks;	/* reservation a handle waits for */
	struct jt_wait_counters wait[JT_WAIT_KINDS];
	uint64_t copyouts_forced;		/* copy-outs done only for force_copy */
	uint64_t reclaim_runs;			/* background reclaim work runs */
	uint64_t reclaim_blocks;		/* log blocks those runs freed */
	/*
	 * Blocks the commits wrote to the log (descriptor, metadata, revoke
	 * and commit blocks; jbd2's rs_blocks_logged summed), monotonic: its
	 * rate is how fast a load fills the log.  Newer than the commit
	 * statistics: 0 and has_logged_blocks false from an older module.
	 */
	uint64_t logged_blocks;
	bool has_logged_blocks;
	bool has_commit_stats;			/* wait[JT_WAIT_COMMIT*] were reported */
	/*
	 * Lowest and highest non-zero reclaim_watermark_pct the kernel accepts
	 * for this journal (it refuses others with EINVAL), when
	 * has_reclaim_limits (an older module reports none); both 0 when it
	 * accepts none (journal not loaded yet, or too small).
	 */
	bool has_reclaim_limits;
	uint32_t reclaim_watermark_min_pct;
	uint32_t reclaim_watermark_max_pct;
	/*
	 * The module has lock_delay_max_ms (an older one has not: the knob
	 * reads 0 and is never written).
	 */
	bool has_lock_delay;
	/*
	 * What a knob spared, as the kernel measures it (issue 45; ABI
	 * configfs-jbd2): shadow waits that force_copy's copies spared, one
	 * per task per commit, timed until the buffer's log write ended
	 * (count, total us), and handle starts that a lock delay spared from
	 * T_LOCKED (count, total us).  Monotonic.  has_avoided false from an
	 * older module: relief is then inferred by the trial alone.
	 */
	bool has_avoided;
	uint64_t shadow_avoided, shadow_avoided_us;
	uint64_t locked_avoided, locked_avoided_us;
	uint64_t source_id;			/* configfs: inode of the group, 0 = netlink */
};

/* "force_copy", "reclaim", "lock_delay" (SPEC knob names as used in policy and D-Bus). */
const char *jt_knob_name(enum jt_knob knob);
/* "shadow", "space", "locked", "commit", "commit_duration". */
const char *jt_wait_kind_name(enum jt_wait_kind kind);

#endif
