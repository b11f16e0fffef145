// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_copyout.c - how far force_copy may go
 *
 * A forced copy (force_copy = 1) is b_frozen_data made by the commit for
 * a buffer that needs no escaping, so that handles of the next
 * transaction need not sleep on BH_Shadow; it is freed when the commit
 * is done.  It is an optimisation and must not make memory pressure
 * worse (issue 22):
 *
 *  - once one forced copy of a commit could not be allocated
 *    (JBD2TUNE_FORCED_COPY_GFP: no retries, one pass of direct reclaim),
 *    the rest of that commit forces none: retrying for every remaining
 *    buffer, each with its own direct reclaim, only adds to the pressure.
 *    force_copy_stops counts such commits; the next commit tries again;
 *  - the memory the forced copies of a commit hold is capped by the
 *    journal's force_copy_max_kib: a copy that would go beyond it is not
 *    forced (copyouts_forced_capped).  Without the cap it was bounded
 *    only by j_max_transaction_buffers blocks: hundreds of MiB on a
 *    1 GiB journal, and data blocks too under data=journal.
 *
 * force_copy_bytes is what the running commit's forced copies hold,
 * force_copy_bytes_peak the most they ever held.  Everything here runs in
 * the task that commits (the commit thread, or jbd2_journal_destroy()'s
 * final commit once that thread is gone): the fc_* fields are its own,
 * and the atomics are only for readers.
 */

#include "jbd2tune.h"

static void jbd2tune_fc_release(struct jbd2tune_journal *jt)
{
	if (jt->fc_bytes)
		atomic64_sub(jt->fc_bytes, &jt->force_copy_bytes);
	jt->fc_bytes = 0;
	jt->fc_stopped = false;
	jt->fc_active = false;
}

/**
 * jbd2tune_force_copy_allowed() - may this commit force one more copy?
 * @journal: the journal being committed
 * @tid: the committing transaction
 * @size: the copy's size, bytes
 *
 * Called by jbd2tune_force_copy() with the knob on, in the committing
 * task.  A new @tid means the previous commit is over (its copies were
 * freed), should jbd2tune_force_copy_commit_done() not have said so.
 *
 * Return: false after a failed forced copy in this commit (counted in
 * copyouts_forced_failed and force_copy_stops already) or when @size
 * more would exceed force_copy_max_kib (counted in
 * copyouts_forced_capped); true otherwise.
 */
bool jbd2tune_force_copy_allowed(journal_t *journal, tid_t tid, size_t size)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	u64 cap = (u64)READ_ONCE(jt->force_copy_max_kib) * 1024;

	if (jt->fc_active && jt->fc_tid != tid)
		jbd2tune_fc_release(jt);
	if (!jt->fc_active) {
		jt->fc_active = true;
		jt->fc_tid = tid;
	}
	if (jt->fc_stopped)
		return false;
	if (jt->fc_bytes + size > cap) {
		atomic64_inc(&jt->copyouts_forced_capped);
		return false;
	}
	return true;
}

/**
 * jbd2tune_count_forced_copyout() - a copy-out was made for force_copy only
 * @journal: the journal being committed
 * @size: its size, bytes; held until the commit is done
 */
void jbd2tune_count_forced_copyout(journal_t *journal, size_t size)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);
	s64 held, peak;

	atomic64_inc(&jt->copyouts_forced);
	jt->fc_bytes += size;
	held = atomic64_add_return(size, &jt->force_copy_bytes);
	peak = atomic64_read(&jt->force_copy_bytes_peak);
	while (peak < held &&
	       !atomic64_try_cmpxchg(&jt->force_copy_bytes_peak, &peak, held))
		;
}

/**
 * jbd2tune_count_forced_copyout_failed() - a forced copy could not be made
 * @journal: the journal being committed
 *
 * The JBD2TUNE_FORCED_COPY_GFP allocation failed; the buffer is logged
 * from its own page, shadowed, as without force_copy, and so are the
 * remaining buffers of this commit.
 */
void jbd2tune_count_forced_copyout_failed(journal_t *journal)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	atomic64_inc(&jt->copyouts_forced_failed);
	if (!jt->fc_stopped) {
		jt->fc_stopped = true;
		atomic64_inc(&jt->force_copy_stops);
	}
}

/**
 * jbd2tune_force_copy_commit_done() - the commit's forced copies are freed
 * @journal: the journal committed
 *
 * Called from jbd2tune_commit_done() in the committing task.
 */
void jbd2tune_force_copy_commit_done(journal_t *journal)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	if (jt->fc_active)
		jbd2tune_fc_release(jt);
}
