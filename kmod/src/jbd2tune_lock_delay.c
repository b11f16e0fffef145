// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_lock_delay.c - let the commit lock the running transaction
 * only once the handles open at commit start have stopped
 *
 * jbd2_journal_commit_transaction() sets T_LOCKED and then waits for the
 * transaction's handles to stop; every handle that starts meanwhile sleeps
 * in wait_transaction_locked().  When one open handle sleeps for long
 * (ext4 writeback holds its handle while it submits an extent's pages, and
 * blk-wbt can throttle that submission for seconds: bench/tail, issue 14)
 * every writer of the file system waits with it.
 *
 * With the journal's lock_delay_max_ms > 0 the commit first waits, the
 * transaction still T_RUNNING, for the handles that were open when it
 * started (the "early" handles: started no later than the jiffy the delay
 * began), at most lock_delay_max_ms; then it locks as before and waits
 * for the handles that joined meanwhile.  Nothing that the commit writes
 * changes: it still writes the transaction only after every handle of it
 * has stopped, so a handle's changes stay within one transaction.  The
 * cost: the commit, and every fsync waiting for it, also waits for the
 * late handles still open when it locks (Documentation/kmod-maintainer.md,
 * "Lock later").
 *
 * Telling early handles from late ones needs no field of handle_t (ext4 is
 * built against its layout): h_start_jiffies is set under the read side of
 * j_state_lock in start_this_handle(), and the delay's start jiffy is set
 * under the write side, so start and stop classify a handle alike.  The
 * count of open early handles is kept per journal: between commits every
 * open handle is early, and at T_SWITCH none is open.
 */

#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "jbd2tune.h"

static bool jbd2tune_handle_early(struct jbd2tune_journal *jt,
				  unsigned long start_jiffies)
{
	/* acquire: a delay seen active has its start jiffy visible */
	if (!smp_load_acquire(&jt->lock_delay_active))
		return true;
	return !time_after(start_jiffies, READ_ONCE(jt->lock_delay_from));
}

/**
 * jbd2tune_handle_joined() - a handle joined the running transaction
 * @journal: its journal
 * @start_jiffies: the handle's h_start_jiffies
 *
 * Called by start_this_handle() under the read side of j_state_lock, after
 * h_start_jiffies is set and before the handle can stop.
 */
void jbd2tune_handle_joined(journal_t *journal, unsigned long start_jiffies)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	if (jbd2tune_handle_early(jt, start_jiffies))
		atomic_inc(&jt->lock_early_updates);
}

/**
 * jbd2tune_handle_leaving() - a handle is about to stop
 * @journal: its journal
 * @start_jiffies: the handle's h_start_jiffies
 *
 * Called by stop_this_handle() before it drops t_updates (the transaction
 * may be committed and freed after that); no locks needed.  Wakes a commit
 * waiting in jbd2tune_lock_delay() when the last early handle stops.
 */
void jbd2tune_handle_leaving(journal_t *journal, unsigned long start_jiffies)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	if (!jbd2tune_handle_early(jt, start_jiffies))
		return;
	if (!atomic_dec_and_test(&jt->lock_early_updates))
		return;
	/*
	 * atomic_dec_and_test() is a full barrier, and the waiter's
	 * prepare_to_wait() is one before it reads the count again.
	 */
	if (waitqueue_active(&journal->j_wait_updates))
		wake_up(&journal->j_wait_updates);
}

/**
 * jbd2tune_lock_delay() - wait, still T_RUNNING, for the early handles
 * @journal: the journal whose running transaction is to be committed
 *
 * Called by jbd2_journal_commit_transaction() with the write side of
 * j_state_lock held, just before it sets T_LOCKED; drops and retakes the
 * lock while it sleeps (uninterruptibly, at most the journal's
 * lock_delay_max_ms; accounted as JBD2TUNE_WAIT_LOCK_DELAY).  Only
 * the commit thread switches the running transaction, so it is the same
 * one on return.  Late handles are not waited for here.
 */
void jbd2tune_lock_delay(journal_t *journal)
	__must_hold(&journal->j_state_lock)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	unsigned int max_ms = READ_ONCE(jt->lock_delay_max_ms);
	unsigned long deadline;
	DEFINE_WAIT(wait);
	u64 start_ns;

	if (!max_ms || !atomic_read(&jt->lock_early_updates))
		return;
	WRITE_ONCE(jt->lock_delay_from, jiffies);
	/* release: pairs with jbd2tune_handle_early() of a handle's stop */
	smp_store_release(&jt->lock_delay_active, true);
	start_ns = jbd2tune_wait_begin();
	deadline = jiffies + msecs_to_jiffies(max_ms);
	for (;;) {
		long left = (long)(deadline - jiffies);

		prepare_to_wait(&journal->j_wait_updates, &wait,
				TASK_UNINTERRUPTIBLE);
		/* left is taken once: a tick later it could be negative */
		if (!atomic_read(&jt->lock_early_updates) || left <= 0)
			break;
		write_unlock(&journal->j_state_lock);
		schedule_timeout(left);
		write_lock(&journal->j_state_lock);
	}
	finish_wait(&journal->j_wait_updates, &wait);
	jbd2tune_wait_done(journal, JBD2TUNE_WAIT_LOCK_DELAY, start_ns);
}

/**
 * jbd2tune_lock_delay_done() - the committing transaction has no handle left
 * @journal: the journal
 *
 * Called by jbd2_journal_commit_transaction() with the write side of
 * j_state_lock held, after jbd2_journal_wait_updates() and before
 * T_SWITCH: no handle is open, so every handle of the next transaction is
 * early again.
 */
void jbd2tune_lock_delay_done(journal_t *journal)
	__must_hold(&journal->j_state_lock)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	WARN_ON_ONCE(atomic_read(&jt->lock_early_updates));
	if (jt->lock_delay_active)
		WRITE_ONCE(jt->lock_delay_active, false);
}
