/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jbd2tune.h - private interface of the jbd2-tune additions to jbd2
 *
 * Every journal_t that this module hands out is the first member of a
 * struct jbd2tune_journal, so our per-journal state lives beside the
 * journal and struct journal_s keeps its layout (ext4.ko is built against
 * it).  The hooks declared at the end are the only places where the
 * patched jbd2 sources call into our code.
 *
 * Live journals are kept on a registry (jbd2tune_journals under
 * jbd2tune_lock) so that an interface beside configfs (generic netlink)
 * can walk them and take snapshots with jbd2tune_snapshot().
 */
#ifndef _FS_JBD2_JBD2TUNE_H
#define _FS_JBD2_JBD2TUNE_H

#include <linux/atomic.h>
#include <linux/jbd2.h>
#include <linux/jbd2tune.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

/*
 * Largest reclaim_watermark_pct a module parameter may ask for; a journal
 * accepts only its own range, see jbd2tune_watermark_range().
 */
#define JBD2TUNE_WATERMARK_PCT_MAX	90

/*
 * The lowest accepted watermark lies this share of the journal, in
 * percent, above the foreground threshold (j_max_transaction_buffers):
 * closer to it the work is queued too late to beat the handles to it.
 */
#define JBD2TUNE_WATERMARK_HEADROOM_PCT	5

/*
 * Allocation of a copy made only because of force_copy: an optimisation,
 * so it neither retries hard nor warns; on failure the buffer is logged
 * from its own page, shadowed, as without the knob.
 */
#define JBD2TUNE_FORCED_COPY_GFP	(GFP_NOFS | __GFP_NORETRY | __GFP_NOWARN)

/*
 * Default and largest force_copy_max_kib, the memory a journal's forced
 * copies may hold at once.  16 MiB is 4096 copies of 4 KiB blocks: more
 * than the metadata of a transaction of the 16 MiB journals mke2fs
 * gives small file systems (1/4 or 1/3 of the log), so the cap does not
 * bind there, and on a 2 GiB machine even a dozen journals forcing
 * copies at once hold under 10 % of its memory.  Larger journals (256 MiB
 * and more: transactions of 64 MiB and up, data blocks too with
 * data=journal) are where it binds.  The largest value, 4 GiB, only
 * guards the arithmetic.
 */
#define JBD2TUNE_FORCE_COPY_MAX_KIB_DEFAULT	16384
#define JBD2TUNE_FORCE_COPY_MAX_KIB_MAX		4194304

/*
 * Largest lock_delay_max_ms: two of jbd2's default commit intervals
 * (JBD2_DEFAULT_MAX_COMMIT_AGE, 5 s).  Longer would let one stuck handle
 * hold every fsync for longer than an administrator would guess.
 */
#define JBD2TUNE_LOCK_DELAY_MS_MAX	10000

/**
 * enum jbd2tune_wait_kind - the waits we account
 * @JBD2TUNE_WAIT_SHADOW: do_get_write_access() slept on BH_Shadow
 * @JBD2TUNE_WAIT_SPACE: handle start waited in __jbd2_log_wait_for_space()
 * @JBD2TUNE_WAIT_LOCKED: handle start waited for a locked or switching
 *	running transaction
 * @JBD2TUNE_WAIT_COMMIT_WAIT: a task slept in jbd2_log_wait_commit() for a
 *	transaction to be committed (fsync, sync, a sync handle), or, on a
 *	file system with fast commits, slept in jbd2_fc_begin_commit() behind
 *	a commit or made a fast commit itself: what the file system's users
 *	feel; jbd2's own checkpointing is not counted here
 * @JBD2TUNE_WAIT_COMMIT: one jbd2_journal_commit_transaction(), from its
 *	start to j_commit_sequence being updated (not a task's wait, but
 *	accounted the same way)
 * @JBD2TUNE_WAIT_LOCK_DELAY: a commit waited, the transaction still
 *	running, for the handles open at its start (lock_delay_max_ms;
 *	jbd2tune_lock_delay.c)
 * @JBD2TUNE_WAIT_CHECKPOINT_COMMIT: jbd2 itself slept for a commit while
 *	checkpointing or flushing: jbd2_log_do_checkpoint() (the reclaim
 *	worker, a handle start short of log space, jbd2_journal_flush(),
 *	jbd2_journal_destroy()), __jbd2_log_wait_for_space() and
 *	jbd2_journal_flush() waiting for the committing transaction
 * @JBD2TUNE_WAIT_SHADOW_AVOIDED: not a wait: do_get_write_access() found
 *	a forced copy of a buffer still under log I/O and went on, where it
 *	would have slept on BH_Shadow; timed from that access to the end of
 *	the buffer's log write, at most one per task and commit
 *	(jbd2tune_shadow_avoided.c); no tracepoint, no STALL event
 * @JBD2TUNE_NR_WAITS: number of kinds
 */
enum jbd2tune_wait_kind {
	JBD2TUNE_WAIT_SHADOW,
	JBD2TUNE_WAIT_SPACE,
	JBD2TUNE_WAIT_LOCKED,
	JBD2TUNE_WAIT_COMMIT_WAIT,
	JBD2TUNE_WAIT_COMMIT,
	JBD2TUNE_WAIT_LOCK_DELAY,
	JBD2TUNE_WAIT_CHECKPOINT_COMMIT,
	JBD2TUNE_WAIT_SHADOW_AVOIDED,
	JBD2TUNE_NR_WAITS,
};

/**
 * struct jbd2tune_wait_stat - lock-free accounting of one kind of wait
 * @count: number of waits
 * @total_us: sum of their durations, microseconds
 * @max_us: longest wait, microseconds
 * @hist: bucket i counts waits of [2^i, 2^(i+1)) us; bucket 0 also holds
 *	waits under 1 us, the last bucket everything longer
 */
struct jbd2tune_wait_stat {
	atomic64_t count;
	atomic64_t total_us;
	atomic64_t max_us;
	atomic64_t hist[JBD2TUNE_HIST_BUCKETS];
};

/*
 * Open avoided shadow waits a journal times at once: a stock task sleeps
 * at its first shadowed buffer, so this is the number of tasks that would
 * sleep on one commit at the same time.  Beyond it they are counted, not
 * timed (shadow_waits_avoided_untimed).
 */
#define JBD2TUNE_SHADOW_AVOIDED_SLOTS	64

/**
 * struct jbd2tune_shadow_avoided - one open avoided shadow wait
 * @bh: the shadowed buffer, NULL for a free slot; compared, never
 *	dereferenced
 * @task: the task that went on; compared, never dereferenced
 * @start_ns: CLOCK_MONOTONIC of its access
 * @tid: the committing transaction writing @bh
 */
struct jbd2tune_shadow_avoided {
	const struct buffer_head *bh;
	const struct task_struct *task;
	u64 start_ns;
	tid_t tid;
};

/*
 * Tasks a journal times avoided locked waits for in one lock delay: a
 * stock task sleeps once on T_LOCKED per commit, so this is the number of
 * tasks that would have slept on one lock at the same time.  Beyond it
 * their joins are counted, not timed (locked_waits_avoided_untimed).
 */
#define JBD2TUNE_LOCKED_AVOIDED_SLOTS	64

/**
 * struct jbd2tune_locked_avoided - one task's avoided locked wait
 * @task: the task that joined during the delay; compared, never
 *	dereferenced
 * @start_ns: CLOCK_MONOTONIC of its first join during the delay
 */
struct jbd2tune_locked_avoided {
	const struct task_struct *task;
	u64 start_ns;
};

/* Bits of jbd2tune_journal.flags */
#define JBD2TUNE_RECLAIM_QUEUED		0	/* reclaim_work queued or running */
#define JBD2TUNE_RECLAIM_STOPPED	1	/* journal aborted or going away */
#define JBD2TUNE_RECLAIM_BACKOFF	2	/* last run made no progress */

/**
 * struct jbd2tune_events - netlink event state of a journal
 *	(jbd2tune_netlink_events.c)
 * @flags: JBD2TUNE_EV_* bits
 * @stall_lock: protects @stall_queued, @stall_kinds and @stall_max_us, and
 *	orders queueing the work items with JBD2TUNE_EV_STOPPED
 * @stall_queued: @stall_work is queued and will look at the stalls
 * @stall_kinds: JBD2TUNE_STALL_* bits of the stalls not yet reported
 * @stall_max_us: longest of those stalls, microseconds
 * @stall_sent_ns: CLOCK_MONOTONIC of the last STALL message (its timestamp)
 * @space_low_ns: CLOCK_MONOTONIC when free space last crossed below the line
 *	and a SPACE_LOW was queued
 * @space_work: sends SPACE_LOW
 * @stall_work: sends STALL, at most once per JBD2TUNE_STALL_INTERVAL_MS
 */
struct jbd2tune_events {
	unsigned long flags;
	/* the stall_* fields below; queueing vs. JBD2TUNE_EV_STOPPED */
	spinlock_t stall_lock;
	bool stall_queued;
	unsigned int stall_kinds;
	u64 stall_max_us;
	u64 stall_sent_ns;
	u64 space_low_ns;
	struct work_struct space_work;
	struct delayed_work stall_work;
};

struct jbd2tune_cfs;

/**
 * struct jbd2tune_journal - a journal and the state we keep beside it
 * @journal: the jbd2 journal; must stay the first member
 * @force_copy: 0/1, see jbd2tune_force_copy(); READ_ONCE/WRITE_ONCE
 * @reclaim_watermark_pct: 0 (off) or 1..JBD2TUNE_WATERMARK_PCT_MAX
 * @waits: wait statistics, indexed by enum jbd2tune_wait_kind
 * @copyouts_forced: buffers copied out only because of @force_copy
 * @copyouts_forced_failed: forced copies whose allocation failed (the
 *	buffer was logged shadowed instead)
 * @force_copy_max_kib: knob: at most this much memory, KiB, held by forced
 *	copies at once (JBD2TUNE_FORCE_COPY_MAX_KIB_DEFAULT); READ_ONCE
 * @force_copy_bytes: memory held by the forced copies of the commit
 *	running now, bytes (freed when it ends)
 * @force_copy_bytes_peak: the largest @force_copy_bytes seen
 * @force_copy_stops: commits that stopped forcing copies after a failed
 *	allocation
 * @copyouts_forced_capped: buffers not force-copied because
 *	@force_copy_max_kib was reached
 * @fc_active: the commit thread is inside a commit that forced copies
 *	(commit-thread private, as are @fc_tid, @fc_stopped, @fc_bytes)
 * @fc_tid: that commit's transaction
 * @fc_stopped: an allocation failed in it: force no more copies in it
 * @fc_bytes: bytes its forced copies hold
 * @logged_blocks: blocks the commits wrote to the log (descriptor, data,
 *	revoke and commit blocks: jbd2's rs_blocks_logged)
 * @reclaim_runs: runs of @reclaim_work
 * @reclaim_blocks: log blocks released by the tail moves those runs made
 *	themselves (jbd2tune_tail_moved()); moves by the commit thread or a
 *	foreground checkpoint while a run waited are not counted
 * @reclaim_task: the task running @reclaim_work, NULL between runs; only
 *	that task writes it
 * @reclaim_released: blocks released by the tail moves of @reclaim_task,
 *	written by that task only; the work takes differences of it
 * @reclaim_work: background checkpointing, on jbd2tune_wq
 * @flags: JBD2TUNE_RECLAIM_* bits
 * @backoff_commit: j_commit_sequence when JBD2TUNE_RECLAIM_BACKOFF was set
 * @backoff_tail: j_tail when JBD2TUNE_RECLAIM_BACKOFF was set
 * @node: entry in jbd2tune_journals, under jbd2tune_lock
 * @registered: on jbd2tune_journals (under jbd2tune_lock)
 * @cfs: configfs group of the journal, or NULL
 * @events: netlink event state
 * @lock_early_updates: open handles of the running transaction that started
 *	no later than @lock_delay_from (all of them while no delay is active),
 *	kept only while @lock_counting; jbd2tune_lock_delay.c
 * @lock_counting: handles keep @lock_early_updates; changed only at
 *	T_SWITCH (no handle open) under the write side of j_state_lock, and
 *	true only while @lock_key_held (jbd2tune_lock_delay.c)
 * @lock_key_held: this journal holds a reference on jbd2tune_lock_delay_key
 *	(under @lock_key_mutex; read with acquire at T_SWITCH)
 * @lock_key_mutex: serialises taking and dropping that reference
 * @lock_key_work: drops it once counting is off (queued from T_SWITCH)
 * @lock_delay_active: the commit is waiting for the early handles before
 *	it locks the running transaction (set under the write side of
 *	j_state_lock, read with acquire)
 * @lock_delay_from: jiffies when that wait began
 * @lock_delay_max_ms: 0 (lock at once, as stock) or
 *	1..JBD2TUNE_LOCK_DELAY_MS_MAX, see jbd2tune_lock_delay();
 *	READ_ONCE/WRITE_ONCE
 * @lock_avoid_open: a lock delay is waiting and tasks joining now count
 *	avoided locked waits (changed under the write side of
 *	j_state_lock, read under its read side)
 * @la_slots: the tasks that joined during the current delay, each with
 *	its first join, claimed in order with cmpxchg() by joining handles
 *	(under the read side of j_state_lock) and freed at the delay's end
 *	(under its write side; jbd2tune_lock_delay.c)
 * @locked_waits_avoided: tasks that joined during a lock delay, one per
 *	task and delay
 * @locked_wait_avoided_us: sum over them of the delay's end minus their
 *	first join, microseconds
 * @locked_waits_avoided_untimed: of @locked_waits_avoided, the joins not
 *	timed, all slots being in use (one per join, not per task)
 * @sa_lock: protects @sa_slots (irq-safe: log write completions take it)
 * @sa_open: used slots of @sa_slots
 * @sa_slots: open avoided shadow waits (jbd2tune_shadow_avoided.c)
 * @shadow_waits_avoided_untimed: avoided shadow waits not timed, all
 *	slots being in use (also counted in the wait kind's count)
 * @fast_commit_start_ns: CLOCK_MONOTONIC when the fast commit running now
 *	began (its task set JBD2_FAST_COMMIT_ONGOING), 0 when none runs;
 *	written under the write side of j_state_lock by that task only
 *	(jbd2tune_fast_commit_begin(), jbd2tune_fast_commit_end())
 */
struct jbd2tune_journal {
	journal_t journal;
	int force_copy;
	int reclaim_watermark_pct;
	struct jbd2tune_wait_stat waits[JBD2TUNE_NR_WAITS];
	atomic64_t copyouts_forced;
	atomic64_t copyouts_forced_failed;
	int force_copy_max_kib;
	atomic64_t force_copy_bytes;
	atomic64_t force_copy_bytes_peak;
	atomic64_t force_copy_stops;
	atomic64_t copyouts_forced_capped;
	bool fc_active;
	bool fc_stopped;
	tid_t fc_tid;
	u64 fc_bytes;
	atomic64_t logged_blocks;
	atomic64_t reclaim_runs;
	atomic64_t reclaim_blocks;
	struct task_struct *reclaim_task;
	u64 reclaim_released;
	struct work_struct reclaim_work;
	unsigned long flags;
	tid_t backoff_commit;
	unsigned long backoff_tail;
	struct list_head node;
	bool registered;
	struct jbd2tune_cfs *cfs;
	struct jbd2tune_events events;
	atomic_t lock_early_updates;
	bool lock_counting;
	bool lock_key_held;
	struct mutex lock_key_mutex;	/* lock_key_held, the knob vs. the key */
	struct work_struct lock_key_work;
	bool lock_delay_active;
	unsigned long lock_delay_from;
	int lock_delay_max_ms;
	bool lock_avoid_open;
	struct jbd2tune_locked_avoided la_slots[JBD2TUNE_LOCKED_AVOIDED_SLOTS];
	atomic64_t locked_waits_avoided;
	atomic64_t locked_wait_avoided_us;
	atomic64_t locked_waits_avoided_untimed;
	spinlock_t sa_lock;	/* sa_slots */
	atomic_t sa_open;
	struct jbd2tune_shadow_avoided sa_slots[JBD2TUNE_SHADOW_AVOIDED_SLOTS];
	atomic64_t shadow_waits_avoided_untimed;
	u64 fast_commit_start_ns;
};

/**
 * struct jbd2tune_wait_snapshot - one wait kind copied out of the atomics
 * @count: see struct jbd2tune_wait_stat
 * @total_us: see struct jbd2tune_wait_stat
 * @max_us: see struct jbd2tune_wait_stat
 * @hist: see struct jbd2tune_wait_stat
 */
struct jbd2tune_wait_snapshot {
	u64 count;
	u64 total_us;
	u64 max_us;
	u64 hist[JBD2TUNE_HIST_BUCKETS];
};

/**
 * struct jbd2tune_snapshot - everything we report about one journal
 * @name: j_devname
 * @force_copy: knob
 * @reclaim_watermark_pct: knob
 * @lock_delay_max_ms: knob
 * @reclaim_watermark_min_pct: lowest accepted non-zero watermark
 * @reclaim_watermark_max_pct: highest accepted watermark
 * @log_blocks: journal length, blocks
 * @free_blocks: jbd2_log_space_left(), blocks
 * @max_transaction_blocks: j_max_transaction_buffers, blocks
 * @waits: per wait kind
 * @copyouts_forced: counter
 * @copyouts_forced_failed: counter
 * @reclaim_runs: counter
 * @reclaim_blocks: counter, blocks
 * @logged_blocks: counter, blocks
 * @force_copy_max_kib: knob
 * @force_copy_bytes: forced copies' memory now, bytes
 * @force_copy_bytes_peak: its peak, bytes
 * @force_copy_stops: counter
 * @copyouts_forced_capped: counter
 * @shadow_waits_avoided_untimed: counter
 * @locked_waits_avoided: counter
 * @locked_wait_avoided_us: counter, microseconds
 * @locked_waits_avoided_untimed: counter
 */
struct jbd2tune_snapshot {
	char name[JBD2TUNE_NAME_MAX];
	unsigned int force_copy;
	unsigned int reclaim_watermark_pct;
	unsigned int lock_delay_max_ms;
	unsigned int reclaim_watermark_min_pct;
	unsigned int reclaim_watermark_max_pct;
	u64 log_blocks;
	u64 free_blocks;
	u64 max_transaction_blocks;
	struct jbd2tune_wait_snapshot waits[JBD2TUNE_NR_WAITS];
	u64 copyouts_forced;
	u64 copyouts_forced_failed;
	u64 reclaim_runs;
	u64 reclaim_blocks;
	u64 logged_blocks;
	unsigned int force_copy_max_kib;
	u64 force_copy_bytes;
	u64 force_copy_bytes_peak;
	u64 force_copy_stops;
	u64 copyouts_forced_capped;
	u64 shadow_waits_avoided_untimed;
	u64 locked_waits_avoided;
	u64 locked_wait_avoided_us;
	u64 locked_waits_avoided_untimed;
};

/**
 * jbd2tune_of() - our state of a journal
 * @journal: a journal allocated by jbd2tune_journal_alloc() (all are)
 *
 * Return: the struct jbd2tune_journal that embeds @journal.
 */
static inline struct jbd2tune_journal *jbd2tune_of(journal_t *journal)
{
	return container_of(journal, struct jbd2tune_journal, journal);
}

/* jbd2tune_journal.c: registry of live journals */
extern struct mutex jbd2tune_lock;
extern struct list_head jbd2tune_journals;

int jbd2tune_parse_uint(const char *buf, size_t len, unsigned int max,
			unsigned int *val);
int jbd2tune_set_force_copy(struct jbd2tune_journal *jt, unsigned int val);
int jbd2tune_set_reclaim_watermark_pct(struct jbd2tune_journal *jt,
				       unsigned int val);
int jbd2tune_set_lock_delay_max_ms(struct jbd2tune_journal *jt,
				   unsigned int val);
int jbd2tune_set_force_copy_max_kib(struct jbd2tune_journal *jt,
				    unsigned int val);

/* jbd2tune_params.c */
unsigned int jbd2tune_force_copy_default(void);
unsigned int jbd2tune_reclaim_watermark_pct_default(void);
unsigned int jbd2tune_lock_delay_max_ms_default(void);

/**
 * enum jbd2tune_figure - the single u64 figures of a journal
 * @JBD2TUNE_FIG_LOG_BLOCKS: journal length, blocks
 * @JBD2TUNE_FIG_FREE_BLOCKS: jbd2_log_space_left(), blocks
 * @JBD2TUNE_FIG_MAX_TRANSACTION_BLOCKS: j_max_transaction_buffers
 * @JBD2TUNE_FIG_SHADOW_WAITS: shadow wait count
 * @JBD2TUNE_FIG_SHADOW_WAIT_US: shadow wait total, us
 * @JBD2TUNE_FIG_SHADOW_WAIT_MAX_US: longest shadow wait, us
 * @JBD2TUNE_FIG_SPACE_WAITS: space wait count
 * @JBD2TUNE_FIG_SPACE_WAIT_US: space wait total, us
 * @JBD2TUNE_FIG_SPACE_WAIT_MAX_US: longest space wait, us
 * @JBD2TUNE_FIG_LOCKED_WAITS: locked wait count
 * @JBD2TUNE_FIG_LOCKED_WAIT_US: locked wait total, us
 * @JBD2TUNE_FIG_LOCKED_WAIT_MAX_US: longest locked wait, us
 * @JBD2TUNE_FIG_COPYOUTS_FORCED: forced copy-outs
 * @JBD2TUNE_FIG_RECLAIM_RUNS: background reclaim runs
 * @JBD2TUNE_FIG_RECLAIM_BLOCKS: log blocks released by background reclaim
 * @JBD2TUNE_FIG_COMMIT_WAITS: commit wait count
 * @JBD2TUNE_FIG_COMMIT_WAIT_US: commit wait total, us
 * @JBD2TUNE_FIG_COMMIT_WAIT_MAX_US: longest commit wait, us
 * @JBD2TUNE_FIG_COMMITS: commits
 * @JBD2TUNE_FIG_COMMIT_TIME_US: their total duration, us
 * @JBD2TUNE_FIG_COMMIT_TIME_MAX_US: longest commit, us
 * @JBD2TUNE_FIG_COPYOUTS_FORCED_FAILED: forced copies not made (no memory)
 * @JBD2TUNE_FIG_RECLAIM_WATERMARK_MIN_PCT: see jbd2tune_watermark_range()
 * @JBD2TUNE_FIG_RECLAIM_WATERMARK_MAX_PCT: see jbd2tune_watermark_range()
 * @JBD2TUNE_FIG_LOGGED_BLOCKS: blocks written to the log by commits
 * @JBD2TUNE_FIG_LOCK_DELAYS: commits that waited before locking
 * @JBD2TUNE_FIG_LOCK_DELAY_US: their total wait, us
 * @JBD2TUNE_FIG_LOCK_DELAY_MAX_US: longest such wait, us
 * @JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAITS: checkpoint/flush commit wait count
 * @JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAIT_US: their total, us
 * @JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAIT_MAX_US: longest of them, us
 * @JBD2TUNE_FIG_FORCE_COPY_BYTES: memory held by forced copies now, bytes
 * @JBD2TUNE_FIG_FORCE_COPY_BYTES_PEAK: the most it held, bytes
 * @JBD2TUNE_FIG_FORCE_COPY_STOPS: commits that stopped forcing copies
 * @JBD2TUNE_FIG_COPYOUTS_FORCED_CAPPED: copies not forced (the cap)
 * @JBD2TUNE_FIG_SHADOW_WAITS_AVOIDED: avoided shadow wait count
 * @JBD2TUNE_FIG_SHADOW_WAIT_AVOIDED_US: their timed total, us
 * @JBD2TUNE_FIG_SHADOW_WAIT_AVOIDED_MAX_US: the longest of them, us
 * @JBD2TUNE_FIG_SHADOW_WAITS_AVOIDED_UNTIMED: those not timed
 * @JBD2TUNE_FIG_LOCKED_WAITS_AVOIDED: tasks that joined during a delay
 * @JBD2TUNE_FIG_LOCKED_WAIT_AVOIDED_US: the locked waits they avoided, us
 * @JBD2TUNE_FIG_LOCKED_WAITS_AVOIDED_UNTIMED: joins counted, not timed
 */
enum jbd2tune_figure {
	JBD2TUNE_FIG_LOG_BLOCKS,
	JBD2TUNE_FIG_FREE_BLOCKS,
	JBD2TUNE_FIG_MAX_TRANSACTION_BLOCKS,
	JBD2TUNE_FIG_SHADOW_WAITS,
	JBD2TUNE_FIG_SHADOW_WAIT_US,
	JBD2TUNE_FIG_SHADOW_WAIT_MAX_US,
	JBD2TUNE_FIG_SPACE_WAITS,
	JBD2TUNE_FIG_SPACE_WAIT_US,
	JBD2TUNE_FIG_SPACE_WAIT_MAX_US,
	JBD2TUNE_FIG_LOCKED_WAITS,
	JBD2TUNE_FIG_LOCKED_WAIT_US,
	JBD2TUNE_FIG_LOCKED_WAIT_MAX_US,
	JBD2TUNE_FIG_COPYOUTS_FORCED,
	JBD2TUNE_FIG_RECLAIM_RUNS,
	JBD2TUNE_FIG_RECLAIM_BLOCKS,
	JBD2TUNE_FIG_COMMIT_WAITS,
	JBD2TUNE_FIG_COMMIT_WAIT_US,
	JBD2TUNE_FIG_COMMIT_WAIT_MAX_US,
	JBD2TUNE_FIG_COMMITS,
	JBD2TUNE_FIG_COMMIT_TIME_US,
	JBD2TUNE_FIG_COMMIT_TIME_MAX_US,
	JBD2TUNE_FIG_COPYOUTS_FORCED_FAILED,
	JBD2TUNE_FIG_RECLAIM_WATERMARK_MIN_PCT,
	JBD2TUNE_FIG_RECLAIM_WATERMARK_MAX_PCT,
	JBD2TUNE_FIG_LOGGED_BLOCKS,
	JBD2TUNE_FIG_LOCK_DELAYS,
	JBD2TUNE_FIG_LOCK_DELAY_US,
	JBD2TUNE_FIG_LOCK_DELAY_MAX_US,
	JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAITS,
	JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAIT_US,
	JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAIT_MAX_US,
	JBD2TUNE_FIG_FORCE_COPY_BYTES,
	JBD2TUNE_FIG_FORCE_COPY_BYTES_PEAK,
	JBD2TUNE_FIG_FORCE_COPY_STOPS,
	JBD2TUNE_FIG_COPYOUTS_FORCED_CAPPED,
	JBD2TUNE_FIG_SHADOW_WAITS_AVOIDED,
	JBD2TUNE_FIG_SHADOW_WAIT_AVOIDED_US,
	JBD2TUNE_FIG_SHADOW_WAIT_AVOIDED_MAX_US,
	JBD2TUNE_FIG_SHADOW_WAITS_AVOIDED_UNTIMED,
	JBD2TUNE_FIG_LOCKED_WAITS_AVOIDED,
	JBD2TUNE_FIG_LOCKED_WAIT_AVOIDED_US,
	JBD2TUNE_FIG_LOCKED_WAITS_AVOIDED_UNTIMED,
};

/* jbd2tune_stats.c */
u64 jbd2tune_free_blocks(journal_t *journal);
u64 jbd2tune_figure(struct jbd2tune_journal *jt, enum jbd2tune_figure fig);
unsigned int jbd2tune_hist_bucket(u64 us);
void jbd2tune_wait_account(struct jbd2tune_journal *jt,
			   enum jbd2tune_wait_kind kind, u64 us);
void jbd2tune_snapshot(struct jbd2tune_journal *jt,
		       struct jbd2tune_snapshot *snap);
void jbd2tune_wait_snapshot(struct jbd2tune_journal *jt,
			    enum jbd2tune_wait_kind kind,
			    struct jbd2tune_wait_snapshot *ws);

/* jbd2tune_trace.c */
void jbd2tune_trace_wait(journal_t *journal, enum jbd2tune_wait_kind kind,
			 u64 duration_us);

/* jbd2tune_reclaim.c */
int jbd2tune_reclaim_init(void);
void jbd2tune_reclaim_exit(void);
void jbd2tune_reclaim_setup(struct jbd2tune_journal *jt);
void jbd2tune_reclaim_stop(struct jbd2tune_journal *jt, bool sync);
void jbd2tune_watermark_range(journal_t *journal, unsigned int *min_pct,
			      unsigned int *max_pct);
u64 jbd2tune_watermark_blocks(journal_t *journal, unsigned int pct);

/**
 * struct jbd2tune_event - what a multicast event adds to the journal's record
 * @cmd: JBD2TUNE_CMD_JOURNAL_ADD, _JOURNAL_REMOVE, _SPACE_LOW or _STALL
 * @stall_kind: STALL: JBD2TUNE_STALL_* bits
 * @stall_max_us: STALL: longest wait since the previous STALL
 * @threshold_blocks: SPACE_LOW: the free-space line that was crossed
 * @timestamp_ns: CLOCK_MONOTONIC when the event happened (for STALL: when
 *	the work decided to send it)
 */
struct jbd2tune_event {
	u8 cmd;
	u8 stall_kind;
	u64 stall_max_us;
	u64 threshold_blocks;
	u64 timestamp_ns;
};

/* jbd2tune_netlink.c */
int jbd2tune_netlink_init(void);
void jbd2tune_netlink_exit(void);
void jbd2tune_nl_registry_changed(void);
void jbd2tune_nl_notify(struct jbd2tune_journal *jt,
			const struct jbd2tune_event *ev);

/* jbd2tune_netlink_events.c */
void jbd2tune_events_setup(struct jbd2tune_journal *jt);
void jbd2tune_events_add(struct jbd2tune_journal *jt);
void jbd2tune_events_remove(struct jbd2tune_journal *jt);
void jbd2tune_events_space(struct jbd2tune_journal *jt, u64 free_blocks,
			   u64 watermark_blocks);
void jbd2tune_events_wait(journal_t *journal, enum jbd2tune_wait_kind kind,
			  u64 us);

/* jbd2tune_configfs.c */
int jbd2tune_configfs_init(void);
void jbd2tune_configfs_exit(void);
void jbd2tune_configfs_add(struct jbd2tune_journal *jt);
void jbd2tune_configfs_remove(struct jbd2tune_journal *jt);

/*
 * Hooks called from the patched jbd2 sources.
 */
int jbd2tune_init(void);
void jbd2tune_exit(void);
journal_t *jbd2tune_journal_alloc(void);
void jbd2tune_journal_free(journal_t *journal);
void jbd2tune_journal_register(journal_t *journal);
void jbd2tune_journal_unregister(journal_t *journal);
void jbd2tune_journal_aborted(journal_t *journal);
void jbd2tune_wait_done(journal_t *journal, enum jbd2tune_wait_kind kind,
			u64 start_ns);
u64 jbd2tune_sleep_for_commit(journal_t *journal, tid_t tid, u64 start_ns);
void jbd2tune_tail_moved(journal_t *journal, unsigned long freed_blocks);
void jbd2tune_handle_start(journal_t *journal);
void jbd2tune_handle_joined_slow(journal_t *journal,
				 unsigned long start_jiffies);
void jbd2tune_handle_leaving_slow(journal_t *journal,
				  unsigned long start_jiffies);
void jbd2tune_lock_delay(journal_t *journal);
void jbd2tune_lock_delay_done(journal_t *journal);

/* fs/jbd2/journal.c (commit-wait-callers.patch, fc-commit-waits.patch) */
int jbd2tune_log_wait_commit_from(journal_t *journal, tid_t tid,
				  enum jbd2tune_wait_kind kind, u64 wait_start);
int jbd2tune_complete_transaction(journal_t *journal, tid_t tid,
				  u64 wait_start);

/**
 * jbd2tune_log_wait_commit() - jbd2_log_wait_commit() accounted as @kind
 * @journal: the journal
 * @tid: the transaction to wait for
 * @kind: JBD2TUNE_WAIT_COMMIT_WAIT for the tasks that want a commit,
 *	JBD2TUNE_WAIT_CHECKPOINT_COMMIT for jbd2's own checkpointing and
 *	flushing
 *
 * The wait is accounted from the task's first sleep, and only if it slept.
 *
 * Return: 0, or -EIO if the journal is aborted.
 */
static inline int jbd2tune_log_wait_commit(journal_t *journal, tid_t tid,
					   enum jbd2tune_wait_kind kind)
{
	return jbd2tune_log_wait_commit_from(journal, tid, kind, 0);
}

/**
 * jbd2tune_wait_begin() - timestamp for jbd2tune_wait_done()
 *
 * Return: monotonic time, nanoseconds.
 */
static inline u64 jbd2tune_wait_begin(void)
{
	return ktime_get_ns();
}

/**
 * jbd2tune_fast_commit_begin() - a task starts a fast commit
 * @journal: the journal
 *
 * Called by jbd2_fc_begin_commit() under the write side of j_state_lock,
 * where the task sets JBD2_FAST_COMMIT_ONGOING: it will write the fast
 * commit blocks itself (ext4_fc_commit()) and end with jbd2_fc_end_commit()
 * or jbd2_fc_end_commit_fallback().  The flag lets one fast commit run at
 * a time, so one start time per journal is enough.
 */
static inline void jbd2tune_fast_commit_begin(journal_t *journal)
{
	jbd2tune_of(journal)->fast_commit_start_ns = jbd2tune_wait_begin();
}

/**
 * jbd2tune_fast_commit_end() - the fast commit running now ends
 * @journal: the journal
 *
 * Called by __jbd2_fc_end_commit() under the write side of j_state_lock,
 * before it clears JBD2_FAST_COMMIT_ONGOING, by the task that began it.
 *
 * Return: when it began, for the caller to account its commit wait; 0 if
 * no start was noted.
 */
static inline u64 jbd2tune_fast_commit_end(journal_t *journal)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	u64 start_ns = jt->fast_commit_start_ns;

	jt->fast_commit_start_ns = 0;
	return start_ns;
}

/* jbd2tune_lock_delay.c */
DECLARE_STATIC_KEY_FALSE(jbd2tune_lock_delay_key);
void jbd2tune_lock_delay_setup(struct jbd2tune_journal *jt);
void jbd2tune_lock_delay_teardown(struct jbd2tune_journal *jt);
void jbd2tune_lock_delay_kick(struct jbd2tune_journal *jt);
void jbd2tune_lock_delay_idle_off(struct jbd2tune_journal *jt);

/**
 * jbd2tune_handle_joined() - a handle joined the running transaction
 * @journal: its journal
 * @start_jiffies: the handle's h_start_jiffies
 *
 * Called by start_this_handle() under the read side of j_state_lock,
 * after h_start_jiffies is set and before the handle can stop.  While no
 * journal has lock_delay_max_ms set, jbd2tune_lock_delay_key is off and
 * this is a no-op jump: no atomic, no load of ours.
 */
static inline void jbd2tune_handle_joined(journal_t *journal,
					  unsigned long start_jiffies)
{
	if (static_branch_unlikely(&jbd2tune_lock_delay_key))
		jbd2tune_handle_joined_slow(journal, start_jiffies);
}

/**
 * jbd2tune_handle_leaving() - a handle is about to stop
 * @journal: its journal
 * @start_jiffies: the handle's h_start_jiffies
 *
 * Called by stop_this_handle() before it drops t_updates; no locks
 * needed.  A no-op jump while jbd2tune_lock_delay_key is off.
 */
static inline void jbd2tune_handle_leaving(journal_t *journal,
					   unsigned long start_jiffies)
{
	if (static_branch_unlikely(&jbd2tune_lock_delay_key))
		jbd2tune_handle_leaving_slow(journal, start_jiffies);
}

/**
 * jbd2tune_lock_delay_active() - is a commit waiting for the early handles?
 * @journal: the journal
 *
 * Called by jbd2_journal_extend() under the read side of j_state_lock;
 * the flag is set and cleared under its write side (jbd2tune_lock_delay(),
 * jbd2tune_lock_delay_done()).  An extend refused here makes ext4's long
 * operations restart their handle, as at T_LOCKED.
 *
 * Return: true while the running transaction's commit is in its lock delay.
 */
static inline bool jbd2tune_lock_delay_active(journal_t *journal)
{
	return static_branch_unlikely(&jbd2tune_lock_delay_key) &&
	       READ_ONCE(jbd2tune_of(journal)->lock_delay_active);
}

/* jbd2tune_shadow_avoided.c */
extern atomic_t jbd2tune_shadow_avoided_open;
void jbd2tune_shadow_avoided_setup(struct jbd2tune_journal *jt);
void jbd2tune_shadow_avoided_teardown(struct jbd2tune_journal *jt);
void jbd2tune_shadow_avoided(journal_t *journal, struct buffer_head *bh,
			     tid_t tid);
void jbd2tune_shadow_io_done_slow(struct buffer_head *orig_bh);
void jbd2tune_shadow_avoided_commit_done(journal_t *journal);

/**
 * jbd2tune_shadow_access() - a handle found a frozen copy of a buffer
 * @journal: the handle's journal
 * @jh: the buffer's journal head; its b_transaction is the committing
 *	transaction
 * @bh: the buffer
 *
 * Called by do_get_write_access() with jh->b_state_lock held, where it
 * finds jh->b_frozen_data and goes on.  With force_copy on and the buffer
 * still BH_Shadow (its log write not done), the task would have slept
 * there without the copy: jbd2tune_shadow_avoided() counts and times it.
 * Otherwise one load of the knob.
 */
static inline void jbd2tune_shadow_access(journal_t *journal,
					  struct journal_head *jh,
					  struct buffer_head *bh)
{
	if (READ_ONCE(jbd2tune_of(journal)->force_copy) && buffer_shadow(bh))
		jbd2tune_shadow_avoided(journal, bh, jh->b_transaction->t_tid);
}

/**
 * jbd2tune_shadow_io_done() - the log write of a shadowed buffer completed
 * @orig_bh: the buffer (the log buffer's b_private)
 *
 * Called by journal_end_buffer_io_sync(), possibly in interrupt context,
 * after BH_Shadow of @orig_bh is cleared and before the log buffer is
 * unlocked (so the commit still holds @orig_bh on its shadow list).  Ends
 * the open avoided shadow waits of @orig_bh; with none open anywhere, one
 * atomic read.
 */
static inline void jbd2tune_shadow_io_done(struct buffer_head *orig_bh)
{
	if (atomic_read(&jbd2tune_shadow_avoided_open))
		jbd2tune_shadow_io_done_slow(orig_bh);
}

bool jbd2tune_force_copy_allowed(journal_t *journal, tid_t tid,
				 size_t size);
void jbd2tune_count_forced_copyout(journal_t *journal, size_t size);
void jbd2tune_count_forced_copyout_failed(journal_t *journal);
void jbd2tune_force_copy_commit_done(journal_t *journal);

/**
 * jbd2tune_force_copy() - should the commit copy this buffer out?
 * @journal: the journal being committed
 * @transaction: the committing transaction
 * @size: the buffer's size, bytes
 *
 * Called by jbd2_journal_write_metadata_buffer(), i.e. by the one task
 * that commits, without locks of ours.
 *
 * Return: true when the journal's force_copy knob is 1, no forced copy
 * of this commit failed yet and the copy fits force_copy_max_kib
 * (jbd2tune_copyout.c).
 */
static inline bool jbd2tune_force_copy(journal_t *journal,
				       transaction_t *transaction, size_t size)
{
	if (!READ_ONCE(jbd2tune_of(journal)->force_copy))
		return false;
	return jbd2tune_force_copy_allowed(journal, transaction->t_tid, size);
}

/**
 * jbd2tune_commit_done() - account one finished commit
 * @journal: the journal committed
 * @start_ns: jbd2tune_wait_begin() taken when the commit started
 * @logged_blocks: blocks the commit wrote to the log (rs_blocks_logged)
 *
 * Called by the commit thread once j_commit_sequence is set; lock-free
 * but for the sweep of avoided shadow waits left open.  The commit's
 * forced copies are freed by now.
 */
static inline void jbd2tune_commit_done(journal_t *journal, u64 start_ns,
					unsigned long logged_blocks)
{
	atomic64_add(logged_blocks, &jbd2tune_of(journal)->logged_blocks);
	jbd2tune_force_copy_commit_done(journal);
	jbd2tune_shadow_avoided_commit_done(journal);
	jbd2tune_wait_done(journal, JBD2TUNE_WAIT_COMMIT, start_ns);
}

#endif /* _FS_JBD2_JBD2TUNE_H */
