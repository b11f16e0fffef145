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
 *
 * Off means free (issue 22): with lock_delay_max_ms 0 on every journal a
 * handle does no atomic and reads nothing of ours.  The handle hooks sit
 * behind a static key, jbd2tune_lock_delay_key, on while some journal
 * holds a reference (lock_key_held: taken when its knob is set non-zero,
 * dropped by lock_key_work once it no longer counts).  Behind the key a
 * handle counts only while its journal's lock_counting is set, and that
 * flag changes only at T_SWITCH or, with no transaction running, when the
 * knob is written (jbd2tune_lock_delay_kick(), _idle_off()), under the
 * write side of j_state_lock, when no handle of the journal is open:
 * every handle's start and stop
 * therefore see the same lock_counting (its start comes after the flag's
 * last change under j_state_lock, its stop before the next change, which
 * waits for t_updates to drop to 0 after the stop).  The key is on
 * whenever lock_counting is set (set only once lock_key_held is, which
 * is published after static_branch_inc() returned; the reference is
 * dropped only when the flag is clear and the knob is 0, so it cannot be
 * set again meanwhile), so a counting handle never loses its key between
 * start and stop; a handle that sees the key off, or the flag clear,
 * neither counts nor uncounts.  The count restarts at 0 whenever counting
 * is switched on.  The price: a knob set non-zero starts a commit
 * (jbd2tune_lock_delay_kick()) and takes effect from the commit after it,
 * and while any journal has a delay set, every handle of every journal
 * reads its own lock_counting (no write).
 *
 * What the delay spares (locked_waits_avoided, locked_wait_avoided_us,
 * locked_waits_avoided_untimed): without it, a handle that joins the
 * running transaction while the commit waits would have met T_LOCKED and
 * slept in wait_transaction_locked() at least until the early handles
 * stopped, i.e. until the delay's end.  Its task would have slept there
 * once: its later handles come only after that wait.  So a task counts
 * one avoided locked wait per delay, from its first join during the
 * delay to the delay's end; its later joins in the same delay count
 * nothing.  The tasks of the current delay are kept in a small table
 * (la_slots, claimed with cmpxchg() by joining handles under the read
 * side of j_state_lock: no lock on the handle start path); an entry's
 * task is only compared, never dereferenced.
 * A join that finds the table full is counted without a duration
 * (locked_waits_avoided_untimed too), once per join since such a task
 * cannot be told from one already counted.  The commit ends every entry
 * at the delay's end, under the write side of j_state_lock, and empties
 * the table.  Only behind the static key and only while a delay waits:
 * nothing more with the knob off.  For one task the figure is a lower
 * bound of what stock jbd2 would have cost it (it would also have waited
 * for the late handles and T_SWITCH).  Until this rule every handle
 * start counted, with all the delay left (kmod-lock-delay on 6.1: 761
 * avoided waits and 1,246 s for one 3.3 s delay, against 2 locked waits
 * of 3.7 s in all without the knob).
 */

#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "jbd2tune.h"

/* On while some journal holds a reference (lock_key_held). */
DEFINE_STATIC_KEY_FALSE(jbd2tune_lock_delay_key);

/*
 * The current task joins the running transaction during a lock delay:
 * open its avoided locked wait unless it has one open in this delay.
 * Under the read side of j_state_lock (the delay cannot end meanwhile),
 * without a lock of ours: this is the handle start path.  Slots are
 * claimed in order with cmpxchg() and stay claimed until the delay's
 * end, so a task's own slot lies before the first free one; a task
 * never races with itself.
 */
static void jbd2tune_locked_avoided_join(struct jbd2tune_journal *jt)
{
	struct jbd2tune_locked_avoided *la;
	unsigned int i;

	for (i = 0; i < JBD2TUNE_LOCKED_AVOIDED_SLOTS; i++) {
		const struct task_struct *t;

		la = &jt->la_slots[i];
		t = READ_ONCE(la->task);
		if (t == current)
			return;	/* asleep already, were it the stock code */
		if (!t && !cmpxchg(&la->task, NULL, current)) {
			/* read at the delay's end, under the write side */
			la->start_ns = ktime_get_ns();
			return;
		}
	}
	atomic64_inc(&jt->locked_waits_avoided);
	atomic64_inc(&jt->locked_waits_avoided_untimed);
}

static bool jbd2tune_handle_early(struct jbd2tune_journal *jt,
				  unsigned long start_jiffies)
{
	/* acquire: a delay seen active has its start jiffy visible */
	if (!smp_load_acquire(&jt->lock_delay_active))
		return true;
	return !time_after(start_jiffies, READ_ONCE(jt->lock_delay_from));
}

/**
 * jbd2tune_handle_joined_slow() - jbd2tune_handle_joined() with the key on
 * @journal: the handle's journal
 * @start_jiffies: the handle's h_start_jiffies
 *
 * Under the read side of j_state_lock.  Counts an early handle if the
 * journal counts.
 */
void jbd2tune_handle_joined_slow(journal_t *journal,
				 unsigned long start_jiffies)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	if (!READ_ONCE(jt->lock_counting))
		return;
	/* j_state_lock (read) orders this with the delay's start and end */
	if (READ_ONCE(jt->lock_avoid_open))
		jbd2tune_locked_avoided_join(jt);
	if (jbd2tune_handle_early(jt, start_jiffies))
		atomic_inc(&jt->lock_early_updates);
}

/**
 * jbd2tune_handle_leaving_slow() - jbd2tune_handle_leaving() with the key on
 * @journal: the handle's journal
 * @start_jiffies: the handle's h_start_jiffies
 *
 * No locks needed (the transaction may be committed and freed once the
 * caller drops t_updates, our journal state stays).  Wakes a commit
 * waiting in jbd2tune_lock_delay() when the last early handle stops.
 */
void jbd2tune_handle_leaving_slow(journal_t *journal,
				  unsigned long start_jiffies)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	if (!READ_ONCE(jt->lock_counting))
		return;
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

/*
 * The delay ends now: end the avoided locked wait of every task that
 * joined during it, and free the slots for the next delay.  Under the
 * write side of j_state_lock, with lock_avoid_open already clear, so no
 * handle is joining.
 */
static void jbd2tune_locked_avoided_end(struct jbd2tune_journal *jt)
{
	u64 now = ktime_get_ns(), ns = 0;
	unsigned int i, used = 0;

	for (i = 0; i < JBD2TUNE_LOCKED_AVOIDED_SLOTS; i++) {
		struct jbd2tune_locked_avoided *la = &jt->la_slots[i];

		if (!la->task)
			break;	/* claimed in order: none after it */
		if (now > la->start_ns)
			ns += now - la->start_ns;
		WRITE_ONCE(la->task, NULL);
		used++;
	}
	if (!used)
		return;
	atomic64_add(used, &jt->locked_waits_avoided);
	atomic64_add(div_u64(ns, NSEC_PER_USEC), &jt->locked_wait_avoided_us);
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
 * one on return.  Late handles are not waited for here.  The tasks
 * that joined meanwhile are added to locked_waits_avoided and
 * locked_wait_avoided_us, one avoided wait each (see the head of the
 * file).
 */
void jbd2tune_lock_delay(journal_t *journal)
	__must_hold(&journal->j_state_lock)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	unsigned int max_ms = READ_ONCE(jt->lock_delay_max_ms);
	unsigned long deadline;
	DEFINE_WAIT(wait);
	u64 start_ns;

	if (!max_ms || !jt->lock_counting ||
	    !atomic_read(&jt->lock_early_updates))
		return;
	WRITE_ONCE(jt->lock_delay_from, jiffies);
	/* release: pairs with jbd2tune_handle_early() of a handle's stop */
	smp_store_release(&jt->lock_delay_active, true);
	start_ns = jbd2tune_wait_begin();
	WRITE_ONCE(jt->lock_avoid_open, true);
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
	WRITE_ONCE(jt->lock_avoid_open, false);
	jbd2tune_locked_avoided_end(jt);
	jbd2tune_wait_done(journal, JBD2TUNE_WAIT_LOCK_DELAY, start_ns);
}

/**
 * jbd2tune_lock_delay_done() - the committing transaction has no handle left
 * @journal: the journal
 *
 * Called by jbd2_journal_commit_transaction() with the write side of
 * j_state_lock held, after jbd2_journal_wait_updates() and before
 * T_SWITCH: no handle is open, so every handle of the next transaction is
 * early again.  Checks that no early handle is left counted (the count
 * is reset to 0 after a warning), then switches counting on or off for
 * the next transaction.
 */
void jbd2tune_lock_delay_done(journal_t *journal)
	__must_hold(&journal->j_state_lock)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	bool held, want;

	/*
	 * jbd2_journal_wait_updates() has just read t_updates as 0.  Each
	 * handle dropped its early count before its t_updates, with the
	 * full barrier of atomic_dec_and_test() between the two; the read
	 * barrier makes our read of the count come after that read of
	 * t_updates (acquire), so it sees every handle's drop even on a
	 * weakly ordered CPU and cannot warn falsely.
	 */
	smp_rmb();
	/*
	 * A count left over would make every later commit wait the whole
	 * bound.  No handle is open (new ones wait for T_SWITCH to end
	 * before they count), so it is safe to start again from 0.
	 */
	if (jt->lock_counting &&
	    WARN_ON_ONCE(atomic_read(&jt->lock_early_updates)))
		atomic_set(&jt->lock_early_updates, 0);
	if (jt->lock_delay_active)
		WRITE_ONCE(jt->lock_delay_active, false);

	/*
	 * The boundary where counting may change (see the head of the
	 * file): on only with the knob set and the key reference taken.
	 */
	/* acquire: pairs with the setter's release once the key is on */
	held = smp_load_acquire(&jt->lock_key_held);
	want = held && READ_ONCE(jt->lock_delay_max_ms);
	if (want != jt->lock_counting) {
		atomic_set(&jt->lock_early_updates, 0);
		WRITE_ONCE(jt->lock_counting, want);
	}
	if (!want && held)
		schedule_work(&jt->lock_key_work);
}

/*
 * Drop the journal's key reference once it no longer counts and its knob
 * is 0.  The knob cannot become non-zero meanwhile (the setter takes
 * lock_key_mutex), so no T_SWITCH sets lock_counting again until a
 * setter has taken a new reference.
 */
static void jbd2tune_lock_key_work(struct work_struct *work)
{
	struct jbd2tune_journal *jt =
		container_of(work, struct jbd2tune_journal, lock_key_work);
	journal_t *journal = &jt->journal;
	bool counting;

	mutex_lock(&jt->lock_key_mutex);
	read_lock(&journal->j_state_lock);
	counting = jt->lock_counting;
	read_unlock(&journal->j_state_lock);
	if (jt->lock_key_held && !counting &&
	    !READ_ONCE(jt->lock_delay_max_ms)) {
		WRITE_ONCE(jt->lock_key_held, false);
		static_branch_dec(&jbd2tune_lock_delay_key);
	}
	mutex_unlock(&jt->lock_key_mutex);
}

/**
 * jbd2tune_lock_delay_kick() - let a newly set lock delay start counting soon
 * @jt: the journal (loaded and registered); lock_delay_max_ms just set
 *	non-zero and lock_key_held taken
 *
 * Counting starts at a T_SWITCH.  With no running transaction no handle
 * is open, so it is switched on here, under the write side of
 * j_state_lock; otherwise the running transaction's commit is started
 * (not waited for), so the delay applies from the commit after it rather
 * than after the next commit interval.  May sleep.
 */
void jbd2tune_lock_delay_kick(struct jbd2tune_journal *jt)
{
	journal_t *journal = &jt->journal;
	tid_t tid = 0;
	bool commit = false;

	write_lock(&journal->j_state_lock);
	if (jt->lock_counting || !jt->lock_key_held) {
		/* already counting, or the knob was cleared meanwhile */
	} else if (!journal->j_running_transaction) {
		atomic_set(&jt->lock_early_updates, 0);
		WRITE_ONCE(jt->lock_counting, true);
	} else {
		tid = journal->j_running_transaction->t_tid;
		commit = true;
	}
	write_unlock(&journal->j_state_lock);
	if (commit)
		jbd2_log_start_commit(journal, tid);
}

/**
 * jbd2tune_lock_delay_idle_off() - stop an idle journal's counting now
 * @jt: the journal (loaded and registered); lock_delay_max_ms just set 0
 *
 * Counting stops at a T_SWITCH, but a journal with no running transaction
 * has no commit to come: it would count, and hold its key reference (so
 * every handle of every journal takes the slow path), until its next
 * transaction commits.  With no running transaction no handle is open, so
 * counting stops here, under the write side of j_state_lock, as
 * jbd2tune_lock_delay_kick() starts it; lock_key_work then drops the
 * reference.  With a transaction running its commit's T_SWITCH does both.
 * Does not sleep (a spinning lock, then schedule_work()).
 */
void jbd2tune_lock_delay_idle_off(struct jbd2tune_journal *jt)
{
	journal_t *journal = &jt->journal;
	bool stopped = false;

	write_lock(&journal->j_state_lock);
	if (jt->lock_counting && !journal->j_running_transaction &&
	    !READ_ONCE(jt->lock_delay_max_ms)) {
		atomic_set(&jt->lock_early_updates, 0);
		WRITE_ONCE(jt->lock_counting, false);
		stopped = true;
	}
	write_unlock(&journal->j_state_lock);
	if (stopped)
		schedule_work(&jt->lock_key_work);
}

/**
 * jbd2tune_lock_delay_setup() - initialise a new journal's lock-delay state
 * @jt: the journal, not yet visible to anyone
 */
void jbd2tune_lock_delay_setup(struct jbd2tune_journal *jt)
{
	mutex_init(&jt->lock_key_mutex);
	INIT_WORK(&jt->lock_key_work, jbd2tune_lock_key_work);
}

/**
 * jbd2tune_lock_delay_teardown() - drop a dying journal's key reference
 * @jt: the journal; no handle, commit or knob write can come any more
 *
 * Waits for a queued lock_key_work.  May sleep.
 */
void jbd2tune_lock_delay_teardown(struct jbd2tune_journal *jt)
{
	cancel_work_sync(&jt->lock_key_work);
	if (jt->lock_key_held) {
		jt->lock_key_held = false;
		static_branch_dec(&jbd2tune_lock_delay_key);
	}
}
