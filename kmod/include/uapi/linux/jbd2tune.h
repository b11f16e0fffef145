/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * jbd2tune: generic netlink interface of the jbd2-tune journal module.
 *
 * Family JBD2TUNE_GENL_NAME, version JBD2TUNE_GENL_VERSION.  Userspace
 * (jbd2-tuned, tests) includes this header; the numbers below are ABI and
 * are only ever appended to.  See Documentation/netlink-jbd2tune.rst.
 */
#ifndef _UAPI_LINUX_JBD2TUNE_H
#define _UAPI_LINUX_JBD2TUNE_H

#define JBD2TUNE_GENL_NAME		"jbd2tune"
#define JBD2TUNE_GENL_VERSION		1
#define JBD2TUNE_MCGRP_EVENTS		"events"

/* Number of buckets of every wait histogram: [2^i, 2^(i+1)) microseconds. */
#define JBD2TUNE_HIST_BUCKETS		24

/*
 * STALL events: a shadow or space wait longer than this was seen, and at
 * most one message per journal per interval.
 */
#define JBD2TUNE_STALL_THRESHOLD_US	1000
#define JBD2TUNE_STALL_INTERVAL_MS	100

/* Longest journal name (j_devname is BDEVNAME_SIZE + "-" + inode number). */
#define JBD2TUNE_NAME_MAX		64

enum jbd2tune_cmd {
	JBD2TUNE_CMD_UNSPEC,
	JBD2TUNE_CMD_GET_JOURNAL,	/* doit by NAME, dumpit for all */
	JBD2TUNE_CMD_JOURNAL_ADD,	/* event: journal set up */
	JBD2TUNE_CMD_JOURNAL_REMOVE,	/* event: journal destroyed */
	JBD2TUNE_CMD_SPACE_LOW,		/* event: free log space crossed low */
	JBD2TUNE_CMD_STALL,		/* event: shadow/space wait > 1 ms */

	__JBD2TUNE_CMD_MAX,
	JBD2TUNE_CMD_MAX = __JBD2TUNE_CMD_MAX - 1
};

enum jbd2tune_attr {
	JBD2TUNE_ATTR_UNSPEC,
	JBD2TUNE_ATTR_PAD,
	JBD2TUNE_ATTR_NAME,			/* string, journal j_devname */
	JBD2TUNE_ATTR_FORCE_COPY,		/* u8, 0/1 */
	JBD2TUNE_ATTR_RECLAIM_WATERMARK_PCT,	/* u8, 0 or MIN_PCT..MAX_PCT */
	JBD2TUNE_ATTR_LOG_BLOCKS,		/* u64 */
	JBD2TUNE_ATTR_FREE_BLOCKS,		/* u64 */
	JBD2TUNE_ATTR_MAX_TRANSACTION_BLOCKS,	/* u64 */
	JBD2TUNE_ATTR_SHADOW_WAITS,		/* u64 */
	JBD2TUNE_ATTR_SHADOW_WAIT_US,		/* u64 */
	JBD2TUNE_ATTR_SHADOW_WAIT_MAX_US,	/* u64 */
	JBD2TUNE_ATTR_SPACE_WAITS,		/* u64 */
	JBD2TUNE_ATTR_SPACE_WAIT_US,		/* u64 */
	JBD2TUNE_ATTR_SPACE_WAIT_MAX_US,	/* u64 */
	JBD2TUNE_ATTR_LOCKED_WAITS,		/* u64 */
	JBD2TUNE_ATTR_LOCKED_WAIT_US,		/* u64 */
	JBD2TUNE_ATTR_LOCKED_WAIT_MAX_US,	/* u64 */
	JBD2TUNE_ATTR_COPYOUTS_FORCED,		/* u64 */
	JBD2TUNE_ATTR_RECLAIM_RUNS,		/* u64 */
	JBD2TUNE_ATTR_RECLAIM_BLOCKS,		/* u64 */
	JBD2TUNE_ATTR_SHADOW_WAIT_HIST,		/* binary: u64[HIST_BUCKETS] */
	JBD2TUNE_ATTR_SPACE_WAIT_HIST,		/* binary: u64[HIST_BUCKETS] */
	JBD2TUNE_ATTR_LOCKED_WAIT_HIST,		/* binary: u64[HIST_BUCKETS] */
	JBD2TUNE_ATTR_STALL_KIND,		/* u8, enum jbd2tune_stall_kind */
	JBD2TUNE_ATTR_STALL_MAX_US,		/* u64, longest wait since last STALL */
	JBD2TUNE_ATTR_THRESHOLD_BLOCKS,		/* u64, SPACE_LOW: the line crossed */
	JBD2TUNE_ATTR_TIMESTAMP_NS,		/* u64, events: CLOCK_MONOTONIC */
	JBD2TUNE_ATTR_COMMIT_WAITS,		/* u64, tasks' sleeps for a commit */
	JBD2TUNE_ATTR_COMMIT_WAIT_US,		/* u64 */
	JBD2TUNE_ATTR_COMMIT_WAIT_MAX_US,	/* u64 */
	JBD2TUNE_ATTR_COMMIT_WAIT_HIST,		/* binary: u64[HIST_BUCKETS] */
	JBD2TUNE_ATTR_COMMITS,			/* u64, commits finished */
	JBD2TUNE_ATTR_COMMIT_TIME_US,		/* u64, their total duration */
	JBD2TUNE_ATTR_COMMIT_TIME_MAX_US,		/* u64 */
	JBD2TUNE_ATTR_COMMIT_TIME_HIST,		/* binary: u64[HIST_BUCKETS] */
	JBD2TUNE_ATTR_RECLAIM_WATERMARK_MIN_PCT,	/* u8, lowest accepted */
	JBD2TUNE_ATTR_RECLAIM_WATERMARK_MAX_PCT,	/* u8, highest accepted */
	JBD2TUNE_ATTR_COPYOUTS_FORCED_FAILED,	/* u64, forced copies not made */
	JBD2TUNE_ATTR_LOGGED_BLOCKS,		/* u64, blocks commits wrote to the log */
	JBD2TUNE_ATTR_LOCK_DELAY_MAX_MS,	/* u32, 0 or 1..10000 */
	JBD2TUNE_ATTR_LOCK_DELAYS,		/* u64, commits that waited to lock */
	JBD2TUNE_ATTR_LOCK_DELAY_US,		/* u64 */
	JBD2TUNE_ATTR_LOCK_DELAY_MAX_US,	/* u64 */
	JBD2TUNE_ATTR_LOCK_DELAY_HIST,		/* binary: u64[HIST_BUCKETS] */
	JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAITS,	/* u64, jbd2's own commit waits */
	JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAIT_US,	/* u64 */
	JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAIT_MAX_US,	/* u64 */
	JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAIT_HIST,	/* binary: u64[HIST_BUCKETS] */
	JBD2TUNE_ATTR_FORCE_COPY_MAX_KIB,	/* u32, 0..4194304 */
	JBD2TUNE_ATTR_FORCE_COPY_BYTES,		/* u64, forced copies held now */
	JBD2TUNE_ATTR_FORCE_COPY_BYTES_PEAK,	/* u64, the most they held */
	JBD2TUNE_ATTR_FORCE_COPY_STOPS,		/* u64, commits that stopped forcing */
	JBD2TUNE_ATTR_COPYOUTS_FORCED_CAPPED,	/* u64, copies not forced: the cap */
	JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED,	/* u64, shadow waits a copy spared */
	JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_US,	/* u64 */
	JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_MAX_US,	/* u64 */
	JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_HIST,	/* binary: u64[HIST_BUCKETS] */
	JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED_UNTIMED,	/* u64, counted, not timed */
	JBD2TUNE_ATTR_LOCKED_WAITS_AVOIDED,	/* u64, tasks joining in a lock delay */
	JBD2TUNE_ATTR_LOCKED_WAIT_AVOIDED_US,	/* u64 */
	JBD2TUNE_ATTR_LOCKED_WAITS_AVOIDED_UNTIMED,	/* u64, counted, not timed */

	__JBD2TUNE_ATTR_MAX,
	JBD2TUNE_ATTR_MAX = __JBD2TUNE_ATTR_MAX - 1
};

/* JBD2TUNE_ATTR_STALL_KIND: a bit set of the waits seen since the last event */
enum jbd2tune_stall_kind {
	JBD2TUNE_STALL_SHADOW	= 1 << 0,
	JBD2TUNE_STALL_SPACE	= 1 << 1,
};

#endif /* _UAPI_LINUX_JBD2TUNE_H */
