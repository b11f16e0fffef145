// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_reclaim.c - asynchronous log-space reclaim
 *
 * Without it a journal's log space is only reclaimed when a handle start
 * finds less than j_max_transaction_buffers free and checkpoints in the
 * foreground (__jbd2_log_wait_for_space()): every task starting a handle
 * then waits for that checkpoint.  With reclaim_watermark_pct set, the
 * first handle start that sees free space below the watermark queues the
 * journal's work item, which checkpoints in the background until free
 * space is back at the watermark, so the foreground wait is rarely
 * reached.  It stays as the last resort, unchanged.  Only watermarks
 * between the foreground threshold and what free space can reach are
 * accepted (jbd2tune_watermark_range()), and a run that finds nothing to
 * release is not repeated until a commit or a tail move changes that.
 */

#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>

#include "jbd2tune.h"

/* Module-wide; WQ_MEM_RECLAIM because checkpointing frees memory too. */
static struct workqueue_struct *jbd2tune_wq;

/*
 * jbd2_log_space_left() keeps this many blocks back "for rounding errors",
 * so free space never reads above (log length - 32).
 */
#define JBD2TUNE_SPACE_LEFT_SLACK	32

/**
 * jbd2tune_watermark_range() - the reclaim watermarks a journal accepts
 * @journal: the journal
 * @min_pct: result: lowest accepted non-zero reclaim_watermark_pct
 * @max_pct: result: highest accepted reclaim_watermark_pct
 *
 * A handle start checkpoints in the foreground when free log space is
 * below j_max_transaction_buffers (the "foreground threshold": a quarter
 * of the journal on 6.1, a third on 6.12).  A watermark at or just above
 * it queues the work only when handles are about to wait anyway, so the
 * lowest one accepted is the threshold plus JBD2TUNE_WATERMARK_HEADROOM_PCT
 * of the journal, rounded up.  Free space cannot exceed the log
 * (j_last - j_first) less the committing transaction's credits (up to the
 * threshold) and JBD2TUNE_SPACE_LEFT_SLACK, so a watermark above that is
 * never reached and the work would find nothing to checkpoint: the
 * highest accepted one is that reach, rounded down, and at most
 * JBD2TUNE_WATERMARK_PCT_MAX.  Worked figures (4096-block journal, no fast
 * commit area): 6.1 threshold 1024 -> 30..74; 6.12 threshold 1365 ->
 * 39..65.  Both results are 0 when the journal is not loaded yet or too
 * small for any watermark to be useful.
 *
 * Lock-free: reads a few journal fields that change only at load time.
 */
void jbd2tune_watermark_range(journal_t *journal, unsigned int *min_pct,
			      unsigned int *max_pct)
{
	u64 total = journal->j_total_len;
	u64 fg = READ_ONCE(journal->j_max_transaction_buffers);
	s64 reach = (s64)journal->j_last - journal->j_first - fg -
		    JBD2TUNE_SPACE_LEFT_SLACK;
	unsigned int lo, hi;

	*min_pct = 0;
	*max_pct = 0;
	if (!total || !fg || !journal->j_last || reach <= 0)
		return;
	lo = DIV_ROUND_UP_ULL(fg * 100, total) + JBD2TUNE_WATERMARK_HEADROOM_PCT;
	hi = min_t(u64, div_u64((u64)reach * 100, total),
		   JBD2TUNE_WATERMARK_PCT_MAX);
	if (lo > hi)
		return;
	*min_pct = lo;
	*max_pct = hi;
}

/**
 * jbd2tune_watermark_blocks() - free-space line of a reclaim watermark
 * @journal: the journal
 * @pct: reclaim_watermark_pct, non-zero
 *
 * A knob written through configfs is always inside the journal's range;
 * a module-parameter default was set before the journal was loaded, so
 * it is clamped into the range here.
 *
 * Return: the watermark in blocks of free log space, 0 if the journal
 * accepts no watermark.
 */
u64 jbd2tune_watermark_blocks(journal_t *journal, unsigned int pct)
{
	unsigned int lo, hi;

	jbd2tune_watermark_range(journal, &lo, &hi);
	if (!hi)
		return 0;
	pct = clamp(pct, lo, hi);
	return div_u64((u64)journal->j_total_len * pct, 100);
}

static bool jbd2tune_have_checkpoint(journal_t *journal)
{
	bool ret;

	spin_lock(&journal->j_list_lock);
	ret = !!journal->j_checkpoint_transactions;
	spin_unlock(&journal->j_list_lock);
	return ret;
}

/**
 * jbd2tune_tail_moved() - the log tail moved forward
 * @journal: the journal
 * @freed_blocks: blocks the move released
 *
 * Called by __jbd2_update_log_tail() with j_checkpoint_mutex held, after
 * the new tail is on disk, whoever moved it (the commit thread, a handle
 * start short of space, jbd2_journal_flush(), the reclaim work).  Only the
 * reclaim work's own moves are credited to it: j_checkpoint_mutex is
 * dropped inside jbd2_log_do_checkpoint() while it waits for a commit, and
 * others may move the tail meanwhile.  Lock-free: reclaim_task equals
 * current only in the work itself, which alone writes reclaim_released.
 */
void jbd2tune_tail_moved(journal_t *journal, unsigned long freed_blocks)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	if (READ_ONCE(jt->reclaim_task) == current)
		jt->reclaim_released += freed_blocks;
}

/*
 * Remember where the journal stood when a run gave up: jbd2tune_handle_start()
 * queues no new run until a commit has finished or the tail has moved.
 */
static void jbd2tune_reclaim_backoff(struct jbd2tune_journal *jt, bool on)
{
	journal_t *journal = &jt->journal;

	if (!on) {
		clear_bit(JBD2TUNE_RECLAIM_BACKOFF, &jt->flags);
		return;
	}
	write_lock(&journal->j_state_lock);
	jt->backoff_commit = journal->j_commit_sequence;
	jt->backoff_tail = journal->j_tail;
	set_bit(JBD2TUNE_RECLAIM_BACKOFF, &jt->flags);
	write_unlock(&journal->j_state_lock);
}

/*
 * Checkpoint the way __jbd2_log_wait_for_space() does, one transaction per
 * iteration, taking j_checkpoint_mutex for each iteration only (the
 * commit thread needs it to move the tail), with no spinlock held across
 * jbd2_log_do_checkpoint() (which drops the mutex itself when it has to
 * wait for a commit, so the commit thread or a handle start may move the
 * tail in the middle of an iteration).  What an iteration released is
 * what the tail moves made by this work itself released
 * (jbd2tune_tail_moved()): that is what reclaim_blocks counts and what the
 * back-off looks at.  The loop ends once free space reaches the
 * watermark; when nothing is left to checkpoint, or two iterations in a
 * row release nothing, it backs off (see jbd2tune_reclaim_backoff()).
 */
static void jbd2tune_reclaim_work(struct work_struct *work)
{
	struct jbd2tune_journal *jt =
		container_of(work, struct jbd2tune_journal, reclaim_work);
	journal_t *journal = &jt->journal;
	bool backoff = false;
	unsigned int pct;
	int stuck = 0;
	u64 before, released;
	int err;

	atomic64_inc(&jt->reclaim_runs);
	WRITE_ONCE(jt->reclaim_task, current);
	for (;;) {
		pct = READ_ONCE(jt->reclaim_watermark_pct);
		if (!pct || jbd2tune_free_blocks(journal) >=
			    jbd2tune_watermark_blocks(journal, pct))
			break;
		if (test_bit(JBD2TUNE_RECLAIM_STOPPED, &jt->flags) ||
		    is_journal_aborted(journal))
			break;
		mutex_lock_io(&journal->j_checkpoint_mutex);
		before = jt->reclaim_released;
		if (!jbd2tune_have_checkpoint(journal)) {
			jbd2_cleanup_journal_tail(journal);
			err = 1;
		} else {
			err = jbd2_log_do_checkpoint(journal);
		}
		released = jt->reclaim_released - before;
		mutex_unlock(&journal->j_checkpoint_mutex);
		if (released)
			atomic64_add(released, &jt->reclaim_blocks);
		if (err < 0)
			break;
		if (err > 0 && !released) {
			/* nothing to checkpoint: only a commit can help */
			backoff = true;
			break;
		}
		stuck = released ? 0 : stuck + 1;
		if (stuck >= 2) {
			backoff = true;
			break;
		}
		cond_resched();
	}
	WRITE_ONCE(jt->reclaim_task, NULL);
	jbd2tune_reclaim_backoff(jt, backoff);

	/* Let the next handle start that sees low space queue us again. */
	clear_bit_unlock(JBD2TUNE_RECLAIM_QUEUED, &jt->flags);
}

/**
 * jbd2tune_handle_start() - queue background reclaim when space is low
 * @journal: the journal a handle is being started on
 *
 * Called from add_transaction_credits() with j_state_lock held for
 * reading.  Computes free space and the watermark once for both checks;
 * with reclaim off that is one READ_ONCE() and jbd2_log_space_left(), as
 * before (the SPACE_LOW check needs it anyway).  Queues the journal's work
 * item at most once at a time, and not again after a run that made no
 * progress until a commit has finished or the log tail has moved.
 */
void jbd2tune_handle_start(journal_t *journal)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	unsigned int pct = READ_ONCE(jt->reclaim_watermark_pct);
	u64 wm = pct ? jbd2tune_watermark_blocks(journal, pct) : 0;
	u64 free = jbd2_log_space_left(journal);

	jbd2tune_events_space(jt, free, wm);
	if (!wm || free >= wm)
		return;
	if (test_bit(JBD2TUNE_RECLAIM_BACKOFF, &jt->flags) &&
	    jt->backoff_commit == journal->j_commit_sequence &&
	    jt->backoff_tail == journal->j_tail)
		return;
	if (test_bit(JBD2TUNE_RECLAIM_STOPPED, &jt->flags) ||
	    test_and_set_bit_lock(JBD2TUNE_RECLAIM_QUEUED, &jt->flags))
		return;
	queue_work(jbd2tune_wq, &jt->reclaim_work);
}

/**
 * jbd2tune_reclaim_setup() - initialise a new journal's reclaim state
 * @jt: the journal, not yet visible to anyone
 */
void jbd2tune_reclaim_setup(struct jbd2tune_journal *jt)
{
	INIT_WORK(&jt->reclaim_work, jbd2tune_reclaim_work);
}

/**
 * jbd2tune_reclaim_stop() - stop background reclaim of a journal for good
 * @jt: the journal
 * @sync: wait for a running work item (may sleep); false from the abort
 *	path, which may run inside the work item
 */
void jbd2tune_reclaim_stop(struct jbd2tune_journal *jt, bool sync)
{
	set_bit(JBD2TUNE_RECLAIM_STOPPED, &jt->flags);
	if (sync)
		cancel_work_sync(&jt->reclaim_work);
	else
		cancel_work(&jt->reclaim_work);
}

/**
 * jbd2tune_reclaim_init() - create the module-wide reclaim workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int jbd2tune_reclaim_init(void)
{
	jbd2tune_wq = alloc_workqueue("jbd2tune-reclaim",
				      WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return jbd2tune_wq ? 0 : -ENOMEM;
}

/**
 * jbd2tune_reclaim_exit() - destroy the reclaim workqueue
 *
 * All journals are gone, so no work item is left.
 */
void jbd2tune_reclaim_exit(void)
{
	destroy_workqueue(jbd2tune_wq);
}
