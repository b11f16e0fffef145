// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_stats.c - wait statistics of a journal
 *
 * The waits are accounted with atomics in the journal's own
 * struct jbd2tune_journal: no lock is taken on the handle-start path, and
 * the cache lines touched belong to the journal that just waited (which
 * already took a sleep, so a few atomic adds are noise).
 */

#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "jbd2tune.h"

/**
 * jbd2tune_hist_bucket() - histogram bucket of a wait
 * @us: wait duration, microseconds
 *
 * Return: i such that 2^i <= @us < 2^(i+1); 0 for @us < 2 (including 0),
 * JBD2TUNE_HIST_BUCKETS - 1 for everything from 2^23 us on.
 */
unsigned int jbd2tune_hist_bucket(u64 us)
{
	if (!us)
		return 0;
	return min_t(unsigned int, ilog2(us), JBD2TUNE_HIST_BUCKETS - 1);
}

static void jbd2tune_max_update(atomic64_t *max, u64 v)
{
	s64 old = atomic64_read(max);

	while ((u64)old < v && !atomic64_try_cmpxchg(max, &old, v))
		;
}

/**
 * jbd2tune_wait_account() - add one wait to a kind's statistics
 * @jt: the journal
 * @kind: which wait
 * @us: its duration, microseconds
 *
 * Lock-free, callable in interrupt context; no tracepoint, no event.
 */
void jbd2tune_wait_account(struct jbd2tune_journal *jt,
			   enum jbd2tune_wait_kind kind, u64 us)
{
	struct jbd2tune_wait_stat *ws = &jt->waits[kind];

	atomic64_inc(&ws->hist[jbd2tune_hist_bucket(us)]);
	atomic64_add(us, &ws->total_us);
	jbd2tune_max_update(&ws->max_us, us);
	atomic64_inc(&ws->count);
}

/**
 * jbd2tune_wait_done() - account one finished wait
 * @journal: the journal the task waited on
 * @kind: which wait
 * @start_ns: jbd2tune_wait_begin() taken before the wait
 *
 * Lock-free; may be called with j_state_lock or a buffer's b_state_lock
 * held.  Also fires the wait's tracepoint.
 */
void jbd2tune_wait_done(journal_t *journal, enum jbd2tune_wait_kind kind,
			u64 start_ns)
{
	u64 us = div_u64(ktime_get_ns() - start_ns, NSEC_PER_USEC);

	jbd2tune_wait_account(jbd2tune_of(journal), kind, us);
	jbd2tune_trace_wait(journal, kind, us);
	jbd2tune_events_wait(journal, kind, us);
}

/**
 * jbd2tune_sleep_for_commit() - sleep until a transaction is committed
 * @journal: the journal
 * @tid: the transaction to wait for
 * @start_ns: when the caller's wait began, 0 if it has not slept yet
 *
 * Called by jbd2tune_log_wait_commit() without j_state_lock, in place of
 * the wait_event() on j_wait_done_commit: the same wait, which also
 * notes whether the task went to sleep at all.  Uninterruptible.
 *
 * Return: @start_ns if non-zero, else the time of the first sleep, or 0
 * when the transaction was committed before the task had to sleep.
 */
u64 jbd2tune_sleep_for_commit(journal_t *journal, tid_t tid, u64 start_ns)
{
	DEFINE_WAIT(wait);

	for (;;) {
		prepare_to_wait(&journal->j_wait_done_commit, &wait,
				TASK_UNINTERRUPTIBLE);
		if (!tid_gt(tid, READ_ONCE(journal->j_commit_sequence)))
			break;
		if (!start_ns)
			start_ns = jbd2tune_wait_begin();
		schedule();
	}
	finish_wait(&journal->j_wait_done_commit, &wait);
	return start_ns;
}

/**
 * jbd2tune_free_blocks() - free log space of a journal
 * @journal: the journal
 *
 * Takes j_state_lock for reading; must not be called with it held.
 *
 * Return: jbd2_log_space_left(), blocks.
 */
u64 jbd2tune_free_blocks(journal_t *journal)
{
	unsigned long free;

	read_lock(&journal->j_state_lock);
	free = jbd2_log_space_left(journal);
	read_unlock(&journal->j_state_lock);
	return free;
}

static u64 jbd2tune_wait_figure(struct jbd2tune_journal *jt,
				enum jbd2tune_wait_kind kind, int which)
{
	struct jbd2tune_wait_stat *ws = &jt->waits[kind];

	switch (which) {
	case 0:
		return atomic64_read(&ws->count);
	case 1:
		return atomic64_read(&ws->total_us);
	default:
		return atomic64_read(&ws->max_us);
	}
}

/**
 * jbd2tune_figure() - read one figure of a journal
 * @jt: the journal (registered)
 * @fig: which figure
 *
 * Takes j_state_lock for reading for JBD2TUNE_FIG_FREE_BLOCKS, nothing
 * otherwise.
 *
 * Return: the figure; blocks, microseconds or percent as its name says.
 */
u64 jbd2tune_figure(struct jbd2tune_journal *jt, enum jbd2tune_figure fig)
{
	journal_t *journal = &jt->journal;
	unsigned int lo, hi;

	switch (fig) {
	case JBD2TUNE_FIG_LOG_BLOCKS:
		return journal->j_total_len;
	case JBD2TUNE_FIG_FREE_BLOCKS:
		return jbd2tune_free_blocks(journal);
	case JBD2TUNE_FIG_MAX_TRANSACTION_BLOCKS:
		return READ_ONCE(journal->j_max_transaction_buffers);
	case JBD2TUNE_FIG_SHADOW_WAITS:
	case JBD2TUNE_FIG_SHADOW_WAIT_US:
	case JBD2TUNE_FIG_SHADOW_WAIT_MAX_US:
		return jbd2tune_wait_figure(jt, JBD2TUNE_WAIT_SHADOW,
					    fig - JBD2TUNE_FIG_SHADOW_WAITS);
	case JBD2TUNE_FIG_SPACE_WAITS:
	case JBD2TUNE_FIG_SPACE_WAIT_US:
	case JBD2TUNE_FIG_SPACE_WAIT_MAX_US:
		return jbd2tune_wait_figure(jt, JBD2TUNE_WAIT_SPACE,
					    fig - JBD2TUNE_FIG_SPACE_WAITS);
	case JBD2TUNE_FIG_LOCKED_WAITS:
	case JBD2TUNE_FIG_LOCKED_WAIT_US:
	case JBD2TUNE_FIG_LOCKED_WAIT_MAX_US:
		return jbd2tune_wait_figure(jt, JBD2TUNE_WAIT_LOCKED,
					    fig - JBD2TUNE_FIG_LOCKED_WAITS);
	case JBD2TUNE_FIG_COMMIT_WAITS:
	case JBD2TUNE_FIG_COMMIT_WAIT_US:
	case JBD2TUNE_FIG_COMMIT_WAIT_MAX_US:
		return jbd2tune_wait_figure(jt, JBD2TUNE_WAIT_COMMIT_WAIT,
					    fig - JBD2TUNE_FIG_COMMIT_WAITS);
	case JBD2TUNE_FIG_COMMITS:
	case JBD2TUNE_FIG_COMMIT_TIME_US:
	case JBD2TUNE_FIG_COMMIT_TIME_MAX_US:
		return jbd2tune_wait_figure(jt, JBD2TUNE_WAIT_COMMIT,
					    fig - JBD2TUNE_FIG_COMMITS);
	case JBD2TUNE_FIG_LOCK_DELAYS:
	case JBD2TUNE_FIG_LOCK_DELAY_US:
	case JBD2TUNE_FIG_LOCK_DELAY_MAX_US:
		return jbd2tune_wait_figure(jt, JBD2TUNE_WAIT_LOCK_DELAY,
					    fig - JBD2TUNE_FIG_LOCK_DELAYS);
	case JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAITS:
	case JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAIT_US:
	case JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAIT_MAX_US:
		return jbd2tune_wait_figure(jt, JBD2TUNE_WAIT_CHECKPOINT_COMMIT,
					    fig -
					    JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAITS);
	case JBD2TUNE_FIG_SHADOW_WAITS_AVOIDED:
	case JBD2TUNE_FIG_SHADOW_WAIT_AVOIDED_US:
	case JBD2TUNE_FIG_SHADOW_WAIT_AVOIDED_MAX_US:
		return jbd2tune_wait_figure(jt, JBD2TUNE_WAIT_SHADOW_AVOIDED,
					    fig -
					    JBD2TUNE_FIG_SHADOW_WAITS_AVOIDED);
	case JBD2TUNE_FIG_SHADOW_WAITS_AVOIDED_UNTIMED:
		return atomic64_read(&jt->shadow_waits_avoided_untimed);
	case JBD2TUNE_FIG_LOCKED_WAITS_AVOIDED:
		return atomic64_read(&jt->locked_waits_avoided);
	case JBD2TUNE_FIG_LOCKED_WAIT_AVOIDED_US:
		return atomic64_read(&jt->locked_wait_avoided_us);
	case JBD2TUNE_FIG_LOCKED_WAITS_AVOIDED_UNTIMED:
		return atomic64_read(&jt->locked_waits_avoided_untimed);
	case JBD2TUNE_FIG_COPYOUTS_FORCED_FAILED:
		return atomic64_read(&jt->copyouts_forced_failed);
	case JBD2TUNE_FIG_FORCE_COPY_BYTES:
		return atomic64_read(&jt->force_copy_bytes);
	case JBD2TUNE_FIG_FORCE_COPY_BYTES_PEAK:
		return atomic64_read(&jt->force_copy_bytes_peak);
	case JBD2TUNE_FIG_FORCE_COPY_STOPS:
		return atomic64_read(&jt->force_copy_stops);
	case JBD2TUNE_FIG_COPYOUTS_FORCED_CAPPED:
		return atomic64_read(&jt->copyouts_forced_capped);
	case JBD2TUNE_FIG_RECLAIM_WATERMARK_MIN_PCT:
	case JBD2TUNE_FIG_RECLAIM_WATERMARK_MAX_PCT:
		jbd2tune_watermark_range(journal, &lo, &hi);
		return fig == JBD2TUNE_FIG_RECLAIM_WATERMARK_MIN_PCT ? lo : hi;
	case JBD2TUNE_FIG_COPYOUTS_FORCED:
		return atomic64_read(&jt->copyouts_forced);
	case JBD2TUNE_FIG_RECLAIM_RUNS:
		return atomic64_read(&jt->reclaim_runs);
	case JBD2TUNE_FIG_RECLAIM_BLOCKS:
		return atomic64_read(&jt->reclaim_blocks);
	case JBD2TUNE_FIG_LOGGED_BLOCKS:
		return atomic64_read(&jt->logged_blocks);
	}
	return 0;
}

/**
 * jbd2tune_wait_snapshot() - copy one wait kind's statistics
 * @jt: the journal
 * @kind: which wait
 * @ws: result
 *
 * Lock-free.  The fields are read one by one, so a wait finishing
 * meanwhile may show in some of them only.
 */
void jbd2tune_wait_snapshot(struct jbd2tune_journal *jt,
			    enum jbd2tune_wait_kind kind,
			    struct jbd2tune_wait_snapshot *ws)
{
	struct jbd2tune_wait_stat *s = &jt->waits[kind];
	int i;

	ws->count = atomic64_read(&s->count);
	ws->total_us = atomic64_read(&s->total_us);
	ws->max_us = atomic64_read(&s->max_us);
	for (i = 0; i < JBD2TUNE_HIST_BUCKETS; i++)
		ws->hist[i] = atomic64_read(&s->hist[i]);
}

/**
 * jbd2tune_snapshot() - copy all figures of a journal
 * @jt: the journal (registered: the caller holds jbd2tune_lock or
 *	otherwise keeps it from being destroyed)
 * @snap: result
 *
 * Takes j_state_lock for reading; may not be called with it held.
 */
void jbd2tune_snapshot(struct jbd2tune_journal *jt,
		       struct jbd2tune_snapshot *snap)
{
	int k;

	strscpy(snap->name, jt->journal.j_devname, sizeof(snap->name));
	snap->force_copy = READ_ONCE(jt->force_copy);
	snap->reclaim_watermark_pct = READ_ONCE(jt->reclaim_watermark_pct);
	snap->lock_delay_max_ms = READ_ONCE(jt->lock_delay_max_ms);
	jbd2tune_watermark_range(&jt->journal, &snap->reclaim_watermark_min_pct,
				 &snap->reclaim_watermark_max_pct);
	snap->log_blocks = jbd2tune_figure(jt, JBD2TUNE_FIG_LOG_BLOCKS);
	snap->free_blocks = jbd2tune_figure(jt, JBD2TUNE_FIG_FREE_BLOCKS);
	snap->max_transaction_blocks =
		jbd2tune_figure(jt, JBD2TUNE_FIG_MAX_TRANSACTION_BLOCKS);
	for (k = 0; k < JBD2TUNE_NR_WAITS; k++)
		jbd2tune_wait_snapshot(jt, k, &snap->waits[k]);
	snap->copyouts_forced = atomic64_read(&jt->copyouts_forced);
	snap->copyouts_forced_failed = atomic64_read(&jt->copyouts_forced_failed);
	snap->reclaim_runs = atomic64_read(&jt->reclaim_runs);
	snap->reclaim_blocks = atomic64_read(&jt->reclaim_blocks);
	snap->logged_blocks = atomic64_read(&jt->logged_blocks);
	snap->force_copy_max_kib = READ_ONCE(jt->force_copy_max_kib);
	snap->force_copy_bytes = atomic64_read(&jt->force_copy_bytes);
	snap->force_copy_bytes_peak = atomic64_read(&jt->force_copy_bytes_peak);
	snap->force_copy_stops = atomic64_read(&jt->force_copy_stops);
	snap->copyouts_forced_capped = atomic64_read(&jt->copyouts_forced_capped);
	snap->shadow_waits_avoided_untimed =
		atomic64_read(&jt->shadow_waits_avoided_untimed);
	snap->locked_waits_avoided = atomic64_read(&jt->locked_waits_avoided);
	snap->locked_wait_avoided_us = atomic64_read(&jt->locked_wait_avoided_us);
	snap->locked_waits_avoided_untimed =
		atomic64_read(&jt->locked_waits_avoided_untimed);
}
