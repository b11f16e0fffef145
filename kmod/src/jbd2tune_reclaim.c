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
 * reached.  It stays as the last resort, unchanged.
 */

#include <linux/math64.h>
#include <linux/sched.h>

#include "jbd2tune.h"

/* Module-wide; WQ_MEM_RECLAIM because checkpointing frees memory too. */
static struct workqueue_struct *jbd2tune_wq;

static u64 jbd2tune_watermark_blocks(journal_t *journal, unsigned int pct)
{
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

/*
 * Checkpoint the way __jbd2_log_wait_for_space() does: under
 * j_checkpoint_mutex, with no spinlock held across jbd2_log_do_checkpoint()
 * (which drops the mutex itself when it has to wait for a commit).  Every
 * call either moves the log tail or writes back one transaction's buffers,
 * so the loop ends once free space reaches the watermark, nothing is left
 * to checkpoint, or a call brings no progress twice in a row.
 */
static void jbd2tune_reclaim_work(struct work_struct *work)
{
	struct jbd2tune_journal *jt =
		container_of(work, struct jbd2tune_journal, reclaim_work);
	journal_t *journal = &jt->journal;
	u64 start_free, free, prev;
	unsigned int pct;
	int stuck = 0;

	atomic64_inc(&jt->reclaim_runs);
	mutex_lock_io(&journal->j_checkpoint_mutex);
	start_free = jbd2tune_free_blocks(journal);
	free = start_free;
	for (;;) {
		pct = READ_ONCE(jt->reclaim_watermark_pct);
		if (!pct || free >= jbd2tune_watermark_blocks(journal, pct))
			break;
		if (test_bit(JBD2TUNE_RECLAIM_STOPPED, &jt->flags) ||
		    is_journal_aborted(journal))
			break;
		if (!jbd2tune_have_checkpoint(journal)) {
			jbd2_cleanup_journal_tail(journal);
			break;
		}
		if (jbd2_log_do_checkpoint(journal) < 0)
			break;
		prev = free;
		free = jbd2tune_free_blocks(journal);
		if (free <= prev && ++stuck >= 2)
			break;
		if (free > prev)
			stuck = 0;
		cond_resched();
	}
	free = jbd2tune_free_blocks(journal);
	mutex_unlock(&journal->j_checkpoint_mutex);
	if (free > start_free)
		atomic64_add(free - start_free, &jt->reclaim_blocks);

	/* Let the next handle start that sees low space queue us again. */
	clear_bit_unlock(JBD2TUNE_RECLAIM_QUEUED, &jt->flags);
}

/**
 * jbd2tune_handle_start() - queue background reclaim when space is low
 * @journal: the journal a handle is being started on
 *
 * Called from add_transaction_credits() with j_state_lock held for
 * reading.  Costs one READ_ONCE() when reclaim is off (plus the
 * SPACE_LOW check of jbd2tune_events_space()); queues the journal's work
 * item at most once at a time.
 */
void jbd2tune_handle_start(journal_t *journal)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	unsigned int pct = READ_ONCE(jt->reclaim_watermark_pct);

	jbd2tune_events_space(jt, pct);
	if (!pct)
		return;
	if (jbd2_log_space_left(journal) >=
	    jbd2tune_watermark_blocks(journal, pct))
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
