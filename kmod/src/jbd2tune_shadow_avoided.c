// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_shadow_avoided.c - the shadow waits force_copy spares
 *
 * With force_copy on, the commit writes a private copy (b_frozen_data) of
 * a metadata buffer, and do_get_write_access() of a handle in the next
 * transaction finds it before it looks at BH_Shadow: it goes on where the
 * stock code would sleep until the buffer's log write completes.  Such an
 * access is an avoided shadow wait when the buffer is still BH_Shadow at
 * that moment (checked under jh->b_state_lock, which the access holds).
 *
 * What the stock task would have lost: it sleeps at its first shadowed
 * buffer and, when it wakes, the commit's other log writes are mostly
 * done too.  So a task counts at most one avoided wait at a time per
 * committing transaction (a second shadowed buffer met while its first
 * one is still open is not counted), and the wait lasts from the access
 * to the completion of that buffer's log write.  The completion is seen in
 * journal_end_buffer_io_sync(), where BH_Shadow of the original buffer is
 * cleared: jbd2tune_shadow_io_done() ends every open avoided wait of that
 * buffer there.
 *
 * The open waits of a journal live in a small table (sa_slots, under the
 * irq-safe sa_lock: the end of a log write runs in interrupt context).
 * Its entries hold the buffer and the task only to compare them, never to
 * dereference them: a buffer or task freed and reused while an entry is
 * open can at worst end or merge one avoided wait wrongly.  A full table
 * still counts the access (shadow_waits_avoided_untimed as well), without
 * a duration.  Entries still open when their commit is done (a log write
 * whose completion was missed, an aborted journal) are ended there.
 *
 * The cost when nothing is open: the completion of every log write reads
 * one global atomic, jbd2tune_shadow_avoided_open; with force_copy off an
 * access to a frozen buffer reads the knob, nothing more.
 *
 * Ordering: an access counts itself open (the global and the journal's
 * sa_open, full barrier) before it tests BH_Shadow, and the completion
 * clears BH_Shadow (full barrier) before it reads those counts; both test
 * under sa_lock.  So either the access sees BH_Shadow clear and opens
 * nothing, or the completion sees the count and finds the entry.
 */

#include <linux/math64.h>
#include <linux/sched.h>

#include "jbd2tune.h"

/* Open avoided shadow waits of all journals (sa_open summed). */
atomic_t jbd2tune_shadow_avoided_open = ATOMIC_INIT(0);

static void jbd2tune_sa_open_inc(struct jbd2tune_journal *jt)
{
	atomic_inc(&jbd2tune_shadow_avoided_open);
	atomic_inc(&jt->sa_open);
}

static void jbd2tune_sa_open_dec(struct jbd2tune_journal *jt)
{
	atomic_dec(&jt->sa_open);
	atomic_dec(&jbd2tune_shadow_avoided_open);
}

/* Account and free one slot; under sa_lock. */
static void jbd2tune_sa_end(struct jbd2tune_journal *jt,
			    struct jbd2tune_shadow_avoided *sa, u64 now_ns)
{
	u64 ns = now_ns > sa->start_ns ? now_ns - sa->start_ns : 0;

	jbd2tune_wait_account(jt, JBD2TUNE_WAIT_SHADOW_AVOIDED,
			      div_u64(ns, NSEC_PER_USEC));
	sa->bh = NULL;
	sa->task = NULL;
	jbd2tune_sa_open_dec(jt);
}

/**
 * jbd2tune_shadow_avoided() - a handle went on past a shadowed buffer
 * @journal: the journal
 * @bh: the buffer, BH_Shadow when jbd2tune_shadow_access() looked
 * @tid: the committing transaction, whose log write holds @bh
 *
 * Called from jbd2tune_shadow_access() with jh->b_state_lock held and
 * force_copy on.  Opens an avoided wait for the current task unless it
 * has one open in @tid already, or @bh is no longer BH_Shadow.  Does not
 * sleep; takes sa_lock with interrupts off.
 */
void jbd2tune_shadow_avoided(journal_t *journal, struct buffer_head *bh,
			     tid_t tid)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	struct jbd2tune_shadow_avoided *free = NULL;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&jt->sa_lock, flags);
	for (i = 0; i < JBD2TUNE_SHADOW_AVOIDED_SLOTS; i++) {
		struct jbd2tune_shadow_avoided *sa = &jt->sa_slots[i];

		if (!sa->bh) {
			if (!free)
				free = sa;
		} else if (sa->task == current && sa->tid == tid) {
			/* asleep already, were it the stock code */
			spin_unlock_irqrestore(&jt->sa_lock, flags);
			return;
		}
	}
	jbd2tune_sa_open_inc(jt);
	/* counted open before BH_Shadow is read: see the head of the file */
	smp_mb__after_atomic();
	if (!buffer_shadow(bh)) {
		jbd2tune_sa_open_dec(jt);
	} else if (free) {
		free->bh = bh;
		free->task = current;
		free->tid = tid;
		free->start_ns = ktime_get_ns();
	} else {
		jbd2tune_sa_open_dec(jt);
		atomic64_inc(&jt->waits[JBD2TUNE_WAIT_SHADOW_AVOIDED].count);
		atomic64_inc(&jt->shadow_waits_avoided_untimed);
	}
	spin_unlock_irqrestore(&jt->sa_lock, flags);
}

/**
 * jbd2tune_shadow_io_done_slow() - jbd2tune_shadow_io_done() with waits open
 * @orig_bh: the buffer whose log write completed, BH_Shadow just cleared
 *
 * Interrupt or task context.  The log buffer is still locked, so the
 * commit has not refiled @orig_bh: its journal head's b_transaction is
 * the committing transaction and gives the journal.
 */
void jbd2tune_shadow_io_done_slow(struct buffer_head *orig_bh)
{
	struct journal_head *jh;
	transaction_t *transaction;
	struct jbd2tune_journal *jt;
	unsigned long flags;
	u64 now;
	int i;

	if (!buffer_jbd(orig_bh))
		return;
	jh = bh2jh(orig_bh);
	transaction = READ_ONCE(jh->b_transaction);
	if (!transaction)
		return;
	jt = jbd2tune_of(transaction->t_journal);
	if (!atomic_read(&jt->sa_open))
		return;
	now = ktime_get_ns();
	spin_lock_irqsave(&jt->sa_lock, flags);
	for (i = 0; i < JBD2TUNE_SHADOW_AVOIDED_SLOTS; i++) {
		struct jbd2tune_shadow_avoided *sa = &jt->sa_slots[i];

		if (sa->bh == orig_bh)
			jbd2tune_sa_end(jt, sa, now);
	}
	spin_unlock_irqrestore(&jt->sa_lock, flags);
}

/**
 * jbd2tune_shadow_avoided_commit_done() - end what a commit left open
 * @journal: the journal; j_commit_sequence is the commit just done
 *
 * Called from jbd2tune_commit_done() by the committing task.  Every log
 * write of the commit has completed, so an entry of it still open missed
 * its completion: it ends now.  One atomic read when nothing is open.
 */
void jbd2tune_shadow_avoided_commit_done(journal_t *journal)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	tid_t done = READ_ONCE(journal->j_commit_sequence);
	unsigned long flags;
	u64 now;
	int i;

	if (!atomic_read(&jt->sa_open))
		return;
	now = ktime_get_ns();
	spin_lock_irqsave(&jt->sa_lock, flags);
	for (i = 0; i < JBD2TUNE_SHADOW_AVOIDED_SLOTS; i++) {
		struct jbd2tune_shadow_avoided *sa = &jt->sa_slots[i];

		if (sa->bh && !tid_gt(sa->tid, done))
			jbd2tune_sa_end(jt, sa, now);
	}
	spin_unlock_irqrestore(&jt->sa_lock, flags);
}

/**
 * jbd2tune_shadow_avoided_setup() - initialise a new journal's table
 * @jt: the journal, zeroed and not yet visible to anyone
 */
void jbd2tune_shadow_avoided_setup(struct jbd2tune_journal *jt)
{
	spin_lock_init(&jt->sa_lock);
}

/**
 * jbd2tune_shadow_avoided_teardown() - forget a dying journal's open waits
 * @jt: the journal; no commit, handle or log write of it remains
 *
 * Gives back its share of jbd2tune_shadow_avoided_open, so that log
 * writes of other journals do not take the slow path for ever.
 */
void jbd2tune_shadow_avoided_teardown(struct jbd2tune_journal *jt)
{
	int open = atomic_xchg(&jt->sa_open, 0);

	if (open)
		atomic_sub(open, &jbd2tune_shadow_avoided_open);
}
