// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_journal.c - per-journal state beside journal_t, the registry of
 * live journals and the knobs
 *
 * journal_init_common() allocates a struct jbd2tune_journal instead of a
 * bare journal_t (jbd2tune_journal_alloc()), and jbd2_journal_destroy()
 * frees it (jbd2tune_journal_free()).  Between jbd2tune_journal_register()
 * (called once j_devname is set) and jbd2tune_journal_unregister() (first
 * thing in jbd2_journal_destroy()) the journal is on jbd2tune_journals and
 * has a configfs group.
 */

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "jbd2tune.h"

/* Protects jbd2tune_journals and jbd2tune_journal.registered. */
DEFINE_MUTEX(jbd2tune_lock);
LIST_HEAD(jbd2tune_journals);

/**
 * jbd2tune_parse_uint() - parse one knob value written by a user
 * @buf: the bytes written; need not be NUL-terminated
 * @len: number of bytes in @buf
 * @max: largest accepted value
 * @val: result, only written on success
 *
 * Accepts one decimal number with optional leading and trailing white
 * space.  Empty input, signs, other bases, trailing characters, more than
 * one number, overflow and values above @max are rejected.  Pure function,
 * no locking.
 *
 * Return: 0 or -EINVAL.
 */
int jbd2tune_parse_uint(const char *buf, size_t len, unsigned int max,
			unsigned int *val)
{
	char tmp[24];
	size_t start = 0, end = len, i;
	unsigned int v;

	while (start < end && isspace(buf[start]))
		start++;
	while (end > start && (isspace(buf[end - 1]) || !buf[end - 1]))
		end--;
	if (start == end || end - start >= sizeof(tmp))
		return -EINVAL;
	for (i = start; i < end; i++)
		if (!isdigit(buf[i]))
			return -EINVAL;
	memcpy(tmp, buf + start, end - start);
	tmp[end - start] = '\0';
	if (kstrtouint(tmp, 10, &v) || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

/**
 * jbd2tune_set_force_copy() - set a journal's force_copy knob
 * @jt: the journal
 * @val: 0 or 1
 *
 * Takes effect at the next commit.  No locking needed: the knob is a
 * single word read with READ_ONCE().
 *
 * Return: 0 or -EINVAL.
 */
int jbd2tune_set_force_copy(struct jbd2tune_journal *jt, unsigned int val)
{
	if (val > 1)
		return -EINVAL;
	WRITE_ONCE(jt->force_copy, val);
	return 0;
}

static int jbd2tune_lock_delay_store(struct jbd2tune_journal *jt,
				     unsigned int val);

/**
 * jbd2tune_set_lock_delay_max_ms() - set a journal's lock_delay_max_ms knob
 * @jt: the journal
 * @val: 0 (the commit locks the running transaction at once, as stock) or
 *	1..JBD2TUNE_LOCK_DELAY_MS_MAX milliseconds
 *
 * A non-zero value first takes the journal's reference on
 * jbd2tune_lock_delay_key (may sleep: code patching); handles start
 * counting at once if no transaction is running, else at the T_SWITCH of
 * the commit this starts (jbd2tune_lock_delay_kick()), so the delay
 * applies from the commit after that one.  0 stops counting at the next
 * T_SWITCH, or at once with no transaction running
 * (jbd2tune_lock_delay_idle_off()), after which the reference is dropped
 * (jbd2tune_lock_delay.c).
 * Takes lock_key_mutex and j_state_lock; the journal must be loaded.
 *
 * Return: 0 or -EINVAL (the knob keeps its value).
 */
int jbd2tune_set_lock_delay_max_ms(struct jbd2tune_journal *jt,
				   unsigned int val)
{
	int err = jbd2tune_lock_delay_store(jt, val);

	if (!err && val)
		jbd2tune_lock_delay_kick(jt);
	else if (!err)
		jbd2tune_lock_delay_idle_off(jt);
	return err;
}

/*
 * The knob and the key reference, without starting a commit: for a
 * journal being set up as well (jbd2tune_journal_alloc()).
 */
static int jbd2tune_lock_delay_store(struct jbd2tune_journal *jt,
				     unsigned int val)
{
	if (val > JBD2TUNE_LOCK_DELAY_MS_MAX)
		return -EINVAL;
	mutex_lock(&jt->lock_key_mutex);
	if (val && !jt->lock_key_held) {
		static_branch_inc(&jbd2tune_lock_delay_key);
		/* release: T_SWITCH counts only once the key is on */
		smp_store_release(&jt->lock_key_held, true);
	}
	WRITE_ONCE(jt->lock_delay_max_ms, val);
	if (!val && jt->lock_key_held)
		schedule_work(&jt->lock_key_work);
	mutex_unlock(&jt->lock_key_mutex);
	return 0;
}

/**
 * jbd2tune_set_force_copy_max_kib() - cap the memory of forced copies
 * @jt: the journal
 * @val: KiB, 0..JBD2TUNE_FORCE_COPY_MAX_KIB_MAX (0: force no copy)
 *
 * Checked by the next forced copy (jbd2tune_copyout.c).  No locking
 * needed.
 *
 * Return: 0 or -EINVAL (the knob keeps its value).
 */
int jbd2tune_set_force_copy_max_kib(struct jbd2tune_journal *jt,
				    unsigned int val)
{
	if (val > JBD2TUNE_FORCE_COPY_MAX_KIB_MAX)
		return -EINVAL;
	WRITE_ONCE(jt->force_copy_max_kib, val);
	return 0;
}

/**
 * jbd2tune_set_reclaim_watermark_pct() - set a journal's reclaim watermark
 * @jt: the journal
 * @val: 0 (off) or a percentage of the log inside the journal's range,
 *	jbd2tune_watermark_range()
 *
 * Checked at the next handle start.  No locking needed.
 *
 * Return: 0, or -EINVAL for a watermark outside the range (the knob keeps
 * its value).
 */
int jbd2tune_set_reclaim_watermark_pct(struct jbd2tune_journal *jt,
				       unsigned int val)
{
	unsigned int lo, hi;

	if (val) {
		jbd2tune_watermark_range(&jt->journal, &lo, &hi);
		if (!hi || val < lo || val > hi)
			return -EINVAL;
	}
	WRITE_ONCE(jt->reclaim_watermark_pct, val);
	return 0;
}

/**
 * jbd2tune_journal_alloc() - allocate a zeroed journal with our state
 *
 * Called by journal_init_common() in place of kzalloc(sizeof(journal_t)).
 * The knobs start at the module parameters' current defaults.  May sleep.
 *
 * Return: the embedded journal_t, or NULL.
 */
journal_t *jbd2tune_journal_alloc(void)
{
	struct jbd2tune_journal *jt;

	jt = kzalloc(sizeof(*jt), GFP_KERNEL);
	if (!jt)
		return NULL;
	INIT_LIST_HEAD(&jt->node);
	jt->force_copy = jbd2tune_force_copy_default();
	jt->force_copy_max_kib = JBD2TUNE_FORCE_COPY_MAX_KIB_DEFAULT;
	jt->reclaim_watermark_pct = jbd2tune_reclaim_watermark_pct_default();
	jbd2tune_lock_delay_setup(jt);
	jbd2tune_shadow_avoided_setup(jt);
	jbd2tune_lock_delay_store(jt, jbd2tune_lock_delay_max_ms_default());
	jbd2tune_reclaim_setup(jt);
	jbd2tune_events_setup(jt);
	return &jt->journal;
}

/**
 * jbd2tune_journal_free() - free a journal from jbd2tune_journal_alloc()
 * @journal: the journal, already unregistered (or never registered), with
 *	no commit left to run
 *
 * May sleep (drops the journal's lock-delay key reference).
 */
void jbd2tune_journal_free(journal_t *journal)
{
	struct jbd2tune_journal *jt;

	if (!journal)
		return;
	jt = jbd2tune_of(journal);
	WARN_ON_ONCE(jt->registered);
	jbd2tune_lock_delay_teardown(jt);
	jbd2tune_shadow_avoided_teardown(jt);
	kfree(jt);
}

/**
 * jbd2tune_journal_register() - publish a journal once j_devname is known
 * @journal: the journal
 *
 * Adds the journal to the registry and creates its configfs group.  Called
 * from jbd2_journal_init_dev()/jbd2_journal_init_inode(); may sleep.  A
 * failure to create the group is logged, the journal works without it.
 */
void jbd2tune_journal_register(journal_t *journal)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	mutex_lock(&jbd2tune_lock);
	list_add_tail(&jt->node, &jbd2tune_journals);
	jt->registered = true;
	mutex_unlock(&jbd2tune_lock);

	jbd2tune_configfs_add(jt);
	jbd2tune_events_add(jt);
}

/**
 * jbd2tune_journal_unregister() - withdraw a journal before it is destroyed
 * @journal: the journal
 *
 * Stops background reclaim (waiting for a running work item), removes the
 * configfs group and takes the journal off the registry.  Called first
 * thing in jbd2_journal_destroy(); may sleep.
 */
void jbd2tune_journal_unregister(journal_t *journal)
{
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	jbd2tune_reclaim_stop(jt, true);
	jbd2tune_configfs_remove(jt);

	mutex_lock(&jbd2tune_lock);
	if (jt->registered) {
		list_del_init(&jt->node);
		jt->registered = false;
	}
	mutex_unlock(&jbd2tune_lock);
	jbd2tune_events_remove(jt);
}

/**
 * jbd2tune_journal_aborted() - the journal was aborted
 * @journal: the journal
 *
 * Called from jbd2_journal_abort() with j_abort_mutex held, possibly from
 * the reclaim work itself (a checkpoint I/O error), so it must not wait
 * for that work: it only keeps it from being queued again and cancels a
 * pending run.  A running one notices the abort and returns.
 */
void jbd2tune_journal_aborted(journal_t *journal)
{
	jbd2tune_reclaim_stop(jbd2tune_of(journal), false);
}

/**
 * jbd2tune_init() - module init of the jbd2-tune parts
 *
 * Called from journal_init() after jbd2's caches exist.
 *
 * Return: 0 or a negative errno.
 */
int jbd2tune_init(void)
{
	int err;

	err = jbd2tune_reclaim_init();
	if (err)
		return err;
	err = jbd2tune_configfs_init();
	if (err) {
		jbd2tune_reclaim_exit();
		return err;
	}
	err = jbd2tune_netlink_init();
	if (err) {
		jbd2tune_configfs_exit();
		jbd2tune_reclaim_exit();
		return err;
	}
	return 0;
}

/**
 * jbd2tune_exit() - module exit of the jbd2-tune parts
 *
 * No journal exists any more: ext4 (which holds a reference on us) is gone.
 */
void jbd2tune_exit(void)
{
	jbd2tune_netlink_exit();
	jbd2tune_configfs_exit();
	jbd2tune_reclaim_exit();
}
